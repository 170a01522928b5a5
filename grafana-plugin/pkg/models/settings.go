package models

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/grafana/grafana-plugin-sdk-go/backend"

	"github.com/storcast/storcast/grafana-plugin/pkg/storcast"
)

// DefaultTimeout bounds one call to storcast when the settings do not say.
const DefaultTimeout = 10 * time.Second

// MinTimeoutSeconds and MaxTimeoutSeconds bound a timeout that is set. Below
// the minimum no call can be answered (1e-10 would even truncate to an
// already expired 0 ns): every query would fail as "did not answer in time".
const (
	MinTimeoutSeconds = 0.1
	MaxTimeoutSeconds = 600
)

// PluginSettings are the data source's settings.
type PluginSettings struct {
	// URL of storcast, from jsonData.url; the data source's own URL field
	// (the provisioning file's top-level url) is used when jsonData has none.
	URL string `json:"url"`
	// TimeoutSeconds bounds each call to storcast; 0 means DefaultTimeout,
	// others are in MinTimeoutSeconds..MaxTimeoutSeconds.
	TimeoutSeconds float64 `json:"timeoutSeconds"`

	Secrets SecretPluginSettings `json:"-"`
}

// SecretPluginSettings come from secureJsonData, decrypted by Grafana.
type SecretPluginSettings struct {
	// Token is sent as a bearer token, for a storcast behind an
	// authenticating proxy.
	Token string `json:"token"`
}

// Timeout is the per-call timeout.
func (s PluginSettings) Timeout() time.Duration {
	if s.TimeoutSeconds <= 0 {
		return DefaultTimeout
	}
	return time.Duration(s.TimeoutSeconds * float64(time.Second))
}

// LoadPluginSettings decodes and validates the settings of one data source
// instance.
func LoadPluginSettings(source backend.DataSourceInstanceSettings) (PluginSettings, error) {
	var s PluginSettings
	if len(source.JSONData) > 0 && string(source.JSONData) != "null" {
		if err := json.Unmarshal(source.JSONData, &s); err != nil {
			return PluginSettings{}, fmt.Errorf("data source settings (jsonData): %v", err)
		}
	}
	if s.URL == "" {
		s.URL = source.URL
	}
	if _, err := storcast.ParseURL(s.URL); err != nil {
		return PluginSettings{}, err
	}
	if s.TimeoutSeconds != 0 && !(s.TimeoutSeconds >= MinTimeoutSeconds && s.TimeoutSeconds <= MaxTimeoutSeconds) {
		return PluginSettings{}, fmt.Errorf("timeoutSeconds: %g is outside %g..%g (0 or none: the default, %v)",
			s.TimeoutSeconds, MinTimeoutSeconds, float64(MaxTimeoutSeconds), DefaultTimeout)
	}
	s.Secrets.Token = source.DecryptedSecureJSONData["token"]
	if s.Secrets.Token != "" && source.BasicAuthEnabled {
		// One Authorization header: the bearer token would replace the
		// basic auth, and storcast's web config would answer 401.
		return PluginSettings{}, fmt.Errorf("token and basic auth are both set: a request carries one Authorization header; keep one of them")
	}
	return s, nil
}

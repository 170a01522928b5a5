package models

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/grafana/grafana-plugin-sdk-go/backend"
)

func TestLoadPluginSettings(t *testing.T) {
	s, err := LoadPluginSettings(backend.DataSourceInstanceSettings{
		JSONData:                []byte(`{"url":"http://storcast:9595/","timeoutSeconds":2.5,"other":"ignored"}`),
		DecryptedSecureJSONData: map[string]string{"token": "s3cret"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if s.URL != "http://storcast:9595/" || s.Timeout() != 2500*time.Millisecond || s.Secrets.Token != "s3cret" {
		t.Errorf("settings = %+v", s)
	}
	// The data source's own URL field is the fallback.
	s, err = LoadPluginSettings(backend.DataSourceInstanceSettings{URL: "https://sc.example:9595"})
	if err != nil || s.URL != "https://sc.example:9595" || s.Timeout() != DefaultTimeout {
		t.Errorf("fallback: %+v, %v", s, err)
	}
	for js, want := range map[string]string{
		`{}`:                        "storcast URL is empty",
		`{"url":"storcast:9595"}`:   "scheme must be http or https",
		`{"url":"http://"}`:         "no host",
		`{"url":"http://h:1/?x=1"}`: "must not have a query",
		`{"url":"http://h:1","timeoutSeconds":-1}`:    "timeoutSeconds: -1 is outside 0.1..600 (0 or none: the default, 10s)",
		`{"url":"http://h:1","timeoutSeconds":600.5}`: "timeoutSeconds: 600.5 is outside 0.1..600",
		// Positive, but no call is answered in it (1e-10 truncated to 0 ns).
		`{"url":"http://h:1","timeoutSeconds":1e-10}`: "timeoutSeconds: 1e-10 is outside 0.1..600",
		`{"url":"http://h:1","timeoutSeconds":0.09}`:  "timeoutSeconds: 0.09 is outside 0.1..600",
		`{"url":1}`: "data source settings (jsonData)",
		// A password in the URL would be shown wherever the URL is (Save &
		// test, its details): basic auth has its own settings.
		`{"url":"http://admin:s3cret@storcast:9595"}`: "storcast URL http://admin:xxxxx@storcast:9595: must not hold a user or password; set them in the data source's basic auth settings",
		`{"url":"http://admin@storcast:9595"}`:        "must not hold a user or password",
	} {
		if _, err := LoadPluginSettings(backend.DataSourceInstanceSettings{JSONData: []byte(js)}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error = %v, want it to contain %q", js, err, want)
		}
	}
	for _, ts := range []float64{0.1, 600} {
		s, err := LoadPluginSettings(backend.DataSourceInstanceSettings{JSONData: fmt.Appendf(nil, `{"url":"http://h:1","timeoutSeconds":%g}`, ts)})
		if want := time.Duration(ts * float64(time.Second)); err != nil || s.Timeout() != want {
			t.Errorf("timeoutSeconds %g: %v, %v; want %v", ts, s.Timeout(), err, want)
		}
	}
	// Nor is the password shown when the URL does not even parse.
	_, err = LoadPluginSettings(backend.DataSourceInstanceSettings{JSONData: []byte(`{"url":"http://admin:s3cret@storcast:95x5"}`)})
	if err == nil || err.Error() != `storcast URL: invalid port ":95x5" after host` {
		t.Errorf("unparsable URL with a password: %v", err)
	}
	// A token and basic auth would both be an Authorization header.
	_, err = LoadPluginSettings(backend.DataSourceInstanceSettings{
		JSONData: []byte(`{"url":"http://storcast:9595"}`), BasicAuthEnabled: true, BasicAuthUser: "grafana",
		DecryptedSecureJSONData: map[string]string{"token": "s3cret", "basicAuthPassword": "pw"},
	})
	if err == nil || err.Error() != "token and basic auth are both set: a request carries one Authorization header; keep one of them" {
		t.Errorf("token and basic auth: %v", err)
	}
}

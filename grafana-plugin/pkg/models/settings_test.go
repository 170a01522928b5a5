package models

import (
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
		`{"url":"http://h:1","timeoutSeconds":-1}`: "timeoutSeconds: -1 is outside 0..600",
		`{"url":1}`: "data source settings (jsonData)",
	} {
		if _, err := LoadPluginSettings(backend.DataSourceInstanceSettings{JSONData: []byte(js)}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error = %v, want it to contain %q", js, err, want)
		}
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

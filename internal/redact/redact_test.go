package redact

import "testing"

func TestUserinfo(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"http://admin:s3cret@prom:9090/x", "http://admin:xxxxx@prom:9090/x"},
		{"http//admin:s3cret@prom:9090", "http//admin:xxxxx@prom:9090"}, // a path to url.Parse
		{"admin:s3cret@prom:9090", "admin:xxxxx@prom:9090"},             // scheme "admin" to url.Parse
		{"https://:tok@h", "https://:xxxxx@h"},
		{"http://prom:9090", "http://prom:9090"},
		{"http://user@prom:9090", "http://user@prom:9090"}, // no password
		{`prometheus.url: "ftp://a:b@x" is not an http(s) URL`, `prometheus.url: "ftp://a:xxxxx@x" is not an http(s) URL`},
	} {
		if got := Userinfo(c.in); got != c.want {
			t.Errorf("Userinfo(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

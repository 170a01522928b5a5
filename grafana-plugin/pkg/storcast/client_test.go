package storcast_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/storcast/storcast/grafana-plugin/pkg/storcast"
	"github.com/storcast/storcast/grafana-plugin/pkg/storcast/storcasttest"
)

func Example() {
	sc := storcasttest.New(storcasttest.Options{})
	defer sc.Close()
	c, _ := storcast.New(sc.URL, "", nil)
	cls, _ := c.Clusters(context.Background())
	for _, cl := range cls {
		fmt.Println(cl.Name, cl.Kind)
	}
	_, err := c.LatencyCurve(context.Background(), "nope")
	fmt.Println(storcast.KindOf(err), "-", err)
	// Output:
	// ceph-a ceph
	// swift-b swift
	// not found - storcast GET /api/v1/latency_curve: cluster: unknown cluster "nope"
}

func TestErrorKinds(t *testing.T) {
	respond := func(status int, body string) *httptest.Server {
		return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(status)
			_, _ = w.Write([]byte(body))
		}))
	}
	for _, c := range []struct {
		name   string
		status int
		body   string
		kind   storcast.Kind
		msg    string
	}{
		{"bad data", 400, `{"status":"error","errorType":"bad_data","error":"step: bad"}`, storcast.BadData, "step: bad"},
		{"unavailable", 503, `{"status":"error","errorType":"unavailable","error":"no model"}`, storcast.Unavailable, "no model"},
		{"internal", 500, `{"status":"error","errorType":"internal","error":"boom"}`, storcast.Internal, "boom"},
		{"unknown type falls back on HTTP", 404, `{"status":"error","errorType":"weird","error":"x"}`, storcast.NotFound, "x"},
		{"html", 200, `<html>`, storcast.BadResponse, "not a storcast API response (HTTP 200, \"<html>\")"},
		{"proxy 502", 502, `bad gateway`, storcast.Unreachable, "HTTP 502"},
		{"empty", 200, ``, storcast.BadResponse, "empty body"},
		{"no data", 200, `{"status":"success"}`, storcast.BadResponse, "success envelope without data"},
		{"wrong data", 200, `{"status":"success","data":{"cluster":1}}`, storcast.BadResponse, "decoding data"},
		{"success with 500", 500, `{"status":"success","data":{}}`, storcast.Internal, "HTTP 500 with a success envelope"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := respond(c.status, c.body)
			defer srv.Close()
			cl, err := storcast.New(srv.URL, "", nil)
			if err != nil {
				t.Fatal(err)
			}
			_, err = cl.LatencyCurve(context.Background(), "c")
			var se *storcast.Error
			if !errors.As(err, &se) || se.Kind != c.kind || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("err = %v (kind %v); want kind %v containing %q", err, storcast.KindOf(err), c.kind, c.msg)
			}
		})
	}
}

func TestTooLargeResponseIsAnError(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"status":"success","data":"`))
		_, _ = w.Write([]byte(strings.Repeat("x", storcast.MaxBodyBytes)))
		_, _ = w.Write([]byte(`"}`))
	}))
	defer srv.Close()
	cl, _ := storcast.New(srv.URL, "", nil)
	_, err := cl.BuildInfo(context.Background())
	if storcast.KindOf(err) != storcast.BadResponse || !strings.Contains(err.Error(), "response larger than") {
		t.Errorf("err = %v", err)
	}
}

func TestTimeoutAndPathPrefix(t *testing.T) {
	sc := storcasttest.New(storcasttest.Options{Delay: time.Second})
	defer sc.Close()
	cl, _ := storcast.New(sc.URL, "", nil)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := cl.BuildInfo(ctx)
	if storcast.KindOf(err) != storcast.Timeout {
		t.Errorf("err = %v", err)
	}

	// A path prefix (storcast behind a reverse proxy) is kept, and a trailing slash dropped.
	var got string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.URL.Path
		_, _ = w.Write([]byte(`{"status":"success","data":{"version":"1"}}`))
	}))
	defer srv.Close()
	cl, _ = storcast.New(srv.URL+"/storcast/", "", nil)
	if _, err := cl.BuildInfo(context.Background()); err != nil || got != "/storcast/api/v1/status/buildinfo" {
		t.Errorf("path %q, err %v", got, err)
	}
}

// A URL that is refused for its scheme, host, query or fragment is echoed
// with its password hidden: "admin:pw@storcast" is a scheme "admin" to
// url.Parse, with no user to refuse.
func TestRefusedURLHidesItsPassword(t *testing.T) {
	for _, s := range []string{"admin:s3cret@storcast:9595", "ftp://u:s3cret@storcast", "http://storcast:9595?u=a:s3cret@x"} {
		_, err := storcast.ParseURL(s)
		if err == nil || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("ParseURL(%q): %v; want an error without the password", s, err)
		}
	}
}

package api

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/storcast/storcast/exporter/apiv1"
)

// checkAnswer asserts what every answer of the API must be, whatever the
// request: a JSON envelope with a known status code, and a bad_data error
// that starts with one of params (a name ending in "[" matches any element
// of that array). It returns the envelope's data.
func checkAnswer(t *testing.T, rec *httptest.ResponseRecorder, params ...string) json.RawMessage {
	t.Helper()
	env, err := apiv1.ParseEnvelope(rec.Body.Bytes())
	if err != nil {
		t.Fatalf("HTTP %d, not an envelope: %v: %q", rec.Code, err, rec.Body.String())
	}
	want := map[int]string{200: "", 400: apiv1.ErrBadData, 404: apiv1.ErrNotFound, 405: apiv1.ErrBadData, 503: apiv1.ErrUnavailable}
	et, ok := want[rec.Code]
	if !ok || env.ErrorType != et || (rec.Code == 200) != (env.Status == "success") {
		t.Fatalf("HTTP %d: %s", rec.Code, rec.Body.String())
	}
	// A known endpoint asked with another method: the methods it takes.
	if rec.Code == 405 && (rec.Header().Get("Allow") == "" || !strings.HasPrefix(env.Error, "method: ")) {
		t.Fatalf("405 without Allow or a method error: %q, %s", rec.Header().Get("Allow"), env.Error)
	}
	if rec.Code == 400 {
		named := false
		for _, p := range params {
			// "ioSizes[" names an element: ioSizes[3].share: ...
			if strings.HasSuffix(p, "[") {
				named = named || strings.HasPrefix(env.Error, p)
			} else {
				named = named || strings.HasPrefix(env.Error, p+": ")
			}
		}
		if !named {
			t.Fatalf("400 naming none of %v: %s", params, env.Error)
		}
	}
	return env.Data
}

func serve(h http.Handler, r *http.Request) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	return rec
}

func FuzzForecastParams(f *testing.F) {
	now := time.Now().Unix()
	svc, _ := trendServer(f, lineTrend{t0: float64(now)})
	h := svc.Handler(nil)
	f.Add("a", "iops", "", "", "")
	f.Add("a", "iops", "1e16", "1e16", "")
	f.Add("a", "iops", "1763942400", "1763942400", "1e-9")
	f.Add("a", "utilization_ratio", "", "1e300", "")
	f.Add("a", "max_iops", "-1e300", "1e300", "1")
	f.Add("a", "headroom_ratio", "2026-11-23T00:00:00Z", "2026-11-30T00:00:00Z", "5m")
	f.Add("a", "iops", "NaN", "Inf", "-Inf")
	f.Add("b", "bogus", "x", "y", "0")
	f.Fuzz(func(t *testing.T, cluster, series, start, end, step string) {
		q := url.Values{"cluster": {cluster}, "series": {series}}
		for k, v := range map[string]string{"start": start, "end": end, "step": step} {
			if v != "" {
				q.Set(k, v)
			}
		}
		rec := serve(h, httptest.NewRequest("GET", "/api/v1/forecast?"+q.Encode(), nil))
		data := checkAnswer(t, rec, "cluster", "series", "start", "end", "step")
		if rec.Code == 200 {
			var fc apiv1.Forecast
			if err := json.Unmarshal(data, &fc); err != nil {
				t.Fatal(err)
			}
			if len(fc.Points) > apiv1.MaxForecastPoints {
				t.Fatalf("%d points, over the budget of %d", len(fc.Points), apiv1.MaxForecastPoints)
			}
		}
	})
}

func FuzzCapacityCurveParams(f *testing.F) {
	svc, _ := trendServer(f, flatTrend{})
	h := svc.Handler(nil)
	f.Add("a", "", "")
	f.Add("a", "4096", "21")
	f.Add("a", "1e300", "1001")
	f.Add("a", "511.9", "1002")
	f.Add("a", "NaN", "9223372036854775808")
	f.Add("a", "-0", "-1")
	f.Add(strings.Repeat("a", 300), "67108864", "2")
	f.Fuzz(func(t *testing.T, cluster, size, points string) {
		q := url.Values{"cluster": {cluster}}
		if size != "" {
			q.Set("io_size_bytes", size)
		}
		if points != "" {
			q.Set("points", points)
		}
		rec := serve(h, httptest.NewRequest("GET", "/api/v1/capacity_curve?"+q.Encode(), nil))
		data := checkAnswer(t, rec, "cluster", "io_size_bytes", "points")
		if rec.Code == 200 {
			var cc apiv1.CapacityCurve
			if err := json.Unmarshal(data, &cc); err != nil {
				t.Fatal(err)
			}
			if len(cc.Points) > apiv1.MaxCurvePoints || cc.IOSizeBytes < apiv1.MinIOSizeBytes || cc.IOSizeBytes > apiv1.MaxIOSizeBytes {
				t.Fatalf("%d points at %v bytes", len(cc.Points), cc.IOSizeBytes)
			}
		}
	})
}

func FuzzLatencyCurveParams(f *testing.F) {
	svc, _ := trendServer(f, flatTrend{})
	h := svc.Handler(nil)
	f.Add("cluster=a")
	f.Add("cluster=")
	f.Add("cluster=%ZZ")
	f.Add("cluster=a&cluster=b")
	f.Add(`cluster=a"}) or vector(1)`)
	f.Fuzz(func(t *testing.T, rawQuery string) {
		r := httptest.NewRequest("GET", "/api/v1/latency_curve", nil)
		r.URL.RawQuery = rawQuery
		checkAnswer(t, serve(h, r), "cluster")
	})
}

func FuzzWhatIfBody(f *testing.F) {
	svc, _ := trendServer(f, flatTrend{})
	h := svc.Handler(nil)
	for _, s := range []string{
		`{"cluster":"a"}`,
		`{"cluster":"a","extraIops":1000,"readRatio":0.5,"hostsAdded":4}`,
		`{"cluster":"a","hostsAdded":9223372036854775807}`,
		`{"cluster":"a","extraIops":1e308}`,
		`{"cluster":"a","ioSizes":[{"bytes":4096,"share":0.7},{"bytes":1048576,"share":0.3}]}`,
		`{"cluster":"a","ioSizes":[{"bytes":1e300,"share":1}]}`,
		`{"cluster":"a","readRatio":-0}{"cluster":"a"}`,
		`{"cluster":"a","extraIops":-2000}`,
		`not json`,
		``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		r := httptest.NewRequest("POST", "/api/v1/whatif", strings.NewReader(string(body)))
		rec := serve(h, r)
		data := checkAnswer(t, rec, "body", "cluster", "readRatio", "extraIops", "hostsAdded", "ioSizes", "ioSizes[")
		if rec.Code == 200 {
			var res apiv1.WhatIfResult
			if err := json.Unmarshal(data, &res); err != nil {
				t.Fatal(err)
			}
			if !(res.MaxIOPS > 0) || !(res.IOPS > 0) {
				t.Fatalf("what-if %s: %+v", body, res)
			}
		}
	})
}

// FuzzAnyRequest sends any method, query and body to every endpoint (and
// to none): whatever arrives, the answer is an envelope, and a 400 names a
// parameter of the API.
func FuzzAnyRequest(f *testing.F) {
	svc, _ := trendServer(f, flatTrend{})
	h := svc.Handler(nil)
	endpoints := []string{"clusters", "status/buildinfo", "latency_curve", "capacity_curve", "forecast", "rulesets", "whatif", "nope", ""}
	methods := []string{"GET", "POST", "PUT", "DELETE", "HEAD", "OPTIONS"}
	f.Add(uint8(0), uint8(0), "", []byte(nil))
	f.Add(uint8(5), uint8(0), "cluster=a", []byte(nil))
	f.Add(uint8(5), uint8(1), "cluster=a", []byte(`{"cluster":"a"}`))
	f.Add(uint8(6), uint8(1), "", []byte(`{"cluster":"a","extraIops":1000}`))
	f.Add(uint8(6), uint8(0), "cluster=a", []byte(nil))
	f.Add(uint8(4), uint8(0), "cluster=a&series=iops&start=1&end=2&step=1&start=3", []byte(nil))
	f.Add(uint8(3), uint8(0), "cluster=a&io_size_bytes=4096&points=5&points=x", []byte(nil))
	f.Add(uint8(7), uint8(2), "%zz", []byte("x"))
	f.Fuzz(func(t *testing.T, endpoint, method uint8, rawQuery string, body []byte) {
		r := httptest.NewRequest("GET", "/api/v1/", strings.NewReader(string(body)))
		r.Method = methods[int(method)%len(methods)]
		r.URL.Path = "/api/v1/" + endpoints[int(endpoint)%len(endpoints)]
		r.URL.RawQuery = rawQuery
		checkAnswer(t, serve(h, r), "cluster", "series", "start", "end", "step", "io_size_bytes", "points",
			"body", "readRatio", "extraIops", "hostsAdded", "ioSizes", "ioSizes[")
	})
}

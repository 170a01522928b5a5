package storcasttest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/storcast/storcast/exporter/apiv1"
)

// TestForecastPointBudget: the fake refuses what storcast refuses,
// floor(span/step) + 1 points over apiv1.MaxForecastPoints (it counted
// steps and took one point more).
func TestForecastPointBudget(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	start := s.Now().Unix()
	for steps, want := range map[int64]int{apiv1.MaxForecastPoints - 1: http.StatusOK, apiv1.MaxForecastPoints: http.StatusBadRequest} {
		resp, err := http.Get(fmt.Sprintf("%s/api/v1/forecast?cluster=ceph-a&series=iops&start=%d&end=%d&step=1", s.URL, start, start+steps))
		if err != nil {
			t.Fatal(err)
		}
		var env apiv1.Envelope
		json.NewDecoder(resp.Body).Decode(&env)
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("%d steps of 1 s (%d points): %d %s %q, want %d", steps, steps+1, resp.StatusCode, env.Status, env.Error, want)
		}
	}
}

// answer sends method path (with body) to s and returns the status and the
// parameter its error names (the text before the first ':').
func answer(t *testing.T, s *Server, method, path, body string) (int, string, apiv1.Forecast) {
	t.Helper()
	req, err := http.NewRequest(method, s.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	env, err := apiv1.ParseEnvelope(b)
	if err != nil {
		t.Fatalf("%s %s: %v: %s", method, path, err, b)
	}
	var fc apiv1.Forecast
	if env.Status == "success" && strings.HasPrefix(path, "/api/v1/forecast") {
		if err := json.Unmarshal(env.Data, &fc); err != nil {
			t.Fatal(err)
		}
	}
	param, _, _ := strings.Cut(env.Error, ":")
	return resp.StatusCode, param, fc
}

// TestValidationAsStorcast: the fake checks what storcast checks, in its
// order (exporter/api): parameters are parsed before the cluster is looked
// up, ranges checked after it, a cluster without fitted models refused
// last. internal/protocoltest's TestFakeAgreesWithStorcast holds the fake
// to the real server; these pin the rules it found missing.
func TestValidationAsStorcast(t *testing.T) {
	cls := DefaultClusters()
	cls[1].Fitted = false
	s := New(Options{Clusters: cls})
	defer s.Close()
	now := s.Now().Unix()
	const year = 365 * 24 * 3600
	fc := func(q string, a ...any) string { return "/api/v1/forecast?" + fmt.Sprintf(q, a...) }
	sizes := make([]string, apiv1.MaxIOSizes+1)
	for i := range sizes {
		sizes[i] = fmt.Sprintf(`{"bytes":4096,"share":%v}`, 1/float64(len(sizes)))
	}
	for _, c := range []struct {
		name, method, path, body string
		status                   int
		param                    string
	}{
		{"forecast defaults start, end and step", "GET", fc("cluster=ceph-a&series=iops"), "", 200, ""},
		{"step in days", "GET", fc("cluster=ceph-a&series=iops&start=%d&end=%d&step=1d", now, now+30*86400), "", 200, ""},
		{"step 1.5h is not a Prometheus duration", "GET", fc("cluster=ceph-a&series=iops&start=%d&end=%d&step=1.5h", now, now+86400), "", 400, "step"},
		{"step below a second", "GET", fc("cluster=ceph-a&series=iops&start=%d&end=%d&step=0.5", now, now+60), "", 400, "step"},
		{"start more than 10 years ago", "GET", fc("cluster=ceph-a&series=iops&start=%d&end=%d&step=86400", now-11*year, now), "", 400, "start"},
		{"start NaN", "GET", fc("cluster=ceph-a&series=iops&start=NaN&end=%d&step=60", now), "", 400, "start"},
		{"cluster name too long", "GET", fc("cluster=%s&series=iops", strings.Repeat("x", apiv1.MaxClusterNameBytes+1)), "", 400, "cluster"},
		{"start parsed before the cluster", "GET", fc("cluster=nope&series=iops&start=yesterday"), "", 400, "start"},
		{"unfitted cluster: series checked first", "GET", fc("cluster=swift-b&series=latency"), "", 400, "series"},
		{"io_size_bytes 0 is today's size", "GET", "/api/v1/capacity_curve?cluster=ceph-a&io_size_bytes=0", "", 200, ""},
		{"IO size below the minimum", "GET", fmt.Sprintf("/api/v1/capacity_curve?cluster=ceph-a&io_size_bytes=%d", apiv1.MinIOSizeBytes-1), "", 400, "io_size_bytes"},
		{"IO size above the maximum", "GET", fmt.Sprintf("/api/v1/capacity_curve?cluster=ceph-a&io_size_bytes=%d", apiv1.MaxIOSizeBytes+1), "", 400, "io_size_bytes"},
		{"IO size parsed before the cluster", "GET", "/api/v1/capacity_curve?cluster=nope&io_size_bytes=4KiB", "", 400, "io_size_bytes"},
		{"unfitted cluster: points checked first", "GET", "/api/v1/capacity_curve?cluster=swift-b&points=1", "", 400, "points"},
		{"what-if trailing data", "POST", "/api/v1/whatif", `{"cluster":"ceph-a"} {}`, 400, "body"},
		{"what-if body over the limit", "POST", "/api/v1/whatif", `{"cluster":"ceph-a"}` + strings.Repeat(" ", apiv1.MaxRequestBodyBytes), 400, "body"},
		{"hostsAdded over the maximum", "POST", "/api/v1/whatif", fmt.Sprintf(`{"cluster":"ceph-a","hostsAdded":%d}`, apiv1.MaxHostsAdded+1), 400, "hostsAdded"},
		{"hostsAdded negative", "POST", "/api/v1/whatif", `{"cluster":"ceph-a","hostsAdded":-1}`, 400, "hostsAdded"},
		{"extraIops over the maximum", "POST", "/api/v1/whatif", `{"cluster":"ceph-a","extraIops":2e9}`, 400, "extraIops"},
		{"more IO sizes than the maximum", "POST", "/api/v1/whatif", `{"cluster":"ceph-a","ioSizes":[` + strings.Join(sizes, ",") + `]}`, 400, "ioSizes"},
		{"what-if IO size below the minimum", "POST", "/api/v1/whatif", `{"cluster":"ceph-a","ioSizes":[{"bytes":511,"share":1}]}`, 400, "ioSizes[0].bytes"},
		{"share above 1", "POST", "/api/v1/whatif", `{"cluster":"ceph-a","ioSizes":[{"bytes":4096,"share":1.5},{"bytes":8192,"share":-0.5}]}`, 400, "ioSizes[0].share"},
		{"unfitted cluster: readRatio checked first", "POST", "/api/v1/whatif", `{"cluster":"swift-b","readRatio":2}`, 400, "readRatio"},
		{"unfitted cluster, valid request", "POST", "/api/v1/whatif", `{"cluster":"swift-b"}`, 503, `cluster "swift-b"`},
		{"GET of a POST endpoint", "GET", "/api/v1/whatif", "", 405, "method"},
		{"unknown endpoint", "GET", "/api/v1/nope", "", 404, "path"},
	} {
		status, param, _ := answer(t, s, c.method, c.path, c.body)
		if status != c.status || param != c.param {
			t.Errorf("%s: %d naming %q, want %d naming %q", c.name, status, param, c.status, c.param)
		}
	}
}

// TestForecastStepBeyondDuration: a step longer than time.Duration holds
// (about 292 years) is valid to storcast and gives one point; the fake
// converted it to a negative Duration and looped until memory ran out.
func TestForecastStepBeyondDuration(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	now := s.Now().Unix()
	status, param, fc := answer(t, s, "GET", fmt.Sprintf("/api/v1/forecast?cluster=ceph-a&series=iops&start=%d&end=%d&step=1e10", now, now+3600), "")
	if status != http.StatusOK || len(fc.Points) != 1 || fc.Points[0].T != float64(now) {
		t.Errorf("step 1e10 s: %d naming %q, points %+v; want 200 and one point at %d", status, param, fc.Points, now)
	}
}

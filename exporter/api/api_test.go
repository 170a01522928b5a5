package api

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/storcast/storcast/exporter/apiv1"
	"github.com/storcast/storcast/exporter/engine"
	"github.com/storcast/storcast/exporter/features"
	"github.com/storcast/storcast/exporter/models"
	"github.com/storcast/storcast/forecaster/advisor"
	"github.com/storcast/storcast/forecaster/conservation"
)

type fakeEngine []*engine.Snapshot

func (f fakeEngine) Snapshots() []*engine.Snapshot { return f }

func (f fakeEngine) Snapshot(n string) *engine.Snapshot {
	for _, s := range f {
		if s.Cluster == n {
			return s
		}
	}
	return nil
}

// published completes hand-built snapshots as the engine does before
// publishing them (their outlook), and serves them.
func published(snaps ...*engine.Snapshot) fakeEngine {
	for _, s := range snaps {
		s.ComputeOutlook()
	}
	return fakeEngine(snaps)
}

// lineLatency: L = 1 ms + iops·1 µs, band ±10%, curve over 0..10000.
type lineLatency struct{}

func (lineLatency) at(x float64) models.Band {
	m := 0.001 + x*1e-6
	return models.Band{Lower: 0.9 * m, Mean: m, Upper: 1.1 * m}
}
func (l lineLatency) Curve() []models.LatencyPoint {
	return []models.LatencyPoint{{IOPS: 0, Band: l.at(0)}, {IOPS: 10000, Band: l.at(10000)}}
}
func (l lineLatency) At(x float64) (models.Band, bool) { return l.at(x), x >= 0 && x <= 10000 }
func (lineLatency) Crossing(slo float64) models.Band {
	x := func(k float64) float64 {
		v := (slo/k - 0.001) / 1e-6
		if v > 10000 {
			return math.NaN()
		}
		return v
	}
	return models.Band{Lower: x(0.9), Mean: x(1), Upper: x(1.1)}
}
func (lineLatency) Accuracy() float64            { return 0.9 }
func (lineLatency) Samples() int                 { return 100 }
func (lineLatency) Scores() map[string]float64   { return map[string]float64{"latency": 0.9} }
func (lineLatency) MarshalJSON() ([]byte, error) { return []byte(`"line"`), nil }

func testServer(t *testing.T) *httptest.Server {
	t.Helper()
	return serveSnapshots(t, testSnapshot(t), &engine.Snapshot{Cluster: "b", Kind: "swift", Models: map[string]apiv1.ModelStatus{}})
}

func serveSnapshots(t *testing.T, snaps ...*engine.Snapshot) *httptest.Server {
	srv := httptest.NewServer(NewService(published(snaps...)).Handler(nil))
	t.Cleanup(srv.Close)
	return srv
}

// testSnapshot is cluster "a": 2000 IOPS at 70% reads of 4 KiB, 4 hosts,
// the paper's model of one size and lineLatency.
func testSnapshot(t *testing.T) *engine.Snapshot {
	t.Helper()
	capacity, err := models.NewCapacity(conservation.Calibration{Points: []conservation.Point{{IOSizeBytes: 4096, ReadIOPS: 12000, WriteIOPS: 4000}}}, "file", 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := capacity.Model()
	obs := features.Observed{ReadIOPS: 1400, WriteIOPS: 600, IOPS: 2000, ReadRatio: 0.7, ReadSizeBytes: 4096, WriteSizeBytes: 4096, IOSizeBytes: 4096}
	res, _ := m.AtMix(features.OpClasses(obs))
	snap := &engine.Snapshot{Cluster: "a", Kind: "ceph", SLOSeconds: 0.005, LatencyKind: "op", SourceUp: true,
		Observed: obs, HasObserved: true, Hosts: 4,
		Set:    models.Set{models.Conservation: capacity, models.MLISP: lineLatency{}},
		Live:   models.Live{CapacityAtMix: res, HasCapacityAtMix: true},
		Models: map[string]apiv1.ModelStatus{models.Conservation: {Fitted: true}}}
	return snap
}

// nowPlus returns now+dt as Unix seconds.
func nowPlus(dt float64) string {
	return strconv.FormatFloat(float64(time.Now().Unix())+dt, 'f', -1, 64)
}

func call(t *testing.T, srv *httptest.Server, method, path, body string) (int, apiv1.Envelope, []byte) {
	t.Helper()
	req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var env apiv1.Envelope
	if err := json.Unmarshal(b, &env); err != nil {
		t.Fatalf("%s %s: not an envelope: %s", method, path, b)
	}
	return resp.StatusCode, env, b
}

// TestBadInputNamesTheParameter: every invalid input is a bad_data error
// whose message starts with the parameter's name.
func TestBadInputNamesTheParameter(t *testing.T) {
	srv := testServer(t)
	for _, tc := range []struct {
		method, path, body, param string
		code                      int
	}{
		{"GET", "/api/v1/capacity_curve?cluster=a&points=1", "", "points", 400},
		{"GET", "/api/v1/capacity_curve?cluster=a&io_size_bytes=NaN", "", "io_size_bytes", 400},
		{"GET", "/api/v1/capacity_curve?cluster=a&io_size_bytes=-4", "", "io_size_bytes", 400},
		{"GET", "/api/v1/capacity_curve?io_size_bytes=4096", "", "cluster", 400},
		{"GET", "/api/v1/capacity_curve?cluster=nope", "", "cluster", 404},
		{"GET", "/api/v1/latency_curve?cluster=" + url.QueryEscape(`a"}) or vector(1)`), "", "cluster", 404},
		{"GET", "/api/v1/forecast?cluster=a&series=bogus", "", "series", 400},
		{"GET", "/api/v1/forecast?cluster=a&series=iops&start=yesterday", "", "start", 400},
		{"GET", "/api/v1/forecast?cluster=a&series=iops&start=" + nowPlus(100) + "&end=" + nowPlus(50), "", "end", 400},
		{"GET", "/api/v1/forecast?cluster=a&series=iops&start=" + nowPlus(0) + "&end=" + nowPlus(1e6) + "&step=1", "", "step", 400},
		{"GET", "/api/v1/forecast?cluster=a&series=iops&start=0&end=100", "", "start", 400},
		{"GET", "/api/v1/forecast?cluster=a&series=iops&step=-5m", "", "step", 400},
		{"POST", "/api/v1/whatif", `{"cluster":"a","readRatio":1.5}`, "readRatio", 400},
		{"POST", "/api/v1/whatif", `{"cluster":"a","hostsAdded":-1}`, "hostsAdded", 400},
		{"POST", "/api/v1/whatif", `{"cluster":"a","ioSizes":[{"bytes":4096,"share":0.5}]}`, "ioSizes", 400},
		{"POST", "/api/v1/whatif", `{"cluster":"a","ioSizes":[{"bytes":0,"share":1}]}`, "ioSizes[0].bytes", 400},
		{"POST", "/api/v1/whatif", `{"cluster":"a","extraIops":-5000}`, "extraIops", 400},
		{"POST", "/api/v1/whatif", `{"cluster":"a","bogus":1}`, "body", 400},
		{"POST", "/api/v1/whatif", `not json`, "body", 400},
	} {
		code, env, raw := call(t, srv, tc.method, tc.path, tc.body)
		if code != tc.code || env.Status != "error" || !strings.HasPrefix(env.Error, tc.param+": ") {
			t.Errorf("%s %s %s: %d %s, want %d and an error naming %q", tc.method, tc.path, tc.body, code, raw, tc.code, tc.param)
		}
	}
}

// TestWrongMethod: an endpoint asked with another method is a 405 naming
// the methods it takes (Allow), not a 404 saying there is no endpoint,
// which the plugin reads as a cluster not found; an unknown path stays 404.
func TestWrongMethod(t *testing.T) {
	srv := testServer(t)
	for _, c := range []struct{ method, path, allow string }{
		{"GET", "/api/v1/whatif", "POST"},
		{"POST", "/api/v1/clusters", "GET, HEAD"},
		{"DELETE", "/api/v1/forecast", "GET, HEAD"},
	} {
		req, _ := http.NewRequest(c.method, srv.URL+c.path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var env apiv1.Envelope
		json.NewDecoder(resp.Body).Decode(&env)
		resp.Body.Close()
		if resp.StatusCode != 405 || resp.Header.Get("Allow") != c.allow || env.ErrorType != apiv1.ErrBadData || !strings.HasPrefix(env.Error, "method: ") {
			t.Errorf("%s %s: %d, Allow %q, %+v; want 405, Allow %q, a bad_data error naming the method", c.method, c.path, resp.StatusCode, resp.Header.Get("Allow"), env, c.allow)
		}
	}
	if code, env, raw := call(t, srv, "GET", "/api/v1/nothing", ""); code != 404 || env.ErrorType != apiv1.ErrNotFound {
		t.Errorf("GET /api/v1/nothing: %d %s, want 404 not_found", code, raw)
	}
}

func TestUnavailableBeforeFit(t *testing.T) {
	srv := testServer(t)
	for _, p := range []string{"/api/v1/latency_curve?cluster=b", "/api/v1/capacity_curve?cluster=b", "/api/v1/forecast?cluster=b&series=iops"} {
		code, env, raw := call(t, srv, "GET", p, "")
		if code != 503 || env.ErrorType != apiv1.ErrUnavailable {
			t.Errorf("%s: %d %s, want 503 unavailable", p, code, raw)
		}
	}
}

// postWhatIf posts a what-if request and decodes its 200 answer.
func postWhatIf(t *testing.T, srv *httptest.Server, body string) apiv1.WhatIfResult {
	t.Helper()
	code, env, raw := call(t, srv, "POST", "/api/v1/whatif", body)
	if code != 200 {
		t.Fatalf("%s: %d %s", body, code, raw)
	}
	var r apiv1.WhatIfResult
	b, _ := json.Marshal(env.Data)
	json.Unmarshal(b, &r)
	return r
}

func TestWhatIf(t *testing.T) {
	srv := testServer(t)
	// Today: 2000 IOPS at 70% reads of 4 KiB; max = 1/(0.7/12000 + 0.3/4000).
	maxNow := 1 / (0.7/12000 + 0.3/4000)
	var r apiv1.WhatIfResult
	decode := func(body string) { r = postWhatIf(t, srv, body) }
	decode(`{"cluster":"a","extraIops":1000}`)
	if r.IOPS != 3000 || math.Abs(r.MaxIOPS-maxNow) > 1e-6 || math.Abs(r.UtilizationRatio-3000/maxNow) > 1e-9 {
		t.Errorf("extra IOPS: %+v, want max %v", r, maxNow)
	}
	if r.LatencySeconds.Mean == nil || math.Abs(*r.LatencySeconds.Mean-0.004) > 1e-12 {
		t.Errorf("latency at 3000 IOPS %v, want 4 ms", r.LatencySeconds.Mean)
	}
	decode(`{"cluster":"a","readRatio":1}`)
	if math.Abs(r.MaxIOPS-12000) > 1e-6 {
		t.Errorf("all reads: max %v, want 12000", r.MaxIOPS)
	}
	decode(`{"cluster":"a","hostsAdded":4}`)
	if math.Abs(r.MaxIOPS-2*maxNow) > 1e-6 {
		t.Errorf("doubling hosts: max %v, want %v", r.MaxIOPS, 2*maxNow)
	}
}

// TestWhatIfMLISPAtTheWorkloadsShareOfCapacity: a latency model in IOPS at
// today's mix (M-LISP) answers a what-if at another mix at the same share
// of today's max as the what-if's load is of its own max. It was read at
// the raw IOPS: all writes at today's 2000 IOPS (half of the 4000 writes
// the cluster can do) read the latency of 2000 IOPS at today's mix (27% of
// its 7500), 3 ms instead of lineLatency at 3750 IOPS, 4.75 ms.
func TestWhatIfMLISPAtTheWorkloadsShareOfCapacity(t *testing.T) {
	srv := testServer(t)
	r := postWhatIf(t, srv, `{"cluster":"a","readRatio":0}`)
	if r.LatencySeconds.Mean == nil || math.Abs(*r.LatencySeconds.Mean-0.00475) > 1e-12 || r.LatencyModel != models.MLISP {
		t.Errorf("all writes at 2000 IOPS: latency %v by %q, want 4.75 ms by mlisp", deref(r.LatencySeconds.Mean), r.LatencyModel)
	}
	r = postWhatIf(t, srv, `{"cluster":"a"}`) // today's mix: unchanged
	if r.LatencySeconds.Mean == nil || math.Abs(*r.LatencySeconds.Mean-0.003) > 1e-12 {
		t.Errorf("today's workload: latency %v, want 3 ms", deref(r.LatencySeconds.Mean))
	}
}

// TestWhatIfIdle: an idle cluster asked about as it is gets its capacity at
// the last mix with nothing used, as /metrics serves it; it was a 400
// blaming an extraIops the client did not send (the dashboard's what-if
// table showed an error whenever the cluster was idle). Extra load on it is
// answered as on any cluster.
func TestWhatIfIdle(t *testing.T) {
	snap := testSnapshot(t)
	snap.Observed.Idle = true
	snap.Observed.IOPS, snap.Observed.ReadIOPS, snap.Observed.WriteIOPS = 0, 0, 0
	srv := serveSnapshots(t, snap)
	maxNow := 1 / (0.7/12000 + 0.3/4000)
	r := postWhatIf(t, srv, `{"cluster":"a"}`)
	if r.IOPS != 0 || math.Abs(r.MaxIOPS-maxNow) > 1e-6 || r.UtilizationRatio != 0 || r.HeadroomRatio != 1 || r.LatencySeconds.Mean != nil || r.LatencyNote == "" {
		t.Errorf("idle: %+v; want max %v, nothing used, no latency, a note", r, maxNow)
	}
	r = postWhatIf(t, srv, `{"cluster":"a","extraIops":3000}`)
	if r.IOPS != 3000 || math.Abs(r.UtilizationRatio-3000/maxNow) > 1e-9 || r.LatencySeconds.Mean == nil {
		t.Errorf("idle plus 3000 IOPS: %+v", r)
	}
	if code, _, raw := call(t, srv, "POST", "/api/v1/whatif", `{"cluster":"a","extraIops":-5}`); code != 400 || !strings.Contains(string(raw), "extraIops") {
		t.Errorf("idle less 5 IOPS: %d %s; want 400 naming extraIops", code, raw)
	}
}

// deref is *p, nil for nil (for messages).
func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// uLatency is a capacity-anchored latency model: 1 ms/(1 − U) on the
// frontier's utilization U; At reads it on the axis of testSnapshot's mix
// (70% reads of 4 KiB, 12000/4000 IOPS: U = iops·(0.7/12000 + 0.3/4000)).
type uLatency struct{ lineLatency }

func (uLatency) AtUtilization(u float64) (models.Band, bool) {
	if u < 0 || u >= 1 {
		return models.Band{}, false
	}
	m := 0.001 / (1 - u)
	return models.Band{Lower: 0.9 * m, Mean: m, Upper: 1.1 * m}, true
}
func (l uLatency) At(iops float64) (models.Band, bool) {
	return l.AtUtilization(iops * (0.7/12000 + 0.3/4000))
}

// TestWhatIfLatencyAtTheWorkloadsUtilization: the capacity-anchored model
// answers a what-if at the workload's own utilization of the frontier, not
// at its IOPS on the axis of today's mix (all writes at 3600 IOPS are 90%
// of the 4000 the cluster can write; at today's 70% reads 3600 IOPS would
// be 48%); more hosts divide the interference part of U by the square of
// the scale (U = L + Q: L/s + Q/s²).
func TestWhatIfLatencyAtTheWorkloadsUtilization(t *testing.T) {
	snap := testSnapshot(t)
	snap.LatencyModel = models.Queueing
	snap.Set[models.Queueing] = uLatency{}
	r := postWhatIf(t, serveSnapshots(t, snap), `{"cluster":"a","readRatio":0,"extraIops":1600}`)
	if r.LatencySeconds.Mean == nil || math.Abs(*r.LatencySeconds.Mean-0.010) > 1e-12 || r.LatencyModel != models.Queueing {
		t.Errorf("all writes at 3600 IOPS: latency %v by %q, want 10 ms (U 0.9) by the queueing model", deref(r.LatencySeconds.Mean), r.LatencyModel)
	}

	// With interference: a 50/50 point at 80% of the paper's line (γ > 0).
	capacity, err := models.NewCapacity(conservation.Calibration{Points: []conservation.Point{{IOSizeBytes: 4096, ReadIOPS: 12000, WriteIOPS: 4000}},
		Mixed: []conservation.MixedPoint{{IOSizeBytes: 4096, ReadRatio: 0.5, IOPS: 0.8 / (0.5/12000 + 0.5/4000)}}}, "file", 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	snap = testSnapshot(t)
	snap.LatencyModel = models.Queueing
	snap.Set[models.Queueing] = uLatency{}
	snap.Set[models.Conservation] = capacity
	res, err := capacity.Model().AtMix(features.OpClasses(snap.Observed))
	if err != nil || !(res.Interference > 0) {
		t.Fatalf("no interference at today's mix: %+v, %v", res, err)
	}
	r = postWhatIf(t, serveSnapshots(t, snap), `{"cluster":"a","hostsAdded":4}`)
	u := (res.Utilization-res.Interference)/2 + res.Interference/4
	if r.LatencySeconds.Mean == nil || math.Abs(*r.LatencySeconds.Mean-0.001/(1-u)) > 1e-12 {
		t.Errorf("twice the hosts: latency %v, want %v (U %.4f; today %.4f with interference %.4f)", deref(r.LatencySeconds.Mean), 0.001/(1-u), u, res.Utilization, res.Interference)
	}
}

// TestUtilizationIsTheFrontiers: with read/write interference the API's
// utilization is the frontier's U, as /metrics serves it and as the latency
// is read at, not load/max IOPS (which is above U below capacity: the two
// told a what-if "utilization 0.59 is beyond the history's 0.59" beside a
// utilizationRatio of 0.62): the demand forecast's utilization_ratio at
// today's load and a what-if of today's workload both equal today's U.
func TestUtilizationIsTheFrontiers(t *testing.T) {
	capacity, err := models.NewCapacity(conservation.Calibration{Points: []conservation.Point{{IOSizeBytes: 4096, ReadIOPS: 12000, WriteIOPS: 4000}},
		Mixed: []conservation.MixedPoint{{IOSizeBytes: 4096, ReadRatio: 0.5, IOPS: 0.8 / (0.5/12000 + 0.5/4000)}}}, "file", 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	snap := testSnapshot(t) // 2000 IOPS at 70% reads of 4 KiB
	snap.Set[models.Conservation] = capacity
	snap.Set[models.Trend] = flatTrend{}
	snap.Models[models.Trend] = apiv1.ModelStatus{Fitted: true}
	res, err := capacity.Model().AtMix(features.OpClasses(snap.Observed))
	if err != nil || !(res.Interference > 0.01) {
		t.Fatalf("no interference at today's mix: %+v, %v", res, err)
	}
	snap.Live = models.Live{CapacityAtMix: res, HasCapacityAtMix: true}
	loadRatio := res.CurrentIOPS / res.MaxTotalIOPS
	if !(loadRatio-res.Utilization > 0.005) {
		t.Fatalf("load ratio %.4f and U %.4f too close for the test to tell them apart", loadRatio, res.Utilization)
	}
	srv := serveSnapshots(t, snap)
	now := strconv.FormatInt(time.Now().Unix(), 10)
	code, env, raw := call(t, srv, "GET", "/api/v1/forecast?cluster=a&series=utilization_ratio&start="+now+"&end="+now, "")
	var f apiv1.Forecast
	b, _ := json.Marshal(env.Data)
	json.Unmarshal(b, &f)
	if code != 200 || len(f.Points) != 1 || math.Abs(f.Points[0].Value-res.Utilization) > 1e-9 {
		t.Errorf("forecast utilization at today's 2000 IOPS: %d %s; want U %.6f (load/max %.6f)", code, raw, res.Utilization, loadRatio)
	}
	r := postWhatIf(t, srv, `{"cluster":"a"}`)
	if math.Abs(r.UtilizationRatio-res.Utilization) > 1e-9 || math.Abs(r.HeadroomRatio-res.HeadroomRatio) > 1e-9 {
		t.Errorf("what-if of today's workload: utilization %.6f headroom %.6f; want U %.6f (load/max %.6f) and headroom %.6f as /metrics", r.UtilizationRatio, r.HeadroomRatio, res.Utilization, loadRatio, res.HeadroomRatio)
	}
}

// TestWhatIfIdleWithoutMix: a cluster idle since before any busy window
// has no observed mix: a what-if that does not give both readRatio and
// ioSizes is unavailable, saying so (it was a 500 naming a field of no
// request); with both it is answered.
func TestWhatIfIdleWithoutMix(t *testing.T) {
	snap := testSnapshot(t)
	snap.Observed = features.Observed{Idle: true}
	srv := serveSnapshots(t, snap)
	for _, body := range []string{`{"cluster":"a","extraIops":1000}`, `{"cluster":"a","extraIops":1000,"readRatio":0.5}`,
		`{"cluster":"a","extraIops":1000,"ioSizes":[{"bytes":4096,"share":1}]}`} {
		code, _, raw := call(t, srv, "POST", "/api/v1/whatif", body)
		if code != http.StatusServiceUnavailable || !strings.Contains(string(raw), `idle with no observed mix yet; give readRatio and ioSizes`) {
			t.Errorf("%s: %d %s", body, code, raw)
		}
	}
	r := postWhatIf(t, srv, `{"cluster":"a","extraIops":1000,"readRatio":0.5,"ioSizes":[{"bytes":4096,"share":1}]}`)
	if want := 1 / (0.5/12000 + 0.5/4000); math.Abs(r.MaxIOPS-want) > 1e-6 || r.IOPS != 1000 {
		t.Errorf("with the mix given: %+v, want max %v", r, want)
	}
}

func TestCurves(t *testing.T) {
	srv := testServer(t)
	code, env, raw := call(t, srv, "GET", "/api/v1/capacity_curve?cluster=a&points=11", "")
	if code != 200 {
		t.Fatalf("%d %s", code, raw)
	}
	var cc apiv1.CapacityCurve
	b, _ := json.Marshal(env.Data)
	json.Unmarshal(b, &cc)
	if len(cc.Points) != 11 || cc.Points[0].MaxIOPS != 4000 || cc.Points[10].MaxIOPS != 12000 || cc.IOSizeBytes != 4096 {
		t.Errorf("capacity curve %+v", cc)
	}
	code, env, raw = call(t, srv, "GET", "/api/v1/latency_curve?cluster=a", "")
	if code != 200 {
		t.Fatalf("%d %s", code, raw)
	}
	var lc apiv1.LatencyCurve
	b, _ = json.Marshal(env.Data)
	json.Unmarshal(b, &lc)
	if lc.KneeIOPS.Mean == nil || math.Abs(*lc.KneeIOPS.Mean-4000) > 1e-6 || len(lc.Points) != 2 {
		t.Errorf("latency curve %s", b)
	}
}

// flatTrend is 2000 IOPS ± 100, forever.
type flatTrend struct{}

func (flatTrend) At(float64) models.Band         { return models.Band{Lower: 1900, Mean: 2000, Upper: 2100} }
func (flatTrend) ETA(now, limit float64) float64 { return math.Inf(1) }
func (flatTrend) Accuracy() float64              { return 1 }
func (flatTrend) Samples() int                   { return 10 }
func (flatTrend) Scores() map[string]float64     { return map[string]float64{"iops": 1} }
func (flatTrend) MarshalJSON() ([]byte, error)   { return []byte(`"flat"`), nil }

func TestForecast(t *testing.T) {
	t0 := float64(time.Now().Unix())
	at := func(dt float64) string { return strconv.FormatFloat(t0+dt, 'f', -1, 64) }
	capacity, _ := models.NewCapacity(conservation.Calibration{Points: []conservation.Point{{IOSizeBytes: 4096, ReadIOPS: 8000, WriteIOPS: 8000}}}, "file", 1, nil)
	obs := features.Observed{ReadIOPS: 2000, IOPS: 2000, ReadRatio: 1, ReadSizeBytes: 4096, IOSizeBytes: 4096}
	res, _ := capacity.Model().AtMix(features.OpClasses(obs))
	snap := &engine.Snapshot{Cluster: "a", SourceUp: true, Observed: obs, HasObserved: true,
		Set:  models.Set{models.Conservation: capacity, models.Trend: flatTrend{}},
		Live: models.Live{CapacityAtMix: res, HasCapacityAtMix: true}, History: []apiv1.ForecastPoint{{T: t0 + 50, Value: 1800}, {T: t0 + 150, Value: 1900}},
		Models: map[string]apiv1.ModelStatus{models.Trend: {Fitted: true}}}
	srv := httptest.NewServer(NewService(published(snap)).Handler(nil))
	defer srv.Close()
	code, env, raw := call(t, srv, "GET", "/api/v1/forecast?cluster=a&series=utilization_ratio&start="+at(0)+"&end="+at(100)+"&step=50", "")
	if code != 200 {
		t.Fatalf("%d %s", code, raw)
	}
	var f apiv1.Forecast
	b, _ := json.Marshal(env.Data)
	json.Unmarshal(b, &f)
	// max IOPS is 8000 (no interference: U is load/max): utilization
	// 2000/8000 with band 1900..2100/8000.
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }
	if len(f.Points) != 3 || f.Points[1].T != t0+50 || !near(f.Points[1].Value, 0.25) || !near(f.Points[1].Lower, 1900.0/8000) || !near(f.Points[1].Upper, 2100.0/8000) {
		t.Errorf("points %+v", f.Points)
	}
	if len(f.Observed) != 1 || !near(f.Observed[0].Value, 1800.0/8000) || f.Unit != "ratio" {
		t.Errorf("observed %+v unit %s", f.Observed, f.Unit)
	}
	code, env, _ = call(t, srv, "GET", "/api/v1/forecast?cluster=a&series=headroom_ratio&start="+at(0)+"&end="+at(0), "")
	b, _ = json.Marshal(env.Data)
	json.Unmarshal(b, &f)
	if code != 200 || f.Points[0].Value != 0.75 || f.Points[0].Lower != 1-2100.0/8000 {
		t.Errorf("headroom %d %+v", code, f.Points)
	}
}

// TestWhatIfRegression: with a what-if model fitted, a workload within the
// history's utilization is answered by it; beyond, by the latency model
// anchored to capacity (with the reason); at or past capacity, by neither.
// lineWhatIf is a what-if model of training windows at 60..80% reads of
// 4 KiB, latency = 1 ms + 2 ms·U (an exact LRM of degree 1), utilization
// 0.1..maxU.
func lineWhatIf(t *testing.T, maxU float64) models.Fitted {
	t.Helper()
	var x [][]float64
	var y []float64
	for i := 0; i < 20; i++ {
		u := 0.1 + (maxU-0.1)*float64(i)/19
		rr := 0.6 + 0.2*float64(i%3)/2
		x = append(x, []float64{rr, 12, 12, u})
		y = append(y, 1+2*u)
	}
	body, _ := json.Marshal(map[string]any{"learners": []map[string]any{{"name": "LRM", "params": []float64{1}, "cvRmseMillis": 0.01, "cvErrorRatio": 0.005}},
		"maxUtilization": maxU, "x": x, "yMillis": y})
	wi, err := models.WhatIfFitter{}.Decode(body)
	if err != nil {
		t.Fatal(err)
	}
	return wi
}

func TestWhatIfRegression(t *testing.T) {
	snap := testSnapshot(t)
	snap.Set[models.WhatIf] = lineWhatIf(t, 0.5)
	snap.LatencyModel = models.MLISP
	srv := serveSnapshots(t, snap)

	maxNow := 1 / (0.7/12000 + 0.3/4000)
	var r apiv1.WhatIfResult
	decode := func(body string) { r = postWhatIf(t, srv, body) }
	decode(`{"cluster":"a","extraIops":1000}`) // U = 3000/maxNow ≈ 0.40
	u := 3000 / maxNow
	if r.LatencyModel != "whatif:LRM" || r.LatencySeconds.Mean == nil || math.Abs(*r.LatencySeconds.Mean-(1+2*u)/1e3) > 1e-9 {
		t.Errorf("within the history: model %q latency %v, want whatif:LRM and %v", r.LatencyModel, r.LatencySeconds.Mean, (1+2*u)/1e3)
	}
	decode(`{"cluster":"a","extraIops":3000}`) // U ≈ 0.67: beyond the history
	if r.LatencyModel != models.MLISP || r.LatencySeconds.Mean == nil || math.Abs(*r.LatencySeconds.Mean-0.006) > 1e-12 || !strings.Contains(r.LatencyNote, "beyond the history") {
		t.Errorf("beyond the history: %+v, want the latency model's 6 ms and a note", r)
	}
	// Below the history (U 0.1 and up): a line goes on down, to 0 ms and
	// less, which was served as the regression's answer.
	decode(`{"cluster":"a","extraIops":-1800}`) // U ≈ 0.03
	if r.LatencyModel != models.MLISP || !strings.Contains(r.LatencyNote, "below the history's 0.10") {
		t.Errorf("below the history: %+v, want the latency model's and a note", r)
	}
	decode(`{"cluster":"a","extraIops":8000}`) // past capacity
	if r.LatencySeconds.Mean != nil || !strings.Contains(r.LatencyNote, "past capacity") || r.UtilizationRatio < 1 {
		t.Errorf("past capacity: %+v, want no latency and the reason", r)
	}
}

// TestWhatIfPastTheLowerBoundOfCapacity: at or past the lower bound of the
// capacity band the cluster may be saturated, whichever model gives the
// latency: the what-if regression, whose history reached a utilization
// above the load, answered with a finite upper bound and no note between
// the band's lower bound and its mean (only the queueing model's own band
// said so).
func TestWhatIfPastTheLowerBoundOfCapacity(t *testing.T) {
	capacity, err := models.NewCapacity(conservation.Calibration{Points: []conservation.Point{{IOSizeBytes: 4096, ReadIOPS: 12000, WriteIOPS: 4000,
		ReadRuns: []float64{10200, 12000, 13800}, WriteRuns: []float64{3400, 4000, 4600}}}}, "file", 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	snap := testSnapshot(t)
	snap.Set[models.Conservation] = capacity
	snap.Set[models.WhatIf] = lineWhatIf(t, 0.95)
	srv := serveSnapshots(t, snap)
	res, err := capacity.Model().AtMix(features.OpClasses(snap.Observed))
	if err != nil {
		t.Fatal(err)
	}
	// Today's mix scaled: the band scales with the load (max IOPS is a
	// multiple of it), so the lower bound at today's load is the lower bound.
	lower, maxNow := res.MaxTotalIOPSLower, res.MaxTotalIOPS
	mid := (lower + maxNow) / 2 // U = mid/maxNow: no interference
	if !(lower > 0 && mid/maxNow < 0.95) {
		t.Fatalf("capacity band [%v, %v]: want a lower bound between 0 and 90%% of the mean", lower, maxNow)
	}
	extra := func(load float64) string {
		return fmt.Sprintf(`{"cluster":"a","extraIops":%.0f}`, load-snap.Observed.IOPS)
	}
	r := postWhatIf(t, srv, extra(lower/2))
	if r.LatencyModel != "whatif:LRM" || r.LatencySeconds.Upper == nil || r.LatencyNote != "" {
		t.Errorf("below the lower bound (%.0f IOPS): %+v, want whatif:LRM with an upper bound and no note", lower/2, r)
	}
	r = postWhatIf(t, srv, extra(mid))
	if r.LatencyModel != "whatif:LRM" || r.LatencySeconds.Mean == nil || r.LatencySeconds.Upper != nil || r.LatencyNote != apiv1.MaySaturateNote {
		t.Errorf("between the lower bound %.0f and the mean %.0f (%.0f IOPS): model %q, latency %v..%v, note %q; want whatif:LRM, a null upper bound and %q",
			lower, maxNow, mid, r.LatencyModel, deref(r.LatencySeconds.Mean), deref(r.LatencySeconds.Upper), r.LatencyNote, apiv1.MaySaturateNote)
	}
}

// narrowLatency is lineLatency with no value past 2500 IOPS.
type narrowLatency struct{ lineLatency }

func (l narrowLatency) At(x float64) (models.Band, bool) { return l.at(x), x >= 0 && x <= 2500 }

// TestWhatIfWithoutLatencySaysWhy: a what-if with no latency says why (it
// answered null latencies with an empty note, and was marked stale by a
// latency model that gave no answer).
func TestWhatIfWithoutLatencySaysWhy(t *testing.T) {
	none := testSnapshot(t)
	delete(none.Set, models.MLISP)
	narrow := testSnapshot(t)
	narrow.Cluster = "n"
	narrow.Set[models.MLISP] = narrowLatency{}
	narrow.Models[models.MLISP] = apiv1.ModelStatus{Fitted: true, Stale: true}
	srv := serveSnapshots(t, none, narrow)
	for cluster, want := range map[string]string{
		"a": "no latency model fitted yet",
		"n": "the mlisp latency model has no value at 3000 IOPS at today's mix",
	} {
		r := postWhatIf(t, srv, `{"cluster":"`+cluster+`","extraIops":1000}`)
		if r.LatencySeconds.Mean != nil || r.LatencyModel != "" || r.LatencyNote != want || r.Stale {
			t.Errorf("cluster %s: %+v; want no latency, the note %q, not stale", cluster, r, want)
		}
	}
}

// TestEmptyWhatIfBody: an empty body says what was wanted (it was
// "body: EOF").
func TestEmptyWhatIfBody(t *testing.T) {
	srv := testServer(t)
	for _, body := range []string{"", " \n"} {
		code, env, raw := call(t, srv, "POST", "/api/v1/whatif", body)
		if want := `body: empty; want a JSON what-if request like {"cluster":"..."}`; code != 400 || env.Error != want {
			t.Errorf("body %q: %d %s; want 400 %q", body, code, raw, want)
		}
	}
}

// TestForecastTimesInFull: a forecast's times in an error are printed in
// full (they were in exponent notation, 2.1672256e+09).
func TestForecastTimesInFull(t *testing.T) {
	srv := testServer(t)
	late, start, end := nowPlus(4e8), nowPlus(100), nowPlus(50)
	for q, want := range map[string]string{
		"start=" + start + "&end=" + late: "end: " + late + " is not within 3652 days of now (",
		"start=" + start + "&end=" + end:  "end: " + end + " is before start " + start,
	} {
		code, env, raw := call(t, srv, "GET", "/api/v1/forecast?cluster=a&series=iops&"+q, "")
		if code != 400 || !strings.HasPrefix(env.Error, want) {
			t.Errorf("%s: %d %s; want 400 starting %q", q, code, raw, want)
		}
	}
}

// TestParamErrorsInFull: sizes print every digit (%v put 64 MiB + 1 as
// 6.7108865e+07), and an integer too large is out of range, not "not an
// integer".
func TestParamErrorsInFull(t *testing.T) {
	srv := testServer(t)
	for _, tc := range []struct{ method, path, body, want string }{
		{"GET", "/api/v1/capacity_curve?cluster=a&io_size_bytes=67108865", "", "io_size_bytes: must be 0 (today's mean IO size) or in [512, 67108864] bytes, got 67108865"},
		{"POST", "/api/v1/whatif", `{"cluster":"a","ioSizes":[{"bytes":67108865,"share":1}]}`, "ioSizes[0].bytes: must be in [512, 67108864], got 67108865"},
		{"GET", "/api/v1/capacity_curve?cluster=a&points=99999999999999999999", "", `points: "99999999999999999999" is out of range`},
	} {
		code, env, raw := call(t, srv, tc.method, tc.path, tc.body)
		if code != 400 || env.Error != tc.want {
			t.Errorf("%s %s %s: %d %s; want 400 %q", tc.method, tc.path, tc.body, code, raw, tc.want)
		}
	}
}

// TestRuleSets: the advisor's answer with the catalog's descriptions, the
// recommendation flagged, the run noise and the advisor's reason passed on;
// clear 503s without a catalog or a workload.
func TestRuleSets(t *testing.T) {
	data, err := os.ReadFile("../../forecaster/advisor/testdata/catalog.yml")
	if err != nil {
		t.Fatal(err)
	}
	cat, err := advisor.LoadCatalog(data)
	if err != nil {
		t.Fatal(err)
	}
	a, err := advisor.Train(cat)
	if err != nil {
		t.Fatal(err)
	}
	snap := testSnapshot(t)
	snap.Set[models.Advisor] = &models.AdvisorFit{A: a}
	snap.RuleSets = &models.RuleSets{Recommended: "read-window", Reason: "why", Predictions: []advisor.Prediction{
		{RuleSet: "qos-cap", Boost: 0.076, CVError: 0.057, RunNoise: 0.02}, {RuleSet: "read-window", Boost: 0.102, CVError: 0.056, Extrapolated: true}}}
	noWorkload := testSnapshot(t)
	noWorkload.Cluster = "idle"
	noWorkload.Set[models.Advisor] = &models.AdvisorFit{A: a}
	srv := serveSnapshots(t, snap, noWorkload, &engine.Snapshot{Cluster: "b", Models: map[string]apiv1.ModelStatus{}})

	code, env, raw := call(t, srv, "GET", "/api/v1/rulesets?cluster=a", "")
	if code != 200 {
		t.Fatalf("%d %s", code, raw)
	}
	var rs apiv1.RuleSets
	b, _ := json.Marshal(env.Data)
	json.Unmarshal(b, &rs)
	if rs.Recommended != "read-window" || len(rs.Predictions) != 2 || !rs.Predictions[1].Recommended || rs.Predictions[0].Recommended ||
		rs.Predictions[1].BoostRatio != 0.102 || !rs.Predictions[1].Extrapolated || rs.Predictions[0].Description == "" ||
		rs.Predictions[0].RunNoiseRatio != 0.02 || rs.Reason != "why" {
		t.Errorf("rule sets %s", b)
	}
	for _, c := range []struct{ cluster, want string }{{"b", "advisor.catalog_file"}, {"idle", "no current workload"}} {
		code, _, raw := call(t, srv, "GET", "/api/v1/rulesets?cluster="+c.cluster, "")
		if code != 503 || !strings.Contains(string(raw), c.want) {
			t.Errorf("cluster %s: %d %s, want 503 naming %q", c.cluster, code, raw, c.want)
		}
	}
}

// TestStaleFollowsTheServedModel: an answer is marked stale by the models
// that gave it: the latency model actually served (after a fallback, not
// the configured one), which the what-if also names, and for the ratio
// forecasts both the demand trend and the capacity model.
func TestStaleFollowsTheServedModel(t *testing.T) {
	snap := testSnapshot(t)
	snap.LatencyModel = models.Queueing // configured, not fitted: M-LISP is served
	snap.Set[models.Trend] = flatTrend{}
	snap.Models[models.MLISP] = apiv1.ModelStatus{Fitted: true, Stale: true}
	snap.Models[models.Queueing] = apiv1.ModelStatus{}
	snap.Models[models.Trend] = apiv1.ModelStatus{Fitted: true}
	snap.Models[models.Conservation] = apiv1.ModelStatus{Fitted: true, Stale: true}
	srv := serveSnapshots(t, snap)

	var lc apiv1.LatencyCurve
	_, env, raw := call(t, srv, "GET", "/api/v1/latency_curve?cluster=a", "")
	b, _ := json.Marshal(env.Data)
	json.Unmarshal(b, &lc)
	if !lc.Stale {
		t.Errorf("latency curve from a stale M-LISP not marked stale: %s", raw)
	}
	r := postWhatIf(t, srv, `{"cluster":"a","extraIops":1000}`)
	if r.LatencyModel != models.MLISP || !r.Stale {
		t.Errorf("what-if answered by M-LISP: model %q stale %v", r.LatencyModel, r.Stale)
	}
	now := float64(time.Now().Unix())
	for series, want := range map[string]bool{"iops": false, "max_iops": true, "headroom_ratio": true, "utilization_ratio": true} {
		q := fmt.Sprintf("/api/v1/forecast?cluster=a&series=%s&start=%.0f&end=%.0f&step=60", series, now, now+600)
		code, env, raw := call(t, srv, "GET", q, "")
		var f apiv1.Forecast
		b, _ := json.Marshal(env.Data)
		json.Unmarshal(b, &f)
		if code != 200 || f.Stale != want {
			t.Errorf("%s with the capacity model stale: %d stale=%v, want %v: %s", series, code, f.Stale, want, raw)
		}
	}

	fresh := testSnapshot(t)
	fresh.LatencyModel = models.Queueing
	fresh.Models[models.MLISP] = apiv1.ModelStatus{Fitted: true}
	fresh.Models[models.Queueing] = apiv1.ModelStatus{Fitted: true, Stale: true} // its last fit aged, but it is not served
	srv = serveSnapshots(t, fresh)
	_, env, raw = call(t, srv, "GET", "/api/v1/latency_curve?cluster=a", "")
	b, _ = json.Marshal(env.Data)
	lc = apiv1.LatencyCurve{}
	json.Unmarshal(b, &lc)
	if lc.Stale {
		t.Errorf("latency curve from a fresh M-LISP marked stale by the unserved model: %s", raw)
	}

	// The default case: the capacity-anchored model served, its fits failing
	// past stale_after while M-LISP's succeed.
	served := testSnapshot(t)
	served.LatencyModel = models.Queueing
	served.Set[models.Queueing] = lineLatency{}
	served.Models[models.MLISP] = apiv1.ModelStatus{Fitted: true}
	served.Models[models.Queueing] = apiv1.ModelStatus{Fitted: true, Stale: true}
	srv = serveSnapshots(t, served)
	_, env, raw = call(t, srv, "GET", "/api/v1/latency_curve?cluster=a", "")
	b, _ = json.Marshal(env.Data)
	lc = apiv1.LatencyCurve{}
	json.Unmarshal(b, &lc)
	if !lc.Stale {
		t.Errorf("latency curve from a stale capacity-anchored model not marked stale: %s", raw)
	}
	if r := postWhatIf(t, srv, `{"cluster":"a","extraIops":1000}`); r.LatencyModel != models.Queueing || !r.Stale {
		t.Errorf("what-if answered by the stale queueing model: model %q stale %v", r.LatencyModel, r.Stale)
	}
}

// unboundedLatency is lineLatency whose upper bound is +Inf from 6000 IOPS
// on (the lower bound of a capacity band, as the capacity-anchored model
// serves it), with a curve point there.
type unboundedLatency struct{ lineLatency }

func (l unboundedLatency) at(x float64) models.Band {
	b := l.lineLatency.at(x)
	if x >= 6000 {
		b.Upper = math.Inf(1)
	}
	return b
}
func (l unboundedLatency) Curve() []models.LatencyPoint {
	return []models.LatencyPoint{{IOPS: 0, Band: l.at(0)}, {IOPS: 6000, Band: l.at(6000)}, {IOPS: 10000, Band: l.at(10000)}}
}
func (l unboundedLatency) At(x float64) (models.Band, bool) { return l.at(x), x >= 0 && x <= 10000 }

// TestLatencyWithoutUpperBound: where the cluster may be saturated (an upper
// bound of +Inf) the curve keeps its points with a null upper bound and the
// what-if answers with a null upper bound and says why; neither fails to
// encode.
func TestLatencyWithoutUpperBound(t *testing.T) {
	snap := testSnapshot(t)
	snap.LatencyModel = models.Queueing
	snap.Set[models.Queueing] = unboundedLatency{}
	snap.Models[models.Queueing] = apiv1.ModelStatus{Fitted: true}
	srv := serveSnapshots(t, snap)

	code, env, raw := call(t, srv, "GET", "/api/v1/latency_curve?cluster=a", "")
	var lc apiv1.LatencyCurve
	b, _ := json.Marshal(env.Data)
	json.Unmarshal(b, &lc)
	if code != 200 || len(lc.Points) != 3 || lc.Points[0].Upper == nil || math.Abs(*lc.Points[0].Upper-0.0011) > 1e-12 ||
		lc.Points[1].Upper != nil || lc.Points[2].Upper != nil || lc.Points[2].Mean != 0.011 {
		t.Errorf("latency curve: %d %s", code, raw)
	}
	if !strings.Contains(string(raw), `"upper":null`) {
		t.Errorf("no null upper bound in %s", raw)
	}

	r := postWhatIf(t, srv, `{"cluster":"a","extraIops":1000}`) // 3000 IOPS: bounded
	if r.LatencySeconds.Upper == nil || r.LatencyNote != "" {
		t.Errorf("at 3000 IOPS: %+v, want an upper bound and no note", r)
	}
	r = postWhatIf(t, srv, `{"cluster":"a","extraIops":4500}`) // 6500 IOPS, U ≈ 0.86
	if r.LatencySeconds.Mean == nil || math.Abs(*r.LatencySeconds.Mean-0.0075) > 1e-12 || r.LatencySeconds.Upper != nil ||
		r.LatencyNote != apiv1.MaySaturateNote || r.LatencyModel != models.Queueing {
		t.Errorf("at 6500 IOPS: %+v, want 7.5 ms, a null upper bound and %q", r, apiv1.MaySaturateNote)
	}
}

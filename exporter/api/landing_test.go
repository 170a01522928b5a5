package api

import (
	"encoding/json"
	"math"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/storcast/storcast/exporter/apiv1"
	"github.com/storcast/storcast/exporter/engine"
	"github.com/storcast/storcast/exporter/features"
	"github.com/storcast/storcast/exporter/models"
	"github.com/storcast/storcast/forecaster/conservation"
	"github.com/storcast/storcast/forecaster/trend"
)

// growingTrend is 2000 IOPS at t0 growing by slope IOPS per second, band ±5%.
type growingTrend struct{ t0, slope float64 }

func (l growingTrend) At(t float64) models.Band {
	m := 2000 + l.slope*(t-l.t0)
	return models.Band{Lower: 0.95 * m, Mean: m, Upper: 1.05 * m}
}
func (l growingTrend) ETA(now, limit float64) float64 {
	if !(l.slope > 0) {
		return math.Inf(1)
	}
	return math.Max(0, (limit-l.At(now).Mean)/l.slope)
}
func (growingTrend) Accuracy() float64            { return 1 }
func (growingTrend) Samples() int                 { return 10 }
func (growingTrend) Scores() map[string]float64   { return map[string]float64{"iops": 1} }
func (growingTrend) MarshalJSON() ([]byte, error) { return []byte(`"line"`), nil }

// scheduledEngine is a fakeEngine that tells its fit interval.
type scheduledEngine struct {
	fakeEngine
	interval time.Duration
}

func (s scheduledEngine) FitInterval() time.Duration { return s.interval }

func landingSnapshot(t *testing.T, name string, slope float64) *engine.Snapshot {
	t.Helper()
	capacity, err := models.NewCapacity(conservation.Calibration{Points: []conservation.Point{{IOSizeBytes: 4096, ReadIOPS: 12000, WriteIOPS: 4000}}}, "file", 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	const t0 = 1.7e9
	// Reads of 4 KiB and writes of 64 KiB: the mean (19.6 KiB) is a size
	// no client issues.
	obs := features.Observed{Time: t0, ReadIOPS: 1400, WriteIOPS: 600, IOPS: 2000, ReadRatio: 0.7, ReadSizeBytes: 4096, WriteSizeBytes: 65536,
		IOSizeBytes: (1400*4096 + 600*65536) / 2000.0}
	// The live capacity is taken at 4 KiB for both classes (the only
	// calibrated size), which keeps the expected ETA a hand calculation.
	res, err := capacity.Model().AtMix([]conservation.OpClass{{Op: conservation.Read, IOSizeBytes: 4096, Rate: 1400}, {Op: conservation.Write, IOSizeBytes: 4096, Rate: 600}})
	if err != nil {
		t.Fatal(err)
	}
	return &engine.Snapshot{Cluster: name, Kind: "ceph", SLOSeconds: 0.005, SourceUp: true, Observed: obs, HasObserved: true,
		LastRefresh: time.Unix(t0+30, 0),
		Set:         models.Set{models.Conservation: capacity, models.MLISP: lineLatency{}, models.Trend: growingTrend{t0: t0, slope: slope}},
		Live:        models.Live{CapacityAtMix: res, HasCapacityAtMix: true},
		Models: map[string]apiv1.ModelStatus{
			models.Conservation: {Fitted: true, LastFitUnix: t0 - 600},
			models.Trend:        {Fitted: true, LastFitUnix: t0 - 300},
			models.MLISP:        {Fitted: false, LastFitUnix: 0, Waiting: "waiting for 24 more windows with load and latency (about 24m0s)"},
		}}
}

func TestClustersCarryFreshnessAndETAs(t *testing.T) {
	grow := landingSnapshot(t, "grow", 0.01)
	flat := landingSnapshot(t, "flat", 0)
	srv := httptest.NewServer(NewService(scheduledEngine{published(grow, flat), time.Hour}).Handler(nil))
	defer srv.Close()
	code, env, raw := call(t, srv, "GET", "/api/v1/clusters", "")
	if code != 200 {
		t.Fatalf("%d %s", code, raw)
	}
	var cs []apiv1.Cluster
	b, _ := json.Marshal(env.Data)
	if err := json.Unmarshal(b, &cs); err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2 {
		t.Fatalf("%d clusters", len(cs))
	}
	g := cs[0]
	if g.DataAsOfUnix != 1.7e9 || g.LastRefreshUnix != 1.7e9+30 || g.LastFitUnix != 1.7e9-300 || g.NextFitUnix != 1.7e9-300+3600 {
		t.Errorf("times: dataAsOf %v lastRefresh %v lastFit %v nextFit %v", g.DataAsOfUnix, g.LastRefreshUnix, g.LastFitUnix, g.NextFitUnix)
	}
	// Capacity at 70% reads (12000 reads/s or 4000 writes/s alone): 1/(0.7/12000+0.3/4000) = 7500
	// IOPS, reached from 2000 at 0.01 IOPS/s in 550000 s. The latency's upper bound (1.1 × (1 ms +
	// 1 µs per IOPS)) crosses 5 ms at (5/1.1 - 1)/0.001 = 3545.45 IOPS: 154545 s.
	want := map[string]float64{"latency_slo": ((0.005/1.1-0.001)/1e-6 - 2000) / 0.01, "max_iops": 550000}
	if len(g.SaturationETAs) != 2 || g.SaturationETAs[0].Limit != "latency_slo" || g.SaturationETAs[1].Limit != "max_iops" {
		t.Fatalf("ETAs %+v", g.SaturationETAs)
	}
	for _, e := range g.SaturationETAs {
		if e.Band != nil {
			t.Errorf("ETA %s from the demand trend's line has a band %+v; it has none", e.Limit, *e.Band)
		}
		if e.Seconds == nil {
			t.Errorf("ETA %s = null, want %v", e.Limit, want[e.Limit])
		} else if math.Abs(*e.Seconds-want[e.Limit]) > 1e-3 {
			t.Errorf("ETA %s = %v, want %v", e.Limit, *e.Seconds, want[e.Limit])
		}
	}
	// A flat trend never reaches a limit: null, not a number.
	for _, e := range cs[1].SaturationETAs {
		if e.Seconds != nil {
			t.Errorf("flat trend: ETA %s = %v, want null", e.Limit, *e.Seconds)
		}
	}
	// Without a fit interval there is no next fit.
	srv2 := httptest.NewServer(NewService(published(grow)).Handler(nil))
	defer srv2.Close()
	_, env, _ = call(t, srv2, "GET", "/api/v1/clusters", "")
	b, _ = json.Marshal(env.Data)
	cs = nil
	json.Unmarshal(b, &cs)
	if len(cs) != 1 || cs[0].NextFitUnix != 0 || cs[0].LastFitUnix == 0 {
		t.Errorf("without FitInterval: %+v", cs)
	}
}

// TestClustersCarryETABands: with the saturation trend each ETA has its
// band, Early ≤ Seconds ≤ Late as the models give them, and an end not
// reached within the horizon is null. Demand (in units of the capacity at
// the mix) grows 0.01 a day from the observed utilization, its slope's
// standard error as large (0.02·√0.25), so the lower band never reaches
// a limit.
func TestClustersCarryETABands(t *testing.T) {
	s := landingSnapshot(t, "a", 0.01)
	u0 := s.Observed.IOPS / s.Live.CapacityAtMix.MaxTotalIOPS
	s.Set[models.Saturation] = &models.UtilizationFit{N: 864, ReferenceIOPS: s.Live.CapacityAtMix.MaxTotalIOPS, T: &trend.UtilizationTrend{
		Growth: trend.GrowthLinear, Coef: []float64{u0, 0.01}, TMean: s.Observed.Time, FirstT: s.Observed.Time - 3*trend.Day, LastT: s.Observed.Time,
		N: 864, ResidualStd: 0.02, Z: 1.96, Cov: []float64{0.01, 0, 0, 0.25}, Horizon: trend.DefaultHorizonSeconds}}
	srv := httptest.NewServer(NewService(published(s)).Handler(nil))
	defer srv.Close()
	_, env, raw := call(t, srv, "GET", "/api/v1/clusters", "")
	var cs []apiv1.Cluster
	b, _ := json.Marshal(env.Data)
	if err := json.Unmarshal(b, &cs); err != nil || len(cs) != 1 || len(cs[0].SaturationETAs) != 2 {
		t.Fatalf("%v: %s", err, raw)
	}
	for _, e := range cs[0].SaturationETAs {
		want := s.Outlook.ETAs[e.Limit]
		if e.Band == nil || e.Seconds == nil || e.Band.Early == nil {
			t.Errorf("ETA %s: %+v, want a finite ETA with a band", e.Limit, e)
			continue
		}
		if *e.Seconds != want.Seconds || *e.Band.Early != want.Early || !(want.Early <= want.Seconds) {
			t.Errorf("ETA %s: %v s from %v s, the models give %+v", e.Limit, *e.Seconds, *e.Band.Early, want)
		}
		if e.Band.Late != nil || !math.IsInf(want.Late, 1) {
			t.Errorf("ETA %s: late end %v (the models: %v), want null: the lower band does not grow", e.Limit, e.Band.Late, want.Late)
		}
	}
	if !strings.Contains(string(raw), `"band":{"early":`) || !strings.Contains(string(raw), `"late":null`) {
		t.Errorf("the band's JSON: %s", raw)
	}
}

func TestCapacityCurveCarriesClassSizes(t *testing.T) {
	srv := httptest.NewServer(NewService(published(landingSnapshot(t, "a", 0.01))).Handler(nil))
	defer srv.Close()
	code, env, raw := call(t, srv, "GET", "/api/v1/capacity_curve?cluster=a&points=3", "")
	if code != 200 {
		t.Fatalf("%d %s", code, raw)
	}
	var c apiv1.CapacityCurve
	b, _ := json.Marshal(env.Data)
	json.Unmarshal(b, &c)
	if c.Current.ReadSizeBytes != 4096 || c.Current.WriteSizeBytes != 65536 {
		t.Errorf("class sizes %v / %v, want 4096 / 65536", c.Current.ReadSizeBytes, c.Current.WriteSizeBytes)
	}
}

// TestClustersSayWhyAnETAIsZero: an ETA of 0 says whether the latency is
// over its SLO (max_iops too, at a utilization of 0.27) or the cluster is
// saturated; an ETA ahead has no reason.
func TestClustersSayWhyAnETAIsZero(t *testing.T) {
	over := landingSnapshot(t, "over", 0.01)
	over.Observed.LatencySeconds = 2 * over.SLOSeconds
	saturated := landingSnapshot(t, "saturated", 0.01)
	saturated.Live.CapacityAtMix.Utilization = 1.05
	ahead := landingSnapshot(t, "ahead", 0.01)
	srv := httptest.NewServer(NewService(published(ahead, over, saturated)).Handler(nil))
	defer srv.Close()
	_, env, raw := call(t, srv, "GET", "/api/v1/clusters", "")
	var cs []apiv1.Cluster
	b, _ := json.Marshal(env.Data)
	if err := json.Unmarshal(b, &cs); err != nil || len(cs) != 3 {
		t.Fatalf("%v: %s", err, raw)
	}
	if u := over.Live.CapacityAtMix.Utilization; !(u < 0.5) {
		t.Fatalf("the cluster over its SLO has a utilization of %v; the test wants headroom left", u)
	}
	want := map[string]map[string]string{
		"ahead":     {"latency_slo": "", "max_iops": ""},
		"over":      {"latency_slo": apiv1.ETAReasonLatencyOverSLO, "max_iops": apiv1.ETAReasonLatencyOverSLO},
		"saturated": {"max_iops": apiv1.ETAReasonSaturated},
	}
	for _, c := range cs {
		for _, e := range c.SaturationETAs {
			w, ok := want[c.Name][e.Limit]
			if !ok {
				continue
			}
			if e.Reason != w {
				t.Errorf("%s: ETA %s has reason %q, want %q", c.Name, e.Limit, e.Reason, w)
			}
			if w != "" && (e.Seconds == nil || *e.Seconds != 0) {
				t.Errorf("%s: ETA %s = %v with reason %q, want 0", c.Name, e.Limit, e.Seconds, w)
			}
		}
	}
	if !strings.Contains(string(raw), `"reason":"latency_over_slo"`) {
		t.Errorf("no reason in the JSON: %s", raw)
	}
}

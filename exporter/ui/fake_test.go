package ui

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"time"

	"github.com/storcast/storcast/exporter/apiv1"
)

// demoNow is the clock of the test pages: the golden file's "ago" and "in"
// are read against it.
var demoNow = time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)

// demoAsOf is the time of the demo's data: a minute before demoNow.
var demoAsOf = float64(demoNow.Unix() - 60)

// testHandler is NewHandler with the clock at demoNow.
func testHandler(p Provider) http.Handler {
	return &handler{p: p, log: slog.Default(), now: func() time.Time { return demoNow }}
}

// linearDemand is a demand trend: level IOPS at demoAsOf growing by slope
// IOPS per second, with a 95% band of ±6% of the mean that doubles over 30
// days from demoAsOf; the observed history swings ±12% daily around it.
type linearDemand struct{ level, slope float64 }

func (d linearDemand) mean(t float64) float64 { return d.level + d.slope*(t-demoAsOf) }

// eta is when the mean reaches limit: what the API computes from the
// trend, here by hand (nil when the demand does not grow).
func (d linearDemand) eta(limit float64) *float64 {
	if !(d.slope > 0) {
		return nil
	}
	v := math.Max(0, (limit-d.level)/d.slope)
	return &v
}

// fakeProvider is a Provider over fixed data; errors per cluster and curve.
type fakeProvider struct {
	clusters []apiv1.Cluster
	capacity map[string]apiv1.CapacityCurve
	latency  map[string]apiv1.LatencyCurve
	capErr   map[string]error
	latErr   map[string]error
	trends   map[string]linearDemand
	trendErr map[string]error
	ruleSets map[string]apiv1.RuleSets
	// emptyTrends: Forecast answers every cluster with no points (a plot
	// placeholder), for comparing screenshots.
	emptyTrends bool
}

func (f *fakeProvider) Forecast(ctx context.Context, cluster, series string, start, end, step float64) (apiv1.Forecast, error) {
	if err := f.trendErr[cluster]; err != nil {
		return apiv1.Forecast{}, err
	}
	if f.emptyTrends {
		return apiv1.Forecast{Cluster: cluster, Series: series, Unit: "iops"}, nil
	}
	d, ok := f.trends[cluster]
	if !ok {
		return apiv1.Forecast{}, fmt.Errorf("cluster %q: no demand trend fitted yet", cluster)
	}
	if series != "iops" || !(step > 0) || end < start {
		return apiv1.Forecast{}, fmt.Errorf("fake: series %q step %v [%v, %v]", series, step, start, end)
	}
	out := apiv1.Forecast{Cluster: cluster, Series: series, Unit: "iops"}
	for i := 0; start+float64(i)*step <= end; i++ {
		t := start + float64(i)*step
		m := d.mean(t)
		h := 0.06 * m * (1 + math.Abs(t-demoAsOf)/(30*86400))
		out.Points = append(out.Points, apiv1.ForecastPoint{T: t, Value: m, Lower: m - h, Upper: m + h})
	}
	for t := start; t <= math.Min(end, demoAsOf); t += 3600 {
		v := d.mean(t) * (1 + 0.12*math.Sin(2*math.Pi*(t-demoAsOf)/86400))
		out.Observed = append(out.Observed, apiv1.ForecastPoint{T: t, Value: v, Lower: v, Upper: v})
	}
	return out, nil
}

func (f *fakeProvider) Clusters(ctx context.Context) []apiv1.Cluster { return f.clusters }

func (f *fakeProvider) RuleSets(ctx context.Context, cluster string) (apiv1.RuleSets, error) {
	rs, ok := f.ruleSets[cluster]
	if !ok {
		return apiv1.RuleSets{}, errors.New("no current workload to advise on")
	}
	return rs, nil
}

func (f *fakeProvider) CapacityCurve(ctx context.Context, cluster string, ioSize float64, points int) (apiv1.CapacityCurve, error) {
	if err := f.capErr[cluster]; err != nil {
		return apiv1.CapacityCurve{}, err
	}
	c, ok := f.capacity[cluster]
	if !ok {
		return c, errors.New("unknown cluster " + cluster)
	}
	return c, nil
}

func (f *fakeProvider) LatencyCurve(ctx context.Context, cluster string) (apiv1.LatencyCurve, error) {
	if err := f.latErr[cluster]; err != nil {
		return apiv1.LatencyCurve{}, err
	}
	c, ok := f.latency[cluster]
	if !ok {
		return c, errors.New("unknown cluster " + cluster)
	}
	return c, nil
}

func ptr(v float64) *float64 { return &v }

// capacityOf is a conservation-model curve: with per-op costs cr and cw (in
// units of a budget of 1 second), max IOPS = 1/(r*cr + (1-r)*cw).
func capacityOf(name string, cr, cw, readRatio, iops, ioSize float64) apiv1.CapacityCurve {
	c := apiv1.CapacityCurve{Cluster: name, IOSizeBytes: ioSize}
	for i := 0; i < CurvePoints; i++ {
		r := float64(i) / float64(CurvePoints-1)
		m := 1 / (r*cr + (1-r)*cw)
		c.Points = append(c.Points, apiv1.CapacityPoint{ReadRatio: r, MaxIOPS: m, MaxReadIOPS: r * m, MaxWriteIOPS: (1 - r) * m})
	}
	c.Current = apiv1.CurrentMix{ReadRatio: readRatio, IOSizeBytes: ioSize, IOPS: iops, MaxIOPS: 1 / (readRatio*cr + (1-readRatio)*cw)}
	return c
}

// latencyOf is an M/M/1-like curve: latency = s/(1-x/max), band ±15%, with
// observed points below today's load.
func latencyOf(name string, s, max, slo, today float64) apiv1.LatencyCurve {
	c := apiv1.LatencyCurve{Cluster: name, SLOSeconds: slo, Latency: "op"}
	for i := 0; i <= 40; i++ {
		x := max * 0.95 * float64(i) / 40
		m := s / (1 - x/max)
		p := apiv1.LatencyPoint{IOPS: x, Lower: m * 0.85, Mean: m}
		if i < 38 { // past the capacity band's lower bound: no upper bound
			up := m * 1.15
			p.Upper = &up
		}
		c.Points = append(c.Points, p)
	}
	for i := 1; i <= 12; i++ {
		x := today * float64(i) / 12
		jitter := 1 + 0.05*math.Sin(float64(i)*1.7)
		c.Observed = append(c.Observed, apiv1.ObservedLatency{IOPS: x, LatencySeconds: s / (1 - x/max) * jitter})
	}
	// Where each latency bound crosses the SLO: s*mult/(1-x/max) = slo. The
	// upper bound (mult 1.15) crosses first.
	knee := func(mult float64) float64 { return max * (1 - s*mult/slo) }
	c.KneeIOPS = apiv1.Band{Lower: ptr(knee(0.85)), Mean: ptr(knee(1)), Upper: ptr(knee(1.15))}
	return c
}

// withSizes sets the read and write sizes of a curve's current mix.
func withSizes(c apiv1.CapacityCurve, read, write float64) apiv1.CapacityCurve {
	c.Current.ReadSizeBytes, c.Current.WriteSizeBytes = read, write
	return c
}

// demoProvider is two healthy clusters (ceph-prod's demand grows to its
// capacity in 40 days, swift-dc2's is flat) and one whose models wait for
// history.
func demoProvider() *fakeProvider {
	// ceph-prod: 21.5k IOPS of 37.5k, growing 16k IOPS in 40 days; its
	// latency's upper bound crosses the SLO at 27720 IOPS (see latencyOf).
	prod := linearDemand{level: 21500, slope: (37500 - 21500) / (40 * 86400.0)}
	swift := linearDemand{level: 6100}
	lastFit := demoAsOf - 20*60
	return &fakeProvider{
		clusters: []apiv1.Cluster{
			{Name: "swift-dc2", Kind: "swift", Models: map[string]apiv1.ModelStatus{
				"conservation": {Fitted: true, TrainingSamples: 2016}, // from a calibration file: no backtest
				"mlisp":        {Fitted: true, Stale: true, AccuracyRatio: 0.84, AccuracyMeasured: true, TrainingSamples: 2016},
				"trend":        {Fitted: true, AccuracyRatio: 0.97, AccuracyMeasured: true, TrainingSamples: 2016},
			}, DataAsOfUnix: demoAsOf - 3600, LastFitUnix: lastFit - 7200, NextFitUnix: lastFit - 3600,
				SaturationETAs: []apiv1.SaturationETA{{Limit: "latency_slo", Seconds: swift.eta(6283)}, {Limit: "max_iops", Seconds: swift.eta(6923)}}},
			{Name: "ceph-prod", Kind: "ceph", Models: map[string]apiv1.ModelStatus{
				"conservation": {Fitted: true, AccuracyRatio: 0.953, AccuracyMeasured: true, TrainingSamples: 10080},
				"insideout":    {Fitted: true, AccuracyRatio: 0.9, AccuracyMeasured: true, TrainingSamples: 10080},
				"mlisp":        {Fitted: true, AccuracyRatio: 0.88, AccuracyMeasured: true, TrainingSamples: 10080},
				"trend":        {Fitted: true, AccuracyRatio: 0.91, AccuracyMeasured: true, TrainingSamples: 10080},
			}, DataAsOfUnix: demoAsOf, LastFitUnix: lastFit, NextFitUnix: lastFit + 3600,
				// With the saturation trend's bands: the knee's optimistic
				// end not crossed before capacity, no late end.
				SaturationETAs: []apiv1.SaturationETA{{Limit: "latency_slo", Seconds: prod.eta(27720), Band: &apiv1.ETABand{Early: prod.eta(26500)}},
					{Limit: "max_iops", Seconds: prod.eta(37500), Band: &apiv1.ETABand{Early: prod.eta(36000), Late: prod.eta(39500)}}}},
			{Name: "ceph-new", Kind: "ceph", Models: map[string]apiv1.ModelStatus{
				"conservation": {Fitted: false, Error: "only 3 samples in the lookback, need 30"},
				"trend":        {Fitted: false, Error: "trend: 6 windows with load, need at least 30", Waiting: "waiting for 24 more windows with load (about 24m0s)"},
			}, DataAsOfUnix: demoAsOf},
		},
		capacity: map[string]apiv1.CapacityCurve{
			// ceph-prod: 4 KiB reads and 44 KiB writes, whose op-weighted
			// mean at 70% reads is 16 KiB; swift-dc2: 64 KiB reads and
			// 1 MiB writes, mean 208 KiB at 85% reads.
			"ceph-prod": withSizes(capacityOf("ceph-prod", 1.0/60000, 1.0/20000, 0.7, 21500, 16384), 4096, 45056),
			"swift-dc2": withSizes(capacityOf("swift-dc2", 1.0/9000, 1.0/3000, 0.85, 6100, 212992), 65536, 1048576),
		},
		trends: map[string]linearDemand{"ceph-prod": prod, "swift-dc2": swift},
		latency: map[string]apiv1.LatencyCurve{
			"ceph-prod": latencyOf("ceph-prod", 0.002, 36000, 0.010, 21500),
			"swift-dc2": latencyOf("swift-dc2", 0.008, 7700, 0.050, 6100),
		},
		capErr: map[string]error{"ceph-new": errors.New(`cluster "ceph-new": no model fitted yet (only 3 samples in the lookback, need 30)`)},
		latErr: map[string]error{"ceph-new": errors.New(`cluster "ceph-new": no model fitted yet`)},
	}
}

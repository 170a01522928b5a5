package ui

import (
	"context"
	"errors"
	"math"

	"github.com/storcast/storcast/exporter/apiv1"
)

// fakeProvider is a Provider over fixed data; errors per cluster and curve.
type fakeProvider struct {
	clusters []apiv1.Cluster
	capacity map[string]apiv1.CapacityCurve
	latency  map[string]apiv1.LatencyCurve
	capErr   map[string]error
	latErr   map[string]error
}

func (f *fakeProvider) Clusters(ctx context.Context) []apiv1.Cluster { return f.clusters }

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
		c.Points = append(c.Points, apiv1.LatencyPoint{IOPS: x, Lower: m * 0.85, Mean: m, Upper: m * 1.15})
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

// demoProvider is two healthy clusters and one whose models fail.
func demoProvider() *fakeProvider {
	return &fakeProvider{
		clusters: []apiv1.Cluster{
			{Name: "swift-dc2", Kind: "swift", Models: map[string]apiv1.ModelStatus{
				"conservation": {Fitted: true, TrainingSamples: 2016}, // from a calibration file: no backtest
				"mlisp":        {Fitted: true, Stale: true, AccuracyRatio: 0.84, AccuracyMeasured: true, TrainingSamples: 2016},
			}},
			{Name: "ceph-prod", Kind: "ceph", Models: map[string]apiv1.ModelStatus{
				"conservation": {Fitted: true, AccuracyRatio: 0.953, AccuracyMeasured: true, TrainingSamples: 10080},
				"insideout":    {Fitted: true, AccuracyRatio: 0.9, AccuracyMeasured: true, TrainingSamples: 10080},
				"mlisp":        {Fitted: true, AccuracyRatio: 0.88, AccuracyMeasured: true, TrainingSamples: 10080},
			}},
			{Name: "ceph-new", Kind: "ceph", Models: map[string]apiv1.ModelStatus{
				"conservation": {Fitted: false, Error: "only 3 samples in the lookback, need 30"},
			}},
		},
		capacity: map[string]apiv1.CapacityCurve{
			"ceph-prod": capacityOf("ceph-prod", 1.0/60000, 1.0/20000, 0.7, 21500, 16384),
			"swift-dc2": capacityOf("swift-dc2", 1.0/9000, 1.0/3000, 0.85, 6100, 262144),
		},
		latency: map[string]apiv1.LatencyCurve{
			"ceph-prod": latencyOf("ceph-prod", 0.002, 36000, 0.010, 21500),
			"swift-dc2": latencyOf("swift-dc2", 0.008, 7700, 0.050, 6100),
		},
		capErr: map[string]error{"ceph-new": errors.New(`cluster "ceph-new": no model fitted yet (only 3 samples in the lookback, need 30)`)},
		latErr: map[string]error{"ceph-new": errors.New(`cluster "ceph-new": no model fitted yet`)},
	}
}

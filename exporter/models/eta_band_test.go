package models

import (
	"math"
	"slices"
	"testing"

	"github.com/storcast/storcast/exporter/features"
	"github.com/storcast/storcast/forecaster/conservation"
	"github.com/storcast/storcast/forecaster/trend"
)

// kneeLatency is a latency model that only answers where its bounds cross
// the SLO.
type kneeLatency struct{ knee Band }

func (kneeLatency) Curve() []LatencyPoint        { return nil }
func (kneeLatency) At(float64) (Band, bool)      { return Band{}, false }
func (l kneeLatency) Crossing(float64) Band      { return l.knee }
func (kneeLatency) Accuracy() float64            { return math.NaN() }
func (kneeLatency) Samples() int                 { return 1 }
func (kneeLatency) Scores() map[string]float64   { return nil }
func (kneeLatency) MarshalJSON() ([]byte, error) { return []byte("{}"), nil }

// TestSaturationETABands: with the utilization trend each ETA has its band,
// Early ≤ Seconds ≤ Late. The latency_slo band runs from the knee's
// pessimistic end (its upper bound's crossing, the ETA's own level) to its
// optimistic end (the lower bound's); where the lower bound does not cross
// before capacity or lies past it, to the max_iops band's late end. Over
// the SLO, the ETA and its band are 0; the demand trend's line in IOPS has
// no band.
// Demand, in units of the capacity at the mix (5000 IOPS), grows 0.01 a
// day from 0.4 (2000 IOPS); the knee at 3000 IOPS is met in 20 days.
func TestSaturationETABands(t *testing.T) {
	const now, capacity = 1.7e9, 5000.0
	ut := &UtilizationFit{N: 864, ReferenceIOPS: capacity, T: &trend.UtilizationTrend{Growth: trend.GrowthLinear, Coef: []float64{0.4, 0.01},
		TMean: now, FirstT: now - 3*trend.Day, LastT: now, N: 864, ResidualStd: 0.01, Z: 1.96, Cov: []float64{0.01, 0, 0, 0.01}, Horizon: trend.DefaultHorizonSeconds}}
	obs := features.Observed{Time: now, IOPS: 2000, LatencySeconds: 0.001}
	live := Live{HasCapacityAtMix: true, CapacityAtMix: conservation.Result{MaxTotalIOPS: capacity, Utilization: 0.4}}
	set := Set{Saturation: ut}
	atLevel := func(iops float64) trend.SaturationETA { e, _ := ut.LoadETA(now, iops, iops, iops); return e }
	for _, c := range []struct {
		name string
		knee Band
		late func(maxIOPS ETA) float64 // the latency_slo band's late end
	}{
		{"the knee's band crossed", Band{Upper: 3000, Mean: 3200, Lower: 3400}, func(ETA) float64 { return atLevel(3400).LateSeconds }},
		{"the lower bound not before capacity", Band{Upper: 3000, Mean: 3200, Lower: math.NaN()}, func(m ETA) float64 { return m.Late }},
		// An IOPS-axis curve (M-LISP) runs past capacity: the late end is
		// max_iops's, not that of a knee the cluster cannot reach.
		{"the lower bound past capacity", Band{Upper: 3000, Mean: 4000, Lower: 6000}, func(m ETA) float64 { return m.Late }},
	} {
		etas := set.SaturationETAs(obs, true, live, 0.005, kneeLatency{c.knee})
		m, l := etas["max_iops"], etas["latency_slo"]
		for name, e := range map[string]ETA{"max_iops": m, "latency_slo": l} {
			if !e.HasBand || !(e.Early <= e.Seconds && e.Seconds <= e.Late) || !(e.Early > 0) || math.IsInf(e.Late, 1) {
				t.Errorf("%s: %s ETA %+v, want a finite band around it", c.name, name, e)
			}
		}
		if want := 60 * trend.Day; math.Abs(m.Seconds-want) > 1 {
			t.Errorf("%s: max_iops ETA %v d, want 60 d", c.name, m.Seconds/trend.Day)
		}
		if want := 20 * trend.Day; math.Abs(l.Seconds-want) > 1 {
			t.Errorf("%s: latency_slo ETA %v d, want 20 d", c.name, l.Seconds/trend.Day)
		}
		if want := atLevel(3000).EarlySeconds; l.Early != want {
			t.Errorf("%s: latency_slo band's early end %v d, want %v d (demand's upper band at the knee's pessimistic end)", c.name, l.Early/trend.Day, want/trend.Day)
		}
		if want := c.late(m); l.Late != want {
			t.Errorf("%s: latency_slo band's late end %v d, want %v d", c.name, l.Late/trend.Day, want/trend.Day)
		}
	}
	// Without max_iops (no capacity at the mix) the late end is the knee's
	// optimistic end, never a level below its pessimistic one: bands that
	// cross (the lower latency bound over the SLO first) are read as ordered.
	crossed := set.SaturationETAs(obs, true, Live{}, 0.005, kneeLatency{Band{Upper: 3000, Mean: 2800, Lower: 2500}})
	if l, ok := crossed["latency_slo"]; !ok || !l.HasBand || l.Late != atLevel(3000).LateSeconds || !(l.Late >= l.Seconds) {
		t.Errorf("a knee whose optimistic end lies below its pessimistic one: latency_slo %+v, want the late end %v d", l, atLevel(3000).LateSeconds/trend.Day)
	}
	over := obs
	over.LatencySeconds = 0.01
	overETAs := set.SaturationETAs(over, true, live, 0.005, kneeLatency{Band{Upper: 3000}})
	if l := overETAs["latency_slo"]; l != (ETA{HasBand: true, Reached: ReachedLatencyOverSLO}) {
		t.Errorf("over the SLO: latency_slo %+v, want 0 with a band of 0, reached for the latency", l)
	}
	// max_iops is 0 too, at a utilization of 0.4: for the latency, not
	// for a saturated cluster.
	if m := overETAs["max_iops"]; m != (ETA{HasBand: true, Reached: ReachedLatencyOverSLO}) {
		t.Errorf("over the SLO: max_iops %+v, want 0 with a band of 0, reached for the latency", m)
	}
	saturated := live
	saturated.CapacityAtMix.Utilization = 1.02
	if m := set.SaturationETAs(obs, true, saturated, 0.005, kneeLatency{Band{Upper: 3000}})["max_iops"]; m != (ETA{HasBand: true, Reached: ReachedSaturated}) {
		t.Errorf("at a utilization of 1.02: max_iops %+v, want 0 with a band of 0, reached as saturated", m)
	}
	// Saturated and over the SLO, as a saturated cluster usually is:
	// max_iops reached as saturated (the page's "latency over its SLO,
	// below max IOPS" would say headroom is left), latency_slo for the
	// latency.
	both := set.SaturationETAs(over, true, saturated, 0.005, kneeLatency{Band{Upper: 3000}})
	if m, l := both["max_iops"], both["latency_slo"]; m.Reached != ReachedSaturated || l.Reached != ReachedLatencyOverSLO {
		t.Errorf("saturated and over the SLO: max_iops reached %q, latency_slo %q; want %q, %q", m.Reached, l.Reached, ReachedSaturated, ReachedLatencyOverSLO)
	}
	var ts, ys []float64
	for i := 0; i < 1440; i++ {
		ts, ys = append(ts, now-float64(1439-i)*60), append(ys, 2000+float64(i)/10)
	}
	demand, err := DemandTrend{}.FitSeries(ts, ys)
	if err != nil {
		t.Fatal(err)
	}
	etas := Set{Trend: demand}.SaturationETAs(obs, true, live, 0.005, kneeLatency{Band{Upper: 3000}})
	if len(etas) != 2 || etas["max_iops"].HasBand || etas["latency_slo"].HasBand || !(etas["latency_slo"].Seconds > 0) {
		t.Errorf("the demand trend's line in IOPS: ETAs %+v, want both without a band", etas)
	}
	if m := (Set{Trend: demand}).SaturationETAs(over, true, live, 0.005, kneeLatency{Band{Upper: 3000}})["max_iops"]; m != (ETA{Reached: ReachedLatencyOverSLO}) {
		t.Errorf("the demand trend over the SLO: max_iops %+v, want 0 reached for the latency", m)
	}
}

// TestCapacityTables: the capacity at every read ratio with its band's
// ends, lower ≤ capacity ≤ upper at every point (trend.Limit reads no band
// otherwise), the band from the calibration's runs; no band without runs.
func TestCapacityTables(t *testing.T) {
	ref := features.Observed{ReadIOPS: 1, WriteIOPS: 1, IOPS: 2, ReadSizeBytes: 16384, WriteSizeBytes: 16384, IOSizeBytes: 16384}
	for _, c := range []struct {
		name   string
		cal    conservation.Calibration
		banded bool
	}{
		{"runs", calibrationWithRuns(), true},
		{"one run each", conservation.Calibration{Points: []conservation.Point{
			{IOSizeBytes: 4096, ReadIOPS: 37620, WriteIOPS: 4038}, {IOSizeBytes: 65536, ReadIOPS: 16943, WriteIOPS: 3379}}}, false},
	} {
		capm, err := conservation.NewModel(c.cal)
		if err != nil {
			t.Fatal(err)
		}
		cRef := capacityAtReadRatio(capm, ref, 0.5)
		capacity, lower, upper := capacityTables(capm, ref, cRef)
		if len(capacity) != capacityTablePoints || (lower != nil) != c.banded || (upper != nil) != c.banded {
			t.Fatalf("%s: %d points, band %v/%v, want a band %v", c.name, len(capacity), lower != nil, upper != nil, c.banded)
		}
		if got := capacity[(capacityTablePoints-1)/2]; math.Abs(got-1) > 1e-12 {
			t.Errorf("%s: the capacity at 50%% reads %v of itself", c.name, got)
		}
		for k, v := range capacity {
			if !(v > 0) {
				t.Fatalf("%s: capacity %v at point %d", c.name, v, k)
			}
			if c.banded && !(lower[k] <= v && v <= upper[k] && lower[k] < upper[k]) {
				t.Fatalf("%s: at point %d the band [%v, %v] does not hold the capacity %v", c.name, k, lower[k], upper[k], v)
			}
		}
	}
}

// TestFillUnplaced: a point the capacity model could not place (or placed
// without its band) takes all three values of the last placed point before
// it, a leading gap those of the first placed; so the band holds the
// capacity at every point. Filled table by table, the lower end at point 1
// came from point 0 (0.9), above the capacity it was given from point 2.
func TestFillUnplaced(t *testing.T) {
	nan := math.NaN()
	capacity := []float64{nan, 1.0, 0.8, nan, 0.6}
	lower := []float64{nan, 0.9, nan, nan, 0.5}
	upper := []float64{nan, 1.1, nan, nan, 0.7}
	placed := []bool{false, true, false, false, true}
	if !fillUnplaced(placed, capacity, lower, upper) {
		t.Fatal("no point placed")
	}
	want := [][]float64{{1.0, 1.0, 1.0, 1.0, 0.6}, {0.9, 0.9, 0.9, 0.9, 0.5}, {1.1, 1.1, 1.1, 1.1, 0.7}}
	for i, got := range [][]float64{capacity, lower, upper} {
		if !slices.Equal(got, want[i]) {
			t.Errorf("table %d: %v, want %v", i, got, want[i])
		}
	}
	for k := range capacity {
		if !(lower[k] <= capacity[k] && capacity[k] <= upper[k]) {
			t.Errorf("point %d: band [%v, %v] without the capacity %v", k, lower[k], upper[k], capacity[k])
		}
	}
	if fillUnplaced([]bool{false, false}, []float64{nan, nan}) {
		t.Error("nothing placed, but fillUnplaced says something was")
	}
}

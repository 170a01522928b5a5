package conservation

import (
	"math"
	"testing"
	"time"

	"github.com/storcast/storcast/storagesim"
)

// storagesim's interference scenario mixes 4 KiB and 64 KiB in both
// directions (85/15 of the ops) under γ 0.3/0.2 and η 0.1 between the sizes,
// on any pair of ops (reads with reads too). What the exporter sees is a
// mean read size and a mean write size, both 13 KiB: no class pair at
// different sizes, so the interference between sizes of the frontier (a
// read class and a write class at different sizes) has nothing to act on.
// Measured here at read ratios 0.3..0.7:
//   - the operator's recipe (pure points and a 50/50 point per size, cost
//     across sizes) is off by up to 3.3% (the integration test's 3.2%): the
//     missing η between sizes (+7%) less the γ the frontier applies between
//     4 KiB reads and 64 KiB writes of the mean-size classes, which the
//     truth does not have (−4%);
//   - calibrated also at the workload's own size split (fio bssplit: pure
//     read, pure write and 50/50 at 85/15, a point at its 13 KiB mean size,
//     sizes log-log so that the point is exact), within 0.01% at its mean
//     size and 0.5% at a mean size 3% off it: the figures at
//     the mean size carry the interference between sizes, and what is left
//     is the shape in read ratio (the truth's η adds r² and (1−r)² terms the
//     frontier's γ has not). That calibration measured the truth at the very
//     size mix the exporter sees: a check of the recipe, not evidence that
//     the model knows sizes.
func TestInterferenceScenarioSizeMix(t *testing.T) {
	sc, err := storagesim.LoadScenario("interference")
	if err != nil {
		t.Fatal(err)
	}
	origin := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	sim, err := storagesim.New(sc, 1, origin)
	if err != nil {
		t.Fatal(err)
	}
	tr := sim.Truth(origin, sc.SLOSeconds)
	split := make([]float64, len(tr.Mix))
	var mean float64
	for i, m := range tr.Mix {
		split[i] = m.OpShare
		mean += m.OpShare * m.SizeBytes
	}
	at := func(r float64, shares []float64) float64 {
		v, err := tr.MaxIOPSAt(r, shares)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	recipe := Calibration{Interpolation: Cost}
	for i, m := range tr.Mix {
		one := make([]float64, len(tr.Mix))
		one[i] = 1
		recipe.Points = append(recipe.Points, Point{IOSizeBytes: m.SizeBytes, ReadIOPS: at(1, one), WriteIOPS: at(0, one)})
		recipe.Mixed = append(recipe.Mixed, MixedPoint{IOSizeBytes: m.SizeBytes, ReadRatio: 0.5, IOPS: at(0.5, one)})
	}
	withSplit := recipe
	withSplit.Interpolation = LogLog
	withSplit.Points = append(append([]Point(nil), recipe.Points...), Point{IOSizeBytes: mean, ReadIOPS: at(1, split), WriteIOPS: at(0, split)})
	withSplit.Mixed = append(append([]MixedPoint(nil), recipe.Mixed...), MixedPoint{IOSizeBytes: mean, ReadRatio: 0.5, IOPS: at(0.5, split)})
	for _, c := range []struct {
		name string
		cal  Calibration
		min  float64 // the worst error must reach this (the bias is there)
		max  float64
	}{{"recipe", recipe, 0.03, 0.035}, {"recipe + the workload's size split", withSplit, 0, 0.006}} {
		m, err := NewModel(c.cal)
		if err != nil {
			t.Fatal(err)
		}
		var worst float64
		for _, r := range []float64{0.3, 0.4, 0.5, 0.6, 0.7} {
			res, err := m.AtMix([]OpClass{{Op: Read, IOSizeBytes: mean, Rate: r}, {Op: Write, IOSizeBytes: mean, Rate: 1 - r}})
			if err != nil {
				t.Fatal(err)
			}
			truth := at(r, split)
			e := res.MaxTotalIOPS/truth - 1
			t.Logf("%s, %.0f%% reads: max %.0f, truth %.0f (%+.2f%%)", c.name, 100*r, res.MaxTotalIOPS, truth, 100*e)
			worst = math.Max(worst, math.Abs(e))
		}
		// The mean size from counters is never exact (rate noise moves it by
		// a few percent): at a mean 3% off, the truth's split moved with it.
		if len(tr.Mix) == 2 {
			for _, f := range []float64{0.97, 1.03} {
				s := f * mean
				p1 := (s - tr.Mix[0].SizeBytes) / (tr.Mix[1].SizeBytes - tr.Mix[0].SizeBytes)
				res, err := m.AtMix([]OpClass{{Op: Read, IOSizeBytes: s, Rate: 0.3}, {Op: Write, IOSizeBytes: s, Rate: 0.7}})
				if err != nil {
					t.Fatal(err)
				}
				truth := at(0.3, []float64{1 - p1, p1})
				e := res.MaxTotalIOPS/truth - 1
				t.Logf("%s, 30%% reads at %.0f B: max %.0f, truth %.0f (%+.2f%%)", c.name, s, res.MaxTotalIOPS, truth, 100*e)
				worst = math.Max(worst, math.Abs(e))
			}
		}
		if worst < c.min || worst > c.max {
			t.Errorf("%s: worst error %.4f, want %v..%v", c.name, worst, c.min, c.max)
		}
	}
}

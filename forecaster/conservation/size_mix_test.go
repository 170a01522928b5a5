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

// storagesim's form of size interference (η on every pair of sizes,
// whatever the directions; γ only between reads and writes of one size),
// with separate read and write size splits, against the frontier as the
// exporter sees it (a read class at the reads' mean size, a write class at
// the writes' mean size; sizes by cost) calibrated with a 50/50 point per
// size and, with η, one 4 KiB-read/64 KiB-write point at 50/50. The
// frontier puts γ between 4 KiB reads and 64 KiB writes, which this truth
// does not: its η comes out negative (−0.15 against the truth's 0.1), and
// it is right where each direction has one size, not in general:
//   - 4 KiB reads with 64 KiB writes: exact with η; 1.9-6.2% under without;
//   - reads 90/10 and writes 30/70 (4 KiB/64 KiB): 1.0-2.5% over with η,
//     3.3% under to 0.9% over without;
//   - both 85/15: 3.3% over to 1.3% under either way (η sees no size gap).
func TestSizeInterferenceOnStoragesimForm(t *testing.T) {
	rd := map[float64]float64{4096: 36000, 65536: 9000}
	wr := map[float64]float64{4096: 12000, 65536: 3000}
	gamma := map[float64]float64{4096: 0.3, 65536: 0.2}
	const eta = 0.1
	sizes := []float64{4096, 65536}
	truth := func(r float64, p, q map[float64]float64) float64 {
		u := func(x float64) float64 {
			var sum [2]float64
			var u float64
			for i, s := range sizes {
				a, b := r*p[s]*x/rd[s], (1-r)*q[s]*x/wr[s]
				u += a + b + 4*gamma[s]*a*b
				sum[i] = a + b
			}
			return u + 4*eta*sum[0]*sum[1]
		}
		return bisectFrontier(u)
	}
	one := func(s float64) map[float64]float64 { return map[float64]float64{s: 1} }
	base := Calibration{Interpolation: Cost}
	for _, s := range sizes {
		base.Points = append(base.Points, Point{IOSizeBytes: s, ReadIOPS: rd[s], WriteIOPS: wr[s]})
		base.Mixed = append(base.Mixed, MixedPoint{IOSizeBytes: s, ReadRatio: 0.5, IOPS: truth(0.5, one(s), one(s))})
	}
	withEta := base
	withEta.Mixed = append(append([]MixedPoint(nil), base.Mixed...), MixedPoint{IOSizeBytes: 4096, WriteIOSizeBytes: 65536, ReadRatio: 0.5, IOPS: truth(0.5, one(4096), one(65536))})
	mb, err := NewModel(base)
	if err != nil {
		t.Fatal(err)
	}
	me, err := NewModel(withEta)
	if err != nil {
		t.Fatal(err)
	}
	if e, _ := me.SizeInterference(); math.Abs(e.Eta+0.15) > 1e-6 {
		t.Errorf("η %v, want −0.15 (the truth's 0.1 less the γ 0.25 the frontier puts at 16 KiB)", e.Eta)
	}
	for _, c := range []struct {
		name         string
		p, q         map[float64]float64
		etaLo, etaHi float64 // the range of errors with η
		noLo, noHi   float64 // and without
	}{
		{"4 KiB reads, 64 KiB writes", one(4096), one(65536), -1e-6, 1e-6, -0.065, -0.015},
		{"reads 90/10, writes 30/70", map[float64]float64{4096: 0.9, 65536: 0.1}, map[float64]float64{4096: 0.3, 65536: 0.7}, 0.005, 0.03, -0.04, 0.015},
		{"both 85/15", map[float64]float64{4096: 0.85, 65536: 0.15}, map[float64]float64{4096: 0.85, 65536: 0.15}, -0.015, 0.035, -0.015, 0.035},
	} {
		var rs, ws float64
		for _, s := range sizes {
			rs, ws = rs+c.p[s]*s, ws+c.q[s]*s
		}
		for _, r := range []float64{0.3, 0.5, 0.7} {
			want := truth(r, c.p, c.q)
			cl := []OpClass{{Op: Read, IOSizeBytes: rs, Rate: r}, {Op: Write, IOSizeBytes: ws, Rate: 1 - r}}
			ge, err1 := me.AtMix(cl)
			gb, err2 := mb.AtMix(cl)
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			e, n := ge.MaxTotalIOPS/want-1, gb.MaxTotalIOPS/want-1
			t.Logf("%s, %.0f%% reads: truth %.0f; with η %.0f (%+.1f%%), without %.0f (%+.1f%%)", c.name, 100*r, want, ge.MaxTotalIOPS, 100*e, gb.MaxTotalIOPS, 100*n)
			if e < c.etaLo || e > c.etaHi || n < c.noLo || n > c.noHi {
				t.Errorf("%s at %v: errors %.4f with η, %.4f without; want %v..%v and %v..%v", c.name, r, e, n, c.etaLo, c.etaHi, c.noLo, c.noHi)
			}
		}
	}
}

package conservation

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// A cluster whose time per op is exactly c0 + c1·S: the cost model
// recovers it from any three sizes, leave-one-size-out prefers it, and
// Auto uses it.
func TestCostModelKnownTruth(t *testing.T) {
	const rc0, rc1, wc0, wc1 = 5e-6, 4e-10, 3e-5, 2e-9
	R := func(s float64) float64 { return 1 / (rc0 + rc1*s) }
	W := func(s float64) float64 { return 1 / (wc0 + wc1*s) }
	var cal Calibration
	for _, s := range []float64{4096, 65536, 1 << 20} {
		cal.Points = append(cal.Points, Point{IOSizeBytes: s, ReadIOPS: R(s), WriteIOPS: W(s)})
	}
	cal.Interpolation = Auto
	m, err := NewModel(cal)
	if err != nil {
		t.Fatal(err)
	}
	f := m.SizeForm()
	if f.Used != Cost || !(f.CostLOO < 1e-9) || !(f.LogLogLOO > 0.01) || !strings.Contains(f.Reason, "cost model has the lower leave-one-size-out error") {
		t.Errorf("form %+v, want cost chosen", f)
	}
	if !near(f.ReadC0, rc0, 1e-9) || !near(f.ReadC1, rc1, 1e-9) || !near(f.WriteC0, wc0, 1e-9) || !near(f.WriteC1, wc1, 1e-9) {
		t.Errorf("coefficients %+v, want %v %v %v %v", f, rc0, rc1, wc0, wc1)
	}
	for _, s := range []float64{4096, 16384, 300000, 1 << 20, 8 << 20} {
		sc, _ := m.At(s)
		if !near(sc.ReadIOPS, R(s), 1e-9) || !near(sc.WriteIOPS, W(s), 1e-9) || sc.Interpolation != Cost {
			t.Errorf("size %v: %+v, want %v %v", s, sc, R(s), W(s))
		}
	}
	res, _ := m.AtMix([]OpClass{{Op: Read, IOSizeBytes: 16384, Rate: 1}})
	if res.Interpolation != Cost {
		t.Errorf("Result.Interpolation %q", res.Interpolation)
	}
	// The same calibration left at the default keeps log-log.
	cal.Interpolation = ""
	m, _ = NewModel(cal)
	if sc, _ := m.At(16384); sc.Interpolation != LogLog || near(sc.ReadIOPS, R(16384), 1e-3) {
		t.Errorf("default: %+v", sc)
	}
}

// Power laws: log-log is exact, so leave-one-size-out prefers it.
func TestAutoPrefersLogLogOnPowerLaws(t *testing.T) {
	var cal Calibration
	for _, s := range []float64{4096, 32768, 262144, 1 << 20} {
		cal.Points = append(cal.Points, Point{IOSizeBytes: s, ReadIOPS: 2e6 * math.Pow(s, -0.5), WriteIOPS: 4e5 * math.Pow(s, -0.4)})
	}
	cal.Interpolation = Auto
	m, _ := NewModel(cal)
	if f := m.SizeForm(); f.Used != LogLog || f.LogLogLOO > 1e-12 || f.CostLOO < 0.01 {
		t.Errorf("form %+v, want log-log", f)
	}
	// Two sizes leave none to judge by: auto, and the default, take the cost
	// model, which passes through both here (IOPS fall, throughput rises
	// with size), and say why.
	cal.Points = cal.Points[:2]
	for _, interp := range []string{Auto, ""} {
		cal.Interpolation = interp
		m, _ = NewModel(cal)
		if f := m.SizeForm(); f.Used != Cost || !strings.Contains(f.Reason, "two calibrated sizes: the cost model passes through both") {
			t.Errorf("two sizes, %q: %+v", interp, f)
		}
	}
}

// Two sizes whose figures no cost per op plus cost per byte can pass
// through keep log-log, by default and with auto: write IOPS rising with
// size (the Swift suite's calibration of 2026-11-27 09:30: 146 at 4 KiB,
// 160 at 64 KiB), or throughput falling with size.
func TestTwoSizesLogLogWhereCostCannotPassThrough(t *testing.T) {
	for _, c := range []struct {
		name string
		pts  []Point
	}{
		{"write IOPS rising", []Point{{IOSizeBytes: 4096, ReadIOPS: 640, WriteIOPS: 146}, {IOSizeBytes: 65536, ReadIOPS: 614, WriteIOPS: 160}}},
		{"read throughput falling", []Point{{IOSizeBytes: 4096, ReadIOPS: 40000, WriteIOPS: 5000}, {IOSizeBytes: 65536, ReadIOPS: 2000, WriteIOPS: 2000}}},
	} {
		for _, interp := range []string{Auto, ""} {
			m, err := NewModel(Calibration{Points: c.pts, Interpolation: interp})
			if err != nil {
				t.Fatal(err)
			}
			f := m.SizeForm()
			if f.Used != LogLog || !strings.Contains(f.Reason, "cannot pass through both") {
				t.Errorf("%s, %q: %+v, want log-log", c.name, interp, f)
			}
			for _, p := range c.pts {
				if sc, _ := m.At(p.IOSizeBytes); !near(sc.ReadIOPS, p.ReadIOPS, 1e-12) || !near(sc.WriteIOPS, p.WriteIOPS, 1e-12) {
					t.Errorf("%s, %q: at %v B %+v, calibrated %+v", c.name, interp, p.IOSizeBytes, sc, p)
				}
			}
		}
	}
}

// With two sizes the cost model is exactly determined: it passes through
// both points, as long as IOPS fall no faster than 1/size (bandwidth does
// not fall with size; otherwise c0 would be negative and NNLS holds it at 0). Between them it always lies on or above log-log: log T is
// −log(c0 + c1·e^x) in x = log S, a concave function, so it lies above its
// chord, which is the log-log interpolant. (c0, c1 >= 0.)
func TestCostModelTwoSizesAboveLogLog(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := 0; trial < 200; trial++ {
		r4 := 1000 + 2e5*rng.Float64()
		r64 := r4 * (1.0/16 + (1-1.0/16)*rng.Float64())
		w4 := r4 / (1 + 9*rng.Float64())
		w64 := w4 * (1.0/16 + (1-1.0/16)*rng.Float64())
		pts := []Point{{IOSizeBytes: 4096, ReadIOPS: r4, WriteIOPS: w4}, {IOSizeBytes: 65536, ReadIOPS: r64, WriteIOPS: w64}}
		cost, err := NewModel(Calibration{Points: pts, Interpolation: Cost})
		if err != nil {
			t.Fatal(err)
		}
		ll, _ := NewModel(Calibration{Points: pts, Interpolation: LogLog})
		for _, p := range pts {
			sc, _ := cost.At(p.IOSizeBytes)
			if !near(sc.ReadIOPS, p.ReadIOPS, 1e-9) || !near(sc.WriteIOPS, p.WriteIOPS, 1e-9) {
				t.Fatalf("cost model misses a calibrated point: %+v vs %+v", sc, p)
			}
		}
		for _, s := range []float64{8192, 16384, 32768} {
			c, _ := cost.At(s)
			l, _ := ll.At(s)
			if c.ReadIOPS < l.ReadIOPS*(1-1e-12) || c.WriteIOPS < l.WriteIOPS*(1-1e-12) {
				t.Fatalf("size %v: cost %v/%v below log-log %v/%v", s, c.ReadIOPS, c.WriteIOPS, l.ReadIOPS, l.WriteIOPS)
			}
		}
	}
}

// The real single-host Ceph lab's fio calibration (e2e/ceph, 4 KiB and
// 64 KiB): there, 16 KiB from log-log interpolation came out 10-16% under
// the measured capacity. The cost model moves 16 KiB up, the direction of
// the error; by how much is logged. How far it closes the gap is measured
// on the CI runs' 16 KiB steps (e2e/ceph/scorer TestRecordedRunsRecomputed).
func TestCostModelOnCephLabCalibration(t *testing.T) {
	pts := []Point{{IOSizeBytes: 4096, ReadIOPS: 19193.440875, WriteIOPS: 2538.584566}, {IOSizeBytes: 65536, ReadIOPS: 9840.709144, WriteIOPS: 2205.490405}}
	ll, _ := NewModel(Calibration{Points: pts, Interpolation: LogLog})
	cost, _ := NewModel(Calibration{Points: pts, Interpolation: Cost})
	l, _ := ll.At(16384)
	c, _ := cost.At(16384)
	t.Logf("16 KiB: log-log read %.0f write %.0f; cost read %.0f (%+.1f%%) write %.0f (%+.1f%%)",
		l.ReadIOPS, l.WriteIOPS, c.ReadIOPS, 100*(c.ReadIOPS/l.ReadIOPS-1), c.WriteIOPS, 100*(c.WriteIOPS/l.WriteIOPS-1))
	if !(c.ReadIOPS > l.ReadIOPS && c.WriteIOPS > l.WriteIOPS) {
		t.Errorf("cost model does not raise 16 KiB: %+v vs %+v", c, l)
	}
}

// The repository's scored real-Ceph run (e2e/ceph/results/latest.json: one
// fio calibration, saturated 4 KiB mixes at 30/50/70% reads). Prints γ per
// mix and leave-one-mix-out errors against the paper's; checks the 50%
// mix's γ worked by hand: a = 2289.5/19193.44 = 0.11929,
// b = 2289.5/2538.58 = 0.90188, γ = (1 − a − b)/(4ab) = −0.0492.
func TestInterferenceOnCephLabRun(t *testing.T) {
	tr, tw := 19193.440875, 2538.584566
	measured := map[float64]float64{0.3: 4050, 0.5: 4579, 0.7: 6064}
	ratios := []float64{0.3, 0.5, 0.7}
	g50, err := GammaFromMixed(tr, tw, 0.5, 4579)
	if err != nil || math.Abs(g50-(-0.0492)) > 5e-4 {
		t.Errorf("γ at 50%%: %v, %v; want -0.0492", g50, err)
	}
	for _, out := range ratios {
		g, _ := GammaFromMixed(tr, tw, out, measured[out])
		var mixed []MixedPoint
		for _, r := range ratios {
			if r != out {
				mixed = append(mixed, MixedPoint{IOSizeBytes: 4096, ReadRatio: r, IOPS: measured[r]})
			}
		}
		m, err := NewModel(Calibration{Points: []Point{{IOSizeBytes: 4096, ReadIOPS: tr, WriteIOPS: tw}}, Mixed: mixed})
		if err != nil {
			t.Fatal(err)
		}
		gl := m.Interference()[0].Gamma
		p, _ := MaxAtReadRatio(tr, tw, gl, out)
		p0, _ := MaxAtReadRatio(tr, tw, 0, out)
		t.Logf("%.0f%% reads: γ from this mix alone %.3f; γ from the other two %.3f predicts %.0f (error %.1f%%), paper %.0f (%.1f%%), measured %.0f",
			100*out, g, gl, p, 100*math.Abs(p-measured[out])/measured[out], p0, 100*math.Abs(p0-measured[out])/measured[out], measured[out])
	}
}

// The default never moves a calibrated figure, whatever the figures: on
// random calibrations of one to five sizes (IOPS free to rise or fall with
// size, as noisy runs make them) the model at each calibrated size is its
// figures to 1e-9, and with two sizes it takes the cost model exactly when
// each direction's IOPS fall and throughput rises with size (the condition
// for c0, c1 ≥ 0 through both points), else log-log.
func TestDefaultKeepsEveryCalibratedFigure(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 27))
	costs := 0
	for trial := 0; trial < 2000; trial++ {
		n := 1 + rng.IntN(5)
		sizes := map[float64]bool{}
		var cal Calibration
		for len(cal.Points) < n {
			s := math.Round(512 * math.Pow(2, 13*rng.Float64()))
			if sizes[s] {
				continue
			}
			sizes[s] = true
			cal.Points = append(cal.Points, Point{IOSizeBytes: s, ReadIOPS: 100 * math.Pow(10, 3*rng.Float64()), WriteIOPS: 100 * math.Pow(10, 3*rng.Float64())})
		}
		m, err := NewModel(cal)
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		for _, p := range cal.Points {
			sc, _ := m.At(p.IOSizeBytes)
			if !near(sc.ReadIOPS, p.ReadIOPS, 1e-9) || !near(sc.WriteIOPS, p.WriteIOPS, 1e-9) {
				t.Fatalf("trial %d (%s): at %v B %v/%v, calibrated %v/%v", trial, m.SizeForm().Used, p.IOSizeBytes, sc.ReadIOPS, sc.WriteIOPS, p.ReadIOPS, p.WriteIOPS)
			}
		}
		if n != 2 {
			if f := m.SizeForm(); f.Used != LogLog {
				t.Fatalf("trial %d: %d sizes: %+v, want log-log", trial, n, f)
			}
			continue
		}
		a, b := cal.Points[0], cal.Points[1]
		if a.IOSizeBytes > b.IOSizeBytes {
			a, b = b, a
		}
		physical := func(ia, ib float64) bool { return ib <= ia && ib*b.IOSizeBytes >= ia*a.IOSizeBytes }
		want := LogLog
		if physical(a.ReadIOPS, b.ReadIOPS) && physical(a.WriteIOPS, b.WriteIOPS) {
			want = Cost
			costs++
		}
		if f := m.SizeForm(); f.Used != want {
			t.Fatalf("trial %d: %+v / %+v: %+v, want %s", trial, a, b, f, want)
		}
	}
	if costs < 20 {
		t.Errorf("only %d two-size calibrations were physical: the test does not reach the cost model", costs)
	}
}

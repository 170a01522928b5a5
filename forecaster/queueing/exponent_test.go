package queueing

import (
	"math"
	"math/rand/v2"
	"testing"
)

// lineLatency rises linearly with U and stays finite at capacity, as the
// real Ceph runs' op latency did below U 0.6 in two of four runs:
// L = S·(0.1 + 10·U).
func lineLatency(u float64) float64 { return truthS * (0.1 + 10*u) }

// TestOpenExponent: the exponent Q of L0 + A·U/(1 − U)^Q leaves M/G/1 only
// when the history says so. Histories of 50 windows with U uniform on
// [0.05, 0.6] (the size and range of the real Ceph records) and 5%
// log-normal noise, 200 seeds per truth, the latency read at U = 0.8, a
// third beyond the history. Measured: on M/M/1 and M/D/1 Q = 1 is kept in
// 200 of 200 and L(0.8) is within 20% in all (as with Q fixed at 1, worst
// 8.1% and 8.4%); on the line Q ≤ 0.25 is chosen in 200 of 200 and L(0.8)
// is within 10% in 199 (worst 27.7%; with Q fixed at 1 every one is over
// 20% off, up to 127%). Asserted with one history of slack each; on the
// M/G/1 truths within 11%, 1.3 times the worst measured (8.4%).
func TestOpenExponent(t *testing.T) {
	const seeds = 200
	for _, c := range []struct {
		name      string
		lat       func(float64) float64
		mg1       bool // the truth is M/G/1: Q = 1 must be kept
		minWithin int  // histories with L(0.8) within tol
		tol       float64
	}{
		{"M/M/1", mm1Latency, true, seeds - 1, 0.11},
		{"M/D/1", md1Latency, true, seeds - 1, 0.11},
		{"line", lineLatency, false, seeds - 2, 0.1},
	} {
		kept, low, within := 0, 0, 0
		worst := 0.0
		for s := range seeds {
			m, err := Fit(openHistory(rand.New(rand.NewPCG(uint64(s), 11)), 50, 0.6, 0.05, c.lat), Options{Class: Open})
			if err != nil {
				t.Fatalf("%s seed %d: %v", c.name, s, err)
			}
			switch {
			case m.Open.Q == 1:
				kept++
			case m.Open.Q <= 0.25:
				low++
			}
			p, err := m.At(0.8)
			if err != nil {
				t.Fatal(err)
			}
			e := math.Abs(p.Mean/c.lat(0.8) - 1)
			worst = math.Max(worst, e)
			if e <= c.tol {
				within++
			}
		}
		t.Logf("%s: Q = 1 in %d of %d, Q <= 0.25 in %d; L(0.8) within %.0f%% in %d, worst %.1f%%", c.name, kept, seeds, low, 100*c.tol, within, 100*worst)
		if c.mg1 && kept < seeds-1 {
			t.Errorf("%s: Q = 1 kept in %d of %d, want >= %d", c.name, kept, seeds, seeds-1)
		}
		if !c.mg1 && low < seeds-1 {
			t.Errorf("%s: Q <= 0.25 in %d of %d, want >= %d", c.name, low, seeds, seeds-1)
		}
		if within < c.minWithin {
			t.Errorf("%s: L(0.8) within %.0f%% in %d of %d, want >= %d", c.name, 100*c.tol, within, seeds, c.minWithin)
		}
	}
}

// The exponent's inverse (the class test's and the band's) undoes At.
func TestOpenShapeInverse(t *testing.T) {
	for _, q := range openExponents {
		o := OpenShape{L0: 0.3e-3, A: 1.2e-3, Q: q}
		for _, u := range []float64{0.01, 0.2, 0.5, 0.9, 0.99} {
			if got := o.inverse(o.At(u)); math.Abs(got-u) > 1e-9 {
				t.Errorf("Q %v: inverse(At(%v)) = %v", q, u, got)
			}
		}
		if got := o.inverse(o.L0 / 2); got != 0 {
			t.Errorf("Q %v: inverse below L0 = %v, want 0", q, got)
		}
	}
}

// TestOpenFitIgnoresSaturatedWindows: a window at U ≥ 1 (a calibration
// that puts capacity low, a burst past it) is left out of the open-loop
// shape, as it is of the residual: scored at U 0.999, where U/(1 − U) is
// 999, one such window outweighed the 50 others and took the fit (the
// latency at U 0.8 several times too low). Over 20 M/M/1 histories with
// one window at U 1.05 and 5× the service time, Q = 1 is kept and L(0.8)
// is within 11% of the truth, as without it (TestOpenExponent).
func TestOpenFitIgnoresSaturatedWindows(t *testing.T) {
	for s := range 20 {
		h := openHistory(rand.New(rand.NewPCG(uint64(s), 11)), 50, 0.6, 0.05, mm1Latency)
		h = append(h, Sample{U: 1.05, Throughput: 1.05 * truthC, Latency: 5 * truthS})
		m, err := Fit(h, Options{Class: Open})
		if err != nil {
			t.Fatalf("seed %d: %v", s, err)
		}
		p, err := m.At(0.8)
		if err != nil {
			t.Fatal(err)
		}
		if e := math.Abs(p.Mean/mm1Latency(0.8) - 1); m.Open.Q != 1 || e > 0.11 {
			t.Errorf("seed %d: Q %v, L(0.8) %.4g s for %.4g s (%.0f%% off); want Q 1 and within 11%%", s, m.Open.Q, p.Mean, mm1Latency(0.8), 100*e)
		}
	}
}

// TestFitLightlyLoadedHistory: a cluster that never ran past 3% of its
// capacity still gets a model. The band widens as (U/UMax − 1)² ahead,
// about 1,000 times its width at U 0.999 from a history that ends at 0.03:
// exp of that overflowed, the curve was not finite and Fit failed. The
// band's half-width is bounded (the latency span Fit accepts, 10⁹); the
// curve and band stay finite and ordered up to capacity.
func TestFitLightlyLoadedHistory(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	h := make([]Sample, 200)
	for i := range h {
		u := 0.01 + 0.02*rng.Float64()
		h[i] = Sample{U: u, Throughput: u * truthC, Latency: mm1Latency(u) * math.Exp(0.1*rng.NormFloat64())}
	}
	m, err := Fit(h, Options{Class: Open})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []float64{0.02, 0.5, 0.9, 0.99, 0.998} {
		p, err := m.At(u)
		if err != nil {
			t.Fatal(err)
		}
		if !(p.Lower > 0 && p.Lower <= p.Mean && p.Mean <= p.Upper) || math.IsInf(p.Upper, 0) {
			t.Errorf("U %v: band %v ≤ %v ≤ %v; want finite, positive and ordered", u, p.Lower, p.Mean, p.Upper)
		}
	}
}

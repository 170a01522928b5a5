package queueing

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/storcast/storcast/forecaster/internal/check"
)

// TestKnownTruths: histories drawn from M/M/1, M/D/1 (open loop, U uniform
// on [0.05, 0.95]) and a closed loop (exact MVA, 1–32 clients, think time 0,
// a 4 ms delay), 1000 windows each with 5% log-normal noise on latency (and
// 2.5% on throughput for the closed loop): over 5 seeds, the class is
// recovered every time and the latency at U = 0.9 is within 5% of the
// truth. All three lie inside the fitted families, so this is a plumbing
// check of the fit, not evidence of accuracy on real clusters.
func TestKnownTruths(t *testing.T) {
	cases := []struct {
		name  string
		class Class
		truth float64
		gen   func(*rand.Rand) []Sample
	}{
		{"M/M/1", Open, mm1Latency(0.9), func(r *rand.Rand) []Sample { return openHistory(r, 1000, 0.95, 0.05, mm1Latency) }},
		{"M/D/1", Open, md1Latency(0.9), func(r *rand.Rand) []Sample { return openHistory(r, 1000, 0.95, 0.05, md1Latency) }},
		{"closed MVA", Closed, closedLatencyAt(0.9), func(r *rand.Rand) []Sample { return closedHistory(r, 1000, 32, 0.05) }},
	}
	for _, c := range cases {
		for s := 0; s < 5; s++ {
			m, err := Fit(c.gen(rand.New(rand.NewPCG(uint64(s), 7))), Options{})
			if err != nil {
				t.Fatalf("%s seed %d: %v", c.name, s, err)
			}
			if m.Class != c.class {
				t.Errorf("%s seed %d: class %v, want %v (AIC open %.0f, closed %.0f)", c.name, s, m.Class, c.class, m.AICOpen, m.AICClosed)
			}
			p, err := m.At(0.9)
			if err != nil {
				t.Fatal(err)
			}
			if e := math.Abs(p.Mean/c.truth - 1); e > 0.05 {
				t.Errorf("%s seed %d: L(0.9) = %.3g ms, truth %.3g ms (error %.1f%% > 5%%)", c.name, s, 1e3*p.Mean, 1e3*c.truth, 100*e)
			}
			if !(p.Lower <= c.truth && c.truth <= p.Upper) {
				t.Errorf("%s seed %d: truth %.3g outside band [%.3g, %.3g]", c.name, s, c.truth, p.Lower, p.Upper)
			}
		}
	}
}

// checkProperties asserts the invariants every fitted model must satisfy.
func checkProperties(t *testing.T, m *Model, slo float64) {
	t.Helper()
	pts, err := m.Curve(1000)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range pts {
		if p.U >= 1 {
			if !p.Saturated || !math.IsInf(p.Mean, 1) {
				t.Fatalf("point at U=%v not saturated: %+v", p.U, p)
			}
			continue
		}
		if p.Saturated || !check.Finite(p.Mean) || !check.Finite(p.Upper) {
			t.Fatalf("point %d below capacity not finite: %+v", i, p)
		}
		if p.Mean > 0 && !(p.Lower > 0) {
			t.Fatalf("lower band %v not > 0 at U=%v (mean %v)", p.Lower, p.U, p.Mean)
		}
		if !(p.Lower <= p.Mean && p.Mean <= p.Upper) {
			t.Fatalf("band [%v, %v] does not hold mean %v at U=%v", p.Lower, p.Upper, p.Mean, p.U)
		}
		if i > 0 && p.Mean < pts[i-1].Mean {
			t.Fatalf("mean falls from %v to %v at U=%v", pts[i-1].Mean, p.Mean, p.U)
		}
	}
	if u, ok, err := m.Knee(slo); err != nil || (ok && !(u >= 0 && u < 1)) || (!ok && !math.IsNaN(u)) {
		t.Fatalf("knee %v ok %v err %v: must be in [0, 1) or NaN", u, ok, err)
	}
	for _, u := range []float64{1, 1.3} {
		if p, err := m.At(u); err != nil || !p.Saturated {
			t.Fatalf("At(%v) = %+v, %v: want saturated", u, p, err)
		}
	}
}

func TestProperties(t *testing.T) {
	for s := 0; s < 3; s++ {
		rng := rand.New(rand.NewPCG(uint64(s), 9))
		for _, h := range [][]Sample{
			openHistory(rng, 500, 0.95, 0.05, mm1Latency),
			openHistory(rng, 500, 0.6, 0.2, md1Latency),
			closedHistory(rng, 500, 16, 0.1),
		} {
			m, err := Fit(h, Options{})
			if err != nil {
				t.Fatal(err)
			}
			checkProperties(t, m, 0.01)
		}
	}
}

// TestKneeBelowCapacity: with an SLO far above anything a fit below
// capacity predicts, there is no knee (never a knee beyond U = 1); with an
// SLO below the no-load latency, the knee is 0.
func TestKneeBelowCapacity(t *testing.T) {
	m, err := Fit(closedHistory(rand.New(rand.NewPCG(1, 1)), 500, 8, 0.05), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if u, ok, _ := m.Knee(10); ok || !math.IsNaN(u) {
		t.Errorf("knee at SLO 10 s = %v, %v: want none", u, ok)
	}
	if u, ok, _ := m.Knee(1e-6); !ok || u != 0 {
		t.Errorf("knee at SLO 1 µs = %v, %v: want 0", u, ok)
	}
	mo, err := Fit(openHistory(rand.New(rand.NewPCG(1, 1)), 500, 0.7, 0.05, mm1Latency), Options{})
	if err != nil {
		t.Fatal(err)
	}
	// M/M/1 at 20 ms SLO: truth U = 0.9; trained to 0.7 only.
	u, ok, _ := mo.Knee(0.020)
	if !ok || u >= 0.9 || u < 0.75 {
		t.Errorf("M/M/1 knee at 20 ms = %v (%v): want in [0.75, 0.9) (upper band, truth 0.9)", u, ok)
	}
}

// TestStableKnee: refits on overlapping windows of a steady history (1000
// samples sliding by 100 over 2000) move the knee by less than 5%.
func TestStableKnee(t *testing.T) {
	for _, c := range []struct {
		name string
		h    []Sample
		slo  float64
	}{
		{"open", openHistory(rand.New(rand.NewPCG(3, 3)), 2000, 0.95, 0.05, mm1Latency), 0.015},
		{"closed", closedHistory(rand.New(rand.NewPCG(3, 3)), 2000, 32, 0.05), 0.009},
	} {
		var knees []float64
		for start := 0; start+1000 <= len(c.h); start += 100 {
			m, err := Fit(c.h[start:start+1000], Options{})
			if err != nil {
				t.Fatal(err)
			}
			u, ok, _ := m.Knee(c.slo)
			if !ok {
				t.Fatalf("%s window %d: no knee at SLO %v", c.name, start, c.slo)
			}
			knees = append(knees, u)
		}
		for i := 1; i < len(knees); i++ {
			if d := math.Abs(knees[i]/knees[i-1] - 1); d >= 0.05 {
				t.Errorf("%s: knee moved %.1f%% between windows %d and %d (%v -> %v)", c.name, 100*d, i-1, i, knees[i-1], knees[i])
			}
		}
		t.Logf("%s knees: %.4f", c.name, knees)
	}
}

func TestFitRejectsBadInput(t *testing.T) {
	good := openHistory(rand.New(rand.NewPCG(1, 1)), 20, 0.9, 0.05, mm1Latency)
	bad := func(f func(s []Sample)) []Sample {
		c := append([]Sample(nil), good...)
		f(c)
		return c
	}
	for _, c := range []struct {
		name    string
		samples []Sample
		opt     Options
		want    string
	}{
		{"too few", good[:4], Options{}, "samples"},
		{"NaN U", bad(func(s []Sample) { s[3].U = math.NaN() }), Options{}, "U"},
		{"negative U", bad(func(s []Sample) { s[3].U = -1 }), Options{}, "U"},
		{"zero latency", bad(func(s []Sample) { s[0].Latency = 0 }), Options{}, "latency"},
		{"Inf throughput", bad(func(s []Sample) { s[0].Throughput = math.Inf(1) }), Options{}, "throughput"},
		{"one U", bad(func(s []Sample) {
			for i := range s {
				s[i].U = 0.5
			}
		}), Options{}, "distinct"},
		{"class", good, Options{Class: 7}, "opt.Class"},
	} {
		_, err := Fit(c.samples, c.opt)
		if err == nil || !errors.Is(err, ErrInput) || !contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want ErrInput naming %q", c.name, err, c.want)
		}
	}
	m, err := Fit(good, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.At(math.NaN()); err == nil {
		t.Error("At(NaN): no error")
	}
	if _, _, err := m.Knee(0); err == nil {
		t.Error("Knee(0): no error")
	}
	if _, err := m.Curve(0); err == nil {
		t.Error("Curve(0): no error")
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

func TestSamplesFromAndNotFitted(t *testing.T) {
	s, dropped, err := SamplesFrom(
		[]float64{0.1, math.NaN(), 0.3, -1, 0.5},
		[]float64{50, 100, 0, 200, 250},
		[]float64{0.002, 0.003, 0.004, 0.005, math.Inf(1)})
	if err != nil || dropped != 4 || len(s) != 1 || s[0] != (Sample{0.1, 50, 0.002}) {
		t.Errorf("SamplesFrom = %v, %d, %v: want the one complete window, 4 dropped", s, dropped, err)
	}
	if _, _, err := SamplesFrom([]float64{1}, nil, nil); err == nil {
		t.Error("SamplesFrom with mismatched lengths: no error")
	}
	var m Model
	if _, err := m.At(0.5); !errors.Is(err, ErrNotFitted) {
		t.Errorf("zero Model At: %v, want ErrNotFitted", err)
	}
	if _, _, err := m.Knee(0.01); !errors.Is(err, ErrNotFitted) {
		t.Errorf("zero Model Knee: %v, want ErrNotFitted", err)
	}
}

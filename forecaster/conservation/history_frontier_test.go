package conservation

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// interferedWindows: a closed-loop 4 KiB cluster with T_read100 120000,
// T_write100 24000 and interference γ; half the windows saturated (served at
// the frontier, latency x10), half at 10-60% load. ratios are the read
// ratios drawn from; noise is the relative s.d. of the rates.
func interferedWindows(rng *rand.Rand, n int, gamma float64, ratios []float64, noise float64) []Window {
	ws := make([]Window, n)
	for i := range ws {
		rho := ratios[rng.IntN(len(ratios))]
		mt, _ := MaxAtReadRatio(120000, 24000, gamma, rho)
		u, lat := 0.1+0.5*rng.Float64(), 0.001
		if i%2 == 0 {
			u, lat = 1, 0.01
		}
		e := func() float64 { return math.Exp(noise * rng.NormFloat64()) }
		ws[i] = Window{IOSizeBytes: 4096, ReadIOPS: u * rho * mt * e(), WriteIOPS: u * (1 - rho) * mt * e(), LatencySeconds: lat}
	}
	return ws
}

func TestEstimateInterferenceFromHistory(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	// Exact windows at three mixes: γ and both capacities recovered.
	ws := interferedWindows(rng, 60, 0.3, []float64{0.3, 0.5, 0.8}, 0)
	cal, q, err := EstimateFromHistory(ws, EstimateOptions{Interference: true})
	if err != nil {
		t.Fatal(err)
	}
	b := q.Bands[0]
	if !b.GammaFitted || math.Abs(b.Gamma-0.3) > 1e-9 || !near(cal.Points[0].ReadIOPS, 120000, 1e-9) || !near(cal.Points[0].WriteIOPS, 24000, 1e-9) {
		t.Fatalf("exact windows: band %+v, points %+v", b, cal.Points)
	}
	// The calibration carries γ as a 50/50 mixed point; the model built on
	// it reproduces γ.
	m, err := NewModel(cal)
	if err != nil {
		t.Fatal(err)
	}
	if g := m.Interference(); len(g) != 1 || math.Abs(g[0].Gamma-0.3) > 1e-9 {
		t.Errorf("model from the estimate: γ %+v", g)
	}
	// Without the option the paper's fit is unchanged (no γ, no mixed point).
	cal0, q0, _ := EstimateFromHistory(ws, EstimateOptions{})
	if len(cal0.Mixed) != 0 || q0.Bands[0].GammaFitted || q0.Bands[0].GammaError != "" {
		t.Errorf("without Interference: %+v", q0.Bands[0])
	}

	// 2% rate noise at many mixes: γ within 3 standard errors, and the
	// standard error is honest (not zero, not huge).
	ratios := []float64{0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9}
	var inside int
	var sumG, sumSE float64
	const trials = 40
	for k := 0; k < trials; k++ {
		_, q, err := EstimateFromHistory(interferedWindows(rng, 200, 0.3, ratios, 0.02), EstimateOptions{Interference: true})
		if err != nil {
			t.Fatal(err)
		}
		b := q.Bands[0]
		if !b.GammaFitted || !(b.GammaStdErr > 0.001 && b.GammaStdErr < 0.2) {
			t.Fatalf("noisy windows: %+v", b)
		}
		sumG, sumSE = sumG+b.Gamma, sumSE+b.GammaStdErr
		if math.Abs(b.Gamma-0.3) <= 2*b.GammaStdErr {
			inside++
		}
	}
	t.Logf("2%% rate noise, 100 saturated windows at 8 mixes: mean γ %.3f (truth 0.3), mean s.e. %.3f, within 2 s.e. in %d of %d trials",
		sumG/trials, sumSE/trials, inside, trials)
	// A 2-s.e. interval should cover the truth ~95% of the time.
	if inside < trials*8/10 {
		t.Errorf("γ within 2 s.e. of the truth in %d of %d trials", inside, trials)
	}

	// Two mixes only: γ is not identifiable without the pure capacities.
	_, q, err = EstimateFromHistory(interferedWindows(rng, 60, 0.3, []float64{0.3, 0.7}, 0), EstimateOptions{Interference: true})
	if err != nil {
		t.Fatal(err)
	}
	if q.Bands[0].GammaFitted || !strings.Contains(q.Bands[0].GammaError, "(0.30..0.70: 2 at least 0.10 apart) to separate interference from the two capacities; need three or more") {
		t.Errorf("two mixes: %+v", q.Bands[0])
	}
	// The same with 2% rate noise, and with a third ratio close to one of
	// the two: the noise scatters the windows' rates along each mix, which
	// made the three columns independent in arithmetic but not in fact (on
	// real Ceph, saturated windows at 30% and 50% reads gave γ −0.25 ± 0.002
	// and pure reads at 1,900 IOPS for a true ~20,000). Both keep γ = 0.
	for _, ratios := range [][]float64{{0.3, 0.7}, {0.3, 0.33, 0.5}} {
		cal, q, err := EstimateFromHistory(interferedWindows(rng, 200, 0, ratios, 0.02), EstimateOptions{Interference: true})
		if err != nil {
			t.Fatal(err)
		}
		if b := q.Bands[0]; b.GammaFitted || !strings.Contains(b.GammaError, ": 2 at least 0.10 apart) to separate interference") ||
			!near(cal.Points[0].ReadIOPS, 120000, 0.1) || !near(cal.Points[0].WriteIOPS, 24000, 0.1) {
			t.Errorf("ratios %v, 2%% noise: %+v, points %+v", ratios, b, cal.Points)
		}
	}
}

func TestLowerBoundFromHistory(t *testing.T) {
	ws := []Window{
		{IOSizeBytes: 4096, ReadIOPS: 3000, WriteIOPS: 1000},
		{IOSizeBytes: 4100, ReadIOPS: 1000, WriteIOPS: 2000},
		{IOSizeBytes: 65536, ReadIOPS: 9000, WriteIOPS: 9000}, // other size band
		{IOSizeBytes: 4096, ReadIOPS: 0, WriteIOPS: 0},
	}
	for _, c := range []struct {
		rho, want float64
		window    int
	}{
		{0.75, 4000, 0},    // window 0 is exactly this mix: 4000
		{0.5, 2000, 0},     // min(3000/0.5, 1000/0.5) = 2000 beats min(2000, 4000)
		{1.0 / 3, 3000, 1}, // window 1 exactly: 3000
		{1, 3000, 0},       // reads alone
		{0, 2000, 1},       // writes alone
	} {
		b, reason, err := LowerBoundFromHistory(ws, 4096, c.rho)
		if err != nil {
			t.Fatal(err)
		}
		if !near(b.IOPS, c.want, 1e-12) || b.Window != c.window || b.Windows != 3 || !strings.Contains(reason, "history never saturated") {
			t.Errorf("ρ %v: %+v %q, want %v from window %d", c.rho, b, reason, c.want, c.window)
		}
	}
	// The bound never exceeds the true max when windows come from a
	// frontier with interference (it holds whatever the frontier's shape).
	rng := rand.New(rand.NewPCG(11, 12))
	for _, g := range []float64{-0.2, 0, 0.3, 1} {
		ws := interferedWindows(rng, 300, g, []float64{0.2, 0.5, 0.9}, 0)
		for _, rho := range []float64{0, 0.1, 0.35, 0.5, 0.9, 1} {
			b, _, _ := LowerBoundFromHistory(ws, 4096, rho)
			mt, _ := MaxAtReadRatio(120000, 24000, g, rho)
			if b.IOPS > mt*(1+1e-12) {
				t.Errorf("γ %v ρ %v: bound %v above the true max %v", g, rho, b.IOPS, mt)
			}
		}
	}
	b, reason, _ := LowerBoundFromHistory(ws, 1<<20, 0.5)
	if b.IOPS != 0 || b.Window != -1 || !strings.Contains(reason, "no bound: no window in the size band of 1048576 bytes") {
		t.Errorf("no window: %+v %q", b, reason)
	}
	b, reason, _ = LowerBoundFromHistory(ws[3:], 4096, 0.5)
	if b.IOPS != 0 || !strings.Contains(reason, "no bound: none of the 1 windows in the size band served load") {
		t.Errorf("idle: %+v %q", b, reason)
	}
	for _, c := range []struct {
		ws   []Window
		size float64
		rho  float64
		want string
	}{
		{ws, 0, 0.5, "ioSizeBytes: must be > 0, got 0"},
		{ws, 4096, -0.1, "readRatio: must be in 0..1, got -0.1"},
		{nil, 4096, 0.5, "windows: empty"},
		{[]Window{{IOSizeBytes: 4096, ReadIOPS: math.NaN()}}, 4096, 0.5, "windows[0].readIops: must be a finite number >= 0, got NaN"},
		{[]Window{{IOSizeBytes: 4096, WriteIOPS: -1}}, 4096, 0.5, "windows[0].writeIops: must be a finite number >= 0, got -1"},
	} {
		_, _, err := LowerBoundFromHistory(c.ws, c.size, c.rho)
		if err == nil || !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
}

// With the benchmark's capacities known, two mixes in history fix γ.
func TestInterferenceFromHistoryOnBenchmark(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	bench := Calibration{Points: []Point{{IOSizeBytes: 4096, ReadIOPS: 120000, WriteIOPS: 24000}}}
	ws := interferedWindows(rng, 60, 0.3, []float64{0.3, 0.7}, 0)
	cal, q, err := InterferenceFromHistory(bench, ws, EstimateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b := q.Bands[0]
	if !b.GammaFitted || math.Abs(b.Gamma-0.3) > 1e-9 || b.GammaStdErr > 1e-9 || len(cal.Mixed) != 1 {
		t.Fatalf("exact windows: %+v, mixed %+v", b, cal.Mixed)
	}
	m, _ := NewModel(cal)
	if g := m.Interference(); math.Abs(g[0].Gamma-0.3) > 1e-9 {
		t.Errorf("model γ %+v", g)
	}
	// Noisy windows: within 3 standard errors.
	_, q, _ = InterferenceFromHistory(bench, interferedWindows(rng, 200, 0.3, []float64{0.3, 0.7}, 0.02), EstimateOptions{})
	if b := q.Bands[0]; !b.GammaFitted || math.Abs(b.Gamma-0.3) > 3*b.GammaStdErr || b.GammaStdErr <= 0 {
		t.Errorf("noisy windows: %+v", b)
	}
	// One mix only: refused, with the reason.
	_, q, _ = InterferenceFromHistory(bench, interferedWindows(rng, 60, 0.3, []float64{0.5}, 0), EstimateOptions{})
	if q.Bands[0].GammaFitted || !strings.Contains(q.Bands[0].GammaError, "need >= 2 mixes") {
		t.Errorf("one mix: %+v", q.Bands[0])
	}
	// A benchmark mixed point at the size takes precedence.
	withMix := bench
	withMix.Mixed = []MixedPoint{{IOSizeBytes: 4096, ReadRatio: 0.5, IOPS: 30000}}
	cal, q, _ = InterferenceFromHistory(withMix, ws, EstimateOptions{})
	if len(cal.Mixed) != 1 || cal.Mixed[0].IOPS != 30000 || !strings.Contains(q.Bands[0].GammaError, "they fix γ here") {
		t.Errorf("benchmark mixed point: %+v %+v", cal.Mixed, q.Bands[0])
	}
	// A mixed-size point (4 KiB reads with 64 KiB writes) fixes η, not γ
	// at 4 KiB: the history still fits γ there (the band was refused).
	withSizes := Calibration{Points: []Point{{IOSizeBytes: 4096, ReadIOPS: 120000, WriteIOPS: 24000}, {IOSizeBytes: 65536, ReadIOPS: 20000, WriteIOPS: 4000}},
		Mixed: []MixedPoint{{IOSizeBytes: 4096, WriteIOSizeBytes: 65536, ReadRatio: 0.5, IOPS: 7742}}}
	if _, q, err := InterferenceFromHistory(withSizes, ws, EstimateOptions{}); err != nil || len(q.Bands) == 0 || !q.Bands[0].GammaFitted || math.Abs(q.Bands[0].Gamma-0.3) > 1e-9 {
		t.Errorf("a mixed-size point beside: %v %+v", err, q.Bands)
	}
	if _, _, err := InterferenceFromHistory(Calibration{}, ws, EstimateOptions{}); err == nil || !strings.Contains(err.Error(), "points: empty") {
		t.Errorf("empty calibration: %v", err)
	}
	if _, _, err := InterferenceFromHistory(bench, nil, EstimateOptions{}); err == nil || !strings.Contains(err.Error(), "windows: empty") {
		t.Errorf("no windows: %v", err)
	}
}

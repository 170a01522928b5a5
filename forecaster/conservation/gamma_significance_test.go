package conservation

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// The standard error of γ from one mixed point at a calibrated size, by the
// delta method worked by hand: γ = (1 − a − b)/(4ab), a = ρm/R, b = (1−ρ)m/W,
// ∂γ/∂a = −(1−b)/(4a²b), ∂γ/∂b = −(1−a)/(4ab²); m moves a and b in
// proportion, R only a, W only b. The noise is pooled: one relative σ from
// the runs of all three figures (Σ(n − 1) = 2 + 1 + 3 = 6 degrees of
// freedom), each figure's standard error σ·x/√n. The numeric derivative in
// gammaStdErr must agree.
func TestGammaStdErrDeltaMethod(t *testing.T) {
	R, W := []float64{15000, 16500, 17000}, []float64{2900, 3200}
	M := []float64{4500, 4800, 4700, 4900}
	cal := Calibration{
		Points: []Point{{IOSizeBytes: 4096, ReadIOPS: mean(R), WriteIOPS: mean(W), ReadRuns: R, WriteRuns: W}},
		Mixed:  []MixedPoint{{IOSizeBytes: 4096, ReadRatio: 0.4, IOPS: mean(M), Runs: M}},
	}
	m, err := NewModel(cal)
	if err != nil {
		t.Fatal(err)
	}
	g := m.Interference()[0]
	rho, r, w, mm := 0.4, mean(R), mean(W), mean(M)
	a, b := rho*mm/r, (1-rho)*mm/w
	ga, gb := -(1-b)/(4*a*a*b), -(1-a)/(4*a*b*b)
	dm := (ga*a + gb*b) / mm
	dr, dw := -ga*a/r, -gb*b/w
	var ss float64
	for _, runs := range [][]float64{R, W, M} {
		for _, x := range runs {
			ss += sq(x/mean(runs) - 1)
		}
	}
	sigma := math.Sqrt(ss / 6)
	se := sigma * math.Sqrt(sq(dm*mm)/4+sq(dr*r)/3+sq(dw*w)/2)
	want, _ := GammaFromMixed(r, w, rho, mm)
	if !near(g.Estimate, want, 1e-12) || !near(g.StdErr, se, 1e-6) || g.DoF != 6 {
		t.Fatalf("γ %v ± %v (%v dof), want %v ± %v (6 dof)", g.Estimate, g.StdErr, g.DoF, want, se)
	}
	kept := math.Abs(want) > tQuantile975(6)*se
	if (g.Test == GammaKept) != kept || (g.Test == GammaNotSignificant) == kept || g.Gamma != g.Estimate {
		t.Fatalf("test %q, γ %v, want kept=%v (|γ|/se = %v, t = %v) and γ at its estimate either way", g.Test, g.Gamma, kept, math.Abs(want)/se, tQuantile975(6))
	}
}

func sq(x float64) float64 { return x * x }

// checkBandCoversRuns checks that at the mix of c.Mixed[i] (one mixed point
// per size, at a calibrated size) the max-IOPS band covers the central
// figure and every run, and is the hull of the runs' ends and one more
// run's prediction interval, worked by hand here: where γ is used (kept or
// not significant) the frontier passes through the mixed figure, whose
// elasticity is 1, so h = t·σ·√(1 + 1/n_mixed); where γ fell back (an
// estimate beyond the form, within the noise) the max is the paper's
// 1/(ρ/R + (1−ρ)/W), with elasticities ρ·max/R and (1−ρ)·max/W, so
// h = t·σ·√(1 + e_R²/n_R + e_W²/n_W). The runs' ends are the frontiers
// through every figure at its runs' min, resp. max, except where an end's γ
// would fall outside the family (below MinGamma, or a frontier that turns
// back before the run): that end is widened to reach its run (reported
// false, the hull not checked).
func checkBandCoversRuns(t *testing.T, m *Model, c Calibration, i int) bool {
	t.Helper()
	mp := c.Mixed[i]
	var p Point
	for _, q := range c.Points {
		if q.IOSizeBytes == mp.IOSizeBytes {
			p = q
		}
	}
	res, err := m.AtMix([]OpClass{{Op: Read, IOSizeBytes: mp.IOSizeBytes, Rate: 50}, {Op: Write, IOSizeBytes: mp.IOSizeBytes, Rate: 50}})
	if err != nil {
		t.Fatal(err)
	}
	if !(res.MaxTotalIOPSLower <= res.MaxTotalIOPS && res.MaxTotalIOPS <= res.MaxTotalIOPSUpper) {
		t.Fatalf("band %v..%v misses the central %v", res.MaxTotalIOPSLower, res.MaxTotalIOPSUpper, res.MaxTotalIOPS)
	}
	inFamily := func(r, w, mm float64) bool {
		g, err := GammaFromMixed(r, w, mp.ReadRatio, mm)
		a, b := mp.ReadRatio*mm/r, (1-mp.ReadRatio)*mm/w
		return err == nil && g >= MinGamma && g > -(a+b)/(8*a*b)
	}
	lo, hi := runsMin(mp.IOPS, mp.Runs), runsMax(mp.IOPS, mp.Runs)
	if res.MaxTotalIOPSLower > lo*(1+1e-9) || res.MaxTotalIOPSUpper < hi*(1-1e-9) {
		t.Fatalf("band %v..%v misses the mixed runs %v..%v", res.MaxTotalIOPSLower, res.MaxTotalIOPSUpper, lo, hi)
	}
	if !inFamily(runsMin(p.ReadIOPS, p.ReadRuns), runsMin(p.WriteIOPS, p.WriteRuns), lo) ||
		!inFamily(runsMax(p.ReadIOPS, p.ReadRuns), runsMax(p.WriteIOPS, p.WriteRuns), hi) {
		return false
	}
	sigma, dof := poolNoise(c)
	x := res.MaxTotalIOPS
	var v float64
	if m.Interference()[0].Test == GammaZero {
		eR, eW := mp.ReadRatio*x/p.ReadIOPS, (1-mp.ReadRatio)*x/p.WriteIOPS
		v = eR*eR/float64(len(p.ReadRuns)) + eW*eW/float64(len(p.WriteRuns))
	} else {
		v = 1 / float64(len(mp.Runs))
	}
	h := tQuantile975(float64(dof)) * sigma * math.Sqrt(1+v)
	wantLo, wantHi := math.Min(math.Min(lo, x), x*math.Exp(-h)), math.Max(math.Max(hi, x), x*math.Exp(h))
	// The elasticities are one-sided differences of step 1e-4: 1e-5 relative.
	if !near(res.MaxTotalIOPSLower, wantLo, 1e-5) || !near(res.MaxTotalIOPSUpper, wantHi, 1e-5) {
		t.Fatalf("band %v..%v, want the hull of the central %v, the runs %v..%v and the prediction interval ±%v: %v..%v",
			res.MaxTotalIOPSLower, res.MaxTotalIOPSUpper, x, lo, hi, h, wantLo, wantHi)
	}
	return true
}

// The 97.5% t quantiles of a table (1, 2, 4, 30 dof) and the normal's.
func TestTQuantile975(t *testing.T) {
	for _, c := range []struct{ dof, want float64 }{{1, 12.706}, {2, 4.303}, {4, 2.776}, {30, 2.042}, {math.Inf(1), 1.960}} {
		if got := tQuantile975(c.dof); math.Abs(got-c.want) > 1e-3 {
			t.Errorf("t(0.975, %v) = %v, want %v", c.dof, got, c.want)
		}
	}
}

// synthRuns draws n runs of a figure whose truth is x, each off by a
// relative normal error of sd cv.
func synthRuns(rng *rand.Rand, x, cv float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = x * (1 + cv*rng.NormFloat64())
	}
	return out
}

// synthCalibration is a calibration of a two-size cluster whose truth is
// the frontier with interference gamma at both sizes, measured with runs
// relative noise cv on the pure figures and mixedCV on the 50/50 points.
func synthCalibration(rng *rand.Rand, gamma, cv, mixedCV float64, runs int) Calibration {
	var c Calibration
	for _, p := range []struct{ s, r, w float64 }{{4096, 16000, 3000}, {65536, 10400, 1450}} {
		rr, wr := synthRuns(rng, p.r, cv, runs), synthRuns(rng, p.w, cv, runs)
		c.Points = append(c.Points, Point{IOSizeBytes: p.s, ReadIOPS: mean(rr), WriteIOPS: mean(wr), ReadRuns: rr, WriteRuns: wr})
		t, err := MaxAtReadRatio(p.r, p.w, gamma, 0.5)
		if err != nil {
			panic(err)
		}
		mr := synthRuns(rng, t, mixedCV, runs)
		c.Mixed = append(c.Mixed, MixedPoint{IOSizeBytes: p.s, ReadRatio: 0.5, IOPS: mean(mr), Runs: mr})
	}
	return c
}

// The noise levels below come from the single-host Ceph lab: within one
// calibration, two runs of a figure were 1-13% apart (sd of a run about 5%
// of the figure); single runs of a point across campaigns varied 8-38%
// (about 15%).
const (
	labCV   = 0.05
	noisyCV = 0.15
)

// Zero interference in: the runs at the lab's noise level rarely make γ
// significant (the test's level is 5%); γ is used at its estimate whatever
// the test says, and the band covers every mixed run. Where the estimate is
// one the frontier cannot take (the mix above the line, within the noise),
// the central figures are exactly the paper's model (the calibration
// without its mixed points).
func TestGammaZeroTruth(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const trials = 400
	for _, runs := range []int{2, 4} {
		kept, zero, fits := 0, 0, 0
		for trial := 0; trial < trials; trial++ {
			c := synthCalibration(rng, 0, labCV, labCV, runs)
			m, err := NewModel(c)
			if err != nil {
				t.Fatal(err)
			}
			paper := c
			paper.Mixed = nil
			pm, err := NewModel(paper)
			if err != nil {
				t.Fatal(err)
			}
			for i, g := range m.Interference() {
				fits++
				checkBandCoversRuns(t, m, c, i)
				switch g.Test {
				case GammaKept:
					kept++
					fallthrough
				case GammaNotSignificant:
					if g.Gamma != g.Estimate {
						t.Fatalf("runs %d trial %d: %+v, want γ at its estimate", runs, trial, g)
					}
					continue
				case GammaZero:
					zero++
				default:
					t.Fatalf("runs %d trial %d: %+v", runs, trial, g)
				}
				if g.Gamma != 0 {
					t.Fatalf("runs %d trial %d: %+v", runs, trial, g)
				}
				s := g.IOSizeBytes
				for _, rho := range []float64{0.1, 0.3, 0.5, 0.7, 0.9} {
					cl := []OpClass{{Op: Read, IOSizeBytes: s, Rate: 100 * rho}, {Op: Write, IOSizeBytes: s, Rate: 100 * (1 - rho)}}
					got, err1 := m.AtMix(cl)
					want, err2 := pm.AtMix(cl)
					if err1 != nil || err2 != nil {
						t.Fatal(err1, err2)
					}
					if got.MaxTotalIOPS != want.MaxTotalIOPS || got.Utilization != want.Utilization || got.HeadroomRatio != want.HeadroomRatio {
						t.Fatalf("runs %d trial %d size %v ρ %v: %+v, the paper gives %+v", runs, trial, s, rho, got, want)
					}
				}
			}
		}
		rate := float64(kept) / float64(fits)
		t.Logf("zero truth, %d runs per figure, cv %v: γ significant in %d of %d fits (%.1f%%), beyond the form within the noise (the paper's law) in %d", runs, labCV, kept, fits, 100*rate, zero)
		// Nominal 5%; the delta method and Welch's dof are approximations,
		// so allow up to 10% (400 trials × 2 sizes: sd of the rate 0.8%).
		if rate > 0.10 {
			t.Errorf("%d runs: γ kept in %.1f%% of zero-truth fits, want <= 10%%", runs, 100*rate)
		}
	}
}

// The pooled noise assumes every figure is as noisy (relatively) as the
// others. When the mixed points are three times noisier than the pure ones
// (the real lab's 50/50 runs spread 4-6%, its pure ones 0.4-6%), the pooled
// σ underrates the figures γ depends on most and the test keeps γ = 0 more
// often than its nominal 5%: measured here, bounded loosely.
func TestGammaZeroTruthUnequalNoise(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, c := range []struct {
		cv, mixedCV float64
		runs        int
		max         float64
	}{{0.02, 0.06, 2, 0.20}, {0.05, 0.15, 2, 0.20}, {0.02, 0.06, 4, 0.20}} {
		kept, fits := 0, 0
		for trial := 0; trial < 400; trial++ {
			m, err := NewModel(synthCalibration(rng, 0, c.cv, c.mixedCV, c.runs))
			if errors.Is(err, ErrInput) {
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			fits++
			if m.Interference()[0].Test == GammaKept {
				kept++
			}
		}
		rate := float64(kept) / float64(fits)
		t.Logf("zero truth, pure noise %v, mixed %v, %d runs: γ kept in %d of %d calibrations (%.1f%%)", c.cv, c.mixedCV, c.runs, kept, fits, 100*rate)
		if rate > c.max {
			t.Errorf("kept in %.1f%%, want <= %.0f%%", 100*rate, 100*c.max)
		}
	}
}

// Large true γ with tight runs: kept, and within tolerance of the truth.
func TestGammaLargeTruthTightRunsKept(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const truth, trials = 1.0, 200
	kept, fits := 0, 0
	var worst float64
	for trial := 0; trial < trials; trial++ {
		m, err := NewModel(synthCalibration(rng, truth, 0.005, 0.005, 3))
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range m.Interference() {
			fits++
			if g.Test != GammaKept {
				continue
			}
			kept++
			if g.Gamma != g.Estimate {
				t.Fatalf("kept γ %v differs from its estimate %v", g.Gamma, g.Estimate)
			}
			worst = math.Max(worst, math.Abs(g.Gamma-truth))
		}
	}
	t.Logf("γ = %v, 3 runs at 0.5%%: kept in %d of %d fits, worst |γ − truth| %.4f", truth, kept, fits, worst)
	if kept < fits*98/100 {
		t.Errorf("γ kept in %d of %d fits, want >= 98%%", kept, fits)
	}
	// 0.5% noise on three figures moves γ by about 0.03 (1 sd); 0.15 is 5 sd.
	if worst > 0.15 {
		t.Errorf("worst kept γ off the truth by %v, want <= 0.15", worst)
	}
	// Without noise the truth comes back exactly, and runs that agree
	// exactly (standard error 0) keep it.
	c := synthCalibration(rng, truth, 0, 0, 2)
	m, err := NewModel(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range m.Interference() {
		if g.Test != GammaKept || !near(g.Gamma, truth, 1e-9) || g.StdErr != 0 {
			t.Errorf("noise-free runs: %+v, want γ %v kept", g, truth)
		}
	}
}

// Disagreeing runs: γ = 0.3 (the lab's) measured with runs as noisy as
// repeated points across campaigns is not told from 0 in most fits; it is
// used as estimated all the same (the paper's law only where the estimate
// is beyond the form), and the band covers every mixed run at its mix.
func TestGammaDisagreeingRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const trials = 200
	weak, zero, fits, outside, refused := 0, 0, 0, 0, 0
	for trial := 0; trial < trials; trial++ {
		c := synthCalibration(rng, 0.3, labCV, noisyCV, 2)
		m, err := NewModel(c)
		if errors.Is(err, ErrInput) {
			// A mix significantly far above the line (γ < MinGamma) is
			// refused, as a single run always was: the two mixed runs agreed
			// by chance.
			refused++
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		for i, g := range m.Interference() {
			fits++
			switch g.Test {
			case GammaNotSignificant:
				weak++
			case GammaZero:
				zero++
			}
			if g.Test != GammaZero && g.Gamma != g.Estimate {
				t.Fatalf("trial %d: %+v, want γ at its estimate", trial, g)
			}
			if !checkBandCoversRuns(t, m, c, i) {
				outside++
			}
		}
	}
	t.Logf("γ 0.3, 2 runs, mixed cv %v: not significant in %d of %d fits, of which %d beyond the form (the paper's law); %d mixed points beyond the family from their end's pure figures (band widened); %d calibrations refused", noisyCV, weak+zero, fits, zero, outside, refused)
	if refused > trials/20 {
		t.Errorf("%d of %d calibrations refused, want <= 5%%", refused, trials)
	}
	// 292 of 400 with the noise pooled over the calibration and one test
	// for both sizes (the test's power at this noise is low: see the power
	// table).
	if weak+zero < fits*60/100 {
		t.Errorf("not significant in %d of %d fits, want >= 60%%", weak+zero, fits)
	}
}

// The calibration of the scored real-Ceph run (docs/e2e.md, run 3: two runs
// of every figure at 4 KiB and 64 KiB, 50/50 points) gave γ 0.11 and 0.02
// with runs bands including 0: neither is told from 0; both are used as
// estimated.
func TestGammaCephRunThree(t *testing.T) {
	c := Calibration{
		Points: []Point{
			{IOSizeBytes: 4096, ReadIOPS: 16055.888822, WriteIOPS: 3080.797194, ReadRuns: []float64{15052.589482, 17059.188162}, WriteRuns: []float64{2924.960032, 3236.634356}},
			{IOSizeBytes: 65536, ReadIOPS: 10427.5458115, WriteIOPS: 1458.1959845, ReadRuns: []float64{10481.503699, 10373.587924}, WriteRuns: []float64{1515.532914, 1400.859055}},
		},
		Mixed: []MixedPoint{
			{IOSizeBytes: 4096, ReadRatio: 0.5, IOPS: 4891.683328, Runs: []float64{5075.062469, 4708.304187}},
			{IOSizeBytes: 65536, ReadRatio: 0.5, IOPS: 2534.4492185, Runs: []float64{2688.786728, 2380.111709}},
		},
	}
	m, err := NewModel(c)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []float64{0.1111, 0.0223} {
		g := m.Interference()[i]
		t.Logf("%v B: γ %.4f ± %.4f (%.1f dof, t quantile %.2f): %s", g.IOSizeBytes, g.Estimate, g.StdErr, g.DoF, tQuantile975(g.DoF), g.Test)
		if math.Abs(g.Estimate-want) > 1e-4 || g.Test != GammaNotSignificant || g.Gamma != g.Estimate {
			t.Errorf("%v B: %+v, want estimate %v, not significant, used", g.IOSizeBytes, g, want)
		}
	}
}

// How often the lab's γ (0.3) is kept, by run-to-run noise and runs per
// figure (the calibration recipe's advice rests on it). The test's power
// grows with runs and falls with noise; the bounds below are loose around
// the measured rates (300 trials × 2 sizes each).
func TestGammaPowerByRunsAndNoise(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for _, c := range []struct {
		cv       float64
		runs     int
		min, max float64
	}{
		{0.01, 2, 0.98, 1}, {0.02, 2, 0.98, 1}, {0.02, 3, 0.98, 1},
		{0.05, 2, 0.65, 0.90}, {0.05, 3, 0.85, 1}, {0.05, 5, 0.98, 1},
		{0.10, 2, 0.08, 0.30}, {0.10, 3, 0.25, 0.55}, {0.10, 5, 0.50, 0.80},
	} {
		kept, fits := 0, 0
		for trial := 0; trial < 300; trial++ {
			m, err := NewModel(synthCalibration(rng, 0.3, c.cv, c.cv, c.runs))
			if err != nil {
				t.Fatal(err)
			}
			for _, g := range m.Interference() {
				fits++
				if g.Test == GammaKept {
					kept++
				}
			}
		}
		rate := float64(kept) / float64(fits)
		t.Logf("γ 0.3, noise %v, %d runs: kept in %.0f%% of %d fits", c.cv, c.runs, 100*rate, fits)
		if rate < c.min || rate > c.max {
			t.Errorf("noise %v, %d runs: kept in %.2f of fits, want %v..%v", c.cv, c.runs, rate, c.min, c.max)
		}
	}
}

// BenchmarkNewModel: the cost of a fit with runs at every figure and a
// 50/50 point per size (γ's test rebuilds the model twice per figure with
// runs) against the same calibration with single runs (no test), by the
// number of calibrated sizes.
func BenchmarkNewModel(b *testing.B) {
	for _, sizes := range []int{2, 4, 8} {
		var withRuns, single Calibration
		for k := 0; k < sizes; k++ {
			s := 4096 * math.Pow(2, float64(k))
			r, w := 16000/math.Sqrt(float64(k+1)), 3000/math.Sqrt(float64(k+1))
			m, _ := MaxAtReadRatio(r, w, 0.3, 0.5)
			withRuns.Points = append(withRuns.Points, Point{IOSizeBytes: s, ReadIOPS: r, WriteIOPS: w,
				ReadRuns: []float64{0.99 * r, r, 1.01 * r}, WriteRuns: []float64{0.99 * w, w, 1.01 * w}})
			withRuns.Mixed = append(withRuns.Mixed, MixedPoint{IOSizeBytes: s, ReadRatio: 0.5, IOPS: m, Runs: []float64{0.99 * m, m, 1.01 * m}})
			single.Points = append(single.Points, Point{IOSizeBytes: s, ReadIOPS: r, WriteIOPS: w})
			single.Mixed = append(single.Mixed, MixedPoint{IOSizeBytes: s, ReadRatio: 0.5, IOPS: m})
		}
		// With a mixed-size point too (smallest reads with largest writes,
		// η 0.2 on top of γ 0.3): η's test rebuilds the model, γ refitted,
		// twice per figure.
		withEta := withRuns
		withEta.Mixed = append([]MixedPoint(nil), withRuns.Mixed...)
		{
			r, w := withRuns.Points[0].ReadIOPS, withRuns.Points[sizes-1].WriteIOPS
			a, b := 0.5/r, 0.5/w
			m := 2 / (a + b + math.Sqrt((a+b)*(a+b)+16*0.5*a*b))
			withEta.Mixed = append(withEta.Mixed, MixedPoint{IOSizeBytes: withRuns.Points[0].IOSizeBytes, WriteIOSizeBytes: withRuns.Points[sizes-1].IOSizeBytes,
				ReadRatio: 0.5, IOPS: m, Runs: []float64{0.99 * m, m, 1.01 * m}})
		}
		for _, c := range []struct {
			name string
			cal  Calibration
		}{{"runs", withRuns}, {"runs+mixedsize", withEta}, {"single", single}} {
			b.Run(fmt.Sprintf("sizes=%d/%s", sizes, c.name), func(b *testing.B) {
				b.ReportAllocs()
				for n := 0; n < b.N; n++ {
					if _, err := NewModel(c.cal); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// A mixed run so far above the line between the pure figures that no
// frontier of the family passes through it (γ would have to turn the
// frontier back before it): the upper end scales its pure figures until
// it reaches the run, so the band still covers the runs, and is wider at
// the pure mixes too. The pure figures have 40 tight runs each, so that
// the pooled noise (σ² = (80·0.01² + 2·(900/1700)²)/79, 79 dof) keeps
// their prediction interval near them: 1000·exp(∓h), h = t₀.₉₇₅(79)·σ·√(1+1/40)
// (a pure mix's max is its one figure), about 843..1186, and the mixed run
// 2600 is more than twice 1186.
func TestBandReachesRunsBeyondTheFamily(t *testing.T) {
	tight := make([]float64, 40)
	for i := range tight {
		tight[i] = 990 + 20*float64(i%2)
	}
	c := Calibration{
		Points: []Point{{IOSizeBytes: 4096, ReadIOPS: 1000, WriteIOPS: 1000, ReadRuns: tight, WriteRuns: tight}},
		Mixed:  []MixedPoint{{IOSizeBytes: 4096, ReadRatio: 0.5, IOPS: 1700, Runs: []float64{800, 2600}}},
	}
	sigma := math.Sqrt((80*0.01*0.01 + 2*(900.0/1700)*(900.0/1700)) / 79)
	h := tQuantile975(79) * sigma * math.Sqrt(1+1.0/40)
	// The upper end's own figures: no γ of the family reaches 2600.
	a := 0.5 * 2600 / (1000 * math.Exp(h))
	if g := (1 - 2*a) / (4 * a * a); a+a+8*g*a*a > 0 {
		t.Fatalf("the case is not beyond the family: γ %v", g)
	}
	m, err := NewModel(c)
	if err != nil {
		t.Fatal(err)
	}
	mid, err := m.AtMix([]OpClass{{Op: Read, IOSizeBytes: 4096, Rate: 50}, {Op: Write, IOSizeBytes: 4096, Rate: 50}})
	if err != nil {
		t.Fatal(err)
	}
	if !near(mid.MaxTotalIOPSUpper, 2600, 1e-9) || !(mid.MaxTotalIOPSLower <= 800*(1+1e-9)) {
		t.Errorf("band at 50/50 %v..%v, want it to reach the runs' 800..2600", mid.MaxTotalIOPSLower, mid.MaxTotalIOPSUpper)
	}
	pure, _ := m.AtMix([]OpClass{{Op: Read, IOSizeBytes: 4096, Rate: 50}})
	t.Logf("γ %+v; 50/50 %v [%v, %v]; pure reads %v [%v, %v]", m.Interference()[0], mid.MaxTotalIOPS, mid.MaxTotalIOPSLower, mid.MaxTotalIOPSUpper, pure.MaxTotalIOPS, pure.MaxTotalIOPSLower, pure.MaxTotalIOPSUpper)
	if !near(pure.MaxTotalIOPSLower, 1000*math.Exp(-h), 1e-12) || !(pure.MaxTotalIOPSUpper > 1000*math.Exp(h)*1.01) {
		t.Errorf("pure reads: band %v..%v, want %v to above %v (widened to reach the mixed run)", pure.MaxTotalIOPSLower, pure.MaxTotalIOPSUpper, 1000*math.Exp(-h), 1000*math.Exp(h))
	}
}

// Under the Cost interpolation the frontier at a calibrated size is the
// cost fit's, which need not pass through the figures: γ is fitted and
// AtMix evaluates against the fit, so the band's ends must be checked
// against it too. Three sizes whose IOPS fall faster from 4 to 16 KiB than
// from 16 to 64 KiB: the fit puts 4 KiB at 0.92258 of its figures (time per
// op is concave in size here, and the least-squares line lies above it at
// the ends). The upper end's 4 KiB capacity, 1.01·1390 in its figures, is
// 1295.2 in the fit: the 2600 run at 50/50 is just beyond its family (it
// would need 1300) and its γ is held where the frontier turns back, short
// of the run; judged by the figures instead, 1404 reaches the run and the
// band stopped at 2442.
func TestBandReachesRunsUnderCost(t *testing.T) {
	runs := func(v float64) []float64 {
		r := make([]float64, 40)
		for i := range r {
			r[i] = v * (0.99 + 0.02*float64(i%2))
		}
		return r
	}
	var pts []Point
	for _, p := range []struct{ size, iops float64 }{{4096, 1390}, {16384, 695}, {65536, 417}} {
		pts = append(pts, Point{IOSizeBytes: p.size, ReadIOPS: p.iops, WriteIOPS: p.iops, ReadRuns: runs(p.iops), WriteRuns: runs(p.iops)})
	}
	c := Calibration{
		Interpolation: Cost,
		Points:        pts,
		Mixed:         []MixedPoint{{IOSizeBytes: 4096, ReadRatio: 0.5, IOPS: 1700, Runs: []float64{800, 2600}}},
	}
	m, err := NewModel(c)
	if err != nil {
		t.Fatal(err)
	}
	if f := m.SizeForm(); f.Used != Cost || !near(1/(f.ReadC0+f.ReadC1*4096), 0.92258*1390, 1e-5) {
		t.Fatalf("the case needs a cost fit 7.7%% under the 4 KiB figures: %+v", f)
	}
	mid, err := m.AtMix([]OpClass{{Op: Read, IOSizeBytes: 4096, Rate: 50}, {Op: Write, IOSizeBytes: 4096, Rate: 50}})
	if err != nil {
		t.Fatal(err)
	}
	if !(mid.MaxTotalIOPSUpper >= 2600*(1-1e-9)) || !(mid.MaxTotalIOPSLower <= 800*(1+1e-9)) {
		t.Errorf("band at 50/50 %v..%v, want it to reach the runs' 800..2600", mid.MaxTotalIOPSLower, mid.MaxTotalIOPSUpper)
	}
}

// The band is a 95% prediction interval for one more saturated run: a
// cluster whose truth is the frontier (γ 0 and 0.25), calibrated with 2
// or 3 runs of every figure at the lab's 5% noise, then measured once more
// at a saturated mix with the same noise, at the calibrated mixes (pure
// reads, pure writes, 50/50) and between them. With γ = 0 the band must
// cover that measurement at least 94% of the time everywhere (measured:
// 95.0-95.3% at the calibrated mixes, 94.1-95.6% between), with γ = 0.25 at
// least 93% (94.7-95.2%, 93.7-95.3%). Before γ was used at its estimate
// whatever its test said, the test's fallback to the paper's line (in 4-24%
// of these calibrations: TestGammaPowerByRunsAndNoise) put the band up to
// 12% above the truth between the pure points there, and γ = 0.25 was
// covered 89-92% of the time between them. The runs' own min..max, the band
// before the prediction interval, covered a third run about a third of the
// time at a pure mix.
func TestBandCoversOneMoreRun(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const trials = 300
	for _, gamma := range []float64{0, 0.25} {
		for _, runs := range []int{2, 3} {
			var covered, n [2]int // [calibrated mix, between]
			var width float64
			for trial := 0; trial < trials; trial++ {
				c := synthCalibration(rng, gamma, labCV, labCV, runs)
				m, err := NewModel(c)
				if err != nil {
					t.Fatal(err)
				}
				for _, p := range []struct{ s, r, w float64 }{{4096, 16000, 3000}, {65536, 10400, 1450}} {
					for _, rho := range []float64{0, 0.1, 0.3, 0.5, 0.7, 0.9, 1} {
						truth, err := MaxAtReadRatio(p.r, p.w, gamma, rho)
						if err != nil {
							t.Fatal(err)
						}
						measured := truth * (1 + labCV*rng.NormFloat64())
						res, err := m.AtMix([]OpClass{{Op: Read, IOSizeBytes: p.s, Rate: 100 * rho}, {Op: Write, IOSizeBytes: p.s, Rate: 100 * (1 - rho)}})
						if err != nil {
							t.Fatal(err)
						}
						k := 1
						if rho == 0 || rho == 0.5 || rho == 1 {
							k = 0
						}
						n[k]++
						if res.MaxTotalIOPSLower <= measured && measured <= res.MaxTotalIOPSUpper {
							covered[k]++
						}
						width += (res.MaxTotalIOPSUpper - res.MaxTotalIOPSLower) / res.MaxTotalIOPS
					}
				}
			}
			cal, between := float64(covered[0])/float64(n[0]), float64(covered[1])/float64(n[1])
			t.Logf("γ %v, %d runs: one more run inside the band at the calibrated mixes %.1f%% of %d, between them %.1f%% of %d; mean width %.1f%% of the max",
				gamma, runs, 100*cal, n[0], 100*between, n[1], 100*width/float64(n[0]+n[1]))
			wantCal, wantBetween := 0.94, 0.94
			if gamma != 0 {
				wantCal, wantBetween = 0.93, 0.93
			}
			if cal < wantCal || between < wantBetween {
				t.Errorf("γ %v, %d runs: coverage %.1f%% at the calibrated mixes (want >= %.0f%%), %.1f%% between (want >= %.0f%%)", gamma, runs, 100*cal, 100*wantCal, 100*between, 100*wantBetween)
			}
		}
	}
}

// Where the test falls back to the paper's law (γ = 0: an estimate the
// frontier cannot take, not told from 0 by the delta method) while even
// the most favourable runs put γ below 0, the reported range still holds
// the γ used: it was [−0.71, −0.21] beside a γ of 0.
func TestGammaBoundsHoldTheGammaUsed(t *testing.T) {
	m, err := NewModel(Calibration{Points: []Point{{IOSizeBytes: 4096, ReadIOPS: 1000, WriteIOPS: 400,
		ReadRuns: []float64{900, 1100}, WriteRuns: []float64{360, 440}}},
		Mixed: []MixedPoint{{IOSizeBytes: 4096, ReadRatio: 0.2, IOPS: 600, Runs: []float64{540, 660}}}})
	if err != nil {
		t.Fatal(err)
	}
	g := m.Interference()[0]
	if g.Test != GammaZero || g.Gamma != 0 {
		t.Fatalf("γ %+v: want the test's fallback to 0", g)
	}
	if !(g.Lower <= g.Gamma && g.Gamma <= g.Upper) {
		t.Errorf("γ %v outside its reported range [%v, %v]", g.Gamma, g.Lower, g.Upper)
	}
}

package conservation

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// bisectFrontier finds t with u(t) = 1 by bisection: an independent check
// of the closed form (u must be increasing from u(0) = 0 on [0, hi]).
func bisectFrontier(u func(t float64) float64) float64 {
	lo, hi := 0.0, 1.0
	for u(hi) < 1 {
		hi *= 2
	}
	for i := 0; i < 200; i++ {
		mid := (lo + hi) / 2
		if u(mid) < 1 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// A frontier generated with γ = 0.3 is recovered from one mixed point, and
// the model then predicts every other mix of the truth.
func TestGammaRecoveredFromOneMixedPoint(t *testing.T) {
	const tr, tw, gamma = 180000.0, 30000.0, 0.3
	truth := func(rho float64) float64 {
		return bisectFrontier(func(x float64) float64 {
			a, b := rho*x/tr, (1-rho)*x/tw
			return a + b + 4*gamma*a*b
		})
	}
	for _, rho := range []float64{0.3, 0.5, 0.7} {
		cal := Calibration{Points: []Point{{IOSizeBytes: 4096, ReadIOPS: tr, WriteIOPS: tw}},
			Mixed: []MixedPoint{{IOSizeBytes: 4096, ReadRatio: rho, IOPS: truth(rho)}}}
		m, err := NewModel(cal)
		if err != nil {
			t.Fatal(err)
		}
		fits := m.Interference()
		if len(fits) != 1 || math.Abs(fits[0].Gamma-gamma) > 1e-9 {
			t.Fatalf("mixed point at %v: γ fits %+v, want %v", rho, fits, gamma)
		}
		if fits[0].Lower != fits[0].Gamma || fits[0].Upper != fits[0].Gamma || fits[0].RMSResidual > 1e-12 {
			t.Errorf("single runs: γ bounds %+v, want equal to γ and zero residual", fits[0])
		}
		sc, _ := m.At(4096)
		if math.Abs(sc.Gamma-gamma) > 1e-9 {
			t.Errorf("At(4096).Gamma = %v", sc.Gamma)
		}
		for _, r2 := range []float64{0, 0.1, 0.5, 0.9, 1} {
			want := truth(r2)
			res, err := m.AtMix([]OpClass{{Op: Read, IOSizeBytes: 4096, Rate: 100 * r2}, {Op: Write, IOSizeBytes: 4096, Rate: 100 * (1 - r2)}})
			if err != nil {
				t.Fatal(err)
			}
			if !near(res.MaxTotalIOPS, want, 1e-9) {
				t.Errorf("fit at %v, mix %v: max %v, truth %v", rho, r2, res.MaxTotalIOPS, want)
			}
			curve, _, _ := m.Curve(4096, []float64{r2})
			if !near(curve[0].MaxIOPS, want, 1e-9) {
				t.Errorf("Curve at %v: %v, truth %v", r2, curve[0].MaxIOPS, want)
			}
		}
	}
}

// Several mixed points at one size: γ is their least-squares fit, exact
// when they come from one frontier.
func TestGammaLeastSquaresOverMixes(t *testing.T) {
	var mixed []MixedPoint
	for _, rho := range []float64{0.3, 0.5, 0.7} {
		mt, _ := MaxAtReadRatio(19193, 2539, 0.3, rho)
		mixed = append(mixed, MixedPoint{IOSizeBytes: 4096, ReadRatio: rho, IOPS: mt})
	}
	m, err := NewModel(Calibration{Points: []Point{{IOSizeBytes: 4096, ReadIOPS: 19193, WriteIOPS: 2539}}, Mixed: mixed})
	if err != nil {
		t.Fatal(err)
	}
	if g := m.Interference()[0]; math.Abs(g.Gamma-0.3) > 1e-9 || g.MixedPoints != 3 || g.RMSResidual > 1e-12 {
		t.Errorf("fit %+v, want γ 0.3 from 3 points", g)
	}
	// Off the frontier: the residual reports how far.
	mixed[1].IOPS *= 1.05
	m, _ = NewModel(Calibration{Points: []Point{{IOSizeBytes: 4096, ReadIOPS: 19193, WriteIOPS: 2539}}, Mixed: mixed})
	if g := m.Interference()[0]; g.RMSResidual < 0.01 {
		t.Errorf("a mixed point 5%% off the frontier left RMS residual %v", g.RMSResidual)
	}
}

// γ per size is interpolated linearly in log size, held at the ends.
func TestGammaInterpolatedAcrossSizes(t *testing.T) {
	pts := []Point{{IOSizeBytes: 4096, ReadIOPS: 20000, WriteIOPS: 2500}, {IOSizeBytes: 65536, ReadIOPS: 10000, WriteIOPS: 2200}}
	var mixed []MixedPoint
	for i, g := range []float64{0.3, 0.1} {
		mt, _ := MaxAtReadRatio(pts[i].ReadIOPS, pts[i].WriteIOPS, g, 0.5)
		mixed = append(mixed, MixedPoint{IOSizeBytes: pts[i].IOSizeBytes, ReadRatio: 0.5, IOPS: mt})
	}
	m, err := NewModel(Calibration{Points: pts, Mixed: mixed})
	if err != nil {
		t.Fatal(err)
	}
	for size, want := range map[float64]float64{4096: 0.3, 16384: 0.2, 65536: 0.1, 1024: 0.3, 1 << 20: 0.1} {
		sc, _ := m.At(size)
		if math.Abs(sc.Gamma-want) > 1e-9 {
			t.Errorf("γ at %v = %v, want %v", size, sc.Gamma, want)
		}
	}
	// A read class at 4 KiB and a write class at 64 KiB interfere with γ at
	// their geometric mean size, 16 KiB.
	res, _ := m.AtMix([]OpClass{{Op: Read, IOSizeBytes: 4096, Rate: 1000}, {Op: Write, IOSizeBytes: 65536, Rate: 500}})
	a, b := 1000/20000.0, 500/2200.0
	if !near(res.Interference, 4*0.2*a*b, 1e-9) || !near(res.Utilization, a+b+4*0.2*a*b, 1e-12) {
		t.Errorf("cross-size pair: interference %v, U %v; want %v, %v", res.Interference, res.Utilization, 4*0.2*a*b, a+b+4*0.2*a*b)
	}
}

// Property: scaling the current load to MaxTotalIOPS lands on the frontier,
// U = 1 within 1e-9, for random calibrations, γ (including negative) and
// mixes of several sizes; max is positive and finite.
func TestFrontierProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	sizes := []float64{4096, 16384, 65536, 1 << 20}
	for trial := 0; trial < 500; trial++ {
		var cal Calibration
		for _, s := range sizes {
			r := 1000 + 2e5*rng.Float64()
			cal.Points = append(cal.Points, Point{IOSizeBytes: s, ReadIOPS: r, WriteIOPS: r / (1 + 9*rng.Float64())})
		}
		cal.Interpolation = []string{"", Cost, Auto}[rng.IntN(3)]
		pure, err := NewModel(cal)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range sizes[:1+rng.IntN(3)] {
			sc, _ := pure.At(s)
			g := -0.24 + 1.5*rng.Float64()
			rho := 0.1 + 0.8*rng.Float64()
			mt, _ := MaxAtReadRatio(sc.ReadIOPS, sc.WriteIOPS, g, rho)
			cal.Mixed = append(cal.Mixed, MixedPoint{IOSizeBytes: s, ReadRatio: rho, IOPS: mt})
		}
		// Half the trials add a mixed-size point (reads of one size with
		// writes of another) on a frontier with interference between sizes
		// η on top of γ: η comes back, and U = 1 at the max still holds.
		eta := math.NaN()
		if trial%2 == 1 {
			withGamma, err := NewModel(cal)
			if err != nil {
				t.Fatal(err)
			}
			i, j := rng.IntN(len(sizes)), rng.IntN(len(sizes)-1)
			if j >= i {
				j++
			}
			rs, ws := sizes[i], sizes[j]
			cr, _ := withGamma.At(rs)
			cw, _ := withGamma.At(ws)
			cg, _ := withGamma.At(math.Sqrt(rs * ws))
			eta = rng.Float64()
			rho := 0.1 + 0.8*rng.Float64()
			k := cg.Gamma + eta
			mt := bisectFrontier(func(x float64) float64 {
				a, b := rho*x/cr.ReadIOPS, (1-rho)*x/cw.WriteIOPS
				return a + b + 4*k*a*b
			})
			cal.Mixed = append(cal.Mixed, MixedPoint{IOSizeBytes: rs, WriteIOSizeBytes: ws, ReadRatio: rho, IOPS: mt})
		}
		m, err := NewModel(cal)
		if err != nil {
			t.Fatal(err)
		}
		if e, ok := m.SizeInterference(); ok != !math.IsNaN(eta) || ok && math.Abs(e.Eta-eta) > 1e-6 {
			t.Fatalf("trial %d: η %+v (%v), want %v", trial, e, ok, eta)
		}
		var classes []OpClass
		for k := 0; k < 1+rng.IntN(5); k++ {
			op := Read
			if rng.IntN(2) == 0 {
				op = Write
			}
			classes = append(classes, OpClass{Op: op, IOSizeBytes: 3000 + 1e6*rng.Float64(), Rate: 1e4 * rng.Float64()})
		}
		res, err := m.AtMix(classes)
		if errors.Is(err, ErrNoLoad) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if !(res.MaxTotalIOPS > 0) || math.IsInf(res.MaxTotalIOPS, 0) {
			t.Fatalf("max %v", res.MaxTotalIOPS)
		}
		s := res.MaxTotalIOPS / res.CurrentIOPS
		at := make([]OpClass, len(classes))
		for i, c := range classes {
			at[i] = c
			at[i].Rate = c.Rate * s
		}
		r2, err := m.AtMix(at)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(r2.Utilization-1) > 1e-9 {
			t.Fatalf("trial %d: U at the max = %.15g, want 1 (γ %+v)", trial, r2.Utilization, m.Interference())
		}
		if math.Abs(res.LoadRatio*res.MaxTotalIOPS-res.CurrentIOPS) > 1e-9*res.CurrentIOPS || !near(res.HeadroomRatio, 1-res.LoadRatio, 1e-15) {
			t.Fatalf("load ratio %v, headroom %v inconsistent with max %v", res.LoadRatio, res.HeadroomRatio, res.MaxTotalIOPS)
		}
		if res.MaxTotalIOPSLower != res.MaxTotalIOPS || res.MaxTotalIOPSUpper != res.MaxTotalIOPS {
			t.Fatalf("no runs, but a band %v..%v", res.MaxTotalIOPSLower, res.MaxTotalIOPSUpper)
		}
	}
}

// Zero interference reproduces the paper's law exactly, as the code
// computed it before interference existed: U = Σ rate/max, max = current/U,
// headroom = 1 − U, bit for bit.
func TestZeroInterferenceIsThePaper(t *testing.T) {
	m, _ := NewModel(swift)
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 200; trial++ {
		classes := []OpClass{
			{Op: Read, IOSizeBytes: 16384 * (1 + 60*rng.Float64()), Rate: 500 * rng.Float64()},
			{Op: Write, IOSizeBytes: 16384 * (1 + 60*rng.Float64()), Rate: 500 * rng.Float64()},
		}
		res, err := m.AtMix(classes)
		if err != nil {
			t.Fatal(err)
		}
		var u, cur float64
		for _, c := range classes {
			sc, _ := m.At(c.IOSizeBytes)
			if c.Op == Read {
				u += c.Rate / sc.ReadIOPS
			} else {
				u += c.Rate / sc.WriteIOPS
			}
			cur += c.Rate
		}
		if res.Utilization != u || res.MaxTotalIOPS != cur/u || res.HeadroomRatio != 1-u || res.LoadRatio != u || res.Interference != 0 {
			t.Fatalf("γ=0: %+v, want U %v max %v exactly", res, u, cur/u)
		}
	}
	// The closed forms at γ = 0: U = a + b exactly, max = eq. 6.
	u, _ := FrontierUtilization(600, 300, 1800, 900, 0)
	if u != 600.0/1800+300.0/900 {
		t.Errorf("FrontierUtilization at γ=0: %v", u)
	}
	for R := 0.0; R <= 100; R += 10 {
		_, r, w, _ := ReadWriteAtReadPercent(180000, 6, R)
		mt, _ := MaxAtReadRatio(180000, 30000, 0, R/100)
		if !near(mt, r+w, 1e-14) {
			t.Errorf("R=%v: MaxAtReadRatio %v, eq. 6 %v", R, mt, r+w)
		}
	}
	// A mixed point on the two-point line gives γ = 0 (to rounding).
	_, r, w, _ := ReadWriteAtReadPercent(180000, 6, 40)
	g, _ := GammaFromMixed(180000, 30000, 0.4, r+w)
	if math.Abs(g) > 1e-12 {
		t.Errorf("mixed point on the line: γ = %v", g)
	}
}

func TestFrontierErrors(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{second(FrontierUtilization(-1, 1, 1, 1, 0)), "readRate: must be a finite number >= 0, got -1"},
		{second(FrontierUtilization(1, math.NaN(), 1, 1, 0)), "writeRate: must be a finite number >= 0, got NaN"},
		{second(FrontierUtilization(1, 1, 0, 1, 0)), "tRead100: must be > 0, got 0"},
		{second(FrontierUtilization(1, 1, 1, 1, -0.3)), "gamma: must be a finite number >= -0.25, got -0.3"},
		{second(MaxAtReadRatio(1, math.Inf(1), 0, 0.5)), "tWrite100: must be a finite number, got +Inf"},
		{second(MaxAtReadRatio(1, 1, math.NaN(), 0.5)), "gamma: must be a finite number >= -0.25, got NaN"},
		{second(MaxAtReadRatio(1, 1, 0, 1.5)), "readRatio: must be in 0..1, got 1.5"},
		{second(GammaFromMixed(1, 1, 1, 1)), "readRatio: must be strictly between 0 and 1 (a mix), got 1"},
		{second(GammaFromMixed(1, 1, 0.5, -3)), "iops: must be > 0, got -3"},
		{second(NewModel(Calibration{Points: []Point{{IOSizeBytes: 1, ReadIOPS: 1, WriteIOPS: 1}}, Mixed: []MixedPoint{{IOSizeBytes: 1, ReadRatio: 0, IOPS: 1}}})),
			"mixed[0].read_ratio: must be strictly between 0 and 1"},
		{second(NewModel(Calibration{Points: []Point{{IOSizeBytes: 1, ReadIOPS: 1, WriteIOPS: 1}}, Mixed: []MixedPoint{{IOSizeBytes: 1, ReadRatio: 0.9, IOPS: 1.5}}})),
			"mixed[0].iops: the mixed point(s) at 1 bytes imply interference γ = -0.6173, below -0.25"},
		{second(NewModel(Calibration{Points: []Point{{IOSizeBytes: 1, ReadIOPS: 1, WriteIOPS: 1, ReadRuns: []float64{2, 3}}}})),
			"points[0].read_iops: 1 lies outside its runs' range 2..3"},
		{second(NewModel(Calibration{Points: []Point{{IOSizeBytes: 1, ReadIOPS: 1, WriteIOPS: 1, WriteRuns: []float64{1, -1}}}})),
			"points[0].write_iops runs[1]: must be > 0, got -1"},
		{second(NewModel(Calibration{Points: []Point{{IOSizeBytes: 1, ReadIOPS: 1, WriteIOPS: 1}}, Interpolation: "spline"})),
			`interpolation: must be "loglog", "cost" or "auto" (or empty for the default), got "spline"`},
		{second(NewModel(Calibration{Points: []Point{{IOSizeBytes: 1, ReadIOPS: 1, WriteIOPS: 1}},
			Mixed: []MixedPoint{{IOSizeBytes: 1, ReadRatio: 0.5, IOPS: 0.9}, {IOSizeBytes: 1, ReadRatio: 0.5, IOPS: 0.8}}})),
			"mixed[1]: size 1 at read ratio 0.5 already given by mixed[0]"},
	} {
		if c.err == nil || !errors.Is(c.err, ErrInput) || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("error %v, want one containing %q", c.err, c.want)
		}
	}
}

func second[T any](_ T, err error) error { return err }

// Runs: the band is the model of every figure at the ends of its 95%
// prediction interval for one more run. These runs (±16% on every figure,
// two mixed runs) cannot tell γ from 0; γ is used as estimated all the
// same, so the central model passes through the mixed point. Worked by
// hand: the pooled relative noise is σ² = (2·(3/19)² + 2·(1/5)² +
// 2·(1/10)²)/5 (5 dof), so pure reads, a figure of 3 runs, span
// 19000·exp(∓t₀.₉₇₅(5)·σ·√(4/3)) = 11365..31764, and at the calibrated mix,
// where the max is the mixed figure whatever the pure ones (elasticity 1 to
// it, 0 to them), 4000·exp(∓t₀.₉₇₅(5)·σ·√(3/2)) = 2319..6899.
func TestRunsBand(t *testing.T) {
	cal := Calibration{
		Points: []Point{{IOSizeBytes: 4096, ReadIOPS: 19000, WriteIOPS: 2500, ReadRuns: []float64{16000, 19000, 22000}, WriteRuns: []float64{2000, 2500, 3000}}},
		Mixed:  []MixedPoint{{IOSizeBytes: 4096, ReadRatio: 0.5, IOPS: 4000, Runs: []float64{3600, 4400}}},
	}
	m, err := NewModel(cal)
	if err != nil {
		t.Fatal(err)
	}
	sigma := math.Sqrt((2*(3.0/19)*(3.0/19) + 2*0.2*0.2 + 2*0.1*0.1) / 5)
	h3 := 2.5705818366147395 * sigma * math.Sqrt(4.0/3) // t₀.₉₇₅(5) from R's qt(0.975, 5)
	res, err := m.AtMix([]OpClass{{Op: Read, IOSizeBytes: 4096, Rate: 1000}, {Op: Write, IOSizeBytes: 4096, Rate: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	h2 := 2.5705818366147395 * sigma * math.Sqrt(1.5)
	if !near(res.MaxTotalIOPS, 4000, 1e-9) || !near(res.MaxTotalIOPSLower, 4000*math.Exp(-h2), 1e-6) || !near(res.MaxTotalIOPSUpper, 4000*math.Exp(h2), 1e-6) {
		t.Errorf("at the calibrated mix: max %v [%v, %v], want 4000 [%v, %v]", res.MaxTotalIOPS, res.MaxTotalIOPSLower, res.MaxTotalIOPSUpper, 4000*math.Exp(-h2), 4000*math.Exp(h2))
	}
	if !near(res.HeadroomRatioLower, 1-2000/res.MaxTotalIOPSLower, 1e-12) || !near(res.HeadroomRatioUpper, 1-2000/res.MaxTotalIOPSUpper, 1e-12) {
		t.Errorf("headroom band %v..%v", res.HeadroomRatioLower, res.HeadroomRatioUpper)
	}
	// Pure reads: the read figure's prediction interval.
	res, _ = m.AtMix([]OpClass{{Op: Read, IOSizeBytes: 4096, Rate: 1000}})
	if !near(res.MaxTotalIOPSLower, 19000*math.Exp(-h3), 1e-9) || !near(res.MaxTotalIOPSUpper, 19000*math.Exp(h3), 1e-9) {
		t.Errorf("pure reads: band %v..%v, want %v..%v", res.MaxTotalIOPSLower, res.MaxTotalIOPSUpper, 19000*math.Exp(-h3), 19000*math.Exp(h3))
	}
	// γ's bounds: γ(mixed max, pure mins) <= γ <= γ(mixed min, pure maxes).
	g := m.Interference()[0]
	lo, _ := GammaFromMixed(16000, 2000, 0.5, 4400)
	hi, _ := GammaFromMixed(22000, 3000, 0.5, 3600)
	if !near(g.Lower, lo, 1e-12) || !near(g.Upper, hi, 1e-12) || !(g.Lower < g.Estimate && g.Estimate < g.Upper) {
		t.Errorf("γ %v [%v, %v], want [%v, %v]", g.Estimate, g.Lower, g.Upper, lo, hi)
	}
	if g.Test != GammaNotSignificant || g.Gamma != g.Estimate || !near(g.Gamma, 0.28125, 1e-12) || !(g.StdErr > 0) {
		t.Errorf("γ test %+v, want %q with γ at its estimate 0.28125 (= (1 − 4000·(0.5/19000 + 0.5/2500)) / (4·(2000/19000)·(2000/2500)))", g, GammaNotSignificant)
	}
	// Curve carries the same band.
	curve, _, _ := m.Curve(4096, []float64{0.5, 1})
	mid, _ := m.AtMix([]OpClass{{Op: Read, IOSizeBytes: 4096, Rate: 1000}, {Op: Write, IOSizeBytes: 4096, Rate: 1000}})
	if !near(curve[0].MaxIOPSLower, mid.MaxTotalIOPSLower, 1e-12) || !near(curve[0].MaxIOPSUpper, mid.MaxTotalIOPSUpper, 1e-12) || !near(curve[1].MaxIOPSLower, 19000*math.Exp(-h3), 1e-9) {
		t.Errorf("curve band %+v", curve)
	}
	// At any mix the band brackets the central figure.
	for rho := 0.0; rho <= 1; rho += 0.1 {
		res, _ := m.AtMix([]OpClass{{Op: Read, IOSizeBytes: 4096, Rate: 10 * rho}, {Op: Write, IOSizeBytes: 4096, Rate: 10 * (1 - rho)}})
		if !(res.MaxTotalIOPSLower <= res.MaxTotalIOPS && res.MaxTotalIOPS <= res.MaxTotalIOPSUpper && res.HeadroomRatioLower <= res.HeadroomRatioUpper) {
			t.Errorf("ρ %v: band %v..%v around %v", rho, res.MaxTotalIOPSLower, res.MaxTotalIOPSUpper, res.MaxTotalIOPS)
		}
	}
}

// A mixed point above the line between the pure points, by more than any
// frontier of this form can pass through (γ < MinGamma): within the runs'
// noise the paper's law is used (GammaZero); measured once, it is an error.
func TestGammaBeyondTheFormWithinTheNoise(t *testing.T) {
	cal := Calibration{
		Points: []Point{{IOSizeBytes: 4096, ReadIOPS: 19000, WriteIOPS: 2500, ReadRuns: []float64{16000, 19000, 22000}, WriteRuns: []float64{2000, 2500, 3000}}},
		Mixed:  []MixedPoint{{IOSizeBytes: 4096, ReadRatio: 0.5, IOPS: 6000, Runs: []float64{4000, 8000}}},
	}
	m, err := NewModel(cal)
	if err != nil {
		t.Fatal(err)
	}
	g := m.Interference()[0]
	if g.Test != GammaZero || g.Gamma != 0 || !(g.Estimate < MinGamma) {
		t.Errorf("γ %+v, want %q: γ 0 with its estimate below %v", g, GammaZero, MinGamma)
	}
	res, err := m.AtMix([]OpClass{{Op: Read, IOSizeBytes: 4096, Rate: 1000}, {Op: Write, IOSizeBytes: 4096, Rate: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	if line := 1 / (0.5/19000 + 0.5/2500); !near(res.MaxTotalIOPS, line, 1e-12) || !(res.MaxTotalIOPSUpper > 6000) {
		t.Errorf("max %v [%v, %v], want the paper's %v with a band reaching the mixed point", res.MaxTotalIOPS, res.MaxTotalIOPSLower, res.MaxTotalIOPSUpper, line)
	}
	cal.Points[0].ReadRuns, cal.Points[0].WriteRuns, cal.Mixed[0].Runs = nil, nil, nil
	if _, err := NewModel(cal); err == nil || !strings.Contains(err.Error(), "below -0.25") {
		t.Errorf("single runs: error %v, want γ below -0.25", err)
	}
}

func TestMergeCalibrations(t *testing.T) {
	a := Calibration{Cluster: "c", Points: []Point{{IOSizeBytes: 4096, ReadIOPS: 100, WriteIOPS: 10, Source: "a"}},
		Mixed: []MixedPoint{{IOSizeBytes: 4096, ReadRatio: 0.5, IOPS: 15}}}
	b := Calibration{Points: []Point{{IOSizeBytes: 4096, ReadIOPS: 120, WriteIOPS: 12, ReadRuns: []float64{110, 130}, WriteRuns: []float64{12, 12}, Source: "b"},
		{IOSizeBytes: 65536, ReadIOPS: 50, WriteIOPS: 8}},
		Mixed: []MixedPoint{{IOSizeBytes: 4096, ReadRatio: 0.5, IOPS: 17}}}
	c, err := MergeCalibrations(a, b)
	if err != nil {
		t.Fatal(err)
	}
	p := c.Points[0]
	if c.Cluster != "c" || len(c.Points) != 2 || !near(p.ReadIOPS, 340.0/3, 1e-15) || len(p.ReadRuns) != 3 || !near(p.WriteIOPS, 34.0/3, 1e-15) || p.Source != "a | b" {
		t.Errorf("merged %+v", c)
	}
	if c.Points[1].ReadRuns != nil || len(c.Mixed) != 1 || c.Mixed[0].IOPS != 16 || len(c.Mixed[0].Runs) != 2 {
		t.Errorf("merged %+v", c)
	}
	if _, err := MergeCalibrations(a, Calibration{Cluster: "d", Points: a.Points}); err == nil || !strings.Contains(err.Error(), `cals[1].cluster: "d" differs from "c"`) {
		t.Errorf("clusters differ: %v", err)
	}
	if _, err := MergeCalibrations(); err == nil || !strings.Contains(err.Error(), "cals: empty") {
		t.Errorf("no calibrations: %v", err)
	}
	if _, err := MergeCalibrations(a, Calibration{}); err == nil || !strings.Contains(err.Error(), "cals[1]: invalid input: points: empty") {
		t.Errorf("empty calibration: %v", err)
	}
}

// AtMix allocates nothing, with interference and a runs band too.
func TestAtMixAllocatesNothing(t *testing.T) {
	m, err := NewModel(Calibration{
		Points: []Point{{IOSizeBytes: 4096, ReadIOPS: 19000, WriteIOPS: 2500, ReadRuns: []float64{17000, 19000, 21000}, WriteRuns: []float64{2300, 2500, 2700}},
			{IOSizeBytes: 65536, ReadIOPS: 9800, WriteIOPS: 2200}},
		Mixed: []MixedPoint{{IOSizeBytes: 4096, ReadRatio: 0.5, IOPS: 4000, Runs: []float64{3800, 4200}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	classes := []OpClass{{Op: Read, IOSizeBytes: 4096, Rate: 1400}, {Op: Write, IOSizeBytes: 4096, Rate: 600}, {Op: Write, IOSizeBytes: 30000, Rate: 60}}
	if n := testing.AllocsPerRun(100, func() { _, _ = m.AtMix(classes) }); n != 0 {
		t.Errorf("AtMix allocates %v times per call", n)
	}
}

// TestUtilizationNeverFallsPastCapacity: with γ < 0 (a 50/50 point above
// the paper's line: γ = −0.24 here, accepted) U along a mix rises to a
// peak at least 1 and fell after it: at 1.6 times the max at 50/50 it read
// 0.96 (a finite latency served past capacity), at 3 times −1.0. Along the
// ray U is non-decreasing, below 1 exactly below capacity, at least 1 past
// it.
func TestUtilizationNeverFallsPastCapacity(t *testing.T) {
	m, err := NewModel(Calibration{Points: []Point{{IOSizeBytes: 4096, ReadIOPS: 1000, WriteIOPS: 1000}},
		Mixed: []MixedPoint{{IOSizeBytes: 4096, ReadRatio: 0.5, IOPS: 5000.0 / 3}}})
	if err != nil {
		t.Fatal(err)
	}
	if g := m.Interference(); len(g) != 1 || math.Abs(g[0].Gamma+0.24) > 1e-9 {
		t.Fatalf("γ fits %+v, want −0.24", g)
	}
	const max = 5000.0 / 3
	prev := 0.0
	for _, f := range []float64{0.5, 0.8, 0.99, 1, 1.01, 1.2, 1.6, 2, 3, 10} {
		res, err := m.AtMixCentral([]OpClass{{Op: Read, IOSizeBytes: 4096, Rate: f * max / 2}, {Op: Write, IOSizeBytes: 4096, Rate: f * max / 2}})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(res.LoadRatio-f) > 1e-9 || (f < 1) != (res.Utilization < 1) || res.Utilization < prev {
			t.Errorf("%v× the max: load ratio %v, U %v (the last %v); want U below 1 exactly below capacity, non-decreasing", f, res.LoadRatio, res.Utilization, prev)
		}
		prev = res.Utilization
	}
}

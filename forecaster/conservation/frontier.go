package conservation

import (
	"fmt"
	"math"
	"sort"

	"github.com/storcast/storcast/forecaster/internal/check"
	"gonum.org/v1/gonum/stat/distuv"
)

// MinGamma is the lowest interference coefficient accepted. Below it the
// frontier U = a + b + 4γab = 1 stops being reachable at some mixes (U
// peaks below 1 when the discriminant (a+b)² + 16γab turns negative), i.e.
// the model would promise unbounded capacity.
const MinGamma = -0.25

// FrontierUtilization is the utilization of one IO size under read/write
// interference:
//
//	U = a + b + 4γab,   a = readRate/tRead100,   b = writeRate/tWrite100.
//
// γ = 0 is the conservation law of Ra and Lee exactly (U = a + b). γ > 0
// means a mixed load costs more than its pure parts (mixes sit inside the
// two-point line); at a 50/50 split of capacity (a = b = ½ on the line) U is
// 1 + γ.
func FrontierUtilization(readRate, writeRate, tRead100, tWrite100, gamma float64) (float64, error) {
	if err := checkNonNegative("readRate", readRate); err != nil {
		return 0, err
	}
	if err := checkNonNegative("writeRate", writeRate); err != nil {
		return 0, err
	}
	if err := checkPositive("tRead100", tRead100); err != nil {
		return 0, err
	}
	if err := checkPositive("tWrite100", tWrite100); err != nil {
		return 0, err
	}
	if err := checkGamma("gamma", gamma); err != nil {
		return 0, err
	}
	a, b := readRate/tRead100, writeRate/tWrite100
	return a + b + 4*gamma*a*b, nil
}

// MaxAtReadRatio is the max total IOPS of one IO size at read ratio ρ (0..1)
// under interference γ: the t > 0 with U(tρ, t(1−ρ)) = 1. With
// L = ρ/T_read100 + (1−ρ)/T_write100 and Q = 4γ ρ(1−ρ)/(T_read100 T_write100),
// U(t) = Lt + Qt², so
//
//	t = 2 / (L + √(L² + 4Q))
//
// (the smaller root, written without cancellation and scaled against
// underflow). γ = 0 gives eq. 6.
func MaxAtReadRatio(tRead100, tWrite100, gamma, readRatio float64) (float64, error) {
	if err := checkPositive("tRead100", tRead100); err != nil {
		return 0, err
	}
	if err := checkPositive("tWrite100", tWrite100); err != nil {
		return 0, err
	}
	if err := checkGamma("gamma", gamma); err != nil {
		return 0, err
	}
	if !check.Finite(readRatio) || readRatio < 0 || readRatio > 1 {
		return 0, inputError("readRatio", "must be in 0..1, got %v", readRatio)
	}
	a, b := readRatio/tRead100, (1-readRatio)/tWrite100
	L := a + b
	t := 1 / frontierScale(L, 4*gamma*(a/L)*(b/L))
	if !(t > 0) || !check.Finite(t) {
		return 0, inputError("tRead100, tWrite100, gamma", "%v, %v, %v at read ratio %v are out of floating-point range", tRead100, tWrite100, gamma, readRatio)
	}
	return t, nil
}

// frontierScale returns 1/s, s the scale with U(s·load) = 1 when
// U(load) = L + Q (L the linear part, Q the interference part), given
// r = Q/L². The inverse is returned so that Q = 0 gives exactly L, as the
// paper's form does. Written as 1/s = L(1 + √(1 + 4r))/2, with r computed
// from the shares relative to L, so that neither L² nor Q underflows when
// the load is tiny against the capacities.
func frontierScale(L, r float64) float64 {
	if r == 0 {
		return L
	}
	d := 1 + 4*r
	if d < 0 { // only by rounding at γ = MinGamma
		d = 0
	}
	return L * (1 + math.Sqrt(d)) / 2
}

// GammaFromMixed is the interference implied by one saturated mixed
// measurement: total IOPS m at read ratio ρ (strictly between 0 and 1) on a
// size with pure capacities tRead100, tWrite100. With a = ρm/T_read100 and
// b = (1−ρ)m/T_write100, U = 1 gives
//
//	γ = (1 − a − b) / (4ab).
func GammaFromMixed(tRead100, tWrite100, readRatio, iops float64) (float64, error) {
	if err := checkPositive("tRead100", tRead100); err != nil {
		return 0, err
	}
	if err := checkPositive("tWrite100", tWrite100); err != nil {
		return 0, err
	}
	if !check.Finite(readRatio) || readRatio <= 0 || readRatio >= 1 {
		return 0, inputError("readRatio", "must be strictly between 0 and 1 (a mix), got %v", readRatio)
	}
	if err := checkPositive("iops", iops); err != nil {
		return 0, err
	}
	// The ratio of like magnitudes first: ρ·m alone can underflow.
	a, b := readRatio*(iops/tRead100), (1-readRatio)*(iops/tWrite100)
	if a+b >= 2 {
		// U(t) = t(a+b) + t²(1−a−b) would peak before t = 1 and come back
		// down to 1 there: the frontier (the first crossing) lies below the
		// measured point, so no γ explains it.
		return 0, inputError("iops", "%v at read ratio %v is at least twice the line between the pure points (%v): no frontier of this form passes through it", iops, readRatio, iops/(a+b))
	}
	g := (1 - a - b) / (4 * a * b)
	if !check.Finite(g) {
		return 0, inputError("iops", "%v at read ratio %v gives no finite interference", iops, readRatio)
	}
	return g, nil
}

func checkNonNegative(name string, v float64) error {
	if !check.Finite(v) || v < 0 {
		return inputError(name, "must be a finite number >= 0, got %v", v)
	}
	return nil
}

func checkGamma(name string, g float64) error {
	if !check.Finite(g) || g < MinGamma {
		return inputError(name, "must be a finite number >= %v, got %v", MinGamma, g)
	}
	return nil
}

// GammaFit is the interference coefficient fitted at one IO size from the
// calibration's mixed points.
type GammaFit struct {
	IOSizeBytes float64 `json:"ioSizeBytes"`
	Gamma       float64 `json:"gamma"`
	// Lower and Upper bound γ over the calibration's spread: γ falls as the
	// mixed IOPS rise and rises with T_read100 and T_write100, so the bounds
	// are γ(mixed max, pure mins) and γ(mixed min, pure maxes), hulled with
	// the estimate and with Gamma (0 where the test falls back to the
	// paper's law: the range holds the value used). Equal to Gamma when
	// every figure is a single run.
	Lower float64 `json:"gammaLower"`
	Upper float64 `json:"gammaUpper"`
	// MixedPoints is how many mixed points (read ratios) the fit used;
	// RMSResidual is the RMS of U − 1 over them (0 with one point, which
	// γ fits exactly).
	MixedPoints int     `json:"mixedPoints"`
	RMSResidual float64 `json:"rmsResidual"`
	// Estimate is the least-squares γ of the mixed points' means; Gamma is
	// Estimate, or 0 (the paper's law) in the one case Test is GammaZero.
	Estimate float64 `json:"gammaEstimate"`
	// StdErr is Estimate's standard error from the runs (delta method over
	// the figures behind it, each with standard error σ·x/√n, σ the
	// calibration's relative run-to-run noise pooled over every figure with
	// two or more runs) and DoF the pool's degrees of freedom, Σ(n − 1);
	// both 0 when no figure of the calibration has two runs.
	StdErr float64 `json:"gammaStdErr"`
	DoF    float64 `json:"gammaDoF"`
	// AllSizes is the interference common to all sizes (the inverse-variance
	// weighted mean of the sizes' estimates) and AllSizesStdErr its standard
	// error: the test is on it, one for the calibration (0 untested).
	AllSizes       float64 `json:"gammaAllSizes"`
	AllSizesStdErr float64 `json:"gammaAllSizesStdErr"`
	// Test is GammaKept, GammaNotSignificant, GammaZero or GammaUntested,
	// the same at every size.
	Test string `json:"gammaTest"`
}

// The outcomes of γ's significance test (GammaFit.Test). The test informs;
// it does not decide: γ is used at its estimate whatever it says, and the
// max-IOPS band (the prediction interval, whose delta method runs through
// the mixed points) carries the estimate's uncertainty. Falling back to the
// paper's law whenever the runs could not tell γ (or η) from 0 was tried
// first: on four real-Ceph runs, where it acted (three of them) the
// estimates were closer at the mixed-size step in each and at 70% reads
// where γ was dropped, further at 50% reads and 16 KiB, with a lower mean
// error in each (docs/models.md "Interference: the estimate, not a test");
// a pre-test estimator is also known to lose to the plain estimate for
// prediction when the effect is of the order of its noise.
const (
	// GammaKept: |AllSizes| exceeds the two-sided 95% Student t quantile
	// (DoF) times AllSizesStdErr: the runs tell interference from none;
	// Gamma = Estimate at every size.
	GammaKept = "kept"
	// GammaNotSignificant: the runs do not tell interference from none;
	// Gamma = Estimate still, the band wide enough for either.
	GammaNotSignificant = "not significant"
	// GammaZero: not significant, and some size's estimate is one the
	// frontier cannot take (below MinGamma, or turning back before its mixed
	// point: the mix measured above the line between the pure points, within
	// the noise); Gamma = 0 at every size, the paper's law, which the runs
	// allow. With a significant or an untested estimate that is an error.
	GammaZero = "zero"
	// GammaUntested: every figure behind γ is a single run, so its noise is
	// unknown; Gamma = Estimate, as measured.
	GammaUntested = "untested"
)

// fitGammas fits γ per size of c.Mixed given pure capacities from pure (the
// same model, interference not yet set), and the bounds from lo and hi
// (the models of the spread's low and high ends; nil without spread).
// A γ below MinGamma is an error, or with clamp (the band's end models)
// MinGamma.
func fitGammas(c Calibration, pure, lo, hi *Model, clamp bool) ([]GammaFit, error) {
	if len(c.Mixed) == 0 {
		return nil, nil
	}
	bySize := map[float64][]int{}
	var sizes []float64
	for i, p := range c.Mixed {
		if p.mixedSize() {
			continue // η's, not γ's
		}
		if _, ok := bySize[p.IOSizeBytes]; !ok {
			sizes = append(sizes, p.IOSizeBytes)
		}
		bySize[p.IOSizeBytes] = append(bySize[p.IOSizeBytes], i)
	}
	if len(sizes) == 0 {
		return nil, nil
	}
	sort.Float64s(sizes)
	// First every size's least-squares estimate and, with runs, its
	// derivatives with respect to the calibration's figures; then one test
	// of "no interference at any size" (jointGamma), which every size shares.
	type est struct {
		idx   []int
		g     float64
		rms   float64
		deriv []float64
	}
	ests := make([]est, len(sizes))
	figure := func(p MixedPoint) float64 { return p.IOPS }
	fit := func(m *Model, idx []int, s float64, pick func(MixedPoint) float64) (float64, float64, error) {
		g, rms := lsGamma(c.Mixed, idx, m, s, func(k int) float64 { return pick(c.Mixed[k]) })
		if !check.Finite(g) {
			return 0, 0, inputError(fmt.Sprintf("mixed[%d].iops", idx[0]), "the mixed point(s) at %g bytes give no finite interference", s)
		}
		return g, rms, nil
	}
	for i, s := range sizes {
		idx := bySize[s]
		g, rms, err := fit(pure, idx, s, figure)
		if err != nil {
			return nil, err
		}
		ests[i] = est{idx: idx, g: g, rms: rms}
	}
	var sigma float64
	var pdof int
	if lo != nil && hi != nil {
		sigma, pdof = poolNoise(c)
		if pdof > 0 {
			for i, s := range sizes {
				if ests[i].deriv = gammaDerivs(c, ests[i].idx, pure, s); ests[i].deriv == nil {
					pdof = 0 // a rebuild failed: untested
					break
				}
			}
		}
	}
	test := GammaUntested
	var jointG, jointSE float64
	ses := make([]float64, len(sizes))
	if pdof > 0 {
		gs := make([]float64, len(sizes))
		derivs := make([][]float64, len(sizes))
		for i := range ests {
			gs[i], derivs[i] = ests[i].g, ests[i].deriv
			ses[i] = figureSE(c, sigma, derivs[i])
		}
		jointG, jointSE = jointGamma(c, sigma, gs, ses, derivs)
		test = GammaNotSignificant
		if math.Abs(jointG) > tQuantile975(float64(pdof))*jointSE {
			test = GammaKept
		}
		finite := check.Finite(jointG) && check.Finite(jointSE)
		for _, se := range ses {
			finite = finite && check.Finite(se)
		}
		if !finite {
			// Figures so extreme that the derivatives overflow: untested.
			test, pdof, jointG, jointSE = GammaUntested, 0, 0, 0
		}
		if test == GammaNotSignificant {
			for i, s := range sizes {
				if g := ests[i].g; g < MinGamma || g <= risingGamma(c, ests[i].idx, pure, s, figure) {
					test = GammaZero // an estimate the frontier cannot take, within the noise
				}
			}
		}
	}
	out := make([]GammaFit, 0, len(sizes))
	for i, s := range sizes {
		idx, g, rms := ests[i].idx, ests[i].g, ests[i].rms
		gf := GammaFit{IOSizeBytes: s, MixedPoints: len(idx), RMSResidual: rms, Estimate: g, Test: test}
		if pdof > 0 {
			gf.StdErr, gf.DoF = ses[i], float64(pdof)
			gf.AllSizes, gf.AllSizesStdErr = jointG, jointSE
			if test == GammaZero {
				// The runs cannot tell γ from 0: the paper's law, which
				// needs neither the MinGamma nor the rising check.
				g = 0
				// Unless no run allows any frontier through the point: the
				// delta method's linear noise, far from the line, can call
				// "within the noise" a point that even the mixed runs' least
				// against the pure runs' greatest puts beyond reach.
				if !clamp {
					least := func(p MixedPoint) float64 { return runsMin(p.IOPS, p.Runs) }
					gu, _, err := fit(hi, idx, s, least)
					if err != nil {
						return nil, err
					}
					if rising := risingGamma(c, idx, hi, s, least); gu < MinGamma || gu <= rising {
						return nil, inputError(fmt.Sprintf("mixed[%d].iops", idx[0]),
							"the mixed point(s) at %g bytes lie beyond every frontier their runs allow (γ = %.4g at the mixed runs' least and the pure runs' greatest figures; it must be at least %v and exceed %.4g, where the frontier turns back): the mix measured far above the line between the pure points; check both calibrations", s, gu, MinGamma, rising)
					}
				}
			}
		}
		if gf.Test != GammaZero && g < MinGamma {
			if clamp {
				g = MinGamma
			} else {
				return nil, inputError(fmt.Sprintf("mixed[%d].iops", idx[0]),
					"the mixed point(s) at %g bytes imply interference γ = %.4g, below %v: the mix measured far above the line between the pure read and pure write points; check both calibrations", s, g, MinGamma)
			}
		}
		// Each mixed point must lie where U still rises along its ray
		// (a + b + 8γab > 0), or the frontier crosses 1 before it.
		if rising := risingGamma(c, idx, pure, s, figure); gf.Test != GammaZero && g <= rising {
			if !clamp {
				return nil, inputError(fmt.Sprintf("mixed[%d].iops", idx[0]),
					"the mixed point(s) at %g bytes give γ = %.4g, whose frontier turns back before reaching them (γ must exceed %.4g): the mix measured far above the line between the pure points", s, g, rising)
			}
			g = rising + 1e-9*math.Abs(rising)
		}
		gf.Gamma, gf.Lower, gf.Upper = g, g, g
		if lo != nil && hi != nil {
			// γ(mixed max, pure mins) and γ(mixed min, pure maxes), as
			// computed (the lower one may fall below MinGamma: that is
			// what the runs allow, though no model would use it).
			gl, _, err := fit(lo, idx, s, func(p MixedPoint) float64 { return runsMax(p.IOPS, p.Runs) })
			if err != nil {
				return nil, err
			}
			gu, _, err := fit(hi, idx, s, func(p MixedPoint) float64 { return runsMin(p.IOPS, p.Runs) })
			if err != nil {
				return nil, err
			}
			gf.Lower = math.Min(gl, math.Min(gf.Estimate, gf.Gamma))
			gf.Upper = math.Max(gu, math.Max(gf.Estimate, gf.Gamma))
		}
		out = append(out, gf)
	}
	return out, nil
}

// lsGamma is the least-squares γ of the mixed points idx at size s against
// the pure capacities of m, each point's IOPS taken by pick, and the RMS of
// U − 1 over them: U_k − 1 = (a_k + b_k − 1) + γ p_k, p_k = 4 a_k b_k.
func lsGamma(mixed []MixedPoint, idx []int, m *Model, s float64, pick func(k int) float64) (gamma, rms float64) {
	r, w, _ := m.at(math.Log(s))
	p, e := make([]float64, len(idx)), make([]float64, len(idx))
	for i, k := range idx {
		pt := mixed[k]
		mm := pick(k)
		a, b := pt.ReadRatio*(mm/r), (1-pt.ReadRatio)*(mm/w)
		p[i], e[i] = 4*a*b, 1-a-b
	}
	return throughOrigin(p, e)
}

// throughOrigin is the least-squares c of e_k ≈ c·p_k and the RMS of
// c·p_k − e_k: the one-coefficient fits of γ and η (U − 1 is linear in
// each). The p_k are scaled by their largest, so that Σ p_k² does not
// underflow when the shares are tiny (one point: exactly e/p).
func throughOrigin(p, e []float64) (c, rms float64) {
	var pmax float64
	for _, v := range p {
		pmax = math.Max(pmax, v)
	}
	var spp, spe float64
	for k, v := range p {
		q := v / pmax
		spp += q * q
		spe += q * e[k]
	}
	c = spe / spp / pmax
	var ss float64
	for k, v := range p {
		d := c*v - e[k]
		ss += d * d
	}
	return c, math.Sqrt(ss / float64(len(p)))
}

// gammaDerivs is ∂γ/∂figure for the least-squares γ at size s, for every
// figure of the calibration in the order of figureAt (c.Mixed, then each
// point's read and write IOPS): central differences; a pure figure's through
// the model rebuilt in the same form, and only for the points the
// capacities at s are interpolated from (under Cost every size). nil when a
// rebuild fails (only extreme figures cause it).
func gammaDerivs(c Calibration, idx []int, pure *Model, s float64) []float64 {
	const rel = 1e-6
	d := make([]float64, len(c.Mixed)+2*len(c.Points))
	central := func(k int) float64 { return c.Mixed[k].IOPS }
	for _, k := range idx {
		h := rel * c.Mixed[k].IOPS
		shift := func(dx float64) float64 {
			g, _ := lsGamma(c.Mixed, idx, pure, s, func(q int) float64 {
				if q == k {
					return c.Mixed[q].IOPS + dx
				}
				return c.Mixed[q].IOPS
			})
			return g
		}
		d[k] = (shift(h) - shift(-h)) / (2 * h)
	}
	support := pure.loglogSupport(math.Log(s))
	for i, pt := range c.Points {
		if support != nil && !support[math.Log(pt.IOSizeBytes)] {
			continue // the capacities at s do not depend on this point
		}
		for dir := 0; dir < 2; dir++ {
			x := pt.ReadIOPS
			if dir == 1 {
				x = pt.WriteIOPS
			}
			h := rel * x
			var gs [2]float64
			for side, dx := range [2]float64{h, -h} {
				m, err := buildModel(withFigure(c, len(c.Mixed)+2*i+dir, x+dx), pure.form.Used)
				if err != nil {
					return nil
				}
				gs[side], _ = lsGamma(c.Mixed, idx, m, s, central)
			}
			d[len(c.Mixed)+2*i+dir] = (gs[0] - gs[1]) / (2 * h)
		}
	}
	return d
}

// figureAt is the value and run count of figure j in gammaDerivs' order.
func figureAt(c Calibration, j int) (x float64, n int) {
	if j < len(c.Mixed) {
		return c.Mixed[j].IOPS, len(c.Mixed[j].Runs)
	}
	p := c.Points[(j-len(c.Mixed))/2]
	if (j-len(c.Mixed))%2 == 0 {
		return p.ReadIOPS, len(p.ReadRuns)
	}
	return p.WriteIOPS, len(p.WriteRuns)
}

// withFigure is a copy of c with figure j (figureAt's order) set to x; c's
// slices are not shared with it.
func withFigure(c Calibration, j int, x float64) Calibration {
	e := c
	e.Points = append([]Point(nil), c.Points...)
	e.Mixed = append([]MixedPoint(nil), c.Mixed...)
	switch {
	case j < len(c.Mixed):
		e.Mixed[j].IOPS = x
	case (j-len(c.Mixed))%2 == 0:
		e.Points[(j-len(c.Mixed))/2].ReadIOPS = x
	default:
		e.Points[(j-len(c.Mixed))/2].WriteIOPS = x
	}
	return e
}

// figureSE is the delta-method standard error of a quantity with
// derivatives d with respect to the figures, each figure x measured n times
// having standard error σ·x/√n (a single run σ·x). The figures are
// independent measurements, so the variances add.
//
// The figures' noise is pooled (poolNoise): one relative run-to-run standard
// deviation σ for the whole calibration, estimated from every figure with
// two or more runs, with Σ(n_j − 1) degrees of freedom. Per figure, two
// runs give one degree of freedom each and a t quantile of 12.7: the test
// could then keep no γ a calibration can measure. Pooling assumes that the
// relative noise is the machine's, common to the figures; the known-truth
// tests measure the level when it is not.
func figureSE(c Calibration, sigma float64, d []float64) float64 {
	var v float64
	for j, dj := range d {
		if dj == 0 {
			continue
		}
		x, n := figureAt(c, j)
		e := dj * sigma * x / math.Sqrt(float64(max(n, 1)))
		v += e * e
	}
	return math.Sqrt(v)
}

// jointGamma is the interference common to all sizes: the inverse-variance
// weighted mean of the sizes' estimates, and its standard error by the
// delta method over the figures (the weights held fixed), which counts the
// figures the sizes share (every size under Cost). γ is a property of the
// cluster that a real lab found similar across sizes (0.27 at 4 KiB, 0.29 at
// 64 KiB): one test of "no interference at any size" has the power of all
// the mixed points, where a test per size splits it. When some size's
// standard error is 0 (runs that agree exactly), the weights are equal.
func jointGamma(c Calibration, sigma float64, gs, ses []float64, derivs [][]float64) (g, se float64) {
	w := make([]float64, len(gs))
	var sw float64
	for i, s := range ses {
		w[i] = 1 / (s * s)
		if s == 0 || !check.Finite(w[i]) {
			for k := range w {
				w[k] = 1
			}
			sw = float64(len(w))
			break
		}
		sw += w[i]
	}
	d := make([]float64, len(derivs[0]))
	for i := range gs {
		g += w[i] / sw * gs[i]
		for j, dj := range derivs[i] {
			d[j] += w[i] / sw * dj
		}
	}
	return g, figureSE(c, sigma, d)
}

// HasRuns reports whether any figure of c has two or more runs: without,
// the max-IOPS band has no width (the figures are taken as exact).
func (c Calibration) HasRuns() bool {
	_, dof := poolNoise(c)
	return dof > 0
}

// poolNoise is the calibration's relative run-to-run noise, pooled over
// every figure with two or more runs (pure read and write IOPS, mixed
// points): σ² = Σ_j Σ_k (x_jk/x̄_j − 1)² / Σ_j (n_j − 1), with Σ_j (n_j − 1)
// degrees of freedom; 0, 0 when no figure has two runs.
func poolNoise(c Calibration) (sigma float64, dof int) {
	var ss float64
	add := func(runs []float64) {
		if len(runs) < 2 {
			return
		}
		mu := mean(runs)
		for _, r := range runs {
			ss += (r/mu - 1) * (r/mu - 1)
		}
		dof += len(runs) - 1
	}
	for _, p := range c.Points {
		add(p.ReadRuns)
		add(p.WriteRuns)
	}
	for _, p := range c.Mixed {
		add(p.Runs)
	}
	if dof == 0 {
		return 0, 0
	}
	return math.Sqrt(ss / float64(dof)), dof
}

// loglogSupport is the set of calibrated log sizes the capacities at log
// size ls are interpolated from under LogLog (the point itself at a
// calibrated size, else the two ends of its segment, as at() picks them);
// nil under Cost, where every size counts.
func (m *Model) loglogSupport(ls float64) map[float64]bool {
	if m.cost {
		return nil
	}
	n := len(m.logSize)
	if n == 1 {
		return map[float64]bool{m.logSize[0]: true}
	}
	i := sort.SearchFloat64s(m.logSize, ls)
	if i < n && m.logSize[i] == ls {
		return map[float64]bool{ls: true}
	}
	lo := min(max(i-1, 0), n-2)
	return map[float64]bool{m.logSize[lo]: true, m.logSize[lo+1]: true}
}

// tQuantile975 is the 97.5% quantile of Student's t with dof degrees of
// freedom (+Inf dof: the normal's 1.96).
func tQuantile975(dof float64) float64 {
	if math.IsInf(dof, 1) {
		return distuv.UnitNormal.Quantile(0.975)
	}
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: dof}.Quantile(0.975)
}

// risingGamma is the γ below which U stops rising along the ray of some
// mixed point of idx before reaching it: max_k −(a_k + b_k)/(8 a_k b_k),
// each point's IOPS taken by pick.
func risingGamma(c Calibration, idx []int, m *Model, s float64, pick func(MixedPoint) float64) float64 {
	r, w, _ := m.at(math.Log(s))
	g := math.Inf(-1)
	for _, k := range idx {
		p := c.Mixed[k]
		a, b := p.ReadRatio*(pick(p)/r), (1-p.ReadRatio)*(pick(p)/w)
		g = math.Max(g, -(a+b)/(8*a*b))
	}
	return g
}

// gammaAt interpolates γ linearly in log size between the sizes that have a
// fit, and holds the end values outside them (a trend in γ is not
// extrapolated). No fit: 0, the paper.
func gammaAt(logSize, gamma []float64, ls float64) float64 {
	n := len(logSize)
	switch {
	case n == 0:
		return 0
	case ls <= logSize[0]:
		return gamma[0]
	case ls >= logSize[n-1]:
		return gamma[n-1]
	}
	i := sort.SearchFloat64s(logSize, ls)
	if logSize[i] == ls {
		return gamma[i]
	}
	t := (ls - logSize[i-1]) / (logSize[i] - logSize[i-1])
	return gamma[i-1] + t*(gamma[i]-gamma[i-1])
}

package conservation

import (
	"fmt"
	"math"

	"github.com/storcast/storcast/forecaster/internal/check"
)

// SizeInterferenceFit is the interference between sizes fitted from the
// calibration's mixed-size points (reads at one size with writes at
// another, at once). A read class i and a write class j at sizes S_i ≠ S_j
// add, on top of their read/write term γ_ij,
//
//	4 η w_ij x_i x_j,   w_ij = min(|ln S_i − ln S_j| / D, 1),
//
// to the utilization: η at the calibrated size distance D (the largest
// |ln(R/W)| of the mixed-size points), linear in log size distance below it
// (0 at equal sizes, so a read class at 4095 bytes and a write class at
// 4100 bytes add nothing), held at η beyond it (a trend is not
// extrapolated). η = 0 is the model without it, exactly.
type SizeInterferenceFit struct {
	// Eta is the η in use: Estimate, but 0 where the runs cannot tell it
	// from 0 and the frontier cannot take it (Test GammaZero).
	Eta float64 `json:"eta"`
	// Estimate is the least-squares η of the mixed-size points' means,
	// given the pure capacities and γ at their sizes.
	Estimate float64 `json:"etaEstimate"`
	// LogSizeRatio is D, the size distance at which w reaches 1.
	LogSizeRatio float64 `json:"logSizeRatio"`
	// MixedPoints is how many mixed-size points the fit used; RMSResidual
	// the RMS of U − 1 over them (0 with one point, which η fits exactly).
	MixedPoints int     `json:"mixedPoints"`
	RMSResidual float64 `json:"rmsResidual"`
	// StdErr is Estimate's standard error from the runs (delta method over
	// every figure, each with standard error σ·x/√n, σ the calibration's
	// relative run-to-run noise pooled as for γ) and DoF the pool's
	// degrees of freedom; both 0 without runs.
	StdErr float64 `json:"etaStdErr"`
	DoF    float64 `json:"etaDoF"`
	// Test is GammaKept, GammaNotSignificant, GammaZero or GammaUntested,
	// as for γ: |Estimate| beyond the two-sided 95% t quantile times StdErr
	// is significant; Eta is Estimate but for GammaZero (not significant
	// and an η the frontier cannot take: 0).
	Test string `json:"etaTest"`
}

// writeSize is the size of the point's writes.
func (p MixedPoint) writeSize() float64 {
	if p.WriteIOSizeBytes > 0 {
		return p.WriteIOSizeBytes
	}
	return p.IOSizeBytes
}

// mixedSize reports whether the point's reads and writes have different
// sizes (a point for η rather than γ).
func (p MixedPoint) mixedSize() bool {
	return p.WriteIOSizeBytes > 0 && p.WriteIOSizeBytes != p.IOSizeBytes
}

// sizeWeight is w = min(d/D, 1) for log sizes li, lj.
func sizeWeight(li, lj, D float64) float64 {
	if D <= 0 {
		return 0
	}
	return math.Min(math.Abs(li-lj)/D, 1)
}

// etaIndex lists the mixed-size points of c and their distance D.
func etaIndex(c Calibration) (idx []int, D float64) {
	for k, p := range c.Mixed {
		if p.mixedSize() {
			idx = append(idx, k)
			D = math.Max(D, math.Abs(math.Log(p.IOSizeBytes)-math.Log(p.writeSize())))
		}
	}
	return idx, D
}

// lsEta is the least-squares η of the mixed-size points idx against the
// model m (pure capacities and γ set), each point's IOPS taken by pick,
// and the RMS of U − 1 over them: U_k − 1 = (a_k + b_k + 4γ_k a_k b_k − 1)
// + η p_k, p_k = 4 w_k a_k b_k.
func lsEta(mixed []MixedPoint, idx []int, D float64, m *Model, pick func(k int) float64) (eta, rms float64) {
	p, e := make([]float64, len(idx)), make([]float64, len(idx))
	for i, k := range idx {
		pt := mixed[k]
		lr, lw := math.Log(pt.IOSizeBytes), math.Log(pt.writeSize())
		r, _, _ := m.at(lr)
		_, w, _ := m.at(lw)
		mm := pick(k)
		a, b := pt.ReadRatio*(mm/r), (1-pt.ReadRatio)*(mm/w)
		g := gammaAt(m.gammaLogSz, m.gammaVal, (lr+lw)/2)
		p[i], e[i] = 4*sizeWeight(lr, lw, D)*a*b, 1-a-b-4*g*a*b
	}
	return throughOrigin(p, e)
}

// minPairGamma is the least γ any read/write pair of classes can get: the
// least fitted γ (0 without fits).
func (m *Model) minPairGamma() float64 {
	g := 0.0
	if len(m.gammaVal) > 0 {
		g = math.Inf(1)
	}
	for _, v := range m.gammaVal {
		g = math.Min(g, v)
	}
	return g
}

// fitEta fits η on m, whose capacities and γ are set, from the mixed-size
// points of m.cal. With test, the runs' pooled noise tests it against 0
// (the derivatives through the whole model rebuilt from each figure moved,
// γ refitted, and held at 0 when gammaZero). η must keep every pair's
// γ_ij + η w_ij at or above MinGamma, and each mixed-size point where U
// still rises along its ray; else an error, or with clamp (the band's end
// models) the nearest η that does.
func (m *Model) fitEta(test, gammaZero, clamp bool) error {
	c := m.cal
	idx, D := etaIndex(c)
	if len(idx) == 0 {
		m.eta = nil
		return nil
	}
	eta, rms := lsEta(c.Mixed, idx, D, m, func(k int) float64 { return c.Mixed[k].IOPS })
	if !check.Finite(eta) {
		return inputError(fmt.Sprintf("mixed[%d].iops", idx[0]), "the mixed-size point(s) give no finite interference between sizes")
	}
	f := SizeInterferenceFit{Estimate: eta, LogSizeRatio: D, MixedPoints: len(idx), RMSResidual: rms, Test: GammaUntested}
	if test {
		if sigma, dof := poolNoise(c); dof > 0 {
			d := etaDerivs(c, m.form.Used, gammaZero)
			if d != nil {
				se := figureSE(c, sigma, d)
				if check.Finite(se) {
					f.StdErr, f.DoF, f.Test = se, float64(dof), GammaKept
					if !(math.Abs(eta) > tQuantile975(float64(dof))*se) {
						f.Test = GammaNotSignificant
					}
				}
			}
		}
	}
	if f.Test != GammaZero {
		// Every pair's coefficient γ_ij + η w_ij ≥ MinGamma, and each point
		// on the rising side of its ray: a + b + 8(γ + η w)ab > 0.
		floor := MinGamma - m.minPairGamma() // ≤ 0: binds only a negative η
		for _, k := range idx {
			p := c.Mixed[k]
			lr, lw := math.Log(p.IOSizeBytes), math.Log(p.writeSize())
			r, _, _ := m.at(lr)
			_, w, _ := m.at(lw)
			a, b := p.ReadRatio*(p.IOPS/r), (1-p.ReadRatio)*(p.IOPS/w)
			g := gammaAt(m.gammaLogSz, m.gammaVal, (lr+lw)/2)
			wt := sizeWeight(lr, lw, D)
			floor = math.Max(floor, (-(a+b)/(8*a*b)-g)/wt)
		}
		switch {
		case eta <= floor && f.Test == GammaNotSignificant:
			f.Test, eta = GammaZero, 0 // within the noise: none, which the runs allow
		case eta <= floor:
			if !clamp {
				return inputError(fmt.Sprintf("mixed[%d].iops", idx[0]),
					"the mixed-size point(s) imply interference between sizes η = %.4g, at or below %.4g, where the frontier would not close or would turn back before them: the mix measured far above the line between the pure points of its sizes", eta, floor)
			}
			eta = floor + 1e-9*math.Max(math.Abs(floor), 1)
		}
	}
	f.Eta = eta
	m.eta = &f
	return nil
}

// etaDerivs is ∂η/∂figure for every figure of c in figureAt's order, each
// through the model rebuilt (capacities, γ refitted without a test, or 0
// when gammaZero, then η); nil when a rebuild fails.
func etaDerivs(c Calibration, form string, gammaZero bool) []float64 {
	const rel = 1e-6
	etaOf := func(e Calibration) (float64, bool) {
		mm, err := buildModel(e, form)
		if err != nil {
			return 0, false
		}
		if !gammaZero {
			if mm.gammas, err = fitGammas(e, mm, nil, nil, true); err != nil {
				return 0, false
			}
			mm.setGammas()
		}
		idx, D := etaIndex(e)
		v, _ := lsEta(e.Mixed, idx, D, mm, func(k int) float64 { return e.Mixed[k].IOPS })
		return v, check.Finite(v)
	}
	d := make([]float64, len(c.Mixed)+2*len(c.Points))
	for j := range d {
		x, _ := figureAt(c, j)
		h := rel * x
		var vs [2]float64
		for side, dx := range [2]float64{h, -h} {
			e := withFigure(c, j, x+dx)
			v, ok := etaOf(e)
			if !ok {
				return nil
			}
			vs[side] = v
		}
		d[j] = (vs[0] - vs[1]) / (2 * h)
	}
	return d
}

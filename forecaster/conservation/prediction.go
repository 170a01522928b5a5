package conservation

import (
	"math"

	"github.com/storcast/storcast/forecaster/internal/check"
)

// sensStep is the relative step by which each figure is raised to take the
// max's elasticity with respect to it (a one-sided difference: the model
// is smooth in the figures, and 1e-4 keeps the error of the elasticity
// near 1e-4, far below the noise it multiplies).
const sensStep = 1e-4

// fitSensitivity prepares the prediction band (doc.go, "Calibration as a
// distribution"): one model per figure of c, that figure raised by
// sensStep and everything else decided as in m (the form across sizes; γ
// and η kept, or held at 0 where m's tests dropped them, by leaving out
// the mixed points m does not use: their elasticity is 0). The runs are
// left out of these models, so that no test runs again and a figure's
// step moves the model as the central one is used. Without two runs of
// any figure there is no noise estimate and nothing to prepare. A
// sensitivity model that cannot be built (figures at the edge of what the
// model accepts) leaves the band at the runs' ends alone: the band never
// makes a calibration fail that the model accepts.
func (m *Model) fitSensitivity(c Calibration) {
	if err := m.buildSensitivity(c); err != nil {
		m.sens, m.sensN, m.predT = nil, nil, 0
	}
}

func (m *Model) buildSensitivity(c Calibration) error {
	sigma, dof := poolNoise(c)
	if dof == 0 || !(sigma > 0) {
		return nil
	}
	gammaZero := len(m.gammas) > 0 && m.gammas[0].Test == GammaZero
	etaZero := m.eta != nil && m.eta.Test == GammaZero
	unused := func(p MixedPoint) bool { return p.mixedSize() && etaZero || !p.mixedSize() && gammaZero }
	// The figures without their runs, in figureAt's order (unused mixed
	// points are dropped per model, after withFigure has placed the step).
	base := c
	base.Points = append([]Point(nil), c.Points...)
	base.Mixed = append([]MixedPoint(nil), c.Mixed...)
	for i := range base.Points {
		base.Points[i].ReadRuns, base.Points[i].WriteRuns = nil, nil
	}
	for i := range base.Mixed {
		base.Mixed[i].Runs = nil
	}
	n := len(c.Mixed) + 2*len(c.Points)
	m.sens, m.sensN = make([]*Model, n), make([]float64, n)
	m.predT = tQuantile975(float64(dof)) * sigma
	for j := range n {
		x, runs := figureAt(c, j)
		m.sensN[j] = float64(max(runs, 1))
		if j < len(c.Mixed) && unused(c.Mixed[j]) {
			continue
		}
		e := withFigure(base, j, x*(1+sensStep))
		var mixed []MixedPoint
		for _, p := range e.Mixed {
			if !unused(p) {
				mixed = append(mixed, p)
			}
		}
		e.Mixed = mixed
		pm, err := buildModel(e, m.form.Used)
		if err != nil {
			return err
		}
		// Clamped as the band's ends are: a step of 1e-4 does not cross
		// the family's edge unless the central model sits on it.
		if pm.gammas, err = fitGammas(pm.cal, pm, nil, nil, true); err != nil {
			return err
		}
		pm.setGammas()
		if err := pm.fitEta(false, false, true); err != nil {
			return err
		}
		m.sens[j] = pm
	}
	return nil
}

// halfWidth is h = t₀.₉₇₅(ν)·σ·√(1 + Σ_j e_j²/n_j) for the max x of the
// central model, given ys[j], the max of sensitivity model j at the same
// point (skipped where that model is nil), whose elasticity is
// e_j = log(ys[j]/x) / log(1 + sensStep); NaN when one cannot answer
// (ys[j] not > 0).
func (m *Model) halfWidth(x float64, ys []float64) float64 {
	var v float64
	for j, y := range ys {
		if m.sens[j] == nil {
			continue
		}
		if !(y > 0) || !(x > 0) {
			return math.NaN()
		}
		e := math.Log(y/x) / math.Log1p(sensStep)
		v += e * e / m.sensN[j]
	}
	return m.predT * math.Sqrt(1+v)
}

// widen extends the band lo..hi of the max x to x·exp(∓h), where that is
// wider (h NaN or 0: unchanged).
func widen(x, h float64, lo, hi *float64) {
	if !(h > 0) || !check.Finite(h) {
		return
	}
	*lo = math.Min(*lo, x*math.Exp(-h))
	*hi = math.Max(*hi, x*math.Exp(h))
}

package queueing

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/storcast/storcast/forecaster/internal/check"
)

// UnmarshalJSON decodes a model persisted with encoding/json, validates it
// and rebuilds its curve: the residual bins are Kriged again and the grid
// tabulated by the code Fit uses, so a decoded model answers At, Curve and
// Knee exactly like the one that was saved (the grid itself, 3 × 1000
// values, is not stored).
func (m *Model) UnmarshalJSON(b []byte) error {
	type plain Model
	var d plain
	if err := json.Unmarshal(b, &d); err != nil {
		return err
	}
	dm := (*Model)(&d)
	if err := dm.validateDecoded(); err != nil {
		return fmt.Errorf("queueing: decoding model: %w", err)
	}
	dm.krigResidual()
	dm.buildGrid()
	if err := dm.checkGrid(); err != nil {
		return fmt.Errorf("queueing: decoding model: %w", err)
	}
	*m = *dm
	return nil
}

// validateDecoded checks the fields a decoded model rebuilds its curve from.
func (m *Model) validateDecoded() error {
	if m.Class != Open && m.Class != Closed {
		return fmt.Errorf("class %d is neither open (%d) nor closed (%d)", int(m.Class), int(Open), int(Closed))
	}
	if m.N < minSamples {
		return fmt.Errorf("n %d: a model is fitted to at least %d samples", m.N, minSamples)
	}
	if !check.Finite(m.XMax) || !(m.XMax > 0) {
		return fmt.Errorf("xMax %v must be finite and > 0", m.XMax)
	}
	if !check.Finite(m.Sigma) || m.Sigma < 0 {
		return fmt.Errorf("sigma %v must be finite and >= 0", m.Sigma)
	}
	if !check.Finite(m.UMax) || !check.Finite(m.AICOpen) || !check.Finite(m.AICClosed) {
		return fmt.Errorf("uMax %v, aicOpen %v, aicClosed %v must be finite", m.UMax, m.AICOpen, m.AICClosed)
	}
	if !(m.UMin >= 0 && m.UMin < 1) {
		return fmt.Errorf("uMin %v must be in [0, 1)", m.UMin)
	}
	o := m.Open
	if !check.Finite(o.L0) || !check.Finite(o.A) || o.L0 < 0 || o.A < 0 || !slices.Contains(openExponents, o.Q) {
		return fmt.Errorf("open shape l0 %v, a %v, q %v: l0 and a must be finite and >= 0, q one of %v", o.L0, o.A, o.Q, openExponents)
	}
	if m.Class == Closed {
		c := m.Closed
		if !(c.S > 0) || !check.Finite(c.S) || !(c.D >= 0) || !check.Finite(c.D) ||
			!(c.NMax > 0) || !check.Finite(c.NMax) || !(c.Capacity > 0) || !check.Finite(c.Capacity) {
			return fmt.Errorf("closed shape s %v, d %v, nMax %v, capacity %v: must be finite, s, nMax and capacity > 0, d >= 0", c.S, c.D, c.NMax, c.Capacity)
		}
	}
	if len(m.Residual) > residualBins {
		return fmt.Errorf("%d residual bins, at most %d", len(m.Residual), residualBins)
	}
	for i, r := range m.Residual {
		if !check.Finite(r.X) || !check.Finite(r.LogResidual) {
			return fmt.Errorf("residual bin %d (x %v, logResidual %v) is not finite", i, r.X, r.LogResidual)
		}
	}
	return m.Calibration.Validate()
}

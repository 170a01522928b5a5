package mlisp

import (
	"fmt"
	"math"
	"sort"
)

// calResidual is one held-out working-set sample scored against the curve of
// a model fitted below an internal split X': its relative distance beyond
// the split d = IOPS/X' − 1, the curve's mean and raw half-width (2σ) there,
// and the measured latency.
type calResidual struct {
	D, Mean, Half, Y float64
}

// calibrationSplits are the IOPS quantiles of the working set at which
// calibration splits it: fit below, score above.
var calibrationSplits = []float64{0.5, 0.7}

// calibrationResiduals refits the Kriging part of the model (trees on the
// signature columns, which is all the extrapolation reads) on the working-set
// samples below each split quantile and scores the samples above it. The
// signature is reused: finding it again would refit the CARTs on every
// counter.
func (m *Model) calibrationResiduals() ([]calResidual, []float64) {
	iops := make([]float64, len(m.Samples))
	for i, r := range m.Samples {
		iops[i] = r[0]
	}
	sort.Float64s(iops)
	var out []calResidual
	var splits []float64
	for _, q := range calibrationSplits {
		split := iops[int(q*float64(len(iops)-1))]
		sub := &Model{Signature: m.Signature, Options: m.Options}
		var held [][]float64
		for _, r := range m.Samples {
			if r[0] <= split {
				sub.Samples = append(sub.Samples, r)
				sub.MaxIOPS = math.Max(sub.MaxIOPS, r[0])
			} else {
				held = append(held, r)
			}
		}
		if len(sub.Samples) < m.Options.MinSamples || len(held) == 0 {
			continue
		}
		if err := sub.prepare(); err != nil {
			continue
		}
		c, err := sub.extrapolate(m.MaxIOPS)
		if err != nil {
			continue
		}
		splits = append(splits, sub.MaxIOPS)
		for _, r := range held {
			p, ok := c.At(r[0])
			if !ok {
				continue
			}
			out = append(out, calResidual{D: r[0]/sub.MaxIOPS - 1, Mean: p.Mean, Half: p.RawUpper - p.Mean, Y: r[1]})
		}
	}
	return out, splits
}

// Calibration widens the Kriging band so that it covers held-out
// extrapolation at its nominal 95% (split conformal calibration by load; the
// math is in doc.go). At relative distance d = IOPS/X − 1 beyond X, with
// mean μ and raw band [RawLower, RawUpper]:
//
//	s(d)  = Epsilon + d²
//	Upper = max(RawUpper, μ·exp(UpperQ·s(d)))
//	Lower = max(0, min(RawLower, μ·exp(LowerQ·s(d))))
//
// UpperQ and LowerQ are the 97.5% and 2.5% conformal quantiles of the scores
// log(measured/μ)/s(d) of the working-set samples held out above each split.
type Calibration struct {
	// Splits are the IOPS X' below which the calibration models were fitted.
	Splits []float64 `json:"splits"`
	// Residuals is the number of held-out samples scored.
	Residuals int     `json:"residuals"`
	Epsilon   float64 `json:"epsilon"`
	UpperQ    float64 `json:"upper_q"`
	LowerQ    float64 `json:"lower_q"`
}

// calibrationEpsilon is ε of s(d) = ε + d²: the score's scale at the split,
// where the error is measurement noise rather than extrapolation bias.
const calibrationEpsilon = 0.1

// minCalibrationResiduals is the fewest held-out samples a calibration needs.
const minCalibrationResiduals = 20

func (cal *Calibration) scale(d float64) float64 {
	d = math.Max(d, 0)
	return cal.Epsilon + d*d
}

// calibrate fits the Calibration from the model's own working set; nil when
// too few samples could be scored (the raw band is then used).
func (m *Model) calibrate() *Calibration {
	res, splits := m.calibrationResiduals()
	d := make([]float64, len(res))
	mean := make([]float64, len(res))
	y := make([]float64, len(res))
	for i, r := range res {
		d[i], mean[i], y[i] = r.D, r.Mean, r.Y
	}
	return NewCalibration(splits, d, mean, y)
}

// NewCalibration is the split-conformal calibration from held-out residuals:
// sample i was held out beyond a split at relative distance d[i] along the
// extrapolation axis, predicted mean[i] by the model fitted below the split,
// and measured y[i]. Samples with a non-positive mean or measurement are
// skipped. It returns nil when fewer than 20 samples remain. Package
// queueing calibrates its band with it too (distance along utilization).
func NewCalibration(splits, d, mean, y []float64) *Calibration {
	cal := &Calibration{Splits: splits, Epsilon: calibrationEpsilon}
	var scores []float64
	for i := range d {
		if !(mean[i] > 0) || !(y[i] > 0) {
			continue
		}
		scores = append(scores, math.Log(y[i]/mean[i])/cal.scale(d[i]))
	}
	if len(scores) < minCalibrationResiduals {
		return nil
	}
	sort.Float64s(scores)
	cal.Residuals = len(scores)
	cal.UpperQ = conformalQuantile(scores, 0.975)
	cal.LowerQ = -conformalQuantile(negated(scores), 0.975)
	return cal
}

// Band is the calibrated band around a mean μ > 0 at relative distance d
// beyond the training range: μ·exp(LowerQ·s(d)) and μ·exp(UpperQ·s(d)),
// s(d) = Epsilon + max(d, 0)². It is positive whenever μ is.
func (cal *Calibration) Band(mean, d float64) (lower, upper float64) {
	s := cal.scale(d)
	return mean * math.Exp(cal.LowerQ*s), mean * math.Exp(cal.UpperQ*s)
}

// conformalQuantile is the split-conformal quantile of the ascending scores:
// the ⌈(n+1)·p⌉-th smallest, clamped to the largest.
func conformalQuantile(sorted []float64, p float64) float64 {
	n := len(sorted)
	k := int(math.Ceil(float64(n+1)*p)) - 1
	return sorted[min(max(k, 0), n-1)]
}

// negated returns −v in ascending order, for v ascending.
func negated(v []float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[len(v)-1-i] = -x
	}
	return out
}

// apply replaces the band of c's extrapolated points by the calibrated band
// (the raw band stays in RawLower/RawUpper); x is the model's X.
func (cal *Calibration) apply(c *Curve, x float64) {
	if cal == nil {
		return
	}
	for k := range c.Points {
		p := &c.Points[k]
		if !(p.Mean > 0) {
			continue
		}
		lo, hi := cal.Band(p.Mean, p.IOPS/x-1)
		p.Upper = math.Max(p.RawUpper, hi)
		p.Lower = math.Max(0, math.Min(p.RawLower, lo))
	}
}

// Validate checks a decoded calibration: finite quantiles, Epsilon > 0,
// LowerQ <= UpperQ; nil is valid (no calibration).
func (cal *Calibration) Validate() error {
	if cal == nil {
		return nil
	}
	for _, v := range []float64{cal.Epsilon, cal.UpperQ, cal.LowerQ} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("calibration: non-finite value %v", v)
		}
	}
	if !(cal.Epsilon > 0) {
		return fmt.Errorf("calibration: epsilon %v must be > 0", cal.Epsilon)
	}
	if cal.LowerQ > cal.UpperQ {
		return fmt.Errorf("calibration: lower_q %v above upper_q %v", cal.LowerQ, cal.UpperQ)
	}
	return nil
}

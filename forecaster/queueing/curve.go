package queueing

import (
	"errors"
	"math"
	"sort"

	"github.com/storcast/storcast/forecaster/internal/check"
	"github.com/storcast/storcast/forecaster/mlisp"
)

// Point is the forecast at one utilization. At or past capacity
// (U ≥ 1 − AtCapacity) Saturated is true and Mean, Lower and Upper are +Inf: no finite latency is
// promised there.
type Point struct {
	U         float64 `json:"u"`
	Mean      float64 `json:"mean"`
	Lower     float64 `json:"lower"`
	Upper     float64 `json:"upper"`
	Saturated bool    `json:"saturated"`
}

// AtCapacity is how close to 1 a utilization counts as capacity: a U
// computed back from a max IOPS that was itself solved from U = 1 comes out
// 1 only up to rounding (1 − 1e-16, say), and a what-if at the max must
// report saturation, not the steep end of the curve.
const AtCapacity = 1e-9

// At is the mean latency and its 95% band at utilization u (linear in u
// between the 1000 grid points of [0, 1)); saturated from 1 − AtCapacity
// on. u must be finite and ≥ 0.
func (m *Model) At(u float64) (Point, error) {
	if !check.Finite(u) || u < 0 {
		return Point{}, inputError("u", "must be finite and >= 0, got %v", u)
	}
	if err := m.fitted(); err != nil {
		return Point{}, err
	}
	if u >= 1-AtCapacity {
		inf := math.Inf(1)
		return Point{U: u, Mean: inf, Lower: inf, Upper: inf, Saturated: true}, nil
	}
	x := u * gridN
	k := min(int(x), gridN-1)
	f := x - float64(k)
	if k+1 >= gridN {
		// Between the last grid point and capacity: hold it (the curve
		// stops at capacity).
		f = 0
	}
	lin := func(v []float64) float64 {
		if f == 0 {
			return v[k]
		}
		return v[k]*(1-f) + v[k+1]*f
	}
	return Point{U: u, Mean: lin(m.grid), Lower: lin(m.lo), Upper: lin(m.up)}, nil
}

// Curve returns the forecast at steps+1 utilizations evenly spaced on
// [0, 1]; the last is capacity, Saturated. steps must be ≥ 1.
func (m *Model) Curve(steps int) ([]Point, error) {
	if steps < 1 {
		return nil, inputError("steps", "must be >= 1, got %d", steps)
	}
	out := make([]Point, steps+1)
	for i := range out {
		p, err := m.At(float64(i) / float64(steps))
		if err != nil {
			return nil, err
		}
		out[i] = p
	}
	return out, nil
}

// ErrNotFitted is returned by a Model that came neither from Fit nor from
// decoding a fitted model's JSON (a zero value, say).
var ErrNotFitted = errors.New("queueing: model not fitted; call Fit")

func (m *Model) fitted() error {
	if m == nil || len(m.grid) != gridN || len(m.up) != gridN || len(m.lo) != gridN {
		return ErrNotFitted
	}
	return nil
}

// Knee is the lowest utilization at which the upper band reaches slo
// (seconds), interpolated between grid points; ok is false (and u NaN) when
// the upper band stays below slo all the way to capacity. By construction
// u < 1: the curve stops at capacity, so no knee beyond it is ever
// promised. slo must be finite and > 0.
func (m *Model) Knee(slo float64) (u float64, ok bool, err error) {
	if !check.Finite(slo) || !(slo > 0) {
		return math.NaN(), false, inputError("slo", "must be finite and > 0, got %v", slo)
	}
	if err := m.fitted(); err != nil {
		return math.NaN(), false, err
	}
	k := sort.SearchFloat64s(m.up, slo)
	if k >= gridN {
		return math.NaN(), false, nil
	}
	if k == 0 {
		return 0, true, nil
	}
	a, b := m.up[k-1], m.up[k]
	f := 1.0
	if b > a {
		f = (slo - a) / (b - a)
	}
	return (float64(k-1) + f) / gridN, true, nil
}

// calibrationSplits are the utilization quantiles at which the calibration
// fits below and scores above (the splits of package mlisp).
var calibrationSplits = []float64{0.5, 0.7}

// calibrate refits the model of the same class below each split of the
// class's axis and scores the samples above it, at relative distance
// d = x/x' − 1 beyond the split x', then hands the residuals to
// mlisp.NewCalibration.
func (m *Model) calibrate(samples []Sample) *mlisp.Calibration {
	xs := make([]float64, 0, len(samples))
	for _, s := range samples {
		if m.Class == Closed || s.U < 1 {
			xs = append(xs, m.axis(s))
		}
	}
	sort.Float64s(xs)
	var splits, d, mean, y []float64
	for _, q := range calibrationSplits {
		split := xs[int(q*float64(len(xs)-1))]
		var below []Sample
		for _, s := range samples {
			if m.axis(s) <= split {
				below = append(below, s)
			}
		}
		sub, err := Fit(below, Options{Class: m.Class, NoCalibration: true})
		if err != nil || !(sub.XMax > 0) {
			continue
		}
		splits = append(splits, sub.XMax)
		for _, s := range samples {
			x := m.axis(s)
			if x <= split || (m.Class != Closed && s.U >= 1) {
				continue
			}
			// The sub-model's own curve beyond its range, read on its axis
			// (for closed loop the MVA shape extends past its NMax).
			d = append(d, x/sub.XMax-1)
			mean = append(mean, sub.extrapolateAt(x))
			y = append(y, s.Latency)
		}
	}
	return mlisp.NewCalibration(splits, d, mean, y)
}

// extrapolateAt is the mean at axis value x, beyond the fitted range too.
func (m *Model) extrapolateAt(x float64) float64 {
	if m.Class == Closed {
		return m.Closed.S * interp(m.Closed.table(), x) * math.Exp(m.krigAt(x))
	}
	return m.meanAt(x)
}

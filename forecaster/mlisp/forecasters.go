package mlisp

import (
	"fmt"
	"math"

	"github.com/storcast/storcast/forecaster/backtest"
)

// Forecaster adapts M-LISP to backtest.Forecaster. Window.Load is the IOPS
// counter, Window.Target the latency counter and Window.Features the other
// counters, named by Names (generated as "c0", "c1", … when nil). At predict
// time only the load is used: the curve is extrapolated from the highest
// training IOPS to the highest queried load. The band of the estimates is
// the calibrated one (Point.Lower/Upper) unless RawBand selects the paper's
// uncalibrated Kriging band (Point.RawLower/RawUpper).
type Forecaster struct {
	Names   []string
	Options Options
	RawBand bool
}

// Name implements backtest.Forecaster.
func (Forecaster) Name() string { return "mlisp" }

// Fit implements backtest.Forecaster.
func (f Forecaster) Fit(train []backtest.Window) (backtest.Predictor, error) {
	if len(train) == 0 {
		return nil, inputError("train", "empty")
	}
	nf := len(train[0].Features)
	names := f.Names
	if names == nil {
		for j := 0; j < nf; j++ {
			names = append(names, fmt.Sprintf("c%d", j))
		}
	}
	if len(names) != nf {
		return nil, inputError("Names", "%d names for %d features", len(names), nf)
	}
	d := Dataset{IOPS: "__iops", Latency: "__latency"}
	d.Names = append([]string{d.IOPS, d.Latency}, names...)
	d.Columns = make([][]float64, nf+2)
	for j := range d.Columns {
		d.Columns[j] = make([]float64, len(train))
	}
	for t, w := range train {
		if len(w.Features) != nf {
			return nil, inputError("train", "window %d has %d features, want %d", t, len(w.Features), nf)
		}
		d.Columns[0][t] = w.Load
		d.Columns[1][t] = w.Target
		for j, v := range w.Features {
			d.Columns[j+2][t] = v
		}
	}
	m, err := Fit(d, f.Options)
	if err != nil {
		return nil, err
	}
	return curvePredictor{m, f.RawBand}, nil
}

type curvePredictor struct {
	m   *Model
	raw bool
}

func (p curvePredictor) Predict(test []backtest.Window) ([]backtest.Estimate, error) {
	to := p.m.MaxIOPS
	for _, w := range test {
		to = math.Max(to, w.Load)
	}
	curve := p.m.Curve
	if last := curve.Points[len(curve.Points)-1].IOPS; to > last {
		var err error
		if curve, err = p.m.Extrapolate(to); err != nil {
			return nil, err
		}
	}
	out := make([]backtest.Estimate, len(test))
	for i, w := range test {
		pt, ok := curve.At(w.Load)
		if !ok {
			return nil, inputError("test", "window %d load %v is outside the curve", i, w.Load)
		}
		out[i] = backtest.Estimate{Mean: pt.Mean, Lower: pt.Lower, Upper: pt.Upper}
		if p.raw {
			out[i].Lower, out[i].Upper = pt.RawLower, pt.RawUpper
		}
	}
	return out, nil
}

// BASILForecaster adapts LinearOIO to backtest.Forecaster (no band).
type BASILForecaster struct{}

// Name implements backtest.Forecaster.
func (BASILForecaster) Name() string { return "basil" }

// Fit implements backtest.Forecaster.
func (BASILForecaster) Fit(train []backtest.Window) (backtest.Predictor, error) {
	x, y := loadTarget(train)
	m, err := FitLinearOIO(x, y)
	if err != nil {
		return nil, err
	}
	return funcPredictor(m.Latency), nil
}

// QueueingForecaster adapts Queueing to backtest.Forecaster (no band).
type QueueingForecaster struct{}

// Name implements backtest.Forecaster.
func (QueueingForecaster) Name() string { return "queueing" }

// Fit implements backtest.Forecaster.
func (QueueingForecaster) Fit(train []backtest.Window) (backtest.Predictor, error) {
	x, y := loadTarget(train)
	m, err := FitQueueing(x, y)
	if err != nil {
		return nil, err
	}
	return funcPredictor(m.Latency), nil
}

func loadTarget(ws []backtest.Window) (x, y []float64) {
	x = make([]float64, len(ws))
	y = make([]float64, len(ws))
	for i, w := range ws {
		x[i], y[i] = w.Load, w.Target
	}
	return x, y
}

type funcPredictor func(float64) float64

func (f funcPredictor) Predict(test []backtest.Window) ([]backtest.Estimate, error) {
	out := make([]backtest.Estimate, len(test))
	for i, w := range test {
		out[i] = backtest.Estimate{Mean: f(w.Load), Lower: math.NaN(), Upper: math.NaN()}
	}
	return out, nil
}

var (
	_ backtest.Forecaster = Forecaster{}
	_ backtest.Forecaster = BASILForecaster{}
	_ backtest.Forecaster = QueueingForecaster{}
)

package queueing

import (
	"math"

	"github.com/storcast/storcast/forecaster/backtest"
)

// Forecaster adapts the model to package backtest: Window.Load is the
// throughput (IOPS), Window.Target the latency and Window.Features[UColumn]
// the frontier utilization U. Predictions at U ≥ 1 are saturated (+Inf,
// Estimate.Saturated: the backtest does not score them as latencies). A
// window without features (backtest.Run's centre of a load bin no observed
// window fell in) has no U to read the curve at: its estimate is NaN, as
// that bin's measurement is.
type Forecaster struct {
	UColumn int
	Options Options
}

// Name implements backtest.Forecaster.
func (Forecaster) Name() string { return "queueing" }

// Fit implements backtest.Forecaster.
func (f Forecaster) Fit(train []backtest.Window) (backtest.Predictor, error) {
	samples := make([]Sample, len(train))
	for i, w := range train {
		if f.UColumn < 0 || f.UColumn >= len(w.Features) {
			return nil, inputError("train", "window %d has no feature column %d (U)", i, f.UColumn)
		}
		samples[i] = Sample{U: w.Features[f.UColumn], Throughput: w.Load, Latency: w.Target}
	}
	m, err := Fit(samples, f.Options)
	if err != nil {
		return nil, err
	}
	return predictor{m, f.UColumn}, nil
}

type predictor struct {
	m   *Model
	col int
}

func (p predictor) Predict(test []backtest.Window) ([]backtest.Estimate, error) {
	out := make([]backtest.Estimate, len(test))
	for i, w := range test {
		if w.Features == nil {
			out[i] = backtest.Estimate{Mean: math.NaN(), Lower: math.NaN(), Upper: math.NaN()}
			continue
		}
		if p.col >= len(w.Features) {
			return nil, inputError("test", "window %d has no feature column %d (U)", i, p.col)
		}
		pt, err := p.m.At(math.Max(w.Features[p.col], 0))
		if err != nil {
			return nil, err
		}
		out[i] = backtest.Estimate{Mean: pt.Mean, Lower: pt.Lower, Upper: pt.Upper, Saturated: pt.Saturated}
	}
	return out, nil
}

var _ backtest.Forecaster = Forecaster{}

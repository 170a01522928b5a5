package backtest_test

import (
	"fmt"
	"math"

	"github.com/storcast/storcast/forecaster/backtest"
)

// lineModel extrapolates the straight line through the first and last
// training windows.
type lineModel struct{}

func (lineModel) Name() string { return "line" }

func (lineModel) Fit(train []backtest.Window) (backtest.Predictor, error) {
	a, b := train[0], train[len(train)-1]
	slope := (b.Target - a.Target) / (b.Load - a.Load)
	return linePredictor{a.Load, a.Target, slope}, nil
}

type linePredictor struct{ x0, y0, slope float64 }

func (p linePredictor) Predict(test []backtest.Window) ([]backtest.Estimate, error) {
	out := make([]backtest.Estimate, len(test))
	for i, w := range test {
		out[i] = backtest.Estimate{Mean: p.y0 + p.slope*(w.Load-p.x0), Lower: math.NaN(), Upper: math.NaN()}
	}
	return out, nil
}

// Backtest a straight line against a latency curve that bends upward:
// trained below 500 IOPS, scored above it. By hand: the line through
// (50, 2.0513) and (450, 2.5806) gives 2.978 at 750 IOPS, where the curve
// is 2/(1 − 0.375) = 3.2.
func ExampleRun() {
	var data []backtest.Window
	for x := 50.0; x <= 1000; x += 50 {
		data = append(data, backtest.Window{Load: x, Target: 2 / (1 - x/2000)})
	}
	r, err := backtest.Run(lineModel{}, data, 500, backtest.Options{Multiples: []float64{1.5, 2}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("trained on %d windows, scored %d: accuracy %.3f\n", r.Train, r.Test, r.Accuracy)
	for _, a := range r.AtMultiples {
		fmt.Printf("%.1fx (%v IOPS): measured %.3f, predicted %.3f, error %.1f%%\n", a.Multiple, a.Load, a.Measured, a.Predicted, 100*a.Error)
	}
	// Output:
	// trained on 9 windows, scored 10: accuracy 0.915
	// 1.5x (750 IOPS): measured 3.200, predicted 2.978, error 6.9%
	// 2.0x (1000 IOPS): measured 4.000, predicted 3.309, error 17.3%
}

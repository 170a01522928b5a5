package backtest

import (
	"fmt"
	"math"

	"github.com/storcast/storcast/forecaster/regress"
)

// Window is one observed time window.
type Window struct {
	// Load is the value the split is made on: total IOPS for M-LISP and the
	// latency baselines.
	Load float64 `json:"load"`
	// Features are the other inputs a model may use (counters aligned by
	// column; nil when the model needs only Load).
	Features []float64 `json:"features,omitempty"`
	// Target is the measured value the model predicts (latency for M-LISP).
	Target float64 `json:"target"`
}

// Estimate is a model's prediction for one window. Models without a band set
// Lower and Upper to NaN. Saturated says the model answers that the system
// is at or past its capacity there, where by its contract it gives no
// finite forecast (the capacity-anchored latency model at U ≥ 1): Run does
// not score such a window, it counts it (Report.Saturated). An infinite Mean
// without Saturated is scored, as the infinite error it is.
type Estimate struct {
	Mean      float64 `json:"mean"`
	Lower     float64 `json:"lower"`
	Upper     float64 `json:"upper"`
	Saturated bool    `json:"saturated,omitempty"`
}

// HasBand reports whether the estimate carries a band.
func (e Estimate) HasBand() bool { return !math.IsNaN(e.Lower) && !math.IsNaN(e.Upper) }

// Forecaster is a model under test: Fit trains on windows below the split.
type Forecaster interface {
	// Name labels the model in reports ("mlisp", "basil", "queueing").
	Name() string
	Fit(train []Window) (Predictor, error)
}

// Predictor is a fitted model. Predict gets every window to score at once, so
// that an extrapolating model can size its horizon to the largest load; it
// returns one estimate per window, in order. Test windows carry their
// measured features (a model may use them) and their Target, which a
// predictor must not read.
type Predictor interface {
	Predict(test []Window) ([]Estimate, error)
}

// Options tunes Run. The zero value selects the defaults.
type Options struct {
	// Multiples of the split load at which errors are reported. Default
	// 1.25, 1.5, 1.75, 2 (the paper's Table 4 steps for WL1 trained to 800).
	Multiples []float64
	// BinHalfWidth is the half width, as a fraction of the split load, of
	// the bin of observed windows averaged for the measured value at a
	// multiple: windows with |Load − m·X| ≤ BinHalfWidth·X. Default 0.05
	// (the paper averaged 950–1050 IOPS for 1000).
	BinHalfWidth float64
	// MinTrain is the smallest number of training windows. Default 3 (the
	// models enforce their own minimums).
	MinTrain int
}

func (o Options) withDefaults() Options {
	if len(o.Multiples) == 0 {
		o.Multiples = []float64{1.25, 1.5, 1.75, 2}
	}
	if o.BinHalfWidth <= 0 {
		o.BinHalfWidth = 0.05
	}
	if o.MinTrain <= 0 {
		o.MinTrain = 3
	}
	return o
}

// AtMultiple is the error at one load multiple of the split.
type AtMultiple struct {
	Multiple float64 `json:"multiple"`
	Load     float64 `json:"load"` // Multiple · Split
	// N is the number of observed windows in the bin around Load; Measured
	// is their mean target (NaN when N = 0, and then Error is NaN too).
	N         int     `json:"n"`
	Measured  float64 `json:"measured"`
	Predicted float64 `json:"predicted"`
	Lower     float64 `json:"lower"` // NaN for models without a band
	Upper     float64 `json:"upper"`
	// Error is |Predicted − Measured| / Measured.
	Error float64 `json:"error"`
}

// Report is the outcome of one backtest.
type Report struct {
	Model string  `json:"model"`
	Split float64 `json:"split"` // X: trained on Load < X, scored on Load > X
	Train int     `json:"train"` // training windows
	Test  int     `json:"test"`  // windows above the split
	// Saturated counts the windows above the split the model answered
	// saturated (Estimate.Saturated): whether the system was at capacity
	// there is the capacity model's claim to be scored, not this model's,
	// and it makes no latency claim to check. The rest are scored.
	Saturated int `json:"saturated"`
	// MAPE over every scored window, and Accuracy = max(1 − MAPE, 0).
	MAPE     float64 `json:"mape"`
	Accuracy float64 `json:"accuracy"`
	// Coverage is the fraction of scored windows whose target lies inside
	// the predicted band; NaN for models without a band.
	Coverage    float64      `json:"coverage"`
	AtMultiples []AtMultiple `json:"at_multiples"`
}

// Run is the project's extrapolation backtest: it fits model on the
// windows with Load < split, predicts every window with Load > split and the
// bin centres m·split, and scores them with error = |pred − meas| / meas.
//
// The bin-centre windows passed to Predict have Load = m·split, Features = the
// mean features of the observed windows in the bin (nil when the bin is empty
// or windows have no features) and Target = NaN.
//
// Errors: an empty or non-finite data set, a split that is not positive and
// finite, fewer than opt.MinTrain windows below the split, no window above it,
// a non-positive measured target among the scored windows, every window above
// the split answered saturated (nothing to score), or the model's own
// fit or predict error (wrapped with the model's name).
func Run(model Forecaster, data []Window, split float64, opt Options) (*Report, error) {
	if model == nil {
		return nil, fmt.Errorf("%w: model: nil", regress.ErrInput)
	}
	opt = opt.withDefaults()
	if err := checkWindows(data); err != nil {
		return nil, err
	}
	if split <= 0 || math.IsNaN(split) || math.IsInf(split, 0) {
		return nil, fmt.Errorf("%w: split: must be positive and finite, got %v", regress.ErrInput, split)
	}
	for _, m := range opt.Multiples {
		if !(m > 0) || math.IsInf(m, 0) {
			return nil, fmt.Errorf("%w: Multiples: %v is not a positive finite number", regress.ErrInput, m)
		}
	}
	var train, test []Window
	for _, w := range data {
		switch {
		case w.Load < split:
			train = append(train, w)
		case w.Load > split:
			test = append(test, w)
		}
	}
	if len(train) < opt.MinTrain {
		return nil, fmt.Errorf("%w: data: %d windows below the split %v, need at least %d", regress.ErrInput, len(train), split, opt.MinTrain)
	}
	if len(test) == 0 {
		return nil, fmt.Errorf("%w: data: no window above the split %v to score", regress.ErrInput, split)
	}
	for i, w := range test {
		if w.Target <= 0 {
			return nil, fmt.Errorf("%w: data: scored window %d (load %v) has target %v; the relative error needs a positive measured value", regress.ErrInput, i, w.Load, w.Target)
		}
	}
	pred, err := model.Fit(train)
	if err != nil {
		return nil, fmt.Errorf("backtest %s: fit: %w", model.Name(), err)
	}

	// Bin centres for the per-multiple errors.
	centres := make([]Window, len(opt.Multiples))
	counts := make([]int, len(opt.Multiples))
	measured := make([]float64, len(opt.Multiples))
	for k, m := range opt.Multiples {
		load := m * split
		var sum float64
		var feat []float64
		for _, w := range data {
			if math.Abs(w.Load-load) <= opt.BinHalfWidth*split && w.Load > split {
				counts[k]++
				sum += w.Target
				if w.Features != nil {
					if feat == nil {
						feat = make([]float64, len(w.Features))
					}
					for j, v := range w.Features {
						feat[j] += v
					}
				}
			}
		}
		measured[k] = math.NaN()
		if counts[k] > 0 {
			measured[k] = sum / float64(counts[k])
			for j := range feat {
				feat[j] /= float64(counts[k])
			}
		}
		centres[k] = Window{Load: load, Features: feat, Target: math.NaN()}
	}

	// Hide targets from the model.
	query := make([]Window, 0, len(test)+len(centres))
	for _, w := range test {
		w.Target = math.NaN()
		query = append(query, w)
	}
	query = append(query, centres...)
	est, err := pred.Predict(query)
	if err != nil {
		return nil, fmt.Errorf("backtest %s: predict: %w", model.Name(), err)
	}
	if len(est) != len(query) {
		return nil, fmt.Errorf("backtest %s: predict returned %d estimates for %d windows", model.Name(), len(est), len(query))
	}

	r := &Report{Model: model.Name(), Split: split, Train: len(train), Test: len(test)}
	var sumErr float64
	inBand, banded := 0, 0
	for i, w := range test {
		e := est[i]
		if e.Saturated {
			r.Saturated++
			continue
		}
		sumErr += math.Abs(e.Mean-w.Target) / w.Target
		if e.HasBand() {
			banded++
			if w.Target >= e.Lower && w.Target <= e.Upper {
				inBand++
			}
		}
	}
	scored := len(test) - r.Saturated
	if scored == 0 {
		return nil, fmt.Errorf("%w: data: %s answered all %d windows above the split %v saturated: no forecast to score", regress.ErrInput, model.Name(), len(test), split)
	}
	r.MAPE = sumErr / float64(scored)
	if math.IsNaN(r.MAPE) {
		r.MAPE = math.Inf(1)
	}
	r.Accuracy = regress.Accuracy(r.MAPE)
	r.Coverage = math.NaN()
	if banded == scored {
		r.Coverage = float64(inBand) / float64(banded)
	}
	for k, m := range opt.Multiples {
		e := est[len(test)+k]
		am := AtMultiple{
			Multiple: m, Load: m * split, N: counts[k], Measured: measured[k],
			Predicted: e.Mean, Lower: e.Lower, Upper: e.Upper, Error: math.NaN(),
		}
		if counts[k] > 0 {
			am.Error = math.Abs(e.Mean-measured[k]) / measured[k]
		}
		r.AtMultiples = append(r.AtMultiples, am)
	}
	return r, nil
}

func checkWindows(data []Window) error {
	if len(data) == 0 {
		return fmt.Errorf("%w: data: empty", regress.ErrInput)
	}
	nf := len(data[0].Features)
	for i, w := range data {
		if math.IsNaN(w.Load) || math.IsInf(w.Load, 0) {
			return fmt.Errorf("%w: data: window %d has load %v", regress.ErrInput, i, w.Load)
		}
		if math.IsNaN(w.Target) || math.IsInf(w.Target, 0) {
			return fmt.Errorf("%w: data: window %d has target %v", regress.ErrInput, i, w.Target)
		}
		if len(w.Features) != nf {
			return fmt.Errorf("%w: data: window %d has %d features, window 0 has %d", regress.ErrInput, i, len(w.Features), nf)
		}
		for j, v := range w.Features {
			if math.IsInf(v, 0) {
				return fmt.Errorf("%w: data: window %d feature %d is %v", regress.ErrInput, i, j, v)
			}
		}
	}
	return nil
}

package backtest

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/storcast/storcast/forecaster/regress"
)

// funcModel predicts f(load), with a ±band when band > 0, and records what
// it was trained on and asked.
type funcModel struct {
	f     func(float64) float64
	band  float64
	train []Window
	asked []Window
}

func (m *funcModel) Name() string { return "func" }
func (m *funcModel) Fit(train []Window) (Predictor, error) {
	m.train = train
	return m, nil
}
func (m *funcModel) Predict(test []Window) ([]Estimate, error) {
	m.asked = test
	out := make([]Estimate, len(test))
	for i, w := range test {
		v := m.f(w.Load)
		out[i] = Estimate{Mean: v, Lower: math.NaN(), Upper: math.NaN()}
		if m.band > 0 {
			out[i].Lower, out[i].Upper = v-m.band, v+m.band
		}
	}
	return out, nil
}

func linearData() []Window {
	var ws []Window
	for x := 10.0; x <= 300; x += 10 {
		ws = append(ws, Window{Load: x, Target: 1 + x/100, Features: []float64{x / 2}})
	}
	return ws
}

// An oracle scores zero error, and the split, the bins and the hidden
// targets are as documented.
func TestRunOracle(t *testing.T) {
	truth := func(x float64) float64 { return 1 + x/100 }
	m := &funcModel{f: truth, band: 0.01}
	r, err := Run(m, linearData(), 100, Options{Multiples: []float64{1.5, 2, 4}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Train != 9 || r.Test != 20 || r.Split != 100 {
		t.Errorf("train %d test %d split %v, want 9 (10..90), 20 (110..300), 100", r.Train, r.Test, r.Split)
	}
	for _, w := range m.train {
		if w.Load >= 100 {
			t.Errorf("training window at load %v ≥ split", w.Load)
		}
	}
	for _, w := range m.asked {
		if !math.IsNaN(w.Target) {
			t.Fatalf("the model was shown a target (%v)", w.Target)
		}
	}
	if r.MAPE > 1e-12 || r.Accuracy != 1 || r.Coverage != 1 {
		t.Errorf("oracle: MAPE %v accuracy %v coverage %v", r.MAPE, r.Accuracy, r.Coverage)
	}
	// Bins of ±5 around 150 and 200 hold exactly one window each (150, 200);
	// nothing is observed around 400.
	a := r.AtMultiples
	if a[0].N != 1 || a[0].Measured != 2.5 || a[0].Error > 1e-12 || a[1].N != 1 || a[1].Load != 200 {
		t.Errorf("bins %+v", a[:2])
	}
	if a[2].N != 0 || !math.IsNaN(a[2].Error) || a[2].Predicted != 5 {
		t.Errorf("empty bin %+v", a[2])
	}
	// The bin centre carries the mean features of its bin.
	if c := m.asked[len(m.asked)-3]; c.Load != 150 || len(c.Features) != 1 || c.Features[0] != 75 {
		t.Errorf("bin centre window %+v", c)
	}
}

// Hand-computed errors of a model that predicts a constant 2.
func TestRunConstantModel(t *testing.T) {
	ws := []Window{}
	for _, x := range []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10} {
		ws = append(ws, Window{Load: x, Target: 1})
	}
	ws = append(ws, Window{Load: 12, Target: 4}, Window{Load: 13, Target: 2})
	r, err := Run(&funcModel{f: func(float64) float64 { return 2 }}, ws, 10, Options{Multiples: []float64{1.2}, BinHalfWidth: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	// Errors: |2−4|/4 = 0.5, |2−2|/2 = 0 → MAPE 0.25; bin 11.5..12.5 holds 12.
	if r.Test != 2 || math.Abs(r.MAPE-0.25) > 1e-12 || r.Accuracy != 0.75 {
		t.Errorf("report %+v", r)
	}
	if !math.IsNaN(r.Coverage) {
		t.Errorf("a model without a band has coverage %v, want NaN", r.Coverage)
	}
	if a := r.AtMultiples[0]; a.N != 1 || a.Measured != 4 || a.Error != 0.5 {
		t.Errorf("at 1.2×: %+v", a)
	}
}

// saturatingModel answers saturated (+Inf, Estimate.Saturated) at and
// past load cap and f(load) below it, as the capacity-anchored latency
// model does at U ≥ 1.
type saturatingModel struct {
	f   func(float64) float64
	cap float64
}

func (m saturatingModel) Name() string                    { return "saturating" }
func (m saturatingModel) Fit([]Window) (Predictor, error) { return m, nil }
func (m saturatingModel) Predict(test []Window) ([]Estimate, error) {
	out := make([]Estimate, len(test))
	for i, w := range test {
		v := m.f(w.Load)
		out[i] = Estimate{Mean: v, Lower: v / 2, Upper: 2 * v}
		if w.Load >= m.cap {
			inf := math.Inf(1)
			out[i] = Estimate{Mean: inf, Lower: inf, Upper: inf, Saturated: true}
		}
	}
	return out, nil
}

// A window answered saturated is counted, not scored: one saturated
// window among the scored ones no longer drives the accuracy to 0 (the
// exporter served the capacity-anchored latency model's accuracy as 0 for
// any history that reached capacity). A model answering every window
// saturated has nothing to score; an infinite mean without Saturated is
// still scored as the infinite error it is.
func TestRunSaturatedWindowsAreCountedNotScored(t *testing.T) {
	truth := func(x float64) float64 { return 1 + x/100 }
	r, err := Run(saturatingModel{f: truth, cap: 300}, linearData(), 100, Options{Multiples: []float64{1.5}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Test != 20 || r.Saturated != 1 || r.MAPE > 1e-12 || r.Accuracy != 1 || r.Coverage != 1 {
		t.Errorf("one window at capacity: test %d saturated %d MAPE %v accuracy %v coverage %v; want 20, 1, 0, 1, 1",
			r.Test, r.Saturated, r.MAPE, r.Accuracy, r.Coverage)
	}
	_, err = Run(saturatingModel{f: truth, cap: 100}, linearData(), 100, Options{Multiples: []float64{1.5}})
	if !errors.Is(err, regress.ErrInput) || !strings.Contains(err.Error(), "answered all 20 windows above the split 100 saturated") {
		t.Errorf("every window saturated: err %v, want an input error saying nothing was scored", err)
	}
	inf := &funcModel{f: func(x float64) float64 {
		if x >= 300 {
			return math.Inf(1)
		}
		return truth(x)
	}}
	r, err = Run(inf, linearData(), 100, Options{Multiples: []float64{1.5}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Saturated != 0 || !math.IsInf(r.MAPE, 1) || r.Accuracy != 0 {
		t.Errorf("an infinite forecast not marked saturated: saturated %d MAPE %v accuracy %v; want 0, +Inf, 0", r.Saturated, r.MAPE, r.Accuracy)
	}
}

type failing struct{ fit bool }

func (f failing) Name() string { return "failing" }
func (f failing) Fit([]Window) (Predictor, error) {
	if f.fit {
		return nil, errors.New("boom")
	}
	return f, nil
}
func (f failing) Predict(test []Window) ([]Estimate, error) { return make([]Estimate, 1), nil }

func TestRunRejectsBadInput(t *testing.T) {
	good := linearData()
	cases := []struct {
		name  string
		model Forecaster
		data  []Window
		split float64
		opt   Options
		want  string
	}{
		{"nil model", nil, good, 100, Options{}, "model: nil"},
		{"empty", &funcModel{f: math.Sqrt}, nil, 100, Options{}, "data: empty"},
		{"nan load", &funcModel{f: math.Sqrt}, append([]Window{{Load: math.NaN(), Target: 1}}, good...), 100, Options{}, "window 0 has load NaN"},
		{"inf target", &funcModel{f: math.Sqrt}, append([]Window{{Load: 1, Target: math.Inf(1)}}, good...), 100, Options{}, "window 0 has target +Inf"},
		{"ragged features", &funcModel{f: math.Sqrt}, append([]Window{{Load: 1, Target: 1}}, good...), 100, Options{}, "window 1 has 1 features"},
		{"bad split", &funcModel{f: math.Sqrt}, good, -1, Options{}, "split"},
		{"bad multiple", &funcModel{f: math.Sqrt}, good, 100, Options{Multiples: []float64{math.NaN()}}, "Multiples"},
		{"few train", &funcModel{f: math.Sqrt}, good, 20, Options{}, "1 windows below the split"},
		{"nothing above", &funcModel{f: math.Sqrt}, good, 1000, Options{}, "no window above"},
		{"fit error", failing{fit: true}, good, 100, Options{}, "boom"},
		{"short predict", failing{}, good, 100, Options{}, "predict returned 1 estimates"},
	}
	for _, c := range cases {
		_, err := Run(c.model, c.data, c.split, c.opt)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error mentioning %q", c.name, err, c.want)
		}
	}
	zero := append(linearData(), Window{Load: 250, Target: 0})
	if _, err := Run(&funcModel{f: math.Sqrt}, zero, 100, Options{}); err == nil || !errors.Is(err, regress.ErrInput) {
		t.Errorf("zero measured target: %v", err)
	}
}

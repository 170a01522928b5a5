package regress

import (
	"errors"
	"math"
	"testing"
)

func TestMetricsByHand(t *testing.T) {
	meas := []float64{100, 200, 400, 50}
	pred := []float64{110, 180, 400, 40}
	// |err|/meas = 0.1, 0.1, 0, 0.2 → MAPE 0.1.
	cases := []struct {
		name string
		f    func([]float64, []float64) (float64, error)
		want float64
	}{
		{"MAPE", MAPE, 0.1},
		{"MAE", MAE, (10 + 20 + 0 + 10) / 4.0},
		{"RMSE", RMSE, math.Sqrt((100 + 400 + 0 + 100) / 4.0)},
		// mean 187.5; SS_tot = 7656.25+156.25+45156.25+18906.25 = 71875; SS_res = 600.
		{"R2", R2, 1 - 600/71875.0},
	}
	for _, c := range cases {
		got, err := c.f(meas, pred)
		if err != nil || math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s = %v (%v), want %v", c.name, got, err, c.want)
		}
	}
	r, err := Correlation([]float64{1, 2, 3}, []float64{2, 4, 6})
	if err != nil || math.Abs(r-1) > 1e-12 {
		t.Errorf("correlation of proportional vectors = %v (%v)", r, err)
	}
	if a := Accuracy(0.1); math.Abs(a-0.9) > 1e-15 {
		t.Errorf("Accuracy(0.1) = %v", a)
	}
	if a := Accuracy(1.7); a != 0 {
		t.Errorf("Accuracy(1.7) = %v, want 0 (clamped)", a)
	}
}

func TestMetricsBadInput(t *testing.T) {
	for name, f := range map[string]func([]float64, []float64) (float64, error){
		"MAPE": MAPE, "MAE": MAE, "RMSE": RMSE, "R2": R2, "Correlation": Correlation,
	} {
		if _, err := f(nil, nil); !errors.Is(err, ErrInput) {
			t.Errorf("%s(empty): %v", name, err)
		}
		if _, err := f([]float64{1, 2}, []float64{1}); !errors.Is(err, ErrInput) {
			t.Errorf("%s(mismatched): %v", name, err)
		}
		if _, err := f([]float64{1, math.NaN()}, []float64{1, 2}); !errors.Is(err, ErrInput) {
			t.Errorf("%s(NaN): %v", name, err)
		}
	}
	if _, err := MAPE([]float64{0, 1}, []float64{1, 1}); !errors.Is(err, ErrInput) {
		t.Errorf("MAPE with a zero measurement: %v", err)
	}
	if _, err := R2([]float64{3, 3}, []float64{1, 2}); !errors.Is(err, ErrInput) {
		t.Errorf("R2 of a constant: %v", err)
	}
}

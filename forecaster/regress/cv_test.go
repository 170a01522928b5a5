package regress

import (
	"errors"
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestKFoldPartitions(t *testing.T) {
	folds, err := KFold(23, 5, 42)
	if err != nil {
		t.Fatal(err)
	}
	seen := make([]int, 23)
	for f, fold := range folds {
		want := 4
		if f < 3 {
			want = 5 // 23 = 3·5 + 2·4, larger folds first as in scikit-learn
		}
		if len(fold.Test) != want || len(fold.Train) != 23-want {
			t.Errorf("fold %d: %d test, %d train", f, len(fold.Test), len(fold.Train))
		}
		for _, i := range fold.Test {
			seen[i]++
			if slices.Contains(fold.Train, i) {
				t.Errorf("fold %d: row %d in both train and test", f, i)
			}
		}
	}
	for i, c := range seen {
		if c != 1 {
			t.Errorf("row %d tested %d times", i, c)
		}
	}
	again, _ := KFold(23, 5, 42)
	other, _ := KFold(23, 5, 43)
	if !slices.Equal(folds[0].Test, again[0].Test) {
		t.Error("same seed, different folds")
	}
	if slices.Equal(folds[0].Test, other[0].Test) {
		t.Error("different seeds, same folds")
	}
	if _, err := KFold(3, 5, 0); !errors.Is(err, ErrInput) {
		t.Errorf("n < k: %v", err)
	}
	if _, err := KFold(10, 1, 0); !errors.Is(err, ErrInput) {
		t.Errorf("k = 1: %v", err)
	}
}

func TestCrossValidate(t *testing.T) {
	// Noise-free linear data: every fold's Ridge(≈0) is exact.
	X, y := linearData(7, 100, []float64{2, -1}, 50, 0)
	res, err := CrossValidate(Ridge{Alpha: 1e-9}, X, y, 10, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.RMSE) != 10 || res.MeanRMSE > 1e-6 || res.MeanMAPE > 1e-8 {
		t.Errorf("exact data: %+v", res)
	}
	// A mean-only model: CV RMSE ≈ std(y)·√(1 + 1/n_train).
	mean := TrainerFunc(func(X mat.Matrix, y []float64) (Model, error) {
		var s float64
		for _, v := range y {
			s += v
		}
		_, p := X.Dims()
		return &LinearModel{Coef: make([]float64, p), Intercept: s / float64(len(y))}, nil
	})
	Xn, yn := linearData(8, 1000, []float64{0}, 0, 3)
	res, err = CrossValidate(mean, Xn, yn, 10, 1)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(res.MeanRMSE-3) > 0.25 {
		t.Errorf("mean model on N(0, 9): CV RMSE %.3f, want ≈ 3", res.MeanRMSE)
	}
	// Errors from the trainer name the fold.
	bad := TrainerFunc(func(mat.Matrix, []float64) (Model, error) { return nil, ErrInput })
	if _, err := CrossValidate(bad, X, y, 5, 1); !errors.Is(err, ErrInput) {
		t.Errorf("failing trainer: %v", err)
	}
	if _, err := CrossValidate(Ridge{}, X, y[:5], 5, 1); !errors.Is(err, ErrInput) {
		t.Errorf("mismatched y: %v", err)
	}
}

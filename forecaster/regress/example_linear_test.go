package regress_test

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/storcast/storcast/forecaster/regress"
)

// Ridge on exact data y = 1 + 2·x₁ − x₂ with a tiny penalty recovers the
// plane.
func ExampleFitRidge() {
	X := mat.NewDense(5, 2, []float64{
		0, 0,
		1, 0,
		0, 1,
		1, 1,
		2, 3,
	})
	y := []float64{1, 3, 0, 2, 2}
	m, err := regress.FitRidge(X, y, 1e-9)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("coef %.4f intercept %.4f\n", m.Coef, m.Intercept)
	// Output: coef [2.0000 -1.0000] intercept 1.0000
}

// The Lasso zeroes the feature that does not explain y and shrinks the one
// that does by alpha (the features have unit variance).
func ExampleFitLasso() {
	X := mat.NewDense(4, 2, []float64{
		1, 1,
		-1, 1,
		1, -1,
		-1, -1,
	})
	y := []float64{3, -3, 3, -3} // y = 3·x₁
	m, err := regress.FitLasso(X, y, 0.5)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("coef %.4f intercept %.4f non-zero %v\n", m.Coef, m.Intercept, m.NonZero())
	// Output: coef [2.5000 0.0000] intercept 0.0000 non-zero [0]
}

func ExampleNNLS() {
	A := mat.NewDense(3, 2, []float64{
		1, 0,
		0, 1,
		1, 1,
	})
	// The unconstrained solution is (2, −1); with x ≥ 0 the second weight
	// is pinned at zero.
	x, err := regress.NNLS(A, []float64{2, -1, 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.4f\n", x)
	// Output: [1.5000 0.0000]
}

func ExampleCrossValidate() {
	X := mat.NewDense(6, 1, []float64{1, 2, 3, 4, 5, 6})
	y := []float64{3, 5, 7, 9, 11, 13} // y = 1 + 2x
	res, err := regress.CrossValidate(regress.Ridge{Alpha: 1e-9}, X, y, 3, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("mean RMSE %.6f, mean MAPE %.6f over %d folds\n", res.MeanRMSE, res.MeanMAPE, len(res.RMSE))
	// Output: mean RMSE 0.000000, mean MAPE 0.000000 over 3 folds
}

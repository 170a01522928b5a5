package regress

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/storcast/storcast/forecaster/internal/check"
)

// ErrInput is wrapped by every error that reports bad input data; inputError
// returns one that names the argument.
var inputError, ErrInput = check.Input()

// CheckVector reports an error when v is empty or holds a NaN or ±Inf.
// name is used in the message, e.g. "y".
func CheckVector(name string, v []float64) error {
	if len(v) == 0 {
		return inputError(name, "empty")
	}
	for i, x := range v {
		if !check.Finite(x) {
			return inputError(name, "element %d is %v", i, x)
		}
	}
	return nil
}

// CheckXY validates a design matrix and its target: X non-nil with at least one
// row and column, len(y) equal to the rows of X, and every value finite.
func CheckXY(X mat.Matrix, y []float64) error {
	if X == nil {
		return inputError("X", "nil matrix")
	}
	n, p := X.Dims()
	if n == 0 || p == 0 {
		return inputError("X", "empty (%d×%d)", n, p)
	}
	if len(y) != n {
		return inputError("y", "length %d does not match %d rows of X", len(y), n)
	}
	for i := 0; i < n; i++ {
		for j := 0; j < p; j++ {
			if v := X.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return inputError("X", "element (%d,%d) is %v", i, j, v)
			}
		}
	}
	return CheckVector("y", y)
}

package regress

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// Param describes one hyper-parameter of a Learner as an interval of the
// parameter box searched by Search.
type Param struct {
	Name  string  `json:"name"`
	Lower float64 `json:"lower"`
	Upper float64 `json:"upper"`
	// Integer parameters take whole values; the search rounds to the nearest.
	Integer bool `json:"integer"`
	// Log parameters are split evenly in log space (Lower must be > 0).
	Log bool `json:"log"`
	// Default is the value the learner uses when nobody tunes it (the
	// established implementation's default where there is one).
	Default float64 `json:"default"`
}

// Learner is a regression technique with a box of hyper-parameters: Fit
// trains it on X (n×p rows) and y with one value per Params() entry.
type Learner interface {
	// Name is a short label, e.g. "MARS".
	Name() string
	// Params describes the hyper-parameter box, in the order Fit takes them.
	Params() []Param
	// Fit trains the learner. Bad input (ragged or non-finite X, mismatched
	// y, parameters outside the box) returns an error wrapping ErrInput
	// that names the argument.
	Fit(X [][]float64, y []float64, params []float64) (Model, error)
}

// Defaults returns the default parameter vector of l.
func Defaults(l Learner) []float64 {
	ps := l.Params()
	out := make([]float64, len(ps))
	for i, p := range ps {
		out[i] = p.Default
	}
	return out
}

// checkParams validates a parameter vector against the box of ps.
func checkParams(ps []Param, v []float64) error {
	if len(v) != len(ps) {
		return inputError("params", "%d values for %d parameters", len(v), len(ps))
	}
	for i, p := range ps {
		x := v[i]
		if math.IsNaN(x) || x < p.Lower || x > p.Upper {
			return inputError("params", "%s = %v outside [%v, %v]", p.Name, x, p.Lower, p.Upper)
		}
		if p.Integer && x != math.Round(x) {
			return inputError("params", "%s = %v is not a whole number", p.Name, x)
		}
	}
	return nil
}

// denseXY converts rows to a matrix and validates it with y: X must be
// rectangular, non-empty and finite, and y must match its rows.
func denseXY(X [][]float64, y []float64) (*mat.Dense, error) {
	if len(X) == 0 {
		return nil, inputError("X", "no rows")
	}
	p := len(X[0])
	if p == 0 {
		return nil, inputError("X", "row 0 has no columns")
	}
	d := mat.NewDense(len(X), p, nil)
	for i, row := range X {
		if len(row) != p {
			return nil, inputError("X", "row %d has %d columns, row 0 has %d", i, len(row), p)
		}
		d.SetRow(i, row)
	}
	if err := CheckXY(d, y); err != nil {
		return nil, err
	}
	return d, nil
}

// predictRows returns m's predictions for the rows of X.
func predictRows(m Model, X [][]float64) []float64 {
	out := make([]float64, len(X))
	for i, x := range X {
		out[i] = m.Predict(x)
	}
	return out
}

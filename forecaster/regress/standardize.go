package regress

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// Standardizer centres and scales the columns of a design matrix, like
// scikit-learn's StandardScaler:
//
//	z_ij = (x_ij − mean_j) / scale_j,  scale_j = √((1/n) Σ_i (x_ij − mean_j)²)
//
// (the population standard deviation). A column with zero variance gets
// scale 1, so it maps to all zeros instead of NaN, and is listed in Constant.
type Standardizer struct {
	Mean     []float64 `json:"mean"`
	Scale    []float64 `json:"scale"`
	Constant []int     `json:"constant,omitempty"` // columns with zero variance
}

// FitStandardizer computes the per-column mean and population standard
// deviation of X. X must be non-empty and finite.
func FitStandardizer(X mat.Matrix) (*Standardizer, error) {
	if X == nil {
		return nil, inputError("X", "nil matrix")
	}
	n, p := X.Dims()
	if n == 0 || p == 0 {
		return nil, inputError("X", "empty (%d×%d)", n, p)
	}
	s := &Standardizer{Mean: make([]float64, p), Scale: make([]float64, p)}
	for i := 0; i < n; i++ {
		for j := 0; j < p; j++ {
			v := X.At(i, j)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, inputError("X", "element (%d,%d) is %v", i, j, v)
			}
			s.Mean[j] += v
		}
	}
	for j := range s.Mean {
		s.Mean[j] /= float64(n)
	}
	// Two-pass variance: accurate for large offsets.
	for i := 0; i < n; i++ {
		for j := 0; j < p; j++ {
			d := X.At(i, j) - s.Mean[j]
			s.Scale[j] += d * d
		}
	}
	for j := range s.Scale {
		sd := math.Sqrt(s.Scale[j] / float64(n))
		// Relative cut-off: a column equal to its mean up to rounding is constant.
		if sd <= 1e-12*math.Max(1, math.Abs(s.Mean[j])) {
			sd = 1
			s.Constant = append(s.Constant, j)
		}
		s.Scale[j] = sd
	}
	return s, nil
}

// Transform returns the standardized copy of X. X must have as many columns
// as the data the Standardizer was fitted on.
func (s *Standardizer) Transform(X mat.Matrix) (*mat.Dense, error) {
	if X == nil {
		return nil, inputError("X", "nil matrix")
	}
	n, p := X.Dims()
	if p != len(s.Mean) {
		return nil, inputError("X", "%d columns, standardizer fitted on %d", p, len(s.Mean))
	}
	if n == 0 {
		return nil, inputError("X", "no rows")
	}
	Z := mat.NewDense(n, p, nil)
	for i := 0; i < n; i++ {
		row := Z.RawRowView(i)
		for j := 0; j < p; j++ {
			row[j] = (X.At(i, j) - s.Mean[j]) / s.Scale[j]
		}
	}
	return Z, nil
}

// TransformRow standardizes one sample x in place into dst (allocated when
// nil) and returns it.
func (s *Standardizer) TransformRow(dst, x []float64) []float64 {
	if dst == nil {
		dst = make([]float64, len(x))
	}
	for j, v := range x {
		dst[j] = (v - s.Mean[j]) / s.Scale[j]
	}
	return dst
}

// Inverse maps coefficients fitted on standardized features (w, b: ŷ = b +
// Σ w_j z_j) back to the original units: ŷ = b' + Σ w'_j x_j with
//
//	w'_j = w_j / scale_j,  b' = b − Σ_j w'_j mean_j.
func (s *Standardizer) Inverse(w []float64, b float64) ([]float64, float64) {
	out := make([]float64, len(w))
	for j, v := range w {
		out[j] = v / s.Scale[j]
		b -= out[j] * s.Mean[j]
	}
	return out, b
}

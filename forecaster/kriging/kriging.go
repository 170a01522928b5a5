package kriging

import (
	"errors"
	"fmt"
	"math"

	"github.com/storcast/storcast/forecaster/regress"
	"gonum.org/v1/gonum/mat"
)

// Method selects the Kriging system that turns the variogram into weights.
type Method int

const (
	// Ordinary is ordinary Kriging, for interpolation: the weights solve
	// Γw + μ1 = h under Σw = 1 (μ is the Lagrange multiplier), and the
	// variance is w'h + μ.
	Ordinary Method = iota
	// NonNegative is M-LISP's "modified" Kriging, for extrapolation: the
	// sum-to-one constraint is dropped and w = argmin ‖Γw − h‖ subject to
	// w ≥ 0 (non-negative least squares); the variance is w'h (paper eq. 3).
	NonNegative
)

func (m Method) String() string {
	switch m {
	case Ordinary:
		return "ordinary"
	case NonNegative:
		return "nonnegative"
	}
	return fmt.Sprintf("Method(%d)", int(m))
}

// Prediction is a Kriging estimate at one point with its 95% band
// Mean ± 2√Variance.
type Prediction struct {
	Mean     float64 `json:"mean"`
	Variance float64 `json:"variance"`
	Lower    float64 `json:"lower"`
	Upper    float64 `json:"upper"`
}

// Model is a fitted Kriging predictor: the training samples, their model
// variogram and, for Ordinary, the factorized Kriging system.
type Model struct {
	Method    Method
	Variogram Variogram

	x     [][]float64 // distinct training points
	f     []float64   // their values (means over exact duplicates)
	gamma *mat.Dense  // Γ_ij = γ(‖x_i − x_j‖)
	lu    *mat.LU     // Ordinary: LU of [[Γ 1][1' 0]]
}

// Fit builds the experimental variogram of (X, f), fits the cubic model
// variogram and prepares the Kriging system for method.
//
// Rows of X that are exactly equal are merged into one point whose value is
// the mean of theirs: a repeated point makes the ordinary Kriging system
// singular and carries no extra spatial information. X and f must be finite,
// of matching length, with at least two distinct rows and a non-constant f.
func Fit(X mat.Matrix, f []float64, method Method) (*Model, error) {
	if method != Ordinary && method != NonNegative {
		return nil, inputError("method", "unknown Kriging method %d", int(method))
	}
	if err := regress.CheckXY(X, f); err != nil {
		return nil, err
	}
	rows, vals := mergeDuplicates(denseRows(X), f)
	if len(rows) < 2 {
		return nil, inputError("X", "fewer than 2 distinct rows; Kriging needs at least 2")
	}
	return fitRows(rows, vals, method)
}

// fitRows fits on distinct, validated rows (no copy is made).
func fitRows(rows [][]float64, f []float64, method Method) (*Model, error) {
	n := len(rows)
	// One pass over the pairs gives both the experimental variogram and the
	// distances Γ needs.
	m := n * (n - 1) / 2
	dist := make([]float64, 0, m)
	semi := make([]float64, 0, m)
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			dist = append(dist, euclid(rows[i], rows[j]))
			df := f[i] - f[j]
			semi = append(semi, 0.5*df*df)
		}
	}
	vg, err := FitVariogram(dist, semi)
	if err != nil {
		return nil, err
	}
	mod := &Model{Method: method, Variogram: vg, x: rows, f: f}
	size := n
	if method == Ordinary {
		size = n + 1
	}
	G := mat.NewDense(size, size, nil)
	k := 0
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			g := vg.At(dist[k])
			G.Set(i, j, g)
			G.Set(j, i, g)
			k++
		}
	}
	if method == Ordinary {
		for i := 0; i < n; i++ {
			G.Set(i, n, 1)
			G.Set(n, i, 1)
		}
		var lu mat.LU
		lu.Factorize(G)
		if c := lu.Cond(); math.IsInf(c, 1) || c > 1e14 {
			return nil, inputError("X", "the ordinary Kriging system is singular (condition number %.3g); samples are (nearly) repeated or the variogram is degenerate", c)
		}
		mod.lu = &lu
		G = G.Slice(0, n, 0, n).(*mat.Dense)
	}
	mod.gamma = G
	return mod, nil
}

// mergeDuplicates averages f over rows of X that are exactly equal.
func mergeDuplicates(rows [][]float64, f []float64) ([][]float64, []float64) {
	type acc struct {
		sum float64
		n   int
	}
	index := make(map[string]int, len(rows))
	var outRows [][]float64
	var sums []acc
	key := make([]byte, 0, 64)
	for i, r := range rows {
		key = key[:0]
		for _, v := range r {
			b := math.Float64bits(v + 0) // +0 folds −0 into 0
			key = append(key, byte(b), byte(b>>8), byte(b>>16), byte(b>>24), byte(b>>32), byte(b>>40), byte(b>>48), byte(b>>56))
		}
		if k, ok := index[string(key)]; ok {
			sums[k].sum += f[i]
			sums[k].n++
			continue
		}
		index[string(key)] = len(outRows)
		outRows = append(outRows, r)
		sums = append(sums, acc{f[i], 1})
	}
	vals := make([]float64, len(sums))
	for k, a := range sums {
		vals[k] = a.sum / float64(a.n)
	}
	return outRows, vals
}

// Len is the number of distinct training points.
func (m *Model) Len() int { return len(m.x) }

// Estimate returns the Kriging prediction at x, Σ w_i f_i, with its variance
// and 95% band. The variance is clamped at 0: a cubic is not guaranteed to be
// a valid (conditionally negative definite) variogram, so w'h can come out
// slightly negative.
func (m *Model) Estimate(x []float64) (Prediction, error) {
	if len(m.x) == 0 {
		return Prediction{}, errors.New("kriging: model is not fitted")
	}
	if len(x) != len(m.x[0]) {
		return Prediction{}, inputError("x", "length %d, model fitted on %d columns", len(x), len(m.x[0]))
	}
	if err := regress.CheckVector("x", x); err != nil {
		return Prediction{}, err
	}
	n := len(m.x)
	h := make([]float64, n)
	for i, xi := range m.x {
		h[i] = m.Variogram.At(euclid(xi, x))
	}
	var w []float64
	var variance float64
	switch m.Method {
	case Ordinary:
		rhs := mat.NewVecDense(n+1, nil)
		for i, v := range h {
			rhs.SetVec(i, v)
		}
		rhs.SetVec(n, 1)
		var sol mat.VecDense
		if err := m.lu.SolveVecTo(&sol, false, rhs); err != nil {
			var cond mat.Condition
			if !errors.As(err, &cond) {
				return Prediction{}, fmt.Errorf("kriging: solving the ordinary system: %w", err)
			}
		}
		w = sol.RawVector().Data[:n]
		variance = sol.AtVec(n) // μ
	case NonNegative:
		w = nnls(m.gamma, h)
	}
	var mean float64
	for i, wi := range w {
		mean += wi * m.f[i]
		variance += wi * h[i]
	}
	if variance < 0 || math.IsNaN(variance) {
		variance = 0
	}
	band := 2 * math.Sqrt(variance)
	return Prediction{Mean: mean, Variance: variance, Lower: mean - band, Upper: mean + band}, nil
}

// Predict returns the Kriging mean at x, or NaN when x is invalid. It makes
// *Model a regress.Model; use Estimate for the band and the error.
func (m *Model) Predict(x []float64) float64 {
	p, err := m.Estimate(x)
	if err != nil {
		return math.NaN()
	}
	return p.Mean
}

// Trainer fits Kriging models with a fixed method; it implements
// regress.Trainer.
type Trainer struct{ Method Method }

// Train calls Fit(X, y, t.Method).
func (t Trainer) Train(X mat.Matrix, y []float64) (regress.Model, error) {
	return Fit(X, y, t.Method)
}

var (
	_ regress.Model   = (*Model)(nil)
	_ regress.Trainer = Trainer{}
)

package regress

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// LRM is least-squares linear regression with optional pairwise interaction
// terms (Noorshams et al.'s "LRM with interactions"). With Degree 2 the
// design holds every x_j and every product x_j·x_k, j < k; with Degree 1
// only the x_j.
//
// Collinearity: the expanded columns are standardized, constant columns
// (a feature that never varies, or its products) are left out with weight
// 0, and the normal equations are solved by Ridge with α = 0. When they are
// singular or ill-conditioned (two terms that always move together, e.g. a
// 0/1 feature and its product with a constant-in-practice feature), the fit
// is repeated with a ridge of 1e-8·n on the standardized columns, which
// splits the weight among the collinear terms (the minimum-norm limit) and
// moves well-determined coefficients by a relative 1e-8 at most.
type LRM struct{}

// Name implements Learner.
func (LRM) Name() string { return "LRM" }

// Params implements Learner: degree 1 (main effects) or 2 (pairwise
// interactions, the default).
func (LRM) Params() []Param {
	return []Param{{Name: "degree", Lower: 1, Upper: 2, Integer: true, Default: 2}}
}

// LRMModel is a fitted LRM: ŷ = Intercept + Σ Coef_t term_t(x), with the
// terms in the order of LRMTerms.
type LRMModel struct {
	Degree    int       `json:"degree"`
	P         int       `json:"p"`
	Coef      []float64 `json:"coef"`
	Intercept float64   `json:"intercept"`
}

// LRMTerms lists the terms of an LRM on p features: pairs {j, -1} for x_j,
// then {j, k} for x_j·x_k (degree 2).
func LRMTerms(p, degree int) [][2]int {
	t := make([][2]int, 0, p+p*(p-1)/2)
	for j := 0; j < p; j++ {
		t = append(t, [2]int{j, -1})
	}
	if degree >= 2 {
		for j := 0; j < p; j++ {
			for k := j + 1; k < p; k++ {
				t = append(t, [2]int{j, k})
			}
		}
	}
	return t
}

func expandLRM(dst, x []float64, degree int) []float64 {
	dst = append(dst[:0], x...)
	if degree >= 2 {
		for j := range x {
			for k := j + 1; k < len(x); k++ {
				dst = append(dst, x[j]*x[k])
			}
		}
	}
	return dst
}

// Predict returns the model's prediction, NaN when len(x) != P.
func (m *LRMModel) Predict(x []float64) float64 {
	if len(x) != m.P {
		return math.NaN()
	}
	s := m.Intercept
	for t, z := range expandLRM(make([]float64, 0, len(m.Coef)), x, m.Degree) {
		s += m.Coef[t] * z
	}
	return s
}

// Fit implements Learner.
func (l LRM) Fit(X [][]float64, y []float64, params []float64) (Model, error) {
	if err := checkParams(l.Params(), params); err != nil {
		return nil, err
	}
	d, err := denseXY(X, y)
	if err != nil {
		return nil, err
	}
	return FitLRM(d, y, int(params[0]))
}

// FitLRM fits an LRM of the given degree (1 or 2) to X and y.
func FitLRM(X mat.Matrix, y []float64, degree int) (*LRMModel, error) {
	if degree != 1 && degree != 2 {
		return nil, inputError("degree", "%d; must be 1 or 2", degree)
	}
	if err := CheckXY(X, y); err != nil {
		return nil, err
	}
	n, p := X.Dims()
	q := len(LRMTerms(p, degree))
	Z := mat.NewDense(n, q, nil)
	row := make([]float64, p)
	buf := make([]float64, 0, q)
	for i := 0; i < n; i++ {
		mat.Row(row, i, X)
		buf = expandLRM(buf, row, degree)
		Z.SetRow(i, buf)
	}
	st, err := FitStandardizer(Z)
	if err != nil {
		return nil, err
	}
	if !allFinite(st.Scale) || !allFinite(st.Mean) {
		return nil, inputError("X", "interaction products overflow float64; rescale X")
	}
	S, err := st.Transform(Z)
	if err != nil {
		return nil, err
	}
	// y centred first (S is standardized): the moments' centring would lose
	// a target far from zero (NewMoments).
	yc, yMean := centred(y)
	mom, err := NewMoments(S, yc)
	if err != nil {
		return nil, err
	}
	isConst := make([]bool, q)
	for _, j := range st.Constant {
		isConst[j] = true
	}
	cols := []int{}
	for j := 0; j < q; j++ {
		if !isConst[j] {
			cols = append(cols, j)
		}
	}
	out := &LRMModel{Degree: degree, P: p, Coef: make([]float64, q), Intercept: yMean}
	if len(cols) == 0 {
		return out, nil
	}
	g, err := mom.Gram(cols)
	if err != nil {
		return nil, err
	}
	if g.YY == 0 { // constant y: the mean is the least-squares fit
		return out, nil
	}
	lm, err := g.Ridge(0)
	if err != nil && errors.Is(err, ErrInput) {
		lm, err = g.Ridge(1e-8 * float64(n))
	}
	if err != nil {
		return nil, fmt.Errorf("LRM: %w", err)
	}
	wz := make([]float64, q)
	for a, j := range cols {
		wz[j] = lm.Coef[a]
	}
	w, b := st.Inverse(wz, yMean+lm.Intercept)
	out.Coef, out.Intercept = w, b
	if !allFinite(w) || math.IsNaN(b) || math.IsInf(b, 0) {
		return nil, inputError("X, y", "the fit overflowed float64; rescale X and y")
	}
	return out, nil
}

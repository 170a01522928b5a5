package regress

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Ridge is the L2-penalized least-squares trainer with intercept, with
// scikit-learn's Ridge objective:
//
//	minimize over w, b:  ||y − Xw − b||² + Alpha ||w||²
//
// The intercept is not penalized. The solution is the closed form
// (X_c'X_c + Alpha I) w = X_c'y_c on centred data, solved by Cholesky.
type Ridge struct {
	Alpha float64
}

// Train implements Trainer.
func (r Ridge) Train(X mat.Matrix, y []float64) (Model, error) {
	m, err := FitRidge(X, y, r.Alpha)
	if err != nil {
		return nil, err
	}
	return m, nil
}

// FitRidge fits Ridge{alpha} to X and y. Alpha must be finite and ≥ 0;
// alpha = 0 is ordinary least squares and fails when X_c'X_c is singular.
func FitRidge(X mat.Matrix, y []float64, alpha float64) (*LinearModel, error) {
	g, err := NewGram(X, y)
	if err != nil {
		return nil, err
	}
	return g.Ridge(alpha)
}

// Ridge solves the ridge problem on a centred Gram.
func (g *Gram) Ridge(alpha float64) (*LinearModel, error) {
	if math.IsNaN(alpha) || math.IsInf(alpha, 0) || alpha < 0 {
		return nil, inputError("alpha", "%v; must be finite and ≥ 0", alpha)
	}
	if err := g.checkTarget(); err != nil {
		return nil, err
	}
	p := g.P()
	a := mat.NewSymDense(p, nil)
	var maxDiag float64
	for j := 0; j < p; j++ {
		for k := j; k < p; k++ {
			a.SetSym(j, k, g.G[j*p+k])
		}
		a.SetSym(j, j, g.G[j*p+j]+alpha)
		maxDiag = math.Max(maxDiag, a.At(j, j))
	}
	var ch mat.Cholesky
	if !ch.Factorize(a) {
		return nil, fmt.Errorf("%w: X: X'X + alpha·I is singular or not positive definite (alpha=%g); collinear or constant columns need alpha > 0", ErrInput, alpha)
	}
	// Reject near-singular systems whose solution would be noise.
	if c := ch.Cond(); c > 1e14 || math.IsInf(c, 0) || math.IsNaN(c) {
		return nil, fmt.Errorf("%w: X: X'X + alpha·I is ill-conditioned (condition number %.3g, alpha=%g)", ErrInput, c, alpha)
	}
	var w mat.VecDense
	if err := ch.SolveVecTo(&w, mat.NewVecDense(p, append([]float64(nil), g.Q...))); err != nil {
		return nil, fmt.Errorf("%w: X: solving the ridge system: %v", ErrInput, err)
	}
	m := g.model(w.RawVector().Data)
	if err := m.finite(); err != nil {
		return nil, err
	}
	return m, nil
}

package regress

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// ErrNotConverged is wrapped by the error of an iterative solver that
// reached its iteration cap before its stopping rule held: a coordinate-
// descent fit whose duality gap stayed above the tolerance (the returned
// model is the last iterate and is usable), or NNLSGram's active-set loop
// (the returned weights are feasible).
var ErrNotConverged = errors.New("did not converge")

// ElasticNet is the trainer for scikit-learn's ElasticNet objective:
//
//	minimize over w, b:  (1/(2n)) ||y − Xw − b||² + Alpha·L1Ratio·||w||₁
//	                     + ½·Alpha·(1 − L1Ratio)·||w||²
//
// L1Ratio = 1 is the Lasso. The fit is cyclic coordinate descent on the
// centred Gram matrix (the "precompute" variant of scikit-learn's
// enet_coordinate_descent_gram), with scikit-learn's stopping rule: after a
// sweep whose largest coefficient change is below Tol·max|w|, compute the
// duality gap and stop when it is below Tol·||y_c||². (With L1Ratio = 0 the
// gap is degenerate and the coefficient-change test alone stops the loop.)
type ElasticNet struct {
	Alpha   float64
	L1Ratio float64
	Tol     float64 // 0 means 1e-4 (scikit-learn's default)
	MaxIter int     // 0 means 1000 sweeps
}

// Lasso returns the ElasticNet trainer with L1Ratio = 1.
func Lasso(alpha float64) ElasticNet { return ElasticNet{Alpha: alpha, L1Ratio: 1} }

// Fit fits e to X and y. When coordinate descent does not converge the
// last iterate is returned together with an error wrapping ErrNotConverged.
func (e ElasticNet) Fit(X mat.Matrix, y []float64) (*LinearModel, error) {
	g, err := NewGram(X, y)
	if err != nil {
		return nil, err
	}
	return g.ElasticNet(e, nil)
}

// FitLasso fits the Lasso with the given alpha and default tolerances.
func FitLasso(X mat.Matrix, y []float64, alpha float64) (*LinearModel, error) {
	return Lasso(alpha).Fit(X, y)
}

func (e ElasticNet) check() (ElasticNet, error) {
	if math.IsNaN(e.Alpha) || math.IsInf(e.Alpha, 0) || e.Alpha < 0 {
		return e, inputError("alpha", "%v; must be finite and ≥ 0", e.Alpha)
	}
	if math.IsNaN(e.L1Ratio) || e.L1Ratio < 0 || e.L1Ratio > 1 {
		return e, inputError("l1_ratio", "%v; must be in [0, 1]", e.L1Ratio)
	}
	if math.IsNaN(e.Tol) || e.Tol < 0 {
		return e, inputError("tol", "%v; must be ≥ 0", e.Tol)
	}
	if e.MaxIter < 0 {
		return e, inputError("max_iter", "%d; must be ≥ 0", e.MaxIter)
	}
	if e.Tol == 0 {
		e.Tol = 1e-4
	}
	if e.MaxIter == 0 {
		e.MaxIter = 1000
	}
	return e, nil
}

// ElasticNet fits e on the centred Gram g, starting from warm (nil for
// zeros; warm is not modified).
func (g *Gram) ElasticNet(e ElasticNet, warm []float64) (*LinearModel, error) {
	e, err := e.check()
	if err != nil {
		return nil, err
	}
	if err := g.checkTarget(); err != nil {
		return nil, err
	}
	p := g.P()
	if warm != nil && len(warm) != p {
		return nil, inputError("warm", "length %d, want %d", len(warm), p)
	}
	w := make([]float64, p)
	copy(w, warm)
	s := newCDState(g, w)
	iters, conv := s.run(e.Alpha, e.L1Ratio, e.Tol, e.MaxIter)
	m := g.model(w)
	if err := m.finite(); err != nil {
		return nil, err
	}
	if !conv {
		return m, fmt.Errorf("coordinate descent %w after %d sweeps (alpha=%g, l1_ratio=%g, duality gap %.3g > %.3g)",
			ErrNotConverged, iters, e.Alpha, e.L1Ratio, s.gap, e.Tol*g.YY)
	}
	return m, nil
}

// cdState is coordinate descent on a Gram with H = G w kept up to date, so a
// coordinate that stays at zero costs O(1) and one that moves costs O(p).
type cdState struct {
	g   *Gram
	w   []float64
	h   []float64
	gap float64
}

func newCDState(g *Gram, w []float64) *cdState {
	p := g.P()
	s := &cdState{g: g, w: w, h: make([]float64, p)}
	for k, wk := range w {
		if wk == 0 {
			continue
		}
		for j := 0; j < p; j++ {
			s.h[j] += g.G[j*p+k] * wk
		}
	}
	return s
}

// run sweeps until convergence; it returns the sweeps done and whether the
// duality gap criterion was met. Penalties are scaled by n as in
// scikit-learn: l1 = alpha·l1_ratio·n, l2 = alpha·(1−l1_ratio)·n.
func (s *cdState) run(alpha, l1Ratio, tol float64, maxIter int) (int, bool) {
	g := s.g
	p := g.P()
	n := float64(g.N)
	l1 := alpha * l1Ratio * n
	l2 := alpha * (1 - l1Ratio) * n
	gapTol := tol * g.YY
	w, h, G, q := s.w, s.h, g.G, g.Q
	for it := 0; it < maxIter; it++ {
		var wMax, dwMax float64
		for j := 0; j < p; j++ {
			gjj := G[j*p+j]
			if gjj <= 0 {
				continue
			}
			old := w[j]
			t := q[j] - h[j] + gjj*old
			var nw float64
			if t > l1 {
				nw = (t - l1) / (gjj + l2)
			} else if t < -l1 {
				nw = (t + l1) / (gjj + l2)
			}
			if d := nw - old; d != 0 {
				col := G[j*p : (j+1)*p] // G is symmetric: row j = column j
				for k, v := range col {
					h[k] += d * v
				}
				w[j] = nw
				dwMax = math.Max(dwMax, math.Abs(d))
			}
			wMax = math.Max(wMax, math.Abs(nw))
		}
		if wMax == 0 || dwMax/wMax < tol || it == maxIter-1 {
			if l1 == 0 {
				// Without an L1 term the dual below is degenerate (scikit-learn
				// warns that l1_ratio=0 is unsupported); the problem is a
				// strongly convex ridge, so a small relative step suffices.
				if wMax == 0 || dwMax/wMax < tol {
					s.gap = 0
					return it + 1, true
				}
				continue
			}
			s.gap = s.dualityGap(l1, l2)
			if s.gap < gapTol {
				return it + 1, true
			}
		}
	}
	return maxIter, false
}

// dualityGap is scikit-learn's gap for the Gram formulation (n-scaled
// objective): see sklearn/linear_model/_cd_fast.pyx.
func (s *cdState) dualityGap(l1, l2 float64) float64 {
	g := s.g
	var qw, wh, wn2, l1n, dual float64
	for j, wj := range s.w {
		qw += wj * g.Q[j]
		wh += wj * s.h[j]
		wn2 += wj * wj
		l1n += math.Abs(wj)
		xta := g.Q[j] - s.h[j] - l2*wj
		dual = math.Max(dual, math.Abs(xta))
	}
	rn2 := g.YY + wh - 2*qw
	var c, gap float64
	if dual > l1 {
		c = l1 / dual
		gap = 0.5 * (rn2 + rn2*c*c)
	} else {
		c = 1
		gap = rn2
	}
	gap += l1*l1n - c*(g.YY-qw) + 0.5*l2*(1+c*c)*wn2
	return gap
}

// PathOptions configures an Elastic Net regularization path.
type PathOptions struct {
	L1Ratio float64   // 0 means 1 (Lasso)
	Alphas  []float64 // explicit grid (any order is sorted descending); nil: a geometric grid
	NAlphas int       // grid length when Alphas is nil; 0 means 100
	Eps     float64   // alpha_min/alpha_max when Alphas is nil; 0 means 1e-3
	Tol     float64   // 0 means 1e-4
	MaxIter int       // 0 means 1000
}

// Path is a fitted regularization path, largest alpha first.
type Path struct {
	Alphas []float64
	Models []*LinearModel
	// Converged[i] reports whether the fit at Alphas[i] met the tolerance.
	Converged []bool
}

// AlphaMax is the smallest alpha at which every coefficient is zero:
// max_j |X_c'y_c|_j / (n·l1_ratio).
func (g *Gram) AlphaMax(l1Ratio float64) float64 {
	var m float64
	for _, v := range g.Q {
		m = math.Max(m, math.Abs(v))
	}
	return m / (float64(g.N) * l1Ratio)
}

// alphaResolution is numpy's finfo(float).resolution: scikit-learn's
// _alpha_grid answers with it when alphaMax is no larger (no feature
// correlates with the target: every coefficient is 0 at any alpha).
const alphaResolution = 1e-15

// AlphaGrid returns n alphas spaced geometrically from alphaMax down to
// eps·alphaMax, like scikit-learn's _alpha_grid (n times 1e-15 when alphaMax
// is at most that: a geometric grid from 0 is not defined).
func AlphaGrid(alphaMax, eps float64, n int) []float64 {
	a := make([]float64, n)
	if alphaMax <= alphaResolution {
		for i := range a {
			a[i] = alphaResolution
		}
		return a
	}
	if n == 1 {
		a[0] = alphaMax
		return a
	}
	lo, hi := math.Log10(alphaMax*eps), math.Log10(alphaMax)
	for i := range a {
		a[i] = math.Pow(10, hi-(hi-lo)*float64(i)/float64(n-1))
	}
	return a
}

// ElasticNetPath fits the Elastic Net along a grid of alphas on X and y,
// warm-starting each fit from the previous one.
func ElasticNetPath(X mat.Matrix, y []float64, opt PathOptions) (*Path, error) {
	g, err := NewGram(X, y)
	if err != nil {
		return nil, err
	}
	return g.Path(opt)
}

// Path fits the regularization path on a centred Gram. Non-convergence at an
// alpha is reported in Path.Converged, not as an error.
func (g *Gram) Path(opt PathOptions) (*Path, error) {
	if opt.L1Ratio == 0 {
		opt.L1Ratio = 1
	}
	e, err := ElasticNet{L1Ratio: opt.L1Ratio, Tol: opt.Tol, MaxIter: opt.MaxIter}.check()
	if err != nil {
		return nil, err
	}
	if opt.L1Ratio <= 0 {
		return nil, inputError("l1_ratio", "%v; a path needs l1_ratio > 0", opt.L1Ratio)
	}
	if err := g.checkTarget(); err != nil {
		return nil, err
	}
	alphas := append([]float64(nil), opt.Alphas...)
	if alphas == nil {
		if opt.NAlphas < 0 {
			return nil, inputError("n_alphas", "%d; must be ≥ 0", opt.NAlphas)
		}
		if opt.NAlphas == 0 {
			opt.NAlphas = 100
		}
		if opt.Eps == 0 {
			opt.Eps = 1e-3
		}
		if math.IsNaN(opt.Eps) || opt.Eps <= 0 || opt.Eps >= 1 {
			return nil, inputError("eps", "%v; must be in (0, 1)", opt.Eps)
		}
		alphas = AlphaGrid(g.AlphaMax(opt.L1Ratio), opt.Eps, opt.NAlphas)
	}
	for i, a := range alphas {
		if math.IsNaN(a) || math.IsInf(a, 0) || a < 0 {
			return nil, inputError("alphas", "element %d is %v; must be finite and ≥ 0", i, a)
		}
	}
	sortDescending(alphas)
	path := &Path{Alphas: alphas}
	w := make([]float64, g.P())
	s := newCDState(g, w)
	for _, a := range alphas {
		_, conv := s.run(a, opt.L1Ratio, e.Tol, e.MaxIter)
		m := g.model(w)
		if err := m.finite(); err != nil {
			return nil, err
		}
		path.Models = append(path.Models, m)
		path.Converged = append(path.Converged, conv)
	}
	return path, nil
}

func sortDescending(a []float64) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] > a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

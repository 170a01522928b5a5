package kriging

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// nnls solves min ‖A w − b‖₂ subject to w ≥ 0 (see nnlsGram).
func nnls(A *mat.Dense, b []float64) []float64 {
	_, n := A.Dims()
	var G mat.Dense
	G.Mul(A.T(), A)
	c := make([]float64, n)
	mat.NewVecDense(n, c).MulVec(A.T(), mat.NewVecDense(len(b), b))
	return nnlsGram(&G, c)
}

// nnlsGram solves the non-negative least-squares problem
//
//	min ‖A w − b‖₂  subject to  w ≥ 0
//
// given its normal equations G = AᵀA (n×n) and c = Aᵀb, by the Lawson–Hanson
// active-set method (Solving Least Squares Problems, 1974, ch. 23): add the
// variable with the largest positive gradient c − Gw to the passive set,
// solve the normal equations on the passive set, and step back towards
// feasibility whenever that solution has a non-positive entry.
//
// Working on G instead of A makes one iteration cost a k×k Cholesky
// factorization plus O(n·k) for k passive variables, and lets Kriging reuse
// G = ΓᵀΓ for every query of a fitted model. (regress.NNLS works on A; this
// private version exists for that reuse, which the M-LISP benchmark needs.)
func nnlsGram(G *mat.Dense, c []float64) []float64 {
	n := len(c)
	w := make([]float64, n)
	passive := make([]bool, n)
	grad := make([]float64, n)
	var cmax float64
	for i := 0; i < n; i++ {
		cmax = math.Max(cmax, math.Abs(c[i]))
	}
	tol := 1e-12 * cmax
	st := newCholState(G)
	for iter := 0; iter < 3*n; iter++ {
		// grad = c − Gw
		for j := 0; j < n; j++ {
			s := c[j]
			row := G.RawRowView(j)
			for k, wk := range w {
				if wk != 0 {
					s -= row[k] * wk
				}
			}
			grad[j] = s
		}
		t, best := -1, tol
		for j := 0; j < n; j++ {
			if !passive[j] && grad[j] > best {
				t, best = j, grad[j]
			}
		}
		if t < 0 || !st.add(t) {
			// Optimal, or column t is (numerically) dependent on the
			// passive set and cannot lower the residual further.
			break
		}
		passive[t] = true
		for inner := 0; inner <= n; inner++ {
			z := st.solve(c)
			alpha := math.Inf(1)
			for k, j := range st.idx {
				if z[k] <= 0 {
					if d := w[j] - z[k]; d > 0 {
						alpha = math.Min(alpha, w[j]/d)
					}
				}
			}
			if math.IsInf(alpha, 1) { // feasible
				for j := range w {
					w[j] = 0
				}
				for k, j := range st.idx {
					w[j] = z[k]
				}
				break
			}
			keep := st.idx[:0:0]
			for k, j := range st.idx {
				w[j] += alpha * (z[k] - w[j])
				if w[j] <= 1e-14*math.Max(1, math.Abs(z[k])) {
					w[j] = 0
					passive[j] = false
				} else {
					keep = append(keep, j)
				}
			}
			if !st.rebuild(keep) {
				return w
			}
		}
	}
	return w
}

// cholState is the Cholesky factor L (L Lᵀ = G_PP) of the passive block,
// grown one column at a time in O(k²) and rebuilt when columns leave.
type cholState struct {
	G    *mat.Dense
	n    int
	idx  []int     // passive columns, in factor order
	L    []float64 // lower triangle, row-major with stride n
	dmax float64   // largest diagonal of G seen, for the pivot test
}

func newCholState(G *mat.Dense) *cholState {
	n, _ := G.Dims()
	return &cholState{G: G, n: n, L: make([]float64, n*n)}
}

// add appends column j; it returns false (and leaves the factor unchanged)
// when j's pivot is below 1e-14 of the largest diagonal: j depends on the
// passive columns.
func (s *cholState) add(j int) bool {
	k := len(s.idx)
	row := s.L[k*s.n : k*s.n+k+1]
	gj := s.G.RawRowView(j)
	for a := 0; a < k; a++ {
		sum := gj[s.idx[a]]
		la := s.L[a*s.n:]
		for q := 0; q < a; q++ {
			sum -= la[q] * row[q]
		}
		row[a] = sum / la[a]
	}
	d := gj[j]
	for q := 0; q < k; q++ {
		d -= row[q] * row[q]
	}
	dmax := math.Max(s.dmax, gj[j])
	if d <= 1e-14*dmax {
		return false
	}
	s.dmax = dmax
	row[k] = math.Sqrt(d)
	s.idx = append(s.idx, j)
	return true
}

// rebuild refactors the block of the given columns from scratch.
func (s *cholState) rebuild(cols []int) bool {
	s.idx = s.idx[:0]
	s.dmax = 0
	for _, j := range cols {
		if !s.add(j) {
			return false
		}
	}
	return true
}

// solve returns z with G_PP z = c_P, by forward and back substitution.
func (s *cholState) solve(c []float64) []float64 {
	k := len(s.idx)
	z := make([]float64, k)
	for a := 0; a < k; a++ {
		sum := c[s.idx[a]]
		la := s.L[a*s.n:]
		for q := 0; q < a; q++ {
			sum -= la[q] * z[q]
		}
		z[a] = sum / la[a]
	}
	for a := k - 1; a >= 0; a-- {
		sum := z[a]
		for q := a + 1; q < k; q++ {
			sum -= s.L[q*s.n+a] * z[q]
		}
		z[a] = sum / s.L[a*s.n+a]
	}
	return z
}

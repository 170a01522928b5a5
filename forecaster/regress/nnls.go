package regress

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// NNLS solves the non-negative least-squares problem
//
//	minimize ||A x − b||₂  subject to  x ≥ 0
//
// for A m×n (any shape) and b of length m, by forming the normal equations
// G = AᵀA, c = Aᵀb and solving them with NNLSGram. Squaring A squares its
// condition number: scale the columns of A to comparable norms first when
// they differ by orders of magnitude (conservation's cost fit does).
func NNLS(A mat.Matrix, b []float64) ([]float64, error) {
	if A == nil {
		return nil, inputError("A", "nil matrix")
	}
	m, n := A.Dims()
	if m == 0 || n == 0 {
		return nil, inputError("A", "empty (%d×%d)", m, n)
	}
	if len(b) != m {
		return nil, inputError("b", "length %d does not match %d rows of A", len(b), m)
	}
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			if v := A.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, inputError("A", "element (%d,%d) is %v", i, j, v)
			}
		}
	}
	if err := CheckVector("b", b); err != nil {
		return nil, err
	}
	var G mat.Dense
	G.Mul(A.T(), A)
	c := make([]float64, n)
	mat.NewVecDense(n, c).MulVec(A.T(), mat.NewVecDense(m, b))
	if !allFinite(G.RawMatrix().Data) || !allFinite(c) {
		return nil, inputError("A, b", "AᵀA or Aᵀb overflows float64; rescale A and b")
	}
	return NNLSGram(&G, c)
}

// NNLSGram solves the non-negative least-squares problem
//
//	min ‖A w − b‖₂  subject to  w ≥ 0
//
// given its normal equations G = AᵀA (n×n, symmetric positive
// semi-definite, finite) and c = Aᵀb, by the Lawson–Hanson active-set method
// (Solving Least Squares Problems, 1974, ch. 23): add the variable with the
// largest positive gradient c − Gw to the passive set, solve the normal
// equations on the passive set, and step back towards feasibility whenever
// that solution has a non-positive entry. It stops when no gradient of a
// zero variable exceeds 10⁻¹²·max|c|, or when the column that would enter
// depends numerically on the passive ones (it cannot lower the residual).
//
// Working on G makes one iteration cost a k×k Cholesky update plus O(n·k)
// for k passive variables, and lets a caller that solves many problems with
// one A (Kriging: G = ΓᵀΓ for every query of a fitted model) form G once.
// After 3n outer iterations without meeting the conditions it returns the
// current feasible w with an error wrapping ErrNotConverged.
func NNLSGram(G *mat.Dense, c []float64) ([]float64, error) {
	if G == nil {
		return nil, inputError("G", "nil matrix")
	}
	if err := CheckVector("c", c); err != nil {
		return nil, err
	}
	n := len(c)
	if r, k := G.Dims(); r != n || k != n {
		return nil, inputError("G", "%d×%d does not match c of length %d", r, k, n)
	}
	for i := 0; i < n; i++ {
		if !allFinite(G.RawRowView(i)) {
			return nil, inputError("G", "row %d holds a NaN or ±Inf", i)
		}
	}
	w, err := activeSet(G, c)
	if !allFinite(w) {
		return nil, inputError("G, c", "the solution overflowed float64; rescale the problem")
	}
	return w, err
}

// activeSet is NNLSGram's loop.
func activeSet(G *mat.Dense, c []float64) ([]float64, error) {
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
	for iter := 0; ; iter++ {
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
			return w, nil
		}
		if iter >= 3*n {
			return w, fmt.Errorf("regress: NNLS %w in %d iterations (largest gradient %.3g > tol %.3g)", ErrNotConverged, 3*n, best, tol)
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
				// The remaining passive columns became numerically
				// dependent: w is feasible and as good as this precision
				// can make it.
				return w, nil
			}
		}
	}
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

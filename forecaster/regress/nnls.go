package regress

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// NNLS solves the non-negative least-squares problem
//
//	minimize ||A x − b||₂  subject to  x ≥ 0
//
// by the active-set method of Lawson and Hanson (Solving Least Squares
// Problems, 1974, ch. 23). A is m×n (any shape), b has length m. Each inner
// step solves an unconstrained least-squares problem on the passive columns
// by QR. The loop stops when every dual variable w = A'(b − Ax) of an active
// (zero) coordinate is ≤ tol = 10·ε·||A||₁·max(m, n), as in SciPy's nnls, or
// after 3n outer iterations (an error).
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
	a := mat.DenseCopyOf(A)
	tol := 10 * 2.220446049250313e-16 * mat.Norm(a, 1) * float64(max(m, n))
	x := make([]float64, n)
	passive := make([]bool, n)
	w := make([]float64, n)
	resid := make([]float64, m)
	bv := mat.NewVecDense(m, b)

	dual := func() {
		var ax mat.VecDense
		ax.MulVec(a, mat.NewVecDense(n, x))
		for i := range resid {
			resid[i] = b[i] - ax.AtVec(i)
		}
		wv := mat.NewVecDense(n, w)
		wv.MulVec(a.T(), mat.NewVecDense(m, resid))
	}
	// solve returns the unconstrained least-squares solution on the passive set.
	solve := func() ([]float64, error) {
		var idx []int
		for j, p := range passive {
			if p {
				idx = append(idx, j)
			}
		}
		z := make([]float64, n)
		if len(idx) == 0 {
			return z, nil
		}
		sub := mat.NewDense(m, len(idx), nil)
		for c, j := range idx {
			for i := 0; i < m; i++ {
				sub.Set(i, c, a.At(i, j))
			}
		}
		// Dense.Solve uses QR, or LQ (minimum norm) when the passive set has
		// more columns than A has rows, which rounding can cause.
		var sol mat.Dense
		if err := sol.Solve(sub, bv); err != nil {
			var cond mat.Condition
			if !errors.As(err, &cond) {
				return nil, err
			}
			// Nearly dependent passive columns: the solution is still the
			// least-squares one to working precision; keep going.
		}
		for c, j := range idx {
			z[j] = sol.At(c, 0)
		}
		return z, nil
	}

	maxIter := 3 * n
	dual()
	for iter := 0; ; iter++ {
		t, wmax := -1, tol
		for j := 0; j < n; j++ {
			if !passive[j] && w[j] > wmax {
				t, wmax = j, w[j]
			}
		}
		if t < 0 {
			if !allFinite(x) {
				return nil, fmt.Errorf("%w: A, b: the solution overflowed float64; rescale A and b", ErrInput)
			}
			return x, nil
		}
		if iter >= maxIter {
			return x, fmt.Errorf("regress: NNLS did not converge in %d iterations (max dual %.3g > tol %.3g)", maxIter, wmax, tol)
		}
		passive[t] = true
		for inner := 0; ; inner++ {
			z, err := solve()
			if err != nil {
				return nil, fmt.Errorf("regress: NNLS: %w", err)
			}
			feasible := true
			for j := 0; j < n; j++ {
				if passive[j] && z[j] <= 0 {
					feasible = false
					break
				}
			}
			if feasible || inner > 3*n {
				copy(x, z)
				for j := range x {
					if !passive[j] || x[j] < 0 {
						x[j] = 0
					}
				}
				break
			}
			// Step from x towards z until the first passive coordinate hits 0.
			alpha := math.Inf(1)
			for j := 0; j < n; j++ {
				if passive[j] && z[j] <= 0 {
					if r := x[j] / (x[j] - z[j]); r < alpha {
						alpha = r
					}
				}
			}
			for j := 0; j < n; j++ {
				x[j] += alpha * (z[j] - x[j])
				if passive[j] && x[j] <= tol {
					passive[j] = false
					x[j] = 0
				}
			}
		}
		dual()
		if floats.HasNaN(x) || floats.HasNaN(w) {
			return nil, fmt.Errorf("%w: A, b: numerical breakdown (NaN); values too large or too small", ErrInput)
		}
	}
}

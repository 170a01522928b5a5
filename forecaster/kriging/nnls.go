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
	var gmax, cmax float64
	for i := 0; i < n; i++ {
		gmax = math.Max(gmax, math.Abs(G.At(i, i)))
		cmax = math.Max(cmax, math.Abs(c[i]))
	}
	tol := 1e-12 * math.Max(cmax, gmax*1e-300)
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
		if t < 0 {
			break
		}
		passive[t] = true
		for inner := 0; inner <= n; inner++ {
			z, idx, ok := passiveSolve(G, c, passive)
			if !ok {
				// Column t is (numerically) dependent on the passive set.
				passive[t] = false
				return w
			}
			alpha := math.Inf(1)
			for k, j := range idx {
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
				for k, j := range idx {
					w[j] = z[k]
				}
				break
			}
			for k, j := range idx {
				w[j] += alpha * (z[k] - w[j])
				if w[j] <= 1e-14*math.Max(1, math.Abs(z[k])) {
					w[j] = 0
					passive[j] = false
				}
			}
		}
	}
	return w
}

// passiveSolve solves G_PP z = c_P on the passive set P by a plain
// Cholesky factorization (gonum's mat.Cholesky also estimates the condition
// number, which doubled the cost of M-LISP's extrapolation). ok is false when
// G_PP is not numerically positive definite: a pivot below 1e-14 of the
// largest diagonal means the newest column depends on the others.
func passiveSolve(G *mat.Dense, c []float64, passive []bool) (z []float64, idx []int, ok bool) {
	for j, p := range passive {
		if p {
			idx = append(idx, j)
		}
	}
	k := len(idx)
	if k == 0 {
		return nil, nil, true
	}
	L := make([]float64, k*k) // lower triangle, row-major
	var dmax float64
	for _, i := range idx {
		dmax = math.Max(dmax, G.At(i, i))
	}
	for a := 0; a < k; a++ {
		ra := G.RawRowView(idx[a])
		for b := 0; b <= a; b++ {
			sum := ra[idx[b]]
			for q := 0; q < b; q++ {
				sum -= L[a*k+q] * L[b*k+q]
			}
			if a == b {
				if sum <= 1e-14*dmax {
					return nil, nil, false
				}
				L[a*k+a] = math.Sqrt(sum)
			} else {
				L[a*k+b] = sum / L[b*k+b]
			}
		}
	}
	// Forward then back substitution.
	z = make([]float64, k)
	for a := 0; a < k; a++ {
		sum := c[idx[a]]
		for q := 0; q < a; q++ {
			sum -= L[a*k+q] * z[q]
		}
		z[a] = sum / L[a*k+a]
	}
	for a := k - 1; a >= 0; a-- {
		sum := z[a]
		for q := a + 1; q < k; q++ {
			sum -= L[q*k+a] * z[q]
		}
		z[a] = sum / L[a*k+a]
	}
	return z, idx, true
}

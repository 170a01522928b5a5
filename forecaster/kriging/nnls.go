package kriging

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// nnls solves min ‖A w − b‖₂ subject to w ≥ 0 by the Lawson–Hanson active-set
// method (Lawson & Hanson, Solving Least Squares Problems, 1974, ch. 23).
// A is m×n. The passive-set subproblems are solved by QR least squares on the
// passive columns only, so one iteration costs O(m·k²) for k passive columns;
// Kriging weights are sparse (a few nearby samples), so k stays small.
func nnls(A *mat.Dense, b []float64) []float64 {
	m, n := A.Dims()
	w := make([]float64, n)
	passive := make([]bool, n)
	resid := make([]float64, m)
	grad := make([]float64, n)
	copy(resid, b)
	var bnorm float64
	for _, v := range b {
		bnorm = math.Max(bnorm, math.Abs(v))
	}
	var anorm float64
	for i := 0; i < m; i++ {
		for _, v := range A.RawRowView(i) {
			anorm = math.Max(anorm, math.Abs(v))
		}
	}
	tol := 10 * float64(max(m, n)*m) * 2.2e-16 * anorm * bnorm
	maxIter := 3 * n
	for iter := 0; iter < maxIter; iter++ {
		// grad = Aᵀ(b − Aw)
		for j := range grad {
			grad[j] = 0
		}
		for i := 0; i < m; i++ {
			r := resid[i]
			if r == 0 {
				continue
			}
			row := A.RawRowView(i)
			for j, a := range row {
				grad[j] += a * r
			}
		}
		t, gmax := -1, tol
		for j := 0; j < n; j++ {
			if !passive[j] && grad[j] > gmax {
				t, gmax = j, grad[j]
			}
		}
		if t < 0 {
			break
		}
		passive[t] = true
		for inner := 0; inner <= n; inner++ {
			z, idx, ok := passiveLS(A, b, passive)
			if !ok {
				// The new column is dependent on the passive ones: give up on it.
				passive[t] = false
				break
			}
			feasible := true
			alpha := math.Inf(1)
			for k, j := range idx {
				if z[k] <= 0 {
					feasible = false
					if d := w[j] - z[k]; d > 0 {
						alpha = math.Min(alpha, w[j]/d)
					}
				}
			}
			if feasible {
				for j := range w {
					w[j] = 0
				}
				for k, j := range idx {
					w[j] = z[k]
				}
				break
			}
			if math.IsInf(alpha, 1) {
				alpha = 0
			}
			for k, j := range idx {
				w[j] += alpha * (z[k] - w[j])
				if w[j] <= 1e-15*math.Max(1, math.Abs(z[k])) {
					w[j] = 0
					passive[j] = false
				}
			}
		}
		// resid = b − Aw
		copy(resid, b)
		for i := 0; i < m; i++ {
			row := A.RawRowView(i)
			var s float64
			for j, wj := range w {
				if wj != 0 {
					s += row[j] * wj
				}
			}
			resid[i] -= s
		}
	}
	return w
}

// passiveLS solves the unconstrained least-squares problem on the passive
// columns. ok is false when those columns are rank deficient.
func passiveLS(A *mat.Dense, b []float64, passive []bool) (z []float64, idx []int, ok bool) {
	m, _ := A.Dims()
	for j, p := range passive {
		if p {
			idx = append(idx, j)
		}
	}
	k := len(idx)
	if k == 0 {
		return nil, nil, true
	}
	if k > m {
		return nil, nil, false
	}
	sub := mat.NewDense(m, k, nil)
	for i := 0; i < m; i++ {
		row := A.RawRowView(i)
		dst := sub.RawRowView(i)
		for c, j := range idx {
			dst[c] = row[j]
		}
	}
	var qr mat.QR
	qr.Factorize(sub)
	if c := qr.Cond(); math.IsInf(c, 1) || c > 1e13 {
		return nil, nil, false
	}
	var x mat.Dense
	if err := qr.SolveTo(&x, false, mat.NewDense(m, 1, append([]float64(nil), b...))); err != nil {
		return nil, nil, false
	}
	z = make([]float64, k)
	for c := range z {
		z[c] = x.At(c, 0)
	}
	return z, idx, true
}

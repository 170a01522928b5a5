package kriging

import (
	"math"

	"github.com/storcast/storcast/forecaster/internal/check"
	"github.com/storcast/storcast/forecaster/regress"
	"gonum.org/v1/gonum/mat"
)

// inputError returns an error wrapping regress.ErrInput that names the argument.
func inputError(arg, format string, a ...any) error {
	return check.Errorf(regress.ErrInput, arg, format, a...)
}

// variogramReach is how far, in multiples of the largest training distance,
// the cubic is checked for monotonicity and used as fitted. Beyond it the
// model holds the value it reached there, a sill (see Variogram.At).
const variogramReach = 1.0

// Variogram is the cubic model variogram
//
//	γ(d) = C0 + C1·t + C2·t² + C3·t³,   t = d / Scale,
//
// fitted by least squares to the experimental variogram (the paper's
// "polynomial regression", a full cubic), for d > 0. C0 ≥ 0 is the nugget:
// the semivariance the data show between (almost) coincident samples, i.e.
// measurement noise. As usual in geostatistics γ(0) = 0 exactly and C0 is
// the limit at 0⁺, so Kriging still reproduces its training points and
// near-duplicate samples do not make the system singular. Scale is the largest
// pairwise distance of the training data, which keeps the normal equations
// well conditioned whatever the units of x.
//
// The fit is guaranteed non-negative and non-decreasing on [0, Scale]. Beyond
// Scale, where no pair of samples constrains it, γ is held at γ(Scale), as a
// bounded variogram reaches its sill. Why: a cubic extrapolated in distance
// grows like d³, so a query just outside the data sees h entries larger than
// anything in Γ; ordinary weights then oscillate and the paper's
// non-negative weights scale up without bound (M-LISP's extrapolated
// latency grew by 10× per step in our tests before this cap).
type Variogram struct {
	C0    float64 `json:"c0"`
	C1    float64 `json:"c1"`
	C2    float64 `json:"c2"`
	C3    float64 `json:"c3"`
	Scale float64 `json:"scale"`
}

// At returns γ(d) for d ≥ 0 (0 at d = 0).
func (v Variogram) At(d float64) float64 {
	if d == 0 {
		return 0
	}
	if v.Scale <= 0 {
		return v.C0
	}
	t := d / v.Scale
	if t <= variogramReach {
		return ((v.C3*t+v.C2)*t+v.C1)*t + v.C0
	}
	// Beyond the fitted range: hold the value reached (a sill).
	return v.C0 + v.C1 + v.C2 + v.C3
}

// monotone reports whether γ'(t) = C1 + 2C2 t + 3C3 t² ≥ 0 on [0, Reach].
// With C0 ≥ 0 a non-decreasing γ is also non-negative there.
func (v Variogram) monotone() bool {
	der := func(t float64) float64 { return v.C1 + 2*v.C2*t + 3*v.C3*t*t }
	tol := -1e-12 * (math.Abs(v.C1) + math.Abs(v.C2) + math.Abs(v.C3))
	if der(0) < tol || der(variogramReach) < tol {
		return false
	}
	if v.C3 > 0 { // convex derivative: check its minimum
		if tm := -v.C2 / (3 * v.C3); tm > 0 && tm < variogramReach && der(tm) < tol {
			return false
		}
	}
	return true
}

// ExperimentalVariogram returns, for every pair i < j of rows of X, the
// distance d_ij = ‖x_i − x_j‖ (Euclidean; x may be a vector, so scale its
// columns comparably) and the semivariance g_ij = ½ (f_i − f_j)². The pairs
// are listed in row-major order of (i, j).
func ExperimentalVariogram(X mat.Matrix, f []float64) (dist, gamma []float64, err error) {
	if err := regress.CheckXY(X, f); err != nil {
		return nil, nil, err
	}
	rows := denseRows(X)
	n := len(rows)
	if n < 2 {
		return nil, nil, inputError("X", "%d row; a variogram needs at least 2", n)
	}
	m := n * (n - 1) / 2
	dist = make([]float64, 0, m)
	gamma = make([]float64, 0, m)
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			dist = append(dist, euclid(rows[i], rows[j]))
			df := f[i] - f[j]
			gamma = append(gamma, 0.5*df*df)
		}
	}
	return dist, gamma, nil
}

// FitVariogram fits the cubic model variogram to experimental pairs
// (dist, gamma) by least squares, min Σ (g_k − γ(d_k))².
//
// The unconstrained least-squares cubic is used when its nugget C0 is ≥ 0 and
// it is non-decreasing on [0, max d]; otherwise (a cubic that dips or turns
// down, which would make far points look more alike than near ones) the fit
// is repeated with C0…C3 ≥ 0, which is monotone for every d ≥ 0. That
// constrained problem has four unknowns and is solved exactly by trying every
// subset of free coefficients.
//
// A pure nugget (γ = C0 for d > 0: no spatial correlation) is a valid
// result; Kriging then returns the (trend plus the) mean. A zero variogram
// (all g = 0: a constant target) or all-zero distances (every sample at the
// same x) are errors.
func FitVariogram(dist, gamma []float64) (Variogram, error) {
	if err := regress.CheckVector("dist", dist); err != nil {
		return Variogram{}, err
	}
	if err := regress.CheckVector("gamma", gamma); err != nil {
		return Variogram{}, err
	}
	if len(dist) != len(gamma) {
		return Variogram{}, inputError("gamma", "length %d does not match %d distances", len(gamma), len(dist))
	}
	var dmax, gmax float64
	for k, d := range dist {
		if d < 0 {
			return Variogram{}, inputError("dist", "element %d is negative (%v)", k, d)
		}
		if gamma[k] < 0 {
			return Variogram{}, inputError("gamma", "element %d is negative (%v)", k, gamma[k])
		}
		dmax = math.Max(dmax, d)
		gmax = math.Max(gmax, gamma[k])
	}
	if dmax == 0 {
		return Variogram{}, inputError("dist", "all distances are zero: every sample is at the same point")
	}
	if gmax == 0 {
		return Variogram{}, inputError("f", "constant target: the experimental variogram is zero everywhere")
	}
	// Normal equations A'A c = A'g with A_k = (1, t, t², t³), t = d/dmax ∈ [0,1].
	var ata [4][4]float64
	var atg [4]float64
	for k, d := range dist {
		t := d / dmax
		b := [4]float64{1, t, t * t, t * t * t}
		for a := 0; a < 4; a++ {
			atg[a] += b[a] * gamma[k]
			for c := 0; c < 4; c++ {
				ata[a][c] += b[a] * b[c]
			}
		}
	}
	best := Variogram{Scale: dmax}
	bestSSE := math.Inf(1)
	// Mask 15 = all four free (unconstrained); the others are the
	// candidates of the non-negative fit.
	try := func(mask int, needNonNeg bool) {
		c, ok := solveSubset(ata, atg, mask)
		if !ok {
			return
		}
		if c[0] < 0 || (needNonNeg && (c[1] < 0 || c[2] < 0 || c[3] < 0)) {
			return
		}
		v := Variogram{C0: c[0], C1: c[1], C2: c[2], C3: c[3], Scale: dmax}
		if !needNonNeg && !v.monotone() {
			return
		}
		// SSE up to the constant Σg²: c'A'Ac − 2c'A'g.
		var sse float64
		for a := 0; a < 4; a++ {
			sse -= 2 * c[a] * atg[a]
			for b := 0; b < 4; b++ {
				sse += c[a] * ata[a][b] * c[b]
			}
		}
		if sse < bestSSE {
			bestSSE, best = sse, v
		}
	}
	try(15, false)
	if math.IsInf(bestSSE, 1) {
		for mask := 1; mask < 15; mask++ {
			try(mask, true)
		}
	}
	if math.IsInf(bestSSE, 1) || (best.C0 == 0 && best.C1 == 0 && best.C2 == 0 && best.C3 == 0) {
		return Variogram{}, inputError("gamma", "no non-negative, non-decreasing cubic variogram fits the data")
	}
	return best, nil
}

// solveSubset solves the normal equations restricted to the coefficients in
// mask (bit a set = coefficient a free, others fixed at 0).
func solveSubset(ata [4][4]float64, atg [4]float64, mask int) ([4]float64, bool) {
	var idx []int
	for a := 0; a < 4; a++ {
		if mask&(1<<a) != 0 {
			idx = append(idx, a)
		}
	}
	k := len(idx)
	A := mat.NewDense(k, k, nil)
	b := mat.NewVecDense(k, nil)
	for r, a := range idx {
		b.SetVec(r, atg[a])
		for c, bb := range idx {
			A.Set(r, c, ata[a][bb])
		}
	}
	var x mat.VecDense
	if err := x.SolveVec(A, b); err != nil {
		return [4]float64{}, false
	}
	var out [4]float64
	for r, a := range idx {
		v := x.AtVec(r)
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return [4]float64{}, false
		}
		out[a] = v
	}
	return out, true
}

func euclid(a, b []float64) float64 {
	var s float64
	for k := range a {
		d := a[k] - b[k]
		s += d * d
	}
	return math.Sqrt(s)
}

// denseRows copies the rows of X.
func denseRows(X mat.Matrix) [][]float64 {
	n, p := X.Dims()
	backing := make([]float64, n*p)
	rows := make([][]float64, n)
	for i := range rows {
		rows[i] = backing[i*p : (i+1)*p : (i+1)*p]
		mat.Row(rows[i], i, X)
	}
	return rows
}

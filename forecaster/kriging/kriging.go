package kriging

import (
	"errors"
	"fmt"
	"math"

	"github.com/storcast/storcast/forecaster/internal/enum"
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
	// Convex keeps w ≥ 0 and restores Σw = 1 (non-negative ordinary
	// Kriging, Szidarovszky et al. 1987): the prediction is a convex
	// combination of the samples, so it can never leave their range; the
	// variance is w'h. Solved as NNLS with the row √λ·(1…1 | 1) appended,
	// λ = 10⁶·max diag(ΓᵀΓ), which holds Σw = 1 to about 1e-6.
	Convex
)

var methodNames = []string{Ordinary: "ordinary", NonNegative: "nonnegative", Convex: "convex"}

func (m Method) String() string { return enum.String(m, "Method", methodNames) }

// Drift is the deterministic trend that Kriging works around.
type Drift int

const (
	// NoDrift Kriges f itself, as the M-LISP paper does.
	NoDrift Drift = iota
	// LinearDrift fits f = β₀ + βᵀx by least squares and Kriges the
	// residuals (regression Kriging): the prediction is the trend at x plus
	// the Kriged residual, and the variance is that of the residual.
	LinearDrift
)

var driftNames = []string{NoDrift: "none", LinearDrift: "linear"}

func (d Drift) String() string { return enum.String(d, "Drift", driftNames) }

// Options selects the Kriging system and the drift.
type Options struct {
	Method Method `json:"method"`
	Drift  Drift  `json:"drift"`
	// DriftColumns lists the columns of x the linear drift uses; nil means
	// every column. M-LISP drifts on IOPS only.
	DriftColumns []int `json:"drift_columns,omitempty"`
	// DriftRows, when > 0, fits the drift on the first DriftRows rows only;
	// the other rows still join the Kriging of the residuals. M-LISP passes
	// its observed leaf samples first and its synthetic samples after them,
	// so that synthetic points (which sit beyond the data, where they would
	// have the most leverage) cannot steer the trend they were made from.
	DriftRows int `json:"drift_rows,omitempty"`
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
	Drift     Drift
	Variogram Variogram
	// Trend holds β₀ and one β per drift column (nil for NoDrift).
	Trend []float64

	x     [][]float64 // distinct training points
	f     []float64   // their values (means over exact duplicates), minus the trend
	flat  bool        // residuals are all zero: the trend alone is the prediction
	trend *trendFit
	gamma *mat.Dense // Γ_ij = γ(‖x_i − x_j‖)
	gtg   *mat.Dense // NonNegative, Convex: ΓᵀΓ (+ λ11ᵀ), shared by every query
	lam   float64    // Convex: the sum-to-one penalty λ
	lu    *mat.LU    // Ordinary: LU of [[Γ 1][1' 0]]
}

// Fit builds the experimental variogram of (X, f) (of the residuals from the
// drift, with LinearDrift), fits the cubic model variogram and prepares the
// Kriging system for opt.Method.
//
// Rows of X that are exactly equal are merged into one point whose value is
// the mean of theirs: a repeated point makes the ordinary Kriging system
// singular and carries no extra spatial information. X and f must be finite,
// of matching length, with at least two distinct rows and a non-constant f.
func Fit(X mat.Matrix, f []float64, opt Options) (*Model, error) {
	if opt.Method != Ordinary && opt.Method != NonNegative && opt.Method != Convex {
		return nil, inputError("Method", "unknown Kriging method %d", int(opt.Method))
	}
	if opt.Drift != NoDrift && opt.Drift != LinearDrift {
		return nil, inputError("Drift", "unknown drift %d", int(opt.Drift))
	}
	if err := regress.CheckXY(X, f); err != nil {
		return nil, err
	}
	_, p := X.Dims()
	for _, j := range opt.DriftColumns {
		if j < 0 || j >= p {
			return nil, inputError("DriftColumns", "column %d outside [0,%d)", j, p)
		}
	}
	lo, hi := f[0], f[0]
	for _, v := range f {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	if lo == hi {
		return nil, inputError("f", "constant target (%v): the experimental variogram is zero everywhere", lo)
	}
	n, _ := X.Dims()
	if opt.DriftRows < 0 || opt.DriftRows > n {
		return nil, inputError("DriftRows", "%d outside [0,%d]", opt.DriftRows, n)
	}
	rows, vals, first := mergeDuplicates(denseRows(X), f)
	if len(rows) < 2 {
		return nil, inputError("X", "fewer than 2 distinct rows; Kriging needs at least 2")
	}
	var trend *trendFit
	if opt.Drift == LinearDrift {
		driftRows, driftVals := rows, vals
		if opt.DriftRows > 0 {
			driftRows, driftVals = nil, nil
			for k, r := range rows {
				if first[k] < opt.DriftRows {
					driftRows = append(driftRows, r)
					driftVals = append(driftVals, vals[k])
				}
			}
		}
		trend = fitTrend(driftRows, driftVals, opt.DriftColumns)
		for _, b := range append([]float64{trend.s2}, trend.beta...) {
			if math.IsNaN(b) || math.IsInf(b, 0) {
				return nil, inputError("f", "the linear drift is not finite: X or f span too many orders of magnitude")
			}
		}
		var rmax float64
		for i, r := range rows {
			vals[i] -= trend.at(r)
			rmax = math.Max(rmax, math.Abs(vals[i]))
		}
		flat := &Model{Method: opt.Method, Drift: opt.Drift, Trend: trend.beta, trend: trend, x: rows, f: vals, flat: true}
		if rmax <= 1e-9*(hi-lo) {
			// f is linear up to rounding: the trend is the whole answer.
			return flat, nil
		}
		m, err := fitRows(rows, vals, opt.Method)
		if err != nil {
			// The residuals carry no usable spatial structure (a zero or
			// degenerate variogram): predict with the trend alone, whose
			// variance already includes the residual variance s².
			return flat, nil
		}
		m.Drift, m.Trend, m.trend = opt.Drift, trend.beta, trend
		return m, nil
	}
	m, err := fitRows(rows, vals, opt.Method)
	if err != nil {
		return nil, err
	}
	return m, nil
}

// trendFit is a least-squares linear trend f ≈ β₀ + βᵀx with what is needed
// for its prediction variance s²(1/n + zᵀ(Z_inᵀZ_in)⁻¹z), z = (x − mean)/scale
// on the columns that entered the trend.
type trendFit struct {
	cols  []int     // columns of x the trend was asked to use
	in    []int     // positions in cols that entered it (the others have β = 0)
	beta  []float64 // β₀, then one β per entry of cols, in the units of x
	mean  []float64
	scale []float64
	chol  *mat.Cholesky // of Z_inᵀZ_in (+ tiny ridge); nil when degenerate
	s2    float64       // residual variance Σr²/(n − p − 1), p = len(in)
	n     int
}

// maxDriftR2 is the largest share of a drift column's variance that the
// columns already in the trend may explain for it to enter: R² 0.9, a
// variance inflation factor of 10, the textbook mark of serious
// collinearity.
const maxDriftR2 = 0.9

// fitTrend fits f ≈ β₀ + βᵀx by least squares on centred and scaled columns.
// The columns enter in their order, each only if those already in explain
// at most 90% of its variance (maxDriftR2) and a residual degree of freedom
// is left: in M-LISP counters follow the load (bytes are size × ops), and a
// coefficient fitted along such a near-exact relation is not identified; a
// query off the relation (the walk Kriges each counter at the next load
// with the previous step's counters) would be carried along it without
// bound. A column left out has β = 0; the first (M-LISP's IOPS) always
// enters when it varies. A tiny ridge (1e-8, relative) guards what remains.
func fitTrend(allRows [][]float64, f []float64, cols []int) *trendFit {
	if cols == nil {
		for j := range allRows[0] {
			cols = append(cols, j)
		}
	}
	n, p := len(allRows), len(cols)
	rows := make([][]float64, n)
	for i, r := range allRows {
		rows[i] = make([]float64, p)
		for k, j := range cols {
			rows[i][k] = r[j]
		}
	}
	tf := &trendFit{cols: cols, mean: make([]float64, p), scale: make([]float64, p), n: n}
	var fm float64
	for i, r := range rows {
		for j, v := range r {
			tf.mean[j] += v
		}
		fm += f[i]
	}
	fm /= float64(n)
	for j := range tf.mean {
		tf.mean[j] /= float64(n)
	}
	for _, r := range rows {
		for j, v := range r {
			tf.scale[j] += (v - tf.mean[j]) * (v - tf.mean[j])
		}
	}
	for j := range tf.scale {
		tf.scale[j] = math.Sqrt(tf.scale[j] / float64(n))
		if tf.scale[j] == 0 {
			tf.scale[j] = 1
		}
	}
	// The Gram matrix of the scaled columns and their products with f.
	G := mat.NewSymDense(p, nil)
	g := make([]float64, p)
	z := make([]float64, p)
	for i, r := range rows {
		for j, v := range r {
			z[j] = (v - tf.mean[j]) / tf.scale[j]
		}
		for j := 0; j < p; j++ {
			g[j] += z[j] * (f[i] - fm)
			for k := j; k < p; k++ {
				G.SetSym(j, k, G.At(j, k)+z[j]*z[k])
			}
		}
	}
	tf.in = driftColumnsIn(G, n)
	q := len(tf.in)
	tf.beta = make([]float64, p+1)
	tf.beta[0] = fm
	if q > 0 {
		A := subGram(G, tf.in)
		b := mat.NewVecDense(q, nil)
		for a, j := range tf.in {
			b.SetVec(a, g[j])
		}
		var chol mat.Cholesky
		var sol mat.VecDense
		ok := chol.Factorize(A) && chol.Cond() < 1e12
		if !ok {
			for a := 0; a < q; a++ {
				A.SetSym(a, a, A.At(a, a)*(1+1e-8)+1e-8*float64(n))
			}
			ok = chol.Factorize(A)
		}
		if ok && chol.SolveVecTo(&sol, b) == nil {
			for a, j := range tf.in {
				c := sol.AtVec(a) / tf.scale[j]
				tf.beta[j+1] = c
				tf.beta[0] -= c * tf.mean[j]
			}
			tf.chol = &chol
		}
	}
	var rss float64
	for i, r := range allRows {
		e := f[i] - tf.at(r)
		rss += e * e
	}
	if dof := n - len(tf.in) - 1; dof > 0 {
		tf.s2 = rss / float64(dof)
	}
	return tf
}

// driftColumnsIn picks the columns of the trend from the Gram matrix G of n
// centred, scaled rows: in order, a column enters when it varies, the
// columns already in explain at most maxDriftR2 of its variance
// (R² = G_jS·G_SS⁻¹·G_Sj / G_jj) and at least one residual degree of freedom
// is left (n − |S| − 2 ≥ 0 after it enters).
func driftColumnsIn(G *mat.SymDense, n int) []int {
	p := G.SymmetricDim()
	var in []int
	for j := 0; j < p && len(in)+2 < n; j++ {
		gjj := G.At(j, j)
		if !(gjj > 1e-12*float64(n)) {
			continue // constant in these rows: no slope to fit
		}
		if len(in) > 0 {
			c := mat.NewVecDense(len(in), nil)
			for a, k := range in {
				c.SetVec(a, G.At(j, k))
			}
			var chol mat.Cholesky
			var u mat.VecDense
			if !chol.Factorize(subGram(G, in)) || chol.SolveVecTo(&u, c) != nil {
				continue
			}
			if mat.Dot(c, &u)/gjj > maxDriftR2 {
				continue
			}
		}
		in = append(in, j)
	}
	return in
}

// subGram is the block of G on the rows and columns idx.
func subGram(G *mat.SymDense, idx []int) *mat.SymDense {
	S := mat.NewSymDense(len(idx), nil)
	for a, j := range idx {
		for b := a; b < len(idx); b++ {
			S.SetSym(a, b, G.At(j, idx[b]))
		}
	}
	return S
}

// at evaluates the trend at a full input vector x.
func (tf *trendFit) at(x []float64) float64 {
	v := tf.beta[0]
	for k, j := range tf.cols {
		v += tf.beta[k+1] * x[j]
	}
	return v
}

// variance is the least-squares prediction variance of the trend at x.
func (tf *trendFit) variance(x []float64) float64 {
	v := 1 / float64(tf.n)
	if tf.chol != nil {
		z := mat.NewVecDense(len(tf.in), nil)
		for a, k := range tf.in {
			z.SetVec(a, (x[tf.cols[k]]-tf.mean[k])/tf.scale[k])
		}
		var u mat.VecDense
		if tf.chol.SolveVecTo(&u, z) == nil {
			v += mat.Dot(z, &u)
		}
	}
	return tf.s2 * v
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
	if method == NonNegative || method == Convex {
		mod.gtg = new(mat.Dense)
		mod.gtg.Mul(G.T(), G)
	}
	if method == Convex {
		var dmax float64
		for i := 0; i < n; i++ {
			dmax = math.Max(dmax, mod.gtg.At(i, i))
		}
		mod.lam = 1e6 * math.Max(dmax, 1e-300)
		raw := mod.gtg.RawMatrix()
		for i := 0; i < n; i++ {
			row := raw.Data[i*raw.Stride : i*raw.Stride+n]
			for j := range row {
				row[j] += mod.lam
			}
		}
	}
	return mod, nil
}

// mergeDuplicates averages f over rows of X that are exactly equal. first[k]
// is the index of the first input row merged into output row k.
func mergeDuplicates(rows [][]float64, f []float64) (out [][]float64, vals []float64, first []int) {
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
		first = append(first, i)
		sums = append(sums, acc{f[i], 1})
	}
	vals = make([]float64, len(sums))
	for k, a := range sums {
		vals[k] = a.sum / float64(a.n)
	}
	return outRows, vals, first
}

// Len is the number of distinct training points.
func (m *Model) Len() int { return len(m.x) }

// Estimate returns the Kriging prediction at x, Σ w_i f_i (plus the trend
// with LinearDrift), with its variance and 95% band. The Kriging variance is
// clamped at 0: a cubic is not guaranteed to be a valid (conditionally
// negative definite) variogram, so w'h can come out slightly negative.
func (m *Model) Estimate(x []float64) (Prediction, error) {
	if err := m.checkQuery(x); err != nil {
		return Prediction{}, err
	}
	var trend, trendVar float64
	if m.trend != nil {
		trend = m.trend.at(x)
		trendVar = m.trend.variance(x)
	}
	if m.flat {
		if math.IsNaN(trend) || math.IsInf(trend, 0) || math.IsNaN(trendVar) || math.IsInf(trendVar, 0) {
			return Prediction{}, inputError("x", "the drift estimate is not finite (%v ± %v)", trend, trendVar)
		}
		band := 2 * math.Sqrt(trendVar)
		return Prediction{Mean: trend, Variance: trendVar, Lower: trend - band, Upper: trend + band}, nil
	}
	w, h, mu, err := m.weights(x)
	if err != nil {
		return Prediction{}, err
	}
	mean, variance := trend, mu
	for i, wi := range w {
		mean += wi * m.f[i]
		variance += wi * h[i]
	}
	if variance < 0 || math.IsNaN(variance) {
		variance = 0
	}
	variance += trendVar
	if math.IsNaN(mean) || math.IsInf(mean, 0) || math.IsNaN(variance) || math.IsInf(variance, 0) {
		return Prediction{}, inputError("x", "the Kriging estimate is not finite (mean %v, variance %v)", mean, variance)
	}
	band := 2 * math.Sqrt(variance)
	return Prediction{Mean: mean, Variance: variance, Lower: mean - band, Upper: mean + band}, nil
}

func (m *Model) checkQuery(x []float64) error {
	if len(m.x) == 0 {
		return errors.New("kriging: model is not fitted")
	}
	if len(x) != len(m.x[0]) {
		return inputError("x", "length %d, model fitted on %d columns", len(x), len(m.x[0]))
	}
	return regress.CheckVector("x", x)
}

// weights solves the Kriging system for a validated x. It returns the
// weights, h and, for Ordinary, the Lagrange multiplier μ (0 otherwise).
func (m *Model) weights(x []float64) (w, h []float64, mu float64, err error) {
	n := len(m.x)
	h = make([]float64, n)
	for i, xi := range m.x {
		h[i] = m.Variogram.At(euclid(xi, x))
	}
	if m.Method == NonNegative || m.Method == Convex {
		c := make([]float64, n)
		mat.NewVecDense(n, c).MulVec(m.gamma.T(), mat.NewVecDense(n, h))
		for i := range c {
			c[i] += m.lam // 0 for NonNegative
		}
		w, err := regress.NNLSGram(m.gtg, c)
		return w, h, 0, err
	}
	rhs := mat.NewVecDense(n+1, nil)
	for i, v := range h {
		rhs.SetVec(i, v)
	}
	rhs.SetVec(n, 1)
	var sol mat.VecDense
	if err := m.lu.SolveVecTo(&sol, false, rhs); err != nil {
		var cond mat.Condition
		if !errors.As(err, &cond) {
			return nil, nil, 0, fmt.Errorf("kriging: solving the ordinary system: %w", err)
		}
	}
	return sol.RawVector().Data[:n:n], h, sol.AtVec(n), nil
}

// Weights returns the Kriging weights of the (distinct, duplicate-merged)
// training points for a query x: Σw = 1 for Ordinary, w ≥ 0 for
// NonNegative and Convex (which also sums to one); all zero when the drift
// alone fits f exactly. It is meant for
// tests and diagnostics.
func (m *Model) Weights(x []float64) ([]float64, error) {
	if err := m.checkQuery(x); err != nil {
		return nil, err
	}
	if m.flat {
		return make([]float64, len(m.x)), nil
	}
	w, _, _, err := m.weights(x)
	return w, err
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

var _ regress.Model = (*Model)(nil)

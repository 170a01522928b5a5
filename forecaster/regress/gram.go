package regress

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// Moments are the uncentred sufficient statistics of a least-squares problem
// over a set of samples: n, Σx, Σy, Σxx', Σxy and Σy². Moments of disjoint
// sample sets add, so the moments of a cross-validation training set are the
// total minus those of its held-out fold; no second pass over the data.
// Centring them (Gram) subtracts n·x̄² from Σx², which loses every digit
// of a column whose mean is 1e8 times its spread: give them centred or
// standardized data (NewGram and FitLRM centre first).
type Moments struct {
	N    int
	SumX []float64
	SumY float64
	XX   []float64 // p×p, row-major, symmetric
	Xy   []float64
	YY   float64
}

// NewMoments accumulates the moments of X (n×p) and y. The inputs are
// validated with CheckXY.
func NewMoments(X mat.Matrix, y []float64) (*Moments, error) {
	if err := CheckXY(X, y); err != nil {
		return nil, err
	}
	return momentsOf(X, y), nil
}

// momentsOf accumulates without validation. X'X goes through one BLAS
// matrix product, which is what makes large n cheap.
func momentsOf(X mat.Matrix, y []float64) *Moments {
	n, p := X.Dims()
	m := &Moments{N: n, SumX: make([]float64, p), Xy: make([]float64, p)}
	var xd *mat.Dense
	if d, ok := X.(*mat.Dense); ok {
		xd = d
	} else {
		xd = mat.DenseCopyOf(X)
	}
	for i := 0; i < n; i++ {
		row := xd.RawRowView(i)
		yi := y[i]
		m.SumY += yi
		m.YY += yi * yi
		for j, v := range row {
			m.SumX[j] += v
			m.Xy[j] += v * yi
		}
	}
	var g mat.Dense
	g.Mul(xd.T(), xd)
	m.XX = make([]float64, p*p)
	for j := 0; j < p; j++ {
		copy(m.XX[j*p:(j+1)*p], g.RawRowView(j))
	}
	return m
}

// Sub returns m − o (the moments of m's samples that are not in o).
func (m *Moments) Sub(o *Moments) *Moments {
	r := &Moments{N: m.N - o.N, SumY: m.SumY - o.SumY, YY: m.YY - o.YY,
		SumX: make([]float64, len(m.SumX)), Xy: make([]float64, len(m.Xy)), XX: make([]float64, len(m.XX))}
	for j := range r.SumX {
		r.SumX[j] = m.SumX[j] - o.SumX[j]
		r.Xy[j] = m.Xy[j] - o.Xy[j]
	}
	for k := range r.XX {
		r.XX[k] = m.XX[k] - o.XX[k]
	}
	return r
}

// Add returns m + o.
func (m *Moments) Add(o *Moments) *Moments {
	if m == nil {
		c := *o
		c.SumX = append([]float64(nil), o.SumX...)
		c.Xy = append([]float64(nil), o.Xy...)
		c.XX = append([]float64(nil), o.XX...)
		return &c
	}
	r := &Moments{N: m.N + o.N, SumY: m.SumY + o.SumY, YY: m.YY + o.YY,
		SumX: make([]float64, len(m.SumX)), Xy: make([]float64, len(m.Xy)), XX: make([]float64, len(m.XX))}
	for j := range r.SumX {
		r.SumX[j] = m.SumX[j] + o.SumX[j]
		r.Xy[j] = m.Xy[j] + o.Xy[j]
	}
	for k := range r.XX {
		r.XX[k] = m.XX[k] + o.XX[k]
	}
	return r
}

// Gram is a centred least-squares problem: with x̄, ȳ the sample means and
// X_c, y_c the centred data, G = X_c'X_c, Q = X_c'y_c and YY = y_c'y_c.
// Fitting on a Gram gives the same coefficients as fitting with an intercept
// on the raw data; the intercept is ȳ − x̄'w.
type Gram struct {
	N     int
	XMean []float64
	YMean float64
	G     []float64 // p×p, row-major
	Q     []float64
	YY    float64
}

// P is the number of features.
func (g *Gram) P() int { return len(g.Q) }

// Gram centres the moments on the columns cols (all columns when cols is
// nil):  G_jk = Σx_j x_k − n x̄_j x̄_k,  Q_j = Σx_j y − n x̄_j ȳ.
func (m *Moments) Gram(cols []int) (*Gram, error) {
	if m.N < 1 {
		return nil, inputError("X", "no samples")
	}
	P := len(m.SumX)
	if cols == nil {
		cols = make([]int, P)
		for j := range cols {
			cols[j] = j
		}
	}
	for _, c := range cols {
		if c < 0 || c >= P {
			return nil, inputError("cols", "column %d out of range [0,%d)", c, P)
		}
	}
	n := float64(m.N)
	p := len(cols)
	g := &Gram{N: m.N, XMean: make([]float64, p), YMean: m.SumY / n, G: make([]float64, p*p), Q: make([]float64, p)}
	for a, c := range cols {
		g.XMean[a] = m.SumX[c] / n
	}
	for a, c := range cols {
		for b, d := range cols {
			g.G[a*p+b] = m.XX[c*P+d] - n*g.XMean[a]*g.XMean[b]
		}
		g.Q[a] = m.Xy[c] - n*g.XMean[a]*g.YMean
	}
	g.YY = math.Max(m.YY-n*g.YMean*g.YMean, 0)
	if !allFinite(g.G) || !allFinite(g.Q) || math.IsInf(g.YY, 0) || math.IsNaN(g.YY) {
		return nil, inputError("X", "cross products overflow float64; rescale X and y")
	}
	return g, nil
}

// NewGram is the Gram of X and y, centred in two passes (the means first,
// then the moments of the centred data), so that no precision is lost to
// columns or a target far from zero (a timestamp, a size in bytes).
func NewGram(X mat.Matrix, y []float64) (*Gram, error) {
	if err := CheckXY(X, y); err != nil {
		return nil, err
	}
	Xc := mat.DenseCopyOf(X)
	n, p := Xc.Dims()
	xMean := make([]float64, p)
	for i := 0; i < n; i++ { // each term divided: no overflow near the float range
		for j, v := range Xc.RawRowView(i) {
			xMean[j] += v / float64(n)
		}
	}
	for i := 0; i < n; i++ {
		row := Xc.RawRowView(i)
		for j := range row {
			row[j] -= xMean[j]
		}
	}
	yc, yMean := centred(y)
	g, err := momentsOf(Xc, yc).Gram(nil)
	if err != nil {
		return nil, err
	}
	copy(g.XMean, xMean)
	g.YMean = yMean
	return g, nil
}

// centred returns v less its mean, and the mean (each term divided by n:
// no overflow near the float range).
func centred(v []float64) ([]float64, float64) {
	var mean float64
	for _, x := range v {
		mean += x / float64(len(v))
	}
	c := make([]float64, len(v))
	for i, x := range v {
		c[i] = x - mean
	}
	return c, mean
}

// checkTarget rejects a constant target: every penalized fit of it is w = 0
// and the caller almost certainly passed the wrong series.
func (g *Gram) checkTarget() error {
	if g.YY <= 1e-24*math.Max(1, g.YMean*g.YMean)*float64(g.N) {
		return inputError("y", "constant (every value is %g); nothing to fit", g.YMean)
	}
	return nil
}

// LinearModel is ŷ = Intercept + Σ_j Coef_j x_j. It is JSON-serializable.
type LinearModel struct {
	Coef      []float64 `json:"coef"`
	Intercept float64   `json:"intercept"`
}

// Predict returns Intercept + Coef·x.
func (m *LinearModel) Predict(x []float64) float64 {
	s := m.Intercept
	for j, w := range m.Coef {
		s += w * x[j]
	}
	return s
}

// NonZero returns the indices of the non-zero coefficients.
func (m *LinearModel) NonZero() []int {
	var idx []int
	for j, w := range m.Coef {
		if w != 0 {
			idx = append(idx, j)
		}
	}
	return idx
}

func allFinite(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// finite reports an error when a fitted model is not finite (overflow on
// extreme but finite input).
func (m *LinearModel) finite() error {
	if !allFinite(m.Coef) || math.IsNaN(m.Intercept) || math.IsInf(m.Intercept, 0) {
		return inputError("X, y", "the fit overflowed float64; rescale X and y")
	}
	return nil
}

// model builds the LinearModel of coefficients w fitted on g.
func (g *Gram) model(w []float64) *LinearModel {
	b := g.YMean
	for j, v := range w {
		b -= v * g.XMean[j]
	}
	return &LinearModel{Coef: append([]float64(nil), w...), Intercept: b}
}

package regress

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// linearData returns y = b + X·beta + N(0, sigma²) with X ~ N(0, 1).
func linearData(seed uint64, n int, beta []float64, b, sigma float64) (*mat.Dense, []float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	X := mat.NewDense(n, len(beta), nil)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		y[i] = b + sigma*rng.NormFloat64()
		for j, w := range beta {
			v := rng.NormFloat64()
			X.Set(i, j, v)
			y[i] += w * v
		}
	}
	return X, y
}

func TestRidgeRecoversLinearTruth(t *testing.T) {
	beta := []float64{3, -2, 0, 0.5, 10}
	X, y := linearData(1, 2000, beta, 7, 0.1)
	m, err := FitRidge(X, y, 1e-3)
	if err != nil {
		t.Fatal(err)
	}
	// Standard error of each coefficient ≈ sigma/√n ≈ 0.0022; allow 5 SE.
	for j, w := range beta {
		if math.Abs(m.Coef[j]-w) > 0.011 {
			t.Errorf("coef %d = %.5f, truth %g", j, m.Coef[j], w)
		}
	}
	if math.Abs(m.Intercept-7) > 0.011 {
		t.Errorf("intercept %.5f, truth 7", m.Intercept)
	}
	// Exact data, alpha = 0: least squares reproduces the truth to rounding.
	X0, y0 := linearData(2, 50, beta, -1, 0)
	m0, err := FitRidge(X0, y0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for j, w := range beta {
		if math.Abs(m0.Coef[j]-w) > 1e-10 {
			t.Errorf("noise-free coef %d = %.15g, truth %g", j, m0.Coef[j], w)
		}
	}
}

func TestLassoRecoversSparseTruth(t *testing.T) {
	beta := make([]float64, 30)
	beta[2], beta[11], beta[25] = 4, -3, 2
	X, y := linearData(3, 1000, beta, 1, 0.2)
	m, err := FitLasso(X, y, 0.02)
	if err != nil {
		t.Fatal(err)
	}
	// The Lasso shrinks each active coefficient by about alpha (for
	// unit-variance features): |w − beta| ≤ alpha + 5 SE.
	for j, w := range beta {
		if w != 0 && math.Abs(m.Coef[j]-w) > 0.02+0.035 {
			t.Errorf("coef %d = %.4f, truth %g", j, m.Coef[j], w)
		}
	}
	// Irrelevant features: at most a few survive, each tiny.
	var spurious int
	for j, w := range beta {
		if w == 0 && m.Coef[j] != 0 {
			spurious++
			if math.Abs(m.Coef[j]) > 0.02 {
				t.Errorf("irrelevant coef %d = %.4f", j, m.Coef[j])
			}
		}
	}
	if spurious > 5 {
		t.Errorf("%d irrelevant coefficients non-zero", spurious)
	}
	// Above alpha_max every coefficient is zero.
	g, _ := NewGram(X, y)
	mz, err := FitLasso(X, y, g.AlphaMax(1)*1.0001)
	if err != nil {
		t.Fatal(err)
	}
	if nz := mz.NonZero(); len(nz) != 0 {
		t.Errorf("alpha above alpha_max: non-zero coefficients %v", nz)
	}
	if mean := g.YMean; math.Abs(mz.Intercept-mean) > 1e-12 {
		t.Errorf("null model intercept %g, want mean(y) %g", mz.Intercept, mean)
	}
}

func TestElasticNetL1RatioZeroIsRidge(t *testing.T) {
	// With l1_ratio = 0 the Elastic Net objective is (1/(2n))RSS + ½α||w||²,
	// i.e. Ridge with penalty n·α.
	X, y := linearData(4, 200, []float64{1, 2, -1, 0}, 0, 1)
	e, err := ElasticNet{Alpha: 0.3, L1Ratio: 0, Tol: 1e-12, MaxIter: 100000}.Fit(X, y)
	if err != nil {
		t.Fatal(err)
	}
	r, err := FitRidge(X, y, 0.3*200)
	if err != nil {
		t.Fatal(err)
	}
	for j := range r.Coef {
		if math.Abs(e.Coef[j]-r.Coef[j]) > 1e-8 {
			t.Errorf("coef %d: elastic net %.10g, ridge %.10g", j, e.Coef[j], r.Coef[j])
		}
	}
}

func TestPathWarmStartMatchesColdFits(t *testing.T) {
	beta := []float64{1, 0, 0, -2, 0, 0.5, 0, 0}
	X, y := linearData(5, 300, beta, 3, 0.5)
	path, err := ElasticNetPath(X, y, PathOptions{NAlphas: 15, Tol: 1e-12, MaxIter: 100000})
	if err != nil {
		t.Fatal(err)
	}
	if len(path.Alphas) != 15 || path.Alphas[0] <= path.Alphas[14] {
		t.Fatalf("alphas %v", path.Alphas)
	}
	if math.Abs(path.Alphas[14]/path.Alphas[0]-1e-3) > 1e-12 {
		t.Errorf("alpha_min/alpha_max = %g, want 1e-3", path.Alphas[14]/path.Alphas[0])
	}
	if len(path.Models[0].NonZero()) != 0 {
		t.Errorf("at alpha_max the path must be empty, got %v", path.Models[0].NonZero())
	}
	for i, a := range path.Alphas {
		cold, err := ElasticNet{Alpha: a, L1Ratio: 1, Tol: 1e-12, MaxIter: 100000}.Fit(X, y)
		if err != nil {
			t.Fatal(err)
		}
		for j := range cold.Coef {
			if d := math.Abs(cold.Coef[j] - path.Models[i].Coef[j]); d > 1e-8 {
				t.Errorf("alpha %d coef %d: warm %g, cold %g", i, j, path.Models[i].Coef[j], cold.Coef[j])
			}
		}
	}
}

func TestNotConvergedIsReported(t *testing.T) {
	X, y := linearData(6, 100, []float64{1, 1, 1}, 0, 1)
	m, err := ElasticNet{Alpha: 0.001, L1Ratio: 1, Tol: 1e-15, MaxIter: 1}.Fit(X, y)
	if !errors.Is(err, ErrNotConverged) {
		t.Fatalf("err = %v, want ErrNotConverged", err)
	}
	if m == nil || len(m.Coef) != 3 {
		t.Fatalf("the last iterate must be returned, got %v", m)
	}
}

func TestStandardizer(t *testing.T) {
	X := mat.NewDense(4, 3, []float64{
		1, 5, 10,
		2, 5, 20,
		3, 5, 30,
		4, 5, 40,
	})
	s, err := FitStandardizer(X)
	if err != nil {
		t.Fatal(err)
	}
	// Population std of 1..4 is √1.25.
	if math.Abs(s.Scale[0]-math.Sqrt(1.25)) > 1e-15 || s.Scale[1] != 1 || len(s.Constant) != 1 || s.Constant[0] != 1 {
		t.Fatalf("scale %v constant %v", s.Scale, s.Constant)
	}
	Z, err := s.Transform(X)
	if err != nil {
		t.Fatal(err)
	}
	for j := 0; j < 3; j++ {
		var mean, ss float64
		for i := 0; i < 4; i++ {
			mean += Z.At(i, j) / 4
		}
		for i := 0; i < 4; i++ {
			ss += (Z.At(i, j) - mean) * (Z.At(i, j) - mean) / 4
		}
		want := 1.0
		if j == 1 {
			want = 0
		}
		if math.Abs(mean) > 1e-15 || math.Abs(ss-want) > 1e-12 {
			t.Errorf("column %d: mean %g variance %g", j, mean, ss)
		}
	}
	// Inverse: a model on Z equals the mapped model on X.
	w, b := []float64{2, 0, -1}, 3.0
	wx, bx := s.Inverse(w, b)
	for i := 0; i < 4; i++ {
		z := mat.Row(nil, i, Z)
		x := mat.Row(nil, i, X)
		pz := (&LinearModel{Coef: w, Intercept: b}).Predict(z)
		px := (&LinearModel{Coef: wx, Intercept: bx}).Predict(x)
		if math.Abs(pz-px) > 1e-12 {
			t.Errorf("row %d: %g on Z, %g on X", i, pz, px)
		}
	}
	if _, err := s.Transform(mat.NewDense(1, 2, nil)); !errors.Is(err, ErrInput) {
		t.Errorf("wrong column count: err = %v", err)
	}
}

func TestBadInputErrors(t *testing.T) {
	good := mat.NewDense(3, 2, []float64{1, 2, 3, 5, 4, 4})
	y := []float64{1, 2, 3}
	nan := mat.NewDense(3, 2, []float64{1, 2, math.NaN(), 5, 4, 4})
	inf := mat.NewDense(3, 2, []float64{1, 2, 3, math.Inf(1), 4, 4})
	type fit func(X mat.Matrix, y []float64) error
	fits := map[string]fit{
		"ridge": func(X mat.Matrix, y []float64) error { _, err := FitRidge(X, y, 1); return err },
		"lasso": func(X mat.Matrix, y []float64) error { _, err := FitLasso(X, y, 0.1); return err },
		"enet": func(X mat.Matrix, y []float64) error {
			_, err := ElasticNet{Alpha: 0.1, L1Ratio: 0.5}.Fit(X, y)
			return err
		},
		"path": func(X mat.Matrix, y []float64) error { _, err := ElasticNetPath(X, y, PathOptions{}); return err },
		"nnls": func(X mat.Matrix, y []float64) error { _, err := NNLS(X, y); return err },
	}
	cases := []struct {
		name string
		X    mat.Matrix
		y    []float64
		arg  string
		skip string // fit for which the case is valid input
	}{
		{"nil X", nil, y, "X", ""},
		{"NaN in X", nan, y, "X", ""},
		{"Inf in X", inf, y, "X", ""},
		{"NaN in y", good, []float64{1, math.NaN(), 3}, "y", "nnls"},
		{"short y", good, []float64{1, 2}, "y", "nnls"},
		{"constant y", good, []float64{2, 2, 2}, "y", "nnls"},
	}
	for _, c := range cases {
		for name, f := range fits {
			if name == c.skip {
				continue
			}
			err := f(c.X, c.y)
			if !errors.Is(err, ErrInput) {
				t.Errorf("%s / %s: err = %v, want ErrInput", name, c.name, err)
				continue
			}
			arg := c.arg
			if name == "nnls" {
				arg = map[string]string{"X": "A", "y": "b"}[arg]
			}
			if !strings.Contains(err.Error(), arg) {
				t.Errorf("%s / %s: %q does not name %q", name, c.name, err, arg)
			}
		}
	}
	// NNLS names its own arguments.
	if _, err := NNLS(good, []float64{1, math.NaN(), 3}); !errors.Is(err, ErrInput) {
		t.Errorf("nnls NaN b: %v", err)
	}
	if _, err := NNLS(good, []float64{1, 2}); !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "b") {
		t.Errorf("nnls short b: %v", err)
	}
	// Parameters.
	if _, err := FitRidge(good, y, -1); !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "alpha") {
		t.Errorf("negative ridge alpha: %v", err)
	}
	if _, err := (ElasticNet{Alpha: 1, L1Ratio: 2}).Fit(good, y); !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "l1_ratio") {
		t.Errorf("l1_ratio 2: %v", err)
	}
	if _, err := FitLasso(good, y, math.NaN()); !errors.Is(err, ErrInput) {
		t.Errorf("NaN alpha: %v", err)
	}
	// Singular: duplicated column without a penalty.
	dup := mat.NewDense(4, 2, []float64{1, 1, 2, 2, 3, 3, 5, 5})
	if _, err := FitRidge(dup, []float64{1, 2, 3, 4}, 0); !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "singular") && !strings.Contains(err.Error(), "ill-conditioned") {
		t.Errorf("singular OLS: %v", err)
	}
	// The same with a penalty is well posed: equal weights on both copies.
	m, err := FitRidge(dup, []float64{1, 2, 3, 4}, 0.1)
	if err != nil || math.Abs(m.Coef[0]-m.Coef[1]) > 1e-12 {
		t.Errorf("ridge on duplicated columns: %v %v", m, err)
	}
}

// Columns and targets far from zero against their spread (a timestamp, an
// offset of 1e9): the one-pass centring Σx² − n·x̄² lost every digit (OLS
// called such a column constant, LRM fitted the mean); centring in two
// passes recovers the exact line.
func TestLinearFitsFarFromZero(t *testing.T) {
	const n = 10
	X := mat.NewDense(n, 1, nil)
	Xfar := mat.NewDense(n, 1, nil)
	y, yfar := make([]float64, n), make([]float64, n)
	for i := range n {
		X.Set(i, 0, float64(i))
		Xfar.Set(i, 0, 1.7e9+float64(i))
		y[i] = 1e9 + float64(i)
		yfar[i] = 3 + 2*float64(i)
	}
	lrm, err := FitLRM(X, y, 1)
	if err != nil {
		t.Fatalf("LRM: %v", err)
	}
	if math.Abs(lrm.Coef[0]-1) > 1e-9 || math.Abs(lrm.Intercept-1e9) > 1e-3 {
		t.Errorf("LRM of y = 1e9 + x: coef %v, intercept %v; want 1 and 1e9", lrm.Coef, lrm.Intercept)
	}
	ols, err := FitRidge(Xfar, yfar, 0)
	if err != nil {
		t.Fatalf("OLS on x = 1.7e9 + i: %v", err)
	}
	if math.Abs(ols.Coef[0]-2) > 1e-9 {
		t.Errorf("OLS on x = 1.7e9 + i: coef %v, want 2", ols.Coef)
	}
	if got, want := ols.Predict([]float64{1.7e9 + 20}), 43.0; math.Abs(got-want) > 1e-5 {
		t.Errorf("OLS predicts %v at x = 1.7e9 + 20, want %v", got, want)
	}
	lasso, err := FitLasso(Xfar, yfar, 1e-6)
	if err != nil {
		t.Fatalf("Lasso on x = 1.7e9 + i: %v", err)
	}
	if math.Abs(lasso.Coef[0]-2) > 1e-5 {
		t.Errorf("Lasso (α 1e-6) on x = 1.7e9 + i: coef %v, want 2", lasso.Coef)
	}
}

// A target no feature correlates with (X_c'y_c = 0, neither constant) has
// alpha_max 0: scikit-learn's grid is then 1e-15 throughout and every
// coefficient 0; the grid from log10(0) was NaN and the path failed naming
// "alphas", an argument the caller never gave.
func TestPathWithZeroAlphaMax(t *testing.T) {
	path, err := ElasticNetPath(mat.NewDense(3, 1, []float64{-1, 0, 1}), []float64{1, 0, 1}, PathOptions{NAlphas: 5})
	if err != nil {
		t.Fatal(err)
	}
	for i, a := range path.Alphas {
		if a != 1e-15 || path.Models[i].Coef[0] != 0 || math.Abs(path.Models[i].Intercept-2.0/3) > 1e-15 {
			t.Errorf("alpha %d: %v, model %+v; want 1e-15, coefficient 0, intercept 2/3", i, a, path.Models[i])
		}
	}
}

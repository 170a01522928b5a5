package regress

import (
	"encoding/json"
	"math"
	"os"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// goldenLinear mirrors testdata/sklearn/linear.json (made by gen.py).
type goldenLinear struct {
	Sklearn  string  `json:"sklearn"`
	Tol      float64 `json:"tol"`
	Datasets []struct {
		Name   string      `json:"name"`
		X      [][]float64 `json:"X"`
		Y      []float64   `json:"y"`
		Scaler struct {
			Mean  []float64 `json:"mean"`
			Scale []float64 `json:"scale"`
		} `json:"scaler"`
		Ridge []goldenFit `json:"ridge"`
		Lasso []goldenFit `json:"lasso"`
		Enet  []goldenFit `json:"enet"`
		Path  struct {
			L1Ratio    float64     `json:"l1_ratio"`
			Alphas     []float64   `json:"alphas"`
			Coefs      [][]float64 `json:"coefs"`
			Intercepts []float64   `json:"intercepts"`
		} `json:"path"`
	} `json:"datasets"`
}

type goldenFit struct {
	Alpha     float64   `json:"alpha"`
	L1Ratio   float64   `json:"l1_ratio"`
	Coef      []float64 `json:"coef"`
	Intercept float64   `json:"intercept"`
	Pred      []float64 `json:"pred"`
}

func loadGolden(t testing.TB) *goldenLinear {
	t.Helper()
	b, err := os.ReadFile("testdata/sklearn/linear.json")
	if err != nil {
		t.Fatal(err)
	}
	var g goldenLinear
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	return &g
}

func denseOf(rows [][]float64) *mat.Dense {
	X := mat.NewDense(len(rows), len(rows[0]), nil)
	for i, r := range rows {
		X.SetRow(i, r)
	}
	return X
}

// closeVec compares a and b element-wise with tolerance
// tol·max(1, max|b|): relative to the vector's scale, so that coefficients
// that are zero in one and 1e-17 in the other agree.
func closeVec(t *testing.T, what string, a, b []float64, tol float64) {
	t.Helper()
	if len(a) != len(b) {
		t.Fatalf("%s: length %d, want %d", what, len(a), len(b))
	}
	scale := 1.0
	for _, v := range b {
		scale = math.Max(scale, math.Abs(v))
	}
	for i := range a {
		if d := math.Abs(a[i] - b[i]); d > tol*scale || math.IsNaN(a[i]) {
			t.Errorf("%s[%d] = %.12g, scikit-learn %.12g (|diff| %.3g > %.3g)", what, i, a[i], b[i], d, tol*scale)
		}
	}
}

func closeScalar(t *testing.T, what string, a, b, scale, tol float64) {
	t.Helper()
	if d := math.Abs(a - b); d > tol*math.Max(1, scale) {
		t.Errorf("%s = %.12g, scikit-learn %.12g", what, a, b)
	}
}

// Tolerances: Ridge is a direct solve, so it matches to 1e-8 of the
// coefficient scale; coordinate descent at tol 1e-12 to 1e-6.
const (
	ridgeTol = 1e-8
	cdTol    = 1e-6
)

func TestGoldenStandardizer(t *testing.T) {
	for _, d := range loadGolden(t).Datasets {
		s, err := FitStandardizer(denseOf(d.X))
		if err != nil {
			t.Fatal(err)
		}
		closeVec(t, d.Name+" mean", s.Mean, d.Scaler.Mean, 1e-12)
		closeVec(t, d.Name+" scale", s.Scale, d.Scaler.Scale, 1e-12)
	}
}

func TestGoldenRidge(t *testing.T) {
	for _, d := range loadGolden(t).Datasets {
		X := denseOf(d.X)
		for _, f := range d.Ridge {
			m, err := FitRidge(X, d.Y, f.Alpha)
			if err != nil {
				t.Fatalf("%s alpha=%g: %v", d.Name, f.Alpha, err)
			}
			closeVec(t, d.Name+" ridge coef", m.Coef, f.Coef, ridgeTol)
			closeScalar(t, d.Name+" ridge intercept", m.Intercept, f.Intercept, math.Abs(f.Intercept), ridgeTol)
			closeVec(t, d.Name+" ridge pred", PredictAll(m, X), f.Pred, ridgeTol)
		}
	}
}

func TestGoldenLassoElasticNet(t *testing.T) {
	g := loadGolden(t)
	for _, d := range g.Datasets {
		X := denseOf(d.X)
		fits := append([]goldenFit(nil), d.Lasso...)
		for i := range fits {
			fits[i].L1Ratio = 1
		}
		fits = append(fits, d.Enet...)
		for _, f := range fits {
			m, err := ElasticNet{Alpha: f.Alpha, L1Ratio: f.L1Ratio, Tol: g.Tol, MaxIter: 1_000_000}.Fit(X, d.Y)
			if err != nil {
				t.Fatalf("%s alpha=%g l1=%g: %v", d.Name, f.Alpha, f.L1Ratio, err)
			}
			what := d.Name + " enet"
			closeVec(t, what+" coef", m.Coef, f.Coef, cdTol)
			closeVec(t, what+" pred", PredictAll(m, X), f.Pred, cdTol)
			// Same sparsity pattern where the coefficient is clearly non-zero.
			for j, c := range f.Coef {
				if (c == 0) != (m.Coef[j] == 0) && math.Abs(c-m.Coef[j]) > 1e-9 {
					t.Errorf("%s: coef %d is %g here, %g in scikit-learn", what, j, m.Coef[j], c)
				}
			}
		}
	}
}

func TestGoldenElasticNetPath(t *testing.T) {
	g := loadGolden(t)
	for _, d := range g.Datasets {
		s, _ := FitStandardizer(denseOf(d.X))
		Z, _ := s.Transform(denseOf(d.X))
		path, err := ElasticNetPath(Z, d.Y, PathOptions{L1Ratio: d.Path.L1Ratio, NAlphas: len(d.Path.Alphas), Eps: 1e-3, Tol: g.Tol, MaxIter: 1_000_000})
		if err != nil {
			t.Fatal(err)
		}
		closeVec(t, d.Name+" path alphas", path.Alphas, d.Path.Alphas, 1e-12)
		// One model and one convergence flag per alpha, as scikit-learn's
		// path has one coefficient vector per alpha: the loop below reads
		// only the models there are.
		if n := len(d.Path.Alphas); len(path.Models) != n || len(path.Converged) != n || len(d.Path.Coefs) != n || len(d.Path.Intercepts) != n {
			t.Fatalf("%s: %d models, %d convergence flags for %d alphas (scikit-learn: %d coefficient vectors, %d intercepts)",
				d.Name, len(path.Models), len(path.Converged), n, len(d.Path.Coefs), len(d.Path.Intercepts))
		}
		for i, m := range path.Models {
			closeVec(t, d.Name+" path coef", m.Coef, d.Path.Coefs[i], cdTol)
			closeScalar(t, d.Name+" path intercept", m.Intercept, d.Path.Intercepts[i], math.Abs(d.Path.Intercepts[i]), cdTol)
			if !path.Converged[i] {
				t.Errorf("%s: alpha %d did not converge", d.Name, i)
			}
		}
	}
}

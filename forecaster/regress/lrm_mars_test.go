package regress

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestLRMRecoversInteractionTruth(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	truth := func(x []float64) float64 { return 1 + 2*x[0] - x[1] + 0.5*x[0]*x[1] - 3*x[1]*x[2] }
	var X [][]float64
	var y []float64
	for i := 0; i < 60; i++ {
		x := []float64{rng.Float64() * 10, rng.Float64()*4 - 2, rng.Float64()}
		X = append(X, x)
		y = append(y, truth(x))
	}
	m, err := LRM{}.Fit(X, y, []float64{2})
	if err != nil {
		t.Fatal(err)
	}
	lm := m.(*LRMModel)
	want := []float64{2, -1, 0, 0.5, 0, -3} // x1 x2 x3 x1x2 x1x3 x2x3
	for k, w := range want {
		if math.Abs(lm.Coef[k]-w) > 1e-9 {
			t.Errorf("coefficient %v: %.12g, want %g", LRMTerms(3, 2)[k], lm.Coef[k], w)
		}
	}
	if math.Abs(lm.Intercept-1) > 1e-9 {
		t.Errorf("intercept %.12g", lm.Intercept)
	}
	// Degree 1 cannot fit the products: a real residual remains.
	m1, _ := LRM{}.Fit(X, y, []float64{1})
	if r, _ := RMSE(y, predictRows(m1, X)); r < 0.1 {
		t.Errorf("degree 1 RMSE %g on an interaction truth", r)
	}
}

// Collinear and constant columns: the fit still reproduces the truth.
func TestLRMCollinearAndConstantColumns(t *testing.T) {
	var X [][]float64
	var y []float64
	for i := 0; i < 30; i++ {
		a := float64(i) / 3
		X = append(X, []float64{a, 2 * a, 7}) // x2 = 2·x1, x3 constant
		y = append(y, 4+3*a)
	}
	m, err := LRM{}.Fit(X, y, []float64{1})
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := RMSE(y, predictRows(m, X)); r > 1e-6 {
		t.Errorf("RMSE %g on a collinear exact truth", r)
	}
	if c := m.(*LRMModel).Coef; c[2] != 0 || math.Abs(c[0]+2*c[1]-3) > 1e-6 {
		t.Errorf("coefficients %v: constant column must get 0 and x1 + 2·x2 weight 3", c)
	}
}

func TestMARSConstantTargetAndBadInput(t *testing.T) {
	X := mat.NewDense(5, 1, []float64{1, 2, 3, 4, 5})
	m, err := FitMARS(X, []float64{2, 2, 2, 2, 2}, DefaultMARSOptions(1, 1))
	if err != nil || len(m.Terms) != 0 || m.Intercept != 2 {
		t.Fatalf("constant y: %+v %v", m, err)
	}
	y := []float64{1, 2, 3, 5, 8}
	for arg, o := range map[string]MARSOptions{
		"Degree":        {Degree: 0, MaxTerms: 5},
		"MaxTerms":      {Degree: 1, MaxTerms: 0},
		"Penalty":       {Degree: 1, MaxTerms: 5, Penalty: -2},
		"Thresh":        {Degree: 1, MaxTerms: 5, Thresh: 1},
		"MinSpan":       {Degree: 1, MaxTerms: 5, MinSpan: -1},
		"EndSpan":       {Degree: 1, MaxTerms: 5, EndSpan: -1},
		"AdjustEndSpan": {Degree: 1, MaxTerms: 5, AdjustEndSpan: 11},
		"NPrune":        {Degree: 1, MaxTerms: 5, NPrune: -1},
	} {
		if _, err := FitMARS(X, y, o); !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), arg) {
			t.Errorf("%s: %v", arg, err)
		}
	}
	if _, err := FitMARS(mat.NewDense(1, 1, []float64{1}), []float64{1}, DefaultMARSOptions(1, 1)); !errors.Is(err, ErrInput) {
		t.Errorf("one row: %v", err)
	}
	for name, params := range map[string][]float64{"nk": {2, 0.001, 1}, "thresh": {21, 0.5, 1}, "degree": {21, 0.001, 1.5}} {
		if _, err := (MARS{}).Fit([][]float64{{1}, {2}, {3}}, []float64{1, 2, 3}, params); !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), name) {
			t.Errorf("params %s: %v", name, err)
		}
	}
	if _, err := (MARS{}).Fit([][]float64{{1, 2}, {2}}, []float64{1, 2}, Defaults(MARS{})); !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "row 1") {
		t.Errorf("ragged X: %v", err)
	}
}

// NPrune caps the pruned model; the GCV of the chosen subset is reported.
func TestMARSNPrune(t *testing.T) {
	X, y := readCSV(t, "testdata/earth/data-mars.csv")
	o := DefaultMARSOptions(5, 1)
	full, err := FitMARS(X, y, o)
	if err != nil {
		t.Fatal(err)
	}
	o.NPrune = 4
	small, err := FitMARS(X, y, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(small.Terms)+1 > 4 || len(full.Terms)+1 <= 4 || small.GCV < full.GCV {
		t.Errorf("nprune 4: %d terms (GCV %g), unpruned %d (GCV %g)", len(small.Terms)+1, small.GCV, len(full.Terms)+1, full.GCV)
	}
}

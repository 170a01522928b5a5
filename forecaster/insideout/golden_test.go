package insideout

import (
	"encoding/json"
	"flag"
	"math"
	"os"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/storcast/storcast/forecaster/regress"
)

// The end-to-end reference: the same data and the same folds through
// scikit-learn's StandardScaler, Ridge, threshold grid and lasso_path
// (testdata/sklearn_pipeline.py) must choose the same (a, α) and the same
// coefficients.
//
//	go test ./forecaster/insideout -run TestGoldenSklearnPipeline -insideout.update-golden-data
//	/usr/bin/python3 forecaster/insideout/testdata/sklearn_pipeline.py
var updateGoldenData = flag.Bool("insideout.update-golden-data", false, "rewrite testdata/pipeline-data.json")

const (
	goldenSeed = 77
	goldenTol  = 1e-10 // coordinate-descent tolerance on both sides
	// ridgeTol bounds the Ridge filter's difference from scikit-learn, as
	// a share of the largest coefficient. Measured 1.7e-13; the room up to
	// 1e-9 is for another summation order on a Gram of near-duplicate
	// features, still far below the ~1e-5 a penalty off by 0.01% makes.
	ridgeTol = 1e-9
)

type pipelineData struct {
	Features []string    `json:"features"`
	X        [][]float64 `json:"X"`
	Y        []float64   `json:"y"`
	Folds    [][]int     `json:"folds"` // test rows of each fold
	Options  struct {
		Thresholds []float64 `json:"thresholds"`
		RidgeAlpha float64   `json:"ridge_alpha"`
		NAlphas    int       `json:"n_alphas"`
		Eps        float64   `json:"eps"`
		Tol        float64   `json:"tol"`
	} `json:"options"`
}

type pipelineResult struct {
	Sklearn   string    `json:"sklearn"`
	RidgeCoef []float64 `json:"ridge_coef"`
	Grid      []struct {
		Threshold float64 `json:"threshold"`
		Kept      int     `json:"kept"`
		Alpha     float64 `json:"alpha"`
		CVMAPE    float64 `json:"cv_mape"`
	} `json:"grid"`
	Threshold float64   `json:"threshold"`
	Alpha     float64   `json:"alpha"`
	CVMAPE    float64   `json:"cv_mape"`
	Coef      []float64 `json:"coef"`
	Intercept float64   `json:"intercept"`
}

func goldenOptions() Options {
	return Options{Seed: goldenSeed, Tol: goldenTol, MaxIter: 1_000_000}
}

func TestGoldenSklearnPipeline(t *testing.T) {
	s := synthSchema(8, 4)
	ws, ys := synthWindows(goldenSeed, 250, 4, 10, s)
	X, err := s.AggregateAll(ws)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := X.Dims()
	y := ys[WriteBytes]
	opt, _ := goldenOptions().withDefaults()
	if *updateGoldenData {
		d := pipelineData{Features: s.FeatureNames(), Y: y}
		for i := 0; i < n; i++ {
			d.X = append(d.X, X.RawRowView(i))
		}
		folds, _ := regress.KFold(n, opt.Folds, opt.Seed)
		for _, f := range folds {
			d.Folds = append(d.Folds, f.Test)
		}
		d.Options.Thresholds, d.Options.RidgeAlpha, d.Options.NAlphas, d.Options.Eps, d.Options.Tol =
			opt.Thresholds, opt.RidgeAlpha, opt.NAlphas, opt.Eps, opt.Tol
		b, _ := json.Marshal(d)
		if err := os.WriteFile("testdata/pipeline-data.json", b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Train on the committed data (not a regenerated copy, so the test does
	// not depend on the generator's floating point being bit-identical on
	// every platform), with the folds scikit-learn used.
	var d pipelineData
	readJSON(t, "testdata/pipeline-data.json", &d)
	X = mat.NewDense(len(d.X), len(d.Features), nil)
	for i, row := range d.X {
		X.SetRow(i, row)
	}
	y = d.Y
	folds, err := regress.KFold(len(d.Y), opt.Folds, opt.Seed)
	if err != nil {
		t.Fatal(err)
	}
	for f := range folds {
		if !slices.Equal(folds[f].Test, d.Folds[f]) {
			t.Fatalf("fold %d of KFold(%d, %d, %d) differs from the committed folds", f, len(d.Y), opt.Folds, opt.Seed)
		}
	}
	var want pipelineResult
	readJSON(t, "testdata/pipeline-sklearn.json", &want)

	// Level 1, the Ridge filter, as Train computes it (the standardized
	// design, the Gram of every row, Gram.Ridge), against scikit-learn's
	// Ridge on StandardScaler's features. The thresholds below see only
	// |coef| against a·median, so a wrong coefficient could keep the same
	// features by luck.
	des, err := newDesign(X, opt)
	if err != nil {
		t.Fatal(err)
	}
	rows := make([]int, len(y))
	for i := range rows {
		rows[i] = i
	}
	gAll, err := des.withY(des.total, y, rows).Gram(nil)
	if err != nil {
		t.Fatal(err)
	}
	ridge, err := gAll.Ridge(opt.RidgeAlpha)
	if err != nil {
		t.Fatal(err)
	}
	if len(ridge.Coef) != len(want.RidgeCoef) {
		t.Fatalf("Ridge: %d coefficients, scikit-learn %d", len(ridge.Coef), len(want.RidgeCoef))
	}
	rscale := 0.0
	for _, c := range want.RidgeCoef {
		rscale = math.Max(rscale, math.Abs(c))
	}
	var rworst float64
	for j, c := range want.RidgeCoef {
		diff := math.Abs(ridge.Coef[j] - c)
		rworst = math.Max(rworst, diff/rscale)
		if !(diff <= ridgeTol*rscale) {
			t.Errorf("Ridge coef %s = %.10g, scikit-learn %.10g", d.Features[j], ridge.Coef[j], c)
		}
	}
	t.Logf("Ridge filter: largest difference from scikit-learn %.2g of the largest coefficient", rworst)

	m, err := TrainMatrix(d.Features, X, map[Target][]float64{WriteBytes: y}, goldenOptions())
	if err != nil {
		t.Fatal(err)
	}
	got := m.Targets[WriteBytes]
	if len(got.Grid) != len(want.Grid) {
		t.Fatalf("grid: %d thresholds here, %d in scikit-learn", len(got.Grid), len(want.Grid))
	}
	for i, g := range got.Grid {
		w := want.Grid[i]
		if g.Threshold != w.Threshold || g.Kept != w.Kept {
			t.Errorf("threshold %g: kept %d, scikit-learn %g kept %d", g.Threshold, g.Kept, w.Threshold, w.Kept)
		}
		if math.Abs(g.Alpha-w.Alpha) > 1e-9*w.Alpha || math.Abs(g.CVMAPE-w.CVMAPE) > 1e-7 {
			t.Errorf("threshold %g: alpha %.10g CV MAPE %.10g; scikit-learn %.10g, %.10g", g.Threshold, g.Alpha, g.CVMAPE, w.Alpha, w.CVMAPE)
		}
	}
	if got.Threshold != want.Threshold || math.Abs(got.Alpha-want.Alpha) > 1e-9*want.Alpha {
		t.Errorf("chosen a=%g alpha=%g; scikit-learn a=%g alpha=%g", got.Threshold, got.Alpha, want.Threshold, want.Alpha)
	}
	scale := 0.0
	for _, c := range want.Coef {
		scale = math.Max(scale, math.Abs(c))
	}
	for j, c := range want.Coef {
		if math.Abs(got.Coef[j]-c) > 1e-6*scale {
			t.Errorf("coef %s = %.10g, scikit-learn %.10g", m.Features[j], got.Coef[j], c)
		}
	}
	if math.Abs(got.Intercept-want.Intercept) > 1e-6*math.Max(1, math.Abs(want.Intercept)) {
		t.Errorf("intercept %.10g, scikit-learn %.10g", got.Intercept, want.Intercept)
	}
	t.Logf("a=%g alpha=%.4g CV accuracy %.4f, %d selected; scikit-learn %s agrees", got.Threshold, got.Alpha, got.CVAccuracy, len(got.Selected), want.Sklearn)
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

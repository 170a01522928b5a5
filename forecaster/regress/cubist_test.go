package regress

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// piecewise is a noise-free piecewise-linear truth: two linear pieces split
// at x0 = 0.5.
func piecewise(x []float64) float64 {
	if x[0] < 0.5 {
		return 2 + 3*x[1] - x[2]
	}
	return 10 - 4*x[2]
}

func piecewiseData(n int, seed uint64) (*mat.Dense, []float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	X := mat.NewDense(n, 3, nil)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		x := []float64{rng.Float64(), rng.Float64(), rng.Float64()}
		X.SetRow(i, x)
		y[i] = piecewise(x)
	}
	return X, y
}

func TestCubistRecoversPiecewiseLinear(t *testing.T) {
	X, y := piecewiseData(300, 7)
	Xt, yt := piecewiseData(200, 8)
	for _, o := range []CubistOptions{{Committees: 1}, {Committees: 5}, {Committees: 3, Neighbors: 5}} {
		m, err := FitCubist(X, y, o)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 200; i++ {
			x := Xt.RawRowView(i)
			if math.Abs(x[0]-0.5) < 0.01 { // between the two training cases nearest the break
				continue
			}
			if d := math.Abs(m.Predict(x) - yt[i]); d > 1e-9 {
				t.Fatalf("%+v: x=%v predicted %.12g, truth %.12g", o, x, m.Predict(x), yt[i])
			}
		}
		if len(m.Committees[0]) != 2 {
			t.Errorf("%+v: %d rules, want 2 (one per linear piece)", o, len(m.Committees[0]))
		}
	}
}

// One committee and no neighbours is the M5 model tree itself, as rules.
// FitCubist keeps the members' trees and ModelPredict walks them when
// present, so the rules are read through a JSON round trip, which drops the
// (unexported) trees as a saved model does: the decoded model answers from
// its rules alone. Compared with the tree at the training rows, at random
// points around them and exactly at every split threshold (where "<" and
// "≥" part), bit for bit: both evaluate the same leaf model.
func TestCubistOneCommitteeIsM5(t *testing.T) {
	X, y := readCSV(t, "testdata/earth/data-mars.csv")
	for _, leaf := range []int{4, 10} {
		m5opt := M5Options{MinLeaf: leaf}
		tree, err := FitM5(X, y, m5opt)
		if err != nil {
			t.Fatal(err)
		}
		fitted, err := FitCubist(X, y, CubistOptions{Committees: 1, M5: m5opt})
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(fitted)
		if err != nil {
			t.Fatal(err)
		}
		var c CubistModel
		if err := json.Unmarshal(b, &c); err != nil {
			t.Fatal(err)
		}
		if c.trees != nil {
			t.Fatal("the decoded model kept its trees; the rules would not be read")
		}
		if len(c.Committees[0]) != tree.NumLeaves() {
			t.Errorf("%d rules for %d leaves", len(c.Committees[0]), tree.NumLeaves())
		}
		n, p := X.Dims()
		var at [][]float64
		for i := 0; i < n; i++ {
			at = append(at, X.RawRowView(i))
		}
		rng := rand.New(rand.NewPCG(3, 4))
		for i := 0; i < 200; i++ {
			x := make([]float64, p)
			for j := range x {
				x[j] = rng.Float64()*12 - 2
			}
			at = append(at, x)
		}
		splits := 0
		for _, nd := range tree.Nodes {
			if nd.IsLeaf() {
				continue
			}
			splits++
			// A training row and a random point moved onto the threshold.
			for _, base := range [][]float64{X.RawRowView(splits % n), at[n+splits%200]} {
				x := append([]float64(nil), base...)
				x[nd.Feature] = nd.Threshold
				at = append(at, x)
			}
		}
		if splits == 0 {
			t.Fatalf("leaf %d: the tree has no split to test", leaf)
		}
		for _, x := range at {
			if a, b := c.Predict(x), tree.Predict(x); a != b {
				t.Fatalf("leaf %d, x=%v: Cubist's rules %v, M5 %v", leaf, x, a, b)
			}
		}
	}
}

func trainRMSE(t *testing.T, m Model, X *mat.Dense, y []float64) float64 {
	t.Helper()
	r, err := RMSE(y, PredictAll(m, X))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// With one neighbour, a training case is its own nearest neighbour
// (distance 0), so the correction returns its target exactly.
func TestCubistOneNeighbourInterpolatesTraining(t *testing.T) {
	X, y := readCSV(t, "testdata/earth/data-mars.csv")
	m, err := FitCubist(X, y, CubistOptions{Committees: 2, Neighbors: 1})
	if err != nil {
		t.Fatal(err)
	}
	if r := trainRMSE(t, m, X, y); r > 1e-9 {
		t.Errorf("training RMSE %g with one neighbour, want 0", r)
	}
}

func TestCubistBadInput(t *testing.T) {
	X, y := piecewiseData(20, 1)
	for name, o := range map[string]CubistOptions{
		"Committees":   {Committees: 0},
		"Neighbors":    {Committees: 1, Neighbors: -1},
		"MinLeaf":      {Committees: 1, M5: M5Options{MinLeaf: -1}},
		"M5.Smoothing": {Committees: 1, M5: M5Options{Smoothing: true}},
	} {
		_, err := FitCubist(X, y, o)
		if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: err %v", name, err)
		}
	}
}

// On data-mars.csv every added committee member lowers the training RMSE
// (up to 10 members). On workload.csv that is not true: adding the 3rd,
// 6th and 10th member raised it slightly (y' = 2y − f overshoots), so there
// the test only asks that 10 members beat one. Observed properties of these
// data, not theorems.
func TestCubistCommitteesTrainingError(t *testing.T) {
	curve := func(X *mat.Dense, y []float64) []float64 {
		var out []float64
		for c := 1; c <= 10; c++ {
			m, err := FitCubist(X, y, CubistOptions{Committees: c})
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, trainRMSE(t, m, X, y))
		}
		return out
	}
	Xm, ym := readCSV(t, "testdata/earth/data-mars.csv")
	cm := curve(Xm, ym)
	for c := 1; c < len(cm); c++ {
		if cm[c] > cm[c-1]*(1+1e-12) {
			t.Errorf("data-mars: %d committees train RMSE %.6f > %.6f with %d", c+1, cm[c], cm[c-1], c)
		}
	}
	rows, yw := readWorkload(t)
	Xw := mat.NewDense(len(rows), len(rows[0]), nil)
	for i, r := range rows {
		Xw.SetRow(i, r)
	}
	cw := curve(Xw, yw)
	if !(cw[9] < cw[0]) {
		t.Errorf("workload: 10 committees train RMSE %.4f, one %.4f", cw[9], cw[0])
	}
	t.Logf("train RMSE by committees, data-mars %.4f, workload %.4f", cm, cw)
}

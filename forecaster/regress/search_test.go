package regress

import (
	"errors"
	"math"
	"testing"
)

func TestOptimizeQuadraticBowl(t *testing.T) {
	box := []Param{{Name: "a", Lower: -5, Upper: 5}, {Name: "b", Lower: -5, Upper: 5}}
	c := []float64{1.3, -2.7}
	f := func(p []float64) (float64, error) {
		return (p[0]-c[0])*(p[0]-c[0]) + 3*(p[1]-c[1])*(p[1]-c[1]), nil
	}
	res, err := Optimize(box, f, SearchOptions{Splits: 4, Explore: 3, MaxRounds: 30, Epsilon: -1})
	if err != nil {
		t.Fatal(err)
	}
	for i := range c {
		if d := math.Abs(res.Best.Params[i] - c[i]); d > 1e-4 {
			t.Errorf("parameter %d: %.6f, optimum %.6f (%d evaluations, %d rounds)", i, res.Best.Params[i], c[i], len(res.Candidates), res.Rounds)
		}
	}
}

// Rosenbrock's curved valley in [-2, 2]²; the minimum 0 is at (1, 1).
func TestOptimizeRosenbrock(t *testing.T) {
	box := []Param{{Name: "x", Lower: -2, Upper: 2}, {Name: "y", Lower: -2, Upper: 2}}
	f := func(p []float64) (float64, error) {
		a, b := 1-p[0], p[1]-p[0]*p[0]
		return a*a + 100*b*b, nil
	}
	res, err := Optimize(box, f, SearchOptions{Splits: 4, Explore: 5, MaxRounds: 60, Epsilon: -1})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(res.Best.Params[0]-1) > 0.01 || math.Abs(res.Best.Params[1]-1) > 0.02 || res.Best.Score > 1e-4 {
		t.Errorf("best %v score %g after %d evaluations", res.Best.Params, res.Best.Score, len(res.Candidates))
	}
}

// A whole-number parameter next to a log-scale one: the search must land on
// the exact integer optimum and the continuous one within 1e-3 relative.
func TestOptimizeIntegerAndLog(t *testing.T) {
	box := []Param{{Name: "n", Lower: 1, Upper: 400, Integer: true}, {Name: "cp", Lower: 1e-6, Upper: 1, Log: true}}
	f := func(p []float64) (float64, error) {
		l := math.Log10(p[1]) + 3.3
		return math.Abs(p[0]-37) + l*l, nil
	}
	res, err := Optimize(box, f, SearchOptions{MaxRounds: 40, Epsilon: -1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Best.Params[0] != 37 || math.Abs(res.Best.Params[1]/math.Pow(10, -3.3)-1) > 1e-3 {
		t.Errorf("best %v", res.Best.Params)
	}
	for _, c := range res.Candidates {
		if c.Params[0] != math.Round(c.Params[0]) || c.Params[1] < 1e-6 || c.Params[1] > 1 {
			t.Fatalf("candidate %v outside the box or not whole", c.Params)
		}
	}
}

func TestOptimizeDeterministicAndStops(t *testing.T) {
	box := []Param{{Name: "a", Lower: 0, Upper: 1}}
	calls := 0
	f := func(p []float64) (float64, error) { calls++; return math.Abs(p[0] - 0.3), nil }
	r1, err := Optimize(box, f, SearchOptions{MaxRounds: 3})
	if err != nil {
		t.Fatal(err)
	}
	if calls != len(r1.Candidates) {
		t.Errorf("%d calls for %d candidates: a point was evaluated twice", calls, len(r1.Candidates))
	}
	r2, _ := Optimize(box, f, SearchOptions{MaxRounds: 3})
	if len(r1.Candidates) != len(r2.Candidates) || r1.Best.Params[0] != r2.Best.Params[0] {
		t.Errorf("two runs differ: %v vs %v", r1.Best, r2.Best)
	}
	if r1.Rounds > 3 {
		t.Errorf("%d rounds, limit 3", r1.Rounds)
	}
	// A flat objective stops after round 2: nothing improves on round 1.
	flat, _ := Optimize(box, func([]float64) (float64, error) { return 1, nil }, SearchOptions{MaxRounds: 10})
	if flat.Rounds != 2 {
		t.Errorf("flat objective ran %d rounds, want 2 (epsilon rule)", flat.Rounds)
	}
	// Failing points score +Inf with the reason; the others still win.
	fail, err := Optimize(box, func(p []float64) (float64, error) {
		if p[0] < 0.5 {
			return 0, errors.New("boom")
		}
		return p[0], nil
	}, SearchOptions{MaxRounds: 2})
	if err != nil || fail.Best.Params[0] < 0.5 || fail.Candidates[0].Err != "boom" {
		t.Errorf("best %v err %v first %+v", fail.Best, err, fail.Candidates[0])
	}
}

func TestOptimizeBadInput(t *testing.T) {
	f := func([]float64) (float64, error) { return 0, nil }
	for name, c := range map[string]struct {
		box []Param
		o   SearchOptions
	}{
		"box":    {[]Param{{Name: "a", Lower: 2, Upper: 1}}, SearchOptions{}},
		"log":    {[]Param{{Name: "a", Lower: 0, Upper: 1, Log: true}}, SearchOptions{}},
		"int":    {[]Param{{Name: "a", Lower: 0.2, Upper: 0.8, Integer: true}}, SearchOptions{}},
		"Folds":  {nil, SearchOptions{Folds: 1}},
		"Splits": {nil, SearchOptions{Splits: -1}},
	} {
		if _, err := Optimize(c.box, f, c.o); !errors.Is(err, ErrInput) {
			t.Errorf("%s: err %v, want ErrInput", name, err)
		}
	}
}

// constLearner predicts its one parameter everywhere.
type constLearner struct{ def float64 }

func (c constLearner) Name() string { return "const" }
func (c constLearner) Params() []Param {
	return []Param{{Name: "c", Lower: 0, Upper: 10, Default: c.def}}
}
func (c constLearner) Fit(X [][]float64, y []float64, p []float64) (Model, error) {
	if err := checkParams(c.Params(), p); err != nil {
		return nil, err
	}
	if _, err := denseXY(X, y); err != nil {
		return nil, err
	}
	return constModel(p[0]), nil
}

type constModel float64

func (m constModel) Predict([]float64) float64 { return float64(m) }

// Search scores the defaults on the same folds and starts from them, so a
// default that the coarse grid misses still wins; CVRMSE of a constant
// predictor is the RMSE around that constant.
func TestSearchStartsFromDefaults(t *testing.T) {
	var X [][]float64
	var y []float64
	for i := 0; i < 50; i++ {
		X = append(X, []float64{float64(i)})
		y = append(y, 3.3)
	}
	l := constLearner{def: 3.3}
	res, err := Search(l, X, y, SearchOptions{Splits: 1, Explore: 1, MaxRounds: 1, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	if res.Best.Params[0] != 3.3 || res.Best.Score > 1e-12 || res.DefaultScore != res.Best.Score {
		t.Errorf("best %+v default score %v", res.Best, res.DefaultScore)
	}
	// Without the default the grid {0, 5, 10} gives |5 − 3.3| = 1.7.
	s, err := CVRMSE(l, X, y, []float64{5}, 10, 2)
	if err != nil || math.Abs(s-1.7) > 1e-12 {
		t.Errorf("CVRMSE at 5: %v %v", s, err)
	}
	if _, err := Search(l, X, y[:10], SearchOptions{}); !errors.Is(err, ErrInput) {
		t.Errorf("mismatched y: %v", err)
	}
}

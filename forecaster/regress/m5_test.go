package regress

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// m5Data draws n samples of p uniform [0,1) features and y = f(x) + noise.
func m5Data(n, p int, sigma float64, seed uint64, f func(x []float64) float64) (*mat.Dense, []float64) {
	rng := rand.New(rand.NewPCG(seed, 5))
	X := mat.NewDense(n, p, nil)
	y := make([]float64, n)
	row := make([]float64, p)
	for i := 0; i < n; i++ {
		for j := range row {
			row[j] = rng.Float64()
			X.Set(i, j, row[j])
		}
		y[i] = f(row) + sigma*rng.NormFloat64()
	}
	return X, y
}

func m5RMSE(t *testing.T, m Model, X mat.Matrix, y []float64) float64 {
	t.Helper()
	r, err := RMSE(y, PredictAll(m, X))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// SDR worked by hand: y = 1,2,3,10,11,12 at x = 1..6; the split between 3
// and 4 gives SDR = sd(T) − (3/6)·sd{1,2,3} − (3/6)·sd{10,11,12}
// = 4.5735 − 0.8165 = 3.7570 (population sd), the largest of all splits.
func TestM5SDRHandWorked(t *testing.T) {
	X := mat.NewDense(6, 1, []float64{1, 2, 3, 4, 5, 6})
	y := []float64{1, 2, 3, 10, 11, 12}
	b := &m5Builder{opt: M5Options{MinLeaf: 1}.withDefaults(), n: 6, p: 1, y: y, x: X.RawMatrix().Data}
	b.order = newM5Presorted(X).order
	idx := []int{0, 1, 2, 3, 4, 5}
	sd := b.sd(idx)
	if math.Abs(sd-math.Sqrt(379.0/6-6.5*6.5)) > 1e-12 { // Σy²/n − ȳ²
		t.Fatalf("sd = %v", sd)
	}
	feat, thr, ok := b.bestSplit(0, 6, sd)
	if !ok || feat != 0 || thr != 3.5 {
		t.Fatalf("best split feature %d at %v (ok %v), want 0 at 3.5", feat, thr, ok)
	}
	sdSide := math.Sqrt(2.0 / 3) // sd of {1,2,3} and of {10,11,12}
	want := sd - 0.5*sdSide - 0.5*sdSide
	if math.Abs(want-3.7570) > 1e-4 {
		t.Fatalf("hand SDR %v", want)
	}
}

// SDR does not depend on where y sits: y and y + 2³⁰ (y on a 2⁻¹⁰ grid, so
// the shift is exact) must grow the same tree. The split search summed raw
// y and y² per side, whose difference Σy²/n − ȳ² cancels catastrophically
// far from zero (here Σy² ≈ 10²⁰, its rounding ≈ 10⁴ against variances of
// order 1), and grew a different tree.
func TestM5SplitsShiftInvariant(t *testing.T) {
	X, y := m5Data(400, 3, 0.1, 11, func(x []float64) float64 {
		return 5*x[0] + 3*math.Sin(6*x[1])
	})
	const shift = 1 << 30
	ys := make([]float64, len(y))
	for i := range y {
		y[i] = math.Round(y[i]*1024) / 1024
		ys[i] = y[i] + shift
	}
	a, err := FitM5(X, y, M5Options{MinLeaf: 2, NoPrune: true})
	if err != nil {
		t.Fatal(err)
	}
	b, err := FitM5(X, ys, M5Options{MinLeaf: 2, NoPrune: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Nodes) != len(b.Nodes) {
		t.Fatalf("%d nodes for y, %d for y + 2^30", len(a.Nodes), len(b.Nodes))
	}
	for i := range a.Nodes {
		na, nb := a.Nodes[i], b.Nodes[i]
		if na.Feature != nb.Feature || na.Threshold != nb.Threshold || na.N != nb.N || na.IsLeaf() != nb.IsLeaf() {
			t.Fatalf("node %d: x%d < %v (n %d) for y, x%d < %v (n %d) for y + 2^30",
				i, na.Feature, na.Threshold, na.N, nb.Feature, nb.Threshold, nb.N)
		}
	}
}

// An exact tie goes to the lower feature index, as bestSplit documents.
// These five rows of testdata/trees/data-friedman1.csv (a node of the
// unpruned tree at MinLeaf 2) split into {221, 142} and the rest both by x5
// and by x7; the raw-sum SDR differed between the two by 1.04e-12 relative
// (rounding), just past the tie tolerance, and x7 won.
func TestM5ExactTieGoesToLowerFeature(t *testing.T) {
	X, y := readCSV(t, "testdata/trees/data-friedman1.csv")
	rows := []int{27, 142, 221, 267, 275}
	sub := mat.NewDense(len(rows), 8, nil)
	ys := make([]float64, len(rows))
	for a, i := range rows {
		sub.SetRow(a, X.RawRowView(i))
		ys[a] = y[i]
	}
	tree, err := FitM5(sub, ys, M5Options{MinLeaf: 2, NoPrune: true})
	if err != nil {
		t.Fatal(err)
	}
	if root := tree.Nodes[0]; root.IsLeaf() || root.Feature != 5 {
		t.Errorf("root split on x%d (leaf %v), want x5: x5 and x7 tie and x5 is the lower index", root.Feature, root.IsLeaf())
	}
}

// The estimated error c = mean|err|·(n+ν)/(n−ν) by hand: a constant model
// on y = 1,2,3,4 has mean 2.5, mean |err| 1, ν = 1: c = 1·5/3.
func TestM5AdjustedErrorHandWorked(t *testing.T) {
	b := &m5Builder{n: 4, p: 1, y: []float64{1, 2, 3, 4}, x: []float64{0, 0, 0, 0}}
	m, c := b.lsq([]int{0, 1, 2, 3}, nil)
	if m.Intercept != 2.5 || math.Abs(c-5.0/3) > 1e-15 {
		t.Errorf("constant model %+v, c = %v, want 2.5 and 5/3", m, c)
	}
	// y = 2x + 1 exactly: c = 0 with ν = 2.
	b = &m5Builder{n: 4, p: 1, y: []float64{1, 3, 5, 7}, x: []float64{0, 1, 2, 3}}
	m, c = b.lsq([]int{0, 1, 2, 3}, []int{0})
	if math.Abs(m.Coef[0]-2) > 1e-9 || math.Abs(m.Intercept-1) > 1e-9 || c > 1e-9 {
		t.Errorf("line model %+v, c = %v", m, c)
	}
}

// Pruning as in Witten & Frank's M5' pseudocode (Data Mining, Fig. 6.15),
// which Weka's M5P does not follow (golden_weka_test.go), checked on every
// node of a tree with many decisions: a leaf's Error is its model's
// c = mean|y − ŷ|·(n+ν)/(n−ν) on its rows, an inner node's Error is its
// subtree's, the n-weighted mean of its children's, and an inner node was
// kept only because its own model's c is larger than that.
func TestM5PruningRule(t *testing.T) {
	X, y := readCSV(t, "testdata/trees/data-friedman1.csv")
	tree, err := FitM5(X, y, M5Options{MinLeaf: 2})
	if err != nil {
		t.Fatal(err)
	}
	n, _ := X.Dims()
	rows := make([][]int, len(tree.Nodes))
	for i := 0; i < n; i++ {
		x := X.RawRowView(i)
		for id := 0; ; {
			rows[id] = append(rows[id], i)
			nd := &tree.Nodes[id]
			if nd.IsLeaf() {
				break
			}
			if x[nd.Feature] < nd.Threshold {
				id = nd.Left
			} else {
				id = nd.Right
			}
		}
	}
	c := func(id int) float64 {
		m := &tree.Nodes[id].Model
		var abs float64
		for _, i := range rows[id] {
			abs += math.Abs(y[i] - m.Predict(X.RawRowView(i)))
		}
		k, nu := float64(len(rows[id])), float64(len(m.Features)+1)
		if k <= nu {
			return abs / k * 10
		}
		return abs / k * (k + nu) / (k - nu)
	}
	kept := 0
	for id := range tree.Nodes {
		nd := &tree.Nodes[id]
		if len(rows[id]) != nd.N {
			t.Fatalf("node %d: %d training rows reach it, N = %d", id, len(rows[id]), nd.N)
		}
		if nd.IsLeaf() {
			if math.Abs(nd.Error-c(id)) > 1e-9*c(id) {
				t.Errorf("leaf %d: Error %v, its model's c %v", id, nd.Error, c(id))
			}
			continue
		}
		kept++
		l, r := &tree.Nodes[nd.Left], &tree.Nodes[nd.Right]
		sub := (float64(l.N)*l.Error + float64(r.N)*r.Error) / float64(nd.N)
		if math.Abs(nd.Error-sub) > 1e-12*sub {
			t.Errorf("node %d: Error %v, the children's n-weighted mean %v", id, nd.Error, sub)
		}
		if !(c(id) > sub) {
			t.Errorf("node %d kept its subtree (c %v) with a model no worse (c %v)", id, sub, c(id))
		}
	}
	if kept < 20 {
		t.Fatalf("only %d inner nodes: the test needs a tree with many pruning decisions", kept)
	}
}

// A V-shaped target with an irrelevant feature. SDR places splits where
// they cut the spread of y (as for constant leaves), not at the hinge, so M5
// does not return the two-leaf tree; what it must do: predict the truth
// within the noise, prune the grown tree hard, give the big leaves the true
// slopes −4/+4 on feature 0, and never use the irrelevant feature 1.
func TestM5PiecewiseLinearRecovered(t *testing.T) {
	f := func(x []float64) float64 { return 1 + 4*math.Abs(x[0]-0.5) }
	X, y := m5Data(2000, 2, 0.02, 1, f)
	tree, err := FitM5(X, y, M5Options{})
	if err != nil {
		t.Fatal(err)
	}
	full, _ := FitM5(X, y, M5Options{NoPrune: true})
	Xt, yt := m5Data(1000, 2, 0, 2, f)
	if r := m5RMSE(t, tree, Xt, yt); r > 0.01 {
		t.Errorf("test RMSE against the noise-free truth %.4f, want <= 0.01 (noise 0.02)", r)
	}
	if tree.NumLeaves() > full.NumLeaves()/3 {
		t.Errorf("pruned tree has %d leaves, grown tree %d", tree.NumLeaves(), full.NumLeaves())
	}
	var bigLeft, bigRight *M5Node
	for i := range tree.Nodes {
		nd := &tree.Nodes[i]
		for _, j := range nd.Model.Features {
			if j == 1 {
				t.Errorf("node %d uses the irrelevant feature 1: %+v", i, nd.Model)
			}
		}
		if !nd.IsLeaf() || len(nd.Model.Features) == 0 {
			continue
		}
		if nd.Model.Coef[0] < 0 && (bigLeft == nil || nd.N > bigLeft.N) {
			bigLeft = nd
		}
		if nd.Model.Coef[0] > 0 && (bigRight == nil || nd.N > bigRight.N) {
			bigRight = nd
		}
	}
	if bigLeft == nil || bigRight == nil {
		t.Fatalf("no sloped leaves on both sides")
	}
	if math.Abs(bigLeft.Model.Coef[0]+4) > 0.05 || math.Abs(bigRight.Model.Coef[0]-4) > 0.05 {
		t.Errorf("largest leaves' slopes %.3f and %.3f, want −4 and +4", bigLeft.Model.Coef[0], bigRight.Model.Coef[0])
	}
}

// Two regimes selected by one feature, each linear in others (the shape of
// a storage workload: different linear behaviour below/above a knob).
func TestM5TwoRegimes(t *testing.T) {
	f := func(x []float64) float64 {
		if x[2] < 0.3 {
			return 2 + 3*x[0]
		}
		return 10 - 5*x[1] + 2*x[0]
	}
	X, y := m5Data(3000, 4, 0.05, 3, f)
	tree, err := FitM5(X, y, M5Options{})
	if err != nil {
		t.Fatal(err)
	}
	root := tree.Nodes[0]
	if root.Feature != 2 || math.Abs(root.Threshold-0.3) > 0.02 {
		t.Errorf("root split x%d < %.3f, want x2 < 0.3", root.Feature, root.Threshold)
	}
	Xt, yt := m5Data(1000, 4, 0, 4, f)
	r := m5RMSE(t, tree, Xt, yt)
	if r > 0.05 {
		t.Errorf("test RMSE %.4f, want <= 0.05 (noise 0.05)", r)
	}
	// Exact structure: two leaves with the true models.
	if tree.NumLeaves() != 2 {
		t.Fatalf("%d leaves for a 2-regime target", tree.NumLeaves())
	}
	lm, rm := tree.Nodes[root.Left].Model, tree.Nodes[root.Right].Model
	if fmt.Sprint(lm.Features) != "[0]" || math.Abs(lm.Coef[0]-3) > 0.02 || math.Abs(lm.Intercept-2) > 0.02 {
		t.Errorf("left leaf %+v, want 2 + 3x0", lm)
	}
	if fmt.Sprint(rm.Features) != "[0 1]" || math.Abs(rm.Coef[0]-2) > 0.02 || math.Abs(rm.Coef[1]+5) > 0.02 || math.Abs(rm.Intercept-10) > 0.02 {
		t.Errorf("right leaf %+v, want 10 + 2x0 − 5x1", rm)
	}
	// A CART tree of the same size cannot follow the slopes.
	cart, err := FitTree(X, y, TreeOptions{MaxDepth: 2})
	if err != nil {
		t.Fatal(err)
	}
	if rc := m5RMSE(t, cart, Xt, yt); rc < 5*r {
		t.Errorf("CART depth 2 RMSE %.3f vs M5 %.3f: expected M5 far better", rc, r)
	}
}

// A linear target prunes to one leaf with the true coefficients; an
// irrelevant feature is simplified away.
func TestM5LinearPrunesToOneLeaf(t *testing.T) {
	f := func(x []float64) float64 { return 3 + 2*x[0] - 7*x[1] }
	X, y := m5Data(500, 3, 0.01, 5, f)
	tree, err := FitM5(X, y, M5Options{})
	if err != nil {
		t.Fatal(err)
	}
	if tree.NumLeaves() != 1 {
		t.Fatalf("%d leaves, want 1", tree.NumLeaves())
	}
	m := tree.Nodes[0].Model
	if fmt.Sprint(m.Features) != "[0 1]" {
		t.Fatalf("features %v, want [0 1]", m.Features)
	}
	if math.Abs(m.Coef[0]-2) > 0.01 || math.Abs(m.Coef[1]+7) > 0.01 || math.Abs(m.Intercept-3) > 0.01 {
		t.Errorf("model %+v, want 3 + 2x0 − 7x1", m)
	}
	// Without pruning the grown tree stays.
	full, _ := FitM5(X, y, M5Options{NoPrune: true})
	if full.NumLeaves() < 10 {
		t.Errorf("unpruned tree has %d leaves", full.NumLeaves())
	}
}

func TestM5ConstantTarget(t *testing.T) {
	X := mat.NewDense(10, 1, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
	y := []float64{4, 4, 4, 4, 4, 4, 4, 4, 4, 4}
	tree, err := FitM5(X, y, M5Options{})
	if err != nil {
		t.Fatal(err)
	}
	if tree.NumLeaves() != 1 || tree.Predict([]float64{100}) != 4 {
		t.Errorf("constant target: %+v", tree.Nodes)
	}
}

// Smoothing by hand: from the leaf up, p ← (n p + 15 q)/(n + 15) with n the
// child's samples and q the parent's model at x.
func TestM5SmoothingHandWorked(t *testing.T) {
	f := func(x []float64) float64 {
		if x[1] < 0.5 {
			return 1 + 2*x[0]
		}
		return 5 - 3*x[0]
	}
	X, y := m5Data(400, 2, 0.01, 6, f)
	tree, _ := FitM5(X, y, M5Options{})
	smooth, _ := FitM5(X, y, M5Options{Smoothing: true})
	if smooth.NumLeaves() < 2 {
		t.Fatalf("%d leaves", smooth.NumLeaves())
	}
	for _, x := range [][]float64{{0.2, 0.1}, {0.9, 0.8}, {0.5, 0.49}} {
		var path []int
		i := 0
		for !smooth.Nodes[i].IsLeaf() {
			path = append(path, i)
			if x[smooth.Nodes[i].Feature] < smooth.Nodes[i].Threshold {
				i = smooth.Nodes[i].Left
			} else {
				i = smooth.Nodes[i].Right
			}
		}
		p := smooth.Nodes[i].Model.Predict(x)
		if tree.Predict(x) != p {
			t.Errorf("unsmoothed %v, want the leaf's %v", tree.Predict(x), p)
		}
		child := i
		for k := len(path) - 1; k >= 0; k-- {
			n := float64(smooth.Nodes[child].N)
			p = (n*p + 15*smooth.Nodes[path[k]].Model.Predict(x)) / (n + 15)
			child = path[k]
		}
		if got := smooth.Predict(x); math.Abs(got-p) > 1e-12 {
			t.Errorf("smoothed at %v: %v, want %v", x, got, p)
		}
	}
}

// Smoothing on a tree deeper than 64 (a chain: node d splits at x < d, its
// left child a leaf, its right child the next split) blends the leaf with
// each of its ancestors in turn, the parent first; the walk recorded only
// 64 ancestors and blended the leaf with the 64th.
func TestM5SmoothingDeepTree(t *testing.T) {
	const depth = 70
	tree := &M5Tree{P: 1, Smoothing: true, SmoothingK: 15}
	for d := 0; d < depth; d++ {
		split := len(tree.Nodes)
		tree.Nodes = append(tree.Nodes,
			M5Node{Feature: 0, Threshold: float64(d), Left: split + 1, Right: split + 2, N: 2 * (depth - d), Model: M5Linear{Intercept: float64(d)}},
			M5Node{Left: -1, Right: -1, N: 1, Model: M5Linear{Intercept: -1}})
	}
	tree.Nodes = append(tree.Nodes, M5Node{Left: -1, Right: -1, N: 1, Model: M5Linear{Intercept: 1000}})
	// x = 1000 goes right at every split, to the last leaf.
	p, child := 1000.0, len(tree.Nodes)-1
	for d := depth - 1; d >= 0; d-- {
		parent := 2 * d
		n := float64(tree.Nodes[child].N)
		p = (n*p + 15*float64(d)) / (n + 15)
		child = parent
	}
	if got := tree.Predict([]float64{1000}); math.Abs(got-p) > 1e-9*math.Abs(p) {
		t.Errorf("smoothed over %d ancestors: %v, want %v", depth, got, p)
	}
}

func TestM5BadInput(t *testing.T) {
	X := mat.NewDense(3, 1, []float64{1, 2, 3})
	for _, c := range []struct {
		X    mat.Matrix
		y    []float64
		opt  M5Options
		want string
	}{
		{nil, nil, M5Options{}, "X: nil matrix"},
		{X, []float64{1, 2}, M5Options{}, "y: length 2 does not match 3 rows of X"},
		{X, []float64{1, math.NaN(), 3}, M5Options{}, "y: element 1 is NaN"},
		{mat.NewDense(2, 1, []float64{math.Inf(1), 1}), []float64{1, 2}, M5Options{}, "X: element (0,0) is +Inf"},
		{X, []float64{1, 2, 3}, M5Options{MinLeaf: -1}, "MinLeaf: negative"},
		{X, []float64{1, 2, 3}, M5Options{SDFraction: 1}, "SDFraction: must be in [0, 1)"},
		{X, []float64{1, 2, 3}, M5Options{SmoothingK: math.NaN()}, "SmoothingK: must be a finite number >= 0"},
	} {
		_, err := FitM5(c.X, c.y, c.opt)
		if err == nil || !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("FitM5: error %v, want %q", err, c.want)
		}
	}
	tree, _ := FitM5(X, []float64{1, 2, 3}, M5Options{})
	if !math.IsNaN(tree.Predict([]float64{1, 2})) {
		t.Error("Predict with the wrong length must return NaN")
	}
}

func TestM5TrainerCVAndJSON(t *testing.T) {
	f := func(x []float64) float64 { return 1 + 4*math.Abs(x[0]-0.5) + x[1] }
	X, y := m5Data(600, 2, 0.05, 7, f)
	res, err := CrossValidate(M5Trainer{}, X, y, 5, 1)
	if err != nil {
		t.Fatal(err)
	}
	// Noise sd 0.05: a tree that fits the kink and the slope scores near it.
	if !(res.MeanRMSE < 0.1) {
		t.Errorf("5-fold CV RMSE %v on a kinked plane with noise sd 0.05, want under 0.1", res.MeanRMSE)
	}
	tree, _ := FitM5(X, y, M5Options{Smoothing: true})
	b, err := json.Marshal(tree)
	if err != nil {
		t.Fatal(err)
	}
	var back M5Tree
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		x := []float64{float64(i) / 20, 0.3}
		if back.Predict(x) != tree.Predict(x) {
			t.Fatal("JSON round trip changed predictions")
		}
	}
}

func FuzzFitM5(f *testing.F) {
	f.Add(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 1.0, 0.0)
	f.Add(1e300, -1e300, 0.0, 5e-324, 1.0, 1.0, 1.0, 1.0)
	f.Fuzz(func(t *testing.T, a, b, c, d, e, g, h, k float64) {
		X := mat.NewDense(8, 2, []float64{a, b, c, d, e, g, h, k, b, a, d, c, g, e, k, h})
		y := []float64{a, c, e, h, b, d, g, k}
		tree, err := FitM5(X, y, M5Options{MinLeaf: 1, Smoothing: a > 0})
		if err != nil {
			return
		}
		_ = tree.Predict([]float64{a, b})
	})
}

func BenchmarkFitM5(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		X, y := m5Data(n, 8, 0.05, 1, func(x []float64) float64 {
			if x[2] < 0.3 {
				return 2 + 3*x[0]
			}
			return 10 - 5*x[1] + 2*x[0]
		})
		b.Run(fmt.Sprintf("n=%d,p=8", n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := FitM5(X, y, M5Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

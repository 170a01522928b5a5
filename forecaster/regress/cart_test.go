package regress

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// readCSV reads a data-*.csv written by testdata/trees/gen_data.py.
func readCSV(t *testing.T, path string) (*mat.Dense, []float64) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan() // header
	var rows [][]float64
	for sc.Scan() {
		var row []float64
		for _, s := range strings.Split(sc.Text(), ",") {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatal(err)
			}
			row = append(row, v)
		}
		rows = append(rows, row)
	}
	p := len(rows[0]) - 1
	X := mat.NewDense(len(rows), p, nil)
	y := make([]float64, len(rows))
	for i, r := range rows {
		X.SetRow(i, r[:p])
		y[i] = r[p]
	}
	return X, y
}

var goldenHeader = regexp.MustCompile(`minsplit=(\d+) cp=([0-9.e-]+) leaves=(\d+)(?: vars=(.*))?`)

// readGolden reads an rpart-*.csv or sklearn-*.csv: header, then fitted values.
func readGolden(t *testing.T, path string) (minsplit int, cp float64, leaves int, vars string, fitted []float64) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	m := goldenHeader.FindStringSubmatch(lines[0])
	if m == nil {
		t.Fatalf("%s: bad header %q", path, lines[0])
	}
	minsplit, _ = strconv.Atoi(m[1])
	cp, _ = strconv.ParseFloat(m[2], 64)
	leaves, _ = strconv.Atoi(m[3])
	vars = m[4]
	for _, l := range lines[2:] {
		v, err := strconv.ParseFloat(l, 64)
		if err != nil {
			t.Fatal(err)
		}
		fitted = append(fitted, v)
	}
	return
}

// TestTreeMatchesReferences compares our trees with R's rpart and
// scikit-learn's DecisionTreeRegressor on the same data and parameters
// (testdata/trees/gen_*.{R,py}). Same leaves, same split variables, and
// fitted values equal to 1e-9 relative: the trees are the same trees.
func TestTreeMatchesReferences(t *testing.T) {
	files, _ := filepath.Glob("testdata/trees/*-*-*-*.csv")
	if len(files) < 8 {
		t.Fatalf("expected the rpart and sklearn golden files, found %d", len(files))
	}
	for _, path := range files {
		base := filepath.Base(path)
		if strings.HasPrefix(base, "data-") {
			continue
		}
		t.Run(base, func(t *testing.T) {
			data := strings.SplitN(strings.SplitN(base, "-", 2)[1], "-", 2)[0]
			X, y := readCSV(t, filepath.Join("testdata/trees", "data-"+data+".csv"))
			minsplit, cp, leaves, vars, fitted := readGolden(t, path)
			tree, err := FitTree(X, y, TreeOptions{MinSplit: minsplit, CP: cp})
			if err != nil {
				t.Fatal(err)
			}
			if got := tree.NumLeaves(); got != leaves {
				t.Errorf("leaves = %d, reference has %d", got, leaves)
			}
			if vars != "" {
				var names []string
				for _, j := range tree.SplitFeatures() {
					names = append(names, fmt.Sprintf("x%d", j))
				}
				if got := strings.Join(names, " "); got != vars {
					t.Errorf("split variables = %q, reference %q", got, vars)
				}
			}
			pred := PredictAll(tree, X)
			for i := range pred {
				if d := math.Abs(pred[i] - fitted[i]); d > 1e-9*math.Max(1, math.Abs(fitted[i])) {
					t.Fatalf("row %d: fitted %v, reference %v", i, pred[i], fitted[i])
				}
			}
		})
	}
}

// A target that is a step function of one feature is recovered exactly: one
// split at the midpoint between the sides, leaf values the step's levels.
func TestTreeRecoversStep(t *testing.T) {
	n := 100
	X := mat.NewDense(n, 3, nil)
	y := make([]float64, n)
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < n; i++ {
		X.Set(i, 0, r.Float64())
		X.Set(i, 1, float64(i)) // the step lives here
		X.Set(i, 2, r.NormFloat64())
		y[i] = 3
		if i >= 40 {
			y[i] = 7
		}
	}
	tree, err := FitTree(X, y, TreeOptions{MinSplit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if tree.NumLeaves() != 2 || tree.Nodes[0].Feature != 1 || tree.Nodes[0].Threshold != 39.5 {
		t.Fatalf("want one split on feature 1 at 39.5, got %+v", tree.Nodes)
	}
	if got := tree.Predict([]float64{0, 10, 0}); got != 3 {
		t.Errorf("left leaf predicts %v, want 3", got)
	}
	if got := tree.Predict([]float64{0, 90, 0}); got != 7 {
		t.Errorf("right leaf predicts %v, want 7", got)
	}
	rows := tree.LeafRows(tree.LeafOf([]float64{0, 0, 0}))
	if len(rows) != 40 || rows[0] != 0 || rows[39] != 39 {
		t.Errorf("left leaf rows = %v, want 0..39", rows)
	}
}

// A split between adjacent floats (the midpoint rounds to the lower value)
// or between values of opposite signs near the float range (the midpoint
// overflows) still sends each row where the split scan counted it.
func TestTreeSplitPointAtTheFloatLimits(t *testing.T) {
	next := math.Nextafter(1, 2)
	for _, c := range []struct {
		name string
		x    []float64
	}{
		{"adjacent floats", []float64{1, 1, next, next}},
		{"overflowing midpoint", []float64{-1.7e308, -1.7e308, 1.7e308, 1.7e308}},
	} {
		tree, err := FitTree(mat.NewDense(4, 1, c.x), []float64{0, 0, 10, 10}, TreeOptions{MinSplit: 2})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if tree.NumLeaves() != 2 {
			t.Fatalf("%s: %d leaves, want 2", c.name, tree.NumLeaves())
		}
		for i, x := range c.x {
			want := []float64{0, 0, 10, 10}[i]
			if got := tree.Predict([]float64{x}); got != want {
				t.Errorf("%s: Predict(%v) = %v, want %v (threshold %v)", c.name, x, got, want, tree.Nodes[0].Threshold)
			}
			if rows := tree.LeafRows(tree.LeafOf([]float64{x})); !slices.Contains(rows, i) {
				t.Errorf("%s: row %d (x %v) is not among the rows %v of the leaf it falls in", c.name, i, x, rows)
			}
		}
	}
}

// Properties on random data: leaves partition the rows; every leaf respects
// MinBucket and MaxDepth; leaf values are the means of their rows; pruning
// only removes leaves and never lowers the training SSE.
func TestTreeProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for trial := 0; trial < 20; trial++ {
		n, p := 50+r.IntN(200), 1+r.IntN(6)
		X := mat.NewDense(n, p, nil)
		y := make([]float64, n)
		for i := 0; i < n; i++ {
			for j := 0; j < p; j++ {
				X.Set(i, j, math.Round(r.NormFloat64()*4)) // ties on purpose
			}
			y[i] = X.At(i, 0)*X.At(i, p-1) + r.NormFloat64()
		}
		opt := TreeOptions{MinSplit: 2 + r.IntN(20), MinBucket: 1 + r.IntN(5), MaxDepth: 1 + r.IntN(8)}
		tree, err := FitTree(X, y, opt)
		if err != nil {
			t.Fatal(err)
		}
		seen := make([]int, n)
		for i, nd := range tree.Nodes {
			if !nd.IsLeaf() {
				continue
			}
			if nd.N < opt.MinBucket || nd.Depth > opt.MaxDepth {
				t.Fatalf("leaf %d: n=%d depth=%d violates %+v", i, nd.N, nd.Depth, opt)
			}
			var sum float64
			for _, row := range tree.LeafRows(i) {
				seen[row]++
				sum += y[row]
				if tree.LeafOf(X.RawRowView(row)) != i {
					t.Fatalf("row %d is stored in leaf %d but falls elsewhere", row, i)
				}
			}
			if math.Abs(sum/float64(nd.N)-nd.Value) > 1e-9*math.Max(1, math.Abs(nd.Value)) {
				t.Fatalf("leaf %d value %v is not the mean of its rows", i, nd.Value)
			}
		}
		for row, c := range seen {
			if c != 1 {
				t.Fatalf("row %d is in %d leaves", row, c)
			}
		}
		sse := func(tr *Tree) float64 {
			s := 0.0
			for i, v := range PredictAll(tr, X) {
				s += (v - y[i]) * (v - y[i])
			}
			return s
		}
		pruned := tree.Prune(0.02)
		if pruned.NumLeaves() > tree.NumLeaves() || sse(pruned) < sse(tree)-1e-9 {
			t.Fatalf("pruning grew the tree or lowered SSE: %d->%d leaves", tree.NumLeaves(), pruned.NumLeaves())
		}
	}
}

// The tolerance rule stops a split whose relative SSE reduction is small:
// on pure noise with tolerance 0.5 nothing splits; without it the tree grows.
func TestTreeTolerance(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	n := 200
	X := mat.NewDense(n, 2, nil)
	y := make([]float64, n)
	for i := range y {
		X.Set(i, 0, r.Float64())
		X.Set(i, 1, r.Float64())
		y[i] = r.NormFloat64()
	}
	noTol, _ := FitTree(X, y, TreeOptions{MinSplit: 10})
	tol, _ := FitTree(X, y, TreeOptions{MinSplit: 10, Tolerance: 0.5})
	if noTol.NumLeaves() < 5 || tol.NumLeaves() != 1 {
		t.Fatalf("leaves without tolerance %d (want >= 5), with 0.5 %d (want 1)", noTol.NumLeaves(), tol.NumLeaves())
	}
}

func TestTreeBadInput(t *testing.T) {
	X := mat.NewDense(3, 1, []float64{1, 2, 3})
	cases := []struct {
		name string
		X    mat.Matrix
		y    []float64
		opt  TreeOptions
		want string
	}{
		{"nil X", nil, []float64{1}, TreeOptions{}, "X: nil matrix"},
		{"short y", X, []float64{1, 2}, TreeOptions{}, "y: length 2 does not match 3 rows of X"},
		{"NaN y", X, []float64{1, math.NaN(), 3}, TreeOptions{}, "y: element 1 is NaN"},
		{"Inf X", mat.NewDense(1, 1, []float64{math.Inf(1)}), []float64{1}, TreeOptions{}, "X: element (0,0) is +Inf"},
		{"negative cp", X, []float64{1, 2, 3}, TreeOptions{CP: -1}, "CP: must be a finite number >= 0, got -1"},
		{"tolerance 1", X, []float64{1, 2, 3}, TreeOptions{Tolerance: 1}, "Tolerance: must be in [0, 1), got 1"},
	}
	for _, c := range cases {
		_, err := FitTree(c.X, c.y, c.opt)
		if !errors.Is(err, ErrInput) || !strings.HasSuffix(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want ErrInput ending in %q", c.name, err, c.want)
		}
	}
	// A constant target is a single leaf, not an error.
	tree, err := FitTree(X, []float64{2, 2, 2}, TreeOptions{MinSplit: 2})
	if err != nil || tree.NumLeaves() != 1 || tree.Predict([]float64{5}) != 2 {
		t.Fatalf("constant target: %v, %+v", err, tree)
	}
	if !math.IsNaN(tree.Predict([]float64{1, 2})) {
		t.Error("a sample of the wrong width must predict NaN")
	}
}

func TestTreeJSONRoundTrip(t *testing.T) {
	X, y := readCSV(t, "testdata/trees/data-steps.csv")
	tree, err := FitTree(X, y, TreeOptions{CP: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(tree)
	var back Tree
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		if tree.Predict(X.RawRowView(i)) != back.Predict(X.RawRowView(i)) {
			t.Fatal("decoded tree predicts differently")
		}
	}
	bad := `{"nodes":[{"feature":0,"threshold":1,"left":5,"right":6}],"p":1}`
	if err := json.Unmarshal([]byte(bad), &back); err == nil {
		t.Fatal("a tree with children out of range must not decode")
	}
}

func FuzzFitTree(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8}, uint8(2), uint8(1))
	f.Add([]byte{0, 0, 0, 0}, uint8(1), uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, p, minSplit uint8) {
		cols := int(p%4) + 1
		n := len(data) / (cols + 1)
		if n == 0 {
			return
		}
		X := mat.NewDense(n, cols, nil)
		y := make([]float64, n)
		for i := 0; i < n; i++ {
			for j := 0; j < cols; j++ {
				X.Set(i, j, float64(int8(data[i*(cols+1)+j])))
			}
			y[i] = float64(int8(data[i*(cols+1)+cols]))
		}
		tree, err := FitTree(X, y, TreeOptions{MinSplit: int(minSplit % 8)})
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < n; i++ {
			if v := tree.Predict(X.RawRowView(i)); math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("prediction %v", v)
			}
		}
	})
}

// BenchmarkFitTree covers small to huge: the largest is M-LISP's case of
// 1000 samples over 5000 counters.
func BenchmarkFitTree(b *testing.B) {
	for _, size := range []struct{ n, p int }{{100, 10}, {1000, 100}, {1000, 5000}, {20000, 256}} {
		b.Run(fmt.Sprintf("n=%d/p=%d", size.n, size.p), func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, 1))
			X := mat.NewDense(size.n, size.p, nil)
			y := make([]float64, size.n)
			for i := 0; i < size.n; i++ {
				for j := 0; j < size.p; j++ {
					X.Set(i, j, r.Float64())
				}
				y[i] = 10*X.At(i, 0) + 5*X.At(i, 1)*X.At(i, 2) + r.NormFloat64()
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := FitTree(X, y, TreeOptions{Tolerance: 0.1}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

package regress

import (
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"sort"
	"sync"

	"gonum.org/v1/gonum/mat"
)

// TreeOptions controls the growth of a CART regression tree. The zero value
// of a field selects its default.
type TreeOptions struct {
	// MinSplit is the smallest number of samples in a node for a split to be
	// attempted (rpart's minsplit). Default 20.
	MinSplit int
	// MinBucket is the smallest number of samples in a leaf (rpart's
	// minbucket). Default round(MinSplit/3), at least 1.
	MinBucket int
	// MaxDepth bounds the depth of any node; the root has depth 0. Default 30.
	MaxDepth int
	// CP is rpart's complexity parameter: the returned tree is the
	// cost-complexity pruned tree at α = CP·SSE(root), i.e. a split is kept
	// only when it (with its subtree) cuts the tree's SSE by more than α per
	// leaf added. 0 disables pruning.
	CP float64
	// Tolerance is M-LISP's stopping rule: a node is not split when the best
	// split's SSE reduction divided by the node's SSE is below Tolerance
	// (the paper uses 0.1). 0 disables the rule.
	Tolerance float64
}

func (o TreeOptions) withDefaults() TreeOptions {
	if o.MinSplit <= 0 {
		o.MinSplit = 20
	}
	if o.MinBucket <= 0 {
		o.MinBucket = int(math.Round(float64(o.MinSplit) / 3))
		if o.MinBucket < 1 {
			o.MinBucket = 1
		}
	}
	if o.MaxDepth <= 0 {
		o.MaxDepth = 30
	}
	return o
}

func (o TreeOptions) validate() error {
	switch {
	case o.MinSplit < 0:
		return inputError("MinSplit", "negative (%d)", o.MinSplit)
	case o.MinBucket < 0:
		return inputError("MinBucket", "negative (%d)", o.MinBucket)
	case o.MaxDepth < 0:
		return inputError("MaxDepth", "negative (%d)", o.MaxDepth)
	case o.CP < 0 || math.IsNaN(o.CP) || math.IsInf(o.CP, 0):
		return inputError("CP", "must be a finite number >= 0, got %v", o.CP)
	case o.Tolerance < 0 || o.Tolerance >= 1 || math.IsNaN(o.Tolerance):
		return inputError("Tolerance", "must be in [0, 1), got %v", o.Tolerance)
	}
	return nil
}

// TreeNode is one node of a fitted Tree. Leaves have Left == Right == -1.
// Samples x with x[Feature] < Threshold go to Left, the others to Right.
type TreeNode struct {
	Feature   int     `json:"feature"`
	Threshold float64 `json:"threshold"`
	Left      int     `json:"left"`
	Right     int     `json:"right"`
	Value     float64 `json:"value"` // mean of the training targets in the node
	N         int     `json:"n"`     // training samples in the node
	SSE       float64 `json:"sse"`   // Σ (y − mean)² over the node's samples
	Depth     int     `json:"depth"`
	// lo, hi delimit the node's training rows in Tree.rows.
	lo, hi int
}

// IsLeaf reports whether the node has no children.
func (n *TreeNode) IsLeaf() bool { return n.Left < 0 }

// Tree is a fitted CART regression tree (Breiman et al., 1984): binary splits
// on one feature at a time, each chosen to maximize the reduction of the sum
// of squared errors
//
//	ΔSSE = SSE(node) − SSE(left) − SSE(right),
//
// leaves predicting the mean of their training targets. Split points are
// midpoints between adjacent distinct feature values, as in rpart and
// scikit-learn. Ties between features are broken by the lower column index.
//
// A Tree remembers which training rows reached each node, so that M-LISP's
// Algorithm 2 can train a local model on a leaf's samples (LeafRows).
type Tree struct {
	Nodes []TreeNode `json:"nodes"` // Nodes[0] is the root
	P     int        `json:"p"`     // number of features
	// rows holds training row indices; every node's rows are rows[lo:hi].
	rows []int
}

// FitTree grows a CART regression tree on X (n×p) and y, honouring MinSplit,
// MinBucket, MaxDepth and Tolerance, then prunes it at CP. It returns an error
// wrapping ErrInput for empty, mismatched or non-finite input and for invalid
// options. A constant y gives a single leaf.
//
// Cost: O(p·n log n) to presort the columns, then O(p·n) per tree level. To
// fit many trees on the same X, presort once with NewColumns.
func FitTree(X mat.Matrix, y []float64, opt TreeOptions) (*Tree, error) {
	if err := opt.validate(); err != nil {
		return nil, err
	}
	c, err := NewColumns(X)
	if err != nil {
		return nil, err
	}
	return c.FitTree(y, nil, opt)
}

// Columns is a design matrix stored by column, each column presorted once,
// so that many trees can be grown on the same samples (M-LISP grows one per
// signature counter) without sorting again.
type Columns struct {
	cols   [][]float64 // cols[j][i] = X(i,j)
	sorted [][]int32   // sorted[j]: row indices ordered by cols[j], ties by row
}

// NewColumns validates X (non-empty, finite) and presorts its columns.
func NewColumns(X mat.Matrix) (*Columns, error) {
	if X == nil {
		return nil, inputError("X", "nil matrix")
	}
	n, p := X.Dims()
	if n == 0 || p == 0 {
		return nil, inputError("X", "empty (%d×%d)", n, p)
	}
	c := &Columns{cols: make([][]float64, p), sorted: make([][]int32, p)}
	for j := 0; j < p; j++ {
		col := make([]float64, n)
		mat.Col(col, j, X)
		for i, v := range col {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, inputError("X", "element (%d,%d) is %v", i, j, v)
			}
		}
		c.cols[j] = col
	}
	// Columns are independent: sort them on all cores.
	parallelFor(p, n*p, func(from, to int) {
		var s argsorter
		for j := from; j < to; j++ {
			c.sorted[j] = s.argsort(c.cols[j])
		}
	})
	return c, nil
}

// argsorter is a stable LSD radix argsort of float64 keys, reusing its
// buffers across columns. Stability gives ties in row order, as rpart and
// scikit-learn see them; radix passes cost O(n) each, about 5x less than a
// comparison sort for the columns M-LISP presorts.
type argsorter struct {
	keys, keys2 []uint64
	idx, idx2   []int32
}

// sortableBits maps a float64 to a uint64 whose unsigned order is the
// float's order (sign bit flipped for positives, all bits for negatives).
func sortableBits(v float64) uint64 {
	b := math.Float64bits(v)
	if b>>63 == 1 {
		return ^b
	}
	return b | 1<<63
}

func (s *argsorter) argsort(col []float64) []int32 {
	n := len(col)
	if cap(s.keys) < n {
		s.keys, s.keys2 = make([]uint64, n), make([]uint64, n)
		s.idx, s.idx2 = make([]int32, n), make([]int32, n)
	}
	keys, keys2, idx, idx2 := s.keys[:n], s.keys2[:n], s.idx[:n], s.idx2[:n]
	var or, and uint64 = 0, ^uint64(0)
	for i, v := range col {
		k := sortableBits(v)
		if v == 0 {
			k = sortableBits(0) // -0 and +0 are equal keys
		}
		keys[i], idx[i] = k, int32(i)
		or |= k
		and &= k
	}
	var count [256]int
	for shift := uint(0); shift < 64; shift += 8 {
		if (or^and)>>shift&0xff == 0 {
			continue // every key has the same byte here
		}
		count = [256]int{}
		for _, k := range keys {
			count[k>>shift&0xff]++
		}
		sum := 0
		for d := range count {
			count[d], sum = sum, sum+count[d]
		}
		for i, k := range keys {
			d := k >> shift & 0xff
			keys2[count[d]], idx2[count[d]] = k, idx[i]
			count[d]++
		}
		keys, keys2 = keys2, keys
		idx, idx2 = idx2, idx
	}
	// idx is one of the scratch buffers: hand back a fresh slice.
	out := make([]int32, n)
	copy(out, idx)
	return out
}

// parallelFor splits [0,n) into contiguous chunks, one per core, when the
// work (in element visits) is large enough to pay for goroutines.
func parallelFor(n, work int, f func(from, to int)) {
	workers := runtime.GOMAXPROCS(0)
	if workers > n {
		workers = n
	}
	if workers <= 1 || work < parallelWork {
		f(0, n)
		return
	}
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		from, to := n*w/workers, n*(w+1)/workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(from, to)
		}()
	}
	wg.Wait()
}

// parallelWork is the number of element visits below which a loop runs on
// one goroutine.
const parallelWork = 1 << 17

// Dims returns the number of rows and columns.
func (c *Columns) Dims() (n, p int) { return len(c.sorted[0]), len(c.cols) }

// FitTree grows a tree on y using only the columns listed in features (all
// columns when features is nil). Split features in the returned tree are
// column indices of the full matrix, so it predicts from full rows.
func (c *Columns) FitTree(y []float64, features []int, opt TreeOptions) (*Tree, error) {
	if err := opt.validate(); err != nil {
		return nil, err
	}
	n, p := c.Dims()
	if len(y) != n {
		return nil, inputError("y", "length %d does not match %d rows of X", len(y), n)
	}
	if err := CheckVector("y", y); err != nil {
		return nil, err
	}
	if features == nil {
		features = make([]int, p)
		for j := range features {
			features[j] = j
		}
	}
	if len(features) == 0 {
		return nil, inputError("features", "empty")
	}
	for _, j := range features {
		if j < 0 || j >= p {
			return nil, inputError("features", "column %d outside [0,%d)", j, p)
		}
	}
	opt = opt.withDefaults()
	g := &grower{
		cols:    make([][]float64, len(features)),
		feature: features,
		y:       y,
		sorted:  make([][]int32, len(features)),
		goLeft:  make([]bool, n),
		opt:     opt,
	}
	// The grower partitions its sorted orders in place: give it copies.
	buf := make([]int32, n*len(features))
	for k, j := range features {
		g.cols[k] = c.cols[j]
		g.sorted[k] = buf[k*n : (k+1)*n : (k+1)*n]
		copy(g.sorted[k], c.sorted[j])
	}
	g.grow()
	t := &Tree{Nodes: g.nodes, P: p, rows: intsFrom32(g.sorted[0])}
	for i := range t.Nodes {
		if !t.Nodes[i].IsLeaf() {
			t.Nodes[i].Feature = features[t.Nodes[i].Feature]
		}
	}
	if opt.CP > 0 {
		t = t.pruneAlpha(opt.CP * t.Nodes[0].SSE)
	}
	return t, nil
}

// grower holds the working state of one tree fit. A node's samples occupy the
// same segment [lo,hi) of every column's sorted order, kept so by stable
// partitioning after each split. Feature indices inside the grower are
// positions in cols; feature maps them back to the matrix's columns.
type grower struct {
	cols    [][]float64
	feature []int
	y       []float64
	sorted  [][]int32
	goLeft  []bool
	opt     TreeOptions
	nodes   []TreeNode
	inv     []float64
}

type split struct {
	feature   int
	threshold float64
	gain      float64 // SSE reduction
	nLeft     int
}

func (g *grower) grow() {
	n := len(g.y)
	g.addNode(0, n, 0)
	// A node whose SSE is at most α = CP·SSE(root) is a leaf after pruning
	// whatever grows below it (a subtree of k ≥ 2 leaves costs ≥ kα > SSE+α),
	// so it is not grown at all: the same tree, sooner.
	alpha := g.opt.CP * g.nodes[0].SSE
	// Breadth-first over the node list; children are appended as found.
	for i := 0; i < len(g.nodes); i++ {
		nd := &g.nodes[i]
		if nd.N < g.opt.MinSplit || nd.N < 2*g.opt.MinBucket || nd.Depth >= g.opt.MaxDepth || nd.SSE <= 0 || nd.SSE <= alpha {
			continue
		}
		s, ok := g.bestSplit(nd.lo, nd.hi, nd.SSE)
		if !ok {
			continue
		}
		if g.opt.Tolerance > 0 && s.gain/nd.SSE < g.opt.Tolerance {
			continue
		}
		lo, hi, mid := nd.lo, nd.hi, nd.lo+s.nLeft
		g.partition(lo, hi, s)
		nd.Feature, nd.Threshold = s.feature, s.threshold
		depth := nd.Depth
		left := g.addNode(lo, mid, depth+1)
		right := g.addNode(mid, hi, depth+1)
		g.nodes[i].Left, g.nodes[i].Right = left, right
	}
}

// addNode appends a leaf over rows [lo,hi) and returns its index.
func (g *grower) addNode(lo, hi, depth int) int {
	var sum float64
	rows := g.sorted[0][lo:hi]
	for _, r := range rows {
		sum += g.y[r]
	}
	mean := sum / float64(hi-lo)
	var sse float64
	for _, r := range rows {
		d := g.y[r] - mean
		sse += d * d
	}
	g.nodes = append(g.nodes, TreeNode{Feature: -1, Left: -1, Right: -1, Value: mean, N: hi - lo, SSE: sse, Depth: depth, lo: lo, hi: hi})
	return len(g.nodes) - 1
}

// bestSplit scans every feature's sorted segment once, with running sums.
// With S the node's target sum and n its size, the SSE reduction of a split
// into (nL, SL) and (nR, SR) is SL²/nL + SR²/nR − S²/n. Wide nodes are
// scanned on all cores; the merge keeps the lowest feature index among equal
// gains, so the tree does not depend on the number of cores.
func (g *grower) bestSplit(lo, hi int, nodeSSE float64) (split, bool) {
	n := hi - lo
	var total float64
	for _, r := range g.sorted[0][lo:hi] {
		total += g.y[r]
	}
	inv := g.inverses(n)
	// Guard against rounding: a gain must exceed a tiny fraction of the node SSE.
	eps := nodeSSE * 1e-12
	p := len(g.cols)
	var mu sync.Mutex
	best, found := split{feature: -1}, false
	parallelFor(p, n*p, func(from, to int) {
		s, ok := g.scanFeatures(from, to, lo, hi, total, inv, eps)
		if !ok {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if !found || s.gain > best.gain+eps || (s.gain >= best.gain-eps && s.feature < best.feature) {
			best, found = s, true
		}
	})
	return best, found
}

// scanFeatures finds the best split over features [from,to) of rows [lo,hi).
func (g *grower) scanFeatures(from, to, lo, hi int, total float64, inv []float64, eps float64) (split, bool) {
	n := hi - lo
	minB := g.opt.MinBucket
	base := total * total * inv[n]
	best := split{gain: 0}
	found := false
	for j := from; j < to; j++ {
		col := g.cols[j]
		idx := g.sorted[j][lo:hi]
		if col[idx[0]] == col[idx[n-1]] {
			continue
		}
		var sumL float64
		for k := 0; k < n-1; k++ {
			sumL += g.y[idx[k]]
			nL := k + 1
			if nL < minB {
				continue
			}
			if n-nL < minB {
				break
			}
			x0, x1 := col[idx[k]], col[idx[k+1]]
			if x0 == x1 {
				continue
			}
			sumR := total - sumL
			gain := sumL*sumL*inv[nL] + sumR*sumR*inv[n-nL] - base
			if gain > best.gain+eps {
				best = split{feature: j, threshold: splitPoint(x0, x1), gain: gain, nLeft: nL}
				found = true
			}
		}
	}
	return best, found
}

// splitPoint is the threshold between adjacent sorted values x0 < x1 of a
// split ("x < threshold" goes left): their midpoint, or x1 where the
// midpoint rounds to x0 (adjacent floats) or overflows (x1 − x0 beyond the
// float range), so that the rows each side are the ones the scan counted.
func splitPoint(x0, x1 float64) float64 {
	if t := x0 + (x1-x0)/2; t > x0 && t <= x1 {
		return t
	}
	return x1
}

// inverses returns a table inv[k] = 1/k for k <= n, grown on demand: the
// split scan would otherwise divide twice per candidate.
func (g *grower) inverses(n int) []float64 {
	for k := len(g.inv); k <= n; k++ {
		if k == 0 {
			g.inv = append(g.inv, 0)
			continue
		}
		g.inv = append(g.inv, 1/float64(k))
	}
	return g.inv
}

// partition reorders every column's segment [lo,hi) stably so that the rows
// going left come first. Columns are independent and split across cores.
func (g *grower) partition(lo, hi int, s split) {
	col := g.cols[s.feature]
	for _, r := range g.sorted[s.feature][lo:hi] {
		g.goLeft[r] = col[r] < s.threshold
	}
	n := hi - lo
	parallelFor(len(g.sorted), n*len(g.sorted), func(from, to int) {
		right := make([]int32, 0, n)
		for j := from; j < to; j++ {
			seg := g.sorted[j][lo:hi]
			l := 0
			right = right[:0]
			for _, row := range seg {
				if g.goLeft[row] {
					seg[l] = row
					l++
				} else {
					right = append(right, row)
				}
			}
			copy(seg[l:], right)
		}
	})
}

func intsFrom32(a []int32) []int {
	out := make([]int, len(a))
	for i, v := range a {
		out[i] = int(v)
	}
	return out
}

// Predict returns the mean target of the leaf that x falls in, or NaN when
// len(x) is not the number of features the tree was fitted on.
func (t *Tree) Predict(x []float64) float64 {
	leaf := t.LeafOf(x)
	if leaf < 0 {
		return math.NaN()
	}
	return t.Nodes[leaf].Value
}

// LeafOf returns the index in Nodes of the leaf that x falls in, or -1 when
// len(x) is not the number of features the tree was fitted on.
func (t *Tree) LeafOf(x []float64) int {
	if len(x) != t.P {
		return -1
	}
	i := 0
	for !t.Nodes[i].IsLeaf() {
		nd := &t.Nodes[i]
		if x[nd.Feature] < nd.Threshold {
			i = nd.Left
		} else {
			i = nd.Right
		}
	}
	return i
}

// LeafRows returns the training row indices that reached node leaf, in
// ascending order of no particular meaning; it returns nil for an index out of
// range or a tree decoded from JSON (rows are not serialized).
func (t *Tree) LeafRows(leaf int) []int {
	if leaf < 0 || leaf >= len(t.Nodes) || t.rows == nil {
		return nil
	}
	nd := t.Nodes[leaf]
	out := append([]int(nil), t.rows[nd.lo:nd.hi]...)
	sort.Ints(out)
	return out
}

// SplitFeatures returns the sorted distinct feature indices used by splits.
func (t *Tree) SplitFeatures() []int {
	seen := map[int]bool{}
	var out []int
	for _, nd := range t.Nodes {
		if !nd.IsLeaf() && !seen[nd.Feature] {
			seen[nd.Feature] = true
			out = append(out, nd.Feature)
		}
	}
	sort.Ints(out)
	return out
}

// NumLeaves returns the number of leaves.
func (t *Tree) NumLeaves() int {
	k := 0
	for _, nd := range t.Nodes {
		if nd.IsLeaf() {
			k++
		}
	}
	return k
}

// Prune returns the cost-complexity pruned subtree at complexity parameter cp
// (rpart's scale: α = cp·SSE(root)). It is the smallest subtree T minimizing
//
//	SSE(T) + α·|leaves(T)|,
//
// found bottom-up: a node becomes a leaf when SSE(node) + α ≤ the best cost of
// its subtree, i.e. when the subtree's SSE reduction per extra leaf is ≤ α.
// t itself is left unchanged.
func (t *Tree) Prune(cp float64) *Tree {
	if cp <= 0 || math.IsNaN(cp) {
		return t
	}
	return t.pruneAlpha(cp * t.Nodes[0].SSE)
}

func (t *Tree) pruneAlpha(alpha float64) *Tree {
	keep := make([]bool, len(t.Nodes)) // keep[i]: node i stays split
	var cost func(i int) float64
	cost = func(i int) float64 {
		nd := &t.Nodes[i]
		leafCost := nd.SSE + alpha
		if nd.IsLeaf() {
			return leafCost
		}
		sub := cost(nd.Left) + cost(nd.Right)
		if leafCost <= sub {
			return leafCost
		}
		keep[i] = true
		return sub
	}
	cost(0)
	out := &Tree{P: t.P, rows: t.rows}
	var copyNode func(i, depth int) int
	copyNode = func(i, depth int) int {
		nd := t.Nodes[i]
		idx := len(out.Nodes)
		out.Nodes = append(out.Nodes, nd)
		if !keep[i] {
			out.Nodes[idx].Left, out.Nodes[idx].Right, out.Nodes[idx].Feature, out.Nodes[idx].Threshold = -1, -1, -1, 0
			return idx
		}
		l := copyNode(nd.Left, depth+1)
		r := copyNode(nd.Right, depth+1)
		out.Nodes[idx].Left, out.Nodes[idx].Right = l, r
		return idx
	}
	copyNode(0, 0)
	return out
}

// UnmarshalJSON decodes a tree and checks that it is well formed, so that a
// corrupt persisted model is an error rather than a panic at Predict.
func (t *Tree) UnmarshalJSON(b []byte) error {
	type plain Tree
	var d plain
	if err := json.Unmarshal(b, &d); err != nil {
		return err
	}
	if len(d.Nodes) == 0 {
		return fmt.Errorf("tree: no nodes")
	}
	for i, nd := range d.Nodes {
		if nd.IsLeaf() {
			continue
		}
		if nd.Left <= i || nd.Right <= i || nd.Left >= len(d.Nodes) || nd.Right >= len(d.Nodes) {
			return fmt.Errorf("tree: node %d has children out of order or range", i)
		}
		if nd.Feature < 0 || nd.Feature >= d.P {
			return fmt.Errorf("tree: node %d splits on feature %d, outside [0,%d)", i, nd.Feature, d.P)
		}
	}
	*t = Tree(d)
	return nil
}

package regress

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// M5Options controls an M5 model tree. The zero value of a field selects
// its default.
type M5Options struct {
	// MinLeaf is the smallest number of samples in a leaf; a node with fewer
	// than 2·MinLeaf samples is not split. Default 4. (Witten & Frank's M5'
	// and Weka's M5P -M 4 leave nodes of fewer than 4 samples unsplit with
	// at least 2 on a side: MinLeaf 2.)
	MinLeaf int `json:"minLeaf"`
	// SDFraction: a node whose target standard deviation is below
	// SDFraction × sd(root) is not split. Default 0.05 (Quinlan's M5).
	SDFraction float64 `json:"sdFraction"`
	// MaxDepth bounds the depth of any node; the root has depth 0. Default 30.
	MaxDepth int `json:"maxDepth"`
	// NoPrune keeps the fully grown tree (linear models are still fitted
	// and simplified at every node).
	NoPrune bool `json:"noPrune"`
	// Smoothing blends each leaf's prediction with the models on the path to
	// the root: p ← (n p + k q)/(n + k), n the samples of the child, q the
	// parent model's prediction, k = SmoothingK.
	Smoothing bool `json:"smoothing"`
	// SmoothingK is k of the smoothing rule. Default 15 (Quinlan's M5).
	SmoothingK float64 `json:"smoothingK"`
}

func (o M5Options) withDefaults() M5Options {
	if o.MinLeaf <= 0 {
		o.MinLeaf = 4
	}
	if o.SDFraction == 0 {
		o.SDFraction = 0.05
	}
	if o.MaxDepth <= 0 {
		o.MaxDepth = 30
	}
	if o.SmoothingK == 0 {
		o.SmoothingK = 15
	}
	return o
}

func (o M5Options) validate() error {
	switch {
	case o.MinLeaf < 0:
		return inputError("MinLeaf", "negative (%d)", o.MinLeaf)
	case o.MaxDepth < 0:
		return inputError("MaxDepth", "negative (%d)", o.MaxDepth)
	case o.SDFraction < 0 || o.SDFraction >= 1 || math.IsNaN(o.SDFraction):
		return inputError("SDFraction", "must be in [0, 1), got %v", o.SDFraction)
	case o.SmoothingK < 0 || math.IsNaN(o.SmoothingK) || math.IsInf(o.SmoothingK, 0):
		return inputError("SmoothingK", "must be a finite number >= 0, got %v", o.SmoothingK)
	}
	return nil
}

// M5Linear is the linear model of an M5 node, ŷ = Intercept + Σ_k
// Coef_k x[Features_k], on the few features it kept.
type M5Linear struct {
	Features  []int     `json:"features"`
	Coef      []float64 `json:"coef"`
	Intercept float64   `json:"intercept"`
}

// Predict evaluates the model at x (which must have every feature index).
func (m *M5Linear) Predict(x []float64) float64 {
	s := m.Intercept
	for k, j := range m.Features {
		s += m.Coef[k] * x[j]
	}
	return s
}

// M5Node is one node of an M5Tree. Leaves have Left == Right == -1; samples
// with x[Feature] < Threshold go Left. Every node carries a linear model
// (internal ones are used by smoothing).
type M5Node struct {
	Feature   int      `json:"feature"`
	Threshold float64  `json:"threshold"`
	Left      int      `json:"left"`
	Right     int      `json:"right"`
	N         int      `json:"n"`
	Model     M5Linear `json:"model"`
	// Error is the estimated error c of the node: of its model for a leaf,
	// of its subtree otherwise.
	Error float64 `json:"error"`
}

// IsLeaf reports whether the node has no children.
func (n *M5Node) IsLeaf() bool { return n.Left < 0 }

// M5Tree is a fitted M5 model tree (Quinlan 1992, "Learning with continuous
// classes"; Wang & Witten 1997): a binary tree whose leaves hold linear
// models.
//
// Growing: a node is split at the feature and threshold (midpoint of
// adjacent distinct values) maximizing the standard deviation reduction
//
//	SDR = sd(T) − Σ_i |T_i|/|T| sd(T_i)
//
// until it has fewer than 2·MinLeaf samples, its sd falls below SDFraction ×
// sd(root), or MaxDepth is reached.
//
// Models: bottom-up, every node gets a least-squares model on the features
// used by tests and models in its subtree (a leaf of the grown tree: a
// constant), simplified greedily by dropping the term whose removal lowers
// the estimated error most, while it lowers
//
//	c = (1/n) Σ |y_i − ŷ_i| · (n + ν)/(n − ν),   ν = number of parameters
//
// (n ≤ ν counts as a factor of 10).
//
// Pruning: bottom-up, a subtree is replaced by its node's model when the
// model's c is no larger than the subtree's (the sample-weighted c of its
// children; Witten & Frank's subtreeError). Optional smoothing as in
// M5Options.
//
// Weka's M5P (3.6) differs in its split criterion (the fifth root of the
// variance, not the sd), its split positions (⌊n/5⌋+1 samples a side), its
// node models (the attributes tested below, selected by Akaike) and its
// pruning (RMSE·(n+2ν)/(n−ν) with ν every parameter of the subtree);
// golden_weka_test.go shows where the two agree exactly and where not.
type M5Tree struct {
	Nodes      []M5Node `json:"nodes"` // Nodes[0] is the root
	P          int      `json:"p"`
	Smoothing  bool     `json:"smoothing"`
	SmoothingK float64  `json:"smoothingK"`
}

// M5Trainer fits M5 trees with fixed options; it implements Trainer.
type M5Trainer struct{ Options M5Options }

// Train fits an M5 tree to X and y.
func (t M5Trainer) Train(X mat.Matrix, y []float64) (Model, error) {
	return FitM5(X, y, t.Options)
}

var _ Trainer = M5Trainer{}

// FitM5 grows, fits, simplifies and prunes an M5 model tree on X (n×p) and
// y. It returns an error wrapping ErrInput for empty, mismatched or
// non-finite input and invalid options. A constant y gives one constant leaf.
func FitM5(X mat.Matrix, y []float64, opt M5Options) (*M5Tree, error) {
	if err := opt.validate(); err != nil {
		return nil, err
	}
	if err := CheckXY(X, y); err != nil {
		return nil, err
	}
	return newM5Presorted(X).fit(y, opt)
}

// m5Presorted is a design matrix stored row-major with every feature's row
// order presorted, so that many trees (Cubist's committee members, the
// parameter points of a search) grow on the same rows without sorting
// again.
type m5Presorted struct {
	n, p  int
	x     []float64 // row-major n×p
	order [][]int   // per feature, rows sorted by it, ties by row index

	// Working copies for one fit at a time (a m5Presorted is not shared
	// between goroutines).
	buf  []int
	left []bool
	tmp  []int
}

// newM5Presorted copies X (already validated) and presorts its columns.
func newM5Presorted(X mat.Matrix) *m5Presorted {
	n, p := X.Dims()
	d := &m5Presorted{n: n, p: p, x: make([]float64, n*p), order: make([][]int, p)}
	for i := 0; i < n; i++ {
		for j := 0; j < p; j++ {
			d.x[i*p+j] = X.At(i, j)
		}
	}
	col := make([]float64, n)
	for j := range d.order {
		o := make([]int, n)
		for i := range o {
			o[i] = i
			col[i] = d.x[i*p+j]
		}
		// Ties by row index: the same order as a stable sort, faster.
		slices.SortFunc(o, func(a, c int) int {
			if col[a] < col[c] {
				return -1
			}
			if col[a] > col[c] {
				return 1
			}
			return a - c
		})
		d.order[j] = o
	}
	return d
}

// fit grows, fits, simplifies and prunes an M5 tree on the rows of d and
// y (finite, one per row; opt validated).
func (d *m5Presorted) fit(y []float64, opt M5Options) (*M5Tree, error) {
	return d.fitMemo(y, opt, nil)
}

// m5Memo remembers, for trees grown on the same rows and y with the same
// MinLeaf and MaxDepth, each node's best split and its simplified models.
// Such trees differ only in where SDFraction stops the growth, so they are
// truncations of one tree and a node is named by its rows' segment
// [lo, hi) of the presorted orders.
type m5Memo struct {
	split map[[2]int]m5Split
	model map[m5ModelKey]m5Model
}

type m5Split struct {
	feat int
	thr  float64
	ok   bool
}

type m5ModelKey struct {
	lo, hi int
	feats  uint64 // bit j: feature j offered to the model
}

type m5Model struct {
	m   M5Linear
	err float64
}

func newM5Memo() *m5Memo {
	return &m5Memo{split: map[[2]int]m5Split{}, model: map[m5ModelKey]m5Model{}}
}

// fitMemo is fit with an optional memo (nil: none; only for p ≤ 64).
func (d *m5Presorted) fitMemo(y []float64, opt M5Options, memo *m5Memo) (*M5Tree, error) {
	opt = opt.withDefaults()
	if d.p > 64 {
		memo = nil
	}
	b := &m5Builder{opt: opt, n: d.n, p: d.p, y: y, x: d.x, memo: memo}
	// grow partitions the orders in place: give it copies.
	b.order = make([][]int, d.p)
	if d.buf == nil {
		d.buf, d.left, d.tmp = make([]int, d.n*d.p), make([]bool, d.n), make([]int, d.n)
	}
	buf := d.buf
	for j := range b.order {
		b.order[j] = buf[j*d.n : (j+1)*d.n : (j+1)*d.n]
		copy(b.order[j], d.order[j])
	}
	b.left, b.tmp = d.left, d.tmp
	b.sdRoot = b.sd(b.order[0])
	b.grow(0, d.n, 0)
	b.fit(0)
	t := &M5Tree{P: d.p, Smoothing: opt.Smoothing, SmoothingK: opt.SmoothingK}
	t.Nodes = compactM5(b.nodes)
	for i := range t.Nodes {
		if err := checkM5Model(&t.Nodes[i].Model); err != nil {
			return nil, err
		}
	}
	return t, nil
}

func checkM5Model(m *M5Linear) error {
	if !allFinite(m.Coef) || math.IsNaN(m.Intercept) || math.IsInf(m.Intercept, 0) {
		return inputError("X, y", "the fit overflowed float64; rescale X and y")
	}
	return nil
}

type m5Builder struct {
	memo   *m5Memo
	lo, hi []int // per node, its segment of the orders
	opt    M5Options
	n, p   int
	x      []float64 // row-major n×p
	y      []float64
	sdRoot float64
	nodes  []M5Node
	rows   [][]int // training rows per node
	order  [][]int // per feature, rows sorted by it; a node owns a range
	left   []bool  // scratch: row goes left at the current split
	tmp    []int   // scratch for partitioning
}

func (b *m5Builder) at(i, j int) float64 { return b.x[i*b.p+j] }

// sd is the population standard deviation of y over idx.
func (b *m5Builder) sd(idx []int) float64 {
	var s, ss float64
	for _, i := range idx {
		s += b.y[i]
	}
	mean := s / float64(len(idx))
	for _, i := range idx {
		d := b.y[i] - mean
		ss += d * d
	}
	return math.Sqrt(ss / float64(len(idx)))
}

// grow grows the subtree of the rows order[·][lo:hi].
func (b *m5Builder) grow(lo, hi, depth int) int {
	idx := slices.Clone(b.order[0][lo:hi])
	id := len(b.nodes)
	b.nodes = append(b.nodes, M5Node{Left: -1, Right: -1, N: len(idx)})
	b.rows = append(b.rows, idx)
	b.lo, b.hi = append(b.lo, lo), append(b.hi, hi)
	n := len(idx)
	sd := b.sd(idx)
	if n < 2*b.opt.MinLeaf || sd <= b.opt.SDFraction*b.sdRoot || sd == 0 || depth >= b.opt.MaxDepth {
		return id
	}
	var feat int
	var thr float64
	var ok bool
	if b.memo != nil {
		sp, seen := b.memo.split[[2]int{lo, hi}]
		if !seen {
			sp.feat, sp.thr, sp.ok = b.bestSplit(lo, hi, sd)
			b.memo.split[[2]int{lo, hi}] = sp
		}
		feat, thr, ok = sp.feat, sp.thr, sp.ok
	} else {
		feat, thr, ok = b.bestSplit(lo, hi, sd)
	}
	if !ok {
		return id
	}
	nl := 0
	for _, i := range idx {
		b.left[i] = b.at(i, feat) < thr
		if b.left[i] {
			nl++
		}
	}
	// Stable partition of every feature's order keeps each side sorted.
	for j := range b.order {
		o := b.order[j][lo:hi]
		l, r := 0, nl
		for _, i := range o {
			if b.left[i] {
				b.tmp[l] = i
				l++
			} else {
				b.tmp[r] = i
				r++
			}
		}
		copy(o, b.tmp[:len(o)])
	}
	l := b.grow(lo, lo+nl, depth+1)
	r := b.grow(lo+nl, hi, depth+1)
	nd := &b.nodes[id]
	nd.Feature, nd.Threshold, nd.Left, nd.Right = feat, thr, l, r
	return id
}

// bestSplit returns the split of the rows order[·][lo:hi] maximizing SDR
// with at least MinLeaf samples on each side. Ties go to the lower feature
// index, then the lower threshold.
func (b *m5Builder) bestSplit(lo, hi int, sd float64) (feat int, thr float64, ok bool) {
	n := hi - lo
	best := 0.0
	// The sides' moments are taken about the node's mean: raw sums of y²
	// cancel in Σy²/n − ȳ² when y sits far from zero (y + 2³⁰ grew another
	// tree than y), and even near it their rounding broke exact ties.
	var mean float64
	for _, i := range b.order[0][lo:hi] {
		mean += b.y[i]
	}
	mean /= float64(n)
	var sT, ssT float64
	for _, i := range b.order[0][lo:hi] {
		d := b.y[i] - mean
		sT += d
		ssT += d * d
	}
	for j := 0; j < b.p; j++ {
		order := b.order[j][lo:hi]
		var sL, ssL float64
		for k := 1; k < n; k++ {
			yi := b.y[order[k-1]] - mean
			sL += yi
			ssL += yi * yi
			if k < b.opt.MinLeaf || n-k < b.opt.MinLeaf {
				continue
			}
			vlo, vhi := b.at(order[k-1], j), b.at(order[k], j)
			if vlo == vhi {
				continue
			}
			nl, nr := float64(k), float64(n-k)
			sdL := math.Sqrt(math.Max(ssL/nl-(sL/nl)*(sL/nl), 0))
			sR, ssR := sT-sL, ssT-ssL
			sdR := math.Sqrt(math.Max(ssR/nr-(sR/nr)*(sR/nr), 0))
			sdr := sd - nl/float64(n)*sdL - nr/float64(n)*sdR
			if sdr > best*(1+1e-12) && sdr > 1e-12*sd {
				best, feat, thr, ok = sdr, j, splitPoint(vlo, vhi), true
			}
		}
	}
	return feat, thr, ok
}

// fit fits the models of the subtree at id bottom-up, prunes it and
// returns the features its tests and models use.
func (b *m5Builder) fit(id int) map[int]bool {
	nd := &b.nodes[id]
	used := map[int]bool{}
	if !nd.IsLeaf() {
		for j := range b.fit(nd.Left) {
			used[j] = true
		}
		for j := range b.fit(nd.Right) {
			used[j] = true
		}
		nd = &b.nodes[id] // b.nodes is not reallocated by fit, but be safe
		used[nd.Feature] = true
	}
	feats := make([]int, 0, len(used))
	for j := range used {
		feats = append(feats, j)
	}
	slices.Sort(feats)
	var model M5Linear
	var modelErr float64
	if b.memo != nil {
		key := m5ModelKey{lo: b.lo[id], hi: b.hi[id]}
		for _, j := range feats {
			key.feats |= 1 << j
		}
		r, seen := b.memo.model[key]
		if !seen {
			r.m, r.err = b.simplify(b.rows[id], feats)
			b.memo.model[key] = r
		}
		model, modelErr = r.m, r.err
	} else {
		model, modelErr = b.simplify(b.rows[id], feats)
	}
	nd.Model = model
	if nd.IsLeaf() {
		nd.Error = modelErr
		return m5Features(model)
	}
	l, r := &b.nodes[nd.Left], &b.nodes[nd.Right]
	subErr := (float64(l.N)*l.Error + float64(r.N)*r.Error) / float64(nd.N)
	// The tolerance keeps rounding noise of exact fits from deciding.
	if !b.opt.NoPrune && modelErr <= subErr+1e-9*b.sdRoot {
		nd.Left, nd.Right, nd.Error = -1, -1, modelErr
		return m5Features(model)
	}
	nd.Error = subErr
	for _, j := range model.Features {
		used[j] = true
	}
	return used
}

func m5Features(m M5Linear) map[int]bool {
	u := make(map[int]bool, len(m.Features))
	for _, j := range m.Features {
		u[j] = true
	}
	return u
}

// simplify fits a model on feats and drops terms greedily while the
// estimated error decreases. The centred cross products of all the live
// features are accumulated once per node: a model on a subset reads its
// normal equations from them (each entry is the same sum, in the same
// order, as a fresh accumulation over the subset), so a drop step costs one
// pass over the rows per candidate for its error, not one per Gram matrix.
func (b *m5Builder) simplify(rows []int, feats []int) (M5Linear, float64) {
	// Features constant within the node cannot have a coefficient.
	var live []int
	for _, j := range feats {
		v0 := b.at(rows[0], j)
		for _, i := range rows[1:] {
			if b.at(i, j) != v0 {
				live = append(live, j)
				break
			}
		}
	}
	g := b.gram(rows, live)
	sub := make([]int, len(live))
	for a := range sub {
		sub[a] = a
	}
	cur, curErr := b.lsqSub(g, sub, math.Inf(1))
	for len(cur.Features) > 0 {
		bestErr, bestK := math.Inf(1), -1
		var bestM M5Linear
		// Only a candidate below both the best so far and the acceptance
		// threshold matters: lsqSub stops counting errors past that.
		thr := curErr - 1e-12*b.sdRoot
		for k := range sub {
			s := slices.Delete(slices.Clone(sub), k, k+1)
			m, e := b.lsqSub(g, s, math.Min(bestErr, thr))
			if e < bestErr {
				bestErr, bestK, bestM = e, k, m
			}
		}
		if bestK < 0 || !(bestErr < curErr-1e-12*b.sdRoot) {
			break
		}
		cur, curErr = bestM, bestErr
		sub = slices.Delete(slices.Clone(sub), bestK, bestK+1)
		if len(cur.Features) == 0 {
			break
		}
	}
	return cur, curErr
}

// m5Gram holds a node's sufficient statistics for least squares on the
// features feats: the target mean, the feature means and the centred
// cross products X'X (k×k, row-major) and X'y.
type m5Gram struct {
	rows  []int
	feats []int
	ym    float64
	xm    []float64
	xx    []float64
	xy    []float64
}

// gram accumulates the centred normal equations of rows on feats.
func (b *m5Builder) gram(rows []int, feats []int) *m5Gram {
	n, k := len(rows), len(feats)
	g := &m5Gram{rows: rows, feats: feats, xm: make([]float64, k), xx: make([]float64, k*k), xy: make([]float64, k)}
	for _, i := range rows {
		g.ym += b.y[i]
	}
	g.ym /= float64(n)
	if k == 0 {
		return g
	}
	for _, i := range rows {
		for a, j := range feats {
			g.xm[a] += b.at(i, j)
		}
	}
	for a := range g.xm {
		g.xm[a] /= float64(n)
	}
	xc := make([]float64, k)
	for _, i := range rows {
		row := b.x[i*b.p : (i+1)*b.p]
		for a, j := range feats {
			xc[a] = row[j] - g.xm[a]
		}
		yc := b.y[i] - g.ym
		for a := 0; a < k; a++ {
			g.xy[a] += xc[a] * yc
			xa := xc[a]
			ar := g.xx[a*k : (a+1)*k]
			for c := a; c < k; c++ {
				ar[c] += xa * xc[c]
			}
		}
	}
	return g
}

// lsq fits y on the features of rows by least squares with an intercept
// and returns the model and its estimated error c.
func (b *m5Builder) lsq(rows []int, feats []int) (M5Linear, float64) {
	g := b.gram(rows, feats)
	all := make([]int, len(feats))
	for a := range all {
		all[a] = a
	}
	return b.lsqSub(g, all, math.Inf(1))
}

// lsqSub fits y on the features g.feats[sub] (sub ascending) by least
// squares with an intercept (centred normal equations, a 1e-10 relative
// ridge for near-collinear columns) and returns the model and its
// estimated error c, or +Inf as soon as c is sure to reach bound (the
// absolute errors only add up, so a partial sum that reaches it decides).
func (b *m5Builder) lsqSub(g *m5Gram, sub []int, bound float64) (M5Linear, float64) {
	rows := g.rows
	n, k := len(rows), len(sub)
	feats := make([]int, k)
	for a, s := range sub {
		feats[a] = g.feats[s]
	}
	ym := g.ym
	m := M5Linear{Features: feats, Coef: make([]float64, k), Intercept: ym}
	if k > 0 {
		kk := len(g.feats)
		av := make([]float64, k*k)
		rv := make([]float64, k)
		xm := make([]float64, k)
		for a, s := range sub {
			xm[a] = g.xm[s]
			rv[a] = g.xy[s]
			for c := a; c < k; c++ { // sub is ascending: the upper triangle
				av[a*k+c] = g.xx[s*kk+sub[c]]
				av[c*k+a] = av[a*k+c]
			}
		}
		A := mat.NewSymDense(k, av)
		rhs := mat.NewVecDense(k, rv)
		var tr float64
		for a := 0; a < k; a++ {
			tr += A.At(a, a)
		}
		var w mat.VecDense
		solved := false
		// Plain least squares first; a ridge only when the system is
		// (near) singular.
		for lambda := 0.0; !solved && lambda < tr; lambda = math.Max(lambda*1000, 1e-10*tr/float64(k)) {
			R := mat.NewSymDense(k, nil)
			R.CopySym(A)
			for a := 0; a < k; a++ {
				R.SetSym(a, a, R.At(a, a)+lambda)
			}
			var ch mat.Cholesky
			if ch.Factorize(R) && ch.Cond() < 1e12 {
				if err := ch.SolveVecTo(&w, rhs); err == nil {
					solved = true
				}
			}
		}
		if solved {
			for a := range feats {
				m.Coef[a] = w.AtVec(a)
				m.Intercept -= m.Coef[a] * xm[a]
			}
		} else {
			m = M5Linear{Features: []int{}, Coef: []float64{}, Intercept: ym}
			k = 0
		}
	}
	nu := float64(k + 1)
	factor := 10.0
	if float64(n) > nu {
		factor = (float64(n) + nu) / (float64(n) - nu)
	}
	var abs float64
	for r, i := range rows {
		abs += math.Abs(b.y[i] - m.Predict(b.x[i*b.p:(i+1)*b.p]))
		if r&31 == 31 && abs/float64(n)*factor >= bound {
			return m, math.Inf(1)
		}
	}
	return m, abs / float64(n) * factor
}

// compactM5 drops the nodes cut off by pruning and renumbers the rest in
// depth-first order.
func compactM5(nodes []M5Node) []M5Node {
	var out []M5Node
	var walk func(i int) int
	walk = func(i int) int {
		id := len(out)
		out = append(out, nodes[i])
		if !nodes[i].IsLeaf() {
			l := walk(nodes[i].Left)
			r := walk(nodes[i].Right)
			out[id].Left, out[id].Right = l, r
		}
		return id
	}
	walk(0)
	return out
}

// Predict returns the model tree's prediction at x, or NaN when len(x) is
// not the number of features the tree was fitted on (or the tree is empty).
func (t *M5Tree) Predict(x []float64) float64 {
	if len(x) != t.P || len(t.Nodes) == 0 {
		return math.NaN()
	}
	var buf [64]int
	path := buf[:0] // the ancestors, root first (deeper trees grow it)
	i := 0
	for !t.Nodes[i].IsLeaf() {
		path = append(path, i)
		nd := &t.Nodes[i]
		if x[nd.Feature] < nd.Threshold {
			i = nd.Left
		} else {
			i = nd.Right
		}
	}
	pred := t.Nodes[i].Model.Predict(x)
	if !t.Smoothing {
		return pred
	}
	child := i
	for d := len(path) - 1; d >= 0; d-- {
		parent := path[d]
		n := float64(t.Nodes[child].N)
		pred = (n*pred + t.SmoothingK*t.Nodes[parent].Model.Predict(x)) / (n + t.SmoothingK)
		child = parent
	}
	return pred
}

// NumLeaves returns the number of leaves.
func (t *M5Tree) NumLeaves() int {
	c := 0
	for i := range t.Nodes {
		if t.Nodes[i].IsLeaf() {
			c++
		}
	}
	return c
}

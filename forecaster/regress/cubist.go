package regress

import (
	"encoding/binary"
	"math"
	"sort"
	"sync"

	"gonum.org/v1/gonum/mat"
)

// CubistOptions controls a Cubist fit.
type CubistOptions struct {
	// Committees is the number of rule models (≥ 1).
	Committees int `json:"committees"`
	// Neighbors is the number of training cases used by the instance-based
	// correction (0 disables it).
	Neighbors int `json:"neighbors"`
	// M5 grows each committee member.
	M5 M5Options `json:"m5"`
}

// CubistCond is one condition of a rule: x[Var] < Value when Less, else
// x[Var] ≥ Value.
type CubistCond struct {
	Var   int     `json:"var"`
	Value float64 `json:"value"`
	Less  bool    `json:"less"`
}

// CubistRule is "if every condition holds then ŷ = Model(x)".
type CubistRule struct {
	Conds []CubistCond `json:"conds"`
	Model M5Linear     `json:"model"`
}

// CubistModel is a fitted Cubist model: committees of rule sets, averaged,
// with an optional instance-based correction.
type CubistModel struct {
	P          int            `json:"p"`
	Committees [][]CubistRule `json:"committees"`
	Neighbors  int            `json:"neighbors"`
	// Training cases for the correction: X, y, the committee prediction at
	// each case, and the per-feature ranges that scale the distance.
	X     [][]float64 `json:"x,omitempty"`
	Y     []float64   `json:"y,omitempty"`
	FX    []float64   `json:"fx,omitempty"`
	Range []float64   `json:"range,omitempty"`
	// nn, when set, memoizes the nearest training cases per query: a
	// search session shares it among the models of one fold, whose
	// training cases and ranges are the same.
	nn *cubistNeighborCache
	// trees, when set, are the members' M5 trees: the one rule of a member
	// that covers x is the leaf x reaches, found in depth steps instead of
	// a scan of every rule.
	trees []*M5Tree
}

// Cubist is the Learner for FitCubist. Its box: committees in [1, 10],
// neighbors in [0, 9] and the M5 smallest leaf in [2, 100]; defaults are
// Cubist's (1 committee, no neighbours) and M5's leaf of 4.
type Cubist struct{}

// Name implements Learner.
func (Cubist) Name() string { return "Cubist" }

// Params implements Learner.
func (Cubist) Params() []Param {
	return []Param{
		{Name: "committees", Lower: 1, Upper: 10, Integer: true, Default: 1},
		{Name: "neighbors", Lower: 0, Upper: 9, Integer: true, Default: 0},
		{Name: "minleaf", Lower: 2, Upper: 100, Integer: true, Default: 4},
	}
}

// Fit implements Learner.
func (l Cubist) Fit(X [][]float64, y []float64, params []float64) (Model, error) {
	if err := checkParams(l.Params(), params); err != nil {
		return nil, err
	}
	d, err := denseXY(X, y)
	if err != nil {
		return nil, err
	}
	return FitCubist(d, y, CubistOptions{Committees: int(params[0]), Neighbors: int(params[1]),
		M5: M5Options{MinLeaf: int(params[2])}})
}

// FitCubist fits Cubist-style committees of M5 rule models to X and y (see
// the package documentation for the math and where it departs from
// Quinlan's Cubist).
func FitCubist(X mat.Matrix, y []float64, o CubistOptions) (*CubistModel, error) {
	if o.Committees < 1 || o.Committees > 1000 {
		return nil, inputError("Committees", "%d; must be in [1, 1000]", o.Committees)
	}
	if o.Neighbors < 0 {
		return nil, inputError("Neighbors", "negative (%d)", o.Neighbors)
	}
	if err := o.M5.validate(); err != nil {
		return nil, err
	}
	if o.M5.Smoothing {
		return nil, inputError("M5.Smoothing", "not supported: rules use each leaf's own model")
	}
	if err := CheckXY(X, y); err != nil {
		return nil, err
	}
	n := len(y)
	rowsX := make([][]float64, n)
	for i := range rowsX {
		rowsX[i] = mat.Row(nil, i, X)
	}
	ch := newCubistChain(newM5Presorted(X), y)
	return ch.model(rowsX, o)
}

// cubistChain grows the committee members of one training set in order:
// member t+1 depends only on y and members 1..t, so a model of c members
// is the first c members of a longer chain. A search reuses one chain for
// every committee count and neighbour count at the same M5 options.
type cubistChain struct {
	d       *m5Presorted
	y       []float64
	opt     M5Options
	members [][]CubistRule
	trees   []*M5Tree
	preds   [][]float64 // preds[t][i]: member t's prediction at training row i
	target  []float64   // what the next member fits
	err     error       // why member len(members)+1 could not be added

	// For the neighbour correction, shared by the chain's models: a copy
	// of y and the feature ranges.
	yCopy []float64
	rng   []float64
}

func newCubistChain(d *m5Presorted, y []float64) *cubistChain {
	return &cubistChain{d: d, y: y, target: append([]float64(nil), y...)}
}

// grow adds members until there are c.
func (ch *cubistChain) grow(rowsX [][]float64, c int) error {
	for len(ch.members) < c && ch.err == nil {
		tree, err := ch.d.fit(ch.target, ch.opt)
		if err != nil {
			ch.err = err
			break
		}
		rules := cubistRules(tree)
		pred := make([]float64, len(rowsX))
		next := make([]float64, len(rowsX))
		// The next member fits y' = 2y − f_c(x): where this member
		// over-predicts, the next one aims low, and the reverse.
		for i, x := range rowsX {
			f := tree.Predict(x) // = cubistRulePredict(rules, x): one rule per leaf
			pred[i] = f
			next[i] = 2*ch.y[i] - f
		}
		if !allFinite(next) {
			ch.err = inputError("y", "committee targets overflow float64; rescale y")
			break
		}
		ch.target = next
		ch.members = append(ch.members, rules)
		ch.trees = append(ch.trees, tree)
		ch.preds = append(ch.preds, pred)
	}
	if len(ch.members) < c {
		return ch.err
	}
	return nil
}

// model returns the Cubist model of the chain's first o.Committees members
// with o.Neighbors (o validated; o.M5 must be the chain's options).
func (ch *cubistChain) model(rowsX [][]float64, o CubistOptions) (*CubistModel, error) {
	ch.opt = o.M5
	if err := ch.grow(rowsX, o.Committees); err != nil {
		return nil, err
	}
	n, p := ch.d.n, ch.d.p
	m := &CubistModel{P: p, Committees: ch.members[:o.Committees:o.Committees], trees: ch.trees[:o.Committees:o.Committees]}
	if o.Neighbors > 0 {
		if ch.rng == nil {
			ch.yCopy = append([]float64(nil), ch.y...)
			ch.rng = make([]float64, p)
			for j := 0; j < p; j++ {
				lo, hi := math.Inf(1), math.Inf(-1)
				for _, x := range rowsX {
					lo, hi = math.Min(lo, x[j]), math.Max(hi, x[j])
				}
				ch.rng[j] = hi - lo
				if !(ch.rng[j] > 0) || math.IsInf(ch.rng[j], 0) {
					ch.rng[j] = 0 // constant (or overflowing) feature: ignored
				}
			}
		}
		sum := make([]float64, n)
		for _, pred := range ch.preds[:o.Committees] {
			for i, f := range pred {
				sum[i] += f
			}
		}
		fx := make([]float64, n)
		for i := range sum {
			fx[i] = sum[i] / float64(o.Committees)
		}
		m.Neighbors = min(o.Neighbors, n)
		m.X, m.Y, m.FX, m.Range = rowsX, ch.yCopy, fx, ch.rng
	}
	return m, nil
}

// cubistRules turns every leaf of an M5 tree into a rule whose conditions
// are the tightest bounds on each variable along the leaf's path.
func cubistRules(t *M5Tree) []CubistRule {
	var rules []CubistRule
	type bound struct {
		lo, hi       float64
		hasLo, hasHi bool
	}
	var walk func(i int, b map[int]bound)
	walk = func(i int, b map[int]bound) {
		nd := &t.Nodes[i]
		if nd.IsLeaf() {
			vars := make([]int, 0, len(b))
			for v := range b {
				vars = append(vars, v)
			}
			sort.Ints(vars)
			var conds []CubistCond
			for _, v := range vars {
				if b[v].hasLo {
					conds = append(conds, CubistCond{Var: v, Value: b[v].lo})
				}
				if b[v].hasHi {
					conds = append(conds, CubistCond{Var: v, Value: b[v].hi, Less: true})
				}
			}
			rules = append(rules, CubistRule{Conds: conds, Model: nd.Model})
			return
		}
		left, right := map[int]bound{}, map[int]bound{}
		for k, v := range b {
			left[k], right[k] = v, v
		}
		l := left[nd.Feature]
		if !l.hasHi || nd.Threshold < l.hi {
			l.hi, l.hasHi = nd.Threshold, true
		}
		left[nd.Feature] = l
		r := right[nd.Feature]
		if !r.hasLo || nd.Threshold > r.lo {
			r.lo, r.hasLo = nd.Threshold, true
		}
		right[nd.Feature] = r
		walk(nd.Left, left)
		walk(nd.Right, right)
	}
	walk(0, map[int]bound{})
	return rules
}

// cubistRulePredict averages the models of the rules that cover x (the
// rules of one tree cover every x exactly once).
func cubistRulePredict(rules []CubistRule, x []float64) float64 {
	var s float64
	k := 0
	for r := range rules {
		ok := true
		for _, c := range rules[r].Conds {
			if (x[c.Var] < c.Value) != c.Less {
				ok = false
				break
			}
		}
		if ok {
			s += rules[r].Model.Predict(x)
			k++
		}
	}
	if k == 0 {
		return math.NaN()
	}
	return s / float64(k)
}

// ModelPredict is the committee average at x, without the instance-based
// correction.
func (m *CubistModel) ModelPredict(x []float64) float64 {
	if len(x) != m.P || len(m.Committees) == 0 {
		return math.NaN()
	}
	var s float64
	if len(m.trees) == len(m.Committees) {
		for _, t := range m.trees {
			s += t.Predict(x)
		}
	} else {
		for _, rules := range m.Committees {
			s += cubistRulePredict(rules, x)
		}
	}
	return s / float64(len(m.Committees))
}

// Predict returns the committee average at x, corrected by the Neighbors
// nearest training cases n as
//
//	ŷ = Σ w_n (y_n + f(x) − f(n)) / Σ w_n,  w_n = 1/(d(x, n) + 0.5),
//
// d the Manhattan distance on range-scaled features; NaN when len(x) != P.
func (m *CubistModel) Predict(x []float64) float64 {
	f := m.ModelPredict(x)
	if m.Neighbors == 0 || math.IsNaN(f) {
		return f
	}
	var best []cubistNeighbor
	if m.nn != nil && m.Neighbors <= m.nn.max {
		best = m.nn.nearest(m, x)[:min(m.Neighbors, len(m.X))]
	} else {
		best = cubistNearest(m.X, m.Range, x, m.Neighbors)
	}
	var sw, s float64
	for _, b := range best {
		w := 1 / (b.d + 0.5)
		sw += w
		s += w * (m.Y[b.i] + f - m.FX[b.i])
	}
	return s / sw
}

// cubistNeighbor is a training case i at distance d from a query.
type cubistNeighbor struct {
	d float64
	i int
}

// cubistNearest returns the k training cases nearest to x, ordered by
// distance, ties to the lower index. A case is dropped as soon as its
// partial distance reaches the k-th best (the sum of non-negative terms
// only grows), which gives the same list as summing every term.
func cubistNearest(X [][]float64, rng []float64, x []float64, k int) []cubistNeighbor {
	best := make([]cubistNeighbor, 0, k+1)
	for i, z := range X {
		full := len(best) == k
		var d float64
		skip := false
		for j, r := range rng {
			if r > 0 {
				d += math.Abs(x[j]-z[j]) / r
				if full && !(d < best[k-1].d) {
					skip = true
					break
				}
			}
		}
		if skip || (full && !(d < best[k-1].d)) {
			continue
		}
		a := sort.Search(len(best), func(a int) bool { return best[a].d > d })
		best = append(best, cubistNeighbor{})
		copy(best[a+1:], best[a:])
		best[a] = cubistNeighbor{d, i}
		if len(best) > k {
			best = best[:k]
		}
	}
	return best
}

// cubistNeighborCache holds, per query vector, its max nearest training
// cases; the k nearest for any k ≤ max are their first k.
type cubistNeighborCache struct {
	mu  sync.Mutex
	max int
	by  map[string][]cubistNeighbor
}

func (c *cubistNeighborCache) nearest(m *CubistModel, x []float64) []cubistNeighbor {
	key := make([]byte, 0, 8*len(x))
	for _, v := range x {
		key = binary.LittleEndian.AppendUint64(key, math.Float64bits(v))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	nb, ok := c.by[string(key)]
	if !ok {
		nb = cubistNearest(m.X, m.Range, x, min(c.max, len(m.X)))
		c.by[string(key)] = nb
	}
	return nb
}

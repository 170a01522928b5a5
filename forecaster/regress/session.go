package regress

import (
	"sync"

	"gonum.org/v1/gonum/mat"
)

// fitSession fits one learner on fixed training rows at many parameter
// points, keeping what does not depend on the point (presorted columns,
// Cubist's committee members, MARS's forward pass), so that a search
// evaluating hundreds of points per fold does the shared work once. Its
// models are exactly those of the learner's Fit on the same rows.
type fitSession interface {
	Fit(params []float64) (Model, error)
}

// sessionLearner is a Learner with a fitSession. X and y are validated
// (rectangular, finite, matching) before newSession is called.
type sessionLearner interface {
	Learner
	newSession(X [][]float64, y []float64) (fitSession, error)
}

// lockedSession serializes the calls to a session (the folds of a search
// run concurrently, each on its own session, but a caller may share one).
type lockedSession struct {
	mu sync.Mutex
	s  fitSession
}

func (l *lockedSession) Fit(params []float64) (Model, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.s.Fit(params)
}

// plainSession calls the learner's Fit each time.
type plainSession struct {
	l Learner
	X [][]float64
	y []float64
}

func (s plainSession) Fit(params []float64) (Model, error) { return s.l.Fit(s.X, s.y, params) }

// newFitSession returns a session for l on X and y: the learner's own
// when it has one, else one calling Fit.
func newFitSession(l Learner, X [][]float64, y []float64) fitSession {
	if sl, ok := l.(sessionLearner); ok {
		if s, err := sl.newSession(X, y); err == nil {
			return &lockedSession{s: s}
		}
	}
	return plainSession{l: l, X: X, y: y}
}

// cartSession presorts the columns once and grows one unpruned tree per
// minsplit: the tree for (minsplit, cp) is that tree pruned at cp (FitTree
// skips growing nodes whose SSE is at most α only because pruning would
// cut them anyway).
type cartSession struct {
	cols *Columns
	y    []float64
	full map[int]*Tree
}

func (CART) newSession(X [][]float64, y []float64) (fitSession, error) {
	d, err := denseXY(X, y)
	if err != nil {
		return nil, err
	}
	c, err := NewColumns(d)
	if err != nil {
		return nil, err
	}
	return &cartSession{cols: c, y: y, full: map[int]*Tree{}}, nil
}

func (s *cartSession) Fit(params []float64) (Model, error) {
	if err := checkParams(CART{}.Params(), params); err != nil {
		return nil, err
	}
	minSplit, cp := int(params[0]), params[1]
	t := s.full[minSplit]
	if t == nil {
		var err error
		if t, err = s.cols.FitTree(s.y, nil, TreeOptions{MinSplit: minSplit}); err != nil {
			return nil, err
		}
		s.full[minSplit] = t
	}
	return t.Prune(cp), nil
}

// m5Session presorts the rows once and keeps one memo of node splits and
// models per smallest leaf (SDFraction only truncates the tree).
type m5Session struct {
	d    *m5Presorted
	y    []float64
	memo map[int]*m5Memo
}

func (M5) newSession(X [][]float64, y []float64) (fitSession, error) {
	d, err := denseXY(X, y)
	if err != nil {
		return nil, err
	}
	return &m5Session{d: newM5Presorted(d), y: y, memo: map[int]*m5Memo{}}, nil
}

func (s *m5Session) Fit(params []float64) (Model, error) {
	if err := checkParams(M5{}.Params(), params); err != nil {
		return nil, err
	}
	o := M5Options{MinLeaf: int(params[0]), SDFraction: params[1]}
	if err := o.validate(); err != nil {
		return nil, err
	}
	memo := s.memo[o.MinLeaf]
	if memo == nil {
		memo = newM5Memo()
		s.memo[o.MinLeaf] = memo
	}
	return s.d.fitMemo(s.y, o, memo)
}

// cubistSession keeps one committee chain per smallest-leaf value (the
// committee and neighbour counts only choose how much of it a model uses)
// and the nearest training cases of every query, shared by all its models.
type cubistSession struct {
	d      *m5Presorted
	rowsX  [][]float64
	y      []float64
	chains map[int]*cubistChain
	nn     *cubistNeighborCache
}

func (Cubist) newSession(X [][]float64, y []float64) (fitSession, error) {
	d, err := denseXY(X, y)
	if err != nil {
		return nil, err
	}
	nn := &cubistNeighborCache{max: int(Cubist{}.Params()[1].Upper), by: map[string][]cubistNeighbor{}}
	return &cubistSession{d: newM5Presorted(d), rowsX: X, y: y, chains: map[int]*cubistChain{}, nn: nn}, nil
}

func (s *cubistSession) Fit(params []float64) (Model, error) {
	if err := checkParams(Cubist{}.Params(), params); err != nil {
		return nil, err
	}
	o := CubistOptions{Committees: int(params[0]), Neighbors: int(params[1]), M5: M5Options{MinLeaf: int(params[2])}}
	if err := o.M5.validate(); err != nil {
		return nil, err
	}
	minLeaf := int(params[2])
	ch := s.chains[minLeaf]
	if ch == nil {
		ch = newCubistChain(s.d, s.y)
		s.chains[minLeaf] = ch
	}
	m, err := ch.model(s.rowsX, o)
	if err != nil {
		return nil, err
	}
	if m.Neighbors > 0 {
		m.nn = s.nn // the neighbours of a query are the same for every model of the fold
	}
	return m, nil
}

// marsSession keeps one forward pass per degree, extended on demand: nk
// and thresh only decide where it stops. Pruning depends on the degree and
// the slots kept alone, so its models are memoized by those two.
type marsSession struct {
	X      *mat.Dense
	y      []float64
	fwd    map[int]*marsFwd
	pruned map[[2]int]marsPruned
}

type marsPruned struct {
	m   *MARSModel
	err error
}

func (MARS) newSession(X [][]float64, y []float64) (fitSession, error) {
	d, err := denseXY(X, y)
	if err != nil {
		return nil, err
	}
	return &marsSession{X: d, y: y, fwd: map[int]*marsFwd{}, pruned: map[[2]int]marsPruned{}}, nil
}

func (s *marsSession) Fit(params []float64) (Model, error) {
	if err := checkParams(MARS{}.Params(), params); err != nil {
		return nil, err
	}
	n, p := s.X.Dims()
	degree := int(params[2])
	o := DefaultMARSOptions(p, degree)
	o.MaxTerms, o.Thresh = int(params[0]), params[1]
	if err := o.validate(); err != nil {
		return nil, err
	}
	if n < 2 {
		return FitMARS(s.X, s.y, o) // the error FitMARS gives
	}
	f := s.fwd[degree]
	if f == nil {
		var err error
		if f, err = newMARSFwd(s.X, s.y, o); err != nil {
			return nil, err
		}
		s.fwd[degree] = f
	}
	key := [2]int{degree, f.forwardEnd(o.MaxTerms, o.Thresh)}
	r, ok := s.pruned[key]
	if !ok {
		r.m, r.err = f.prune(s.y, key[1])
		s.pruned[key] = r
	}
	if r.err != nil {
		return nil, r.err
	}
	return r.m, nil
}

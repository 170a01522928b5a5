package regress

import (
	"fmt"
	"math"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// SearchOptions configures the iterative grid refinement of Noorshams et
// al. ("Predictive Performance Modeling of Virtualized Storage Systems
// using Optimized Statistical Regression Techniques", Algorithm 1). The zero
// value of a field selects its default.
type SearchOptions struct {
	// Folds is k of the k-fold cross-validation (default 10).
	Folds int `json:"folds"`
	// Splits is the number of interior grid points per parameter and round
	// (the paper's k; default 4): each parameter's interval is cut into
	// Splits+1 steps.
	Splits int `json:"splits"`
	// Explore is the number of best points refined in the next round (the
	// paper's n; default 5).
	Explore int `json:"explore"`
	// MaxRounds bounds the number of rounds (default 10).
	MaxRounds int `json:"maxRounds"`
	// Epsilon stops the search when a round lowers the best objective by
	// less than Epsilon times its previous value (default 1e-4; a negative
	// value disables the rule).
	Epsilon float64 `json:"epsilon"`
	// Seed fixes the cross-validation folds (the same folds for every
	// candidate).
	Seed uint64 `json:"seed"`
	// Start lists points evaluated with the lower corner before round 1
	// (snapped into the box). Search puts the learner's defaults here, so
	// that tuning never returns parameters that score worse than the
	// defaults on the same folds; Algorithm 1 itself starts from the
	// corner alone.
	Start [][]float64 `json:"start,omitempty"`
}

func (o SearchOptions) withDefaults() SearchOptions {
	if o.Folds == 0 {
		o.Folds = 10
	}
	if o.Splits == 0 {
		o.Splits = 4
	}
	if o.Explore == 0 {
		o.Explore = 5
	}
	if o.MaxRounds == 0 {
		o.MaxRounds = 10
	}
	if o.Epsilon == 0 {
		o.Epsilon = 1e-4
	}
	return o
}

func (o SearchOptions) validate() error {
	switch {
	case o.Folds < 0 || o.Folds == 1:
		return inputError("Folds", "%d; need at least 2", o.Folds)
	case o.Splits < 0:
		return inputError("Splits", "negative (%d)", o.Splits)
	case o.Explore < 0:
		return inputError("Explore", "negative (%d)", o.Explore)
	case o.MaxRounds < 0:
		return inputError("MaxRounds", "negative (%d)", o.MaxRounds)
	case math.IsNaN(o.Epsilon):
		return inputError("Epsilon", "NaN")
	}
	return nil
}

// Candidate is one evaluated parameter vector.
type Candidate struct {
	Params []float64 `json:"params"`
	// Score is the objective (mean cross-validated RMSE for Search); +Inf
	// when the fit failed, with the reason in Err.
	Score float64 `json:"score"`
	Round int     `json:"round"` // 0 for the starting corner
	Err   string  `json:"err,omitempty"`
}

// Optimum is the outcome of Optimize.
type Optimum struct {
	Best       Candidate   `json:"best"`
	Candidates []Candidate `json:"candidates"` // in evaluation order
	Rounds     int         `json:"rounds"`
}

// Optimize minimizes f over the box by Algorithm 1: start at the lower
// corner (and the Start points); in each round, for each of the Explore best points ν found so
// far, take per parameter the nearest evaluated values below and above ν_i
// (the box bounds when there are none), cut that interval into Splits+1
// equal steps (in log space for Log parameters, rounded for Integer ones)
// and evaluate every not yet evaluated point of the product grid. Stop after
// MaxRounds rounds, when a round evaluates nothing new, or when a round
// after the first improves the best value by less than Epsilon relative. Folds and Seed are not used.
// The result is deterministic: ties go to the earlier evaluated point.
func Optimize(box []Param, f func(params []float64) (float64, error), o SearchOptions) (*Optimum, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	o = o.withDefaults()
	for i, p := range box {
		if !(p.Lower <= p.Upper) || math.IsInf(p.Lower, 0) || math.IsInf(p.Upper, 0) {
			return nil, inputError("box", "parameter %d (%s): bounds [%v, %v]", i, p.Name, p.Lower, p.Upper)
		}
		if p.Log && !(p.Lower > 0) {
			return nil, inputError("box", "parameter %d (%s): log scale needs Lower > 0, got %v", i, p.Name, p.Lower)
		}
		if p.Integer && math.Ceil(p.Lower) > math.Floor(p.Upper) {
			return nil, inputError("box", "parameter %d (%s): no whole number in [%v, %v]", i, p.Name, p.Lower, p.Upper)
		}
	}
	if f == nil {
		return nil, inputError("f", "nil objective")
	}
	res := &Optimum{}
	seen := map[string]int{}
	eval := func(v []float64, round int) {
		k := paramKey(v)
		if _, ok := seen[k]; ok {
			return
		}
		c := Candidate{Params: append([]float64(nil), v...), Round: round}
		s, err := f(c.Params)
		switch {
		case err != nil:
			c.Score, c.Err = math.Inf(1), err.Error()
		case math.IsNaN(s):
			c.Score, c.Err = math.Inf(1), "objective is NaN"
		default:
			c.Score = s
		}
		seen[k] = len(res.Candidates)
		res.Candidates = append(res.Candidates, c)
	}
	corner := make([]float64, len(box))
	for i, p := range box {
		corner[i] = snap(p, p.Lower)
	}
	eval(corner, 0)
	for k, v := range o.Start {
		if len(v) != len(box) {
			return nil, inputError("Start", "point %d has %d values for %d parameters", k, len(v), len(box))
		}
		w := make([]float64, len(v))
		for i, p := range box {
			if math.IsNaN(v[i]) {
				return nil, inputError("Start", "point %d: %s is NaN", k, p.Name)
			}
			w[i] = snap(p, v[i])
		}
		eval(w, 0)
	}
	bestScore := math.Inf(1)
	for round := 1; round <= o.MaxRounds; round++ {
		before := len(res.Candidates)
		for _, piv := range bestIndices(res.Candidates, o.Explore) {
			nu := res.Candidates[piv].Params
			axes := make([][]float64, len(box))
			for i, p := range box {
				lo, hi := p.Lower, p.Upper
				for _, c := range res.Candidates {
					v := c.Params[i]
					if v < nu[i] && (v > lo) {
						lo = v
					}
					if v > nu[i] && v < hi {
						hi = v
					}
				}
				axes[i] = gridAxis(p, lo, hi, o.Splits)
			}
			forGrid(axes, func(v []float64) { eval(v, round) })
		}
		res.Rounds = round
		if len(res.Candidates) == before {
			break
		}
		// The epsilon rule compares consecutive rounds; round 1 (the first
		// grid over the whole box) sets the reference.
		nb := res.Candidates[bestIndices(res.Candidates, 1)[0]].Score
		prev := bestScore
		bestScore = math.Min(bestScore, nb)
		if round > 1 && o.Epsilon > 0 && !math.IsInf(prev, 1) && !(prev-nb >= o.Epsilon*math.Abs(prev)) {
			break
		}
	}
	res.Best = res.Candidates[bestIndices(res.Candidates, 1)[0]]
	return res, nil
}

// paramKey identifies a parameter vector in the set of evaluated points.
func paramKey(v []float64) string {
	var b strings.Builder
	for i, x := range v {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatFloat(x, 'g', 12, 64))
	}
	return b.String()
}

// bestIndices returns the indices of the n lowest scores, ties by index.
func bestIndices(cs []Candidate, n int) []int {
	idx := make([]int, len(cs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return cs[idx[a]].Score < cs[idx[b]].Score })
	if len(idx) > n {
		idx = idx[:n]
	}
	return idx
}

// snap rounds v to a valid value of p (whole number for Integer) inside
// its bounds.
func snap(p Param, v float64) float64 {
	if p.Integer {
		v = math.Round(v)
		if v < p.Lower {
			v = math.Ceil(p.Lower)
		}
		if v > p.Upper {
			v = math.Floor(p.Upper)
		}
	}
	return math.Min(math.Max(v, p.Lower), p.Upper)
}

// gridAxis returns {lo, lo+s, …, lo+k·s, hi}, s = (hi−lo)/(k+1), in log
// space for Log parameters, snapped and without duplicates.
func gridAxis(p Param, lo, hi float64, k int) []float64 {
	out := []float64{snap(p, lo)}
	a, b := lo, hi
	if p.Log {
		a, b = math.Log(lo), math.Log(hi)
	}
	s := (b - a) / float64(k+1)
	for j := 1; j <= k; j++ {
		v := a + float64(j)*s
		if p.Log {
			v = math.Exp(v)
		}
		out = append(out, snap(p, v))
	}
	out = append(out, snap(p, hi))
	sort.Float64s(out)
	u := out[:1]
	for _, v := range out[1:] {
		if v != u[len(u)-1] {
			u = append(u, v)
		}
	}
	return u
}

// forGrid calls f on every point of the product of the axes, the last axis
// varying fastest.
func forGrid(axes [][]float64, f func([]float64)) {
	v := make([]float64, len(axes))
	var rec func(i int)
	rec = func(i int) {
		if i == len(axes) {
			f(v)
			return
		}
		for _, x := range axes[i] {
			v[i] = x
			rec(i + 1)
		}
	}
	rec(0)
}

// CVRMSE is the objective of Search: the mean over the folds of
// KFold(len(y), k, seed) of the RMSE on the held-out fold of the learner
// fitted on the other folds.
func CVRMSE(l Learner, X [][]float64, y []float64, params []float64, k int, seed uint64) (float64, error) {
	folds, err := KFold(len(y), k, seed)
	if err != nil {
		return 0, err
	}
	return cvRMSE(foldSessions(l, X, y, folds), X, y, params, folds)
}

// foldSessions returns one fit session per fold, on the fold's training
// rows; a search keeps them for all its candidates.
func foldSessions(l Learner, X [][]float64, y []float64, folds []Fold) []fitSession {
	out := make([]fitSession, len(folds))
	for f, fold := range folds {
		xtr := make([][]float64, len(fold.Train))
		ytr := make([]float64, len(fold.Train))
		for r, i := range fold.Train {
			xtr[r], ytr[r] = X[i], y[i]
		}
		out[f] = newFitSession(l, xtr, ytr)
	}
	return out
}

func cvRMSE(fits []fitSession, X [][]float64, y []float64, params []float64, folds []Fold) (float64, error) {
	// Folds run concurrently (one goroutine per CPU); each writes its own
	// slot and the mean is summed in fold order, so the result does not
	// depend on scheduling.
	rmse := make([]float64, len(folds))
	errs := make([]error, len(folds))
	sem := make(chan struct{}, max(1, runtime.GOMAXPROCS(0)))
	var wg sync.WaitGroup
	for f := range folds {
		wg.Add(1)
		sem <- struct{}{}
		go func(f int) {
			defer func() { <-sem; wg.Done() }()
			rmse[f], errs[f] = foldRMSE(fits[f], X, y, params, folds[f])
		}(f)
	}
	wg.Wait()
	var mean float64
	for f := range folds {
		if errs[f] != nil {
			return 0, fmt.Errorf("fold %d of %d: %w", f+1, len(folds), errs[f])
		}
		mean += rmse[f] / float64(len(folds))
	}
	return mean, nil
}

func foldRMSE(fit fitSession, X [][]float64, y []float64, params []float64, fold Fold) (float64, error) {
	m, err := fit.Fit(params)
	if err != nil {
		return 0, err
	}
	var ss float64
	for _, i := range fold.Test {
		d := m.Predict(X[i]) - y[i]
		ss += d * d
	}
	rmse := math.Sqrt(ss / float64(len(fold.Test)))
	if math.IsNaN(rmse) {
		return 0, fmt.Errorf("prediction is NaN")
	}
	return rmse, nil
}

// SearchResult is the outcome of Search for one learner.
type SearchResult struct {
	Learner string `json:"learner"`
	Params  []Param
	// Default is the learner's default parameter vector and its objective.
	Default      []float64 `json:"default"`
	DefaultScore float64   `json:"defaultScore"`
	Optimum
	// Model is the learner refitted on all the data with Best.Params.
	Model Model `json:"-"`
}

// Search tunes l's parameters on X and y by Optimize with the objective
// "mean RMSE of Folds-fold cross-validation" (the same folds for every
// candidate), starting from the lower corner and the learner's defaults,
// and refits the winner on all the data.
func Search(l Learner, X [][]float64, y []float64, o SearchOptions) (*SearchResult, error) {
	if l == nil {
		return nil, inputError("learner", "nil")
	}
	if err := o.validate(); err != nil {
		return nil, err
	}
	o = o.withDefaults()
	if _, err := denseXY(X, y); err != nil {
		return nil, err
	}
	folds, err := KFold(len(y), o.Folds, o.Seed)
	if err != nil {
		return nil, err
	}
	fits := foldSessions(l, X, y, folds)
	obj := func(p []float64) (float64, error) { return cvRMSE(fits, X, y, p, folds) }
	o.Start = append([][]float64{Defaults(l)}, o.Start...)
	opt, err := Optimize(l.Params(), obj, o)
	if err != nil {
		return nil, err
	}
	r := &SearchResult{Learner: l.Name(), Params: l.Params(), Default: Defaults(l), Optimum: *opt}
	r.DefaultScore = math.Inf(1)
	for _, c := range opt.Candidates {
		if paramKey(c.Params) == paramKey(r.Default) {
			r.DefaultScore = c.Score
		}
	}
	if math.IsInf(r.Best.Score, 1) {
		return r, fmt.Errorf("%s: no parameter vector could be fitted: %s", l.Name(), r.Best.Err)
	}
	r.Model, err = l.Fit(X, y, r.Best.Params)
	if err != nil {
		return r, fmt.Errorf("%s: refit on all data: %w", l.Name(), err)
	}
	return r, nil
}

// SearchAll runs Search for every learner and returns all results (in the
// learners' order) and the index of the one with the lowest cross-validated
// RMSE (ties to the earlier learner). A learner that cannot be fitted at
// all is reported in its result and skipped.
func SearchAll(ls []Learner, X [][]float64, y []float64, o SearchOptions) ([]*SearchResult, int, error) {
	if len(ls) == 0 {
		return nil, -1, inputError("learners", "empty")
	}
	out := make([]*SearchResult, len(ls))
	best := -1
	var firstErr error
	for i, l := range ls {
		r, err := Search(l, X, y, o)
		if err != nil {
			if r == nil {
				return nil, -1, err
			}
			if firstErr == nil {
				firstErr = err
			}
			out[i] = r
			continue
		}
		out[i] = r
		if best < 0 || r.Best.Score < out[best].Best.Score {
			best = i
		}
	}
	if best < 0 {
		return out, -1, firstErr
	}
	return out, best, nil
}

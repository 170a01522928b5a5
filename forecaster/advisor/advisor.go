package advisor

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/storcast/storcast/forecaster/internal/check"
	"github.com/storcast/storcast/forecaster/regress"
	"gonum.org/v1/gonum/mat"
)

// cvSeed fixes the folds of the cross-validation, so that a catalog always
// gives the same CVError.
const cvSeed = 1

// Advisor holds one M5 model tree per rule set, each predicting the
// throughput boost the rule set would give a workload. It encodes to JSON
// and decodes with its structure checked, so a cached advisor can be used
// without retraining.
type Advisor struct {
	// Features are the catalog's features, in the order of Tree inputs.
	Features []string       `json:"features"`
	RuleSets []RuleSetModel `json:"ruleSets"`
}

// RuleSetModel is the fitted model of one rule set.
type RuleSetModel struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Experiments is the number of experiments the tree was trained on.
	Experiments int `json:"experiments"`
	// Workloads is the number of distinct workloads among them: repeats of
	// a workload count once.
	Workloads int `json:"workloads"`
	// Tree maps the model inputs (Inputs of the workload) to the boost.
	Tree *regress.M5Tree `json:"tree"`
	// CVError is the mean absolute error of the boost (0.01 = 1 percentage
	// point) over the held-out experiments of a CVFolds-fold
	// cross-validation whose folds are drawn over distinct workloads, so
	// that no repeat of a held-out workload is trained on.
	CVError float64 `json:"cvError"`
	CVFolds int     `json:"cvFolds"`
	// ConstantCVError is the same cross-validation's error of predicting
	// the training folds' mean boost: what a tree has to beat to have
	// learnt anything from the features.
	ConstantCVError float64 `json:"constantCVError"`
	// RunNoise is the mean standard error of the measured boosts from the
	// run-to-run spread: no model can be more accurate than this.
	RunNoise float64 `json:"runNoise"`
	// Min and Max are the range of each model input over the experiments.
	Min []float64 `json:"min"`
	Max []float64 `json:"max"`
}

// Accuracy is how much of the boost's variation the tree predicts beyond
// the rule set's mean boost, 1 − CVError/ConstantCVError clamped to
// [0, 1]: 0 for a tree no better than the constant, 1 for one without
// error. A catalog whose boosts do not vary at all (ConstantCVError 0)
// scores 1 if the tree has no error either, else 0.
func (m RuleSetModel) Accuracy() float64 {
	// Boosts that do not vary leave the constant's error at rounding
	// (its mean of equal boosts need not be one of them exactly): a ratio
	// of two rounding leftovers is no score.
	if m.ConstantCVError <= flatBoostError {
		if m.CVError <= flatBoostError {
			return 1
		}
		return 0
	}
	return min(max(1-m.CVError/m.ConstantCVError, 0), 1)
}

// flatBoostError is a CV error in boost points below which a rule set's
// boosts count as not varying: far under any measured boost's noise,
// far over a mean's rounding.
const flatBoostError = 1e-9

// Prediction is one rule set's predicted boost for a workload.
type Prediction struct {
	RuleSet string  `json:"ruleSet"`
	Boost   float64 `json:"boost"` // predicted mean(with)/mean(without) − 1
	CVError float64 `json:"cvError"`
	// RunNoise is the rule set's RunNoise: the standard error run-to-run
	// noise puts on a measured boost.
	RunNoise float64 `json:"runNoise"`
	// Extrapolated is true when some input lies outside the range of the
	// rule set's experiments: the tree's leaf model is extended beyond its
	// data.
	Extrapolated bool `json:"extrapolated"`
}

// Margin is the boost the prediction must exceed for its rule set to be
// recommended: the CV error, how far a prediction typically is from the
// measured boost of a workload the tree did not see (that measurement's
// noise included), and at least the run noise, one standard error of a
// measured boost, for a tree whose CV error is below it.
func (p Prediction) Margin() float64 { return math.Max(p.CVError, p.RunNoise) }

// Inputs turns a workload into the model inputs, in the order of features:
// request size and throughput as log2 (their effects are multiplicative and
// span orders of magnitude), shares as they are.
func Inputs(features []string, w Workload) []float64 {
	x := make([]float64, len(features))
	for j, f := range features {
		v := w[f]
		if f == RequestBytes || f == OriginalThroughput {
			v = math.Log2(v)
		}
		x[j] = v
	}
	return x
}

// Train validates the catalog and fits one M5 tree (regress.FitM5, default
// options) per rule set on its experiments: inputs from the workload and
// the mean baseline throughput, target the measured boost. CVError comes
// from a k-fold cross-validation on the same data with k = min(10, w/2)
// over its w distinct workloads, each workload's repeats in one fold.
func Train(c *Catalog) (*Advisor, error) {
	if c == nil {
		return nil, inputError("catalog", "nil")
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	a := &Advisor{Features: slices.Clone(c.Features)}
	for i, rs := range c.RuleSets {
		group, workloads := c.workloadGroups(rs.Experiments)
		m, err := trainRuleSet(a.Features, rs, group, workloads)
		if err != nil {
			return nil, fmt.Errorf("rule_sets[%d] (%s): %w", i, rs.Name, err)
		}
		a.RuleSets = append(a.RuleSets, *m)
	}
	return a, nil
}

// trainRuleSet fits rs's tree; group[i] is the number of experiment i's
// workload among the distinct ones (Catalog.workloadGroups).
func trainRuleSet(features []string, rs RuleSet, group []int, workloads int) (*RuleSetModel, error) {
	n, p := len(rs.Experiments), len(features)
	X := mat.NewDense(n, p, nil)
	y := make([]float64, n)
	m := &RuleSetModel{Name: rs.Name, Description: rs.Description, Experiments: n, Workloads: workloads,
		Min: make([]float64, p), Max: make([]float64, p)}
	for j := range p {
		m.Min[j], m.Max[j] = math.Inf(1), math.Inf(-1)
	}
	for i, e := range rs.Experiments {
		w := Workload{OriginalThroughput: e.OriginalThroughput()}
		for k, v := range e.Workload {
			w[k] = v
		}
		x := Inputs(features, w)
		X.SetRow(i, x)
		for j, v := range x {
			m.Min[j], m.Max[j] = math.Min(m.Min[j], v), math.Max(m.Max[j], v)
		}
		y[i] = e.Boost()
		m.RunNoise += e.BoostStdErr() / float64(n)
	}
	tree, err := regress.FitM5(X, y, regress.M5Options{})
	if err != nil {
		return nil, err
	}
	m.Tree = tree
	m.CVFolds = min(10, workloads/2)
	folds, err := workloadFolds(group, workloads, m.CVFolds)
	if err != nil {
		return nil, err
	}
	row := make([]float64, p)
	for _, f := range folds {
		Xtr := mat.NewDense(len(f.Train), p, nil)
		ytr := make([]float64, len(f.Train))
		var constant float64
		for r, i := range f.Train {
			Xtr.SetRow(r, X.RawRowView(i))
			ytr[r] = y[i]
			constant += y[i] / float64(len(f.Train))
		}
		t, err := regress.FitM5(Xtr, ytr, regress.M5Options{})
		if err != nil {
			return nil, err
		}
		for _, i := range f.Test {
			copy(row, X.RawRowView(i))
			m.CVError += math.Abs(t.Predict(row)-y[i]) / float64(n)
			m.ConstantCVError += math.Abs(constant-y[i]) / float64(n)
		}
	}
	if !check.Finite(m.CVError) || !check.Finite(m.ConstantCVError) || !check.Finite(m.RunNoise) {
		return nil, inputError("experiments", "cross-validated error is not finite; rescale the throughputs")
	}
	return m, nil
}

// workloadFolds splits the experiments into k folds over their distinct
// workloads (regress.KFold on the workloads, fixed seed): every repeat of a
// workload is in the same fold, so a held-out experiment never has a twin
// among the training ones, which would make the CV error optimistic.
func workloadFolds(group []int, workloads, k int) ([]regress.Fold, error) {
	wf, err := regress.KFold(workloads, k, cvSeed)
	if err != nil {
		return nil, err
	}
	members := make([][]int, workloads)
	for i, g := range group {
		members[g] = append(members[g], i)
	}
	folds := make([]regress.Fold, len(wf))
	for f, w := range wf {
		for _, g := range w.Train {
			folds[f].Train = append(folds[f].Train, members[g]...)
		}
		for _, g := range w.Test {
			folds[f].Test = append(folds[f].Test, members[g]...)
		}
	}
	return folds, nil
}

// Predict returns every rule set's predicted boost for the workload w, in
// catalog order. w must hold every feature of the catalog, measured: a
// feature the live source cannot measure must not be estimated, and an
// advisor whose catalog needs it cannot be used. Known features the
// catalog does not use are ignored; an unknown name is an error.
func (a *Advisor) Predict(w Workload) ([]Prediction, error) {
	if a == nil || len(a.RuleSets) == 0 {
		return nil, inputError("advisor", "not trained")
	}
	for _, name := range sortedKeys(w) {
		if !slices.Contains(KnownFeatures, name) {
			return nil, inputError("workload."+name, "unknown feature; known: %s", quoteList(KnownFeatures))
		}
		if err := checkValue("workload."+name, name, w[name]); err != nil {
			return nil, err
		}
	}
	for _, name := range a.Features {
		if _, ok := w[name]; !ok {
			return nil, inputError("workload."+name, "missing; the advisor's models need %s", quoteList(a.Features))
		}
	}
	x := Inputs(a.Features, w)
	out := make([]Prediction, len(a.RuleSets))
	for i := range a.RuleSets {
		m := &a.RuleSets[i]
		out[i] = Prediction{RuleSet: m.Name, Boost: m.Tree.Predict(x), CVError: m.CVError, RunNoise: m.RunNoise}
		if !check.Finite(out[i].Boost) {
			return nil, inputError("workload", "rule set %s: prediction is %v; the workload is far outside its experiments", m.Name, out[i].Boost)
		}
		for j, v := range x {
			if v < m.Min[j] || v > m.Max[j] {
				out[i].Extrapolated = true
			}
		}
	}
	return out, nil
}

// Advice is the advisor's answer for one workload.
type Advice struct {
	Predictions []Prediction `json:"predictions"`
	// RuleSet is the recommended rule set, "" for none.
	RuleSet string `json:"ruleSet,omitempty"`
	// Reason says why no rule set is recommended, or why a higher
	// extrapolated prediction was passed over; "" otherwise.
	Reason string `json:"reason,omitempty"`
}

// Advise predicts every rule set's boost for w (Predict) and recommends
// one. A rule set is a candidate only when its predicted boost exceeds its
// Margin: a boost inside the rule set's own uncertainty is no reason to
// apply it. The highest in-range candidate is recommended; an
// extrapolated candidate only when no in-range one is, or when it exceeds
// the best in-range one by its own Margin too, as its prediction is
// extended beyond the experiments that CVError measured. Ties go to the
// earlier rule set of the catalog.
func (a *Advisor) Advise(w Workload) (Advice, error) {
	preds, err := a.Predict(w)
	if err != nil {
		return Advice{}, err
	}
	out := Advice{Predictions: preds}
	out.RuleSet, out.Reason = recommend(preds)
	return out, nil
}

// recommend is Advise's choice among preds (Advise's comment says how);
// reason says why none is recommended, or why a higher extrapolated
// prediction was passed over.
func recommend(preds []Prediction) (ruleSet, reason string) {
	inRange, extrapolated := -1, -1
	for i, p := range preds {
		if !(p.Boost > p.Margin()) {
			continue
		}
		best := &inRange
		if p.Extrapolated {
			best = &extrapolated
		}
		if *best < 0 || p.Boost > preds[*best].Boost {
			*best = i
		}
	}
	switch {
	case inRange < 0 && extrapolated < 0:
		parts := make([]string, len(preds))
		for i, p := range preds {
			parts[i] = fmt.Sprintf("%s %+.1f%% (needs > %.1f)", p.RuleSet, 100*p.Boost, 100*p.Margin())
		}
		reason = "no rule set's predicted boost exceeds its uncertainty (the larger of its CV error and its run noise): " + strings.Join(parts, ", ")
	case inRange < 0:
		ruleSet = preds[extrapolated].RuleSet
	case extrapolated < 0:
		ruleSet = preds[inRange].RuleSet
	default:
		// The extrapolated candidates ahead of the in-range one by their
		// own margin, each judged by its own (being ahead of a candidate, a
		// boost above 0, by its margin, it is above its margin): the
		// highest of those wins, not only the highest extrapolated boost
		// (whose margin may be the widest).
		r, ahead := preds[inRange], -1
		for i, p := range preds {
			if p.Extrapolated && p.Boost-r.Boost > p.Margin() && (ahead < 0 || p.Boost > preds[ahead].Boost) {
				ahead = i
			}
		}
		if ahead >= 0 {
			ruleSet = preds[ahead].RuleSet
			break
		}
		ruleSet = r.RuleSet
		if e := preds[extrapolated]; e.Boost > r.Boost {
			reason = fmt.Sprintf("%s's %+.1f%% is extrapolated (the workload is outside its experiments) and exceeds %s's %+.1f%% by less than its uncertainty %.1f points",
				e.RuleSet, 100*e.Boost, r.RuleSet, 100*r.Boost, 100*e.Margin())
		}
	}
	return ruleSet, reason
}

// Recommend is Advise's recommendation alone: ok = false when no rule set
// is recommended.
func (a *Advisor) Recommend(w Workload) (ruleSet string, ok bool, err error) {
	adv, err := a.Advise(w)
	if err != nil {
		return "", false, err
	}
	return adv.RuleSet, adv.RuleSet != "", nil
}

// UnmarshalJSON decodes an advisor and checks its structure, so that a
// damaged cache is an error, not a panic in Predict.
func (a *Advisor) UnmarshalJSON(data []byte) error {
	type plain Advisor
	var v plain
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	if err := (*Advisor)(&v).check(); err != nil {
		return err
	}
	*a = Advisor(v)
	return nil
}

// check verifies what Predict relies on.
func (a *Advisor) check() error {
	if err := checkFeatures(a.Features); err != nil {
		return err
	}
	if len(a.RuleSets) == 0 {
		return inputError("ruleSets", "empty")
	}
	p := len(a.Features)
	seen := map[string]int{}
	for i, m := range a.RuleSets {
		where := fmt.Sprintf("ruleSets[%d] (%s)", i, m.Name)
		if m.Name == "" {
			return inputError(fmt.Sprintf("ruleSets[%d].name", i), "empty")
		}
		// Each name is a label value of the served series: a repeat would
		// give two series with the same labels and fail the scrape.
		if j, dup := seen[m.Name]; dup {
			return inputError(where+".name", "already used by ruleSets[%d]", j)
		}
		seen[m.Name] = i
		if m.Experiments < 1 || m.Workloads < 0 || m.Workloads > m.Experiments {
			return inputError(where, "%d experiments of %d workloads; need at least 1 experiment and no more workloads than experiments", m.Experiments, m.Workloads)
		}
		if len(m.Min) != p || len(m.Max) != p {
			return inputError(where+".min/max", "need %d values each", p)
		}
		for j := range p {
			if !check.Finite(m.Min[j]) || !check.Finite(m.Max[j]) || m.Min[j] > m.Max[j] {
				return inputError(fmt.Sprintf("%s.min/max[%d]", where, j), "need finite min <= max, got min %v, max %v", m.Min[j], m.Max[j])
			}
		}
		for _, v := range []struct {
			key string
			v   float64
		}{{"cvError", m.CVError}, {"constantCVError", m.ConstantCVError}, {"runNoise", m.RunNoise}} {
			if !check.Finite(v.v) || v.v < 0 {
				return inputError(where+"."+v.key, "must be a finite number >= 0, got %v", v.v)
			}
		}
		if m.CVFolds < 2 {
			return inputError(where+".cvFolds", "%d folds; a cross-validation needs at least 2", m.CVFolds)
		}
		if err := checkTree(m.Tree, p); err != nil {
			return fmt.Errorf("%s.tree: %w", where, err)
		}
	}
	return nil
}

// checkTree verifies an M5 tree's structure: children after their parent
// (so no cycles), indices and feature numbers in range, finite numbers.
func checkTree(t *regress.M5Tree, p int) error {
	if t == nil || len(t.Nodes) == 0 {
		return inputError("nodes", "empty")
	}
	if t.P != p {
		return inputError("p", "%d inputs; the advisor has %d features", t.P, p)
	}
	if t.Smoothing && (!check.Finite(t.SmoothingK) || t.SmoothingK < 0) {
		return inputError("smoothingK", "must be a finite number >= 0, got %v", t.SmoothingK)
	}
	for i, nd := range t.Nodes {
		w := fmt.Sprintf("nodes[%d]", i)
		if (nd.Left < 0) != (nd.Right < 0) {
			return inputError(w, "has one child")
		}
		if nd.Left >= 0 {
			if nd.Left <= i || nd.Right <= i || nd.Left >= len(t.Nodes) || nd.Right >= len(t.Nodes) {
				return inputError(w, "child index out of order or range")
			}
			if nd.Feature < 0 || nd.Feature >= p || !check.Finite(nd.Threshold) {
				return inputError(w, "bad split (feature %d, threshold %v)", nd.Feature, nd.Threshold)
			}
		}
		if nd.N < 0 {
			return inputError(w+".n", "negative")
		}
		lm := nd.Model
		if len(lm.Coef) != len(lm.Features) || !check.Finite(lm.Intercept) {
			return inputError(w+".model", "malformed")
		}
		for k, j := range lm.Features {
			if j < 0 || j >= p || !check.Finite(lm.Coef[k]) {
				return inputError(w+".model", "bad term %d", k)
			}
		}
	}
	return nil
}

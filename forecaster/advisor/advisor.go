package advisor

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"

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
	// Tree maps the model inputs (Inputs of the workload) to the boost.
	Tree *regress.M5Tree `json:"tree"`
	// CVError is the mean absolute error of the boost (0.01 = 1 percentage
	// point) over the held-out experiments of a CVFolds-fold
	// cross-validation.
	CVError float64 `json:"cvError"`
	CVFolds int     `json:"cvFolds"`
	// RunNoise is the mean standard error of the measured boosts from the
	// run-to-run spread: no model can be more accurate than this.
	RunNoise float64 `json:"runNoise"`
	// Min and Max are the range of each model input over the experiments.
	Min []float64 `json:"min"`
	Max []float64 `json:"max"`
}

// Prediction is one rule set's predicted boost for a workload.
type Prediction struct {
	RuleSet string  `json:"ruleSet"`
	Boost   float64 `json:"boost"` // predicted mean(with)/mean(without) − 1
	CVError float64 `json:"cvError"`
	// Extrapolated is true when some input lies outside the range of the
	// rule set's experiments: the tree's leaf model is extended beyond its
	// data.
	Extrapolated bool `json:"extrapolated"`
}

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
// from a k-fold cross-validation with k = min(10, n/2) on the same data.
func Train(c *Catalog) (*Advisor, error) {
	if c == nil {
		return nil, inputError("catalog", "nil")
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	a := &Advisor{Features: slices.Clone(c.Features)}
	for i, rs := range c.RuleSets {
		m, err := trainRuleSet(a.Features, rs)
		if err != nil {
			return nil, fmt.Errorf("rule_sets[%d] (%s): %w", i, rs.Name, err)
		}
		a.RuleSets = append(a.RuleSets, *m)
	}
	return a, nil
}

func trainRuleSet(features []string, rs RuleSet) (*RuleSetModel, error) {
	n, p := len(rs.Experiments), len(features)
	X := mat.NewDense(n, p, nil)
	y := make([]float64, n)
	m := &RuleSetModel{Name: rs.Name, Description: rs.Description, Experiments: n,
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
	m.CVFolds = min(10, n/2)
	folds, err := regress.KFold(n, m.CVFolds, cvSeed)
	if err != nil {
		return nil, err
	}
	row := make([]float64, p)
	for _, f := range folds {
		Xtr := mat.NewDense(len(f.Train), p, nil)
		ytr := make([]float64, len(f.Train))
		for r, i := range f.Train {
			Xtr.SetRow(r, X.RawRowView(i))
			ytr[r] = y[i]
		}
		t, err := regress.FitM5(Xtr, ytr, regress.M5Options{})
		if err != nil {
			return nil, err
		}
		for _, i := range f.Test {
			copy(row, X.RawRowView(i))
			m.CVError += math.Abs(t.Predict(row)-y[i]) / float64(n)
		}
	}
	if !check.Finite(m.CVError) || !check.Finite(m.RunNoise) {
		return nil, inputError("experiments", "cross-validated error is not finite; rescale the throughputs")
	}
	return m, nil
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
		out[i] = Prediction{RuleSet: m.Name, Boost: m.Tree.Predict(x), CVError: m.CVError}
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

// Recommend returns the rule set with the highest predicted boost for w,
// and ok = false (no rule set) when no predicted boost is positive. Ties go
// to the earlier rule set of the catalog.
func (a *Advisor) Recommend(w Workload) (ruleSet string, ok bool, err error) {
	preds, err := a.Predict(w)
	if err != nil {
		return "", false, err
	}
	best := -1
	for i, p := range preds {
		if p.Boost > 0 && (best < 0 || p.Boost > preds[best].Boost) {
			best = i
		}
	}
	if best < 0 {
		return "", false, nil
	}
	return preds[best].RuleSet, true, nil
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
	for i, m := range a.RuleSets {
		where := fmt.Sprintf("ruleSets[%d] (%s)", i, m.Name)
		if m.Name == "" {
			return inputError(fmt.Sprintf("ruleSets[%d].name", i), "empty")
		}
		if len(m.Min) != p || len(m.Max) != p {
			return inputError(where+".min/max", "need %d values each", p)
		}
		if !check.Finite(m.CVError) || m.CVError < 0 {
			return inputError(where+".cvError", "must be a finite number >= 0, got %v", m.CVError)
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

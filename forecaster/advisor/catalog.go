package advisor

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/storcast/storcast/forecaster/internal/check"
	"github.com/storcast/storcast/internal/yamlstrict"
)

// ErrInput is wrapped by every error that reports bad input; inputError
// returns one that names the argument.
var inputError, ErrInput = check.Input()

// The workload features, by the names the catalog, the JSON model and
// Predict use.
const (
	// RequestBytes is the sequential request size in bytes: the size of a
	// run of consecutive requests as the storage sees it (Lu's sreq_size).
	RequestBytes = "request_bytes"
	// SequentialShare is the share of requests that continue where the
	// previous one on the same object ended, 0..1 (Lu's access type, an
	// enumerator random/sequential, is the special case 0 or 1).
	SequentialShare = "sequential_share"
	// ReadShare is read bytes / (read + write bytes), 0..1 (Lu's read-write
	// ratio by bytes r:w is r/(r+w)).
	ReadShare = "read_share"
	// OriginalThroughput is the workload's throughput in bytes/s without the
	// rule set (Lu's ori_throughput). In a catalog it is the mean of an
	// experiment's baseline runs, never written in the workload.
	OriginalThroughput = "original_throughput"
)

// KnownFeatures lists the feature names, in the order models use them.
var KnownFeatures = []string{RequestBytes, SequentialShare, ReadShare, OriginalThroughput}

// MinExperiments is the fewest distinct workloads a rule set's experiments
// need: an M5 tree with its default 4 samples per leaf, cross-validated in
// at least 5 folds. Repeats of one workload count once: they say how noisy
// its boost is, not how the boost varies with the features.
const MinExperiments = 10

// MinRuns is the fewest runs of each of baseline and with_rule_set: one run
// says nothing about the run-to-run noise the boost has to stand out from.
const MinRuns = 2

// MaxBoost bounds a measured boost: a rule set that makes a workload more
// than 11 times faster is a unit mix-up in the catalog, not a rule set.
const MaxBoost = 10.0

// MaxSlowdown bounds a measured slowdown the other way: a rule set can cap
// a workload hard (a QoS limit), but one that leaves it under 1/1000 of its
// baseline is the same unit mix-up reversed (bytes/s against MB/s).
const MaxSlowdown = 1000.0

// Workload maps feature names to values.
type Workload map[string]float64

// Catalog is the operator's rule-set catalog: the features the models use
// and, per rule set, the experiments that measured its effect.
type Catalog struct {
	// Features the models are trained on, a subset of KnownFeatures without
	// repeats. A feature the live source cannot measure is left out here
	// rather than estimated.
	Features []string  `yaml:"features" json:"features"`
	RuleSets []RuleSet `yaml:"rule_sets" json:"ruleSets"`
}

// RuleSet is one traffic-control rule set and its experiments.
type RuleSet struct {
	Name        string `yaml:"name" json:"name"`
	Description string `yaml:"description,omitempty" json:"description,omitempty"`
	// CommonWorkload is the workload the rule set was tuned for; one of the
	// experiments must have exactly this workload.
	CommonWorkload Workload     `yaml:"common_workload" json:"commonWorkload"`
	Experiments    []Experiment `yaml:"experiments" json:"experiments"`
}

// Experiment is one workload (the common one or a derived one) run without
// and with the rule set, several runs each, throughput in bytes/s.
type Experiment struct {
	Workload    Workload  `yaml:"workload" json:"workload"`
	Baseline    []float64 `yaml:"baseline" json:"baseline"`
	WithRuleSet []float64 `yaml:"with_rule_set" json:"withRuleSet"`
}

// Boost is the measured throughput boost of the experiment,
// mean(WithRuleSet)/mean(Baseline) − 1 (0.05 is +5%).
func (e Experiment) Boost() float64 { return mean(e.WithRuleSet)/mean(e.Baseline) - 1 }

// OriginalThroughput is the workload's throughput without the rule set:
// the mean of the baseline runs (the feature the catalog does not write).
func (e Experiment) OriginalThroughput() float64 { return mean(e.Baseline) }

// BoostStdErr is the standard error of Boost from the run-to-run spread
// (first-order propagation of both means' standard errors).
func (e Experiment) BoostStdErr() float64 {
	b, w := mean(e.Baseline), mean(e.WithRuleSet)
	sb, sw := stdErr(e.Baseline)/b, stdErr(e.WithRuleSet)/w
	return w / b * math.Sqrt(sb*sb+sw*sw)
}

func mean(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// stdErr is the standard error of the mean of v, computed on v scaled by
// its largest magnitude so that squares cannot overflow.
func stdErr(v []float64) float64 {
	var scale float64
	for _, x := range v {
		scale = math.Max(scale, math.Abs(x))
	}
	if scale == 0 {
		return 0
	}
	var m float64
	for _, x := range v {
		m += x / scale / float64(len(v))
	}
	var ss float64
	for _, x := range v {
		d := x/scale - m
		ss += d * d
	}
	return scale * math.Sqrt(ss/float64(len(v)-1)/float64(len(v)))
}

// LoadCatalog decodes and validates a YAML rule-set catalog. Decoding is
// strict (unknown fields, a second document, a wrong type are errors) and
// every error names the rule set, the experiment and the field, e.g.
//
//	invalid input: rule_sets[0] (qos-cap).experiments: 6 experiments; need at least 10 ...
func LoadCatalog(data []byte) (*Catalog, error) {
	var c Catalog
	if err := yamlstrict.Decode(data, &c); err != nil {
		if errors.Is(err, yamlstrict.ErrEmpty) || errors.Is(err, yamlstrict.ErrMoreDocuments) {
			return nil, inputError("catalog", "%v", err)
		}
		return nil, fmt.Errorf("%w: %s", ErrInput, yamlMessage(data, err))
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return &c, nil
}

// yamlMessage turns yaml.v3 errors into one line without Go type names
// (yamlstrict.Problems), each prefixed by the entry it is in (rule set,
// experiment), found from its line number.
func yamlMessage(data []byte, err error) string {
	var root yaml.Node
	_ = yaml.Unmarshal(data, &root) // best effort: only names the entry
	ps := yamlstrict.Problems(err)
	msgs := make([]string, len(ps))
	for i, p := range ps {
		entry := entryAt(&root, p.Msg)
		if p.UnknownField != "" {
			// The walk ends on the unknown key itself; name its entry.
			entry = strings.TrimSuffix(entry, "."+p.UnknownField)
		}
		msgs[i] = entry + ": " + p.Msg
	}
	return strings.Join(msgs, "; ")
}

var lineNumber = regexp.MustCompile(`^line (\d+):`)

// entryAt names the deepest entry of the document that the line of a yaml
// error message ("line N: ...") falls in, e.g. "rule_sets[0]
// (qos-cap).experiments[9]", or "catalog" when it cannot tell.
func entryAt(root *yaml.Node, msg string) string {
	m := lineNumber.FindStringSubmatch(msg)
	if m == nil || root.Kind != yaml.DocumentNode || len(root.Content) == 0 {
		return "catalog"
	}
	line, _ := strconv.Atoi(m[1])
	path := ""
	n := root.Content[0]
	for {
		switch n.Kind {
		case yaml.MappingNode:
			best := -1
			for k := 0; k+1 < len(n.Content); k += 2 {
				if l := n.Content[k].Line; l <= line && (best < 0 || l >= n.Content[best].Line) {
					best = k
				}
			}
			// Several keys on the line (a flow mapping): the error is in
			// this entry, but which field is not known.
			for k := 0; best >= 0 && k+1 < len(n.Content); k += 2 {
				if k != best && n.Content[k].Line == n.Content[best].Line {
					best = -1
				}
			}
			if best < 0 {
				return pathOrCatalog(path)
			}
			if path != "" {
				path += "."
			}
			path += n.Content[best].Value
			n = n.Content[best+1]
		case yaml.SequenceNode:
			best := -1
			for k, c := range n.Content {
				if c.Line <= line {
					best = k
				}
			}
			// Several items on the line (a flow sequence): which one is not
			// known.
			if best > 0 && n.Content[best-1].Line == n.Content[best].Line {
				best = -1
			}
			if best < 0 {
				return pathOrCatalog(path)
			}
			n = n.Content[best]
			path += fmt.Sprintf("[%d]", best)
			if name := mapValue(n, "name"); name != "" {
				path += " (" + name + ")"
			}
		default:
			return pathOrCatalog(path)
		}
	}
}

func pathOrCatalog(p string) string {
	if p == "" {
		return "catalog"
	}
	return p
}

// mapValue is the scalar value of key in a mapping node, or "".
func mapValue(n *yaml.Node, key string) string {
	if n.Kind != yaml.MappingNode {
		return ""
	}
	for k := 0; k+1 < len(n.Content); k += 2 {
		if n.Content[k].Value == key && n.Content[k+1].Kind == yaml.ScalarNode {
			return n.Content[k+1].Value
		}
	}
	return ""
}

// Validate checks the catalog without I/O; LoadCatalog calls it.
func (c *Catalog) Validate() error {
	if err := checkFeatures(c.Features); err != nil {
		return err
	}
	if len(c.RuleSets) == 0 {
		return inputError("rule_sets", "missing or empty")
	}
	seen := map[string]int{}
	for i, rs := range c.RuleSets {
		where := fmt.Sprintf("rule_sets[%d]", i)
		if strings.TrimSpace(rs.Name) == "" {
			return inputError(where+".name", "missing")
		}
		where = fmt.Sprintf("rule_sets[%d] (%s)", i, rs.Name)
		if j, dup := seen[rs.Name]; dup {
			return inputError(where+".name", "already used by rule_sets[%d]", j)
		}
		seen[rs.Name] = i
		if err := c.checkWorkload(where+".common_workload", rs.CommonWorkload); err != nil {
			return err
		}
		if len(rs.Experiments) < MinExperiments {
			return inputError(where+".experiments", "%d experiments; need at least %d to fit and cross-validate an M5 tree", len(rs.Experiments), MinExperiments)
		}
		common := false
		for k, e := range rs.Experiments {
			ew := fmt.Sprintf("%s.experiments[%d]", where, k)
			if err := c.checkWorkload(ew+".workload", e.Workload); err != nil {
				return err
			}
			if err := checkRuns(ew+".baseline", e.Baseline); err != nil {
				return err
			}
			if err := checkRuns(ew+".with_rule_set", e.WithRuleSet); err != nil {
				return err
			}
			if b := e.Boost(); !(b <= MaxBoost) {
				return inputError(ew, "with_rule_set is %.3g× baseline (boost %+.0f%%), more than %g×; are both in bytes/s?", b+1, 100*b, MaxBoost+1)
			} else if b+1 < 1/MaxSlowdown {
				return inputError(ew, "with_rule_set is %.3g× baseline (boost %+.4g%%), less than 1/%g; are both in bytes/s?", b+1, 100*b, MaxSlowdown)
			}
			common = common || equalWorkload(e.Workload, rs.CommonWorkload)
		}
		if !common {
			return inputError(where+".common_workload", "no experiment has this workload; include the common workload's own runs")
		}
		if _, n := c.workloadGroups(rs.Experiments); n < MinExperiments {
			return inputError(where+".experiments", "%d experiments but only %d distinct workloads (repeats of a workload count once); need at least %d to fit and cross-validate an M5 tree", len(rs.Experiments), n, MinExperiments)
		}
	}
	return nil
}

// workloadGroups numbers the distinct workloads of exps in order of first
// appearance: group[i] is experiment i's, n how many there are. Two
// experiments are repeats of one workload when their model inputs differ
// by run noise at most: the same written workload and, in a catalog that
// uses original_throughput, baseline means within two standard errors of
// their difference (the same request size and mix at another offered load
// is another workload; sameThroughput). Among equal written workloads,
// ordered by throughput, a group is every experiment within that bar of
// its lowest (its anchor), not a chain of neighbours: loads of 100, 104
// and 108 with a bar of 5.7 are two workloads, not one.
func (c *Catalog) workloadGroups(exps []Experiment) (group []int, n int) {
	written := slices.DeleteFunc(slices.Clone(c.Features), func(f string) bool { return f == OriginalThroughput })
	useThroughput := slices.Contains(c.Features, OriginalThroughput)
	rel := pooledRelStdErr(exps)
	var keys []string
	same := map[string][]int{}
	for i, e := range exps {
		var key strings.Builder
		for _, f := range written {
			fmt.Fprintf(&key, "%x,", math.Float64bits(e.Workload[f]+0)) // +0: −0 is 0
		}
		k := key.String()
		if _, ok := same[k]; !ok {
			keys = append(keys, k)
		}
		same[k] = append(same[k], i)
	}
	anchor := make([]int, len(exps)) // the experiment that anchors i's group
	for _, k := range keys {
		idx := same[k]
		if useThroughput {
			idx = slices.Clone(idx)
			slices.SortStableFunc(idx, func(i, j int) int { return cmp.Compare(mean(exps[i].Baseline), mean(exps[j].Baseline)) })
		}
		a := -1
		for _, i := range idx {
			if a < 0 || (useThroughput && !sameThroughput(exps[a], exps[i], rel)) {
				a = i
			}
			anchor[i] = a
		}
	}
	group = make([]int, len(exps))
	number := map[int]int{}
	for i := range exps {
		g, ok := number[anchor[i]]
		if !ok {
			g = len(number)
			number[anchor[i]] = g
		}
		group[i] = g
	}
	return group, len(number)
}

// pooledRelStdErr is the rule set's run noise on a baseline mean, relative
// to it: the root mean square of each experiment's standard error over its
// mean (experiments with a positive mean). sameThroughput takes it as each
// experiment's least standard error: two runs that happen to agree have a
// standard error of 0, and their next repeat would read as another workload.
func pooledRelStdErr(exps []Experiment) float64 {
	var ss float64
	var n int
	for _, e := range exps {
		if m := mean(e.Baseline); m > 0 {
			r := stdErr(e.Baseline) / m
			ss += r * r
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return math.Sqrt(ss / float64(n))
}

// sameThroughput reports whether the baseline means of a and b differ by
// no more than two standard errors of their difference, each standard
// error at least rel of its mean (pooledRelStdErr).
func sameThroughput(a, b Experiment, rel float64) bool {
	ma, mb := mean(a.Baseline), mean(b.Baseline)
	sa := math.Max(stdErr(a.Baseline), rel*math.Abs(ma))
	sb := math.Max(stdErr(b.Baseline), rel*math.Abs(mb))
	return math.Abs(ma-mb) <= 2*math.Hypot(sa, sb)
}

func checkFeatures(fs []string) error {
	if len(fs) == 0 {
		return inputError("features", "missing or empty; give a subset of %s", quoteList(KnownFeatures))
	}
	for i, f := range fs {
		if !slices.Contains(KnownFeatures, f) {
			return inputError(fmt.Sprintf("features[%d]", i), "unknown feature %q; known: %s", f, quoteList(KnownFeatures))
		}
		if j := slices.Index(fs, f); j < i {
			return inputError(fmt.Sprintf("features[%d]", i), "%q already listed at features[%d]", f, j)
		}
	}
	return nil
}

// checkWorkload checks that a catalog workload has exactly the catalog's
// features other than original_throughput (which the baseline runs give),
// each in its range.
func (c *Catalog) checkWorkload(where string, w Workload) error {
	if w == nil {
		return inputError(where, "missing")
	}
	for _, name := range sortedKeys(w) {
		if name == OriginalThroughput {
			return inputError(where+"."+name, "is the mean of the baseline runs; do not give it")
		}
		if !slices.Contains(c.Features, name) {
			return inputError(where+"."+name, "not in features %s", quoteList(c.Features))
		}
		if err := checkValue(where+"."+name, name, w[name]); err != nil {
			return err
		}
	}
	for _, name := range c.Features {
		if _, ok := w[name]; !ok && name != OriginalThroughput {
			return inputError(where+"."+name, "missing (features lists it)")
		}
	}
	return nil
}

func checkValue(where, name string, v float64) error {
	switch name {
	case RequestBytes, OriginalThroughput:
		if !check.Finite(v) || v <= 0 {
			return inputError(where, "must be a finite number > 0, got %v", v)
		}
	case SequentialShare, ReadShare:
		if !(v >= 0 && v <= 1) {
			return inputError(where, "must be in [0, 1], got %v", v)
		}
	}
	return nil
}

func checkRuns(where string, runs []float64) error {
	if runs == nil {
		return inputError(where, "missing")
	}
	if len(runs) < MinRuns {
		return inputError(where, "%d run(s); need at least %d to measure the run-to-run noise", len(runs), MinRuns)
	}
	for i, v := range runs {
		if !check.Finite(v) || v <= 0 {
			return inputError(fmt.Sprintf("%s[%d]", where, i), "must be a finite throughput > 0 (bytes/s), got %v", v)
		}
	}
	if m := mean(runs); !check.Finite(m) {
		return inputError(where, "mean overflows float64")
	}
	return nil
}

func equalWorkload(a, b Workload) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func sortedKeys(w Workload) []string {
	keys := make([]string, 0, len(w))
	for k := range w {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

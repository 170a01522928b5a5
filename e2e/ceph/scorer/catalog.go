package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat"
	"gopkg.in/yaml.v3"

	"github.com/storcast/storcast/forecaster/advisor"
	"github.com/storcast/storcast/forecaster/regress"
)

// Baseline is the rule-set name of a run without any rule set.
const Baseline = "baseline"

// CatalogRun is one line of the runs file catalog.sh writes: one fio run of a
// workload, without a rule set (RuleSet == Baseline) or with one.
type CatalogRun struct {
	Workload string  `json:"workload"`
	RuleSet  string  `json:"ruleSet"`
	Run      int     `json:"run"`
	BS       float64 `json:"bs"`  // request size of both jobs, bytes
	Fio      string  `json:"fio"` // path of the run's fio JSON
	Load1    float64 `json:"load1"`
	// Result is read from Fio by ReadCatalogRuns.
	Result FioResult `json:"-"`
}

// Throughput is the run's throughput in bytes/s, both directions.
func (r CatalogRun) Throughput() float64 { return r.Result.IOPS() * r.BS }

// ReadShare is the run's read bytes over all bytes (one request size: the
// read share of the ops).
func (r CatalogRun) ReadShare() float64 { return r.Result.ReadIOPS / r.Result.IOPS() }

// ReadCatalogRuns reads a runs file and each run's fio JSON.
func ReadCatalogRuns(path string) ([]CatalogRun, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []CatalogRun
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var r CatalogRun
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, n, err)
		}
		if r.Workload == "" || r.RuleSet == "" || !(r.BS > 0) {
			return nil, fmt.Errorf("%s:%d: need workload, ruleSet and bs > 0", path, n)
		}
		fio, err := os.ReadFile(r.Fio)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, n, err)
		}
		if r.Result, err = ParseFioStep(fio); err != nil {
			return nil, fmt.Errorf("%s:%d: %s: %v", path, n, r.Fio, err)
		}
		if !(r.Result.IOPS() > 0) {
			return nil, fmt.Errorf("%s:%d: %s: no IO completed", path, n, r.Fio)
		}
		out = append(out, r)
	}
	return out, sc.Err()
}

// RuleSetDef is one line of catalog/rulesets.txt: the Ceph settings that make
// the rule set, and what it does.
type RuleSetDef struct {
	Name, Settings, Description string
}

// ParseRuleSets reads rulesets.txt: "name KEY=VALUE[,KEY=VALUE] description",
// '#' comments.
func ParseRuleSets(data []byte) ([]RuleSetDef, error) {
	var out []RuleSetDef
	for n, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 3 || !strings.Contains(f[1], "=") {
			return nil, fmt.Errorf("rule sets line %d: want \"name KEY=VALUE[,KEY=VALUE] description\", got %q", n+1, line)
		}
		if f[0] == Baseline {
			return nil, fmt.Errorf("rule sets line %d: %q is the name of the runs without a rule set", n+1, Baseline)
		}
		out = append(out, RuleSetDef{Name: f[0], Settings: f[1], Description: strings.Join(f[2:], " ")})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no rule sets")
	}
	return out, nil
}

// measuredWorkload is what the runs of one workload measured.
type measuredWorkload struct {
	Name     string
	Features advisor.Workload // request_bytes and read_share (baseline runs)
	Baseline []float64        // bytes/s
	With     map[string][]float64
}

// catalogFeatures are the features the real-Ceph catalog measures: the
// sequential share is unknown on this cluster (memstore OSDs: no disk
// counters see the OSDs' IO), so it is left out, not estimated.
var catalogFeatures = []string{advisor.RequestBytes, advisor.ReadShare, advisor.OriginalThroughput}

// groupRuns collects the runs by workload, in order of first appearance.
// The read share is the mean over the baseline runs, rounded to 3 digits
// (the run-to-run spread is larger), the request size fio's block size.
func groupRuns(runs []CatalogRun) ([]*measuredWorkload, error) {
	var out []*measuredWorkload
	byName := map[string]*measuredWorkload{}
	shares := map[string][]float64{}
	for _, r := range runs {
		w := byName[r.Workload]
		if w == nil {
			w = &measuredWorkload{Name: r.Workload, Features: advisor.Workload{advisor.RequestBytes: r.BS}, With: map[string][]float64{}}
			byName[r.Workload] = w
			out = append(out, w)
		}
		if w.Features[advisor.RequestBytes] != r.BS {
			return nil, fmt.Errorf("workload %s: runs with request sizes %v and %v", r.Workload, w.Features[advisor.RequestBytes], r.BS)
		}
		// Throughputs to 4 significant digits: the runs differ in the second.
		tp := roundSig(r.Throughput(), 4)
		if r.RuleSet == Baseline {
			w.Baseline = append(w.Baseline, tp)
			shares[r.Workload] = append(shares[r.Workload], r.ReadShare())
		} else {
			w.With[r.RuleSet] = append(w.With[r.RuleSet], tp)
		}
	}
	for _, w := range out {
		if len(w.Baseline) == 0 {
			return nil, fmt.Errorf("workload %s: no baseline runs", w.Name)
		}
		w.Features[advisor.ReadShare] = math.Round(stat.Mean(shares[w.Name], nil)*1000) / 1000
	}
	return out, nil
}

// roundSig rounds x to digits significant digits through its decimal form,
// so that the YAML shows those digits and no binary residue.
func roundSig(x float64, digits int) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', digits, 64), 64)
	return v
}

// BuildCatalog turns the runs into the advisor's catalog: per rule set of
// defs, one experiment per workload measured with it, the workload named
// common as its common workload. The result is validated (advisor's rules).
func BuildCatalog(runs []CatalogRun, defs []RuleSetDef, common string) (*advisor.Catalog, error) {
	ws, err := groupRuns(runs)
	if err != nil {
		return nil, err
	}
	c := &advisor.Catalog{Features: catalogFeatures}
	var commonW *measuredWorkload
	for _, w := range ws {
		if w.Name == common {
			commonW = w
		}
	}
	if commonW == nil {
		return nil, fmt.Errorf("no runs of the common workload %q", common)
	}
	for _, d := range defs {
		rs := advisor.RuleSet{Name: d.Name, Description: d.Description + " (" + d.Settings + ")",
			CommonWorkload: commonW.Features}
		for _, w := range ws {
			with, ok := w.With[d.Name]
			if !ok {
				continue
			}
			rs.Experiments = append(rs.Experiments, advisor.Experiment{Workload: w.Features, Baseline: w.Baseline, WithRuleSet: with})
		}
		c.RuleSets = append(c.RuleSets, rs)
	}
	for _, w := range ws {
		for name := range w.With {
			if !hasRuleSet(defs, name) {
				return nil, fmt.Errorf("workload %s: runs with rule set %q, which the rule sets file does not define", w.Name, name)
			}
		}
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return c, nil
}

func hasRuleSet(defs []RuleSetDef, name string) bool {
	for _, d := range defs {
		if d.Name == name {
			return true
		}
	}
	return false
}

// MarshalCatalog writes the catalog as YAML (the advisor's own field names)
// and reads it back through advisor.LoadCatalog, so what is written is what
// storcast accepts.
func MarshalCatalog(c *advisor.Catalog, header string) ([]byte, error) {
	body, err := yaml.Marshal(c)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	for _, l := range strings.Split(strings.TrimRight(header, "\n"), "\n") {
		b.WriteString("# " + l + "\n")
	}
	b.Write(body)
	if _, err := advisor.LoadCatalog(b.Bytes()); err != nil {
		return nil, fmt.Errorf("the catalog written does not load back: %v", err)
	}
	return b.Bytes(), nil
}

// OfferedRates is the per-job rate cap (IOPS) of a derived workload whose
// offered throughput is fraction of what the reader and writer jobs reached
// in the baseline runs of workload: the mean read and write IOPS times
// fraction, at least 1.
func OfferedRates(runs []CatalogRun, workload string, fraction float64) (read, write int, err error) {
	if !(fraction > 0 && fraction < 1) {
		return 0, 0, fmt.Errorf("fraction must be in (0, 1), got %v", fraction)
	}
	var r, w []float64
	for _, run := range runs {
		if run.Workload == workload && run.RuleSet == Baseline {
			r = append(r, run.Result.ReadIOPS)
			w = append(w, run.Result.WriteIOPS)
		}
	}
	if len(r) == 0 {
		return 0, 0, fmt.Errorf("no baseline runs of workload %q yet", workload)
	}
	return max(1, int(math.Round(fraction*stat.Mean(r, nil)))), max(1, int(math.Round(fraction*stat.Mean(w, nil)))), nil
}

// LOOPoint is one rule set's boost on a held-out workload: measured (and
// its standard error from the runs) and predicted by the trees trained
// without that workload.
type LOOPoint struct {
	Workload  advisor.Workload // with original_throughput
	RuleSet   string
	Measured  float64
	StdErr    float64
	Predicted float64
	// Constant is the prediction of the reference: the rule set's mean
	// boost over the training experiments.
	Constant     float64
	Extrapolated bool
}

// LOOHit is one held-out workload's recommendation against the best
// measured rule set ("" = none: no measured boost is positive).
type LOOHit struct {
	Workload            advisor.Workload
	Recommended, Best   string
	ConstantRecommended string // the constant reference's pick
	// Measured boosts of the best, the recommended and the constant's pick
	// (0 for none).
	BestBoost, RecBoost, ConstantRecBoost float64
}

// LOOResult is the leave-one-out evaluation over the derived workloads.
type LOOResult struct {
	Points []LOOPoint
	Hits   []LOOHit
}

// experimentKey names an experiment's workload with its original throughput:
// derived workloads that differ only in offered throughput have the same
// workload features.
func experimentKey(e advisor.Experiment) string {
	return workloadKey(e.Workload) + fmt.Sprintf("%s=%v;", advisor.OriginalThroughput, e.OriginalThroughput())
}

func workloadKey(w advisor.Workload) string {
	keys := make([]string, 0, len(w))
	for k := range w {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s=%v;", k, w[k])
	}
	return b.String()
}

// LeaveOneOut holds out each derived workload in turn (every rule set's
// experiment on it), trains the advisor on the rest with advisor.Train and
// predicts the held-out workload, whose original throughput is the mean of
// its baseline runs as it would be measured live. The common workloads stay
// in training: they define the rule sets.
func LeaveOneOut(c *advisor.Catalog) (*LOOResult, error) {
	var order []string
	held := map[string]advisor.Workload{}
	for _, rs := range c.RuleSets {
		// The common workload's own experiment (the first with its
		// features) stays in training: it defines the rule set.
		common := -1
		for i, e := range rs.Experiments {
			if common < 0 && workloadKey(e.Workload) == workloadKey(rs.CommonWorkload) {
				common = i
				continue
			}
			k := experimentKey(e)
			if _, seen := held[k]; !seen {
				held[k] = e.Workload
				order = append(order, k)
			}
		}
	}
	res := &LOOResult{}
	for _, k := range order {
		train := &advisor.Catalog{Features: c.Features}
		type heldExp struct {
			rs  string
			e   advisor.Experiment
			con float64
		}
		var test []heldExp
		for _, rs := range c.RuleSets {
			t := rs
			t.Experiments = nil
			var sum float64
			var found *advisor.Experiment
			for i, e := range rs.Experiments {
				if experimentKey(e) == k {
					found = &rs.Experiments[i]
					continue
				}
				t.Experiments = append(t.Experiments, e)
				sum += e.Boost()
			}
			train.RuleSets = append(train.RuleSets, t)
			if found != nil {
				test = append(test, heldExp{rs.Name, *found, sum / float64(len(t.Experiments))})
			}
		}
		a, err := advisor.Train(train)
		if err != nil {
			return nil, fmt.Errorf("training without workload %s: %w", k, err)
		}
		w := advisor.Workload{advisor.OriginalThroughput: test[0].e.OriginalThroughput()}
		for f, v := range held[k] {
			w[f] = v
		}
		preds, err := a.Predict(w)
		if err != nil {
			return nil, fmt.Errorf("predicting workload %s: %w", k, err)
		}
		hit := LOOHit{Workload: w}
		var bestC float64
		for _, h := range test {
			for _, p := range preds {
				if p.RuleSet != h.rs {
					continue
				}
				res.Points = append(res.Points, LOOPoint{Workload: w, RuleSet: h.rs, Measured: h.e.Boost(),
					StdErr: h.e.BoostStdErr(), Predicted: p.Boost, Constant: h.con, Extrapolated: p.Extrapolated})
			}
			if b := h.e.Boost(); b > 0 && (hit.Best == "" || b > hit.BestBoost) {
				hit.Best, hit.BestBoost = h.rs, b
			}
			if h.con > 0 && (hit.ConstantRecommended == "" || h.con > bestC) {
				hit.ConstantRecommended, bestC = h.rs, h.con
			}
		}
		if rec, ok, err := a.Recommend(w); err != nil {
			return nil, err
		} else if ok {
			hit.Recommended = rec
		}
		for _, h := range test {
			if h.rs == hit.Recommended {
				hit.RecBoost = h.e.Boost()
			}
			if h.rs == hit.ConstantRecommended {
				hit.ConstantRecBoost = h.e.Boost()
			}
		}
		res.Hits = append(res.Hits, hit)
	}
	if len(res.Points) == 0 {
		return nil, fmt.Errorf("no derived workloads to hold out")
	}
	return res, nil
}

// LOOSummary holds the figures of a set of leave-one-out points: the
// trees' and the constant reference's errors, and the recommendation's.
type LOOSummary struct {
	N                          int
	Correlation, MAE           float64
	ConstantMAE                float64
	MeanStdErr                 float64
	HitRate, ConstantHitRate   float64
	Regret, ConstantRegret     float64 // mean measured boost lost against the best choice
	Hits, Workloads            int
	ConstantHits, Extrapolated int
}

// Summarize computes the figures over the points of ruleSet ("" = all) and
// over all hits.
func (r *LOOResult) Summarize(ruleSet string) LOOSummary {
	var s LOOSummary
	var pred, meas []float64
	for _, p := range r.Points {
		if ruleSet != "" && p.RuleSet != ruleSet {
			continue
		}
		pred = append(pred, p.Predicted)
		meas = append(meas, p.Measured)
		s.MAE += math.Abs(p.Predicted - p.Measured)
		s.ConstantMAE += math.Abs(p.Constant - p.Measured)
		s.MeanStdErr += p.StdErr
		if p.Extrapolated {
			s.Extrapolated++
		}
	}
	s.N = len(pred)
	if s.N == 0 {
		return s
	}
	s.MAE /= float64(s.N)
	s.ConstantMAE /= float64(s.N)
	s.MeanStdErr /= float64(s.N)
	// NaN when either side is constant (correlation undefined).
	s.Correlation = math.NaN()
	if c, err := regress.Correlation(meas, pred); err == nil {
		s.Correlation = c
	}
	for _, h := range r.Hits {
		s.Workloads++
		if h.Recommended == h.Best {
			s.Hits++
		}
		if h.ConstantRecommended == h.Best {
			s.ConstantHits++
		}
		s.Regret += h.BestBoost - h.RecBoost
		s.ConstantRegret += h.BestBoost - h.ConstantRecBoost
	}
	if s.Workloads > 0 {
		s.HitRate = float64(s.Hits) / float64(s.Workloads)
		s.ConstantHitRate = float64(s.ConstantHits) / float64(s.Workloads)
		s.Regret /= float64(s.Workloads)
		s.ConstantRegret /= float64(s.Workloads)
	}
	return s
}

// HeldBackResult is the CI check of one held-back workload: each rule set's
// boost predicted by the advisor trained on the committed catalog against
// the boost measured now.
type HeldBackResult struct {
	Workload advisor.Workload
	Rows     []HeldBackRow
	// Recommended and Best as in LOOHit ("" = none).
	Recommended, Best string
}

// HeldBackRow is one rule set of a HeldBackResult.
type HeldBackRow struct {
	RuleSet                     string
	Predicted, Measured, StdErr float64
	Runs                        int
	Extrapolated                bool
	// Failed says why the row fails the check, "" when it passes.
	Failed string
}

// HeldBackBounds: a prediction fails when it lies further outside the
// measured boost's ±2 standard errors than MaxError boost points or the
// measured boost itself, whichever is larger (the measurement is two 10 s
// runs each way on a shared host: on 2026-11-27 one rule set's boost came
// out +110% ± 42 where the runs before had measured +47..+71% ± 5-21; and
// an effect of +98% ± 1.5 that day, twice the catalog's, was 72 points
// from its prediction yet nearer to it than to no effect), or when its sign
// is wrong while the measured boost is clearly away from zero (|measured| >
// SignMargin).
type HeldBackBounds struct {
	MaxError, SignMargin float64
}

// CheckHeldBack predicts the held-back workload measured by runs (one
// workload, baseline and each rule set of a) and scores the predictions.
func CheckHeldBack(a *advisor.Advisor, runs []CatalogRun, b HeldBackBounds) (*HeldBackResult, error) {
	ws, err := groupRuns(runs)
	if err != nil {
		return nil, err
	}
	if len(ws) != 1 {
		return nil, fmt.Errorf("the held-back runs hold %d workloads, want 1", len(ws))
	}
	m := ws[0]
	if len(m.Baseline) < advisor.MinRuns {
		return nil, fmt.Errorf("workload %s: %d baseline runs, need %d", m.Name, len(m.Baseline), advisor.MinRuns)
	}
	w := advisor.Workload{advisor.OriginalThroughput: advisor.Experiment{Baseline: m.Baseline}.OriginalThroughput()}
	for k, v := range m.Features {
		w[k] = v
	}
	preds, err := a.Predict(w)
	if err != nil {
		return nil, err
	}
	res := &HeldBackResult{Workload: w}
	var best float64
	for _, p := range preds {
		with := m.With[p.RuleSet]
		if len(with) < advisor.MinRuns {
			return nil, fmt.Errorf("workload %s, rule set %s: %d runs, need %d", m.Name, p.RuleSet, len(with), advisor.MinRuns)
		}
		e := advisor.Experiment{Baseline: m.Baseline, WithRuleSet: with}
		row := HeldBackRow{RuleSet: p.RuleSet, Predicted: p.Boost, Measured: e.Boost(), StdErr: e.BoostStdErr(),
			Runs: len(with), Extrapolated: p.Extrapolated}
		if d, bound := row.beyondNoise(), math.Max(b.MaxError, math.Abs(row.Measured)); d > bound {
			row.Failed = fmt.Sprintf("off by %.1f points, %.1f beyond the measured boost's ±2 s.e. (bound %.0f)",
				100*math.Abs(row.Predicted-row.Measured), 100*d, 100*bound)
		} else if math.Abs(row.Measured) > b.SignMargin && row.Predicted*row.Measured < 0 {
			row.Failed = fmt.Sprintf("wrong sign (measured %+.1f%%, beyond ±%.0f points)", 100*row.Measured, 100*b.SignMargin)
		}
		res.Rows = append(res.Rows, row)
		if row.Measured > 0 && (res.Best == "" || row.Measured > best) {
			res.Best, best = p.RuleSet, row.Measured
		}
	}
	for name := range m.With {
		found := false
		for _, p := range preds {
			found = found || p.RuleSet == name
		}
		if !found {
			return nil, fmt.Errorf("workload %s: runs with rule set %q, which the catalog does not have", m.Name, name)
		}
	}
	if rec, ok, err := a.Recommend(w); err != nil {
		return nil, err
	} else if ok {
		res.Recommended = rec
	}
	return res, nil
}

// beyondNoise is how far the prediction lies outside the measured boost's
// ±2 standard errors (0 inside).
func (row HeldBackRow) beyondNoise() float64 {
	return math.Max(math.Abs(row.Predicted-row.Measured)-2*row.StdErr, 0)
}

// Failed lists the failing rows.
func (r *HeldBackResult) Failed() []string {
	var out []string
	for _, row := range r.Rows {
		if row.Failed != "" {
			out = append(out, row.RuleSet+": "+row.Failed)
		}
	}
	return out
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func fmtWorkload(w advisor.Workload) string {
	return fmt.Sprintf("%.0f KiB, %.0f%% reads, %.1f MB/s", w[advisor.RequestBytes]/1024, 100*w[advisor.ReadShare], w[advisor.OriginalThroughput]/1e6)
}

// Markdown renders the held-back check.
func (r *HeldBackResult) Markdown(b HeldBackBounds) string {
	var s strings.Builder
	fmt.Fprintf(&s, "Held-back workload: %s (measured now; not in the catalog).\n\n", fmtWorkload(r.Workload))
	s.WriteString("| rule set | runs | measured boost | ± s.e. | predicted | error (points) | beyond ±2 s.e. | check |\n|---|---|---|---|---|---|---|---|\n")
	for _, row := range r.Rows {
		verdict := "ok"
		if row.Failed != "" {
			verdict = "FAIL: " + row.Failed
		}
		ex := ""
		if row.Extrapolated {
			ex = " (extrapolated)"
		}
		fmt.Fprintf(&s, "| %s | %d | %+.1f%% | %.1f | %+.1f%%%s | %.1f | %.1f | %s |\n", row.RuleSet, row.Runs, 100*row.Measured,
			100*row.StdErr, 100*row.Predicted, ex, 100*math.Abs(row.Predicted-row.Measured), 100*row.beyondNoise(), verdict)
	}
	fmt.Fprintf(&s, "\nRecommended: %s; best measured: %s. Bounds: error beyond the measured boost's ±2 s.e. ≤ %.0f points or the measured boost, the larger; sign right when |measured| > %.0f points.\n",
		orNone(r.Recommended), orNone(r.Best), 100*b.MaxError, 100*b.SignMargin)
	return s.String()
}

// LOOMarkdown renders the leave-one-out figures.
func LOOMarkdown(c *advisor.Catalog, r *LOOResult) string {
	var s strings.Builder
	all := r.Summarize("")
	fmt.Fprintf(&s, "| held out | rule sets | points | correlation | MAE (points) | mean run s.e. (points) | constant's MAE | hit rate | constant's hit rate | regret (points) |\n|---|---|---|---|---|---|---|---|---|---|\n")
	fmt.Fprintf(&s, "| %d derived workloads, one at a time | all | %d | **%.2f** | **%.1f** | %.1f | %.1f | **%d/%d** | %d/%d | %.1f |\n",
		all.Workloads, all.N, all.Correlation, 100*all.MAE, 100*all.MeanStdErr, 100*all.ConstantMAE, all.Hits, all.Workloads, all.ConstantHits, all.Workloads, 100*all.Regret)
	for _, rs := range c.RuleSets {
		p := r.Summarize(rs.Name)
		fmt.Fprintf(&s, "| | %s | %d | %.2f | %.1f | %.1f | %.1f | | | |\n", rs.Name, p.N, p.Correlation, 100*p.MAE, 100*p.MeanStdErr, 100*p.ConstantMAE)
	}
	s.WriteString("\nPer held-out workload (boost measured ± its standard error / predicted):\n\n| workload |")
	for _, rs := range c.RuleSets {
		s.WriteString(" " + rs.Name + " |")
	}
	s.WriteString(" recommended | best measured |\n|---|")
	for range c.RuleSets {
		s.WriteString("---|")
	}
	s.WriteString("---|---|\n")
	for _, h := range r.Hits {
		fmt.Fprintf(&s, "| %s |", fmtWorkload(h.Workload))
		for _, rs := range c.RuleSets {
			cell := " — |"
			for _, p := range r.Points {
				if p.RuleSet == rs.Name && workloadKey(p.Workload) == workloadKey(h.Workload) {
					ex := ""
					if p.Extrapolated {
						ex = "*"
					}
					cell = fmt.Sprintf(" %+.1f ± %.1f / %+.1f%s |", 100*p.Measured, 100*p.StdErr, 100*p.Predicted, ex)
				}
			}
			s.WriteString(cell)
		}
		fmt.Fprintf(&s, " %s | %s |\n", orNone(h.Recommended), orNone(h.Best))
	}
	s.WriteString("\n(* extrapolated: the workload lies outside the training experiments' range.)\n")
	a, err := advisor.Train(c)
	if err != nil {
		fmt.Fprintf(&s, "\nThe whole catalog does not train: %v\n", err)
	} else {
		s.WriteString("\nThe advisor trained on the whole catalog (what storcast loads):\n\n| rule set | experiments | CV error (points) | folds | run noise (points) |\n|---|---|---|---|---|\n")
		for _, m := range a.RuleSets {
			fmt.Fprintf(&s, "| %s | %d | %.1f | %d | %.1f |\n", m.Name, m.Experiments, 100*m.CVError, m.CVFolds, 100*m.RunNoise)
		}
	}
	return s.String()
}

func runCatalog(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("catalog", flag.ContinueOnError)
	fs.SetOutput(stderr)
	runsPath := fs.String("runs", "", "runs file catalog.sh wrote (JSON lines)")
	defsPath := fs.String("rulesets", "", "rule sets file (catalog/rulesets.txt)")
	common := fs.String("common", "common", "name of the common workload")
	header := fs.String("header", "", "comment lines above the catalog")
	out := fs.String("out", "", "catalog YAML to write")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	fail := func(err error) int { fmt.Fprintln(stderr, "scorer catalog:", err); return 1 }
	runs, err := ReadCatalogRuns(*runsPath)
	if err != nil {
		return fail(err)
	}
	defsData, err := os.ReadFile(*defsPath)
	if err != nil {
		return fail(err)
	}
	defs, err := ParseRuleSets(defsData)
	if err != nil {
		return fail(err)
	}
	c, err := BuildCatalog(runs, defs, *common)
	if err != nil {
		return fail(err)
	}
	data, err := MarshalCatalog(c, *header)
	if err != nil {
		return fail(err)
	}
	if err := writeFileAtomic(*out, data); err != nil {
		return fail(err)
	}
	return 0
}

func runCatalogRate(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("catalog-rate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	runsPath := fs.String("runs", "", "runs file catalog.sh wrote (JSON lines)")
	workload := fs.String("workload", "common", "workload whose baseline runs set the rates")
	fraction := fs.Float64("fraction", 0, "fraction of the workload's baseline IOPS, in (0, 1)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	runs, err := ReadCatalogRuns(*runsPath)
	if err == nil {
		var r, w int
		if r, w, err = OfferedRates(runs, *workload, *fraction); err == nil {
			fmt.Fprintf(stdout, "%d %d\n", r, w)
			return 0
		}
	}
	fmt.Fprintln(stderr, "scorer catalog-rate:", err)
	return 1
}

func loadCatalogFile(path string) (*advisor.Catalog, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return advisor.LoadCatalog(data)
}

func runCatalogLOO(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("catalog-loo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	catPath := fs.String("catalog", "", "catalog YAML")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	c, err := loadCatalogFile(*catPath)
	if err == nil {
		var r *LOOResult
		if r, err = LeaveOneOut(c); err == nil {
			fmt.Fprint(stdout, LOOMarkdown(c, r))
			return 0
		}
	}
	fmt.Fprintln(stderr, "scorer catalog-loo:", err)
	return 1
}

func runCatalogCheck(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("catalog-check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	catPath := fs.String("catalog", "", "catalog YAML the advisor is trained on")
	runsPath := fs.String("runs", "", "runs of the held-back workload (JSON lines)")
	maxErr := fs.Float64("max-error", 0.75, "largest |predicted - measured| boost, as a fraction (0.75 = 75 points)")
	margin := fs.Float64("sign-margin", 0.15, "the sign must be right when |measured boost| exceeds this")
	out := fs.String("out", "", "markdown file to write (also printed)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	fail := func(err error) int { fmt.Fprintln(stderr, "scorer catalog-check:", err); return 1 }
	b := HeldBackBounds{MaxError: *maxErr, SignMargin: *margin}
	if !(b.MaxError > 0) || !(b.SignMargin >= 0) {
		return fail(fmt.Errorf("-max-error must be > 0 and -sign-margin >= 0"))
	}
	c, err := loadCatalogFile(*catPath)
	if err != nil {
		return fail(err)
	}
	a, err := advisor.Train(c)
	if err != nil {
		return fail(err)
	}
	runs, err := ReadCatalogRuns(*runsPath)
	if err != nil {
		return fail(err)
	}
	res, err := CheckHeldBack(a, runs, b)
	if err != nil {
		return fail(err)
	}
	md := res.Markdown(b)
	fmt.Fprint(stdout, md)
	if *out != "" {
		if err := writeFileAtomic(*out, []byte(md)); err != nil {
			return fail(err)
		}
	}
	if f := res.Failed(); len(f) > 0 {
		fmt.Fprintln(stderr, "scorer catalog-check: FAIL: "+strings.Join(f, "; "))
		return 1
	}
	return 0
}

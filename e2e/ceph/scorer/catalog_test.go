package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/storcast/storcast/forecaster/advisor"
)

// testdata/catalog-run-fio.json is one run of catalog.sh on this suite's
// cluster (fio 3.33, Ceph 16.2.15): the common workload's baseline, a 16 KiB
// random-read job and a random-write job at once.
func TestReadCatalogRunsAgainstFioBandwidth(t *testing.T) {
	dir := t.TempDir()
	fio, err := filepath.Abs("testdata/catalog-run-fio.json")
	if err != nil {
		t.Fatal(err)
	}
	runs := filepath.Join(dir, "runs.jsonl")
	line := fmt.Sprintf(`{"workload":"common","ruleSet":"baseline","run":1,"bs":16384,"fio":%q,"load1":2.5}`+"\n", fio)
	if err := os.WriteFile(runs, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadCatalogRuns(runs)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("%d runs, want 1", len(got))
	}
	// fio's own bandwidth (bw_bytes of the two jobs) is the independent
	// figure; IOPS x size differs from it only by fio's rounding of the
	// measured interval.
	const readBW, writeBW = 45522257.0, 19646472.0
	if e := math.Abs(got[0].Throughput()/(readBW+writeBW) - 1); e > 1e-3 {
		t.Errorf("throughput %.6g, fio's bandwidth %.6g (off by %.2g)", got[0].Throughput(), readBW+writeBW, e)
	}
	if e := math.Abs(got[0].ReadShare() - readBW/(readBW+writeBW)); e > 1e-3 {
		t.Errorf("read share %.4f, fio's bandwidth says %.4f", got[0].ReadShare(), readBW/(readBW+writeBW))
	}

	bad := strings.Replace(line, `"bs":16384`, `"bs":0`, 1)
	if err := os.WriteFile(runs, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadCatalogRuns(runs); err == nil || !strings.Contains(err.Error(), "bs > 0") {
		t.Errorf("bs 0: error %v, want one naming bs", err)
	}
}

func TestParseRuleSets(t *testing.T) {
	data, err := os.ReadFile("../catalog/rulesets.txt")
	if err != nil {
		t.Fatal(err)
	}
	defs, err := ParseRuleSets(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(defs) < 2 {
		t.Fatalf("%d rule sets in the committed file, want at least 2", len(defs))
	}
	for _, d := range defs {
		if !strings.HasPrefix(d.Settings, "rbd_qos_") || d.Description == "" {
			t.Errorf("rule set %+v: want librbd QoS settings and a description", d)
		}
	}
	for _, bad := range []string{"only-a-name\n", "x no-equals-sign description\n", "baseline k=v description\n", "# nothing\n"} {
		if _, err := ParseRuleSets([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// synthRuns builds runs whose throughputs follow a known boost per rule set:
// boost(rs, w) from truth, baseline IOPS base(w), two runs each way with a
// ±jitter around the means.
func synthRuns(workloads []synthWorkload, ruleSets []string, truth func(rs string, w synthWorkload) float64, jitter float64) []CatalogRun {
	var runs []CatalogRun
	for _, w := range workloads {
		for k, sign := range []float64{1, -1} {
			base := w.iops * (1 + sign*jitter)
			runs = append(runs, CatalogRun{Workload: w.name, RuleSet: Baseline, Run: k + 1, BS: w.bs,
				Result: FioResult{ReadIOPS: w.readShare * base, WriteIOPS: (1 - w.readShare) * base}})
			for _, rs := range ruleSets {
				with := w.iops * (1 + truth(rs, w)) * (1 - sign*jitter)
				runs = append(runs, CatalogRun{Workload: w.name, RuleSet: rs, Run: k + 1, BS: w.bs,
					Result: FioResult{ReadIOPS: w.readShare * with, WriteIOPS: (1 - w.readShare) * with}})
			}
		}
	}
	return runs
}

type synthWorkload struct {
	name          string
	bs, readShare float64
	iops          float64
}

// synthCatalogWorkloads: a common workload and derived ones changing one
// feature at a time, as catalog/workloads.txt does (the rate-limited ones
// differ from the common one only in throughput).
func synthCatalogWorkloads() []synthWorkload {
	ws := []synthWorkload{{"common", 16384, 0.7, 4000}}
	for i, bs := range []float64{4096, 8192, 32768, 65536, 262144} {
		ws = append(ws, synthWorkload{fmt.Sprintf("bs-%d", i), bs, 0.7, 4000 * math.Sqrt(16384/bs)})
	}
	for i, r := range []float64{0, 0.25, 0.5, 0.9, 1} {
		ws = append(ws, synthWorkload{fmt.Sprintf("read-%d", i), 16384, r, 4000})
	}
	for i, f := range []float64{0.25, 0.5, 0.75} {
		ws = append(ws, synthWorkload{fmt.Sprintf("rate-%d", i), 16384, 0.7, 4000 * f})
	}
	return ws
}

// The planted effect: "reads-first" boosts with the read share (a write cap
// handing the OSDs to the reads), "small-cap" hurts small requests.
func plantedBoost(rs string, w synthWorkload) float64 {
	switch rs {
	case "reads-first":
		return 0.8*w.readShare - 0.3
	default:
		return -0.05 * math.Log2(262144/w.bs)
	}
}

var synthDefs = []RuleSetDef{
	{Name: "reads-first", Settings: "rbd_qos_write_iops_limit=500", Description: "cap writes"},
	{Name: "small-cap", Settings: "rbd_qos_iops_limit=2000", Description: "cap ops"},
}

func TestBuildCatalogKeepsEveryRunAndRoundTrips(t *testing.T) {
	ws := synthCatalogWorkloads()
	runs := synthRuns(ws, []string{"reads-first", "small-cap"}, plantedBoost, 0.02)
	c, err := BuildCatalog(runs, synthDefs, "common")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.RuleSets) != 2 || len(c.RuleSets[0].Experiments) != len(ws) {
		t.Fatalf("%d rule sets, %d experiments; want 2 and %d", len(c.RuleSets), len(c.RuleSets[0].Experiments), len(ws))
	}
	if c.RuleSets[0].Description != "cap writes (rbd_qos_write_iops_limit=500)" {
		t.Errorf("description %q", c.RuleSets[0].Description)
	}
	for i, rs := range c.RuleSets {
		for k, e := range rs.Experiments {
			w := ws[k]
			// The ±2% jitter cancels in the means (one run up, one down);
			// 4-digit rounding leaves at most 1e-3.
			if want := plantedBoost(rs.Name, w); math.Abs(e.Boost()-want) > 2e-3 {
				t.Errorf("rule_sets[%d].experiments[%d]: boost %.4f, planted %.4f", i, k, e.Boost(), want)
			}
			if e.Workload[advisor.ReadShare] != w.readShare || e.Workload[advisor.RequestBytes] != w.bs {
				t.Errorf("experiment %d workload %v, want read share %v, size %v", k, e.Workload, w.readShare, w.bs)
			}
			if got, want := e.OriginalThroughput(), w.iops*w.bs; math.Abs(got/want-1) > 1e-3 {
				t.Errorf("experiment %d: mean baseline %.5g bytes/s, want %.5g", k, got, want)
			}
		}
	}
	if _, ok := c.RuleSets[0].CommonWorkload[advisor.SequentialShare]; ok {
		t.Error("the catalog has a sequential share, which this cluster cannot measure")
	}
	data, err := MarshalCatalog(c, "a header\nof two lines")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(data), "# a header\n# of two lines\n") {
		t.Errorf("header not written as comments: %.60q", data)
	}
	back, err := advisor.LoadCatalog(data)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(back) != fmt.Sprint(c) {
		t.Errorf("catalog changed through YAML:\n%v\n%v", back, c)
	}

	// A rule set without its common workload's runs, runs of an unknown rule
	// set, and too few workloads are errors.
	if _, err := BuildCatalog(runs, synthDefs, "nope"); err == nil {
		t.Error("missing common workload: no error")
	}
	if _, err := BuildCatalog(runs, synthDefs[:1], "common"); err == nil || !strings.Contains(err.Error(), "small-cap") {
		t.Errorf("runs of an undefined rule set: error %v", err)
	}
	if _, err := BuildCatalog(synthRuns(ws[:5], []string{"reads-first", "small-cap"}, plantedBoost, 0.02), synthDefs, "common"); err == nil || !strings.Contains(err.Error(), "need at least") {
		t.Errorf("5 workloads: error %v, want the advisor's too-few-experiments error", err)
	}
}

func TestOfferedRates(t *testing.T) {
	runs := synthRuns(synthCatalogWorkloads(), []string{"reads-first"}, plantedBoost, 0.1)
	r, w, err := OfferedRates(runs, "common", 0.5)
	if err != nil {
		t.Fatal(err)
	}
	// Mean of the two baseline runs (4400 and 3600 IOPS) at 70% reads, halved.
	if r != 1400 || w != 600 {
		t.Errorf("rates %d/%d, want 1400/600", r, w)
	}
	if _, _, err := OfferedRates(runs, "common", 1); err == nil {
		t.Error("fraction 1: no error")
	}
	if _, _, err := OfferedRates(runs, "nope", 0.5); err == nil {
		t.Error("unknown workload: no error")
	}
}

// constantBoost plants boosts M5 represents exactly whatever the design:
// reads-first +30% and small-cap -15% on every workload. The trees' quality
// on a one-feature-at-a-time design is what the real catalog measures; these
// tests check the hold-out and the scoring.
func constantBoost(rs string, _ synthWorkload) float64 {
	if rs == "reads-first" {
		return 0.3
	}
	return -0.15
}

func TestLeaveOneOutHoldsOutEachDerivedWorkload(t *testing.T) {
	ws := synthCatalogWorkloads()
	// One derived workload (read share 0.25) gets an outlier boost: its own
	// prediction must come from the others (held out), not from itself.
	outlier := func(rs string, w synthWorkload) float64 {
		if rs == "reads-first" && w.name == "read-1" {
			return 3
		}
		return constantBoost(rs, w)
	}
	c, err := BuildCatalog(synthRuns(ws, []string{"reads-first", "small-cap"}, outlier, 0.02), synthDefs, "common")
	if err != nil {
		t.Fatal(err)
	}
	r, err := LeaveOneOut(c)
	if err != nil {
		t.Fatal(err)
	}
	s := r.Summarize("")
	// Every derived workload held out once (the rate-limited ones too,
	// though their features other than throughput equal the common one's),
	// for both rule sets.
	if s.Workloads != len(ws)-1 || s.N != 2*(len(ws)-1) {
		t.Fatalf("%d workloads, %d points held out; want %d and %d", s.Workloads, s.N, len(ws)-1, 2*(len(ws)-1))
	}
	seen := 0
	for _, p := range r.Points {
		if p.RuleSet == "reads-first" && p.Workload[advisor.ReadShare] == 0.25 {
			seen++
			if math.Abs(p.Measured-3) > 2e-3 || math.Abs(p.Predicted-0.3) > 0.01 || math.Abs(p.Constant-0.3) > 0.01 {
				t.Errorf("outlier held out: measured %.3f (want 3), predicted %.3f and constant %.3f (want 0.3: trained without it)", p.Measured, p.Predicted, p.Constant)
			}
		}
		if p.RuleSet == "small-cap" && math.Abs(p.Predicted+0.15) > 0.01 {
			t.Errorf("small-cap at %v: predicted %.3f, planted -0.15 everywhere", p.Workload, p.Predicted)
		}
	}
	if seen != 1 {
		t.Errorf("the outlier workload held out %d times, want 1", seen)
	}
	// reads-first is the best rule set everywhere and predicted so.
	if s.HitRate != 1 || s.Regret > 1e-9 {
		t.Errorf("hit rate %.2f, regret %.3g; want 1 and 0", s.HitRate, s.Regret)
	}
	// small-cap's effect is the same everywhere: every held-out
	// prediction exact, the correlation undefined (constant predictions).
	if sc := r.Summarize("small-cap"); sc.MAE > 0.005 || sc.N != len(ws)-1 {
		t.Errorf("small-cap: MAE %.4f over %d points, want ~0 over %d", sc.MAE, sc.N, len(ws)-1)
	}
	md := LOOMarkdown(c, r)
	if !strings.Contains(md, "| reads-first |") || !strings.Contains(md, fmt.Sprintf("%d/%d", s.Hits, s.Workloads)) {
		t.Errorf("markdown lacks the rule set or the hit rate:\n%s", md)
	}

	// When no rule set helps, the right answer is none.
	hurts := func(string, synthWorkload) float64 { return -0.1 }
	c, err = BuildCatalog(synthRuns(ws, []string{"reads-first", "small-cap"}, hurts, 0.02), synthDefs, "common")
	if err != nil {
		t.Fatal(err)
	}
	if r, err = LeaveOneOut(c); err != nil {
		t.Fatal(err)
	}
	for _, h := range r.Hits {
		if h.Recommended != "" || h.Best != "" {
			t.Errorf("every boost negative: recommended %q, best %q; want none", h.Recommended, h.Best)
		}
	}
}

func TestCheckHeldBack(t *testing.T) {
	ws := synthCatalogWorkloads()
	c, err := BuildCatalog(synthRuns(ws, []string{"reads-first", "small-cap"}, constantBoost, 0.02), synthDefs, "common")
	if err != nil {
		t.Fatal(err)
	}
	a, err := advisor.Train(c)
	if err != nil {
		t.Fatal(err)
	}
	held := []synthWorkload{{"held-32k", 32768, 0.7, 3000}}
	b := HeldBackBounds{MaxError: 0.15, SignMargin: 0.1}

	res, err := CheckHeldBack(a, synthRuns(held, []string{"reads-first", "small-cap"}, constantBoost, 0.05), b)
	if err != nil {
		t.Fatal(err)
	}
	if f := res.Failed(); len(f) > 0 {
		t.Errorf("the planted truth fails: %v\n%s", f, res.Markdown(b))
	}
	if res.Recommended != "reads-first" || res.Best != "reads-first" {
		t.Errorf("recommended %q, best %q; want reads-first for both", res.Recommended, res.Best)
	}
	for _, row := range res.Rows {
		if want := constantBoost(row.RuleSet, held[0]); math.Abs(row.Measured-want) > 2e-3 || row.Runs != 2 || !(row.StdErr > 0) {
			t.Errorf("%s: measured %.4f over %d runs (s.e. %.3g), planted %.2f over 2", row.RuleSet, row.Measured, row.Runs, row.StdErr, want)
		}
	}

	// The measured effect inverted: reads-first now hurts by 30 points.
	inverted := func(rs string, w synthWorkload) float64 {
		if rs == "reads-first" {
			return -0.3
		}
		return constantBoost(rs, w)
	}
	res, err = CheckHeldBack(a, synthRuns(held, []string{"reads-first", "small-cap"}, inverted, 0.02), b)
	if err != nil {
		t.Fatal(err)
	}
	// 60 points off, the measurement's s.e. 0.7 × 0.02 × √2 = 2 points; the
	// bound is the measured boost's 30 points, above 15.
	if f := res.Failed(); len(f) != 1 || !strings.HasPrefix(f[0], "reads-first: off by 60.0 points, 56.0 beyond the measured boost's ±2 s.e. (bound 30)") {
		t.Errorf("inverted effect: failures %v, want reads-first off by 60 points, 56 beyond the noise", f)
	}
	// The same 60 points measured with runs 10% apart either way (s.e.
	// 0.7 × 0.1 × √2 = 9.9 points) still fail; 30% apart (s.e. 29.7
	// points) the measurement cannot tell a 60-point error from noise.
	// The sign is left out of these two (margin 1).
	noSign := HeldBackBounds{MaxError: 0.15, SignMargin: 1}
	for _, c := range []struct {
		jitter float64
		want   string
	}{{0.1, "reads-first: off by 60.0 points, 40.2 beyond the measured boost's ±2 s.e. (bound 30)"}, {0.3, ""}} {
		res, err = CheckHeldBack(a, synthRuns(held, []string{"reads-first", "small-cap"}, inverted, c.jitter), noSign)
		if err != nil {
			t.Fatal(err)
		}
		if f := strings.Join(res.Failed(), "; "); f != c.want {
			t.Errorf("inverted effect, runs ±%.0f%%: failures %q, want %q\n%s", 100*c.jitter, f, c.want, res.Markdown(noSign))
		}
	}
	// An effect larger than the catalog's: +100% measured against +30%
	// predicted is 70 points off, beyond the 15-point floor but nearer the
	// measurement than no effect is, and passes; +10% measured is 20 points
	// off, beyond both the floor and the effect, and fails.
	for _, c := range []struct {
		boost float64
		want  string
	}{{1, ""}, {0.1, "reads-first: off by 20.0 points, 19.7 beyond the measured boost's ±2 s.e. (bound 15)"}} {
		measured := func(rs string, w synthWorkload) float64 {
			if rs == "reads-first" {
				return c.boost
			}
			return constantBoost(rs, w)
		}
		res, err = CheckHeldBack(a, synthRuns(held, []string{"reads-first", "small-cap"}, measured, 0.001), b)
		if err != nil {
			t.Fatal(err)
		}
		if f := strings.Join(res.Failed(), "; "); f != c.want {
			t.Errorf("reads-first measured %+.0f%%: failures %q, want %q\n%s", 100*c.boost, f, c.want, res.Markdown(b))
		}
	}
	// Wrong sign within the error bound.
	wide := HeldBackBounds{MaxError: 1, SignMargin: 0.1}
	res, err = CheckHeldBack(a, synthRuns(held, []string{"reads-first", "small-cap"}, inverted, 0.02), wide)
	if err != nil {
		t.Fatal(err)
	}
	if f := res.Failed(); len(f) != 1 || !strings.Contains(f[0], "wrong sign") {
		t.Errorf("inverted effect, wide bound: failures %v, want a wrong sign", f)
	}
	if md := res.Markdown(wide); !strings.Contains(md, "FAIL: wrong sign") {
		t.Errorf("markdown does not show the failure:\n%s", md)
	}
	// A measured boost inside the sign margin may have either sign.
	small := func(rs string, w synthWorkload) float64 {
		if rs == "reads-first" {
			return -0.05
		}
		return constantBoost(rs, w)
	}
	res, err = CheckHeldBack(a, synthRuns(held, []string{"reads-first", "small-cap"}, small, 0.02), wide)
	if err != nil {
		t.Fatal(err)
	}
	if f := res.Failed(); len(f) > 0 {
		t.Errorf("-5%% measured, +30%% predicted, margin 10 points, error bound 100: failures %v", f)
	}

	// A rule set of the catalog without runs, and two workloads at once,
	// are errors, not passes.
	if _, err := CheckHeldBack(a, synthRuns(held, []string{"reads-first"}, constantBoost, 0.02), b); err == nil || !strings.Contains(err.Error(), "small-cap") {
		t.Errorf("missing rule set runs: error %v", err)
	}
	two := append(synthRuns(held, []string{"reads-first", "small-cap"}, constantBoost, 0.02), synthRuns(ws[:1], []string{"reads-first", "small-cap"}, constantBoost, 0.02)...)
	if _, err := CheckHeldBack(a, two, b); err == nil {
		t.Error("two workloads: no error")
	}
}

// The committed catalog loads, trains and has the features this cluster
// measures.
func TestCommittedCephCatalog(t *testing.T) {
	data, err := os.ReadFile("../catalog/ceph-catalog.yml")
	if err != nil {
		t.Fatal(err)
	}
	c, err := advisor.LoadCatalog(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range c.Features {
		if f == advisor.SequentialShare {
			t.Error("the committed catalog uses the sequential share, which memstore OSDs do not let node_exporter measure")
		}
	}
	if _, err := advisor.Train(c); err != nil {
		t.Fatal(err)
	}
	if _, err := LeaveOneOut(c); err != nil {
		t.Fatal(err)
	}
}

// The catalog-check command end to end on the committed catalog: runs whose
// boosts are the advisor's own predictions pass, the same runs with every
// boost's sign flipped fail, and the markdown is written either way.
func TestCatalogCheckCommand(t *testing.T) {
	const catalog = "../catalog/ceph-catalog.yml"
	c, err := loadCatalogFile(catalog)
	if err != nil {
		t.Fatal(err)
	}
	a, err := advisor.Train(c)
	if err != nil {
		t.Fatal(err)
	}
	// 32 KiB at 70% reads, 150 MB/s: the held-back workload's neighbourhood.
	const bs, readShare, iops = 32768.0, 0.7, 150e6 / 32768
	preds, err := a.Predict(advisor.Workload{advisor.RequestBytes: bs, advisor.ReadShare: readShare, advisor.OriginalThroughput: iops * bs})
	if err != nil {
		t.Fatal(err)
	}
	for _, flip := range []float64{1, -1} {
		dir := t.TempDir()
		var lines []string
		write := func(rs string, k int, total float64) {
			path := filepath.Join(dir, fmt.Sprintf("%s-%d.json", rs, k))
			fio := fmt.Sprintf(`{"jobs":[{"jobname":"read","read":{"iops":%g,"lat_ns":{"mean":1e6}},"write":{"iops":0}},`+
				`{"jobname":"write","read":{"iops":0},"write":{"iops":%g,"lat_ns":{"mean":1e6}}}]}`, readShare*total, (1-readShare)*total)
			if err := os.WriteFile(path, []byte(fio), 0o644); err != nil {
				t.Fatal(err)
			}
			lines = append(lines, fmt.Sprintf(`{"workload":"held-32k","ruleSet":%q,"run":%d,"bs":%g,"fio":%q,"load1":1}`, rs, k, bs, path))
		}
		for k, j := range []float64{0.97, 1.03} {
			write(Baseline, k+1, iops*j)
			for _, p := range preds {
				write(p.RuleSet, k+1, iops*(1+flip*p.Boost)*(2-j))
			}
		}
		runs := filepath.Join(dir, "runs.jsonl")
		if err := os.WriteFile(runs, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "check.md")
		var stdout, stderr strings.Builder
		code := run([]string{"catalog-check", "-catalog", catalog, "-runs", runs, "-out", out}, &stdout, &stderr)
		md, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(md), "Held-back workload: 32 KiB, 70% reads") {
			t.Errorf("flip %v: markdown:\n%s", flip, md)
		}
		var wantFail bool
		for _, p := range preds {
			// A flipped boost fails the sign check when it is beyond the
			// default margin (15 points).
			wantFail = wantFail || (flip < 0 && math.Abs(p.Boost) > 0.15)
		}
		if (code != 0) != wantFail {
			t.Errorf("flip %v: exit %d, want failure %v; stderr %s\n%s", flip, code, wantFail, stderr.String(), md)
		}
		if flip < 0 && !wantFail {
			t.Fatalf("no prediction of the committed catalog is beyond 15 points here: %+v", preds)
		}
	}
}

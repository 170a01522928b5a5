package advisor

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// exactCatalog builds a catalog whose runs are noise-free and whose boost
// is an exact function of the features, so the fit can be checked against
// a known truth.
func exactCatalog(features []string, boost func(Workload) float64, ws []Workload) *Catalog {
	rs := RuleSet{Name: "exact", CommonWorkload: ws[0]}
	for _, w := range ws {
		base := 1e8 * (1 + w[ReadShare]) // original throughput varies with the read share
		with := base * (1 + boost(w))
		rs.Experiments = append(rs.Experiments, Experiment{Workload: w, Baseline: []float64{base, base}, WithRuleSet: []float64{with, with}})
	}
	return &Catalog{Features: features, RuleSets: []RuleSet{rs}}
}

// A boost linear in log2 request size is what the tree's root model
// represents exactly (M5 then prunes every split away; the read share,
// which does not matter, is never tested): the advisor must recover it
// anywhere inside the experiments, with a cross-validated error near zero.
// Linear in log size, not in bytes: this checks the input transform too.
func TestTrainRecoversLinearBoost(t *testing.T) {
	truth := func(w Workload) float64 { return 0.02 * (math.Log2(w[RequestBytes]) - 16) }
	var ws []Workload
	for L := 12; L <= 24; L += 2 {
		for _, r := range []float64{0, 0.2, 0.4, 0.6, 0.8, 1} {
			ws = append(ws, Workload{RequestBytes: math.Exp2(float64(L)), ReadShare: r})
		}
	}
	a, err := Train(exactCatalog([]string{RequestBytes, ReadShare}, truth, ws))
	if err != nil {
		t.Fatal(err)
	}
	m := a.RuleSets[0]
	if m.Experiments != len(ws) || m.CVFolds != 10 || m.RunNoise != 0 || m.Tree.NumLeaves() != 1 {
		t.Errorf("experiments %d, folds %d, run noise %v, leaves %d", m.Experiments, m.CVFolds, m.RunNoise, m.Tree.NumLeaves())
	}
	if m.CVError > 1e-9 {
		t.Errorf("cross-validated error %v on an exact linear boost", m.CVError)
	}
	for _, w := range []Workload{{RequestBytes: 3 << 20, ReadShare: 0.3}, {RequestBytes: 100e3, ReadShare: 0.9}, {RequestBytes: 1 << 13, ReadShare: 0.1}} {
		p, err := a.Predict(w)
		if err != nil {
			t.Fatal(err)
		}
		if d := math.Abs(p[0].Boost - truth(w)); d > 1e-9 {
			t.Errorf("%v: boost %v, truth %v", w, p[0].Boost, truth(w))
		}
		if p[0].Extrapolated {
			t.Errorf("%v: inside the experiments, flagged extrapolated", w)
		}
	}
	p, _ := a.Predict(Workload{RequestBytes: 1 << 30, ReadShare: 0.3})
	if !p[0].Extrapolated {
		t.Error("1 GiB requests are outside 4 KiB..16 MiB, not flagged extrapolated")
	}
}

// A step in the read share at 0.5 (Lu saw rule sets switch from helping to
// hurting across a read-write ratio): the tree splits there and both
// sides are exact.
func TestTrainRecoversStep(t *testing.T) {
	truth := func(w Workload) float64 {
		if w[ReadShare] < 0.5 {
			return 0.08
		}
		return -0.04
	}
	var ws []Workload
	for k := range 20 {
		ws = append(ws, Workload{ReadShare: float64(k) / 19})
	}
	a, err := Train(exactCatalog([]string{ReadShare}, truth, ws))
	if err != nil {
		t.Fatal(err)
	}
	root := a.RuleSets[0].Tree.Nodes[0]
	if root.IsLeaf() || math.Abs(root.Threshold-0.5) > 0.03 {
		t.Errorf("root %+v, want a split near read share 0.5", root)
	}
	for _, r := range []float64{0.1, 0.45, 0.55, 0.97} {
		p, _ := a.Predict(Workload{ReadShare: r})
		if math.Abs(p[0].Boost-truth(Workload{ReadShare: r})) > 1e-9 {
			t.Errorf("read share %v: boost %v", r, p[0].Boost)
		}
	}
}

func TestTrainTestCatalog(t *testing.T) {
	a, err := Train(loadTestCatalog(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range a.RuleSets {
		if m.CVFolds != min(10, m.Experiments/2) || !(m.CVError > 0) || !(m.RunNoise > 0) || m.Tree.P != 4 {
			t.Errorf("%s: %+v", m.Name, m)
		}
	}
	// On the training experiments the trees do no worse than the rule set's
	// mean boost; with 12 experiments qos-cap's tree splits and does better,
	// with 10 read-window's is the mean itself (M5 keeps 4 per leaf).
	c := loadTestCatalog(t)
	for i, rs := range c.RuleSets {
		var mae, constMAE, meanBoost float64
		for _, e := range rs.Experiments {
			meanBoost += e.Boost() / float64(len(rs.Experiments))
		}
		for _, e := range rs.Experiments {
			constMAE += math.Abs(meanBoost-e.Boost()) / float64(len(rs.Experiments))
			w := Workload{OriginalThroughput: mean(e.Baseline)}
			for k, v := range e.Workload {
				w[k] = v
			}
			p, err := a.Predict(w)
			if err != nil {
				t.Fatal(err)
			}
			mae += math.Abs(p[i].Boost-e.Boost()) / float64(len(rs.Experiments))
		}
		t.Logf("%s: training MAE %.4f, mean boost's %.4f, CV error %.4f", rs.Name, mae, constMAE, a.RuleSets[i].CVError)
		if mae > constMAE+1e-12 || i == 0 && mae > 0.75*constMAE {
			t.Errorf("%s: training MAE %v, mean boost's %v", rs.Name, mae, constMAE)
		}
	}
}

func TestRecommend(t *testing.T) {
	flat := func(v float64) func(Workload) float64 { return func(Workload) float64 { return v } }
	var ws []Workload
	for k := range 12 {
		ws = append(ws, Workload{ReadShare: float64(k) / 11})
	}
	train := func(boosts ...float64) *Advisor {
		c := &Catalog{Features: []string{ReadShare}}
		for i, b := range boosts {
			rs := exactCatalog(c.Features, flat(b), ws).RuleSets[0]
			rs.Name = string(rune('a' + i))
			c.RuleSets = append(c.RuleSets, rs)
		}
		a, err := Train(c)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	w := Workload{ReadShare: 0.5}
	for _, tc := range []struct {
		boosts []float64
		want   string
		ok     bool
	}{
		{[]float64{0.02, 0.08, 0.05}, "b", true},
		{[]float64{-0.02, -0.01}, "", false}, // every boost negative: no rule set
		{[]float64{0, -0.01}, "", false},     // no boost is not a reason to apply one
		{[]float64{0.03, 0.03}, "a", true},   // a tie goes to the earlier rule set
	} {
		got, ok, err := train(tc.boosts...).Recommend(w)
		if err != nil || got != tc.want || ok != tc.ok {
			t.Errorf("boosts %v: %q, %v, %v; want %q, %v", tc.boosts, got, ok, err, tc.want, tc.ok)
		}
	}
}

// scatter is n fixed deviations with mean 0 and mean absolute value mad:
// boosts that no feature explains.
func scatter(n int, mad float64) []float64 {
	rng := rand.New(rand.NewPCG(7, 7))
	d := make([]float64, n)
	var m, a float64
	for i := range d {
		d[i] = rng.NormFloat64()
		m += d[i] / float64(n)
	}
	for i := range d {
		d[i] -= m
		a += math.Abs(d[i]) / float64(n)
	}
	for i := range d {
		d[i] *= mad / a
	}
	return d
}

// noisyFlat is a rule set whose boost is level plus scatter(mad) over 20
// read shares from lo to hi, with noise-free runs: the tree can learn
// nothing but the level, and its CV error is about mad.
func noisyFlat(name string, level, mad, lo, hi float64) RuleSet {
	const n = 20
	d := scatter(n, mad)
	rs := RuleSet{Name: name}
	for k := range n {
		w := Workload{ReadShare: lo + (hi-lo)*float64(k)/(n-1)}
		with := 1e8 * (1 + level + d[k])
		rs.Experiments = append(rs.Experiments, Experiment{Workload: w, Baseline: []float64{1e8, 1e8}, WithRuleSet: []float64{with, with}})
	}
	rs.CommonWorkload = rs.Experiments[0].Workload
	return rs
}

// A predicted boost inside the rule set's own uncertainty is no reason to
// apply it: +0.4% and −0.2% with 3 points of CV error recommend nothing,
// and the answer says why.
func TestAdviseNeedsBoostAboveUncertainty(t *testing.T) {
	a, err := Train(&Catalog{Features: []string{ReadShare}, RuleSets: []RuleSet{
		noisyFlat("a", 0.004, 0.03, 0, 1), noisyFlat("b", -0.002, 0.03, 0, 1)}})
	if err != nil {
		t.Fatal(err)
	}
	adv, err := a.Advise(Workload{ReadShare: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range adv.Predictions {
		t.Logf("%s: boost %+.4f, CV error %.4f, run noise %v, margin %.4f", p.RuleSet, p.Boost, p.CVError, p.RunNoise, p.Margin())
		if !(p.CVError > 0.02 && p.CVError < 0.05) {
			t.Errorf("%s: CV error %v, want about 0.03", p.RuleSet, p.CVError)
		}
	}
	if adv.Predictions[0].Boost <= 0 {
		t.Fatalf("a: predicted boost %v, want its positive level", adv.Predictions[0].Boost)
	}
	if adv.RuleSet != "" || !strings.HasPrefix(adv.Reason, "no rule set's predicted boost exceeds its uncertainty (the larger of its CV error and its run noise): a +0.") {
		t.Errorf("recommended %q, reason %q; want none, saying why", adv.RuleSet, adv.Reason)
	}
	if name, ok, err := a.Recommend(Workload{ReadShare: 0.5}); name != "" || ok || err != nil {
		t.Errorf("Recommend: %q %v %v", name, ok, err)
	}
}

// An extrapolated prediction beats an in-range one only by more than its
// own margin: its tree is extended beyond the experiments its CV error
// was measured on.
func TestAdvisePrefersInRange(t *testing.T) {
	w := Workload{ReadShare: 0.2} // outside "far"'s read shares 0.5..1
	for _, tc := range []struct {
		far        float64
		want       string
		reasonPart string
	}{
		{0.10, "near", "far's +10.0% is extrapolated (the workload is outside its experiments) and exceeds near's +8.0% by less than its uncertainty 3.2 points"},
		{0.15, "far", ""},
	} {
		a, err := Train(&Catalog{Features: []string{ReadShare}, RuleSets: []RuleSet{
			noisyFlat("near", 0.08, 0.03, 0, 1), noisyFlat("far", tc.far, 0.03, 0.5, 1)}})
		if err != nil {
			t.Fatal(err)
		}
		adv, err := a.Advise(w)
		if err != nil {
			t.Fatal(err)
		}
		if !adv.Predictions[1].Extrapolated || adv.Predictions[0].Extrapolated {
			t.Fatalf("%+v", adv.Predictions)
		}
		if adv.RuleSet != tc.want || adv.Reason != tc.reasonPart {
			t.Errorf("far at %v (predictions %+v): recommended %q, reason %q; want %q, %q", tc.far, adv.Predictions, adv.RuleSet, adv.Reason, tc.want, tc.reasonPart)
		}
	}
}

// Each extrapolated candidate is judged against the in-range one by its own
// margin: the highest extrapolated boost may have the widest margin while
// another, a little lower and sure, clears it (only the highest was
// compared before, and the in-range one was recommended).
func TestRecommendJudgesEachExtrapolatedByItsMargin(t *testing.T) {
	for _, tc := range []struct {
		name        string
		preds       []Prediction
		want, cause string
	}{
		{"a sure extrapolated one behind a wide one", []Prediction{
			{RuleSet: "r", Boost: 0.10, CVError: 0.02},
			{RuleSet: "e1", Boost: 0.30, CVError: 0.25, Extrapolated: true},
			{RuleSet: "e2", Boost: 0.28, CVError: 0.01, Extrapolated: true}}, "e2", ""},
		{"no extrapolated one clears its margin over the in-range one", []Prediction{
			{RuleSet: "r", Boost: 0.10, CVError: 0.02},
			{RuleSet: "e1", Boost: 0.30, CVError: 0.25, Extrapolated: true},
			{RuleSet: "e2", Boost: 0.105, CVError: 0.01, Extrapolated: true}}, "r", "e1's +30.0% is extrapolated"},
		{"the run noise as the margin", []Prediction{
			{RuleSet: "r", Boost: 0.10, CVError: 0.02},
			{RuleSet: "e", Boost: 0.20, CVError: 0.01, RunNoise: 0.12, Extrapolated: true}}, "r", "e's +20.0% is extrapolated"},
	} {
		got, reason := recommend(tc.preds)
		if got != tc.want || !strings.HasPrefix(reason, tc.cause) || (tc.cause == "") != (reason == "") {
			t.Errorf("%s: recommended %q, reason %q; want %q, a reason starting %q", tc.name, got, reason, tc.want, tc.cause)
		}
	}
}

// Repeats of one workload are not new workloads: ten copies do not make a
// catalog, and no repeat of a held-out workload is trained on.
func TestRepeatedWorkloads(t *testing.T) {
	base := noisyFlat("r", 0.05, 0.03, 0, 1)
	copies := base
	copies.Experiments = nil
	for range 11 {
		copies.Experiments = append(copies.Experiments, base.Experiments[3])
	}
	copies.CommonWorkload = base.Experiments[3].Workload
	err := (&Catalog{Features: []string{ReadShare}, RuleSets: []RuleSet{copies}}).Validate()
	want := "invalid input: rule_sets[0] (r).experiments: 11 experiments but only 1 distinct workloads (repeats of a workload count once); need at least 10 to fit and cross-validate an M5 tree"
	if err == nil || err.Error() != want || !errors.Is(err, ErrInput) {
		t.Errorf("11 copies of one workload:\n got %v\nwant %s", err, want)
	}

	// 12 workloads whose boosts no feature explains, each measured 4 times
	// (the same runs): a held-out copy with its twins in training would be
	// predicted from them, and the CV error would read far below the
	// constant's although the tree has learnt nothing.
	rs := noisyFlat("r", 0.05, 0.03, 0, 1)
	rs.Experiments = rs.Experiments[:12]
	var exps []Experiment
	for range 4 {
		exps = append(exps, rs.Experiments...)
	}
	rs.Experiments = exps
	a, err := Train(&Catalog{Features: []string{ReadShare}, RuleSets: []RuleSet{rs}})
	if err != nil {
		t.Fatal(err)
	}
	m := a.RuleSets[0]
	t.Logf("CV error %.4f, constant's %.4f, folds %d", m.CVError, m.ConstantCVError, m.CVFolds)
	if m.Experiments != 48 || m.Workloads != 12 || m.CVFolds != 6 {
		t.Errorf("experiments %d, workloads %d, folds %d; want 48, 12, min(10, 12/2)", m.Experiments, m.Workloads, m.CVFolds)
	}
	if m.CVError < 0.8*m.ConstantCVError {
		t.Errorf("CV error %v, under 0.8 × the constant's %v on unlearnable boosts: repeats leaked across folds", m.CVError, m.ConstantCVError)
	}
}

func TestWorkloadFoldsKeepRepeatsTogether(t *testing.T) {
	c := loadTestCatalog(t)
	exps := c.RuleSets[0].Experiments
	exps = append(exps, exps[0], exps[5], exps[5], exps[11]) // repeats
	group, n := c.workloadGroups(exps)
	if n != 12 || group[12] != group[0] || group[13] != group[5] || group[14] != group[5] || group[15] != group[11] {
		t.Fatalf("%d workloads, groups %v", n, group)
	}
	folds, err := workloadFolds(group, n, min(10, n/2))
	if err != nil {
		t.Fatal(err)
	}
	tested := map[int]int{}
	for f, fold := range folds {
		inTrain := map[int]bool{}
		for _, i := range fold.Train {
			inTrain[group[i]] = true
		}
		for _, i := range fold.Test {
			tested[i]++
			if inTrain[group[i]] {
				t.Errorf("fold %d: experiment %d is held out while a repeat of its workload is trained on", f, i)
			}
		}
		if len(fold.Train)+len(fold.Test) != len(exps) {
			t.Errorf("fold %d: %d + %d experiments of %d", f, len(fold.Train), len(fold.Test), len(exps))
		}
	}
	for i := range exps {
		if tested[i] != 1 {
			t.Errorf("experiment %d held out %d times", i, tested[i])
		}
	}
	// −0 and 0 are the same share.
	zero := []Experiment{{Workload: Workload{ReadShare: 0}}, {Workload: Workload{ReadShare: math.Copysign(0, -1)}}}
	if _, n := (&Catalog{Features: []string{ReadShare}}).workloadGroups(zero); n != 1 {
		t.Errorf("0 and −0: %d workloads", n)
	}
	// The same read share at another offered load is another workload when
	// the models take the original throughput, and a repeat when the
	// throughputs differ by run noise only or the models do not take it.
	loads := []Experiment{
		{Workload: Workload{ReadShare: 0.5}, Baseline: []float64{1e8, 1.02e8}},
		{Workload: Workload{ReadShare: 0.5}, Baseline: []float64{1.01e8, 0.99e8}}, // 1% apart, s.e. 1% each
		{Workload: Workload{ReadShare: 0.5}, Baseline: []float64{0.5e8, 0.51e8}},  // half the load
	}
	for _, tc := range []struct {
		features []string
		want     []int
	}{
		{[]string{ReadShare, OriginalThroughput}, []int{0, 0, 1}},
		{[]string{OriginalThroughput}, []int{0, 0, 1}},
		{[]string{ReadShare}, []int{0, 0, 0}},
	} {
		if group, _ := (&Catalog{Features: tc.features}).workloadGroups(loads); !slices.Equal(group, tc.want) {
			t.Errorf("features %v: groups %v, want %v", tc.features, group, tc.want)
		}
	}
	tp := &Catalog{Features: []string{ReadShare, OriginalThroughput}}
	// Two runs that happen to agree have a standard error of 0: their
	// repeat 0.3% away is still a repeat, at the rule set's pooled noise
	// (here 1% s.e. on another workload's runs), not another workload.
	agreeing := []Experiment{
		{Workload: Workload{ReadShare: 0.5}, Baseline: []float64{3.90e8, 3.90e8}},
		{Workload: Workload{ReadShare: 0.5}, Baseline: []float64{3.91e8, 3.91e8}},
		{Workload: Workload{ReadShare: 0.9}, Baseline: []float64{1e8, 1.02e8}},
	}
	if group, _ := tp.workloadGroups(agreeing); !slices.Equal(group, []int{0, 0, 1}) {
		t.Errorf("repeats whose own runs agree: groups %v, want [0 0 1]", group)
	}
	// A load sweep in steps under the bar is not chained into one workload:
	// 100 and 104 are within 2·hypot(2, 2) = 5.7 of each other, 104 and
	// 108 too, 100 and 108 not.
	sweep := []Experiment{
		{Workload: Workload{ReadShare: 0.5}, Baseline: []float64{98, 102}},
		{Workload: Workload{ReadShare: 0.5}, Baseline: []float64{102, 106}},
		{Workload: Workload{ReadShare: 0.5}, Baseline: []float64{106, 110}},
	}
	if group, _ := tp.workloadGroups(sweep); !slices.Equal(group, []int{0, 0, 1}) {
		t.Errorf("a sweep of loads 100, 104, 108 (bar 5.7): groups %v, want [0 0 1]", group)
	}
}

// Accuracy scores the tree against the rule set's mean boost: 0 for boosts
// that are noise around a constant, 1 for a boost the features explain.
func TestAccuracy(t *testing.T) {
	a, err := Train(&Catalog{Features: []string{ReadShare}, RuleSets: []RuleSet{noisyFlat("noise", 0.05, 0.03, 0, 1)}})
	if err != nil {
		t.Fatal(err)
	}
	if m := a.RuleSets[0]; m.Accuracy() > 0.1 {
		t.Errorf("noise around a constant: accuracy %v (CV error %v, constant's %v), want near 0", m.Accuracy(), m.CVError, m.ConstantCVError)
	}
	var ws []Workload
	for k := range 20 {
		ws = append(ws, Workload{ReadShare: float64(k) / 19})
	}
	a, err = Train(exactCatalog([]string{ReadShare}, func(w Workload) float64 { return 0.1 - 0.2*w[ReadShare] }, ws))
	if err != nil {
		t.Fatal(err)
	}
	if m := a.RuleSets[0]; m.Accuracy() < 0.99 || !(m.ConstantCVError > 0.04) {
		t.Errorf("linear boost: accuracy %v (CV error %v, constant's %v), want near 1", m.Accuracy(), m.CVError, m.ConstantCVError)
	}
	for _, tc := range []struct {
		cv, constant, want float64
	}{{0, 0, 1}, {0.01, 0, 0}, {0.02, 0.01, 0}, {0.01, 0.04, 0.75}, {3e-17, 1e-17, 1}} {
		if got := (RuleSetModel{CVError: tc.cv, ConstantCVError: tc.constant}).Accuracy(); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("CV error %v, constant's %v: accuracy %v, want %v", tc.cv, tc.constant, got, tc.want)
		}
	}
	// A rule set whose boost never varies, trained: the constant's error is
	// rounding (a mean of equal boosts), and so is the tree's; no score to
	// read in their ratio.
	flat, err := Train(&Catalog{Features: []string{ReadShare}, RuleSets: []RuleSet{noisyFlat("flat", 0.07, 0, 0, 1)}})
	if err != nil {
		t.Fatal(err)
	}
	if m := flat.RuleSets[0]; m.Accuracy() != 1 {
		t.Errorf("a flat boost: accuracy %v (CV error %v, constant's %v), want 1", m.Accuracy(), m.CVError, m.ConstantCVError)
	}
}

// What the live source cannot measure is left out of the catalog, and a
// workload missing a feature the advisor needs is an error, never a guess.
func TestPredictInput(t *testing.T) {
	a, err := Train(loadTestCatalog(t))
	if err != nil {
		t.Fatal(err)
	}
	good := Workload{RequestBytes: 1 << 20, SequentialShare: 1, ReadShare: 0.5, OriginalThroughput: 3e8}
	if _, err := a.Predict(good); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		w    Workload
		want string
	}{
		{Workload{RequestBytes: 1 << 20, ReadShare: 0.5, OriginalThroughput: 3e8},
			`invalid input: workload.sequential_share: missing; the advisor's models need ["request_bytes", "sequential_share", "read_share", "original_throughput"]`},
		{Workload{RequestBytes: 1 << 20, SequentialShare: 1, ReadShare: 0.5, OriginalThroughput: 3e8, "queue_depth": 4},
			`invalid input: workload.queue_depth: unknown feature; known: ["request_bytes", "sequential_share", "read_share", "original_throughput"]`},
		{Workload{RequestBytes: 1 << 20, SequentialShare: 1, ReadShare: math.NaN(), OriginalThroughput: 3e8},
			`invalid input: workload.read_share: must be in [0, 1], got NaN`},
		{Workload{RequestBytes: 1 << 20, SequentialShare: 1, ReadShare: 0.5, OriginalThroughput: -1},
			`invalid input: workload.original_throughput: must be a finite number > 0, got -1`},
		{nil, `invalid input: workload.request_bytes: missing; the advisor's models need ["request_bytes", "sequential_share", "read_share", "original_throughput"]`},
	} {
		_, err := a.Predict(tc.w)
		if err == nil || err.Error() != tc.want || !errors.Is(err, ErrInput) {
			t.Errorf("%v:\n got %v\nwant %s", tc.w, err, tc.want)
		}
	}
	var untrained *Advisor
	if _, err := untrained.Predict(good); err == nil || !strings.Contains(err.Error(), "not trained") {
		t.Errorf("nil advisor: %v", err)
	}

	// A Ceph-style catalog without sequentiality: the same workload with the
	// share it cannot measure omitted is accepted, and extra known features
	// are ignored.
	c := loadTestCatalog(t)
	c.Features = []string{RequestBytes, ReadShare, OriginalThroughput}
	for i := range c.RuleSets {
		delete(c.RuleSets[i].CommonWorkload, SequentialShare)
		for k := range c.RuleSets[i].Experiments {
			delete(c.RuleSets[i].Experiments[k].Workload, SequentialShare)
		}
	}
	// Dropping a feature can merge experiments; the common workload must
	// still be found among them. Merged, they are repeats of one workload:
	// read-window's 16 experiments hold 9 workloads then, one too few, so
	// one more is measured.
	more := c.RuleSets[1].Experiments[0]
	more.Workload = Workload{RequestBytes: 1 << 21, ReadShare: 0.9}
	c.RuleSets[1].Experiments = append(c.RuleSets[1].Experiments, more)
	ceph, err := Train(c)
	if err != nil {
		t.Fatal(err)
	}
	p1, err := ceph.Predict(Workload{RequestBytes: 1 << 20, ReadShare: 0.5, OriginalThroughput: 3e8})
	if err != nil {
		t.Fatal(err)
	}
	p2, err := ceph.Predict(good)
	if err != nil || p1[0] != p2[0] || p1[1] != p2[1] {
		t.Errorf("extra known feature changed the prediction: %v %v (%v)", p1, p2, err)
	}
}

func TestAdvisorJSON(t *testing.T) {
	a, err := Train(loadTestCatalog(t))
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	var back Advisor
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	w := Workload{RequestBytes: 3 << 20, SequentialShare: 0.7, ReadShare: 0.4, OriginalThroughput: 2.5e8}
	p1, _ := a.Predict(w)
	p2, err := back.Predict(w)
	if err != nil {
		t.Fatal(err)
	}
	for i := range p1 {
		if p1[i] != p2[i] {
			t.Errorf("after a JSON round trip: %+v, want %+v", p2[i], p1[i])
		}
	}
	// A damaged cache is an error, not a panic in Predict.
	for name, damage := range map[string]func(*Advisor){
		"child out of range": func(a *Advisor) {
			for i := range a.RuleSets[0].Tree.Nodes {
				if a.RuleSets[0].Tree.Nodes[i].Left >= 0 {
					a.RuleSets[0].Tree.Nodes[i].Left = 99
					return
				}
			}
			a.RuleSets[0].Tree.Nodes = nil
		},
		"cycle":           func(a *Advisor) { a.RuleSets[0].Tree.Nodes[0].Left, a.RuleSets[0].Tree.Nodes[0].Right = 0, 0 },
		"feature count":   func(a *Advisor) { a.Features = a.Features[:3] },
		"unknown feature": func(a *Advisor) { a.Features[0] = "iops" },
		"missing tree":    func(a *Advisor) { a.RuleSets[1].Tree = nil },
		"model term range": func(a *Advisor) {
			a.RuleSets[0].Tree.Nodes[0].Model.Features = []int{7}
			a.RuleSets[0].Tree.Nodes[0].Model.Coef = []float64{1}
		},
		"no rule sets":      func(a *Advisor) { a.RuleSets = nil },
		"negative cv error": func(a *Advisor) { a.RuleSets[0].CVError = -1 },
		"min/max length":    func(a *Advisor) { a.RuleSets[0].Min = nil },
		"one child":         func(a *Advisor) { a.RuleSets[0].Tree.Nodes[len(a.RuleSets[0].Tree.Nodes)-1].Left = 1 },
		"coef without term": func(a *Advisor) {
			a.RuleSets[0].Tree.Nodes[0].Model.Coef = append(a.RuleSets[0].Tree.Nodes[0].Model.Coef, 1)
		},
		"rule set name":      func(a *Advisor) { a.RuleSets[0].Name = "" },
		"tree inputs":        func(a *Advisor) { a.RuleSets[0].Tree.P = 2 },
		"negative smoothing": func(a *Advisor) { a.RuleSets[0].Tree.Smoothing, a.RuleSets[0].Tree.SmoothingK = true, -1 },
	} {
		var d Advisor
		if err := json.Unmarshal(data, &d); err != nil {
			t.Fatal(err)
		}
		damage(&d)
		bad, _ := json.Marshal(struct {
			Features []string       `json:"features"`
			RuleSets []RuleSetModel `json:"ruleSets"`
		}{d.Features, d.RuleSets})
		var got Advisor
		if err := json.Unmarshal(bad, &got); err == nil {
			t.Errorf("%s: decoded without error", name)
		}
	}
	// What the served series and Advise rely on, each refused by name.
	for _, tc := range []struct {
		damage func(*Advisor)
		want   string
	}{
		// Two series with the same labels would fail the scrape.
		{func(a *Advisor) { a.RuleSets[1].Name = "qos-cap" }, "invalid input: ruleSets[1] (qos-cap).name: already used by ruleSets[0]"},
		{func(a *Advisor) { a.RuleSets[0].Min[2] = 2 }, "invalid input: ruleSets[0] (qos-cap).min/max[2]: need finite min <= max, got min 2, max 0.9"},
		{func(a *Advisor) { a.RuleSets[1].RunNoise = -0.01 }, "invalid input: ruleSets[1] (read-window).runNoise: must be a finite number >= 0, got -0.01"},
		{func(a *Advisor) { a.RuleSets[0].ConstantCVError = -1 }, "invalid input: ruleSets[0] (qos-cap).constantCVError: must be a finite number >= 0, got -1"},
		{func(a *Advisor) { a.RuleSets[0].CVFolds = -3 }, "invalid input: ruleSets[0] (qos-cap).cvFolds: -3 folds; a cross-validation needs at least 2"},
		{func(a *Advisor) { a.RuleSets[0].Workloads = 13 }, "invalid input: ruleSets[0] (qos-cap): 12 experiments of 13 workloads; need at least 1 experiment and no more workloads than experiments"},
	} {
		var d Advisor
		if err := json.Unmarshal(data, &d); err != nil {
			t.Fatal(err)
		}
		tc.damage(&d)
		bad, _ := json.Marshal(struct {
			Features []string       `json:"features"`
			RuleSets []RuleSetModel `json:"ruleSets"`
		}{d.Features, d.RuleSets})
		var got Advisor
		if err := json.Unmarshal(bad, &got); err == nil || err.Error() != tc.want || !errors.Is(err, ErrInput) {
			t.Errorf("got %v\nwant %s", err, tc.want)
		}
	}
}

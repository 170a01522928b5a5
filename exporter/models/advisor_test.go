package models

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/storcast/storcast/exporter/config"
	"github.com/storcast/storcast/exporter/features"
	"github.com/storcast/storcast/forecaster/advisor"
)

// advisorCatalog writes a catalog of two rule sets over 20 read shares to
// a file: "linear", whose boost the read share explains, and "noise",
// whose boost is 5% plus a scatter of 3 points that nothing explains. The
// baseline throughput grows with the read share.
func advisorCatalog(t *testing.T, features []string) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(3, 3))
	c := advisor.Catalog{Features: features}
	for _, name := range []string{"linear", "noise"} {
		rs := advisor.RuleSet{Name: name}
		for k := range 20 {
			r := float64(k) / 19
			base := 1e8 * (1 + r)
			boost := 0.1 - 0.2*r
			if name == "noise" {
				boost = 0.05 + 0.0375*rng.NormFloat64()
			}
			with := base * (1 + boost)
			rs.Experiments = append(rs.Experiments, advisor.Experiment{Workload: advisor.Workload{advisor.ReadShare: r},
				Baseline: []float64{base, base}, WithRuleSet: []float64{with, with}})
		}
		rs.CommonWorkload = rs.Experiments[0].Workload
		c.RuleSets = append(c.RuleSets, rs)
	}
	data, err := yaml.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "catalog.yml")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

func fitAdvisor(t *testing.T, adv config.Advisor) (*AdvisorFit, error) {
	t.Helper()
	f, err := AdvisorFitter{}.Fit(context.Background(), Input{Cluster: &config.Cluster{Name: "a", Advisor: adv}})
	if err != nil {
		return nil, err
	}
	return f.(*AdvisorFit), nil
}

// The accuracy is relative to predicting each rule set's mean boost: a
// tree that learns nothing reads near 0 (1 − CV error read 0.97), one
// that learns the boost near 1.
func TestAdvisorScoresAgainstTheMeanBoost(t *testing.T) {
	m, err := fitAdvisor(t, config.Advisor{CatalogFile: advisorCatalog(t, []string{advisor.ReadShare})})
	if err != nil {
		t.Fatal(err)
	}
	s := m.Scores()
	t.Logf("scores %v", s)
	for _, rs := range m.A.RuleSets {
		t.Logf("%s: CV error %.4f, constant's %.4f", rs.Name, rs.CVError, rs.ConstantCVError)
	}
	if !(s["noise"] < 0.1) || !(s["linear"] > 0.99) {
		t.Errorf("scores %v; want noise near 0, linear near 1", s)
	}
}

// advisor.active_rule_set: the measured throughput is then the boosted
// one, so a catalog whose models take the original throughput gives no
// prediction (saying why), and one without it predicts as usual.
func TestAdvisorActiveRuleSet(t *testing.T) {
	obs := features.Observed{ReadIOPS: 100, WriteIOPS: 300, ReadSizeBytes: 1 << 20, WriteSizeBytes: 1 << 20}
	withThroughput := advisorCatalog(t, []string{advisor.ReadShare, advisor.OriginalThroughput})

	m, err := fitAdvisor(t, config.Advisor{CatalogFile: withThroughput})
	if err != nil {
		t.Fatal(err)
	}
	if rs := m.predictRuleSets(obs); rs.Err != "" || len(rs.Predictions) != 2 || rs.Active != "" {
		t.Fatalf("no rule set applied: %+v", rs)
	}

	m, err = fitAdvisor(t, config.Advisor{CatalogFile: withThroughput, ActiveRuleSet: "linear"})
	if err != nil {
		t.Fatal(err)
	}
	rs := m.predictRuleSets(obs)
	want := `rule set "linear" is applied (advisor.active_rule_set), so the original throughput the catalog's models take is not measured; remove the rule set, or use a catalog without original_throughput`
	if rs.Err != want || rs.Predictions != nil || rs.Recommended != "" || rs.Active != "linear" {
		t.Errorf("rule set applied, catalog with the original throughput: %+v\nwant error %s", rs, want)
	}
	// A restored fit predicts as it was configured.
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	back, err := AdvisorFitter{}.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if got := back.(*AdvisorFit).predictRuleSets(obs); got.Err != want {
		t.Errorf("restored: %+v", got)
	}

	// Without the original throughput, the applied rule set changes
	// nothing the models read: the same predictions as without it.
	withoutThroughput := advisorCatalog(t, []string{advisor.ReadShare})
	off, err := fitAdvisor(t, config.Advisor{CatalogFile: withoutThroughput})
	if err != nil {
		t.Fatal(err)
	}
	on, err := fitAdvisor(t, config.Advisor{CatalogFile: withoutThroughput, ActiveRuleSet: "linear"})
	if err != nil {
		t.Fatal(err)
	}
	a, b := off.predictRuleSets(obs), on.predictRuleSets(obs)
	if b.Err != "" || len(b.Predictions) != 2 || b.Active != "linear" || b.Predictions[0] != a.Predictions[0] || b.Recommended != a.Recommended {
		t.Errorf("catalog without the original throughput: %+v, without the rule set %+v", b, a)
	}
	// Read share 0.25: linear's boost is 0.1 − 0.2·0.25 = +5%.
	if math.Abs(b.Predictions[0].Boost-0.05) > 1e-9 || b.Recommended == "" {
		t.Errorf("predictions %+v, recommended %q; want linear at +5%%, and a recommendation", b.Predictions, b.Recommended)
	}

	// A rule set the catalog does not have is an error of the fit and of a
	// restored state.
	if _, err := fitAdvisor(t, config.Advisor{CatalogFile: withoutThroughput, ActiveRuleSet: "lineal"}); err == nil ||
		err.Error() != `advisor.active_rule_set: "lineal" is not a rule set of `+withoutThroughput {
		t.Errorf("unknown active rule set: %v", err)
	}
	bad := strings.Replace(string(data), `"activeRuleSet":"linear"`, `"activeRuleSet":"lineal"`, 1)
	if _, err := (AdvisorFitter{}).Decode([]byte(bad)); err == nil || err.Error() != `advisor: saved activeRuleSet: "lineal" is not a rule set` {
		t.Errorf("restored with an unknown active rule set: %v", err)
	}
}

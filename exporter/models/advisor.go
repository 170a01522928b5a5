package models

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/storcast/storcast/exporter/config"
	"github.com/storcast/storcast/exporter/features"
	"github.com/storcast/storcast/forecaster/advisor"
)

// Advisor is the name of the traffic-control rule-set advisor.
const Advisor = "advisor"

// AdvisorFitter trains the rule-set advisor (forecaster/advisor: one M5
// model tree per rule set, from the experiments of the cluster's catalog
// file) for clusters that name a catalog. It learns from the catalog, not
// from the history; the live predictions are the models' Live. The fit
// keeps the cluster's advisor.active_rule_set, so that a restored fit
// predicts as it was configured.
type AdvisorFitter struct{}

var _ Fitter = AdvisorFitter{}

func (AdvisorFitter) Name() string { return Advisor }

// Enabled: only for clusters with a catalog.
func (AdvisorFitter) Enabled(cl *config.Cluster) bool { return cl.Advisor.CatalogFile != "" }

// Fit implements Fitter.
func (AdvisorFitter) Fit(_ context.Context, in Input) (Fitted, error) {
	cat, err := in.Cluster.Advisor.Load()
	if err != nil {
		return nil, err
	}
	a, err := advisor.Train(cat)
	if err != nil {
		return nil, err
	}
	m := &AdvisorFit{A: a, ActiveRuleSet: in.Cluster.Advisor.ActiveRuleSet}
	if err := m.checkActive(); err != nil {
		return nil, fmt.Errorf("advisor.active_rule_set: %v of %s", err, in.Cluster.Advisor.CatalogFile)
	}
	return m, nil
}

// Decode implements Fitter: the trained advisor, cached in the state.
func (AdvisorFitter) Decode(data []byte) (Fitted, error) {
	var m AdvisorFit
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	if m.A == nil {
		return nil, errors.New("advisor: saved state has no advisor")
	}
	if err := m.checkActive(); err != nil {
		return nil, fmt.Errorf("advisor: saved activeRuleSet: %v", err)
	}
	return &m, nil
}

// AdvisorFit is a trained advisor.
type AdvisorFit struct {
	A *advisor.Advisor `json:"advisor"`
	// ActiveRuleSet is the rule set applied on the cluster
	// (advisor.active_rule_set), "" for none.
	ActiveRuleSet string `json:"activeRuleSet,omitempty"`
}

// checkActive checks that ActiveRuleSet, when set, is one of the
// advisor's rule sets.
func (m *AdvisorFit) checkActive() error {
	if m.ActiveRuleSet == "" || slices.ContainsFunc(m.A.RuleSets, func(rs advisor.RuleSetModel) bool { return rs.Name == m.ActiveRuleSet }) {
		return nil
	}
	return fmt.Errorf("%q is not a rule set", m.ActiveRuleSet)
}

// Samples is the number of experiments it learned from.
func (m *AdvisorFit) Samples() int {
	n := 0
	for _, rs := range m.A.RuleSets {
		n += rs.Experiments
	}
	return n
}

// Scores is each rule set's cross-validated accuracy against its mean
// boost (advisor.RuleSetModel.Accuracy): 1 − CV error / the constant's CV
// error, clamped to [0, 1]. 1 − CV error would read 0.97 for a tree no
// better than the constant, as boosts are a few points.
func (m *AdvisorFit) Scores() map[string]float64 {
	out := map[string]float64{}
	for _, rs := range m.A.RuleSets {
		out[rs.Name] = rs.Accuracy()
	}
	return finiteScores(out)
}

// RuleSets is the advisor's answer for the latest observation.
type RuleSets struct {
	// Predictions hold each rule set's boost, CV error and run noise (the
	// collector serves each).
	Predictions []advisor.Prediction
	// Recommended is the rule set advisor.Advise recommends: the highest
	// predicted boost above its uncertainty, in range preferred; "" for
	// none.
	Recommended string
	// Reason says why none is recommended, or why a higher extrapolated
	// prediction was passed over.
	Reason string
	// Active is the rule set applied now (advisor.active_rule_set), "" for
	// none.
	Active string
	// Err says why there is no answer (no traffic, a feature the catalog
	// uses that the source does not measure, the original throughput
	// while a rule set is applied).
	Err string
}

// predictRuleSets asks the advisor about the observed workload.
func (m *AdvisorFit) predictRuleSets(o features.Observed) RuleSets {
	r := advisor.Rates{
		ReadOps: o.ReadIOPS, WriteOps: o.WriteIOPS,
		ReadBytes: o.ReadIOPS * o.ReadSizeBytes, WriteBytes: o.WriteIOPS * o.WriteSizeBytes,
		DiskMerged: NaN, DiskCompleted: NaN,
	}
	if o.HasDiskRequests {
		r.DiskMerged, r.DiskCompleted = o.DiskMerged, o.DiskCompleted
	}
	// With a rule set applied, the measured throughput is the boosted one:
	// read as the original throughput it would shift every prediction.
	r.RuleSetActive = m.ActiveRuleSet != ""
	if r.RuleSetActive && slices.Contains(m.A.Features, advisor.OriginalThroughput) {
		return RuleSets{Active: m.ActiveRuleSet, Err: fmt.Sprintf("rule set %q is applied (advisor.active_rule_set), so the original throughput the catalog's models take is not measured; remove the rule set, or use a catalog without %s",
			m.ActiveRuleSet, advisor.OriginalThroughput)}
	}
	w, err := advisor.LiveWorkload(r)
	if err != nil {
		return RuleSets{Active: m.ActiveRuleSet, Err: err.Error()}
	}
	adv, err := m.A.Advise(w)
	if err != nil {
		return RuleSets{Active: m.ActiveRuleSet, Err: err.Error()}
	}
	return RuleSets{Predictions: adv.Predictions, Recommended: adv.RuleSet, Reason: adv.Reason, Active: m.ActiveRuleSet}
}

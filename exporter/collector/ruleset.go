package collector

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/storcast/storcast/exporter/engine"
)

// The advisor's series are one per cluster and rule set of the catalog.
var rulesetLabels = []string{"cluster", "ruleset"}

var (
	rulesetBoostDesc = newDesc("storcast_ruleset_predicted_boost_ratio",
		"Throughput boost each traffic-control rule set of the catalog is predicted to give the current workload (0.1 = +10%; the advisor's M5 tree per rule set).", rulesetLabels)
	rulesetRecommendedDesc = newDesc("storcast_ruleset_recommended",
		"1 for the recommended rule set: the highest predicted boost above its own uncertainty (the larger of its CV error and its run noise), an in-range prediction preferred to an extrapolated one not ahead by that margin; all 0 when none clears it.", rulesetLabels)
	rulesetCVErrorDesc = newDesc("storcast_ruleset_cv_error_ratio",
		"Cross-validated mean absolute error of each rule set's predicted boost (0.03 = 3 points).", rulesetLabels)
	rulesetRunNoiseDesc = newDesc("storcast_ruleset_run_noise_ratio",
		"Standard error run-to-run noise puts on a measured boost of each rule set's catalog experiments (0.02 = 2 points): no prediction can be closer.", rulesetLabels)
	rulesetExtrapolatedDesc = newDesc("storcast_ruleset_extrapolated",
		"1 when the current workload lies outside the range of the rule set's experiments in some feature: its predicted boost extends a leaf model beyond its data.", rulesetLabels)
)

// collectRuleSets exports the advisor's answer for the current workload.
func collectRuleSets(ch chan<- prometheus.Metric, s *engine.Snapshot) {
	rs := s.RuleSets
	if rs == nil {
		return
	}
	for _, p := range rs.Predictions {
		gauge(ch, rulesetBoostDesc, p.Boost, s.Cluster, p.RuleSet)
		gauge(ch, rulesetRecommendedDesc, b2f(p.RuleSet == rs.Recommended), s.Cluster, p.RuleSet)
		gauge(ch, rulesetCVErrorDesc, p.CVError, s.Cluster, p.RuleSet)
		gauge(ch, rulesetRunNoiseDesc, p.RunNoise, s.Cluster, p.RuleSet)
		gauge(ch, rulesetExtrapolatedDesc, b2f(p.Extrapolated), s.Cluster, p.RuleSet)
	}
}

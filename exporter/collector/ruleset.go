package collector

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/storcast/storcast/exporter/engine"
)

var (
	rulesetBoostDesc = newDesc("storcast_ruleset_predicted_boost_ratio",
		"Throughput boost each traffic-control rule set of the catalog is predicted to give the current workload (0.1 = +10%; the advisor's M5 tree per rule set).", []string{"cluster", "ruleset"})
	rulesetRecommendedDesc = newDesc("storcast_ruleset_recommended",
		"1 for the rule set with the highest positive predicted boost, 0 for the others; all 0 when no rule set is predicted to help.", []string{"cluster", "ruleset"})
	rulesetCVErrorDesc = newDesc("storcast_ruleset_cv_error_ratio",
		"Cross-validated mean absolute error of each rule set's predicted boost (0.03 = 3 points).", []string{"cluster", "ruleset"})
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
	}
}

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
		"1 for the rule set with the highest positive predicted boost, 0 for the others; all 0 when no rule set is predicted to help.", rulesetLabels)
	rulesetCVErrorDesc = newDesc("storcast_ruleset_cv_error_ratio",
		"Cross-validated mean absolute error of each rule set's predicted boost (0.03 = 3 points).", rulesetLabels)
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

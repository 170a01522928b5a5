package collector

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/storcast/storcast/exporter/engine"
)

var (
	whatIfInfoDesc = newDesc("storcast_whatif_model_info",
		"The what-if latency model's learners ranked by cross-validated error (rank 1 serves, rank 2 is the runner-up); value 1.", []string{"cluster", "learner", "rank"}, oneOf("rank", "1", "2"))
	whatIfCVErrorDesc = newDesc("storcast_whatif_cv_error_ratio",
		"Cross-validated RMSE of each what-if learner's latency over the mean latency, after its parameter search (0.05 = 5%).", []string{"cluster", "learner"})
)

// collectWhatIf exports which regression serves the what-if answers and
// how well each learner did on windows it did not see.
func collectWhatIf(ch chan<- prometheus.Metric, s *engine.Snapshot) {
	m := s.WhatIfModel()
	if m == nil {
		return
	}
	for i, l := range m.Learners {
		if i < 2 {
			gauge(ch, whatIfInfoDesc, 1, s.Cluster, l.Name, string(rune('1'+i)))
		}
		gauge(ch, whatIfCVErrorDesc, l.CVErrorRatio, s.Cluster, l.Name)
	}
}

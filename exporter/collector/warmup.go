package collector

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/storcast/storcast/exporter/engine"
)

var warmingUpDesc = newDesc("storcast_warming_up",
	"1 when the latest observation's rate window was not full (the counters began, or resumed after a scrape gap, within it): its rates are extrapolated and the shipped alerts ignore the cluster until it is 0.", []string{"cluster"})

// collectWarmup exports whether the current inputs are trustworthy yet.
func collectWarmup(ch chan<- prometheus.Metric, s *engine.Snapshot) {
	if s.HasObserved {
		gauge(ch, warmingUpDesc, b2f(s.WarmingUp), s.Cluster)
	}
}

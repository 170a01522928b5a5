package collector

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/storcast/storcast/exporter/engine"
)

var warmingUpDesc = newDesc("storcast_warming_up",
	"1 when the latest observation's rate window was not full (the counters began, or resumed after a scrape gap, within it): its rates are extrapolated and the shipped alerts ignore the cluster until it is 0.", []string{"cluster"})

// warmupCollector exports whether the current inputs are trustworthy yet.
type warmupCollector struct{}

func (warmupCollector) Update(ch chan<- prometheus.Metric, snaps []*engine.Snapshot) error {
	for _, s := range snaps {
		if s.HasObserved {
			gauge(ch, warmingUpDesc, b2f(s.WarmingUp), s.Cluster)
		}
	}
	return nil
}

package collector

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/storcast/storcast/exporter/engine"
)

var etaDesc = newDesc("storcast_saturation_eta_seconds",
	"Seconds until the demand trend's daily peaks reach the limit: max_iops (capacity at the forecast mix) or latency_slo (the upper-band SLO crossing); 0 when already there (utilization at 1, or the observed latency over its SLO: the outage is now); +Inf when not within the horizon (a year).",
	[]string{"cluster", "limit"})

// collectETA exports when the demand trend meets each limit.
func collectETA(ch chan<- prometheus.Metric, s *engine.Snapshot) {
	for limit, v := range s.Outlook.ETAs {
		gauge(ch, etaDesc, v, s.Cluster, limit)
	}
}

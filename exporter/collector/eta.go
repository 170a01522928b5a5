package collector

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/storcast/storcast/exporter/engine"
)

var etaDesc = newDesc("storcast_saturation_eta_seconds",
	"Seconds until the demand trend reaches the limit: max_iops (capacity at the current mix) or latency_slo (the upper-band SLO crossing); +Inf when demand does not grow.",
	[]string{"cluster", "limit"})

// collectETA exports when the demand trend meets each limit.
func collectETA(ch chan<- prometheus.Metric, s *engine.Snapshot) {
	for limit, v := range s.Outlook.ETAs {
		gauge(ch, etaDesc, v, s.Cluster, limit)
	}
}

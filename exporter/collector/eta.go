package collector

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/storcast/storcast/exporter/engine"
)

// etaLimits are the limits of models.Set.SaturationETAs.
var etaLimits = oneOf("limit", "latency_slo", "max_iops")

var (
	etaDesc = newDesc("storcast_saturation_eta_seconds",
		"Seconds until the demand trend's daily peaks reach the limit: max_iops (capacity at the forecast mix) or latency_slo (the upper-band SLO crossing); 0 when already there (utilization at 1, or the observed latency over its SLO: the outage is now); +Inf when not within the horizon (a year).",
		[]string{"cluster", "limit"}, etaLimits)
	etaBoundDesc = newDesc("storcast_saturation_eta_seconds_bound",
		"95% band of storcast_saturation_eta_seconds: lower when the upper end of the demand trend's band of its daily peaks reaches the lower end of the limit's (capacity: its calibration band over the forecast read ratio's band; latency_slo: the knee's pessimistic end), upper when the lower end of demand's reaches the upper end of the limit's (the knee's optimistic end, never after capacity's unless the ETA is); +Inf when not within the horizon. Only with the saturation trend.",
		[]string{"cluster", "limit", "bound"}, etaLimits, oneOf("bound", "lower", "upper"))
)

// collectETA exports when the demand trend meets each limit, and the band
// of that time where the saturation trend gives one.
func collectETA(ch chan<- prometheus.Metric, s *engine.Snapshot) {
	for limit, e := range s.Outlook.ETAs {
		gauge(ch, etaDesc, e.Seconds, s.Cluster, limit)
		if e.HasBand {
			gauge(ch, etaBoundDesc, e.Early, s.Cluster, limit, "lower")
			gauge(ch, etaBoundDesc, e.Late, s.Cluster, limit, "upper")
		}
	}
}

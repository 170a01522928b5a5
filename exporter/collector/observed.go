package collector

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/storcast/storcast/exporter/engine"
)

var (
	observedIOPSDesc = newDesc("storcast_observed_iops",
		"Observed total operations per second (reads + writes) at the last refresh.", []string{"cluster"})
	observedReadRatioDesc = newDesc("storcast_observed_read_ratio",
		"Observed share of reads among operations, 0..1.", []string{"cluster"})
	observedIOSizeDesc = newDesc("storcast_observed_io_size_bytes",
		"Observed operation-weighted mean IO size in bytes.", []string{"cluster"})
	observedLatencyDesc = newDesc("storcast_observed_latency_seconds",
		"Observed mean latency of the SLO's kind (read, write or op) in seconds.", []string{"cluster"})
	sourceUpDesc = newDesc("storcast_source_up",
		"Whether the last refresh of the cluster's data succeeded with recent data (1) or not (0: it failed, or the backend answered without a recent sample); a failed fetch of a fit's lookback does not count (storcast_model_fit_error).", []string{"cluster"})
	lastRefreshDesc = newDesc("storcast_last_refresh_timestamp_seconds",
		"Unix time of the last successful refresh of the observed inputs.", []string{"cluster"})
)

// collectObserved exports the current inputs and the source's health.
func collectObserved(ch chan<- prometheus.Metric, s *engine.Snapshot) {
	gauge(ch, sourceUpDesc, b2f(s.SourceUp), s.Cluster)
	if !s.LastRefresh.IsZero() {
		gauge(ch, lastRefreshDesc, float64(s.LastRefresh.UnixMilli())/1e3, s.Cluster)
	}
	if !s.HasObserved {
		return
	}
	o := s.Observed
	gauge(ch, observedIOPSDesc, o.IOPS, s.Cluster)
	if o.IOSizeBytes > 0 { // unknown for a cluster idle since before any busy window: absent, not 0
		gauge(ch, observedReadRatioDesc, o.ReadRatio, s.Cluster)
		gauge(ch, observedIOSizeDesc, o.IOSizeBytes, s.Cluster)
	}
	if o.LatencySeconds > 0 {
		gauge(ch, observedLatencyDesc, o.LatencySeconds, s.Cluster)
	}
}

package collector

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/storcast/storcast/exporter/engine"
	"github.com/storcast/storcast/forecaster/insideout"
)

var (
	predictedIOPSDesc = newDesc("storcast_predicted_iops",
		"Operations per second implied by the hosts' low-level metrics (Inside-Out model).", []string{"cluster", "op"}, oneOf("op", "read", "write"))
	predictedThroughputDesc = newDesc("storcast_predicted_throughput_bytes",
		"Bytes per second implied by the hosts' low-level metrics (Inside-Out model).", []string{"cluster", "op"}, oneOf("op", "read", "write"))
)

// collectInsideOut exports Inside-Out's predictions at the last refresh.
func collectInsideOut(ch chan<- prometheus.Metric, s *engine.Snapshot) {
	for t, v := range s.PredictedIO {
		switch t {
		case insideout.ReadIOPS:
			gauge(ch, predictedIOPSDesc, v, s.Cluster, "read")
		case insideout.WriteIOPS:
			gauge(ch, predictedIOPSDesc, v, s.Cluster, "write")
		case insideout.ReadBytes:
			gauge(ch, predictedThroughputDesc, v, s.Cluster, "read")
		case insideout.WriteBytes:
			gauge(ch, predictedThroughputDesc, v, s.Cluster, "write")
		}
	}
}

package collector

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/storcast/storcast/exporter/engine"
)

// LoadFactors are the multiples of the current IOPS at which the predicted
// latency is exported.
var LoadFactors = []float64{1, 1.25, 1.5, 2}

var (
	predictedLatencyDesc = newDesc("storcast_predicted_latency_seconds",
		"Predicted latency at load_factor times the current IOPS, with its 95% band (M-LISP).", []string{"cluster", "load_factor", "bound"})
	kneeDesc = newDesc("storcast_latency_knee_iops",
		"IOPS at which each bound of the predicted latency crosses the latency SLO (absent when it does not within the curve).", []string{"cluster", "bound"})
	sloDesc = newDesc("storcast_latency_slo_seconds",
		"The configured latency SLO threshold.", []string{"cluster"})
)

// latencyCollector exports the latency model.
type latencyCollector struct{}

func (latencyCollector) Update(ch chan<- prometheus.Metric, snaps []*engine.Snapshot) error {
	for _, s := range snaps {
		if s.SLOSeconds > 0 {
			gauge(ch, sloDesc, s.SLOSeconds, s.Cluster)
		}
		if s.Latency() == nil {
			continue
		}
		k := s.Latency().Crossing(s.SLOSeconds)
		gauge(ch, kneeDesc, k.Lower, s.Cluster, "lower")
		gauge(ch, kneeDesc, k.Mean, s.Cluster, "mean")
		gauge(ch, kneeDesc, k.Upper, s.Cluster, "upper")
		if !s.HasObserved {
			continue
		}
		for _, f := range LoadFactors {
			b, ok := s.Latency().At(f * s.Observed.IOPS)
			if !ok {
				continue
			}
			lf := strconv.FormatFloat(f, 'g', -1, 64)
			gauge(ch, predictedLatencyDesc, b.Lower, s.Cluster, lf, "lower")
			gauge(ch, predictedLatencyDesc, b.Mean, s.Cluster, lf, "mean")
			gauge(ch, predictedLatencyDesc, b.Upper, s.Cluster, lf, "upper")
		}
	}
	return nil
}

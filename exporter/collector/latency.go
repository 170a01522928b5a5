package collector

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/storcast/storcast/exporter/engine"
	"github.com/storcast/storcast/exporter/models"
)

// LoadFactors are the multiples of the current IOPS at which the predicted
// latency is exported (models.LoadFactors, where the snapshot's outlook
// computes them).
var LoadFactors = models.LoadFactors

// loadFactorLabels are the load_factor label values, by factor.
var loadFactorLabels = func() map[float64]string {
	m := map[float64]string{}
	for _, f := range models.LoadFactors {
		m[f] = strconv.FormatFloat(f, 'g', -1, 64)
	}
	return m
}()

// loadFactorValues are the load_factor label values, in the order of
// models.LoadFactors.
func loadFactorValues() []string {
	out := make([]string, len(models.LoadFactors))
	for i, f := range models.LoadFactors {
		out[i] = loadFactorLabels[f]
	}
	return out
}

var (
	predictedLatencyDesc = newDesc("storcast_predicted_latency_seconds",
		"Predicted latency at load_factor times the current IOPS at the current mix, with its 95% band, from the served latency model; mean and upper are +Inf where that load is at or past capacity (saturated; no lower bound then), the upper bound alone +Inf where it is at or past the lower bound of capacity (the cluster may be saturated).", []string{"cluster", "load_factor", "bound"},
		oneOf("load_factor", loadFactorValues()...), oneOf("bound", "lower", "mean", "upper"))
	kneeDesc = newDesc("storcast_latency_knee_iops",
		"IOPS at which each bound of the predicted latency crosses the latency SLO (absent when it does not within the curve).", []string{"cluster", "bound"}, oneOf("bound", "lower", "mean", "upper"))
	sloDesc = newDesc("storcast_latency_slo_seconds",
		"The configured latency SLO threshold.", []string{"cluster"})
)

// collectLatency exports the latency model.
func collectLatency(ch chan<- prometheus.Metric, s *engine.Snapshot) {
	if s.SLOSeconds > 0 {
		gauge(ch, sloDesc, s.SLOSeconds, s.Cluster)
	}
	if !s.Outlook.HasLatency {
		return
	}
	k := s.Outlook.LatencyKnee
	gauge(ch, kneeDesc, k.Lower, s.Cluster, "lower")
	gauge(ch, kneeDesc, k.Mean, s.Cluster, "mean")
	gauge(ch, kneeDesc, k.Upper, s.Cluster, "upper")
	for _, l := range s.Outlook.LatencyAtLoad {
		lf := loadFactorLabels[l.Factor]
		gauge(ch, predictedLatencyDesc, l.Lower, s.Cluster, lf, "lower")
		gauge(ch, predictedLatencyDesc, l.Mean, s.Cluster, lf, "mean")
		gauge(ch, predictedLatencyDesc, l.Upper, s.Cluster, lf, "upper")
	}
}

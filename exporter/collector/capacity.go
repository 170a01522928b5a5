package collector

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/storcast/storcast/exporter/engine"
)

var (
	maxIOPSDesc = newDesc("storcast_max_iops",
		"Maximum operations per second at the current read/write and IO-size mix (conservation model).", []string{"cluster", "op"}, oneOf("op", "read", "write", "total"))
	utilizationDesc = newDesc("storcast_utilization_ratio",
		"Utilization U of the capacity frontier at the current load and mix: sum of rate/max over op classes plus read/write interference (1 at capacity, above 1 past it).", []string{"cluster"})
	headroomRatioDesc = newDesc("storcast_headroom_ratio",
		"Share of max IOPS left at the current mix: 1 - observed/max (1 - U without interference).", []string{"cluster"})
	headroomIOPSDesc = newDesc("storcast_headroom_iops",
		"Operations per second left at the current mix: max - observed.", []string{"cluster"})
	maxIOPSBoundDesc = newDesc("storcast_max_iops_bound",
		"Band of the total max IOPS at the current mix: where one more saturated calibration run would land (95%, from the runs' pooled noise; lower, upper), or, when history never saturated, the lower bound it proves.", []string{"cluster", "bound"}, oneOf("bound", "lower", "upper"))
	headroomRatioBoundDesc = newDesc("storcast_headroom_ratio_bound",
		"Band of storcast_headroom_ratio from the max IOPS band (95% prediction of one more saturated calibration run).", []string{"cluster", "bound"}, oneOf("bound", "lower", "upper"))
	interferenceDesc = newDesc("storcast_capacity_interference_ratio",
		"The read/write interference part of storcast_utilization_ratio (0 for the paper's model).", []string{"cluster"})
	historyLoadDesc = newDesc("storcast_capacity_history_load_ratio",
		"The calibration tested against the lookback: measured load over the upper end of the max IOPS band at each window's mix, at the third-highest window; above 1 the cluster served more than the calibration allows (recalibrate).", []string{"cluster"})
	extrapolatedDesc = newDesc("storcast_capacity_extrapolated",
		"1 when the current IO sizes lie outside the calibrated range (the capacity figures are extrapolated).", []string{"cluster"})
)

// collectCapacity exports the conservation model at the current mix.
func collectCapacity(ch chan<- prometheus.Metric, s *engine.Snapshot) {
	if c := s.Set.Capacity(); c != nil && c.History.Ratio > 0 {
		gauge(ch, historyLoadDesc, c.History.Ratio, s.Cluster)
	}
	if !s.HasCapacityAtMix {
		if s.MaxIOPSLowerBound > 0 {
			gauge(ch, maxIOPSBoundDesc, s.MaxIOPSLowerBound, s.Cluster, "lower")
		}
		return
	}
	r := s.CapacityAtMix
	gauge(ch, maxIOPSDesc, r.MaxReadIOPS, s.Cluster, "read")
	gauge(ch, maxIOPSDesc, r.MaxWriteIOPS, s.Cluster, "write")
	gauge(ch, maxIOPSDesc, r.MaxTotalIOPS, s.Cluster, "total")
	gauge(ch, utilizationDesc, r.Utilization, s.Cluster)
	gauge(ch, headroomRatioDesc, r.HeadroomRatio, s.Cluster)
	gauge(ch, headroomIOPSDesc, r.HeadroomIOPS, s.Cluster)
	gauge(ch, extrapolatedDesc, b2f(r.Extrapolated), s.Cluster)
	gauge(ch, interferenceDesc, r.Interference, s.Cluster)
	if r.MaxTotalIOPSLower > 0 && r.MaxTotalIOPSUpper > 0 {
		gauge(ch, maxIOPSBoundDesc, r.MaxTotalIOPSLower, s.Cluster, "lower")
		gauge(ch, maxIOPSBoundDesc, r.MaxTotalIOPSUpper, s.Cluster, "upper")
		gauge(ch, headroomRatioBoundDesc, r.HeadroomRatioLower, s.Cluster, "lower")
		gauge(ch, headroomRatioBoundDesc, r.HeadroomRatioUpper, s.Cluster, "upper")
	}
}

package collector

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/storcast/storcast/exporter/engine"
)

var (
	maxIOPSDesc = newDesc("storcast_max_iops",
		"Maximum operations per second at the current read/write and IO-size mix (conservation model).", []string{"cluster", "op"})
	utilizationDesc = newDesc("storcast_utilization_ratio",
		"Share of the processing capability in use at the current mix, sum of rate/max over op classes (above 1 past capacity).", []string{"cluster"})
	headroomRatioDesc = newDesc("storcast_headroom_ratio",
		"1 - storcast_utilization_ratio: the share of capability left.", []string{"cluster"})
	headroomIOPSDesc = newDesc("storcast_headroom_iops",
		"Operations per second left at the current mix: max - observed.", []string{"cluster"})
	extrapolatedDesc = newDesc("storcast_capacity_extrapolated",
		"1 when the current IO sizes lie outside the calibrated range (the capacity figures are extrapolated).", []string{"cluster"})
)

// capacityCollector exports the conservation model at the current mix.
type capacityCollector struct{}

func (capacityCollector) Update(ch chan<- prometheus.Metric, snaps []*engine.Snapshot) error {
	for _, s := range snaps {
		if !s.HasCapacityAtMix {
			continue
		}
		r := s.CapacityAtMix
		gauge(ch, maxIOPSDesc, r.MaxReadIOPS, s.Cluster, "read")
		gauge(ch, maxIOPSDesc, r.MaxWriteIOPS, s.Cluster, "write")
		gauge(ch, maxIOPSDesc, r.MaxTotalIOPS, s.Cluster, "total")
		gauge(ch, utilizationDesc, r.Utilization, s.Cluster)
		gauge(ch, headroomRatioDesc, r.HeadroomRatio, s.Cluster)
		gauge(ch, headroomIOPSDesc, r.HeadroomIOPS, s.Cluster)
		gauge(ch, extrapolatedDesc, b2f(r.Extrapolated), s.Cluster)
	}
	return nil
}

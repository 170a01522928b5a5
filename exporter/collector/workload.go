package collector

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/storcast/storcast/exporter/engine"
	"github.com/storcast/storcast/forecaster/advisor"
)

// The workload's characterization (Lu's four features, as far as the
// sources measure them): mean request size per direction, read share by
// operations and by bytes, throughput, and the sequential share where the
// hosts' node_exporter carries merged block requests (neither the Ceph mgr
// module nor Swift's StatsD counters have it; without hosts configured it
// is not exported, never invented).
var (
	workloadRequestSizeDesc = newDesc("storcast_workload_request_size_bytes",
		"Mean request size of the current workload per direction (bytes per operation).", []string{"cluster", "op"}, oneOf("op", "read", "write"))
	workloadReadRatioDesc = newDesc("storcast_workload_read_ratio",
		"Share of reads in the current workload, by operations or by bytes, 0..1.", []string{"cluster", "by"}, oneOf("by", "ops", "bytes"))
	workloadThroughputDesc = newDesc("storcast_workload_throughput_bytes",
		"Throughput of the current workload per direction, bytes per second.", []string{"cluster", "op"}, oneOf("op", "read", "write"))
	workloadSequentialDesc = newDesc("storcast_workload_sequential_ratio",
		"Share of the hosts' block requests merged into a neighbour, merged / (merged + completed), 0..1: the workload's access type (0 random, toward 1 sequential), from node_exporter's disk counters.", []string{"cluster"})
)

// collectWorkload exports the characterization of each cluster's current
// workload.
func collectWorkload(ch chan<- prometheus.Metric, s *engine.Snapshot) {
	// An idle observation carries the last busy mix: not this
	// instant's workload.
	if !s.HasObserved || s.Observed.Idle {
		return
	}
	o := s.Observed
	rb, wb := o.ReadIOPS*o.ReadSizeBytes, o.WriteIOPS*o.WriteSizeBytes
	if o.ReadSizeBytes > 0 {
		gauge(ch, workloadRequestSizeDesc, o.ReadSizeBytes, s.Cluster, "read")
	}
	if o.WriteSizeBytes > 0 {
		gauge(ch, workloadRequestSizeDesc, o.WriteSizeBytes, s.Cluster, "write")
	}
	gauge(ch, workloadReadRatioDesc, o.ReadRatio, s.Cluster, "ops")
	if rb+wb > 0 {
		gauge(ch, workloadReadRatioDesc, rb/(rb+wb), s.Cluster, "bytes")
	}
	gauge(ch, workloadThroughputDesc, rb, s.Cluster, "read")
	gauge(ch, workloadThroughputDesc, wb, s.Cluster, "write")
	if q, ok := advisor.SequentialShareOf(o.DiskMerged, o.DiskCompleted); o.HasDiskRequests && ok {
		gauge(ch, workloadSequentialDesc, q, s.Cluster)
	}
}

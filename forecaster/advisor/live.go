package advisor

import (
	"math"

	"github.com/storcast/storcast/forecaster/internal/check"
)

// Rates are the per-second rates a live source gives over one window. A
// rate the source does not have is NaN.
type Rates struct {
	// Client operations and bytes per direction: the Ceph mgr module
	// (ceph_osd_op_r/_w, ceph_osd_op_r_out_bytes/_w_in_bytes, or
	// ceph_pool_rd/_wr and _rd_bytes/_wr_bytes) or Swift's proxy through
	// statsd_exporter (swift_proxy_count and swift_proxy_transfer by method
	// GET/PUT).
	ReadOps, WriteOps, ReadBytes, WriteBytes float64
	// Block-layer requests of the storage hosts' disks from node_exporter,
	// reads and writes together: merged (node_disk_reads_merged_total +
	// node_disk_writes_merged_total) and completed (node_disk_reads_completed_total
	// + node_disk_writes_completed_total).
	DiskMerged, DiskCompleted float64
	// RuleSetActive says a traffic-control rule set is applied now (the
	// exporter's advisor.active_rule_set): the measured throughput is then
	// not the original throughput, which stays unknown.
	RuleSetActive bool
}

// LiveWorkload derives what the rates can measure of the four features and
// leaves out what they cannot (Predict then says which feature is
// missing):
//
//	request_bytes       = (ReadBytes + WriteBytes) / (ReadOps + WriteOps)
//	read_share          = ReadBytes / (ReadBytes + WriteBytes)
//	original_throughput = ReadBytes + WriteBytes, unless RuleSetActive
//	sequential_share    = SequentialShareOf(DiskMerged, DiskCompleted), only
//	                      with the node_exporter disk rates
//
// request_bytes is the mean client request, a lower bound of the
// sequential request size (consecutive requests joined), which only a
// client-side trace measures; sequential_share is a proxy: the share of
// block requests the disks' queues merged into a neighbour, after the
// storage daemons have reordered, replicated and added their own I/O. A
// catalog used with LiveWorkload must have measured its experiments the
// same way. It returns an error when there is no client traffic.
func LiveWorkload(r Rates) (Workload, error) {
	for _, v := range []float64{r.ReadOps, r.WriteOps, r.ReadBytes, r.WriteBytes} {
		if !check.Finite(v) || v < 0 {
			return nil, inputError("rates", "client operations and bytes must be finite rates >= 0, got %v", v)
		}
	}
	ops, bytes := r.ReadOps+r.WriteOps, r.ReadBytes+r.WriteBytes
	if !(ops > 0 && bytes > 0) {
		return nil, inputError("rates", "no client traffic (%v ops/s, %v bytes/s)", ops, bytes)
	}
	w := Workload{
		RequestBytes: bytes / ops,
		ReadShare:    r.ReadBytes / bytes,
	}
	if !r.RuleSetActive {
		w[OriginalThroughput] = bytes
	}
	if q, ok := SequentialShareOf(r.DiskMerged, r.DiskCompleted); ok {
		w[SequentialShare] = q
	}
	for k, v := range w {
		if checkValue(k, k, v) != nil || math.IsInf(v, 0) {
			delete(w, k) // e.g. a request size that overflowed: not measured
		}
	}
	return w, nil
}

// SequentialShareOf is the access-type proxy of a workload from its disks'
// block requests per second: merged / (merged + completed), the share of
// requests the kernel's queues joined to a neighbour because it continued
// where that one ended. ok is false when either rate is unknown (NaN),
// negative or there were no requests.
func SequentialShareOf(merged, completed float64) (share float64, ok bool) {
	if !check.Finite(merged) || !check.Finite(completed) || merged < 0 || completed < 0 || !(merged+completed > 0) {
		return 0, false
	}
	return merged / (merged + completed), true
}

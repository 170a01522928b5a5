package promfake

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// Workload is a synthetic Ceph cluster answering the queries of package
// source: client rates, mean latency on a queueing curve, and node_exporter
// host metrics that are linear in the load (so Inside-Out can learn them).
type Workload struct {
	// IOPS is the total client load at t.
	IOPS      func(t time.Time) float64
	ReadRatio float64
	ReadSize  float64 // bytes
	WriteSize float64
	// Capacity is the saturation load (for latency L0/(1-0.9·IOPS/Capacity)).
	Capacity float64
	L0       float64 // zero-load latency, seconds
	Hosts    int
	// OSDs, when positive, makes each Ceph client signal the sum over this
	// many OSDs of their shares of it, computed at each query (as a
	// Prometheus sums the OSDs' series); 0 answers the cluster total
	// directly.
	OSDs int
	// SequentialShare is the share of the hosts' block requests merged.
	SequentialShare float64
}

// Answer implements Server.Answer. Host queries are answered from the
// per-host series: one series per host for a per-instance query, and the
// statistics across hosts for source.HostQueries' aggregations
// (HostAggregate).
func (w Workload) Answer(q string) []Series {
	read := func(t time.Time) float64 { return w.IOPS(t) * w.ReadRatio }
	write := func(t time.Time) float64 { return w.IOPS(t) * (1 - w.ReadRatio) }
	lat := func(t time.Time) float64 {
		rho := math.Min(w.IOPS(t)/w.Capacity, 1.05)
		return w.L0 / (1 - 0.9*rho)
	}
	if strings.Contains(q, "by (instance)") {
		if out, ok := HostAggregate(q, func(inner string) []Series { return w.hosts(inner, read, write) }); ok {
			return out
		}
		return w.hosts(q, read, write)
	}
	one := func(f func(time.Time) float64) []Series { return []Series{{Value: f}} }
	osds := OSDShares(w.OSDs)
	perOSD := func(f func(time.Time) float64) []Series {
		if len(osds) == 0 {
			return one(f)
		}
		return one(func(t time.Time) float64 {
			total, sum := f(t), 0.0
			for _, s := range osds {
				sum += s * total
			}
			return sum
		})
	}
	// The hosts' block requests (reads, and writes 3 replicas each), a
	// SequentialShare of them merged.
	completed := func(t time.Time) float64 { return read(t) + 3*write(t) }
	switch {
	case strings.Contains(q, "node_disk_reads_merged_total"):
		return one(func(t time.Time) float64 { return completed(t) * w.SequentialShare / (1 - w.SequentialShare) })
	case strings.Contains(q, "node_disk_reads_completed_total"):
		return one(completed)
	case strings.Contains(q, "ceph_osd_metadata"):
		return one(func(time.Time) float64 { return float64(w.Hosts) })
	case strings.Contains(q, "_latency_sum"):
		return perOSD(lat)
	case strings.Contains(q, "ceph_osd_op_r_out_bytes"):
		return perOSD(func(t time.Time) float64 { return read(t) * w.ReadSize })
	case strings.Contains(q, "ceph_osd_op_w_in_bytes"):
		return perOSD(func(t time.Time) float64 { return write(t) * w.WriteSize })
	case strings.Contains(q, "rate(ceph_osd_op_r{"):
		return perOSD(read)
	case strings.Contains(q, "rate(ceph_osd_op_w{"):
		return perOSD(write)
	}
	return nil
}

// OSDShares returns each of n OSDs' share of the client load (summing to
// 1, uneven like the hosts'), nil for n <= 0.
func OSDShares(n int) []float64 {
	if n <= 0 {
		return nil
	}
	s := make([]float64, n)
	var total float64
	for i := range s {
		s[i] = 1 + 0.1*float64(i%3-1)
		total += s[i]
	}
	for i := range s {
		s[i] /= total
	}
	return s
}

// hosts answers a per-instance host metric query.
func (w Workload) hosts(q string, read, write func(time.Time) float64) []Series {
	var per func(t time.Time) float64
	switch {
	case strings.Contains(q, "node_disk_reads_completed_total"):
		per = read
	case strings.Contains(q, "node_disk_writes_completed_total"):
		per = func(t time.Time) float64 { return 3 * write(t) }
	case strings.Contains(q, "node_disk_read_bytes_total"):
		per = func(t time.Time) float64 { return read(t) * w.ReadSize }
	case strings.Contains(q, "node_disk_written_bytes_total"):
		per = func(t time.Time) float64 { return 3 * write(t) * w.WriteSize }
	case strings.Contains(q, `mode!="idle"`):
		per = func(t time.Time) float64 { return 0.1 + 0.0004*(read(t)+write(t)) }
	default:
		per = func(t time.Time) float64 { return 1 + 0.001*(read(t)+2*write(t)) }
	}
	out := make([]Series, w.Hosts)
	for h := range out {
		share := (1 + 0.1*float64(h%3-1)) / float64(w.Hosts)
		out[h] = Series{Labels: map[string]string{"instance": fmt.Sprintf("osd-%d:9100", h)}, Value: func(t time.Time) float64 { return share * per(t) }}
	}
	return out
}

// Diurnal returns a load of base·(1 + amp·sin(2π·h/24)) on the UTC hour.
func Diurnal(base, amp float64) func(time.Time) float64 {
	return func(t time.Time) float64 {
		h := float64(t.Unix()%86400) / 3600
		return base * (1 + amp*math.Sin(2*math.Pi*h/24))
	}
}

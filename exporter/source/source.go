package source

import (
	"context"
	"math"
	"time"

	"github.com/storcast/storcast/exporter/config"
)

// Signal names of a cluster frame.
const (
	ReadOps      = "read_ops"      // read operations per second
	WriteOps     = "write_ops"     // write operations per second
	ReadBytes    = "read_bytes"    // bytes read per second
	WriteBytes   = "write_bytes"   // bytes written per second
	Latency      = "latency"       // mean latency of the SLO's kind (read, write or op), seconds
	ReadLatency  = "read_latency"  // mean read latency, seconds (when the kind has it)
	WriteLatency = "write_latency" // mean write latency, seconds (when the kind has it)
	// OSDHosts is the number of hosts with at least one OSD up (ceph only):
	// ceph_osd_up joined with ceph_osd_metadata on ceph_daemon for the
	// hostname label.
	OSDHosts = "osd_hosts"
	// DiskMerged and DiskCompleted are the block requests per second of
	// the disks of the cluster's hosts (node_exporter, reads and writes
	// together) that the kernel merged into a neighbour and that it
	// completed: the workload's access type (sequential share). Fetched
	// only with hosts configured.
	DiskMerged    = "disk_merged"
	DiskCompleted = "disk_completed"
)

// Range is a query range; End is inclusive.
type Range struct {
	Start, End time.Time
	Step       time.Duration
}

// N is the number of grid points of r.
func (r Range) N() int {
	if r.Step <= 0 || r.End.Before(r.Start) {
		return 0
	}
	return int(r.End.Sub(r.Start)/r.Step) + 1
}

// Frame is the data of one cluster on the grid of Range.
type Frame struct {
	Range   Range
	Signals map[string][]float64 // signal -> values, len Range.N(), NaN = gap
	// HostStats holds the host metrics' statistics across each role's
	// hosts, computed by the query engine: HostStats[role][metric][stat] =
	// values, stat one of StatMean, StatStd, StatSum, StatP95, StatCount
	// and (steps shorter than SmoothWindow) StatRawMean. A (role, metric)
	// no host reports has no entry or all-NaN values.
	HostStats map[string]map[string]map[string][]float64
	// Queries holds the PromQL each cluster signal was fetched with, so that
	// an empty signal can be reported with the query that selected nothing.
	Queries map[string]string
	Stats   QueryStats
}

// Times returns the Unix-second timestamps of the grid.
func (f *Frame) Times() []float64 {
	n := f.Range.N()
	out := make([]float64, n)
	for i := range out {
		out[i] = float64(f.Range.Start.Add(time.Duration(i)*f.Range.Step).UnixMilli()) / 1e3
	}
	return out
}

// Last returns the last finite value of a signal within the final maxAge
// grid points, and false when there is none (the series is stale or absent).
func (f *Frame) Last(signal string, maxAge int) (float64, bool) {
	v := f.Signals[signal]
	for i := len(v) - 1; i >= 0 && i >= len(v)-maxAge; i-- {
		if !math.IsNaN(v[i]) {
			return v[i], true
		}
	}
	return 0, false
}

// QueryStats counts what fetching a frame cost.
type QueryStats struct {
	Queries       int   // range queries sent (retries included)
	Retries       int   // retries among them
	Series        int   // series received
	Samples       int   // samples received
	ResponseBytes int64 // body bytes received (0 when unknown)
}

// Add accumulates o into s.
func (s *QueryStats) Add(o QueryStats) {
	s.Queries += o.Queries
	s.Retries += o.Retries
	s.Series += o.Series
	s.Samples += o.Samples
	s.ResponseBytes += o.ResponseBytes
}

// Source fetches frames.
type Source interface {
	// Fetch returns the frame of cluster cl over r. A partial failure (one
	// signal missing) is an error: the caller keeps its last good models.
	Fetch(ctx context.Context, cl *config.Cluster, r Range) (*Frame, error)
}

// nanSlice returns n NaNs.
func nanSlice(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = math.NaN()
	}
	return v
}

// Tail returns the frame restricted to its last n grid points (sharing the
// value slices' backing arrays).
func (f *Frame) Tail(n int) *Frame {
	total := f.Range.N()
	if n >= total {
		return f
	}
	skip := total - n
	out := &Frame{Range: Range{Start: f.Range.Start.Add(time.Duration(skip) * f.Range.Step), End: f.Range.End, Step: f.Range.Step},
		Signals: map[string][]float64{}, HostStats: map[string]map[string]map[string][]float64{}, Queries: f.Queries, Stats: f.Stats}
	for k, v := range f.Signals {
		out.Signals[k] = v[skip:]
	}
	for role, metrics := range f.HostStats {
		out.HostStats[role] = map[string]map[string][]float64{}
		for m, stats := range metrics {
			out.HostStats[role][m] = map[string][]float64{}
			for st, v := range stats {
				out.HostStats[role][m][st] = v[skip:]
			}
		}
	}
	return out
}

// Splice returns the frame of r (which must end at fresh's end, on fresh's
// grid) made of old's points before fresh's start and fresh's points from
// there on: an incremental fetch, where fresh holds only the steps since
// old was fetched plus an overlap for late samples. Series present in only
// one of them are NaN where the other lies. Queries and Stats are fresh's
// (what this fetch cost). ok is false when the grids do not line up or
// the two leave a hole: the caller fetches r whole.
func Splice(old, fresh *Frame, r Range) (*Frame, bool) {
	step := r.Step
	if old == nil || fresh == nil || step <= 0 || old.Range.Step != step || fresh.Range.Step != step ||
		!fresh.Range.End.Equal(r.End) || fresh.Range.Start.Before(r.Start) ||
		old.Range.Start.Sub(r.Start)%step != 0 || fresh.Range.Start.Sub(r.Start)%step != 0 ||
		old.Range.End.Add(step).Before(fresh.Range.Start) {
		return nil, false
	}
	n := r.N()
	split := int(fresh.Range.Start.Sub(r.Start) / step) // first index from fresh
	oldOff := int(old.Range.Start.Sub(r.Start) / step)  // r index of old's first point
	merge := func(o, f []float64) []float64 {
		v := make([]float64, n)
		for i := 0; i < split; i++ {
			v[i] = math.NaN()
			if j := i - oldOff; j >= 0 && j < len(o) {
				v[i] = o[j]
			}
		}
		for i := split; i < n; i++ {
			v[i] = math.NaN()
			if j := i - split; j < len(f) {
				v[i] = f[j]
			}
		}
		return v
	}
	out := &Frame{Range: r, Signals: map[string][]float64{}, HostStats: map[string]map[string]map[string][]float64{}, Queries: fresh.Queries, Stats: fresh.Stats}
	for k := range union(old.Signals, fresh.Signals) {
		out.Signals[k] = merge(old.Signals[k], fresh.Signals[k])
	}
	for role := range union(old.HostStats, fresh.HostStats) {
		out.HostStats[role] = map[string]map[string][]float64{}
		for m := range union(old.HostStats[role], fresh.HostStats[role]) {
			out.HostStats[role][m] = map[string][]float64{}
			for st := range union(old.HostStats[role][m], fresh.HostStats[role][m]) {
				out.HostStats[role][m][st] = merge(old.HostStats[role][m][st], fresh.HostStats[role][m][st])
			}
		}
	}
	return out, true
}

// union returns the keys of a and b.
func union[V any](a, b map[string]V) map[string]bool {
	out := make(map[string]bool, len(a)+len(b))
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

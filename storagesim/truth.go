package storagesim

import (
	"math"
	"time"
)

// Truth is the noise-free ground truth at one instant, as served by /truth.
// IOPS are client operations per second, latencies are mean latencies of
// client ops in seconds (what rate(ceph_osd_op_latency_sum) /
// rate(ceph_osd_op_latency_count) measures).
type Truth struct {
	Time     time.Time `json:"time"`
	Scenario string    `json:"scenario"`
	Seed     int64     `json:"seed"`

	// MaxIOPS is the capacity at the current read ratio and IO-size mix.
	MaxIOPS IOPS `json:"max_iops"`
	// OfferedIOPS is the load clients try to run; ServedIOPS is what the
	// cluster completes: min(offered, max).
	OfferedIOPS IOPS `json:"offered_iops"`
	ServedIOPS  IOPS `json:"served_iops"`
	// Utilization is offered / max (above 1 when saturated);
	// ServedUtilization is served / max (at most 1).
	Utilization       float64 `json:"utilization"`
	ServedUtilization float64 `json:"served_utilization"`
	HeadroomIOPS      float64 `json:"headroom_iops"`

	ReadRatio float64    `json:"read_ratio"`
	Mix       []MixShare `json:"mix"`

	Latency Latencies `json:"latency_seconds"`

	// SLOSeconds is the latency objective asked for; SLOCrossingIOPS is the
	// offered load (at the current mix) at which mean latency reaches it,
	// 0 when even an idle cluster misses it.
	SLOSeconds      float64 `json:"slo_seconds"`
	SLOCrossingIOPS float64 `json:"slo_crossing_iops"`

	// SaturationTime is the first instant at or after Time at which offered
	// load reaches capacity (noise-free, searched 90 days ahead in 5-minute steps, refined to 1 s
	// resolution); nil if it does not happen within that horizon.
	SaturationTime *time.Time `json:"saturation_time"`

	Hosts  int `json:"hosts"`
	OSDsUp int `json:"osds_up"`

	st state
}

// IOPS splits an op rate into reads and writes.
type IOPS struct {
	Total float64 `json:"total"`
	Read  float64 `json:"read"`
	Write float64 `json:"write"`
}

// MixShare is the share of operations of one IO size.
type MixShare struct {
	SizeBytes float64 `json:"size_bytes"`
	OpShare   float64 `json:"op_share"`
}

// Latencies are mean client-op latencies in seconds.
type Latencies struct {
	Now      float64 `json:"now"`
	Read     float64 `json:"read"`
	Write    float64 `json:"write"`
	ZeroLoad float64 `json:"zero_load"`
	// Knee is the latency at utilization 1 (knee_factor × zero-load).
	Knee    float64 `json:"knee"`
	At1_25x float64 `json:"at_1_25x"`
	At1_5x  float64 `json:"at_1_5x"`
	At2x    float64 `json:"at_2x"`
}

func split(total, r float64) IOPS { return IOPS{Total: total, Read: total * r, Write: total * (1 - r)} }

// Truth returns the ground truth at t. sloSeconds <= 0 uses the scenario's
// slo_seconds.
func (c *Cluster) Truth(t time.Time, sloSeconds float64) Truth {
	if !(sloSeconds > 0) {
		sloSeconds = c.sc.SLOSeconds
	}
	sec := c.secondsAt(t)
	st := c.stateAt(sec)
	r := st.readRatio
	tr := Truth{
		Time: t, Scenario: c.sc.Name, Seed: c.seed,
		MaxIOPS:           split(st.capacity, r),
		OfferedIOPS:       split(st.offered, r),
		ServedIOPS:        split(st.served, r),
		Utilization:       st.rho,
		ServedUtilization: st.served / st.capacity,
		HeadroomIOPS:      math.Max(0, st.capacity-st.offered),
		ReadRatio:         r,
		SLOSeconds:        sloSeconds,
		OSDsUp:            st.osdsUp,
		st:                st,
	}
	for m := st.hostMask; m != 0; m &= m - 1 {
		tr.Hosts++
	}
	for i, p := range st.mix {
		tr.Mix = append(tr.Mix, MixShare{SizeBytes: c.sc.sizes[i], OpShare: p})
	}
	tr.Latency = Latencies{
		Now:      st.latAll(),
		Read:     st.latRead(),
		Write:    st.latWrite(),
		ZeroLoad: st.l0All(),
		Knee:     st.l0All() * c.sc.Latency.KneeFactor,
		At1_25x:  tr.LatencyAt(1.25 * st.offered),
		At1_5x:   tr.LatencyAt(1.5 * st.offered),
		At2x:     tr.LatencyAt(2 * st.offered),
	}
	tr.SLOCrossingIOPS = tr.LoadAtLatency(sloSeconds)
	if ts, ok := c.saturationTime(sec); ok {
		tt := c.origin.Add(time.Duration(ts * float64(time.Second))).UTC()
		tr.SaturationTime = &tt
	}
	return tr
}

// UtilizationAt is the utilization an offered load of iops client IOPS
// would have at this instant's mix and topology.
func (tr Truth) UtilizationAt(iops float64) float64 { return iops / tr.st.capacity }

// LatencyAt is the mean client-op latency at an offered load of iops at this
// instant's mix and topology.
func (tr Truth) LatencyAt(iops float64) float64 {
	return tr.st.l0All() * latencyMultiplier(iops/tr.st.capacity, tr.st.kneeFactor())
}

// LoadAtLatency is the offered load at which mean latency reaches lat
// (0 if the zero-load latency already exceeds it).
func (tr Truth) LoadAtLatency(lat float64) float64 {
	l0 := tr.st.l0All()
	if lat <= l0 {
		return 0
	}
	return inverseLatencyMultiplier(lat/l0, tr.st.kneeFactor()) * tr.st.capacity
}

// saturationTime finds the first second ≥ from with offered ≥ capacity.
func (c *Cluster) saturationTime(from float64) (float64, bool) {
	sat := func(s float64) bool {
		st := c.stateAt(s)
		return st.offered >= st.capacity
	}
	if sat(from) {
		return from, true
	}
	const step, horizon = 300.0, 90 * 86400.0
	prev := from
	for s := from + step; s <= from+horizon; s += step {
		if sat(s) {
			lo, hi := prev, s
			for hi-lo > 0.5 {
				mid := (lo + hi) / 2
				if sat(mid) {
					hi = mid
				} else {
					lo = mid
				}
			}
			return math.Round(hi), true
		}
		prev = s
	}
	return 0, false
}

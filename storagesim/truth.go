package storagesim

import (
	"fmt"
	"math"
	"sort"
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
	// FrontierUtilization is the capacity utilization U of the offered load
	// (closed loop: of the served load) on the true frontier, the quantity
	// Σ rate_i/max_i estimates; 1 at saturation. It equals Utilization when
	// the conservation law holds and is below it under interference (U is
	// convex in the load).
	FrontierUtilization float64 `json:"frontier_utilization"`
	// HeadroomRatio is HeadroomIOPS / MaxIOPS: the share of the capacity at
	// this mix the offered load leaves free.
	HeadroomRatio float64 `json:"headroom_ratio"`

	ReadRatio float64    `json:"read_ratio"`
	Mix       []MixShare `json:"mix"`
	// SequentialShare is the scenario's share of merged block requests on
	// the OSD disks (load.sequential_share; the system disks aside).
	SequentialShare float64 `json:"sequential_share"`

	Latency Latencies `json:"latency_seconds"`

	// SLOSeconds is the latency objective asked for; SLOCrossingIOPS is the
	// offered load (at the current mix) at which mean latency reaches it,
	// 0 when even an idle cluster misses it.
	SLOSeconds      float64 `json:"slo_seconds"`
	SLOCrossingIOPS float64 `json:"slo_crossing_iops"`

	// SaturationTime is when offered load first reaches capacity at or
	// after Time (noise-free, searched 90 days ahead on a 5-minute grid and
	// at every event that changes load or capacity abruptly, the crossing
	// rounded to the nearest second: offered load may still be up to half a
	// second short of capacity then); nil if it does not happen within that
	// horizon.
	SaturationTime *time.Time `json:"saturation_time"`

	Hosts  int `json:"hosts"`
	OSDsUp int `json:"osds_up"`

	// Clients describes the client model (nil without clients.loop).
	Clients *ClientTruth `json:"clients,omitempty"`

	st state
	sc *Scenario
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
	Now   float64 `json:"now"`
	Read  float64 `json:"read"`
	Write float64 `json:"write"`
	// ZeroLoad is L0 of the mix; for a closed loop the latency of a lone
	// request, L0 (the delay station) plus one OSD's service time.
	ZeroLoad float64 `json:"zero_load"`
	// Knee is the latency at utilization 1 (knee_factor × zero-load).
	Knee    float64 `json:"knee"`
	At1_25x float64 `json:"at_1_25x"`
	At1_5x  float64 `json:"at_1_5x"`
	At2x    float64 `json:"at_2x"`
}

// ClientTruth is the ground truth of the client model.
type ClientTruth struct {
	Loop string `json:"loop"` // "open" or "closed"
	// Shape is the open loop's latency shape, "md1" or "hockey_stick";
	// empty for a closed loop, whose latency is the MVA of its network.
	Shape string `json:"shape,omitempty"`
	// Outstanding is the number of requests in the cluster: for a closed
	// loop the load itself, for an open loop served × latency (Little's law).
	Outstanding float64 `json:"outstanding"`
	// SaturationOutstanding (closed loop) is N* = MaxIOPS × zero-load
	// latency, where the asymptotes X = N/L(0) and X = MaxIOPS cross:
	// beyond it throughput bends toward MaxIOPS and latency grows toward
	// N/MaxIOPS.
	SaturationOutstanding float64 `json:"saturation_outstanding,omitempty"`
	// SLOCrossingOutstanding (closed loop) is the number outstanding at
	// which mean latency reaches the SLO: SLOCrossingIOPS × SLO.
	SLOCrossingOutstanding float64 `json:"slo_crossing_outstanding,omitempty"`
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
		SequentialShare:   c.sc.Load.SequentialShare,
		SLOSeconds:        sloSeconds,
		OSDsUp:            st.osdsUp,
		st:                st,
		sc:                c.sc,
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
	tr.FrontierUtilization = st.frontierU
	tr.HeadroomRatio = tr.HeadroomIOPS / st.capacity
	tr.SLOCrossingIOPS = tr.LoadAtLatency(sloSeconds)
	if cl := st.clients; cl != nil {
		tr.Clients = &ClientTruth{Loop: cl.Loop, Shape: cl.Shape, Outstanding: st.served * st.latAll()}
		switch cl.Loop {
		case "open":
			tr.Latency.Knee = tr.LatencyAt(st.capacity)
		case "closed":
			n := st.outstanding
			tr.Clients.Outstanding = n
			// The OSDs' service times add to the delay station's L0 even
			// for a lone request.
			_, tr.Latency.ZeroLoad = st.closedNet().at(0)
			tr.Clients.SaturationOutstanding = st.capacity * tr.Latency.ZeroLoad
			tr.Clients.SLOCrossingOutstanding = tr.SLOCrossingIOPS * sloSeconds
			_, tr.Latency.Knee, _ = tr.AtOutstanding(tr.Clients.SaturationOutstanding)
			_, tr.Latency.At1_25x, _ = tr.AtOutstanding(1.25 * n)
			_, tr.Latency.At1_5x, _ = tr.AtOutstanding(1.5 * n)
			_, tr.Latency.At2x, _ = tr.AtOutstanding(2 * n)
			return tr // a closed loop never reaches U = 1: no saturation time
		}
	}
	if ts, ok := c.saturationTime(sec); ok {
		tt := c.origin.Add(time.Duration(ts * float64(time.Second))).UTC()
		tr.SaturationTime = &tt
	}
	return tr
}

// UtilizationAt is the capacity utilization U an offered load of iops
// client IOPS would have at this instant's mix and topology, on the true
// frontier (iops / MaxIOPS when the conservation law holds).
func (tr Truth) UtilizationAt(iops float64) float64 {
	if tr.st.legacy {
		return iops / tr.st.capacity
	}
	return tr.st.fr.util(iops)
}

// LatencyAt is the mean client-op latency at a load of iops (offered for an
// open loop, completed for a closed one) at this instant's mix and
// topology. A closed loop cannot complete MaxIOPS or more: +Inf there.
func (tr Truth) LatencyAt(iops float64) float64 {
	st := &tr.st
	if st.clients == nil {
		return st.l0All() * latencyMultiplier(iops/st.capacity, st.kneeFactor())
	}
	if st.clients.Loop == "open" {
		return st.l0All() * st.openLoopMult(iops)
	}
	return st.closedNet().latencyAt(iops)
}

// LoadAtLatency is the load (IOPS) at which mean latency reaches lat
// (0 if the zero-load latency already exceeds it): the knee for an SLO of
// lat. For a closed loop it is always below MaxIOPS; for an open loop too
// as long as lat is below the latency at MaxIOPS (Latency.Knee).
func (tr Truth) LoadAtLatency(lat float64) float64 {
	if !(lat > 0) {
		return 0 // no load has a latency of 0 or less
	}
	st := &tr.st
	if st.clients != nil && st.clients.Loop == "closed" {
		return st.closedNet().atLatency(lat) / lat // Little's law
	}
	l0 := st.l0All()
	if lat <= l0 {
		return 0
	}
	m := lat / l0
	if st.clients == nil {
		return inverseLatencyMultiplier(m, st.kneeFactor()) * st.capacity
	}
	if mo := st.clients.shapeMult(openLoopOverload); m > mo {
		return st.fr.load(openLoopOverload) * m / mo
	}
	return st.fr.load(st.clients.shapeInverse(m))
}

// AtOutstanding solves a closed loop with n requests outstanding at this
// instant's mix and topology: the throughput (IOPS) and mean latency
// (seconds) with iops × latency = n (Little's law), by the exact MVA of the
// OSDs' queueing network (mva.go). It is an error for other client models.
func (tr Truth) AtOutstanding(n float64) (iops, latency float64, err error) {
	st := &tr.st
	if st.clients == nil || st.clients.Loop != "closed" {
		return 0, 0, fmt.Errorf("AtOutstanding: scenario %s has no closed-loop clients", tr.Scenario)
	}
	if !(n >= 0) || math.IsInf(n, 0) {
		return 0, 0, fmt.Errorf("AtOutstanding: n = %g, must be a finite number >= 0", n)
	}
	iops, latency = st.closedNet().at(n)
	return iops, latency, nil
}

// MaxIOPSAt is the true capacity (client IOPS at U = 1) at read share
// readRatio and op shares opShare (one per entry of Mix, in its order),
// with this instant's topology: what a forecast of the mix should be
// scored against.
func (tr Truth) MaxIOPSAt(readRatio float64, opShare []float64) (float64, error) {
	if !(readRatio >= 0 && readRatio <= 1) {
		return 0, fmt.Errorf("MaxIOPSAt: readRatio = %g, must be in [0, 1]", readRatio)
	}
	if len(opShare) != len(tr.Mix) {
		return 0, fmt.Errorf("MaxIOPSAt: opShare has %d entries, want %d (one per Mix size)", len(opShare), len(tr.Mix))
	}
	var sum float64
	for i, p := range opShare {
		if !(p >= 0) || math.IsInf(p, 0) {
			return 0, fmt.Errorf("MaxIOPSAt: opShare[%d] = %g, must be >= 0", i, p)
		}
		sum += p
	}
	if math.Abs(sum-1) > 1e-6 {
		return 0, fmt.Errorf("MaxIOPSAt: opShare sums to %g, must sum to 1", sum)
	}
	return tr.sc.frontierCoefficients(readRatio, opShare, tr.st.scale).load(1), nil
}

// saturationTime finds when offered load first reaches capacity at or after
// from (seconds since the origin). It tests a 5-minute grid and, besides it,
// every instant at which an event changes load or capacity abruptly or ends a
// ramp (eventInstants), so a saturation window shorter than the grid step is
// not stepped over; the crossing is then bisected to a millisecond and
// rounded to the nearest second (never before from). A window that opens and
// closes between two of those instants through smooth changes alone (a daily
// peak that just touches capacity for under 5 minutes) can still be missed.
func (c *Cluster) saturationTime(from float64) (float64, bool) {
	sat := func(s float64) bool {
		st := c.stateAt(s)
		return st.offered >= st.capacity
	}
	if sat(from) {
		return from, true
	}
	const step, horizon = 300.0, 90 * 86400.0
	instants := append(c.sc.eventInstants(from, from+horizon), c.cycleSwitches(from, from+horizon)...)
	for s := from + step; s <= from+horizon; s += step {
		instants = append(instants, s)
	}
	sort.Float64s(instants)
	prev := from
	for _, s := range instants {
		if s <= prev {
			continue // an event on a grid point, or twice
		}
		if sat(s) {
			return refineCrossing(sat, prev, s, from), true
		}
		prev = s
	}
	return 0, false
}

// refineCrossing bisects [lo, hi] (sat(lo) false, sat(hi) true) to a
// millisecond and rounds the crossing to the nearest second, not before from.
// The result depends on the crossing only, not on the bracket it was found in.
func refineCrossing(sat func(float64) bool, lo, hi, from float64) float64 {
	for hi-lo > 1e-3 {
		mid := (lo + hi) / 2
		if sat(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return math.Max(from, math.Round(hi))
}

// cycleSwitches lists the seconds after the origin in (from, to] at which a
// square daily cycle (demand's or the read ratio's) switches, and the middle
// of its window and of the rest of the day (at a switch itself rounding may
// put the hour on either side): a window shorter than the search's grid
// step opens and closes between two of its points, as an event's can.
func (c *Cluster) cycleSwitches(from, to float64) []float64 {
	var out []float64
	origin := float64(c.origin.Unix())
	for _, d := range []DailyCycle{c.sc.Load.Diurnal, c.sc.Load.ReadRatioDiurnal} {
		if d.Shape != "square" || !(d.Amplitude > 0) {
			continue
		}
		width := d.Hours
		if width == 0 {
			width = 12
		}
		for _, hour := range []float64{d.PeakHour - width/2, d.PeakHour + width/2, d.PeakHour, d.PeakHour + 12} {
			// The first s ≥ 0 whose time of day is hour, then every day.
			first := math.Mod(math.Mod(hour*3600-origin, 86400)+86400, 86400)
			s := first + math.Max(math.Floor((from-first)/86400)+1, 0)*86400
			for ; s <= to; s += 86400 {
				if s > from {
					out = append(out, s)
				}
			}
		}
	}
	return out
}

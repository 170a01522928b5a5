package storagesim

import (
	"math"
	"time"
)

// Tick is the resolution of the simulation: rates are constant within a tick
// and counters are integrated tick by tick from the origin (and linearly
// within the current tick), so any instant has one well-defined value.
const Tick = 5 * time.Second

const tickSeconds = float64(Tick / time.Second)

const mib = 1 << 20

// state is the noise-free ground truth at one instant.
type state struct {
	hostMask   uint64    // active host slots
	osdShare   []float64 // share of client ops per OSD slot (0 when down)
	hostShare  []float64 // share of client ops per host slot
	osdsUp     int
	visits     []float64 // closed loop: share of each OSD up over the largest share
	nnLoss     float64   // capacity taken by a noisy neighbour, 0..1
	readRatio  float64   // share of client ops that are reads
	mix        []float64 // share of client ops per capacity size index
	offered    float64   // offered client IOPS
	capacity   float64   // max client IOPS at this mix and topology
	served     float64   // min(offered, capacity)
	rho        float64   // offered / capacity
	latMult    float64   // latency / zero-load latency
	l0Read     float64   // zero-load mean read latency at this mix, seconds
	l0Write    float64
	meanRdSize float64 // bytes per read op at this mix
	meanWrSize float64
	knee       float64 // latency.knee_factor

	// The interference frontier and client models (opt-in; see frontier.go).
	fr          frontier    // U(X) of a total client rate X at this mix and topology
	frontierU   float64     // U at the offered load (open, legacy) or the served one (closed)
	clients     *ClientSpec // nil: the legacy latency curve
	outstanding float64     // closed loop: requests outstanding (the load)
	scale       float64     // OSDs up / OSDs at origin × (1 − noisy-neighbour loss)
	legacy      bool        // neither interference nor a client model
}

func (s *state) kneeFactor() float64 { return s.knee }

func (s *state) servedRead() float64  { return s.served * s.readRatio }
func (s *state) servedWrite() float64 { return s.served * (1 - s.readRatio) }
func (s *state) latRead() float64     { return s.l0Read * s.latMult }
func (s *state) latWrite() float64    { return s.l0Write * s.latMult }
func (s *state) l0All() float64       { return s.readRatio*s.l0Read + (1-s.readRatio)*s.l0Write }
func (s *state) latAll() float64      { return s.l0All() * s.latMult }

// latencyMultiplier is the queueing curve: 1/(1−sρ) up to the knee at ρ = 1
// (where it equals k), k·ρ beyond (closed-loop clients, Little's law).
func latencyMultiplier(rho, k float64) float64 {
	if rho < 0 {
		rho = 0
	}
	if rho <= 1 {
		s := 1 - 1/k
		return 1 / (1 - s*rho)
	}
	return k * rho
}

// inverseLatencyMultiplier gives ρ with latencyMultiplier(ρ, k) = m (m ≥ 1).
func inverseLatencyMultiplier(m, k float64) float64 {
	if m <= 1 {
		return 0
	}
	if m <= k {
		s := 1 - 1/k
		return (1 - 1/m) / s
	}
	return m / k
}

// hostEpoch is a span of time with one set of active hosts.
type hostEpoch struct {
	from      float64 // seconds since origin
	mask      uint64
	osdShare  []float64
	hostShare []float64
	osdsUp    int
	visits    []float64 // share of each OSD up over the largest (closedNet)
}

// buildHostEpochs resolves add_hosts/remove_hosts events into masks: added
// hosts take new slots, removed hosts are the highest active slots.
func (c *Cluster) buildHostEpochs() {
	sc := c.sc
	var mask uint64
	for h := 0; h < sc.Cluster.Hosts; h++ {
		mask |= 1 << h
	}
	next := sc.Cluster.Hosts
	c.epochs = append(c.epochs[:0], c.epoch(0, mask))
	for _, e := range sc.events {
		switch {
		case e.AddHosts > 0:
			for i := 0; i < e.AddHosts; i++ {
				mask |= 1 << next
				next++
			}
		case e.RemoveHosts > 0:
			for i := 0; i < e.RemoveHosts; i++ {
				for h := 63; h >= 0; h-- {
					if mask&(1<<h) != 0 {
						mask &^= 1 << h
						break
					}
				}
			}
		default:
			continue
		}
		c.epochs = append(c.epochs, c.epoch(e.at.Seconds(), mask))
	}
}

func (c *Cluster) epoch(from float64, mask uint64) hostEpoch {
	per := c.sc.Cluster.OSDsPerHost
	ep := hostEpoch{from: from, mask: mask, osdShare: make([]float64, len(c.osds)), hostShare: make([]float64, len(c.hosts))}
	var sum float64
	for i, o := range c.osds {
		if mask&(1<<o.host) != 0 {
			ep.osdShare[i] = o.weight
			sum += o.weight
			ep.osdsUp++
		}
	}
	var top float64
	ep.visits = make([]float64, 0, ep.osdsUp)
	for i := range ep.osdShare {
		ep.osdShare[i] /= sum
		ep.hostShare[i/per] += ep.osdShare[i]
		top = math.Max(top, ep.osdShare[i])
	}
	for _, s := range ep.osdShare {
		if s > 0 {
			ep.visits = append(ep.visits, s/top)
		}
	}
	return ep
}

// stateAt computes the ground truth at sec seconds after the origin.
func (c *Cluster) stateAt(sec float64) state {
	sc := c.sc
	st := state{readRatio: sc.Load.ReadRatio, mix: sc.mix0, knee: sc.Latency.KneeFactor}
	ep := &c.epochs[0]
	for i := range c.epochs {
		if c.epochs[i].from <= sec {
			ep = &c.epochs[i]
		}
	}
	st.hostMask, st.osdShare, st.hostShare, st.osdsUp, st.visits = ep.mask, ep.osdShare, ep.hostShare, ep.osdsUp, ep.visits

	loadFactor := 1.0
	for i := range sc.events {
		e := &sc.events[i]
		at := e.at.Seconds()
		if sec < at {
			break
		}
		p := 1.0
		if r := time.Duration(e.Ramp).Seconds(); r > 0 && sec < at+r {
			p = (sec - at) / r
		}
		switch {
		case e.LoadStep != 0:
			loadFactor *= 1 + (e.LoadStep-1)*p
		case e.ReadRatio != nil:
			st.readRatio += (*e.ReadRatio - st.readRatio) * p
		case e.mix != nil:
			if p == 1 {
				st.mix = e.mix
			} else {
				m := make([]float64, len(e.mix))
				for j := range m {
					m[j] = st.mix[j] + (e.mix[j]-st.mix[j])*p
				}
				st.mix = m
			}
		case e.NoisyNeighbour != nil:
			if sec < at+time.Duration(e.NoisyNeighbour.Duration).Seconds() {
				st.nnLoss = math.Max(st.nnLoss, e.NoisyNeighbour.CapacityLoss)
			}
		}
	}

	days := sec / 86400
	growth := 1.0
	switch sc.Load.Growth.Kind {
	case "exponential":
		growth = math.Pow(1+sc.Load.Growth.PerDay, days)
	default:
		growth = math.Max(0.01, 1+sc.Load.Growth.PerDay*days)
	}
	hour := math.Mod((float64(c.origin.Unix())+sec)/3600, 24)
	diurnal := 1.0
	if a := sc.Load.Diurnal.Amplitude; a > 0 {
		diurnal = 1 + a*sc.Load.Diurnal.level(hour)
	}
	if a := sc.Load.ReadRatioDiurnal.Amplitude; a > 0 {
		st.readRatio = math.Min(math.Max(st.readRatio+a*sc.Load.ReadRatioDiurnal.level(hour), 0), 1)
	}
	st.offered = sc.Load.BaseIOPS * growth * diurnal * loadFactor
	if sc.Clients.Loop == "closed" {
		st.outstanding = sc.Clients.Count * sc.Clients.QueueDepth * growth * diurnal * loadFactor
	}

	// Conservation: each op of class i uses 1/max_i of the capacity.
	r := st.readRatio
	var work, l0r, l0w, rdSize float64
	for i, p := range st.mix {
		pt := &sc.Capacity.Points[i]
		work += p * (r/pt.ReadIOPS + (1-r)/pt.WriteIOPS)
		sizeMiB := sc.sizes[i] / mib
		l0r += p * (time.Duration(sc.Latency.ReadBase).Seconds() + sizeMiB*time.Duration(sc.Latency.PerMiB).Seconds())
		l0w += p * (time.Duration(sc.Latency.WriteBase).Seconds() + sizeMiB*time.Duration(sc.Latency.PerMiB).Seconds())
		rdSize += p * sc.sizes[i]
	}
	work *= 1 + 4*sc.Capacity.ConservationDeviation*r*(1-r)
	scale := float64(st.osdsUp) / float64(c.initialOSDs) * (1 - st.nnLoss)
	st.scale = scale
	st.l0Read, st.l0Write = l0r, l0w
	st.meanRdSize, st.meanWrSize = rdSize, rdSize
	if sc.Capacity.Interference == nil && sc.Clients.Loop == "" {
		// The conservation law and the legacy latency curve.
		st.capacity = scale / work
		st.served = math.Min(st.offered, st.capacity)
		st.rho = st.offered / st.capacity
		st.latMult = latencyMultiplier(st.rho, sc.Latency.KneeFactor)
		st.fr = frontier{a: work / scale}
		st.frontierU = st.rho
		st.legacy = true
		return st
	}
	st.fr = frontier{a: work / scale}
	if sc.Capacity.Interference != nil {
		st.fr = sc.frontierCoefficients(r, st.mix, scale)
	}
	st.capacity = st.fr.load(1)
	switch sc.Clients.Loop {
	case "closed":
		// The MVA of the OSDs' queueing network (mva.go); reads and
		// writes keep their zero-load latencies' ratio.
		st.clients = &sc.Clients
		x, r := c.solveClosed(&st, ep)
		st.offered, st.served = x, x
		st.frontierU = st.fr.util(x)
		st.latMult = r / st.l0All()
	case "open":
		st.clients = &sc.Clients
		st.served = math.Min(st.offered, st.capacity)
		st.frontierU = st.fr.util(st.offered)
		st.latMult = st.openLoopMult(st.offered)
	default:
		st.served = math.Min(st.offered, st.capacity)
		st.frontierU = st.fr.util(st.offered)
		st.latMult = latencyMultiplier(st.offered/st.capacity, sc.Latency.KneeFactor)
	}
	st.rho = st.offered / st.capacity
	return st
}

// closedNet is the closed loop's queueing network at this state (mva.go):
// the OSDs up, the bottleneck saturating at the capacity, behind a delay of
// the zero-load latency of the mix.
func (s *state) closedNet() closedNet {
	return closedNet{capacity: s.capacity, z: s.l0All() * s.capacity, visits: s.visits}
}

// closedMemo is a closed loop's solution at one network and population.
type closedMemo struct {
	ep                   *hostEpoch
	z, capacity, n, x, r float64
}

// solveClosed is st.closedNet().at(st.outstanding), remembering the last
// answer: the population changes only at events and with growth and the
// daily cycle, and the history writer asks for several states per tick, so
// consecutive calls mostly repeat one network and population.
func (c *Cluster) solveClosed(st *state, ep *hostEpoch) (x, r float64) {
	nw := st.closedNet()
	if m := c.closedMemo.Load(); m != nil && m.ep == ep && m.z == nw.z && m.capacity == nw.capacity && m.n == st.outstanding {
		return m.x, m.r
	}
	x, r = nw.at(st.outstanding)
	c.closedMemo.Store(&closedMemo{ep: ep, z: nw.z, capacity: nw.capacity, n: st.outstanding, x: x, r: r})
	return x, r
}

// openLoopMult is an open-loop client's latency multiplier at an offered
// total rate x: the shape up to U = openLoopOverload, then proportional to
// the load.
func (s *state) openLoopMult(x float64) float64 {
	if u := s.fr.util(x); u <= openLoopOverload {
		return s.clients.shapeMult(u)
	}
	return s.clients.shapeMult(openLoopOverload) * x / s.fr.load(openLoopOverload)
}

// splitmix64 is the finalizer of SplitMix64: a fast, well-mixed hash.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// unit returns a uniform number in [0, 1) determined by (key, n).
func unit(key uint64, n int64) float64 {
	return float64(splitmix64(key^uint64(n)*0xd6e8feb86659fd93)>>11) / (1 << 53)
}

// noise returns a zero-mean, unit-variance triangular variate determined by
// (key, n): the sum of two uniforms, rescaled.
func noise(key uint64, n int64) float64 {
	h := splitmix64(key ^ uint64(n)*0xd6e8feb86659fd93)
	a := float64(h>>40) / (1 << 24)
	b := float64(h&0xffffff) / (1 << 24)
	return (a + b - 1) * 2.449489742783178 // sqrt(6)
}

// positive keeps a noisy factor 1+x from going negative.
func positive(f float64) float64 {
	if f < 0 {
		return 0
	}
	return f
}

package storagesim

import "math"

// The closed loop (clients.loop: closed) is a closed queueing network solved
// by exact mean-value analysis (Reiser & Lavenberg 1980), single class:
//
//   - one queueing station (one FCFS server) per OSD up, which a request
//     visits with probability share_k, the OSD's share of client ops (the
//     shares the per-OSD counters use, from osd_weight_spread), for a service
//     time of 1/(capacity · max_j share_j). OSD k's service demand per client
//     op is so
//
//     D_k = share_k / (max_j share_j · capacity),
//
//     and the most loaded OSD has D_max = 1/capacity: throughput saturates
//     exactly at the frontier's capacity at the current mix and topology
//     (X ≤ 1/D_max), the max IOPS of the open loops;
//   - one delay station Z = L0, the zero-load latency of the mix
//     (latency.read_base, write_base, per_mib): the client's and the
//     network's time, which every request spends whatever the load.
//
// With N requests outstanding, for n = 1 … N:
//
//	R_k(n) = D_k·(1 + Q_k(n−1)),  R(n) = Z + Σ_k R_k(n),  X(n) = n/R(n),  Q_k(n) = X(n)·R_k(n)
//
// R is linear in N between integers (R(0) = R(1) = Z + Σ_k D_k, the zero-load
// latency: a lone request waits nowhere) and X = N/R(N) (Little's law), as
// forecaster/queueing interpolates its one-queue MVA. Past maxPopulation
// every further request adds D_max (it waits at the bottleneck, where the
// exact R's slope tends). The model's MVA has one queue behind a delay; this
// network has one per OSD, nearly balanced, whose throughput bends toward
// capacity more slowly (K identical queues without delay: X(N) =
// N/(D·(N + K − 1)) against min(N, 1)/D for one).

// mvaMaxWork bounds the exact recursion's work, population × stations, so
// that a scenario of thousands of OSDs with a large outstanding count
// cannot stall every tick (about 4M multiply-adds, a few ms); the
// population it reaches is at most 1<<16 (12 OSDs: 1<<16; 10,000: 419).
const mvaMaxWork = 1 << 22

// maxPopulation is the largest population the recursion is run to.
func (nw closedNet) maxPopulation() int {
	return max(1, min(1<<16, mvaMaxWork/max(1, len(nw.visits))))
}

// closedNet is the closed loop's network at one state, in units of the
// bottleneck's demand 1/capacity: demand k is visits[k] (share_k over the
// largest share, so the largest is exactly 1) and the delay z = Z·capacity.
type closedNet struct {
	capacity float64
	z        float64
	visits   []float64
}

// mvaRun is an MVA recursion in progress: r = R(k) at population k (units
// of 1/capacity), q the OSDs' mean queue lengths at k.
type mvaRun struct {
	closedNet
	q []float64
	k int
	r float64
}

// run starts the recursion at population 1.
func (nw closedNet) run() *mvaRun {
	m := &mvaRun{closedNet: nw, q: make([]float64, len(nw.visits))}
	m.step()
	return m
}

// step advances the recursion to population k+1.
func (m *mvaRun) step() {
	m.k++
	r := m.z
	for i, d := range m.visits {
		r += d * (1 + m.q[i])
	}
	x := float64(m.k) / r
	for i, d := range m.visits {
		m.q[i] = x * d * (1 + m.q[i])
	}
	m.r = r
}

// at gives the throughput (IOPS) and mean latency (seconds) with n ≥ 0
// requests outstanding: X·R = n.
func (nw closedNet) at(n float64) (x, r float64) {
	m := nw.run()
	rn := m.r // R is flat on [0, 1]
	if n > 1 {
		top := math.Min(math.Ceil(n), float64(nw.maxPopulation()))
		prev := m.r
		for float64(m.k) < top {
			prev = m.r
			m.step()
		}
		if n > float64(m.k) {
			rn = m.r + (n - float64(m.k))
		} else {
			rn = prev + (n-float64(m.k-1))*(m.r-prev)
		}
	}
	return n / rn * nw.capacity, rn / nw.capacity
}

// atLatency gives the population (requests outstanding) whose mean latency
// is lat seconds, 0 when the zero-load latency already reaches it.
func (nw closedNet) atLatency(lat float64) float64 {
	l := lat * nw.capacity
	m := nw.run()
	if l <= m.r {
		return 0
	}
	for m.k < nw.maxPopulation() {
		prev := m.r
		m.step()
		if m.r >= l {
			return float64(m.k-1) + (l-prev)/(m.r-prev)
		}
	}
	return float64(m.k) + (l - m.r)
}

// latencyAt gives the mean latency (seconds) at a throughput of iops:
// +Inf at or above capacity, which the loop only approaches.
func (nw closedNet) latencyAt(iops float64) float64 {
	x := iops / nw.capacity
	if x >= 1 {
		return math.Inf(1)
	}
	m := nw.run()
	if x*m.r <= 1 {
		return m.r / nw.capacity // X(n) = n/R(1) on [0, 1]
	}
	// On [k−1, k] R(n) = R(k−1) + (n − k + 1)·ΔR, and X(n) = n/R(n) = x
	// gives n = x·(R(k−1) − (k−1)·ΔR)/(1 − x·ΔR); ΔR ≤ D_max = 1 (a request
	// more adds at most one to the OSDs' queues), so the divisor is > 0.
	// Past the recursion ΔR = 1.
	for {
		prev := m.r
		k0 := float64(m.k)
		if m.k >= nw.maxPopulation() {
			return (prev - k0) / (1 - x) / nw.capacity // R = n/x, ΔR = 1
		}
		m.step()
		if float64(m.k) >= x*m.r {
			dr := m.r - prev
			return (prev - k0*dr) / (1 - x*dr) / nw.capacity // R = n/x
		}
	}
}

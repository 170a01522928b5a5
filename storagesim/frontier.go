package storagesim

import "math"

// The interference frontier and the client models. Everything here is
// opt-in through capacity.interference and clients; a scenario without them
// takes the legacy code paths of model.go unchanged.

// frontier is the capacity utilization of a total client rate X at a fixed
// mix: U(X) = a·X + b·X². b = 0 is the conservation law.
type frontier struct{ a, b float64 }

// util is U at a total client rate x.
func (f frontier) util(x float64) float64 { return f.a*x + f.b*x*x }

// load is the total client rate with utilization u (the positive root of
// b·X² + a·X − u = 0, written so that it does not cancel).
func (f frontier) load(u float64) float64 {
	if u <= 0 {
		return 0
	}
	return 2 * u / (f.a + math.Sqrt(f.a*f.a+4*f.b*u))
}

// frontierCoefficients gives the frontier of the scenario's capacity points
// at read share r and op shares mix, for a cluster scaled by scale (OSDs up
// over OSDs at the origin, less a noisy neighbour's loss). With the per-size
// op shares p_S, w_S = r/R_S + (1−r)/W_S:
//
//	a = Σ_S p_S·w_S / scale
//	b = (Σ_S 4γ_S·p_S²·r(1−r)/(R_S·W_S) + 4η·Σ_{S<S'} p_S·w_S·p_S'·w_S') / scale²
//
// which is the scenario's U written in the total rate X (a_S = r·p_S·X/R_S,
// b_S = (1−r)·p_S·X/W_S).
func (sc *Scenario) frontierCoefficients(r float64, mix []float64, scale float64) frontier {
	var a, b float64
	eta := 0.0
	if sc.Capacity.Interference != nil {
		eta = sc.Capacity.Interference.BetweenSizes
	}
	w := make([]float64, len(mix))
	for i, p := range mix {
		pt := &sc.Capacity.Points[i]
		w[i] = p * (r/pt.ReadIOPS + (1-r)/pt.WriteIOPS)
		a += w[i]
		if sc.gamma != nil {
			b += 4 * sc.gamma[i] * p * p * r * (1 - r) / (pt.ReadIOPS * pt.WriteIOPS)
		}
		for j := 0; j < i; j++ {
			b += 4 * eta * w[i] * w[j]
		}
	}
	// The legacy deviation (0 whenever interference is set).
	a *= 1 + 4*sc.Capacity.ConservationDeviation*r*(1-r)
	return frontier{a: a / scale, b: b / (scale * scale)}
}

// openLoopOverload is the utilization beyond which an open-loop client's
// latency stops following the queueing shape: past it the backlog of an
// overloaded cluster would grow without bound, which a steady-state mean
// cannot express; the simulator lets latency rise in proportion to the load
// instead (continuous and increasing, so the SLO crossing stays unique).
const openLoopOverload = 0.99

// shapeMult is the latency multiplier of the client model's shape at
// frontier utilization u in [0, 1).
func (cl *ClientSpec) shapeMult(u float64) float64 {
	if u < 0 {
		u = 0
	}
	if u >= 1 {
		return math.Inf(1)
	}
	if cl.Shape == "hockey_stick" {
		return 1 + math.Pow(u, cl.Exponent)/(1-u)
	}
	return 1 + u/(2*(1-u)) // M/D/1 mean response over service time
}

// shapeInverse gives u in [0, 1) with shapeMult(u) = m (m ≥ 1).
func (cl *ClientSpec) shapeInverse(m float64) float64 {
	if m <= 1 {
		return 0
	}
	if cl.Shape != "hockey_stick" {
		// 1 + u/(2(1−u)) = m  ⇔  u = 2(m−1)/(2m−1)
		return 2 * (m - 1) / (2*m - 1)
	}
	lo, hi := 0.0, 1.0
	for i := 0; i < 200 && hi-lo > 0; i++ {
		mid := (lo + hi) / 2
		if mid == lo || mid == hi {
			break
		}
		if cl.shapeMult(mid) < m {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

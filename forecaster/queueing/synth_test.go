package queueing

import (
	"math"
	"math/rand/v2"
)

// Known truths. Service time 2 ms, so capacity C = 500 IOPS and U = X/C.
const (
	truthS = 0.002
	truthC = 1 / truthS
)

// mm1Latency is M/M/1: L = S/(1 − U).
func mm1Latency(u float64) float64 { return truthS / (1 - u) }

// md1Latency is M/D/1 (Pollaczek–Khinchine): L = S·(1 + U/(2(1 − U))).
func md1Latency(u float64) float64 { return truthS * (1 + u/(2*(1-u))) }

// openHistory draws n windows with U uniform on [0.05, uMax] and latency
// lat(U) with multiplicative log-normal noise.
func openHistory(rng *rand.Rand, n int, uMax, noise float64, lat func(float64) float64) []Sample {
	out := make([]Sample, n)
	for i := range out {
		u := 0.05 + (uMax-0.05)*rng.Float64()
		out[i] = Sample{U: u, Throughput: u * truthC, Latency: lat(u) * math.Exp(noise*rng.NormFloat64())}
	}
	return out
}

// truthDelay is the closed loop's fixed delay outside the queue (network,
// client stack): 4 ms; the clients' think time is 0.
const truthDelay = 0.004

// mvaExact is exact MVA of one queue (service time truthS) and the delay
// truthDelay for an integer population n: response time and throughput.
// Written out independently of the package's mvaCurve.
func mvaExact(n int) (r, x float64) {
	q := 0.0
	for k := 1; k <= n; k++ {
		rq := truthS * (1 + q) // residence at the queue
		r = truthDelay + rq
		x = float64(k) / r
		q = x * rq
	}
	return r, x
}

// closedLatencyAt is the closed loop's latency at utilization u, between the
// integer populations that bracket it (linear in n).
func closedLatencyAt(u float64) float64 {
	prevR, prevU := truthS+truthDelay, 0.0
	for n := 1; n < 100000; n++ {
		r, x := mvaExact(n)
		if x*truthS >= u {
			f := (u - prevU) / (x*truthS - prevU)
			return prevR + f*(r-prevR)
		}
		prevR, prevU = r, x*truthS
	}
	return math.Inf(1)
}

// closedHistory draws n windows of a closed loop whose population is uniform
// on 1..nMax (e.g. a client pool that grows and shrinks), with noise on
// both latency and throughput.
func closedHistory(rng *rand.Rand, n, nMax int, noise float64) []Sample {
	out := make([]Sample, n)
	for i := range out {
		r, x := mvaExact(1 + rng.IntN(nMax))
		x *= math.Exp(noise / 2 * rng.NormFloat64())
		out[i] = Sample{U: x / truthC, Throughput: x, Latency: r * math.Exp(noise*rng.NormFloat64())}
	}
	return out
}

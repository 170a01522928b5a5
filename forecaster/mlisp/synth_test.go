package mlisp

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/storcast/storcast/forecaster/backtest"
)

// mm1 is the known latency curve of the synthetic cluster: an M/M/1 queue
// with service time S (ms) and service rate Mu (IOPS), L(λ) = S/(1 − λ/Mu).
type mm1 struct{ S, Mu float64 }

func (q mm1) latency(iops float64) float64 { return q.S / (1 - iops/q.Mu) }

// synthCluster generates T windows of a cluster whose latency follows q with
// multiplicative noise of relative size noise, with IOPS uniform on
// [0.02, maxRho]·Mu, and counters:
//
//	queue_depth   = IOPS·latency/1000 (Little's law), noisy
//	cpu_busy      = 0.05 + 0.5·ρ, noisy
//	disk_util     = ρ, noisy
//	net_tx_bytes  = 4096·IOPS, noisy
//	noise_k       irrelevant uniform random counters (nNoise of them)
//	const_k       constant counters (nConst)
//	rare_errors   inactive: non-zero in 0.2% of windows
//	flaky         missing in 40% of windows
//	and a few scattered missing values in cpu_busy.
func synthCluster(rng *rand.Rand, q mm1, T int, maxRho, noise float64, nNoise, nConst int) Dataset {
	names := []string{"iops", "latency_ms", "queue_depth", "cpu_busy", "disk_util", "net_tx_bytes", "rare_errors", "flaky"}
	for k := 0; k < nNoise; k++ {
		names = append(names, fmt.Sprintf("noise_%d", k))
	}
	for k := 0; k < nConst; k++ {
		names = append(names, fmt.Sprintf("const_%d", k))
	}
	cols := make([][]float64, len(names))
	for j := range cols {
		cols[j] = make([]float64, T)
	}
	jit := func() float64 { return 1 + noise*rng.NormFloat64() }
	for t := 0; t < T; t++ {
		rho := 0.02 + (maxRho-0.02)*rng.Float64()
		iops := rho * q.Mu
		lat := q.latency(iops) * math.Exp(noise*rng.NormFloat64())
		cols[0][t] = iops
		cols[1][t] = lat
		cols[2][t] = iops * lat / 1000 * jit()
		cols[3][t] = (0.05 + 0.5*rho) * jit()
		if rng.Float64() < 0.01 {
			cols[3][t] = math.NaN()
		}
		cols[4][t] = rho * jit()
		cols[5][t] = 4096 * iops * jit()
		if rng.Float64() < 0.002 {
			cols[6][t] = 1
		}
		cols[7][t] = rng.Float64()
		if rng.Float64() < 0.4 {
			cols[7][t] = math.NaN()
		}
		for k := 0; k < nNoise; k++ {
			cols[8+k][t] = rng.Float64() * 100
		}
		for k := 0; k < nConst; k++ {
			cols[8+nNoise+k][t] = float64(k)
		}
	}
	return Dataset{Names: names, Columns: cols, IOPS: "iops", Latency: "latency_ms"}
}

// windows converts a Dataset made by synthCluster into backtest windows with
// every counter but IOPS and latency as features.
func windows(d Dataset) ([]backtest.Window, []string) {
	T := len(d.Columns[0])
	out := make([]backtest.Window, T)
	names := d.Names[2:]
	for t := 0; t < T; t++ {
		f := make([]float64, len(names))
		for j := range names {
			f[j] = d.Columns[j+2][t]
		}
		out[t] = backtest.Window{Load: d.Columns[0][t], Target: d.Columns[1][t], Features: f}
	}
	return out, names
}

package models

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/storcast/storcast/forecaster/queueing"
)

// The latency model's served accuracy on a history that reached capacity:
// 200 M/M/1 windows (S = 1 ms, U up to 0.95, 5% noise) and one window past
// capacity (U 1.02 by the frontier, the load's highest). The model answers
// "saturated" there by contract, which is the capacity model's claim and not
// a latency to score: before, that one window made the MAPE infinite and
// the accuracy 0 (StorcastModelInaccurate on any cluster that saturated).
func TestQueueingAccuracyOnAHistoryThatSaturated(t *testing.T) {
	const c = 1000.0 // IOPS at U = 1
	rng := rand.New(rand.NewPCG(7, 15))
	var samples []queueing.Sample
	for range 200 {
		u := 0.05 + 0.9*rng.Float64()
		samples = append(samples, queueing.Sample{U: u, Throughput: u * c, Latency: 0.001 / (1 - u) * math.Exp(0.05*rng.NormFloat64())})
	}
	samples = append(samples, queueing.Sample{U: 1.02, Throughput: 1.02 * c, Latency: 0.08})
	acc := QueueingFitter{}.backtest(samples)
	if !(acc > 0.9) {
		t.Errorf("accuracy %v on an M/M/1 history with one window past capacity, want > 0.9", acc)
	}
	// Every window above the split past capacity: nothing to score, no
	// accuracy (not a perfect nor a failed one).
	loads := make([]float64, len(samples))
	for i, s := range samples {
		loads[i] = s.Throughput
	}
	slices.Sort(loads)
	split := loads[int(0.8*float64(len(loads)-1))] // the default quantile's
	for i := range samples {
		if samples[i].Throughput > split {
			samples[i].U = 1.01
		}
	}
	if acc := (QueueingFitter{}).backtest(samples); !math.IsNaN(acc) {
		t.Errorf("accuracy %v with every scored window past capacity, want NaN (not measured)", acc)
	}
}

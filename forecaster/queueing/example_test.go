package queueing_test

import (
	"fmt"
	"math"

	"github.com/storcast/storcast/forecaster/queueing"
)

// An M/M/1 history (service time 2 ms, capacity 500 IOPS) observed up to 70%
// utilization, with a deterministic ±3% ripple on latency.
func Example() {
	var samples []queueing.Sample
	for i := 0; i < 200; i++ {
		u := 0.05 + 0.65*float64(i)/199
		lat := 0.002 / (1 - u) * (1 + 0.03*math.Sin(float64(i)))
		samples = append(samples, queueing.Sample{U: u, Throughput: 500 * u, Latency: lat})
	}
	m, err := queueing.Fit(samples, queueing.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println("class:", m.Class)
	p, _ := m.At(0.9)
	fmt.Printf("latency at U=0.9: %.1f ms (truth 20.0)\n", 1e3*p.Mean)
	knee, ok, _ := m.Knee(0.020)
	fmt.Printf("knee for a 20 ms SLO: U=%.2f (%v)\n", knee, ok)
	p, _ = m.At(1.1)
	fmt.Println("what-if at U=1.1: saturated =", p.Saturated)
	// Output:
	// class: open
	// latency at U=0.9: 20.0 ms (truth 20.0)
	// knee for a 20 ms SLO: U=0.90 (true)
	// what-if at U=1.1: saturated = true
}

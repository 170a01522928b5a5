package mlisp_test

import (
	"fmt"

	"github.com/storcast/storcast/forecaster/mlisp"
)

// The queueing baseline recovers service time and service rate from
// latencies that follow L = 2 ms / (1 − IOPS/2000).
func ExampleFitQueueing() {
	var iops, lat []float64
	for x := 100.0; x <= 1000; x += 100 {
		iops = append(iops, x)
		lat = append(lat, 2/(1-x/2000))
	}
	q, err := mlisp.FitQueueing(iops, lat)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("L0 = %.3f ms, mu = %.0f IOPS, latency at 1500 IOPS = %.2f ms\n", q.L0, q.Mu, q.Latency(1500))
	// Output:
	// L0 = 2.000 ms, mu = 2000 IOPS, latency at 1500 IOPS = 8.00 ms
}

// The knee against a latency SLO is where the upper band first reaches it.
func ExampleCurve_SLOCrossing() {
	c := &mlisp.Curve{Points: []mlisp.Point{
		{IOPS: 1000, Lower: 3.6, Mean: 4.0, Upper: 4.4},
		{IOPS: 1200, Lower: 4.3, Mean: 5.0, Upper: 5.7},
		{IOPS: 1400, Lower: 5.6, Mean: 6.7, Upper: 7.8},
	}}
	upper, _ := c.SLOCrossing(6, mlisp.Upper)
	mean, _ := c.SLOCrossing(6, mlisp.Mean)
	fmt.Printf("6 ms SLO: upper band at %.0f IOPS, mean at %.0f IOPS\n", upper, mean)
	// Output:
	// 6 ms SLO: upper band at 1229 IOPS, mean at 1318 IOPS
}

// Extrapolated points carry two bands: the calibrated one (Lower, Upper),
// which Storcast reports, and the paper's raw Kriging band (RawLower,
// RawUpper), usually too narrow beyond the data. The knee against an SLO
// comes earlier on the calibrated upper band.
func ExampleCurve_SLOCrossing_rawBand() {
	c := &mlisp.Curve{Points: []mlisp.Point{
		{IOPS: 1000, Mean: 4.0, RawLower: 3.8, RawUpper: 4.2, Lower: 3.7, Upper: 4.6},
		{IOPS: 1200, Mean: 5.0, RawLower: 4.7, RawUpper: 5.3, Lower: 4.4, Upper: 6.6},
		{IOPS: 1400, Mean: 6.0, RawLower: 5.6, RawUpper: 6.4, Lower: 5.0, Upper: 9.0},
	}}
	calibrated, _ := c.SLOCrossing(6, mlisp.Upper)
	raw, _ := c.SLOCrossing(6, mlisp.RawUpper)
	fmt.Printf("6 ms SLO: calibrated upper band at %.0f IOPS, raw Kriging band at %.0f IOPS\n", calibrated, raw)
	// Output:
	// 6 ms SLO: calibrated upper band at 1140 IOPS, raw Kriging band at 1327 IOPS
}

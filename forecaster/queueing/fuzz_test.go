package queueing

import (
	"math"
	"sort"
	"testing"

	"github.com/storcast/storcast/internal/fuzzbytes"
)

// FuzzFit: Fit on arbitrary samples (U, throughput, latency triples) either
// fails with an error or gives a model whose curve is non-decreasing and
// finite below capacity, saturated at it (within rounding), with a positive lower band and a
// knee below 1 (or none) at the median latency as SLO.
func FuzzFit(f *testing.F) {
	var seed []float64
	for i := 0; i < 30; i++ {
		u := 0.03 * float64(i+1)
		seed = append(seed, u, 500*u, 0.002/(1-u)*(1+0.01*float64(i%3)))
	}
	f.Add(fuzzbytes.Of(seed...), uint8(0))
	f.Add(fuzzbytes.Of(seed...), uint8(2))
	f.Add(fuzzbytes.Of(0.5, 1, 1, 0.5, 1, 1, 0.6, 2, 2, 1.2, 3, 3), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, class uint8) {
		v := fuzzbytes.Floats(data)
		n := len(v) / 3
		if n > 300 {
			return
		}
		samples := make([]Sample, n)
		lat := make([]float64, n)
		for i := range samples {
			samples[i] = Sample{U: v[3*i], Throughput: v[3*i+1], Latency: v[3*i+2]}
			lat[i] = v[3*i+2]
		}
		m, err := Fit(samples, Options{Class: Class(class % 3)})
		if err != nil {
			return
		}
		sort.Float64s(lat)
		pts, err := m.Curve(200)
		if err != nil {
			t.Fatal(err)
		}
		for i, p := range pts {
			if p.U >= 1 {
				if !p.Saturated {
					t.Fatalf("U=%v not saturated", p.U)
				}
				continue
			}
			if math.IsNaN(p.Mean) || math.IsNaN(p.Lower) || math.IsNaN(p.Upper) {
				t.Fatalf("NaN point %+v", p)
			}
			if p.Mean > 0 && !(p.Lower > 0) {
				t.Fatalf("lower %v not > 0 at %+v", p.Lower, p)
			}
			if i > 0 && p.Mean < pts[i-1].Mean {
				t.Fatalf("mean falls at %+v after %+v", p, pts[i-1])
			}
		}
		// A utilization computed back from the max IOPS is 1 only up to
		// rounding: still saturation.
		if p, err := m.At(1 - 1e-12); err != nil || !p.Saturated {
			t.Fatalf("At(1 − 1e-12) = %+v, %v: not saturated", p, err)
		}
		u, ok, err := m.Knee(lat[n/2])
		if err != nil {
			t.Fatal(err)
		}
		if ok && !(u >= 0 && u < 1) {
			t.Fatalf("knee %v outside [0, 1)", u)
		}
	})
}

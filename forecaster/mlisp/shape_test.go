package mlisp

import (
	"math"
	"testing"
)

// The convex floor: the top quarter of the data (IOPS ≥ 75) has latency
// 1 + 0.01·IOPS exactly, slope 0.01; a mean that falls or rises more slowly
// is lifted to y(X) + 0.01·(IOPS − X) and made non-decreasing, its band
// shifted with it; a mean above the floor is untouched.
func TestConstrainShape(t *testing.T) {
	m := &Model{MaxIOPS: 100}
	for x := 0.0; x <= 100; x += 5 {
		m.Samples = append(m.Samples, []float64{x, 1 + 0.01*x})
	}
	if s := m.topSlope(); math.Abs(s-0.01) > 1e-12 {
		t.Fatalf("top slope %v, want 0.01", s)
	}
	c := &Curve{Points: []Point{
		{IOPS: 100, Mean: 2, RawLower: 1.9, RawUpper: 2.1, Lower: 1.8, Upper: 2.2},
		{IOPS: 150, Mean: 1.5, RawLower: 1.4, RawUpper: 1.6, Lower: 1.3, Upper: 1.7},
		{IOPS: 200, Mean: 5, RawLower: 4.9, RawUpper: 5.1, Lower: 4.8, Upper: 5.2},
	}}
	m.constrainShape(c)
	want := []Point{
		{IOPS: 100, Mean: 2, RawLower: 1.9, RawUpper: 2.1, Lower: 1.8, Upper: 2.2},
		{IOPS: 150, Mean: 2.5, RawLower: 2.4, RawUpper: 2.6, Lower: 2.3, Upper: 2.7},
		{IOPS: 200, Mean: 5, RawLower: 4.9, RawUpper: 5.1, Lower: 4.8, Upper: 5.2},
	}
	for k := range want {
		g, w := c.Points[k], want[k]
		for _, v := range [][2]float64{{g.Mean, w.Mean}, {g.RawLower, w.RawLower}, {g.RawUpper, w.RawUpper}, {g.Lower, w.Lower}, {g.Upper, w.Upper}} {
			if math.Abs(v[0]-v[1]) > 1e-12 {
				t.Errorf("point %d: got %+v, want %+v", k, g, w)
				break
			}
		}
	}
	// Off by option and for the paper's variant.
	for _, o := range []Options{{NoConvexFloor: true}, {Kriging: KrigingPaper}} {
		m.Options = o
		c := &Curve{Points: []Point{{IOPS: 100, Mean: 2}, {IOPS: 150, Mean: 1.5}}}
		m.constrainShape(c)
		if c.Points[1].Mean != 1.5 {
			t.Errorf("options %+v: mean lifted to %v, want untouched", o, c.Points[1].Mean)
		}
	}
}

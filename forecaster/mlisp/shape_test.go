package mlisp

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
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
	if l := m.topLine(100); !l.ok || math.Abs(l.slope-0.01) > 1e-12 || math.Abs(l.level-2) > 1e-12 || l.se > 1e-9 {
		t.Fatalf("top line %+v, want slope 0.01, value 2 at 100, standard error 0", l)
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

// A walk that starts below the latency the history already showed at its
// top (a real Swift run: about 50 ms observed near X, 16 ms extrapolated at
// 3X) is lifted to the level of the top quarter: a queue's latency does not
// fall as load rises. With the top quarter flat the slope is 0, so the
// floor is that level, and a point above it keeps its value.
func TestConstrainShapeStartsAtObservedLevel(t *testing.T) {
	m := &Model{MaxIOPS: 40}
	for x := 0.0; x <= 40; x += 2 {
		m.Samples = append(m.Samples, []float64{x, 0.050})
	}
	c := &Curve{Points: []Point{
		{IOPS: 40, Mean: 0.030, Lower: 0.020, Upper: 0.040, RawLower: 0.025, RawUpper: 0.035},
		{IOPS: 120, Mean: 0.016, Lower: 0.011, Upper: 0.021, RawLower: 0.013, RawUpper: 0.019},
		{IOPS: 160, Mean: 0.080, Lower: 0.070, Upper: 0.090, RawLower: 0.075, RawUpper: 0.085},
	}}
	m.constrainShape(c)
	for k, want := range []float64{0.050, 0.050, 0.080} {
		p := c.Points[k]
		if math.Abs(p.Mean-want) > 1e-12 {
			t.Errorf("point %d: mean %v, want %v", k, p.Mean, want)
		}
		if !(p.Lower <= p.Mean && p.Mean <= p.Upper && p.RawLower <= p.Mean && p.Mean <= p.RawUpper) {
			t.Errorf("point %d: band %+v does not hold its mean", k, p)
		}
	}
	if got := c.Points[1].Upper - c.Points[1].Mean; math.Abs(got-0.005) > 1e-12 {
		t.Errorf("point 1: band moved by other than the lift: upper - mean = %v, want 0.005", got)
	}
}

// TestBandOrderWhenTheTrendGoesNegative: latency falling along a straight
// line with load (a history the regression Kriging extends below 0 past X)
// keeps lower <= mean <= upper at every extrapolated point. The lower bound
// was clamped at 0 before the convex floor lifted the whole band by the
// mean's deficit, which put it above the lifted mean (0.020 over 0.002 ms).
func TestBandOrderWhenTheTrendGoesNegative(t *testing.T) {
	var iops, lat []float64
	for k := 0; k < 40; k++ {
		x := 100 + 1800*float64(k)/39
		iops = append(iops, x)
		lat = append(lat, 0.02-1e-5*x)
	}
	m, err := Fit(Dataset{Names: []string{"iops", "lat"}, Columns: [][]float64{iops, lat}, IOPS: "iops", Latency: "lat"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range m.Curve.Points {
		if !(0 <= p.Lower && p.Lower <= p.Mean && p.Mean <= p.Upper && p.RawLower <= p.Mean && p.Mean <= p.RawUpper) {
			t.Errorf("at %.0f IOPS: lower %v, mean %v, upper %v (raw %v, %v)", p.IOPS, p.Lower, p.Mean, p.Upper, p.RawLower, p.RawUpper)
		}
	}
	if err := m.Curve.check(); err != nil {
		t.Errorf("the fitted curve fails the decoder's check: %v", err)
	}
}

// TestDecodeRefusesACurveFitDoesNotMake: a saved curve is served as saved,
// so one out of order (a band inverted, points out of IOPS order) or a
// sample above max_iops is refused at decoding.
func TestDecodeRefusesACurveFitDoesNotMake(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	m, err := Fit(chainData(rng, 600), Options{Steps: 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		modify func(*Model)
		want   string
	}{
		{"band inverted", func(m *Model) { p := &m.Curve.Points[3]; p.Lower, p.Upper = p.Upper, p.Lower }, "not 0 <= lower <= mean <= upper"},
		{"points out of order", func(m *Model) {
			m.Curve.Points[2].IOPS, m.Curve.Points[4].IOPS = m.Curve.Points[4].IOPS, m.Curve.Points[2].IOPS
		}, "comes after"},
		{"sample above max_iops", func(m *Model) { m.MaxIOPS = m.Samples[0][0] / 2 }, "is above max_iops"},
	} {
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		var edited Model
		if err := json.Unmarshal(b, &edited); err != nil {
			t.Fatal(err)
		}
		c.modify(&edited)
		if b, err = json.Marshal(&edited); err != nil {
			t.Fatal(err)
		}
		var back Model
		if err := json.Unmarshal(b, &back); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: decoded with %v; want an error saying %q", c.name, err, c.want)
		}
	}
}

package mlisp

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// The calibrated band is s(d) = ε + d² scaled log-quantiles around the mean,
// never narrower than the raw Kriging band: hand-computed values.
func TestCalibrationApply(t *testing.T) {
	cal := &Calibration{Epsilon: 0.1, UpperQ: 0.5, LowerQ: -0.2}
	c := &Curve{Points: []Point{
		{IOPS: 1000, Mean: 4, RawLower: 3.95, RawUpper: 4.1},
		{IOPS: 2000, Mean: 8, RawLower: 1, RawUpper: 20},
		{IOPS: 2000, Mean: 0, RawLower: 0, RawUpper: 1},
	}}
	cal.apply(c, 1000)
	want := []Point{
		// d = 0: s = 0.1.
		{IOPS: 1000, Mean: 4, RawLower: 3.95, RawUpper: 4.1, Lower: 4 * math.Exp(-0.02), Upper: 4 * math.Exp(0.05)},
		// d = 1: s = 1.1; the raw band is wider on both sides and is kept.
		{IOPS: 2000, Mean: 8, RawLower: 1, RawUpper: 20, Lower: 1, Upper: 20},
		// A non-positive mean has no log scale: the raw band stays (Lower
		// and Upper untouched here).
		{IOPS: 2000, Mean: 0, RawLower: 0, RawUpper: 1},
	}
	for k := range want {
		g, w := c.Points[k], want[k]
		if math.Abs(g.Lower-w.Lower) > 1e-12 || math.Abs(g.Upper-w.Upper) > 1e-12 || g.RawLower != w.RawLower || g.RawUpper != w.RawUpper {
			t.Errorf("point %d: got %+v, want %+v", k, g, w)
		}
	}
	var nilCal *Calibration
	nilCal.apply(c, 1000) // no calibration: no change, no panic
}

func TestConformalQuantile(t *testing.T) {
	v := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	// ⌈11·0.5⌉ = 6th smallest; ⌈11·0.975⌉ = 11 > n: the largest.
	if q := conformalQuantile(v, 0.5); q != 6 {
		t.Errorf("median-level quantile %v, want 6", q)
	}
	if q := conformalQuantile(v, 0.975); q != 10 {
		t.Errorf("97.5%% quantile of 10 scores %v, want 10", q)
	}
	if q := -conformalQuantile(negated(v), 0.975); q != 1 {
		t.Errorf("2.5%% quantile %v, want 1", q)
	}
}

// On the simulated M/M/1 cluster the mean bends below the truth: the
// calibration must find scores skewed upwards, widen the band around the
// raw one everywhere, and persist through JSON.
func TestFitCalibratesBand(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 11))
	d := synthCluster(rng, mm1{S: 2, Mu: 2000}, 1500, 0.4, 0.05, 5, 2)
	m, err := Fit(d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	cal := m.Calibration
	if cal == nil {
		t.Fatal("no calibration")
	}
	if cal.Residuals < minCalibrationResiduals || len(cal.Splits) != len(calibrationSplits) {
		t.Errorf("calibration %+v: want ≥ %d residuals from %d splits", cal, minCalibrationResiduals, len(calibrationSplits))
	}
	for k, s := range cal.Splits {
		if !(s < m.MaxIOPS) || (k > 0 && !(s > cal.Splits[k-1])) {
			t.Errorf("splits %v must increase and stay below X = %v", cal.Splits, m.MaxIOPS)
		}
	}
	// Skewed up: the local trend under-predicts a convex curve, so the
	// held-out samples lie mostly above the mean.
	if !(cal.UpperQ > 0 && cal.UpperQ > math.Abs(cal.LowerQ)) {
		t.Errorf("quantiles %v, %v: want upper > |lower|, upper > 0", cal.LowerQ, cal.UpperQ)
	}
	widened := 0
	for _, p := range m.Curve.Points {
		if !(0 <= p.Lower && p.Lower <= p.RawLower && p.RawLower <= p.Mean && p.Mean <= p.RawUpper && p.RawUpper <= p.Upper) {
			t.Errorf("point %+v: want 0 ≤ Lower ≤ RawLower ≤ Mean ≤ RawUpper ≤ Upper", p)
		}
		if p.Upper > p.RawUpper {
			widened++
		}
	}
	if widened < len(m.Curve.Points)/2 {
		t.Errorf("calibration widened only %d of %d upper points", widened, len(m.Curve.Points))
	}
	// The exporter's knee: the calibrated upper band reaches an SLO no later
	// than the raw one.
	slo := 1.5 * m.Curve.Points[0].Mean
	up, okUp := m.Curve.SLOCrossing(slo, Upper)
	raw, okRaw := m.Curve.SLOCrossing(slo, RawUpper)
	if !okUp || (okRaw && up > raw) {
		t.Errorf("SLO %v: calibrated upper crossing %v %v, raw %v %v", slo, up, okUp, raw, okRaw)
	}

	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var back Model
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Calibration, m.Calibration) {
		t.Errorf("calibration after JSON %+v, want %+v", back.Calibration, m.Calibration)
	}
	// A model persisted before calibration existed decodes with the raw band.
	var old map[string]json.RawMessage
	if err := json.Unmarshal(b, &old); err != nil {
		t.Fatal(err)
	}
	delete(old, "calibration")
	ob, _ := json.Marshal(old)
	var oldM Model
	if err := json.Unmarshal(ob, &oldM); err != nil {
		t.Fatal(err)
	}
	c, err := oldM.Extrapolate(2 * oldM.MaxIOPS)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range c.Points {
		if p.Lower != p.RawLower || p.Upper != p.RawUpper {
			t.Fatalf("uncalibrated model: point %+v, want the raw band", p)
		}
	}
	for _, bad := range []struct{ field, msg string }{
		{`{"epsilon":0,"upper_q":1,"lower_q":-1}`, "epsilon 0 must be > 0"},
		{`{"epsilon":0.1,"upper_q":-1,"lower_q":1}`, "lower_q 1 above upper_q -1"},
	} {
		old["calibration"] = json.RawMessage(bad.field)
		bb, _ := json.Marshal(old)
		var x Model
		if err := json.Unmarshal(bb, &x); err == nil || !strings.Contains(err.Error(), bad.msg) {
			t.Errorf("calibration %s: error %v, want %q", bad.field, err, bad.msg)
		}
	}
}

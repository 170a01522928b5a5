package queueing

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestJSONRoundTrip: a decoded model answers At, Curve and Knee exactly
// like the model that was encoded (open loop with its chosen exponent,
// closed loop, with and without a calibrated band).
func TestJSONRoundTrip(t *testing.T) {
	cases := []struct {
		name    string
		samples []Sample
		opt     Options
	}{
		{"M/M/1", openHistory(rand.New(rand.NewPCG(1, 7)), 1000, 0.95, 0.05, mm1Latency), Options{}},
		{"M/M/1 below U 0.6", openHistory(rand.New(rand.NewPCG(2, 7)), 50, 0.6, 0.05, mm1Latency), Options{}},
		{"closed MVA", closedHistory(rand.New(rand.NewPCG(3, 7)), 1000, 32, 0.05), Options{}},
		{"uncalibrated", openHistory(rand.New(rand.NewPCG(4, 7)), 200, 0.9, 0.05, md1Latency), Options{NoCalibration: true}},
	}
	// Closed loop over more seeds: the MVA table of a fitted model and of
	// its decoding come from the same delay ratio, D/S, to the last bit.
	for seed := uint64(10); seed < 20; seed++ {
		cases = append(cases, struct {
			name    string
			samples []Sample
			opt     Options
		}{fmt.Sprintf("closed MVA, seed %d", seed), closedHistory(rand.New(rand.NewPCG(seed, 7)), 300, 32, 0.05), Options{}})
	}
	for _, c := range cases {
		m, err := Fit(c.samples, c.opt)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(m.Residual) < 3 {
			t.Fatalf("%s: %d residual bins: the Kriging is not exercised", c.name, len(m.Residual))
		}
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var d Model
		if err := json.Unmarshal(b, &d); err != nil {
			t.Fatalf("%s: decoding: %v", c.name, err)
		}
		if d.Class != m.Class || d.Open != m.Open || d.N != m.N || (m.Calibration == nil) != (d.Calibration == nil) {
			t.Errorf("%s: decoded %+v, encoded %+v", c.name, d, *m)
		}
		want, _ := m.Curve(997) // off the grid: interpolation too
		got, err := d.Curve(997)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%s: point %d decoded %+v, encoded %+v", c.name, i, got[i], want[i])
			}
		}
		for _, slo := range []float64{0.003, 0.01, 0.05} {
			wu, wok, _ := m.Knee(slo)
			gu, gok, _ := d.Knee(slo)
			if wok != gok || (wok && wu != gu) {
				t.Errorf("%s: knee at %v s: decoded %v %v, encoded %v %v", c.name, slo, gu, gok, wu, wok)
			}
		}
	}
}

// TestDecodeRejectsBadModels: each field a decoded curve is rebuilt from
// is checked, and the error names it.
func TestDecodeRejectsBadModels(t *testing.T) {
	m, err := Fit(openHistory(rand.New(rand.NewPCG(5, 7)), 300, 0.9, 0.05, mm1Latency), Options{})
	if err != nil {
		t.Fatal(err)
	}
	good, _ := json.Marshal(m)
	edit := func(f func(map[string]any)) []byte {
		var v map[string]any
		if err := json.Unmarshal(good, &v); err != nil {
			t.Fatal(err)
		}
		f(v)
		b, _ := json.Marshal(v)
		return b
	}
	bins := func(n int) []any {
		out := make([]any, n)
		for i := range out {
			out[i] = map[string]any{"x": float64(i) / float64(n), "logResidual": 0.0}
		}
		return out
	}
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"class", edit(func(v map[string]any) { v["class"] = 7 }), "queueing: decoding model: class 7 is neither open (1) nor closed (2)"},
		{"auto class", edit(func(v map[string]any) { v["class"] = 0 }), "class 0 is neither open"},
		{"samples", edit(func(v map[string]any) { v["n"] = 2 }), "n 2: a model is fitted to at least 5 samples"},
		{"xMax", edit(func(v map[string]any) { v["xMax"] = 0 }), "xMax 0 must be finite and > 0"},
		{"sigma", edit(func(v map[string]any) { v["sigma"] = -1 }), "sigma -1 must be finite and >= 0"},
		{"exponent", edit(func(v map[string]any) { v["open"].(map[string]any)["q"] = -0.5 }), "open shape l0"},
		{"closed shape", edit(func(v map[string]any) {
			v["class"] = 2
			v["closed"].(map[string]any)["s"] = 0
		}), "closed shape s 0"},
		{"too many bins", edit(func(v map[string]any) { v["residual"] = bins(31) }), "31 residual bins, at most 30"},
		{"calibration", edit(func(v map[string]any) {
			v["calibration"] = map[string]any{"epsilon": 0.1, "upper_q": -1, "lower_q": 1}
		}), "calibration: lower_q 1 above upper_q -1"},
		{"a curve that is not positive", edit(func(v map[string]any) {
			o := v["open"].(map[string]any)
			o["l0"], o["a"] = 0.0, 0.0
		}), "the fitted curve is not finite and positive"},
		// Shapes the fitter never makes (L0, A >= 0, Q on its grid), though
		// the grid check alone would pass them (the curve is held at UMin).
		{"negative l0", edit(func(v map[string]any) {
			v["uMin"] = 0.3
			o := v["open"].(map[string]any)
			o["l0"], o["a"], o["q"] = -0.001, 0.01, 1.0
		}), "open shape l0 -0.001, a 0.01, q 1: l0 and a must be finite and >= 0, q one of [0 0.25 0.5 0.75 1 1.25 1.5 1.75 2]"},
		{"negative a", edit(func(v map[string]any) { v["open"].(map[string]any)["a"] = -0.0001 }), "l0 and a must be finite and >= 0"},
		{"exponent off the grid", edit(func(v map[string]any) { v["open"].(map[string]any)["q"] = 7.0 }), "q one of [0 0.25"},
		{"not JSON", []byte(`{"class": "open"`), "unexpected end of JSON input"},
	} {
		var d Model
		err := json.Unmarshal(c.data, &d)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to contain %q", c.name, err, c.want)
		}
		if _, err := d.At(0.5); err == nil {
			t.Errorf("%s: the model that failed to decode answers", c.name)
		}
	}
}

// A latency in proportion to the load (no latency at no load, as real
// Ceph's op latency looked from U 0.17 on, 2026-11-25 06:05) is fitted; the
// curve holds its value at the lowest utilization seen below it instead of
// reaching 0, and rises from there.
func TestLatencyProportionalToLoad(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 7))
	samples := make([]Sample, 50)
	for i := range samples { // U 0.17-0.6, as the real ramp's lower steps
		u := 0.17 + 0.43*rng.Float64()
		samples[i] = Sample{U: u, Throughput: u * truthC, Latency: 0.005 * u * (1 + 0.03*rng.NormFloat64())}
	}
	m, err := Fit(samples, Options{})
	if err != nil {
		t.Fatal(err)
	}
	at := func(u float64) Point {
		p, err := m.At(u)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	// At no load the value at the last grid point below UMin, which holds
	// UMin's (At is linear between grid points).
	low, zero := at(m.UMin), at(0)
	if !(zero.Mean > 0) || zero.Mean > low.Mean || zero.Mean < 0.995*low.Mean || zero.Mean != at(m.UMin/2).Mean || zero.Upper != at(m.UMin/2).Upper {
		t.Errorf("at no load %+v, at the lowest U seen (%v) %+v: want it held there, positive", zero, m.UMin, low)
	}
	if p := at(0.5); p.Mean < 0.9*0.0025 || p.Mean > 1.1*0.0025 {
		t.Errorf("at U 0.5 %v s, truth 2.5 ms", p.Mean)
	}
}

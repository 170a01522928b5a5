package mlisp

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/storcast/storcast/forecaster/regress"
)

// chainData: latency depends on util only; util depends on IOPS; the other
// counters are noise, constant or inactive. The signature must be found by
// the closure: {iops, latency, util} — and no noise counter.
func chainData(rng *rand.Rand, T int) Dataset {
	names := []string{"iops", "lat", "util", "noise_a", "noise_b", "const", "idle"}
	cols := make([][]float64, len(names))
	for j := range cols {
		cols[j] = make([]float64, T)
	}
	for t := 0; t < T; t++ {
		iops := 50 + 950*rng.Float64()
		util := iops / 2000 * (1 + 0.02*rng.NormFloat64())
		cols[0][t] = iops
		cols[1][t] = 2 / (1 - util) * (1 + 0.02*rng.NormFloat64())
		cols[2][t] = util
		cols[3][t] = rng.Float64()
		cols[4][t] = rng.NormFloat64()
		cols[5][t] = 42
	}
	return Dataset{Names: names, Columns: cols, IOPS: "iops", Latency: "lat"}
}

func TestSignatureAndCleansing(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	d := chainData(rng, 1500)
	m, err := Fit(d, Options{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	// IOPS and latency first, then util, the one counter latency depends
	// on: exactly, so that a closure that misses util fails as one that
	// takes a noise counter does.
	if want := []string{"iops", "lat", "util"}; !slices.Equal(m.Signature, want) || m.SignatureTruncated {
		t.Fatalf("signature %v (truncated %v), want %v", m.Signature, m.SignatureTruncated, want)
	}
	cl := m.Cleansing
	if !slices.Equal(cl.Constant, []string{"const", "idle"}) {
		t.Errorf("constant counters %v, want [const idle]", cl.Constant)
	}
	if cl.Windows != 1500 || cl.CleanWindows != 1500 || cl.WorkingSetSize != 1000 || len(m.Samples) != 1000 {
		t.Errorf("cleansing %+v, %d samples", cl, len(m.Samples))
	}
	if got := len(m.Curve.Points); got != 21 {
		t.Errorf("%d curve points, want 21", got)
	}
	if m.Curve.Points[0].IOPS != m.MaxIOPS || math.Abs(m.Curve.Points[20].IOPS-2*m.MaxIOPS) > 1e-9 {
		t.Errorf("curve spans [%v, %v], want [X, 2X] with X=%v", m.Curve.Points[0].IOPS, m.Curve.Points[20].IOPS, m.MaxIOPS)
	}
	for _, p := range m.Curve.Points {
		if !(p.Lower <= p.Mean && p.Mean <= p.Upper) || p.Lower < 0 {
			t.Errorf("bad band %+v", p)
		}
	}
}

func TestCleansingDropsAndMissing(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	d := chainData(rng, 400)
	// 'noise_a' missing in half the windows: dropped as often missing.
	// 'noise_b' missing in 5 windows: those windows are dropped.
	// 'idle' non-zero once: inactive (under 1% of windows).
	for t := 0; t < 400; t += 2 {
		d.Columns[3][t] = math.NaN()
	}
	for _, t := range []int{1, 3, 5, 7, 9} {
		d.Columns[4][t] = math.NaN()
	}
	d.Columns[6][100] = 5
	// Two idle windows (IOPS zero, latency missing).
	d.Columns[0][11], d.Columns[1][13] = 0, math.NaN()
	m, err := Fit(d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	cl := m.Cleansing
	if !slices.Equal(cl.OftenMissing, []string{"noise_a"}) || !slices.Equal(cl.Inactive, []string{"idle"}) || !slices.Equal(cl.Constant, []string{"const"}) {
		t.Errorf("dropped counters: %+v", cl)
	}
	if cl.Idle != 2 || cl.MissingValues != 5 || cl.CleanWindows != 393 || cl.Counters != 4 {
		t.Errorf("cleansing %+v", cl)
	}
}

// Recency weighting draws more recent windows than uniform sampling.
func TestRecencyWeightedWorkingSet(t *testing.T) {
	windows := make([]int, 5000)
	for i := range windows {
		windows[i] = i
	}
	mean := func(v []int) float64 {
		var s float64
		for _, x := range v {
			s += float64(x)
		}
		return s / float64(len(v))
	}
	uni := subsample(windows, Options{WorkingSet: 500, Seed: 1})
	rec := subsample(windows, Options{WorkingSet: 500, Seed: 1, RecencyHalfLife: 500})
	if len(uni) != 500 || len(rec) != 500 || !slices.IsSorted(uni) || !slices.IsSorted(rec) {
		t.Fatal("working sets must have 500 windows in time order")
	}
	if mu := mean(uni); math.Abs(mu-2500) > 200 {
		t.Errorf("uniform working set has mean window %v, want ≈2500", mu)
	}
	if mr := mean(rec); mr < 4000 {
		t.Errorf("recency-weighted working set has mean window %v, want > 4000", mr)
	}
	again := subsample(windows, Options{WorkingSet: 500, Seed: 1})
	if !slices.Equal(uni, again) {
		t.Error("the same seed must give the same working set")
	}
}

// Known truth: latency exactly linear in IOPS (plus 1% noise). The
// regression-Kriging variant extrapolates a line, so it must stay within a
// few percent up to twice the observed load, and the band must contain it.
func TestExtrapolatesLinearLatency(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	T := 800
	d := Dataset{Names: []string{"iops", "lat", "cpu"}, IOPS: "iops", Latency: "lat", Columns: [][]float64{make([]float64, T), make([]float64, T), make([]float64, T)}}
	for t := 0; t < T; t++ {
		x := 100 + 900*rng.Float64()
		d.Columns[0][t] = x
		d.Columns[1][t] = (1 + 0.004*x) * (1 + 0.01*rng.NormFloat64())
		d.Columns[2][t] = 0.0005 * x * (1 + 0.01*rng.NormFloat64())
	}
	m, err := Fit(d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range m.Curve.Points {
		want := 1 + 0.004*p.IOPS
		if e := math.Abs(p.Mean-want) / want; e > 0.05 {
			t.Errorf("at %v IOPS: %v, want %v (error %.1f%%)", p.IOPS, p.Mean, want, 100*e)
		}
	}
}

func TestCurveSLOCrossingAndKnee(t *testing.T) {
	c := &Curve{Points: []Point{
		{IOPS: 0, Lower: 0, Mean: 0, Upper: 0.5},
		{IOPS: 1, Lower: 0.05, Mean: 0.1, Upper: 0.6},
		{IOPS: 2, Lower: 0.1, Mean: 0.2, Upper: 1.2},
		{IOPS: 3, Lower: 0.5, Mean: 1, Upper: 2},
	}}
	// Normalized: x = 0, 1/3, 2/3, 1; y = 0, 0.1, 0.2, 1 → x − y is largest
	// (0.467) at IOPS 2.
	if k, ok := c.Knee(); !ok || k.IOPS != 2 {
		t.Errorf("knee %+v %v, want IOPS 2", k, ok)
	}
	// Upper crosses 1.0 between IOPS 1 (0.6) and 2 (1.2): 1 + 0.4/0.6.
	if x, ok := c.SLOCrossing(1.0, Upper); !ok || math.Abs(x-(1+0.4/0.6)) > 1e-12 {
		t.Errorf("upper crossing %v %v", x, ok)
	}
	// Mean crosses 1.0 exactly at IOPS 3.
	if x, ok := c.SLOCrossing(1.0, Mean); !ok || x != 3 {
		t.Errorf("mean crossing %v %v", x, ok)
	}
	if _, ok := c.SLOCrossing(1.0, Lower); ok {
		t.Error("lower bound never reaches 1.0, want ok=false")
	}
	if x, ok := c.SLOCrossing(0.4, Upper); !ok || x != 0 {
		t.Errorf("already above the SLO at the start: %v %v, want 0 true", x, ok)
	}
	if p, ok := c.At(2.5); !ok || math.Abs(p.Mean-0.6) > 1e-12 || math.Abs(p.Upper-1.6) > 1e-12 {
		t.Errorf("At(2.5) = %+v %v", p, ok)
	}
	if _, ok := c.At(3.5); ok {
		t.Error("At beyond the curve must report ok=false")
	}
	flat := &Curve{Points: []Point{{IOPS: 0, Mean: 1}, {IOPS: 1, Mean: 1}, {IOPS: 2, Mean: 1}}}
	if _, ok := flat.Knee(); ok {
		t.Error("a flat curve has no knee")
	}
}

func TestModelJSONRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	m, err := Fit(chainData(rng, 600), Options{Steps: 10})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var back Model
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	c1, err := m.Extrapolate(3 * m.MaxIOPS)
	if err != nil {
		t.Fatal(err)
	}
	c2, err := back.Extrapolate(3 * m.MaxIOPS)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(c1.Points, c2.Points) {
		t.Errorf("decoded model extrapolates differently:\n%v\n%v", c1.Points, c2.Points)
	}
	if !slices.Equal(m.Curve.Points, back.Curve.Points) {
		t.Error("persisted curve changed")
	}
	for _, bad := range []string{`{}`, `{"signature":["a","b"],"samples":[[1]]}`, `{"signature":["a","b"],"samples":[[1,2],[2,3]],"max_iops":0}`, `[`} {
		var m Model
		if err := json.Unmarshal([]byte(bad), &m); err == nil {
			t.Errorf("decoding %s: no error", bad)
		}
	}
}

func TestFitRejectsBadInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	good := func() Dataset { return chainData(rng, 100) }
	cases := []struct {
		name string
		edit func(*Dataset)
		opt  Options
		want string
	}{
		{"no names", func(d *Dataset) { d.Names = nil }, Options{}, "Names: empty"},
		{"columns mismatch", func(d *Dataset) { d.Columns = d.Columns[:3] }, Options{}, "Columns: 3 columns for 7 names"},
		{"ragged", func(d *Dataset) { d.Columns[2] = d.Columns[2][:50] }, Options{}, `counter "util" has 50 windows`},
		{"duplicate", func(d *Dataset) { d.Names[3] = "util" }, Options{}, `duplicate counter "util"`},
		{"empty name", func(d *Dataset) { d.Names[3] = "" }, Options{}, "Names: element 3 is empty"},
		{"inf", func(d *Dataset) { d.Columns[2][7] = math.Inf(1) }, Options{}, `counter "util" window 7 is +Inf`},
		{"no iops", func(d *Dataset) { d.IOPS = "ops" }, Options{}, `IOPS: counter "ops" not in Names`},
		{"no latency", func(d *Dataset) { d.Latency = "" }, Options{}, "Latency"},
		{"constant latency", func(d *Dataset) {
			for t := range d.Columns[1] {
				d.Columns[1][t] = 3
			}
		}, Options{}, `Latency: counter "lat" is constant`},
		{"all missing", func(d *Dataset) {
			for t := range d.Columns[1] {
				d.Columns[1][t] = math.NaN()
			}
		}, Options{}, "0 windows with positive IOPS and latency"},
		{"no windows", func(d *Dataset) {
			for j := range d.Columns {
				d.Columns[j] = nil
			}
		}, Options{}, "Columns: no windows"},
		{"bad tolerance", func(d *Dataset) {}, Options{Tolerance: 1.5}, "Tolerance"},
		{"bad horizon", func(d *Dataset) {}, Options{Horizon: 0.5}, "Horizon"},
		{"bad kriging", func(d *Dataset) {}, Options{Kriging: "gp"}, "Kriging"},
	}
	for _, c := range cases {
		d := good()
		c.edit(&d)
		_, err := Fit(d, c.opt)
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		if !errors.Is(err, regress.ErrInput) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %q, want ErrInput mentioning %q", c.name, err, c.want)
		}
	}
	m, err := Fit(good(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, to := range []float64{math.NaN(), m.MaxIOPS, math.Inf(1)} {
		if _, err := m.Extrapolate(to); err == nil {
			t.Errorf("Extrapolate(%v): no error", to)
		}
	}
	var empty Model
	if _, err := empty.Extrapolate(10); err == nil {
		t.Error("Extrapolate on an unfitted model: no error")
	}
}

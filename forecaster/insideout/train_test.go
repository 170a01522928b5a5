package insideout

import (
	"encoding/json"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/storcast/storcast/forecaster/regress"
	"gonum.org/v1/gonum/mat"
)

// The truth of the synthetic cluster: each target is a sum over OSD hosts.
var truth = map[Target]string{
	ReadIOPS:   "osd/disk_read_ops/sum",
	WriteIOPS:  "osd/disk_write_ops/sum",
	ReadBytes:  "osd/disk_read_bytes/sum",
	WriteBytes: "osd/disk_write_bytes/sum",
}

func TestTrainRecoversKnownTruth(t *testing.T) {
	s := synthSchema(16, 6)
	ws, ys := synthWindows(1, 600, 8, 12, s)
	m, err := Train(s, ws, ys, Options{Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	X, err := s.AggregateAll(ws)
	if err != nil {
		t.Fatal(err)
	}
	std, err := regress.FitStandardizer(X)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Features) != s.NumFeatures() || len(m.Targets) != 4 || m.Skipped != nil {
		t.Fatalf("model shape: %d features, %d targets, skipped %v", len(m.Features), len(m.Targets), m.Skipped)
	}
	for tg, want := range truth {
		tm := m.Targets[tg]
		t.Logf("%s: CV accuracy %.4f, a=%g alpha=%.3g, kept %d, selected %v", tg, tm.CVAccuracy, tm.Threshold, tm.Alpha, len(tm.Kept), tm.Selected)
		// Noise is 1% on the target and 2% per host counter: MAPE ≈ 1%.
		if tm.CVAccuracy < 0.97 {
			t.Errorf("%s: CV accuracy %.4f < 0.97", tg, tm.CVAccuracy)
		}
		if !slices.Contains(tm.Selected, want) {
			t.Errorf("%s: true feature %s not selected: %v", tg, want, tm.Selected)
		}
		// Irrelevant features: most are dropped, and the few the Lasso keeps
		// have a negligible effect: |coef|·std(feature) below 1% of the
		// true feature's.
		var noise, noiseSelected int
		jt := slices.Index(m.Features, want)
		trueEffect := math.Abs(tm.Coef[jt]) * std.Scale[jt]
		for j, f := range m.Features {
			if !strings.Contains(f, "noise_") {
				continue
			}
			noise++
			if tm.Coef[j] != 0 {
				noiseSelected++
				if e := math.Abs(tm.Coef[j]) * std.Scale[j]; e > 0.01*trueEffect {
					t.Errorf("%s: noise feature %s has effect %.3g, true feature %.3g", tg, f, e, trueEffect)
				}
			}
		}
		if noiseSelected > noise/10 {
			t.Errorf("%s: %d of %d pure-noise features selected, want ≤ 10%%", tg, noiseSelected, noise)
		}
		j := slices.Index(m.Features, want)
		// The sum of host counters is the target: coefficient ≈ 1.
		if c := tm.Coef[j]; math.Abs(c-1) > 0.1 {
			t.Errorf("%s: coefficient of %s = %.4f, want 1 ± 0.1", tg, want, c)
		}
	}
}

func TestModelAcceptsOtherHostCounts(t *testing.T) {
	s := synthSchema(12, 4)
	ws, ys := synthWindows(2, 500, 8, 12, s)
	m, err := Train(s, ws, ys, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	// Trained on 8-12 OSD hosts; score on 30-40 and on 4.
	for _, hosts := range [][2]int{{30, 40}, {4, 4}} {
		test, measured := synthWindows(99, 200, hosts[0], hosts[1], s)
		acc, err := m.Score(test, measured)
		if err != nil {
			t.Fatal(err)
		}
		for tg, a := range acc {
			if a < 0.95 {
				t.Errorf("%d-%d hosts: %s accuracy %.4f < 0.95", hosts[0], hosts[1], tg, a)
			}
		}
		if NeedsRetrain(acc, 0.9) {
			t.Errorf("%d-%d hosts: NeedsRetrain(0.9) with accuracies %v", hosts[0], hosts[1], acc)
		}
		p, err := m.Predict(test[0])
		if err != nil {
			t.Fatal(err)
		}
		if rel := math.Abs(p[ReadIOPS]-measured[ReadIOPS][0]) / measured[ReadIOPS][0]; rel > 0.1 {
			t.Errorf("%d-%d hosts: read IOPS predicted %.0f, measured %.0f", hosts[0], hosts[1], p[ReadIOPS], measured[ReadIOPS][0])
		}
	}
}

func TestNeedsRetrainWhenWorkloadChanges(t *testing.T) {
	s := synthSchema(12, 4)
	ws, ys := synthWindows(3, 400, 8, 12, s)
	m, err := Train(s, ws, ys, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	// The cluster changes: every measured read now costs twice the disk ops
	// (say, a cache was lost), so the old model over-predicts reads by 2x.
	test, measured := synthWindows(4, 100, 8, 12, s)
	for i := range measured[ReadIOPS] {
		measured[ReadIOPS][i] /= 2
	}
	acc, err := m.Score(test, measured)
	if err != nil {
		t.Fatal(err)
	}
	if acc[ReadIOPS] > 0.5 || !NeedsRetrain(acc, 0.9) {
		t.Errorf("after the change: accuracy %v, NeedsRetrain %v; want read accuracy ≤ 0.5 and a retrain", acc, NeedsRetrain(acc, 0.9))
	}
}

func TestModelJSONRoundTrip(t *testing.T) {
	s := synthSchema(8, 3)
	ws, ys := synthWindows(5, 200, 4, 6, s)
	m, err := Train(s, ws, ys, Options{Seed: 1, Folds: 5})
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
	if err := back.Validate(); err != nil {
		t.Fatal(err)
	}
	p1, _ := m.Predict(ws[0])
	p2, err := back.Predict(ws[0])
	if err != nil {
		t.Fatal(err)
	}
	for tg, v := range p1 {
		if p2[tg] != v {
			t.Errorf("%s: %v before JSON, %v after", tg, v, p2[tg])
		}
	}
}

// A served prediction is a rate: never negative, even where the linear
// model extrapolates below zero (as it did on a real Ceph cluster whose
// hosts also ran other work).
func TestPredictionsAreNeverNegative(t *testing.T) {
	m := &Model{
		Features: []string{"osd/cpu/mean"},
		Targets: map[Target]*TargetModel{
			ReadIOPS:  {Coef: []float64{100}, Intercept: -500},
			WriteIOPS: {Coef: []float64{-100}, Intercept: 500},
		},
	}
	for _, cpu := range []float64{0, 2, 5, 8, 50} {
		p, err := m.PredictFeatures([]float64{cpu})
		if err != nil {
			t.Fatal(err)
		}
		wantRead, wantWrite := math.Max(100*cpu-500, 0), math.Max(500-100*cpu, 0)
		if p[ReadIOPS] != wantRead || p[WriteIOPS] != wantWrite {
			t.Errorf("cpu %v: read %v write %v, want %v and %v", cpu, p[ReadIOPS], p[WriteIOPS], wantRead, wantWrite)
		}
	}
}

// A linear model is evidence only inside the host states it learned from:
// each feature is held inside its training range before the coefficients
// apply. On a real Ceph run (memstore OSDs) the hosts' disk reads sat at
// 0-1.3/s while the model learned, earned a coefficient of tens of
// thousands of IOPS per read/s, and 5.6 reads/s of a starting job turned
// into 316,000 predicted read IOPS where the cluster did 4,000.
func TestPredictionHoldsFeaturesInTrainingRange(t *testing.T) {
	m := &Model{
		Features:   []string{"osd/cpu_busy/sum", "osd/disk_reads/sum"},
		Targets:    map[Target]*TargetModel{ReadIOPS: {Coef: []float64{1000, 56000}}},
		FeatureMin: []float64{0, 0},
		FeatureMax: []float64{4, 0.5},
	}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ cpu, reads, want float64 }{
		{2, 0.2, 2000 + 56000*0.2}, // inside: the linear model itself
		{2, 5.6, 2000 + 56000*0.5}, // reads held at their training maximum
		{9, 0, 4000},               // cpu held at its maximum
		{-1, -3, 0},                // both held at their minimum
	} {
		p, err := m.PredictFeatures([]float64{c.cpu, c.reads})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(p[ReadIOPS]-c.want) > 1e-9 {
			t.Errorf("cpu %v, disk reads %v: %v read IOPS, want %v", c.cpu, c.reads, p[ReadIOPS], c.want)
		}
	}
	// Scored, the linear model itself: hosts outside the training range
	// must still lower the accuracy that triggers a retrain.
	// (300,000 measured: the linear model's 315,600 scores 0.948, the held
	// 30,000 would score 0.1.)
	acc, err := m.ScoreFeatures(mat.NewDense(1, 2, []float64{2, 5.6}), map[Target][]float64{ReadIOPS: {300000}})
	if want := 1 - 15600.0/300000; err != nil || math.Abs(acc[ReadIOPS]-want) > 1e-12 {
		t.Errorf("score outside the training range: %v, %v; want the linear model's accuracy %v", acc, err, want)
	}
	// A model persisted before the range existed predicts unclamped.
	m.FeatureMin, m.FeatureMax = nil, nil
	if p, _ := m.PredictFeatures([]float64{2, 5.6}); p[ReadIOPS] != 2000+56000*5.6 {
		t.Errorf("without a training range: %v read IOPS, want %v", p[ReadIOPS], 2000+56000*5.6)
	}
}

// TrainMatrix records each column's range, and inside it the held
// prediction is the linear model's own.
func TestTrainRecordsFeatureRange(t *testing.T) {
	const n = 200
	X := mat.NewDense(n, 2, nil)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		cpu, net := 0.5+float64(i%37)/10, 100+float64((i*7)%53)
		X.Set(i, 0, cpu)
		X.Set(i, 1, net)
		y[i] = 1500*cpu + 3*net + 50
	}
	m, err := TrainMatrix([]string{"cpu", "net"}, X, map[Target][]float64{ReadIOPS: y}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{0.5, 100}; !slices.Equal(m.FeatureMin, want) {
		t.Errorf("FeatureMin %v, want %v", m.FeatureMin, want)
	}
	if want := []float64{0.5 + 3.6, 152}; !slices.Equal(m.FeatureMax, want) {
		t.Errorf("FeatureMax %v, want %v", m.FeatureMax, want)
	}
	for i := 0; i < n; i++ {
		p, err := m.PredictFeatures(X.RawRowView(i))
		if err != nil {
			t.Fatal(err)
		}
		if lin := m.Targets[ReadIOPS].Predict(X.RawRowView(i)); p[ReadIOPS] != math.Max(lin, 0) {
			t.Fatalf("row %d: held prediction %v, linear model %v", i, p[ReadIOPS], lin)
		}
	}
	bad := *m
	bad.FeatureMax = []float64{1}
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "feature range: 2 minima and 1 maxima for 2 features") {
		t.Errorf("Validate with one maximum for two features: %v", err)
	}
	bad.FeatureMax = []float64{0.1, 152}
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), `feature "cpu": range [0.5, 0.1] is not a finite interval`) {
		t.Errorf("Validate with min > max: %v", err)
	}
}

// The Inside-Out model storcast fitted at the start of the load of a real
// Ceph run (2026-11-24 22:21 UTC, e2e/ceph/insideout-record.sh: its
// 30-minute lookback was the saturated calibration), and the host features
// of the 90 s after it. The memstore OSDs' hosts had read their disks at
// 0-6 kB/s while it learned; the load's first jobs read more, and the
// linear model, unheld, predicted up to 900,000 IOPS where the cluster did
// 1,000-5,000 (the run's Inside-Out check failed at 436% MAPE). Held inside
// the training range, it stays within 3.4x of the measured IOPS: still
// Inside-Out's poor fit on one host, no longer a runaway.
func TestRecordedLoadStart(t *testing.T) {
	data, err := os.ReadFile("testdata/recorded-ceph-2026-11-24T2221.json")
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Model   *Model `json:"model"`
		Windows []struct {
			Features []float64 `json:"features"`
			IOPS     float64   `json:"iops"`
		} `json:"windows"`
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	if err := rec.Model.Validate(); err != nil {
		t.Fatal(err)
	}
	worst := func(m *Model) float64 {
		w := 0.0
		for _, win := range rec.Windows {
			p, err := m.PredictFeatures(win.Features)
			if err != nil {
				t.Fatal(err)
			}
			w = math.Max(w, (p[ReadIOPS]+p[WriteIOPS])/win.IOPS)
		}
		return w
	}
	held := worst(rec.Model)
	unheld := *rec.Model
	unheld.FeatureMin, unheld.FeatureMax = nil, nil
	free := worst(&unheld)
	t.Logf("%d windows: predicted over measured IOPS at most %.2fx held, %.0fx unheld", len(rec.Windows), held, free)
	if free < 100 {
		t.Errorf("unheld at most %.0fx the measured IOPS: the record no longer shows the runaway", free)
	}
	if held > 4 {
		t.Errorf("held prediction %.2fx the measured IOPS (bound 4x)", held)
	}
}

package insideout

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/storcast/storcast/forecaster/regress"
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

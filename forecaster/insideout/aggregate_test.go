package insideout

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestAggregateByHand(t *testing.T) {
	s := Schema{Roles: []RoleMetrics{
		{Role: "mon", Metrics: []string{"cpu"}},
		{Role: "osd", Metrics: []string{"ops", "cpu"}},
	}}
	names := s.FeatureNames()
	if len(names) != 12 || names[0] != "mon/cpu/mean" || names[7] != "osd/ops/p95" || names[11] != "osd/cpu/p95" {
		t.Fatalf("names %v", names)
	}
	w := Window{
		"mon": {"m0": {"cpu": 0.5}},
		"osd": {
			"a": {"ops": 1, "cpu": 0.1},
			"b": {"ops": 2, "cpu": math.NaN()}, // a gap: left out of cpu
			"c": {"ops": 3, "cpu": 0.3},
			"d": {"ops": 4},
			"e": {"ops": 10, "cpu": 0.2, "ignored": 7},
		},
		"rgw": {"r0": {"cpu": 1}}, // not in the schema: ignored
	}
	x, err := s.Aggregate(w)
	if err != nil {
		t.Fatal(err)
	}
	// ops = 1,2,3,4,10: mean 4, var (9+4+1+0+36)/5 = 10, sum 20,
	// p95: h = 0.95·4 = 3.8 → 4 + 0.8·6 = 8.8.
	// cpu = 0.1,0.3,0.2: mean 0.2, std √(0.02/3), sum 0.6, p95: h = 1.9 → 0.2 + 0.9·0.1 = 0.29.
	want := []float64{0.5, 0, 0.5, 0.5, 4, math.Sqrt(10), 20, 8.8, 0.2, math.Sqrt(0.02 / 3), 0.6, 0.29}
	for i := range want {
		if math.Abs(x[i]-want[i]) > 1e-12 {
			t.Errorf("%s = %.15g, want %.15g", names[i], x[i], want[i])
		}
	}
}

func TestAggregateLengthIndependentOfHosts(t *testing.T) {
	s := synthSchema(10, 3)
	for _, hosts := range []int{1, 5, 50} {
		w, _ := synthWindow(1, 0, hosts, hosts, s)
		x, err := s.Aggregate(w)
		if err != nil {
			t.Fatal(err)
		}
		if len(x) != s.NumFeatures() || len(x) != 4*13 {
			t.Errorf("%d hosts: %d features", hosts, len(x))
		}
	}
}

func TestAggregateErrors(t *testing.T) {
	s := Schema{Roles: []RoleMetrics{{Role: "osd", Metrics: []string{"ops"}}}}
	for _, c := range []struct {
		w    Window
		want string
	}{
		{Window{}, `role "osd" has no hosts`},
		{Window{"osd": {"a": {"cpu": 1}}}, `metric "ops" has no finite value`},
		{Window{"osd": {"a": {"ops": math.Inf(1)}}}, `metric "ops" has no finite value`},
	} {
		if _, err := s.Aggregate(c.w); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("window %v: err %v, want %q", c.w, err, c.want)
		}
	}
	for _, bad := range []Schema{{}, {Roles: []RoleMetrics{{Role: "osd"}}}, {Roles: []RoleMetrics{{Role: "a", Metrics: []string{"x", "x"}}}}} {
		if _, err := bad.AggregateAll([]Window{{}}); err == nil {
			t.Errorf("schema %+v accepted", bad)
		}
	}
	if _, err := s.AggregateAll(nil); err == nil {
		t.Error("no windows accepted")
	}
	if _, err := s.AggregateAll([]Window{{"osd": {"a": {"ops": 1}}}, {}}); err == nil || !strings.Contains(err.Error(), "window 1") {
		t.Errorf("bad second window: %v", err)
	}
}

func TestSchemaOf(t *testing.T) {
	s := SchemaOf([]Window{
		{"osd": {"a": {"y": 1}}},
		{"osd": {"b": {"x": 1}}, "mon": {"m": {"z": 1}}},
	})
	if len(s.Roles) != 2 || s.Roles[0].Role != "mon" || strings.Join(s.Roles[1].Metrics, ",") != "x,y" {
		t.Errorf("%+v", s)
	}
}

func TestMovingAverage(t *testing.T) {
	times := []float64{0, 15, 30, 45, 60, 75, 90}
	vals := []float64{4, 8, math.NaN(), 0, 12, 4, 8}
	got, err := MovingAverage(times, vals, 60)
	if err != nil {
		t.Fatal(err)
	}
	// Window (t−60, t]: at 60 it holds 15..60 → 8, 0, 12 (NaN skipped).
	want := []float64{4, 6, 6, 4, 20.0 / 3, 16.0 / 3, 6}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Errorf("t=%v: %v, want %v", times[i], got[i], want[i])
		}
	}
	if g, _ := MovingAverage([]float64{0, 100}, []float64{math.NaN(), 1}, 60); !math.IsNaN(g[0]) || g[1] != 1 {
		t.Errorf("empty window: %v", g)
	}
	// A window below the timestamps' resolution (t − window == t) holds the
	// sample itself (it indexed past the end).
	if g, err := MovingAverage([]float64{1e9, 1e9 + 1}, []float64{1, 2}, 1e-10); err != nil || g[0] != 1 || g[1] != 2 {
		t.Errorf("window below resolution: %v, %v; want [1 2]", g, err)
	}
	for _, c := range []struct {
		t, v []float64
		w    float64
	}{
		{[]float64{0, 1}, []float64{1}, 60},
		{[]float64{0, 0}, []float64{1, 1}, 60},
		{[]float64{1, 0}, []float64{1, 1}, 60},
		{[]float64{0, 1}, []float64{1, 1}, 0},
		{[]float64{0, math.NaN()}, []float64{1, 1}, 60},
	} {
		if _, err := MovingAverage(c.t, c.v, c.w); err == nil {
			t.Errorf("accepted %v %v %v", c.t, c.v, c.w)
		}
	}
}

func TestTrainErrors(t *testing.T) {
	s := synthSchema(6, 2)
	ws, ys := synthWindows(1, 60, 3, 5, s)
	X, _ := s.AggregateAll(ws)
	names := s.FeatureNames()
	// A constant target is skipped with its reason; the others are fitted.
	ys[WriteIOPS] = make([]float64, 60)
	m, err := TrainMatrix(names, X, ys, Options{Folds: 5})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := m.Targets[WriteIOPS]; ok || !strings.Contains(m.Skipped[WriteIOPS], "constant") {
		t.Errorf("constant target: fitted=%v skipped=%q", ok, m.Skipped[WriteIOPS])
	}
	if len(m.Targets) != 3 {
		t.Errorf("%d targets fitted, want 3", len(m.Targets))
	}
	// Every target bad: an error.
	if _, err := TrainMatrix(names, X, map[Target][]float64{ReadIOPS: make([]float64, 60)}, Options{Folds: 5}); err == nil {
		t.Error("no fittable target accepted")
	}
	cases := map[string]func() error{
		"names": func() error { _, err := TrainMatrix(names[:3], X, ys, Options{}); return err },
		"length": func() error {
			_, err := TrainMatrix(names, X, map[Target][]float64{ReadIOPS: {1, 2}}, Options{})
			return err
		},
		"no targets": func() error { _, err := TrainMatrix(names, X, nil, Options{}); return err },
		"NaN target": func() error {
			y := append([]float64(nil), ys[ReadIOPS]...)
			y[3] = math.NaN()
			_, err := TrainMatrix(names, X, map[Target][]float64{ReadIOPS: y}, Options{Folds: 5})
			return err
		},
		"NaN feature": func() error {
			Xn := mat.DenseCopyOf(X)
			Xn.Set(2, 2, math.NaN())
			_, err := TrainMatrix(names, Xn, ys, Options{Folds: 5})
			return err
		},
		"folds > n":  func() error { _, err := TrainMatrix(names, X, ys, Options{Folds: 61}); return err },
		"threshold":  func() error { _, err := TrainMatrix(names, X, ys, Options{Thresholds: []float64{-1}}); return err },
		"empty grid": func() error { _, err := TrainMatrix(names, X, ys, Options{Thresholds: []float64{}}); return err },
	}
	for name, f := range cases {
		if err := f(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	// Predict input checks.
	if _, err := m.PredictFeatures([]float64{1}); err == nil {
		t.Error("short feature vector accepted")
	}
	x := make([]float64, len(names))
	x[0] = math.Inf(-1)
	if _, err := m.PredictFeatures(x); err == nil || !strings.Contains(err.Error(), names[0]) {
		t.Errorf("Inf feature: %v", err)
	}
	if _, err := m.Predict(ws[0]); err == nil {
		t.Error("Predict on a matrix-trained model must ask for PredictFeatures")
	}
	var nilModel *Model
	if err := nilModel.Validate(); err == nil {
		t.Error("nil model validated")
	}
}

func TestTrainDropsGappyWindows(t *testing.T) {
	s := synthSchema(6, 2)
	ws, ys := synthWindows(8, 120, 3, 5, s)
	// Window 5: every OSD lost cpu_busy; window 9: read IOPS missing.
	for _, m := range ws[5]["osd"] {
		delete(m, "cpu_busy")
	}
	ys[ReadIOPS][9] = math.NaN()
	m, err := Train(s, ws, ys, Options{Folds: 5})
	if err != nil {
		t.Fatal(err)
	}
	if m.DroppedWindows != 2 || m.Samples != 118 || !strings.Contains(m.DropReason, "window 5") {
		t.Errorf("dropped %d (%q), samples %d; want 2 dropped, 118 samples", m.DroppedWindows, m.DropReason, m.Samples)
	}
	// Score skips the same gaps instead of failing.
	acc, err := m.Score(ws, ys)
	if err != nil {
		t.Fatal(err)
	}
	if acc[ReadIOPS] < 0.95 {
		t.Errorf("accuracy %v", acc)
	}
	// All windows unusable: an error that says why.
	if _, err := Train(s, ws[5:6], map[Target][]float64{ReadIOPS: {1}}, Options{}); err == nil || !strings.Contains(err.Error(), "cpu_busy") {
		t.Errorf("only a gappy window: %v", err)
	}
	if _, err := Train(s, ws, map[Target][]float64{ReadIOPS: {1}}, Options{}); err == nil {
		t.Error("mismatched target length accepted")
	}
}

func TestAggregateOverflowIsAnError(t *testing.T) {
	s := Schema{Roles: []RoleMetrics{{Role: "osd", Metrics: []string{"x"}}}}
	w := Window{"osd": {"a": {"x": math.MaxFloat64}, "b": {"x": math.MaxFloat64}}}
	if _, err := s.Aggregate(w); err == nil || !strings.Contains(err.Error(), "overflow") {
		t.Errorf("sum of two MaxFloat64: %v", err)
	}
}

package models

import (
	"encoding/json"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/storcast/storcast/exporter/features"
	"github.com/storcast/storcast/exporter/source"
	"github.com/storcast/storcast/forecaster/insideout"
)

// TestSavedInsideOutModelReadsTheAggregatedFeatures: a model trained the
// way storcast did before the query engine aggregated the hosts (per-host
// windows through insideout.Train) and saved, once decoded, predicts from
// the features a frame of host statistics gives (features.HostFeatures
// under its schema) what it predicts from the per-host windows: the
// feature names and layout did not change.
// insideOutHistory is n one-minute windows of 4 hosts whose CPU and disk
// reads follow a load of 1000·(1 + 0.5·sin(i/7)) IOPS at 70% reads: the
// frame of host statistics and cluster signals, the schema, and the
// per-host windows and targets insideout.Train takes.
func insideOutHistory(t *testing.T, n int) (*source.Frame, insideout.Schema, []insideout.Window, map[insideout.Target][]float64) {
	t.Helper()
	const hosts = 4
	metrics := []string{"cpu_busy", "disk_reads"}
	start := time.Unix(1.79e9, 0)
	f := &source.Frame{Range: source.Range{Start: start, End: start.Add(time.Duration(n-1) * time.Minute), Step: time.Minute},
		Signals: map[string][]float64{}, HostStats: map[string]map[string]map[string][]float64{"osd": {}}}
	for _, s := range []string{source.ReadOps, source.WriteOps, source.ReadBytes, source.WriteBytes} {
		f.Signals[s] = make([]float64, n)
	}
	schema := insideout.Schema{Roles: []insideout.RoleMetrics{{Role: "osd", Metrics: metrics}}}
	windows := make([]insideout.Window, n)
	targets := map[insideout.Target][]float64{}
	for i := 0; i < n; i++ {
		load := 1000 * (1 + 0.5*math.Sin(float64(i)/7))
		windows[i] = insideout.Window{"osd": {}}
		for h := 0; h < hosts; h++ {
			share := (1 + 0.2*float64(h) + 0.05*math.Cos(float64(i*h))) / hosts
			windows[i]["osd"][fmt.Sprintf("h%d", h)] = map[string]float64{"cpu_busy": 1e-4 * load * share, "disk_reads": load * share * (1 + 0.01*float64(h*i%5))}
		}
		r, w := 0.7*load, 0.3*load
		f.Signals[source.ReadOps][i], f.Signals[source.WriteOps][i] = r, w
		f.Signals[source.ReadBytes][i], f.Signals[source.WriteBytes][i] = 4096*r, 8192*w
		targets[insideout.ReadIOPS] = append(targets[insideout.ReadIOPS], r)
		targets[insideout.WriteIOPS] = append(targets[insideout.WriteIOPS], w)
		// The query engine's statistics of the same hosts.
		x, err := schema.Aggregate(windows[i])
		if err != nil {
			t.Fatal(err)
		}
		for j, m := range metrics {
			st := f.HostStats["osd"][m]
			if st == nil {
				st = map[string][]float64{}
				f.HostStats["osd"][m] = st
			}
			for k, name := range insideout.Stats {
				if st[name] == nil {
					st[name] = make([]float64, n)
				}
				st[name][i] = x[4*j+k]
			}
			if st[source.StatCount] == nil {
				st[source.StatCount] = make([]float64, n)
			}
			st[source.StatCount][i] = hosts
		}
	}
	return f, schema, windows, targets
}

func TestSavedInsideOutModelReadsTheAggregatedFeatures(t *testing.T) {
	const n = 60
	f, schema, windows, targets := insideOutHistory(t, n)
	old, err := insideout.Train(schema, windows, targets, insideout.Options{})
	if err != nil {
		t.Fatal(err)
	}
	saved, err := json.Marshal(InsideOutFit{Model: old})
	if err != nil {
		t.Fatal(err)
	}
	decoded, err := InsideOutFitter{}.Decode(saved)
	if err != nil {
		t.Fatal(err)
	}
	m := decoded.(InsideOutFit)
	rows, err := features.HostFeatures(f, m.Schema, 0)
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := rows.X.Dims(); r != n {
		t.Fatalf("%d rows, want %d", r, n)
	}
	for i := 0; i < n; i += 7 {
		want, err := old.Predict(windows[i])
		if err != nil {
			t.Fatal(err)
		}
		got, err := m.PredictFeatures(rows.X.RawRowView(i))
		if err != nil {
			t.Fatal(err)
		}
		for tg, v := range want {
			if math.Abs(got[tg]-v) > 1e-9*math.Abs(v) {
				t.Errorf("point %d %s: %v from the host statistics, %v from the per-host window", i, tg, got[tg], v)
			}
		}
	}
}

// TestInsideOutLiveOnlyAtTheObservation: Inside-Out's live prediction is of
// the observed window's host metrics; when the cluster went idle (the last
// windows without load, which the rows skip) or the latest host row is
// older than two steps before the observation, nothing is predicted rather
// than the load of a window long gone.
func TestInsideOutLiveOnlyAtTheObservation(t *testing.T) {
	const n, idleFrom = 60, 50
	f, schema, windows, targets := insideOutHistory(t, n)
	m, err := insideout.Train(schema, windows[:idleFrom], truncateTargets(targets, idleFrom), insideout.Options{})
	if err != nil {
		t.Fatal(err)
	}
	set := Set{InsideOut: InsideOutFit{Model: m}}
	times := f.Times()
	busy, err := features.Current(f, 2)
	if err != nil || busy.Idle {
		t.Fatalf("observation %+v, %v", busy, err)
	}
	if l := set.Derive(busy, true, f); l.PredictedIO == nil {
		t.Error("no prediction at a busy observation with host metrics")
	}
	for i := idleFrom; i < n; i++ {
		for _, s := range []string{source.ReadOps, source.WriteOps, source.ReadBytes, source.WriteBytes} {
			f.Signals[s][i] = 0
		}
	}
	idle, err := features.Current(f, 2)
	if err != nil || !idle.Idle {
		t.Fatalf("observation %+v, %v, want idle", idle, err)
	}
	if l := set.Derive(idle, true, f); l.PredictedIO != nil {
		t.Errorf("idle since %d windows: predicted %v (the load of window %d)", n-idleFrom, l.PredictedIO, idleFrom-1)
	}
	// Busy again at the last window only, but its host metrics missing:
	// the latest host row is 10 steps old.
	for _, s := range []string{source.ReadOps, source.WriteOps, source.ReadBytes, source.WriteBytes} {
		f.Signals[s][n-1] = 100
	}
	for _, st := range f.HostStats["osd"] {
		for name := range st {
			st[name][n-1] = math.NaN()
		}
	}
	late, err := features.Current(f, 2)
	if err != nil || late.Idle || late.Time != times[n-1] {
		t.Fatalf("observation %+v, %v", late, err)
	}
	if l := set.Derive(late, true, f); l.PredictedIO != nil {
		t.Errorf("host metrics 10 steps older than the observation: predicted %v", l.PredictedIO)
	}
}

func truncateTargets(t map[insideout.Target][]float64, n int) map[insideout.Target][]float64 {
	out := map[insideout.Target][]float64{}
	for k, v := range t {
		out[k] = v[:n]
	}
	return out
}

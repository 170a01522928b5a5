package engine

import (
	"log/slog"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/storcast/storcast/exporter/features"
	"github.com/storcast/storcast/exporter/models"
	"github.com/storcast/storcast/exporter/source"
	"github.com/storcast/storcast/internal/testtool"
)

// flatLatency is a latency model whose mean is the same at every load.
type flatLatency struct{ mean float64 }

func (l flatLatency) Curve() []models.LatencyPoint { return nil }
func (l flatLatency) At(float64) (models.Band, bool) {
	return models.Band{Lower: l.mean, Mean: l.mean, Upper: l.mean}, true
}
func (flatLatency) Crossing(float64) models.Band {
	return models.Band{Lower: math.NaN(), Mean: math.NaN(), Upper: math.NaN()}
}
func (flatLatency) Accuracy() float64            { return math.NaN() }
func (flatLatency) Samples() int                 { return 1 }
func (flatLatency) Scores() map[string]float64   { return nil }
func (flatLatency) MarshalJSON() ([]byte, error) { return []byte("{}"), nil }

// TestAccuracyTriggerReadsTheServedLatencyModel: the accuracy trigger
// scores the latency model storcast serves (fit.latency_model), not the
// other one fitted beside it: with the served model exact and the other
// 500 times off, nothing refits; served the other way round, it refits.
func TestAccuracyTriggerReadsTheServedLatencyModel(t *testing.T) {
	cfg := testConfig(t, "http://127.0.0.1:1")
	e := New(Options{Now: (&clock{t: testNow}).Now})
	obs := features.Observed{ReadIOPS: 500, WriteIOPS: 500, IOPS: 1000, ReadRatio: 0.5, IOSizeBytes: 4096,
		ReadSizeBytes: 4096, WriteSizeBytes: 4096, LatencySeconds: 0.002}
	for _, c := range []struct {
		served, want string
	}{{models.Queueing, ""}, {models.MLISP, "latency accuracy below threshold"}} {
		cl := &cluster{name: "a", cfg: cfg.Clusters[0], lastFit: testNow.Add(-time.Hour)}
		s := &Snapshot{Cluster: "a", LatencyModel: c.served, Observed: obs, HasObserved: true,
			Set: models.Set{models.Queueing: flatLatency{0.002}, models.MLISP: flatLatency{1}}}
		e.derive(cfg, cl, s, &source.Frame{})
		if cl.refitReason != c.want {
			t.Errorf("%s served: refit reason %q, want %q", c.served, cl.refitReason, c.want)
		}
	}
}

// panickingChecker is a fitted model whose accuracy check panics (a defect
// met on some cluster's data).
type panickingChecker struct{}

func (panickingChecker) Samples() int               { return 1 }
func (panickingChecker) Scores() map[string]float64 { return nil }
func (panickingChecker) Check(*source.Frame, features.Observed, float64) string {
	panic("a defect met on this cluster's data")
}

// TestDerivePanicKeepsServing: a panic in a model's code while a refresh
// derives the live values is logged (with its stack the first time) and
// leaves the snapshot to be published (the loop goes on), instead of taking
// the process and every cluster's forecasts down at each refresh. A panic
// in the accuracy check keeps this observation's live values; one in
// deriving them leaves none, not the last observation's served as fresh.
func TestDerivePanicKeepsServing(t *testing.T) {
	cfg := testConfig(t, "http://127.0.0.1:1")
	var logs testtool.SyncBuffer
	e := New(Options{Now: (&clock{t: testNow}).Now, Log: slog.New(slog.NewTextHandler(&logs, nil))})
	obs := features.Observed{ReadIOPS: 500, WriteIOPS: 500, IOPS: 1000, ReadRatio: 0.5, IOSizeBytes: 4096,
		ReadSizeBytes: 4096, WriteSizeBytes: 4096, LatencySeconds: 0.002}
	cl := &cluster{name: "a", cfg: cfg.Clusters[0], lastFit: testNow.Add(-time.Hour)}
	// The last refresh's live values, which must not be served as this
	// observation's.
	last := models.Live{HasCapacityAtMix: true, HostsFromInsideOut: 3}
	s := &Snapshot{Cluster: "a", Observed: obs, HasObserved: true, Set: models.Set{"broken": panickingChecker{}}, Live: last}
	e.derive(cfg, cl, s, &source.Frame{})
	if !strings.Contains(logs.String(), "deriving the live values panicked") || !strings.Contains(logs.String(), "a defect met on this cluster's data") ||
		!strings.Contains(logs.String(), "goroutine") {
		t.Errorf("the panic was not logged with its cause and stack:\n%s", logs.String())
	}
	if s.HasCapacityAtMix || s.HostsFromInsideOut != 0 || cl.refitReason != "" {
		t.Errorf("after a panicking check: live values %+v, refit reason %q; want this observation's (none: no capacity model) and no refit", s.Live, cl.refitReason)
	}
	// Again, inside the derivation (a capacity model without its
	// frontier): logged without its stack, and the last values not kept.
	n := strings.Count(logs.String(), "goroutine ")
	s.Set, s.Live = models.Set{models.Conservation: &models.Capacity{}}, last
	e.derive(cfg, cl, s, &source.Frame{})
	if !strings.Contains(logs.String(), "panicked again") || strings.Count(logs.String(), "goroutine ") != n {
		t.Errorf("the second panic's log: want one line without the stack:\n%s", logs.String())
	}
	if s.HasCapacityAtMix || s.HostsFromInsideOut != 0 {
		t.Errorf("after a panic deriving them: live values %+v; want none (the last ones were served as fresh)", s.Live)
	}
}

// panickingLatency is a fitted latency model whose SLO crossing panics (a
// defect met on some cluster's data), reached only from the outlook.
type panickingLatency struct{ panickingChecker }

func (panickingLatency) Curve() []models.LatencyPoint                           { return nil }
func (panickingLatency) At(float64) (models.Band, bool)                         { return models.Band{}, false }
func (panickingLatency) Accuracy() float64                                      { return math.NaN() }
func (panickingLatency) MarshalJSON() ([]byte, error)                           { return []byte("{}"), nil }
func (panickingLatency) Crossing(float64) models.Band                           { panic("a defect met in the outlook") }
func (panickingLatency) Check(*source.Frame, features.Observed, float64) string { return "" }

// TestOutlookPanicKeepsServing: a panic in a model's code while the
// outlook is computed, which every publish does (a refresh, a fit, a
// restore), publishes the snapshot without an outlook and is logged (its
// stack the first time), instead of taking the process down: derive's
// guard covered the live values only, and the same defect met again in
// the outlook (a capacity model without its frontier beside a latency
// model: the latency at extra load asks the frontier) crashed the loop.
func TestOutlookPanicKeepsServing(t *testing.T) {
	var logs testtool.SyncBuffer
	e := New(Options{Now: (&clock{t: testNow}).Now, Log: slog.New(slog.NewTextHandler(&logs, nil))})
	obs := features.Observed{ReadIOPS: 500, WriteIOPS: 500, IOPS: 1000, ReadRatio: 0.5, IOSizeBytes: 4096,
		ReadSizeBytes: 4096, WriteSizeBytes: 4096, LatencySeconds: 0.002}
	cl := &cluster{name: "a"}
	for i, set := range []models.Set{
		{models.MLISP: panickingLatency{}},
		{models.Conservation: &models.Capacity{}, models.MLISP: latencyAtAnyLoad{}},
	} {
		s := &Snapshot{Cluster: "a", Observed: obs, HasObserved: true, Set: set, LatencyModel: models.MLISP,
			Outlook: models.Outlook{HasLatency: true}}
		e.publish(cl, s)
		if got := cl.snap.Load(); got != s || got.Outlook.HasLatency || len(got.Outlook.LatencyAtLoad) != 0 {
			t.Errorf("set %d: published %p (want %p) with outlook %+v; want the snapshot without an outlook", i, got, s, got.Outlook)
		}
	}
	if l := logs.String(); !strings.Contains(l, "computing the outlook panicked; none is served") || !strings.Contains(l, "a defect met in the outlook") ||
		strings.Count(l, "[running]") != 1 || !strings.Contains(l, "computing the outlook panicked again") {
		t.Errorf("want the first panic logged with its stack, the second without:\n%s", l)
	}
}

// latencyAtAnyLoad is a fitted latency model that answers everywhere.
type latencyAtAnyLoad struct{ panickingLatency }

func (latencyAtAnyLoad) At(float64) (models.Band, bool) { return models.Band{Mean: 0.001}, true }
func (latencyAtAnyLoad) Crossing(float64) models.Band   { return models.Band{} }

package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/storcast/storcast/exporter/config"
	"github.com/storcast/storcast/exporter/internal/promfake"
	"github.com/storcast/storcast/exporter/models"
	"github.com/storcast/storcast/exporter/source"
	"github.com/storcast/storcast/exporter/state"
)

// startAt starts an engine on cfg (its Prometheus, a fake) with fitters,
// its clock at now; the caller stops it.
func startAt(t *testing.T, cfg *config.Config, fitters []models.Fitter, now time.Time) *Engine {
	t.Helper()
	src, err := source.NewPrometheus(cfg.Prometheus, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	e := New(Options{Source: src, Fitters: fitters, Now: (&clock{t: now}).Now})
	e.Start(context.Background(), cfg)
	return e
}

// waitSaved waits for cluster a's state file to hold the named model
// fitted.
func waitSaved(t *testing.T, cfg *config.Config, model string) {
	t.Helper()
	waitFor(t, "saved "+model+" model", func() bool {
		st, err := state.Load(cfg.StateDir, "a")
		return err == nil && st.Models[model].Fitted
	})
}

// TestLatencyCurveRestoredAtStart: the capacity-anchored latency model (the
// default served one) comes back from the saved state with the very curve
// it served, stale, while the source is down: a restart does not leave the
// latency knee and the SLO ETA to the other model, or to none.
func TestLatencyCurveRestoredAtStart(t *testing.T) {
	fake := promfake.New(testWorkload().Answer)
	defer fake.Close()
	cfg := testConfig(t, fake.URL)
	src, err := source.NewPrometheus(cfg.Prometheus, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	fitters := append(baseFitters(), models.QueueingFitter{})
	e := New(Options{Source: src, Fitters: fitters, Now: (&clock{t: testNow}).Now})
	e.Start(context.Background(), cfg)
	waitFor(t, "saved latency model", func() bool {
		st, err := state.Load(cfg.StateDir, "a")
		return err == nil && len(st.Fitted[models.Queueing]) > 0
	})
	e.Stop()
	want := e.Snapshot("a").Latency()
	if want == nil || e.Snapshot("a").LatencyServed() != models.Queueing {
		t.Fatalf("no queueing model served before the restart (%q)", e.Snapshot("a").LatencyServed())
	}

	fake.SetMode(promfake.Down)
	e2 := New(Options{Source: src, Fitters: fitters, Now: (&clock{t: testNow}).Now})
	e2.Start(context.Background(), cfg)
	defer e2.Stop()
	s := e2.Snapshot("a")
	got := s.Latency()
	if got == nil || s.LatencyServed() != models.Queueing {
		t.Fatalf("latency model after the restart: %v (%q)", got, s.LatencyServed())
	}
	wc, gc := want.Curve(), got.Curve()
	if len(wc) == 0 || len(wc) != len(gc) {
		t.Fatalf("curve of %d points restored as %d", len(wc), len(gc))
	}
	for i := range wc {
		if wc[i] != gc[i] {
			t.Fatalf("point %d: saved %+v, restored %+v", i, wc[i], gc[i])
		}
	}
	if st := s.Models[models.Queueing]; !st.Fitted || !st.Stale {
		t.Errorf("restored status %+v, want fitted and stale", st)
	}
}

// undecodableFitter fits like countingFitter but cannot read its saved form.
type undecodableFitter struct{ countingFitter }

func (undecodableFitter) Decode([]byte) (models.Fitted, error) {
	return nil, errors.New("format from the future")
}

// TestStatusOfAModelNotRestored: a saved model that does not decode is not
// served, and its status says so instead of "fitted".
func TestStatusOfAModelNotRestored(t *testing.T) {
	fake := promfake.New(testWorkload().Answer)
	defer fake.Close()
	cfg := testConfig(t, fake.URL)
	fitters := append(baseFitters(), undecodableFitter{})
	e := startAt(t, cfg, fitters, testNow)
	waitSaved(t, cfg, "counting")
	e.Stop()

	fake.SetMode(promfake.Down)
	e2 := startAt(t, cfg, fitters, testNow)
	defer e2.Stop()
	s := e2.Snapshot("a")
	if _, ok := s.Set["counting"]; ok {
		t.Fatal("an undecodable model is served")
	}
	st := s.Models["counting"]
	if st.Fitted || st.Stale || !strings.Contains(st.Error, "saved model not restored: format from the future") {
		t.Errorf("status %+v, want not fitted, with the decode error", st)
	}
	if !s.Models[models.Conservation].Fitted {
		t.Error("the capacity model, which decodes, lost its status")
	}
}

// panickingFitter is a model with a defect.
type panickingFitter struct{ countingFitter }

func (panickingFitter) Name() string { return "panicking" }
func (panickingFitter) Fit(_ context.Context, in models.Input) (models.Fitted, error) {
	return nil, fmt.Errorf("%d", in.Frame.Range.N()/len(in.Frame.Signals["no such signal"])) // integer divide by zero
}

// TestPanickingFitterIsAFitError: a panic inside one model's fit becomes
// that model's fit error; the process lives and the other models are fitted.
func TestPanickingFitterIsAFitError(t *testing.T) {
	fake := promfake.New(testWorkload().Answer)
	defer fake.Close()
	cfg := testConfig(t, fake.URL)
	src, err := source.NewPrometheus(cfg.Prometheus, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	e := New(Options{Source: src, Fitters: append(baseFitters(), panickingFitter{}, countingFitter{}), Now: (&clock{t: testNow}).Now})
	e.Start(context.Background(), cfg)
	defer e.Stop()
	waitFor(t, "a fit", func() bool { return e.Snapshot("a").Models["counting"].Fitted })
	s := e.Snapshot("a")
	st := s.Models["panicking"]
	if st.Fitted || !strings.Contains(st.Error, "panic in the panicking fit: runtime error: integer divide by zero") {
		t.Errorf("status %+v", st)
	}
	if s.Capacity() == nil {
		t.Error("the capacity model was not fitted")
	}
}

var _ models.Fitter = panickingFitter{}

// waitingUndecodableFitter cannot read its saved form, and has too little
// history to fit: after a restart it serves nothing for a while.
type waitingUndecodableFitter struct{ undecodableFitter }

func (waitingUndecodableFitter) Fit(context.Context, models.Input) (models.Fitted, error) {
	return nil, &models.Waiting{Model: "counting", Have: 3, Need: 10, What: "with load"}
}

// TestUnrestoredModelKept: a saved model that does not decode (a later
// version's format) is written back as it was read by every save until the
// model fits again, instead of being dropped by the first save after the
// restart; a later start that decodes it serves it as restored.
func TestUnrestoredModelKept(t *testing.T) {
	fake := promfake.New(testWorkload().Answer)
	defer fake.Close()
	cfg := testConfig(t, fake.URL)
	e := startAt(t, cfg, append(baseFitters(), countingFitter{}), testNow)
	waitSaved(t, cfg, "counting")
	e.Stop()
	before, err := state.Load(cfg.StateDir, "a")
	if err != nil || len(before.Fitted["counting"]) == 0 {
		t.Fatalf("saved state %+v, %v", before, err)
	}

	later := testNow.Add(time.Hour)
	e2 := startAt(t, cfg, append(baseFitters(), waitingUndecodableFitter{}), later)
	defer e2.Stop()
	var after *state.Cluster
	waitFor(t, "a save after the restart", func() bool {
		after, err = state.Load(cfg.StateDir, "a")
		return err == nil && after.SavedUnix >= float64(later.Unix())
	})
	if got := after.Fitted["counting"]; !bytes.Equal(got, before.Fitted["counting"]) {
		t.Errorf("the model not restored was saved as %s, want its saved JSON %s", got, before.Fitted["counting"])
	}
	if _, ok := e2.Snapshot("a").Set["counting"]; ok {
		t.Error("an undecodable model is served")
	}
	e2.Stop()

	// A third start that decodes it again (the version that wrote it) serves
	// it as any restored model: fitted, stale until the source answers.
	fake.SetMode(promfake.Down)
	e3 := startAt(t, cfg, append(baseFitters(), countingFitter{}), later)
	defer e3.Stop()
	s := e3.Snapshot("a")
	if m, ok := s.Set["counting"].(*countingModel); !ok || m.Fits != 1 {
		t.Errorf("the model written back is not served again: %+v", s.Set["counting"])
	}
	if st := s.Models["counting"]; !st.Fitted || !st.Stale || st.Error != "" || st.Waiting != "" {
		t.Errorf("its status %+v, want fitted and stale", st)
	}
}

// TestUnreadableStateKept: a state file that does not load (here a later
// version's) is moved aside at start, not overwritten by the first save;
// the models are refitted.
func TestUnreadableStateKept(t *testing.T) {
	fake := promfake.New(testWorkload().Answer)
	defer fake.Close()
	cfg := testConfig(t, fake.URL)
	future := []byte(`{"version": 2, "cluster": "a", "fitted": {"counting": {"fits": 41}}}`)
	if err := os.WriteFile(state.Path(cfg.StateDir, "a"), future, 0o644); err != nil {
		t.Fatal(err)
	}
	e := startAt(t, cfg, append(baseFitters(), countingFitter{}), testNow)
	waitSaved(t, cfg, "counting")
	e.Stop()
	aside := state.Path(cfg.StateDir, "a") + ".unreadable-" + testNow.Format("20060102T150405Z")
	got, err := os.ReadFile(aside)
	if err != nil || !bytes.Equal(got, future) {
		t.Errorf("%s: %q, %v; want the unreadable file as it was", aside, got, err)
	}
	if m, ok := e.Snapshot("a").Set["counting"].(*countingModel); !ok || m.Fits != 1 {
		t.Errorf("counting model %+v: want refitted from scratch", e.Snapshot("a").Set["counting"])
	}
}

// TestModelOfADisabledFitterDropped: a cluster whose rule-set catalog is
// taken out of the configuration stops serving the advisor (it was served
// on, and went stale for good): a start without the catalog does not
// restore the saved one, and after a reload the next fit drops the model,
// its status and its answer.
func TestModelOfADisabledFitterDropped(t *testing.T) {
	fake := promfake.New(testWorkload().Answer)
	defer fake.Close()
	cfg := testConfig(t, fake.URL)
	cfg.Clusters[0].Advisor.CatalogFile = "testdata/advisor-catalog.yml"
	without := *cfg
	without.Clusters = append([]config.Cluster(nil), cfg.Clusters...)
	without.Clusters[0].Advisor.CatalogFile = ""
	fitters := append(baseFitters(), models.AdvisorFitter{})
	e := startAt(t, cfg, fitters, testNow)
	waitSaved(t, cfg, models.Advisor)
	e.Stop()

	fake.SetMode(promfake.Down)
	e = startAt(t, &without, fitters, testNow)
	s := e.Snapshot("a")
	if _, ok := s.Models[models.Advisor]; ok || s.Set[models.Advisor] != nil || s.Accuracy[models.Advisor] != nil {
		t.Errorf("restored without a catalog: status %v, model %v", s.Models[models.Advisor], s.Set[models.Advisor] != nil)
	}
	e.Stop()

	e = startAt(t, cfg, fitters, testNow)
	defer e.Stop()
	if s := e.Snapshot("a"); s.Set[models.Advisor] == nil {
		t.Fatal("the advisor not restored with its catalog")
	}
	fake.SetMode(promfake.Healthy)
	waitFor(t, "a fit with the catalog", func() bool { return e.Snapshot("a").RuleSets != nil })
	fits := e.Snapshot("a").Fits
	e.Start(context.Background(), &without)
	waitFor(t, "the fit after the reload", func() bool { return e.Snapshot("a").Fits > fits })
	s = e.Snapshot("a")
	if _, ok := s.Models[models.Advisor]; ok || s.Set[models.Advisor] != nil || s.RuleSets != nil || s.Accuracy[models.Advisor] != nil {
		t.Errorf("after the reload without a catalog: status %v, model %v, rule sets %v", s.Models[models.Advisor], s.Set[models.Advisor] != nil, s.RuleSets)
	}
}

// TestStateSaveOutcome: every fit says how its save went
// (storcast_state_save_success): the time of a good save, kept across a
// restart; the error of one that fails (here a state_dir below a regular
// file), which only the log said before, while the models keep serving.
func TestStateSaveOutcome(t *testing.T) {
	fake := promfake.New(testWorkload().Answer)
	defer fake.Close()
	cfg := testConfig(t, fake.URL)
	e := startAt(t, cfg, baseFitters(), testNow)
	waitFor(t, "a save", func() bool { return !e.Snapshot("a").StateSaved.IsZero() })
	e.Stop()
	if s := e.Snapshot("a"); !s.StateSaved.Equal(testNow) || s.StateSaveError != "" {
		t.Errorf("after a good save: saved %v, error %q; want %v, none", s.StateSaved, s.StateSaveError, testNow)
	}

	fake.SetMode(promfake.Down)
	e = startAt(t, cfg, baseFitters(), testNow.Add(time.Hour))
	s := e.Snapshot("a")
	e.Stop()
	if !s.StateSaved.Equal(testNow) || s.StateSaveError != "" {
		t.Errorf("restored: saved %v, error %q; want the file's time %v", s.StateSaved, s.StateSaveError, testNow)
	}

	// The state directory replaced by a regular file after start (a
	// mount gone, a clean-up script): the next fit's save fails, the one
	// after the directory is back succeeds.
	fake.SetMode(promfake.Healthy)
	clk := &clock{t: testNow.Add(2 * time.Hour)}
	src, err := source.NewPrometheus(cfg.Prometheus, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	e = New(Options{Source: src, Fitters: baseFitters(), Now: clk.Now})
	e.Start(context.Background(), cfg)
	defer e.Stop()
	waitFor(t, "a save", func() bool { return e.Snapshot("a").StateSaved.Equal(clk.Now()) })
	if err := os.RemoveAll(cfg.StateDir); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg.StateDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	advance := func() {
		clk.mu.Lock()
		clk.t = clk.t.Add(cfg.Fit.Interval + time.Minute)
		clk.mu.Unlock()
	}
	advance()
	waitFor(t, "a failed save", func() bool { return e.Snapshot("a").StateSaveError != "" })
	s = e.Snapshot("a")
	if !strings.Contains(s.StateSaveError, "not a directory") || !s.StateSaved.Equal(testNow.Add(2*time.Hour)) {
		t.Errorf("failed save: error %q, saved %v; want the error, the last good save's time", s.StateSaveError, s.StateSaved)
	}
	if st := s.Models[models.Conservation]; !st.Fitted || st.LastFitUnix != float64(clk.Now().Unix()) {
		t.Errorf("capacity model after a failed save: %+v; want fitted now and served", st)
	}
	if err := os.Remove(cfg.StateDir); err != nil {
		t.Fatal(err)
	}
	advance()
	waitFor(t, "a save after the directory is back", func() bool { return e.Snapshot("a").StateSaveError == "" })
	if s = e.Snapshot("a"); !s.StateSaved.Equal(clk.Now()) {
		t.Errorf("save after recovery at %v; want %v", s.StateSaved, clk.Now())
	}
}

package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/storcast/storcast/exporter/config"
	"github.com/storcast/storcast/exporter/features"
	"github.com/storcast/storcast/exporter/internal/promfake"
	"github.com/storcast/storcast/exporter/models"
	"github.com/storcast/storcast/exporter/source"
	"github.com/storcast/storcast/exporter/state"
	"github.com/storcast/storcast/internal/testtool"
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
	fake, cfg, src := fakeSource(t)
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
	_, cfg, src := fakeSource(t)
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
	advance := func() { clk.Advance(cfg.Fit.Interval + time.Minute) }
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

// startWithin starts an engine as startAt does, failing the test if Start
// has not returned within 10 s (a state file whose open blocks).
func startWithin(t *testing.T, cfg *config.Config, fitters []models.Fitter, clk *clock) *Engine {
	t.Helper()
	src, err := source.NewPrometheus(cfg.Prometheus, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	e := New(Options{Source: src, Fitters: fitters, Now: clk.Now})
	started := make(chan struct{})
	go func() {
		e.Start(context.Background(), cfg)
		close(started)
	}()
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("Start has not returned after 10 s")
	}
	return e
}

// TestStateFileNotRegularOrTooLargeSetAside: a FIFO at <cluster>.json
// (whose open blocked Start for good) and a sparse file past
// state.MaxFileBytes (read whole into memory: at 1 GiB and more, storcast
// was killed at every start) are set aside like any unreadable file; the
// cluster starts, says its state was not restored, fits and saves.
func TestStateFileNotRegularOrTooLargeSetAside(t *testing.T) {
	fake := promfake.New(testWorkload().Answer)
	defer fake.Close()
	for _, c := range []struct {
		name string
		make func(path string) error
		mode os.FileMode
		want string
	}{
		{"FIFO", func(p string) error { return syscall.Mkfifo(p, 0o644) }, os.ModeNamedPipe, "not a regular file but a FIFO"},
		{"sparse file past the cap", func(p string) error {
			if err := os.WriteFile(p, nil, 0o644); err != nil {
				return err
			}
			return os.Truncate(p, state.MaxFileBytes+1)
		}, 0, "more than a state file holds"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := testConfig(t, fake.URL)
			path := state.Path(cfg.StateDir, "a")
			if err := c.make(path); err != nil {
				t.Fatal(err)
			}
			e := startWithin(t, cfg, append(baseFitters(), countingFitter{}), &clock{t: testNow})
			defer e.Stop()
			s := e.Snapshot("a")
			if !strings.Contains(s.StateRestoreError, c.want) || !strings.Contains(s.StateRestoreError, "moved aside") {
				t.Errorf("restore error %q; want it to say %q and that the file was moved aside", s.StateRestoreError, c.want)
			}
			aside := path + ".unreadable-" + testNow.Format("20060102T150405Z")
			fi, err := os.Lstat(aside)
			if err != nil || fi.Mode().Type() != c.mode {
				t.Errorf("%s: %v, %v; want the file set aside as it was", aside, fi, err)
			}
			waitSaved(t, cfg, "counting")
			// Kept until the next start, through the fits' snapshots.
			if got := e.Snapshot("a").StateRestoreError; got != s.StateRestoreError {
				t.Errorf("restore error after a fit %q, want it kept: %q", got, s.StateRestoreError)
			}
		})
	}
}

// brokenCapacityFitter restores a capacity model without its frontier:
// deriving the live figures from it panics.
type brokenCapacityFitter struct{ countingFitter }

func (brokenCapacityFitter) Name() string { return models.Conservation }
func (brokenCapacityFitter) Decode([]byte) (models.Fitted, error) {
	return &models.Capacity{}, nil
}

// TestStateRestoreOutcome: storcast_state_restore_success says whether the
// saved models came back at start: 1 when there was nothing to restore and
// after a good restore; 0 after the file was set aside (a later version's)
// and when the live figures could not be derived from its models, which
// were only logged before, the first save afterwards reading as success.
func TestStateRestoreOutcome(t *testing.T) {
	fake := promfake.New(testWorkload().Answer)
	defer fake.Close()
	cfg := testConfig(t, fake.URL)
	fitters := append(baseFitters(), countingFitter{})
	e := startAt(t, cfg, fitters, testNow)
	if s := e.Snapshot("a"); s.StateRestoreError != "" {
		t.Errorf("nothing to restore: restore error %q, want none", s.StateRestoreError)
	}
	waitSaved(t, cfg, "counting")
	e.Stop()

	fake.SetMode(promfake.Down)
	e = startAt(t, cfg, fitters, testNow)
	s := e.Snapshot("a")
	e.Stop()
	if s.StateRestoreError != "" || s.Set["counting"] == nil {
		t.Errorf("a good restore: restore error %q, counting model %v; want none, served", s.StateRestoreError, s.Set["counting"])
	}

	// Live figures that cannot be derived from the saved models: none is
	// served, and the metric says so.
	e = startAt(t, cfg, []models.Fitter{brokenCapacityFitter{}, models.InsideOutFitter{}, countingFitter{}}, testNow)
	s = e.Snapshot("a")
	e.Stop()
	if !strings.Contains(s.StateRestoreError, "saved models not restored: panic deriving the live figures") || len(s.Set) != 0 {
		t.Errorf("underivable saved models: restore error %q, %d models served; want the panic, none", s.StateRestoreError, len(s.Set))
	}

	// A later version's file: set aside.
	future := []byte(`{"version": 2, "cluster": "a"}`)
	if err := os.WriteFile(state.Path(cfg.StateDir, "a"), future, 0o644); err != nil {
		t.Fatal(err)
	}
	e = startAt(t, cfg, fitters, testNow)
	s = e.Snapshot("a")
	e.Stop()
	if !strings.Contains(s.StateRestoreError, "version 2, want 1") || !strings.Contains(s.StateRestoreError, "moved aside to "+state.Path(cfg.StateDir, "a")+".unreadable-") {
		t.Errorf("a set-aside file: restore error %q; want why and where it went", s.StateRestoreError)
	}
	if s.StateSaveError != "" {
		t.Errorf("a set-aside file: save error %q; want none (the file was kept, saving goes on)", s.StateSaveError)
	}
}

// TestUnreadableStateNotMovedAsideKept: a state file that does not load
// and cannot be moved aside either (every set-aside name of the second is
// taken, by a non-empty directory: a move fails even as root) is kept byte for byte
// through fits, which do not save the cluster and say so
// (storcast_state_save_success 0), and the restore is reported as failed.
func TestUnreadableStateNotMovedAsideKept(t *testing.T) {
	fake := promfake.New(testWorkload().Answer)
	defer fake.Close()
	cfg := testConfig(t, fake.URL)
	path := state.Path(cfg.StateDir, "a")
	future := []byte(`{"version": 2, "cluster": "a", "fitted": {"counting": {"fits": 41}}}`)
	if err := os.WriteFile(path, future, 0o644); err != nil {
		t.Fatal(err)
	}
	for n := range state.SetAsideTries {
		if err := os.MkdirAll(filepath.Join(state.SetAsidePath(cfg.StateDir, "a", testNow, n), "in-the-way"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	e := startAt(t, cfg, append(baseFitters(), countingFitter{}), testNow)
	defer e.Stop()
	if s := e.Snapshot("a"); s.StateSaveError != noSaveError || !strings.Contains(s.StateRestoreError, "not moved aside") {
		t.Errorf("at start: save error %q, restore error %q; want %q and not moved aside", s.StateSaveError, s.StateRestoreError, noSaveError)
	}
	waitFor(t, "a fit", func() bool { return e.Snapshot("a").Fits > 0 })
	s := e.Snapshot("a")
	if s.StateSaveError != noSaveError || !s.StateSaved.IsZero() {
		t.Errorf("after a fit: save error %q, saved %v; want %q, never saved", s.StateSaveError, s.StateSaved, noSaveError)
	}
	if m, ok := s.Set["counting"].(*countingModel); !ok || m.Fits != 1 {
		t.Errorf("counting model %+v: want fitted from scratch and served", s.Set["counting"])
	}
	if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, future) {
		t.Errorf("%s after a fit: %q, %v; want the unreadable file as it was", path, got, err)
	}
	if _, err := os.Stat(path + ".tmp"); !os.IsNotExist(err) {
		t.Errorf("a save was attempted: %v", err)
	}
}

// Modes of a flakyModel's encoding.
const (
	encodes int32 = iota
	encodingFails
	encodingPanics
)

// flakyModel is a counting model whose encoding fails, or panics, on
// demand.
type flakyModel struct {
	countingModel
	mode *atomic.Int32
}

func (m *flakyModel) MarshalJSON() ([]byte, error) {
	switch m.mode.Load() {
	case encodingFails:
		return nil, errors.New("encoder broken")
	case encodingPanics:
		panic("a defect in the encoder")
	}
	return json.Marshal(m.countingModel)
}

// flakyFitter fits flakyModels that share its mode.
type flakyFitter struct{ mode *atomic.Int32 }

func (flakyFitter) Name() string                 { return "flaky" }
func (flakyFitter) Enabled(*config.Cluster) bool { return true }
func (f flakyFitter) Fit(_ context.Context, in models.Input) (models.Fitted, error) {
	n := 1
	if prev, ok := in.Fitted["flaky"].(*flakyModel); ok {
		n = prev.Fits + 1
	}
	return &flakyModel{countingModel{Fits: n}, f.mode}, nil
}
func (f flakyFitter) Decode(b []byte) (models.Fitted, error) {
	m := &flakyModel{mode: f.mode}
	return m, json.Unmarshal(b, &m.countingModel)
}

// TestUnencodableModelKeepsItsSavedVersion: a save that cannot encode a
// model writes back the version the file held (restored, or last saved)
// with the status saved with it, instead of dropping it while its status
// said fitted; the save reads as failed, naming the model, and keeps the
// last good save's time. A panic in the encoding is such a failure (it
// took the process down). Once the model encodes again it is saved.
func TestUnencodableModelKeepsItsSavedVersion(t *testing.T) {
	fake := promfake.New(testWorkload().Answer)
	defer fake.Close()
	cfg := testConfig(t, fake.URL)
	mode := &atomic.Int32{}
	fitters := append(baseFitters(), flakyFitter{mode})
	e := startAt(t, cfg, fitters, testNow)
	waitSaved(t, cfg, "flaky")
	e.Stop()
	first, err := state.Load(cfg.StateDir, "a")
	if err != nil || !bytes.Equal(first.Fitted["flaky"], []byte(`{"fits":1,"sawCapacity":0}`)) {
		t.Fatalf("first save: %v, %s", err, first.Fitted["flaky"])
	}

	// Restored, refitted, not encodable: the restored version is kept.
	mode.Store(encodingFails)
	clk := &clock{t: testNow.Add(time.Hour)}
	e = startWithin(t, cfg, fitters, clk)
	defer e.Stop()
	check := func(when string, fits int, why string) {
		t.Helper()
		var st *state.Cluster
		// The fit saves, then publishes (fit.go): wait for both (the
		// restored model is fit 1, this start's first fit cycle makes it
		// 2), or the snapshot read may still be the one before the fit.
		waitFor(t, "a save "+when, func() bool {
			st, err = state.Load(cfg.StateDir, "a")
			return err == nil && st.SavedUnix == float64(clk.Now().Unix()) && e.Snapshot("a").Fits >= fits-1
		})
		s := e.Snapshot("a")
		if m, ok := s.Set["flaky"].(*flakyModel); !ok || m.Fits != fits {
			t.Errorf("%s: flaky model served %+v, want fitted %d times", when, s.Set["flaky"], fits)
		}
		if got := st.Fitted["flaky"]; !bytes.Equal(got, first.Fitted["flaky"]) {
			t.Errorf("%s: saved as %s, want the version of the first save %s", when, got, first.Fitted["flaky"])
		}
		if got, want := st.Models["flaky"], first.Models["flaky"]; got.LastFitUnix != want.LastFitUnix || !got.Fitted {
			t.Errorf("%s: saved status %+v, want the one saved with that version %+v", when, got, want)
		}
		if st.Models[models.Conservation].LastFitUnix != float64(clk.Now().Unix()) {
			t.Errorf("%s: the other models were not saved as fitted now: %+v", when, st.Models[models.Conservation])
		}
		if !strings.Contains(s.StateSaveError, "model flaky not saved ("+why+"); the file keeps its version of the last save") {
			t.Errorf("%s: save error %q; want the model named", when, s.StateSaveError)
		}
		if !s.StateSaved.Equal(testNow) {
			t.Errorf("%s: last good save %v, want the first one's %v", when, s.StateSaved, testNow)
		}
	}
	check("after the restore", 2, "json: error calling MarshalJSON for type *engine.flakyModel: encoder broken")

	// Again at the next fit, the encoding panicking: the version last
	// saved (the same) is kept.
	mode.Store(encodingPanics)
	advance := func() { clk.Advance(cfg.Fit.Interval + time.Minute) }
	advance()
	check("after a second fit", 3, "panic encoding it: a defect in the encoder")

	mode.Store(encodes)
	advance()
	waitFor(t, "a good save", func() bool { return e.Snapshot("a").StateSaveError == "" })
	st, err := state.Load(cfg.StateDir, "a")
	if err != nil || !bytes.Equal(st.Fitted["flaky"], []byte(`{"fits":4,"sawCapacity":0}`)) || !e.Snapshot("a").StateSaved.Equal(clk.Now()) {
		t.Errorf("once it encodes: %v, saved %s at %v", err, st.Fitted["flaky"], e.Snapshot("a").StateSaved)
	}
}

// TestStateDirMovedChecksItsFiles: a reload that moves state_dir checks
// the new directory's file of every running cluster as a start does: one
// that does not load (here a later version's) is set aside, not replaced
// unread by the cluster's next save; a cluster not saved in the old
// directory (its file there could not be moved aside) saves in the new
// one. Only clusters new to the engine were checked, and the second went
// unsaved until the next start.
func TestStateDirMovedChecksItsFiles(t *testing.T) {
	fake := promfake.New(testWorkload().Answer)
	defer fake.Close()
	t.Run("unreadable file set aside", func(t *testing.T) {
		cfg := testConfig(t, fake.URL)
		clk := &clock{t: testNow}
		e := startWithin(t, cfg, baseFitters(), clk)
		defer e.Stop()
		waitFor(t, "a save", func() bool { return !e.Snapshot("a").StateSaved.IsZero() })
		moved := *cfg
		moved.StateDir = t.TempDir()
		future := []byte(`{"version":99,"cluster":"a"}`)
		if err := os.WriteFile(state.Path(moved.StateDir, "a"), future, 0o644); err != nil {
			t.Fatal(err)
		}
		e.Start(context.Background(), &moved)
		aside := state.SetAsidePath(moved.StateDir, "a", clk.Now(), 0)
		clk.Advance(cfg.Fit.Interval + time.Minute)
		waitFor(t, "a save in the new state_dir", func() bool {
			st, err := state.Load(moved.StateDir, "a")
			return err == nil && st.SavedUnix == float64(clk.Now().Unix())
		})
		if got, err := os.ReadFile(aside); err != nil || !bytes.Equal(got, future) {
			t.Errorf("%s: %q, %v; want the later version's file as it was", aside, got, err)
		}
		if s := e.Snapshot("a"); s.Fits != 2 || s.StateSaveError != "" || s.StateRestoreError != "" {
			t.Errorf("fits %d, save error %q, restore error %q; want the running models refitted and saved", s.Fits, s.StateSaveError, s.StateRestoreError)
		}
	})
	t.Run("not saved in the old, saved in the new", func(t *testing.T) {
		cfg := testConfig(t, fake.URL)
		if err := os.WriteFile(state.Path(cfg.StateDir, "a"), []byte(`{"version":99,"cluster":"a"}`), 0o644); err != nil {
			t.Fatal(err)
		}
		clk := &clock{t: testNow}
		for n := range state.SetAsideTries {
			if err := os.MkdirAll(filepath.Join(state.SetAsidePath(cfg.StateDir, "a", clk.Now(), n), "in-the-way"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		e := startWithin(t, cfg, baseFitters(), clk)
		defer e.Stop()
		waitFor(t, "a fit", func() bool { return e.Snapshot("a").Fits == 1 })
		if s := e.Snapshot("a"); s.StateSaveError != noSaveError {
			t.Fatalf("save error %q, want %q", s.StateSaveError, noSaveError)
		}
		moved := *cfg
		moved.StateDir = t.TempDir()
		e.Start(context.Background(), &moved)
		clk.Advance(cfg.Fit.Interval + time.Minute)
		waitFor(t, "a save in the new state_dir", func() bool { _, err := state.Load(moved.StateDir, "a"); return err == nil })
		waitFor(t, "the fit that saved", func() bool { return e.Snapshot("a").Fits == 2 })
		if s := e.Snapshot("a"); s.StateSaveError != "" || !s.StateSaved.Equal(clk.Now()) {
			t.Errorf("save error %q, saved %v; want saved at %v", s.StateSaveError, s.StateSaved, clk.Now())
		}
	})
}

// countingFitter2 is a second model fitted and restored like countingFitter.
type countingFitter2 struct{ countingFitter }

func (countingFitter2) Name() string { return "counting2" }

// TestRestoredFiguresOutOfRangeDropped: a state file's figures out of
// their range (a read ratio of 7, a negative IO size, a negative host
// count, an accuracy of 3, a fit time a year ahead) are dropped, not
// served; a model restored without a saved status reads fitted and stale
// (it read "never fitted" while serving, and never turned stale). Only
// each model's own JSON was checked.
func TestRestoredFiguresOutOfRangeDropped(t *testing.T) {
	fake := promfake.New(testWorkload().Answer)
	defer fake.Close()
	fake.SetMode(promfake.Down)
	cfg := testConfig(t, fake.URL)
	ahead := float64(testNow.AddDate(1, 0, 0).Unix())
	file := fmt.Sprintf(`{"version":1,"cluster":"a","savedUnix":%v,
		"fitted":{"counting":{"fits":4},"counting2":{"fits":2}},
		"models":{"counting":{"fitted":true,"lastFit":%v,"accuracy":2,"accuracyMeasured":true,"trainingSamples":-5}},
		"fitSeconds":{"counting":-1},
		"accuracy":{"counting":{"count":3,"other":0.5}},
		"hosts":-3,
		"observed":{"time":%v,"readIops":1400,"writeIops":600,"iops":2000,"readRatio":7,"readSizeBytes":4096,"writeSizeBytes":4096,"ioSizeBytes":-4096,"latencySeconds":0.001}}`,
		testNow.Unix()-60, ahead, testNow.Unix()-60)
	if err := os.WriteFile(state.Path(cfg.StateDir, "a"), []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	var logs testtool.SyncBuffer
	src, err := source.NewPrometheus(cfg.Prometheus, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	e := New(Options{Source: src, Fitters: []models.Fitter{countingFitter{}, countingFitter2{}}, Now: (&clock{t: testNow}).Now,
		Log: slog.New(slog.NewTextHandler(&logs, nil))})
	e.Start(context.Background(), cfg)
	defer e.Stop()
	s := e.Snapshot("a")
	if s.StateRestoreError != "" || s.Set["counting"] == nil || s.Set["counting2"] == nil {
		t.Fatalf("restore error %q, models %v; want both restored", s.StateRestoreError, s.Set.Names())
	}
	if s.HasObserved || s.Hosts != 0 {
		t.Errorf("observation %v (%+v), hosts %d; want neither served", s.HasObserved, s.Observed, s.Hosts)
	}
	if st := s.Models["counting"]; !st.Fitted || !st.Stale || st.LastFitUnix != 0 || st.AccuracyRatio != 0 || st.AccuracyMeasured || st.TrainingSamples != 0 {
		t.Errorf("counting status %+v; want fitted, stale, its fit time, accuracy and samples dropped", st)
	}
	if st := s.Models["counting2"]; !st.Fitted || !st.Stale {
		t.Errorf("counting2, saved without a status: %+v; want fitted and stale", st)
	}
	if _, ok := s.FitSeconds["counting"]; ok || len(s.Accuracy["counting"]) != 1 || s.Accuracy["counting"]["other"] != 0.5 {
		t.Errorf("fit seconds %v, accuracy %v; want the negative duration and the accuracy of 3 dropped", s.FitSeconds, s.Accuracy["counting"])
	}
	for _, why := range []string{"observation: ioSizeBytes -4096", "hosts: -3", "lastFit", "accuracy of count 3"} {
		if !strings.Contains(logs.String(), why) {
			t.Errorf("log does not say %q:\n%s", why, logs.String())
		}
	}
	// The source down: every served model still reads stale after a refresh.
	waitFor(t, "a refresh", func() bool { return e.Snapshot("a").Ready && e.Snapshot("a").SourceError != "" })
	for _, name := range []string{"counting", "counting2"} {
		if st := e.Snapshot("a").Models[name]; !st.Fitted || !st.Stale {
			t.Errorf("%s after a refresh: %+v", name, st)
		}
	}
}

// TestModelOfALaterVersionNotAFitError: a saved model no fitter of this
// version knows (a later version's) is not reported: its status read "saved
// model not restored" with storcast_model_fit_error 1 for good
// (StorcastModelFitFailing firing forever), since no fit would clear it.
// Its JSON and its saved status are written back by every save.
func TestModelOfALaterVersionNotAFitError(t *testing.T) {
	fake := promfake.New(testWorkload().Answer)
	defer fake.Close()
	cfg := testConfig(t, fake.URL)
	file := fmt.Sprintf(`{"version":1,"cluster":"a","savedUnix":%d,
		"fitted":{"from-later":{"knots":[1,2,3]}},
		"models":{"from-later":{"fitted":true,"lastFit":%d,"trainingSamples":9}},
		"fitSeconds":{"from-later":0.5}}`, testNow.Unix()-60, testNow.Unix()-120)
	if err := os.WriteFile(state.Path(cfg.StateDir, "a"), []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	e := startAt(t, cfg, append(baseFitters(), countingFitter{}), testNow)
	defer e.Stop()
	if st, ok := e.Snapshot("a").Models["from-later"]; ok {
		t.Errorf("a later version's model reported: %+v", st)
	}
	waitSaved(t, cfg, "counting")
	if st, ok := e.Snapshot("a").Models["from-later"]; ok {
		t.Errorf("a later version's model reported after a fit: %+v", st)
	}
	st, err := state.Load(cfg.StateDir, "a")
	if err != nil {
		t.Fatal(err)
	}
	if got := string(st.Fitted["from-later"]); got != `{"knots":[1,2,3]}` {
		t.Errorf("its JSON saved as %s", got)
	}
	if got := st.Models["from-later"]; !got.Fitted || got.TrainingSamples != 9 || got.Error != "" {
		t.Errorf("its status saved as %+v; want the one it was saved with", got)
	}
}

// TestCheckObservedRanges: each figure of a saved observation out of its
// range refuses it; an unknown latency (NaN) and an idle observation (zero
// rates and sizes) do not.
func TestCheckObservedRanges(t *testing.T) {
	good := features.Observed{Time: 1.7e9, ReadIOPS: 1400, WriteIOPS: 600, IOPS: 2000, ReadRatio: 0.7,
		ReadSizeBytes: 4096, WriteSizeBytes: 4096, IOSizeBytes: 4096, LatencySeconds: 0.001}
	latest := 1.8e9
	for _, c := range []struct {
		name string
		edit func(o *features.Observed)
		want string
	}{
		{"as measured", func(*features.Observed) {}, ""},
		{"latency unknown", func(o *features.Observed) { o.LatencySeconds = math.NaN() }, ""},
		{"idle, no mix", func(o *features.Observed) {
			*o = features.Observed{Time: 1.7e9, Idle: true, LatencySeconds: math.NaN()}
		}, ""},
		{"read ratio 7", func(o *features.Observed) { o.ReadRatio = 7 }, "readRatio 7"},
		{"negative IO size", func(o *features.Observed) { o.IOSizeBytes = -1 }, "ioSizeBytes -1"},
		{"negative rate", func(o *features.Observed) { o.WriteIOPS = -600 }, "writeIops -600"},
		{"negative latency", func(o *features.Observed) { o.LatencySeconds = -0.001 }, "latencySeconds -0.001"},
		{"in the future", func(o *features.Observed) { o.Time = 1.9e9 }, "time 1.9e+09"},
	} {
		o := good
		c.edit(&o)
		err := checkObserved(&o, latest)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

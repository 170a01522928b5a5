package engine

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/storcast/storcast/exporter/config"
	"github.com/storcast/storcast/exporter/internal/promfake"
	"github.com/storcast/storcast/exporter/models"
	"github.com/storcast/storcast/exporter/source"
	"github.com/storcast/storcast/exporter/state"
)

// clock is a settable fake clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

var testNow = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

func testConfig(t *testing.T, url string) *config.Config {
	t.Helper()
	c := config.Default()
	c.Prometheus.URL = url
	c.Prometheus.Timeout = 200 * time.Millisecond
	c.Prometheus.Retries = 1
	c.Prometheus.RetryBackoff = time.Millisecond
	c.Fit = config.Fit{Interval: time.Hour, Lookback: 6 * time.Hour, Step: time.Minute, RefreshInterval: 20 * time.Millisecond, AccuracyThreshold: 0.5, StaleAfter: 2 * time.Hour}
	c.StateDir = t.TempDir()
	c.Clusters = []config.Cluster{{Name: "a", Kind: config.KindCeph, Matchers: []config.Matcher{{Name: "cluster", Op: "=", Value: "a"}},
		Calibration: config.Calibration{File: "testdata/calibration.yml"},
		LatencySLO:  config.LatencySLO{Threshold: 20 * time.Millisecond, Latency: "op"}}}
	// Not Validate: the 20 ms refresh is below config.MinInterval, on purpose.
	return &c
}

func testWorkload() promfake.Workload {
	return promfake.Workload{IOPS: promfake.Diurnal(2000, 0.3), ReadRatio: 0.7, ReadSize: 4096, WriteSize: 4096, Capacity: 8000, L0: 0.001, Hosts: 4}
}

// waitFor polls cond until it holds or 10 s pass.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func startEngine(t *testing.T, fake *promfake.Server, cfg *config.Config) *Engine {
	t.Helper()
	src, err := source.NewPrometheus(cfg.Prometheus, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	clk := &clock{t: testNow}
	e := New(Options{Source: src, Now: clk.Now})
	e.Start(context.Background(), cfg)
	t.Cleanup(e.Stop)
	return e
}

// TestMaxIOPSAgainstConservation: with a benchmark calibration, max IOPS
// at the current mix is the harmonic conservation form of the two classes.
func TestMaxIOPSAgainstConservation(t *testing.T) {
	fake := promfake.New(testWorkload().Answer)
	defer fake.Close()
	e := startEngine(t, fake, testConfig(t, fake.URL))
	waitFor(t, "capacity", func() bool { return e.Snapshot("a").HasCapacityAtMix })
	s := e.Snapshot("a")
	// 4 KiB reads and writes at 70/30: 1 / (0.7/12000 + 0.3/4000).
	want := 1 / (0.7/12000 + 0.3/4000)
	if got := s.CapacityAtMix.MaxTotalIOPS; math.Abs(got-want)/want > 1e-9 {
		t.Errorf("max IOPS %v, want %v", got, want)
	}
	iops := testWorkload().IOPS(testNow)
	if math.Abs(s.Observed.IOPS-iops)/iops > 1e-9 {
		t.Errorf("observed %v, want %v", s.Observed.IOPS, iops)
	}
	if s.Models[Conservation].Stale || !s.Models[Conservation].Fitted {
		t.Errorf("conservation status %+v", s.Models[Conservation])
	}
	// A benchmark calibration has nothing to backtest: no accuracy, and
	// saying so rather than reporting 0.
	if st := s.Models[Conservation]; st.AccuracyMeasured || st.AccuracyRatio != 0 {
		t.Errorf("conservation from a file reports accuracy %v (measured %v)", st.AccuracyRatio, st.AccuracyMeasured)
	}
}

// TestFaultsKeepServingStaleAndRecover: whatever the source does wrong, the
// last forecasts keep serving, marked stale, and recover when it is back.
func TestFaultsKeepServingStaleAndRecover(t *testing.T) {
	for _, mode := range []promfake.Mode{promfake.Down, promfake.Refused, promfake.Slow, promfake.Error, promfake.BadData, promfake.NaN, promfake.Empty, promfake.Negative} {
		t.Run(string(mode), func(t *testing.T) {
			fake := promfake.New(testWorkload().Answer)
			defer fake.Close()
			fake.Delay = time.Second
			e := startEngine(t, fake, testConfig(t, fake.URL))
			waitFor(t, "first fit", func() bool { return e.Snapshot("a").HasCapacityAtMix })
			good := e.Snapshot("a").CapacityAtMix.MaxTotalIOPS

			fake.SetMode(mode)
			waitFor(t, "source down", func() bool { return !e.Snapshot("a").SourceUp })
			s := e.Snapshot("a")
			if !s.HasCapacityAtMix || s.CapacityAtMix.MaxTotalIOPS != good {
				t.Errorf("last forecast not kept: %v (had %v)", s.CapacityAtMix.MaxTotalIOPS, good)
			}
			if !s.Models[Conservation].Stale {
				t.Error("model not marked stale")
			}
			if s.SourceError == "" {
				t.Error("no source error recorded")
			}

			fake.SetMode(promfake.Healthy)
			waitFor(t, "recovery", func() bool { s := e.Snapshot("a"); return s.SourceUp && !s.Models[Conservation].Stale })
		})
	}
}

// TestStateRestoredAtStart: a second engine on the same state directory
// serves the saved model at once (stale until its source answers).
func TestStateRestoredAtStart(t *testing.T) {
	fake := promfake.New(testWorkload().Answer)
	defer fake.Close()
	cfg := testConfig(t, fake.URL)
	e := startEngine(t, fake, cfg)
	waitFor(t, "saved state", func() bool { _, err := state.Load(cfg.StateDir, "a"); return err == nil })
	want := e.Snapshot("a").CapacityAtMix.MaxTotalIOPS
	e.Stop()

	fake.SetMode(promfake.Down)
	e2 := startEngine(t, fake, cfg)
	s := e2.Snapshot("a")
	if s.Capacity == nil || !s.HasCapacityAtMix {
		t.Fatal("saved model not loaded")
	}
	if math.Abs(s.CapacityAtMix.MaxTotalIOPS-want) > 1e-9 {
		t.Errorf("restored max IOPS %v, want %v", s.CapacityAtMix.MaxTotalIOPS, want)
	}
	if !s.Models[Conservation].Stale {
		t.Error("restored model not stale before the source answered")
	}
	if !e2.Ready() {
		t.Error("not ready with a restored state")
	}
}

// TestRefitWhenAccuracyDrops: when the hosts' metrics stop explaining the
// load (here the disks start doing twice the work per client op), Inside-Out's
// accuracy on recent data falls below the threshold and the engine refits
// long before fit.interval.
func TestRefitWhenAccuracyDrops(t *testing.T) {
	w := testWorkload()
	var mu sync.Mutex
	changed := false
	fake := promfake.New(func(q string) []promfake.Series {
		s := w.Answer(q)
		mu.Lock()
		defer mu.Unlock()
		if changed && strings.Contains(q, "by (instance)") {
			for i := range s {
				f := s[i].Value
				s[i].Value = func(t time.Time) float64 { return 2 * f(t) }
			}
		}
		return s
	})
	defer fake.Close()
	cfg := testConfig(t, fake.URL)
	cfg.Clusters[0].Hosts = config.Hosts{Matchers: []config.Matcher{{Name: "job", Op: "=", Value: "node"}}, Roles: []config.Role{{Name: "osd"}}}
	src, err := source.NewPrometheus(cfg.Prometheus, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The clock advances 1 s per reading: the trigger's minimum gap after
	// a fit (interval/10 = 6 min) passes after a few refreshes.
	var mu2 sync.Mutex
	now := testNow
	e := New(Options{Source: src, Now: func() time.Time { mu2.Lock(); defer mu2.Unlock(); now = now.Add(time.Second); return now }})
	e.Start(context.Background(), cfg)
	t.Cleanup(e.Stop)
	waitFor(t, "first fit", func() bool { return e.Snapshot("a").InsideOut != nil })
	if s := e.Snapshot("a"); s.Fits != 1 || s.LastFitReason != "interval" {
		t.Fatalf("fits %d reason %q", s.Fits, s.LastFitReason)
	}
	time.Sleep(500 * time.Millisecond) // refreshes with unchanged data: no refit
	if s := e.Snapshot("a"); s.Fits != 1 {
		t.Fatalf("refit without cause: %d fits, reason %q", s.Fits, s.LastFitReason)
	}
	mu.Lock()
	changed = true
	mu.Unlock()
	waitFor(t, "refit", func() bool { return e.Snapshot("a").Fits >= 2 })
	if s := e.Snapshot("a"); s.LastFitReason != "insideout accuracy below threshold" {
		t.Errorf("refit reason %q", s.LastFitReason)
	}
}

// blockingLatency is a latency fitter that blocks until released.
type blockingLatency struct{ entered, release chan struct{} }

func (b blockingLatency) Fit([]string, [][]float64, float64) (models.Latency, error) {
	close(b.entered)
	<-b.release
	return nil, errors.New("released")
}
func (blockingLatency) Decode([]byte) (models.Latency, error) { return nil, errors.New("no") }

// TestFitNeverBlocksReaders: while a fit is stuck inside a model, readers
// get the current snapshot at once.
func TestFitNeverBlocksReaders(t *testing.T) {
	fake := promfake.New(testWorkload().Answer)
	defer fake.Close()
	cfg := testConfig(t, fake.URL)
	src, err := source.NewPrometheus(cfg.Prometheus, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	bl := blockingLatency{entered: make(chan struct{}), release: make(chan struct{})}
	e := New(Options{Source: src, Latency: bl, Now: (&clock{t: testNow}).Now})
	e.Start(context.Background(), cfg)
	defer e.Stop()
	<-bl.entered // the fit is now blocked inside the latency model
	snaps := e.Snapshots()
	if len(snaps) != 1 || !snaps[0].SourceUp || !e.Ready() {
		t.Errorf("snapshot during a fit: %+v", snaps)
	}
	close(bl.release)
	waitFor(t, "fit to finish", func() bool { return e.Snapshot("a").Fits == 1 })
	if st := e.Snapshot("a").Models[MLISP]; st.Fitted || st.Error != "released" {
		t.Errorf("failed fit status %+v", st)
	}
}

// TestLoadCalibrationFile: YAML and fio JSON by extension or format, and
// errors that name the file.
func TestLoadCalibrationFile(t *testing.T) {
	yml, err := LoadCalibrationFile("testdata/calibration.yml", "")
	if err != nil || len(yml.Points) != 2 || yml.Points[0].ReadIOPS != 12000 {
		t.Errorf("yaml: %+v %v", yml, err)
	}
	fio, err := LoadCalibrationFile("../../forecaster/conservation/testdata/fio-rbd.json", "")
	if err != nil || len(fio.Points) == 0 {
		t.Errorf("fio by extension: %+v %v", fio, err)
	}
	if _, err := LoadCalibrationFile("../../forecaster/conservation/testdata/fio-rbd.json", "yaml"); err == nil {
		t.Error("fio JSON read as YAML without error")
	}
	if _, err := LoadCalibrationFile("testdata/nope.yml", ""); err == nil || !strings.Contains(err.Error(), "nope.yml") {
		t.Errorf("missing file: %v", err)
	}
}

// TestReloadKeepsModels: a reload with the same cluster keeps its models
// (served at once, no refit); a changed cluster refits.
func TestReloadKeepsModels(t *testing.T) {
	fake := promfake.New(testWorkload().Answer)
	defer fake.Close()
	cfg := testConfig(t, fake.URL)
	e := startEngine(t, fake, cfg)
	waitFor(t, "first fit", func() bool { return e.Snapshot("a").Fits == 1 })
	e.Start(context.Background(), cfg)
	if s := e.Snapshot("a"); s.Capacity == nil || s.Fits != 1 {
		t.Fatalf("after reload: capacity %v fits %d", s.Capacity != nil, s.Fits)
	}
	time.Sleep(100 * time.Millisecond)
	if s := e.Snapshot("a"); s.Fits != 1 {
		t.Errorf("unchanged cluster refitted after reload (%d fits)", s.Fits)
	}
	changed := *cfg
	changed.Clusters = append([]config.Cluster(nil), cfg.Clusters...)
	changed.Clusters[0].LatencySLO.Threshold = 30 * time.Millisecond
	e.Start(context.Background(), &changed)
	waitFor(t, "refit of the changed cluster", func() bool { return e.Snapshot("a").Fits == 2 })
}

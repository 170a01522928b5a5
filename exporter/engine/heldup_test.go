package engine

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/storcast/storcast/exporter/config"
	"github.com/storcast/storcast/exporter/internal/promfake"
	"github.com/storcast/storcast/exporter/models"
	"github.com/storcast/storcast/exporter/state"
	"github.com/storcast/storcast/internal/testtool"
)

// hangingFitter is a model whose fit number hangAt does not return until
// release is closed, whatever its context says (a defect, or a solver
// that never checks it); entered is closed when that fit begins.
type hangingFitter struct {
	hangAt           int32
	fits             *atomic.Int32
	entered, release chan struct{}
}

func newHangingFitter(hangAt int32) hangingFitter {
	return hangingFitter{hangAt: hangAt, fits: new(atomic.Int32), entered: make(chan struct{}), release: make(chan struct{})}
}

func (hangingFitter) Name() string                 { return "hanging" }
func (hangingFitter) Enabled(*config.Cluster) bool { return true }
func (f hangingFitter) Fit(context.Context, models.Input) (models.Fitted, error) {
	n := f.fits.Add(1)
	if n == f.hangAt {
		close(f.entered)
		<-f.release
	}
	return &countingModel{Fits: int(n)}, nil
}
func (hangingFitter) Decode(b []byte) (models.Fitted, error) { return countingFitter{}.Decode(b) }

// TestHeldUpLoopReadsStale: a cluster whose loop is held up inside a fit
// (a model's fit that does not return) while its source fails reads its
// models stale once it has published nothing for HeldUpAfter, not before;
// refreshes and fits share the loop, so before, its last snapshot read
// fresh for as long as the fit hung. The source stays as the last refresh
// found it: held up, the loop does not know it.
func TestHeldUpLoopReadsStale(t *testing.T) {
	fake, cfg, src := fakeSource(t)
	clk := &clock{t: testNow}
	hf := newHangingFitter(2)
	e := New(Options{Source: src, Fitters: append(baseFitters(), hf), Now: clk.Now})
	e.Start(context.Background(), cfg)
	defer e.Stop()
	defer func() {
		select {
		case <-hf.release:
		default:
			close(hf.release)
		}
	}()
	waitFor(t, "first fit", func() bool { return e.Snapshot("a").Fits == 1 })
	clk.Advance(cfg.Fit.Interval + time.Minute)
	<-hf.entered // the second fit hangs inside the model
	fake.SetMode(promfake.Down)

	// Within the bound of the loop's last publish: nothing marked (a long
	// fit is not a held-up loop).
	last := e.Snapshot("a").published
	clk.Advance(last.Add(HeldUpAfter(cfg) - time.Second).Sub(clk.Now()))
	time.Sleep(10 * cfg.Fit.RefreshInterval)
	if s := e.Snapshot("a"); s.Models[models.Conservation].Stale {
		t.Fatalf("marked before the bound: conservation %+v", s.Models[models.Conservation])
	}
	clk.Advance(2 * time.Second)
	waitFor(t, "the models to read stale", func() bool { return e.Snapshot("a").Models[models.Conservation].Stale })
	s := e.Snapshot("a")
	if st := s.Models[models.Conservation]; !st.Fitted {
		t.Errorf("conservation %+v; want fitted and stale", st)
	}
	if !s.SourceUp || s.Fits != 1 || !s.HasCapacityAtMix {
		t.Errorf("source up %v, fits %d, capacity at mix %v; want the source as the last refresh found it, the first fit's models served", s.SourceUp, s.Fits, s.HasCapacityAtMix)
	}

	// Released, the loop goes on and its own snapshots replace the mark.
	close(hf.release)
	waitFor(t, "the held-up fit to be published", func() bool { return e.Snapshot("a").Fits == 2 })
	fake.SetMode(promfake.Healthy)
	waitFor(t, "a refresh after it", func() bool { s := e.Snapshot("a"); return s.SourceUp && !s.Models[models.Conservation].Stale })
}

// TestFitSlotFreeDuringSave: a fit gives its slot back before it saves the
// state, so that a save held up by the disk (an fsync that hangs) holds up
// no other cluster's fit; the slot was held until the save returned.
func TestFitSlotFreeDuringSave(t *testing.T) {
	_, cfg, src := fakeSource(t)
	e := New(Options{Source: src, Fitters: baseFitters(), Now: (&clock{t: testNow}).Now, MaxConcurrentFits: 1})
	held := make(chan int, 1)
	release := make(chan struct{})
	var once sync.Once
	e.saveState = func(dir string, st *state.Cluster) error {
		once.Do(func() {
			held <- len(e.fitSlots)
			<-release
		})
		return state.Save(dir, st)
	}
	e.Start(context.Background(), cfg)
	defer e.Stop()
	defer close(release)
	select {
	case n := <-held:
		if n != 0 {
			t.Errorf("%d fit slots taken during the save; want none", n)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no save within 30 s")
	}
}

// TestStopWaitBounded: Stop returns after Options.StopWait when a loop
// does not end (a model's fit that ignores its context), and logs which
// cluster it left; it waited for good, holding up the process's exit.
func TestStopWaitBounded(t *testing.T) {
	_, cfg, src := fakeSource(t)
	var logs testtool.SyncBuffer
	hf := newHangingFitter(1)
	e := New(Options{Source: src, Fitters: append(baseFitters(), hf), Now: (&clock{t: testNow}).Now,
		StopWait: 100 * time.Millisecond, Log: slog.New(slog.NewTextHandler(&logs, nil))})
	e.Start(context.Background(), cfg)
	<-hf.entered
	e.mu.Lock()
	done := e.clusters["a"].done
	e.mu.Unlock()
	stopped := make(chan struct{})
	go func() {
		e.Stop()
		close(stopped)
	}()
	select {
	case <-stopped:
	case <-time.After(10 * time.Second):
		close(hf.release)
		<-stopped
		t.Fatal("Stop waited more than 10 s for a loop that does not end")
	}
	if l := logs.String(); !strings.Contains(l, "loops still running after the wait") || !strings.Contains(l, "clusters=[a]") {
		t.Errorf("log:\n%s\nwant the cluster left running named", l)
	}
	close(hf.release)
	waitFor(t, "the loop to end once the fit returns", func() bool { return ended(done) })
}

// TestReloadWithALoopHeldUp: a reload that restarts a cluster whose loop is
// held up (a model's fit that does not return) waits at most StopWait, not
// for good (which held SIGTERM, read only between reloads, with it): the
// cluster goes on in a new loop that refreshes; the old one, released,
// ends without publishing into the snapshot served. Its watchdog lives
// until the loop returns: a stopped loop still held up is marked.
func TestReloadWithALoopHeldUp(t *testing.T) {
	_, cfg, src := fakeSource(t)
	clk := &clock{t: testNow}
	var logs testtool.SyncBuffer
	hf := newHangingFitter(2)
	e := New(Options{Source: src, Fitters: append(baseFitters(), hf), Now: clk.Now,
		StopWait: 100 * time.Millisecond, Log: slog.New(slog.NewTextHandler(&logs, nil))})
	e.Start(context.Background(), cfg)
	defer e.Stop()
	waitFor(t, "first fit", func() bool { return e.Snapshot("a").Fits == 1 })
	clk.Advance(cfg.Fit.Interval + time.Minute)
	<-hf.entered // the second fit hangs
	e.mu.Lock()
	old := e.clusters["a"]
	e.mu.Unlock()

	changed := *cfg
	changed.Fit.Interval *= 2 // outside the clusters: every loop restarts
	started := make(chan struct{})
	go func() {
		e.Start(context.Background(), &changed)
		close(started)
	}()
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		close(hf.release)
		<-started
		t.Fatal("the reload waited more than 10 s for a loop held up in a fit")
	}
	if l := logs.String(); !strings.Contains(l, "their clusters go on in new loops") || !strings.Contains(l, "clusters=[a]") {
		t.Errorf("log:\n%s\nwant the held-up cluster named", l)
	}
	e.mu.Lock()
	successor := e.clusters["a"]
	e.mu.Unlock()
	if successor == old {
		t.Fatal("the held-up loop's state is still the cluster's")
	}
	// The old loop's watchdog still runs: past the bound its (no longer
	// served) snapshot reads stale.
	clk.Advance(HeldUpAfter(cfg) + time.Minute)
	waitFor(t, "the stopped, held-up loop to be marked", func() bool { return old.snap.Load().Models[models.Conservation].Stale })
	close(hf.release)
	waitFor(t, "the old loop to end once its fit returns", func() bool { return ended(old.done) })
	waitFor(t, "the new loop to fit", func() bool { return e.Snapshot("a").Fits >= 2 })
}

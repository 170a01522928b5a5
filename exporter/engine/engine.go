package engine

import (
	"context"
	"log/slog"
	"reflect"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/storcast/storcast/exporter/config"
	"github.com/storcast/storcast/exporter/models"
	"github.com/storcast/storcast/exporter/source"
	"github.com/storcast/storcast/exporter/state"
)

// Options configures an Engine.
type Options struct {
	Source source.Source
	// Fitters are the models, fitted in this order each cycle (a model may
	// read those before it: the latency model reads the capacity model).
	Fitters []models.Fitter
	Log     *slog.Logger
	Now     func() time.Time // default time.Now
	// MaxConcurrentFits bounds the clusters whose models are fitted at
	// once (0: GOMAXPROCS). Fits are CPU-bound: after a restart every
	// cluster is due at once, and 100 fits in parallel took every core for
	// minutes (scrapes and refreshes waited seconds behind them) and held
	// 100 histories in memory, for no more fits per second than as many
	// at once as there are cores.
	MaxConcurrentFits int
	// StopWait bounds how long Stop waits for the loops (0: DefaultStopWait).
	StopWait time.Duration
}

// DefaultStopWait is how long Stop waits for the loops to end: a fit in
// progress ends between two models and a save completes, but a model's fit
// that does not return, or a save whose fsync hangs, must not hold the
// process's shutdown for good. With the HTTP server's 10 s it stays within
// Kubernetes' default grace period of 30 s.
const DefaultStopWait = 20 * time.Second

// Engine owns the per-cluster loops.
type Engine struct {
	opt Options
	log *slog.Logger

	// lifecycle serialises Start and Stop: a Stop during a reload's wait
	// for the loops it stops must not leave the reload to start loops
	// after it.
	lifecycle   sync.Mutex
	mu          sync.Mutex
	fitInterval time.Duration // of the configuration in force
	clusters    map[string]*cluster
	order       []string
	// running is a copy of the configuration the loops were started with
	// and runningSrc the source they read (nil: no loop runs).
	running    *config.Config
	runningSrc source.Source
	// stateDir is the state_dir the clusters' states were last checked in
	// (restore, or a reload that moved it): "" before the first Start.
	stateDir string
	fitSlots chan struct{} // one token per fit in progress
	// saveState writes a cluster's state (state.Save; tests hold it up).
	saveState func(dir string, st *state.Cluster) error
}

// New returns an engine; Start runs it.
func New(opt Options) *Engine {
	if opt.Log == nil {
		opt.Log = slog.New(slog.DiscardHandler)
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.MaxConcurrentFits <= 0 {
		opt.MaxConcurrentFits = runtime.GOMAXPROCS(0)
	}
	if opt.StopWait <= 0 {
		opt.StopWait = DefaultStopWait
	}
	return &Engine{opt: opt, log: opt.Log, clusters: map[string]*cluster{}, fitSlots: make(chan struct{}, opt.MaxConcurrentFits), saveState: state.Save}
}

// cluster is one cluster's loop state.
type cluster struct {
	name string
	cfg  config.Cluster
	src  source.Source // set by Start while no loop runs
	snap atomic.Pointer[Snapshot]
	// written only by the cluster's loop
	lastFit     time.Time
	refitReason string
	// fitRetryAt is when a fit may be tried again after fetches of the
	// lookback failed, fitBackoff the last wait (fitFetchFailed; zero after
	// a fetch that passed). Start resets both when it restarts the loop.
	fitRetryAt time.Time
	fitBackoff time.Duration
	// history is the last fit's frame, which the next fit extends with
	// the steps since (fetchLookback); nil fetches the lookback whole.
	// Start drops it when it restarts the loop: the queries may have changed.
	history *source.Frame
	// noSave: the saved state could not be read nor moved aside; saving
	// would overwrite it (set by restore, and by checkStateDir, in Start).
	noSave bool
	// derivePanicked: deriving the live values panicked once (its stack is
	// logged once); written only by the cluster's loop.
	derivePanicked bool
	// outlookPanicked: computing the outlook panicked once (publish; its
	// stack is logged once). Written by whoever publishes: the loop, or
	// Start before the loop runs.
	outlookPanicked bool
	// stop ends the loop and done is closed once it has returned (set by
	// Start under Engine.mu; nil: no loop was started).
	stop context.CancelFunc
	done chan struct{}
}

// Start applies cfg and runs one loop per cluster. Called again (a
// reload), it keeps the loop of every cluster whose settings are unchanged
// while the source and the rest of the configuration (fit, state_dir, the
// query backend) are too: its fit in progress goes on, its history is kept
// and the reload does not wait for it. It stops the loops of removed and
// changed clusters, waits for them (at most Options.StopWait: a cluster
// whose loop is held up then goes on in a new one), and starts those of
// new and changed ones; a cluster that keeps its name keeps its models, and refits at once
// only if its settings or the fit settings changed. When state_dir changed,
// the new directory's file of every cluster that keeps its name is checked
// (checkStateDir). It returns how many loops it kept.
func (e *Engine) Start(ctx context.Context, cfg *config.Config) (kept int) {
	e.lifecycle.Lock()
	defer e.lifecycle.Unlock()
	e.mu.Lock()
	keepAny := e.running != nil && e.runningSrc == e.opt.Source && sameOutsideClusters(e.running, cfg)
	// Models fitted under other fit settings (another lookback or step)
	// are refitted at once, not a fit.interval later.
	fitChanged := e.running != nil && (e.running.Fit.Lookback != cfg.Fit.Lookback || e.running.Fit.Step != cfg.Fit.Step)
	keys := make(map[string]string, len(cfg.Clusters))
	for i := range cfg.Clusters {
		keys[cfg.Clusters[i].Name] = cfg.Clusters[i].SourceKey()
	}
	running := map[*cluster]bool{}
	var stopping []*cluster
	for name, c := range e.clusters {
		if c.done == nil {
			continue
		}
		if key, ok := keys[name]; keepAny && ok && key == c.cfg.SourceKey() && !ended(c.done) {
			running[c] = true
			continue
		}
		c.stop()
		stopping = append(stopping, c)
	}
	e.mu.Unlock()
	if stuck := e.waitForLoops(stopping); len(stuck) > 0 {
		// A loop held up (a model's fit that does not return) would hold
		// the reload, and with it the shutdown, for good: its cluster goes
		// on in a successor, and the old loop, its context ended, exits
		// without publishing or saving once its fit returns.
		e.log.Error("reload: loops still running after the wait; their clusters go on in new loops (a model's fit or a state save that does not return)",
			"waited", e.opt.StopWait, "clusters", names(stuck))
		e.mu.Lock()
		for _, c := range stuck {
			if e.clusters[c.name] == c {
				e.clusters[c.name] = c.successor()
			}
		}
		e.mu.Unlock()
	}
	// A state_dir changed (a reload: every loop was stopped above, since the
	// configuration outside the clusters changed) may hold files for the
	// clusters already running, which their next saves would replace
	// unchecked: they are checked as a start checks them.
	if e.stateDir != "" && e.stateDir != cfg.StateDir {
		for i := range cfg.Clusters {
			if c := e.clusters[cfg.Clusters[i].Name]; c != nil {
				e.checkStateDir(c, cfg.StateDir)
			}
		}
	}

	// New clusters' saved states are restored before e.mu is taken:
	// reading and decoding a state file (up to 64 MiB, a slow disk) and
	// moving a damaged one aside must not hold up the API's snapshots nor
	// /-/ready. e.clusters changes only under e.lifecycle, which Start
	// holds, so it can be read here without e.mu.
	fresh := map[string]*cluster{}
	for i := range cfg.Clusters {
		cc := cfg.Clusters[i]
		if e.clusters[cc.Name] == nil && fresh[cc.Name] == nil {
			c := &cluster{name: cc.Name, cfg: cc} // restore reads which models cc enables
			e.publish(c, &Snapshot{Cluster: cc.Name, Kind: cc.Kind, Models: e.emptyStatuses(&cc)})
			e.restore(c, cfg.StateDir)
			fresh[cc.Name] = c
		}
	}

	// After e.mu is released (defers run last first): reading state_dir
	// must not hold up the API's snapshots.
	defer e.warnUnusedStates(cfg)
	e.mu.Lock()
	defer e.mu.Unlock()
	e.fitInterval = cfg.Fit.Interval
	e.stateDir = cfg.StateDir
	// A copy: a caller that edits its configuration in place and starts
	// again must not find it equal to itself.
	applied := *cfg
	e.running, e.runningSrc = &applied, e.opt.Source
	old := e.clusters
	e.clusters = map[string]*cluster{}
	e.order = nil
	for i := range cfg.Clusters {
		cc := cfg.Clusters[i]
		c := old[cc.Name]
		if c == nil {
			c = fresh[cc.Name]
		}
		e.clusters[cc.Name] = c
		e.order = append(e.order, cc.Name)
		if running[c] {
			kept++
			continue
		}
		if c.lastFit.IsZero() || fitChanged || c.cfg.SourceKey() != cc.SourceKey() {
			c.lastFit = time.Time{} // new or changed cluster, or fit settings: fit at once
		}
		c.cfg = cc
		c.src = e.opt.Source
		c.history = nil
		c.fitRetryAt, c.fitBackoff = time.Time{}, 0 // new settings may fetch: try at once
		loopCtx, stop := context.WithCancel(ctx)
		done := make(chan struct{})
		c.stop, c.done = stop, done
		// The watchdog ends with the loop itself, not with its context: a
		// loop stopped while held up goes on being marked until it returns.
		watchCtx, endWatch := context.WithCancel(context.Background())
		watched := make(chan struct{})
		go func() {
			defer close(watched)
			e.watch(watchCtx, &applied, c)
		}()
		go func() {
			defer close(done)
			e.loop(loopCtx, &applied, c) // the configuration Start compares with next time
			endWatch()
			<-watched
		}()
	}
	return kept
}

// ended says whether the loop whose done channel this is has returned (its
// parent context ended): such a loop is started again, not kept.
func ended(done chan struct{}) bool {
	select {
	case <-done:
		return true
	default:
		return false
	}
}

// sameOutsideClusters says whether a and b agree on everything but their
// clusters and the listener (which the engine does not read).
func sameOutsideClusters(a, b *config.Config) bool {
	x, y := *a, *b
	x.Clusters, y.Clusters = nil, nil
	x.Web, y.Web = config.Web{}, config.Web{}
	return reflect.DeepEqual(x, y)
}

// Stop stops the loops and waits for them, at most Options.StopWait: a
// save in progress completes, a fit in progress ends between two models.
// A loop still running then (a model's fit that does not return, a save
// whose fsync hangs) is logged and left: the process is exiting. A Start
// after it waits for such a loop before it starts the cluster again.
func (e *Engine) Stop() {
	e.lifecycle.Lock()
	defer e.lifecycle.Unlock()
	e.mu.Lock()
	var loops []*cluster
	for _, c := range e.clusters {
		if c.done != nil {
			c.stop()
			loops = append(loops, c)
		}
	}
	e.running = nil // a Start after it starts every loop again
	e.mu.Unlock()
	if stuck := e.waitForLoops(loops); len(stuck) > 0 {
		e.log.Error("stopping: loops still running after the wait; not waiting for them (a model's fit or a state save that does not return)",
			"waited", e.opt.StopWait, "clusters", names(stuck))
	}
}

// waitForLoops waits for the stopped loops to return, at most
// Options.StopWait in all, and returns those still running.
func (e *Engine) waitForLoops(loops []*cluster) (stuck []*cluster) {
	deadline := time.NewTimer(e.opt.StopWait)
	defer deadline.Stop()
	for i, c := range loops {
		select {
		case <-c.done:
			continue
		case <-deadline.C:
		}
		for _, c := range loops[i:] {
			if !ended(c.done) {
				stuck = append(stuck, c)
			}
		}
		return stuck
	}
	return nil
}

func names(cs []*cluster) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.name
	}
	return out
}

// successor is a new loop state for c's cluster while c's loop, stopped,
// has not returned: the snapshot served and what Start reads of c, none of
// what the old loop still writes. The old loop keeps c.
func (c *cluster) successor() *cluster {
	n := &cluster{name: c.name, cfg: c.cfg, src: c.src, noSave: c.noSave} // lastFit zero: it fits at once
	n.snap.Store(c.snap.Load())
	return n
}

// FitInterval is fit.interval of the configuration in force (the landing
// page's next fit).
func (e *Engine) FitInterval() time.Duration {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.fitInterval
}

// Source is the source the loops read.
func (e *Engine) Source() source.Source {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.opt.Source
}

// SetSource replaces the source; it takes effect at the next Start, which
// restarts every loop on it.
func (e *Engine) SetSource(s source.Source) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.opt.Source = s
}

// loop is the life of one cluster: refresh, fit when due, wait.
func (e *Engine) loop(ctx context.Context, cfg *config.Config, c *cluster) {
	log := e.log.With("cluster", c.name)
	for {
		s := e.refresh(ctx, cfg, c, log)
		if ctx.Err() != nil {
			return
		}
		if reason, due := e.fitDue(cfg, c, s); due {
			e.fit(ctx, cfg, c, log, reason)
			c.refitReason = ""
			if ctx.Err() != nil {
				return
			}
		}
		t := time.NewTimer(cfg.Fit.RefreshInterval)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// fitDue says whether a fit is due and why: never fitted, the interval
// passed, or a model asked for it. Nothing is fitted while the query backend
// fails, nor before the backoff after a failed fetch of the lookback ends;
// a history whose data stopped arriving still fits. s is the snapshot the
// refresh just published (not c.snap, which markHeldUp may have replaced
// meanwhile with a copy reading the source down).
func (e *Engine) fitDue(cfg *config.Config, c *cluster, s *Snapshot) (reason string, due bool) {
	if !s.SourceUp && !s.NoRecentData {
		return "", false
	}
	if e.opt.Now().Before(c.fitRetryAt) {
		return "", false
	}
	switch {
	case c.refitReason != "":
		return c.refitReason, true
	case c.lastFit.IsZero() || e.opt.Now().Sub(c.lastFit) >= cfg.Fit.Interval:
		return "interval", true
	}
	return "", false
}

// mayTrigger says whether an accuracy trigger may ask for a refit now: it
// waits a tenth of the interval (at least five refreshes) after the last
// fit, since a refit that cannot do better (the lookback still holds mostly
// the old behaviour) must not loop.
func (e *Engine) mayTrigger(cfg *config.Config, c *cluster) bool {
	gap := max(cfg.Fit.Interval/10, 5*cfg.Fit.RefreshInterval)
	return c.refitReason == "" && !c.lastFit.IsZero() && e.opt.Now().Sub(c.lastFit) >= gap
}

package engine

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/storcast/storcast/exporter/config"
	"github.com/storcast/storcast/exporter/features"
	"github.com/storcast/storcast/exporter/models"
	"github.com/storcast/storcast/exporter/source"
)

// refreshSteps is how many grid steps a refresh fetches (at least): the
// recent frame the models score themselves on.
const refreshSteps = 10

// freshness is how old the latest sample may be and still count as "now":
// two rate windows' worth of ingestion delay (Ceph's counters reach
// Prometheus 5-15 s late). Older, the data stopped arriving: the last
// observation is not served as current.
func freshness(cfg *config.Config) time.Duration {
	return max(2*cfg.Fit.Step, 2*time.Minute)
}

// freshSteps is freshness in grid steps.
func freshSteps(cfg *config.Config) int {
	return int((freshness(cfg) + cfg.Fit.Step - 1) / cfg.Fit.Step)
}

// RefreshDeadline bounds a whole refresh, every query and retry included:
// prometheus.timeout. A hung, slow or failing query backend marks the source
// down and the models stale within this deadline (plus the wait for the
// next refresh, fit.refresh_interval), however many queries a refresh sends.
func RefreshDeadline(cfg *config.Config) time.Duration { return cfg.Prometheus.Timeout }

// FitFetchDeadline bounds a fit's fetch of the lookback: four times
// prometheus.timeout, since it reads far more than a refresh.
func FitFetchDeadline(cfg *config.Config) time.Duration { return 4 * cfg.Prometheus.Timeout }

// HeldUpAfter is how long a cluster's loop may publish nothing before its
// snapshot is marked held up (markHeldUp): three refresh intervals, a
// refresh's deadline and a fit's fetch deadline, more than a loop that
// refreshes, or fits with a fetch that runs to its deadline, goes without
// publishing.
func HeldUpAfter(cfg *config.Config) time.Duration {
	return 3*cfg.Fit.RefreshInterval + RefreshDeadline(cfg) + FitFetchDeadline(cfg)
}

// watch checks the cluster's snapshot every refresh interval until ctx
// ends (markHeldUp). It runs beside the loop, since what it catches is the
// loop itself held up: refreshes and fits share it, so a model's fit that
// does not return, a long wait for a fit slot or a save whose fsync hangs
// also stop the refreshes, and the last snapshot read fresh for good.
func (e *Engine) watch(ctx context.Context, cfg *config.Config, c *cluster) {
	t := time.NewTicker(cfg.Fit.RefreshInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			e.markHeldUp(cfg, c)
		}
	}
}

// markHeldUp publishes a copy of the cluster's snapshot with every fitted
// model stale when the loop has published nothing for HeldUpAfter: the
// observation served is that old. The source is left as the last refresh
// found it: a loop waiting for a fit slot behind many clusters' fits is
// held up, its source is not down (storcast_source_up 0 would page for the
// backend). The copy replaces the snapshot only if the loop has not
// published meanwhile (a compare and swap), and keeps its outlook and
// publish time; the loop's next publish replaces it.
func (e *Engine) markHeldUp(cfg *config.Config, c *cluster) {
	s := c.snap.Load()
	if s.published.IsZero() || e.opt.Now().Sub(s.published) <= HeldUpAfter(cfg) || allStale(s) {
		return
	}
	next := s.clone()
	for name, st := range next.Models {
		st.Stale = st.Fitted
		next.Models[name] = st
	}
	if c.snap.CompareAndSwap(s, next) {
		e.log.Warn("cluster's loop held up (a fit, a wait for a fit slot or a state save has not returned): models marked stale; nothing is refreshed meanwhile",
			"cluster", c.name, "last_publish", s.published, "after", HeldUpAfter(cfg))
	}
}

// allStale says whether every fitted model of s reads stale.
func allStale(s *Snapshot) bool {
	for _, st := range s.Models {
		if st.Fitted && !st.Stale {
			return false
		}
	}
	return true
}

// refresh fetches the last few steps and updates the observed inputs and
// what the models say about them. It returns the snapshot it published
// (nil when ctx ended).
func (e *Engine) refresh(ctx context.Context, cfg *config.Config, c *cluster, log *slog.Logger) *Snapshot {
	now := e.opt.Now().Truncate(cfg.Fit.Step)
	window := source.RateWindowOf(cfg.Fit.Step)
	// Far enough back to tell whether the latest fresh point's rate
	// window was full (features.WarmingUp).
	steps := max(refreshSteps, freshSteps(cfg)+int((window+cfg.Fit.Step-1)/cfg.Fit.Step)+1)
	r := source.Range{Start: now.Add(-time.Duration(steps-1) * cfg.Fit.Step), End: now, Step: cfg.Fit.Step}
	fctx, cancel := context.WithTimeout(ctx, RefreshDeadline(cfg))
	frame, err := c.src.Fetch(fctx, &c.cfg, r)
	cancel()
	if err != nil && ctx.Err() == nil && fctx.Err() != nil {
		err = fmt.Errorf("refresh deadline (%v, prometheus.timeout) passed: %w", RefreshDeadline(cfg), err)
	}
	next := c.snap.Load().clone()
	next.Kind = c.cfg.Kind
	next.SLOSeconds = c.cfg.LatencySLO.Threshold.Seconds()
	next.LatencyKind = c.cfg.LatencySLO.Latency
	next.LatencyModel = cfg.Fit.LatencyModel
	next.Ready = true
	// WarmingUp and LastRefresh change only with a new observation: the
	// last one is what is still served (stale) when this refresh fails.
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		log.Warn("refresh failed; serving the last forecasts, marked stale", "err", err)
		next.SourceUp, next.SourceError = false, err.Error()
		e.markStale(cfg, next)
		e.publish(c, next)
		return next
	}
	// The backend answered. No sample within the freshness window means the
	// data stopped arriving (or never came): the source is reported down
	// and the models stale, but they keep fitting from the history.
	obs, err := features.Current(frame, freshSteps(cfg))
	if err != nil {
		if !next.NoRecentData {
			log.Warn("no recent data; serving the last forecasts, marked stale", "err", err)
		}
		next.SourceUp, next.NoRecentData, next.SourceError = false, true, err.Error()
		e.markStale(cfg, next)
		e.publish(c, next)
		return next
	}
	next.SourceUp, next.SourceError, next.NoRecentData = true, "", false
	next.LastRefresh = e.opt.Now()
	if obs.Idle && !(obs.IOSizeBytes > 0) && next.HasObserved {
		obs.WithMixOf(next.Observed) // idle since before this refresh's window
	}
	next.Observed, next.HasObserved = obs, true
	next.WarmingUp = features.WarmingUp(frame, obs.Time, window)
	e.derive(cfg, c, next, frame)
	e.markStale(cfg, next)
	e.publish(c, next)
	return next
}

// derive recomputes what depends on the latest observation: the models'
// live values, the host count, and the refit triggers. A panic in a model's
// code here (a defect met on some cluster's data, as fitOne guards the fit)
// is logged, with its stack the first time; if it came before this
// observation's live values were derived, none are served (their series go
// absent rather than serve an older observation's as fresh). The process and
// the other clusters go on.
func (e *Engine) derive(cfg *config.Config, c *cluster, s *Snapshot, recent *source.Frame) {
	derived := false
	defer func() {
		if r := recover(); r != nil {
			if !derived {
				s.Live = models.Live{}
			}
			e.logPanic(c, "deriving the live values", "none are served", &c.derivePanicked, r)
		}
	}()
	s.Live = s.Set.Derive(s.Observed, s.HasObserved, recent)
	derived = true
	if h, ok := recent.Last(source.OSDHosts, refreshSteps); ok && h > 0 {
		s.Hosts = int(h)
	} else if s.HostsFromInsideOut > 0 {
		s.Hosts = s.HostsFromInsideOut
	}
	if !e.mayTrigger(cfg, c) {
		return
	}
	for _, name := range s.Set.Names() {
		if ch, ok := s.Set[name].(models.Checker); ok {
			if why := ch.Check(recent, s.Observed, cfg.Fit.AccuracyThreshold); why != "" {
				c.refitReason = why
				return
			}
		}
	}
	// The latency model served, as it is served (the other one, fitted
	// beside it, triggers nothing).
	if why := s.Set.CheckLatency(s.Latency(), s.Observed, cfg.Fit.AccuracyThreshold); why != "" {
		c.refitReason = why
	}
}

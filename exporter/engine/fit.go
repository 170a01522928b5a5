package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"runtime/debug"
	"sort"
	"time"

	"github.com/storcast/storcast/exporter/apiv1"
	"github.com/storcast/storcast/exporter/config"
	"github.com/storcast/storcast/exporter/features"
	"github.com/storcast/storcast/exporter/models"
	"github.com/storcast/storcast/exporter/source"
)

// fit fetches the lookback and refits every enabled model in order. A model
// whose fit fails keeps its previous version and records the error.
func (e *Engine) fit(ctx context.Context, cfg *config.Config, c *cluster, log *slog.Logger, reason string) {
	start := time.Now()
	frame, r, ok := e.fetchLookback(ctx, cfg, c, log)
	if !ok {
		return
	}
	// The fetch above waits on the upstream, the fitting below on the CPU:
	// only the fitting takes one of the bounded slots, and gives it back
	// before the save, whose fsync may wait on a slow disk.
	select {
	case e.fitSlots <- struct{}{}:
	case <-ctx.Done():
		return
	}
	log.Info("fitting", "reason", reason, "points", r.N(), "queries", frame.Stats.Queries, "series", frame.Stats.Series, "bytes", frame.Stats.ResponseBytes)
	next := c.snap.Load().clone()
	e.fitModels(ctx, cfg, c, frame, next, log)
	<-e.fitSlots
	if ctx.Err() != nil {
		return // shutting down or reloading: the models in force stay
	}
	e.observe(next, frame)
	if !next.NoRecentData {
		next.SourceUp, next.SourceError = true, ""
	}
	e.derive(cfg, c, next, frame.Tail(refreshSteps))
	e.markStale(cfg, next)
	c.lastFit = e.opt.Now()
	next.Fits++
	next.LastFitReason = reason
	// Saved before it is published, so that the snapshot says how its own
	// save went; readers keep the previous snapshot meanwhile.
	e.save(cfg.StateDir, c, next)
	e.publish(c, next)
	log.Info("fit done", "seconds", time.Since(start).Seconds())
}

// fetchLookback fetches the fit's lookback, ending at the last whole step.
// After a first fit it asks only for the steps since the last fit's frame
// (c.history) and an overlap of lateSteps, and splices them onto it: the
// cost of a fit then follows the fit interval, not the lookback. When the
// fetch fails (and ctx has not ended) it records the failure
// (fitFetchFailed) and returns !ok: the last models are kept.
func (e *Engine) fetchLookback(ctx context.Context, cfg *config.Config, c *cluster, log *slog.Logger) (*source.Frame, source.Range, bool) {
	end := e.opt.Now().Truncate(cfg.Fit.Step)
	// Whole steps back from end: a lookback that is not a multiple of the
	// step would put the grid off the refreshes' and the history's, and
	// every incremental fetch would fail to splice and fetch whole.
	lookback := cfg.Fit.Lookback / cfg.Fit.Step * cfg.Fit.Step
	r := source.Range{Start: end.Add(-lookback), End: end, Step: cfg.Fit.Step}
	fr := r
	if h := c.history; h != nil && h.Range.Step == r.Step && !h.Range.End.After(r.End) {
		from := h.Range.End.Add(-time.Duration(lateSteps(cfg)) * r.Step)
		if from.After(r.Start) && !h.Range.Start.After(r.Start) {
			fr.Start = from
		}
	}
	fctx, cancel := context.WithTimeout(ctx, FitFetchDeadline(cfg))
	frame, err := c.src.Fetch(fctx, &c.cfg, fr)
	cancel()
	if err == nil && fr != r {
		spliced, ok := source.Splice(c.history, frame, r)
		if !ok { // grids that do not line up: fetch it whole
			log.Debug("fit: history does not line up with the lookback; fetching it whole", "history", c.history.Range, "lookback", r)
			fctx, cancel := context.WithTimeout(ctx, FitFetchDeadline(cfg))
			frame, err = c.src.Fetch(fctx, &c.cfg, r)
			cancel()
		} else {
			frame = spliced
		}
	}
	if err != nil {
		if ctx.Err() == nil {
			e.fitFetchFailed(cfg, c, log, err)
		}
		return nil, r, false
	}
	c.history = frame
	c.fitBackoff, c.fitRetryAt = 0, time.Time{}
	return frame, r, true
}

// fitFetchFailed records a failed fetch of the lookback: every enabled
// model's status takes the error (storcast_model_fit_error: the fit
// attempt failed, the last models keep serving), and the next attempt
// waits a backoff (fitBackoff). The source is not marked down: the
// refreshes, which read it, say whether it answers. A lookback the backend
// refuses (query.max-samples, max_response_bytes, the fetch deadline) while
// the refreshes pass was fetched again at every refresh, the source
// reading down after each attempt and up at the next refresh.
func (e *Engine) fitFetchFailed(cfg *config.Config, c *cluster, log *slog.Logger, err error) {
	c.fitBackoff = fitBackoff(cfg, c.fitBackoff)
	c.fitRetryAt = e.opt.Now().Add(c.fitBackoff)
	log.Warn("fit: fetching the lookback failed; keeping the last models", "err", err, "retry_in", c.fitBackoff)
	next := c.snap.Load().clone()
	for _, f := range e.opt.Fitters {
		if !f.Enabled(&c.cfg) {
			continue
		}
		st := next.Models[f.Name()]
		st.Error, st.Waiting = "fetching the lookback failed (next attempt in "+c.fitBackoff.String()+"): "+err.Error(), ""
		next.Models[f.Name()] = st
	}
	e.markStale(cfg, next)
	e.publish(c, next)
}

// fitBackoff is the wait before the next fit after a failed fetch of the
// lookback, prev the last one (0: none failed since the last fetch that
// passed): a minute (or the refresh interval, if longer), doubling,
// capped at fit.interval.
func fitBackoff(cfg *config.Config, prev time.Duration) time.Duration {
	d := max(cfg.Fit.RefreshInterval, time.Minute)
	if prev > 0 {
		d = 2 * prev
	}
	return min(d, cfg.Fit.Interval)
}

// lateSteps is how many steps before the end of the last fit's frame an
// incremental fetch asks for again: two rate windows, for samples that
// reached the backend late (a rate near the end of a frame moves while
// the samples of its window arrive).
func lateSteps(cfg *config.Config) int {
	w := 2 * source.RateWindowOf(cfg.Fit.Step)
	return int((w + cfg.Fit.Step - 1) / cfg.Fit.Step)
}

// fitModels fits every enabled model on frame, in order, into next: each
// fitter sees the models fitted before it (next.Set), and a failed fit keeps
// the previous model and records why. A model whose fitter the cluster no
// longer enables (after a reload) is dropped, not served on.
func (e *Engine) fitModels(ctx context.Context, cfg *config.Config, c *cluster, frame *source.Frame, next *Snapshot, log *slog.Logger) {
	obs, hasObs := windowObservation(cfg, frame, next)
	for _, f := range e.opt.Fitters {
		if ctx.Err() != nil {
			return // shutting down or reloading: fit publishes nothing
		}
		if !f.Enabled(&c.cfg) {
			next.forget(f.Name())
			continue
		}
		in := models.Input{Cluster: &c.cfg, Frame: frame, Observed: obs, HasObserved: hasObs, Fitted: next.Set}
		t0 := time.Now()
		m, err := fitOne(ctx, f, in, log)
		e.record(next, f.Name(), cfg.Fit.Step, time.Since(t0), m, err, log)
		if err == nil {
			next.Set[f.Name()] = m
		}
	}
}

// fitOne runs one fitter, turning a panic into its fit error: a defect in
// one model, met on some cluster's data, must not take down the process and
// every other cluster's forecasts with it. The previous model is kept, as
// for any failed fit; the stack is logged for the bug report.
func fitOne(ctx context.Context, f models.Fitter, in models.Input, log *slog.Logger) (m models.Fitted, err error) {
	defer func() {
		if r := recover(); r != nil {
			log.Error("fit panicked; keeping the previous model", "model", f.Name(), "panic", r, "stack", string(debug.Stack()))
			m, err = nil, fmt.Errorf("panic in the %s fit: %v (a defect: the stack is in the log)", f.Name(), r)
		}
	}()
	return f.Fit(ctx, in)
}

// windowObservation is the observation the models are fitted with: the one
// at the end of the fit's own window, computed as a refresh computes it,
// rather than the last refresh's. A fit is then a function of its window
// alone, so two HA replicas fitting the same window agree even when their
// last refreshes ran in different steps (or, at start-up, one has not run
// yet). Without recent data in the window, or idle with no IO size to give
// the mix, the last refresh's observation stands.
func windowObservation(cfg *config.Config, frame *source.Frame, last *Snapshot) (features.Observed, bool) {
	o, err := features.Current(frame.Tail(max(refreshSteps, freshSteps(cfg)+1)), freshSteps(cfg))
	if err != nil || (o.Idle && !(o.IOSizeBytes > 0)) {
		return last.Observed, last.HasObserved
	}
	return o, true
}

// record writes the outcome of one model's fit into the next snapshot's
// status, timing and accuracy.
func (e *Engine) record(next *Snapshot, name string, step, took time.Duration, m models.Fitted, err error, log *slog.Logger) {
	st := next.Models[name]
	next.FitSeconds[name] = took.Seconds()
	if err != nil {
		st.Error, st.Waiting = err.Error(), ""
		var w models.Waiter
		if errors.As(err, &w) {
			st.Waiting = "waiting for " + w.WaitingFor(step)
			log.Info("model waits for more history", "model", name, "waiting", st.Waiting)
		} else {
			log.Warn("fit failed; keeping the previous model", "model", name, "err", err)
		}
		next.Models[name] = st
		return
	}
	st.Waiting = ""
	acc := m.Scores()
	st.Fitted, st.Error, st.Note = true, "", ""
	if n, ok := m.(models.Noter); ok {
		st.Note = n.Note()
	}
	st.LastFitUnix = float64(e.opt.Now().UnixMilli()) / 1e3
	st.TrainingSamples = m.Samples()
	st.AccuracyRatio, st.AccuracyMeasured = meanAccuracy(acc), len(acc) > 0
	next.Models[name] = st
	next.Accuracy[name] = acc
}

// observe keeps what the pages draw from the lookback itself: the demand
// history and the observed (IOPS, latency) pairs.
func (e *Engine) observe(next *Snapshot, frame *source.Frame) {
	ts, iops := features.Demand(frame)
	next.History = downsample(ts, iops, 500)
	_, cols := features.LatencyColumns(frame)
	next.ObservedLatencies = observedLatencies(cols[0], cols[1], 200)
}

// meanAccuracy is the mean over targets, summed in target-name order: a
// float sum over map order could differ in its last bits between two HA
// replicas fitting the same window.
func meanAccuracy(acc map[string]float64) float64 {
	if len(acc) == 0 {
		return 0
	}
	keys := make([]string, 0, len(acc))
	for k := range acc {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var s float64
	for _, k := range keys {
		s += acc[k]
	}
	return s / float64(len(acc))
}

// downsample keeps at most n points, evenly spaced, averaging each bucket.
func downsample(ts, ys []float64, n int) []apiv1.ForecastPoint {
	if len(ts) == 0 {
		return nil
	}
	per := (len(ts) + n - 1) / n
	out := make([]apiv1.ForecastPoint, 0, n)
	for i := 0; i < len(ts); i += per {
		j := min(i+per, len(ts))
		var s float64
		for _, y := range ys[i:j] {
			s += y
		}
		v := s / float64(j-i)
		out = append(out, apiv1.ForecastPoint{T: ts[j-1], Value: v, Lower: v, Upper: v})
	}
	return out
}

// observedLatencies returns up to n (IOPS, latency) pairs with both finite,
// the most recent ones.
func observedLatencies(iops, lat []float64, n int) []apiv1.ObservedLatency {
	var out []apiv1.ObservedLatency
	for i := len(iops) - 1; i >= 0 && len(out) < n; i-- {
		if !math.IsNaN(iops[i]) && !math.IsNaN(lat[i]) && lat[i] > 0 {
			out = append(out, apiv1.ObservedLatency{IOPS: iops[i], LatencySeconds: lat[i]})
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].IOPS < out[b].IOPS })
	return out
}

// save persists the snapshot's models and records the outcome in it
// (StateSaved, StateSaveError: storcast_state_save_success); a failure is
// logged, the models keep serving. A save that could not encode some model
// (persist) writes the rest and that model's last saved version, and
// counts as failed: a restart would serve the older version. Nothing is
// saved for a cluster whose unreadable file could not be moved aside
// (restore): that counts as a failed save until the next start, since a
// restart would lose the models.
func (e *Engine) save(dir string, c *cluster, s *Snapshot) {
	if c.noSave {
		s.StateSaveError = noSaveError
		return
	}
	st, partial := e.persist(s)
	if err := e.saveState(dir, st); err != nil {
		s.StateSaveError = err.Error()
		e.log.Error("saving state failed", "cluster", s.Cluster, "dir", dir, "err", err)
		return
	}
	s.persisted = persistedOf(st.Fitted, st.Models)
	if partial != nil {
		// Written, but without the current version of some model: not a
		// good save (StateSaved keeps the last one's time).
		s.StateSaveError = "saved in part: " + partial.Error()
		e.log.Error("saving state in part", "cluster", s.Cluster, "dir", dir, "err", partial)
		return
	}
	s.StateSaved, s.StateSaveError = e.opt.Now(), ""
}

// noSaveError is the save error of a cluster whose saved state could not be
// read nor moved aside.
const noSaveError = "the saved state could not be read nor moved aside: not saved until the next start (or a reload that moves state_dir), so that the file is kept"

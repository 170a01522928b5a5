package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/storcast/storcast/exporter/apiv1"
	"github.com/storcast/storcast/exporter/config"
	"github.com/storcast/storcast/exporter/features"
	"github.com/storcast/storcast/exporter/models"
	"github.com/storcast/storcast/exporter/source"
	"github.com/storcast/storcast/exporter/state"
	"github.com/storcast/storcast/forecaster/conservation"
	"github.com/storcast/storcast/forecaster/insideout"
)

// Model names, as in apiv1.ModelStatus and the model label of series.
const (
	Conservation = "conservation"
	InsideOut    = "insideout"
	MLISP        = "mlisp"
	Trend        = "trend"
)

// ModelNames lists the models in a fixed order.
var ModelNames = []string{Conservation, InsideOut, MLISP, Trend}

// Options configures an Engine.
type Options struct {
	Source source.Source
	// Latency and Trend fit the optional models; nil leaves them out.
	Latency models.LatencyFitter
	Trend   models.TrendFitter
	Log     *slog.Logger
	Now     func() time.Time // default time.Now
	// InsideOutWindows caps the windows Inside-Out trains on (default 1500).
	InsideOutWindows int
	// InsideOutOptions are passed to insideout.Train.
	InsideOutOptions insideout.Options
}

// Engine owns the per-cluster loops.
type Engine struct {
	opt Options
	log *slog.Logger

	mu       sync.Mutex
	cfg      *config.Config
	clusters map[string]*cluster
	order    []string
	cancel   context.CancelFunc
	wg       sync.WaitGroup
	ready    atomic.Bool
}

// New returns an engine; Start runs it.
func New(opt Options) *Engine {
	if opt.Log == nil {
		opt.Log = slog.New(slog.DiscardHandler)
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.InsideOutWindows == 0 {
		opt.InsideOutWindows = 1500
	}
	return &Engine{opt: opt, log: opt.Log, clusters: map[string]*cluster{}}
}

// Start applies cfg and starts one loop per cluster. Calling it again (on
// reload) restarts the loops with the new configuration; clusters that keep
// their name keep their models.
func (e *Engine) Start(ctx context.Context, cfg *config.Config) {
	e.mu.Lock()
	if e.cancel != nil {
		e.cancel()
	}
	e.mu.Unlock()
	e.wg.Wait()

	e.mu.Lock()
	defer e.mu.Unlock()
	e.cfg = cfg
	ctx, e.cancel = context.WithCancel(ctx)
	old := e.clusters
	e.clusters = map[string]*cluster{}
	e.order = nil
	for i := range cfg.Clusters {
		cc := cfg.Clusters[i]
		c := old[cc.Name]
		if c == nil {
			c = &cluster{name: cc.Name}
			c.snap.Store(&Snapshot{Cluster: cc.Name, Kind: cc.Kind, Models: emptyStatuses()})
			e.restore(c, cfg.StateDir)
		}
		if c.lastFit.IsZero() || c.cfg.SourceKey() != cc.SourceKey() {
			c.lastFit = time.Time{} // new or changed cluster: fit at once
		}
		c.cfg = cc
		c.src = e.opt.Source
		e.clusters[cc.Name] = c
		e.order = append(e.order, cc.Name)
		e.wg.Add(1)
		go func() {
			defer e.wg.Done()
			e.loop(ctx, cfg, c)
		}()
	}
}

// Stop stops the loops and waits for them; a save in progress completes.
func (e *Engine) Stop() {
	e.mu.Lock()
	if e.cancel != nil {
		e.cancel()
	}
	e.mu.Unlock()
	e.wg.Wait()
}

// Ready reports whether every cluster has completed one refresh or loaded
// a saved state.
func (e *Engine) Ready() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, c := range e.clusters {
		if !c.snap.Load().Ready {
			return false
		}
	}
	return len(e.clusters) > 0
}

// Snapshots returns the current snapshot of every cluster, in configuration
// order.
func (e *Engine) Snapshots() []*Snapshot {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]*Snapshot, 0, len(e.order))
	for _, n := range e.order {
		out = append(out, e.clusters[n].snap.Load())
	}
	return out
}

// Snapshot returns the snapshot of one cluster, nil when unknown.
func (e *Engine) Snapshot(name string) *Snapshot {
	e.mu.Lock()
	defer e.mu.Unlock()
	if c := e.clusters[name]; c != nil {
		return c.snap.Load()
	}
	return nil
}

type cluster struct {
	name string
	cfg  config.Cluster
	src  source.Source // set by Start while no loop runs
	snap atomic.Pointer[Snapshot]
	// written only by the cluster's loop
	lastFit      time.Time
	refitReason  string
	fixedCal     *conservation.Calibration
	fixedCalErr  error
	fixedCalFile string
}

// Snapshot is what readers see of a cluster. It is never modified after it
// is published.
type Snapshot struct {
	Cluster     string
	Kind        string
	SLOSeconds  float64
	LatencyKind string
	Ready       bool // refreshed once or loaded from the state directory
	SourceUp    bool
	SourceError string
	// LastRefresh is when the observed inputs were last refreshed.
	LastRefresh time.Time
	// Fits counts completed fit cycles since start; LastFitReason says why
	// the last one ran (interval or an accuracy trigger).
	Fits          int
	LastFitReason string

	Observed    features.Observed
	HasObserved bool
	Hosts       int // hosts with OSDs up (ceph), else hosts of the largest Inside-Out role; 0 unknown

	Capacity          *conservation.Model
	CapacitySource    string // file, history
	CapacityAtMix     conservation.Result
	HasCapacityAtMix  bool
	InsideOut         *insideout.Model
	PredictedIO       map[insideout.Target]float64
	Latency           models.Latency
	Trend             models.Trend
	Models            map[string]apiv1.ModelStatus
	FitSeconds        map[string]float64            // duration of the last fit per model
	Accuracy          map[string]map[string]float64 // model -> target -> backtest accuracy
	History           []apiv1.ForecastPoint         // observed total IOPS over the lookback (downsampled)
	ObservedLatencies []apiv1.ObservedLatency
}

func emptyStatuses() map[string]apiv1.ModelStatus {
	m := map[string]apiv1.ModelStatus{}
	for _, n := range ModelNames {
		m[n] = apiv1.ModelStatus{}
	}
	return m
}

// clone returns a shallow copy with its own maps, for building the next
// snapshot.
func (s *Snapshot) clone() *Snapshot {
	n := *s
	n.Models = map[string]apiv1.ModelStatus{}
	for k, v := range s.Models {
		n.Models[k] = v
	}
	n.FitSeconds = map[string]float64{}
	for k, v := range s.FitSeconds {
		n.FitSeconds[k] = v
	}
	n.Accuracy = map[string]map[string]float64{}
	for k, v := range s.Accuracy {
		n.Accuracy[k] = v
	}
	return &n
}

// loop is the life of one cluster.
func (e *Engine) loop(ctx context.Context, cfg *config.Config, c *cluster) {
	log := e.log.With("cluster", c.name)
	for {
		e.refresh(ctx, cfg, c, log)
		if ctx.Err() != nil {
			return
		}
		snap := c.snap.Load()
		due := c.lastFit.IsZero() || e.opt.Now().Sub(c.lastFit) >= cfg.Fit.Interval || c.refitReason != ""
		if due && snap.SourceUp {
			reason := c.refitReason
			if reason == "" {
				reason = "interval"
			}
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
		t.Stop()
	}
}

// refreshSteps is how many grid steps a refresh fetches; the last usable one
// within them is "now".
const refreshSteps = 10

// refresh fetches the last few steps and updates the observed inputs and the
// predictions that depend on them.
func (e *Engine) refresh(ctx context.Context, cfg *config.Config, c *cluster, log *slog.Logger) {
	now := e.opt.Now().Truncate(cfg.Fit.Step)
	r := source.Range{Start: now.Add(-time.Duration(refreshSteps-1) * cfg.Fit.Step), End: now, Step: cfg.Fit.Step}
	frame, err := c.src.Fetch(ctx, &c.cfg, r)
	var obs features.Observed
	if err == nil {
		obs, err = features.Current(frame, refreshSteps)
	}
	next := c.snap.Load().clone()
	next.Kind = c.cfg.Kind
	next.SLOSeconds = c.cfg.LatencySLO.Threshold.Seconds()
	next.LatencyKind = c.cfg.LatencySLO.Latency
	if err != nil {
		if ctx.Err() != nil {
			return
		}
		log.Warn("refresh failed; serving the last forecasts, marked stale", "err", err)
		next.SourceUp = false
		next.SourceError = err.Error()
		next.Ready = true
		e.markStale(cfg, next)
		c.snap.Store(next)
		return
	}
	next.SourceUp, next.SourceError, next.Ready = true, "", true
	next.LastRefresh = e.opt.Now()
	next.Observed, next.HasObserved = obs, true
	if h, ok := frame.Last(source.OSDHosts, refreshSteps); ok && h > 0 {
		next.Hosts = int(h)
	}
	e.derive(next, frame, c, cfg)
	e.markStale(cfg, next)
	c.snap.Store(next)
}

// derive recomputes what depends on the observed inputs: capacity at the
// current mix, Inside-Out's prediction and the refit triggers.
func (e *Engine) derive(s *Snapshot, recent *source.Frame, c *cluster, cfg *config.Config) {
	s.HasCapacityAtMix = false
	if s.Capacity != nil && s.HasObserved {
		if res, err := s.Capacity.AtMix(features.OpClasses(s.Observed)); err == nil {
			s.CapacityAtMix, s.HasCapacityAtMix = res, true
		}
	}
	s.PredictedIO = nil
	// An accuracy trigger waits a tenth of the interval (at least five
	// refreshes) after the last fit: a refit that cannot do better (the
	// lookback still holds mostly the old behaviour) must not loop.
	gap := max(cfg.Fit.Interval/10, 5*cfg.Fit.RefreshInterval)
	mayTrigger := c.refitReason == "" && !c.lastFit.IsZero() && e.opt.Now().Sub(c.lastFit) >= gap
	if s.InsideOut != nil && recent != nil {
		ws, measured, err := features.HostWindows(recent, 60, 0)
		if err == nil && len(ws) > 0 {
			if pred, err := s.InsideOut.Predict(ws[len(ws)-1]); err == nil {
				s.PredictedIO = pred
			}
			if acc, err := s.InsideOut.Score(ws, measured); err == nil && insideout.NeedsRetrain(acc, cfg.Fit.AccuracyThreshold) && mayTrigger {
				c.refitReason = "insideout accuracy below threshold"
			}
		}
	}
	if s.Latency != nil && s.HasObserved && s.Observed.LatencySeconds > 0 {
		if b, ok := s.Latency.At(s.Observed.IOPS); ok && b.Mean > 0 {
			if rel := math.Abs(b.Mean-s.Observed.LatencySeconds) / s.Observed.LatencySeconds; 1-rel < cfg.Fit.AccuracyThreshold && mayTrigger {
				c.refitReason = "latency accuracy below threshold"
			}
		}
	}
}

// markStale sets the stale flag of every model.
func (e *Engine) markStale(cfg *config.Config, s *Snapshot) {
	now := float64(e.opt.Now().UnixMilli()) / 1e3
	for name, st := range s.Models {
		st.Stale = st.Fitted && (!s.SourceUp || now-st.LastFitUnix > cfg.Fit.StaleAfter.Seconds())
		s.Models[name] = st
	}
}

// fit fetches the lookback and refits every model. A model whose fit fails
// keeps its previous version and records the error.
func (e *Engine) fit(ctx context.Context, cfg *config.Config, c *cluster, log *slog.Logger, reason string) {
	start := e.opt.Now()
	end := start.Truncate(cfg.Fit.Step)
	r := source.Range{Start: end.Add(-cfg.Fit.Lookback), End: end, Step: cfg.Fit.Step}
	frame, err := c.src.Fetch(ctx, &c.cfg, r)
	if err != nil {
		if ctx.Err() == nil {
			log.Warn("fit: fetching history failed; keeping the last models", "err", err)
			next := c.snap.Load().clone()
			next.SourceUp, next.SourceError = false, err.Error()
			e.markStale(cfg, next)
			c.snap.Store(next)
		}
		return
	}
	log.Info("fitting", "reason", reason, "points", r.N(), "queries", frame.Stats.Queries, "series", frame.Stats.Series, "bytes", frame.Stats.ResponseBytes)
	next := c.snap.Load().clone()
	nowUnix := func() float64 { return float64(e.opt.Now().UnixMilli()) / 1e3 }
	record := func(model string, t0 time.Time, samples int, acc map[string]float64, err error) {
		st := next.Models[model]
		next.FitSeconds[model] = time.Since(t0).Seconds()
		if err != nil {
			st.Error = err.Error()
			log.Warn("fit failed; keeping the previous model", "model", model, "err", err)
		} else {
			st.Fitted, st.Error = true, ""
			st.LastFitUnix = nowUnix()
			st.TrainingSamples = samples
			for k, a := range acc {
				if math.IsNaN(a) || math.IsInf(a, 0) {
					delete(acc, k)
				}
			}
			st.AccuracyRatio, st.AccuracyMeasured = meanAccuracy(acc), len(acc) > 0
			next.Accuracy[model] = acc
		}
		next.Models[model] = st
	}

	// Conservation: the calibration file, else an estimate from history.
	t0 := time.Now()
	cal, src, samples, acc, err := e.calibration(c, frame)
	if err == nil {
		var m *conservation.Model
		if m, err = conservation.NewModel(cal); err == nil {
			next.Capacity, next.CapacitySource = m, src
		}
	}
	record(Conservation, t0, samples, acc, err)

	// Inside-Out.
	if len(c.cfg.Hosts.Roles) > 0 || len(c.cfg.Hosts.Matchers) > 0 {
		t0 = time.Now()
		ws, targets, err := features.HostWindows(frame, 60, e.opt.InsideOutWindows)
		var m *insideout.Model
		if err == nil {
			m, err = insideout.Train(insideout.SchemaOf(ws), ws, targets, e.opt.InsideOutOptions)
		}
		acc := map[string]float64{}
		if err == nil {
			next.InsideOut = m
			for t, tm := range m.Targets {
				acc[string(t)] = tm.CVAccuracy
			}
			if _, ok := frame.Last(source.OSDHosts, refreshSteps); !ok {
				next.Hosts = maxHosts(ws[len(ws)-1])
			}
		}
		record(InsideOut, t0, len(ws), acc, err)
	}

	// Latency (M-LISP).
	names, cols := features.LatencyColumns(frame)
	if e.opt.Latency != nil {
		t0 = time.Now()
		// The curve reaches 1.2 × the capacity at the current mix when
		// known, so the SLO crossing shows even far above today's load.
		horizon := 0.0
		if next.Capacity != nil && next.HasObserved {
			if res, err := next.Capacity.AtMix(features.OpClasses(next.Observed)); err == nil {
				horizon = 1.2 * res.MaxTotalIOPS
			}
		}
		m, err := e.opt.Latency.Fit(names, cols, horizon)
		acc := map[string]float64{}
		if err == nil {
			next.Latency = m
			if a := m.Accuracy(); !math.IsNaN(a) {
				acc["latency"] = a
			}
		}
		n := 0
		if m != nil {
			n = m.Samples()
		}
		record(MLISP, t0, n, acc, err)
	}
	next.ObservedLatencies = observedLatencies(cols[0], cols[1], 200)

	// Demand trend.
	ts, iops := features.Demand(frame)
	next.History = downsample(ts, iops, 500)
	if e.opt.Trend != nil {
		t0 = time.Now()
		m, err := e.opt.Trend.Fit(ts, iops)
		acc := map[string]float64{}
		if err == nil {
			next.Trend = m
			if a := m.Accuracy(); !math.IsNaN(a) {
				acc["iops"] = a
			}
		}
		record(Trend, t0, len(ts), acc, err)
	}

	next.SourceUp, next.SourceError = true, ""
	e.derive(next, frame.Tail(refreshSteps), c, cfg)
	e.markStale(cfg, next)
	c.lastFit = e.opt.Now()
	next.Fits++
	next.LastFitReason = reason
	c.snap.Store(next)
	log.Info("fit done", "seconds", time.Since(start).Seconds())
	if err := state.Save(cfg.StateDir, e.persist(next)); err != nil {
		log.Error("saving state failed", "dir", cfg.StateDir, "err", err)
	}
}

// calibration returns the cluster's calibration: the configured file (read
// once per path), else an estimate from the frame's history.
func (e *Engine) calibration(c *cluster, frame *source.Frame) (cal conservation.Calibration, src string, samples int, acc map[string]float64, err error) {
	if f := c.cfg.Calibration.File; f != "" {
		if c.fixedCal == nil || c.fixedCalFile != f {
			c.fixedCalFile = f
			c.fixedCal, c.fixedCalErr = nil, nil
			cal, err := LoadCalibrationFile(f, c.cfg.Calibration.Format)
			if err != nil {
				c.fixedCalErr = err
			} else {
				c.fixedCal = &cal
			}
		}
		if c.fixedCalErr != nil {
			return cal, "", 0, nil, c.fixedCalErr
		}
		return *c.fixedCal, "file", len(c.fixedCal.Points), map[string]float64{}, nil
	}
	ws := features.CapacityWindows(frame)
	if len(ws) == 0 {
		return cal, "", 0, nil, errors.New("no usable window in the lookback")
	}
	cal, q, err := conservation.EstimateFromHistory(ws, conservation.EstimateOptions{})
	if err != nil {
		return cal, "", len(ws), nil, err
	}
	// Accuracy: how well the fitted capacity line explains the saturated
	// windows (their utilization should be 1): max(1 − RMS(U − 1), 0).
	acc = map[string]float64{}
	var s float64
	var k int
	for _, b := range q.Bands {
		if b.Fitted {
			s += b.RMSResidual * b.RMSResidual
			k++
		}
	}
	if k > 0 {
		acc["max_iops"] = math.Max(1-math.Sqrt(s/float64(k)), 0)
	}
	return cal, "history", q.Saturated, acc, nil
}

// LoadCalibrationFile reads a YAML calibration or fio JSON (format "yaml",
// "fio" or "" for by extension: .json is fio).
func LoadCalibrationFile(path, format string) (conservation.Calibration, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return conservation.Calibration{}, fmt.Errorf("calibration: %w", err)
	}
	if format == "" {
		format = "yaml"
		if strings.EqualFold(filepath.Ext(path), ".json") {
			format = "fio"
		}
	}
	var cal conservation.Calibration
	if format == "fio" {
		cal, err = conservation.ImportFio(data)
	} else {
		cal, err = conservation.LoadCalibration(data)
	}
	if err != nil {
		return cal, fmt.Errorf("calibration %s: %w", path, err)
	}
	return cal, nil
}

func meanAccuracy(acc map[string]float64) float64 {
	if len(acc) == 0 {
		return 0
	}
	var s float64
	for _, a := range acc {
		s += a
	}
	return s / float64(len(acc))
}

func maxHosts(w insideout.Window) int {
	n := 0
	for _, hosts := range w {
		if len(hosts) > n {
			n = len(hosts)
		}
	}
	return n
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

// persist builds the saved state of a snapshot.
func (e *Engine) persist(s *Snapshot) *state.Cluster {
	st := &state.Cluster{
		Cluster: s.Cluster, SavedUnix: float64(e.opt.Now().UnixMilli()) / 1e3,
		Models: s.Models, FitSeconds: s.FitSeconds, Accuracy: s.Accuracy, Hosts: s.Hosts,
	}
	if s.Capacity != nil {
		cal := s.Capacity.Calibration()
		st.Calibration, st.CalibrationSource = &cal, s.CapacitySource
	}
	// Each model is encoded on its own: one that cannot be (a NaN inside,
	// say) is left out and refitted after a restart, the others are kept.
	encode := func(name string, v any) json.RawMessage {
		b, err := json.Marshal(v)
		if err != nil {
			e.log.Warn("model not persisted", "cluster", s.Cluster, "model", name, "err", err)
			return nil
		}
		return b
	}
	if s.InsideOut != nil {
		st.InsideOut = encode(InsideOut, s.InsideOut)
	}
	if s.Latency != nil {
		st.Latency = encode(MLISP, s.Latency)
	}
	if s.Trend != nil {
		st.Trend = encode(Trend, s.Trend)
	}
	if s.HasObserved {
		o := s.Observed
		st.Observed = &o
	}
	return st
}

// restore loads the saved state of c, if any, into its snapshot. Models
// restored are served stale until the first successful refresh.
func (e *Engine) restore(c *cluster, dir string) {
	st, err := state.Load(dir, c.name)
	if errors.Is(err, state.ErrNotFound) {
		return
	}
	log := e.log.With("cluster", c.name)
	if err != nil {
		log.Warn("ignoring saved state", "err", err)
		return
	}
	s := c.snap.Load().clone()
	s.Ready = true
	if st.Calibration != nil {
		if m, err := conservation.NewModel(*st.Calibration); err == nil {
			s.Capacity, s.CapacitySource = m, st.CalibrationSource
		}
	}
	if len(st.InsideOut) > 0 {
		var m insideout.Model
		if err := json.Unmarshal(st.InsideOut, &m); err == nil && m.Validate() == nil {
			s.InsideOut = &m
		} else {
			log.Warn("ignoring saved insideout model", "err", err)
		}
	}
	if len(st.Latency) > 0 && e.opt.Latency != nil {
		if m, err := e.opt.Latency.Decode(st.Latency); err == nil {
			s.Latency = m
		} else {
			log.Warn("ignoring saved latency model", "err", err)
		}
	}
	if len(st.Trend) > 0 && e.opt.Trend != nil {
		if m, err := e.opt.Trend.Decode(st.Trend); err == nil {
			s.Trend = m
		} else {
			log.Warn("ignoring saved trend", "err", err)
		}
	}
	for k, v := range st.Models {
		v.Stale = v.Fitted
		s.Models[k] = v
	}
	for k, v := range st.FitSeconds {
		s.FitSeconds[k] = v
	}
	for k, v := range st.Accuracy {
		s.Accuracy[k] = v
	}
	s.Hosts = st.Hosts
	if st.Observed != nil {
		s.Observed, s.HasObserved = *st.Observed, true
		if s.Capacity != nil {
			if res, err := s.Capacity.AtMix(features.OpClasses(s.Observed)); err == nil {
				s.CapacityAtMix, s.HasCapacityAtMix = res, true
			}
		}
	}
	// The loop refits at once; the restored models serve until then.
	c.snap.Store(s)
	log.Info("loaded saved state", "saved", time.Unix(int64(st.SavedUnix), 0).UTC())
}

// ETAs returns the saturation ETAs of s by limit ("max_iops",
// "latency_slo"): seconds from the last refresh until the demand trend's
// mean reaches the limit, +Inf when it does not grow. A limit without a model
// is absent.
func ETAs(s *Snapshot) map[string]float64 {
	out := map[string]float64{}
	if s.Trend == nil || !s.HasObserved {
		return out
	}
	now := s.Observed.Time
	if s.HasCapacityAtMix {
		out["max_iops"] = s.Trend.ETA(now, s.CapacityAtMix.MaxTotalIOPS)
	}
	if s.Latency != nil {
		if k := s.Latency.Crossing(s.SLOSeconds).Upper; !math.IsNaN(k) {
			out["latency_slo"] = s.Trend.ETA(now, k)
		}
	}
	return out
}

// SetSource replaces the source; it takes effect at the next Start.
func (e *Engine) SetSource(s source.Source) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.opt.Source = s
}

package engine

import (
	"encoding/json"
	"maps"
	"runtime/debug"
	"time"

	"github.com/storcast/storcast/exporter/apiv1"
	"github.com/storcast/storcast/exporter/config"
	"github.com/storcast/storcast/exporter/features"
	"github.com/storcast/storcast/exporter/models"
)

// Snapshot is what readers see of a cluster. It is never modified after it
// is published.
type Snapshot struct {
	Cluster     string
	Kind        string
	SLOSeconds  float64
	LatencyKind string
	// LatencyModel is the latency model served (fit.latency_model).
	LatencyModel string
	Ready        bool // refreshed once or loaded from the state directory
	// SourceUp: the last refresh gave a current observation. A failed
	// fetch of a fit's lookback does not clear it (the models' statuses say
	// so), nor a held-up loop (markHeldUp marks the models stale).
	SourceUp bool
	// NoRecentData: the query backend answered, but no sample of the
	// cluster's load is fresh (the data stopped arriving, or never came);
	// SourceUp is false, SourceError names the queries, and the models
	// still fit from the history.
	NoRecentData bool
	SourceError  string
	// WarmingUp: the latest observation's rate window was not full (the
	// counters began, or resumed after a scrape gap, within it), so its
	// rates are extrapolated; forecasts from it are kept out of alerts.
	WarmingUp bool
	// LastRefresh is when the observed inputs were last refreshed.
	LastRefresh time.Time
	// StateSaved is when the cluster's models were last written to the
	// state directory (or, until the first save, when the file restored
	// was); StateSaveError says why the last save failed ("" after one
	// that succeeded). Both zero: nothing saved yet.
	StateSaved     time.Time
	StateSaveError string
	// StateRestoreError says why the saved state was not restored at start
	// (storcast_state_restore_success 0): the file could not be read (set
	// aside, or not even that), or the live figures could not be derived
	// from its models. "" when it was restored or there was none. A single
	// saved model that does not decode is not counted here: its status
	// says so (storcast_model_fit_error) and its saved JSON is kept.
	// Set at start, kept until the next one.
	StateRestoreError string
	// Fits counts completed fit cycles since start; LastFitReason says why
	// the last one ran (interval or an accuracy trigger).
	Fits          int
	LastFitReason string

	Observed    features.Observed
	HasObserved bool
	Hosts       int // hosts with OSDs up (ceph), else hosts of the largest Inside-Out role; 0 unknown

	// Set holds the fitted models; its accessors (Capacity, Latency, ...)
	// are the typed views.
	models.Set
	// Live is what the models say about the latest observation.
	models.Live
	// Outlook is what they say ahead of it (ETAs, latency knee, latency at
	// higher loads), computed once when the snapshot is built (see
	// ComputeOutlook) so that a scrape or an API request only reads it.
	Outlook models.Outlook

	Models            map[string]apiv1.ModelStatus
	FitSeconds        map[string]float64            // duration of the last fit per model
	Accuracy          map[string]map[string]float64 // model -> target -> measured accuracy
	History           []apiv1.ForecastPoint         // observed total IOPS over the lookback (downsampled)
	ObservedLatencies []apiv1.ObservedLatency

	// persisted is what the state file holds of each model (its JSON and
	// the status saved with it), as restored or as last saved. persist
	// writes it back for a model that cannot be encoded, and for one saved
	// but not served (its JSON did not decode) until it is fitted again.
	// Replaced whole by restore and save, never modified: clones share it.
	persisted map[string]savedModel
	// published is when the engine's publish made a snapshot of the
	// cluster current (the loop's refreshes and fits, Start's restore);
	// markHeldUp's copies keep the time of the one they copy.
	published time.Time
}

// savedModel is one model as the state file holds it.
type savedModel struct {
	raw    json.RawMessage
	status apiv1.ModelStatus
	ok     bool // status was saved with it
}

// ComputeOutlook sets s.Outlook from the snapshot's models, observation,
// live values and SLO. The engine calls it on every snapshot before
// publishing it (see publish); code that builds a snapshot by hand (tests,
// fixtures) calls it once it has filled the rest.
func (s *Snapshot) ComputeOutlook() {
	s.Outlook = s.Set.Outlook(s.Observed, s.HasObserved, s.Live, s.SLOSeconds, s.Latency())
}

// publish completes next and makes it the cluster's snapshot: readers see
// either the previous snapshot or this one, whole, and never wait for it.
// A panic in a model's code while computing the outlook (a defect met on
// some cluster's data, as derive guards the live values) publishes the
// snapshot without an outlook — no ETAs, no latency at extra load — and is
// logged, with its stack the first time; the process and the other
// clusters go on.
func (e *Engine) publish(c *cluster, next *Snapshot) {
	next.published = e.opt.Now()
	defer c.snap.Store(next)
	defer func() {
		if r := recover(); r != nil {
			next.Outlook = models.Outlook{}
			e.logPanic(c, "computing the outlook", "none is served", &c.outlookPanicked, r)
		}
	}()
	next.ComputeOutlook()
}

// logPanic logs the panic r met in c's models while doing what, with its
// stack the first time (*seen false): the same defect meets every refresh.
func (e *Engine) logPanic(c *cluster, what, unserved string, seen *bool, r any) {
	if !*seen {
		e.log.Error(what+" panicked; "+unserved+" until it passes", "cluster", c.name, "panic", r, "stack", string(debug.Stack()))
	} else {
		e.log.Error(what+" panicked again; "+unserved, "cluster", c.name, "panic", r)
	}
	*seen = true
}

// Latency is the latency model served: the configured one
// (fit.latency_model) when fitted, else the other.
func (s *Snapshot) Latency() models.Latency {
	l, _ := s.Set.LatencyOf(s.LatencyModel)
	return l
}

// LatencyServed names the latency model Latency returns ("" when none):
// after a fallback it is not the configured one.
func (s *Snapshot) LatencyServed() string {
	_, name := s.Set.LatencyOf(s.LatencyModel)
	return name
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

// emptyStatuses has one empty status per fitter the cluster enables (a
// cluster without a rule-set catalog has no advisor to wait for).
func (e *Engine) emptyStatuses(cl *config.Cluster) map[string]apiv1.ModelStatus {
	m := map[string]apiv1.ModelStatus{}
	for _, f := range e.opt.Fitters {
		if f.Enabled(cl) {
			m[f.Name()] = apiv1.ModelStatus{}
		}
	}
	return m
}

// forget removes the model name from a snapshot being built (its fitter is
// no longer enabled for the cluster: a rule-set catalog or the hosts taken
// out of the configuration): its model, status, timing and accuracy, and
// its saved JSON from what persist writes back (a new map: clones share
// the old).
func (s *Snapshot) forget(name string) {
	delete(s.Set, name)
	delete(s.Models, name)
	delete(s.FitSeconds, name)
	delete(s.Accuracy, name)
	if _, ok := s.persisted[name]; ok {
		p := maps.Clone(s.persisted)
		delete(p, name)
		s.persisted = p
	}
}

// clone returns a shallow copy with its own maps, for building the next
// snapshot.
func (s *Snapshot) clone() *Snapshot {
	n := *s
	n.Set = s.Set.Clone()
	n.Models = cloneMap(s.Models)
	n.FitSeconds = cloneMap(s.FitSeconds)
	n.Accuracy = cloneMap(s.Accuracy)
	return &n
}

func cloneMap[V any](m map[string]V) map[string]V {
	out := make(map[string]V, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// markStale sets the stale flag of every model: fitted, and either the
// source is down (its data stopped arriving included) or the last fit is
// older than fit.stale_after.
func (e *Engine) markStale(cfg *config.Config, s *Snapshot) {
	now := float64(e.opt.Now().UnixMilli()) / 1e3
	for name, st := range s.Models {
		st.Stale = st.Fitted && (!s.SourceUp || now-st.LastFitUnix > cfg.Fit.StaleAfter.Seconds())
		s.Models[name] = st
	}
}

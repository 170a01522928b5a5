package engine

import (
	"errors"
	"time"

	"github.com/storcast/storcast/exporter/state"
)

// persist builds the saved state of a snapshot. Each model is encoded on its
// own: one that cannot be is left out (and refitted after a restart), the
// others are kept.
func (e *Engine) persist(s *Snapshot) *state.Cluster {
	fitted, failed := s.Set.Encode()
	for name, err := range failed {
		e.log.Warn("model not persisted", "cluster", s.Cluster, "model", name, "err", err)
	}
	st := &state.Cluster{
		Cluster: s.Cluster, SavedUnix: float64(e.opt.Now().UnixMilli()) / 1e3,
		Fitted: fitted, Models: s.Models, FitSeconds: s.FitSeconds, Accuracy: s.Accuracy, Hosts: s.Hosts,
	}
	if s.HasObserved {
		o := s.Observed
		st.Observed = &o
	}
	return st
}

// restore loads the saved state of c, if any, into its snapshot. Models
// restored are served stale until the first successful refresh; the loop
// refits at once.
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
	saved := st.Fitted
	if saved == nil {
		saved = st.LegacyFitted()
	}
	s := c.snap.Load().clone()
	s.Ready = true
	notRestored := map[string]error{}
	for _, f := range e.opt.Fitters {
		raw, ok := saved[f.Name()]
		if !ok {
			continue
		}
		if m, err := f.Decode(raw); err == nil {
			s.Set[f.Name()] = m
		} else {
			log.Warn("ignoring saved model", "model", f.Name(), "err", err)
			notRestored[f.Name()] = err
		}
	}
	for k, v := range st.Models {
		// A status says fitted only for a model that is served: one saved
		// but not decoded (or not saved) waits for its first fit.
		if _, ok := s.Set[k]; v.Fitted && !ok {
			v.Fitted, v.Error = false, "saved model not restored; refitted when the source answers"
			if err := notRestored[k]; err != nil {
				v.Error = "saved model not restored: " + err.Error()
			}
		}
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
	}
	s.Live = s.Set.Derive(s.Observed, s.HasObserved, nil)
	c.publish(s)
	log.Info("loaded saved state", "saved", time.Unix(int64(st.SavedUnix), 0).UTC())
}

package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/storcast/storcast/exporter/apiv1"
	"github.com/storcast/storcast/exporter/config"
	"github.com/storcast/storcast/exporter/models"
	"github.com/storcast/storcast/exporter/state"
)

// persist builds the saved state of a snapshot. Each model is encoded on
// its own (models.Set.Encode: a panic in its encoding is its error). One
// that cannot be is written as the last save (or the restore) left it in
// the file, with the status saved with it, and named in the error returned
// (the save is partial:
// storcast_state_save_success 0); one never saved before is left out (and
// refitted after a restart). The others are kept. A model saved before but
// not restored (its JSON did not decode: a file from a later version, say)
// is written back as it was read until the model is fitted again: a save
// must not lose what the last one kept.
func (e *Engine) persist(s *Snapshot) (*state.Cluster, error) {
	fitted, failed := s.Set.Encode()
	statuses, cloned := s.Models, false
	var partial []string
	for _, name := range slices.Sorted(maps.Keys(failed)) {
		err := failed[name]
		prev, kept := s.persisted[name]
		e.log.Warn("model not persisted", "cluster", s.Cluster, "model", name, "err", err, "previous_kept", kept)
		if !kept {
			partial = append(partial, fmt.Sprintf("model %s not saved (%v); the file has no earlier version of it", name, err))
			continue
		}
		partial = append(partial, fmt.Sprintf("model %s not saved (%v); the file keeps its version of the last save", name, err))
		fitted[name] = prev.raw
		if prev.ok {
			if !cloned { // s.Models is the snapshot's: not written to
				statuses, cloned = make(map[string]apiv1.ModelStatus, len(s.Models)), true
				maps.Copy(statuses, s.Models)
			}
			statuses[name] = prev.status
		}
	}
	for name, p := range s.persisted {
		if _, ok := s.Set[name]; !ok { // saved, not restored
			fitted[name] = p.raw
		}
	}
	st := &state.Cluster{
		Cluster: s.Cluster, SavedUnix: float64(e.opt.Now().UnixMilli()) / 1e3,
		Fitted: fitted, Models: statuses, FitSeconds: s.FitSeconds, Accuracy: s.Accuracy, Hosts: s.Hosts,
	}
	if s.HasObserved {
		o := s.Observed
		st.Observed = &o
	}
	if len(partial) > 0 {
		return st, errors.New(strings.Join(partial, "; "))
	}
	return st, nil
}

// persistedOf is what the state file st holds of each model.
func persistedOf(fitted map[string]json.RawMessage, statuses map[string]apiv1.ModelStatus) map[string]savedModel {
	out := make(map[string]savedModel, len(fitted))
	for name, raw := range fitted {
		st, ok := statuses[name]
		out[name] = savedModel{raw: raw, status: st, ok: ok}
	}
	return out
}

// restore loads the saved state of c, if any, into its snapshot. Models
// restored are served stale until the first successful refresh; the loop
// refits at once. A file that cannot be read is moved aside (kept for the
// operator, never overwritten by the next save); if even that fails, the
// cluster's state is not saved until the next start. Either way, and when
// the live figures cannot be derived from the saved models, the snapshot's
// StateRestoreError says so until the next start
// (storcast_state_restore_success). A model whose saved JSON does not
// decode, or whose decoding panics, is not served and its JSON is kept
// (persist).
func (e *Engine) restore(c *cluster, dir string) {
	st, err := state.Load(dir, c.name)
	if errors.Is(err, state.ErrNotFound) {
		return
	}
	log := e.log.With("cluster", c.name)
	if err != nil {
		aside, mvErr := state.SetAside(dir, c.name, e.opt.Now())
		s := c.snap.Load().clone()
		if mvErr != nil {
			c.noSave = true
			s.StateSaveError = noSaveError
			s.StateRestoreError = fmt.Sprintf("saved state unreadable (%v) and not moved aside (%v): not saved until the next start, so that the file is kept", err, mvErr)
			e.publish(c, s)
			log.Error("saved state unreadable and not moved aside: not saving this cluster's state until the next start, so that the file is kept", "err", err, "move_err", mvErr)
			return
		}
		s.StateRestoreError = fmt.Sprintf("saved state unreadable (%v): moved aside to %s, the models are refitted", err, aside)
		e.publish(c, s)
		log.Warn("saved state unreadable: moved aside, the models are refitted", "err", err, "kept_as", aside)
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
		if !ok || !f.Enabled(&c.cfg) {
			continue
		}
		if m, err := decodeSaved(f, raw); err == nil {
			s.Set[f.Name()] = m
		} else {
			log.Warn("ignoring saved model", "model", f.Name(), "err", err)
			notRestored[f.Name()] = err
		}
	}
	s.persisted = persistedOf(saved, st.Models) // before forget below drops the disabled
	for k, v := range st.Models {
		// A status says fitted only for a model that is served: one saved
		// but not decoded (or not saved) waits for its first fit. One that
		// decodes is fitted whatever status was saved with it: a model a
		// previous start could not decode was written back with "not
		// restored", and is served (stale) now.
		_, served := s.Set[k]
		if served && !v.Fitted {
			v.Fitted, v.Error, v.Waiting = true, "", ""
		}
		if v.Fitted && !served {
			// Not waiting, whatever its last fit was: a saved model lost
			// is a failure (storcast_model_fit_error) until it refits.
			v.Fitted, v.Error, v.Waiting = false, "saved model not restored; refitted when the source answers", ""
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
	// A model saved while its fitter was enabled (a rule-set catalog, the
	// hosts) that the configuration no longer enables is neither served
	// nor kept, as a fit drops it.
	for _, f := range e.opt.Fitters {
		if !f.Enabled(&c.cfg) {
			s.forget(f.Name())
		}
	}
	s.Hosts = st.Hosts
	if st.SavedUnix > 0 {
		s.StateSaved = time.UnixMilli(int64(st.SavedUnix * 1e3))
	}
	if st.Observed != nil {
		s.Observed, s.HasObserved = *st.Observed, true
	}
	if err := deriveSaved(s); err != nil {
		// A saved combination of models the live figures cannot be derived
		// from: serve none of them (their JSON is kept) rather than fail.
		log.Error("saved models not restored: deriving the live figures from them failed; refitted when the source answers", "err", err)
		s = c.snap.Load().clone()
		s.persisted = persistedOf(saved, st.Models) // none served: all written back
		s.StateRestoreError = "saved models not restored: " + err.Error() + "; refitted when the source answers"
		e.publish(c, s)
		return
	}
	e.publish(c, s)
	log.Info("loaded saved state", "saved", time.Unix(int64(st.SavedUnix), 0).UTC())
}

// warnUnusedStates logs each state file in cfg's state_dir that no
// cluster of cfg loads: a removed cluster's, or a renamed one's, which starts
// empty under its new name. The file is left as it is, for the operator to
// rename or remove (docs/configuration.md, "State files").
func (e *Engine) warnUnusedStates(cfg *config.Config) {
	entries, err := os.ReadDir(cfg.StateDir)
	if err != nil {
		return // none yet; a directory that cannot be read fails the saves, which say so
	}
	configured := make(map[string]bool, len(cfg.Clusters))
	for _, c := range cfg.Clusters {
		configured[c.Name] = true
	}
	for _, de := range entries {
		// <cluster>.json (state.Path); the .json.tmp and .json.unreadable-*
		// files beside them are not state files.
		name, ok := strings.CutSuffix(de.Name(), ".json")
		if !ok || de.IsDir() || configured[name] {
			continue
		}
		e.log.Warn("state file of no configured cluster: its models are not used (a renamed cluster starts empty)",
			"file", filepath.Join(cfg.StateDir, de.Name()))
	}
}

// decodeSaved decodes one saved model, turning a panic into an error: a
// file written by a version with another format, or damaged within what
// JSON allows, must not take storcast down at every start.
func decodeSaved(f models.Fitter, raw json.RawMessage) (m models.Fitted, err error) {
	defer func() {
		if r := recover(); r != nil {
			m, err = nil, fmt.Errorf("panic decoding the saved %s model: %v", f.Name(), r)
		}
	}()
	return f.Decode(raw)
}

// deriveSaved computes the restored snapshot's live figures and outlook,
// turning a panic into an error (as decodeSaved).
func deriveSaved(s *Snapshot) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic deriving the live figures: %v", r)
		}
	}()
	s.Live = s.Set.Derive(s.Observed, s.HasObserved, nil)
	s.ComputeOutlook()
	return nil
}

package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/storcast/storcast/exporter/apiv1"
	"github.com/storcast/storcast/exporter/config"
	"github.com/storcast/storcast/exporter/features"
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
// must not lose what the last one kept; so is the status saved with a model
// no fitter of this version knows, which restore leaves out of the
// snapshot.
func (e *Engine) persist(s *Snapshot) (*state.Cluster, error) {
	fitted, failed := s.Set.Encode()
	statuses, cloned := s.Models, false
	setStatus := func(name string, st apiv1.ModelStatus) {
		if !cloned { // s.Models is the snapshot's: not written to
			statuses, cloned = make(map[string]apiv1.ModelStatus, len(s.Models)), true
			maps.Copy(statuses, s.Models)
		}
		statuses[name] = st
	}
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
			setStatus(name, prev.status)
		}
	}
	for name, p := range s.persisted {
		if _, ok := s.Set[name]; !ok { // saved, not restored
			fitted[name] = p.raw
			if _, has := statuses[name]; !has && p.ok { // a model this version does not know
				setStatus(name, p.status)
			}
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
// (persist). A model no fitter knows (a later version's) is neither
// served nor reported, and its JSON and status are kept (persist). Figures
// out of their range (a negative rate or host count, a read ratio past 1,
// a time in the future) are dropped, logged (sanitize). Every model served
// reads fitted, and stale until the first refresh, which keeps it stale
// when its saved fit is older than fit.stale_after (or was saved without
// its time) until it is refitted.
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
	for _, why := range sanitize(st, e.opt.Now()) {
		log.Warn("saved state: a figure out of range dropped", "why", why)
	}
	saved := st.Fitted
	if saved == nil {
		saved = st.LegacyFitted()
	}
	known := make(map[string]bool, len(e.opt.Fitters))
	for _, f := range e.opt.Fitters {
		known[f.Name()] = true
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
		if !known[k] {
			// A later version's model: no fit of this version will ever
			// clear an error reported for it (storcast_model_fit_error,
			// StorcastModelFitFailing for good).
			continue
		}
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
	// A model served whose status was not saved with it (a file edited, or
	// another version's): fitted, stale until refitted, not "never fitted"
	// while it serves.
	for name := range s.Set {
		if !s.Models[name].Fitted {
			s.Models[name] = apiv1.ModelStatus{Fitted: true, Stale: true}
		}
	}
	for k, v := range st.FitSeconds {
		if known[k] {
			s.FitSeconds[k] = v
		}
	}
	for k, v := range st.Accuracy {
		if known[k] {
			s.Accuracy[k] = v
		}
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

// stateSkew is how far in the future a saved time may be: the clocks of
// the host that wrote a state file and of the one reading it may differ.
const stateSkew = time.Minute

// sanitize drops what a state file holds out of its range, as no save
// writes it (a file edited, damaged within what JSON allows, another
// version's), and says what it dropped and why: an observation that is no
// measurement (a rate or size negative, a read ratio outside [0, 1], a
// time in the future) is not served as the last one; a negative host
// count is unknown; an accuracy outside [0, 1], a negative duration or
// sample count is not kept; a save or fit time in the future is unknown (a
// model fitted "later" never turned stale).
func sanitize(st *state.Cluster, now time.Time) []string {
	var why []string
	latest := float64(now.Add(stateSkew).UnixMilli()) / 1e3
	if o := st.Observed; o != nil {
		if err := checkObserved(o, latest); err != nil {
			why = append(why, "observation: "+err.Error())
			st.Observed = nil
		}
	}
	if st.Hosts < 0 {
		why = append(why, fmt.Sprintf("hosts: %d", st.Hosts))
		st.Hosts = 0
	}
	if !(st.SavedUnix >= 0 && st.SavedUnix <= latest) {
		why = append(why, fmt.Sprintf("savedUnix %v: negative or in the future", st.SavedUnix))
		st.SavedUnix = 0
	}
	for _, name := range slices.Sorted(maps.Keys(st.Models)) {
		v := st.Models[name]
		if !(v.LastFitUnix >= 0 && v.LastFitUnix <= latest) {
			why = append(why, fmt.Sprintf("model %s: lastFit %v, negative or in the future", name, v.LastFitUnix))
			v.LastFitUnix = 0
		}
		if !unitRange(v.AccuracyRatio) {
			why = append(why, fmt.Sprintf("model %s: accuracy %v, outside [0, 1]", name, v.AccuracyRatio))
			v.AccuracyRatio, v.AccuracyMeasured = 0, false
		}
		if v.TrainingSamples < 0 {
			why = append(why, fmt.Sprintf("model %s: trainingSamples %d", name, v.TrainingSamples))
			v.TrainingSamples = 0
		}
		st.Models[name] = v
	}
	for _, name := range slices.Sorted(maps.Keys(st.FitSeconds)) {
		if d := st.FitSeconds[name]; !(d >= 0) || math.IsInf(d, 1) {
			why = append(why, fmt.Sprintf("model %s: fitSeconds %v", name, d))
			delete(st.FitSeconds, name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(st.Accuracy)) {
		for _, target := range slices.Sorted(maps.Keys(st.Accuracy[name])) {
			if a := st.Accuracy[name][target]; !unitRange(a) {
				why = append(why, fmt.Sprintf("model %s: accuracy of %s %v, outside [0, 1]", name, target, a))
				delete(st.Accuracy[name], target)
			}
		}
	}
	return why
}

// unitRange says whether x is within [0, 1] (NaN is not).
func unitRange(x float64) bool { return x >= 0 && x <= 1 }

// checkObserved says what is wrong with a saved observation, nil when
// nothing: its time at most latest, its rates, sizes and disk requests
// finite and not negative, its read ratio within [0, 1], its latency
// unknown (NaN) or finite and not negative.
func checkObserved(o *features.Observed, latest float64) error {
	if !(o.Time >= 0 && o.Time <= latest) {
		return fmt.Errorf("time %v, negative or in the future", o.Time)
	}
	for _, f := range []struct {
		name string
		v    float64
	}{
		{"readIops", o.ReadIOPS}, {"writeIops", o.WriteIOPS}, {"iops", o.IOPS},
		{"readSizeBytes", o.ReadSizeBytes}, {"writeSizeBytes", o.WriteSizeBytes}, {"ioSizeBytes", o.IOSizeBytes},
		{"diskMerged", o.DiskMerged}, {"diskCompleted", o.DiskCompleted},
	} {
		if !(f.v >= 0) || math.IsInf(f.v, 1) {
			return fmt.Errorf("%s %v, negative or not finite", f.name, f.v)
		}
	}
	if !unitRange(o.ReadRatio) {
		return fmt.Errorf("readRatio %v, outside [0, 1]", o.ReadRatio)
	}
	if l := o.LatencySeconds; !math.IsNaN(l) && (l < 0 || math.IsInf(l, 0)) {
		return fmt.Errorf("latencySeconds %v, negative or infinite", l)
	}
	return nil
}

// checkStateDir checks the state file of a running cluster in dir, the
// state_dir a reload moved to, as restore checks a new cluster's: a file
// that cannot be read (another version's, damaged, another cluster's, not
// a regular file) is set aside, so that the cluster's next save does not
// replace it; if it cannot be moved either, the cluster is not saved
// (noSave) until the next start or move of state_dir. The running models
// are kept, not replaced by a readable file's (which may be older, and a
// reload keeps a running cluster's models): its next save replaces that
// file. A noSave of the old directory does not hold in the new one.
func (e *Engine) checkStateDir(c *cluster, dir string) {
	log := e.log.With("cluster", c.name, "dir", dir)
	noSave := false
	_, err := state.Load(dir, c.name)
	switch {
	case err == nil:
		log.Info("state_dir moved: the cluster's file there is replaced by its next save; the running models are kept")
	case errors.Is(err, state.ErrNotFound):
	default:
		if aside, mvErr := state.SetAside(dir, c.name, e.opt.Now()); mvErr != nil {
			noSave = true
			log.Error("state_dir moved: the cluster's file there is unreadable and not moved aside: not saving this cluster's state until the next start, so that the file is kept", "err", err, "move_err", mvErr)
		} else {
			log.Warn("state_dir moved: the cluster's file there is unreadable: moved aside; the running models are kept and saved in its place", "err", err, "kept_as", aside)
		}
	}
	was := c.noSave
	c.noSave = noSave
	s := c.snap.Load()
	switch {
	case noSave && s.StateSaveError != noSaveError:
		s = s.clone()
		s.StateSaveError = noSaveError
	case was && !noSave && s.StateSaveError == noSaveError:
		s = s.clone()
		s.StateSaveError = "" // nothing saved in dir yet: the next fit's save says how it went
	default:
		return
	}
	e.publish(c, s)
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

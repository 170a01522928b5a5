package collector

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/storcast/storcast/exporter/engine"
)

var (
	stateSaveSuccessDesc = newDesc("storcast_state_save_success",
		"Whether the last write of the cluster's models to the state directory succeeded (1) or not (0: a restart would lose what was fitted since the last good save). Absent until the first save.", []string{"cluster"})
	stateLastSaveDesc = newDesc("storcast_state_last_save_timestamp_seconds",
		"Unix time of the last successful write of the cluster's models to the state directory (or of the file restored at start, until the first save).", []string{"cluster"})
	stateRestoreSuccessDesc = newDesc("storcast_state_restore_success",
		"Whether the cluster's saved models were restored at start (1; also when there was no saved state) or discarded (0: the state file could not be read and was moved aside, or could not be moved aside either, or the live figures could not be derived from its models), until the next start. A single saved model that does not decode does not count: storcast_model_fit_error says so and its saved form is kept.", []string{"cluster"})
)

// collectState exports how persisting the cluster's models goes: a failing
// save is silent otherwise until a restart finds the models gone, and a
// saved state discarded at start until someone reads the log.
func collectState(ch chan<- prometheus.Metric, s *engine.Snapshot) {
	if s.StateRestoreError != "" {
		gauge(ch, stateRestoreSuccessDesc, 0, s.Cluster)
	} else {
		gauge(ch, stateRestoreSuccessDesc, 1, s.Cluster)
	}
	if !s.StateSaved.IsZero() {
		gauge(ch, stateLastSaveDesc, float64(s.StateSaved.UnixMilli())/1e3, s.Cluster)
	}
	switch {
	case s.StateSaveError != "":
		gauge(ch, stateSaveSuccessDesc, 0, s.Cluster)
	case !s.StateSaved.IsZero():
		gauge(ch, stateSaveSuccessDesc, 1, s.Cluster)
	}
}

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
)

// collectState exports how persisting the cluster's models goes: a failing
// save is silent otherwise until a restart finds the models gone.
func collectState(ch chan<- prometheus.Metric, s *engine.Snapshot) {
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

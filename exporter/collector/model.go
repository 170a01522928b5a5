package collector

import (
	"sort"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/storcast/storcast/exporter/apiv1"
	"github.com/storcast/storcast/exporter/engine"
)

var (
	accuracyDesc = newDesc("storcast_model_accuracy_ratio",
		"Accuracy max(1 - error, 0) of a model per target on data its last fit did not see: 1 - MAPE of a backtest, or 1 - a cross-validated error ratio (whatif, advisor).", []string{"cluster", "model", "target"})
	lastFitDesc = newDesc("storcast_model_last_fit_timestamp_seconds",
		"Unix time of a model's last successful fit.", []string{"cluster", "model"})
	fitDurationDesc = newDesc("storcast_model_fit_duration_seconds",
		"Duration of a model's last fit attempt.", []string{"cluster", "model"})
	trainingSamplesDesc = newDesc("storcast_model_training_samples",
		"Samples a model was fitted on in its last successful fit.", []string{"cluster", "model"})
	staleDesc = newDesc("storcast_model_stale",
		"1 when a model's forecasts are stale: the source is failing or its last fit is older than fit.stale_after.", []string{"cluster", "model"})
	fitErrorDesc = newDesc("storcast_model_fit_error",
		"1 when a model's last fit attempt failed (a model fitted before keeps serving its last version); not when it waits for history (storcast_model_waiting_for_history).", []string{"cluster", "model"})
	waitingDesc = newDesc("storcast_model_waiting_for_history",
		"1 when a model's last fit found too few usable windows yet (a new cluster, an idle one, a lookback shorter than the model needs) or no max IOPS to read (no calibration file, a history that never saturated); its status says what it waits for; a model fitted before keeps serving its last version.", []string{"cluster", "model"})
)

// collectModels exports the health of every model.
func collectModels(ch chan<- prometheus.Metric, s *engine.Snapshot) {
	for _, name := range sortedNames(s.Models) {
		st := s.Models[name]
		if d, ok := s.FitSeconds[name]; ok {
			gauge(ch, fitDurationDesc, d, s.Cluster, name)
		}
		// Waiting for history is not a failure: a new or idle cluster
		// waits, and StorcastModelFitFailing must not page for it.
		waiting := st.Waiting != ""
		failed := st.Error != "" && !waiting
		if !st.Fitted {
			if failed {
				gauge(ch, fitErrorDesc, 1, s.Cluster, name)
			}
			if waiting {
				gauge(ch, waitingDesc, 1, s.Cluster, name)
			}
			continue
		}
		gauge(ch, fitErrorDesc, b2f(failed), s.Cluster, name)
		gauge(ch, waitingDesc, b2f(waiting), s.Cluster, name)
		gauge(ch, lastFitDesc, st.LastFitUnix, s.Cluster, name)
		gauge(ch, trainingSamplesDesc, float64(st.TrainingSamples), s.Cluster, name)
		gauge(ch, staleDesc, b2f(st.Stale), s.Cluster, name)
		for target, a := range s.Accuracy[name] {
			gauge(ch, accuracyDesc, a, s.Cluster, name, target)
		}
	}
}

// sortedNames returns the model names of a status map in a fixed order.
func sortedNames(m map[string]apiv1.ModelStatus) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Package engine runs storcast's background work: per cluster, it refreshes
// the observed inputs every fit.refresh_interval and refits the models every
// fit.interval, or earlier when the accuracy on recent data falls below
// fit.accuracy_threshold (Inside-Out's self-learning rule; for the latency
// model served, the relative error of its mean at the current load and mix,
// as storcast_predicted_latency_seconds serves it at load factor 1).
//
// Readers (the /metrics collectors, the HTTP API, the landing page) never
// wait for a fit: each cluster publishes an immutable Snapshot through an
// atomic pointer, replaced whole after every refresh or fit. When the source
// fails, the last snapshot keeps serving with SourceUp = false, and every
// model is stale; a model is also stale when its last successful fit is older
// than fit.stale_after. Models and calibration estimates are saved to the
// state directory after every fit (package state) and loaded at start.
package engine

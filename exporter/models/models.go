// Package models adapts the forecaster packages to the exporter: one Fitter
// per model (capacity, Inside-Out, latency, trend), which the engine
// schedules, records and persists without knowing what it fits, and the
// typed views (Set's accessors, Live) that the collectors and the API read.
//
// A fitted model is immutable and JSON-encodable, so the engine can serve it
// from any goroutine and persist it.
package models

import (
	"encoding/json"
	"math"
)

// Band is a value with its 95% band; NaN marks a bound that does not exist,
// and an Upper of +Inf a load where the cluster may be saturated (at or past
// the lower bound of the capacity band): no finite latency bounds it.
type Band struct{ Lower, Mean, Upper float64 }

// LatencyPoint is one point of a latency curve.
type LatencyPoint struct {
	IOPS float64
	Band
}

// Latency is a fitted latency-vs-IOPS model.
type Latency interface {
	// Curve returns the curve: observed bins then extrapolated points, by
	// increasing IOPS.
	Curve() []LatencyPoint
	// At returns the latency at iops; ok is false outside the curve.
	At(iops float64) (Band, bool)
	// Crossing returns, per bound, the lowest IOPS at which it reaches slo
	// seconds; NaN when it never does within the curve.
	Crossing(slo float64) Band
	// Accuracy is the backtest accuracy max(1 − MAPE, 0) (train below X,
	// score above X), NaN when no backtest could run; Scores holds it as
	// "latency" when it is finite.
	Accuracy() float64
	Fitted
	json.Marshaler
}

// UtilizationLatency is a latency model whose load axis is the capacity
// frontier's utilization U (the capacity-anchored model): it answers for any
// mix at that mix's U, where At answers in IOPS at the mix it was fitted on.
type UtilizationLatency interface {
	// AtUtilization returns the latency where the frontier's utilization is
	// u; ok is false at or past capacity.
	AtUtilization(u float64) (Band, bool)
}

// Demand is a fitted demand trend.
type Demand interface {
	// At returns the trend at Unix time t (seconds).
	At(t float64) Band
	// ETA returns the seconds from now until the trend's mean reaches limit:
	// 0 when already there, +Inf when it never does (demand flat or falling).
	ETA(now, limit float64) float64
	// Accuracy is the backtest accuracy on the last part of the history,
	// NaN when unknown; Scores holds it as "iops" when it is finite.
	Accuracy() float64
	Fitted
	json.Marshaler
}

// NaN is a shorthand.
var NaN = math.NaN()

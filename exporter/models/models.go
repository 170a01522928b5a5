// Package models is the exporter's narrow view of the forecaster models that
// need an adapter: the latency model (M-LISP) and the demand trend. The
// engine depends on these interfaces only; adapters in this package wire the
// real forecaster packages. Conservation and Inside-Out are used directly
// (their APIs are plain data already).
//
// A fitted model is immutable and JSON-encodable, so the engine can serve it
// from any goroutine and persist it.
package models

import (
	"encoding/json"
	"math"
)

// Band is a value with its 95% band; NaN marks a bound that does not exist.
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
	// score above X), NaN when no backtest could run.
	Accuracy() float64
	// Samples is the number of samples the model was fitted on.
	Samples() int
	json.Marshaler
}

// LatencyFitter fits and decodes latency models.
type LatencyFitter interface {
	// Fit learns from a counter table: names[0] is total IOPS, names[1] the
	// latency in seconds, then other counters; NaN = missing. The curve
	// reaches at least horizonIOPS (0: the model's default horizon).
	Fit(names []string, cols [][]float64, horizonIOPS float64) (Latency, error)
	Decode(data []byte) (Latency, error)
}

// Trend is a fitted demand trend.
type Trend interface {
	// At returns the trend at Unix time t (seconds).
	At(t float64) Band
	// ETA returns the seconds from now until the trend's mean reaches limit:
	// 0 when already there, +Inf when it never does (demand flat or falling).
	ETA(now, limit float64) float64
	// Accuracy is the backtest accuracy on the last part of the history,
	// NaN when unknown.
	Accuracy() float64
	Samples() int
	json.Marshaler
}

// TrendFitter fits and decodes trends.
type TrendFitter interface {
	Fit(t, y []float64) (Trend, error)
	Decode(data []byte) (Trend, error)
}

// NaN is a shorthand.
var NaN = math.NaN()

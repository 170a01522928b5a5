package models

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"

	"github.com/storcast/storcast/exporter/config"
	"github.com/storcast/storcast/exporter/features"
	"github.com/storcast/storcast/exporter/source"
	"github.com/storcast/storcast/forecaster/conservation"
)

// Model names, as in apiv1.ModelStatus and the model label of series.
const (
	Conservation = "conservation"
	InsideOut    = "insideout"
	MLISP        = "mlisp"
	Trend        = "trend"
)

// Fitter is one model the engine fits on a schedule. The engine runs a
// cluster's fitters in order, each seeing what those before it fitted
// (the latency model reads the capacity model, say), records each outcome,
// persists what Fit returned and restores it with Decode; it knows nothing
// else of the model.
type Fitter interface {
	// Name is the model's name (status map key, series label, state key).
	Name() string
	// Enabled reports whether the cluster's configuration asks for the
	// model (Inside-Out needs hosts, say).
	Enabled(cl *config.Cluster) bool
	// Fit learns from the lookback. An error keeps the previous model.
	Fit(ctx context.Context, in Input) (Fitted, error)
	// Decode restores what Fit returned from its JSON encoding.
	Decode(data []byte) (Fitted, error)
}

// Input is what a fitter learns from.
type Input struct {
	Cluster *config.Cluster
	// Frame is the lookback on the fit grid.
	Frame *source.Frame
	// Observed is the latest observation (HasObserved false: none yet).
	Observed    features.Observed
	HasObserved bool
	// Fitted holds the models fitted before this one in the cycle, or kept
	// from the last cycle where their fit failed.
	Fitted Set
}

// Fitted is a fitted model: immutable once returned, safe to read from any
// goroutine, and JSON-encodable (the engine persists it).
type Fitted interface {
	// Samples is the number of samples (windows, points) it learned from.
	Samples() int
	// Scores is the measured accuracy per target, max(1 − MAPE, 0) on a
	// backtest or cross-validation; empty when nothing could be measured.
	// Values are finite.
	Scores() map[string]float64
}

// Noter is implemented by fitted models with something to say beside their
// figures (a bound instead of an estimate, say); the engine puts it in the
// model's status.
type Noter interface {
	Note() string
}

// Checker is implemented by fitted models that can score themselves on the
// latest data between fits.
type Checker interface {
	// Check returns why the model should be refitted now ("" when it
	// need not): its accuracy on the recent frame is below threshold.
	Check(recent *source.Frame, obs features.Observed, threshold float64) string
}

// Set is a cluster's fitted models by name. Readers use the typed
// accessors; a Set is never modified after a snapshot publishes it.
type Set map[string]Fitted

// Clone returns a copy that can be modified.
func (s Set) Clone() Set {
	out := make(Set, len(s))
	for k, v := range s {
		out[k] = v
	}
	return out
}

// Names returns the names in s, sorted.
func (s Set) Names() []string {
	out := make([]string, 0, len(s))
	for k := range s {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Encode returns the JSON of each model; one that cannot be encoded is left
// out (and reported in failed), so that the others are still saved. A panic
// in a model's encoding is its error: encoding/json re-raises it, and a
// defect in one model's MarshalJSON must not take the process down at every
// fit.
func (s Set) Encode() (out map[string]json.RawMessage, failed map[string]error) {
	out = map[string]json.RawMessage{}
	for name, m := range s {
		b, err := encodeModel(m)
		if err != nil {
			if failed == nil {
				failed = map[string]error{}
			}
			failed[name] = err
			continue
		}
		out[name] = b
	}
	return out, failed
}

func encodeModel(m Fitted) (b []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			b, err = nil, fmt.Errorf("panic encoding it: %v", r)
		}
	}()
	return json.Marshal(m)
}

// finiteScores returns the finite entries of m (nil for none).
func finiteScores(m map[string]float64) map[string]float64 {
	var out map[string]float64
	for k, v := range m {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		if out == nil {
			out = map[string]float64{}
		}
		out[k] = v
	}
	return out
}

// scoreOf is a one-target score map, empty when a is not finite.
func scoreOf(target string, a float64) map[string]float64 {
	return finiteScores(map[string]float64{target: a})
}

// All is the models storcast fits, in order: the latency models, the
// saturation trend and the what-if regression read the capacity model. Both
// latency models are fitted and backtested; fit.latency_model says which one
// is served. The binary and the fit-cycle benchmark fit this list.
func All() []Fitter {
	return []Fitter{
		CapacityFitter{Estimate: conservation.EstimateOptions{Interference: true}},
		InsideOutFitter{},
		QueueingFitter{},
		MLISPFitter{},
		DemandTrend{},
		SaturationFitter{},
		AdvisorFitter{},
		WhatIfFitter{},
	}
}

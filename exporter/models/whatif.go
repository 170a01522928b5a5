package models

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/storcast/storcast/exporter/config"
	"github.com/storcast/storcast/exporter/features"
	"github.com/storcast/storcast/forecaster/conservation"
	"github.com/storcast/storcast/forecaster/regress"
)

// WhatIf is the name of the what-if latency model.
const WhatIf = "whatif"

// WhatIfFitter learns latency from the workload parameters of the history
// windows, the way Noorshams et al. ("Predictive Performance Modeling of
// Virtualized Storage Systems using Optimized Statistical Regression
// Techniques") model response time: every learner of forecaster/regress
// (LRM, MARS, CART, M5, Cubist) is tuned by their Algorithm 1 on k-fold
// cross-validated RMSE, and the best one serves. The features are the
// read ratio, log2 of the mean read and write sizes, and the capacity
// frontier's utilization at the window's load and mix — the last ties
// the regression to the capacity model, so that "more load" and "a mix
// with less capacity" are the same move along one axis.
type WhatIfFitter struct {
	// MaxWindows bounds the training windows (evenly spaced over the
	// lookback): the search's cost grows with them. Default 400.
	MaxWindows int
	// Search tunes the search; nil is the exporter's budget (5 folds, 2
	// splits, 2 explored points, 3 rounds, seed 1), far below the paper's
	// (10, 4, 5, 10) so that a fit stays in seconds.
	Search *regress.SearchOptions
}

var (
	_ Fitter = WhatIfFitter{}
	_ Noter  = (*WhatIfFit)(nil)
)

func (WhatIfFitter) Name() string                 { return WhatIf }
func (WhatIfFitter) Enabled(*config.Cluster) bool { return true }

// whatIfMinWindows is the fewest windows the search runs on: five folds of
// at least eight windows each.
const whatIfMinWindows = 40

// Fit implements Fitter.
func (f WhatIfFitter) Fit(_ context.Context, in Input) (Fitted, error) {
	capm, err := fittedCapacity(in, WhatIf)
	if err != nil {
		return nil, err
	}
	obs, u := utilizationSeries(capm, in.Frame)
	var X [][]float64
	var y []float64
	for i, o := range obs {
		if !(o.LatencySeconds > 0) || !finite(o.LatencySeconds) {
			continue
		}
		X = append(X, whatIfRow(o.ReadRatio, o.ReadSizeBytes, o.WriteSizeBytes, o.IOSizeBytes, u[i]))
		y = append(y, o.LatencySeconds*1e3)
	}
	if err := needWindows(WhatIf, len(y), whatIfMinWindows, "with load and latency"); err != nil {
		return nil, err
	}
	maxW := f.MaxWindows
	if maxW <= 0 {
		maxW = 400
	}
	X, y = evenlySpaced(X, y, maxW)
	opts := regress.SearchOptions{Folds: 5, Splits: 2, Explore: 2, MaxRounds: 3, Seed: 1}
	if f.Search != nil {
		opts = *f.Search
	}
	// A learner that cannot be fitted on these windows is left out of the
	// ranking; the others still compete.
	results, best, err := regress.SearchAll(regress.Learners(), X, y, opts)
	if best < 0 {
		return nil, fmt.Errorf("no learner could be fitted: %w", err)
	}
	m := &WhatIfFit{X: X, YMillis: y, Folds: opts.Folds, model: results[best].Model}
	var meanY float64
	for _, v := range y {
		meanY += v / float64(len(y))
	}
	for _, r := range results {
		if r == nil || math.IsInf(r.Best.Score, 1) {
			continue
		}
		m.Learners = append(m.Learners, WhatIfLearner{
			Name: r.Learner, Params: r.Best.Params, CVRMSEMillis: r.Best.Score,
			CVErrorRatio: r.Best.Score / meanY, DefaultCVRMSEMillis: finiteOr(r.DefaultScore, -1),
		})
	}
	sortLearners(m.Learners)
	for _, row := range X {
		m.MaxUtilization = math.Max(m.MaxUtilization, row[whatIfU])
	}
	return m, nil
}

// Feature columns of the what-if model.
const (
	whatIfReadRatio = iota
	whatIfLogReadSize
	whatIfLogWriteSize
	whatIfU
	whatIfFeatures
)

// whatIfRow is the feature row of a workload; a direction without
// operations takes the mean size.
func whatIfRow(readRatio, readSize, writeSize, meanSize, u float64) []float64 {
	if !(readSize > 0) {
		readSize = meanSize
	}
	if !(writeSize > 0) {
		writeSize = meanSize
	}
	return []float64{readRatio, math.Log2(readSize), math.Log2(writeSize), u}
}

// evenlySpaced keeps at most n rows, evenly spaced, in order.
func evenlySpaced(X [][]float64, y []float64, n int) ([][]float64, []float64) {
	if len(y) <= n {
		return X, y
	}
	xs, ys := make([][]float64, 0, n), make([]float64, 0, n)
	for k := 0; k < n; k++ {
		i := k * len(y) / n
		xs, ys = append(xs, X[i]), append(ys, y[i])
	}
	return xs, ys
}

func finiteOr(v, or float64) float64 {
	if finite(v) {
		return v
	}
	return or
}

// sortLearners orders by cross-validated RMSE, best first (stable: ties
// keep the learners' order).
func sortLearners(ls []WhatIfLearner) {
	for i := 1; i < len(ls); i++ {
		for j := i; j > 0 && ls[j].CVRMSEMillis < ls[j-1].CVRMSEMillis; j-- {
			ls[j], ls[j-1] = ls[j-1], ls[j]
		}
	}
}

// Decode implements Fitter: the winner is refitted from the saved
// training windows and its parameters (the learners are deterministic, so
// the restored model predicts what the saved one did).
func (WhatIfFitter) Decode(data []byte) (Fitted, error) {
	var m WhatIfFit
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	if len(m.Learners) == 0 || len(m.X) != len(m.YMillis) || len(m.X) < 2 {
		return nil, errors.New("whatif: saved state has no learner or no training windows")
	}
	for i, row := range m.X {
		if len(row) != whatIfFeatures {
			return nil, fmt.Errorf("whatif: saved window %d has %d features, want %d", i, len(row), whatIfFeatures)
		}
	}
	var l regress.Learner
	for _, c := range regress.Learners() {
		if c.Name() == m.Learners[0].Name {
			l = c
		}
	}
	if l == nil {
		return nil, fmt.Errorf("whatif: saved learner %q is unknown", m.Learners[0].Name)
	}
	model, err := l.Fit(m.X, m.YMillis, m.Learners[0].Params)
	if err != nil {
		return nil, fmt.Errorf("whatif: refitting %s: %w", l.Name(), err)
	}
	m.model = model
	return &m, nil
}

// WhatIfFit is the winning learner with every learner's cross-validated
// error, best first.
type WhatIfFit struct {
	Learners []WhatIfLearner `json:"learners"`
	Folds    int             `json:"folds"`
	// MaxUtilization is the highest utilization among the training
	// windows: beyond it the regression extrapolates, and the what-if
	// answers from the latency model anchored to capacity instead.
	MaxUtilization float64     `json:"maxUtilization"`
	X              [][]float64 `json:"x"`
	YMillis        []float64   `json:"yMillis"`
	model          regress.Model
}

// WhatIfLearner is one learner's outcome of the search.
type WhatIfLearner struct {
	Name   string    `json:"name"`
	Params []float64 `json:"params"`
	// CVRMSEMillis is the cross-validated RMSE of latency, in ms; the
	// ratio is it over the mean latency.
	CVRMSEMillis float64 `json:"cvRmseMillis"`
	CVErrorRatio float64 `json:"cvErrorRatio"`
	// DefaultCVRMSEMillis is the same with the learner's default
	// parameters (-1 when it could not be fitted): what the search gained.
	DefaultCVRMSEMillis float64 `json:"defaultCvRmseMillis"`
}

func (m *WhatIfFit) Samples() int { return len(m.YMillis) }

// Scores is 1 − the winner's cross-validated error ratio (an RMSE over the
// mean, the closest to 1 − MAPE the search measures).
func (m *WhatIfFit) Scores() map[string]float64 {
	return scoreOf("latency", math.Max(1-m.Learners[0].CVErrorRatio, 0))
}

// Note names the learner that serves, its cross-validated error and the
// runner-up's, for the model's status.
func (m *WhatIfFit) Note() string {
	w := m.Learners[0]
	s := fmt.Sprintf("%s serves (cross-validated error %.1f%%)", w.Name, 100*w.CVErrorRatio)
	if r, ok := m.RunnerUp(); ok {
		s += fmt.Sprintf(", runner-up %s (%.1f%%)", r.Name, 100*r.CVErrorRatio)
	}
	return s
}

// Winner and RunnerUp are the best two learners ("" when there is none).
func (m *WhatIfFit) Winner() WhatIfLearner { return m.Learners[0] }

func (m *WhatIfFit) RunnerUp() (WhatIfLearner, bool) {
	if len(m.Learners) < 2 {
		return WhatIfLearner{}, false
	}
	return m.Learners[1], true
}

// WhatIfLatency is the what-if model's latency for a workload.
type WhatIfLatency struct {
	Band Band
	// Served is false when the workload is past the training windows'
	// utilization, read ratio or sizes (the regression would extrapolate)
	// or at or past capacity (no finite latency): the caller answers
	// otherwise.
	Served bool
	Reason string
}

// Latency predicts the latency (seconds) of a workload: its read ratio,
// mean read and write sizes, and the frontier's utilization res at its
// load. The band is ± 1.96 cross-validated RMSE (the CV error is the
// model's own measure of its spread on windows it did not see).
func (m *WhatIfFit) Latency(o features.Observed, res conservation.Result) WhatIfLatency {
	u := res.Utilization
	switch {
	case !finite(u):
		return WhatIfLatency{Reason: "the capacity model cannot place this workload"}
	case u >= 1:
		return WhatIfLatency{Reason: "at or past capacity: no finite latency"}
	case u > m.MaxUtilization:
		return WhatIfLatency{Reason: fmt.Sprintf("utilization %.2f is beyond the history's %.2f", u, m.MaxUtilization)}
	case u < m.minUtilization():
		// Below the history a line keeps going down too, to a latency of
		// 0 or less (hosts added, negative extra IOPS).
		return WhatIfLatency{Reason: fmt.Sprintf("utilization %.2f is below the history's %.2f", u, m.minUtilization())}
	}
	row := whatIfRow(o.ReadRatio, o.ReadSizeBytes, o.WriteSizeBytes, o.IOSizeBytes, u)
	if reason := m.outsideHistory(row); reason != "" {
		return WhatIfLatency{Reason: reason}
	}
	mean := m.model.Predict(row)
	if !finite(mean) {
		return WhatIfLatency{Reason: "the model's prediction is not finite"}
	}
	if !(mean > 0) {
		return WhatIfLatency{Reason: fmt.Sprintf("the model predicts %.3g ms, no latency", mean)}
	}
	half := 1.96 * m.Learners[0].CVRMSEMillis
	return WhatIfLatency{Served: true, Band: Band{
		Lower: math.Max(mean-half, 0) / 1e3, Mean: math.Max(mean, 0) / 1e3, Upper: math.Max(mean+half, 0) / 1e3,
	}}
}

// minUtilization is the lowest utilization among the training windows.
func (m *WhatIfFit) minUtilization() float64 {
	lo := math.Inf(1)
	for _, x := range m.X {
		lo = math.Min(lo, x[whatIfU])
	}
	return lo
}

// Margins past the training windows' range within which the regression
// still answers: the read ratio's, and the sizes' in octaves.
const (
	whatIfReadRatioMargin = 0.05
	whatIfSizeMargin      = 0.5
)

// outsideHistory says which of the row's mix features (read ratio, read
// size, write size) lies outside the training windows' range by more than
// its margin ("" when none): there the regression would extrapolate (a tree
// answers with its edge leaf, a line keeps going), as past MaxUtilization,
// and the what-if answers from the latency model anchored to capacity.
func (m *WhatIfFit) outsideHistory(row []float64) string {
	for j, f := range []struct {
		name   string
		margin float64
		show   func(float64) string
	}{
		{"read ratio", whatIfReadRatioMargin, func(v float64) string { return fmt.Sprintf("%.2f", v) }},
		{"read size", whatIfSizeMargin, func(v float64) string { return fmt.Sprintf("%.0f bytes", math.Exp2(v)) }},
		{"write size", whatIfSizeMargin, func(v float64) string { return fmt.Sprintf("%.0f bytes", math.Exp2(v)) }},
	} {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, x := range m.X {
			lo, hi = math.Min(lo, x[j]), math.Max(hi, x[j])
		}
		if v := row[j]; v < lo-f.margin || v > hi+f.margin {
			return fmt.Sprintf("%s %s is outside the history's %s to %s", f.name, f.show(v), f.show(lo), f.show(hi))
		}
	}
	return ""
}

// WhatIfModel returns the fitted what-if model, nil when there is none.
func (s Set) WhatIfModel() *WhatIfFit {
	m, _ := s[WhatIf].(*WhatIfFit)
	return m
}

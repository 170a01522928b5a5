package models

import (
	"context"
	"encoding/json"

	"github.com/storcast/storcast/exporter/config"
	"github.com/storcast/storcast/exporter/features"
	"github.com/storcast/storcast/exporter/source"
	"github.com/storcast/storcast/forecaster/insideout"
)

// smoothSeconds is Inside-Out's moving-average window over host metrics
// (the paper's one minute).
const smoothSeconds = 60

// InsideOutFit is a fitted Inside-Out model. It encodes as the bare
// insideout.Model.
type InsideOutFit struct{ *insideout.Model }

var (
	_ Fitter  = InsideOutFitter{}
	_ Fitted  = InsideOutFit{}
	_ Checker = InsideOutFit{}
)

func (m InsideOutFit) Samples() int { return m.Model.Samples }

// Scores is the cross-validated accuracy per target.
func (m InsideOutFit) Scores() map[string]float64 {
	acc := map[string]float64{}
	for t, tm := range m.Targets {
		acc[string(t)] = tm.CVAccuracy
	}
	return finiteScores(acc)
}

// Check implements Checker: the accuracy on the recent host windows.
func (m InsideOutFit) Check(recent *source.Frame, _ features.Observed, threshold float64) string {
	ws, measured, err := features.HostWindows(recent, smoothSeconds, 0)
	if err != nil || len(ws) == 0 {
		return ""
	}
	if acc, err := m.Score(ws, measured); err == nil && insideout.NeedsRetrain(acc, threshold) {
		return "insideout accuracy below threshold"
	}
	return ""
}

// InsideOutFitter trains Inside-Out on the host windows of the lookback.
type InsideOutFitter struct {
	// Windows caps the windows it trains on (0: 1500).
	Windows int
	Options insideout.Options
}

func (InsideOutFitter) Name() string { return InsideOut }

// Enabled: only for clusters with hosts configured.
func (InsideOutFitter) Enabled(cl *config.Cluster) bool {
	return len(cl.Hosts.Roles) > 0 || len(cl.Hosts.Matchers) > 0
}

// Fit implements Fitter.
func (f InsideOutFitter) Fit(_ context.Context, in Input) (Fitted, error) {
	n := f.Windows
	if n == 0 {
		n = 1500
	}
	ws, targets, err := features.HostWindows(in.Frame, smoothSeconds, n)
	if err != nil {
		return nil, err
	}
	// k-fold cross-validation needs at least k windows.
	folds := f.Options.Folds
	if folds == 0 {
		folds = 10
	}
	if err := needWindows(InsideOut, len(ws), folds, "with host metrics and cluster load"); err != nil {
		return nil, err
	}
	m, err := insideout.Train(insideout.SchemaOf(ws), ws, targets, f.Options)
	if err != nil {
		return nil, err
	}
	return InsideOutFit{m}, nil
}

// Decode implements Fitter.
func (InsideOutFitter) Decode(data []byte) (Fitted, error) {
	var m insideout.Model
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return InsideOutFit{&m}, nil
}

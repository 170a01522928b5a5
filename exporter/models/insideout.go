package models

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/storcast/storcast/exporter/config"
	"github.com/storcast/storcast/exporter/features"
	"github.com/storcast/storcast/exporter/source"
	"github.com/storcast/storcast/forecaster/insideout"
)

// smoothSeconds is Inside-Out's moving-average window over host metrics
// (the paper's one minute).
const smoothSeconds = 60

// InsideOutFit is a fitted Inside-Out model. It encodes as the
// insideout.Model's fields plus leftOut.
type InsideOutFit struct {
	*insideout.Model
	// LeftOut names the host metrics some host lacked, left out of the
	// model (features.HostMetrics).
	LeftOut []string `json:"leftOut,omitempty"`
}

var (
	_ Fitter  = InsideOutFitter{}
	_ Fitted  = InsideOutFit{}
	_ Checker = InsideOutFit{}
	_ Noter   = InsideOutFit{}
)

// Note names the host metrics left out, for the model's status.
func (m InsideOutFit) Note() string {
	if len(m.LeftOut) == 0 {
		return ""
	}
	return "left out host metrics some hosts lack: " + strings.Join(m.LeftOut, "; ")
}

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
	_, leftOut := features.HostMetrics(in.Frame)
	return InsideOutFit{Model: m, LeftOut: leftOut}, nil
}

// Decode implements Fitter.
func (InsideOutFitter) Decode(data []byte) (Fitted, error) {
	var m InsideOutFit
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	if err := m.Model.Validate(); err != nil {
		return nil, err
	}
	return m, nil
}

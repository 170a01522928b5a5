package models

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/storcast/storcast/exporter/config"
	"github.com/storcast/storcast/exporter/features"
	"github.com/storcast/storcast/exporter/source"
	"github.com/storcast/storcast/forecaster/insideout"
)

// InsideOutFit is a fitted Inside-Out model. It encodes as the
// insideout.Model's fields plus leftOut.
type InsideOutFit struct {
	*insideout.Model
	// LeftOut names the host metrics some host lacked, left out of the
	// model (features.HostSchema).
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
	rows, err := features.HostFeatures(recent, m.Schema, 0)
	if err != nil {
		return ""
	}
	if acc, err := m.ScoreFeatures(rows.X, rows.Targets); err == nil && insideout.NeedsRetrain(acc, threshold) {
		return "insideout accuracy below threshold"
	}
	return ""
}

// InsideOutFitter trains Inside-Out on the host statistics of the lookback.
// The query engine aggregates the hosts (source.HostQueries): the fitter
// reads the mean, std, sum and p95 of each host metric across each role's
// hosts, never a per-host series, so a fit costs the same for 10 hosts as
// for 1,000.
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
	schema, leftOut := features.HostSchema(in.Frame)
	if len(schema.Roles) == 0 {
		return nil, fmt.Errorf("%w: no host metric that every host of a role reports (left out: %s)", features.ErrNoData, strings.Join(leftOut, "; "))
	}
	rows, err := features.HostFeatures(in.Frame, schema, n)
	if err != nil {
		return nil, err
	}
	// k-fold cross-validation needs at least k windows.
	folds := f.Options.Folds
	if folds == 0 {
		folds = 10
	}
	nrows, _ := rows.X.Dims()
	if err := needWindows(InsideOut, nrows, folds, "with host metrics and cluster load"); err != nil {
		return nil, err
	}
	m, err := insideout.TrainMatrix(schema.FeatureNames(), rows.X, rows.Targets, f.Options)
	if err != nil {
		return nil, err
	}
	m.Schema = schema // the layout of the rows, for predicting and persisting
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

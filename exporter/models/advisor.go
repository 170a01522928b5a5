package models

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/storcast/storcast/exporter/config"
	"github.com/storcast/storcast/exporter/features"
	"github.com/storcast/storcast/forecaster/advisor"
)

// Advisor is the name of the traffic-control rule-set advisor.
const Advisor = "advisor"

// AdvisorFitter trains the rule-set advisor (forecaster/advisor: one M5
// model tree per rule set, from the experiments of the cluster's catalog
// file) for clusters that name a catalog. It learns from the catalog, not
// from the history; the live predictions are the models' Live.
type AdvisorFitter struct{}

var _ Fitter = AdvisorFitter{}

func (AdvisorFitter) Name() string { return Advisor }

// Enabled: only for clusters with a catalog.
func (AdvisorFitter) Enabled(cl *config.Cluster) bool { return cl.Advisor.CatalogFile != "" }

// Fit implements Fitter.
func (AdvisorFitter) Fit(_ context.Context, in Input) (Fitted, error) {
	cat, err := in.Cluster.Advisor.Load()
	if err != nil {
		return nil, err
	}
	a, err := advisor.Train(cat)
	if err != nil {
		return nil, err
	}
	return &AdvisorFit{A: a}, nil
}

// Decode implements Fitter: the trained advisor, cached in the state.
func (AdvisorFitter) Decode(data []byte) (Fitted, error) {
	var m AdvisorFit
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	if m.A == nil {
		return nil, errors.New("advisor: saved state has no advisor")
	}
	return &m, nil
}

// AdvisorFit is a trained advisor.
type AdvisorFit struct {
	A *advisor.Advisor `json:"advisor"`
}

// Samples is the number of experiments it learned from.
func (m *AdvisorFit) Samples() int {
	n := 0
	for _, rs := range m.A.RuleSets {
		n += rs.Experiments
	}
	return n
}

// Scores is each rule set's cross-validated accuracy, 1 − CV error (the
// error is in boost points, a ratio).
func (m *AdvisorFit) Scores() map[string]float64 {
	out := map[string]float64{}
	for _, rs := range m.A.RuleSets {
		out[rs.Name] = max(1-rs.CVError, 0)
	}
	return finiteScores(out)
}

// RuleSets is the advisor's answer for the latest observation.
type RuleSets struct {
	Predictions []advisor.Prediction
	// Recommended is the rule set with the highest positive predicted
	// boost, "" when none is positive.
	Recommended string
	// Err says why there is no answer (no traffic, a feature the catalog
	// uses that the source does not measure).
	Err string
}

// predictRuleSets asks the advisor about the observed workload.
func (m *AdvisorFit) predictRuleSets(o features.Observed) RuleSets {
	r := advisor.Rates{
		ReadOps: o.ReadIOPS, WriteOps: o.WriteIOPS,
		ReadBytes: o.ReadIOPS * o.ReadSizeBytes, WriteBytes: o.WriteIOPS * o.WriteSizeBytes,
		DiskMerged: NaN, DiskCompleted: NaN,
	}
	if o.HasDiskRequests {
		r.DiskMerged, r.DiskCompleted = o.DiskMerged, o.DiskCompleted
	}
	w, err := advisor.LiveWorkload(r)
	if err != nil {
		return RuleSets{Err: err.Error()}
	}
	preds, err := m.A.Predict(w)
	if err != nil {
		return RuleSets{Err: err.Error()}
	}
	out := RuleSets{Predictions: preds}
	if name, ok, err := m.A.Recommend(w); err == nil && ok {
		out.Recommended = name
	}
	return out
}

package models

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/storcast/storcast/exporter/config"
	"github.com/storcast/storcast/forecaster/trend"
)

// Saturation is the name of the utilization trend.
const Saturation = "saturation"

// SaturationFitter fits the trend of the capacity frontier's utilization
// (forecaster/trend.FitUtilization): demand relative to the capacity at
// each window's own mix, so a mix drifting toward writes (a capacity that
// falls) counts as growth, and the daily peaks, not the mean, set the ETA.
// It reads the capacity model fitted before it.
type SaturationFitter struct {
	Options trend.UtilizationOptions
}

var _ Fitter = SaturationFitter{}

func (SaturationFitter) Name() string                 { return Saturation }
func (SaturationFitter) Enabled(*config.Cluster) bool { return true }

// Fit implements Fitter.
func (f SaturationFitter) Fit(_ context.Context, in Input) (Fitted, error) {
	c := in.Fitted.Capacity()
	if c == nil {
		return nil, errors.New("needs the capacity model, which is not fitted")
	}
	obs, u := utilizationSeries(c.Model(), in.Frame)
	if err := needWindows(Saturation, len(u), 3, "with load"); err != nil {
		return nil, err
	}
	times := make([]float64, len(obs))
	for i, o := range obs {
		times[i] = o.Time
	}
	ut, err := trend.FitUtilization(times, u, f.Options)
	if err != nil {
		return nil, err
	}
	return &UtilizationFit{T: ut, N: len(u)}, nil
}

// Decode implements Fitter.
func (SaturationFitter) Decode(data []byte) (Fitted, error) {
	var m UtilizationFit
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	if m.T == nil {
		return nil, errors.New("saturation: saved state has no trend")
	}
	return &m, nil
}

// UtilizationFit is a fitted utilization trend.
type UtilizationFit struct {
	T *trend.UtilizationTrend `json:"trend"`
	N int                     `json:"samples"`
}

func (m *UtilizationFit) Samples() int               { return m.N }
func (m *UtilizationFit) Scores() map[string]float64 { return nil }

// ETA is the saturation ETA from now at the current utilization; 0 when
// already saturated or over the latency SLO.
func (m *UtilizationFit) ETA(now, currentU float64, overSLO bool) trend.SaturationETA {
	return m.T.ETA(now, currentU, overSLO)
}

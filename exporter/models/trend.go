package models

import (
	"context"
	"encoding/json"
	"fmt"
	"math"

	"github.com/storcast/storcast/exporter/config"
	"github.com/storcast/storcast/exporter/features"
	"github.com/storcast/storcast/forecaster/trend"
)

// DemandTrend fits forecaster/trend (Theil–Sen with an optional daily
// profile) and scores it with trend.Backtest (fit on the first 80% of the
// span, score the last 20%).
type DemandTrend struct {
	// SeasonSeconds is the seasonal period fitted when the history spans at
	// least two of them; default one day.
	SeasonSeconds float64
}

var (
	_ Fitter = DemandTrend{}
	_ Demand = (*demandTrend)(nil)
	_ Fitted = (*demandTrend)(nil)
)

type demandTrend struct {
	T   *trend.Trend `json:"trend"`
	Acc float64      `json:"accuracy"` // -1 when unknown
	N   int          `json:"n"`
}

func (d *demandTrend) At(t float64) Band {
	m, lo, hi := d.T.At(t)
	return Band{Lower: lo, Mean: m, Upper: hi}
}

// ETA is when the trend's mean reaches limit, +Inf beyond a year (the
// utilization trend's horizon, trend.DefaultHorizonSeconds): the line has
// no horizon of its own, and one crossing must read the same
// (storcast_saturation_eta_seconds +Inf) whichever trend is fitted.
func (d *demandTrend) ETA(now, limit float64) float64 {
	if eta := d.T.ETA(limit, now).MeanSeconds; eta <= trend.DefaultHorizonSeconds {
		return eta
	}
	return math.Inf(1)
}

func (d *demandTrend) Accuracy() float64 {
	if d.Acc < 0 {
		return NaN
	}
	return d.Acc
}

func (d *demandTrend) Samples() int { return d.N }

func (d *demandTrend) Scores() map[string]float64 { return scoreOf("iops", d.Accuracy()) }

func (d *demandTrend) MarshalJSON() ([]byte, error) {
	type plain demandTrend
	return json.Marshal((*plain)(d))
}

func (DemandTrend) Name() string                 { return Trend }
func (DemandTrend) Enabled(*config.Cluster) bool { return true }

// Fit implements Fitter: the trend of total IOPS over the lookback.
func (f DemandTrend) Fit(_ context.Context, in Input) (Fitted, error) {
	t, y := features.Demand(in.Frame)
	if err := needWindows(Trend, len(t), 3, "with ops measured"); err != nil {
		return nil, err
	}
	tr, err := f.FitSeries(t, y)
	if err != nil {
		return nil, err
	}
	return tr.(*demandTrend), nil
}

// Decode implements Fitter.
func (f DemandTrend) Decode(data []byte) (Fitted, error) {
	tr, err := f.DecodeTrend(data)
	if err != nil {
		return nil, err
	}
	return tr.(*demandTrend), nil
}

// FitSeries fits the trend of y over the Unix times t.
func (f DemandTrend) FitSeries(t, y []float64) (Demand, error) {
	opts := trend.Options{}
	season := f.SeasonSeconds
	if season == 0 {
		season = trend.Day
	}
	if len(t) > 0 && t[len(t)-1]-t[0] >= 2*season {
		opts.SeasonSeconds = season
	}
	tr, err := trend.Fit(t, y, opts)
	if err != nil {
		return nil, err
	}
	acc := -1.0
	if bt, err := trend.Backtest(t, y, 0.2, opts); err == nil && !math.IsNaN(bt.Accuracy) {
		acc = bt.Accuracy
	}
	return &demandTrend{T: tr, Acc: acc, N: len(t)}, nil
}

// DecodeTrend restores a trend encoded from FitSeries' result.
func (DemandTrend) DecodeTrend(data []byte) (Demand, error) {
	var d demandTrend
	if err := json.Unmarshal(data, &d); err != nil {
		return nil, err
	}
	if d.T == nil {
		return nil, fmt.Errorf("trend: saved state has no trend")
	}
	return &d, nil
}

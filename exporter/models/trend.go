package models

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/storcast/storcast/forecaster/trend"
)

// DemandTrend fits forecaster/trend (Theil–Sen with an optional daily
// profile) and scores it with trend.Backtest (fit on the first 80% of the
// span, score the last 20%).
type DemandTrend struct {
	// Season is the seasonal period fitted when the history spans at least
	// two of them; default one day.
	SeasonSeconds float64
}

var _ TrendFitter = DemandTrend{}

type demandTrend struct {
	T   *trend.Trend `json:"trend"`
	Acc float64      `json:"accuracy"` // -1 when unknown
	N   int          `json:"n"`
}

func (d *demandTrend) At(t float64) Band {
	m, lo, hi := d.T.At(t)
	return Band{Lower: lo, Mean: m, Upper: hi}
}

func (d *demandTrend) ETA(now, limit float64) float64 { return d.T.ETA(limit, now).MeanSeconds }

func (d *demandTrend) Accuracy() float64 {
	if d.Acc < 0 {
		return NaN
	}
	return d.Acc
}

func (d *demandTrend) Samples() int { return d.N }

func (d *demandTrend) MarshalJSON() ([]byte, error) {
	type plain demandTrend
	return json.Marshal((*plain)(d))
}

// Fit implements TrendFitter.
func (f DemandTrend) Fit(t, y []float64) (Trend, error) {
	opts := trend.Options{}
	season := f.SeasonSeconds
	if season == 0 {
		season = 86400
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

// Decode implements TrendFitter.
func (DemandTrend) Decode(data []byte) (Trend, error) {
	var d demandTrend
	if err := json.Unmarshal(data, &d); err != nil {
		return nil, err
	}
	if d.T == nil {
		return nil, fmt.Errorf("trend: saved state has no trend")
	}
	return &d, nil
}

package trend

import (
	"math"
	"sort"
)

// BacktestResult scores a trend fitted on the early part of a series
// against the held-out later part.
type BacktestResult struct {
	Train    int     `json:"train"`    // points fitted
	Scored   int     `json:"scored"`   // held-out points scored (zeros skipped)
	MAPE     float64 `json:"mape"`     // mean |mean − y| / y over scored points
	Accuracy float64 `json:"accuracy"` // max(1 − MAPE, 0), the project's accuracy score
	Coverage float64 `json:"coverage"` // share of scored points inside the band
}

// Backtest fits on the points before the last holdout share of the time
// span (0 < holdout < 1, e.g. 0.2) and scores the mean forecast on the rest,
// the backtest protocol of docs/models.md applied to time: train on the past, score the
// future. Held-out points with value 0 are skipped (relative error is
// undefined there). A seasonal profile is fitted only when the training
// part spans two seasons, as Fit requires: a history of two to 2.5 days
// carries its profile, but its first 80% does not, so the backtest scores
// the line alone rather than nothing.
func Backtest(times, values []float64, holdout float64, opts Options) (BacktestResult, error) {
	if !(holdout > 0 && holdout < 1) {
		return BacktestResult{}, inputError("holdout", "must be in (0, 1), got %v", holdout)
	}
	if len(times) != len(values) {
		return BacktestResult{}, inputError("values", "length %d does not match %d times", len(values), len(times))
	}
	if len(times) == 0 {
		return BacktestResult{}, inputError("times", "empty")
	}
	idx := make([]int, len(times))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return times[idx[a]] < times[idx[b]] })
	first, last := times[idx[0]], times[idx[len(idx)-1]]
	cut := last - holdout*(last-first)
	var tt, ty, st, sy []float64
	for _, i := range idx {
		if times[i] < cut {
			tt, ty = append(tt, times[i]), append(ty, values[i])
		} else {
			st, sy = append(st, times[i]), append(sy, values[i])
		}
	}
	if opts.SeasonSeconds > 0 && len(tt) > 0 && tt[len(tt)-1]-tt[0] < 2*opts.SeasonSeconds {
		opts.SeasonSeconds = 0
	}
	tr, err := Fit(tt, ty, opts)
	if err != nil {
		return BacktestResult{}, err
	}
	res := BacktestResult{Train: len(tt)}
	var sum float64
	inside := 0
	for i, t := range st {
		m, lo, hi := tr.At(t)
		if sy[i] >= lo && sy[i] <= hi {
			inside++
		}
		if sy[i] == 0 {
			continue
		}
		sum += math.Abs(m-sy[i]) / math.Abs(sy[i])
		res.Scored++
	}
	if res.Scored == 0 {
		return BacktestResult{}, inputError("values", "no non-zero held-out value to score")
	}
	res.MAPE = sum / float64(res.Scored)
	res.Accuracy = math.Max(1-res.MAPE, 0)
	res.Coverage = float64(inside) / float64(len(st))
	return res, nil
}

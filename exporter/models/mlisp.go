package models

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"

	"github.com/storcast/storcast/exporter/config"
	"github.com/storcast/storcast/exporter/features"
	"github.com/storcast/storcast/forecaster/backtest"
	"github.com/storcast/storcast/forecaster/mlisp"
)

// MLISPFitter fits forecaster/mlisp models and scores them with forecaster/backtest
// (train on windows below the BacktestQuantile of IOPS, score above).
type MLISPFitter struct {
	Options mlisp.Options
	// BacktestQuantile is the IOPS quantile of the split X; default 0.8.
	BacktestQuantile float64
}

var (
	_ Fitter  = MLISPFitter{}
	_ Latency = (*mlispLatency)(nil)
	_ Fitted  = (*mlispLatency)(nil)
)

// mlispLatency is a fitted M-LISP model with its backtest accuracy.
type mlispLatency struct {
	M   *mlisp.Model `json:"model"`
	Acc float64      `json:"accuracy"` // NaN encoded as -1
}

func (l *mlispLatency) Curve() []LatencyPoint {
	var out []LatencyPoint
	if l.M.Curve == nil {
		return nil
	}
	for _, set := range [][]mlisp.Point{l.M.Curve.Observed, l.M.Curve.Points} {
		for _, p := range set {
			out = append(out, LatencyPoint{IOPS: p.IOPS, Band: Band{Lower: p.Lower, Mean: p.Mean, Upper: p.Upper}})
		}
	}
	return out
}

func (l *mlispLatency) At(iops float64) (Band, bool) {
	if l.M.Curve == nil {
		return Band{}, false
	}
	p, ok := l.M.Curve.At(iops)
	return Band{Lower: p.Lower, Mean: p.Mean, Upper: p.Upper}, ok
}

func (l *mlispLatency) Crossing(slo float64) Band {
	b := Band{NaN, NaN, NaN}
	if l.M.Curve == nil || !(slo > 0) {
		return b
	}
	// The upper band reaches the SLO first, so it gives the lowest IOPS:
	// the "upper" bound of the knee is the pessimistic one.
	if v, ok := l.M.Curve.SLOCrossing(slo, mlisp.Upper); ok {
		b.Upper = v
	}
	if v, ok := l.M.Curve.SLOCrossing(slo, mlisp.Mean); ok {
		b.Mean = v
	}
	if v, ok := l.M.Curve.SLOCrossing(slo, mlisp.Lower); ok {
		b.Lower = v
	}
	return b
}

func (l *mlispLatency) Accuracy() float64 { return l.Acc }
func (l *mlispLatency) Samples() int      { return len(l.M.Samples) }

func (l *mlispLatency) Scores() map[string]float64 { return scoreOf("latency", l.Acc) }

func (l *mlispLatency) MarshalJSON() ([]byte, error) {
	acc := l.Acc
	if math.IsNaN(acc) {
		acc = -1
	}
	return json.Marshal(struct {
		M   *mlisp.Model `json:"model"`
		Acc float64      `json:"accuracy"`
	}{l.M, acc})
}

func (MLISPFitter) Name() string                 { return MLISP }
func (MLISPFitter) Enabled(*config.Cluster) bool { return true }

// Fit implements Fitter: M-LISP on the frame's latency columns; the curve
// reaches 1.2 × the capacity at the current mix when the capacity model is
// fitted, so the SLO crossing shows even far above today's load.
func (f MLISPFitter) Fit(_ context.Context, in Input) (Fitted, error) {
	names, cols := features.LatencyColumns(in.Frame)
	need := f.Options.MinSamples
	if need <= 0 {
		need = 30 // mlisp's default
	}
	active := 0
	for i := range cols[0] {
		if cols[0][i] > 0 && cols[1][i] > 0 {
			active++
		}
	}
	if err := needWindows(MLISP, active, need, "with load and latency"); err != nil {
		return nil, err
	}
	l, err := f.FitColumns(names, cols, 1.2*in.Fitted.MaxIOPSAt(in.Observed, in.HasObserved))
	if err != nil {
		return nil, err
	}
	return l.(*mlispLatency), nil
}

// Decode implements Fitter.
func (f MLISPFitter) Decode(data []byte) (Fitted, error) {
	l, err := f.DecodeLatency(data)
	if err != nil {
		return nil, err
	}
	return l.(*mlispLatency), nil
}

// DecodeLatency restores a model encoded from FitColumns' result.
func (f MLISPFitter) DecodeLatency(data []byte) (Latency, error) {
	var l mlispLatency
	if err := json.Unmarshal(data, &l); err != nil {
		return nil, err
	}
	if l.M == nil || l.M.Curve == nil {
		return nil, fmt.Errorf("mlisp: saved model has no curve")
	}
	if !(l.Acc >= 0 && l.Acc <= 1) { // an accuracy is 1 − MAPE floored at 0; -1 saved for none
		l.Acc = math.NaN()
	}
	return &l, nil
}

// FitColumns learns from a counter table: names[0] is total IOPS, names[1]
// the latency in seconds, then other counters; NaN = missing. The curve
// reaches at least horizonIOPS (0: the model's default horizon).
func (f MLISPFitter) FitColumns(names []string, cols [][]float64, horizonIOPS float64) (Latency, error) {
	if len(names) < 2 || len(cols) != len(names) {
		return nil, fmt.Errorf("mlisp: need IOPS and latency columns, got %d names and %d columns", len(names), len(cols))
	}
	m, err := mlisp.Fit(mlisp.Dataset{Names: names, Columns: cols, IOPS: names[0], Latency: names[1]}, f.Options)
	if err != nil {
		return nil, err
	}
	if m.Curve != nil && len(m.Curve.Points) > 0 && horizonIOPS > m.Curve.Points[len(m.Curve.Points)-1].IOPS {
		// Extend the curve to the capacity, so that a knee below it shows.
		c, err := m.Extrapolate(horizonIOPS)
		if err != nil {
			return nil, fmt.Errorf("mlisp: extrapolating to %.0f IOPS: %w", horizonIOPS, err)
		}
		m.Curve = c
	}
	return &mlispLatency{M: m, Acc: f.backtest(names, cols)}, nil
}

// backtest runs the extrapolation backtest on the complete rows of the
// signature columns; NaN when it cannot run.
func (f MLISPFitter) backtest(names []string, cols [][]float64) float64 {
	q := f.BacktestQuantile
	if q <= 0 || q >= 1 {
		q = 0.8
	}
	// Columns with more than 20% gaps are left out, then incomplete rows.
	var keep []int
	n := len(cols[0])
	for j := 2; j < len(cols); j++ {
		miss := 0
		for _, v := range cols[j] {
			if math.IsNaN(v) {
				miss++
			}
		}
		if float64(miss) <= 0.2*float64(n) {
			keep = append(keep, j)
		}
	}
	var ws []backtest.Window
	var loads []float64
	for i := 0; i < n; i++ {
		w := backtest.Window{Load: cols[0][i], Target: cols[1][i]}
		ok := !math.IsNaN(w.Load) && !math.IsNaN(w.Target) && w.Target > 0 && w.Load > 0
		for _, j := range keep {
			v := cols[j][i]
			ok = ok && !math.IsNaN(v) && !math.IsInf(v, 0)
			w.Features = append(w.Features, v)
		}
		if ok {
			ws = append(ws, w)
			loads = append(loads, w.Load)
		}
	}
	if len(ws) < 20 {
		return NaN
	}
	sort.Float64s(loads)
	split := loads[int(q*float64(len(loads)-1))]
	fn := make([]string, len(keep))
	for k, j := range keep {
		fn[k] = names[j]
	}
	rep, err := backtest.Run(mlisp.Forecaster{Names: fn, Options: f.Options}, ws, split, backtest.Options{})
	if err != nil {
		return NaN
	}
	return rep.Accuracy
}

package models

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/storcast/storcast/exporter/config"
	"github.com/storcast/storcast/exporter/features"
	"github.com/storcast/storcast/exporter/source"
	"github.com/storcast/storcast/forecaster/backtest"
	"github.com/storcast/storcast/forecaster/conservation"
	"github.com/storcast/storcast/forecaster/queueing"
)

// Queueing is the name of the latency model anchored to capacity.
const Queueing = "queueing"

// fittedCapacity is the capacity model fitted before a model that reads
// it (the latency curve, the saturation ETA, the what-if regression),
// named by model. Without one the model waits (NeedsCapacity): the
// capacity model's own status says whether it failed.
func fittedCapacity(in Input, model string) (*conservation.Model, error) {
	c := in.Fitted.Capacity()
	if c == nil {
		if b, ok := in.Fitted[Conservation].(*CapacityBound); ok {
			return nil, &NeedsCapacity{Model: model, Reason: "the history only bounds it from below (" + b.Reason + ")"}
		}
		return nil, &NeedsCapacity{Model: model}
	}
	return c.Model(), nil
}

// utilizationSeries returns, per busy window of the frame, the capacity
// frontier's utilization U at the window's load and mix, with the window's
// observation; windows the capacity model cannot place are left out.
func utilizationSeries(capm *conservation.Model, f *source.Frame) (obs []features.Observed, u []float64) {
	for _, o := range features.Observations(f) {
		res, err := capm.AtMixCentral(features.OpClasses(o))
		if err != nil || !finite(res.Utilization) {
			continue
		}
		obs = append(obs, o)
		u = append(u, res.Utilization)
	}
	return obs, u
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// mixAxis maps total IOPS at one mix to the frontier's utilization:
// U(t) = L·t + Q·t² (Q, the read/write interference, is 0 for the paper's
// model), and back.
type mixAxis struct {
	L float64 `json:"l"`
	Q float64 `json:"q"`
}

// axisAt derives the axis of an observation's mix from the capacity model.
func axisAt(capm *conservation.Model, o features.Observed) (mixAxis, bool) {
	classes, ok := features.MixClasses(o)
	if !ok {
		return mixAxis{}, false
	}
	res, err := capm.AtMixCentral(classes) // one op/s in all: U = L + Q
	if err != nil {
		return mixAxis{}, false
	}
	a := mixAxis{L: res.Utilization - res.Interference, Q: res.Interference}
	return a, a.L > 0 && finite(a.L) && finite(a.Q)
}

// u is the utilization at iops, as conservation's Result.Utilization: with
// Q < 0 (γ < 0) L·t + Q·t² peaks past capacity and falls after it, so that
// no load past capacity reads as a finite latency.
func (a mixAxis) u(iops float64) float64 {
	return conservation.UtilizationPastPeak(a.L*iops, a.Q*iops*iops, iops/a.iops(1))
}

// iops is the load at utilization u on the rising side: the smaller root
// of Q·t² + L·t − u = 0, written so that it does not cancel when |Q|·u ≪ L².
func (a mixAxis) iops(u float64) float64 {
	return 2 * u / (a.L + math.Sqrt(a.L*a.L+4*a.Q*u))
}

// QueueingFitter fits latency against the capacity frontier's utilization
// (forecaster/queueing): open or closed loop told from the history, the
// curve rising toward capacity and stopping there. It reads the capacity
// model fitted before it.
type QueueingFitter struct {
	Options queueing.Options
	// BacktestQuantile is the load quantile of the backtest split; default 0.8.
	BacktestQuantile float64
}

var (
	_ Fitter  = QueueingFitter{}
	_ Latency = (*queueingLatency)(nil)
)

func (QueueingFitter) Name() string                 { return Queueing }
func (QueueingFitter) Enabled(*config.Cluster) bool { return true }

// minQueueingWindows is the fewest windows with load and latency the fit
// takes: enough for its band calibration.
const minQueueingWindows = 20

// QueueingRecord is what the capacity-anchored latency model learns from:
// the busy windows' utilization, IOPS and latency, and the IOPS axis and
// capacity band at the mix it is fitted for. Kept as JSON, a real cluster's
// record refits the model offline (FitRecord) exactly as storcast fitted
// it (e2e/ceph/latency-record.sh writes them; testdata/recorded-latency).
type QueueingRecord struct {
	Samples []queueing.Sample `json:"samples"`
	Axis    mixAxis           `json:"axis"`
	Spread  capacitySpread    `json:"capacitySpread"`
}

// QueueingRecordOf builds the record of in: its windows placed on the
// fitted capacity model's frontier, at the current mix (else the last
// window's).
func QueueingRecordOf(in Input) (QueueingRecord, error) {
	capm, err := fittedCapacity(in, Queueing)
	if err != nil {
		return QueueingRecord{}, err
	}
	obs, u := utilizationSeries(capm, in.Frame)
	x, lat := make([]float64, len(obs)), make([]float64, len(obs))
	usable := 0
	for i, o := range obs {
		x[i], lat[i] = o.IOPS, o.LatencySeconds
		if o.LatencySeconds > 0 {
			usable++
		}
	}
	if err := needWindows(Queueing, usable, minQueueingWindows, "with load and latency"); err != nil {
		return QueueingRecord{}, err
	}
	samples, _, err := queueing.SamplesFrom(u, x, lat)
	if err != nil {
		return QueueingRecord{}, err
	}
	mix := in.Observed
	if !in.HasObserved || !(mix.IOSizeBytes > 0) {
		mix = obs[len(obs)-1]
	}
	axis, ok := axisAt(capm, mix)
	if !ok {
		return QueueingRecord{}, errors.New("the capacity model cannot place the current mix")
	}
	return QueueingRecord{Samples: samples, Axis: axis, Spread: spreadAt(capm, mix)}, nil
}

// Fit implements Fitter.
func (f QueueingFitter) Fit(_ context.Context, in Input) (Fitted, error) {
	rec, err := QueueingRecordOf(in)
	if err != nil {
		return nil, err
	}
	return f.FitRecord(rec)
}

// FitRecord fits the served latency model to a record.
func (f QueueingFitter) FitRecord(rec QueueingRecord) (Latency, error) {
	m, err := queueing.Fit(rec.Samples, f.Options)
	if err != nil {
		return nil, err
	}
	if err := checkAxisSpread(rec.Axis, rec.Spread); err != nil {
		return nil, fmt.Errorf("queueing record: %w", err)
	}
	l := &queueingLatency{M: m, Axis: rec.Axis, Acc: f.backtest(rec.Samples), Spread: rec.Spread}
	l.curve = l.buildCurve()
	return l, nil
}

// checkAxisSpread checks the IOPS axis and capacity band a latency model is
// served on (from a record or a saved state).
func checkAxisSpread(a mixAxis, sp capacitySpread) error {
	if !(a.L > 0) || !finite(a.L) || !finite(a.Q) {
		return errors.New("axis.l must be finite and > 0, axis.q finite")
	}
	if !(sp.Low > 0 && sp.Low <= 1) || !(sp.High >= 1) || !finite(sp.High) {
		return errors.New("capacitySpread must have 0 < low <= 1 <= high, finite")
	}
	return nil
}

// capacitySpread is the max-IOPS band at the fitted mix relative to its
// central max: Low = lower/max ≤ 1 ≤ High = upper/max (1 and 1 without a
// band). The latency band takes it in: at a load x the upper latency bound
// is the model's upper band at the utilization x would have against the
// lower capacity, the lower bound its lower band against the upper
// capacity. The curve's U axis is the frontier's, and the frontier is
// uncertain; a latency band that ignored it would put the knee (the upper
// band's SLO crossing) at a fixed share of the central max (96.5% on the
// real Ceph run of 2026-11-24 15:50: an open-loop curve of about 1 ms per
// unit of U/(1 − U) against a 50 ms SLO), above the cluster's saturation
// whenever the max is over by more than that.
type capacitySpread struct {
	Low  float64 `json:"low"`
	High float64 `json:"high"`
}

// spreadAt is the capacity band at the mix of o, relative to its max.
func spreadAt(capm *conservation.Model, o features.Observed) capacitySpread {
	sp := capacitySpread{Low: 1, High: 1}
	classes, ok := features.MixClasses(o)
	if !ok {
		return sp
	}
	res, err := capm.AtMix(classes)
	if err != nil || !(res.MaxTotalIOPS > 0) {
		return sp
	}
	if lo := res.MaxTotalIOPSLower / res.MaxTotalIOPS; lo > 0 && lo < 1 && finite(lo) {
		sp.Low = lo
	}
	if hi := res.MaxTotalIOPSUpper / res.MaxTotalIOPS; hi > 1 && finite(hi) {
		sp.High = hi
	}
	return sp
}

// backtest scores the model above the load split it was not trained on
// (the project's one protocol); NaN when it cannot run.
func (f QueueingFitter) backtest(samples []queueing.Sample) float64 {
	q := f.BacktestQuantile
	if q <= 0 || q >= 1 {
		q = 0.8
	}
	ws := make([]backtest.Window, len(samples))
	loads := make([]float64, len(samples))
	for i, s := range samples {
		ws[i] = backtest.Window{Load: s.Throughput, Target: s.Latency, Features: []float64{s.U}}
		loads[i] = s.Throughput
	}
	sort.Float64s(loads)
	split := loads[int(q*float64(len(loads)-1))]
	rep, err := backtest.Run(queueing.Forecaster{UColumn: 0, Options: f.Options}, ws, split, backtest.Options{})
	if err != nil {
		return math.NaN()
	}
	return rep.Accuracy
}

// Decode implements Fitter: the saved model with its axis and capacity
// band, its curve rebuilt (forecaster/queueing decodes the model exactly).
func (QueueingFitter) Decode(data []byte) (Fitted, error) {
	var l queueingLatency
	if err := json.Unmarshal(data, &l); err != nil {
		return nil, fmt.Errorf("queueing: %w", err)
	}
	if l.M == nil {
		return nil, errors.New("queueing: saved state has no model")
	}
	if err := checkAxisSpread(l.Axis, l.Spread); err != nil {
		return nil, fmt.Errorf("queueing: saved state: %w", err)
	}
	if !(l.Acc >= 0 && l.Acc <= 1) { // an accuracy is 1 − MAPE floored at 0; -1 saved for none
		l.Acc = math.NaN()
	}
	l.curve = l.buildCurve()
	return &l, nil
}

// queueingLatency is a fitted queueing curve on the IOPS axis of the mix it
// was fitted at, its band widened by the capacity's.
type queueingLatency struct {
	M      *queueing.Model `json:"model"`
	Axis   mixAxis         `json:"axis"`
	Acc    float64         `json:"accuracy"` // NaN: no backtest
	Spread capacitySpread  `json:"capacitySpread"`
	curve  []LatencyPoint
}

// curveSteps is the number of steps of the served curve from zero load to
// capacity.
const curveSteps = 200

// buildCurve is the curve at curveSteps loads evenly spaced in the
// frontier's utilization, from zero to one step below capacity (U = 0.995).
func (l *queueingLatency) buildCurve() []LatencyPoint {
	out := make([]LatencyPoint, 0, curveSteps)
	for k := range curveSteps {
		x := l.Axis.iops(float64(k) / curveSteps)
		if b, ok := l.At(x); ok {
			out = append(out, LatencyPoint{IOPS: x, Band: b})
		}
	}
	return out
}

func (l *queueingLatency) Curve() []LatencyPoint { return l.curve }

// At is the latency at iops at the fitted mix; ok is false at or past
// capacity (saturation has no finite latency). Where iops is at or past the
// capacity band's lower bound the upper bound is +Inf: the cluster may be
// saturated there, and no finite latency bounds it (holding the curve's last
// finite value instead read as seconds on the real Ceph runs, a number no
// one could act on).
func (l *queueingLatency) At(iops float64) (Band, bool) {
	u := l.Axis.u(iops)
	if !(u >= 0) || u >= 1 {
		return Band{}, false
	}
	p, err := l.M.At(u)
	if err != nil || p.Saturated {
		return Band{}, false
	}
	b := Band{Lower: p.Lower, Mean: p.Mean, Upper: p.Upper}
	if l.Spread.High > 1 {
		if q, err := l.M.At(l.Axis.u(iops / l.Spread.High)); err == nil && !q.Saturated {
			b.Lower = math.Min(b.Lower, q.Lower)
		}
	}
	if l.Spread.Low < 1 {
		if q, err := l.M.At(l.Axis.u(iops / l.Spread.Low)); err == nil {
			b.Upper = math.Max(b.Upper, q.Upper) // +Inf when saturated
		}
	}
	return b, true
}

// AtUtilization implements UtilizationLatency: At at the IOPS of the
// model's own mix whose utilization is u.
func (l *queueingLatency) AtUtilization(u float64) (Band, bool) {
	if !(u >= 0) || u >= 1 {
		return Band{}, false
	}
	return l.At(l.Axis.iops(u))
}

var _ UtilizationLatency = (*queueingLatency)(nil)

// kneeTail are the utilizations past the served curve's last point at which
// Crossing looks for the SLO too, up to forecaster/queueing's knee search's
// end.
var kneeTail = []float64{0.996, 0.997, 0.998, 0.999}

// Crossing is, per bound, the lowest IOPS below capacity at which the
// bound reaches slo (linear between the curve's points); NaN when it does
// not before capacity.
func (l *queueingLatency) Crossing(slo float64) Band {
	b := Band{NaN, NaN, NaN}
	if !(slo > 0) {
		return b
	}
	// The served curve stops a step below capacity (U 0.995); the knee may
	// lie above it, as the model's own knee search (to U 0.999) finds.
	pts := l.curve
	for _, u := range kneeTail {
		x := l.Axis.iops(u)
		if p, ok := l.At(x); ok {
			pts = append(pts[:len(pts):len(pts)], LatencyPoint{IOPS: x, Band: p})
		}
	}
	cross := func(get func(p LatencyPoint) float64) float64 {
		for k, p := range pts {
			if v := get(p); v >= slo {
				if k == 0 {
					return p.IOPS
				}
				q := pts[k-1]
				f := (slo - get(q)) / (v - get(q))
				return q.IOPS + f*(p.IOPS-q.IOPS)
			}
		}
		return NaN
	}
	b.Lower = cross(func(p LatencyPoint) float64 { return p.Lower })
	b.Mean = cross(func(p LatencyPoint) float64 { return p.Mean })
	b.Upper = cross(func(p LatencyPoint) float64 { return p.Upper })
	return b
}

func (l *queueingLatency) Accuracy() float64          { return l.Acc }
func (l *queueingLatency) Samples() int               { return l.M.N }
func (l *queueingLatency) Scores() map[string]float64 { return scoreOf("latency", l.Acc) }

func (l *queueingLatency) MarshalJSON() ([]byte, error) {
	acc := l.Acc
	if !finite(acc) {
		acc = -1
	}
	type plain queueingLatency
	p := plain(*l)
	p.Acc = acc
	return json.Marshal(p)
}

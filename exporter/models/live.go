package models

import (
	"math"

	"github.com/storcast/storcast/exporter/features"
	"github.com/storcast/storcast/exporter/source"
	"github.com/storcast/storcast/forecaster/conservation"
	"github.com/storcast/storcast/forecaster/insideout"
	"github.com/storcast/storcast/forecaster/trend"
)

// Capacity returns the fitted capacity model, nil when there is none.
func (s Set) Capacity() *Capacity {
	c, _ := s[Conservation].(*Capacity)
	return c
}

// InsideOut returns the fitted Inside-Out model, nil when there is none.
func (s Set) InsideOut() *insideout.Model {
	if m, ok := s[InsideOut].(InsideOutFit); ok {
		return m.Model
	}
	return nil
}

// LatencyOf returns the fitted latency model of that name, else any fitted
// latency model (capacity-anchored first), with the name of the one it
// returns (its staleness and the label an answer carries); nil and "" when
// there is none.
func (s Set) LatencyOf(name string) (Latency, string) {
	for _, n := range []string{name, Queueing, MLISP} {
		if l, ok := s[n].(Latency); ok {
			return l, n
		}
	}
	return nil, ""
}

// Utilization returns the fitted utilization trend, nil when there is none.
func (s Set) Utilization() *UtilizationFit {
	u, _ := s[Saturation].(*UtilizationFit)
	return u
}

// Trend returns the fitted demand trend, nil when there is none.
func (s Set) Trend() Demand {
	t, _ := s[Trend].(Demand)
	return t
}

// AtMix is the capacity model's answer at an observed mix; ok is false
// without a capacity model or an observation.
func (s Set) AtMix(obs features.Observed, hasObs bool) (conservation.Result, bool) {
	c := s.Capacity()
	if c == nil || !hasObs {
		return conservation.Result{}, false
	}
	if obs.Idle {
		// No demand: the whole capacity at the last known mix is left.
		classes, ok := features.MixClasses(obs)
		if !ok {
			return conservation.Result{}, false
		}
		res, err := c.Model().AtMix(classes)
		if err != nil {
			return conservation.Result{}, false
		}
		// Evaluated at 1 op/s for the mix: every figure of the load is
		// that of none (the band of the headroom too, or its bounds would
		// sit under the headroom of 1).
		res.CurrentIOPS, res.Utilization, res.Interference, res.LoadRatio = 0, 0, 0, 0
		res.HeadroomRatio, res.HeadroomRatioLower, res.HeadroomRatioUpper, res.HeadroomIOPS = 1, 1, 1, res.MaxTotalIOPS
		return res, true
	}
	res, err := c.Model().AtMix(features.OpClasses(obs))
	return res, err == nil
}

// UtilizationAxis maps total IOPS at the observed mix (its read ratio and
// sizes; an idle cluster's last busy one) to the capacity frontier's
// utilization U: storcast_utilization_ratio's U at today's load, read at
// any other, interference included (U = L·iops + Q·iops², which below
// capacity is not iops/max IOPS when Q ≠ 0). ok is false without a
// capacity model or a mix.
func (s Set) UtilizationAxis(obs features.Observed, hasObs bool) (u func(iops float64) float64, ok bool) {
	c := s.Capacity()
	if c == nil || !hasObs {
		return nil, false
	}
	a, ok := axisAt(c.Model(), obs)
	if !ok {
		return nil, false
	}
	return a.u, true
}

// MaxIOPSAt is the max total IOPS at the observed mix, 0 when unknown.
func (s Set) MaxIOPSAt(obs features.Observed, hasObs bool) float64 {
	if res, ok := s.AtMix(obs, hasObs); ok {
		return res.MaxTotalIOPS
	}
	return 0
}

// Live is what the fitted models say about the latest observation; the
// engine recomputes it at every refresh.
type Live struct {
	CapacityAtMix    conservation.Result
	HasCapacityAtMix bool
	// PredictedIO is Inside-Out's prediction from the latest host window.
	PredictedIO map[insideout.Target]float64
	// HostsFromInsideOut is the largest role's host count in the latest
	// host window (0: none), for clusters whose source has no OSD host count.
	HostsFromInsideOut int
	// MaxIOPSLowerBound is what a history that never saturated proves of
	// max total IOPS (0: no such bound; see CapacityBound).
	MaxIOPSLowerBound float64
	// RuleSets is the advisor's answer for the current workload (nil
	// without an advisor or while idle).
	RuleSets *RuleSets
}

// Derive computes the live values from the latest observation and the recent
// frame (nil: none).
func (s Set) Derive(obs features.Observed, hasObs bool, recent *source.Frame) Live {
	var l Live
	l.CapacityAtMix, l.HasCapacityAtMix = s.AtMix(obs, hasObs)
	if b, ok := s[Conservation].(*CapacityBound); ok {
		l.MaxIOPSLowerBound = b.At(obs, hasObs)
	}
	if a, ok := s[Advisor].(*AdvisorFit); ok && hasObs && !obs.Idle {
		rs := a.predictRuleSets(obs)
		l.RuleSets = &rs
	}
	if m := s.InsideOut(); m != nil && recent != nil {
		if rows, err := features.HostFeatures(recent, m.Schema, 0); err == nil {
			last := len(rows.Hosts) - 1
			// The prediction is of the observed window: rows skip idle
			// windows and those without host metrics, so the last row may
			// be a load long gone (after the load stopped, say).
			if hasObs && !obs.Idle && math.Abs(rows.Times[last]-obs.Time) <= 2*recent.Range.Step.Seconds() {
				if pred, err := m.PredictFeatures(rows.X.RawRowView(last)); err == nil {
					l.PredictedIO = pred
				}
			}
			l.HostsFromInsideOut = rows.Hosts[last]
		}
	}
	return l
}

// LoadFactors are the multiples of the observed IOPS at which the outlook
// holds the predicted latency (storcast_predicted_latency_seconds).
var LoadFactors = []float64{1, 1.25, 1.5, 2}

// Outlook is what the fitted models say ahead of the latest observation:
// the saturation ETAs, the latency knee and the latency at higher loads.
// It depends only on the models, the observation (whose time the ETAs
// count from), the live values and the SLO, so the engine computes it once
// per snapshot and every scrape and API request reads it.
type Outlook struct {
	// ETAs are the saturation ETAs by limit (see SaturationETAs).
	ETAs map[string]ETA
	// LatencyKnee is the served latency model's SLO crossing per bound;
	// HasLatency is false without a latency model.
	LatencyKnee Band
	HasLatency  bool
	// LatencyAtLoad is the predicted latency at each of LoadFactors times
	// the observed IOPS that lies within the model's curve, in their order
	// (see LatencyAtLoad).
	LatencyAtLoad []LoadLatency
}

// LoadLatency is the predicted latency at Factor times the observed IOPS.
type LoadLatency struct {
	Factor float64
	Band
}

// Outlook computes the outlook of the latest observation; latency is the
// latency model served (nil: none).
func (s Set) Outlook(obs features.Observed, hasObs bool, live Live, sloSeconds float64, latency Latency) Outlook {
	o := Outlook{ETAs: s.SaturationETAs(obs, hasObs, live, sloSeconds, latency)}
	if latency == nil {
		return o
	}
	o.LatencyKnee, o.HasLatency = latency.Crossing(sloSeconds), true
	if !hasObs {
		return o
	}
	for _, f := range LoadFactors {
		if b, ok := s.LatencyAtLoad(latency, obs, f); ok {
			o.LatencyAtLoad = append(o.LatencyAtLoad, LoadLatency{Factor: f, Band: b})
		}
	}
	return o
}

// LatencyAtLoad is the latency at f times the observed load, at the
// observed mix. Where the capacity frontier puts that load at or past
// capacity the cluster saturates there, whatever the latency model: the
// mean and upper bound are +Inf (no finite latency; the alert on the
// latency at extra load fires rather than lose its series) and the lower
// bound NaN (not exported). Below it the capacity-anchored model answers at
// the frontier's utilization of that load (the mix observed now, not the
// one it was fitted at, as a what-if does), a model in IOPS (M-LISP) at
// f × IOPS on its curve (ok false outside it).
func (s Set) LatencyAtLoad(latency Latency, obs features.Observed, f float64) (Band, bool) {
	ul, isU := latency.(UtilizationLatency)
	c := s.Capacity()
	if c == nil || obs.Idle {
		return latency.At(f * obs.IOPS)
	}
	classes := features.OpClasses(obs)
	for i := range classes {
		classes[i].Rate *= f
	}
	res, err := c.Model().AtMix(classes)
	switch {
	case err == nil && res.Utilization >= 1:
		return Band{Lower: math.NaN(), Mean: math.Inf(1), Upper: math.Inf(1)}, true
	case !isU:
		return latency.At(f * obs.IOPS)
	case err != nil:
		return Band{}, false
	}
	return ul.AtUtilization(res.Utilization)
}

// ETA is one saturation ETA in seconds from the observation, +Inf when the
// limit is not reached within the horizon.
type ETA struct {
	Seconds float64
	// Early and Late bound Seconds (Early ≤ Seconds ≤ Late): when the upper
	// end of the utilization trend's 95% prediction band of the daily
	// peaks reaches the lower end of the limit's band, and its lower end
	// the upper end of the limit's (see SaturationETAs). HasBand is false
	// without them (the demand trend's line in IOPS, the fallback, has no
	// band of its peaks).
	Early, Late float64
	HasBand     bool
	// Reached says why Seconds is 0 when the limit counts as reached
	// already (ReachedLatencyOverSLO, ReachedSaturated); "" otherwise, a
	// trend at the limit included.
	Reached string
}

// Why a saturation ETA is 0 before any forecast: the observation is past
// the limit already. The latency over its SLO comes first: it is the
// outage, whatever the utilization.
const (
	ReachedLatencyOverSLO = "latency_over_slo"
	ReachedSaturated      = "saturated"
)

// bandedETA is the ETA of a utilization trend's crossings, with its band.
func bandedETA(e trend.SaturationETA) ETA {
	return ETA{Seconds: e.PeakSeconds, Early: e.EarlySeconds, Late: e.LateSeconds, HasBand: true}
}

// SaturationETAs returns the ETAs by limit, in seconds from the
// observation, +Inf when the limit is not reached:
//
//   - max_iops: when the utilization trend's daily peaks reach the capacity
//     frontier (U = 1); 0 when utilization is already at 1 or the latency is
//     over its SLO. Without the utilization trend, when the demand trend's
//     mean reaches max IOPS at today's mix.
//   - latency_slo: when the utilization trend's daily peaks reach the
//     latency knee (the upper band's SLO crossing, at today's mix); 0 when
//     the latency is already over the SLO. Without the utilization trend,
//     when the demand trend's mean reaches the knee.
//   - either: +Inf beyond a year (trend.DefaultHorizonSeconds).
//
// With the utilization trend, each ETA has its band: for max_iops the
// capacity's band (the calibration's) over the forecast read ratio's band
// (trend.Limit); for latency_slo the knee's pessimistic to its optimistic
// end, the late end never after max_iops's unless the ETA itself is (the
// latency diverges at capacity). Already there (the utilization at 1, the
// latency over its SLO), the ETA and its band are 0 and Reached says which.
// A limit without its models is absent.
func (s Set) SaturationETAs(obs features.Observed, hasObs bool, live Live, sloSeconds float64, latency Latency) map[string]ETA {
	out := map[string]ETA{}
	if !hasObs {
		return out
	}
	overSLO := sloSeconds > 0 && obs.LatencySeconds > sloSeconds
	// Why max_iops's ETA is 0, when trend.UtilizationTrend.ETA makes it so:
	// the limit itself reached first (a saturated cluster is usually over
	// its SLO too, and "latency over its SLO, below max IOPS" would say
	// headroom is left), else the SLO breach.
	reached := ""
	switch {
	case live.HasCapacityAtMix && live.CapacityAtMix.Utilization >= 1:
		reached = ReachedSaturated
	case overSLO:
		reached = ReachedLatencyOverSLO
	}
	if ut := s.Utilization(); ut != nil && live.HasCapacityAtMix {
		e := bandedETA(ut.ETA(obs.Time, live.CapacityAtMix.Utilization, overSLO))
		e.Reached = reached
		out["max_iops"] = e
	} else if tr := s.Trend(); tr != nil && live.HasCapacityAtMix {
		out["max_iops"] = ETA{Seconds: tr.ETA(obs.Time, live.CapacityAtMix.MaxTotalIOPS)}
		if reached != "" {
			out["max_iops"] = ETA{Reached: reached}
		}
	}
	if latency != nil {
		if overSLO {
			ut := s.Utilization()
			out["latency_slo"] = ETA{HasBand: ut != nil && ut.hasReference(), Reached: ReachedLatencyOverSLO} // the band as loadETA gives one
		} else if k := latency.Crossing(sloSeconds); !math.IsNaN(k.Upper) {
			if eta, ok := s.loadETA(obs.Time, k); ok {
				if m := out["max_iops"]; eta.HasBand && m.HasBand {
					// The latency diverges at capacity: the SLO is
					// breached by the time the cluster saturates at the
					// latest, whether the knee's optimistic end lies
					// beyond capacity (an IOPS-axis curve runs past it)
					// or does not cross before it.
					eta.Late = math.Max(eta.Seconds, math.Min(eta.Late, m.Late))
				}
				out["latency_slo"] = eta
			}
		}
	}
	return out
}

// loadETA is when demand reaches the knee's pessimistic end (knee.Upper,
// where the latency's upper band crosses the SLO): the utilization trend's
// daily peaks, with their band (the late end against the knee's optimistic
// end, knee.Lower, never below knee.Upper; +Inf when that does not cross
// before capacity), else the demand trend's mean; ok is false without
// either.
func (s Set) loadETA(now float64, knee Band) (ETA, bool) {
	// The upper latency band crosses the SLO first, at the lower IOPS.
	pessimistic, optimistic := knee.Upper, knee.Lower
	if ut := s.Utilization(); ut != nil {
		late := math.Max(optimistic, pessimistic)
		if math.IsNaN(optimistic) {
			late = math.Inf(1)
		}
		if e, ok := ut.LoadETA(now, pessimistic, pessimistic, late); ok {
			return bandedETA(e), true
		}
	}
	if tr := s.Trend(); tr != nil {
		return ETA{Seconds: tr.ETA(now, pessimistic)}, true
	}
	return ETA{}, false
}

// CheckLatency is the accuracy trigger of the served latency model l: its
// mean at the observed load and mix, as storcast_predicted_latency_seconds
// serves it at load_factor 1 (LatencyAtLoad), against the observed latency;
// "" when it is within threshold, or l has no finite latency there.
func (s Set) CheckLatency(l Latency, obs features.Observed, threshold float64) string {
	if l == nil || !(obs.LatencySeconds > 0) {
		return ""
	}
	b, ok := s.LatencyAtLoad(l, obs, 1)
	if !ok || !(b.Mean > 0) || math.IsInf(b.Mean, 1) {
		return ""
	}
	if rel := math.Abs(b.Mean-obs.LatencySeconds) / obs.LatencySeconds; 1-rel < threshold {
		return "latency accuracy below threshold"
	}
	return ""
}

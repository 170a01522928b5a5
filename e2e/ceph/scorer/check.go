package main

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// check turns the report into pass/fail checks. A check whose inputs are
// missing fails: a missing series is broken plumbing.
func (r *Report) check() []Check {
	b := r.Bounds
	sys := r.Sys
	var out []Check
	add := func(name string, value, bound float64, detail string) {
		pass := !math.IsNaN(value) && value <= bound
		if math.IsNaN(value) {
			detail = "missing: " + detail
		}
		out = append(out, Check{Name: name, Value: value, Bound: bound, Pass: pass, Detail: detail})
	}
	worst := func(vals []float64, names []string) (float64, string) {
		if len(vals) == 0 {
			return math.NaN(), "no data"
		}
		w, at := -1.0, ""
		for i, v := range vals {
			if math.IsNaN(v) {
				return math.NaN(), names[i]
			}
			if v > w {
				w, at = v, names[i]
			}
		}
		return w, "worst at " + at
	}
	// worstMix is worst over the mixes: score gives a mix's value (NaN
	// where an input is missing) or leaves the mix out (false).
	worstMix := func(score func(m MixScore) (float64, bool)) (float64, string) {
		var v []float64
		var n []string
		for _, m := range r.Mixes {
			if x, ok := score(m); ok {
				v, n = append(v, x), append(n, m.label())
			}
		}
		return worst(v, n)
	}

	var v []float64
	var n []string
	for _, s := range r.Steps {
		if s.Plan.Saturated() {
			v = append(v, relErr(s.ClusterIOPS, s.Fio.IOPS()))
			n = append(n, s.Name)
		}
	}
	w, d := worst(v, n)
	add(fmt.Sprintf("plumbing: %s op rate vs %s IOPS (saturated steps)", sys.Name, sys.Client), w, b.ClusterVsClient, d)

	w, d = worstMix(func(m MixScore) (float64, bool) {
		if m.Measured > 0 {
			return relErr(m.predicted(), m.Measured), true
		}
		return math.NaN(), true
	})
	add(fmt.Sprintf("conservation model (%s calibration) vs measured max IOPS", sys.Client), w, b.Conservation, d)
	out = append(out, r.heldOutChecks()...)

	if b.FactorOff > 0 {
		w, d = worstMix(func(m MixScore) (float64, bool) {
			// The frontier at the mix measured, as the conservation check
			// reads it (m.Model is at the planned read share and one mean
			// size: 5,415 against 7,328 at 2026-11-29 07:15's mixed-size
			// step, measured at 74% reads).
			x := math.NaN()
			if p := m.predicted(); m.Measured > 0 && p > 0 {
				x = factorOff(p, m.Measured)
				if b.RequireStorcast {
					x = math.NaN()
					if m.HaveLive && m.Live > 0 {
						x = math.Max(factorOff(p, m.Measured), factorOff(m.Live, m.Measured))
					}
				}
			}
			return x, true
		})
		add("conservation model and storcast_max_iops vs measured max, as a factor either way", w, b.FactorOff, d)
	}

	if !b.RequireStorcast {
		return out
	}
	v, n = nil, nil
	for _, m := range r.Mixes {
		x := math.NaN()
		if m.HaveCurve {
			x = relErr(m.Curve, m.Model)
		}
		name := m.label()
		if r.CurveErr != "" {
			name += " (" + r.CurveErr + ")"
		}
		v, n = append(v, x), append(n, name)
	}
	w, d = worst(v, n)
	add("storcast capacity curve vs conservation model (plumbing)", w, b.CurveVsModel, d)

	w, d = worstMix(func(m MixScore) (float64, bool) {
		if m.HaveLive && m.Measured > 0 {
			return relErr(m.Live, m.Measured), true
		}
		return math.NaN(), true
	})
	add("storcast_max_iops vs measured max IOPS", w, b.LiveMaxIOPS, d)

	// The same series against the model of the same calibration at the
	// step's mix and size: noise in the measured capacity cancels, what is
	// left is storcast's detection of the mix and the (mean) IO size from
	// the system's counters, smeared by the 1m rate window over the step
	// before.
	// Mixed-size steps are left out: one model size does not describe
	// reads and writes of different sizes (storcast models each direction
	// at its own size); the served-vs-scorer check covers them.
	w, d = worstMix(func(m MixScore) (float64, bool) {
		if strings.Contains(m.BS, ",") {
			return 0, false
		}
		if m.HaveLive && m.Model > 0 {
			return relErr(m.Live, m.Model), true
		}
		return math.NaN(), true
	})
	add("plumbing: storcast_max_iops vs conservation model at the step's mix and size", w, b.LiveVsModel, d)

	if b.ServedVsScorer > 0 {
		v, n = nil, nil
		serves := map[string]bool{}
		for _, s := range r.Steps {
			if !s.Served.Have {
				continue
			}
			serves[s.Served.Serves()] = true
			v, n = append(v, s.Served.ErrServed()), append(n, s.Name+" ("+s.Served.Serves()+")")
		}
		w, d = worst(v, n)
		var which []string
		for k := range serves {
			which = append(which, k)
		}
		sort.Strings(which)
		label := strings.Join(which, " / ")
		if label == "" {
			label = "model"
		}
		add(fmt.Sprintf("storcast_max_iops vs the scorer's %s at the mix storcast saw (plumbing)", label), w, b.ServedVsScorer, d)
	}

	v, n = nil, nil
	for _, s := range r.Steps {
		if s.Plan.Saturated() {
			continue
		}
		x := math.NaN()
		if s.HaveHeadroom && s.MeasuredMax > 0 {
			x = math.Abs(s.LiveHeadroom - measuredHeadroom(s))
		}
		v, n = append(v, x), append(n, s.Name)
	}
	w, d = worst(v, n)
	add("storcast_headroom_ratio vs measured headroom (abs)", w, b.HeadroomAbs, d)

	io := r.InsideOutMAPE
	if r.InsideOutN == 0 {
		io = math.NaN()
	}
	add("Inside-Out storcast_predicted_iops MAPE over the load", io, b.InsideOutMAPE, fmt.Sprintf("%d windows", r.InsideOutN))

	sum, cnt := 0.0, 0
	var wrongUnit string
	for _, s := range r.Steps {
		if s.HighRamp && s.HaveForecast && s.HaveClusterLat {
			sum += relErr(s.ForecastLat.Mean, s.ClusterLatency)
			cnt++
			if offByTen(s.ForecastLat.Mean, s.ClusterLatency) && wrongUnit == "" {
				wrongUnit = s.Name
			}
		}
	}
	ml := math.NaN()
	if cnt > 0 {
		ml = sum / float64(cnt)
	}
	detail := fmt.Sprintf("%d higher steps", cnt)
	if wrongUnit != "" {
		ml, detail = math.Inf(1), fmt.Sprintf("%s: a forecast off by more than 10 times (%s)", detail, wrongUnit)
	}
	if r.MLISPErr != "" {
		detail += ": " + r.MLISPErr
	}
	add("M-LISP latency forecast (lower steps) vs measured at higher steps", ml, b.MLISP, detail)

	if b.WhatIfModel != "" {
		other, detail := r.whatIfOtherModel(b.WhatIfModel)
		add(fmt.Sprintf("plumbing: what-if latency beyond the history answered by %s (points by another model)", b.WhatIfModel), other, 0, detail)
	}

	// A passive estimate needs saturated windows that its latency rule can
	// see; when storcast reports the capacity line not identifiable from
	// this history, that is a finding about the history, reported with the
	// reason, not broken plumbing.
	if r.Passive == nil && strings.Contains(r.PassiveFitErr, "not identifiable") {
		out = append(out, Check{Name: "passive calibration vs measured max IOPS", Value: math.NaN(), Bound: b.PassiveVsMeas, Pass: true,
			Detail: "not scored: storcast found no capacity line in the history: " + r.PassiveFitErr})
		return out
	}
	v, n = nil, nil
	for _, m := range r.Mixes {
		if r.PassiveIOSize != 0 && m.BSBytes != 0 && m.BSBytes != r.PassiveIOSize {
			continue // the passive curve was read at another IO size
		}
		x := math.NaN()
		if m.HavePassive && m.Measured > 0 {
			x = relErr(m.Passive, m.Measured)
		}
		why := r.PassiveErr
		if r.PassiveFitErr != "" {
			why += "; fit: " + r.PassiveFitErr
		}
		v, n = append(v, x), append(n, fmt.Sprintf("%s (%s)", m.label(), why))
	}
	w, d = worst(v, n)
	add("passive calibration vs measured max IOPS", w, b.PassiveVsMeas, d)
	return out
}

// whatIfOtherModel counts the what-if points with a finite latency beyond
// the regression's range (not "whatif:...") that another latency model than
// want answered: NaN without a what-if curve.
func (r *Report) whatIfOtherModel(want string) (float64, string) {
	if r.WhatIf == nil {
		return math.NaN(), "no what-if curve: " + r.WhatIfErr
	}
	other, beyond := 0, 0
	by := map[string]int{}
	for _, p := range r.WhatIf.Points {
		if p.Model == "" || strings.HasPrefix(p.Model, "whatif:") {
			continue
		}
		beyond++
		by[p.Model]++
		if p.Model != want {
			other++
		}
	}
	if beyond == 0 {
		return math.NaN(), "no point beyond the history with a finite latency"
	}
	names := make([]string, 0, len(by))
	for m := range by {
		names = append(names, fmt.Sprintf("%s %d", m, by[m]))
	}
	sort.Strings(names)
	return float64(other), fmt.Sprintf("%d points beyond the history: %s", beyond, strings.Join(names, ", "))
}

// factorOff is how many times too high or too low pred is, minus one:
// 0 when equal, 1 when off by 2x in either direction.
func factorOff(pred, meas float64) float64 { return math.Max(pred/meas, meas/pred) - 1 }

// offByTen says whether pred is off from meas by more than ten times either
// way (or not positive): a relative error caps an under-prediction at 100%,
// under the gross bounds of the latency and Inside-Out checks, so a figure in
// the wrong unit (seconds read as milliseconds, a prediction of 0) passed them.
func offByTen(pred, meas float64) bool { return !(pred > 0) || factorOff(pred, meas) > 9 }

// heldOutChecks scores the frontier at the measured mixes: at the
// calibrated size, at the held-out sizes, and the band. Each is
// checked only when its bound is set.
func (r *Report) heldOutChecks() []Check {
	b := r.Bounds
	var out []Check
	type group struct {
		name  string
		bound float64
		cal   bool
	}
	for _, g := range []group{
		{"frontier vs measured max IOPS, mixes at a calibrated size", b.FrontierCal, true},
		{"frontier vs measured max IOPS, a size not calibrated and mixed sizes", b.FrontierHeld, false},
	} {
		if g.bound <= 0 {
			continue
		}
		w, at := math.NaN(), "no mix"
		for _, m := range r.Mixes {
			if m.Calibrated(r.Calibration) != g.cal {
				continue
			}
			x := math.NaN()
			if m.Side.Have && m.Measured > 0 {
				x = relErr(m.Side.Frontier.MaxTotalIOPS, m.Measured)
			}
			if math.IsNaN(x) {
				w, at = math.NaN(), m.label()+": "+m.Side.Err
				break
			}
			if math.IsNaN(w) || x > w {
				w, at = x, "worst at "+m.label()
			}
		}
		c := Check{Name: g.name, Value: w, Bound: g.bound, Pass: !math.IsNaN(w) && w <= g.bound, Detail: at}
		if math.IsNaN(w) {
			c.Detail = "missing: " + at
		}
		out = append(out, c)
	}
	if b.OutsideBand >= 0 {
		w, at, outside := math.NaN(), "no mix", 0
		for _, m := range r.Mixes {
			if !m.Side.Have || m.Measured <= 0 {
				w, at = math.NaN(), m.label()+": "+m.Side.Err
				break
			}
			x := OutsideBand(m.Side.Frontier, m.Measured)
			if x > 0 {
				outside++
			}
			if math.IsNaN(w) || x > w {
				w, at = x, "worst at "+m.label()
			}
		}
		c := Check{Name: "measured max IOPS outside the frontier's band (relative to the nearer end)", Value: w, Bound: b.OutsideBand,
			Pass: !math.IsNaN(w) && w <= b.OutsideBand, Detail: fmt.Sprintf("%s; %d of %d mixes outside", at, outside, len(r.Mixes))}
		if math.IsNaN(w) {
			c.Detail = "missing: " + at
		}
		out = append(out, c)
	}
	return out
}

// label names a mix in the checks: "50% reads", with the IO size when the
// plan has more than one.
func (m MixScore) label() string {
	if strings.Contains(m.BS, ",") {
		return "mixed sizes " + m.BS
	}
	if m.BS == "" || m.BS == planBS {
		return fmt.Sprintf("%d%% reads", m.ReadPct)
	}
	return fmt.Sprintf("%d%% reads %s", m.ReadPct, m.BS)
}

// measuredHeadroom is 1 - offered/measured max at the step's mix.
func measuredHeadroom(s StepScore) float64 { return 1 - s.Fio.IOPS()/s.MeasuredMax }

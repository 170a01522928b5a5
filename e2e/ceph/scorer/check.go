package main

import (
	"fmt"
	"math"
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

	v, n = nil, nil
	for _, m := range r.Mixes {
		if m.Measured > 0 {
			v = append(v, relErr(m.Model, m.Measured))
		} else {
			v = append(v, math.NaN())
		}
		n = append(n, m.label())
	}
	w, d = worst(v, n)
	add(fmt.Sprintf("conservation model (%s calibration) vs measured max IOPS", sys.Client), w, b.Conservation, d)

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

	v, n = nil, nil
	for _, m := range r.Mixes {
		x := math.NaN()
		if m.HaveLive && m.Measured > 0 {
			x = relErr(m.Live, m.Measured)
		}
		v, n = append(v, x), append(n, m.label())
	}
	w, d = worst(v, n)
	add("storcast_max_iops vs measured max IOPS", w, b.LiveMaxIOPS, d)

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
	for _, s := range r.Steps {
		if s.HighRamp && s.HaveForecast && s.HaveClusterLat {
			sum += relErr(s.ForecastLat.Mean, s.ClusterLatency)
			cnt++
		}
	}
	ml := math.NaN()
	if cnt > 0 {
		ml = sum / float64(cnt)
	}
	detail := fmt.Sprintf("%d higher steps", cnt)
	if r.MLISPErr != "" {
		detail += ": " + r.MLISPErr
	}
	add("M-LISP latency forecast (lower steps) vs measured at higher steps", ml, b.MLISP, detail)

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

// label names a mix in the checks: "50% reads", with the IO size when the
// plan has more than one.
func (m MixScore) label() string {
	if m.BS == "" || m.BS == planBS {
		return fmt.Sprintf("%d%% reads", m.ReadPct)
	}
	return fmt.Sprintf("%d%% reads %s", m.ReadPct, m.BS)
}

// measuredHeadroom is 1 - offered/measured max at the step's mix.
func measuredHeadroom(s StepScore) float64 { return 1 - s.Fio.IOPS()/s.MeasuredMax }

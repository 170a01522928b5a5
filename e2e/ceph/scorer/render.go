package main

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/storcast/storcast/exporter/apiv1"
	"github.com/storcast/storcast/forecaster/conservation"
)

func pct(x float64) string {
	if math.IsNaN(x) {
		return "n/a"
	}
	return fmt.Sprintf("%.1f%%", 100*x)
}

func num(x float64, ok bool) string {
	if !ok || math.IsNaN(x) {
		return "n/a"
	}
	return fmt.Sprintf("%.0f", x)
}

func ms(x float64, ok bool) string {
	if !ok || math.IsNaN(x) {
		return "n/a"
	}
	return fmt.Sprintf("%.2f", 1000*x)
}

func errOr(pred, meas float64, ok bool) string {
	if !ok || meas <= 0 {
		return "n/a"
	}
	return pct(relErr(pred, meas))
}

// Markdown renders the report.
func (r *Report) Markdown() string {
	var b strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	sys := r.Sys
	w("# Storcast on a real %s cluster: scored run\n\n", sys.Name)
	w("%s. %s\n", r.When.Format("2006-01-02 15:04 UTC"), sys.Description)
	if r.Phases != "" {
		w("Phase durations (s): %s. ", r.Phases)
	}
	if r.PeakOSDRSSMB > 0 {
		w("Peak RSS of %s together: %.0f MB.", sys.Daemons, r.PeakOSDRSSMB)
	}
	w("\n\n## Calibration (%s, saturated, 100%% read / 100%% write)\n\n", sys.Client)
	w("Figures are the mean of the runs (listed) when the point was run more than once.\n\n")
	w("| IO size | read IOPS | write IOPS | f_rw |\n|---|---:|---:|---:|\n")
	pts := append(r.Calibration.Points[:0:0], r.Calibration.Points...)
	sort.Slice(pts, func(i, j int) bool { return pts[i].IOSizeBytes < pts[j].IOSizeBytes })
	for _, p := range pts {
		w("| %.0f KiB | %.0f%s | %.0f%s | %.2f |\n", p.IOSizeBytes/1024, p.ReadIOPS, runsText(p.ReadRuns), p.WriteIOPS, runsText(p.WriteRuns), p.FRW())
	}
	if len(r.Calibration.Mixed) > 0 {
		w("\nMixed points (saturated, total IOPS) and the interference γ fitted from them, with γ's bounds over the runs ")
		w("(γ(mixed max, pure mins) .. γ(mixed min, pure maxes)); γ = 0 is the paper's law, γ > 0 puts mixes inside its line. ")
		w("The model uses the estimate; the test says whether it lies beyond the 95%% t quantile of its standard error from the runs (kept) or not (not significant), and only an estimate the frontier cannot take that is not significant is replaced by γ = 0 (zero):\n\n")
		w("| IO size | reads | IOPS | γ used | estimate ± s.e. | test | γ bounds |\n|---|---:|---:|---:|---:|---|---:|\n")
		gam := map[float64]conservation.GammaFit{}
		if r.Model != nil {
			for _, g := range r.Model.Interference() {
				gam[g.IOSizeBytes] = g
			}
		}
		for _, p := range r.Calibration.Mixed {
			if p.WriteIOSizeBytes > 0 && p.WriteIOSizeBytes != p.IOSizeBytes {
				continue
			}
			g := gam[p.IOSizeBytes]
			w("| %.0f KiB | %.0f%% | %.0f%s | %.3f | %.3f ± %.3f | %s | %.3f .. %.3f |\n", p.IOSizeBytes/1024, 100*p.ReadRatio, p.IOPS, runsText(p.Runs), g.Gamma, g.Estimate, g.StdErr, g.Test, g.Lower, g.Upper)
		}
		if len(gam) > 0 {
			for _, g := range gam {
				w("\nγ's test is one for all sizes: their common γ %.3f ± %.3f (%.0f dof, the runs' relative noise pooled over every figure).\n", g.AllSizes, g.AllSizesStdErr, g.DoF)
				break
			}
		}
		if r.Model != nil {
			if e, ok := r.Model.SizeInterference(); ok {
				w("\nMixed-size points (reads and writes of different sizes at once) and the interference between sizes η fitted from them (on top of γ at the sizes' geometric mean; tested like γ):\n\n")
				w("| sizes R/W | reads | IOPS | η used | estimate ± s.e. | test |\n|---|---:|---:|---:|---:|---|\n")
				for _, p := range r.Calibration.Mixed {
					if p.WriteIOSizeBytes > 0 && p.WriteIOSizeBytes != p.IOSizeBytes {
						w("| %s/%s | %.0f%% | %.0f%s | %.3f | %.3f ± %.3f | %s |\n", kib(p.IOSizeBytes), kib(p.WriteIOSizeBytes), 100*p.ReadRatio, p.IOPS, runsText(p.Runs), e.Eta, e.Estimate, e.StdErr, e.Test)
					}
				}
			}
		}
	}

	if len(r.CalibrationMixes) > 0 {
		w("\nThe calibration's own mixed runs, measured right after the points above, against the paper's conservation law through those points (γ = 0; the frontier passes through these runs' mean):\n\n")
		w("| run | reads | IO size | measured IOPS | model | error |\n|---|---:|---:|---:|---:|---:|\n")
		for _, c := range r.CalibrationMixes {
			w("| %s | %d%% | %.0f KiB | %.0f | %.0f | %s |\n", c.Name, c.ReadPct, c.IOSizeBytes/1024, c.Measured, c.Model, errOr(c.Model, c.Measured, true))
		}
	}

	w("\n## Load steps\n\n")
	w("CPU: cores busy on the whole machine, of which the system under test (%s daemons, Prometheus, storcast, %s), in brackets the observers' share (Prometheus and the storcast instances, which a real deployment runs off the storage hosts; here they take cores the saturated cluster does not get); ", sys.Name, sys.Client)
	w("\"other\" is the rest of the machine (the noisy neighbour), flagged (!) above %.1f cores; steal flagged above %s; ", r.Bounds.MaxOtherCores, pct(r.Bounds.MaxSteal))
	w("a rate limit flagged (!) when the step reached less than %.0f%% of it: the cluster saturated below the planned load (the host slower then), so its latency is a saturated one.\n\n", 100*shortOfRate)
	w("| step | reads | size | rate limit (IOPS) | %[1]s IOPS | %[2]s IOPS | %[1]s latency ms | %[2]s op latency ms | CPU busy / ours (observers) / other | steal | RSS MB |\n", sys.Client, sys.Name)
	w("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, s := range r.Steps {
		limit := "saturated"
		if !s.Plan.Saturated() {
			limit = fmt.Sprintf("%d (%.0f%%)", s.RateRead+s.RateWrite, 100*s.Plan.Fraction)
			if share, short := s.ReachedRate(); short {
				limit += fmt.Sprintf(", reached %.0f%% (!)", 100*share)
			}
		}
		steal := pct(s.Steal)
		if s.Steal > r.Bounds.MaxSteal {
			steal += " (!)"
		}
		other := fmt.Sprintf("%.2f", s.OtherCores())
		if s.OtherCores() > r.Bounds.MaxOtherCores {
			other += " (!)"
		}
		w("| %s | %d%% | %s | %s | %.0f | %.0f | %.2f | %s | %.2f / %.2f (%.2f) / %s | %s | %.0f |\n", s.Name, s.ReadPct, s.Plan.BS, limit, s.Fio.IOPS(), s.ClusterIOPS,
			1000*s.Fio.Latency, ms(s.ClusterLatency, s.HaveClusterLat), s.BusyCores, s.OursCores, s.ObserverCores, other, steal, s.OSDRSSMB)
	}

	w("\n## Conservation: max IOPS at each mix\n\n")
	w("Measured = the highest IOPS %[1]s achieved at the mix: the saturated step, or (named) a rate-limited step that got more while the neighbour left more CPU. Model = the frontier storcast serves (the paper's conservation law with its interference terms) on the %[1]s calibration, at the mix the step measured (its read share and each direction's IO size). ", sys.Client)
	w("Curve = storcast's `/api/v1/capacity_curve` at the planned read share and (mean) IO size. Live = `storcast_max_iops` at the end of the saturated step (mix and size detected from %s's counters).\n\n", sys.Name)
	w("| reads | size | measured | model | error | storcast curve | error | storcast_max_iops | error |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, m := range r.Mixes {
		meas := fmt.Sprintf("%.0f", m.Measured)
		if !strings.HasSuffix(m.MeasuredFrom, "-sat") {
			meas += " (" + m.MeasuredFrom + ")"
		}
		w("| %d%% | %s | %s | %.0f | %s | %s | %s | %s | %s |\n", m.ReadPct, sizeLabel(m), meas, m.predicted(), errOr(m.predicted(), m.Measured, true),
			num(m.Curve, m.HaveCurve), errOr(m.Curve, m.Measured, m.HaveCurve), num(m.Live, m.HaveLive), errOr(m.Live, m.Measured, m.HaveLive))
	}

	within, small := 0, 0
	for _, m := range r.Mixes {
		if m.BSBytes <= 32768 && m.Measured > 0 {
			small++
			if relErr(m.predicted(), m.Measured) < 0.10 {
				within++
			}
		}
	}
	w("\nThe paper's published accuracy for its conservation model is <10%% for IO of at most 32 KiB: here the frontier is within 10%% at %d of %d such mixes.\n", within, small)

	r.renderHeldOut(w)

	w("\n## Headroom at the rate-limited steps\n\n")
	w("Measured headroom = 1 - offered / measured max at the same mix.\n\n")
	w("| step | offered IOPS | measured max | measured headroom | storcast_headroom_ratio | abs error |\n|---|---:|---:|---:|---:|---:|\n")
	for _, s := range r.Steps {
		if s.Plan.Saturated() {
			continue
		}
		mh := measuredHeadroom(s)
		pred, e := "n/a", "n/a"
		if s.HaveHeadroom {
			pred, e = fmt.Sprintf("%.3f", s.LiveHeadroom), fmt.Sprintf("%.3f", math.Abs(s.LiveHeadroom-mh))
		}
		w("| %s | %.0f | %.0f | %.3f | %s | %s |\n", s.Name, s.Fio.IOPS(), s.MeasuredMax, mh, pred, e)
	}

	w("\n## Inside-Out: IOPS implied by host metrics\n\n")
	w("`storcast_predicted_iops` vs %s's IOPS (1m rate, `%s`) at each step's end. ", sys.Name, sys.Queries.ClusterIOPS1m)
	w("Over the whole load (every 5 s, windows above 10%% of the peak): MAPE %s over %d windows (accuracy %s).\n\n",
		pct(r.InsideOutMAPE), r.InsideOutN, pct(math.Max(1-r.InsideOutMAPE, 0)))
	w("| step | %s IOPS (1m) | storcast_predicted_iops | error |\n|---|---:|---:|---:|\n", sys.Name)
	for _, s := range r.Steps {
		w("| %s | %.0f | %s | %s |\n", s.Name, s.ClusterIOPS1m, num(s.PredictedIOPS, s.HavePredicted), errOr(s.PredictedIOPS, s.ClusterIOPS1m, s.HavePredicted))
	}

	w("\n## M-LISP: latency beyond the highest load seen\n\n")
	if r.MLISP == nil {
		w("No forecast: %s\n", r.MLISPErr)
	} else {
		w("Trained on the ramp's lower steps only (a storcast whose lookback ended before the higher steps); ")
		w("read at the op rate %[1]s counted over each higher step (the axis storcast sees; not %[2]s's IOPS), against the mean op latency %[1]s measured there. ", sys.Name, sys.Client)
		w("SLO %.0f ms (%s latency); knee (upper band crosses the SLO) %s IOPS, (mean crosses) %s IOPS; ", 1000*r.MLISP.SLOSeconds, r.MLISP.Latency, bandNum(r.MLISP.KneeIOPS.Upper), bandNum(r.MLISP.KneeIOPS.Mean))
		if r.HaveMeasuredKnee {
			w("measured knee (the ramp's %s latency crosses the SLO, linear between steps) %.0f IOPS", sys.Name, r.MeasuredKnee)
			if k := r.MLISP.KneeIOPS.Mean; k != nil {
				w(", forecast (mean) error %s", pct(relErr(*k, r.MeasuredKnee)))
			}
			w(".\n\n")
		} else {
			w("the measured latency never reached the SLO along the ramp (no measured knee).\n\n")
		}
		w("| step | IOPS | measured ms | forecast ms [95%% band] | error | covered |\n|---|---:|---:|---:|---:|:---:|\n")
		for _, s := range r.Steps {
			if !s.HighRamp {
				continue
			}
			if !s.HaveForecast {
				w("| %s | %.0f | %s | n/a | n/a | n/a |\n", s.latencyLabel(), s.ModelIOPS(), ms(s.ClusterLatency, s.HaveClusterLat))
				continue
			}
			cov := "no"
			if s.HaveClusterLat && s.ClusterLatency >= s.ForecastLat.Lower && s.ClusterLatency <= orInf(s.ForecastLat.Upper) {
				cov = "yes"
			}
			beyond := ""
			if s.ForecastBeyond {
				beyond = " (beyond curve)"
			}
			w("| %s | %.0f%s | %s | %.2f [%.2f, %.2f] | %s | %s |\n", s.latencyLabel(), s.ModelIOPS(), beyond, ms(s.ClusterLatency, s.HaveClusterLat),
				1000*s.ForecastLat.Mean, 1000*s.ForecastLat.Lower, 1000*orInf(s.ForecastLat.Upper), errOr(s.ForecastLat.Mean, s.ClusterLatency, s.HaveClusterLat), cov)
		}
		cov, n, within := r.latencyCoverage(0.2)
		w("\nCovered by the band at %d of %d higher steps; mean forecast within 20%% at %d. ", cov, n, within)
		if k, which, sat, ok := r.kneeVsSaturated(r.MLISP); ok {
			w("Earliest forecast knee (the %s crosses the SLO) %.0f IOPS vs the measured saturated IOPS of the ramp's mix %.0f: %s.\n", which, k, sat, map[bool]string{true: "below", false: "not below"}[k < sat])
		} else {
			w("No forecast knee, or no measured saturated step of the ramp's mix to compare it with.\n")
		}
	}

	r.renderWhatIf(w)

	w("\n## Passive calibration (history only) vs %s\n\n", sys.Client)
	if r.Passive == nil {
		w("No passive curve: %s\n", r.PassiveErr)
		if r.PassiveFitErr != "" {
			w("\nThe passive storcast's conservation fit reported: %s\n", r.PassiveFitErr)
		}
	} else {
		w("Read at %.0f KiB; mixes of other sizes are not compared.\n\n", r.PassiveIOSize/1024)
		w("| reads | measured | %[1]s-calibrated model | passive | passive error | passive vs %[1]s |\n|---:|---:|---:|---:|---:|---:|\n", sys.Client)
		for _, m := range r.Mixes {
			if m.BSBytes != 0 && r.PassiveIOSize != 0 && m.BSBytes != r.PassiveIOSize {
				continue
			}
			w("| %d%% | %.0f | %.0f | %s | %s | %s |\n", m.ReadPct, m.Measured, m.Model, num(m.Passive, m.HavePassive),
				errOr(m.Passive, m.Measured, m.HavePassive), errOr(m.Passive, m.Model, m.HavePassive))
		}
	}

	w("\n## Checks\n\n| check | value | bound | result |\n|---|---:|---:|---|\n")
	for _, c := range r.Checks {
		res := "pass"
		if !c.Pass {
			res = "**FAIL**"
		}
		w("| %s | %s | %s | %s (%s) |\n", c.Name, fmtCheck(c), fmtBound(c), res, c.Detail)
	}
	return b.String()
}

// runsText lists a figure's runs: " (runs 4100, 4300)", or "" without runs.
func runsText(runs []float64) string {
	if len(runs) == 0 {
		return ""
	}
	var parts []string
	for _, x := range runs {
		parts = append(parts, fmt.Sprintf("%.0f", x))
	}
	return " (runs " + strings.Join(parts, ", ") + ")"
}

// latencyLabel names a step in the latency tables, flagging one that fell
// short of its rate limit: its measured latency is a saturated one.
func (s StepScore) latencyLabel() string {
	if share, short := s.ReachedRate(); short {
		return fmt.Sprintf("%s (reached %.0f%% of its rate: saturated)", s.Name, 100*share)
	}
	return s.Name
}

// band prints a max with its band.
func band(res conservation.Result) string {
	return fmt.Sprintf("%.0f [%.0f, %.0f]", res.MaxTotalIOPS, res.MaxTotalIOPSLower, res.MaxTotalIOPSUpper)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// renderHeldOut writes the side-by-side table of the paper's model and the
// frontier at each measured saturated mix, and storcast's served max
// against the scorer's models (plumbing).
func (r *Report) renderHeldOut(w func(string, ...any)) {
	sys := r.Sys
	w("\n## Held-out points: the paper's model and the frontier\n\n")
	w("Both from the same %[1]s calibration through `forecaster/conservation`, at the mix %[1]s measured in the step the measured max comes from ", sys.Client)
	w("(its read and write IOPS at their sizes): the paper = the calibration without its mixed points (γ = 0, Ra & Lee's law); ")
	w("the frontier = with them (`NewModel`, what storcast serves). [band] = where one more saturated run would land, 95%%: the prediction interval by the delta method over the figures, with the runs' pooled noise, hulled with the models of every figure at its runs' min and max (`MaxTotalIOPSLower/Upper`). ")
	w("U = the frontier's utilization at the measured saturated load: 1 on the frontier, below 1 where the cluster saturated before the model's max. ")
	w("A mix at a size that was not calibrated is interpolated (%s).\n\n", r.interpolation())
	w("| mix | reads (measured) | sizes R/W | measured | paper [band] | error | in band | frontier [band] | error | in band | U | steal |\n")
	w("|---|---:|---:|---:|---:|---:|:---:|---:|---:|:---:|---:|---:|\n")
	for _, m := range r.Mixes {
		sb := m.Side
		if !sb.Have {
			w("| %s | n/a | n/a | %.0f | n/a | n/a | n/a | n/a | n/a | n/a | n/a | %s |\n", m.label(), m.Measured, pct(m.Steal))
			continue
		}
		kind := ""
		switch {
		case m.SizePairCalibrated(r.Calibration):
			kind = " (size pair calibrated, this mix held out)"
		case !m.Calibrated(r.Calibration):
			kind = " (held out)"
		}
		meas := fmt.Sprintf("%.0f", m.Measured)
		if !strings.HasSuffix(m.MeasuredFrom, "-sat") {
			meas += " (" + m.MeasuredFrom + ")"
		}
		w("| %s%s | %.1f%% | %s/%s | %s | %s | %s | %s | %s | %s | %s | %.3f | %s |\n", m.label(), kind, 100*sb.ReadIOPS/(sb.ReadIOPS+sb.WriteIOPS),
			kib(sb.ReadBytes), kib(sb.WriteBytes), meas,
			band(sb.Paper), pct(relErr(sb.Paper.MaxTotalIOPS, m.Measured)), yesNo(InBand(sb.Paper, m.Measured)),
			band(sb.Frontier), pct(relErr(sb.Frontier.MaxTotalIOPS, m.Measured)), yesNo(InBand(sb.Frontier, m.Measured)),
			sb.Frontier.Utilization, pct(m.Steal))
	}
	r.renderAnalysis(w)
	var served []StepScore
	for _, s := range r.Steps {
		if s.Served.Have {
			served = append(served, s)
		}
	}
	if len(served) == 0 {
		return
	}
	w("\nPlumbing: `storcast_max_iops` (one scrape at each saturated step's end, by op) against the scorer's two models at the mix storcast saw ")
	w("(read share = its read max / total; size = `storcast_observed_io_size_bytes` of the same scrape, at mixed sizes %s's 1m mean read and write sizes); \"serves\" = the nearer model.\n\n", sys.Name)
	w("| step | storcast read / write / total | sizes R/W | scorer frontier | scorer paper | serves | error |\n|---|---:|---:|---:|---:|---|---:|\n")
	for _, s := range served {
		c := s.Served
		w("| %s | %.0f / %.0f / %.0f | %.0f/%.0f B | %.0f | %.0f | %s | %s |\n", s.Name, c.Read, c.Write, c.Total, c.ReadBytes, c.WriteBytes, c.Frontier, c.Paper, c.Serves(), pct(c.ErrServed()))
	}
}

// renderAnalysis says which form this run's data preferred, γ per size
// with its spread, and what the mixed-size step says about sizes
// interfering.
func (r *Report) renderAnalysis(w func(string, ...any)) {
	var nPaper, nFrontier, n int
	var sumPaper, sumFrontier float64
	for _, m := range r.Mixes {
		if !m.Side.Have || m.Measured <= 0 {
			continue
		}
		ep, ef := relErr(m.Side.Paper.MaxTotalIOPS, m.Measured), relErr(m.Side.Frontier.MaxTotalIOPS, m.Measured)
		sumPaper, sumFrontier = sumPaper+ep, sumFrontier+ef
		n++
		if ef < ep {
			nFrontier++
		} else {
			nPaper++
		}
	}
	if n == 0 {
		return
	}
	w("\n**This run's data.** The frontier came closer at %d of %d mixes, the paper at %d; mean error: paper %s, frontier %s. ",
		nFrontier, n, nPaper, pct(sumPaper/float64(n)), pct(sumFrontier/float64(n)))
	if r.Model != nil {
		gs := r.Model.Interference()
		if len(gs) > 0 {
			var parts []string
			for _, g := range gs {
				parts = append(parts, fmt.Sprintf("%s γ = %.3f (estimate %.3f ± %.3f, %s; runs %.3f .. %.3f)", kib(g.IOSizeBytes), g.Gamma, g.Estimate, g.StdErr, g.Test, g.Lower, g.Upper))
			}
			w("Interference from the calibration's mixed points: %s", strings.Join(parts, ", "))
			if sc, err := r.Model.At(cephUncalBSBytes); err == nil {
				w("; at 16k (interpolated in log size) γ = %.3f", sc.Gamma)
			}
			w(". ")
		} else {
			w("The calibration has no mixed points: the frontier is the paper. ")
		}
	}
	for _, m := range r.Mixes {
		if !m.Side.Have || m.Side.ReadBytes == m.Side.WriteBytes || m.Measured <= 0 {
			continue
		}
		f := m.Side.Frontier
		w("At mixed sizes (%s reads with %s writes, %.0f%% reads) the frontier's U at the measured load is %.3f, the paper's %.3f (1 = on the model's line). ",
			kib(m.Side.ReadBytes), kib(m.Side.WriteBytes), 100*m.Side.ReadIOPS/(m.Side.ReadIOPS+m.Side.WriteIOPS), f.Utilization, m.Side.Paper.Utilization)
		if r.Model != nil {
			if e, ok := r.Model.SizeInterference(); ok {
				w("The frontier counts the interference between sizes η = %.3f (estimate %.3f ± %.3f, %s). ", e.Eta, e.Estimate, e.StdErr, e.Test)
			}
		}
		switch {
		case m.Measured < f.MaxTotalIOPSLower:
			w("The measured max lies below the frontier's band: together the sizes cost more than the model counts.")
		case m.Measured > f.MaxTotalIOPSUpper:
			w("The measured max lies above the frontier's band: no sign that sizes interfere; the read/write term, fitted at single sizes, takes more than this mix lost.")
		default:
			w("The measured max lies inside the frontier's band: no sign of interference between sizes beyond the read/write term.")
		}
	}
	for _, p := range r.Repeats() {
		w("\n\n**The measurement's reproducibility** (no model's error): the %s step repeats the calibration's %s %.0f%% point, which the frontier passes through; ",
			p.Mix.label(), kib(p.Point.IOSizeBytes), 100*p.Point.ReadRatio)
		w("the calibration measured %.0f%s, this step %.0f: %+.1f%%. It is how far the host moved between the calibration and this step; the other steps, minutes later, may have moved further.", p.Point.IOPS, runsText(p.Point.Runs), p.Mix.Measured, 100*p.Err())
	}
	w("\n")
}

// latencyCoverage counts the higher ramp steps with a forecast and a
// measured latency, those whose measured latency lies inside the band, and
// those whose mean forecast lies within tol (relative) of it.
func (r *Report) latencyCoverage(tol float64) (covered, n, within int) {
	for _, s := range r.Steps {
		if !s.HighRamp || !s.HaveForecast || !s.HaveClusterLat {
			continue
		}
		n++
		if s.ClusterLatency >= s.ForecastLat.Lower && s.ClusterLatency <= orInf(s.ForecastLat.Upper) {
			covered++
		}
		if relErr(s.ForecastLat.Mean, s.ClusterLatency) <= tol {
			within++
		}
	}
	return covered, n, within
}

// kneeVsSaturated returns the earliest knee of the forecast c (where the
// upper band, else the mean, crosses the SLO), which bound it is, and the
// measured saturated IOPS of the ramp's mix.
func (r *Report) kneeVsSaturated(c *apiv1.LatencyCurve) (knee float64, which string, sat float64, ok bool) {
	if c == nil {
		return 0, "", 0, false
	}
	switch {
	case c.KneeIOPS.Upper != nil:
		knee, which = *c.KneeIOPS.Upper, "upper band"
	case c.KneeIOPS.Mean != nil:
		knee, which = *c.KneeIOPS.Mean, "mean"
	default:
		return 0, "", 0, false
	}
	for _, s := range r.Steps {
		if s.Plan.Ramp && s.Plan.Saturated() {
			return knee, which, s.ModelIOPS(), true
		}
	}
	return 0, "", 0, false
}

func kib(b float64) string { return fmt.Sprintf("%.0fk", b/1024) }

// interpolation names the form the frontier used across sizes.
func (r *Report) interpolation() string {
	if r.Model == nil {
		return "n/a"
	}
	return r.Model.SizeForm().Used
}

// sizeLabel is the mix's IO size: "4k", or for mixed sizes the sizes and the mean.
func sizeLabel(m MixScore) string {
	if strings.Contains(m.BS, ",") {
		return fmt.Sprintf("%s (mean %.0f KiB)", m.BS, m.BSBytes/1024)
	}
	return m.BS
}

func bandNum(p *float64) string {
	if p == nil {
		return "none"
	}
	return fmt.Sprintf("%.0f", *p)
}

func fmtCheck(c Check) string {
	if strings.Contains(c.Name, "(abs)") {
		if math.IsNaN(c.Value) {
			return "n/a"
		}
		return fmt.Sprintf("%.3f", c.Value)
	}
	return pct(c.Value)
}

func fmtBound(c Check) string {
	if strings.Contains(c.Name, "(abs)") {
		return fmt.Sprintf("%.3f", c.Bound)
	}
	return pct(c.Bound)
}

// Summary is the machine-readable form of the report (results/latest.json).
func (r *Report) Summary() map[string]any {
	checks := []map[string]any{}
	for _, c := range r.Checks {
		v := any(c.Value)
		if math.IsNaN(c.Value) {
			v = nil
		}
		checks = append(checks, map[string]any{"name": c.Name, "value": v, "bound": c.Bound, "pass": c.Pass, "detail": c.Detail})
	}
	steps := []map[string]any{}
	for _, s := range r.Steps {
		steps = append(steps, map[string]any{"name": s.Name, "readPct": s.ReadPct, "bs": s.Plan.BS, "clientIops": s.Fio.IOPS(), "clusterIops": s.ClusterIOPS,
			"clientLatencySeconds": s.Fio.Latency, "clusterLatencySeconds": s.ClusterLatency, "steal": s.Steal, "busyCores": s.BusyCores, "oursCores": s.OursCores, "observerCores": s.ObserverCores, "osdRssMB": s.OSDRSSMB,
			"storcastMaxIops": nanNil(s.LiveMaxIOPS, s.HaveMax), "storcastHeadroom": nanNil(s.LiveHeadroom, s.HaveHeadroom),
			"storcastPredictedIops": nanNil(s.PredictedIOPS, s.HavePredicted), "served": s.Served})
		if s.HaveWhatIf {
			steps[len(steps)-1]["whatIf"] = map[string]any{"latencySeconds": nanNil(s.WhatIf.Mean, !s.WhatIfPast), "lower": nanNil(s.WhatIf.Lower, !s.WhatIfPast),
				"upper": nanNil(orInf(s.WhatIf.Upper), !s.WhatIfPast && !s.WhatIf.MaySaturate()), "maySaturate": !s.WhatIfPast && s.WhatIf.MaySaturate(), "model": s.WhatIf.Model, "saturated": s.WhatIfPast, "utilizationRatio": s.WhatIf.UtilizationRatio}
		}
	}
	mixes := []map[string]any{}
	for _, m := range r.Mixes {
		mix := map[string]any{"readPct": m.ReadPct, "bs": m.BS, "ioSizeBytes": m.BSBytes, "measured": m.Measured, "model": m.Model,
			"curve": nanNil(m.Curve, m.HaveCurve), "live": nanNil(m.Live, m.HaveLive), "passive": nanNil(m.Passive, m.HavePassive)}
		if m.Side.Have {
			mix["sideBySide"] = map[string]any{"readIops": m.Side.ReadIOPS, "writeIops": m.Side.WriteIOPS, "readBytes": m.Side.ReadBytes, "writeBytes": m.Side.WriteBytes,
				"calibratedSize": m.Calibrated(r.Calibration), "paper": m.Side.Paper, "frontier": m.Side.Frontier,
				"paperInBand": InBand(m.Side.Paper, m.Measured), "frontierInBand": InBand(m.Side.Frontier, m.Measured)}
		}
		mixes = append(mixes, mix)
	}
	var gammas []conservation.GammaFit
	var eta any
	if r.Model != nil {
		gammas = r.Model.Interference()
		if e, ok := r.Model.SizeInterference(); ok {
			eta = e
		}
	}
	repeats := []map[string]any{}
	for _, p := range r.Repeats() {
		repeats = append(repeats, map[string]any{"readPct": p.Mix.ReadPct, "bs": p.Mix.BS, "measured": p.Mix.Measured, "calibration": p.Point.IOPS, "calibrationRuns": p.Point.Runs, "error": p.Err()})
	}
	return map[string]any{"system": r.Sys.Kind, "repeats": repeats, "interference": gammas, "sizeInterference": eta, "when": r.When, "phases": r.Phases, "mixes": mixes, "measuredKnee": nanNil(r.MeasuredKnee, r.HaveMeasuredKnee), "peakOsdRssMB": r.PeakOSDRSSMB, "calibration": r.Calibration, "steps": steps, "checks": checks}
}

// renderWhatIf is the what-if latency of the storcast trained on the lower
// steps, at the higher steps, beside M-LISP's forecast there.
func (r *Report) renderWhatIf(w func(string, ...any)) {
	sys := r.Sys
	w("\n## What-if latency beyond the highest load seen\n\n")
	if r.WhatIf == nil {
		w("No what-if curve: %s\n", r.WhatIfErr)
		return
	}
	w("A storcast over the same lookback as M-LISP's (the ramp's lower steps), calibrated like the main one, asked `POST /api/v1/whatif` at today's mix for today's IOPS (%.0f) times 1..3; ", r.WhatIf.IOPS0)
	w("read at the op rate %s counted over each higher step (the axis storcast sees). The model column says what answered: `whatif:<learner>` (the cross-validated regression, ", sys.Name)
	w("only within the utilization, read ratio and sizes its history covered), `queueing` or `mlisp` (the capacity-anchored latency model beyond), `saturated` where the what-if reports no finite latency (at or past capacity); `may saturate` where the band has no upper bound (the load at or past the lower bound of capacity), and a step inside such a band is covered `only unbounded`.\n\n")
	w("| step | IOPS | measured ms | what-if ms [band] | model | error | covered | M-LISP error |\n|---|---:|---:|---:|---|---:|:---:|---:|\n")
	var n, within, finite, unbounded int
	for _, s := range r.Steps {
		if !s.HighRamp {
			continue
		}
		ml := "n/a"
		if s.HaveForecast {
			ml = errOr(s.ForecastLat.Mean, s.ClusterLatency, s.HaveClusterLat)
		}
		// Scored where the what-if has a finite latency and Ceph measured one.
		scored := s.HaveWhatIf && !s.WhatIfPast && s.HaveClusterLat
		cov := "no"
		if scored && s.ClusterLatency >= s.WhatIf.Lower && s.ClusterLatency <= orInf(s.WhatIf.Upper) {
			if s.WhatIf.MaySaturate() {
				cov = "only unbounded"
				unbounded++
			} else {
				cov = "yes"
				finite++
			}
		}
		if scored {
			n++
			if relErr(s.WhatIf.Mean, s.ClusterLatency) <= 0.2 {
				within++
			}
		}
		switch {
		case !s.HaveWhatIf:
			w("| %s | %.0f | %s | n/a | n/a | n/a | n/a | %s |\n", s.latencyLabel(), s.ModelIOPS(), ms(s.ClusterLatency, s.HaveClusterLat), ml)
		case s.WhatIfPast:
			w("| %s | %.0f | %s | saturated (U %.2f) | saturated | n/a | n/a | %s |\n", s.latencyLabel(), s.ModelIOPS(), ms(s.ClusterLatency, s.HaveClusterLat), s.WhatIf.UtilizationRatio, ml)
		default:
			up := "may saturate"
			if !s.WhatIf.MaySaturate() {
				up = fmt.Sprintf("%.2f", 1000*orInf(s.WhatIf.Upper))
			}
			w("| %s | %.0f | %s | %.2f [%.2f, %s] | %s | %s | %s | %s |\n", s.latencyLabel(), s.ModelIOPS(), ms(s.ClusterLatency, s.HaveClusterLat),
				1000*s.WhatIf.Mean, 1000*s.WhatIf.Lower, up, s.WhatIf.Model, errOr(s.WhatIf.Mean, s.ClusterLatency, s.HaveClusterLat), cov, ml)
		}
	}
	w("\nWith a finite latency at %d higher steps: within 20%% at %d, covered by a finite band at %d, only by a band without an upper bound at %d.\n", n, within, finite, unbounded)
	r.renderServedKnee(w)
}

// renderServedKnee reports the knee of the what-if storcast's served latency
// model against the measured saturated IOPS of the ramp's mix: M-LISP's knee
// (above) may lie anywhere, the capacity-anchored model's lies below its
// max IOPS by construction, so it is below the measured saturation unless
// the capacity model over-promises there.
func (r *Report) renderServedKnee(w func(string, ...any)) {
	if r.Served == nil {
		if r.ServedErr != "" {
			w("\nThat storcast's served latency curve: %s\n", r.ServedErr)
		}
		return
	}
	w("\nThat storcast's served latency curve (`GET /api/v1/latency_curve`, SLO %.0f ms): knee (upper band crosses the SLO) %s IOPS, (mean crosses) %s IOPS. ",
		1000*r.Served.SLOSeconds, bandNum(r.Served.KneeIOPS.Upper), bandNum(r.Served.KneeIOPS.Mean))
	if k, which, sat, ok := r.kneeVsSaturated(r.Served); ok {
		w("Earliest knee (the %s) %.0f IOPS vs the measured saturated IOPS of the ramp's mix %.0f: %s (%s of it).\n", which, k, sat,
			map[bool]string{true: "below", false: "not below"}[k < sat], pct(k/sat))
	} else {
		w("No knee, or no measured saturated step of the ramp's mix to compare it with.\n")
	}
}

func nanNil(x float64, ok bool) any {
	if !ok || math.IsNaN(x) {
		return nil
	}
	return x
}

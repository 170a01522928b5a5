package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/storcast/storcast/exporter/apiv1"
	"github.com/storcast/storcast/forecaster/conservation"
)

const clusterName = "e2e"

// Bounds are the pass bounds of the suite; see the README for how each was set.
type Bounds struct {
	CurveVsModel    float64 // storcast's capacity curve vs the conservation model of the same fio file (plumbing)
	CephVsFio       float64 // Ceph's op rate vs fio's IOPS at the saturated steps (plumbing)
	Conservation    float64 // conservation model (fio calibration) vs measured saturated IOPS, per mix
	LiveMaxIOPS     float64 // storcast_max_iops at the end of a saturated step vs measured
	HeadroomAbs     float64 // storcast_headroom_ratio vs measured headroom, ratio points
	InsideOutMAPE   float64 // storcast_predicted_iops vs Ceph's IOPS over the load
	MLISP           float64 // M-LISP mean forecast vs measured latency at the higher steps (mean error)
	PassiveVsMeas   float64 // passive calibration's curve vs measured saturated IOPS, per mix
	MaxSteal        float64 // steps with more steal than this are flagged (not failed)
	MaxOtherCores   float64 // steps where other processes used more cores than this are flagged
	RequireStorcast bool
}

// Queries are the PromQL expressions the scorer evaluates; %s is the window.
type Queries struct {
	MaxIOPS, Headroom, PredictedIOPS string // storcast's series
	CephIOPS1m                       string // Ceph's IOPS the way storcast sees it (1m rate)
	CephOps, CephLatSum, CephLatCnt  string // counters, for increase() across a step
}

var defaultQueries = Queries{
	MaxIOPS:       `max(avg_over_time(storcast_max_iops{cluster="e2e",op="total"}[15s]))`,
	Headroom:      `max(avg_over_time(storcast_headroom_ratio{cluster="e2e"}[15s]))`,
	PredictedIOPS: `sum(avg_over_time(storcast_predicted_iops{cluster="e2e"}[15s]))`,
	CephIOPS1m:    `sum(rate(ceph_osd_op_r{cluster="e2e"}[1m])) + sum(rate(ceph_osd_op_w{cluster="e2e"}[1m]))`,
	CephOps:       `sum(increase(ceph_osd_op_r{cluster="e2e"}[%[1]s])) + sum(increase(ceph_osd_op_w{cluster="e2e"}[%[1]s]))`,
	CephLatSum:    `sum(increase(ceph_osd_op_latency_sum{cluster="e2e"}[%[1]s]))`,
	CephLatCnt:    `sum(increase(ceph_osd_op_latency_count{cluster="e2e"}[%[1]s]))`,
}

// StepScore is everything known about one load step.
type StepScore struct {
	StepRecord
	Plan           PlanStep
	Fio            FioResult
	CephIOPS       float64 // increase of op_r+op_w across the step / its length
	CephLatency    float64 // mean OSD op latency across the step, seconds
	CephIOPS1m     float64 // at the step's end, same window as storcast
	LiveMaxIOPS    float64
	LiveHeadroom   float64
	PredictedIOPS  float64
	HaveMax        bool
	HaveHeadroom   bool
	HavePredicted  bool
	HaveCephLat    bool
	MeasuredMax    float64 // saturated IOPS fio measured at the step's mix
	HighRamp       bool    // a ramp step after the M-LISP mark
	ForecastLat    apiv1.LatencyPoint
	HaveForecast   bool
	ForecastBeyond bool // the step's IOPS lies beyond the forecast curve
}

// Check is one pass/fail comparison.
type Check struct {
	Name   string
	Value  float64 // NaN when missing
	Bound  float64
	Pass   bool
	Detail string
}

// Report is the whole scored run.
type Report struct {
	When          time.Time
	Calibration   conservation.Calibration
	Model         *conservation.Model
	Steps         []StepScore
	Mixes         []MixScore
	InsideOutMAPE float64
	InsideOutN    int
	MLISP         *apiv1.LatencyCurve
	MLISPErr      string
	Passive       *apiv1.CapacityCurve
	PassiveErr    string
	PassiveFitErr string // the passive storcast's conservation fit error, if any
	Curve         *apiv1.CapacityCurve
	CurveErr      string
	Checks        []Check
	PeakOSDRSSMB  float64
	Phases        string
	Bounds        Bounds
}

// MixScore is the conservation comparison at one read ratio.
type MixScore struct {
	ReadPct      int
	Measured     float64 // fio: the highest IOPS at the mix (normally the saturated step)
	MeasuredFrom string  // the step it comes from
	Model        float64 // conservation model of the fio calibration
	Curve        float64 // storcast's capacity curve (main instance)
	Live         float64 // storcast_max_iops at the end of the saturated step
	Passive      float64 // passive storcast's capacity curve
	HaveCurve    bool
	HaveLive     bool
	HavePassive  bool
	Steal        float64
}

func relErr(pred, meas float64) float64 { return math.Abs(pred-meas) / meas }

// curveAt interpolates a capacity curve linearly in the read ratio.
func curveAt(pts []apiv1.CapacityPoint, ratio float64) (float64, bool) {
	if len(pts) == 0 {
		return 0, false
	}
	p := append([]apiv1.CapacityPoint(nil), pts...)
	sort.Slice(p, func(i, j int) bool { return p[i].ReadRatio < p[j].ReadRatio })
	if ratio <= p[0].ReadRatio {
		return p[0].MaxIOPS, ratio == p[0].ReadRatio
	}
	for i := 1; i < len(p); i++ {
		if ratio <= p[i].ReadRatio {
			a, b := p[i-1], p[i]
			w := (ratio - a.ReadRatio) / (b.ReadRatio - a.ReadRatio)
			return a.MaxIOPS + w*(b.MaxIOPS-a.MaxIOPS), true
		}
	}
	return p[len(p)-1].MaxIOPS, false
}

// latencyAt interpolates the latency curve at iops; beyond is true when iops
// lies past the curve's last point (the last point is returned).
func latencyAt(pts []apiv1.LatencyPoint, iops float64) (lp apiv1.LatencyPoint, beyond, ok bool) {
	if len(pts) == 0 {
		return lp, false, false
	}
	p := append([]apiv1.LatencyPoint(nil), pts...)
	sort.Slice(p, func(i, j int) bool { return p[i].IOPS < p[j].IOPS })
	if iops <= p[0].IOPS {
		return p[0], false, true
	}
	for i := 1; i < len(p); i++ {
		if iops <= p[i].IOPS {
			a, b := p[i-1], p[i]
			w := (iops - a.IOPS) / (b.IOPS - a.IOPS)
			mix := func(x, y float64) float64 { return x + w*(y-x) }
			return apiv1.LatencyPoint{IOPS: iops, Lower: mix(a.Lower, b.Lower), Mean: mix(a.Mean, b.Mean), Upper: mix(a.Upper, b.Upper)}, false, true
		}
	}
	return p[len(p)-1], true, true
}

func promDuration(d time.Duration) string { return fmt.Sprintf("%ds", int(d.Seconds())) }

func runScore(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("score", flag.ContinueOnError)
	fs.SetOutput(stderr)
	stepsPath := fs.String("steps", "", "steps.jsonl written by run.sh")
	calPath := fs.String("calibration", "", "fio JSON of the calibration run")
	promURL := fs.String("prometheus", "", "Prometheus URL")
	storcastURL := fs.String("storcast", "", "main storcast's URL (empty: storcast not run, its checks are skipped)")
	mlispPath := fs.String("mlisp", "", "latency_curve response of the storcast trained on the lower ramp steps")
	passivePath := fs.String("passive", "", "capacity_curve response of the storcast without calibration file")
	passiveStatus := fs.String("passive-status", "", "/api/v1/clusters response of the storcast without calibration file")
	loadStart := fs.Float64("load-start", 0, "Unix time the load began")
	loadEnd := fs.Float64("load-end", 0, "Unix time the load ended")
	peakRSS := fs.Float64("peak-osd-rss-mb", 0, "peak RSS of the three OSDs together, MB")
	phases := fs.String("phases", "", "phase durations, as run.sh prints them")
	out := fs.String("out", "", "markdown file to write (also printed)")
	lag := fs.Duration("lag", 5*time.Second, "how late Ceph's counters reach Prometheus (mgr refresh 5 s, scrape 5 s)")
	var b Bounds
	fs.Float64Var(&b.CurveVsModel, "max-curve-vs-model", 0.02, "bound: storcast curve vs conservation model of the same fio file")
	fs.Float64Var(&b.CephVsFio, "max-ceph-vs-fio", 0.15, "bound: Ceph op rate vs fio IOPS at saturated steps")
	fs.Float64Var(&b.Conservation, "max-conservation", 0.50, "bound: conservation model vs measured saturated IOPS")
	fs.Float64Var(&b.LiveMaxIOPS, "max-live-max-iops", 0.50, "bound: storcast_max_iops vs measured saturated IOPS")
	fs.Float64Var(&b.HeadroomAbs, "max-headroom-abs", 0.40, "bound: |storcast_headroom_ratio - measured headroom|")
	fs.Float64Var(&b.InsideOutMAPE, "max-insideout-mape", 3.0, "bound: Inside-Out MAPE over the load")
	fs.Float64Var(&b.MLISP, "max-mlisp", 1.0, "bound: M-LISP mean relative error at the higher ramp steps")
	fs.Float64Var(&b.PassiveVsMeas, "max-passive", 0.80, "bound: passive calibration vs measured saturated IOPS")
	fs.Float64Var(&b.MaxSteal, "flag-steal", 0.05, "flag steps whose steal share exceeds this")
	fs.Float64Var(&b.MaxOtherCores, "flag-other-cores", 0.3, "flag steps where other processes used more cores than this")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	b.RequireStorcast = *storcastURL != ""
	rep, err := score(scoreInput{
		stepsPath: *stepsPath, calPath: *calPath, promURL: *promURL, storcastURL: *storcastURL,
		mlispPath: *mlispPath, passivePath: *passivePath, passiveStatus: *passiveStatus, lag: *lag,
		loadStart: *loadStart, loadEnd: *loadEnd, bounds: b, q: defaultQueries,
	})
	if err != nil {
		fmt.Fprintln(stderr, "scorer score:", err)
		return 1
	}
	// The peak over the steps' samples (run.sh samples after each step).
	rep.PeakOSDRSSMB = *peakRSS
	for _, s := range rep.Steps {
		rep.PeakOSDRSSMB = math.Max(rep.PeakOSDRSSMB, s.OSDRSSMB)
	}
	rep.Phases = *phases
	md := rep.Markdown()
	fmt.Fprint(stdout, md)
	if *out != "" {
		if err := writeFileAtomic(*out, []byte(md)); err != nil {
			fmt.Fprintln(stderr, "scorer score:", err)
			return 1
		}
		js, _ := json.MarshalIndent(rep.Summary(), "", "  ")
		if err := writeFileAtomic(strings.TrimSuffix(*out, ".md")+".json", append(js, '\n')); err != nil {
			fmt.Fprintln(stderr, "scorer score:", err)
			return 1
		}
	}
	failed := 0
	for _, c := range rep.Checks {
		if !c.Pass {
			failed++
			fmt.Fprintf(stderr, "FAIL %s: %s\n", c.Name, c.Detail)
		}
	}
	if failed > 0 {
		fmt.Fprintf(stderr, "scorer: %d of %d checks failed\n", failed, len(rep.Checks))
		return 1
	}
	fmt.Fprintf(stderr, "scorer: all %d checks passed\n", len(rep.Checks))
	return 0
}

func writeFileAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

type scoreInput struct {
	stepsPath, calPath, promURL, storcastURL, mlispPath, passivePath, passiveStatus string
	lag                                                                             time.Duration
	loadStart, loadEnd                                                              float64
	bounds                                                                          Bounds
	q                                                                               Queries
}

func unix(f float64) time.Time { return time.Unix(0, int64(f*1e9)) }

func score(in scoreInput) (*Report, error) {
	calJSON, err := os.ReadFile(in.calPath)
	if err != nil {
		return nil, err
	}
	cal, err := conservation.ImportFio(calJSON)
	if err != nil {
		return nil, fmt.Errorf("calibration: %w", err)
	}
	model, err := conservation.NewModel(cal)
	if err != nil {
		return nil, err
	}
	plan, err := Plan(model)
	if err != nil {
		return nil, err
	}
	byName := map[string]PlanStep{}
	afterMark := map[string]bool{}
	seenMark := false
	for _, p := range plan {
		if p.Kind == "mark" {
			seenMark = true
			continue
		}
		byName[p.Name] = p
		afterMark[p.Name] = seenMark && p.ReadPct == rampReadPct
	}
	recs, err := ReadSteps(in.stepsPath)
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%s: no steps", in.stepsPath)
	}
	prom, err := NewProm(in.promURL)
	if err != nil {
		return nil, err
	}
	rep := &Report{When: time.Now().UTC(), Calibration: cal, Model: model, Bounds: in.bounds}
	for _, r := range recs {
		p, ok := byName[r.Name]
		if !ok {
			return nil, fmt.Errorf("step %q is not in the plan", r.Name)
		}
		data, err := os.ReadFile(r.Fio)
		if err != nil {
			return nil, err
		}
		fr, err := ParseFioStep(data)
		if err != nil {
			return nil, fmt.Errorf("step %s: %w", r.Name, err)
		}
		s := StepScore{StepRecord: r, Plan: p, Fio: fr, HighRamp: afterMark[r.Name]}
		// Counters across the step, shifted by the lag, trimmed at the start
		// (fio's connect and ramp, the mgr's 5 s refresh).
		stepLen := time.Duration((r.End - r.Start) * float64(time.Second))
		win := (stepLen - 12*time.Second).Truncate(time.Second)
		at := unix(r.End).Add(in.lag)
		ops, okOps, err := prom.Instant(fmt.Sprintf(in.q.CephOps, promDuration(win)), at)
		if err != nil {
			return nil, err
		}
		if okOps {
			s.CephIOPS = ops / win.Seconds()
		}
		ls, ok1, err := prom.Instant(fmt.Sprintf(in.q.CephLatSum, promDuration(win)), at)
		if err != nil {
			return nil, err
		}
		lc, ok2, err := prom.Instant(fmt.Sprintf(in.q.CephLatCnt, promDuration(win)), at)
		if err != nil {
			return nil, err
		}
		if ok1 && ok2 && lc > 0 {
			s.CephLatency, s.HaveCephLat = ls/lc, true
		}
		end := unix(r.End).Add(5 * time.Second)
		if s.CephIOPS1m, _, err = prom.Instant(in.q.CephIOPS1m, end); err != nil {
			return nil, err
		}
		if in.storcastURL != "" {
			if s.LiveMaxIOPS, s.HaveMax, err = prom.Instant(in.q.MaxIOPS, end); err != nil {
				return nil, err
			}
			if s.LiveHeadroom, s.HaveHeadroom, err = prom.Instant(in.q.Headroom, end); err != nil {
				return nil, err
			}
			if s.PredictedIOPS, s.HavePredicted, err = prom.Instant(in.q.PredictedIOPS, end); err != nil {
				return nil, err
			}
		}
		rep.Steps = append(rep.Steps, s)
	}
	// Measured capacity per mix: the highest IOPS fio achieved at the mix.
	// That is the saturated step, except when the neighbour took more CPU
	// during it than during a rate-limited step of the same mix: capacity is
	// at least any throughput achieved.
	measMax := map[int]float64{}
	measFrom := map[int]string{}
	for _, s := range rep.Steps {
		if s.Plan.Saturated() && s.Fio.IOPS() >= measMax[s.ReadPct] {
			measMax[s.ReadPct], measFrom[s.ReadPct] = s.Fio.IOPS(), s.Name
		}
	}
	for _, s := range rep.Steps {
		if !s.Plan.Saturated() && s.Fio.IOPS() > measMax[s.ReadPct] {
			measMax[s.ReadPct], measFrom[s.ReadPct] = s.Fio.IOPS(), s.Name
		}
	}
	for i := range rep.Steps {
		rep.Steps[i].MeasuredMax = measMax[rep.Steps[i].ReadPct]
	}
	if in.storcastURL != "" {
		var c apiv1.CapacityCurve
		if err := getAPI(capacityURL(in.storcastURL, planBSBytes, 21), &c); err != nil {
			rep.CurveErr = err.Error()
		} else {
			rep.Curve = &c
		}
		if in.loadEnd > in.loadStart {
			rep.InsideOutMAPE, rep.InsideOutN, err = insideOutMAPE(prom, in.q, unix(in.loadStart), unix(in.loadEnd))
			if err != nil {
				return nil, err
			}
		}
		rep.MLISP, rep.MLISPErr = readLatencyCurve(in.mlispPath)
		rep.Passive, rep.PassiveErr = readCapacityCurve(in.passivePath)
		rep.PassiveFitErr = readFitError(in.passiveStatus, "conservation")
	}
	for i := range rep.Steps {
		s := &rep.Steps[i]
		if s.HighRamp && rep.MLISP != nil {
			s.ForecastLat, s.ForecastBeyond, s.HaveForecast = latencyAt(rep.MLISP.Points, s.Fio.IOPS())
		}
	}
	for _, r := range []int{rampReadPct, otherMixes[0], otherMixes[1]} {
		ms := MixScore{ReadPct: r, Measured: measMax[r], MeasuredFrom: measFrom[r]}
		pts, _, err := model.Curve(planBSBytes, []float64{float64(r) / 100})
		if err != nil {
			return nil, err
		}
		ms.Model = pts[0].MaxIOPS
		if rep.Curve != nil {
			ms.Curve, ms.HaveCurve = curveAt(rep.Curve.Points, float64(r)/100)
		}
		if rep.Passive != nil {
			ms.Passive, ms.HavePassive = curveAt(rep.Passive.Points, float64(r)/100)
		}
		for _, s := range rep.Steps {
			if s.ReadPct == r && s.Plan.Saturated() {
				ms.Live, ms.HaveLive, ms.Steal = s.LiveMaxIOPS, s.HaveMax, s.Steal
			}
		}
		rep.Mixes = append(rep.Mixes, ms)
	}
	rep.Checks = rep.check()
	return rep, nil
}

func readLatencyCurve(path string) (*apiv1.LatencyCurve, string) {
	if path == "" {
		return nil, "not run"
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err.Error()
	}
	var c apiv1.LatencyCurve
	if err := decodeEnvelope(data, &c); err != nil {
		return nil, err.Error()
	}
	return &c, ""
}

// readFitError returns the fit error of one model from a /api/v1/clusters
// response ("" when there is none or the file is unreadable).
func readFitError(path, model string) string {
	if path == "" {
		return ""
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	var cs []apiv1.Cluster
	if err := decodeEnvelope(data, &cs); err != nil {
		return ""
	}
	for _, c := range cs {
		if c.Name == clusterName {
			return c.Models[model].Error
		}
	}
	return ""
}

func readCapacityCurve(path string) (*apiv1.CapacityCurve, string) {
	if path == "" {
		return nil, "not run"
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err.Error()
	}
	var c apiv1.CapacityCurve
	if err := decodeEnvelope(data, &c); err != nil {
		return nil, err.Error()
	}
	return &c, ""
}

// insideOutMAPE compares storcast_predicted_iops with Ceph's 1m IOPS every
// 5 s over the load, skipping windows where the cluster is nearly idle (below
// 10% of the highest IOPS seen), where a relative error means nothing.
func insideOutMAPE(p *Prom, q Queries, start, end time.Time) (float64, int, error) {
	pred, err := p.Range(q.PredictedIOPS, start, end, 5*time.Second)
	if err != nil {
		return 0, 0, err
	}
	meas, err := p.Range(q.CephIOPS1m, start, end, 5*time.Second)
	if err != nil {
		return 0, 0, err
	}
	top := 0.0
	for _, v := range meas {
		top = math.Max(top, v)
	}
	sum, n := 0.0, 0
	for t, m := range meas {
		pv, ok := pred[t]
		if !ok || m < 0.1*top || math.IsNaN(pv) {
			continue
		}
		sum += relErr(pv, m)
		n++
	}
	if n == 0 {
		return math.NaN(), 0, nil
	}
	return sum / float64(n), n, nil
}

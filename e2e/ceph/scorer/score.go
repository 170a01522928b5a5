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

// Bounds are the pass bounds of the suite; docs/e2e.md ("Bounds, and why") says how each was set.
type Bounds struct {
	CurveVsModel    float64 // storcast's capacity curve vs the conservation model of the same calibration file (plumbing)
	ClusterVsClient float64 // the storage system's op rate vs the load tool's IOPS at the saturated steps (plumbing)
	Conservation    float64 // conservation model (calibration) vs measured saturated IOPS, per mix
	LiveMaxIOPS     float64 // storcast_max_iops at the end of a saturated step vs measured
	LiveVsModel     float64 // storcast_max_iops vs the conservation model at the step's mix and size (plumbing: mix and size detection)
	// FactorOff bounds max(pred/meas, meas/pred) - 1 for the conservation
	// model and storcast_max_iops (0: not checked). The relative errors
	// above cannot exceed 100% when the prediction is low, so on a noisy
	// machine, where their bounds must be wide, only this catches a
	// prediction that is grossly low.
	FactorOff     float64
	HeadroomAbs   float64 // storcast_headroom_ratio vs measured headroom, ratio points
	InsideOutMAPE float64 // storcast_predicted_iops vs the system's IOPS over the load
	MLISP         float64 // M-LISP mean forecast vs measured latency at the higher steps (mean error)
	PassiveVsMeas float64 // passive calibration's curve vs measured saturated IOPS, per mix
	// Held-out points (checked only when > 0; run.sh sets them from repeated runs):
	FrontierCal    float64 // frontier vs measured saturated IOPS, mixes at a calibrated size
	FrontierHeld   float64 // the same, at a size not calibrated and at mixed sizes
	OutsideBand    float64 // how far (relative) a measured max may lie outside the frontier's band; < 0: not checked
	ServedVsScorer float64 // storcast_max_iops vs the scorer's model at the mix storcast saw (plumbing)
	// WhatIfModel is the latency model the calibrated what-if storcast must
	// answer with beyond its history (fit.latency_model; "": not checked):
	// another means the served model failed to fit and storcast fell back.
	WhatIfModel     string
	MaxSteal        float64 // steps with more steal than this are flagged (not failed)
	MaxOtherCores   float64 // steps where other processes used more cores than this are flagged
	RequireStorcast bool
}

// Queries are the PromQL expressions the scorer evaluates; %s is the window.
type Queries struct {
	MaxIOPS, Headroom, PredictedIOPS         string // storcast's series
	ClusterIOPS1m                            string // the system's IOPS the way storcast sees it (1m rate)
	ClusterOps, ClusterLatSum, ClusterLatCnt string // counters, for increase() across a step
	// The mean read and write size over 1m, as storcast computes it (empty:
	// the plan's sizes are taken).
	ReadSize1m, WriteSize1m string
	// storcast_max_iops per op (read, write, total) from one scrape: %s is the op.
	ServedMaxIOPS string
	// The op-weighted mean IO size storcast saw, same scrape.
	ServedIOSize string
}

var defaultQueries = Queries{
	MaxIOPS:       `max(avg_over_time(storcast_max_iops{cluster="e2e",op="total"}[15s]))`,
	Headroom:      `max(avg_over_time(storcast_headroom_ratio{cluster="e2e"}[15s]))`,
	PredictedIOPS: `sum(avg_over_time(storcast_predicted_iops{cluster="e2e"}[15s]))`,
	ClusterIOPS1m: `sum(rate(ceph_osd_op_r{cluster="e2e"}[1m])) + sum(rate(ceph_osd_op_w{cluster="e2e"}[1m]))`,
	ClusterOps:    `sum(increase(ceph_osd_op_r{cluster="e2e"}[%[1]s])) + sum(increase(ceph_osd_op_w{cluster="e2e"}[%[1]s]))`,
	ClusterLatSum: `sum(increase(ceph_osd_op_latency_sum{cluster="e2e"}[%[1]s]))`,
	ClusterLatCnt: `sum(increase(ceph_osd_op_latency_count{cluster="e2e"}[%[1]s]))`,
	ReadSize1m:    `sum(rate(ceph_osd_op_r_out_bytes{cluster="e2e"}[1m])) / sum(rate(ceph_osd_op_r{cluster="e2e"}[1m]))`,
	WriteSize1m:   `sum(rate(ceph_osd_op_w_in_bytes{cluster="e2e"}[1m])) / sum(rate(ceph_osd_op_w{cluster="e2e"}[1m]))`,
	ServedMaxIOPS: `max(last_over_time(storcast_max_iops{cluster="e2e",op="%s"}[15s]))`,
	ServedIOSize:  `max(last_over_time(storcast_observed_io_size_bytes{cluster="e2e"}[15s]))`,
}

// StepScore is everything known about one load step.
type StepScore struct {
	StepRecord
	Plan           PlanStep
	Fio            FioResult
	ClusterIOPS    float64 // increase of op_r+op_w across the step / its length (0: not measured)
	ClusterLatency float64 // mean OSD op latency across the step, seconds
	ClusterIOPS1m  float64 // at the step's end, same window as storcast
	LiveMaxIOPS    float64
	LiveHeadroom   float64
	PredictedIOPS  float64
	HaveMax        bool
	HaveHeadroom   bool
	HavePredicted  bool
	HaveClusterLat bool
	MeasuredMax    float64 // saturated IOPS the load tool measured at the step's mix (read share and size)
	HighRamp       bool    // a ramp step after the M-LISP mark
	ForecastLat    apiv1.LatencyPoint
	HaveForecast   bool
	ForecastBeyond bool        // the step's IOPS lies beyond the forecast curve
	WhatIf         WhatIfPoint // the what-if latency at the step's IOPS (lower-steps storcast)
	HaveWhatIf     bool
	WhatIfPast     bool // the what-if reports saturation there (no finite latency)
	Served         ServedCheck
}

// shortOfRate is how far below its rate limit a rate-limited step may end
// and still count as having run at its planned load.
const shortOfRate = 0.97

// ReachedRate is the share of its rate limit a rate-limited step achieved
// (1 for a saturated step), and whether that fell short: then the cluster
// was saturated at a lower load than planned (the host slower then), and
// the step's latency is a saturated one, not the latency at its planned
// utilization.
func (s StepScore) ReachedRate() (share float64, short bool) {
	limit := float64(s.RateRead + s.RateWrite)
	if s.Plan.Saturated() || !(limit > 0) {
		return 1, false
	}
	share = s.Fio.IOPS() / limit
	return share, share < shortOfRate
}

// ServedCheck compares storcast_max_iops at the end of a saturated step
// with the scorer's own models of the same calibration at the mix storcast
// saw (its read and write max give the read share; the size is the mean
// size storcast saw, or for a mixed-size step Ceph's 1m read and write
// sizes): a plumbing check, which also tells which model storcast serves.
type ServedCheck struct {
	Have                  bool
	Read, Write, Total    float64 // storcast_max_iops by op, one scrape
	ReadBytes, WriteBytes float64 // the sizes taken (Ceph's 1m means, or the plan's)
	Frontier, Paper       float64 // the scorer's max at that mix
	Err                   string  // why a model gave no answer
}

// Serves names the model storcast's value is closer to.
func (c ServedCheck) Serves() string {
	if c.Frontier == c.Paper {
		return "frontier = paper"
	}
	if math.Abs(c.Total-c.Frontier) <= math.Abs(c.Total-c.Paper) {
		return "frontier"
	}
	return "paper"
}

// ErrServed is the relative difference from the model storcast serves.
func (c ServedCheck) ErrServed() float64 {
	if c.Serves() == "paper" {
		return relErr(c.Total, c.Paper)
	}
	return relErr(c.Total, c.Frontier)
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
	Model         *conservation.Model // the calibration as storcast takes it: mixed points in (the frontier)
	Paper         *conservation.Model // the same without mixed points: γ = 0, the paper's law
	Steps         []StepScore
	Mixes         []MixScore
	InsideOutMAPE float64
	InsideOutN    int
	MLISP         *apiv1.LatencyCurve
	MLISPErr      string
	WhatIf        *WhatIfCurve
	WhatIfErr     string
	// Served is the latency_curve of the what-if storcast (the same lower
	// steps, calibrated): the served model, capacity-anchored by default.
	Served        *apiv1.LatencyCurve
	ServedErr     string
	Passive       *apiv1.CapacityCurve
	PassiveErr    string
	PassiveFitErr string // the passive storcast's conservation fit error, if any
	Curve         *apiv1.CapacityCurve
	CurveErr      string
	Checks        []Check
	PeakOSDRSSMB  float64
	Phases        string
	Bounds        Bounds
	Sys           System
	// The IOPS where the measured latency of the ramp crosses the SLO
	// (linear between steps; HaveMeasuredKnee false when it never does).
	MeasuredKnee     float64
	HaveMeasuredKnee bool
	PassiveIOSize    float64 // the IO size the passive curve was read at
	CalibrationMixes []CalibrationMix
}

// MixScore is the conservation comparison at one read ratio.
type MixScore struct {
	ReadPct      int
	BS           string  // IO size as the load tool spells it
	BSBytes      float64 // IO size (mean, for mixed sizes)
	Measured     float64 // the highest IOPS the load tool achieved at the mix (normally the saturated step)
	MeasuredFrom string  // the step it comes from
	Model        float64 // the frontier at the planned read share and (mean) size, where the curve is read (plumbing); predicted() is the scored figure
	Curve        float64 // storcast's capacity curve (main instance)
	Live         float64 // storcast_max_iops at the end of the saturated step
	Passive      float64 // passive storcast's capacity curve
	HaveCurve    bool
	HaveLive     bool
	HavePassive  bool
	Steal        float64
	Side         SideBySide // the paper's model and the frontier at the measured mix
}

// SideBySide is the paper's model and the interference-aware frontier at
// the mix the load tool measured (its read and write IOPS at their sizes),
// each with its band over the calibration's runs.
type SideBySide struct {
	Have                  bool
	ReadIOPS, WriteIOPS   float64 // the mix: the load tool's rates in the step Measured comes from
	ReadBytes, WriteBytes float64
	Paper, Frontier       conservation.Result
	Err                   string
}

// InBand reports whether measured lies inside r's max-IOPS band.
func InBand(r conservation.Result, measured float64) bool {
	return measured >= r.MaxTotalIOPSLower && measured <= r.MaxTotalIOPSUpper
}

// OutsideBand is how far measured lies outside r's band, relative to the
// nearer end (0 inside).
func OutsideBand(r conservation.Result, measured float64) float64 {
	switch {
	case measured < r.MaxTotalIOPSLower:
		return (r.MaxTotalIOPSLower - measured) / r.MaxTotalIOPSLower
	case measured > r.MaxTotalIOPSUpper:
		return (measured - r.MaxTotalIOPSUpper) / r.MaxTotalIOPSUpper
	}
	return 0
}

// Calibrated reports whether the mix is at one size the calibration measured.
func (m MixScore) Calibrated(c conservation.Calibration) bool {
	if m.Side.ReadBytes != m.Side.WriteBytes {
		return false
	}
	for _, p := range c.Points {
		if p.IOSizeBytes == m.Side.ReadBytes {
			return true
		}
	}
	return false
}

// SizePairCalibrated reports whether the mix has reads and writes of
// different sizes and the calibration has a mixed-size point of the same
// pair (at its own read ratio: the mix itself is still held out).
func (m MixScore) SizePairCalibrated(c conservation.Calibration) bool {
	if m.Side.ReadBytes == m.Side.WriteBytes {
		return false
	}
	for _, p := range c.Mixed {
		if p.IOSizeBytes == m.Side.ReadBytes && p.WriteIOSizeBytes == m.Side.WriteBytes {
			return true
		}
	}
	return false
}

// predicted is the capacity the checks score: the frontier at the measured
// mix, or (without it) the model's curve at the nominal mix.
func (m MixScore) predicted() float64 {
	if m.Side.Have {
		return m.Side.Frontier.MaxTotalIOPS
	}
	return m.Model
}

// sideBySide evaluates both models at the rates read and write at their sizes.
func sideBySide(paper, frontier *conservation.Model, read, write, readBytes, writeBytes float64) SideBySide {
	sb := SideBySide{ReadIOPS: read, WriteIOPS: write, ReadBytes: readBytes, WriteBytes: writeBytes}
	cl := []conservation.OpClass{{Op: conservation.Read, IOSizeBytes: readBytes, Rate: read}, {Op: conservation.Write, IOSizeBytes: writeBytes, Rate: write}}
	var err error
	if sb.Paper, err = paper.AtMix(cl); err != nil {
		sb.Err = "paper: " + err.Error()
		return sb
	}
	if sb.Frontier, err = frontier.AtMix(cl); err != nil {
		sb.Err = "frontier: " + err.Error()
		return sb
	}
	sb.Have = true
	return sb
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
			return apiv1.LatencyPoint{IOPS: iops, Lower: mix(a.Lower, b.Lower), Mean: mix(a.Mean, b.Mean), Upper: mixUpper(a.Upper, b.Upper, w)}, false, true
		}
	}
	return p[len(p)-1], true, true
}

// orInf is a latency band's upper bound, +Inf where it has none (null: the
// cluster may be saturated there).
func orInf(upper *float64) float64 {
	if upper == nil {
		return math.Inf(1)
	}
	return *upper
}

// mixUpper interpolates two upper bounds at weight w of the second; none
// where either has none.
func mixUpper(a, b *float64, w float64) *float64 {
	if a == nil || b == nil {
		return nil
	}
	v := *a + w*(*b-*a)
	return &v
}

func promDuration(d time.Duration) string { return fmt.Sprintf("%ds", int(d.Seconds())) }

func runScore(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("score", flag.ContinueOnError)
	fs.SetOutput(stderr)
	sysKind := fs.String("system", "ceph", "storage system: ceph (fio JSON calibration) or swift (calibration YAML)")
	stepsPath := fs.String("steps", "", "steps.jsonl written by run.sh")
	calPath := fs.String("calibration", "", "calibration file (ceph: fio JSON; swift: calibration YAML)")
	promURL := fs.String("prometheus", "", "Prometheus URL")
	storcastURL := fs.String("storcast", "", "main storcast's URL (empty: storcast not run, its checks are skipped)")
	mlispPath := fs.String("mlisp", "", "latency_curve response of the storcast trained on the lower ramp steps")
	whatIfPath := fs.String("whatif", "", "what-if curve (scorer whatif-curve) of the storcast trained on the lower ramp steps")
	servedPath := fs.String("served-latency", "", "latency_curve response of that calibrated what-if storcast (its served latency model)")
	passivePath := fs.String("passive", "", "capacity_curve response of the storcast without calibration file")
	passiveStatus := fs.String("passive-status", "", "/api/v1/clusters response of the storcast without calibration file")
	loadStart := fs.Float64("load-start", 0, "Unix time the load began")
	loadEnd := fs.Float64("load-end", 0, "Unix time the load ended")
	peakRSS := fs.Float64("peak-osd-rss-mb", 0, "peak RSS of the three OSDs together, MB")
	phases := fs.String("phases", "", "phase durations, as run.sh prints them")
	out := fs.String("out", "", "markdown file to write (also printed)")
	lag := fs.Duration("lag", 0, "how late the system's counters reach Prometheus (0: the system's default, 5 s for Ceph, none for Swift)")
	sloSeconds := fs.Float64("slo", 0, "latency SLO storcast was given, seconds (for the measured knee; 0: storcast's)")
	passiveSize := fs.Float64("passive-io-size", 4096, "IO size the passive capacity curve was read at, bytes")
	calRuns := fs.String("calibration-runs", "", "every calibration run (loadgen calibrate -runs): its mixed points are compared with the model")
	var b Bounds
	fs.Float64Var(&b.CurveVsModel, "max-curve-vs-model", 0.02, "bound: storcast curve vs conservation model of the same fio file")
	fs.Float64Var(&b.ClusterVsClient, "max-cluster-vs-client", 0.25, "bound: the system's op rate vs the load tool's IOPS at saturated steps")
	fs.Float64Var(&b.Conservation, "max-conservation", 0.50, "bound: conservation model vs measured saturated IOPS")
	fs.Float64Var(&b.LiveMaxIOPS, "max-live-max-iops", 0.50, "bound: storcast_max_iops vs measured saturated IOPS")
	fs.Float64Var(&b.FactorOff, "max-factor-off", 0, "bound: max(pred/meas, meas/pred) - 1 of the conservation model and storcast_max_iops vs measured max (0: not checked)")
	fs.Float64Var(&b.LiveVsModel, "max-live-vs-model", 0.25, "bound: storcast_max_iops vs the conservation model at the saturated step's mix and size")
	fs.Float64Var(&b.HeadroomAbs, "max-headroom-abs", 0.40, "bound: |storcast_headroom_ratio - measured headroom|")
	fs.Float64Var(&b.InsideOutMAPE, "max-insideout-mape", 3.0, "bound: Inside-Out MAPE over the load")
	fs.Float64Var(&b.MLISP, "max-mlisp", 1.0, "bound: M-LISP mean relative error at the higher ramp steps")
	fs.Float64Var(&b.PassiveVsMeas, "max-passive", 0.80, "bound: passive calibration vs measured saturated IOPS")
	fs.Float64Var(&b.FrontierCal, "max-frontier-calibrated", 0, "bound: frontier vs measured saturated IOPS at a calibrated size (0: not checked)")
	fs.Float64Var(&b.FrontierHeld, "max-frontier-held-out", 0, "bound: frontier vs measured saturated IOPS at a size not calibrated and at mixed sizes (0: not checked)")
	fs.Float64Var(&b.OutsideBand, "max-outside-band", -1, "bound: how far (relative) a measured max may lie outside the frontier's band (< 0: not checked)")
	fs.StringVar(&b.WhatIfModel, "whatif-model", "", "the latency model the what-if storcast must answer with beyond its history (plumbing; empty: not checked)")
	fs.Float64Var(&b.ServedVsScorer, "max-served-vs-scorer", 0, "bound: storcast_max_iops vs the scorer's model at the mix storcast saw (plumbing; 0: not checked)")
	fs.Float64Var(&b.MaxSteal, "flag-steal", 0.05, "flag steps whose steal share exceeds this")
	fs.Float64Var(&b.MaxOtherCores, "flag-other-cores", 0.3, "flag steps where other processes used more cores than this")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	b.RequireStorcast = *storcastURL != ""
	sys, err := systemFor(*sysKind)
	if err != nil {
		fmt.Fprintln(stderr, "scorer score:", err)
		return 2
	}
	if *lag == 0 {
		*lag = sys.Lag
	}
	rep, err := score(scoreInput{
		stepsPath: *stepsPath, calPath: *calPath, promURL: *promURL, storcastURL: *storcastURL,
		mlispPath: *mlispPath, whatIfPath: *whatIfPath, servedPath: *servedPath, passivePath: *passivePath, passiveStatus: *passiveStatus, lag: *lag,
		loadStart: *loadStart, loadEnd: *loadEnd, bounds: b, sys: sys, slo: *sloSeconds, passiveSize: *passiveSize, calRuns: *calRuns,
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
	stepsPath, calPath, promURL, storcastURL, mlispPath, whatIfPath, servedPath, passivePath, passiveStatus string
	lag                                                                                                     time.Duration
	loadStart, loadEnd                                                                                      float64
	bounds                                                                                                  Bounds
	sys                                                                                                     System
	slo, passiveSize                                                                                        float64
	calRuns                                                                                                 string
}

// mixKey identifies a mix: read share and IO size.
type mixKey struct {
	readPct int
	bs      string
}

func unix(f float64) time.Time { return time.Unix(0, int64(f*1e9)) }

func score(in scoreInput) (*Report, error) {
	q := in.sys.Queries
	cal, model, err := in.sys.LoadModel(in.calPath)
	if err != nil {
		return nil, err
	}
	paper, err := conservation.NewPaperModel(cal)
	if err != nil {
		return nil, err
	}
	plan, err := in.sys.Plan(model)
	if err != nil {
		return nil, err
	}
	byName := map[string]PlanStep{}
	afterMark := map[string]bool{}
	seenMark := false
	var mixOrder []mixKey // every mix with a saturated step, in plan order
	for _, p := range plan {
		if p.Kind == "mark" {
			seenMark = true
			continue
		}
		byName[p.Name] = p
		afterMark[p.Name] = seenMark && p.Ramp
		if p.Saturated() {
			mixOrder = append(mixOrder, mixKey{p.ReadPct, p.BS})
		}
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
	rep := &Report{When: time.Now().UTC(), Calibration: cal, Model: model, Paper: paper, Bounds: in.bounds, Sys: in.sys, PassiveIOSize: in.passiveSize}
	if in.calRuns != "" {
		data, err := os.ReadFile(in.calRuns)
		if err != nil {
			return nil, err
		}
		if rep.CalibrationMixes, err = ParseCalibrationMixes(data, cal); err != nil {
			return nil, err
		}
	}
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
		win := (stepLen - in.sys.Trim).Truncate(time.Second)
		at := unix(r.End).Add(in.lag)
		ops, okOps, err := prom.Instant(fmt.Sprintf(q.ClusterOps, promDuration(win)), at)
		if err != nil {
			return nil, err
		}
		if okOps {
			s.ClusterIOPS = ops / win.Seconds()
		}
		ls, ok1, err := prom.Instant(fmt.Sprintf(q.ClusterLatSum, promDuration(win)), at)
		if err != nil {
			return nil, err
		}
		lc, ok2, err := prom.Instant(fmt.Sprintf(q.ClusterLatCnt, promDuration(win)), at)
		if err != nil {
			return nil, err
		}
		if ok1 && ok2 && lc > 0 {
			s.ClusterLatency, s.HaveClusterLat = ls/lc, true
		}
		end := unix(r.End).Add(5 * time.Second)
		if s.ClusterIOPS1m, _, err = prom.Instant(q.ClusterIOPS1m, end); err != nil {
			return nil, err
		}
		if in.storcastURL != "" {
			if s.LiveMaxIOPS, s.HaveMax, err = prom.Instant(q.MaxIOPS, end); err != nil {
				return nil, err
			}
			if s.LiveHeadroom, s.HaveHeadroom, err = prom.Instant(q.Headroom, end); err != nil {
				return nil, err
			}
			if s.PredictedIOPS, s.HavePredicted, err = prom.Instant(q.PredictedIOPS, end); err != nil {
				return nil, err
			}
			if p.Saturated() {
				if s.Served, err = servedAt(prom, q, p, paper, model, end); err != nil {
					return nil, err
				}
			}
		}
		rep.Steps = append(rep.Steps, s)
	}
	// Measured capacity per mix: the highest IOPS fio achieved at the mix.
	// That is the saturated step, except when the neighbour took more CPU
	// during it than during a rate-limited step of the same mix: capacity is
	// at least any throughput achieved.
	measMax := map[mixKey]float64{}
	measFrom := map[mixKey]string{}
	key := func(s StepScore) mixKey { return mixKey{s.ReadPct, s.Plan.BS} }
	for _, s := range rep.Steps {
		if s.Plan.Saturated() && s.Fio.IOPS() >= measMax[key(s)] {
			measMax[key(s)], measFrom[key(s)] = s.Fio.IOPS(), s.Name
		}
	}
	for _, s := range rep.Steps {
		if !s.Plan.Saturated() && s.Fio.IOPS() > measMax[key(s)] {
			measMax[key(s)], measFrom[key(s)] = s.Fio.IOPS(), s.Name
		}
	}
	for i := range rep.Steps {
		rep.Steps[i].MeasuredMax = measMax[key(rep.Steps[i])]
	}
	// storcast's capacity curve at every IO size of the plan.
	curves := map[float64]*apiv1.CapacityCurve{}
	if in.storcastURL != "" {
		for _, mk := range mixOrder {
			size := byName[mixName(plan, mk)].BSBytes
			if _, done := curves[size]; done {
				continue
			}
			var c apiv1.CapacityCurve
			if err := getAPI(capacityURL(in.storcastURL, size, 21), &c); err != nil {
				rep.CurveErr = err.Error()
				curves[size] = nil
			} else {
				curves[size] = &c
				if rep.Curve == nil {
					rep.Curve = &c
				}
			}
		}
		if in.loadEnd > in.loadStart {
			rep.InsideOutMAPE, rep.InsideOutN, err = insideOutMAPE(prom, q, unix(in.loadStart), unix(in.loadEnd))
			if err != nil {
				return nil, err
			}
		}
		rep.MLISP, rep.MLISPErr = readResponse[apiv1.LatencyCurve](in.mlispPath)
		rep.WhatIf, rep.WhatIfErr = readWhatIfCurve(in.whatIfPath)
		if in.servedPath != "" {
			rep.Served, rep.ServedErr = readResponse[apiv1.LatencyCurve](in.servedPath)
		}
		rep.Passive, rep.PassiveErr = readResponse[apiv1.CapacityCurve](in.passivePath)
		rep.PassiveFitErr = readFitError(in.passiveStatus, "conservation")
	}
	rep.readForecasts()
	for _, mk := range mixOrder {
		r := mk.readPct
		size := byName[mixName(plan, mk)].BSBytes
		ms := MixScore{ReadPct: r, BS: mk.bs, BSBytes: size, Measured: measMax[mk], MeasuredFrom: measFrom[mk]}
		pts, _, err := model.Curve(size, []float64{float64(r) / 100})
		if err != nil {
			return nil, err
		}
		ms.Model = pts[0].MaxIOPS
		if c := curves[size]; c != nil {
			ms.Curve, ms.HaveCurve = curveAt(c.Points, float64(r)/100)
		}
		// The passive curve was read at one IO size: only mixes of that size compare.
		if rep.Passive != nil && size == in.passiveSize {
			ms.Passive, ms.HavePassive = curveAt(rep.Passive.Points, float64(r)/100)
		}
		for _, s := range rep.Steps {
			if key(s) == mk && s.Plan.Saturated() {
				ms.Live, ms.HaveLive, ms.Steal = s.LiveMaxIOPS, s.HaveMax, s.Steal
			}
			if key(s) == mk && s.Name == ms.MeasuredFrom {
				rb, wb := s.Plan.Sizes()
				ms.Side = sideBySide(paper, model, s.Fio.ReadIOPS, s.Fio.WriteIOPS, rb, wb)
			}
		}
		rep.Mixes = append(rep.Mixes, ms)
	}
	slo := in.slo
	if slo == 0 && rep.MLISP != nil {
		slo = rep.MLISP.SLOSeconds
	}
	rep.MeasuredKnee, rep.HaveMeasuredKnee = measuredKnee(rep.Steps, slo)
	rep.Checks = rep.check()
	return rep, nil
}

// servedAt reads storcast_max_iops by op from one scrape at t and evaluates
// the scorer's two models at the mix it implies (read share = read max /
// total max). Sizes: at one size, the mean size storcast exported in that
// scrape (Ceph's counters over a window of its own, which at a step's
// start can still hold the previous step); at mixed sizes Ceph's 1m mean
// read and write sizes; the plan's without either. Have is false when
// storcast served no value.
func servedAt(prom *Prom, q Queries, p PlanStep, paper, frontier *conservation.Model, t time.Time) (ServedCheck, error) {
	var c ServedCheck
	if q.ServedMaxIOPS == "" {
		return c, nil
	}
	var ok [3]bool
	var err error
	for i, v := range []*float64{&c.Read, &c.Write, &c.Total} {
		if *v, ok[i], err = prom.Instant(fmt.Sprintf(q.ServedMaxIOPS, []string{"read", "write", "total"}[i]), t); err != nil {
			return c, err
		}
	}
	if !ok[0] || !ok[1] || !ok[2] || c.Total <= 0 {
		return c, nil
	}
	c.ReadBytes, c.WriteBytes = p.Sizes()
	sizeQ := []struct {
		q   string
		out *float64
	}{{q.ReadSize1m, &c.ReadBytes}, {q.WriteSize1m, &c.WriteBytes}}
	if !p.MixedSize() && q.ServedIOSize != "" {
		v, have, err := prom.Instant(q.ServedIOSize, t)
		if err != nil {
			return c, err
		}
		if have && v > 0 {
			c.ReadBytes, c.WriteBytes = v, v
			sizeQ = nil
		}
	}
	for _, sz := range sizeQ {
		if sz.q == "" {
			continue
		}
		v, have, err := prom.Instant(sz.q, t)
		if err != nil {
			return c, err
		}
		if have && v > 0 {
			*sz.out = v
		}
	}
	sb := sideBySide(paper, frontier, c.Read, c.Write, c.ReadBytes, c.WriteBytes)
	if !sb.Have {
		c.Err = sb.Err
		return c, nil
	}
	c.Have, c.Frontier, c.Paper = true, sb.Frontier.MaxTotalIOPS, sb.Paper.MaxTotalIOPS
	return c, nil
}

// readResponse decodes the data of a storcast API response saved at path;
// without it, the string says why ("not run" when there is no path).
func readResponse[T any](path string) (*T, string) {
	if path == "" {
		return nil, "not run"
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err.Error()
	}
	var v T
	if err := decodeEnvelope(data, &v); err != nil {
		return nil, err.Error()
	}
	return &v, ""
}

// readFitError returns the fit error of one model from a /api/v1/clusters
// response ("" when there is none or the file is unreadable).
func readFitError(path, model string) string {
	cs, why := readResponse[[]apiv1.Cluster](path)
	if why != "" {
		return ""
	}
	for _, c := range *cs {
		if c.Name == clusterName {
			// A history that never saturated is served as a lower bound,
			// with the reason in the note (no error): the line was not
			// identifiable all the same.
			if m := c.Models[model]; m.Error == "" && strings.Contains(m.Note, "not identifiable") {
				return m.Note
			}
			return c.Models[model].Error
		}
	}
	return ""
}

// mixName returns the name of the saturated plan step of a mix.
func mixName(plan []PlanStep, mk mixKey) string {
	for _, p := range plan {
		if p.Kind == "load" && p.Saturated() && p.ReadPct == mk.readPct && p.BS == mk.bs {
			return p.Name
		}
	}
	return ""
}

// measuredKnee returns the IOPS at which the latency the system measured
// along the ramp first crosses slo seconds, linear between the ramp's steps
// in order of IOPS; ok is false when no step reaches the SLO or when a
// latency is missing.
func measuredKnee(steps []StepScore, slo float64) (float64, bool) {
	if slo <= 0 {
		return 0, false
	}
	var ramp []StepScore
	for _, s := range steps {
		if s.Plan.Ramp && s.HaveClusterLat {
			ramp = append(ramp, s)
		}
	}
	sort.Slice(ramp, func(i, j int) bool { return ramp[i].ClusterIOPS < ramp[j].ClusterIOPS })
	for i, s := range ramp {
		if s.ClusterLatency < slo {
			continue
		}
		if i == 0 {
			return s.ClusterIOPS, true
		}
		a := ramp[i-1]
		w := (slo - a.ClusterLatency) / (s.ClusterLatency - a.ClusterLatency)
		return a.ClusterIOPS + w*(s.ClusterIOPS-a.ClusterIOPS), true
	}
	return 0, false
}

// insideOutMAPE compares storcast_predicted_iops with Ceph's 1m IOPS every
// 5 s over the load, skipping windows where the cluster is nearly idle (below
// 10% of the highest IOPS seen), where a relative error means nothing.
func insideOutMAPE(p *Prom, q Queries, start, end time.Time) (float64, int, error) {
	pred, err := p.Range(q.PredictedIOPS, start, end, 5*time.Second)
	if err != nil {
		return 0, 0, err
	}
	meas, err := p.Range(q.ClusterIOPS1m, start, end, 5*time.Second)
	if err != nil {
		return 0, 0, err
	}
	return mapeOver(pred, meas)
}

// mapeOver is the mean relative error of pred against meas at the times
// both have, skipping windows below 10% of meas's peak; +Inf when the
// predictions are off by more than ten times either way in total (offByTen:
// a relative error caps an under-prediction at 100%, under the check's
// bound).
func mapeOver(pred, meas map[int64]float64) (float64, int, error) {
	top := 0.0
	for _, v := range meas {
		top = math.Max(top, v)
	}
	sum, n := 0.0, 0
	var sp, sm float64
	for t, m := range meas {
		pv, ok := pred[t]
		if !ok || m < 0.1*top || math.IsNaN(pv) {
			continue
		}
		sum += relErr(pv, m)
		sp, sm = sp+pv, sm+m
		n++
	}
	if n == 0 {
		return math.NaN(), 0, nil
	}
	if offByTen(sp, sm) {
		return math.Inf(1), n, nil
	}
	return sum / float64(n), n, nil
}

// repeatTolerance is how far a step's measured read share may lie from a
// calibration point's and still repeat it: the load tool draws each IO's
// direction at random, so a 50% job measures 49-51%.
const repeatTolerance = 0.02

// repeatOf is the calibration's mixed point that a scored mix repeats: the
// same read and write sizes at the same read share. The frontier passes
// through that point by construction (γ is fitted to it), so the two
// measurements' difference is the load's reproducibility on this machine,
// no model's error: the frontier's error at that mix is this difference.
func repeatOf(c conservation.Calibration, readIOPS, writeIOPS, readBytes, writeBytes float64) (conservation.MixedPoint, bool) {
	total := readIOPS + writeIOPS
	if !(total > 0) {
		return conservation.MixedPoint{}, false
	}
	sameSize := func(a, b float64) bool { return math.Abs(a-b) <= 0.01*b }
	for _, p := range c.Mixed {
		ws := p.WriteIOSizeBytes
		if ws == 0 {
			ws = p.IOSizeBytes
		}
		if sameSize(readBytes, p.IOSizeBytes) && sameSize(writeBytes, ws) && math.Abs(readIOPS/total-p.ReadRatio) <= repeatTolerance {
			return p, true
		}
	}
	return conservation.MixedPoint{}, false
}

// Repeat is a scored mix that repeats a calibration point.
type Repeat struct {
	Mix   MixScore // the scored step's mix and its measured max
	Point conservation.MixedPoint
}

// Err is the calibration point's mean relative to the scored step, signed
// like the models' errors (positive: the calibration measured more).
func (p Repeat) Err() float64 { return p.Point.IOPS/p.Mix.Measured - 1 }

// Repeats are the run's scored mixes that repeat a calibration point.
func (r *Report) Repeats() []Repeat {
	var out []Repeat
	for _, m := range r.Mixes {
		if !m.Side.Have || !(m.Measured > 0) {
			continue
		}
		if p, ok := repeatOf(r.Calibration, m.Side.ReadIOPS, m.Side.WriteIOPS, m.Side.ReadBytes, m.Side.WriteBytes); ok {
			out = append(out, Repeat{Mix: m, Point: p})
		}
	}
	return out
}

// readForecasts reads M-LISP's and the what-if's latency at each higher
// ramp step's load on the models' axis (ModelIOPS).
func (rep *Report) readForecasts() {
	for i := range rep.Steps {
		s := &rep.Steps[i]
		if s.HighRamp && rep.MLISP != nil {
			s.ForecastLat, s.ForecastBeyond, s.HaveForecast = latencyAt(rep.MLISP.Points, s.ModelIOPS())
		}
		if s.HighRamp && rep.WhatIf != nil {
			s.WhatIf, s.WhatIfPast, s.HaveWhatIf = rep.WhatIf.at(s.ModelIOPS())
		}
	}
}

// ModelIOPS is the step's load on the axis storcast's latency models see:
// the system's own op rate over the step (the counters storcast observes,
// the window the measured op latency is read over), fio's where the
// system's was not measured. fio counted 0-6% more at the 80% and saturated
// steps of the Ceph runs; the latency forecasts and the knee were read at
// fio's, a load the models never saw.
func (s StepScore) ModelIOPS() float64 {
	if s.ClusterIOPS > 0 {
		return s.ClusterIOPS
	}
	return s.Fio.IOPS()
}

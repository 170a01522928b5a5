package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/storcast/storcast/forecaster/conservation"
)

// A calibration with runs and one 50/50 mixed point per size (figures of
// the shape the real cluster gives: the mix inside the paper's line), with
// runs within ±0.5%, tight enough that γ passes its significance test and
// is kept (with the real cluster's ±5% it falls back to the paper's
// model: TestRealCalibrationRunsSideBySide).
func heldOutCal() conservation.Calibration {
	return conservation.Calibration{
		Points: []conservation.Point{
			{IOSizeBytes: 4096, ReadIOPS: 19000, WriteIOPS: 2500, ReadRuns: []float64{18905, 19095}, WriteRuns: []float64{2487.5, 2512.5}},
			{IOSizeBytes: 65536, ReadIOPS: 9800, WriteIOPS: 2200, ReadRuns: []float64{9751, 9849}, WriteRuns: []float64{2189, 2211}},
		},
		Mixed: []conservation.MixedPoint{
			{IOSizeBytes: 4096, ReadRatio: 0.5, IOPS: 4000, Runs: []float64{3980, 4020}},
			{IOSizeBytes: 65536, ReadRatio: 0.5, IOPS: 3300, Runs: []float64{3283.5, 3316.5}},
		},
	}
}

func TestSideBySideAtACalibratedMix(t *testing.T) {
	cal := heldOutCal()
	frontier, err := conservation.NewModel(cal)
	if err != nil {
		t.Fatal(err)
	}
	paper, err := conservation.NewPaperModel(cal)
	if err != nil {
		t.Fatal(err)
	}
	sb := sideBySide(paper, frontier, 2000, 2000, 4096, 4096)
	if !sb.Have {
		t.Fatal(sb.Err)
	}
	// One mixed point fixes γ exactly: the frontier passes through it, and
	// its band at that mix is the mixed figure's 95% prediction interval for
	// one more run: every run is ±0.5% off its figure's mean, so the pooled
	// relative noise is σ = 0.005·√2 (6 dof) and the band 4000·exp(∓h),
	// h = t₀.₉₇₅(6)·σ·√(1 + 1/2) = 2.4469·0.00707·1.2247 = 0.0212.
	if got := sb.Frontier.MaxTotalIOPS; math.Abs(got-4000) > 1e-6 {
		t.Errorf("frontier at the calibrated mix = %v, want the mixed point's 4000", got)
	}
	if g := frontier.Interference(); len(g) != 2 || g[0].Test != conservation.GammaKept {
		t.Fatalf("γ at 4 KiB %+v, want it kept (runs within ±0.5%%)", g)
	}
	h := 2.4469118511449692 * 0.005 * math.Sqrt2 * math.Sqrt(1.5) // t₀.₉₇₅(6) from R's qt(0.975, 6)
	lo, hi := 4000*math.Exp(-h), 4000*math.Exp(h)
	if math.Abs(sb.Frontier.MaxTotalIOPSLower-lo) > 1e-6 || math.Abs(sb.Frontier.MaxTotalIOPSUpper-hi) > 1e-6 {
		t.Errorf("frontier band %v..%v, want %v..%v", sb.Frontier.MaxTotalIOPSLower, sb.Frontier.MaxTotalIOPSUpper, lo, hi)
	}
	if math.Abs(sb.Frontier.Utilization-1) > 1e-9 {
		t.Errorf("U at the mixed point's load = %v, want 1", sb.Frontier.Utilization)
	}
	// The paper at 50% reads: 1 / (0.5/19000 + 0.5/2500) (eq. 6 in op shares).
	want := 1 / (0.5/19000 + 0.5/2500)
	if got := sb.Paper.MaxTotalIOPS; math.Abs(got-want) > 1e-6*want {
		t.Errorf("paper at 50%% reads = %v, want %v", got, want)
	}
	if sb.Paper.Interference != 0 {
		t.Errorf("the paper's model has interference %v", sb.Paper.Interference)
	}
	if !InBand(sb.Frontier, 3990) || InBand(sb.Frontier, 4100) {
		t.Errorf("InBand wrong around the %v..%v band", lo, hi)
	}
	if got := OutsideBand(sb.Frontier, 1.1*hi); math.Abs(got-0.1) > 1e-9 {
		t.Errorf("OutsideBand(%v) = %v, want 0.1 above %v", 1.1*hi, got, hi)
	}
	if got := OutsideBand(sb.Frontier, 0.9*lo); math.Abs(got-0.1) > 1e-9 {
		t.Errorf("OutsideBand(%v) = %v, want 0.1 below %v", 0.9*lo, got, lo)
	}
	if OutsideBand(sb.Frontier, 4000) != 0 {
		t.Error("OutsideBand inside the band is not 0")
	}
}

func TestSideBySideMixedSizes(t *testing.T) {
	cal := heldOutCal()
	frontier, _ := conservation.NewModel(cal)
	paper, _ := conservation.NewPaperModel(cal)
	sb := sideBySide(paper, frontier, 3000, 1000, 4096, 65536)
	if !sb.Have {
		t.Fatal(sb.Err)
	}
	// The paper: shares add, 3000/19000 + 1000/2200 of the capacity at this load.
	u := 3000/19000.0 + 1000/2200.0
	if got, want := sb.Paper.MaxTotalIOPS, 4000/u; math.Abs(got-want) > 1e-6*want {
		t.Errorf("paper at mixed sizes = %v, want %v", got, want)
	}
	// γ > 0 at both sizes here: the frontier lies inside the paper's line.
	if !(sb.Frontier.MaxTotalIOPS < sb.Paper.MaxTotalIOPS) {
		t.Errorf("frontier %v not inside the paper's %v with γ > 0", sb.Frontier.MaxTotalIOPS, sb.Paper.MaxTotalIOPS)
	}
}

func TestHeldOutChecks(t *testing.T) {
	cal := heldOutCal()
	frontier, _ := conservation.NewModel(cal)
	paper, _ := conservation.NewPaperModel(cal)
	r := &Report{Sys: cephSystem, Calibration: cal, Model: frontier, Paper: paper,
		Bounds: Bounds{ClusterVsClient: 1, Conservation: 1, FrontierCal: 0.08, FrontierHeld: 0.12, OutsideBand: 0}}
	r.Mixes = []MixScore{
		{ReadPct: 50, BS: "4k", BSBytes: 4096, Measured: 4100, Side: sideBySide(paper, frontier, 2050, 2050, 4096, 4096)},
		// 16 KiB measured 20% under the frontier: fails the held-out bound.
		{ReadPct: 50, BS: "16k", BSBytes: 16384, Side: sideBySide(paper, frontier, 1000, 1000, 16384, 16384)},
	}
	r.Mixes[1].Measured = 0.8 * r.Mixes[1].Side.Frontier.MaxTotalIOPS
	got := map[string]Check{}
	for _, c := range r.check() {
		got[c.Name] = c
	}
	if c := got["frontier vs measured max IOPS, mixes at a calibrated size"]; !c.Pass || math.Abs(c.Value-100/4100.0) > 1e-9 {
		t.Errorf("calibrated-size check %+v, want a pass at 2.4%%", c)
	}
	if c := got["frontier vs measured max IOPS, a size not calibrated and mixed sizes"]; c.Pass || math.Abs(c.Value-0.25) > 1e-9 {
		t.Errorf("held-out check %+v, want a 25%% failure", c)
	}
	if c := got["measured max IOPS outside the frontier's band (relative to the nearer end)"]; c.Pass || c.Value <= 0 {
		t.Errorf("band check %+v, want a failure: the 16 KiB measurement lies below the band", c)
	}
}

func TestServedCheckNamesTheModelStorcastServes(t *testing.T) {
	c := ServedCheck{Have: true, Total: 4010, Frontier: 4000, Paper: 4500}
	if c.Serves() != "frontier" || math.Abs(c.ErrServed()-0.0025) > 1e-12 {
		t.Errorf("serves %s err %v, want the frontier at 0.25%%", c.Serves(), c.ErrServed())
	}
	c.Total = 4480
	if c.Serves() != "paper" || math.Abs(c.ErrServed()-20/4500.0) > 1e-12 {
		t.Errorf("serves %s err %v, want the paper", c.Serves(), c.ErrServed())
	}
}

// testdata/calibration-runs-fio.json is calibrate.fio's output on this
// suite's cluster (fio 3.33, Ceph 16.2.15): 100% read, 100% write and
// 50/50 at 4 KiB and 64 KiB, each run twice.
func TestRealCalibrationRunsSideBySide(t *testing.T) {
	data, err := os.ReadFile("testdata/calibration-runs-fio.json")
	if err != nil {
		t.Fatal(err)
	}
	cal, err := conservation.ImportFio(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(cal.Points) != 2 || len(cal.Mixed) != 2 {
		t.Fatalf("%d points and %d mixed points, want 2 and 2", len(cal.Points), len(cal.Mixed))
	}
	for _, p := range cal.Points {
		if len(p.ReadRuns) != 2 || len(p.WriteRuns) != 2 {
			t.Errorf("%v bytes: runs %v / %v, want 2 each", p.IOSizeBytes, p.ReadRuns, p.WriteRuns)
		}
	}
	frontier, err := conservation.NewModel(cal)
	if err != nil {
		t.Fatal(err)
	}
	paper, err := conservation.NewPaperModel(cal)
	if err != nil {
		t.Fatal(err)
	}
	// With the runs' noise pooled over the calibration's six figures (6
	// degrees of freedom, t quantile 2.45) γ is kept at both sizes: 1.15 ±
	// 0.46 at 4 KiB, 1.14 at 64 KiB. The frontier passes through each mixed
	// point, its band the runs' range. (These 50/50 jobs came out far below
	// the same mix in that run's load steps: a bias every run of the
	// calibration shared, which no test on its runs can see.)
	tests := map[float64]string{4096: conservation.GammaKept, 65536: conservation.GammaKept}
	for _, g := range frontier.Interference() {
		if g.Test != tests[g.IOSizeBytes] {
			t.Errorf("%v bytes: γ %+v, want %s", g.IOSizeBytes, g, tests[g.IOSizeBytes])
		}
	}
	for i, mp := range cal.Mixed {
		p := cal.Points[i] // both sorted by size
		if len(mp.Runs) != 2 || p.IOSizeBytes != mp.IOSizeBytes {
			t.Fatalf("mixed[%d] %+v against point %+v", i, mp, p)
		}
		rate := mp.IOPS / 2
		sb := sideBySide(paper, frontier, rate, rate, mp.IOSizeBytes, mp.IOSizeBytes)
		if !sb.Have {
			t.Fatal(sb.Err)
		}
		lo, hi := math.Min(mp.Runs[0], mp.Runs[1]), math.Max(mp.Runs[0], mp.Runs[1])
		switch tests[mp.IOSizeBytes] {
		case conservation.GammaZero:
			if got, want := sb.Frontier.MaxTotalIOPS, sb.Paper.MaxTotalIOPS; math.Abs(got-want) > 1e-9*want {
				t.Errorf("%v bytes: frontier at its mixed point's mix %v, want the paper's %v (γ = 0)", mp.IOSizeBytes, got, want)
			}
			if sb.Frontier.MaxTotalIOPSLower > lo*(1+1e-9) || sb.Frontier.MaxTotalIOPSUpper < hi*(1-1e-9) {
				t.Errorf("%v bytes: frontier band %v..%v does not reach the mixed runs %v..%v", mp.IOSizeBytes, sb.Frontier.MaxTotalIOPSLower, sb.Frontier.MaxTotalIOPSUpper, lo, hi)
			}
		default:
			if got := sb.Frontier.MaxTotalIOPS; math.Abs(got-mp.IOPS) > 1e-9*mp.IOPS {
				t.Errorf("%v bytes: frontier at its mixed point's mix %v, want the point's %v", mp.IOSizeBytes, got, mp.IOPS)
			}
			if sb.Frontier.MaxTotalIOPSLower > lo*(1+1e-9) || sb.Frontier.MaxTotalIOPSUpper < hi*(1-1e-9) {
				t.Errorf("%v bytes: frontier band %v..%v does not reach the mixed runs %v..%v", mp.IOSizeBytes, sb.Frontier.MaxTotalIOPSLower, sb.Frontier.MaxTotalIOPSUpper, lo, hi)
			}
		}
		want := 1 / (0.5/p.ReadIOPS + 0.5/p.WriteIOPS)
		if got := sb.Paper.MaxTotalIOPS; math.Abs(got-want) > 1e-9*want {
			t.Errorf("%v bytes: paper at 50%% %v, want %v", mp.IOSizeBytes, got, want)
		}
	}
	steps, err := PlanFromFio(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range steps {
		if s.Name == "r50-mixsize-sat" {
			if r, w := s.Sizes(); !s.MixedSize() || r != 4096 || w != 65536 || s.BS != "4k,64k" {
				t.Errorf("mixed-size step: %+v (sizes %v/%v)", s, r, w)
			}
		}
	}
}

// testdata/step-mixsize-fio.json is the mixed-size step as run.sh runs it:
// a 4 KiB randread job and a 64 KiB randwrite job in one group.
func TestParseFioStepMixedSizes(t *testing.T) {
	data, err := os.ReadFile("testdata/step-mixsize-fio.json")
	if err != nil {
		t.Fatal(err)
	}
	r, err := ParseFioStep(data)
	if err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Jobs []struct {
			Read, Write struct {
				IOPS float64 `json:"iops"`
			}
		} `json:"jobs"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	if len(raw.Jobs) != 2 || raw.Jobs[0].Write.IOPS != 0 || raw.Jobs[1].Read.IOPS != 0 {
		t.Fatalf("want a read-only job and a write-only job, got %+v", raw.Jobs)
	}
	if r.ReadIOPS != raw.Jobs[0].Read.IOPS || r.WriteIOPS != raw.Jobs[1].Write.IOPS {
		t.Errorf("parsed %+v, want reads from the read job and writes from the write job", r)
	}
}

// A calibration with a mixed-size point (4 KiB reads with 64 KiB writes at
// 50/50): η is fitted and the frontier passes through the point; the report
// lists it, says η, and names the load steps' mixed-size mix as a held-out
// mix of a calibrated size pair.
func TestMixedSizePointReported(t *testing.T) {
	cal := heldOutCal()
	frontier0, _ := conservation.NewModel(cal)
	ref := sideBySide(frontier0, frontier0, 2000, 2000, 4096, 65536)
	// 10% below what γ alone gives at 50/50: η > 0.
	m := 0.9 * ref.Frontier.MaxTotalIOPS
	cal.Mixed = append(cal.Mixed, conservation.MixedPoint{IOSizeBytes: 4096, WriteIOSizeBytes: 65536, ReadRatio: 0.5, IOPS: m, Runs: []float64{m * 0.995, m * 1.005}})
	frontier, err := conservation.NewModel(cal)
	if err != nil {
		t.Fatal(err)
	}
	paper, _ := conservation.NewPaperModel(cal)
	e, ok := frontier.SizeInterference()
	if !ok || e.Test != conservation.GammaKept || !(e.Eta > 0) {
		t.Fatalf("η %+v, want a positive η kept", e)
	}
	sb := sideBySide(paper, frontier, m/2, m/2, 4096, 65536)
	if math.Abs(sb.Frontier.MaxTotalIOPS-m) > 1e-6*m {
		t.Errorf("frontier at the mixed-size point %v, want its %v", sb.Frontier.MaxTotalIOPS, m)
	}
	r := &Report{Sys: cephSystem, Calibration: cal, Model: frontier, Paper: paper, Bounds: Bounds{ClusterVsClient: 1, Conservation: 1, FrontierCal: 1, FrontierHeld: 1}}
	r.Mixes = []MixScore{{ReadPct: 50, BS: "4k,64k", BSBytes: 34816, Measured: 0.95 * m, Side: sideBySide(paper, frontier, 0.6*m, 0.4*m, 4096, 65536)}}
	md := r.Markdown()
	for _, want := range []string{"Mixed-size points", "| 4k/64k | 50% |", "(size pair calibrated, this mix held out)", "The frontier counts the interference between sizes η"} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

// A scored mix repeats a calibration point only at the point's read and
// write sizes and read share (within the load tool's ±2 points).
func TestRepeatOf(t *testing.T) {
	cal := heldOutCal()
	cal.Mixed = append(cal.Mixed, conservation.MixedPoint{IOSizeBytes: 4096, WriteIOSizeBytes: 65536, ReadRatio: 0.5, IOPS: 3500})
	for _, c := range []struct {
		name                string
		read, write, rb, wb float64
		want                bool
		wantIOPS, wantWSize float64
	}{
		{"4 KiB at 50.1% reads", 2004, 1996, 4096, 4096, true, 4000, 0},
		{"64 KiB at 49% reads", 1617, 1683, 65536, 65536, true, 3300, 0},
		{"4 KiB at 70% reads", 7000, 3000, 4096, 4096, false, 0, 0},
		{"4 KiB at 47% reads", 1880, 2120, 4096, 4096, false, 0, 0},
		{"16 KiB at 50% reads (never calibrated)", 2000, 2000, 16384, 16384, false, 0, 0},
		{"4 KiB reads, 64 KiB writes at 50%", 1750, 1750, 4096, 65536, true, 3500, 65536},
		{"4 KiB reads, 64 KiB writes at 72%", 2520, 980, 4096, 65536, false, 0, 0},
		{"no load", 0, 0, 4096, 4096, false, 0, 0},
	} {
		p, ok := repeatOf(cal, c.read, c.write, c.rb, c.wb)
		if ok != c.want || (ok && (p.IOPS != c.wantIOPS || p.WriteIOSizeBytes != c.wantWSize)) {
			t.Errorf("%s: repeats %+v (%v), want %v at %.0f IOPS", c.name, p, ok, c.want, c.wantIOPS)
		}
	}
	r := Report{Calibration: cal, Mixes: []MixScore{
		{ReadPct: 50, BS: "4k", Measured: 3600, Side: SideBySide{Have: true, ReadIOPS: 1800, WriteIOPS: 1800, ReadBytes: 4096, WriteBytes: 4096}},
		{ReadPct: 70, BS: "4k", Measured: 6000, Side: SideBySide{Have: true, ReadIOPS: 4200, WriteIOPS: 1800, ReadBytes: 4096, WriteBytes: 4096}},
	}}
	reps := r.Repeats()
	if len(reps) != 1 || math.Abs(reps[0].Err()-(4000.0/3600-1)) > 1e-12 {
		t.Fatalf("repeats %+v, want the 50%% mix at %+.4f", reps, 4000.0/3600-1)
	}
	var out strings.Builder
	r.renderAnalysis(func(f string, a ...any) { fmt.Fprintf(&out, f, a...) })
	if !strings.Contains(out.String(), "the calibration measured 4000 (runs 3980, 4020), this step 3600: +11.1%") {
		t.Errorf("the analysis does not report the repeat:\n%s", out.String())
	}
}

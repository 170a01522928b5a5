package main

import (
	"math"
	"testing"

	"github.com/storcast/storcast/forecaster/conservation"
)

// A calibration with runs and one 50/50 mixed point per size (figures of
// the shape the real cluster gives: the mix inside the paper's line).
func heldOutCal() conservation.Calibration {
	return conservation.Calibration{
		Points: []conservation.Point{
			{IOSizeBytes: 4096, ReadIOPS: 19000, WriteIOPS: 2500, ReadRuns: []float64{18000, 20000}, WriteRuns: []float64{2400, 2600}},
			{IOSizeBytes: 65536, ReadIOPS: 9800, WriteIOPS: 2200, ReadRuns: []float64{9600, 10000}, WriteRuns: []float64{2100, 2300}},
		},
		Mixed: []conservation.MixedPoint{
			{IOSizeBytes: 4096, ReadRatio: 0.5, IOPS: 4000, Runs: []float64{3800, 4200}},
			{IOSizeBytes: 65536, ReadRatio: 0.5, IOPS: 3300, Runs: []float64{3200, 3400}},
		},
	}
}

func TestSideBySideAtACalibratedMix(t *testing.T) {
	cal := heldOutCal()
	frontier, err := conservation.NewModel(cal)
	if err != nil {
		t.Fatal(err)
	}
	paper, err := paperModel(cal)
	if err != nil {
		t.Fatal(err)
	}
	sb := sideBySide(paper, frontier, 2000, 2000, 4096, 4096)
	if !sb.Have {
		t.Fatal(sb.Err)
	}
	// One mixed point fixes γ exactly: the frontier passes through it, and
	// its band at that mix is the mixed runs' range.
	if got := sb.Frontier.MaxTotalIOPS; math.Abs(got-4000) > 1e-6 {
		t.Errorf("frontier at the calibrated mix = %v, want the mixed point's 4000", got)
	}
	if math.Abs(sb.Frontier.MaxTotalIOPSLower-3800) > 1e-6 || math.Abs(sb.Frontier.MaxTotalIOPSUpper-4200) > 1e-6 {
		t.Errorf("frontier band %v..%v, want the runs' 3800..4200", sb.Frontier.MaxTotalIOPSLower, sb.Frontier.MaxTotalIOPSUpper)
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
	if !InBand(sb.Frontier, 3900) || InBand(sb.Frontier, 4300) {
		t.Error("InBand wrong around the 3800..4200 band")
	}
	if got := OutsideBand(sb.Frontier, 4620); math.Abs(got-0.1) > 1e-9 {
		t.Errorf("OutsideBand(4620) = %v, want 0.1 above 4200", got)
	}
	if got := OutsideBand(sb.Frontier, 3420); math.Abs(got-0.1) > 1e-9 {
		t.Errorf("OutsideBand(3420) = %v, want 0.1 below 3800", got)
	}
	if OutsideBand(sb.Frontier, 4000) != 0 {
		t.Error("OutsideBand inside the band is not 0")
	}
}

func TestSideBySideMixedSizes(t *testing.T) {
	cal := heldOutCal()
	frontier, _ := conservation.NewModel(cal)
	paper, _ := paperModel(cal)
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
	paper, _ := paperModel(cal)
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
	if c := got["measured max IOPS outside the frontier's runs band (relative to the nearer end)"]; c.Pass || c.Value <= 0 {
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

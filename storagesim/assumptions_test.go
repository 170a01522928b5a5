package storagesim

import (
	"math"
	"testing"
	"time"

	"github.com/storcast/storcast/forecaster/conservation"
)

// conservationModel is the project's conservation model calibrated with the
// scenario's exact pure-read and pure-write points: a perfect calibration,
// so what it gets wrong is the assumption, not the measurement.
func conservationModel(t *testing.T, sc *Scenario) *conservation.Model {
	t.Helper()
	var cal conservation.Calibration
	for _, p := range sc.Capacity.Points {
		cal.Points = append(cal.Points, conservation.Point{IOSizeBytes: float64(p.Size), ReadIOPS: p.ReadIOPS, WriteIOPS: p.WriteIOPS})
	}
	m, err := conservation.NewModel(cal)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// conservationAt runs the model on the truth's noise-free offered rates.
func conservationAt(t *testing.T, m *conservation.Model, tr Truth) conservation.Result {
	t.Helper()
	var classes []conservation.OpClass
	for _, mx := range tr.Mix {
		classes = append(classes,
			conservation.OpClass{Op: conservation.Read, IOSizeBytes: mx.SizeBytes, Rate: tr.OfferedIOPS.Read * mx.OpShare},
			conservation.OpClass{Op: conservation.Write, IOSizeBytes: mx.SizeBytes, Rate: tr.OfferedIOPS.Write * mx.OpShare})
	}
	res, err := m.AtMix(classes)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestBrokenAssumptions measures how far the models' assumptions miss on
// the scenarios built to break them, with perfect inputs (exact calibration
// points, noise-free rates, the true future demand): the figures are the
// error of the assumption alone. docs/storagesim.md quotes its log:
//
//	go test -count=1 -v -run TestBrokenAssumptions ./storagesim/
func TestBrokenAssumptions(t *testing.T) {
	// interference: capacity and headroom of conservation vs the frontier.
	c := mustCluster(t, "interference", 1)
	m := conservationModel(t, c.sc)
	t.Log("interference: | read ratio | true max IOPS | conservation max IOPS | error | true headroom | conservation headroom |")
	for _, at := range []time.Duration{36*time.Hour + 2*time.Hour, 2*24*time.Hour + 14*time.Hour, 3*24*time.Hour + 14*time.Hour} {
		tr := c.Truth(testOrigin.Add(at), 0)
		res := conservationAt(t, m, tr)
		e := (res.MaxTotalIOPS - tr.MaxIOPS.Total) / tr.MaxIOPS.Total
		t.Logf("interference: | %.2f | %.0f | %.0f | %+.1f%% | %.3f | %.3f |", tr.ReadRatio, tr.MaxIOPS.Total, res.MaxTotalIOPS, 100*e, tr.HeadroomRatio, res.HeadroomRatio)
		if e < 0.10 || e > 0.20 {
			t.Errorf("interference at %.2f reads: conservation errs %+.1f%%, want +10..+20%%", tr.ReadRatio, 100*e)
		}
		if res.HeadroomRatio <= tr.HeadroomRatio {
			t.Errorf("interference at %.2f reads: conservation headroom %v not above the true %v", tr.ReadRatio, res.HeadroomRatio, tr.HeadroomRatio)
		}
	}

	// growth-interference: when does saturation come?
	c = mustCluster(t, "growth-interference", 1)
	m = conservationModel(t, c.sc)
	tr0 := c.Truth(testOrigin, 0)
	trueETA := tr0.SaturationTime.Sub(testOrigin)
	var consETA, iopsETA time.Duration
	for s := time.Duration(0); s < 72*time.Hour && (consETA == 0 || iopsETA == 0); s += time.Minute {
		tr := c.Truth(testOrigin.Add(s), 0)
		if consETA == 0 && conservationAt(t, m, tr).Utilization >= 1 {
			consETA = s
		}
		if iopsETA == 0 && tr.OfferedIOPS.Total >= tr0.MaxIOPS.Total {
			iopsETA = s
		}
	}
	t.Logf("growth-interference: true crossing %s; conservation on the true future mix %s (%+.1f h); IOPS against the origin's capacity %s (%+.1f h)",
		trueETA, consETA, (consETA - trueETA).Hours(), iopsETA, (iopsETA - trueETA).Hours())
	if consETA-trueETA < time.Hour || iopsETA-trueETA < 6*time.Hour {
		t.Errorf("growth-interference: conservation %s and fixed-capacity %s crossings should come hours after the true %s", consETA, iopsETA, trueETA)
	}
	for _, at := range []time.Duration{6 * time.Hour, 10 * time.Hour} {
		tr := c.Truth(testOrigin.Add(at), 0)
		u := tr.FrontierUtilization
		mm1 := tr.Latency.ZeroLoad / (1 - u)
		t.Logf("growth-interference: at %s U %.3f: latency %.2f ms, M/M/1 at the same U %.2f ms (%+.0f%%)", at, u, 1e3*tr.Latency.Now, 1e3*mm1, 100*(mm1/tr.Latency.Now-1))
	}

	// closed-loop: latency and throughput against the open-loop M/M/1 view.
	c = mustCluster(t, "closed-loop", 1)
	t.Log("closed-loop: | outstanding | throughput | U | latency ms | M/M/1 latency ms | error | 1.5× clients → throughput (true, proportional) |")
	var worstProp float64
	for h := 3; h <= 45; h += 6 {
		tr := c.Truth(testOrigin.Add(time.Duration(h)*time.Hour), 0)
		next := c.Truth(testOrigin.Add(time.Duration(h+6)*time.Hour), 0)
		u := tr.FrontierUtilization
		mm1 := tr.Latency.ZeroLoad / (1 - u)
		prop := 1.5 * tr.ServedIOPS.Total
		worstProp = math.Max(worstProp, prop/next.ServedIOPS.Total-1)
		t.Logf("closed-loop: | %.1f | %.0f | %.3f | %.2f | %.2f | %+.0f%% | %.0f, %.0f (%+.0f%%) |", tr.Clients.Outstanding, tr.ServedIOPS.Total, u,
			1e3*tr.Latency.Now, 1e3*mm1, 100*(mm1/tr.Latency.Now-1), next.ServedIOPS.Total, prop, 100*(prop/next.ServedIOPS.Total-1))
	}
	tr := c.Truth(testOrigin, 0)
	mm1Knee := tr.MaxIOPS.Total * (1 - tr.Latency.ZeroLoad/tr.SLOSeconds)
	t.Logf("closed-loop: %.0f ms SLO knee: true %.0f IOPS (%.1f outstanding), M/M/1 %.0f IOPS (%+.1f%%)", 1e3*tr.SLOSeconds, tr.SLOCrossingIOPS,
		tr.Clients.SLOCrossingOutstanding, mm1Knee, 100*(mm1Knee/tr.SLOCrossingIOPS-1))
	if worstProp < 0.3 {
		t.Errorf("closed-loop: throughput proportional to clients errs at most %+.0f%%; the scenario should saturate", 100*worstProp)
	}
}

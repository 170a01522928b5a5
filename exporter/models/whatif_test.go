package models

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/storcast/storcast/exporter/features"
	"github.com/storcast/storcast/exporter/source"
	"github.com/storcast/storcast/forecaster/conservation"
)

// whatIfTruth is a latency (ms) that depends on the mix and the load in a
// way none of the learners has as its form: a write penalty, a size cost
// and a queueing blow-up in the frontier's utilization.
func whatIfTruth(readRatio, sizeBytes, u float64) float64 {
	return 0.4 + 1.2*(1-readRatio) + 0.3*math.Log2(sizeBytes/4096) + 0.8*u/(1-u)
}

// whatIfHistory is two days of 5-minute windows on a cluster whose
// capacity is the paper's model of cal, with the read ratio, the size and
// the load wandering, and latency from whatIfTruth with 3% noise.
func whatIfHistory(t *testing.T, capm *conservation.Model) *source.Frame {
	t.Helper()
	start := time.Unix(1.79e9, 0)
	r := source.Range{Start: start, End: start.Add(48 * time.Hour), Step: 5 * time.Minute}
	n := r.N()
	sig := map[string][]float64{}
	for _, k := range []string{source.ReadOps, source.WriteOps, source.ReadBytes, source.WriteBytes, source.Latency} {
		sig[k] = make([]float64, n)
	}
	rng := rand.New(rand.NewPCG(5, 5))
	for i := 0; i < n; i++ {
		rr := 0.3 + 0.6*rng.Float64()
		size := []float64{4096, 16384, 65536}[rng.IntN(3)]
		u := 0.1 + 0.75*rng.Float64()
		o := features.Observed{ReadIOPS: rr, WriteIOPS: 1 - rr, IOPS: 1, ReadRatio: rr, ReadSizeBytes: size, WriteSizeBytes: size, IOSizeBytes: size}
		res, err := capm.AtMix(features.OpClasses(o))
		if err != nil {
			t.Fatal(err)
		}
		iops := u * res.MaxTotalIOPS // γ = 0: utilization is linear in load
		sig[source.ReadOps][i], sig[source.WriteOps][i] = rr*iops, (1-rr)*iops
		sig[source.ReadBytes][i], sig[source.WriteBytes][i] = rr*iops*size, (1-rr)*iops*size
		sig[source.Latency][i] = whatIfTruth(rr, size, u) * (1 + 0.03*rng.NormFloat64()) / 1e3
	}
	return &source.Frame{Range: r, Signals: sig}
}

func TestWhatIfFitterKnownTruth(t *testing.T) {
	cal := conservation.Calibration{Points: []conservation.Point{
		{IOSizeBytes: 4096, ReadIOPS: 40000, WriteIOPS: 12000},
		{IOSizeBytes: 65536, ReadIOPS: 9000, WriteIOPS: 3000},
	}}
	capFit, err := NewCapacity(cal, "file", 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	capm := capFit.Model()
	in := Input{Frame: whatIfHistory(t, capm), Fitted: Set{Conservation: capFit}}
	fitted, err := WhatIfFitter{}.Fit(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	m := fitted.(*WhatIfFit)
	w := m.Winner()
	t.Logf("winner %s %v: CV RMSE %.3f ms (%.1f%% of the mean); %d learners ranked", w.Name, w.Params, w.CVRMSEMillis, 100*w.CVErrorRatio, len(m.Learners))
	if !strings.Contains(m.Note(), w.Name+" serves") {
		t.Errorf("note %q does not name the winner", m.Note())
	}
	if len(m.Learners) < 4 {
		t.Errorf("%d learners ranked, want at least 4 of 5", len(m.Learners))
	}
	if w.CVErrorRatio > 0.10 {
		t.Errorf("winner's CV error %.1f%% of the mean latency (limit 10%%)", 100*w.CVErrorRatio)
	}
	if w.DefaultCVRMSEMillis >= 0 && w.CVRMSEMillis > w.DefaultCVRMSEMillis+1e-12 {
		t.Errorf("search made %s worse than its defaults: %v > %v", w.Name, w.CVRMSEMillis, w.DefaultCVRMSEMillis)
	}

	// Workloads the history did not hold exactly: within 10% of the truth.
	for _, c := range []struct{ rr, size, u float64 }{{0.5, 4096, 0.3}, {0.8, 65536, 0.6}, {0.35, 16384, 0.75}} {
		o := features.Observed{ReadIOPS: c.rr, WriteIOPS: 1 - c.rr, IOPS: 1, ReadRatio: c.rr, ReadSizeBytes: c.size, WriteSizeBytes: c.size, IOSizeBytes: c.size}
		unit, err := capm.AtMix(features.OpClasses(o))
		if err != nil {
			t.Fatal(err)
		}
		o.ReadIOPS, o.WriteIOPS, o.IOPS = c.rr*c.u*unit.MaxTotalIOPS, (1-c.rr)*c.u*unit.MaxTotalIOPS, c.u*unit.MaxTotalIOPS
		res, _ := capm.AtMix(features.OpClasses(o))
		got := m.Latency(o, res)
		want := whatIfTruth(c.rr, c.size, c.u) / 1e3
		if !got.Served {
			t.Fatalf("%+v not served: %s", c, got.Reason)
		}
		if e := math.Abs(got.Band.Mean-want) / want; e > 0.10 {
			t.Errorf("%+v: %.3f ms, truth %.3f ms (%.1f%% > 10%%)", c, got.Band.Mean*1e3, want*1e3, 100*e)
		}
		if !(got.Band.Lower <= want && want <= got.Band.Upper) {
			t.Errorf("%+v: truth %.3f ms outside the band %.3f..%.3f", c, want*1e3, got.Band.Lower*1e3, got.Band.Upper*1e3)
		}
	}
	// Past capacity, and past the history's load: not served.
	o := features.Observed{ReadIOPS: 0.5, WriteIOPS: 0.5, IOPS: 1, ReadRatio: 0.5, ReadSizeBytes: 4096, WriteSizeBytes: 4096, IOSizeBytes: 4096}
	for _, u := range []float64{1.0, 1.3, m.MaxUtilization + 0.05} {
		if got := m.Latency(o, conservation.Result{Utilization: u}); got.Served {
			t.Errorf("utilization %.2f served %v", u, got.Band)
		}
	}
	// Outside the history's mix and sizes (it held 30-90% reads, 4-64
	// KiB): not served, the reason naming the feature. They were served,
	// 1 MiB from the 64 KiB edge.
	for _, c := range []struct {
		rr, size float64
		want     string
	}{{0, 4096, "read ratio 0.00 is outside"}, {0.5, 1 << 20, "read size 1048576 bytes is outside"}, {0.5, 512, "read size 512 bytes is outside"}} {
		o := features.Observed{ReadRatio: c.rr, ReadSizeBytes: c.size, WriteSizeBytes: c.size, IOSizeBytes: c.size}
		if got := m.Latency(o, conservation.Result{Utilization: 0.3}); got.Served || !strings.Contains(got.Reason, c.want) {
			t.Errorf("read ratio %v, size %v: served %v, reason %q; want not served, %q", c.rr, c.size, got.Served, got.Reason, c.want)
		}
	}

	// Saved and restored, it predicts the same.
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	back, err := WhatIfFitter{}.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	res := conservation.Result{Utilization: 0.4}
	if a, z := m.Latency(o, res), back.(*WhatIfFit).Latency(o, res); a != z {
		t.Errorf("restored model predicts %+v, saved one %+v", z, a)
	}
	if _, err := (WhatIfFitter{}).Decode([]byte(`{"learners":[{"name":"nope"}],"x":[[1,2,3,4],[1,2,3,4]],"yMillis":[1,2]}`)); err == nil {
		t.Error("an unknown learner decoded")
	}
}

// TestWhatIfFitterWaits: too few windows with latency is a Waiting error.
func TestWhatIfFitterWaits(t *testing.T) {
	capFit, err := NewCapacity(conservation.Calibration{Points: []conservation.Point{{IOSizeBytes: 4096, ReadIOPS: 40000, WriteIOPS: 12000}}}, "file", 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	f := whatIfHistory(t, capFit.Model())
	f.Range.End = f.Range.Start.Add(time.Hour)
	_, err = WhatIfFitter{}.Fit(context.Background(), Input{Frame: f, Fitted: Set{Conservation: capFit}})
	var w *Waiting
	if !errors.As(err, &w) || w.Need != whatIfMinWindows {
		t.Errorf("err %v, want waiting for %d windows", err, whatIfMinWindows)
	}
}

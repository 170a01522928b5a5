package engine

import (
	"math"
	"testing"
	"time"

	"github.com/storcast/storcast/exporter/config"
	"github.com/storcast/storcast/exporter/features"
	"github.com/storcast/storcast/exporter/source"
)

// TestMeanAccuracyIndependentOfMapOrder: values whose float sum depends on
// the order of addition give the same mean on every call (map iteration
// order varies from call to call), equal to the sum in key order.
func TestMeanAccuracyIndependentOfMapOrder(t *testing.T) {
	acc := map[string]float64{"a": 1e16, "b": 1, "c": -1e16, "d": 1, "e": 0.1, "f": 3e-17}
	var want float64 // in float64 arithmetic (a constant expression is exact)
	for _, k := range []string{"a", "b", "c", "d", "e", "f"} {
		want += acc[k]
	}
	want /= 6
	for i := range 200 {
		if got := meanAccuracy(acc); got != want {
			t.Fatalf("call %d: meanAccuracy = %v, want %v (the key-order sum)", i, got, want)
		}
	}
}

// TestWindowObservationIsTheWindowsOwn: the fit sees the observation at the
// end of its own window whatever the last refresh saw; without recent data
// in the window it falls back to the last refresh's.
func TestWindowObservationIsTheWindowsOwn(t *testing.T) {
	cfg := config.Default()
	t0 := time.Unix(1.7e9, 0)
	const n = 20
	r := source.Range{Start: t0, End: t0.Add((n - 1) * time.Minute), Step: time.Minute}
	sig := func(v float64) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = v
		}
		return out
	}
	frame := &source.Frame{Range: r, Signals: map[string][]float64{
		source.ReadOps: sig(300), source.WriteOps: sig(100), source.ReadBytes: sig(300 * 4096), source.WriteBytes: sig(100 * 8192), source.Latency: sig(0.002),
	}}
	last := &Snapshot{Observed: features.Observed{IOPS: 999, ReadIOPS: 999}, HasObserved: true}
	obs, ok := windowObservation(&cfg, frame, last)
	if !ok || obs.IOPS != 400 || obs.ReadIOPS != 300 || obs.Time != float64(r.End.Unix()) {
		t.Errorf("window observation %+v (ok %v), want 400 IOPS (300 reads) at the window's end %d", obs, ok, r.End.Unix())
	}
	// The same window gives the same observation whatever the last refresh saw.
	if again, _ := windowObservation(&cfg, frame, &Snapshot{}); again != obs {
		t.Errorf("with another last refresh: %+v, want %+v", again, obs)
	}
	// No sample in the window's last steps: the last refresh's observation.
	for _, s := range frame.Signals {
		for i := n - freshSteps(&cfg) - 1; i < n; i++ {
			s[i] = math.NaN()
		}
	}
	if obs, ok := windowObservation(&cfg, frame, last); !ok || obs.IOPS != 999 {
		t.Errorf("without recent data: %+v (ok %v), want the last refresh's 999 IOPS", obs, ok)
	}
}

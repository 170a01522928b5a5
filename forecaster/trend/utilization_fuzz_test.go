package trend

import (
	"math"
	"testing"

	"github.com/storcast/storcast/internal/fuzzbytes"
)

// FuzzFitUtilization: arbitrary (time, utilization) pairs either fail with
// an error or give a trend whose ETA is never negative or NaN, with
// early ≤ peak ≤ late, and 0 everywhere when the caller reports saturation.
func FuzzFitUtilization(f *testing.F) {
	var seed []float64
	for i := 0; i < 40; i++ {
		t := float64(i) * 3600
		seed = append(seed, t, 0.5+0.01*float64(i)+0.1*math.Sin(2*math.Pi*t/Day))
	}
	f.Add(fuzzbytes.Of(seed...), uint8(0))
	f.Add(fuzzbytes.Of(seed...), uint8(2))
	f.Add(fuzzbytes.Of(0, 0.1, 1, 0.2, 2, 0.3, 3, 0.4, 4, 0.5), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, growth uint8) {
		v := fuzzbytes.Floats(data)
		n := len(v) / 2
		if n > 400 {
			return
		}
		ts, us := make([]float64, n), make([]float64, n)
		for i := 0; i < n; i++ {
			ts[i], us[i] = v[2*i], v[2*i+1]
		}
		ut, err := FitUtilization(ts, us, UtilizationOptions{Growth: Growth(growth % 3), HorizonSeconds: 30 * Day})
		if err != nil {
			return
		}
		now := ut.LastT
		e := ut.ETA(now, 0.5, false)
		for _, x := range []float64{e.PeakSeconds, e.EarlySeconds, e.LateSeconds, e.MeanSeconds} {
			if math.IsNaN(x) || x < 0 {
				t.Fatalf("bad ETA %+v", e)
			}
		}
		if !(e.EarlySeconds <= e.PeakSeconds && e.PeakSeconds <= e.LateSeconds) {
			t.Fatalf("ETA band out of order: %+v", e)
		}
		if s := ut.ETA(now, 1, false); s.PeakSeconds != 0 || s.MeanSeconds != 0 {
			t.Fatalf("saturated but ETA %+v", s)
		}
	})
}

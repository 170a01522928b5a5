package trend

import (
	"math"
	"testing"

	"github.com/storcast/storcast/internal/fuzzbytes"
)

// FuzzFitUtilization: arbitrary (time, utilization) pairs either fail with
// an error or give a trend whose ETA is never negative or NaN, with
// early ≤ peak ≤ late (also against a limit with a band), and 0
// everywhere when the caller reports saturation; bit 2 of growth lets the
// line bend, which must then lie inside the history with a finite slope
// after it.
func FuzzFitUtilization(f *testing.F) {
	var seed []float64
	for i := 0; i < 40; i++ {
		t := float64(i) * 3600
		seed = append(seed, t, 0.5+0.01*float64(i)+0.1*math.Sin(2*math.Pi*t/Day))
	}
	f.Add(fuzzbytes.Of(seed...), uint8(0))
	f.Add(fuzzbytes.Of(seed...), uint8(2))
	f.Add(fuzzbytes.Of(0, 0.1, 1, 0.2, 2, 0.3, 3, 0.4, 4, 0.5), uint8(1))
	var bent []float64 // three days, the drift doubling its pace after two
	for i := 0; i < 72; i++ {
		t := float64(i) * 3600
		bent = append(bent, t, 0.8-0.03*t/Day-0.06*math.Max(t-2*Day, 0)/Day+0.04*math.Cos(2*math.Pi*t/Day))
	}
	f.Add(fuzzbytes.Of(bent...), uint8(1|4))
	var window []float64 // three days of a business-hours window: the profile's case
	for i := 0; i < 72; i++ {
		t := float64(i) * 3600
		w := 0.75
		if h := math.Mod(t, Day) / 3600; h >= 10 && h < 18 {
			w = 1.25
		}
		window = append(window, t, 0.4*math.Pow(1.15, t/Day)*w)
	}
	f.Add(fuzzbytes.Of(window...), uint8(8))
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
		choose := growth&8 != 0 // the cycle's form by BIC, the profile among them
		ut, err := FitUtilization(ts, us, UtilizationOptions{Growth: Growth(growth & 3 % 3), HorizonSeconds: 30 * Day, Bend: growth&4 != 0, ChooseHarmonics: choose, Profile: choose})
		if err != nil {
			return
		}
		if ut.BendAt != 0 {
			if b, se := ut.Slope(); !(ut.BendAt > ut.FirstT && ut.BendAt < ut.LastT) || !finite(b) || !finite(se) {
				t.Fatalf("bend at %v in [%v, %v], slope after it %v ± %v", ut.BendAt, ut.FirstT, ut.LastT, b, se)
			}
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
		// Against a limit with a band (the read ratio's and the capacity's)
		// the order holds too.
		ut.Limit = &Limit{T0: now, ReadRatio0: 0.5, Slope: -0.05 / Day, Capacity: []float64{0.8, 1, 1.2},
			Z: 1.96, LevelSE: 0.03, SlopeSE: 0.02 / Day, CapacityLower: []float64{0.7, 0.9, 1.1}, CapacityUpper: []float64{0.9, 1.1, 1.3}}
		if e := ut.ETA(now, 0.5, false); !(e.EarlySeconds <= e.PeakSeconds && e.PeakSeconds <= e.LateSeconds) || math.IsNaN(e.EarlySeconds) {
			t.Fatalf("ETA band against a banded limit out of order: %+v", e)
		}
	})
}

// FuzzLimitBand: any limit (as a damaged saved state may hold) gives a band
// without a panic, and where the band can be read its ends hold the limit.
func FuzzLimitBand(f *testing.F) {
	f.Add(fuzzbytes.Of(0, 0.5, 0, 2, 0.05, 1e-6, 1, 0.8, 1, 0.9, 0.7, 0.9, 1.1, 0.9, 1.1, 86400))
	f.Add(fuzzbytes.Of(0, 1.3, -1e-5, 0, 0, 1e300, 1, 2, math.NaN(), 1, 2, 3, 1e9))
	f.Add(fuzzbytes.Of(0, 0, 1e308, 1, 0, 1e308, 1, 2, 1, 2, 1, 2, 10)) // ∞ − ∞ read ratios
	f.Fuzz(func(t *testing.T, data []byte) {
		v := fuzzbytes.Floats(data)
		if len(v) < 7 || len(v) > 64 {
			return
		}
		n := (len(v) - 7) / 3
		l := &Limit{T0: v[0], ReadRatio0: v[1], Slope: v[2], Z: v[3], LevelSE: v[4], SlopeSE: v[5],
			Capacity: v[6 : 6+n], CapacityLower: v[6+n : 6+2*n], CapacityUpper: v[6+2*n : 6+3*n]}
		at := v[len(v)-1]
		lo, hi := bandAt(l, at)
		if m := l.At(at); l.bandOK() && !math.IsNaN(m) && !(lo <= m && m <= hi) {
			t.Fatalf("limit %v outside its band [%v, %v]: %+v at %v", m, lo, hi, l, at)
		}
	})
}

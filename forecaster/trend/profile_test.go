package trend

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// demandOptions are the options the exporter fits demand with.
var demandOptions = UtilizationOptions{ChooseHarmonics: true, Profile: true}

// window is a daily cycle that is +a for the hours hours centred on peak
// (UTC) and −a for the rest of the day: a backup window, business hours.
func window(a, peak, hours float64) func(x float64) float64 {
	return func(x float64) float64 {
		off := math.Abs(math.Mod(math.Mod(x, Day)/3600-peak+36, 24) - 12)
		if off <= hours/2 {
			return a
		}
		return -a
	}
}

// peakOver is the largest of f over the day from t, on a 5-minute grid.
func peakOver(f func(float64) float64, t float64) float64 {
	m := math.Inf(-1)
	for x := t; x < t+Day; x += 300 {
		m = math.Max(m, f(x))
	}
	return m
}

// TestProfileKnownTruth: demand growing 15% a day under a daily window
// that switches at once on the hour (±25% for a 4-hour backup window and
// for 8 business hours), 3% noise per 5-minute window, 3 days of history.
// The profile is chosen and the next day's peak is forecast within 0.5%;
// harmonics alone (Profile off, as before) miss it by 1% or more (−10%
// and +2%): short of a narrow window's top, over a wide one's.
func TestProfileKnownTruth(t *testing.T) {
	for _, c := range []struct {
		name  string
		hours float64
	}{{"4-hour window", 4}, {"8 business hours", 8}} {
		cycle := window(0.25, 14, c.hours)
		truth := func(x float64) float64 { return 0.4 * math.Pow(1.15, (x-uT0)/Day) * (1 + cycle(x)) }
		ts, us := utilSeries(rand.New(rand.NewPCG(3, 3)), uT0, 3, 0, func(x float64) float64 { return truth(x) })
		rng := rand.New(rand.NewPCG(4, 4))
		for i := range us {
			us[i] *= 1 + 0.03*rng.NormFloat64()
		}
		next := uT0 + 3*Day
		want := peakOver(truth, next)
		for _, profile := range []bool{true, false} {
			opts := demandOptions
			opts.Profile = profile
			ut, err := FitUtilization(ts, us, opts)
			if err != nil {
				t.Fatal(err)
			}
			got := peakOver(func(x float64) float64 { m, _, _ := ut.At(x); return m }, next)
			rel := got/want - 1
			t.Logf("%s, profile allowed %v: profile %v, %d harmonics, %v growth; next day's peak %.4f, true %.4f (%+.2f%%)", c.name, profile, ut.Profile, ut.Harmonics, ut.Growth, got, want, 100*rel)
			switch {
			case profile && !ut.Profile:
				t.Errorf("%s: %d harmonics chosen, want the profile", c.name, ut.Harmonics)
			case profile && math.Abs(rel) > 0.005:
				t.Errorf("%s: the next day's peak %+.2f%% from the truth with the profile, want within 0.5%%", c.name, 100*rel)
			case !profile && math.Abs(rel) < 0.01:
				t.Errorf("%s: harmonics alone put the next day's peak %+.2f%% from the truth; the test expects them to miss it by 1%% or more", c.name, 100*rel)
			}
		}
	}
}

// TestProfileNotOnASmoothCycle: a cosine cycle and a flat noisy line are
// not given the profile: its 23 levels buy less than their BIC price where
// a few harmonics or none hold the cycle.
func TestProfileNotOnASmoothCycle(t *testing.T) {
	for _, c := range []struct {
		name string
		f    func(float64) float64
	}{
		{"cosine", func(x float64) float64 {
			return 0.4 * math.Pow(1.15, (x-uT0)/Day) * (1 + 0.25*math.Cos(2*math.Pi*(math.Mod(x, Day)/Day-14.0/24)))
		}},
		{"flat", func(float64) float64 { return 0.5 }},
	} {
		for seed := uint64(0); seed < 20; seed++ {
			ts, us := utilSeries(rand.New(rand.NewPCG(seed, 21)), uT0, 3, 0.01, c.f)
			ut, err := FitUtilization(ts, us, demandOptions)
			if err != nil {
				t.Fatal(err)
			}
			if ut.Profile {
				t.Errorf("%s, seed %d: the profile chosen", c.name, seed)
			}
		}
	}
}

// TestChooseHarmonicsOnTheLogScale: demand growing exponentially under a
// cosine cycle is a cosine times the growth, whose logarithm (the scale
// the exponential form is fitted on) holds a second harmonic of a²/4
// (1.6% for a = 0.25). Chosen on the linear scale, one harmonic was taken
// and the next day's peak came out 1.5% low; chosen on the scale of the
// form that may be fitted, it is within 0.2%.
func TestChooseHarmonicsOnTheLogScale(t *testing.T) {
	truth := func(x float64) float64 {
		return 0.4 * math.Pow(1.15, (x-uT0)/Day) * (1 + 0.25*math.Cos(2*math.Pi*(math.Mod(x, Day)/Day-14.0/24)))
	}
	ts, us := utilSeries(rand.New(rand.NewPCG(6, 6)), uT0, 3, 0.002, truth)
	ut, err := FitUtilization(ts, us, demandOptions)
	if err != nil {
		t.Fatal(err)
	}
	next := uT0 + 3*Day
	got := peakOver(func(x float64) float64 { m, _, _ := ut.At(x); return m }, next)
	want := peakOver(truth, next)
	t.Logf("%d harmonics, %v growth: the next day's peak %+.2f%% from the truth", ut.Harmonics, ut.Growth, 100*(got/want-1))
	if ut.Growth != GrowthExponential || ut.Harmonics < 2 || math.Abs(got/want-1) > 0.002 {
		t.Errorf("%d harmonics, %v growth, the next day's peak %+.2f%% from the truth; want exponential, at least 2 and within 0.2%%", ut.Harmonics, ut.Growth, 100*(got/want-1))
	}
}

// TestProfileShape: the profile's cycle has a daily mean of 0 (the line is
// the daily mean, as with harmonics) and is its hour's level throughout the
// hour (UTC, also before 1970), for random levels: it cannot overshoot
// them.
func TestProfileShape(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	for trial := 0; trial < 50; trial++ {
		ut := &UtilizationTrend{Profile: true, TMean: uT0}
		ut.Coef = make([]float64, ut.params())
		levels := make([]float64, 24)
		for j := 0; j < profileParams; j++ {
			ut.Coef[2+j] = rng.NormFloat64()
			levels[j] = ut.Coef[2+j]
			levels[23] -= ut.Coef[2+j]
		}
		for _, day := range []float64{math.Floor(uT0/Day) * Day, -3 * Day} {
			var sum float64
			const n = 24 * 60
			for k := 0; k < n; k++ {
				at := day + float64(k)*Day/n
				v := ut.curve(at, true) - ut.curve(at, false)
				sum += v
				if h := k / 60; math.Abs(v-levels[h]) > 1e-9 {
					t.Fatalf("trial %d, day %v: at %02d:%02d the cycle is %v, want the hour's level %v", trial, day/Day, h, k%60, v, levels[h])
				}
			}
			if math.Abs(sum/n) > 1e-9 {
				t.Errorf("trial %d: the cycle's daily mean %v, want 0", trial, sum/n)
			}
		}
	}
	if v := (&UtilizationTrend{Profile: true, Coef: make([]float64, 2+profileParams)}).curve(math.NaN(), true); !math.IsNaN(v) {
		t.Errorf("the profile at t = NaN: %v, want NaN", v)
	}
}

// TestCorruptProfileGivesNoForecast: a saved trend that claims both a
// profile and harmonics gives no forecast, and a profile trend holds no
// cycle a Limit could carry.
func TestCorruptProfileGivesNoForecast(t *testing.T) {
	zeros := func(n int) string { return strings.TrimSuffix(strings.Repeat("0,", n), ",") }
	var ut UtilizationTrend
	// coef[0] = 2: were the shape accepted, the trend would be at 2 and
	// the ETA 0.
	js := `{"growth":1,"harmonics":1,"profile":true,"coef":[2,` + zeros(1+2+profileParams) + `],"cov":[` + zeros(27*27) + `],"lastT":1}`
	if err := json.Unmarshal([]byte(js), &ut); err != nil {
		t.Fatal(err)
	}
	if e := ut.ETA(uT0, 0.5, false); !math.IsInf(e.PeakSeconds, 1) {
		t.Errorf("a trend with a profile and a harmonic: ETA %+v, want none", e)
	}
	ok := &UtilizationTrend{Profile: true, Coef: make([]float64, 2+profileParams), Cov: make([]float64, (2+profileParams)*(2+profileParams))}
	if c := ok.DailyCycle(); c != nil {
		t.Errorf("a profile's DailyCycle %v, want nil", c)
	}
}

// TestProfileHourThatSwitches: a window is measured as a rate over the
// 5 minutes before each sample, as Prometheus' rate() gives it, so the
// sample at 10:00 is the quiet hour's and the one at 18:00 the window's:
// on a quiet series every window of hours 10 and 18 then lies far from
// its hour's level, the bisquare gave them all weight 0, and the design
// was singular (on storagesim's business-hours variant the exponential
// form failed, the linear one won and the next day's peak came out 18%
// low). With the cut-off widened until the design is identified, the fit
// holds, the peak is within 0.5%, and hour 10's level, the window's first,
// is that of its good windows (within 0.3%; flooring the weights instead
// kept the edge sample in it, about 1% low).
func TestProfileHourThatSwitches(t *testing.T) {
	cycle := window(0.25, 14, 8) // 10:00 to 18:00 UTC
	truth := func(x float64) float64 { return 0.4 * math.Pow(1.15, (x-uT0)/Day) * (1 + cycle(x)) }
	rate := func(x float64) float64 { // the mean over (x − 300 s, x]
		var s float64
		for k := 0; k < 60; k++ {
			s += truth(x - float64(k)*5)
		}
		return s / 60
	}
	ts, us := utilSeries(rand.New(rand.NewPCG(7, 7)), uT0, 3, 0, rate)
	rng := rand.New(rand.NewPCG(8, 8))
	for i := range us {
		us[i] *= 1 + 0.001*rng.NormFloat64()
	}
	for _, g := range []Growth{GrowthExponential, GrowthAuto} {
		opts := demandOptions
		opts.Growth = g
		ut, err := FitUtilization(ts, us, opts)
		if err != nil {
			t.Fatalf("growth %v: %v", g, err)
		}
		next := uT0 + 3*Day
		got := peakOver(func(x float64) float64 { m, _, _ := ut.At(x); return m }, next)
		want := peakOver(truth, next)
		t.Logf("growth %v: %v, profile %v; the next day's peak %+.2f%% from the truth", g, ut.Growth, ut.Profile, 100*(got/want-1))
		if ut.Growth != GrowthExponential || !ut.Profile || math.Abs(got/want-1) > 0.005 {
			t.Errorf("growth %v: %v, profile %v, the next day's peak %+.2f%% from the truth; want exponential, the profile, within 0.5%%", g, ut.Growth, ut.Profile, 100*(got/want-1))
		}
		first := math.Floor(next/Day)*Day + 10.5*3600 // 10:30 UTC after the history
		if first < next {
			first += Day
		}
		if m, _, _ := ut.At(first); math.Abs(m/truth(first)-1) > 0.003 {
			t.Errorf("growth %v: the window's first hour at %+.2f%% from the truth, want within 0.3%%", g, 100*(m/truth(first)-1))
		}
	}
}

// BenchmarkFitDemand: demand's fit as the exporter makes it (the cycle's
// form chosen among harmonics and the profile) against two fixed
// harmonics, at the default fit.step of a minute over 3 and 7 days of
// exponential growth under an 8-hour window.
func BenchmarkFitDemand(b *testing.B) {
	cycle := window(0.25, 14, 8)
	for _, days := range []float64{3, 7} {
		rng := rand.New(rand.NewPCG(1, 1))
		var ts, us []float64
		for t := uT0; t < uT0+days*Day; t += 60 {
			ts = append(ts, t)
			us = append(us, 0.4*math.Pow(1.15, (t-uT0)/Day)*(1+cycle(t))*(1+0.03*rng.NormFloat64()))
		}
		for _, c := range []struct {
			name string
			opts UtilizationOptions
		}{{"two-harmonics", UtilizationOptions{}}, {"chosen", demandOptions}} {
			b.Run(fmt.Sprintf("%gd/%s", days, c.name), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := FitUtilization(ts, us, c.opts); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

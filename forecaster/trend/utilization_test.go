package trend

import (
	"bufio"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
)

// utilSeries samples u(t) every 5 minutes over days days from uT0 with
// additive Gaussian noise of sd noise.
func utilSeries(rng *rand.Rand, uT0, days, noise float64, u func(t float64) float64) (ts, us []float64) {
	for t := uT0; t < uT0+days*Day; t += 300 {
		ts = append(ts, t)
		us = append(us, u(t)+noise*rng.NormFloat64())
	}
	return ts, us
}

// firstCrossing is the first t ≥ from at which f reaches 1 (scan at 1 s
// resolution after a 60 s scan): the known truth.
func firstCrossing(f func(t float64) float64, from float64) float64 {
	t := from
	for f(t) < 1 {
		t += 60
		if t > from+3650*Day {
			return math.Inf(1)
		}
	}
	for f(t-1) >= 1 {
		t--
	}
	return t
}

const uT0 = 1.7e9 // a Unix time (the daily phase is the clock's)

func TestUtilizationETAKnownTruths(t *testing.T) {
	cases := []struct {
		name        string
		days        float64
		growth      Growth
		trend, peak func(t float64) float64 // noiseless mean and peak-bearing truth
		noise       float64
	}{
		{"linear, 7 days", 7, GrowthLinear,
			func(t float64) float64 { return 0.5 + 0.03*(t-uT0)/Day },
			func(t float64) float64 { return 0.5 + 0.03*(t-uT0)/Day + 0.08*math.Sin(2*math.Pi*(t-uT0)/Day) },
			0.01},
		{"exponential, 7 days", 7, GrowthExponential,
			func(t float64) float64 { return 0.3 * math.Exp(0.08*(t-uT0)/Day) },
			func(t float64) float64 {
				return 0.3 * math.Exp(0.08*(t-uT0)/Day) * (1 + 0.1*math.Sin(2*math.Pi*(t-uT0)/Day))
			},
			0.01},
	}
	for _, c := range cases {
		for s := 0; s < 5; s++ {
			rng := rand.New(rand.NewPCG(uint64(s), 5))
			ts, us := utilSeries(rng, uT0, c.days, c.noise, c.peak)
			ut, err := FitUtilization(ts, us, UtilizationOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if ut.Growth != c.growth {
				t.Errorf("%s seed %d: growth %v, want %v", c.name, s, ut.Growth, c.growth)
			}
			now := ts[len(ts)-1]
			eta := ut.ETA(now, us[len(us)-1], false)
			trueMean := firstCrossing(c.trend, now) - now
			truePeak := firstCrossing(c.peak, now) - now
			if e := math.Abs(eta.MeanSeconds/trueMean - 1); e > 0.10 {
				t.Errorf("%s seed %d: mean ETA %.2f d, truth %.2f d (%.1f%% > 10%%)", c.name, s, eta.MeanSeconds/Day, trueMean/Day, 100*e)
			}
			if e := math.Abs(eta.PeakSeconds/truePeak - 1); e > 0.10 {
				t.Errorf("%s seed %d: peak ETA %.2f d, truth %.2f d (%.1f%% > 10%%)", c.name, s, eta.PeakSeconds/Day, truePeak/Day, 100*e)
			}
			if !(eta.EarlySeconds <= eta.PeakSeconds && eta.PeakSeconds <= eta.LateSeconds && eta.PeakSeconds < eta.MeanSeconds) {
				t.Errorf("%s seed %d: want early %.2f <= peak %.2f <= late %.2f, peak < mean %.2f (days)", c.name, s,
					eta.EarlySeconds/Day, eta.PeakSeconds/Day, eta.LateSeconds/Day, eta.MeanSeconds/Day)
			}
			if s == 0 {
				t.Logf("%s: peak ETA %.2f d (truth %.2f), band %.2f..%.2f d, mean ETA %.2f d (truth %.2f)", c.name,
					eta.PeakSeconds/Day, truePeak/Day, eta.EarlySeconds/Day, eta.LateSeconds/Day, eta.MeanSeconds/Day, trueMean/Day)
			}
		}
	}
}

// TestUtilizationETAOneDay: one day of history (one harmonic): the peak
// ETA is earlier than the mean one and within 10% of the true first peak
// crossing. The peak ETA moves in whole days when a daily peak grazes 1
// (a slope error of 1% then decides between two days), so the truth puts
// the crossing peak 0.025 above 1 and the one before 0.025 below.
func TestUtilizationETAOneDay(t *testing.T) {
	peak := func(t float64) float64 {
		return 0.5625 + 0.05*(t-uT0)/Day + 0.1*math.Sin(2*math.Pi*(t-uT0)/Day)
	}
	for s := 0; s < 5; s++ {
		ts, us := utilSeries(rand.New(rand.NewPCG(uint64(s), 6)), uT0, 1, 0.005, peak)
		ut, err := FitUtilization(ts, us, UtilizationOptions{Growth: GrowthLinear})
		if err != nil {
			t.Fatal(err)
		}
		if ut.Harmonics != 1 {
			t.Fatalf("harmonics %d, want 1 for one day", ut.Harmonics)
		}
		now := ts[len(ts)-1]
		eta := ut.ETA(now, us[len(us)-1], false)
		truePeak := firstCrossing(peak, now) - now
		if !(eta.PeakSeconds < eta.MeanSeconds) {
			t.Errorf("seed %d: peak ETA %.2f d not earlier than mean ETA %.2f d", s, eta.PeakSeconds/Day, eta.MeanSeconds/Day)
		}
		if e := math.Abs(eta.PeakSeconds/truePeak - 1); e > 0.10 {
			t.Errorf("seed %d: peak ETA %.2f d, truth %.2f d (%.1f%% > 10%%)", s, eta.PeakSeconds/Day, truePeak/Day, 100*e)
		}
		if s == 0 {
			t.Logf("1 day: peak ETA %.2f d (truth %.2f), mean ETA %.2f d, band %.2f..%.2f d", eta.PeakSeconds/Day, truePeak/Day, eta.MeanSeconds/Day, eta.EarlySeconds/Day, eta.LateSeconds/Day)
		}
	}
}

func TestUtilizationETAZeroWhenSaturated(t *testing.T) {
	ts, us := utilSeries(rand.New(rand.NewPCG(1, 1)), uT0, 3, 0.01, func(t float64) float64 { return 0.5 + 0.01*(t-uT0)/Day })
	ut, err := FitUtilization(ts, us, UtilizationOptions{})
	if err != nil {
		t.Fatal(err)
	}
	now := ts[len(ts)-1]
	if e := ut.ETA(now, 1.02, false); e.PeakSeconds != 0 || e.MeanSeconds != 0 || e.EarlySeconds != 0 || e.LateSeconds != 0 || e.Reason != "saturated" {
		t.Errorf("U >= 1: %+v", e)
	}
	if e := ut.ETA(now, 0.5, true); e.PeakSeconds != 0 || e.MeanSeconds != 0 || e.Reason != "over SLO" {
		t.Errorf("over SLO: %+v", e)
	}
	// Flat or falling utilization: never (+Inf) within the horizon.
	ts, us = utilSeries(rand.New(rand.NewPCG(1, 1)), uT0, 3, 0.01, func(t float64) float64 { return 0.6 - 0.01*(t-uT0)/Day })
	ut, err = FitUtilization(ts, us, UtilizationOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if e := ut.ETA(ts[len(ts)-1], 0.55, false); !math.IsInf(e.PeakSeconds, 1) || !math.IsInf(e.MeanSeconds, 1) {
		t.Errorf("falling: %+v", e)
	}
}

func TestFitUtilizationRejectsBadInput(t *testing.T) {
	ts := []float64{0, 3600, 7200, 10800, 14400, 18000}
	us := []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6}
	for _, c := range []struct {
		name   string
		ts, us []float64
		opt    UtilizationOptions
		want   string
	}{
		{"length", ts, us[:3], UtilizationOptions{}, "u"},
		{"NaN time", []float64{0, math.NaN(), 2, 3, 4, 5}, us, UtilizationOptions{}, "times"},
		{"Inf u", ts, []float64{0.1, math.Inf(1), 0.3, 0.4, 0.5, 0.6}, UtilizationOptions{}, "u"},
		{"too few", ts[:2], us[:2], UtilizationOptions{}, "times"},
		{"too few for a harmonic", ts[:4], us[:4], UtilizationOptions{Harmonics: 1}, "times"},
		{"equal times", []float64{5, 5, 5, 5, 5, 5}, us, UtilizationOptions{}, "times"},
		{"exp with zero", ts, []float64{0, 0.2, 0.3, 0.4, 0.5, 0.6}, UtilizationOptions{Growth: GrowthExponential}, "u"},
		{"level", ts, us, UtilizationOptions{Level: 2}, "opts.Level"},
		{"growth", ts, us, UtilizationOptions{Growth: 9}, "opts.Growth"},
		{"harmonics", ts, us, UtilizationOptions{Harmonics: 9}, "opts.Harmonics"},
	} {
		_, err := FitUtilization(c.ts, c.us, c.opt)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want one naming %q", c.name, err, c.want)
		}
	}
}

// TestUtilizationETAAgainstMovingLimit: demand 0.6 + 0.1/day (in units of
// today's capacity) against a capacity that falls as the read ratio drifts
// from 0.8 by −0.2/day (relative capacity 0.5 + 0.625·r, so 1 today): the
// crossing solves 0.6 + 0.1·d = 0.5 + 0.625·(0.8 − 0.2·d), d = 16/9 days.
// Against a fixed limit of 1 the same trend says 4 days.
func TestUtilizationETAAgainstMovingLimit(t *testing.T) {
	ts, us := utilSeries(rand.New(rand.NewPCG(3, 3)), uT0, 0.5, 0.002, func(x float64) float64 { return 0.6 + 0.1*(x-uT0)/Day })
	ut, err := FitUtilization(ts, us, UtilizationOptions{Growth: GrowthLinear})
	if err != nil {
		t.Fatal(err)
	}
	now := ts[len(ts)-1]
	lim := &Limit{T0: uT0, ReadRatio0: 0.8, Slope: -0.2 / Day, Capacity: []float64{0.5, 0.5 + 0.625*0.5, 1.125}}
	ut.Limit = lim
	if got := lim.At(uT0); math.Abs(got-1) > 1e-12 {
		t.Fatalf("limit at T0 %v, want 1", got)
	}
	want := 16.0/9*Day - (now - uT0)
	eta := ut.ETA(now, 0.6, false)
	if e := math.Abs(eta.PeakSeconds-want) / want; e > 0.02 {
		t.Errorf("ETA %.3f d, truth %.3f d (%.1f%% > 2%%)", eta.PeakSeconds/Day, want/Day, 100*e)
	}
	ut.Limit = nil
	wantFixed := 4*Day - (now - uT0)
	if e := math.Abs(ut.ETA(now, 0.6, false).PeakSeconds-wantFixed) / wantFixed; e > 0.02 {
		t.Errorf("fixed-limit ETA %.1f%% from %.3f d", 100*e, wantFixed/Day)
	}
	// The read ratio clamps at 0: the limit stays 0.5 from day 4 on.
	if got := lim.At(uT0 + 10*Day); got != 0.5 {
		t.Errorf("limit at a read ratio below 0: %v, want 0.5 (clamped)", got)
	}
	if got := (&Limit{Capacity: []float64{1}}).At(uT0); !math.IsNaN(got) {
		t.Errorf("one-point table: %v, want NaN", got)
	}
}

// TestUtilizationRobustToDips: one window in ten drops to 60% (an OSD
// restart, a half-scraped window). Least squares tilts the slope; the
// bisquare reweighting recovers it within 5%.
func TestUtilizationRobustToDips(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	truth := func(x float64) float64 { return 0.5 + 0.2*(x-uT0)/Day }
	ts, us := utilSeries(rng, uT0, 0.25, 0.005, truth)
	for i := range us {
		if i < len(us)/2 && rng.IntN(5) == 0 { // dips in the first half tilt a line up
			us[i] *= 0.6
		}
	}
	ut, err := FitUtilization(ts, us, UtilizationOptions{Growth: GrowthLinear})
	if err != nil {
		t.Fatal(err)
	}
	b, se := ut.Slope()
	if e := math.Abs(b-0.2) / 0.2; e > 0.05 {
		t.Errorf("slope %.4f/day, truth 0.2 (%.1f%% > 5%%)", b, 100*e)
	}
	if !(se > 0 && se < 0.05) {
		t.Errorf("slope standard error %v", se)
	}
}

// A series the line and the daily cycle fit exactly (a constant read
// ratio, a straight line) is fitted, not refused: its residuals are
// rounding, which the robust reweighting must not read as outliers (it
// once gave most windows weight 0 and the fit failed as singular, so a
// cluster whose read share never moved had no saturation ETA).
func TestFitUtilizationExactSeries(t *testing.T) {
	for _, c := range []struct {
		name string
		days float64
		u    func(t float64) float64
	}{
		{"constant, two days", 2, func(float64) float64 { return 0.7 }},
		{"constant, six hours", 0.25, func(float64) float64 { return 0.7 }},
		{"all reads", 2, func(float64) float64 { return 1 }},
		{"line", 2, func(x float64) float64 { return 0.3 + 0.05*(x-uT0)/Day }},
		{"line and the day", 3, func(x float64) float64 {
			return 0.3 + 0.05*(x-uT0)/Day + 0.1*math.Sin(2*math.Pi*x/Day)
		}},
	} {
		ts, us := utilSeries(rand.New(rand.NewPCG(1, 1)), uT0, c.days, 0, c.u)
		for _, g := range []Growth{GrowthLinear, GrowthAuto} {
			ut, err := FitUtilization(ts, us, UtilizationOptions{Growth: g})
			if err != nil {
				t.Errorf("%s, %v: %v", c.name, g, err)
				continue
			}
			for _, x := range []float64{ts[0], ts[len(ts)-1], ts[len(ts)-1] + Day} {
				if got, want := ut.unscale(ut.curve(x, true)), c.u(x); math.Abs(got-want) > 1e-9 {
					t.Errorf("%s, %v: at %+.0f h %v, want %v", c.name, g, (x-ts[len(ts)-1])/3600, got, want)
				}
			}
		}
	}
}

// All reads but for a few windows with writes: the exact majority is the
// trend, the windows with writes are downweighted as before.
func TestFitUtilizationExactWithDips(t *testing.T) {
	ts, us := utilSeries(rand.New(rand.NewPCG(1, 1)), uT0, 2, 0, func(float64) float64 { return 1 })
	for i := range us {
		if i%10 == 3 {
			us[i] = 0.6
		}
	}
	ut, err := FitUtilization(ts, us, UtilizationOptions{Growth: GrowthLinear})
	if err != nil {
		t.Fatal(err)
	}
	if got := ut.TrendAt(ts[len(ts)-1] + Day); math.Abs(got-1) > 1e-6 {
		t.Errorf("a day ahead %v, want 1", got)
	}
}

// The robust fit against R's MASS::rlm (Tukey's bisquare, scale
// median|r|/0.6745 about the fit; testdata/rlm/gen.R and its output
// rlm.txt): a line with a daily cycle whose first half is dipped on one
// side, and an exact read share with one window in ten dipped (which the
// scale about the residuals' median once failed as singular). Agreement to
// 1e-6 (measured within 1e-7): rlm iterates to convergence, FitUtilization
// stops after ten rounds.
func TestFitUtilizationAgainstRLM(t *testing.T) {
	f, err := os.Open("testdata/rlm/rlm.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	next := func() []float64 {
		if !sc.Scan() {
			t.Fatalf("rlm.txt ends early: %v", sc.Err())
		}
		var v []float64
		for _, field := range strings.Fields(sc.Text()) {
			if x, err := strconv.ParseFloat(field, 64); err == nil {
				v = append(v, x)
			}
		}
		return v
	}
	for series := 0; series < 2; series++ {
		n := int(next()[0])
		ts, us := make([]float64, n), make([]float64, n)
		for i := range ts {
			row := next()
			ts[i], us[i] = row[0], row[1]
		}
		want := next()[1:] // after the harmonics count
		ut, err := FitUtilization(ts, us, UtilizationOptions{Growth: GrowthLinear, Harmonics: 2})
		if err != nil {
			t.Fatalf("series %d: %v", series, err)
		}
		if len(ut.Coef) != len(want) {
			t.Fatalf("series %d: %d coefficients, rlm %d", series, len(ut.Coef), len(want))
		}
		for j, c := range ut.Coef {
			if math.Abs(c-want[j]) > 1e-6 {
				t.Errorf("series %d, coefficient %d: %.6g, rlm %.6g", series, j, c, want[j])
			}
		}
	}
}

// LevelETA against a level L is ETA against 1 of the series divided by L
// (the robust fit scales with its data, in either growth form), and it
// finds the known truth: the first moment the peaks reach L.
func TestLevelETA(t *testing.T) {
	for _, c := range []struct {
		name  string
		u     func(t float64) float64
		level float64
	}{
		{"linear", func(x float64) float64 { return 0.5 + 0.03*(x-uT0)/Day + 0.08*math.Sin(2*math.Pi*(x-uT0)/Day) }, 0.9},
		{"exponential", func(x float64) float64 {
			return 0.3 * math.Exp(0.08*(x-uT0)/Day) * (1 + 0.1*math.Sin(2*math.Pi*(x-uT0)/Day))
		}, 0.7},
	} {
		ts, us := utilSeries(rand.New(rand.NewPCG(7, 7)), uT0, 7, 0.01, c.u)
		scaled := make([]float64, len(us))
		for i, v := range us {
			scaled[i] = v / c.level
		}
		ut, err := FitUtilization(ts, us, UtilizationOptions{})
		if err != nil {
			t.Fatal(err)
		}
		us1, err := FitUtilization(ts, scaled, UtilizationOptions{})
		if err != nil {
			t.Fatal(err)
		}
		now := ts[len(ts)-1]
		got, want := ut.LevelETA(now, c.level, c.level, c.level), us1.ETA(now, 0, false)
		for _, p := range [][2]float64{{got.PeakSeconds, want.PeakSeconds}, {got.EarlySeconds, want.EarlySeconds}, {got.LateSeconds, want.LateSeconds}, {got.MeanSeconds, want.MeanSeconds}} {
			if math.Abs(p[0]-p[1]) > 2 { // the bisection's second
				t.Errorf("%s: LevelETA %+v, ETA of the scaled series %+v", c.name, got, want)
				break
			}
		}
		truth := firstCrossing(func(x float64) float64 { return c.u(x) / c.level }, now) - now
		t.Logf("%s: peaks reach %.1f in %.2f d (truth %.2f d)", c.name, c.level, got.PeakSeconds/Day, truth/Day)
		if e := math.Abs(got.PeakSeconds/truth - 1); e > 0.10 {
			t.Errorf("%s: LevelETA %.2f d, truth %.2f d (%.1f%% > 10%%)", c.name, got.PeakSeconds/Day, truth/Day, 100*e)
		}
	}
}

package trend

import (
	"math"
	"math/rand/v2"
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
		{"too few", ts[:4], us[:4], UtilizationOptions{}, "times"},
		{"equal times", []float64{5, 5, 5, 5, 5, 5}, us, UtilizationOptions{}, "times"},
		{"exp with zero", ts, []float64{0, 0.2, 0.3, 0.4, 0.5, 0.6}, UtilizationOptions{Growth: GrowthExponential}, "u"},
		{"level", ts, us, UtilizationOptions{Level: 2}, "opts.Level"},
		{"growth", ts, us, UtilizationOptions{Growth: 9}, "opts.Growth"},
		{"harmonics", ts, us, UtilizationOptions{Harmonics: 9}, "opts.Harmonics"},
	} {
		_, err := FitUtilization(c.ts, c.us, c.opt)
		if err == nil || !containsStr(err.Error(), c.want) {
			t.Errorf("%s: err %v, want one naming %q", c.name, err, c.want)
		}
	}
}

func containsStr(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

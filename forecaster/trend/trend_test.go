package trend

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

const (
	day  = 86400.0
	step = 300.0  // 5-minute windows
	t0   = 1.77e9 // some Unix time
)

// series makes n points from f at 5-minute steps from t0, plus Gaussian
// noise of std sigma.
func series(n int, sigma float64, seed uint64, f func(t float64) float64) (ts, ys []float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	for i := 0; i < n; i++ {
		t := t0 + float64(i)*step
		ts = append(ts, t)
		ys = append(ys, f(t)+sigma*rng.NormFloat64())
	}
	return ts, ys
}

// Linear growth with noise: 20,000 IOPS growing 1,000 IOPS/day, noise 500.
// The limit 40,000 is reached 20 days after t0.
func TestLinearGrowthETA(t *testing.T) {
	slope := 1000 / day
	ts, ys := series(14*288, 500, 1, func(t float64) float64 { return 20000 + slope*(t-t0) })
	tr, err := Fit(ts, ys, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(tr.Slope-slope)/slope > 0.02 {
		t.Errorf("slope %.6g, want %.6g ±2%%", tr.Slope, slope)
	}
	if math.Abs(tr.ResidualStd-500)/500 > 0.05 {
		t.Errorf("residual std %.1f, want 500 ±5%%", tr.ResidualStd)
	}
	now := ts[len(ts)-1]
	eta := tr.ETA(40000, now)
	want := t0 + 20*day - now // 6 days
	if math.Abs(eta.MeanSeconds-want) > 0.05*want {
		t.Errorf("mean ETA %.0f s, want %.0f s ±5%%", eta.MeanSeconds, want)
	}
	// The upper band reaches the limit first: about z·s/slope earlier.
	early := want - 1.96*500/slope
	if !(eta.UpperSeconds < eta.MeanSeconds) || math.Abs(eta.UpperSeconds-early) > 0.1*want {
		t.Errorf("upper ETA %.0f s, want about %.0f s (< mean ETA %.0f)", eta.UpperSeconds, early, eta.MeanSeconds)
	}
	// At the crossing, the mean is the limit and the upper band is the limit.
	m, _, _ := tr.At(now + eta.MeanSeconds)
	_, _, u := tr.At(now + eta.UpperSeconds)
	if math.Abs(m-40000) > 1e-6*40000 || math.Abs(u-40000) > 1e-3 {
		t.Errorf("at the ETAs: mean %v, upper %v, want 40000", m, u)
	}
	// Already above the limit: 0.
	if e := tr.ETA(10000, now); e.MeanSeconds != 0 || e.UpperSeconds != 0 {
		t.Errorf("limit below the current level: %+v", e)
	}
}

// Prediction band: about 95% of fresh points from the same process fall
// inside it, a week ahead.
func TestBandCoverage(t *testing.T) {
	slope := 1000 / day
	f := func(t float64) float64 { return 20000 + slope*(t-t0) }
	ts, ys := series(14*288, 500, 2, f)
	tr, _ := Fit(ts, ys, Options{})
	rng := rand.New(rand.NewPCG(3, 3))
	inside, total := 0, 0
	for i := 0; i < 7*288; i++ {
		t := ts[len(ts)-1] + float64(i+1)*step
		y := f(t) + 500*rng.NormFloat64()
		_, lo, hi := tr.At(t)
		if y >= lo && y <= hi {
			inside++
		}
		total++
	}
	if cov := float64(inside) / float64(total); cov < 0.93 || cov > 0.97 {
		t.Errorf("band coverage %.3f, want 0.95 ± 0.02", cov)
	}
}

// slopeSE is Theil–Sen's standard error under Gaussian noise with equally
// spaced times: the least-squares one, σ/√Stt, over the square root of its
// asymptotic efficiency 3/π (Sen 1968, "Estimates of the regression
// coefficient based on Kendall's tau").
func slopeSE(tr *Trend) float64 { return tr.ResidualStd / math.Sqrt(tr.Stt*3/math.Pi) }

// The fit as it comes: within 3 standard errors of the true slope. Flat data
// give a slope near 0 of either sign (here +4.1 IOPS a day, standard error
// 3.4), and the limit, 20,000 IOPS above the level, is not reached within
// DefaultHorizonSeconds (a year; +Inf when the slope is ≤ 0): 3 standard
// errors and the band's widening make a year's rise a few thousand IOPS
// (measured: the upper band's ETA 5.1 years). Declining data never reach
// it.
func TestFlatAndDeclining(t *testing.T) {
	for name, slope := range map[string]float64{"flat": 0, "declining": -200 / day} {
		ts, ys := series(7*288, 300, 4, func(t float64) float64 { return 20000 + slope*(t-t0) })
		tr, err := Fit(ts, ys, Options{})
		if err != nil {
			t.Fatal(err)
		}
		se := slopeSE(tr)
		t.Logf("%s: slope %.3g/day, standard error %.3g/day", name, tr.Slope*day, se*day)
		if math.Abs(tr.Slope-slope) > 3*se {
			t.Errorf("%s: slope %.3g/day, want %.3g ± %.3g (3 standard errors)", name, tr.Slope*day, slope*day, 3*se*day)
		}
		e := tr.ETA(40000, ts[len(ts)-1])
		if slope < 0 && (!math.IsInf(e.MeanSeconds, 1) || !math.IsInf(e.UpperSeconds, 1)) {
			t.Errorf("%s: ETA %+v, want +Inf", name, e)
		}
		if !(e.MeanSeconds > DefaultHorizonSeconds && e.UpperSeconds > DefaultHorizonSeconds) {
			t.Errorf("%s: ETA %+v, want beyond the %.0f s horizon", name, e, DefaultHorizonSeconds)
		}
	}
	// Constant data: slope exactly 0, ETA +Inf.
	ts := []float64{0, 1, 2, 3, 4}
	tr, err := Fit(ts, []float64{5, 5, 5, 5, 5}, Options{})
	if err != nil || tr.Slope != 0 || !math.IsInf(tr.ETA(6, 4).MeanSeconds, 1) {
		t.Errorf("constant: %+v %v", tr, err)
	}
}

// A trend that does not grow still reaches a limit it is already at: 0
// when the level is over it now, and with a daily cycle the next peak that
// reaches it (within a day), not "never" (the old answer for any slope ≤ 0,
// which the exporter's fallback ETAs then served as +Inf).
func TestNotGrowingAtTheLimit(t *testing.T) {
	for name, slope := range map[string]float64{"flat": 0, "declining": -200 / day} {
		ts, ys := series(7*288, 300, 4, func(t float64) float64 {
			return 20000 + slope*(t-t0) + 6000*math.Sin(2*math.Pi*t/day)
		})
		tr, err := Fit(ts, ys, Options{SeasonSeconds: day, SeasonBins: 48})
		if err != nil {
			t.Fatal(err)
		}
		// The fit as it comes (flat data give a slope near 0 of either
		// sign; here +4.1 IOPS a day, so the flat case takes the growing
		// path and the declining one etaNotGrowing): within 3 standard
		// errors of the truth, as in TestFlatAndDeclining.
		se := slopeSE(tr)
		t.Logf("%s: slope %.3g/day, standard error %.3g/day", name, tr.Slope*day, se*day)
		if math.Abs(tr.Slope-slope) > 3*se {
			t.Errorf("%s: slope %.3g/day, want %.3g ± %.3g (3 standard errors)", name, tr.Slope*day, slope*day, 3*se*day)
		}
		now := ts[len(ts)-1]
		m, _, _ := tr.At(now)
		if e := tr.ETA(m-100, now); e.MeanSeconds != 0 || e.UpperSeconds != 0 {
			t.Errorf("%s: limit under the mean now: ETA %+v, want 0", name, e)
		}
		// Halfway between the mean now and the coming day's peak: reached
		// at that peak, within the day.
		peak := m
		for dt := 0.0; dt < day; dt += 60 {
			p, _, _ := tr.At(now + dt)
			peak = math.Max(peak, p)
		}
		if peak-m < 2000 {
			t.Fatalf("%s: the peak %.0f is too close to the mean now %.0f for the test", name, peak, m)
		}
		limit := (m + peak) / 2
		e := tr.ETA(limit, now)
		if !(e.MeanSeconds > 0 && e.MeanSeconds < day) || e.UpperSeconds > e.MeanSeconds {
			t.Errorf("%s: limit %.0f under the daily peak: ETA %+v, want within a day, upper first", name, limit, e)
		} else if pm, _, _ := tr.At(now + e.MeanSeconds); pm < limit {
			t.Errorf("%s: the mean at the ETA %.0f is under the limit %.0f", name, pm, limit)
		}
		// Over every peak: never for a falling fit, and not within the
		// horizon for a flat one whatever the sign of its slope.
		e = tr.ETA(40000, now)
		if !(e.MeanSeconds > DefaultHorizonSeconds && e.UpperSeconds > DefaultHorizonSeconds) ||
			(tr.Slope <= 0 && (!math.IsInf(e.MeanSeconds, 1) || !math.IsInf(e.UpperSeconds, 1))) {
			t.Errorf("%s: limit over every peak: ETA %+v (slope %.3g/day), want +Inf, or beyond the %.0f s horizon for a rising fit", name, e, tr.Slope*day, DefaultHorizonSeconds)
		}
	}
}

// Daily cycle of ±6000 IOPS on a 1000 IOPS/day trend over 10.3 days (not a
// whole number of days): the slope stays right, with and without the
// seasonal profile; the profile narrows the band and moves the ETA to the
// first daily peak that reaches the limit.
func TestDailyCycle(t *testing.T) {
	slope := 1000 / day
	f := func(t float64) float64 { return 20000 + slope*(t-t0) + 6000*math.Sin(2*math.Pi*t/day) }
	ts, ys := series(2966, 300, 5, f)
	plain, err := Fit(ts, ys, Options{})
	if err != nil {
		t.Fatal(err)
	}
	seasonal, err := Fit(ts, ys, Options{SeasonSeconds: day, SeasonBins: 48})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(plain.Slope-slope)/slope > 0.15 {
		t.Errorf("plain Theil–Sen slope %.4g, want %.4g ±15%%", plain.Slope, slope)
	}
	if math.Abs(seasonal.Slope-slope)/slope > 0.03 {
		t.Errorf("seasonal slope %.4g, want %.4g ±3%%", seasonal.Slope, slope)
	}
	if !(seasonal.ResidualStd < 400 && plain.ResidualStd > 3000) {
		t.Errorf("residual std: seasonal %.0f (want < 400), plain %.0f (want > 3000)", seasonal.ResidualStd, plain.ResidualStd)
	}
	// Truth: the first time f reaches 40000 after now (scan at 1-minute steps).
	now := ts[len(ts)-1]
	var truth float64
	for tt := now; ; tt += 60 {
		if f(tt) >= 40000 {
			truth = tt - now
			break
		}
	}
	e := seasonal.ETA(40000, now)
	// Steps of 30 minutes in the profile: within a day's worth of slack
	// (the peak crossing date is sensitive to the slope near the peak).
	if math.Abs(e.MeanSeconds-truth) > day {
		t.Errorf("seasonal mean ETA %.1f d, truth %.1f d", e.MeanSeconds/day, truth/day)
	}
	if e.UpperSeconds > e.MeanSeconds {
		t.Errorf("upper ETA %v after mean ETA %v", e.UpperSeconds, e.MeanSeconds)
	}
	// The mean at the ETA reaches the limit (it is in a peak bin).
	if m, _, _ := seasonal.At(now + e.MeanSeconds); m < 40000-1e-6 {
		t.Errorf("mean at the ETA %.1f < limit", m)
	}
}

// Robustness: 10% of the windows are spikes at 5x (or scrape gaps at 0);
// Theil–Sen keeps the slope, least squares would not.
func TestOutliers(t *testing.T) {
	slope := 1000 / day
	ts, ys := series(14*288, 500, 6, func(t float64) float64 { return 20000 + slope*(t-t0) })
	rng := rand.New(rand.NewPCG(9, 9))
	for i := len(ys) / 2; i < len(ys); i++ { // outliers late in the window hurt OLS most
		if rng.Float64() < 0.1 {
			ys[i] *= 5
		}
	}
	tr, _ := Fit(ts, ys, Options{})
	if math.Abs(tr.Slope-slope)/slope > 0.05 {
		t.Errorf("slope with 10%% spikes %.4g, want %.4g ±5%%", tr.Slope, slope)
	}
}

func TestSampledPairs(t *testing.T) {
	// 30 days of 1-minute points: 43,200 points, ~9e8 pairs, sampled.
	slope := 1000 / day
	rng := rand.New(rand.NewPCG(1, 2))
	var ts, ys []float64
	for i := 0; i < 30*1440; i++ {
		tt := t0 + 60*float64(i)
		ts = append(ts, tt)
		ys = append(ys, 20000+slope*(tt-t0)+500*rng.NormFloat64())
	}
	tr, err := Fit(ts, ys, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(tr.Slope-slope)/slope > 0.01 {
		t.Errorf("sampled Theil–Sen slope %.5g, want %.5g ±1%%", tr.Slope, slope)
	}
	again, _ := Fit(ts, ys, Options{})
	if again.Slope != tr.Slope {
		t.Error("sampling is not deterministic")
	}
}

func TestJSON(t *testing.T) {
	ts, ys := series(3*288, 100, 7, func(t float64) float64 { return 1000 + (t-t0)/day*10 + 50*math.Sin(2*math.Pi*t/day) })
	tr, _ := Fit(ts, ys, Options{SeasonSeconds: day})
	b, err := json.Marshal(tr)
	if err != nil {
		t.Fatal(err)
	}
	var back Trend
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []float64{ts[0], ts[len(ts)-1] + 3*day} {
		m1, l1, u1 := tr.At(tt)
		m2, l2, u2 := back.At(tt)
		if m1 != m2 || l1 != l2 || u1 != u2 {
			t.Errorf("JSON round trip changed the forecast at %v", tt)
		}
	}
	e := ETA{MeanSeconds: math.Inf(1), UpperSeconds: 3600}
	b, _ = json.Marshal(e)
	if string(b) != `{"meanSeconds":null,"upperSeconds":3600}` {
		t.Errorf("ETA JSON %s", b)
	}
	var e2 ETA
	if err := json.Unmarshal(b, &e2); err != nil || !math.IsInf(e2.MeanSeconds, 1) || e2.UpperSeconds != 3600 {
		t.Errorf("ETA JSON round trip %+v %v", e2, err)
	}
}

// A saved trend Fit could not have made is refused at decoding, by name:
// with a season and a period of 0 the search for the next daily peak never
// ended (a damaged state file hung storcast at start).
func TestJSONRefusesATrendFitCannotMake(t *testing.T) {
	ts, ys := series(3*288, 100, 7, func(t float64) float64 { return 1000 + (t-t0)/day*10 + 50*math.Sin(2*math.Pi*t/day) })
	tr, _ := Fit(ts, ys, Options{SeasonSeconds: day})
	for _, c := range []struct {
		name   string
		modify func(*Trend)
		want   string
	}{
		{"period 0", func(t *Trend) { t.SeasonSeconds = 0 }, "invalid input: trend: a season of 24 bins with seasonSeconds 0, want > 0"},
		{"negative period", func(t *Trend) { t.SeasonSeconds = -day }, "invalid input: trend: a season of 24 bins with seasonSeconds -86400, want > 0"},
		{"two points", func(t *Trend) { t.N = 2 }, "invalid input: trend: n is 2, a trend is fitted to at least 3 points"},
		{"negative spread", func(t *Trend) { t.ResidualStd = -1 }, "invalid input: trend: residualStd -1, stt"},
		{"first after last", func(t *Trend) { t.FirstT = t.LastT + 1 }, "invalid input: trend: firstT"},
	} {
		bad := *tr
		bad.Season = slices.Clone(tr.Season)
		c.modify(&bad)
		b, err := json.Marshal(&bad)
		if err != nil {
			t.Fatal(err)
		}
		var back Trend
		if err := json.Unmarshal(b, &back); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
}

func TestBadInput(t *testing.T) {
	for _, c := range []struct {
		ts, ys []float64
		opts   Options
		want   string
	}{
		{[]float64{1, 2}, []float64{1, 2}, Options{}, "times: 2 points, need at least 3"},
		{[]float64{1, 2, 3}, []float64{1, 2}, Options{}, "values: length 2 does not match 3 times"},
		{[]float64{1, math.NaN(), 3}, []float64{1, 2, 3}, Options{}, "times: element 1 is NaN"},
		{[]float64{1, 2, 3}, []float64{1, math.Inf(-1), 3}, Options{}, "values: element 1 is -Inf"},
		{[]float64{5, 5, 5}, []float64{1, 2, 3}, Options{}, "times: all equal"},
		{[]float64{1, 2, 3}, []float64{1, 2, 3}, Options{Level: 1.5}, "opts.Level: must be in (0, 1), got 1.5"},
		{[]float64{1, 2, 3}, []float64{1, 2, 3}, Options{SeasonSeconds: -1}, "opts.SeasonSeconds: must be >= 0, got -1"},
		{[]float64{0, day, 1.5 * day}, []float64{1, 2, 3}, Options{SeasonSeconds: day}, "shorter than two seasons"},
		{[]float64{0, day, 2 * day, 3 * day}, []float64{1, 2, 3, 4}, Options{SeasonSeconds: day}, "4 points are too few for a line and 24 season bins"},
		// Refused before the profile is allocated (1<<62 bins panicked in make).
		{[]float64{0, day, 2 * day, 3 * day}, []float64{1, 2, 3, 4}, Options{SeasonSeconds: day, SeasonBins: 1 << 62}, "4 points are too few for a line and 4611686018427387904 season bins"},
	} {
		_, err := Fit(c.ts, c.ys, c.opts)
		if err == nil || !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Fit(%v, %v): error %v, want %q", c.ts, c.ys, err, c.want)
		}
	}
	tr, _ := Fit([]float64{0, 1, 2}, []float64{0, 1, 2}, Options{})
	if e := tr.ETA(math.NaN(), 2); !math.IsInf(e.MeanSeconds, 1) {
		t.Errorf("NaN limit: %+v", e)
	}
}

func FuzzFit(f *testing.F) {
	f.Add(0.0, 1.0, 2.0, 1.0, 5.0, 3.0, 0.0, 100.0)
	f.Add(1e300, -1e300, 0.0, 1e-300, 5e-324, 3.0, 86400.0, 1e308)
	f.Fuzz(func(t *testing.T, t1, t2, t3, y1, y2, y3, season, limit float64) {
		ts := []float64{t1, t2, t3, t1 + 1, t2 + 2}
		ys := []float64{y1, y2, y3, y2, y1}
		tr, err := Fit(ts, ys, Options{SeasonSeconds: season, SeasonBins: 1})
		if err != nil {
			return
		}
		e := tr.ETA(limit, t3)
		if e.MeanSeconds < 0 || e.UpperSeconds < 0 || e.UpperSeconds > e.MeanSeconds {
			t.Fatalf("ETA %+v", e)
		}
		_, _, _ = tr.Forecast([]float64{t1, t3 + 100})
	})
}

func BenchmarkFit2WeeksAt5m(b *testing.B) {
	ts, ys := series(14*288, 500, 1, func(t float64) float64 { return 20000 + (t-t0)/day*1000 + 3000*math.Sin(2*math.Pi*t/day) })
	b.ReportAllocs()
	for b.Loop() { // the series above is setup, outside the timer
		if _, err := Fit(ts, ys, Options{SeasonSeconds: day}); err != nil {
			b.Fatal(err)
		}
	}
}

func TestMedianAgainstSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for trial := 0; trial < 500; trial++ {
		n := 1 + rng.IntN(50)
		v := make([]float64, n)
		for i := range v {
			v[i] = float64(rng.IntN(10)) // many ties
		}
		s := slices.Clone(v)
		slices.Sort(s)
		want := s[n/2]
		if n%2 == 0 {
			want = (s[n/2-1] + s[n/2]) / 2
		}
		if got := median(v); got != want {
			t.Fatalf("median(%v) = %v, want %v", s, got, want)
		}
	}
}

func TestBacktest(t *testing.T) {
	slope := 1000 / day
	ts, ys := series(14*288, 500, 11, func(t float64) float64 { return 20000 + slope*(t-t0) })
	res, err := Backtest(ts, ys, 0.25, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Noise 500 on ~32,000: MAPE ≈ 0.8·500/32000 ≈ 1.2%.
	if res.Accuracy < 0.98 || res.Accuracy > 0.995 || res.Coverage < 0.9 {
		t.Errorf("backtest %+v", res)
	}
	if res.Train+res.Scored != len(ts) {
		t.Errorf("train %d + scored %d != %d", res.Train, res.Scored, len(ts))
	}
	// A trend break in the held-out part shows as lower accuracy.
	for i := range ys {
		if ts[i] > t0+11*day {
			ys[i] *= 0.7
		}
	}
	bad, _ := Backtest(ts, ys, 0.25, Options{})
	if bad.Accuracy > 0.8 {
		t.Errorf("accuracy %v after a 30%% drop in the held-out part", bad.Accuracy)
	}
	// 2.2 days with a daily profile: the served fit has one, the first 80%
	// (1.8 days) cannot; scored without it, not refused.
	ts, ys = series(634, 500, 12, func(t float64) float64 { return 20000 + slope*(t-t0) + 3000*math.Sin(2*math.Pi*t/day) })
	if _, err := Fit(ts, ys, Options{SeasonSeconds: day}); err != nil {
		t.Fatalf("2.2 days, seasonal fit: %v", err)
	}
	short, err := Backtest(ts, ys, 0.2, Options{SeasonSeconds: day})
	if err != nil || !(short.Accuracy > 0.8) {
		t.Errorf("2.2 days, seasonal backtest: %+v, %v; want scored without the profile", short, err)
	}
	if _, err := Backtest(ts, ys, 1, Options{}); err == nil || !strings.Contains(err.Error(), "holdout: must be in (0, 1), got 1") {
		t.Errorf("holdout 1: %v", err)
	}
}

package models

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/storcast/storcast/exporter/demo"
	"github.com/storcast/storcast/exporter/source"
	"github.com/storcast/storcast/forecaster/conservation"
	"github.com/storcast/storcast/storagesim"
)

// scenarioFrame is what sum(rate(...)) over one step gives on the
// simulator's Ceph counters: the cluster's read and write ops and bytes
// per second at each grid point of r (NaN across a counter reset or a
// scrape gap). The exporter's query path is tested through a real
// Prometheus in cmd/storcast (TestPhysicalModelOnScenarios); this is for
// fitting many histories in-process.
func scenarioFrame(c *storagesim.Cluster, r source.Range) *source.Frame {
	names := map[string]string{
		source.ReadOps: "ceph_osd_op_r", source.WriteOps: "ceph_osd_op_w",
		source.ReadBytes: "ceph_osd_op_r_out_bytes", source.WriteBytes: "ceph_osd_op_w_in_bytes",
	}
	sum := func(s storagesim.Sample, name string) float64 {
		var v float64
		for _, tg := range s.Targets {
			if !tg.Up {
				return math.NaN()
			}
			for _, se := range tg.Series {
				if se.Name == name {
					v += se.Value
				}
			}
		}
		return v
	}
	n := r.N()
	sig := map[string][]float64{}
	for k := range names {
		sig[k] = make([]float64, n)
	}
	prev := c.Sample(r.Start.Add(-r.Step))
	for i := 0; i < n; i++ {
		cur := c.Sample(r.Start.Add(time.Duration(i) * r.Step))
		for k, name := range names {
			d := (sum(cur, name) - sum(prev, name)) / r.Step.Seconds()
			if !(d >= 0) {
				d = math.NaN()
			}
			sig[k][i] = d
		}
		prev = cur
	}
	return &source.Frame{Range: r, Signals: sig}
}

// TestSaturationETAByStartHour scores the saturation ETA on storagesim's
// growth-diurnal scenario, built to break its assumptions (demand
// exponential under a daily cycle; the read ratio drifting toward writes
// ever faster, r(t) = 0.8 − 0.015t − 0.012t², with its own daily cycle, a
// square wave write-heavy around the demand peak), from a 3-day history
// ending at each hour of the day: where the run starts moves the daily
// peaks against the end of the history. Calibration: the scenario's pure
// points and its true capacity at 50% reads (the recipe's 50/50 point).
//
// The first peak to reach the capacity sometimes clears it by little; an
// ETA that is a few percent off then misses that peak and lands on the
// next, a day late. Within 10% of the true crossing, of the 24 hours:
//
//	read ratio's trend          two harmonics   harmonics by BIC
//	straight, no cycle          13 (before)     12
//	bend                        13              17
//	cycle in the limit          18              17
//	bend and cycle              18              21 (the exporter's)
//
// With two harmonics what they leave of the square wave reads as wander
// and no bend is kept. The other 3 are each on the next peak, within 10%
// of its crossing.
//
// The same scenario with demand's daily cycle a window that switches at
// once (a 4-hour nightly backup, 6 hours, 8 business hours: +25% inside,
// −25% outside) breaks demand's fit instead: two harmonics put the
// crossing day's demand peak 6.4%, 2.8% and 11.1% off by the median (the
// bisquare took the window's top for outliers; on the business hours the
// linear form won in 15 of 24), and the ETA within 10% at 12, 22 and 7 of
// 24. With the form of the cycle chosen by BIC among harmonics and the
// hour-of-day profile, on the scale of the exponential form, the peak is
// within 0.2% at every hour and the ETA within 10% at 19, 17 and 15: the
// rest are late by what the read ratio's line lags its accelerating drift
// (the capacity at the crossing 3% high), which a flat-topped window turns
// into hours where a cosine's steep rise turns it into minutes. On the
// 6-hour window two harmonics' overshoot of the top had offset that lag.
//
// The ETA's 95% band covers the true crossing. With demand's band alone
// it was minutes wide (±0.04 h on a 35 h ETA: storagesim's demand has no
// noise) and covered it at 0 of 24 hours on the cosine; with the limit's
// band too (the read ratio's, widening ahead with the larger of its
// slope's standard error and its own forecasts' error from 6-24 h back,
// which holds the lag) at 24 of 24 in every variant (17, 15, 13 on the 4-,
// 6- and 8-hour windows before), the early end before the crossing or
// within 10% of it at 24 of 24 (22, 20, 17, 16 before) and not more than
// 20% before it at 21, 20, 20, 21, the late end mostly the next day's
// peak.
func TestSaturationETAByStartHour(t *testing.T) {
	for _, v := range []struct {
		name   string
		hours  float64 // a square window of demand this long; 0: the scenario's cosine
		within int     // at least this many of 24 within 10% of the true crossing
	}{
		{"cosine", 0, 21},
		{"4-hour window", 4, 18},    // 19 measured
		{"6-hour window", 6, 16},    // 17
		{"8 business hours", 8, 14}, // 15
	} {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			sc, err := storagesim.LoadScenario("growth-diurnal")
			if err != nil {
				t.Fatal(err)
			}
			if v.hours > 0 {
				sc.Load.Diurnal.Shape, sc.Load.Diurnal.Hours = "square", v.hours
			}
			etaByStartHour(t, sc, v.hours == 0, v.within)
		})
	}
}

// etaByStartHour fits 24 histories of sc, ending at each hour of the day,
// and checks the demand's peak on the crossing day (within 0.5% of the
// truth's) and the ETA (within 10% of the true crossing at least atLeast
// times; with nextPeak, every other one on the next peak, within 10% of
// its crossing, where the first clears the capacity by under 10%; without,
// every other one late, but not past the next peak's crossing).
func etaByStartHour(t *testing.T, sc *storagesim.Scenario, nextPeak bool, atLeast int) {
	const step = 5 * time.Minute
	base := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	within, covered, inTime, tight := 0, 0, 0, 0
	for h := 0; h < 24; h++ {
		origin := base.Add(time.Duration(h) * time.Hour)
		c, err := storagesim.New(sc, 1, origin)
		if err != nil {
			t.Fatal(err)
		}
		end := origin.Add(72 * time.Hour)
		frame := scenarioFrame(c, source.Range{Start: origin.Add(step), End: end, Step: step})
		tr := c.Truth(end, sc.SLOSeconds)
		cal := demo.Calibration(sc)
		cal.Interpolation = "cost"
		iops, err := tr.MaxIOPSAt(0.5, []float64{1})
		if err != nil {
			t.Fatal(err)
		}
		cal.Mixed = []conservation.MixedPoint{{IOSizeBytes: 4096, ReadRatio: 0.5, IOPS: iops}}
		capFit, err := NewCapacity(cal, "file", 2, nil)
		if err != nil {
			t.Fatal(err)
		}
		f, err := SaturationFitter{}.Fit(context.Background(), Input{Frame: frame, Fitted: Set{Conservation: capFit}})
		if err != nil {
			t.Fatal(err)
		}
		uf := f.(*UtilizationFit)
		band := uf.ETA(float64(end.Unix()), tr.FrontierUtilization, false)
		eta := band.PeakSeconds
		if tr.SaturationTime == nil {
			t.Fatalf("origin %s: the truth has no saturation time", origin.Format(time.RFC3339))
		}
		first := *tr.SaturationTime
		// Demand's peak over the day around the crossing, fitted and true.
		var fitted, truth float64
		for d := -12 * time.Hour; d <= 12*time.Hour; d += 15 * time.Minute {
			m, _, _ := uf.T.At(float64(first.Add(d).Unix()))
			fitted = math.Max(fitted, m)
			truth = math.Max(truth, c.Truth(first.Add(d), 0).OfferedIOPS.Total/uf.ReferenceIOPS)
		}
		if e := fitted/truth - 1; math.Abs(e) > 0.005 {
			t.Errorf("history ending %02d:00 UTC: demand's peak on the crossing day %+.2f%% from the truth's; want within 0.5%%", end.Hour(), 100*e)
		}
		want := first.Sub(end).Seconds()
		rel := (eta - want) / want
		peak := 0.0 // by how much the first crossing peak clears the capacity
		for d := time.Duration(0); d <= 8*time.Hour; d += 5 * time.Minute {
			peak = math.Max(peak, c.Truth(first.Add(d), 0).Utilization)
		}
		next := c.Truth(first.Add(12*time.Hour), 0).SaturationTime
		if next == nil {
			t.Fatalf("origin %s: no saturation after the first crossing's peak", origin.Format(time.RFC3339))
		}
		relNext := (eta - next.Sub(end).Seconds()) / next.Sub(end).Seconds()
		if !(band.EarlySeconds <= eta && eta <= band.LateSeconds) {
			t.Errorf("history ending %02d:00 UTC: ETA %.2f h outside its band [%.2f, %.2f] h", end.Hour(), eta/3600, band.EarlySeconds/3600, band.LateSeconds/3600)
		}
		if band.EarlySeconds <= want && want <= band.LateSeconds {
			covered++
		}
		if band.EarlySeconds <= 1.1*want {
			inTime++
		}
		if band.EarlySeconds >= 0.8*want {
			tight++
		}
		t.Logf("history ending %02d:00 UTC: ETA %.2f h [%.2f, %.2f], true crossing %.2f h: %+.1f%% (the first peak clears the capacity by %.1f%%; the next peak's crossing %+.1f%%; demand's peak %+.2f%%, cycle: %d harmonics, profile %v)",
			end.Hour(), eta/3600, band.EarlySeconds/3600, band.LateSeconds/3600, want/3600, 100*rel, 100*(peak-1), 100*relNext, 100*(fitted/truth-1), uf.T.Harmonics, uf.T.Profile)
		switch {
		case math.Abs(rel) <= 0.10:
			within++
		case !nextPeak:
			// Late by the read ratio's lag, within the first crossing's
			// day or on the next peak; never early, never past the next
			// peak's crossing.
			if rel < 0 || relNext > 0.10 {
				t.Errorf("history ending %02d:00 UTC: ETA %+.1f%% from the true crossing, %+.1f%% from the next peak's; want late by less than a day", end.Hour(), 100*rel, 100*relNext)
			}
		case peak < 1.10 && math.Abs(relNext) <= 0.10:
			// a day late: the first peak clears the capacity by less
			// than the forecast limit's bias
		default:
			t.Errorf("history ending %02d:00 UTC: ETA %+.1f%% from the true crossing, %+.1f%% from the next peak's (the first clears the capacity by %.1f%%)", end.Hour(), 100*rel, 100*relNext, 100*(peak-1))
		}
	}
	t.Logf("within 10%% of the true crossing at %d of 24 hours; the band covers it at %d, its early end in time (before it or within 10%%) at %d and within 20%% of it at %d", within, covered, inTime, tight)
	if within < atLeast {
		t.Errorf("the ETA is within 10%% of the true crossing at %d of 24 hours of the day; want at least %d", within, atLeast)
	}
	// A 95% band: at most one miss in 24 (24 measured in every variant;
	// with demand's band alone, minutes wide, 0 of 24 on the cosine).
	if covered < 23 {
		t.Errorf("the ETA's band covers the true crossing at %d of 24 hours of the day; want at least 23", covered)
	}
	// Not a band made wide to cover: its early end within a fifth of the
	// true crossing at 21, 20, 20, 21 of 24 (cosine, 4-, 6-, 8-hour
	// windows); at the rest it names the day before's peak, which came
	// within the band of the limit.
	if tight < 19 {
		t.Errorf("the ETA band's early end is within 20%% of the true crossing at %d of 24 hours of the day; want at least 19", tight)
	}
}

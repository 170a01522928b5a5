package trend_test

import (
	"fmt"
	"math"

	"github.com/storcast/storcast/forecaster/trend"
)

func Example() {
	// Hourly total IOPS over 4 days, growing 240 IOPS/day from 10,000.
	var ts, ys []float64
	for h := 0; h < 96; h++ {
		ts = append(ts, float64(h)*3600)
		ys = append(ys, 10000+10*float64(h))
	}
	tr, err := trend.Fit(ts, ys, trend.Options{})
	if err != nil {
		panic(err)
	}
	now := ts[len(ts)-1]
	eta := tr.ETA(12000, now) // capacity from the conservation model
	fmt.Printf("slope %.0f IOPS/day, capacity reached in %.1f days\n", tr.Slope*86400, eta.MeanSeconds/86400)
	mean, lower, upper := tr.At(now + 86400)
	fmt.Printf("tomorrow: %.0f (%.0f..%.0f)\n", mean, lower, upper)
	// Output:
	// slope 240 IOPS/day, capacity reached in 4.4 days
	// tomorrow: 11190 (11190..11190)
}

func ExampleFitUtilization() {
	// Five days of frontier utilization every 10 minutes: 0.4 growing by
	// 0.04 a day, with a daily swing of ±0.15 (peak at 06:00 UTC).
	var ts, us []float64
	for t := 0.0; t < 5*trend.Day; t += 600 {
		ts = append(ts, t)
		us = append(us, 0.4+0.04*t/trend.Day+0.15*math.Sin(2*math.Pi*t/trend.Day))
	}
	ut, err := trend.FitUtilization(ts, us, trend.UtilizationOptions{})
	if err != nil {
		panic(err)
	}
	now := ts[len(ts)-1]
	eta := ut.ETA(now, us[len(us)-1], false)
	fmt.Printf("%s growth; daily peaks reach capacity in %.1f days, the daily mean in %.1f days\n",
		ut.Growth, eta.PeakSeconds/trend.Day, eta.MeanSeconds/trend.Day)
	fmt.Println("latency already over the SLO:", ut.ETA(now, us[len(us)-1], true).PeakSeconds, "s")
	// Output:
	// linear growth; daily peaks reach capacity in 6.3 days, the daily mean in 10.0 days
	// latency already over the SLO: 0 s
}

package trend_test

import (
	"fmt"

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

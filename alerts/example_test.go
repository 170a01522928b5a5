package alerts_test

import (
	"fmt"

	"github.com/storcast/storcast/alerts"
)

// Thresholds are overridden in YAML; the rest keep their defaults.
func ExampleRules() {
	th, err := alerts.ParseThresholds([]byte("saturation:\n  horizon: 6h\n"), "example.yml")
	if err != nil {
		panic(err)
	}
	for _, r := range alerts.Rules(th)[2:4] {
		fmt.Printf("%s (%s, for %s): %s\n", r.Alert, r.Labels["severity"], r.For, r.Expr)
	}
	// Output:
	// StorcastMaxIOPSSaturationPredicted (warning, for 15m): storcast_saturation_eta_seconds{limit="max_iops"} < 21600
	//   unless ignoring (limit)
	// storcast_warming_up == 1
	// StorcastLatencySLOBreachPredicted (warning, for 15m): storcast_saturation_eta_seconds{limit="latency_slo"} < 21600
	//   unless ignoring (limit)
	// storcast_warming_up == 1
}

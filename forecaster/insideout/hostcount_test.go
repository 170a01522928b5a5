package insideout

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestFixedHostCountModelScalesOut: trained while the cluster had 8 OSD
// hosts throughout (the usual case: hosts change rarely), mean and sum of
// a metric are the same column up to the factor 8, and the Lasso gave the
// weight to mean; after a scale-out to 12 hosts at the same load, the load
// per host falls and the prediction read 0.67 of it. The weight is moved to
// sum: the same predictions on the training windows, and the load after the
// scale-out within 2%, as with a model trained on varying host counts
// (ExampleTrain).
func TestFixedHostCountModelScalesOut(t *testing.T) {
	s := Schema{Roles: []RoleMetrics{{Role: "osd", Metrics: []string{"disk_read_ops", "cpu_idle"}}}}
	rng := rand.New(rand.NewPCG(1, 2))
	window := func(hosts int, iops float64) Window {
		w := Window{"osd": {}}
		for h := range hosts {
			w["osd"][fmt.Sprint("osd-", h)] = map[string]float64{
				"disk_read_ops": iops / float64(hosts) * (1 + 0.01*rng.NormFloat64()),
				"cpu_idle":      rng.Float64(),
			}
		}
		return w
	}
	var ws []Window
	var reads []float64
	for range 300 {
		iops := 1000 + 9000*rng.Float64()
		ws = append(ws, window(8, iops))
		reads = append(reads, iops)
	}
	m, err := Train(s, ws, map[Target][]float64{ReadIOPS: reads}, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	tm := m.Targets[ReadIOPS]
	if tm.Coef[0] != 0 || !(tm.Coef[2] > 0.9) {
		t.Errorf("coefficients %v (features %v); want the weight on osd/disk_read_ops/sum, none on mean", tm.Coef, m.Features)
	}
	for _, hosts := range []int{8, 12} {
		p, err := m.Predict(window(hosts, 5000))
		if err != nil {
			t.Fatal(err)
		}
		if got := p[ReadIOPS]; got < 4900 || got > 5100 {
			t.Errorf("%d hosts at 5000 IOPS: predicted %.0f; want within 2%%", hosts, got)
		}
	}
}

package insideout_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/storcast/storcast/forecaster/insideout"
)

func ExampleSchema_Aggregate() {
	s := insideout.Schema{Roles: []insideout.RoleMetrics{{Role: "osd", Metrics: []string{"disk_read_ops"}}}}
	w := insideout.Window{"osd": {
		"osd-0": {"disk_read_ops": 100},
		"osd-1": {"disk_read_ops": 200},
		"osd-2": {"disk_read_ops": 600},
	}}
	x, err := s.Aggregate(w)
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, name := range s.FeatureNames() {
		fmt.Printf("%s = %.2f\n", name, x[i])
	}
	// Output:
	// osd/disk_read_ops/mean = 300.00
	// osd/disk_read_ops/std = 216.02
	// osd/disk_read_ops/sum = 900.00
	// osd/disk_read_ops/p95 = 560.00
}

// Read IOPS equal the OSDs' disk reads (with noise); the number of OSD hosts
// varies, and the model trained on 4-8 hosts predicts a 20-host cluster.
func ExampleTrain() {
	s := insideout.Schema{Roles: []insideout.RoleMetrics{{Role: "osd", Metrics: []string{"disk_read_ops", "cpu_idle"}}}}
	rng := rand.New(rand.NewPCG(1, 2))
	window := func(hosts int, iops float64) insideout.Window {
		w := insideout.Window{"osd": {}}
		for h := 0; h < hosts; h++ {
			w["osd"][fmt.Sprint("osd-", h)] = map[string]float64{
				"disk_read_ops": iops / float64(hosts) * (1 + 0.01*rng.NormFloat64()),
				"cpu_idle":      rng.Float64(),
			}
		}
		return w
	}
	var ws []insideout.Window
	var reads []float64
	for i := 0; i < 300; i++ {
		iops := 1000 + 9000*rng.Float64()
		ws = append(ws, window(4+rng.IntN(5), iops))
		reads = append(reads, iops)
	}
	m, err := insideout.Train(s, ws, map[insideout.Target][]float64{insideout.ReadIOPS: reads}, insideout.Options{Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	tm := m.Targets[insideout.ReadIOPS]
	fmt.Printf("CV accuracy ≥ 0.99: %v\n", tm.CVAccuracy >= 0.99)
	fmt.Printf("uses osd/disk_read_ops/sum: %v\n", tm.Coef[2] > 0.9)
	p, _ := m.Predict(window(20, 5000))
	fmt.Printf("20 hosts at 5000 IOPS: predicted within 2%%: %v\n", p[insideout.ReadIOPS] > 4900 && p[insideout.ReadIOPS] < 5100)
	// Output:
	// CV accuracy ≥ 0.99: true
	// uses osd/disk_read_ops/sum: true
	// 20 hosts at 5000 IOPS: predicted within 2%: true
}

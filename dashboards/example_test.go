package dashboards_test

import (
	"fmt"
	"sort"

	"github.com/storcast/storcast/dashboards"
)

// The dashboards and how many Prometheus expressions each holds (the tests
// evaluate every one with promtool).
func ExampleAll() {
	all := dashboards.All()
	files := make([]string, 0, len(all))
	for f := range all {
		files = append(files, f)
	}
	sort.Strings(files)
	for _, f := range files {
		d := all[f]
		fmt.Printf("%s: %q, %d panels, %d PromQL targets\n", f, d.Title, len(d.Panels), len(d.Prometheus()))
	}
	// Output:
	// storcast-cluster-headroom.json: "Storcast / Cluster headroom", 21 panels, 29 PromQL targets
	// storcast-model-quality.json: "Storcast / Model quality", 16 panels, 12 PromQL targets
}

package features

import (
	"fmt"
	"testing"
	"time"

	"github.com/storcast/storcast/exporter/source"
)

// TestLatencyColumnsIndependentOfMapOrder: the per-role host mean is summed
// in host-name order, so values whose float sum depends on the order give
// the same column on every call (map iteration order varies between calls).
func TestLatencyColumnsIndependentOfMapOrder(t *testing.T) {
	byHost := map[string][]float64{}
	vals := []float64{1e16, 1, -1e16, 1, 0.1, 3e-17, 7, -3}
	for i, v := range vals {
		byHost[fmt.Sprintf("host-%d", i)] = []float64{v}
	}
	t0 := time.Unix(1.7e9, 0)
	f := &source.Frame{
		Range: source.Range{Start: t0, End: t0, Step: time.Minute},
		Hosts: map[string]map[string]map[string][]float64{"osd": {"cpu": byHost}},
	}
	var want float64 // in host-name order, float64 arithmetic
	for _, v := range vals {
		want += v
	}
	want /= float64(len(vals))
	for i := range 200 {
		names, cols := LatencyColumns(f)
		got := cols[len(cols)-1][0]
		if names[len(names)-1] != "osd/cpu/mean" || got != want {
			t.Fatalf("call %d: %s = %v, want osd/cpu/mean = %v (the host-name-order sum)", i, names[len(names)-1], got, want)
		}
	}
}

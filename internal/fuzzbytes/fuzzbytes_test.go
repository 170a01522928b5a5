package fuzzbytes

import (
	"math"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	in := []float64{0, -1.5, math.Inf(1), math.MaxFloat64, math.SmallestNonzeroFloat64}
	out := Floats(append(Of(in...), 7)) // a trailing partial value is ignored
	if len(out) != len(in) {
		t.Fatalf("%d values back, want %d", len(out), len(in))
	}
	for i := range in {
		if out[i] != in[i] {
			t.Errorf("value %d: %v, want %v", i, out[i], in[i])
		}
	}
	if !math.IsNaN(Floats(Of(math.NaN()))[0]) {
		t.Error("NaN did not survive")
	}
}

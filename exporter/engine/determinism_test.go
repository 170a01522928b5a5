package engine

import "testing"

// TestMeanAccuracyIndependentOfMapOrder: values whose float sum depends on
// the order of addition give the same mean on every call (map iteration
// order varies from call to call), equal to the sum in key order.
func TestMeanAccuracyIndependentOfMapOrder(t *testing.T) {
	acc := map[string]float64{"a": 1e16, "b": 1, "c": -1e16, "d": 1, "e": 0.1, "f": 3e-17}
	var want float64 // in float64 arithmetic (a constant expression is exact)
	for _, k := range []string{"a", "b", "c", "d", "e", "f"} {
		want += acc[k]
	}
	want /= 6
	for i := range 200 {
		if got := meanAccuracy(acc); got != want {
			t.Fatalf("call %d: meanAccuracy = %v, want %v (the key-order sum)", i, got, want)
		}
	}
}

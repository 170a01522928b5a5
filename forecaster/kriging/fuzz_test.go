package kriging

import (
	"math"
	"testing"

	"github.com/storcast/storcast/internal/fuzzbytes"
	"gonum.org/v1/gonum/mat"
)

// FuzzFit: any matrix and target either fit or return an error; a fitted
// model gives finite estimates with a non-negative variance.
func FuzzFit(f *testing.F) {
	f.Add(fuzzbytes.Of(0, 1, 2, 3, 1, 2, 5, 3), uint8(1), uint8(0), uint8(0))
	f.Add(fuzzbytes.Of(0, 0, 1, 1, 2, 2, math.NaN(), 4), uint8(2), uint8(1), uint8(1))
	f.Add(fuzzbytes.Of(1, 1, 1, 1, 7, 7), uint8(1), uint8(1), uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, p uint8, method uint8, drift uint8) {
		v := fuzzbytes.Floats(data)
		cols := int(p%4) + 1
		n := len(v) / (cols + 1)
		if n == 0 || n > 64 {
			return
		}
		X := mat.NewDense(n, cols, v[:n*cols])
		y := v[n*cols : n*cols+n]
		m, err := Fit(X, y, Options{Method: Method(method % 3), Drift: Drift(drift % 3)})
		if err != nil {
			return
		}
		for i := 0; i < n; i++ {
			e, err := m.Estimate(X.RawRowView(i))
			if err != nil {
				t.Fatalf("estimate at a training row: %v", err)
			}
			if e.Variance < 0 || math.IsNaN(e.Variance) {
				t.Fatalf("variance %v", e.Variance)
			}
		}
	})
}

// FuzzFitVariogram: never panics; a fit is non-decreasing on its range.
func FuzzFitVariogram(f *testing.F) {
	f.Add(fuzzbytes.Of(1, 2, 3, 0.5, 1, 2))
	f.Add(fuzzbytes.Of(0, 1, 2, 3, 2, 1))
	f.Fuzz(func(t *testing.T, data []byte) {
		v := fuzzbytes.Floats(data)
		n := len(v) / 2
		vg, err := FitVariogram(v[:n], v[n:2*n])
		if err != nil {
			return
		}
		prev := 0.0
		for k := 1; k <= 20; k++ {
			g := vg.At(vg.Scale * float64(k) / 10)
			if g < prev-1e-9*math.Abs(prev) || math.IsNaN(g) {
				t.Fatalf("γ not non-decreasing: %+v", vg)
			}
			prev = g
		}
	})
}

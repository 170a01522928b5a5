package kriging

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkFitEstimate: one fit plus one query, the unit of work of an
// M-LISP extrapolation step (n = leaf samples + synthetic samples).
//
//	go test ./forecaster/kriging -run '^$' -bench . -benchmem
func BenchmarkFitEstimate(b *testing.B) {
	for _, n := range []int{30, 120, 500} {
		for _, opt := range []Options{
			{Method: Ordinary},
			{Method: NonNegative},
			{Method: Convex, Drift: LinearDrift},
		} {
			b.Run(fmt.Sprintf("n=%d/%v/drift=%v", n, opt.Method, opt.Drift), func(b *testing.B) {
				rng := rand.New(rand.NewPCG(1, uint64(n)))
				X, y := randomData(rng, n, 3, smooth)
				q := []float64{11, 11, 11}
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					m, err := Fit(X, y, opt)
					if err != nil {
						b.Fatal(err)
					}
					if _, err := m.Estimate(q); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

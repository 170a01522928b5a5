package regress

import (
	"fmt"
	"testing"
)

// BenchmarkSearchAllFive is Algorithm 1 over the five learners on 2,000
// synthetic windows × 8 features (workloadData), with the search settings
// of TestToolboxTable. One iteration is one full search. cpu-s/op is the
// process's user+system CPU per search (both cores), the figure to compare
// on a shared machine.
func BenchmarkSearchAllFive(b *testing.B) {
	X, y := workloadData(2000, 2)
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		if _, _, err := SearchAll(Learners(), X, y, toolboxSearch); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
}

// BenchmarkSearchLearner is Search for one learner at a time on n
// windows, to see which learner dominates and how the cost grows with n.
func BenchmarkSearchLearner(b *testing.B) {
	for _, n := range []int{500, 1000, 2000} {
		X, y := workloadData(n, 2)
		for _, l := range Learners() {
			b.Run(fmt.Sprintf("%s/n=%d", l.Name(), n), func(b *testing.B) {
				b.ReportAllocs()
				cpu0 := cpuTime()
				for b.Loop() {
					if _, err := Search(l, X, y, toolboxSearch); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
			})
		}
	}
}

// BenchmarkFitMARS is one MARS fit (degree 2, nk 21) on the same data.
func BenchmarkFitMARS(b *testing.B) {
	X, y := workloadData(2000, 2)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := (MARS{}).Fit(X, y, []float64{21, 0.001, 2}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFitCubist is one Cubist fit (5 committees, 5 neighbours).
func BenchmarkFitCubist(b *testing.B) {
	X, y := workloadData(2000, 2)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := (Cubist{}).Fit(X, y, []float64{5, 5, 4}); err != nil {
			b.Fatal(err)
		}
	}
}

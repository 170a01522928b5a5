package regress

import "testing"

// BenchmarkSearchAllFive is Algorithm 1 over the five learners on 2,000
// synthetic windows × 8 features (workloadData), with the search settings
// of TestToolboxTable. One iteration is one full search.
func BenchmarkSearchAllFive(b *testing.B) {
	X, y := workloadData(2000, 2)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := SearchAll(Learners(), X, y, toolboxSearch); err != nil {
			b.Fatal(err)
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

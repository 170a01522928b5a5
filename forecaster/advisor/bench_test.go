package advisor_test

import (
	"fmt"
	"testing"

	"github.com/storcast/storcast/forecaster/advisor"
	"github.com/storcast/storcast/storagesim"
)

// benchCatalog is the storagesim catalog (47 experiments per rule set)
// with its rule sets repeated under new names up to n rule sets.
func benchCatalog(b *testing.B, n int) *advisor.Catalog {
	data, err := storagesim.RuleSetCatalog(1, storagesim.RuleSetCatalogOptions{})
	if err != nil {
		b.Fatal(err)
	}
	c, err := advisor.LoadCatalog(data)
	if err != nil {
		b.Fatal(err)
	}
	base := c.RuleSets
	c.RuleSets = nil
	for i := range n {
		rs := base[i%len(base)]
		rs.Name = fmt.Sprintf("%s-%d", rs.Name, i)
		c.RuleSets = append(c.RuleSets, rs)
	}
	return c
}

// Training is one M5 fit plus k = 10 cross-validation fits per rule set.
func BenchmarkTrain(b *testing.B) {
	for _, n := range []int{1, 4, 16} {
		b.Run(fmt.Sprintf("rulesets=%d", n), func(b *testing.B) {
			c := benchCatalog(b, n)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := advisor.Train(c); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkPredict(b *testing.B) {
	for _, n := range []int{1, 4, 16} {
		b.Run(fmt.Sprintf("rulesets=%d", n), func(b *testing.B) {
			a, err := advisor.Train(benchCatalog(b, n))
			if err != nil {
				b.Fatal(err)
			}
			w := advisor.Workload{advisor.RequestBytes: 4 << 20, advisor.SequentialShare: 0.8, advisor.ReadShare: 0.3, advisor.OriginalThroughput: 3e8}
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := a.Recommend(w); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

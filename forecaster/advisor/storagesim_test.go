package advisor_test

import (
	"math"
	"testing"

	"github.com/storcast/storcast/forecaster/advisor"
	"github.com/storcast/storcast/forecaster/regress"
	"github.com/storcast/storcast/storagesim"
)

// simScore is what one seed of the storagesim rule-set truth gives.
type simScore struct {
	corr, mae   float64 // own held-out workloads, pooled over rule sets
	corrMeasVsT float64 // measured boost vs truth on the catalog: the noise ceiling
	hit         float64 // recommendation = best true rule set (or none)
	regret      float64 // mean true boost lost against the best choice
	cvError     float64 // mean CVError over rule sets
}

const heldOutPerRuleSet = 60

func scoreSeed(t testing.TB, seed uint64) simScore {
	t.Helper()
	data, err := storagesim.RuleSetCatalog(seed, storagesim.RuleSetCatalogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cat, err := advisor.LoadCatalog(data)
	if err != nil {
		t.Fatalf("generated catalog does not load: %v", err)
	}
	a, err := advisor.Train(cat)
	if err != nil {
		t.Fatal(err)
	}
	var s simScore
	for _, m := range a.RuleSets {
		s.cvError += m.CVError / float64(len(a.RuleSets))
	}
	var truth, pred []float64
	var hits, n float64
	for _, h := range storagesim.RuleSetHeldOut(seed, heldOutPerRuleSet, storagesim.RuleSetCatalogOptions{}) {
		ps, err := a.Predict(h.Features())
		if err != nil {
			t.Fatal(err)
		}
		truth = append(truth, h.TrueBoost[h.From])
		pred = append(pred, ps[h.From].Boost)
		got, ok, err := a.Recommend(h.Features())
		if err != nil {
			t.Fatal(err)
		}
		best, bestBoost := "", 0.0
		for k, b := range h.TrueBoost {
			if b > bestBoost {
				best, bestBoost = storagesim.RuleSetNames[k], b
			}
		}
		if got == best && ok == (best != "") {
			hits++
		}
		chosen := 0.0
		for k, name := range storagesim.RuleSetNames {
			if ok && name == got {
				chosen = h.TrueBoost[k]
			}
		}
		s.regret += bestBoost - chosen
		n++
	}
	s.hit, s.regret = hits/n, s.regret/n
	if s.corr, err = regress.Correlation(truth, pred); err != nil {
		t.Fatal(err)
	}
	if s.mae, err = regress.MAE(truth, pred); err != nil {
		t.Fatal(err)
	}
	return s
}

// The pipeline on storagesim's rule-set truth: per rule set, the held-out
// derived workloads of its own common workload (Lu's setting: correlation
// 0.87, MAE 3.8% on the best common workload), and the recommendation
// over all held-out workloads against the best true rule set. The truth
// depends on the four features plus an unobserved contention term and
// every run is noisy, but its shape is the simulator's, not a cluster's.
func TestAdvisorOnStoragesimRuleSets(t *testing.T) {
	var worst simScore
	worst.corr, worst.hit = math.Inf(1), math.Inf(1)
	var meanS simScore
	seeds := []uint64{1, 2, 3, 4, 5, 6, 7, 8}
	for _, seed := range seeds {
		s := scoreSeed(t, seed)
		t.Logf("seed %d: corr %.3f MAE %.4f hit %.3f regret %.4f cvError %.4f", seed, s.corr, s.mae, s.hit, s.regret, s.cvError)
		worst.corr, worst.mae = math.Min(worst.corr, s.corr), math.Max(worst.mae, s.mae)
		worst.hit, worst.regret = math.Min(worst.hit, s.hit), math.Max(worst.regret, s.regret)
		k := float64(len(seeds))
		meanS.corr += s.corr / k
		meanS.mae += s.mae / k
		meanS.hit += s.hit / k
		meanS.regret += s.regret / k
		meanS.cvError += s.cvError / k
	}
	t.Logf("mean over %d seeds: corr %.3f MAE %.4f hit %.3f regret %.4f cvError %.4f", len(seeds), meanS.corr, meanS.mae, meanS.hit, meanS.regret, meanS.cvError)
	t.Logf("worst: corr %.3f MAE %.4f hit %.3f regret %.4f", worst.corr, worst.mae, worst.hit, worst.regret)
}

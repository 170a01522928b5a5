package advisor

import (
	"encoding/json"
	"math"
	"os"
	"testing"

	"github.com/storcast/storcast/forecaster/internal/check"
	"github.com/storcast/storcast/internal/fuzzbytes"
)

func FuzzLoadCatalog(f *testing.F) {
	for _, name := range []string{"testdata/catalog.yml", "testdata/invalid-unknown-field.yml", "testdata/invalid-feature-not-listed.yml",
		"testdata/invalid-nan-run.yml", "testdata/invalid-no-common-experiment.yml"} {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := LoadCatalog(data)
		if err != nil {
			return
		}
		// Whatever loads must train, and predict finite boosts at its own
		// common workloads.
		a, err := Train(c)
		if err != nil {
			t.Fatalf("loaded catalog does not train: %v", err)
		}
		for i, rs := range c.RuleSets {
			w := Workload{OriginalThroughput: mean(rs.Experiments[0].Baseline)}
			for k, v := range rs.CommonWorkload {
				w[k] = v
			}
			p, err := a.Predict(w)
			if err != nil {
				// Huge throughputs can make the leaf models overflow.
				continue
			}
			if !check.Finite(p[i].Boost) || !check.Finite(p[i].CVError) {
				t.Fatalf("rule set %d: %+v", i, p[i])
			}
		}
		if _, err := json.Marshal(a); err != nil {
			t.Fatalf("trained advisor does not encode: %v", err)
		}
	})
}

// FuzzPredict feeds any four float64s as the workload's features to an
// advisor trained on the test catalog: an error or finite predictions,
// never a panic.
func FuzzPredict(f *testing.F) {
	f.Add(fuzzbytes.Of(4<<20, 1, 0.2, 350e6))
	f.Add(fuzzbytes.Of(0, -1, math.NaN(), math.Inf(1)))
	f.Add(fuzzbytes.Of(math.MaxFloat64, 1, 0, math.SmallestNonzeroFloat64))
	data, err := os.ReadFile("testdata/catalog.yml")
	if err != nil {
		f.Fatal(err)
	}
	c, err := LoadCatalog(data)
	if err != nil {
		f.Fatal(err)
	}
	a, err := Train(c)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v := fuzzbytes.Floats(b)
		w := Workload{}
		for i, x := range v {
			if i < len(KnownFeatures) {
				w[KnownFeatures[i]] = x
			}
		}
		p, err := a.Predict(w)
		name, ok, rerr := a.Recommend(w)
		if (err == nil) != (rerr == nil) {
			t.Fatalf("Predict error %v, Recommend error %v", err, rerr)
		}
		if err != nil {
			return
		}
		for _, x := range p {
			if !check.Finite(x.Boost) {
				t.Fatalf("%v: %+v", w, x)
			}
		}
		if ok != (name != "") {
			t.Fatalf("%v: recommended %q, ok %v", w, name, ok)
		}
		candidate := func(x Prediction) bool { return x.Boost > x.Margin() }
		if !ok {
			for _, x := range p {
				if candidate(x) {
					t.Fatalf("%v: nothing recommended, but %+v exceeds its margin", w, x)
				}
			}
			return
		}
		r := p[indexOf(p, name)]
		if !candidate(r) {
			t.Fatalf("%v: recommended %+v, within its margin", w, r)
		}
		for _, x := range p {
			if !candidate(x) || x.RuleSet == r.RuleSet {
				continue
			}
			switch {
			case x.Extrapolated == r.Extrapolated && x.Boost > r.Boost,
				!r.Extrapolated && x.Extrapolated && x.Boost-r.Boost > x.Margin(),
				r.Extrapolated && !x.Extrapolated && r.Boost-x.Boost <= r.Margin():
				t.Fatalf("%v: recommended %+v over %+v", w, r, x)
			}
		}
	})
}

func indexOf(p []Prediction, name string) int {
	for i, x := range p {
		if x.RuleSet == name {
			return i
		}
	}
	return -1
}

// FuzzAdvisorJSON decodes any bytes as a cached advisor: an error, or an
// advisor that predicts without panicking.
func FuzzAdvisorJSON(f *testing.F) {
	data, err := os.ReadFile("testdata/catalog.yml")
	if err != nil {
		f.Fatal(err)
	}
	c, err := LoadCatalog(data)
	if err != nil {
		f.Fatal(err)
	}
	a, err := Train(c)
	if err != nil {
		f.Fatal(err)
	}
	enc, _ := json.Marshal(a)
	f.Add(enc)
	f.Add([]byte(`{"features":["read_share"],"ruleSets":[{"name":"x","tree":{"nodes":[{"left":1,"right":2,"feature":0,"threshold":0.5,"model":{"features":[],"coef":[]}},{"left":-1,"right":-1,"model":{"features":[],"coef":[]}},{"left":-1,"right":-1,"model":{"features":[0],"coef":[1]}}],"p":1},"min":[0],"max":[1]}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var a Advisor
		if err := json.Unmarshal(b, &a); err != nil {
			return
		}
		w := Workload{RequestBytes: 1 << 20, SequentialShare: 0.5, ReadShare: 0.5, OriginalThroughput: 1e8}
		_, _ = a.Predict(w)
		_, _, _ = a.Recommend(w)
	})
}

package advisor

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func loadTestCatalog(t testing.TB) *Catalog {
	t.Helper()
	data, err := os.ReadFile("testdata/catalog.yml")
	if err != nil {
		t.Fatal(err)
	}
	c, err := LoadCatalog(data)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestLoadCatalog(t *testing.T) {
	c := loadTestCatalog(t)
	if len(c.Features) != 4 || len(c.RuleSets) != 2 {
		t.Fatalf("features %v, %d rule sets", c.Features, len(c.RuleSets))
	}
	rs := c.RuleSets[0]
	if rs.Name != "qos-cap" || len(rs.Experiments) != 12 || rs.CommonWorkload[RequestBytes] != 8388608 {
		t.Errorf("rule set 0: %+v", rs)
	}
	e := rs.Experiments[0]
	// 3.88e8, 3.94e8, 3.882e8 without; 4.34e8, 4.287e8, 4.349e8 with.
	want := (4.34e8+4.287e8+4.349e8)/(3.88e8+3.94e8+3.882e8) - 1
	if math.Abs(e.Boost()-want) > 1e-12 {
		t.Errorf("boost %v, want %v", e.Boost(), want)
	}
	if se := e.BoostStdErr(); !(se > 0 && se < 0.02) {
		t.Errorf("boost standard error %v, want in (0, 0.02) for a 1-2%% run spread", se)
	}
}

// Run spreads near the float64 limit: squares must not overflow.
func TestBoostStdErrLarge(t *testing.T) {
	e := Experiment{Baseline: []float64{1e300, 1.7e308}, WithRuleSet: []float64{1e300, 1.7e308}}
	// Both means ≈ 8.5e307 with standard error ≈ 8.5e307: relative 1 each.
	if se := e.BoostStdErr(); math.Abs(se-math.Sqrt2) > 0.01 {
		t.Errorf("standard error %v, want √2", se)
	}
	if se := (Experiment{Baseline: []float64{5, 5}, WithRuleSet: []float64{6, 6}}).BoostStdErr(); se != 0 {
		t.Errorf("identical runs: standard error %v", se)
	}
}

// One testdata/invalid-*.yml per error, its exact message in the first line
// of the file ("# error: ...").
func TestLoadCatalogInvalid(t *testing.T) {
	files, _ := filepath.Glob("testdata/invalid-*.yml")
	if len(files) < 20 {
		t.Fatalf("only %d invalid-*.yml files", len(files))
	}
	for _, f := range files {
		data, _ := os.ReadFile(f)
		first, _, _ := strings.Cut(string(data), "\n")
		want, ok := strings.CutPrefix(first, "# error: ")
		if !ok {
			t.Fatalf("%s: first line must be '# error: <message>'", f)
		}
		_, err := LoadCatalog(data)
		if err == nil {
			t.Errorf("%s: no error, want %q", f, want)
			continue
		}
		if err.Error() != want {
			t.Errorf("%s:\n got %q\nwant %q", f, err.Error(), want)
		}
		if !errors.Is(err, ErrInput) {
			t.Errorf("%s: error does not wrap ErrInput", f)
		}
	}
}

// Validate is the pure half: the same checks on a catalog built in Go.
func TestValidateInGo(t *testing.T) {
	c := loadTestCatalog(t)
	c.RuleSets[1].Experiments = c.RuleSets[1].Experiments[:MinExperiments-1]
	err := c.Validate()
	want := "invalid input: rule_sets[1] (read-window).experiments: 9 experiments; need at least 10 to fit and cross-validate an M5 tree"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
	if _, err := Train(nil); err == nil || !errors.Is(err, ErrInput) {
		t.Errorf("Train(nil): %v", err)
	}
}

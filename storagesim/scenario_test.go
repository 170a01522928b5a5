package storagesim

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/golden.prom and the expected errors of testdata/invalid-*.yml")

// Each testdata/invalid-*.yml starts with "# error: <the exact message>".
func TestInvalidScenarios(t *testing.T) {
	files, err := filepath.Glob("testdata/invalid-*.yml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no invalid scenarios found: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			first, rest, _ := strings.Cut(string(data), "\n")
			want, ok := strings.CutPrefix(first, "# error: ")
			if !ok {
				t.Fatalf("%s: first line must be \"# error: <message>\"", f)
			}
			_, err = LoadScenario(f)
			if err == nil {
				t.Fatalf("%s: loaded without error, want %q", f, want)
			}
			got := strings.ReplaceAll(err.Error(), "\n", `\n`)
			if *update {
				if err := os.WriteFile(f, []byte("# error: "+got+"\n"+rest), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if got != want {
				t.Errorf("%s:\n got: %s\nwant: %s", f, got, want)
			}
		})
	}
}

func TestShippedScenariosLoad(t *testing.T) {
	names := ScenarioNames()
	for _, want := range []string{"steady", "growth", "mix-shift", "scale-out"} {
		found := false
		for _, n := range names {
			found = found || n == want
		}
		if !found {
			t.Errorf("shipped scenario %q missing (have %v)", want, names)
		}
	}
	for _, n := range names {
		sc, err := LoadScenario(n)
		if err != nil {
			t.Errorf("%s: %v", n, err)
			continue
		}
		if sc.Name != n {
			t.Errorf("scenario file %s.yml has name %q", n, sc.Name)
		}
	}
	if _, err := LoadScenario("nope"); err == nil || !strings.Contains(err.Error(), `scenario "nope": not a shipped scenario`) {
		t.Errorf("unknown scenario: got %v", err)
	}
	if _, err := LoadScenario("testdata/missing.yml"); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing file: got %v", err)
	}
}

func TestParseDurationAndSize(t *testing.T) {
	for in, want := range map[string]float64{"7d": 7 * 86400, "1d12h": 36 * 3600, "90s": 90, "1.5d": 1.5 * 86400} {
		d, err := ParseDuration(in)
		if err != nil || d.Seconds() != want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %vs", in, d, err, want)
		}
	}
	for _, bad := range []string{"", "d", "7x", "1d2"} {
		if _, err := ParseDuration(bad); err == nil && bad != "" {
			t.Errorf("ParseDuration(%q): no error", bad)
		}
	}
	for in, want := range map[string]float64{"4096": 4096, "4KiB": 4096, "1MiB": 1 << 20, "2GiB": 2 << 30, "1 TiB": 1 << 40} {
		v, err := ParseByteSize(in)
		if err != nil || v != want {
			t.Errorf("ParseByteSize(%q) = %v, %v; want %v", in, v, err, want)
		}
	}
	for _, bad := range []string{"4kb", "-1", "x"} {
		if _, err := ParseByteSize(bad); err == nil {
			t.Errorf("ParseByteSize(%q): no error", bad)
		}
	}
}

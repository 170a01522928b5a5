package series

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFromSourceAndFixtures(t *testing.T) {
	dir := t.TempDir()
	src := `package c
import "github.com/prometheus/client_golang/prometheus"
var (
	a = prometheus.NewDesc("storcast_a", "help", []string{"cluster", "op"}, nil)
	b = prometheus.NewDesc("storcast_b", "help", nil, nil)
	c = prometheus.NewDesc(name, "help", nil, nil)
	d = newDesc("storcast_d", "help", []string{"cluster"}, nil)
)
`
	if err := os.WriteFile(filepath.Join(dir, "c.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	descs, err := FromSource(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(descs) != 3 || descs[0].Name != "storcast_a" || strings.Join(descs[0].Labels, ",") != "cluster,op" || descs[1].Name != "storcast_b" || descs[2].Name != "storcast_d" {
		t.Fatalf("FromSource = %+v", descs)
	}
	got := strings.Join(Fixtures(descs[:2], "c1", `job="j"`), " ")
	want := `storcast_a{cluster="c1",op="read",job="j"} storcast_a{cluster="c1",op="write",job="j"} storcast_a{cluster="c1",op="total",job="j"} storcast_b{job="j"}`
	if got != want {
		t.Errorf("Fixtures:\n got %s\nwant %s", got, want)
	}
	if _, err := FromSource(t.TempDir()); err == nil {
		t.Error("FromSource of an empty directory: no error")
	}
}

// TestContractMatchesTheExporter keeps the fallback list in step with the
// exporter's source when both exist: every contract series is declared with
// the same labels.
func TestContractMatchesTheExporter(t *testing.T) {
	descs, from, err := Exported("../../exporter/collector")
	if err != nil {
		t.Fatal(err)
	}
	if from == "contract" {
		t.Fatal("no series declarations found in exporter/collector: the rules would be checked against the fallback list only")
	}
	got := map[string]string{}
	for _, d := range descs {
		got[d.Name] = strings.Join(d.Labels, ",")
	}
	for _, c := range Contract {
		if l, ok := got[c.Name]; !ok {
			t.Errorf("%s is in the contract but not declared in exporter/collector", c.Name)
		} else if l != strings.Join(c.Labels, ",") {
			t.Errorf("%s: labels %s in exporter/collector, %s in the contract", c.Name, l, strings.Join(c.Labels, ","))
		}
	}
}

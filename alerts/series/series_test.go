package series

import (
	"strings"
	"testing"
)

// TestFixtures: each series gets its own declared values, a label without
// them FreeValue.
func TestFixtures(t *testing.T) {
	descs := []Desc{
		{"storcast_a", []string{"cluster", "op"}, map[string][]string{"op": {"read", "write", "total"}}},
		{"storcast_c", []string{"cluster", "op", "model"}, map[string][]string{"op": {"read"}}},
		{"storcast_b", nil, nil},
	}
	got := strings.Join(Fixtures(descs, "c1", `job="j"`), " ")
	want := `storcast_a{cluster="c1",op="read",job="j"} storcast_a{cluster="c1",op="write",job="j"} storcast_a{cluster="c1",op="total",job="j"} ` +
		`storcast_c{cluster="c1",op="read",model="x",job="j"} storcast_b{job="j"}`
	if got != want {
		t.Errorf("Fixtures:\n got %s\nwant %s", got, want)
	}
}

// TestFixturesHoldOnlyExportedValues: the exporter's series get the values
// it writes, not another series' (storcast_predicted_iops has no op
// "total", storcast_max_iops_bound no bound "mean").
func TestFixturesHoldOnlyExportedValues(t *testing.T) {
	all := strings.Join(Fixtures(Exported(), "c", ""), "\n")
	for _, want := range []string{`storcast_max_iops{cluster="c",op="total"}`, `storcast_max_iops_bound{cluster="c",bound="upper"}`,
		`storcast_predicted_latency_seconds{cluster="c",load_factor="1.25",bound="mean"}`} {
		if !strings.Contains(all, want) {
			t.Errorf("fixtures lack %s", want)
		}
	}
	for _, bad := range []string{`storcast_predicted_iops{cluster="c",op="total"}`, `storcast_max_iops_bound{cluster="c",bound="mean"}`,
		`storcast_headroom_ratio_bound{cluster="c",bound="mean"}`, `storcast_workload_throughput_bytes{cluster="c",op="total"}`} {
		if strings.Contains(all, bad) {
			t.Errorf("fixtures hold %s, which storcast never exports", bad)
		}
	}
}

// TestContractIsExported: every contract series is declared by the exporter
// with the same labels.
func TestContractIsExported(t *testing.T) {
	got := map[string]string{}
	for _, d := range Exported() {
		got[d.Name] = strings.Join(d.Labels, ",")
	}
	if len(got) < len(Contract) {
		t.Fatalf("the exporter declares %d series, fewer than the %d of the contract", len(got), len(Contract))
	}
	for _, c := range Contract {
		if l, ok := got[c.Name]; !ok {
			t.Errorf("%s is in the contract but not declared in exporter/collector", c.Name)
		} else if l != strings.Join(c.Labels, ",") {
			t.Errorf("%s: labels %s in exporter/collector, %s in the contract", c.Name, l, strings.Join(c.Labels, ","))
		}
	}
}

// TestExportedIsSorted: Exported is sorted by name with no duplicates, and
// every series has a cluster label except the per-collector scrape health
// and the process's shard (its index, the number of shards, its count of
// clusters).
func TestExportedIsSorted(t *testing.T) {
	ds := Exported()
	for i := 1; i < len(ds); i++ {
		if ds[i-1].Name >= ds[i].Name {
			t.Errorf("%s before %s", ds[i-1].Name, ds[i].Name)
		}
	}
	for _, d := range ds {
		hasCluster := strings.Contains(","+strings.Join(d.Labels, ",")+",", ",cluster,")
		perProcess := map[string]bool{"storcast_shard_index": true, "storcast_total_shards": true, "storcast_clusters_assigned": true,
			"storcast_config_last_reload_successful": true, "storcast_config_last_reload_success_timestamp_seconds": true}[d.Name]
		if !hasCluster && !strings.HasPrefix(d.Name, "storcast_scrape_collector_") && !perProcess {
			t.Errorf("%s has no cluster label: %v", d.Name, d.Labels)
		}
	}
}

// Package series gives the names and label names of storcast's exported
// series, as exporter/collector declares them, so that the tests of the
// alert rules and dashboards check their queries against what storcast
// really exports, not against a copy.
package series

import (
	"strconv"

	"github.com/storcast/storcast/exporter/collector"
)

// Desc is one exported metric: its name, label names and, for the labels
// whose values the exporter writes itself (op, bound, limit, ...), those
// values.
type Desc struct {
	Name   string
	Labels []string
	// Values are all the values of such a label (collector.Series.Values);
	// the other labels take theirs from the configuration or the data.
	Values map[string][]string
}

// Exported returns every series exporter/collector declares, sorted by name.
func Exported() []Desc {
	var out []Desc
	for _, s := range collector.Declared() {
		out = append(out, Desc{Name: s.Name, Labels: s.Labels, Values: s.Values})
	}
	return out
}

// FreeValue is the value fixtures give a label without declared values
// (model, target, collector, rule set, ...), but cluster: a query that
// names one of its values finds no fixture.
const FreeValue = "x"

// Fixtures returns one series selector per combination of label values of
// every Desc (its declared values; cluster set to cluster; FreeValue for
// the other labels), with the extra labels appended: only label values
// storcast exports, so a query on another (max IOPS of bound="mean")
// returns nothing.
func Fixtures(descs []Desc, cluster, extra string) []string {
	var out []string
	for _, d := range descs {
		combos := []string{""}
		for _, l := range d.Labels {
			vals := []string{FreeValue}
			if l == "cluster" {
				vals = []string{cluster}
			} else if v, ok := d.Values[l]; ok {
				vals = v
			}
			var next []string
			for _, c := range combos {
				for _, v := range vals {
					sep := ""
					if c != "" {
						sep = ","
					}
					next = append(next, c+sep+l+"="+strconv.Quote(v))
				}
			}
			combos = next
		}
		for _, c := range combos {
			if extra != "" {
				if c != "" {
					c += ","
				}
				c += extra
			}
			out = append(out, d.Name+"{"+c+"}")
		}
	}
	return out
}

// Contract is the series the shipped alert rules, dashboards and the Grafana
// plugin rely on, with their labels: TestContractIsExported fails when the
// exporter stops declaring one of them or changes its labels.
var Contract = []Desc{
	{Name: "storcast_cluster_configured", Labels: []string{"cluster"}},
	{Name: "storcast_cluster_shard_index", Labels: []string{"cluster"}},
	{Name: "storcast_headroom_iops", Labels: []string{"cluster"}},
	{Name: "storcast_headroom_ratio", Labels: []string{"cluster"}},
	{Name: "storcast_latency_knee_iops", Labels: []string{"cluster", "bound"}},
	{Name: "storcast_latency_slo_seconds", Labels: []string{"cluster"}},
	{Name: "storcast_max_iops", Labels: []string{"cluster", "op"}},
	{Name: "storcast_max_iops_bound", Labels: []string{"cluster", "bound"}},
	{Name: "storcast_model_accuracy_ratio", Labels: []string{"cluster", "model", "target"}},
	{Name: "storcast_model_fit_duration_seconds", Labels: []string{"cluster", "model"}},
	{Name: "storcast_model_fit_error", Labels: []string{"cluster", "model"}},
	{Name: "storcast_model_last_fit_timestamp_seconds", Labels: []string{"cluster", "model"}},
	{Name: "storcast_model_stale", Labels: []string{"cluster", "model"}},
	{Name: "storcast_model_training_samples", Labels: []string{"cluster", "model"}},
	{Name: "storcast_observed_io_size_bytes", Labels: []string{"cluster"}},
	{Name: "storcast_observed_iops", Labels: []string{"cluster"}},
	{Name: "storcast_observed_read_ratio", Labels: []string{"cluster"}},
	{Name: "storcast_predicted_iops", Labels: []string{"cluster", "op"}},
	{Name: "storcast_predicted_latency_seconds", Labels: []string{"cluster", "load_factor", "bound"}},
	{Name: "storcast_predicted_throughput_bytes", Labels: []string{"cluster", "op"}},
	{Name: "storcast_saturation_eta_seconds", Labels: []string{"cluster", "limit"}},
	{Name: "storcast_saturation_eta_seconds_bound", Labels: []string{"cluster", "limit", "bound"}},
	{Name: "storcast_scrape_collector_success", Labels: []string{"collector"}},
	{Name: "storcast_source_up", Labels: []string{"cluster"}},
	{Name: "storcast_state_restore_success", Labels: []string{"cluster"}},
	{Name: "storcast_state_save_success", Labels: []string{"cluster"}},
	{Name: "storcast_utilization_ratio", Labels: []string{"cluster"}},
	{Name: "storcast_warming_up", Labels: []string{"cluster"}},
}

// Package series gives the names and label names of storcast's exported
// series, as exporter/collector declares them, so that the tests of the
// alert rules and dashboards check their queries against what storcast
// really exports, not against a copy.
package series

import (
	"strconv"

	"github.com/storcast/storcast/exporter/collector"
)

// Desc is one exported metric: its name and label names.
type Desc struct {
	Name   string
	Labels []string
}

// Exported returns every series exporter/collector declares, sorted by name.
func Exported() []Desc {
	var out []Desc
	for _, s := range collector.Declared() {
		out = append(out, Desc{Name: s.Name, Labels: s.Labels})
	}
	return out
}

// LabelValues are the values fixtures give each label; labels not listed
// get one value, "x".
var LabelValues = map[string][]string{
	"op":          {"read", "write", "total"},
	"bound":       {"lower", "mean", "upper"},
	"limit":       {"max_iops", "latency_slo"},
	"load_factor": {"1", "1.25", "1.5", "2"},
	"model":       {"conservation", "insideout", "mlisp", "trend"},
	"target":      {"max_iops", "iops", "latency"},
	"collector":   {"capacity"},
}

// Fixtures returns one series selector per combination of label values of
// every Desc, with cluster set to cluster and the extra labels appended.
func Fixtures(descs []Desc, cluster, extra string) []string {
	var out []string
	for _, d := range descs {
		combos := []string{""}
		for _, l := range d.Labels {
			vals := []string{"x"}
			if l == "cluster" {
				vals = []string{cluster}
			} else if v, ok := LabelValues[l]; ok {
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
	{"storcast_cluster_configured", []string{"cluster"}},
	{"storcast_cluster_shard_index", []string{"cluster"}},
	{"storcast_headroom_iops", []string{"cluster"}},
	{"storcast_headroom_ratio", []string{"cluster"}},
	{"storcast_latency_knee_iops", []string{"cluster", "bound"}},
	{"storcast_latency_slo_seconds", []string{"cluster"}},
	{"storcast_max_iops", []string{"cluster", "op"}},
	{"storcast_max_iops_bound", []string{"cluster", "bound"}},
	{"storcast_model_accuracy_ratio", []string{"cluster", "model", "target"}},
	{"storcast_model_fit_duration_seconds", []string{"cluster", "model"}},
	{"storcast_model_fit_error", []string{"cluster", "model"}},
	{"storcast_model_last_fit_timestamp_seconds", []string{"cluster", "model"}},
	{"storcast_model_stale", []string{"cluster", "model"}},
	{"storcast_model_training_samples", []string{"cluster", "model"}},
	{"storcast_observed_io_size_bytes", []string{"cluster"}},
	{"storcast_observed_iops", []string{"cluster"}},
	{"storcast_observed_read_ratio", []string{"cluster"}},
	{"storcast_predicted_iops", []string{"cluster", "op"}},
	{"storcast_predicted_latency_seconds", []string{"cluster", "load_factor", "bound"}},
	{"storcast_predicted_throughput_bytes", []string{"cluster", "op"}},
	{"storcast_saturation_eta_seconds", []string{"cluster", "limit"}},
	{"storcast_saturation_eta_seconds_bound", []string{"cluster", "limit", "bound"}},
	{"storcast_scrape_collector_success", []string{"collector"}},
	{"storcast_source_up", []string{"cluster"}},
	{"storcast_state_restore_success", []string{"cluster"}},
	{"storcast_state_save_success", []string{"cluster"}},
	{"storcast_utilization_ratio", []string{"cluster"}},
	{"storcast_warming_up", []string{"cluster"}},
}

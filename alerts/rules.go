package alerts

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/prometheus/common/model"
	"gopkg.in/yaml.v3"
)

// GroupName is the name of the generated rule group.
const GroupName = "storcast.rules"

// Rule is one alerting rule as Prometheus reads it.
type Rule struct {
	Alert       string            `yaml:"alert"`
	Expr        string            `yaml:"expr"`
	For         string            `yaml:"for,omitempty"`
	Labels      map[string]string `yaml:"labels"`
	Annotations map[string]string `yaml:"annotations"`
}

// Group is one rule group.
type Group struct {
	Name     string `yaml:"name"`
	Interval string `yaml:"interval,omitempty"`
	Rules    []Rule `yaml:"rules"`
}

// File is a Prometheus rule file.
type File struct {
	Groups []Group `yaml:"groups"`
}

// Rules returns the alerting rules for the thresholds t.
func Rules(t Thresholds) []Rule {
	sel := func(name string, matchers ...string) string {
		if t.Selector != "" {
			matchers = append([]string{t.Selector}, matchers...)
		}
		if len(matchers) == 0 {
			return name
		}
		s := name + "{"
		for i, m := range matchers {
			if i > 0 {
				s += ", "
			}
			s += m
		}
		return s + "}"
	}
	pct := func(r float64) string { return strconv.FormatFloat(r*100, 'f', -1, 64) + "%" }
	dur := func(d model.Duration) string {
		if d == 0 {
			return ""
		}
		return d.String()
	}
	runbook := func(alert string) string { return t.RunbookBaseURL + alert + ".md" }
	rule := func(alert, severity, expr string, forD model.Duration, summary, description string) Rule {
		return Rule{
			Alert:  alert,
			Expr:   expr,
			For:    dur(forD),
			Labels: map[string]string{"severity": severity},
			Annotations: map[string]string{
				"summary":     summary,
				"description": description,
				"runbook_url": runbook(alert),
			},
		}
	}
	h := t.Headroom
	horizon := t.Saturation.Horizon
	// Forecast alerts ignore a cluster whose rates come from a partly
	// filled window (after a start or a scrape gap): they are
	// extrapolated, and a false page costs more than a few minutes' wait.
	// Only the warming storcast's own series are muted: the match is on
	// every label the two series share (cluster and the scrape's job,
	// instance, and a replica label where there is one), ignoring the
	// labels the forecast has and storcast_warming_up lacks. On (cluster)
	// alone, one HA replica restarting muted the other's alerts.
	unlessWarming := func(expr string, ignoring ...string) string {
		op := "unless"
		if len(ignoring) > 0 {
			op += " ignoring (" + strings.Join(ignoring, ", ") + ")"
		}
		return expr + "\n  " + op + "\n" + sel("storcast_warming_up") + " == 1"
	}
	// etaIn says when the ETA $value is: "now" at 0 (storcast exports 0
	// when the cluster is already there), else in a duration.
	etaIn := func(why string) string {
		return `{{ if eq $value 0.0 }}now (` + why + `){{ else }}in {{ $value | humanizeDuration }}{{ end }}`
	}
	// eta is a saturation alert's expression for limit: the forecast ETA
	// under the horizon, or with saturation.eta early the early end of its
	// 95% band, the ETA itself where storcast exports no band (a demand
	// trend without the saturation model).
	eta := func(limit string) string {
		point := sel("storcast_saturation_eta_seconds", `limit="`+limit+`"`)
		if t.Saturation.ETA != ETAEarly {
			return unlessWarming(point+" < "+seconds(horizon), "limit")
		}
		early := sel("storcast_saturation_eta_seconds_bound", `limit="`+limit+`"`, `bound="lower"`)
		return unlessWarming("(\n  "+early+"\n    or ignoring (bound)\n  "+point+"\n) < "+seconds(horizon), "limit", "bound")
	}
	etaWhich, reaches, crosses := "", "reaches", "crosses"
	if t.Saturation.ETA == ETAEarly {
		etaWhich, reaches, crosses = " (the early end of the ETA's 95% band)", "may reach", "may cross"
	}
	// up selects the storcast scrape job's up series.
	up := `up{job="` + t.StorcastJob + `"}`
	return []Rule{
		rule("StorcastHeadroomLow", "warning",
			unlessWarming(sel("storcast_headroom_ratio")+" < "+fmt.Sprint(h.WarningRatio)), h.WarningFor,
			"Cluster {{ $labels.cluster }} has less than "+pct(h.WarningRatio)+" IOPS headroom at its current workload mix.",
			"Storcast's conservation model puts cluster {{ $labels.cluster }} at {{ $value | humanizePercentage }} headroom: "+
				"today's IOPS are that close to the most it can serve at today's read/write ratio and IO sizes."),
		rule("StorcastHeadroomCritical", "critical",
			unlessWarming(sel("storcast_headroom_ratio")+" < "+fmt.Sprint(h.CriticalRatio)), h.CriticalFor,
			"Cluster {{ $labels.cluster }} is almost saturated: less than "+pct(h.CriticalRatio)+" IOPS headroom.",
			"Storcast's conservation model puts cluster {{ $labels.cluster }} at {{ $value | humanizePercentage }} headroom at the current mix; "+
				"latency will climb steeply with any more load."),
		rule("StorcastMaxIOPSSaturationPredicted", "warning",
			eta("max_iops"), t.Saturation.For,
			"Cluster {{ $labels.cluster }} is predicted to reach its max IOPS within "+horizon.String()+etaWhich+".",
			"At the current demand trend, cluster {{ $labels.cluster }} "+reaches+" the max IOPS of its current workload mix "+
				etaIn("its utilization is already at 1, or its latency over its SLO")+"."),
		rule("StorcastLatencySLOBreachPredicted", "warning",
			eta("latency_slo"), t.Saturation.For,
			"Cluster {{ $labels.cluster }} is predicted to breach its latency SLO within "+horizon.String()+etaWhich+".",
			"At the current demand trend, the predicted latency of cluster {{ $labels.cluster }} "+crosses+" its SLO "+
				etaIn("its observed latency is already over the SLO")+"."),
		rule("StorcastLatencySLOAtExtraLoad", "warning",
			sel("storcast_predicted_latency_seconds", `load_factor="`+fmt.Sprint(t.Latency.LoadFactor)+`"`, `bound="mean"`)+
				// Matched on every label but the two the SLO lacks, not on
				// cluster alone: two HA replicas scraped by one Prometheus
				// export the same cluster under two instances, which "on
				// (cluster)" refuses as many-to-many.
				unlessWarming("\n  > ignoring (load_factor, bound)\n"+sel("storcast_latency_slo_seconds"), "load_factor", "bound"), t.Latency.For,
			"Cluster {{ $labels.cluster }} would breach its latency SLO at "+fmt.Sprint(t.Latency.LoadFactor)+" times today's load.",
			"The predicted mean latency of cluster {{ $labels.cluster }} at "+fmt.Sprint(t.Latency.LoadFactor)+
				" times today's IOPS is {{ $value | humanizeDuration }}, above its latency SLO (+Inf: that load is past the cluster's capacity at today's mix): an ordinary peak would breach it."),
		rule("StorcastCalibrationContradicted", "warning",
			sel("storcast_capacity_history_load_ratio")+" > 1", t.Calibration.ContradictedFor,
			"Cluster {{ $labels.cluster }} has served more IOPS than its calibration allows.",
			"In storcast's lookback, cluster {{ $labels.cluster }} sustained {{ $value | humanize }} times the upper end of its calibrated max IOPS band "+
				"at that window's read/write and IO-size mix (storcast's capacity status names the window): the calibration no longer describes the cluster, "+
				"so its max IOPS, headroom and saturation ETA are too low. Recalibrate."),
		rule("StorcastModelStale", "warning",
			sel("storcast_model_stale")+" == 1", t.Model.StaleFor,
			"Storcast's {{ $labels.model }} model of cluster {{ $labels.cluster }} is stale.",
			"The {{ $labels.model }} model of cluster {{ $labels.cluster }} has not been fitted successfully within fit.stale_after, or the cluster's source is down; "+
				"storcast keeps serving the last good forecasts, which age."),
		rule("StorcastModelInaccurate", "warning",
			// The advisor's accuracy is a skill score over the mean boost,
			// held well under 1 by its catalog's run noise: its own bar.
			sel("storcast_model_accuracy_ratio", `model!="advisor"`)+" < "+fmt.Sprint(t.Model.MinAccuracyRatio)+
				"\nor\n"+sel("storcast_model_accuracy_ratio", `model="advisor"`)+" < "+fmt.Sprint(t.Model.MinAdvisorAccuracyRatio), t.Model.InaccurateFor,
			"Storcast's {{ $labels.model }} model of cluster {{ $labels.cluster }} predicts {{ $labels.target }} poorly.",
			"Accuracy on held-out data (1 - MAPE, or a cross-validated error) of the {{ $labels.model }} model for {{ $labels.target }} on cluster {{ $labels.cluster }} "+
				"is {{ $value | humanizePercentage }}, below "+pct(t.Model.MinAccuracyRatio)+" ("+pct(t.Model.MinAdvisorAccuracyRatio)+
				" for the rule-set advisor, whose accuracy is a skill score over the mean boost); its forecasts should not be trusted."),
		rule("StorcastModelFitFailing", "warning",
			// Not muted by storcast_warming_up: no model is fitted on a
			// warming window. While the source is down no fit is
			// attempted and the value stands: the SourceDown inhibition
			// mutes it then.
			sel("storcast_model_fit_error")+" == 1", t.Model.FitFailingFor,
			"Storcast's {{ $labels.model }} model of cluster {{ $labels.cluster }} does not fit.",
			"The fits of the {{ $labels.model }} model of cluster {{ $labels.cluster }} keep failing (storcast_model_fit_error 1 after every attempt; "+
				"/api/v1/clusters holds the error; a model that only waits, for more history or a max IOPS, does not count): a model that never fitted serves no forecast, "+
				"one fitted before serves its last version, which ages."),
		rule("StorcastSourceDown", "critical",
			sel("storcast_source_up")+" == 0", t.Source.DownFor,
			"Storcast cannot read the metrics of cluster {{ $labels.cluster }}.",
			"storcast's queries for the metrics of cluster {{ $labels.cluster }} fail or return nothing; "+
				"its forecasts are stale until they return."),
		rule("StorcastStateNotSaved", "warning",
			sel("storcast_state_save_success")+" == 0", t.State.NotSavedFor,
			"Storcast cannot save the models of cluster {{ $labels.cluster }}.",
			"storcast's last write of the fitted models of cluster {{ $labels.cluster }} to its state_dir failed (or the saved file could not be read nor moved aside at start); "+
				"the forecasts are served, but a restart would lose what was fitted since the last good save and serve nothing until the source answers and the models refit."),
		rule("StorcastStateNotRestored", "warning",
			sel("storcast_state_restore_success")+" == 0", t.State.NotRestoredFor,
			"Storcast discarded the saved models of cluster {{ $labels.cluster }} at start.",
			"storcast could not restore the models of cluster {{ $labels.cluster }} saved in its state_dir when it started (the file could not be read and was moved aside "+
				"as <cluster>.json.unreadable-<time>, or could not be moved and the cluster is not saved until the next start, or the live figures could not be derived from its models); "+
				"the cluster served no forecast until its models refit from the source instead of the saved ones at once. It holds until storcast starts again."),
		rule("StorcastShardMismatch", "warning",
			// Missing: configured on some shard, forecast by none (value 0).
			// Double: forecast under two or more distinct shard indexes
			// (count_values folds HA replicas of one shard, which report
			// the same index, into one).
			"(\n  0 * group by (cluster) ("+sel("storcast_cluster_configured")+")\n  unless on (cluster)\n  group by (cluster) ("+sel("storcast_cluster_shard_index")+")\n)\nor\n"+
				"(\n  count by (cluster) (count_values by (cluster) (\"shard\", "+sel("storcast_cluster_shard_index")+"))\n  > 1\n)",
			t.Shards.MismatchFor,
			"Cluster {{ $labels.cluster }} is forecast by {{ $value }} storcast shards, not 1.",
			"The clusters the storcast shards forecast differ from the configured set: cluster {{ $labels.cluster }} is forecast under {{ $value }} shard indexes "+
				"(0: no running shard has it, e.g. a shard is down or the shards disagree on --shard.total; 2 or more: two shards both claim it)."),
		rule("StorcastCollectorFailing", "warning",
			sel("storcast_scrape_collector_success")+" == 0", t.Exporter.CollectorFailingFor,
			"Storcast's {{ $labels.collector }} collector fails at {{ $labels.instance }}.",
			"The last run of storcast's {{ $labels.collector }} collector at {{ $labels.instance }} failed (a panic, in storcast's log as \"collector failed\"): "+
				"the series it exports are missing for some or all clusters, and the alerts on them are blind."),
		rule("StorcastConfigReloadFailed", "warning",
			sel("storcast_config_last_reload_successful")+" == 0", t.Exporter.ReloadFailedFor,
			"Storcast at {{ $labels.instance }} failed to reload its configuration.",
			"The last reload of storcast's configuration at {{ $labels.instance }} (SIGHUP or POST /-/reload) failed, in storcast's log as \"reload failed\": "+
				"it keeps running the configuration it had, so the change is not applied; unless the change is one only a restart applies (web.listen_address, web.config_file, demo), a restart would fail on the same file."),
		rule("StorcastExporterDown", "critical",
			// A target that is down reads up 0 (with its instance); a job
			// without any target (every pod gone, Pending or scaled to 0)
			// has no up series at all, which "== 0" cannot see.
			up+" == 0\nor\nabsent("+up+")", t.Exporter.DownFor,
			"{{ if $labels.instance }}Prometheus cannot scrape storcast at {{ $labels.instance }}.{{ else }}Prometheus has no storcast target to scrape (job "+t.StorcastJob+").{{ end }}",
			"{{ if $labels.instance }}No storcast forecasts are being collected from {{ $labels.instance }}; every other storcast alert is blind."+
				"{{ else }}The scrape job "+t.StorcastJob+" has no target (every storcast pod gone, Pending or scaled to 0, or service discovery finds none): "+
				"no storcast forecasts are collected and every other storcast alert, StorcastShardMismatch included, is blind.{{ end }}"),
	}
}

// Generate returns the rule file for the thresholds t, with a header that
// says where it comes from.
func Generate(t Thresholds, source string) ([]byte, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "# Generated by `go run ./alerts/gen` from %s; do not edit.\n", source)
	buf.WriteString("# Change thresholds in a copy of alerts/thresholds.yml and regenerate (see README, Operations).\n")
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(File{Groups: []Group{{Name: GroupName, Interval: t.Interval, Rules: Rules(t)}}}); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

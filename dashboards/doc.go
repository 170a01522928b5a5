// Package dashboards builds storcast's Grafana dashboards as code and writes
// them as JSON (dashboards/json/*.json, committed):
//
//	go generate ./dashboards     # or: make dashboards
//
// Both dashboards select storcast's scrape jobs in $job (all by default) and
// the clusters those serve in $cluster.
//
// "Storcast / Cluster headroom" shows, for the cluster picked in $cluster,
// whether its figures are current (source down, a model stale, warming up),
// today's IOPS against max IOPS at the current mix, the headroom ratio, the
// saturation ETA per limit, the latency forecast (mean and 95% band against
// load, the knee against today's load), the capacity curve over the read
// ratio and a what-if table. "Storcast / Model quality" shows backtest
// accuracy per model and target over time, fit durations, training samples,
// the age of the last fit, staleness, source health, state saves, fit errors
// and the collectors' health.
//
// Stored series come from Prometheus (a data-source variable of type
// prometheus, so the JSON imports anywhere); curves into the future and
// what-if come from the storcast-forecast-datasource plugin, whose query JSON
// is grafana-plugin/pkg/models.Query: queryType forecast | latencyCurve |
// capacityCurve | whatIf, cluster, and series/horizon, ioSize/points,
// readRatio/extraIops/hostsAdded.
//
// Thresholds drawn on panels (headroom, model accuracy) are read from
// alerts.DefaultThresholds, so a dashboard and the alerts agree.
//
// The tests check that the committed JSON is what the generator writes, and
// extract every PromQL expression from it and evaluate it with promtool
// against fixture series named as in the exporter's series contract, with
// the label values each series is declared with, so a renamed series, a
// label value never exported or a PromQL typo breaks the build. The panel
// expressions are also evaluated with Prometheus's PromQL engine over two HA
// replicas (each must read what one storcast does: nothing adds the replicas
// up) and over a cluster that never saturated (the max-IOPS panels draw its
// lower bound).
package dashboards

//go:generate go run ./gen -out json

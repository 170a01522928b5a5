// Package alerts is the end-to-end test of storcast's alert rules with real
// processes: storagesim (a simulated Ceph cluster with known ground truth),
// Debian's Prometheus backfilled with storagesim's history and scraping it
// live, storcast querying that Prometheus, the same Prometheus scraping
// storcast and evaluating alerts/storcast.rules.yml, and Debian's
// Alertmanager receiving the alerts.
//
// Three cases run:
//
//   - growth (testdata/growth-e2e.yml): demand grows linearly and meets
//     capacity 12 h after the test starts. The test waits until
//     Alertmanager's API holds StorcastMaxIOPSSaturationPredicted for the
//     cluster and asserts that it started before storagesim's /truth
//     saturation_time, that the cluster was not saturated yet when it fired,
//     and that storcast's ETA is within 50% of the truth.
//   - steady (the shipped steady scenario: a daily cycle around 40% of
//     capacity, no trend): once storcast's forecasts are in Prometheus and
//     the rules have been evaluated on them for a while, no alert is pending
//     or firing in Prometheus and none reached Alertmanager.
//   - steady with an outgrown calibration (its calibration file at 40% of
//     the true capacity): StorcastCalibrationContradicted reaches
//     Alertmanager, storcast_capacity_history_load_ratio above 1.
//
// To keep the wall time to a few minutes, Prometheus scrapes and evaluates
// every 2 s, storcast refits every 30 s, and the rules are a test copy
// generated from alerts/thresholds.yml with every `for:` duration set to 0
// but StorcastExporterDown's, which covers the stack's first scrape (the
// thresholds, horizon included, are the shipped ones). Histories of
// 48 h at a 1 m step are backfilled with promtool.
//
//	make e2e-alerts      # go test -tags e2e ./e2e/alerts/
package alerts

// Package alerts generates storcast's Prometheus alerting rules from a small
// YAML file of thresholds (thresholds.yml), so that an operator changes a
// number, not a copy of an expression.
//
//	go run ./alerts/gen                                   # rewrites alerts/storcast.rules.yml
//	go run ./alerts/gen -thresholds my.yml -out my.rules.yml
//
// The rules, with x the thresholds of thresholds.yml:
//
//	StorcastHeadroomLow               storcast_headroom_ratio < x.headroom.warning_ratio
//	StorcastHeadroomCritical          storcast_headroom_ratio < x.headroom.critical_ratio
//	StorcastMaxIOPSSaturationPredicted
//	                                  storcast_saturation_eta_seconds{limit="max_iops"} < x.saturation.horizon
//	StorcastLatencySLOBreachPredicted storcast_saturation_eta_seconds{limit="latency_slo"} < x.saturation.horizon
//	StorcastLatencySLOAtExtraLoad     x.latency.load_factor * storcast_observed_iops
//	                                    > storcast_latency_knee_iops{bound="mean"}
//	StorcastModelStale                storcast_model_stale == 1
//	StorcastModelInaccurate           storcast_model_accuracy_ratio < x.model.min_accuracy_ratio
//	StorcastSourceDown                storcast_source_up == 0
//	StorcastExporterDown              up{job=x.storcast_job} == 0
//
// StorcastLatencySLOAtExtraLoad is "the predicted mean latency at load_factor
// times today's load is above the SLO": the knee is the load at which the
// predicted mean latency crosses the SLO, and the predicted latency grows
// with load, so latency(f·load) > SLO exactly when f·load > knee. Writing it
// with the knee keeps the rule free of the SLO's value (it is per cluster, in
// storcast's configuration) and of the load_factor label values that
// storcast_predicted_latency_seconds happens to export.
//
// Every rule carries a severity label and summary, description and
// runbook_url annotations; runbooks are alerts/runbooks/<alertname>.md.
// The tests run promtool check rules and promtool test rules
// (tests/*.test.yml) and fail when an alert lacks a positive or a negative
// test case, a runbook, or when storcast.rules.yml is not what the generator
// writes from thresholds.yml.
package alerts

//go:generate go run ./gen -thresholds thresholds.yml -out storcast.rules.yml

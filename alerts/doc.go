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
//	                                  (with x.saturation.eta early, both on the band's early end,
//	                                  storcast_saturation_eta_seconds_bound{bound="lower"}, or the ETA
//	                                  where there is no band)
//	StorcastLatencySLOAtExtraLoad     storcast_predicted_latency_seconds{load_factor=x.latency.load_factor, bound="mean"}
//	                                    > ignoring (load_factor, bound) storcast_latency_slo_seconds
//	StorcastModelStale                storcast_model_stale == 1
//	StorcastModelInaccurate           storcast_model_accuracy_ratio < x.model.min_accuracy_ratio
//	                                  (model="advisor": < x.model.min_advisor_accuracy_ratio)
//	StorcastModelFitFailing           storcast_model_fit_error == 1
//	StorcastSourceDown                storcast_source_up == 0
//	StorcastStateNotSaved             storcast_state_save_success == 0
//	StorcastStateNotRestored          storcast_state_restore_success == 0
//	StorcastCollectorFailing          storcast_scrape_collector_success == 0
//	StorcastConfigReloadFailed        storcast_config_last_reload_successful == 0
//	StorcastExporterDown              up{job=x.storcast_job} == 0 or absent(up{job=x.storcast_job})
//	StorcastShardMismatch             a cluster of storcast_cluster_configured without a
//	                                    storcast_cluster_shard_index, or with two or more
//	                                    distinct values of it (HA replicas of one shard count once)
//
// The headroom, ETA and extra-load rules leave out a storcast whose cluster's
// rates are warming up (storcast_warming_up == 1), matched on every label the
// two series share: one HA replica's warm-up does not mute the other's.
// load_factor must be one that storcast exports (1.25, 1.5 or 2). A job
// matcher in selector must match storcast_job.
//
// Every rule carries a severity label and summary, description and
// runbook_url annotations; runbooks are alerts/runbooks/<alertname>.md.
// The tests run promtool check rules and promtool test rules
// (tests/*.test.yml) and fail when an alert lacks a positive or a negative
// test case, a runbook, or when storcast.rules.yml is not what the generator
// writes from thresholds.yml.
package alerts

//go:generate go run ./gen -thresholds thresholds.yml -out storcast.rules.yml

// Package collector exposes the engine's snapshots as Prometheus series, in
// the style of node_exporter: one collector per file, registered by name in
// a registry; every scrape runs each enabled collector and reports
// storcast_scrape_collector_success and storcast_scrape_collector_duration_seconds
// per collector. Collectors read immutable snapshots only, so a scrape never
// waits for a fit. A value that does not exist (no model yet, a band that
// never crosses the SLO) is left out rather than exported as NaN; +Inf is
// exported where it is the answer (an ETA when demand does not grow).
package collector

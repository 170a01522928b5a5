// Package collector exposes the engine's snapshots as Prometheus series: one
// collector per concern and file, listed in New. The /metrics handler
// (Exposition) runs them all when a snapshot or the shard report changed
// since the last run (a refresh, a fit, a reload; at most once per
// MinGatherInterval) and serves the kept result to the scrapes in between;
// each run reports storcast_scrape_collector_success and
// storcast_scrape_collector_duration_seconds per collector. Every series is
// declared once (newDesc), which both feeds Describe and Declared, the list
// the alert and dashboard tests check their queries against (ConfigReload's
// too, a collector of the process's own registry). Collectors read
// immutable snapshots only, so a scrape never waits for a fit. A value that
// does not exist (no model yet, a band that never crosses the SLO) is left
// out rather than exported as NaN; +Inf is exported where it is the answer
// (an ETA not reached within a year).
package collector

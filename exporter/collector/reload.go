package collector

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

var (
	configReloadSuccessDesc = newProcessDesc("storcast_config_last_reload_successful",
		"Whether the last load of the configuration (at start, on SIGHUP or POST /-/reload) succeeded (1) or failed, the running configuration kept (0).")
	configReloadSuccessTimeDesc = newProcessDesc("storcast_config_last_reload_success_timestamp_seconds",
		"Unix time of the last successful load of the configuration (at start or by a reload).")
)

// processDescs are the declared series that the process's own registry
// exports (ConfigReload): Declared lists them, for the alert tests, but the
// Exporter does not describe them.
var processDescs = map[*prometheus.Desc]bool{}

// newProcessDesc is newDesc for a series of the process's own registry.
func newProcessDesc(name, help string) *prometheus.Desc {
	d := newDesc(name, help, nil)
	processDescs[d] = true
	return d
}

// ConfigReload exports the outcome of the last load of the configuration,
// as Prometheus and blackbox_exporter do. It is a prometheus.Collector of
// the process's own registry, gathered on every scrape: a failed reload
// changes no snapshot, so among the Exporter's collectors, gathered again
// only when a snapshot changes, it would go unseen.
type ConfigReload struct {
	mu          sync.Mutex
	ok          bool
	lastSuccess time.Time
}

// NewConfigReload returns the outcome of the start's load, successful at
// loadedAt (storcast does not start on a configuration that fails).
func NewConfigReload(loadedAt time.Time) *ConfigReload {
	return &ConfigReload{ok: true, lastSuccess: loadedAt}
}

// Record sets the outcome of a reload at now: err nil for a success.
func (r *ConfigReload) Record(err error, now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ok = err == nil
	if r.ok {
		r.lastSuccess = now
	}
}

// Describe implements prometheus.Collector.
func (r *ConfigReload) Describe(ch chan<- *prometheus.Desc) {
	ch <- configReloadSuccessDesc
	ch <- configReloadSuccessTimeDesc
}

// Collect implements prometheus.Collector.
func (r *ConfigReload) Collect(ch chan<- prometheus.Metric) {
	r.mu.Lock()
	ok, last := r.ok, r.lastSuccess
	r.mu.Unlock()
	gauge(ch, configReloadSuccessDesc, b2f(ok))
	gauge(ch, configReloadSuccessTimeDesc, float64(last.UnixMilli())/1e3)
}

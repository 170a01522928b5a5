package collector

import (
	"fmt"
	"log/slog"
	"math"
	"sort"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/storcast/storcast/exporter/engine"
)

// Snapshotter is what collectors read: the engine.
type Snapshotter interface {
	Snapshots() []*engine.Snapshot
}

// Collector emits the series of one concern from snapshots.
type Collector interface {
	Update(ch chan<- prometheus.Metric, snaps []*engine.Snapshot) error
}

var (
	factoriesMu sync.Mutex
	factories   = map[string]func() Collector{}
)

func registerCollector(name string, f func() Collector) {
	factoriesMu.Lock()
	defer factoriesMu.Unlock()
	factories[name] = f
}

// Names lists the registered collectors.
func Names() []string {
	factoriesMu.Lock()
	defer factoriesMu.Unlock()
	out := make([]string, 0, len(factories))
	for n := range factories {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// allDescs holds every descriptor the collectors use, for Describe.
var allDescs []*prometheus.Desc

// newDesc is prometheus.NewDesc that also records the descriptor.
func newDesc(name, help string, labels []string, constLabels prometheus.Labels) *prometheus.Desc {
	d := prometheus.NewDesc(name, help, labels, constLabels)
	allDescs = append(allDescs, d)
	return d
}

var (
	scrapeDurationDesc = newDesc("storcast_scrape_collector_duration_seconds",
		"Duration of a collector's scrape.", []string{"collector"}, nil)
	scrapeSuccessDesc = newDesc("storcast_scrape_collector_success",
		"Whether a collector succeeded (1) or failed (0).", []string{"collector"}, nil)
)

// Exporter is the prometheus.Collector running every registered collector.
type Exporter struct {
	src        Snapshotter
	log        *slog.Logger
	collectors map[string]Collector
}

// New returns an Exporter over src with every registered collector.
func New(src Snapshotter, log *slog.Logger) *Exporter {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	e := &Exporter{src: src, log: log, collectors: map[string]Collector{}}
	factoriesMu.Lock()
	defer factoriesMu.Unlock()
	for n, f := range factories {
		e.collectors[n] = f()
	}
	return e
}

// Describe implements prometheus.Collector: every descriptor of every
// collector, so the registry checks what is collected against them.
func (e *Exporter) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range allDescs {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (e *Exporter) Collect(ch chan<- prometheus.Metric) {
	snaps := e.src.Snapshots()
	var wg sync.WaitGroup
	for name, c := range e.collectors {
		wg.Add(1)
		go func(name string, c Collector) {
			defer wg.Done()
			t0 := time.Now()
			err := safeUpdate(c, ch, snaps)
			ch <- prometheus.MustNewConstMetric(scrapeDurationDesc, prometheus.GaugeValue, time.Since(t0).Seconds(), name)
			ok := 1.0
			if err != nil {
				ok = 0
				e.log.Error("collector failed", "collector", name, "err", err)
			}
			ch <- prometheus.MustNewConstMetric(scrapeSuccessDesc, prometheus.GaugeValue, ok, name)
		}(name, c)
	}
	wg.Wait()
}

// safeUpdate turns a panic in a collector into its failure, so one bad
// collector cannot take /metrics down.
func safeUpdate(c Collector, ch chan<- prometheus.Metric, snaps []*engine.Snapshot) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return c.Update(ch, snaps)
}

// gauge emits a gauge unless v is NaN.
func gauge(ch chan<- prometheus.Metric, d *prometheus.Desc, v float64, labels ...string) {
	if math.IsNaN(v) {
		return
	}
	ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

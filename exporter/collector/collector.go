package collector

import (
	"fmt"
	"log/slog"
	"math"
	"slices"
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

// Series is one exported metric family as declared: its name, help and
// variable labels, in the order the values are given.
type Series struct {
	Name   string
	Help   string
	Labels []string
}

// declared holds every series the collectors declare, in declaration order,
// with its descriptor: Describe sends the descriptors, Declared returns the
// declarations (for the alert and dashboard tests, which check what they
// query against what storcast exports).
var declared []struct {
	Series
	desc *prometheus.Desc
}

// newDesc is prometheus.NewDesc that also records the declaration.
func newDesc(name, help string, labels []string) *prometheus.Desc {
	d := prometheus.NewDesc(name, help, labels, nil)
	declared = append(declared, struct {
		Series
		desc *prometheus.Desc
	}{Series{name, help, slices.Clone(labels)}, d})
	return d
}

// Declared returns every series the Exporter can emit, sorted by name.
func Declared() []Series {
	out := make([]Series, len(declared))
	for i, d := range declared {
		out[i] = d.Series
		out[i].Labels = slices.Clone(d.Labels)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

var (
	scrapeDurationDesc = newDesc("storcast_scrape_collector_duration_seconds",
		"Duration of a collector's scrape.", []string{"collector"})
	scrapeSuccessDesc = newDesc("storcast_scrape_collector_success",
		"Whether a collector succeeded (1) or failed (0).", []string{"collector"})
)

// Exporter is the prometheus.Collector running every collector.
type Exporter struct {
	src        Snapshotter
	log        *slog.Logger
	collectors []namedCollector
}

type namedCollector struct {
	name string
	Collector
}

// New returns an Exporter over src with every collector; shard says which
// shard the process is (nil: the shard series are not exported). They are
// listed here rather than registered from init functions: storcast has no
// per-collector flags to enable them by, so a registry would only hide the
// list.
func New(src Snapshotter, shard ShardReporter, log *slog.Logger) *Exporter {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Exporter{src: src, log: log, collectors: []namedCollector{
		{"capacity", capacityCollector{}},
		{"eta", etaCollector{}},
		{"insideout", insideoutCollector{}},
		{"latency", latencyCollector{}},
		{"model", modelCollector{}},
		{"observed", observedCollector{}},
		{"ruleset", rulesetCollector{}},
		{"shard", shardCollector{shard}},
		{"workload", workloadCollector{}},
	}}
}

// Describe implements prometheus.Collector: every descriptor of every
// collector, so the registry checks what is collected against them.
func (e *Exporter) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range declared {
		ch <- d.desc
	}
}

// Collect implements prometheus.Collector.
func (e *Exporter) Collect(ch chan<- prometheus.Metric) {
	snaps := e.src.Snapshots()
	var wg sync.WaitGroup
	for _, nc := range e.collectors {
		name, c := nc.name, nc.Collector
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

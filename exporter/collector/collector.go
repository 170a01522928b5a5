package collector

import (
	"fmt"
	"log/slog"
	"math"
	"slices"
	"sort"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

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
	// Values holds every value of each label whose values the collectors
	// write themselves (op, bound, limit, ...), as oneOf declares them; a
	// label not in it takes its values from the configuration or the data
	// (cluster, model, rule set, learner).
	Values map[string][]string
}

// labelValues are all the values one label of a series takes.
type labelValues struct {
	label  string
	values []string
}

// oneOf declares, beside a descriptor (newDesc), that its label takes
// exactly these values, so that the dashboard and alert tests query only
// what is exported (TestDeclaredValuesAreWhatIsEmitted holds them to it).
func oneOf(label string, values ...string) labelValues {
	return labelValues{label, values}
}

// declared holds every series the collectors declare, in declaration order,
// with its descriptor: Describe sends the descriptors, Declared returns the
// declarations (for the alert and dashboard tests, which check what they
// query against what storcast exports).
var declared []struct {
	Series
	desc *prometheus.Desc
}

// labelNames holds the variable label names of every descriptor newDesc
// made, for gauge. Written at package initialization (tests aside), read
// by concurrent scrapes.
var labelNames = map[*prometheus.Desc][]string{}

// newDesc is prometheus.NewDesc that also records the declaration, with
// the values of its labels that take a fixed set (oneOf).
func newDesc(name, help string, labels []string, values ...labelValues) *prometheus.Desc {
	d := prometheus.NewDesc(name, help, labels, nil)
	var vs map[string][]string
	for _, v := range values {
		if !slices.Contains(labels, v.label) || len(v.values) == 0 {
			panic(fmt.Sprintf("collector: %s: values %v of a label it does not have (%v)", name, v, labels))
		}
		if vs == nil {
			vs = map[string][]string{}
		}
		vs[v.label] = slices.Clone(v.values)
	}
	declared = append(declared, struct {
		Series
		desc *prometheus.Desc
	}{Series{name, help, slices.Clone(labels), vs}, d})
	labelNames[d] = slices.Clone(labels)
	return d
}

// Declared returns every series the Exporter can emit, sorted by name.
func Declared() []Series {
	out := make([]Series, len(declared))
	for i, d := range declared {
		out[i] = d.Series
		out[i].Labels = slices.Clone(d.Labels)
		if d.Values != nil {
			out[i].Values = map[string][]string{}
			for l, v := range d.Values {
				out[i].Values[l] = slices.Clone(v)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

var (
	scrapeDurationDesc = newDesc("storcast_scrape_collector_duration_seconds",
		"Duration of a collector's last run. The collectors run when a cluster's snapshot changes (a refresh, a fit, a reload), not on every scrape.", []string{"collector"})
	scrapeSuccessDesc = newDesc("storcast_scrape_collector_success",
		"Whether a collector's last run succeeded (1) or failed (0). The collectors run when a cluster's snapshot changes (a refresh, a fit, a reload), not on every scrape.", []string{"collector"})
)

// perCluster is a Collector whose series each cluster's snapshot gives on
// its own: the function runs once per snapshot.
type perCluster func(ch chan<- prometheus.Metric, s *engine.Snapshot)

// Update implements Collector.
func (f perCluster) Update(ch chan<- prometheus.Metric, snaps []*engine.Snapshot) error {
	for _, s := range snaps {
		f(ch, s)
	}
	return nil
}

// Exporter is the prometheus.Collector running every collector.
type Exporter struct {
	src        Snapshotter
	shard      ShardReporter // nil: no shard series
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
	return &Exporter{src: src, shard: shard, log: log, collectors: []namedCollector{
		{"capacity", perCluster(collectCapacity)},
		{"eta", perCluster(collectETA)},
		{"insideout", perCluster(collectInsideOut)},
		{"latency", perCluster(collectLatency)},
		{"model", perCluster(collectModels)},
		{"observed", perCluster(collectObserved)},
		{"ruleset", perCluster(collectRuleSets)},
		{"shard", shardCollector{shard}},
		{"state", perCluster(collectState)},
		{"warmup", perCluster(collectWarmup)},
		{"whatif", perCluster(collectWhatIf)},
		{"workload", perCluster(collectWorkload)},
	}}
}

// Describe implements prometheus.Collector: every descriptor of every
// collector, so the registry checks what is collected against them (not
// those of the process's registry: ConfigReload describes its own).
func (e *Exporter) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range declared {
		if !processDescs[d.desc] {
			ch <- d.desc
		}
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

// gauge emits a gauge unless v is NaN. For a descriptor of newDesc, the
// metric shares interned label pairs (see gaugeMetric); for any other it is
// prometheus.MustNewConstMetric.
func gauge(ch chan<- prometheus.Metric, d *prometheus.Desc, v float64, labels ...string) {
	if math.IsNaN(v) {
		return
	}
	names, ok := labelNames[d]
	if !ok || len(names) != len(labels) || len(names) > maxGaugeLabels {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
		return
	}
	m := &gaugeMetric{desc: d, n: len(names)}
	m.gauge.Value = &m.value
	m.value = v
	for i, name := range names {
		if m.labels[i] = interned.pair(name, labels[i]); m.labels[i] == nil {
			// Not UTF-8: the constant metric's panic fails this collector
			// (see safeUpdate), where the registry would fail the scrape.
			ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
			return
		}
	}
	// The exposition wants label pairs sorted by name (the registry would
	// otherwise copy and sort them): insertion sort, at most a few.
	for i := 1; i < m.n; i++ {
		for j := i; j > 0 && m.labels[j].GetName() < m.labels[j-1].GetName(); j-- {
			m.labels[j], m.labels[j-1] = m.labels[j-1], m.labels[j]
		}
	}
	ch <- m
}

// maxGaugeLabels is the most variable labels a gaugeMetric holds.
const maxGaugeLabels = 4

// gaugeMetric is a constant gauge whose label pairs are shared, read-only,
// between metrics and scrapes. prometheus.NewConstMetric allocates three
// objects per label (the pair and its two strings) on every scrape: with
// 100 clusters that was most of a scrape's ~100k allocations, for values
// (cluster names, op, bound) that do not change between scrapes.
type gaugeMetric struct {
	desc   *prometheus.Desc
	value  float64
	gauge  dto.Gauge
	labels [maxGaugeLabels]*dto.LabelPair
	n      int
}

func (m *gaugeMetric) Desc() *prometheus.Desc { return m.desc }

// Write implements prometheus.Metric. The pairs are never modified after
// interning, so concurrent scrapes may share them, as they share a
// ConstMetric's.
func (m *gaugeMetric) Write(out *dto.Metric) error {
	out.Label = m.labels[:m.n]
	out.Gauge = &m.gauge
	return nil
}

// labelPairs interns label pairs by name and value.
type labelPairs struct {
	mu    sync.RWMutex
	pairs map[[2]string]*dto.LabelPair
}

// interned holds the label pairs of every gauge emitted. Its size is the
// number of distinct label values (clusters, models, rule sets, ...); it
// starts again when a long run of reloads has grown it past maxInterned.
var interned = labelPairs{pairs: map[[2]string]*dto.LabelPair{}}

const maxInterned = 1 << 16

// pair returns the interned pair, nil when value is not valid UTF-8.
func (l *labelPairs) pair(name, value string) *dto.LabelPair {
	k := [2]string{name, value}
	l.mu.RLock()
	p := l.pairs[k]
	l.mu.RUnlock()
	if p != nil {
		return p
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if p := l.pairs[k]; p != nil {
		return p
	}
	if !utf8.ValidString(value) {
		return nil
	}
	if len(l.pairs) >= maxInterned {
		clear(l.pairs)
	}
	// Copies, so that only this path moves strings to the heap.
	n, v := name, value
	p = &dto.LabelPair{Name: &n, Value: &v}
	l.pairs[k] = p
	return p
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

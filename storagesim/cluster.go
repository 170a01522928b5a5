package storagesim

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Cluster is a simulated cluster: a scenario, a seed and a time origin. Every
// value it produces is a pure function of (scenario, seed, origin, t), so a
// history written by WriteHistory and a live server started with the same
// origin agree sample for sample. A Cluster is safe for concurrent use.
type Cluster struct {
	sc          *Scenario
	seed        int64
	origin      time.Time
	hosts       []hostInfo
	osds        []osdInfo
	initialOSDs int
	epochs      []hostEpoch
	targets     []target
	families    []family
	series      []series
	accum       []int // indexes of series that integrate increments

	restartP   float64 // probability of an OSD restart per tick
	restartKey uint64
	gapP       float64 // probability of a scrape gap per target per hour

	closedMemo atomic.Pointer[closedMemo] // the last closed-loop solution (solveClosed)

	mu     sync.Mutex
	cur    int64     // tick the accumulators are at (values at the start of tick cur)
	acc    []float64 // per series: accumulated value at the start of tick cur
	checks []checkpoint
}

type checkpoint struct {
	tick int64
	acc  []float64
}

// checkpointEvery is the spacing of the accumulators' checkpoints (ticks,
// 1 h). Only some are kept (keepCheckpoint): the newest checkpointsPerLevel
// whole hours, the newest checkpointsPerLevel even hours, multiples of 4 h
// and so on, so the list grows with the logarithm of the simulated time
// (at most 41 checkpoints after 30 days) and a rewind re-integrates from a
// checkpoint at most about half as old as the rewind is long.
const (
	checkpointEvery     = 720
	checkpointsPerLevel = 4
)

// keepCheckpoint reports whether the checkpoint at tick t (a multiple of
// checkpointEvery) is kept once the newest is at tick newest. The kept set
// only loses members as newest grows, so a checkpoint dropped is never
// needed again.
func keepCheckpoint(t, newest int64) bool {
	h, n := t/checkpointEvery, newest/checkpointEvery
	if h == 0 {
		return true // the origin
	}
	for step := int64(1); h%step == 0; step *= 2 {
		if n/step-h/step < checkpointsPerLevel {
			return true
		}
	}
	return false
}

// addCheckpoint records acc at tick k (the newest checkpoint) and drops the
// ones keepCheckpoint no longer keeps.
func (c *Cluster) addCheckpoint(k int64) {
	kept := c.checks[:0]
	for _, cp := range c.checks {
		if keepCheckpoint(cp.tick, k) {
			kept = append(kept, cp)
		}
	}
	for i := len(kept); i < len(c.checks); i++ {
		c.checks[i] = checkpoint{} // let the dropped slices go
	}
	c.checks = append(kept, checkpoint{tick: k, acc: append([]float64(nil), c.acc...)})
}

type hostInfo struct {
	name       string
	publicAddr string
	target     int
}

type osdInfo struct {
	id     int
	host   int
	weight float64
	device string
}

// Target is one scrape target of the simulated cluster, as Prometheus sees it.
type Target struct {
	Job      string // "ceph", "swift" or "node"
	Instance string // the instance label it should carry
	Path     string // HTTP path on the storagesim listener
	Host     string // host name for node targets, "" otherwise
}

type target struct {
	Target
	host int // host slot, -1 for the cluster-wide target
	key  uint64
}

type metricType int

const (
	typeCounter metricType = iota
	typeGauge
	typeUntyped
	typeSummary
	typeHistogram
)

var typeNames = [...]string{"counter", "gauge", "untyped", "summary", "histogram"}

type family struct {
	name       string
	help       string
	typ        metricType
	labelNames []string
	target     int
	series     []int
	desc       *prometheus.Desc
}

type part int

const (
	partValue part = iota
	partSum
	partCount
	partQuantile
	partBucket
)

type series struct {
	fam         int
	target      int
	name        string   // sample name (family name plus _sum, _count, _bucket)
	labelValues []string // values of the family's label names
	part        part
	bound       float64 // quantile or upper bound
	group       int     // summary/histogram: index of the first series of the group
	accum       bool    // integrates fn (an increment per tick) from the origin
	integer     bool    // exposed rounded down (op and byte counts)
	base        float64 // value at the origin for accumulating gauges
	resetOSD    int     // OSD slot whose restart resets the counter, -1 for none
	host        int     // host slot that must be active, -1 for none
	fn          func(st *state, tick int64) float64
	prefix      []byte // "name{labels} " for the text formats
}

// New builds a cluster for the scenario with the given seed; origin is the
// scenario's time zero (events' "at" count from it, counters start at 0).
func New(sc *Scenario, seed int64, origin time.Time) (*Cluster, error) {
	if sc == nil {
		return nil, errors.New("storagesim: nil scenario")
	}
	// Work on a copy: the caller may change or share its Scenario.
	cp := *sc
	cp.sizes, cp.events, cp.mix0, cp.gamma = nil, nil, nil, nil
	if in := sc.Capacity.Interference; in != nil {
		c := *in
		cp.Capacity.Interference = &c
	}
	cp.Capacity.Points = append([]CapacityPoint(nil), sc.Capacity.Points...)
	cp.Cluster.Pools = append([]Pool(nil), sc.Cluster.Pools...)
	cp.Events = append([]Event(nil), sc.Events...)
	sc = &cp
	if err := sc.validate(); err != nil {
		return nil, fmt.Errorf("scenario %s: %w", sc.source, err)
	}
	c := &Cluster{sc: sc, seed: seed, origin: origin.Truncate(time.Second)}
	per := sc.Cluster.OSDsPerHost
	weightKey := c.key("osd-weight")
	if sc.Clients.Loop == "closed" {
		// A closed loop's queueing network is made of these weights
		// (mva.go): they are part of the truth, which another seed must
		// not change, so they are drawn as seed 0 draws them.
		weightKey = seedKey(0, "osd-weight")
	}
	for h := 0; h < sc.maxHosts(); h++ {
		c.hosts = append(c.hosts, hostInfo{
			name:       sc.Cluster.HostPrefix + strconv.Itoa(h+1),
			publicAddr: "10.0.0." + strconv.Itoa(h+11),
		})
		for j := 0; j < per; j++ {
			id := h*per + j
			w := 1 + sc.Capacity.OSDWeightSpread*(2*unit(weightKey, int64(id))-1)
			c.osds = append(c.osds, osdInfo{id: id, host: h, weight: w, device: "sd" + string(rune('b'+j))})
		}
	}
	c.initialOSDs = sc.Cluster.Hosts * per
	c.buildHostEpochs()
	c.restartP = sc.Faults.RestartsPerOSDPerDay * tickSeconds / 86400
	c.restartKey = c.key("restart")
	c.gapP = sc.Faults.ScrapeGapsPerDay / 24

	switch sc.Personality {
	case PersonalitySwift:
		c.addTarget(Target{Job: "swift", Instance: "statsd-exporter:9102", Path: "/metrics"}, -1)
	default:
		c.addTarget(Target{Job: "ceph", Instance: "ceph-mgr:9283", Path: "/metrics"}, -1)
	}
	for h := range c.hosts {
		c.hosts[h].target = c.addTarget(Target{Job: "node", Instance: c.hosts[h].name + ":9100", Path: "/hosts/" + c.hosts[h].name + "/metrics", Host: c.hosts[h].name}, h)
	}
	switch sc.Personality {
	case PersonalitySwift:
		if err := c.addSwift(); err != nil {
			return nil, err
		}
	default:
		c.addCeph()
	}
	c.addNode()
	for i := range c.families {
		f := &c.families[i]
		names := f.labelNames
		switch f.typ {
		case typeSummary, typeHistogram:
			names = names[:len(names)-1] // quantile / le are not variable labels
		}
		f.desc = prometheus.NewDesc(f.name, f.help, names, nil)
	}
	for i := range c.series {
		s := &c.series[i]
		s.prefix = renderPrefix(s.name, c.families[s.fam].labelNames, s.labelValues)
		if s.accum {
			c.accum = append(c.accum, i)
		}
	}
	c.acc = make([]float64, len(c.series))
	c.resetAccumulators()
	return c, nil
}

func (c *Cluster) resetAccumulators() {
	c.cur = 0
	for i := range c.series {
		c.acc[i] = c.series[i].base
	}
	c.checks = append(c.checks[:0], checkpoint{tick: 0, acc: append([]float64(nil), c.acc...)})
}

// Scenario returns (a copy of) the cluster's scenario.
func (c *Cluster) Scenario() *Scenario { return c.sc }

// Origin returns the cluster's time zero.
func (c *Cluster) Origin() time.Time { return c.origin }

// Seed returns the cluster's seed.
func (c *Cluster) Seed() int64 { return c.seed }

// Targets lists the scrape targets that exist at t (hosts come and go with
// add_hosts/remove_hosts events).
func (c *Cluster) Targets(t time.Time) []Target {
	st := c.stateAt(c.secondsAt(t))
	var out []Target
	for _, tg := range c.targets {
		if tg.host >= 0 && st.hostMask&(1<<tg.host) == 0 {
			continue
		}
		out = append(out, tg.Target)
	}
	return out
}

func (c *Cluster) addTarget(t Target, host int) int {
	c.targets = append(c.targets, target{Target: t, host: host, key: c.key("target:" + t.Instance)})
	return len(c.targets) - 1
}

// key derives a noise key from the seed and a name.
func (c *Cluster) key(name string) uint64 { return seedKey(c.seed, name) }

// seedKey derives a key from a seed and a name.
func seedKey(seed int64, name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return splitmix64(h.Sum64() ^ uint64(seed)*0x9e3779b97f4a7c15)
}

func (c *Cluster) addFamily(name, help string, typ metricType, target int, labelNames ...string) int {
	c.families = append(c.families, family{name: name, help: help, typ: typ, labelNames: labelNames, target: target})
	return len(c.families) - 1
}

type seriesOpt struct {
	part     part
	bound    float64
	accum    bool
	frac     bool // an accumulating series that keeps its fraction (seconds)
	base     float64
	resetOSD int
	host     int
}

func (c *Cluster) addSeries(fam int, o seriesOpt, fn func(st *state, tick int64) float64, labelValues ...string) int {
	f := &c.families[fam]
	if len(labelValues) != len(f.labelNames) {
		panic(fmt.Sprintf("storagesim: family %s has labels %v, got values %v", f.name, f.labelNames, labelValues))
	}
	name := f.name
	switch o.part {
	case partSum:
		name += "_sum"
	case partCount:
		name += "_count"
	case partBucket:
		name += "_bucket"
	}
	s := series{fam: fam, target: f.target, name: name, labelValues: labelValues, part: o.part, bound: o.bound,
		accum: o.accum, integer: o.accum && !o.frac, base: o.base, resetOSD: o.resetOSD, host: o.host, fn: fn, group: len(c.series)}
	if o.part != partValue && len(f.series) > 0 {
		// Parts of one summary/histogram share the labels but the last.
		last := &c.series[f.series[len(f.series)-1]]
		if equalStrings(last.labelValues[:len(last.labelValues)-1], labelValues[:len(labelValues)-1]) {
			s.group = last.group
		}
	}
	c.series = append(c.series, s)
	f.series = append(f.series, len(c.series)-1)
	return len(c.series) - 1
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func renderPrefix(name string, labelNames, labelValues []string) []byte {
	b := []byte(name)
	n := 0
	for _, v := range labelValues {
		if v != "" {
			n++
		}
	}
	if n > 0 {
		b = append(b, '{')
		first := true
		for i, n := range labelNames {
			if labelValues[i] == "" {
				continue // an empty label is no label
			}
			if !first {
				b = append(b, ',')
			}
			first = false
			b = append(b, n...)
			b = append(b, '=', '"')
			b = append(b, escapeLabel(labelValues[i])...)
			b = append(b, '"')
		}
		b = append(b, '}')
	}
	return append(b, ' ')
}

func escapeLabel(v string) string {
	if !strings.ContainsAny(v, "\\\"\n") {
		return v
	}
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return r.Replace(v)
}

// secondsAt converts an instant to seconds since the origin (never negative).
func (c *Cluster) secondsAt(t time.Time) float64 {
	s := t.Sub(c.origin).Seconds()
	if s < 0 {
		return 0
	}
	return s
}

// tickAt splits an instant into its tick and the fraction of it elapsed.
func (c *Cluster) tickAt(t time.Time) (int64, float64) {
	d := t.Sub(c.origin)
	if d < 0 {
		return 0, 0
	}
	k := int64(d / Tick)
	return k, float64(d-time.Duration(k)*Tick) / float64(Tick)
}

func (c *Cluster) tickState(k int64) state { return c.stateAt(float64(k) * tickSeconds) }

// osdRestarts reports whether OSD slot o restarts at the start of tick k.
func (c *Cluster) osdRestarts(o int, k int64) bool {
	if c.restartP == 0 || k == 0 {
		return false
	}
	return unit(c.restartKey^uint64(o+1)*0xa24baed4963ee407, k) < c.restartP
}

// inGap reports whether target ti does not answer at sec seconds after the
// origin: with probability gapP an hour holds one gap at a random offset.
func (c *Cluster) inGap(ti int, sec float64) bool {
	if c.gapP == 0 {
		return false
	}
	hour := int64(math.Floor(sec / 3600))
	key := c.targets[ti].key
	if unit(key, hour) >= c.gapP {
		return false
	}
	dur := time.Duration(c.sc.Faults.ScrapeGapDuration).Seconds()
	start := float64(hour)*3600 + unit(key^0x5bd1e995, hour)*(3600-dur)
	return sec >= start && sec < start+dur
}

// step integrates tick k into acc (acc holds values at the start of tick k
// and afterwards at the start of tick k+1).
func (c *Cluster) step(acc []float64, st *state, k int64) {
	for _, i := range c.accum {
		s := &c.series[i]
		if s.resetOSD >= 0 && c.osdRestarts(s.resetOSD, k) {
			acc[i] = 0
		}
		if s.host >= 0 && st.hostMask&(1<<s.host) == 0 {
			continue
		}
		acc[i] += s.fn(st, k)
	}
}

// advance moves the accumulators to the start of tick k. Caller holds mu.
func (c *Cluster) advance(k int64) {
	if k < c.cur {
		// Rewind to the last checkpoint at or before k.
		j := len(c.checks) - 1
		for j > 0 && c.checks[j].tick > k {
			j--
		}
		c.cur = c.checks[j].tick
		copy(c.acc, c.checks[j].acc)
	}
	for c.cur < k {
		st := c.tickState(c.cur)
		c.step(c.acc, &st, c.cur)
		c.cur++
		if c.cur%checkpointEvery == 0 && c.checks[len(c.checks)-1].tick < c.cur {
			c.addCheckpoint(c.cur)
		}
	}
}

// valueAt is the value of series i at tick k plus fraction f, given the
// accumulated value at the start of tick k.
func (c *Cluster) valueAt(i int, st *state, k int64, f float64, accStart float64) float64 {
	s := &c.series[i]
	if !s.accum {
		return s.fn(st, k)
	}
	v := accStart
	if s.resetOSD >= 0 && c.osdRestarts(s.resetOSD, k) {
		v = 0
	}
	if f > 0 {
		v += f * s.fn(st, k)
	}
	if s.integer {
		v = math.Floor(v)
	}
	return v
}

// Sample is the value of every series of the cluster at one instant: what a
// Prometheus scrape of each target would return then.
type Sample struct {
	Time    time.Time
	Targets []TargetSample
}

// TargetSample is one target's scrape. Up is false during a simulated
// scrape gap (the target answers HTTP 503) and Series is then empty.
type TargetSample struct {
	Target
	Up     bool
	Series []Series
}

// Series is one sample as exposed: Name is the sample name (for a summary or
// histogram it carries the _sum/_count/_bucket suffix), Family and Type are
// those of its metric family, Labels exclude job and instance.
type Series struct {
	Name   string
	Family string
	Type   string
	Labels map[string]string
	Value  float64
}

// Sample returns every series of every target at t. Hosts that are not part
// of the cluster at t are absent. Times before the origin give the origin's
// values.
func (c *Cluster) Sample(t time.Time) Sample {
	vals, st, present := c.values(t)
	out := Sample{Time: t}
	sec := c.secondsAt(t)
	for ti, tg := range c.targets {
		if tg.host >= 0 && st.hostMask&(1<<tg.host) == 0 {
			continue
		}
		ts := TargetSample{Target: tg.Target, Up: !c.inGap(ti, sec)}
		if ts.Up {
			for fi := range c.families {
				f := &c.families[fi]
				for _, si := range f.series {
					s := &c.series[si]
					if s.target != ti || !present[si] {
						continue
					}
					lbl := make(map[string]string, len(s.labelValues))
					for j, n := range f.labelNames {
						if s.labelValues[j] != "" {
							lbl[n] = s.labelValues[j]
						}
					}
					ts.Series = append(ts.Series, Series{Name: s.name, Family: f.name, Type: typeNames[f.typ], Labels: lbl, Value: vals[si]})
				}
			}
		}
		out.Targets = append(out.Targets, ts)
	}
	return out
}

// values computes all series at t; present marks series whose host exists.
func (c *Cluster) values(t time.Time) ([]float64, state, []bool) {
	k, f := c.tickAt(t)
	st := c.tickState(k)
	c.mu.Lock()
	c.advance(k)
	vals := make([]float64, len(c.series))
	present := make([]bool, len(c.series))
	for i := range c.series {
		s := &c.series[i]
		if s.host >= 0 && st.hostMask&(1<<s.host) == 0 {
			continue
		}
		present[i] = true
		vals[i] = c.valueAt(i, &st, k, f, c.acc[i])
	}
	c.mu.Unlock()
	return vals, st, present
}

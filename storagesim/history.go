package storagesim

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// WriteHistory writes every series of the cluster from start to end (both
// included) every step as OpenMetrics text with timestamps, ending in
// "# EOF", ready for `promtool tsdb create-blocks-from openmetrics`. The
// values are those Sample returns at the same instants; samples of a target
// inside a scrape gap and of hosts outside the cluster are left out. Every
// series carries job and instance labels, as a scrape would add them.
//
// Metric families are contiguous as OpenMetrics requires. Counters whose
// names lack the _total suffix (the Ceph and statsd_exporter ones) are
// written with TYPE unknown: OpenMetrics reserves "counter" for _total
// samples, and the stored series are the same.
func WriteHistory(w io.Writer, c *Cluster, start, end time.Time, step time.Duration) error {
	g, err := newHistoryGen(c, start, end, step)
	if err != nil {
		return err
	}
	return g.write(w, 0, len(g.instants))
}

// WriteHistoryBlocks writes the same samples as WriteHistory, split into one
// file per block of the given length aligned to the Unix epoch (use 2h, the
// block length of promtool 2.x's backfill). promtool parses its whole input
// once per block it creates, so one file per block keeps a long backfill
// linear:
//
//	for f in dir/*.om; do promtool tsdb create-blocks-from openmetrics "$f" data; done
//
// Files are named history-<unix seconds of the block start>.om and their
// paths are returned in time order.
func WriteHistoryBlocks(dir string, c *Cluster, start, end time.Time, step, block time.Duration) ([]string, error) {
	if block <= 0 || block%time.Second != 0 {
		return nil, fmt.Errorf("history: block %s must be a positive whole number of seconds", block)
	}
	g, err := newHistoryGen(c, start, end, step)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	var files []string
	for i := 0; i < len(g.instants); {
		b := g.instants[i].unix - mod(g.instants[i].unix, int64(block/time.Second))
		j := i
		for j < len(g.instants) && g.instants[j].unix < b+int64(block/time.Second) {
			j++
		}
		name := filepath.Join(dir, fmt.Sprintf("history-%d.om", b))
		f, err := os.Create(name)
		if err != nil {
			return files, fmt.Errorf("history: %w", err)
		}
		werr := g.write(f, i, j)
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return files, fmt.Errorf("history: %s: %w", name, werr)
		}
		files = append(files, name)
		i = j
	}
	return files, nil
}

func mod(a, b int64) int64 {
	m := a % b
	if m < 0 {
		m += b
	}
	return m
}

type instant struct {
	k    int64
	f    float64
	unix int64 // whole seconds, for block alignment
	ts   []byte
}

// historyGen writes consecutive ranges of a history; accumulators carry over
// from one range to the next so each tick is integrated once per series.
type historyGen struct {
	c            *Cluster
	instants     []instant
	states       []state
	gap          [][]bool // per target, per instant index
	targetLabels []string
	acc          []float64
	accTick      []int64
}

func newHistoryGen(c *Cluster, start, end time.Time, step time.Duration) (*historyGen, error) {
	if c == nil {
		return nil, errors.New("history: nil cluster")
	}
	if step <= 0 {
		return nil, fmt.Errorf("history: step %s must be positive", step)
	}
	if end.Before(start) {
		return nil, fmt.Errorf("history: end %s is before start %s", end.UTC().Format(time.RFC3339), start.UTC().Format(time.RFC3339))
	}
	if start.Before(c.origin) {
		return nil, fmt.Errorf("history: start %s is before the cluster's origin %s", start.UTC().Format(time.RFC3339), c.origin.UTC().Format(time.RFC3339))
	}
	g := &historyGen{c: c}
	for t := start; !t.After(end); t = t.Add(step) {
		k, f := c.tickAt(t)
		var ts []byte
		if t.Nanosecond() == 0 {
			ts = strconv.AppendInt(nil, t.Unix(), 10)
		} else {
			ts = strconv.AppendFloat(nil, float64(t.UnixNano())/1e9, 'f', 3, 64)
		}
		g.instants = append(g.instants, instant{k: k, f: f, unix: t.Unix(), ts: ts})
	}
	lastTick := int64(0)
	if n := len(g.instants); n > 0 {
		lastTick = g.instants[n-1].k
	}
	g.states = make([]state, lastTick+1)
	for k := range g.states {
		g.states[k] = c.tickState(int64(k))
	}
	g.gap = make([][]bool, len(c.targets))
	for ti := range c.targets {
		g.gap[ti] = make([]bool, len(g.instants))
		for j := range g.instants {
			sec := (float64(g.instants[j].k) + g.instants[j].f) * tickSeconds
			g.gap[ti][j] = c.inGap(ti, sec)
		}
	}
	// The job/instance labels go first in each sample's label set.
	g.targetLabels = make([]string, len(c.targets))
	for ti, tg := range c.targets {
		g.targetLabels[ti] = `instance="` + escapeLabel(tg.Instance) + `",job="` + escapeLabel(tg.Job) + `"`
	}
	g.acc = make([]float64, len(c.series))
	g.accTick = make([]int64, len(c.series))
	for i := range c.series {
		g.acc[i] = c.series[i].base
	}
	return g, nil
}

// write writes instants [from, to), which must follow those written before.
func (g *historyGen) write(w io.Writer, from, to int) error {
	c := g.c
	ins := g.instants[from:to]
	bw := bufio.NewWriterSize(w, 1<<20)
	buf := make([]byte, 0, 256)
	for fi := range c.families {
		f := &c.families[fi]
		if len(f.series) == 0 {
			continue
		}
		name, omType := f.name, "unknown"
		switch f.typ {
		case typeCounter:
			if n, ok := strings.CutSuffix(f.name, "_total"); ok {
				name, omType = n, "counter"
			}
		case typeGauge:
			omType = "gauge"
		case typeSummary:
			omType = "summary"
		case typeHistogram:
			omType = "histogram"
		}
		buf = append(buf[:0], "# HELP "...)
		buf = append(buf, name...)
		buf = append(buf, ' ')
		buf = append(buf, escapeHelp(f.help)...)
		buf = append(buf, "\n# TYPE "...)
		buf = append(buf, name...)
		buf = append(buf, ' ')
		buf = append(buf, omType...)
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return err
		}
		for _, si := range f.series {
			s := &c.series[si]
			prefix := withTargetLabels(s.prefix, g.targetLabels[s.target])
			acc, k := g.acc[si], g.accTick[si]
			for j := range ins {
				in := &ins[j]
				if s.accum {
					for ; k < in.k; k++ {
						c.stepSeries(s, &acc, &g.states[k], k)
					}
				}
				st := &g.states[in.k]
				if g.gap[s.target][from+j] || (s.host >= 0 && st.hostMask&(1<<s.host) == 0) {
					continue
				}
				v := c.valueAt(si, st, in.k, in.f, acc)
				buf = append(buf[:0], prefix...)
				buf = appendValue(buf, v)
				buf = append(buf, ' ')
				buf = append(buf, in.ts...)
				buf = append(buf, '\n')
				if _, err := bw.Write(buf); err != nil {
					return err
				}
			}
			g.acc[si], g.accTick[si] = acc, k
		}
	}
	if _, err := bw.WriteString("# EOF\n"); err != nil {
		return err
	}
	return bw.Flush()
}

// stepSeries integrates tick k of one accumulating series, as step does for
// all of them.
func (c *Cluster) stepSeries(s *series, acc *float64, st *state, k int64) {
	if s.resetOSD >= 0 && c.osdRestarts(s.resetOSD, k) {
		*acc = 0
	}
	if s.host >= 0 && st.hostMask&(1<<s.host) == 0 {
		return
	}
	*acc += s.fn(st, k)
}

// withTargetLabels inserts instance and job into "name{...} " or "name ".
func withTargetLabels(prefix []byte, lbl string) []byte {
	p := string(prefix[:len(prefix)-1]) // drop the trailing space
	if i := strings.IndexByte(p, '{'); i >= 0 {
		return []byte(p[:i+1] + lbl + "," + p[i+1:] + " ")
	}
	return []byte(p + "{" + lbl + "} ")
}

func appendValue(b []byte, v float64) []byte {
	switch {
	case math.IsNaN(v):
		return append(b, "NaN"...)
	case math.IsInf(v, 1):
		return append(b, "+Inf"...)
	case math.IsInf(v, -1):
		return append(b, "-Inf"...)
	case v == math.Trunc(v) && math.Abs(v) < 1e15:
		return strconv.AppendInt(b, int64(v), 10)
	}
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}

func escapeHelp(s string) string {
	if !strings.ContainsAny(s, "\\\n\"") {
		return s
	}
	return strings.NewReplacer(`\`, `\\`, "\n", `\n`, `"`, `\"`).Replace(s)
}

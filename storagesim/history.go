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
// Memory does not grow with the length of the history: the writer holds one
// window of states and a bounded buffer of values (see historyGen.write).
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
	return g.write(w, 0, g.n)
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
	blockSec := int64(block / time.Second)
	for i := 0; i < g.n; {
		b := g.at(i).Unix()
		b -= mod(b, blockSec)
		j := i
		for j < g.n && g.at(j).Unix() < b+blockSec {
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

// The writer holds the states of at most historyWindowTicks ticks at once
// (2 h, a promtool block) and the values of at most historyBufferBytes,
// whatever the length of the history. Variables so that tests can shrink
// them.
var (
	historyWindowTicks int64 = 1440
	historyBufferBytes       = 32 << 20
)

// instant is one instant of a window: its tick, the fraction of the tick
// elapsed and its timestamp as written.
type instant struct {
	k  int64
	f  float64
	ts []byte
}

// historyGen writes consecutive ranges of the instants start + j·step
// (j < n); accumulators carry over from one range to the next so each tick
// is integrated once per series.
type historyGen struct {
	c            *Cluster
	start        time.Time
	step         time.Duration
	n            int
	order        []int // series in output order: families in order, each one's series in order
	targetLabels []string
	acc          []float64 // per series, at the start of tick `tick`
	tick         int64     // the tick of the first instant not written yet

	// Reused from window to window.
	states []state
	ins    []instant
	tsBuf  []byte
	gap    [][]bool // per target, per instant of the window
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
	g := &historyGen{c: c, start: start, step: step, n: int(end.Sub(start)/step) + 1}
	for fi := range c.families {
		g.order = append(g.order, c.families[fi].series...)
	}
	// The job/instance labels go first in each sample's label set.
	g.targetLabels = make([]string, len(c.targets))
	for ti, tg := range c.targets {
		g.targetLabels[ti] = `instance="` + escapeLabel(tg.Instance) + `",job="` + escapeLabel(tg.Job) + `"`
	}
	g.acc = make([]float64, len(c.series))
	for i := range c.series {
		g.acc[i] = c.series[i].base
	}
	// Counters integrate from the origin: the ticks before the first
	// instant, one state at a time.
	g.tick, _ = c.tickAt(start)
	for k := int64(0); k < g.tick; k++ {
		st := c.tickState(k)
		c.step(g.acc, &st, k)
	}
	g.states = make([]state, historyWindowTicks)
	g.gap = make([][]bool, len(c.targets))
	return g, nil
}

// at is instant j.
func (g *historyGen) at(j int) time.Time { return g.start.Add(time.Duration(j) * g.step) }

func appendTimestamp(b []byte, t time.Time) []byte {
	if t.Nanosecond() == 0 {
		return strconv.AppendInt(b, t.Unix(), 10)
	}
	return strconv.AppendFloat(b, float64(t.UnixNano())/1e9, 'f', 3, 64)
}

// write writes instants [from, to), which must follow those written before.
//
// OpenMetrics wants each series' samples together, so the output is series
// after series, each over the whole range, while the states are computed
// window after window. A pass over the range computes the states once for
// a group of series consecutive in the output: it writes the first one as
// it goes and keeps the values of the others (historyBufferBytes at most)
// to write them after it. A range whose values fit takes one pass (a 2 h
// block at a 5 s step does up to 2800 series); a longer one takes more,
// each computing the states again (7 days of steady at a 15 s step: 6
// passes, about 20 % more time): memory stays bounded at some cost in time.
func (g *historyGen) write(w io.Writer, from, to int) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	nr, words := to-from, (to-from+63)/64
	perSeries := 8*nr + 8*words // values and presence bits
	var vals []float64
	var have []uint64
	buf := make([]byte, 0, 256)
	for p := 0; p < len(g.order); {
		nb := min(historyBufferBytes/perSeries, len(g.order)-p-1)
		if n := nb * nr; len(vals) < n {
			vals = make([]float64, n)
			have = make([]uint64, nb*words)
		}
		clear(have)
		group := g.order[p : p+1+nb]
		if err := g.pass(bw, from, to, group, p == 0 || g.c.series[group[0]].fam != g.c.series[g.order[p-1]].fam, vals, have); err != nil {
			return err
		}
		// The buffered series, each over the whole range.
		for b, si := range group[1:] {
			s := &g.c.series[si]
			if s.fam != g.c.series[group[b]].fam {
				if err := g.writeHeader(bw, s.fam); err != nil {
					return err
				}
			}
			prefix := withTargetLabels(s.prefix, g.targetLabels[s.target])
			v, hv := vals[b*nr:(b+1)*nr], have[b*words:]
			for j := range v {
				if hv[j/64]&(1<<(j%64)) == 0 {
					continue
				}
				buf = append(buf[:0], prefix...)
				buf = appendValue(buf, v[j])
				buf = append(buf, ' ')
				buf = appendTimestamp(buf, g.at(from+j))
				buf = append(buf, '\n')
				if _, err := bw.Write(buf); err != nil {
					return err
				}
			}
		}
		p += len(group)
	}
	g.tick, _ = g.c.tickAt(g.at(to - 1))
	if _, err := bw.WriteString("# EOF\n"); err != nil {
		return err
	}
	return bw.Flush()
}

// pass computes the series of group over instants [from, to) window by
// window, writing the first (after its family's header if header) and
// keeping the values of the others in vals and have, one row of to-from
// per series.
func (g *historyGen) pass(bw *bufio.Writer, from, to int, group []int, header bool, vals []float64, have []uint64) error {
	c := g.c
	nr, words := to-from, (to-from+63)/64
	s0 := &c.series[group[0]]
	if header {
		if err := g.writeHeader(bw, s0.fam); err != nil {
			return err
		}
	}
	prefix := withTargetLabels(s0.prefix, g.targetLabels[s0.target])
	buf := make([]byte, 0, 256)
	kEnd, _ := c.tickAt(g.at(to - 1))
	j := from
	for lo := g.tick; lo <= kEnd; {
		hi := min(lo+historyWindowTicks, kEnd+1)
		for k := lo; k < hi; k++ {
			g.states[k-lo] = c.tickState(k)
		}
		// The window's instants.
		g.ins, g.tsBuf = g.ins[:0], g.tsBuf[:0]
		j0 := j
		for ; j < to; j++ {
			t := g.at(j)
			k, f := c.tickAt(t)
			if k >= hi {
				break
			}
			n := len(g.tsBuf)
			g.tsBuf = appendTimestamp(g.tsBuf, t)
			g.ins = append(g.ins, instant{k: k, f: f, ts: g.tsBuf[n:len(g.tsBuf):len(g.tsBuf)]})
		}
		for ti := range c.targets {
			g.gap[ti] = g.gap[ti][:0]
			for _, in := range g.ins {
				g.gap[ti] = append(g.gap[ti], c.inGap(ti, (float64(in.k)+in.f)*tickSeconds))
			}
		}
		for b, si := range group {
			s := &c.series[si]
			acc, k := g.acc[si], lo
			for i := range g.ins {
				in := &g.ins[i]
				if s.accum {
					for ; k < in.k; k++ {
						c.stepSeries(s, &acc, &g.states[k-lo], k)
					}
				}
				st := &g.states[in.k-lo]
				if g.gap[s.target][i] || (s.host >= 0 && st.hostMask&(1<<s.host) == 0) {
					continue
				}
				v := c.valueAt(si, st, in.k, in.f, acc)
				if b > 0 {
					x := j0 - from + i
					vals[(b-1)*nr+x] = v
					have[(b-1)*words+x/64] |= 1 << (x % 64)
					continue
				}
				buf = append(buf[:0], prefix...)
				buf = appendValue(buf, v)
				buf = append(buf, ' ')
				buf = append(buf, in.ts...)
				buf = append(buf, '\n')
				if _, err := bw.Write(buf); err != nil {
					return err
				}
			}
			// Integrate the rest of the window; the last instant's
			// tick is the next range's.
			if s.accum {
				for end := min(hi, kEnd); k < end; k++ {
					c.stepSeries(s, &acc, &g.states[k-lo], k)
				}
			}
			g.acc[si] = acc
		}
		lo = hi
	}
	return nil
}

// writeHeader writes the HELP and TYPE lines of family fi.
func (g *historyGen) writeHeader(bw *bufio.Writer, fi int) error {
	f := &g.c.families[fi]
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
	_, err := bw.WriteString("# HELP " + name + " " + escapeHelp(f.help) + "\n# TYPE " + name + " " + omType + "\n")
	return err
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

package storagesim

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
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
	if c == nil {
		return errors.New("history: nil cluster")
	}
	if step <= 0 {
		return fmt.Errorf("history: step %s must be positive", step)
	}
	if end.Before(start) {
		return fmt.Errorf("history: end %s is before start %s", end.UTC().Format(time.RFC3339), start.UTC().Format(time.RFC3339))
	}
	if start.Before(c.origin) {
		return fmt.Errorf("history: start %s is before the cluster's origin %s", start.UTC().Format(time.RFC3339), c.origin.UTC().Format(time.RFC3339))
	}

	// Output instants and their ticks.
	type instant struct {
		k  int64
		f  float64
		ts []byte
	}
	var instants []instant
	for t := start; !t.After(end); t = t.Add(step) {
		k, f := c.tickAt(t)
		var ts []byte
		if t.Nanosecond() == 0 {
			ts = strconv.AppendInt(nil, t.Unix(), 10)
		} else {
			ts = strconv.AppendFloat(nil, float64(t.UnixNano())/1e9, 'f', 3, 64)
		}
		instants = append(instants, instant{k: k, f: f, ts: ts})
	}
	if len(instants) == 0 {
		_, err := io.WriteString(w, "# EOF\n")
		return err
	}
	lastTick := instants[len(instants)-1].k
	states := make([]state, lastTick+1)
	for k := range states {
		states[k] = c.tickState(int64(k))
	}
	gap := make([][]bool, len(c.targets))
	for ti := range c.targets {
		gap[ti] = make([]bool, len(instants))
		for j := range instants {
			sec := float64(instants[j].k)*tickSeconds + instants[j].f*tickSeconds
			gap[ti][j] = c.inGap(ti, sec)
		}
	}
	// The job/instance labels go first in each sample's label set.
	targetLabels := make([]string, len(c.targets))
	for ti, tg := range c.targets {
		targetLabels[ti] = `instance="` + escapeLabel(tg.Instance) + `",job="` + escapeLabel(tg.Job) + `"`
	}

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
			prefix := withTargetLabels(s.prefix, targetLabels[s.target])
			acc := s.base
			k := int64(0)
			for j := range instants {
				in := &instants[j]
				if s.accum {
					for ; k < in.k; k++ {
						c.stepSeries(s, &acc, &states[k], k)
					}
				}
				st := &states[in.k]
				if gap[s.target][j] || (s.host >= 0 && st.hostMask&(1<<s.host) == 0) {
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

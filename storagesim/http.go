package storagesim

import (
	"encoding/json"
	"fmt"
	"html"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Handler serves the simulated cluster at wall-clock time:
//
//	/metrics                 the ceph-mgr (or statsd_exporter) target
//	/hosts/<host>/metrics    node_exporter of one host (404 while the host is
//	                         not in the cluster)
//	/truth                   Truth as JSON; ?slo_seconds=0.02, ?time=<RFC 3339
//	                         or Unix seconds> to ask about another instant
//	/sd                      Prometheus HTTP service discovery for all targets
//
// A target in a simulated scrape gap answers 503.
func (c *Cluster) Handler() http.Handler { return c.HandlerWithClock(time.Now) }

// HandlerWithClock is Handler with another clock (tests, demos that replay
// time faster).
func (c *Cluster) HandlerWithClock(now func() time.Time) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/metrics", func(w http.ResponseWriter, r *http.Request) {
		c.serveTarget(w, r, 0, now())
	})
	mux.HandleFunc("/hosts/", func(w http.ResponseWriter, r *http.Request) {
		rest := strings.TrimPrefix(r.URL.Path, "/hosts/")
		name, ok := strings.CutSuffix(rest, "/metrics")
		if !ok {
			http.NotFound(w, r)
			return
		}
		for _, h := range c.hosts {
			if h.name == name {
				c.serveTarget(w, r, h.target, now())
				return
			}
		}
		http.Error(w, fmt.Sprintf("no host %q in this cluster", name), http.StatusNotFound)
	})
	mux.HandleFunc("/truth", func(w http.ResponseWriter, r *http.Request) {
		t := now()
		q := r.URL.Query()
		slo := 0.0
		if s := q.Get("slo_seconds"); s != "" {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil || !(v > 0) || math.IsInf(v, 0) {
				http.Error(w, fmt.Sprintf("slo_seconds: %q is not a positive number", s), http.StatusBadRequest)
				return
			}
			slo = v
		}
		if s := q.Get("time"); s != "" {
			v, err := ParseTime(s, t)
			if err != nil {
				http.Error(w, "time: "+err.Error(), http.StatusBadRequest)
				return
			}
			t = v
		}
		w.Header().Set("Content-Type", "application/json")
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		_ = enc.Encode(c.Truth(t, slo))
	})
	mux.HandleFunc("/sd", func(w http.ResponseWriter, r *http.Request) {
		type group struct {
			Targets []string          `json:"targets"`
			Labels  map[string]string `json:"labels"`
		}
		groups := []group{}
		for _, tg := range c.Targets(now()) {
			groups = append(groups, group{Targets: []string{r.Host}, Labels: map[string]string{
				"__metrics_path__": tg.Path, "instance": tg.Instance, "job": tg.Job,
			}})
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(groups)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<!DOCTYPE html><html><head><title>storagesim</title></head><body><h1>storagesim: %s (seed %d)</h1><ul>",
			html.EscapeString(c.sc.Name), c.seed)
		for _, tg := range c.Targets(now()) {
			fmt.Fprintf(w, `<li><a href="%s">%s</a> (job %s)</li>`, tg.Path, html.EscapeString(tg.Instance), tg.Job)
		}
		fmt.Fprint(w, `<li><a href="/truth">/truth</a></li><li><a href="/sd">/sd</a> (http_sd_configs)</li></ul></body></html>`)
	})
	return mux
}

func (c *Cluster) serveTarget(w http.ResponseWriter, r *http.Request, ti int, t time.Time) {
	tg := c.targets[ti]
	if tg.host >= 0 {
		if st := c.stateAt(c.secondsAt(t)); st.hostMask&(1<<tg.host) == 0 {
			http.Error(w, fmt.Sprintf("host %s is not in the cluster at %s", tg.Host, t.UTC().Format(time.RFC3339)), http.StatusNotFound)
			return
		}
	}
	if c.inGap(ti, c.secondsAt(t)) {
		http.Error(w, "simulated scrape gap", http.StatusServiceUnavailable)
		return
	}
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(&targetCollector{c: c, target: ti, t: t}); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.HTTPErrorOnError}).ServeHTTP(w, r)
}

// targetCollector exposes one target's series at one instant as const
// metrics, so client_golang writes types, HELP and escaping.
type targetCollector struct {
	c      *Cluster
	target int
	t      time.Time
}

func (tc *targetCollector) Describe(ch chan<- *prometheus.Desc) {
	for fi := range tc.c.families {
		f := &tc.c.families[fi]
		for _, si := range f.series {
			if tc.c.series[si].target == tc.target {
				ch <- f.desc
				break
			}
		}
	}
}

func (tc *targetCollector) Collect(ch chan<- prometheus.Metric) {
	c := tc.c
	vals, _, present := c.values(tc.t)
	for fi := range c.families {
		f := &c.families[fi]
		switch f.typ {
		case typeSummary, typeHistogram:
			tc.collectGroups(ch, f, vals, present)
			continue
		}
		vt := prometheus.UntypedValue
		switch f.typ {
		case typeCounter:
			vt = prometheus.CounterValue
		case typeGauge:
			vt = prometheus.GaugeValue
		}
		for _, si := range f.series {
			s := &c.series[si]
			if s.target != tc.target || !present[si] {
				continue
			}
			ch <- prometheus.MustNewConstMetric(f.desc, vt, vals[si], s.labelValues...)
		}
	}
}

func (tc *targetCollector) collectGroups(ch chan<- prometheus.Metric, f *family, vals []float64, present []bool) {
	c := tc.c
	type agg struct {
		labels    []string
		sum       float64
		count     uint64
		quantiles map[float64]float64
		buckets   map[float64]uint64
	}
	var order []int
	groups := map[int]*agg{}
	for _, si := range f.series {
		s := &c.series[si]
		if s.target != tc.target || !present[si] {
			continue
		}
		g := groups[s.group]
		if g == nil {
			g = &agg{labels: s.labelValues[:len(s.labelValues)-1], quantiles: map[float64]float64{}, buckets: map[float64]uint64{}}
			groups[s.group] = g
			order = append(order, s.group)
		}
		switch s.part {
		case partSum:
			g.sum = vals[si]
		case partCount:
			g.count = uint64(vals[si])
		case partQuantile:
			g.quantiles[s.bound] = vals[si]
		case partBucket:
			if !math.IsInf(s.bound, 1) {
				g.buckets[s.bound] = uint64(vals[si])
			}
		}
	}
	for _, gi := range order {
		g := groups[gi]
		if f.typ == typeSummary {
			ch <- prometheus.MustNewConstSummary(f.desc, g.count, g.sum, g.quantiles, g.labels...)
		} else {
			ch <- prometheus.MustNewConstHistogram(f.desc, g.count, g.sum, g.buckets, g.labels...)
		}
	}
}

// ParseTime reads an instant as RFC 3339, Unix seconds, "now", or a signed
// duration relative to now ("-7d", "-90m", "+1h").
func ParseTime(s string, now time.Time) (time.Time, error) {
	switch {
	case s == "" || s == "now":
		return now, nil
	case strings.HasPrefix(s, "-") || strings.HasPrefix(s, "+"):
		d, err := ParseDuration(s[1:])
		if err != nil {
			return time.Time{}, err
		}
		if s[0] == '-' {
			d = -d
		}
		return now.Add(d), nil
	}
	if v, err := strconv.ParseFloat(s, 64); err == nil {
		sec, frac := math.Modf(v)
		return time.Unix(int64(sec), int64(frac*1e9)).UTC(), nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is not RFC 3339, Unix seconds, now, or a relative duration like -7d", s)
	}
	return t, nil
}

package collector

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/storcast/storcast/exporter/engine"
)

// swappable is a Snapshotter whose set can be replaced, as the engine's
// snapshots are on a refresh.
type swappable struct{ p atomic.Pointer[fixed] }

func (s *swappable) Snapshots() []*engine.Snapshot { return *s.p.Load() }

// ownRegistry is a process registry with a series that changes on every
// gathering, like the Go and process collectors'.
func ownRegistry() (*prometheus.Registry, *atomic.Int64) {
	reg := prometheus.NewRegistry()
	var n atomic.Int64
	reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "test_gatherings_total", Help: "Gatherings."},
		func() float64 { return float64(n.Add(1)) }))
	return reg, &n
}

func get(t *testing.T, h http.Handler, accept, encoding string) (*http.Response, []byte) {
	t.Helper()
	req := httptest.NewRequest("GET", "/metrics", nil)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	if encoding != "" {
		req.Header.Set("Accept-Encoding", encoding)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	resp := rec.Result()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("HTTP %d: %s", resp.StatusCode, body)
	}
	if resp.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(bytes.NewReader(body)) // multistream, as Prometheus reads it
		if err != nil {
			t.Fatal(err)
		}
		if body, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	}
	return resp, body
}

// families decodes an exposition in the format of its Content-Type; a
// family that appears twice is an error, as it is to Prometheus.
func families(t *testing.T, resp *http.Response, body []byte) map[string]*dto.MetricFamily {
	t.Helper()
	out := map[string]*dto.MetricFamily{}
	dec := expfmt.NewDecoder(bytes.NewReader(body), expfmt.ResponseFormat(resp.Header))
	for {
		mf := &dto.MetricFamily{}
		if err := dec.Decode(mf); err == io.EOF {
			return out
		} else if err != nil {
			t.Fatalf("decoding %s: %v", resp.Header.Get("Content-Type"), err)
		}
		if _, dup := out[mf.GetName()]; dup {
			t.Fatalf("family %s appears twice", mf.GetName())
		}
		out[mf.GetName()] = mf
	}
}

// comparable renders families as sorted text without the series that vary
// between gatherings (collector durations, the test counter).
func comparable(mfs map[string]*dto.MetricFamily) string {
	var names []string
	for n := range mfs {
		if n != "storcast_scrape_collector_duration_seconds" && n != "test_gatherings_total" {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	var buf bytes.Buffer
	for _, n := range names {
		expfmt.MetricFamilyToText(&buf, mfs[n])
	}
	return buf.String()
}

// TestExpositionEqualsPromhttp: in every format and compression a scraper
// may ask for, the cached exposition decodes to the same families as
// client_golang's handler over one registry holding both parts.
func TestExpositionEqualsPromhttp(t *testing.T) {
	snaps := snapshots(t)
	own, _ := ownRegistry()
	x, err := NewExposition(New(snaps, shardOfFixture{}, nil), own, nil)
	if err != nil {
		t.Fatal(err)
	}
	ref, _ := ownRegistry()
	ref.MustRegister(New(snaps, shardOfFixture{}, nil))
	refErrors := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "promhttp_metric_handler_errors_total",
		Help: "Total number of internal errors encountered by the promhttp metric handler."}, []string{"cause"})
	refErrors.WithLabelValues("gathering")
	refErrors.WithLabelValues("encoding")
	ref.MustRegister(refErrors)
	want := promhttp.HandlerFor(ref, promhttp.HandlerOpts{})

	for _, accept := range []string{
		"",
		"text/plain;version=0.0.4;q=0.4,*/*;q=0.1",
		"application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.7,text/plain;version=0.0.4;q=0.3",
		"application/openmetrics-text;version=1.0.0;q=0.5,text/plain;version=0.0.4;q=0.4", // Prometheus' default: storcast does not offer OpenMetrics
	} {
		for _, enc := range []string{"", "gzip", "identity", "gzip;q=0,identity", "*"} {
			t.Run(fmt.Sprintf("accept=%q,encoding=%q", accept, enc), func(t *testing.T) {
				gotResp, gotBody := get(t, x, accept, enc)
				wantResp, wantBody := get(t, want, accept, enc)
				if g, w := gotResp.Header.Get("Content-Type"), wantResp.Header.Get("Content-Type"); g != w {
					t.Errorf("Content-Type %q, promhttp %q", g, w)
				}
				if g, w := gotResp.Header.Get("Content-Encoding"), wantResp.Header.Get("Content-Encoding"); g != w && !(g == "" && w == "identity") {
					t.Errorf("Content-Encoding %q, promhttp %q", g, w)
				}
				got, exp := families(t, gotResp, gotBody), families(t, wantResp, wantBody)
				if len(got) < 20 {
					t.Fatalf("only %d families", len(got))
				}
				if g, w := comparable(got), comparable(exp); g != w {
					t.Errorf("families differ from promhttp's:\n%s\nwant\n%s", g, w)
				}
			})
		}
	}
}

// TestExpositionGathersOncePerSnapshotSet: scrapes of unchanged snapshots
// reuse the encoded forecast series while the process's own series are
// gathered every time; a new snapshot (a refresh) or a new shard report is
// seen on the next scrape.
func TestExpositionGathersOncePerSnapshotSet(t *testing.T) {
	base := snapshots(t)
	src := &swappable{}
	src.p.Store(&base)
	shard := &swappableShard{}
	shard.p.Store(&Shard{Index: 0, Total: 1, Configured: []string{"ceph-a"}, Assigned: []string{"ceph-a"}})
	own, _ := ownRegistry()
	x, err := NewExposition(New(src, shard, nil), own, nil)
	if err != nil {
		t.Fatal(err)
	}
	x.minAge = 0 // every change gathered at once
	sample := func(body []byte, series string) string {
		for _, l := range strings.Split(string(body), "\n") {
			if strings.HasPrefix(l, series+" ") {
				return strings.TrimPrefix(l, series+" ")
			}
		}
		return ""
	}
	for i := range 5 {
		_, body := get(t, x, "", "gzip")
		if got := sample(body, "test_gatherings_total"); got != fmt.Sprint(i+1) {
			t.Fatalf("scrape %d: own series %q, want %d (gathered on every scrape)", i, got, i+1)
		}
	}
	if x.builds != 1 {
		t.Fatalf("5 scrapes of one snapshot set gathered the forecasts %d times, want 1", x.builds)
	}
	const headroom = `storcast_headroom_ratio{cluster="ceph-a"}`
	_, body := get(t, x, "", "")
	before := sample(body, headroom)

	next := *base[0]
	next.Observed.IOPS, next.Observed.ReadIOPS, next.Observed.WriteIOPS = 4000, 2800, 1200
	res, ok := next.Set.AtMix(next.Observed, true)
	if !ok {
		t.Fatal("the fixture's capacity model has no answer at the new mix")
	}
	next.Live.CapacityAtMix = res
	refreshed := published(&next, base[1], base[2])
	src.p.Store(&refreshed)
	_, body = get(t, x, "", "")
	after := sample(body, headroom)
	if x.builds != 2 || before == "" || after == "" || before == after {
		t.Fatalf("after a refresh: builds %d, headroom %q -> %q; want a new gathering and a new value", x.builds, before, after)
	}
	if v := gaugeValue(t, body, "storcast_observed_iops", `cluster="ceph-a"`); v != 4000 {
		t.Errorf("observed IOPS after the refresh %v, want 4000", v)
	}

	shard.p.Store(&Shard{Index: 0, Total: 1, Configured: []string{"ceph-a", "other"}, Assigned: []string{"ceph-a", "other"}})
	_, body = get(t, x, "", "")
	if x.builds != 3 || !strings.Contains(string(body), `storcast_cluster_configured{cluster="other"} 1`) {
		t.Errorf("after a shard change: builds %d, configured cluster other present %v", x.builds, strings.Contains(string(body), `cluster="other"`))
	}
}

type swappableShard struct{ p atomic.Pointer[Shard] }

func (s *swappableShard) Shard() Shard { return *s.p.Load() }

func gaugeValue(t *testing.T, body []byte, name, labels string) float64 {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := p.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	mf := mfs[name]
	if mf == nil {
		t.Fatalf("no %s", name)
	}
	for _, m := range mf.GetMetric() {
		ls := model.LabelSet{}
		for _, lp := range m.GetLabel() {
			ls[model.LabelName(lp.GetName())] = model.LabelValue(lp.GetValue())
		}
		if strings.Trim(ls.String(), "{}") == labels {
			return m.GetGauge().GetValue()
		}
	}
	t.Fatalf("no %s{%s}", name, labels)
	return 0
}

// TestExpositionConcurrentScrapes: scrapes racing a refresh all answer a
// complete exposition of one snapshot set or the next (run with -race).
func TestExpositionConcurrentScrapes(t *testing.T) {
	a, b := snapshots(t), snapshots(t)
	b[0].Cluster = "ceph-renamed"
	src := &swappable{}
	src.p.Store(&a)
	own, _ := ownRegistry()
	x, err := NewExposition(New(src, nil, nil), own, nil)
	if err != nil {
		t.Fatal(err)
	}
	x.minAge = 0 // every change gathered at once
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			if i%4 == 0 {
				if i%8 == 0 {
					src.p.Store(&b)
				} else {
					src.p.Store(&a)
				}
			}
			resp, body := get(t, x, "", "gzip")
			mfs := families(t, resp, body)
			obs := mfs["storcast_observed_iops"]
			if obs == nil || len(obs.GetMetric()) != 2 { // ceph-a (or renamed) and swift-b: new has no observation
				t.Errorf("scrape %d: storcast_observed_iops %v", i, obs)
			}
		})
	}
	wg.Wait()
}

// TestExpositionGathersAtMostOncePerInterval: while snapshots keep
// changing, the forecasts are gathered again only once MinGatherInterval
// has passed since the last gathering; until then the last ones serve.
func TestExpositionGathersAtMostOncePerInterval(t *testing.T) {
	base := snapshots(t)
	src := &swappable{}
	src.p.Store(&base)
	own, _ := ownRegistry()
	x, err := NewExposition(New(src, nil, nil), own, nil)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1.7e9, 0)
	x.now = func() time.Time { return now }
	get(t, x, "", "")
	renamed := snapshots(t)
	renamed[0].Cluster = "ceph-renamed"
	src.p.Store(&renamed)
	now = now.Add(MinGatherInterval - time.Millisecond)
	if _, body := get(t, x, "", ""); x.builds != 1 || strings.Contains(string(body), "ceph-renamed") {
		t.Fatalf("%d gatherings %v after the last: want the last one served", x.builds, MinGatherInterval-time.Millisecond)
	}
	now = now.Add(time.Millisecond)
	if _, body := get(t, x, "", ""); x.builds != 2 || !strings.Contains(string(body), "ceph-renamed") {
		t.Fatalf("%d gatherings once %v passed: want the new snapshots gathered", x.builds, MinGatherInterval)
	}
}

// churning is a Snapshotter whose every read is a new snapshot set, as while
// many clusters refresh one after another; its first read blocks until
// waitFor scrapes have arrived (the Exposition's clock).
type churning struct {
	base    fixed
	x       *Exposition
	waitFor uint64
	reads   atomic.Int64
}

func (c *churning) Snapshots() []*engine.Snapshot {
	if c.reads.Add(1) == 1 {
		for c.x.clock.Load() < c.waitFor {
			runtime.Gosched()
		}
	}
	out := make([]*engine.Snapshot, len(c.base))
	for i, s := range c.base {
		cp := *s
		out[i] = &cp
	}
	return out
}

// TestExpositionCoalescesScrapes: scrapes that arrive while the forecasts
// are gathered share the next gathering (2 for 8 scrapes), however often the
// snapshots change, instead of gathering once each in turn.
func TestExpositionCoalescesScrapes(t *testing.T) {
	const scrapes = 8
	src := &churning{base: snapshots(t)}
	own, _ := ownRegistry()
	x, err := NewExposition(New(src, nil, nil), own, nil)
	if err != nil {
		t.Fatal(err)
	}
	x.minAge = 0 // every change gathered at once
	// The first scrape's arrival and read take 2 ticks, the 7 others 1 each.
	src.x, src.waitFor = x, scrapes+1
	var wg sync.WaitGroup
	for range scrapes {
		wg.Go(func() { get(t, x, "", "gzip") })
	}
	wg.Wait()
	if x.builds != 2 {
		t.Errorf("%d scrapes during a refresh storm gathered %d times, want 2 (the first, then one for all who waited)", scrapes, x.builds)
	}
	get(t, x, "", "")
	if x.builds != 3 {
		t.Errorf("a later scrape of changed snapshots: %d gatherings, want 3", x.builds)
	}
}

// BenchmarkExposition is a scrape of 100 clusters through the handler, with
// gzip as Prometheus asks: "cached" with unchanged snapshots (the forecast
// bytes reused), "refreshed" with a new snapshot set before every scrape
// (the forecasts gathered, encoded and compressed again, as before the
// cache).
func BenchmarkExposition(b *testing.B) {
	base := snapshots(b)[0]
	var snaps fixed
	for i := range 100 {
		s := *base
		s.Cluster = fmt.Sprintf("cluster-%03d", i)
		snaps = append(snaps, &s)
	}
	for _, refreshed := range []bool{false, true} {
		b.Run(map[bool]string{false: "cached", true: "refreshed"}[refreshed], func(b *testing.B) {
			src := &swappable{}
			src.p.Store(&snaps)
			own := prometheus.NewRegistry()
			own.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
			x, err := NewExposition(New(src, nil, nil), own, nil)
			if err != nil {
				b.Fatal(err)
			}
			x.minAge = 0 // every change gathered at once
			req := httptest.NewRequest("GET", "/metrics", nil)
			req.Header.Set("Accept-Encoding", "gzip")
			b.ReportAllocs()
			for b.Loop() {
				if refreshed {
					next := make(fixed, len(snaps))
					for i, s := range snaps {
						c := *s
						next[i] = &c
					}
					src.p.Store(&next)
				}
				rec := httptest.NewRecorder()
				x.ServeHTTP(rec, req)
				if rec.Code != 200 {
					b.Fatal(rec.Code)
				}
				b.SetBytes(int64(rec.Body.Len()))
			}
		})
	}
}

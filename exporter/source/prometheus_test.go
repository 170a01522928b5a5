package source

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/storcast/storcast/exporter/config"
	"github.com/storcast/storcast/exporter/internal/promfake"
)

func testCluster(t *testing.T, matchers ...string) *config.Cluster {
	t.Helper()
	c := config.Default()
	c.Prometheus.URL = "http://127.0.0.1:1"
	ms, err := config.ParseMatchers(matchers...)
	if err != nil {
		t.Fatal(err)
	}
	c.Clusters = []config.Cluster{{Name: "a", Kind: config.KindCeph, Matchers: ms,
		Hosts:      config.Hosts{Matchers: []config.Matcher{{Name: "job", Op: "=", Value: "node"}}, Roles: []config.Role{{Name: "osd"}}},
		LatencySLO: config.LatencySLO{Threshold: 20 * time.Millisecond, Latency: "op"}}}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	return &c.Clusters[0]
}

func testSource(t *testing.T, url string, mut func(*config.Prometheus)) (*Prometheus, *Metrics) {
	t.Helper()
	cfg := config.Default().Prometheus
	cfg.URL = url
	cfg.Timeout = 2 * time.Second
	cfg.RetryBackoff = time.Millisecond
	if mut != nil {
		mut(&cfg)
	}
	m, err := NewMetrics(nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPrometheus(cfg, m, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p, m
}

var testNow = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

func testWorkload() promfake.Workload {
	return promfake.Workload{IOPS: promfake.Diurnal(2000, 0.3), ReadRatio: 0.7, ReadSize: 4096, WriteSize: 16384, Capacity: 8000, L0: 0.001, Hosts: 4}
}

func TestFetchAlignsAndAggregates(t *testing.T) {
	fake := promfake.New(testWorkload().Answer)
	defer fake.Close()
	p, _ := testSource(t, fake.URL, nil)
	r := Range{Start: testNow.Add(-time.Hour), End: testNow, Step: time.Minute}
	f, err := p.Fetch(context.Background(), testCluster(t), r)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(f.Signals[ReadOps]); got != 61 {
		t.Fatalf("%d read points, want 61", got)
	}
	want := testWorkload().IOPS(testNow) * 0.7
	if got := f.Signals[ReadOps][60]; math.Abs(got-want) > 1e-6 {
		t.Errorf("read ops at end %v, want %v", got, want)
	}
	// The hosts' statistics across the role: the four hosts read 0.9, 1,
	// 1.1 and 0.9 quarters of the cluster's reads.
	reads := f.HostStats["osd"]["disk_reads"]
	for stat, want := range map[string]float64{StatCount: 4, StatSum: want * 3.9 / 4, StatMean: want * 3.9 / 16, StatP95: want * (1 + 0.85*0.1) / 4, StatStd: want * math.Sqrt(0.0275/4) / 4} {
		if got := reads[stat][60]; math.Abs(got-want) > 1e-9*want {
			t.Errorf("disk_reads %s at end %v, want %v", stat, got, want)
		}
	}
	// One query per cluster signal (7), the OSD host count, the two sums of
	// the hosts' block requests and one per host metric (13), no more.
	if want := 10 + len(HostMetrics); f.Stats.Queries != want {
		t.Errorf("%d queries, want %d", f.Stats.Queries, want)
	}
	if v, ok := f.Last(OSDHosts, 1); !ok || v != 4 {
		t.Errorf("osd_hosts %v %v, want 4", v, ok)
	}
	// Five statistics per host metric, however many hosts.
	if f.Stats.ResponseBytes <= 0 || f.Stats.Series != 10+5*len(HostMetrics) {
		t.Errorf("stats %+v", f.Stats)
	}
}

// TestLabelValuesEscaped: a hostile label value from the configuration is
// quoted in every query, never pasted raw.
func TestLabelValuesEscaped(t *testing.T) {
	fake := promfake.New(testWorkload().Answer)
	defer fake.Close()
	p, _ := testSource(t, fake.URL, nil)
	hostile := `cluster='x"} or vector(1) or {a="'`
	cl := testCluster(t, hostile)
	if _, err := p.Fetch(context.Background(), cl, Range{Start: testNow.Add(-time.Hour), End: testNow, Step: time.Minute}); err != nil {
		t.Fatal(err)
	}
	qs := fake.Queries()
	if len(qs) == 0 {
		t.Fatal("no queries")
	}
	for _, q := range qs {
		if strings.Contains(q, ` or vector(1) or {a="}`) || strings.Contains(q, `"x"}`) {
			t.Errorf("unescaped value in %s", q)
		}
		// Host queries (node_exporter's series) select by the hosts' matchers.
		if !strings.Contains(q, `cluster="x\"} or vector(1) or {a=\""`) && !strings.Contains(q, "node_") {
			t.Errorf("escaped matcher missing in %s", q)
		}
	}
}

func TestRetriesThenSucceeds(t *testing.T) {
	fake := promfake.New(testWorkload().Answer)
	defer fake.Close()
	p, m := testSource(t, fake.URL, func(c *config.Prometheus) { c.Retries = 3 })
	var fails atomic.Int64 // the queries retry concurrently
	p.sleepBefore = func(ctx context.Context, d time.Duration) error {
		if fails.Add(1) == 2 {
			fake.SetMode(promfake.Healthy)
		}
		return nil
	}
	fake.SetMode(promfake.Down)
	cl := testCluster(t)
	cl.Hosts = config.Hosts{}
	f, err := p.Fetch(context.Background(), cl, Range{Start: testNow.Add(-10 * time.Minute), End: testNow, Step: time.Minute})
	if err != nil {
		t.Fatalf("fetch after transient 503s: %v", err)
	}
	if f.Stats.Retries == 0 {
		t.Error("no retry counted")
	}
	if got := testutil.ToFloat64(m.Errors.WithLabelValues("a", "unavailable")); got == 0 {
		t.Error("unavailable errors not counted")
	}
}

func TestFaultsFail(t *testing.T) {
	for _, tc := range []struct {
		mode     promfake.Mode
		reason   string
		attempts int // per query, with Retries = 2
	}{
		{promfake.Down, "unavailable", 3},
		{promfake.Refused, "unavailable", 3},
		{promfake.Slow, "timeout", 3},
		{promfake.BadData, "bad_data", 1},
		{promfake.Error, "other", 1},
	} {
		t.Run(string(tc.mode), func(t *testing.T) {
			fake := promfake.New(testWorkload().Answer)
			defer fake.Close()
			fake.Delay = 2 * time.Second
			p, m := testSource(t, fake.URL, func(c *config.Prometheus) { c.Retries = 2; c.Timeout = 100 * time.Millisecond })
			fake.SetMode(tc.mode)
			cl := testCluster(t)
			cl.Hosts = config.Hosts{}
			_, err := p.Fetch(context.Background(), cl, Range{Start: testNow.Add(-10 * time.Minute), End: testNow, Step: time.Minute})
			if err == nil {
				t.Fatal("fetch succeeded")
			}
			if got := testutil.ToFloat64(m.Errors.WithLabelValues("a", tc.reason)); got == 0 {
				t.Errorf("no %s error counted (err %v)", tc.reason, err)
			}
			if got, want := testutil.ToFloat64(m.Queries.WithLabelValues("a")), float64(8*tc.attempts); got != want {
				t.Errorf("%v attempts, want %v", got, want)
			}
		})
	}
}

func TestNaNEmptyAndGapsAreGaps(t *testing.T) {
	w := testWorkload()
	fake := promfake.New(func(q string) []promfake.Series {
		s := w.Answer(q)
		for i := range s {
			f := s[i].Value
			s[i].Value = func(t time.Time) float64 {
				if t.Minute()%10 == 3 { // a scrape gap
					return math.NaN()
				}
				if t.Minute()%10 == 5 {
					return math.Inf(1)
				}
				return f(t)
			}
		}
		return s
	})
	defer fake.Close()
	p, _ := testSource(t, fake.URL, nil)
	cl := testCluster(t)
	cl.Hosts = config.Hosts{}
	r := Range{Start: testNow.Add(-30 * time.Minute), End: testNow, Step: time.Minute}
	f, err := p.Fetch(context.Background(), cl, r)
	if err != nil {
		t.Fatal(err)
	}
	for i, ts := range f.Times() {
		min := time.Unix(int64(ts), 0).UTC().Minute()
		v := f.Signals[ReadOps][i]
		if (min%10 == 3 || min%10 == 5) != math.IsNaN(v) {
			t.Errorf("minute %d: %v", min, v)
		}
	}
	fake.SetMode(promfake.Empty)
	f, err = p.Fetch(context.Background(), cl, r)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := f.Last(ReadOps, 100); ok {
		t.Error("empty result gave a value")
	}
}

func TestTooManySeries(t *testing.T) {
	w := testWorkload()
	fake := promfake.New(w.Answer)
	defer fake.Close()
	// A host query answers five series (its statistics).
	p, m := testSource(t, fake.URL, func(c *config.Prometheus) { c.MaxSeriesPerQuery = 4 })
	_, err := p.Fetch(context.Background(), testCluster(t), Range{Start: testNow.Add(-10 * time.Minute), End: testNow, Step: time.Minute})
	if !errors.Is(err, ErrTooManySeries) {
		t.Fatalf("err %v, want ErrTooManySeries", err)
	}
	if testutil.ToFloat64(m.Errors.WithLabelValues("a", "too_many_series")) == 0 {
		t.Error("not counted")
	}
}

// TestSwiftQueries: the Swift mapping with the cluster's matchers merged in.
func TestSwiftQueries(t *testing.T) {
	cl := testCluster(t, `swift_cluster="s1"`)
	cl.Kind = config.KindSwift
	q := ClusterQueries(cl, "2m")
	want := map[string]string{
		ReadOps: `(sum(rate(swift_proxy_count{type="object",method="GET",policy="all",status!~"5..|499",swift_cluster="s1"}[2m]))) or ` +
			`(0 * sum(rate(swift_proxy_count{type="object",method="PUT",policy="all",status!~"5..|499",swift_cluster="s1"}[2m])))`,
		WriteBytes: `(sum(rate(swift_proxy_transfer{type="object",method="PUT",policy="all",status!~"5..|499",swift_cluster="s1"}[2m]))) or ` +
			`(0 * sum(rate(swift_proxy_count{type="object",method="GET",policy="all",status!~"5..|499",swift_cluster="s1"}[2m])))`,
		Latency: `sum(rate(swift_proxy_sum{type="object",method=~"GET|PUT",policy="all",status!="499",swift_cluster="s1"}[2m])) / sum(rate(swift_proxy_count{type="object",method=~"GET|PUT",policy="all",status!="499",swift_cluster="s1"}[2m]))`,
	}
	for s, w := range want {
		if q[s] != w {
			t.Errorf("%s:\n got %s\nwant %s", s, q[s], w)
		}
	}
	if _, ok := q[OSDHosts]; ok {
		t.Error("swift has no OSD host query")
	}
}

// TestQueriesInFlightBounded: twenty clusters fetching at once never have
// more than MaxQueriesInFlight queries at the backend.
func TestQueriesInFlightBounded(t *testing.T) {
	fake := promfake.New(testWorkload().Answer)
	defer fake.Close()
	var mu sync.Mutex
	inFlight, peak := 0, 0
	counting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		inFlight++
		peak = max(peak, inFlight)
		mu.Unlock()
		time.Sleep(5 * time.Millisecond) // let the others pile up
		proxy, _ := http.NewRequestWithContext(r.Context(), r.Method, fake.URL+r.URL.RequestURI(), r.Body)
		proxy.Header = r.Header
		if resp, err := http.DefaultClient.Do(proxy); err == nil {
			w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
			w.WriteHeader(resp.StatusCode)
			io.Copy(w, resp.Body)
			resp.Body.Close()
		}
		mu.Lock()
		inFlight--
		mu.Unlock()
	}))
	defer counting.Close()
	p, _ := testSource(t, counting.URL, nil)
	cl := testCluster(t, `cluster="a"`)
	r := Range{Start: testNow.Add(-10 * time.Minute), End: testNow, Step: time.Minute}
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := p.Fetch(context.Background(), cl, r); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if peak > MaxQueriesInFlight || peak < 2 {
		t.Errorf("peak %d queries in flight, want 2..%d", peak, MaxQueriesInFlight)
	}
}

// TestBackoffCapped: retries double the backoff up to config.MaxRetryBackoff, never
// beyond (retries: 14 used to sleep ~2.3 h per query).
func TestBackoffCapped(t *testing.T) {
	fake := promfake.New(testWorkload().Answer)
	defer fake.Close()
	fake.SetMode(promfake.Down)
	p, _ := testSource(t, fake.URL, func(c *config.Prometheus) { c.Retries = 14; c.RetryBackoff = time.Second })
	var slept []time.Duration
	p.sleepBefore = func(ctx context.Context, d time.Duration) error { slept = append(slept, d); return nil }
	_, _, err := p.query(context.Background(), "a", "up", Range{Start: testNow, End: testNow, Step: time.Minute})
	if err == nil {
		t.Fatal("a down backend answered")
	}
	var total time.Duration
	for _, d := range slept {
		if d > config.MaxRetryBackoff {
			t.Errorf("backoff %v over the cap", d)
		}
		total += d
	}
	if len(slept) != 14 || total != (1+2+4+8+16+32)*time.Second+8*config.MaxRetryBackoff {
		t.Errorf("backoffs %v (total %v)", slept, total)
	}
}

// TestProbeClusterCountsSeries: the probe runs every query of the cluster
// once and counts what each selects; an empty backend makes the required
// ones (ops and bytes) empty.
func TestProbeClusterCountsSeries(t *testing.T) {
	fake := promfake.New(testWorkload().Answer)
	defer fake.Close()
	p, _ := testSource(t, fake.URL, nil)
	cl := testCluster(t, `cluster="a"`)
	r := Range{Start: testNow.Add(-10 * time.Minute), End: testNow, Step: time.Minute}
	probes := p.ProbeCluster(context.Background(), cl, r)
	want := len(ClusterQueries(cl, "1m"))
	for _, qs := range HostQueries(cl, time.Minute) {
		want += len(qs)
	}
	if len(probes) != want {
		t.Fatalf("%d probes, want one per query (%d)", len(probes), want)
	}
	required := 0
	for _, pr := range probes {
		if pr.Err != nil || pr.Series == 0 {
			t.Errorf("%s/%s: %d series, err %v", pr.Role, pr.Signal, pr.Series, pr.Err)
		}
		if pr.Role == "" && pr.Signal == ReadOps && pr.Series != 1 {
			t.Errorf("read_ops selects %d series, want 1 (a sum)", pr.Series)
		}
		if pr.Required() {
			required++
		}
	}
	if required != 4 {
		t.Errorf("%d required probes, want 4 (ops and bytes per direction)", required)
	}
	fake.SetMode(promfake.Empty)
	for _, pr := range p.ProbeCluster(context.Background(), cl, r) {
		if pr.Err != nil || pr.Series != 0 {
			t.Errorf("empty backend: %s/%s: %d series, err %v", pr.Role, pr.Signal, pr.Series, pr.Err)
		}
	}
}

// matrixServer answers every range query with series matrices of n series
// (at most 6: one per host statistic, labelled stat="mean", "std", ...) of
// points values each, counting the requests.
func matrixServer(t *testing.T, series, points int, hits *atomic.Int64) *httptest.Server {
	t.Helper()
	return labelledMatrixServer(t, hostStats()[:series], points, hits)
}

// labelledMatrixServer answers every range query with one series per entry
// of stats (its "stat" label) of points values each, counting the requests.
func labelledMatrixServer(t *testing.T, stats []string, points int, hits *atomic.Int64) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		var b strings.Builder
		b.WriteString(`{"status":"success","data":{"resultType":"matrix","result":[`)
		for s, stat := range stats {
			if s > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `{"metric":{"stat":%q},"values":[`, stat)
			for i := range points {
				if i > 0 {
					b.WriteString(",")
				}
				fmt.Fprintf(&b, `[%d,"%d"]`, testNow.Add(-time.Duration(points-i)*time.Minute).Unix(), 100+i)
			}
			b.WriteString("]}")
		}
		b.WriteString("]}}")
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, b.String())
	}))
	t.Cleanup(srv.Close)
	return srv
}

// An answer storcast would have to allocate far more for than it read is
// refused by name before any column is made: a host query's series whose
// stat its query does not make, or makes twice (each would become a column
// of the lookback's length: thousands of one-sample series cost gigabytes),
// and a series with more samples than the range has steps.
func TestAnswerOutOfShapeRefused(t *testing.T) {
	r := Range{Start: testNow.Add(-10 * time.Minute), End: testNow, Step: time.Minute} // 11 steps
	for _, c := range []struct {
		name         string
		stats        []string
		points       int
		cluster      bool // the cluster signals' probes fail too
		host, signal string
	}{
		{"unknown stat", []string{"s0"}, 5, false, `query returned a series with stat="s0", want one of mean, std, sum, p95, count, raw_mean`, ""},
		{"stat twice", []string{"mean", "mean"}, 5, true, `query returned stat="mean" twice, want one series per statistic`, ""},
		{"too many samples", []string{"mean"}, 13, true, `query returned 13 samples in series {stat="mean"}, more than the 11 steps of the range`,
			`query returned 13 samples in series {stat="mean"}, more than the 11 steps of the range`},
	} {
		var hits atomic.Int64
		srv := labelledMatrixServer(t, c.stats, c.points, &hits)
		p, _ := testSource(t, srv.URL, nil)
		var hosts int
		for _, pr := range p.ProbeCluster(context.Background(), testCluster(t), r) {
			switch {
			case pr.Role != "":
				hosts++
				if pr.Err == nil || pr.Err.Error() != c.host {
					t.Errorf("%s: host probe %s/%s: err %v, want %q", c.name, pr.Role, pr.Signal, pr.Err, c.host)
				}
			case c.signal != "":
				if pr.Err == nil || pr.Err.Error() != c.signal {
					t.Errorf("%s: probe %s: err %v, want %q", c.name, pr.Signal, pr.Err, c.signal)
				}
			case (pr.Err != nil) != c.cluster:
				t.Errorf("%s: probe %s: err %v", c.name, pr.Signal, pr.Err)
			}
		}
		if hosts == 0 {
			t.Fatalf("%s: the test cluster has no host queries", c.name)
		}
	}
	// At the range's length, with one point on either side (a backend that
	// aligns the range to its step), the answer is read.
	var hits atomic.Int64
	srv := labelledMatrixServer(t, hostStats()[:1], 12, &hits)
	p, _ := testSource(t, srv.URL, nil)
	if _, err := p.Fetch(context.Background(), testCluster(t), r); err != nil {
		t.Errorf("12 samples for 11 steps: %v", err)
	}
}

// An answer larger than prometheus.max_response_bytes fails while it is
// read, by name, without a retry (another attempt would be as large).
func TestResponseTooLarge(t *testing.T) {
	var hits atomic.Int64
	srv := matrixServer(t, 1, 2000, &hits) // ~50 kB per answer
	p, m := testSource(t, srv.URL, func(c *config.Prometheus) { c.MaxResponseBytes = 10_000; c.Retries = 3 })
	cl := testCluster(t)
	_, err := p.Fetch(context.Background(), cl, Range{Start: testNow.Add(-10 * time.Minute), End: testNow, Step: time.Minute})
	if !errors.Is(err, ErrResponseTooLarge) || !strings.Contains(err.Error(), "more than 10000 bytes (prometheus.max_response_bytes)") {
		t.Fatalf("err %v, want ErrResponseTooLarge naming the limit", err)
	}
	if got := testutil.ToFloat64(m.Errors.WithLabelValues("a", "too_large")); got == 0 {
		t.Error("not counted as too_large")
	}
	if n, queries := hits.Load(), int64(len(jobsFor(cl, time.Minute))); n > queries {
		t.Errorf("%d requests for %d queries: a too-large answer was retried", n, queries)
	}
	// Within the limit the same answers are read (over a range as long).
	p, _ = testSource(t, srv.URL, func(c *config.Prometheus) { c.MaxResponseBytes = 1 << 20 })
	if _, err := p.Fetch(context.Background(), cl, Range{Start: testNow.Add(-2000 * time.Minute), End: testNow, Step: time.Minute}); err != nil {
		t.Fatalf("within the limit: %v", err)
	}
}

// A cluster signal's query that returns several series (a generic query
// without sum(), say) is an error naming the signal, in a fetch and in the
// probe, not the first series taken as the cluster's.
func TestClusterSignalWithSeveralSeries(t *testing.T) {
	var hits atomic.Int64
	srv := matrixServer(t, 3, 10, &hits)
	p, _ := testSource(t, srv.URL, nil)
	cl := testCluster(t)
	r := Range{Start: testNow.Add(-10 * time.Minute), End: testNow, Step: time.Minute}
	_, err := p.Fetch(context.Background(), cl, r)
	if err == nil || !strings.Contains(err.Error(), "query returned 3 series, want one per cluster: aggregate it (sum(...))") {
		t.Fatalf("err %v", err)
	}
	sig := strings.SplitN(err.Error(), ":", 2)[0]
	if _, ok := ClusterQueries(cl, "2m")[sig]; !ok {
		t.Errorf("error %q does not start with a cluster signal's name", err)
	}
	var clusterErrs, hostOK int
	for _, pr := range p.ProbeCluster(context.Background(), cl, r) {
		switch {
		case pr.Role == "" && pr.Err != nil && pr.Series == 3:
			clusterErrs++
		case pr.Role != "" && pr.Err == nil && pr.Series == 3:
			hostOK++ // a host statistic has one series per statistic
		default:
			t.Errorf("probe %+v", pr)
		}
	}
	if clusterErrs == 0 || hostOK == 0 {
		t.Errorf("probe: %d cluster signals refused, %d host queries accepted", clusterErrs, hostOK)
	}
}

// Forget drops the series of the clusters a reload removed, and only theirs.
func TestMetricsForget(t *testing.T) {
	m, err := NewMetrics(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"a", "b"} {
		m.Queries.WithLabelValues(c).Inc()
		m.Errors.WithLabelValues(c, "timeout").Inc()
		m.Retries.WithLabelValues(c).Inc()
		m.RespBytes.WithLabelValues(c).Add(10)
	}
	m.Forget([]string{"a"})
	for name, v := range map[string]*prometheus.CounterVec{"queries": m.Queries, "errors": m.Errors, "retries": m.Retries, "bytes": m.RespBytes} {
		if n := testutil.CollectAndCount(v); n != 1 {
			t.Errorf("%s: %d series after forgetting a, want b's only", name, n)
		}
	}
	if testutil.ToFloat64(m.Queries.WithLabelValues("b")) != 1 {
		t.Error("b's count changed")
	}
}

// TestLatencyOverrideWinsOverTheSLOKind: metrics.latency is the SLO's latency
// whatever latency_slo.latency says; it was replaced by the kind's read or
// write latency, so an operator's series was never queried.
func TestLatencyOverrideWinsOverTheSLOKind(t *testing.T) {
	for _, c := range []struct {
		kind, slo string
		metrics   map[string]string
		want      string
	}{
		{config.KindCeph, "read", map[string]string{"latency": "my_osd_read_lat"}, "my_osd_read_lat"},
		{config.KindSwift, "write", map[string]string{"latency": "my_put_lat"}, "my_put_lat"},
		{config.KindCeph, "op", map[string]string{"latency": "my_op_lat"}, "my_op_lat"},
		{config.KindCeph, "read", nil, CephMapping.ReadLatency},
		{config.KindSwift, "op", nil, SwiftMapping.OpLatency},
	} {
		want, err := config.ParseMetricRef(c.want)
		if err != nil {
			t.Fatal(err)
		}
		cl := &config.Cluster{Kind: c.kind, Metrics: c.metrics, LatencySLO: config.LatencySLO{Latency: c.slo}}
		if got := RefsFor(cl)[Latency]; got.Name != want.Name || fmt.Sprint(got.Matchers) != fmt.Sprint(want.Matchers) {
			t.Errorf("%s, latency_slo.latency %s, metrics %v: latency from %q, want %q", c.kind, c.slo, c.metrics, got, c.want)
		}
	}
}

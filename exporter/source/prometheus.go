package source

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/client_golang/prometheus"
	commoncfg "github.com/prometheus/common/config"
	"github.com/prometheus/common/model"

	"github.com/storcast/storcast/exporter/config"
	"github.com/storcast/storcast/internal/textcut"
)

// ErrTooManySeries is wrapped when a query returns more series than allowed.
var ErrTooManySeries = errors.New("too many series")

// ErrResponseTooLarge is wrapped when a query's answer is larger than
// prometheus.max_response_bytes.
var ErrResponseTooLarge = errors.New("response too large")

// ErrPartialAnswer is wrapped when a query's answer came with warnings that
// it may be missing data (partialAnswer).
var ErrPartialAnswer = errors.New("partial answer (the backend warned that data may be missing)")

const (
	// MaxQueriesInFlight bounds the range queries one source sends at once,
	// across all clusters: a hundred clusters refreshing together queue here
	// instead of opening hundreds of connections to the query backend.
	MaxQueriesInFlight = 8
)

// Querier is the part of a Prometheus-compatible query API the source uses:
// range queries. client_golang's v1.API is one (production, over HTTP); the
// demo's in-process Prometheus (package exporter/demo) is another, so both
// run the same PromQL through the same retries, timeouts and alignment.
type Querier interface {
	QueryRange(ctx context.Context, query string, r v1.Range, opts ...v1.Option) (model.Value, v1.Warnings, v1.Infos, error)
}

// Prometheus is a Source reading a Prometheus-compatible query API.
type Prometheus struct {
	api         Querier
	cfg         config.Prometheus
	log         *slog.Logger
	sem         chan struct{} // bounds the queries in flight across every cluster
	queries     *prometheus.CounterVec
	errs        *prometheus.CounterVec
	retries     *prometheus.CounterVec
	respBytes   *prometheus.CounterVec
	sleepBefore func(ctx context.Context, d time.Duration) error
}

// Metrics of the Prometheus source, registered by NewPrometheus.
const (
	MetricQueries     = "storcast_source_queries_total"
	MetricQueryErrors = "storcast_source_query_errors_total"
	MetricRetries     = "storcast_source_query_retries_total"
	MetricRespBytes   = "storcast_source_response_bytes_total"
)

// Metrics are the source's own counters, created once and shared by the
// sources of successive configurations.
type Metrics struct {
	Queries, Errors, Retries, RespBytes *prometheus.CounterVec
}

// NewMetrics creates the counters and registers them on reg (nil: not
// registered).
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		Queries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: MetricQueries, Help: "Range queries sent to the query backend, retries included.",
		}, []string{"cluster"}),
		Errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: MetricQueryErrors, Help: "Failed range query attempts by reason (timeout, unavailable, bad_data, too_many_series, too_large, partial, other).",
		}, []string{"cluster", "reason"}),
		Retries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: MetricRetries, Help: "Range queries retried after a failure that may pass.",
		}, []string{"cluster"}),
		RespBytes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: MetricRespBytes, Help: "Bytes of query responses received from the query backend.",
		}, []string{"cluster"}),
	}
	if reg != nil {
		for _, c := range []prometheus.Collector{m.Queries, m.Errors, m.Retries, m.RespBytes} {
			if err := reg.Register(c); err != nil {
				return nil, err
			}
		}
	}
	return m, nil
}

// Forget removes the series of clusters (removed by a reload): the
// counters outlive the sources, and a cluster's series would otherwise be
// exported until the process ends.
func (m *Metrics) Forget(clusters []string) {
	for _, c := range clusters {
		for _, v := range []*prometheus.CounterVec{m.Queries, m.Errors, m.Retries, m.RespBytes} {
			v.DeletePartialMatch(prometheus.Labels{"cluster": c})
		}
	}
}

// NewPrometheus returns a source for cfg counting into m (nil: counters
// that are not registered).
func NewPrometheus(cfg config.Prometheus, m *Metrics, log *slog.Logger) (*Prometheus, error) {
	// The client, not only its transport: follow_redirects lives in the
	// client's CheckRedirect (false: a redirect is the answer, and the
	// credentials never reach the host it names).
	hc, err := commoncfg.NewClientFromConfig(cfg.HTTPConfig, "storcast")
	if err != nil {
		return nil, fmt.Errorf("prometheus.http_config: %w", err)
	}
	hc.Transport = countingRT{next: hc.Transport, limit: int64(cfg.MaxResponseBytes)}
	client, err := api.NewClient(api.Config{Address: cfg.URL, Client: hc})
	if err != nil {
		return nil, fmt.Errorf("prometheus.url: %w", err)
	}
	return NewPrometheusQuerier(v1.NewAPI(partialFlagClient{client}), cfg, m, log), nil
}

// NewPrometheusQuerier returns a source sending its queries to q, with
// cfg's timeout, retries and series limit (cfg.URL and cfg.HTTPConfig are
// not used), counting into m (nil: counters that are not registered).
func NewPrometheusQuerier(q Querier, cfg config.Prometheus, m *Metrics, log *slog.Logger) *Prometheus {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if m == nil {
		m, _ = NewMetrics(nil)
	}
	return &Prometheus{
		api: q, cfg: cfg, log: log, sem: make(chan struct{}, MaxQueriesInFlight),
		queries: m.Queries, errs: m.Errors, retries: m.Retries, respBytes: m.RespBytes,
		sleepBefore: sleepCtx,
	}
}

type job struct {
	role, signal, query string
}

// checkSeries refuses an answer the job cannot use, before anything is
// allocated for it: for a cluster signal (role ""), several series where the
// signal is one number per window (taking the first would forecast one
// instance as if it were the cluster); for a host metric, a series whose
// "stat" label is not one of the statistics host queries make, or one made
// twice (each becomes a column of the lookback's length, so a backend
// answering with thousands of small series would cost gigabytes); for
// either, more samples in a series than the range has steps (one more is
// let through: a backend that aligns the range to its step, as
// VictoriaMetrics does, may return a point on each side; align drops it).
func (j job) checkSeries(m model.Matrix, r Range) error {
	if j.role == "" && len(m) > 1 {
		return fmt.Errorf("query returned %d series, want one per cluster: aggregate it (sum(...))", len(m))
	}
	n := r.N()
	seen := map[string]bool{}
	for _, s := range m {
		if len(s.Values) > n+1 {
			return fmt.Errorf("query returned %d samples in series %s, more than the %d steps of the range", len(s.Values), s.Metric, n)
		}
		if j.role == "" {
			continue
		}
		st := string(s.Metric["stat"])
		if !isHostStat(st) {
			return fmt.Errorf("query returned a series with stat=%q, want one of %s", st, strings.Join(hostStatNames, ", "))
		}
		if seen[st] {
			return fmt.Errorf("query returned stat=%q twice, want one series per statistic", st)
		}
		seen[st] = true
	}
	return nil
}

// jobsFor lists the queries of a cluster at a step: its signals, then
// (with hosts configured) every host metric's statistics per role, in a
// fixed order.
func jobsFor(cl *config.Cluster, step time.Duration) []job {
	var jobs []job
	for s, q := range ClusterQueries(cl, RateWindow(step)) {
		jobs = append(jobs, job{signal: s, query: q})
	}
	if len(cl.Hosts.Roles) > 0 || len(cl.Hosts.Matchers) > 0 {
		for role, qs := range HostQueries(cl, step) {
			for m, q := range qs {
				jobs = append(jobs, job{role: role, signal: m, query: q})
			}
		}
	}
	sort.Slice(jobs, func(i, j int) bool { return jobs[i].role+jobs[i].signal < jobs[j].role+jobs[j].signal })
	return jobs
}

// Probe is one query of a cluster and what it selected.
type Probe struct {
	Role   string // "" for a cluster signal
	Signal string // the signal or host metric
	Query  string
	Series int   // series selected over the probe's range
	Err    error // the query failed
}

// Required reports whether the cluster's observations need the probe's
// query to select something (the ops and bytes signals).
func (p Probe) Required() bool {
	switch p.Signal {
	case ReadOps, WriteOps, ReadBytes, WriteBytes:
		return p.Role == ""
	}
	return false
}

// ProbeCluster runs each of the cluster's queries once over r and says how
// many series each selects: what --config.check.remote prints and the
// start-up logs, so that a matcher that selects nothing is named at once
// instead of surfacing as "no data" later.
func (p *Prometheus) ProbeCluster(ctx context.Context, cl *config.Cluster, r Range) []Probe {
	jobs := jobsFor(cl, r.Step)
	out := make([]Probe, len(jobs))
	var wg sync.WaitGroup
	for i, j := range jobs {
		out[i] = Probe{Role: j.role, Signal: j.signal, Query: j.query}
		select {
		case p.sem <- struct{}{}:
		case <-ctx.Done():
			out[i].Err = ctx.Err()
			continue
		}
		wg.Add(1)
		go func(i int, j job) {
			defer wg.Done()
			defer func() { <-p.sem }()
			// As in Fetch: a defect in handling an answer fails this probe,
			// not the process (the probe runs at every start).
			defer p.recoverAnswer(cl.Name, j, func(err error) { out[i].Err = err })
			m, _, err := p.query(ctx, cl.Name, j.query, r)
			if err == nil {
				err = j.checkSeries(m, r)
			}
			out[i].Series, out[i].Err = len(m), err
		}(i, j)
	}
	wg.Wait()
	return out
}

// Fetch implements Source.
func (p *Prometheus) Fetch(ctx context.Context, cl *config.Cluster, r Range) (*Frame, error) {
	n := r.N()
	if n == 0 {
		return nil, fmt.Errorf("empty range %v..%v step %v", r.Start, r.End, r.Step)
	}
	jobs := jobsFor(cl, r.Step)
	f := &Frame{Range: r, Signals: map[string][]float64{}, HostStats: map[string]map[string]map[string][]float64{}, Queries: map[string]string{}}
	for _, j := range jobs {
		if j.role == "" {
			f.Queries[j.signal] = j.query
		}
	}
	var (
		mu       sync.Mutex
		firstErr error
		wg       sync.WaitGroup
		nbytes   atomic.Int64
	)
	ctx = context.WithValue(ctx, bytesKey{}, &nbytes)
	for _, j := range jobs {
		select {
		case p.sem <- struct{}{}:
		case <-ctx.Done():
			// The deadline passed while waiting for a slot: what was not
			// sent fails with it.
			mu.Lock()
			if firstErr == nil {
				firstErr = fmt.Errorf("%s: %w", j.signal, ctx.Err())
			}
			mu.Unlock()
			wg.Wait()
			return f, firstErr
		}
		wg.Add(1)
		go func(j job) {
			defer wg.Done()
			defer func() { <-p.sem }()
			// Whatever the upstream sent, a defect in handling it fails
			// this fetch (the models are kept, stale), not the process.
			defer p.recoverAnswer(cl.Name, j, func(err error) {
				mu.Lock()
				if firstErr == nil {
					firstErr = err
				}
				mu.Unlock()
			})
			m, st, err := p.query(ctx, cl.Name, j.query, r)
			if err == nil {
				err = j.checkSeries(m, r)
			}
			mu.Lock()
			defer mu.Unlock()
			f.Stats.Add(st)
			if err != nil {
				if firstErr == nil {
					firstErr = fmt.Errorf("%s %s: %w", j.role, j.signal, err)
					if j.role == "" {
						firstErr = fmt.Errorf("%s: %w", j.signal, err)
					}
				}
				return
			}
			if j.role == "" {
				v := nanSlice(n)
				if len(m) > 0 {
					align(v, m[0].Values, r)
				}
				f.Signals[j.signal] = v
				return
			}
			metrics := f.HostStats[j.role]
			if metrics == nil {
				metrics = map[string]map[string][]float64{}
				f.HostStats[j.role] = metrics
			}
			byStat := map[string][]float64{}
			for _, ss := range m {
				v := nanSlice(n)
				align(v, ss.Values, r)
				byStat[string(ss.Metric["stat"])] = v
			}
			metrics[j.signal] = byStat
		}(j)
	}
	wg.Wait()
	f.Stats.ResponseBytes = nbytes.Load()
	p.respBytes.WithLabelValues(cl.Name).Add(float64(f.Stats.ResponseBytes))
	if firstErr != nil {
		return f, firstErr
	}
	return f, nil
}

// align writes the finite samples of vals onto the grid of r in v.
func align(v []float64, vals []model.SamplePair, r Range) {
	start := r.Start.UnixMilli()
	step := r.Step.Milliseconds()
	for _, s := range vals {
		x := float64(s.Value)
		if math.IsNaN(x) || math.IsInf(x, 0) {
			continue
		}
		// Compared before subtracting: a timestamp near the int64 limits
		// (any upstream can send one) wrapped the offset into a negative
		// index.
		ts := int64(s.Timestamp)
		if ts < start-step/2 || ts >= start+int64(len(v))*step-step/2 {
			continue
		}
		v[(ts-start+step/2)/step] = x
	}
}

// recoverAnswer, deferred in a query's goroutine, turns a panic while
// handling the query's answer into an error passed to fail, logged with
// its stack.
func (p *Prometheus) recoverAnswer(cluster string, j job, fail func(error)) {
	if v := recover(); v != nil {
		p.log.Error("panic handling a query's answer", "cluster", cluster, "query", j.query, "panic", v, "stack", string(debug.Stack()))
		fail(fmt.Errorf("%s: handling the answer failed: %v", strings.TrimSpace(j.role+" "+j.signal), v))
	}
}

// query runs one range query with timeout and retries.
func (p *Prometheus) query(ctx context.Context, cluster, q string, r Range) (model.Matrix, QueryStats, error) {
	var st QueryStats
	for attempt := 0; ; attempt++ {
		st.Queries++
		p.queries.WithLabelValues(cluster).Inc()
		qctx, cancel := context.WithTimeout(ctx, p.cfg.Timeout)
		val, warnings, _, err := p.api.QueryRange(qctx, q, v1.Range{Start: r.Start, End: r.End, Step: r.Step})
		cancel()
		clipUpstreamText(err)
		if err == nil {
			m, ok := val.(model.Matrix)
			if w := partialAnswer(warnings); w != "" {
				err = fmt.Errorf("%w: %s", ErrPartialAnswer, w)
			} else if val == nil {
				// client_golang leaves the value nil for a 200 answer
				// without "data" ({"status":"success"}, "data": null).
				err = errors.New("the answer has no data (want a matrix)")
			} else if !ok {
				err = fmt.Errorf("query returned %s, want matrix", val.Type())
			} else if len(m) > p.cfg.MaxSeriesPerQuery {
				err = fmt.Errorf("%w: %d series, limit %d (prometheus.max_series_per_query)", ErrTooManySeries, len(m), p.cfg.MaxSeriesPerQuery)
			} else if i := slices.Index(m, nil); i >= 0 {
				err = fmt.Errorf("the answer's series %d is null", i)
			} else {
				st.Series += len(m)
				for _, s := range m {
					st.Samples += len(s.Values)
				}
				return m, st, nil
			}
		}
		reason, retry := classify(ctx, err)
		p.errs.WithLabelValues(cluster, reason).Inc()
		if !retry || attempt >= p.cfg.Retries || ctx.Err() != nil {
			p.log.Debug("query failed", "cluster", cluster, "query", q, "attempts", attempt+1, "err", err)
			return nil, st, err
		}
		st.Retries++
		p.retries.WithLabelValues(cluster).Inc()
		if err := p.sleepBefore(ctx, p.cfg.Backoff(attempt)); err != nil {
			return nil, st, err
		}
	}
}

// maxUpstreamText bounds the upstream's own text kept in an error: an
// error message or warning of any size would otherwise be logged at every
// refresh and held in the snapshot.
const maxUpstreamText = 512

// clipUpstreamText shortens the message and detail of an API error in place.
func clipUpstreamText(err error) {
	var apiErr *v1.Error
	if errors.As(err, &apiErr) {
		apiErr.Msg, apiErr.Detail = clip(apiErr.Msg), clip(apiErr.Detail)
	}
}

func clip(s string) string { return textcut.Cut(s, maxUpstreamText) }

// partialAnswer describes the warnings that say an answer may be missing
// data ("" if none). A federating backend (Thanos with partial responses
// on) answers 200 with the series it could reach and a warning for each
// store it could not: half the OSDs' sum would read as half the load, and
// be learned. PromQL's own annotations ("PromQL info: metric might not be
// a counter", which Ceph's counters without _total draw from some
// Prometheus versions in this field) say nothing of missing data.
func partialAnswer(warnings v1.Warnings) string {
	var missing []string
	for _, w := range warnings {
		if !strings.HasPrefix(w, "PromQL ") {
			missing = append(missing, w)
		}
	}
	switch len(missing) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("%q", clip(missing[0]))
	}
	return fmt.Sprintf("%q and %d more", clip(missing[0]), len(missing)-1)
}

// classify names the failure and says whether retrying may help.
func classify(ctx context.Context, err error) (reason string, retry bool) {
	var apiErr *v1.Error
	var netErr net.Error
	switch {
	case errors.Is(err, ErrTooManySeries):
		return "too_many_series", false
	case errors.Is(err, ErrResponseTooLarge):
		return "too_large", false
	case errors.Is(err, ErrPartialAnswer): // a store may be back at the next attempt
		return "partial", true
	case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
		return "timeout", true
	case errors.As(err, &netErr) && netErr.Timeout():
		return "timeout", true
	case errors.As(err, &apiErr):
		switch apiErr.Type {
		case v1.ErrBadData:
			return "bad_data", false
		case v1.ErrTimeout, v1.ErrCanceled:
			return "timeout", true
		case v1.ErrExec:
			return "other", false
		default: // server errors, bad responses
			return "unavailable", true
		}
	case errors.As(err, &netErr):
		return "unavailable", true
	}
	return "other", true
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// partialFlagClient fails a 2xx answer that marks itself partial in a
// top-level "isPartial": true (VictoriaMetrics cluster, whose vmselect
// answers with what the reachable vmstorage nodes hold unless run with
// -search.denyPartialResponse). client_golang does not read the field, and
// half the OSDs' sum would be learned as half the load; the error is
// ErrPartialAnswer, as for Thanos's warnings.
type partialFlagClient struct{ api.Client }

func (c partialFlagClient) Do(ctx context.Context, req *http.Request) (*http.Response, []byte, error) {
	resp, body, err := c.Client.Do(ctx, req)
	if err == nil && resp.StatusCode/100 == 2 && markedPartial(body) {
		return resp, body, fmt.Errorf("%w: the answer says \"isPartial\": true (VictoriaMetrics: a storage node did not answer)", ErrPartialAnswer)
	}
	return resp, body, err
}

// markedPartial reports a top-level "isPartial": true. Only an answer that
// holds the key anywhere is decoded a second time: Prometheus, Thanos and
// Mimir never send it, and pay one byte search.
func markedPartial(body []byte) bool {
	if !bytes.Contains(body, []byte(`"isPartial"`)) {
		return false
	}
	var top struct {
		IsPartial bool `json:"isPartial"`
	}
	return json.Unmarshal(body, &top) == nil && top.IsPartial
}

type bytesKey struct{}

// countingRT fails a response whose body grows past limit bytes (the
// client reads whole answers into memory before the series limit can be
// checked), and adds the body bytes of each response to the counter in the
// request's context (the cost of a fetch, reported in QueryStats).
type countingRT struct {
	next  http.RoundTripper
	limit int64
}

func (c countingRT) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	n, _ := req.Context().Value(bytesKey{}).(*atomic.Int64)
	resp.Body = &countingBody{ReadCloser: resp.Body, n: n, limit: c.limit}
	return resp, nil
}

type countingBody struct {
	io.ReadCloser
	n     *atomic.Int64 // nil: not counted
	read  int64
	limit int64 // <= 0: none
}

func (b *countingBody) Read(p []byte) (int, error) {
	k, err := b.ReadCloser.Read(p)
	b.read += int64(k)
	if b.n != nil {
		b.n.Add(int64(k))
	}
	if b.limit > 0 && b.read > b.limit {
		return k, fmt.Errorf("%w: more than %d bytes (prometheus.max_response_bytes)", ErrResponseTooLarge, b.limit)
	}
	return k, err
}

// Package demo is the query backend of `storcast --demo`: an in-process
// Prometheus (the Prometheus project's own TSDB head and PromQL engine)
// that scrapes an in-process storagesim cluster. It answers range queries
// like Prometheus's HTTP API, so the demo runs the production
// source.Prometheus with the production PromQL (source.ClusterQueries and
// source.HostQueries): the demo exercises every query storcast sends.
//
// Scrapes are not driven by a timer: New appends the history the fits read,
// then before each query Prometheus appends every scrape the simulator
// produced since the last one (one per ScrapeInterval on a fixed grid), as a
// real Prometheus would have done meanwhile. A target in a simulated scrape gap, or a series that
// disappears, gets a staleness marker, as Prometheus writes one after a
// failed scrape. Data older than MaxLookback plus a margin is truncated from
// the head, so memory stays bounded however long the demo runs.
package demo

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"slices"
	"time"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/value"
	"github.com/prometheus/prometheus/promql"
	"github.com/prometheus/prometheus/storage"
	"github.com/prometheus/prometheus/tsdb"
	"github.com/prometheus/prometheus/tsdb/chunks"

	"github.com/storcast/storcast/forecaster/conservation"
	"github.com/storcast/storcast/storagesim"
)

const (
	// ScrapeInterval is the demo Prometheus's scrape interval, that of
	// the shipped deploy/prometheus configuration.
	ScrapeInterval = 15 * time.Second
	// MaxLookback is the longest history the demo keeps for a fit
	// (fit.lookback is capped to it in demo mode). storagesim computes
	// every 5 s tick, so a longer history would delay the first forecasts.
	MaxLookback = 24 * time.Hour
	// retentionMargin covers the rate window before the first point of a
	// lookback and the head's chunk granularity.
	retentionMargin = time.Hour
	// commitEvery bounds the scrapes held by one uncommitted appender.
	commitEvery = 240
)

// Prometheus is an in-process Prometheus scraping a storagesim cluster. It
// implements source.Querier. It is safe for concurrent use; Close releases
// its head's chunk files.
type Prometheus struct {
	Cluster *storagesim.Cluster

	clock     func() time.Time
	retention time.Duration
	interval  time.Duration
	engine    *promql.Engine
	queryable storage.Queryable
	head      *tsdb.Head
	dir       string

	lock chan struct{} // held while appending scrapes
	// Fields below are guarded by lock.
	next     time.Time // time of the next scrape to append
	gen      int       // scrapes appended so far
	series   map[string]*scraped
	key      []byte   // scratch for series keys
	names    []string // scratch for sorted label names
	truncMin int64    // head truncated up to this time (ms)
}

// scraped is one series the demo has appended: its head reference and
// labels, and the scrape generation that last carried it.
type scraped struct {
	ref  storage.SeriesRef
	lset labels.Labels
	seen int
	last int64 // timestamp (ms) of the last scrape that carried it
}

// New loads a storagesim scenario (a shipped name or a path) whose cluster
// started age before now, and returns a Prometheus whose clock starts at
// now and runs at the wall clock's pace, holding the scrapes of the last
// MaxLookback (and margin) since the cluster started. Appending them takes
// a few seconds of CPU; doing it here rather than in the first query keeps
// that one-off cost out of the queries' timeouts, as a real Prometheus has
// its history before storcast asks.
func New(scenario string, seed int64, now time.Time, age time.Duration) (*Prometheus, error) {
	sc, err := storagesim.LoadScenario(scenario)
	if err != nil {
		return nil, err
	}
	c, err := storagesim.New(sc, seed, now.Add(-age))
	if err != nil {
		return nil, err
	}
	start := time.Now()
	p, err := newPrometheus(c, func() time.Time { return now.Add(time.Since(start)) }, MaxLookback+retentionMargin, ScrapeInterval)
	if err != nil {
		return nil, err
	}
	if err := p.scrapeUntil(context.Background(), p.clock()); err != nil {
		_ = p.Close()
		return nil, err
	}
	return p, nil
}

func newPrometheus(c *storagesim.Cluster, clock func() time.Time, retention, interval time.Duration) (*Prometheus, error) {
	dir, err := os.MkdirTemp("", "storcast-demo-")
	if err != nil {
		return nil, fmt.Errorf("demo: head chunk directory: %w", err)
	}
	opts := tsdb.DefaultHeadOptions()
	opts.ChunkDirRoot = dir
	// A few hundred series: the server's defaults (16384 stripes, a 4 MiB
	// chunk write buffer) would cost more memory than the data.
	opts.StripeSize = 256
	opts.ChunkWriteBufferSize = chunks.MinWriteBufferSize
	head, err := tsdb.NewHead(nil, nil, nil, nil, opts, nil)
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("demo: tsdb head: %w", err)
	}
	if err := head.Init(math.MinInt64); err != nil {
		_ = head.Close()
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("demo: tsdb head: %w", err)
	}
	// Prometheus's defaults for the server (--query.timeout,
	// --query.max-samples, the 5 m lookback delta, 1 m evaluation
	// interval for subqueries without a step).
	eng := promql.NewEngine(promql.EngineOpts{
		Logger:                   slog.New(slog.DiscardHandler),
		MaxSamples:               50_000_000,
		Timeout:                  2 * time.Minute,
		LookbackDelta:            5 * time.Minute,
		EnableAtModifier:         true,
		EnableNegativeOffset:     true,
		NoStepSubqueryIntervalFn: func(int64) int64 { return time.Minute.Milliseconds() },
	})
	p := &Prometheus{
		Cluster: c, clock: clock, retention: retention, interval: interval,
		engine: eng, head: head, dir: dir,
		lock:   make(chan struct{}, 1),
		series: map[string]*scraped{},
	}
	p.queryable = storage.QueryableFunc(func(mint, maxt int64) (storage.Querier, error) {
		return tsdb.NewBlockQuerier(tsdb.NewRangeHead(head, mint, maxt), mint, maxt)
	})
	// The first scrape: on the interval grid, retention before now, not
	// before the cluster existed.
	first := clock().Add(-retention)
	if o := c.Origin(); first.Before(o) {
		first = o
	}
	p.next = first.Truncate(interval)
	if p.next.Before(first) {
		p.next = p.next.Add(interval)
	}
	p.truncMin = p.next.UnixMilli()
	return p, nil
}

// Close releases the head and its chunk directory.
func (p *Prometheus) Close() error {
	err := p.head.Close()
	return errors.Join(err, os.RemoveAll(p.dir))
}

// Calibration returns the scenario's benchmark points: what an operator
// would have measured with fio on this cluster before going live.
func (p *Prometheus) Calibration() conservation.Calibration {
	return Calibration(p.Cluster.Scenario())
}

// Calibration returns the benchmark points of a storagesim scenario as a
// calibration of the cluster "demo".
func Calibration(sc *storagesim.Scenario) conservation.Calibration {
	cal := conservation.Calibration{Cluster: "demo"}
	for _, pt := range sc.Capacity.Points {
		cal.Points = append(cal.Points, conservation.Point{IOSizeBytes: float64(pt.Size), ReadIOPS: pt.ReadIOPS, WriteIOPS: pt.WriteIOPS, Source: "storagesim scenario " + sc.Name})
	}
	return cal
}

// QueryRange evaluates a PromQL range query as Prometheus's
// /api/v1/query_range does, after appending the scrapes due by now. Errors
// carry the API's error types (bad_data for a query that does not parse,
// timeout, canceled, execution), so source.Prometheus classifies them as it
// classifies a server's. Options are ignored.
func (p *Prometheus) QueryRange(ctx context.Context, query string, r v1.Range, _ ...v1.Option) (model.Value, v1.Warnings, v1.Infos, error) {
	if err := p.scrapeUntil(ctx, p.clock()); err != nil {
		return nil, nil, nil, err
	}
	q, err := p.engine.NewRangeQuery(ctx, p.queryable, nil, query, r.Start, r.End, r.Step)
	if err != nil {
		return nil, nil, nil, &v1.Error{Type: v1.ErrBadData, Msg: err.Error()}
	}
	defer q.Close()
	res := q.Exec(ctx)
	if res.Err != nil {
		return nil, nil, nil, apiError(res.Err)
	}
	warnings, infos := res.Warnings.AsStrings(query, 10, 10)
	m, ok := res.Value.(promql.Matrix)
	if !ok {
		return nil, warnings, infos, &v1.Error{Type: v1.ErrExec, Msg: fmt.Sprintf("range query returned %s", res.Value.Type())}
	}
	out := make(model.Matrix, 0, len(m))
	for _, s := range m {
		ss := &model.SampleStream{Metric: make(model.Metric, s.Metric.Len()), Values: make([]model.SamplePair, len(s.Floats))}
		s.Metric.Range(func(l labels.Label) { ss.Metric[model.LabelName(l.Name)] = model.LabelValue(l.Value) })
		for i, f := range s.Floats {
			ss.Values[i] = model.SamplePair{Timestamp: model.Time(f.T), Value: model.SampleValue(f.F)}
		}
		out = append(out, ss)
	}
	return out, warnings, infos, nil
}

// apiError maps an evaluation error to the HTTP API's error type, as
// Prometheus's web API does.
func apiError(err error) *v1.Error {
	var (
		canceled promql.ErrQueryCanceled
		timeout  promql.ErrQueryTimeout
		tooMany  promql.ErrTooManySamples
		stor     promql.ErrStorage
	)
	switch {
	case errors.As(err, &canceled), errors.Is(err, context.Canceled):
		return &v1.Error{Type: v1.ErrCanceled, Msg: err.Error()}
	case errors.As(err, &timeout):
		return &v1.Error{Type: v1.ErrTimeout, Msg: err.Error()}
	case errors.As(err, &tooMany):
		return &v1.Error{Type: v1.ErrExec, Msg: err.Error()}
	case errors.As(err, &stor):
		return &v1.Error{Type: v1.ErrServer, Msg: err.Error()}
	}
	return &v1.Error{Type: v1.ErrExec, Msg: err.Error()}
}

// scrapeUntil appends every scrape due at or before now. Progress is kept
// when ctx ends midway (committed in batches), so a retry continues.
func (p *Prometheus) scrapeUntil(ctx context.Context, now time.Time) (err error) {
	select {
	case p.lock <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-p.lock }()
	app := p.head.Appender(ctx)
	pending := 0
	for !p.next.After(now) {
		if err := p.scrape(app, p.next); err != nil {
			_ = app.Rollback()
			return err
		}
		p.next = p.next.Add(p.interval)
		if pending++; pending == commitEvery {
			if err := app.Commit(); err != nil {
				return fmt.Errorf("demo: appending scrapes: %w", err)
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			app, pending = p.head.Appender(ctx), 0
		}
	}
	if err := app.Commit(); err != nil {
		return fmt.Errorf("demo: appending scrapes: %w", err)
	}
	return p.truncate(now)
}

// scrape appends the values of every target at t, and a staleness marker
// for each series the previous scrape had and this one lacks.
func (p *Prometheus) scrape(app storage.Appender, t time.Time) error {
	p.gen++
	ts := t.UnixMilli()
	for _, tg := range p.Cluster.Sample(t).Targets {
		if !tg.Up {
			continue
		}
		for _, s := range tg.Series {
			e := p.entry(tg.Target, s)
			ref, err := app.Append(e.ref, e.lset, ts, s.Value)
			if err != nil {
				return fmt.Errorf("demo: appending %s at %s: %w", e.lset, t.Format(time.RFC3339), err)
			}
			e.ref, e.seen, e.last = ref, p.gen, ts
		}
	}
	for _, e := range p.series {
		if e.seen == p.gen-1 {
			ref, err := app.Append(e.ref, e.lset, ts, math.Float64frombits(value.StaleNaN))
			if err != nil {
				return fmt.Errorf("demo: staleness marker of %s: %w", e.lset, err)
			}
			e.ref = ref
		}
	}
	return nil
}

// entry returns the cached series of a sample of target tg, creating it
// (with the job and instance labels a scrape adds) on first sight.
func (p *Prometheus) entry(tg storagesim.Target, s storagesim.Series) *scraped {
	p.names = p.names[:0]
	for k := range s.Labels {
		p.names = append(p.names, k)
	}
	slices.Sort(p.names)
	k := append(p.key[:0], tg.Job...)
	k = append(k, 0xff)
	k = append(k, tg.Instance...)
	k = append(k, 0xff)
	k = append(k, s.Name...)
	for _, n := range p.names {
		k = append(k, 0xff)
		k = append(k, n...)
		k = append(k, 0xfe)
		k = append(k, s.Labels[n]...)
	}
	p.key = k
	if e, ok := p.series[string(k)]; ok {
		return e
	}
	b := labels.NewScratchBuilder(len(s.Labels) + 3)
	b.Add(model.MetricNameLabel, s.Name)
	b.Add("job", tg.Job)
	b.Add("instance", tg.Instance)
	for _, n := range p.names {
		b.Add(n, s.Labels[n])
	}
	b.Sort()
	e := &scraped{lset: b.Labels()}
	p.series[string(k)] = e
	return e
}

// truncate drops data older than the retention once an hour's worth has
// accumulated beyond it, and forgets series not scraped since.
func (p *Prometheus) truncate(now time.Time) error {
	mint := now.Add(-p.retention).UnixMilli()
	if mint-p.truncMin < time.Hour.Milliseconds() {
		return nil
	}
	if err := p.head.Truncate(mint); err != nil {
		return fmt.Errorf("demo: truncating the head: %w", err)
	}
	p.truncMin = mint
	for k, e := range p.series {
		if e.last < mint {
			delete(p.series, k)
		}
	}
	return nil
}

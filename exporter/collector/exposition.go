package collector

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/storcast/storcast/exporter/engine"
)

// Exposition is the /metrics handler. The forecast series change only when
// a cluster's snapshot does (a refresh or a fit), yet gathering, encoding
// and compressing them was nearly all of a scrape's CPU (~11 ms for 100
// clusters), so 32 concurrent scrapes queued for a quarter of a second on
// two cores. Exposition encodes them once per set of snapshots and format,
// keeps the bytes, and on every scrape gathers only the process's own
// families (build, Go runtime, process, upstream queries), which do change
// between scrapes, and writes them ahead of the kept bytes.
//
// Both parts are complete families with disjoint names, so their
// concatenation is a valid text or protobuf exposition; with gzip each part
// is its own gzip member, and a gzip stream may hold several (RFC 1952,
// section 2.2), which Go's and so Prometheus's reader decode as one.
//
// As a consequence storcast_scrape_collector_duration_seconds and
// storcast_scrape_collector_success describe the collectors' last run,
// when the snapshots last changed, not every scrape.
type Exposition struct {
	exporter *Exporter
	own      prometheus.Gatherer
	log      *slog.Logger
	errors   *prometheus.CounterVec

	clock atomic.Uint64 // orders scrape arrivals and snapshot reads
	// minAge is how long gathered families serve before a changed snapshot
	// is gathered again (MinGatherInterval; 0 in tests).
	minAge time.Duration
	now    func() time.Time
	mu     sync.Mutex
	built  *forecastBytes
	// builds counts how often the forecast families were gathered (tests).
	builds int
}

// forecastBytes is the forecast part of the exposition for one set of
// snapshots and shard report, encoded on demand per format and compression.
type forecastBytes struct {
	snaps    []*engine.Snapshot
	shard    Shard
	readAt   uint64    // clock when snaps and shard were last found current
	gathered time.Time // when the families were gathered
	families []*dto.MetricFamily
	bodies   map[bodyKey][]byte
}

type bodyKey struct {
	format expfmt.Format
	gzip   bool
}

// MinGatherInterval is the least time between two gatherings of the
// forecast series. 100 clusters refreshing one after another replace a
// snapshot every few milliseconds for a second or two; gathering on each
// change took ~10 ms of CPU apiece, as much as the scrapes waiting behind
// it (p99 110 ms at 32 connections). A scrape may so read forecasts up to
// a second older than the newest snapshot, against refreshes every 15 s.
const MinGatherInterval = time.Second

// NewExposition returns the /metrics handler of e (its Snapshotter and
// ShardReporter read on every scrape) in front of own, the process's
// registry, where it registers promhttp_metric_handler_errors_total as
// client_golang's handler does.
func NewExposition(e *Exporter, own *prometheus.Registry, log *slog.Logger) (*Exposition, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	x := &Exposition{exporter: e, own: own, log: log, minAge: MinGatherInterval, now: time.Now, errors: prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "promhttp_metric_handler_errors_total",
		Help: "Total number of internal errors encountered by the promhttp metric handler.",
	}, []string{"cause"})}
	if err := own.Register(x.errors); err != nil {
		return nil, fmt.Errorf("exposition: %w", err)
	}
	x.errors.WithLabelValues("gathering")
	x.errors.WithLabelValues("encoding")
	return x, nil
}

// ServeHTTP answers a scrape in the format and compression the scraper
// asks for (text or protobuf, identity or gzip).
func (x *Exposition) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	format := expfmt.NegotiateAccept(r.Header, expfmt.DefaultAcceptedFormats()...)
	gz := acceptsGzip(r.Header.Get("Accept-Encoding"))

	own, err := x.own.Gather()
	if err != nil {
		x.errors.WithLabelValues("gathering").Inc()
		x.log.Error("gathering the process's metrics; serving what was gathered", "err", err)
	}
	head, err := encode(own, format, gz)
	if err != nil {
		x.errors.WithLabelValues("encoding").Inc()
		http.Error(w, "encoding metrics: "+err.Error(), http.StatusInternalServerError)
		return
	}
	tail, err := x.forecast(format, gz)
	if err != nil {
		x.errors.WithLabelValues("encoding").Inc()
		http.Error(w, "encoding metrics: "+err.Error(), http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", string(format))
	h.Set("Content-Length", strconv.Itoa(len(head)+len(tail)))
	h.Add("Vary", "Accept-Encoding")
	if gz {
		h.Set("Content-Encoding", "gzip")
	}
	if _, err := w.Write(head); err == nil {
		w.Write(tail)
	}
}

// forecast returns the encoded forecast families of the current snapshots,
// gathering them only when a snapshot or the shard report changed since
// they were last read, and at most once per minAge. A scrape that arrives while another gathers takes
// that result when its snapshots were read after the scrape arrived: while
// 100 clusters refresh one after another, waiting scrapes share one
// gathering instead of each running their own in turn.
func (x *Exposition) forecast(format expfmt.Format, gz bool) ([]byte, error) {
	arrived := x.clock.Add(1)
	x.mu.Lock()
	defer x.mu.Unlock()
	if b := x.built; b == nil || (b.readAt < arrived && x.now().Sub(b.gathered) >= x.minAge) {
		readAt := x.clock.Add(1)
		snaps := x.exporter.src.Snapshots()
		var shard Shard
		if x.exporter.shard != nil {
			shard = x.exporter.shard.Shard()
		}
		if b == nil || !slices.Equal(b.snaps, snaps) || !sameShard(b.shard, shard) {
			x.built = &forecastBytes{snaps: snaps, shard: shard, families: x.gather(snaps, shard), bodies: map[bodyKey][]byte{}, gathered: x.now()}
			x.builds++
		}
		x.built.readAt = readAt
	}
	k := bodyKey{format, gz}
	if body, ok := x.built.bodies[k]; ok {
		return body, nil
	}
	body, err := encode(x.built.families, format, gz)
	if err != nil {
		return nil, err
	}
	// Bounded: NegotiateAccept answers one of a few formats (each with one
	// of four escaping schemes).
	x.built.bodies[k] = body
	return body, nil
}

// gather runs every collector once over snaps and shard, through a
// registry of its own so the families are checked and sorted as before.
func (x *Exposition) gather(snaps []*engine.Snapshot, shard Shard) []*dto.MetricFamily {
	var pinnedShard ShardReporter
	if x.exporter.shard != nil {
		pinnedShard = fixedShard(shard)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(New(fixedSnapshots(snaps), pinnedShard, x.exporter.log))
	mfs, err := reg.Gather()
	if err != nil {
		x.errors.WithLabelValues("gathering").Inc()
		x.log.Error("gathering the forecast series; serving what was gathered", "err", err)
	}
	return mfs
}

type fixedSnapshots []*engine.Snapshot

func (f fixedSnapshots) Snapshots() []*engine.Snapshot { return f }

type fixedShard Shard

func (f fixedShard) Shard() Shard { return Shard(f) }

func sameShard(a, b Shard) bool {
	return a.Index == b.Index && a.Total == b.Total && slices.Equal(a.Configured, b.Configured) && slices.Equal(a.Assigned, b.Assigned)
}

// encode writes mfs in format, as one gzip member when gz.
func encode(mfs []*dto.MetricFamily, format expfmt.Format, gz bool) ([]byte, error) {
	var buf bytes.Buffer
	var zw *gzip.Writer
	var enc expfmt.Encoder
	if gz {
		// A gzip writer holds ~800 KB of tables: reuse them.
		zw = gzipWriters.Get().(*gzip.Writer)
		defer gzipWriters.Put(zw)
		zw.Reset(&buf)
		enc = expfmt.NewEncoder(zw, format)
	} else {
		enc = expfmt.NewEncoder(&buf, format)
	}
	for _, mf := range mfs {
		if err := enc.Encode(mf); err != nil {
			return nil, fmt.Errorf("family %s: %w", mf.GetName(), err)
		}
	}
	if zw != nil {
		if err := zw.Close(); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}

var gzipWriters = sync.Pool{New: func() any { return gzip.NewWriter(nil) }}

// acceptsGzip reports whether an Accept-Encoding header names gzip with
// q > 0. "*" alone gets identity, as from client_golang's handler.
func acceptsGzip(header string) bool {
	for _, part := range strings.Split(header, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if n := strings.ToLower(strings.TrimSpace(name)); n != "gzip" && n != "x-gzip" {
			continue
		}
		if v, ok := strings.CutPrefix(strings.TrimSpace(params), "q="); ok {
			q, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return err == nil && q > 0
		}
		return true
	}
	return false
}

package engine

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/storcast/storcast/exporter/config"
	"github.com/storcast/storcast/exporter/models"
	"github.com/storcast/storcast/exporter/source"
)

// lookbackRefusingSource passes the refreshes' short ranges to src and,
// while refusing, fails every range longer than an hour (a lookback over
// Prometheus's query.max-samples), counting both. Each refresh moves the
// clock on by a minute, and counts the refreshes that found the cluster's
// snapshot reading the source down.
type lookbackRefusingSource struct {
	src source.Source
	clk *clock
	e   *Engine

	mu                   sync.Mutex
	refusing             bool
	refreshes, lookbacks int
	sawDown              int
}

var errMaxSamples = errors.New("query processing would load too many samples into memory in query execution (query.max-samples)")

func (s *lookbackRefusingSource) Fetch(ctx context.Context, cl *config.Cluster, r source.Range) (*source.Frame, error) {
	s.mu.Lock()
	if r.End.Sub(r.Start) > time.Hour {
		s.lookbacks++
		refusing := s.refusing
		s.mu.Unlock()
		if refusing {
			return nil, errMaxSamples
		}
		return s.src.Fetch(ctx, cl, r)
	}
	s.refreshes++
	if snap := s.e.Snapshot(cl.Name); snap != nil && snap.Ready && !snap.SourceUp {
		s.sawDown++
	}
	s.mu.Unlock()
	f, err := s.src.Fetch(ctx, cl, r)
	s.clk.Advance(time.Minute)
	return f, err
}

func (s *lookbackRefusingSource) counts() (refreshes, lookbacks, sawDown int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refreshes, s.lookbacks, s.sawDown
}

// TestFailingLookbackBacksOff: a lookback the backend refuses while the
// refreshes pass is fetched again after a backoff (a minute, doubling,
// capped at fit.interval), not at every refresh, and the source does not
// read down: the failed fit attempt is the models' fit error. Before, 40
// refreshes sent 40 lookback queries, and the source read down after each
// and up at the next refresh (StorcastSourceDown never held for its 10m).
// Once the backend takes the lookback, the fit passes and the error clears.
func TestFailingLookbackBacksOff(t *testing.T) {
	_, cfg, prom := fakeSource(t) // refresh every 20 ms, fit.interval 1h, lookback 6h
	clk := &clock{t: testNow}
	src := &lookbackRefusingSource{src: prom, clk: clk, refusing: true}
	e := New(Options{Source: src, Fitters: baseFitters(), Now: clk.Now})
	src.e = e
	e.Start(context.Background(), cfg)
	defer e.Stop()

	waitFor(t, "40 refreshes", func() bool { n, _, _ := src.counts(); return n >= 40 })
	refreshes, lookbacks, sawDown := src.counts()
	t.Logf("%d lookback fetches over %d refreshes", lookbacks, refreshes)
	// Tried at 1, 2, 4, 8, 16 and 32 minutes (one refresh a minute).
	if lookbacks < 2 || lookbacks > 7 {
		t.Errorf("%d lookback fetches over %d refreshes a minute apart; want a few (backing off from a minute), more than one", lookbacks, refreshes)
	}
	if sawDown > 0 {
		t.Errorf("%d of %d refreshes found the source reading down; a failed lookback fetch must not flap it", sawDown, refreshes)
	}
	s := e.Snapshot("a")
	if st := s.Models[models.Conservation]; !strings.Contains(st.Error, "fetching the lookback failed") || !strings.Contains(st.Error, "query.max-samples") || st.Waiting != "" {
		t.Errorf("conservation status %+v; want the failed fetch as its fit error", st)
	}
	if !s.SourceUp || s.Fits != 0 {
		t.Errorf("source up %v (%q), fits %d; want up, none", s.SourceUp, s.SourceError, s.Fits)
	}

	src.mu.Lock()
	src.refusing = false
	src.mu.Unlock()
	waitFor(t, "a fit once the lookback is served", func() bool { return e.Snapshot("a").Fits == 1 })
	if st := e.Snapshot("a").Models[models.Conservation]; !st.Fitted || st.Error != "" {
		t.Errorf("conservation after the fit: %+v", st)
	}
}

// TestFitBackoffDoublesToTheInterval: the waits after failed lookback
// fetches start at a minute (the refresh interval when longer) and double
// up to fit.interval.
func TestFitBackoffDoublesToTheInterval(t *testing.T) {
	cfg := config.Default()
	cfg.Fit.Interval, cfg.Fit.RefreshInterval = time.Hour, 30*time.Second
	var got []time.Duration
	for d := time.Duration(0); len(got) < 8; {
		d = fitBackoff(&cfg, d)
		got = append(got, d)
	}
	want := []time.Duration{time.Minute, 2 * time.Minute, 4 * time.Minute, 8 * time.Minute, 16 * time.Minute, 32 * time.Minute, time.Hour, time.Hour}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("backoffs %v, want %v", got, want)
		}
	}
	cfg.Fit.RefreshInterval = 5 * time.Minute
	if d := fitBackoff(&cfg, 0); d != 5*time.Minute {
		t.Errorf("first backoff %v with a 5m refresh interval, want 5m", d)
	}
}

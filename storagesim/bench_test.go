package storagesim

import (
	"io"
	"net/http/httptest"
	"testing"
	"time"
)

// BenchmarkHistory writes the steady scenario (3 hosts, 12 OSDs) from its
// origin: 7 days at a 15 s step, the figure the README quotes, and 60 days
// at a 1 h step, whose 1036800 ticks outnumber its instants 720 to 1 (the
// memory the writer holds must not grow with them: B/op). closed-loop-7d is
// the closed-loop scenario (also 12 OSDs), whose every tick solves the MVA
// of its queueing network.
func BenchmarkHistory(b *testing.B) {
	origin := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	for _, bc := range []struct {
		name, scenario string
		span, step     time.Duration
	}{
		{"7d", "steady", 7 * 24 * time.Hour, 15 * time.Second},
		{"60d", "steady", 60 * 24 * time.Hour, time.Hour},
		{"closed-loop-7d", "closed-loop", 7 * 24 * time.Hour, 15 * time.Second},
	} {
		sc, err := LoadScenario(bc.scenario)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				c, err := New(sc, 1, origin)
				if err != nil {
					b.Fatal(err)
				}
				cw := &countingWriter{}
				if err := WriteHistory(cw, c, origin, origin.Add(bc.span), bc.step); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(cw.n)/float64(1<<20), "MiB/op")
			}
		})
	}
}

type countingWriter struct{ n int }

func (w *countingWriter) Write(p []byte) (int, error) {
	w.n += len(p)
	return len(p), nil
}

var _ io.Writer = (*countingWriter)(nil)

// BenchmarkScrape is one /metrics scrape of the steady cluster's ceph-mgr
// target, a minute after the previous one. The day of integration before
// the first one is setup, outside the timer (b.Loop); a scrape that falls
// in one of the scenario's scrape gaps answers 503 cheaply, and is
// reported (gaps/op) rather than hidden in the mean.
func BenchmarkScrape(b *testing.B) {
	c := mustCluster(b, "steady", 1)
	at := testOrigin.Add(24 * time.Hour)
	c.Sample(at)
	gaps := 0
	for b.Loop() {
		at = at.Add(time.Minute)
		rec := httptest.NewRecorder()
		c.HandlerWithClock(func() time.Time { return at }).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
		switch rec.Code {
		case 200:
		case 503:
			gaps++
		default:
			b.Fatal(rec.Code)
		}
	}
	b.ReportMetric(float64(gaps)/float64(b.N), "gaps/op")
}

// BenchmarkStartWeek is the first Sample of a cluster whose origin is a week
// back: integrating every counter over 120960 ticks.
func BenchmarkStartWeek(b *testing.B) {
	for i := 0; i < b.N; i++ {
		c := mustCluster(b, "steady", 1)
		c.Sample(testOrigin.Add(7 * 24 * time.Hour))
	}
}

// BenchmarkState is the ground truth of one tick: the legacy law, the
// interference frontier (a square root) and a closed loop (the MVA of its
// network, remembered from the previous state: solveClosed).
func BenchmarkState(b *testing.B) {
	for _, name := range []string{"steady", "interference", "growth-interference", "closed-loop"} {
		b.Run(name, func(b *testing.B) {
			c := mustCluster(b, name, 1)
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				_ = c.stateAt(float64(i%100000) * tickSeconds)
			}
		})
	}
}

// BenchmarkTruth is one Truth, whose saturation search walks up to 90 days
// of states in 5-minute steps.
func BenchmarkTruth(b *testing.B) {
	for _, name := range []string{"steady", "interference", "growth-interference", "closed-loop"} {
		b.Run(name, func(b *testing.B) {
			c := mustCluster(b, name, 1)
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				_ = c.Truth(testOrigin.Add(time.Duration(i%1000)*time.Minute), 0)
			}
		})
	}
}

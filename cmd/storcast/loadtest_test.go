package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/storcast/storcast/exporter/api"
	"github.com/storcast/storcast/exporter/apiv1"
	"github.com/storcast/storcast/exporter/collector"
	"github.com/storcast/storcast/exporter/engine"
	"github.com/storcast/storcast/exporter/features"
	"github.com/storcast/storcast/exporter/models"
	"github.com/storcast/storcast/forecaster/conservation"
)

var loadTest = flag.Bool("storcast.loadtest", false, "run TestLoad: /metrics of 100 clusters and 11000-point forecasts at 32 connections on loopback")

// refreshing is a set of snapshots that refreshEvery replaces one cluster
// at a time, as the engine publishes a refreshed snapshot.
type refreshing struct{ p atomic.Pointer[snapshots] }

func ptr[T any](v T) *T { return &v }

func (r *refreshing) Snapshots() []*engine.Snapshot         { return *r.p.Load() }
func (r *refreshing) Snapshot(name string) *engine.Snapshot { return r.p.Load().Snapshot(name) }

// refreshEvery replaces one cluster's snapshot (a copy with a new refresh
// time) every interval, round robin, until the returned stop, which says
// how many it replaced. every 0 replaces none.
func (r *refreshing) refreshEvery(every time.Duration) (stop func() int) {
	if every <= 0 {
		return func() int { return 0 }
	}
	done, n := make(chan struct{}), 0
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			old := *r.p.Load()
			next := slices.Clone(old)
			i := n % len(next)
			s := *next[i]
			s.LastRefresh = time.Now()
			next[i] = &s
			r.p.Store(&next)
			n++
		}
	})
	return func() int { close(done); wg.Wait(); return n }
}

// snapshots is a fixed set of engine snapshots.
type snapshots []*engine.Snapshot

func (s snapshots) Snapshots() []*engine.Snapshot { return s }
func (s snapshots) Snapshot(name string) *engine.Snapshot {
	for _, sn := range s {
		if sn.Cluster == name {
			return sn
		}
	}
	return nil
}

// loadSnapshots fits the real models once on a synthetic week (demand
// rising 5000 -> 8000 IOPS with a daily cycle; latency 1 ms/(1-IOPS/10000))
// and returns n clusters sharing them.
func loadSnapshots(t *testing.T, n int) snapshots {
	rng := rand.New(rand.NewPCG(1, 2))
	now := float64(time.Now().Unix())
	var ts, ys []float64
	for tt := now - 7*86400; tt <= now; tt += 300 {
		d := (tt - now + 7*86400) / (7 * 86400)
		ts = append(ts, tt)
		ys = append(ys, 5000+3000*d+500*math.Sin(2*math.Pi*tt/86400)+rng.NormFloat64()*100)
	}
	tr, err := models.DemandTrend{}.FitSeries(ts, ys)
	if err != nil {
		t.Fatal(err)
	}
	iops, lat := make([]float64, 2000), make([]float64, 2000)
	for i := range iops {
		iops[i] = 500 + rng.Float64()*8500
		lat[i] = 0.001 / (1 - iops[i]/10000) * (1 + 0.05*rng.NormFloat64())
	}
	latency, err := models.MLISPFitter{}.FitColumns([]string{features.ColIOPS, features.ColLatency}, [][]float64{iops, lat}, 10000)
	if err != nil {
		t.Fatal(err)
	}
	capacity, err := models.NewCapacity(conservation.Calibration{Points: []conservation.Point{
		{IOSizeBytes: 4096, ReadIOPS: 12000, WriteIOPS: 6000}, {IOSizeBytes: 1 << 20, ReadIOPS: 800, WriteIOPS: 300}}}, "file", 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	capm := capacity.Model()
	obs := features.Observed{ReadIOPS: 5600, WriteIOPS: 2400, IOPS: 8000, ReadRatio: 0.7, ReadSizeBytes: 4096, WriteSizeBytes: 4096, IOSizeBytes: 4096}
	res, err := capm.AtMix(features.OpClasses(obs))
	if err != nil {
		t.Fatal(err)
	}
	hist := make([]apiv1.ForecastPoint, len(ts))
	for i := range ts {
		hist[i] = apiv1.ForecastPoint{T: ts[i], Value: ys[i]}
	}
	out := make(snapshots, n)
	for i := range out {
		out[i] = &engine.Snapshot{Cluster: fmt.Sprintf("cluster-%03d", i), Kind: "ceph", SLOSeconds: 0.005, LatencyKind: "op",
			Ready: true, SourceUp: true, LastRefresh: time.Now(), Fits: 1, Observed: obs, HasObserved: true, Hosts: 12,
			Set:  models.Set{models.Conservation: capacity, models.MLISP: latency, models.Trend: tr},
			Live: models.Live{CapacityAtMix: res, HasCapacityAtMix: true}, History: hist,
			Models: map[string]apiv1.ModelStatus{
				models.Conservation: {Fitted: true, LastFitUnix: now},
				models.MLISP:        {Fitted: true, LastFitUnix: now, AccuracyRatio: latency.Accuracy(), AccuracyMeasured: true, TrainingSamples: 2000},
				models.Trend:        {Fitted: true, LastFitUnix: now, AccuracyRatio: tr.Accuracy(), AccuracyMeasured: true, TrainingSamples: len(ts)},
			}}
		out[i].ComputeOutlook() // as the engine does before publishing a snapshot
	}
	return out
}

// rssBytes is this process's resident set size.
func rssBytes() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return -1
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return -1
}

// cpuTime is this process's user+system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return -1
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// hammer sends total GETs of url over conns connections and returns the
// latencies, the bytes of one answer and the largest RSS sampled (every
// 10 ms) while it ran.
func hammer(t *testing.T, url string, conns, total int) (lat []time.Duration, size int64, maxRSS int64, cpuPerReq time.Duration) {
	cpu0 := cpuTime()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns}}
	defer client.CloseIdleConnections()
	stop := make(chan struct{})
	var sampler sync.WaitGroup
	sampler.Go(func() {
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			maxRSS = max(maxRSS, rssBytes())
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	})
	jobs := make(chan struct{}, total)
	for range total {
		jobs <- struct{}{}
	}
	close(jobs)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range conns {
		wg.Go(func() {
			for range jobs {
				t0 := time.Now()
				resp, err := client.Get(url)
				if err != nil {
					t.Error(err)
					return
				}
				n, _ := io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				d := time.Since(t0)
				if resp.StatusCode != 200 {
					t.Errorf("%s: HTTP %d", url, resp.StatusCode)
					return
				}
				mu.Lock()
				lat, size = append(lat, d), n
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	close(stop)
	sampler.Wait()
	slices.Sort(lat)
	return lat, size, maxRSS, (cpuTime() - cpu0) / time.Duration(max(len(lat), 1))
}

func quantile(lat []time.Duration, q float64) time.Duration {
	if len(lat) == 0 {
		return 0
	}
	return lat[min(len(lat)-1, int(math.Ceil(q*float64(len(lat))))-1)]
}

// TestLoad is the load test of docs/operations.md: storcast's handlers
// (its /metrics collector and /api/v1) over newHTTPServer on loopback, fed
// 100 clusters of real fitted models. Client and server share this
// process, so the RSS covers both. It reports figures; it asserts only that
// every answer was a 200 of the expected size.
//
//	go test -run TestLoad -storcast.loadtest -v ./cmd/storcast/
func TestLoad(t *testing.T) {
	if !*loadTest {
		t.Skip("the load test runs with -storcast.loadtest")
	}
	const clusters, conns = 100, 32
	snaps := &refreshing{}
	snaps.p.Store(ptr(loadSnapshots(t, clusters)))
	// The process's own series, as storcast registers them, then the
	// /metrics handler storcast serves.
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	exposition, err := collector.NewExposition(collector.New(snaps, nil, nil), reg, nil)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", exposition)
	mux.Handle("/api/v1/", api.NewService(snaps).Handler(nil))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := newHTTPServer(mux, defaultServerLimits)
	go srv.Serve(ln)
	defer srv.Close()
	base := "http://" + ln.Addr().String()

	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, c := range []string{"cluster-000", "cluster-099"} {
		if !strings.Contains(string(body), `cluster="`+c+`"`) {
			t.Fatalf("/metrics lacks %s", c)
		}
		if !strings.Contains(string(body), `storcast_saturation_eta_seconds{cluster="`+c+`",limit="max_iops"}`) {
			t.Fatalf("/metrics lacks the max_iops ETA of %s", c)
		}
	}
	for _, every := range []time.Duration{0, 150 * time.Millisecond, 0} {
		// every > 0: one cluster's snapshot replaced every interval, as
		// when 100 clusters refresh every 15 s spread evenly, so that
		// the cached forecast series are gathered again that often.
		stop := snaps.refreshEvery(every)
		rss0 := rssBytes()
		lat, size, rss, cpu := hammer(t, base+"/metrics", conns, 20*conns)
		refreshes := stop()
		t.Logf("/metrics of %d clusters (%d bytes, %d lines), %d GETs at %d connections, %d snapshots replaced meanwhile (one every %v): p50 %v p99 %v max %v; CPU %v per GET (client+server); RSS before %.0f MiB, max %.0f MiB",
			clusters, size, strings.Count(string(body), "\n"), len(lat), conns, refreshes, every, quantile(lat, 0.5), quantile(lat, 0.99), lat[len(lat)-1], cpu,
			float64(rss0)/(1<<20), float64(rss)/(1<<20))
	}
	lat, _, _, cpu := hammer(t, base+"/metrics", 1, 50)
	t.Logf("/metrics, 50 GETs at 1 connection: p50 %v p99 %v; CPU %v per GET", quantile(lat, 0.5), quantile(lat, 0.99), cpu)

	now := float64(time.Now().Unix())
	fc := fmt.Sprintf("%s/api/v1/forecast?cluster=cluster-042&series=utilization_ratio&start=%.0f&end=%.0f&step=60",
		base, now-86400, now-86400+float64(apiv1.MaxForecastPoints-1)*60)
	rss0 := rssBytes()
	lat, size, rss, cpu := hammer(t, fc, conns, 10*conns)
	t.Logf("forecast of %d points (%d bytes), %d GETs at %d connections: p50 %v p99 %v max %v; CPU %v per GET (client+server); RSS before %.0f MiB, max %.0f MiB",
		apiv1.MaxForecastPoints, size, len(lat), conns, quantile(lat, 0.5), quantile(lat, 0.99), lat[len(lat)-1], cpu,
		float64(rss0)/(1<<20), float64(rss)/(1<<20))
}

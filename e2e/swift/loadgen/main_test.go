package main

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/storcast/storcast/forecaster/conservation"
)

// objectServer speaks the part of the Swift API loadgen uses: tempauth v1.0
// and container/object PUT and GET, keeping objects in memory. failPUT makes
// every object PUT answer 503.
type objectServer struct {
	mu        sync.Mutex
	objects   map[string][]byte
	gets      atomic.Int64
	puts      atomic.Int64
	failPUT   bool
	authCalls atomic.Int64
	authFails int64 // the first authFails logins answer 503
}

func (s *objectServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/auth/v1.0" {
		if s.authCalls.Add(1) <= s.authFails {
			http.Error(w, "memcache late", http.StatusServiceUnavailable)
			return
		}
		if r.Header.Get("X-Storage-User") != "test:tester" || r.Header.Get("X-Storage-Pass") != "testing" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		w.Header().Set("X-Storage-Url", "http://"+r.Host+"/v1/AUTH_test")
		w.Header().Set("X-Auth-Token", "tok")
		return
	}
	if r.Header.Get("X-Auth-Token") != "tok" {
		http.Error(w, "no token", http.StatusUnauthorized)
		return
	}
	parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/v1/AUTH_test/"), "/")
	switch {
	case len(parts) == 1 && r.Method == http.MethodPut: // container
		w.WriteHeader(http.StatusCreated)
	case len(parts) == 2 && r.Method == http.MethodPut:
		if s.failPUT {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.objects[r.URL.Path] = body
		s.mu.Unlock()
		s.puts.Add(1)
		w.WriteHeader(http.StatusCreated)
	case len(parts) == 2 && r.Method == http.MethodGet:
		s.mu.Lock()
		body, ok := s.objects[r.URL.Path]
		s.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		s.gets.Add(1)
		w.Write(body)
	default:
		http.Error(w, "bad request", http.StatusBadRequest)
	}
}

func newServer(t *testing.T) (*objectServer, common) {
	t.Helper()
	s := &objectServer{objects: map[string][]byte{}}
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return s, common{auth: ts.URL + "/auth/v1.0", user: "test:tester", key: "testing", container: "c", objects: 8, timeout: 5 * time.Second}
}

func TestFillThenMixedLoadCountsEachDirection(t *testing.T) {
	s, c := newServer(t)
	c.sizes = "4k,1KiB"
	var errb bytes.Buffer
	args := []string{"-auth", c.auth, "-container", "c", "-objects", "8", "-sizes", c.sizes}
	if err := cmdFill(args, &errb); err != nil {
		t.Fatal(err, errb.String())
	}
	if len(s.objects) != 16 || len(s.objects["/v1/AUTH_test/c/"+objectName(4096, 7)]) != 4096 {
		t.Fatalf("fill stored %d objects, want 8 of each of 2 sizes", len(s.objects))
	}
	cl, err := Connect(c, 4)
	if err != nil {
		t.Fatal(err)
	}
	gets0, puts0 := s.gets.Load(), s.puts.Load()
	j, err := Run(cl, 8, Load{Name: "x", ReadPct: 100, Sizes: []int{4096}, Concurrency: 4, Duration: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if j.Write.TotalIO != 0 || s.puts.Load() != puts0 {
		t.Errorf("100%% GETs issued PUTs: %+v", j.Write)
	}
	if j.Read.TotalIO == 0 || j.Read.TotalIO > s.gets.Load()-gets0 || j.Error != 0 {
		t.Errorf("counted %d GETs, server saw %d, error %d", j.Read.TotalIO, s.gets.Load()-gets0, j.Error)
	}
	if j.Read.BW != j.Read.IOPS*4096 {
		t.Errorf("bandwidth %v, want IOPS*4096 = %v", j.Read.BW, j.Read.IOPS*4096)
	}
	j, err = Run(cl, 8, Load{Name: "w", ReadPct: 0, Sizes: []int{1024}, Concurrency: 2, Duration: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if j.Read.TotalIO != 0 || j.Write.TotalIO == 0 {
		t.Errorf("100%% PUTs: %d GETs, %d PUTs", j.Read.TotalIO, j.Write.TotalIO)
	}
}

// At a rate limit, no more ops are issued than the schedule allows: op n is
// due at n/rate, and none after the end.
func TestRateLimitCapsOps(t *testing.T) {
	s, c := newServer(t)
	c.sizes = "1024"
	cl, err := Connect(c, 8)
	if err != nil {
		t.Fatal(err)
	}
	cl.ensurePayload(1024)
	for i := 0; i < c.objects; i++ {
		if err := cl.put(t.Context(), 1024, i); err != nil {
			t.Fatal(err)
		}
	}
	g0 := s.gets.Load()
	const rate, dur = 40.0, 500 * time.Millisecond
	if _, err := Run(cl, c.objects, Load{Name: "r", ReadPct: 100, Sizes: []int{1024}, Concurrency: 8, Rate: rate, Duration: dur}); err != nil {
		t.Fatal(err)
	}
	if n, max := s.gets.Load()-g0, int64(rate*dur.Seconds())+1; n > max {
		t.Errorf("%d GETs issued at %v ops/s over %v, want at most %d", n, rate, dur, max)
	}
}

func TestFailuresMarkTheRunAsError(t *testing.T) {
	s, c := newServer(t)
	s.failPUT = true
	cl, err := Connect(c, 2)
	if err != nil {
		t.Fatal(err)
	}
	j, err := Run(cl, 4, Load{Name: "f", ReadPct: 0, Sizes: []int{512}, Concurrency: 2, Duration: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if j.Error == 0 || j.Failed == 0 || !strings.Contains(j.FirstError, "503") {
		t.Errorf("every PUT failed but error=%d failed=%d first=%q", j.Error, j.Failed, j.FirstError)
	}
}

func TestBadInputIsNamed(t *testing.T) {
	_, c := newServer(t)
	if _, err := parseSizes("4k,12KB"); err == nil || !strings.Contains(err.Error(), "-sizes") {
		t.Errorf("ambiguous size: err = %v", err)
	}
	bad := c
	bad.key = "wrong"
	if _, err := Connect(bad, 1); err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("wrong key: err = %v", err)
	}
	cl, err := Connect(c, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, ld := range []Load{
		{ReadPct: 101, Sizes: []int{1}, Concurrency: 1, Duration: time.Second},
		{ReadPct: 50, Sizes: []int{1}, Concurrency: 0, Duration: time.Second},
		{ReadPct: 50, Sizes: []int{1}, Concurrency: 1, Rate: -1, Duration: time.Second},
		{ReadPct: 50, Sizes: []int{1}, Concurrency: 1, Duration: time.Second, Ramp: 2 * time.Second},
	} {
		if _, err := Run(cl, 1, ld); err == nil {
			t.Errorf("%+v: no error", ld)
		}
	}
}

// calibrate writes a calibration storcast's importer reads back: per size,
// the GET and PUT figures as the mean of their rounds' runs with the runs
// beside them, and the 50/50 runs as a mixed point; and the runs themselves,
// round by round.
func TestCalibrateWritesWhatStorcastImports(t *testing.T) {
	_, c := newServer(t)
	dir := t.TempDir()
	var errb bytes.Buffer
	if err := cmdFill([]string{"-auth", c.auth, "-container", "c", "-objects", "4", "-sizes", "4k,16k"}, &errb); err != nil {
		t.Fatal(err)
	}
	out, runs := filepath.Join(dir, "cal.yml"), filepath.Join(dir, "runs.json")
	err := cmdCalibrate([]string{"-auth", c.auth, "-container", "c", "-objects", "4", "-sizes", "4k,16k", "-concurrency", "2",
		"-duration", "150ms", "-ramp", "20ms", "-rounds", "2", "-cluster", "e2e", "-out", out, "-runs", runs}, &errb)
	if err != nil {
		t.Fatal(err, errb.String())
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	cal, err := conservation.LoadCalibration(data)
	if err != nil {
		t.Fatalf("calibration does not load: %v\n%s", err, data)
	}
	var res Result
	rdata, _ := os.ReadFile(runs)
	if err := json.Unmarshal(rdata, &res); err != nil {
		t.Fatal(err)
	}
	if len(cal.Points) != 2 || len(cal.Mixed) != 2 || len(res.Jobs) != 12 || cal.Cluster != "e2e" {
		t.Fatalf("%d points, %d mixed, %d runs, cluster %q; want 2, 2, 12 (GET, PUT, 50/50 per size, two rounds), e2e",
			len(cal.Points), len(cal.Mixed), len(res.Jobs), cal.Cluster)
	}
	// Round by round: the second round starts after every point of the first.
	if res.Jobs[0].JobName != "cal-r100-4k" || res.Jobs[6].JobName != "cal-r100-4k" || res.Jobs[5].JobName != "cal-r50-16k" {
		t.Errorf("runs not in rounds: %s, %s, %s", res.Jobs[0].JobName, res.Jobs[5].JobName, res.Jobs[6].JobName)
	}
	byName := map[string][]float64{}
	for _, j := range res.Jobs {
		v := j.Read.IOPS
		switch {
		case strings.HasPrefix(j.JobName, "cal-r0-"):
			v = j.Write.IOPS
		case strings.HasPrefix(j.JobName, "cal-r50-"):
			v = j.Read.IOPS + j.Write.IOPS
		}
		byName[j.JobName] = append(byName[j.JobName], v)
	}
	same := func(a, b []float64) bool { return slices.Equal(a, b) && len(a) == 2 }
	for i, p := range cal.Points {
		n := sizeName(int(p.IOSizeBytes))
		get, put := byName["cal-r100-"+n], byName["cal-r0-"+n]
		if !same(p.ReadRuns, get) || !same(p.WriteRuns, put) || p.ReadIOPS != (get[0]+get[1])/2 || p.WriteIOPS != (put[0]+put[1])/2 {
			t.Errorf("%s: point %+v does not carry the runs' IOPS %v / %v and their means", n, p, get, put)
		}
		m, mixed := cal.Mixed[i], byName["cal-r50-"+n]
		// At the read share the runs did (GETs over all their ops), not the
		// 50% they drew with.
		var reads float64
		for _, j := range res.Jobs {
			if j.JobName == "cal-r50-"+n {
				reads += j.Read.IOPS
			}
		}
		if share := reads / (mixed[0] + mixed[1]); m.IOSizeBytes != p.IOSizeBytes || math.Abs(m.ReadRatio-share) > 1e-12 || !same(m.Runs, mixed) || m.IOPS != (mixed[0]+mixed[1])/2 {
			t.Errorf("%s: mixed point %+v does not carry the 50/50 runs %v, their mean and their read share %v", n, m, mixed, share)
		}
	}
	if err := cmdCalibrate([]string{"-auth", c.auth, "-container", "c", "-sizes", "4k", "-rounds", "0", "-out", out}, &errb); err == nil ||
		err.Error() != "-rounds: must be at least 1, got 0" {
		t.Errorf("-rounds 0: %v", err)
	}
}

// A login answered 503 (the proxy's memcached late) is retried; a 401 is not.
func TestConnectRetriesOnlyServerErrors(t *testing.T) {
	s, c := newServer(t)
	s.authFails = 2
	if _, err := Connect(c, 1); err != nil {
		t.Fatalf("two 503s then success: %v", err)
	}
	if n := s.authCalls.Load(); n != 3 {
		t.Errorf("%d logins, want 3", n)
	}
	s.authCalls.Store(0)
	s.authFails = 0
	bad := c
	bad.key = "wrong"
	if _, err := Connect(bad, 1); err == nil {
		t.Fatal("wrong key accepted")
	}
	if n := s.authCalls.Load(); n != 1 {
		t.Errorf("a 401 was tried %d times, want once", n)
	}
}

// Command loadgen drives an OpenStack Swift cluster through its object API,
// authenticating with tempauth, for the real-Swift end-to-end suite
// (e2e/swift/run.sh). It plays the part fio plays in the Ceph suite.
//
//	loadgen fill      -sizes 4096,65536 -objects 256
//	loadgen run       -name r50 -read-pct 50 -sizes 4096 -concurrency 16 [-rate 400] -duration 40s -out step.json
//	loadgen calibrate -sizes 4096,65536 -duration 15s -rounds 3 -out calibration.yml -runs calibration-runs.json
//
// Every object size has its own key space of -objects objects in one
// container; GETs read a random object of the chosen size, PUTs overwrite
// one, so the data on disk stays bounded however long the load runs.
//
// run writes its result as the subset of fio's JSON output that the scorer
// reads (jobs[].read/write.iops, .lat_ns.mean, jobs[].error), plus the
// failed-request count, so the Ceph and the Swift suites share one step
// reader. calibrate runs saturated 100% GET, 100% PUT and one 50/50 point
// per size, -rounds times over (each round every point once, so a drift of
// the host spreads over the runs of every point rather than landing on one),
// and writes the calibration YAML storcast imports (calibration.file, format
// yaml: each figure the mean of its runs, the runs beside it, the 50/50
// points as mixed points) and the runs themselves as JSON: the README's
// calibration recipe, as calibrate.fio is for Ceph.
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/storcast/storcast/forecaster/conservation"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/stat"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// common holds the connection flags every subcommand takes.
type common struct {
	auth, user, key, container string
	objects                    int
	sizes                      string
	timeout                    time.Duration
}

func (c *common) register(fs *flag.FlagSet) {
	fs.StringVar(&c.auth, "auth", envOr("ST_AUTH", "http://127.0.0.1:8080/auth/v1.0"), "tempauth URL (env ST_AUTH)")
	fs.StringVar(&c.user, "user", envOr("ST_USER", "test:tester"), "tempauth account:user (env ST_USER)")
	fs.StringVar(&c.key, "key", envOr("ST_KEY", "testing"), "tempauth key (env ST_KEY)")
	fs.StringVar(&c.container, "container", "storcast-e2e", "container holding the objects")
	fs.IntVar(&c.objects, "objects", 256, "objects per size (the key space)")
	fs.StringVar(&c.sizes, "sizes", "4096", "object sizes in bytes or 4KiB/4k form, comma-separated; each op picks one at random")
	fs.DurationVar(&c.timeout, "timeout", 30*time.Second, "per-request timeout")
}

// newCommand is a subcommand's flag set with the common flags registered.
func newCommand(name string, stderr io.Writer) (*flag.FlagSet, *common) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	c := &common{}
	c.register(fs)
	return fs, c
}

// parseAndConnect parses args into fs, then returns the object sizes and a
// client with *conc connections (conc is one of fs's flags).
func (c *common) parseAndConnect(fs *flag.FlagSet, args []string, conc *int) ([]int, *Client, error) {
	if err := fs.Parse(args); err != nil {
		return nil, nil, err
	}
	sizes, err := parseSizes(c.sizes)
	if err != nil {
		return nil, nil, err
	}
	cl, err := Connect(*c, *conc)
	if err != nil {
		return nil, nil, err
	}
	return sizes, cl, nil
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

func parseSizes(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		v, err := conservation.ParseSize(f)
		if err != nil {
			return nil, fmt.Errorf("-sizes %q: %v", f, err)
		}
		if v < 1 || v > 1<<30 {
			return nil, fmt.Errorf("-sizes %q: must be between 1 B and 1 GiB", f)
		}
		out = append(out, int(v))
	}
	return out, nil
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage: loadgen fill|run|calibrate [flags]")
		return 2
	}
	var err error
	switch args[0] {
	case "fill":
		err = cmdFill(args[1:], stderr)
	case "run":
		err = cmdRun(args[1:], stdout, stderr)
	case "calibrate":
		err = cmdCalibrate(args[1:], stderr)
	default:
		fmt.Fprintf(stderr, "loadgen: unknown command %q (want fill, run or calibrate)\n", args[0])
		return 2
	}
	if errors.Is(err, flag.ErrHelp) {
		return 2
	}
	if err != nil {
		fmt.Fprintln(stderr, "loadgen "+args[0]+":", err)
		return 1
	}
	return 0
}

// Client is an authenticated Swift account.
type Client struct {
	http      *http.Client
	storage   string // X-Storage-Url
	token     string
	container string
	payload   []byte // random bytes, sliced to the object size
}

// Connect authenticates with tempauth (v1.0: X-Storage-User/X-Storage-Pass)
// and creates the container. A 5xx answer (the proxy's memcached late on a
// busy machine) is retried a few times, as a client would; a 4xx is not.
func Connect(c common, conns int) (*Client, error) {
	var err error
	for try := 0; try < 4; try++ {
		if try > 0 {
			time.Sleep(time.Duration(try) * time.Second)
		}
		var cl *Client
		var retry bool
		if cl, retry, err = connect(c, conns); err == nil || !retry {
			return cl, err
		}
	}
	return nil, err
}

func connect(c common, conns int) (cl *Client, retry bool, err error) {
	tr := &http.Transport{MaxIdleConns: conns * 2, MaxIdleConnsPerHost: conns * 2, IdleConnTimeout: time.Minute}
	hc := &http.Client{Transport: tr, Timeout: c.timeout}
	req, err := http.NewRequest(http.MethodGet, c.auth, nil)
	if err != nil {
		return nil, false, fmt.Errorf("-auth %q: %v", c.auth, err)
	}
	req.Header.Set("X-Storage-User", c.user)
	req.Header.Set("X-Storage-Pass", c.key)
	resp, err := hc.Do(req)
	if err != nil {
		return nil, true, fmt.Errorf("auth: %v", err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return nil, resp.StatusCode >= 500, fmt.Errorf("auth %s as %s: HTTP %s", c.auth, c.user, resp.Status)
	}
	cl = &Client{http: hc, storage: resp.Header.Get("X-Storage-Url"), token: resp.Header.Get("X-Auth-Token"), container: c.container}
	if cl.storage == "" || cl.token == "" {
		return nil, false, fmt.Errorf("auth %s: no X-Storage-Url or X-Auth-Token in the answer", c.auth)
	}
	if code, err := cl.do(context.Background(), http.MethodPut, cl.storage+"/"+c.container, nil); err != nil || code/100 != 2 {
		return nil, err != nil || code >= 500, fmt.Errorf("creating container %s: HTTP %d %v", c.container, code, err)
	}
	return cl, false, nil
}

func (cl *Client) ensurePayload(n int) {
	if len(cl.payload) < n {
		cl.payload = make([]byte, n)
		rand.Read(cl.payload)
	}
}

func objectName(size, i int) string { return fmt.Sprintf("obj-%d-%05d", size, i) }

// do sends one request with body (nil: none) and reads the answer fully.
func (cl *Client) do(ctx context.Context, method, url string, body []byte) (int, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return 0, err
	}
	req.Header.Set("X-Auth-Token", cl.token)
	if body != nil {
		req.ContentLength = int64(len(body))
	}
	resp, err := cl.http.Do(req)
	if err != nil {
		return 0, err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, err
}

func (cl *Client) get(ctx context.Context, size, i int) error {
	code, err := cl.do(ctx, http.MethodGet, cl.storage+"/"+cl.container+"/"+objectName(size, i), nil)
	if err == nil && code != http.StatusOK {
		err = fmt.Errorf("GET: HTTP %d", code)
	}
	return err
}

func (cl *Client) put(ctx context.Context, size, i int) error {
	code, err := cl.do(ctx, http.MethodPut, cl.storage+"/"+cl.container+"/"+objectName(size, i), cl.payload[:size])
	if err == nil && code != http.StatusCreated {
		err = fmt.Errorf("PUT: HTTP %d", code)
	}
	return err
}

func cmdFill(args []string, stderr io.Writer) error {
	fs, c := newCommand("fill", stderr)
	conc := fs.Int("concurrency", 8, "parallel PUTs")
	sizes, cl, err := c.parseAndConnect(fs, args, conc)
	if err != nil {
		return err
	}
	for _, s := range sizes {
		cl.ensurePayload(s)
	}
	type job struct{ size, i int }
	jobs := make(chan job)
	var wg sync.WaitGroup
	var firstErr atomic.Value
	for w := 0; w < *conc; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				var err error
				for try := 0; try < 3; try++ {
					if err = cl.put(context.Background(), j.size, j.i); err == nil {
						break
					}
				}
				if err != nil {
					firstErr.CompareAndSwap(nil, fmt.Errorf("%s: %v", objectName(j.size, j.i), err))
				}
			}
		}()
	}
	for _, s := range sizes {
		for i := 0; i < c.objects; i++ {
			jobs <- job{s, i}
		}
	}
	close(jobs)
	wg.Wait()
	if e := firstErr.Load(); e != nil {
		return e.(error)
	}
	return nil
}

// Load is one load run's shape.
type Load struct {
	Name        string
	ReadPct     int
	Sizes       []int
	Concurrency int
	Rate        float64 // ops/s over both directions; 0: saturated (closed loop)
	Duration    time.Duration
	Ramp        time.Duration // ops completing before this are not counted
}

// dirStats accumulates one direction.
type dirStats struct {
	ops    int64
	latNS  int64 // sum of latencies
	failed int64
	bytes  int64
	maxLat int64
}

// Result is the fio-compatible output of a run.
type Result struct {
	Tool string    `json:"tool"`
	Jobs []JobJSON `json:"jobs"`
}

// JobJSON mirrors the part of a fio job the scorer reads.
type JobJSON struct {
	JobName     string  `json:"jobname"`
	Error       int     `json:"error"`
	ReadPct     int     `json:"read_pct"`
	Sizes       []int   `json:"sizes"`
	Concurrency int     `json:"concurrency"`
	Rate        float64 `json:"rate_ops"`
	Seconds     float64 `json:"seconds"`
	// The measured interval, Unix seconds: ops completing inside it count.
	MeasureStart float64 `json:"measure_start_unix"`
	MeasureEnd   float64 `json:"measure_end_unix"`
	Failed       int64   `json:"failed"`
	FirstError   string  `json:"first_error,omitempty"`
	Read         DirJSON `json:"read"`
	Write        DirJSON `json:"write"`
}

// DirJSON is one direction: completed ops per second and mean latency.
type DirJSON struct {
	IOPS    float64 `json:"iops"`
	BW      float64 `json:"bw_bytes"`
	TotalIO int64   `json:"total_ios"`
	LatNS   struct {
		Mean float64 `json:"mean"`
		Max  float64 `json:"max"`
	} `json:"lat_ns"`
}

// Run drives the load and measures it.
func Run(cl *Client, objects int, ld Load) (JobJSON, error) {
	if ld.ReadPct < 0 || ld.ReadPct > 100 {
		return JobJSON{}, fmt.Errorf("-read-pct: must be 0..100, got %d", ld.ReadPct)
	}
	if ld.Concurrency < 1 {
		return JobJSON{}, fmt.Errorf("-concurrency: must be >= 1, got %d", ld.Concurrency)
	}
	if ld.Rate < 0 {
		return JobJSON{}, fmt.Errorf("-rate: must be >= 0, got %v", ld.Rate)
	}
	if ld.Duration <= ld.Ramp {
		return JobJSON{}, fmt.Errorf("-duration %v must exceed -ramp %v", ld.Duration, ld.Ramp)
	}
	for _, s := range ld.Sizes {
		cl.ensurePayload(s)
	}
	start := time.Now()
	measureFrom := start.Add(ld.Ramp)
	end := start.Add(ld.Duration)
	// Requests still in flight at the end are cancelled (they would not be
	// counted), so a step lasts its duration however slow the cluster is.
	ctx, cancel := context.WithDeadline(context.Background(), end)
	defer cancel()
	var ticket atomic.Int64
	var mu sync.Mutex
	var rd, wr dirStats
	var firstErr string
	var wg sync.WaitGroup
	for w := 0; w < ld.Concurrency; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			rng := mrand.New(mrand.NewPCG(uint64(start.UnixNano()), uint64(w)))
			for {
				if ld.Rate > 0 {
					// Open loop at the rate: op n is due at start + n/rate;
					// a late worker issues at once (no catch-up beyond that).
					due := start.Add(time.Duration(float64(ticket.Add(1)-1) / ld.Rate * float64(time.Second)))
					if due.After(end) {
						return
					}
					if d := time.Until(due); d > 0 {
						time.Sleep(d)
					}
				} else if !time.Now().Before(end) {
					return
				}
				size := ld.Sizes[rng.IntN(len(ld.Sizes))]
				i := rng.IntN(objects)
				isRead := rng.IntN(100) < ld.ReadPct
				t0 := time.Now()
				var err error
				if isRead {
					err = cl.get(ctx, size, i)
				} else {
					err = cl.put(ctx, size, i)
				}
				t1 := time.Now()
				if t0.Before(measureFrom) || t1.After(end) {
					continue
				}
				lat := t1.Sub(t0).Nanoseconds()
				mu.Lock()
				st := &wr
				if isRead {
					st = &rd
				}
				if err != nil {
					st.failed++
					if firstErr == "" {
						firstErr = err.Error()
					}
				} else {
					st.ops++
					st.latNS += lat
					st.bytes += int64(size)
					st.maxLat = max(st.maxLat, lat)
				}
				mu.Unlock()
			}
		}(w)
	}
	wg.Wait()
	secs := end.Sub(measureFrom).Seconds()
	dir := func(s dirStats) DirJSON {
		var d DirJSON
		d.IOPS = float64(s.ops) / secs
		d.BW = float64(s.bytes) / secs
		d.TotalIO = s.ops
		if s.ops > 0 {
			d.LatNS.Mean = float64(s.latNS) / float64(s.ops)
		}
		d.LatNS.Max = float64(s.maxLat)
		return d
	}
	j := JobJSON{JobName: ld.Name, ReadPct: ld.ReadPct, Sizes: ld.Sizes, Concurrency: ld.Concurrency, Rate: ld.Rate,
		Seconds: secs, MeasureStart: float64(measureFrom.UnixNano()) / 1e9, MeasureEnd: float64(end.UnixNano()) / 1e9,
		Failed: rd.failed + wr.failed, FirstError: firstErr, Read: dir(rd), Write: dir(wr)}
	total := rd.ops + wr.ops + j.Failed
	// More than 1% failed requests: the figures are not the cluster's capacity.
	if total == 0 || j.Failed*100 > total {
		j.Error = 1
	}
	return j, nil
}

func cmdRun(args []string, stdout, stderr io.Writer) error {
	fs, c := newCommand("run", stderr)
	name := fs.String("name", "load", "job name in the output")
	readPct := fs.Int("read-pct", 50, "share of GETs, percent (the rest are PUTs)")
	conc := fs.Int("concurrency", 16, "requests in flight (workers)")
	rate := fs.Float64("rate", 0, "ops/s over GETs and PUTs together; 0: saturated")
	dur := fs.Duration("duration", 40*time.Second, "how long to run")
	ramp := fs.Duration("ramp", 2*time.Second, "ops completing before this are not counted")
	out := fs.String("out", "", "JSON result file (default stdout)")
	sizes, cl, err := c.parseAndConnect(fs, args, conc)
	if err != nil {
		return err
	}
	j, err := Run(cl, c.objects, Load{Name: *name, ReadPct: *readPct, Sizes: sizes, Concurrency: *conc, Rate: *rate, Duration: *dur, Ramp: *ramp})
	if err != nil {
		return err
	}
	return writeJSON(*out, stdout, Result{Tool: "storcast e2e/swift loadgen", Jobs: []JobJSON{j}})
}

func writeJSON(path string, stdout io.Writer, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	data = append(data, '\n')
	if path == "" {
		_, err = stdout.Write(data)
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

func cmdCalibrate(args []string, stderr io.Writer) error {
	fs, c := newCommand("calibrate", stderr)
	conc := fs.Int("concurrency", 16, "requests in flight (workers)")
	dur := fs.Duration("duration", 15*time.Second, "length of each run")
	ramp := fs.Duration("ramp", 2*time.Second, "ops completing before this are not counted")
	cluster := fs.String("cluster", "", "cluster name written into the calibration")
	out := fs.String("out", "calibration.yml", "calibration YAML to write")
	runsOut := fs.String("runs", "", "JSON file for every calibration run (GET, PUT and 50/50 per size, every round)")
	rounds := fs.Int("rounds", 1, "how many times every point is run, round by round")
	sizes, cl, err := c.parseAndConnect(fs, args, conc)
	if err != nil {
		return err
	}
	if *rounds < 1 {
		return fmt.Errorf("-rounds: must be at least 1, got %d", *rounds)
	}
	// By size, the runs of each point: 100% GET, 100% PUT, 50/50.
	// mixedReads sums the mixed runs' GET rates: the point's read share is
	// the one the runs did (their draws spread it by about a point).
	type pointRuns struct {
		get, put, mixed []float64
		mixedReads      float64
	}
	bySize := map[int]*pointRuns{}
	var runs []JobJSON
	for range *rounds {
		for _, s := range sizes {
			if bySize[s] == nil {
				bySize[s] = &pointRuns{}
			}
			pr := bySize[s]
			for _, readPct := range []int{100, 0, 50} {
				name := fmt.Sprintf("cal-r%d-%s", readPct, sizeName(s))
				j, err := Run(cl, c.objects, Load{Name: name, ReadPct: readPct, Sizes: []int{s}, Concurrency: *conc, Duration: *dur, Ramp: *ramp})
				if err != nil {
					return err
				}
				if j.Error != 0 {
					return fmt.Errorf("%s: %d of %d requests failed (%s)", name, j.Failed, j.Failed+j.Read.TotalIO+j.Write.TotalIO, j.FirstError)
				}
				fmt.Fprintf(stderr, "%s: %.0f GET/s %.0f PUT/s, mean latency %.1f / %.1f ms\n", name, j.Read.IOPS, j.Write.IOPS,
					j.Read.LatNS.Mean/1e6, j.Write.LatNS.Mean/1e6)
				runs = append(runs, j)
				switch readPct {
				case 100:
					pr.get = append(pr.get, j.Read.IOPS)
				case 0:
					pr.put = append(pr.put, j.Write.IOPS)
				default:
					pr.mixed = append(pr.mixed, j.Read.IOPS+j.Write.IOPS)
					pr.mixedReads += j.Read.IOPS
				}
			}
		}
	}
	source := fmt.Sprintf("e2e/swift loadgen %s, saturated, concurrency %d, %v per run, %d rounds",
		time.Now().UTC().Format("2006-01-02 15:04"), *conc, *dur, *rounds)
	// One run is a figure, not a spread: runs are written only when repeated.
	repeated := func(v []float64) []float64 {
		if len(v) < 2 {
			return nil
		}
		return v
	}
	cal := conservation.Calibration{Cluster: *cluster}
	for _, s := range sizes {
		pr := bySize[s]
		cal.Points = append(cal.Points, conservation.Point{IOSizeBytes: float64(s), ReadIOPS: stat.Mean(pr.get, nil), WriteIOPS: stat.Mean(pr.put, nil),
			ReadRuns: repeated(pr.get), WriteRuns: repeated(pr.put), Source: source})
		share := 0.5
		if total := floats.Sum(pr.mixed); total > 0 {
			share = pr.mixedReads / total
		}
		cal.Mixed = append(cal.Mixed, conservation.MixedPoint{IOSizeBytes: float64(s), ReadRatio: share, IOPS: stat.Mean(pr.mixed, nil),
			Runs: repeated(pr.mixed), Source: source})
	}
	data, err := conservation.MarshalCalibration(cal)
	if err != nil {
		return err
	}
	// What storcast will read: the file must load back as written.
	if _, err := conservation.LoadCalibration(data); err != nil {
		return fmt.Errorf("written calibration does not load: %v", err)
	}
	if err := os.WriteFile(*out, data, 0o644); err != nil {
		return err
	}
	if *runsOut != "" {
		return writeJSON(*runsOut, nil, Result{Tool: "storcast e2e/swift loadgen calibrate", Jobs: runs})
	}
	return nil
}

func sizeName(s int) string {
	if s%1024 == 0 {
		return strconv.Itoa(s/1024) + "k"
	}
	return strconv.Itoa(s)
}

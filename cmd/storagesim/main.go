// Command storagesim serves a simulated Ceph or Swift cluster with known
// ground truth, or writes its history as OpenMetrics text.
//
//	storagesim [serve] --scenario steady --seed 1 --web.listen-address :9283 [--start -7d]
//	storagesim history --scenario growth --duration 7d [--end now] [--step 15s] [--out file]
//	storagesim check --scenario path/to/scenario.yml
//	storagesim scenarios
//
// See the storagesim section of the README and package storagesim.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/prometheus/common/promslog"

	"github.com/storcast/storcast/internal/logflag"
	"github.com/storcast/storcast/storagesim"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	cmd := "serve"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return serve(args, stderr)
	case "history":
		return history(args, stdout, stderr)
	case "check":
		return check(args, stdout, stderr)
	case "scenarios":
		for _, n := range storagesim.ScenarioNames() {
			fmt.Fprintln(stdout, n)
		}
		return 0
	case "help", "-h", "--help":
		fmt.Fprintln(stdout, "usage: storagesim [serve|history|check|scenarios] [flags]; storagesim <command> --help for flags")
		return 0
	}
	fmt.Fprintf(stderr, "storagesim: unknown command %q (want serve, history, check or scenarios)\n", cmd)
	return 2
}

type common struct {
	scenario string
	seed     int64
	log      promslog.Config
}

func (c *common) register(fs *flag.FlagSet) {
	fs.StringVar(&c.scenario, "scenario", "steady", "shipped scenario name ("+strings.Join(storagesim.ScenarioNames(), ", ")+") or path to a YAML file")
	fs.Int64Var(&c.seed, "seed", 1, "seed of the noise, restarts and scrape gaps")
	for _, f := range logflag.Flags(&c.log) {
		fs.Var(f.Value, f.Name, f.Help)
	}
}

// cluster loads the scenario named by --scenario and builds its cluster
// with origin at the given instant.
func (c *common) cluster(origin time.Time) (*storagesim.Scenario, *storagesim.Cluster, error) {
	sc, err := storagesim.LoadScenario(c.scenario)
	if err != nil {
		return nil, nil, err
	}
	cl, err := storagesim.New(sc, c.seed, origin)
	if err != nil {
		return nil, nil, err
	}
	return sc, cl, nil
}

// logger is promslog's logger on w at the flags' level and format.
func (c *common) logger(w io.Writer) *slog.Logger {
	c.log.Writer = w
	return promslog.New(&c.log)
}

func parse(fs *flag.FlagSet, args []string, stderr io.Writer) bool {
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		return false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "storagesim %s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		return false
	}
	return true
}

func serve(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	var c common
	c.register(fs)
	listen := fs.String("web.listen-address", ":9283", "address to listen on for /metrics, /hosts/<host>/metrics, /truth and /sd")
	start := fs.String("start", "now", "the scenario's origin: RFC 3339, Unix seconds, now, or relative like -7d (use the start of a backfilled history to continue it)")
	if !parse(fs, args, stderr) {
		return 2
	}
	log := c.logger(stderr)
	now := time.Now()
	origin, err := storagesim.ParseTime(*start, now)
	if err != nil {
		fmt.Fprintln(stderr, "storagesim: --start:", err)
		return 2
	}
	sc, cl, err := c.cluster(origin)
	if err != nil {
		fmt.Fprintln(stderr, "storagesim:", err)
		return 2
	}
	// Integrate the counters from the origin up to now before the first
	// scrape asks for them (about a second of CPU per simulated week).
	t0 := time.Now()
	cl.Sample(t0)
	log.Debug("counters integrated from the origin", "took", time.Since(t0).Round(time.Millisecond))
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintln(stderr, "storagesim: --web.listen-address:", err)
		return 1
	}
	srv := newServer(cl.Handler())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	log.Info("serving simulated cluster", "scenario", sc.Name, "personality", sc.Personality, "seed", c.seed,
		"origin", cl.Origin().UTC().Format(time.RFC3339), "address", ln.Addr().String())
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Error("server failed", "err", err)
		return 1
	}
	return 0
}

// The HTTP server's timeouts (variables so that tests can shorten them). The
// requests are bodiless GETs, so reading one takes well under readTimeout.
// writeTimeout bounds the handler and the response together: a /metrics or
// /truth that first integrates the counters from an old checkpoint takes
// seconds, and the largest scenario's scrape a second or so on a loaded
// machine. idleTimeout closes a kept-alive connection nobody uses; it is
// longer than any usual scrape interval, so Prometheus keeps reusing its
// connections.
var (
	readHeaderTimeout = 10 * time.Second
	readTimeout       = 30 * time.Second
	writeTimeout      = 2 * time.Minute
	idleTimeout       = 5 * time.Minute
)

// newServer is the HTTP server of storagesim serve: no connection, idle or
// stalled, holds a goroutine for longer than the timeouts above.
func newServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
	}
}

func history(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("history", flag.ContinueOnError)
	var c common
	c.register(fs)
	durStr := fs.String("duration", "7d", "length of the history (e.g. 7d, 36h)")
	endStr := fs.String("end", "now", "last instant: RFC 3339, Unix seconds, now, or relative like -1h")
	startStr := fs.String("start", "", "scenario origin and first instant (default: end - duration)")
	stepStr := fs.String("step", "15s", "interval between samples (the scrape interval)")
	out := fs.String("out", "-", "output file (- for stdout)")
	outDir := fs.String("out-dir", "", "write one file per --block window into this directory instead of --out (fast promtool backfill)")
	blockStr := fs.String("block", "2h", "window of each --out-dir file, aligned to the epoch (promtool 2.x backfills in 2h blocks)")
	if !parse(fs, args, stderr) {
		return 2
	}
	log := c.logger(stderr)
	now := time.Now().Truncate(time.Second)
	end, err := storagesim.ParseTime(*endStr, now)
	if err != nil {
		fmt.Fprintln(stderr, "storagesim history: --end:", err)
		return 2
	}
	dur, err := storagesim.ParseDuration(*durStr)
	if err != nil || dur < 0 {
		fmt.Fprintf(stderr, "storagesim history: --duration: %q is not a non-negative duration\n", *durStr)
		return 2
	}
	step, err := storagesim.ParseDuration(*stepStr)
	if err != nil || step <= 0 {
		fmt.Fprintf(stderr, "storagesim history: --step: %q is not a positive duration\n", *stepStr)
		return 2
	}
	start := end.Add(-dur)
	if *startStr != "" {
		if start, err = storagesim.ParseTime(*startStr, now); err != nil {
			fmt.Fprintln(stderr, "storagesim history: --start:", err)
			return 2
		}
	}
	sc, cl, err := c.cluster(start)
	if err != nil {
		fmt.Fprintln(stderr, "storagesim:", err)
		return 2
	}
	if *outDir != "" {
		block, err := storagesim.ParseDuration(*blockStr)
		if err != nil {
			fmt.Fprintf(stderr, "storagesim history: --block: %q is not a duration\n", *blockStr)
			return 2
		}
		t0 := time.Now()
		files, err := storagesim.WriteHistoryBlocks(*outDir, cl, cl.Origin(), end, step, block)
		if err != nil {
			fmt.Fprintln(stderr, "storagesim history:", err)
			return 1
		}
		log.Info("history written", "scenario", sc.Name, "seed", c.seed, "files", len(files), "dir", *outDir,
			"start", cl.Origin().UTC().Format(time.RFC3339), "end", end.UTC().Format(time.RFC3339), "step", step,
			"took", time.Since(t0).Round(time.Millisecond),
			"continue_with", fmt.Sprintf("storagesim serve --scenario %s --seed %d --start %s", c.scenario, c.seed, cl.Origin().UTC().Format(time.RFC3339)))
		return 0
	}
	w := stdout
	var f *os.File
	if *out != "-" {
		if f, err = os.Create(*out); err != nil {
			fmt.Fprintln(stderr, "storagesim history: --out:", err)
			return 1
		}
		w = f
	}
	t0 := time.Now()
	if err := storagesim.WriteHistory(w, cl, cl.Origin(), end, step); err != nil {
		fmt.Fprintln(stderr, "storagesim history:", err)
		if f != nil {
			f.Close()
		}
		return 1
	}
	if f != nil {
		if err := f.Close(); err != nil {
			fmt.Fprintln(stderr, "storagesim history: --out:", err)
			return 1
		}
	}
	log.Info("history written", "scenario", sc.Name, "seed", c.seed, "start", cl.Origin().UTC().Format(time.RFC3339),
		"end", end.UTC().Format(time.RFC3339), "step", step, "took", time.Since(t0).Round(time.Millisecond),
		"continue_with", fmt.Sprintf("storagesim serve --scenario %s --seed %d --start %s", c.scenario, c.seed, cl.Origin().UTC().Format(time.RFC3339)))
	return 0
}

func check(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	var c common
	c.register(fs)
	if !parse(fs, args, stderr) {
		return 2
	}
	sc, err := storagesim.LoadScenario(c.scenario)
	if err != nil {
		fmt.Fprintln(stderr, "storagesim:", err)
		return 1
	}
	fmt.Fprintf(stdout, "scenario %s (%s): OK\n", sc.Name, sc.Source())
	return 0
}

// Command storcast queries a Prometheus-compatible API for a storage
// cluster's metrics, fits Storcast's models in the background and exposes
// the forecasts as Prometheus series (/metrics), over a JSON API (/api/v1)
// and on a landing page (/). `storcast --demo` runs the same pipeline on an
// embedded simulated cluster.
package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	versioncollector "github.com/prometheus/client_golang/prometheus/collectors/version"
	"github.com/prometheus/common/promslog"
	"github.com/prometheus/common/version"
	"github.com/prometheus/exporter-toolkit/web"
	"github.com/spf13/pflag"
	"gopkg.in/yaml.v3"

	"github.com/storcast/storcast/exporter/api"
	"github.com/storcast/storcast/exporter/collector"
	"github.com/storcast/storcast/exporter/config"
	"github.com/storcast/storcast/exporter/demo"
	"github.com/storcast/storcast/exporter/engine"
	"github.com/storcast/storcast/exporter/models"
	"github.com/storcast/storcast/exporter/source"
	"github.com/storcast/storcast/exporter/state"
	"github.com/storcast/storcast/exporter/ui"
	"github.com/storcast/storcast/forecaster/conservation"
	"github.com/storcast/storcast/internal/boundedread"
	"github.com/storcast/storcast/internal/logflag"
	"github.com/storcast/storcast/storagesim"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr, nil)) }

// run is main with its inputs explicit; stop (may be nil) ends it like
// SIGTERM. It returns the exit code.
func run(args []string, stdout, stderr io.Writer, stop <-chan struct{}) int {
	opts, code, ok := parseFlags(args, stderr)
	if !ok {
		return code
	}
	if opts.showVersion {
		fmt.Fprintln(stdout, version.Print("storcast"))
		return 0
	}
	opts.log.Writer = stderr
	log := promslog.New(&opts.log)

	all, err := loadConfig(opts)
	if err == nil && opts.check {
		err = checkStartUp(opts, all, log)
	}
	if err != nil {
		fmt.Fprintf(stderr, "storcast: configuration: %v\n", err)
		return 1
	}
	// From here on cfg holds only this shard's clusters: the others are
	// neither fetched nor fitted nor exported.
	cfg, shardReport := opts.shard.split(all)
	if opts.check {
		return reportCheck(opts, len(all.Clusters), cfg, stdout, log)
	}
	// Signals are caught from here to the end: a SIGHUP while the saved
	// state loads or the server shuts down would otherwise end the process
	// (Go's default action, with no "stopped" and no clean shutdown). One
	// that arrives before the server is up waits in its channel and is
	// applied then (a reload, or the shutdown). Termination and hangup have
	// a channel each: signal.Notify drops a signal whose channel is full,
	// so with one channel a SIGTERM after a SIGHUP that nothing had read
	// yet (during start-up or a reload) was lost, and storcast never
	// stopped.
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM, syscall.SIGINT)
	defer signal.Stop(term)
	hup := make(chan os.Signal, 1) // one pending reload reads the file as it is by then
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	log.Info("starting storcast", "version", version.Info(), "clusters", len(all.Clusters), "demo", cfg.Demo,
		"shard", opts.shard.index, "shards", opts.shard.total, "assigned", len(cfg.Clusters))

	// The port is bound before anything starts: a second instance on a busy
	// port exits here, before it builds the demo, restores the saved state
	// or starts a loop (it left them running, unstopped, as it returned).
	ln, err := net.Listen("tcp", cfg.Web.ListenAddress)
	if err != nil {
		log.Error("listen", "address", cfg.Web.ListenAddress, "err", err)
		return 1
	}
	defer ln.Close() // for a start-up that fails; once serving, the server's shutdown closes it
	scheme, err := webScheme(cfg.Web.ConfigFile)
	if err != nil {
		log.Error("start-up failed", "err", err)
		return 1
	}
	a, err := newApp(opts, cfg, shardReport, log)
	if err != nil {
		log.Error("start-up failed", "err", err)
		return 1
	}
	a.term, a.hup = term, hup
	if a.demoSrc != nil {
		defer a.demoSrc.Close()
	}
	return a.serveUntilStopped(cfg, ln, scheme, stdout, stop)
}

// checkStartUp does for --config.check what start-up does beyond loading
// the configuration (newApp), without starting anything: the demo's
// scenario is loaded, or the HTTP client to Prometheus is built (TLS files
// that open but do not parse, a CA that is not PEM or a key that does not
// match its certificate, are refused), so that the check does not pass a
// configuration the start would refuse.
func checkStartUp(opts *options, all *config.Config, log *slog.Logger) error {
	if all.Demo {
		if _, err := storagesim.LoadScenario(opts.demoScenario); err != nil {
			return fmt.Errorf("--demo.scenario: %w", err)
		}
		return nil
	}
	_, err := source.NewPrometheus(all.Prometheus, nil, log)
	return err
}

// reportCheck prints what --config.check found (the clusters, and this
// shard's share of them) and, with --config.check.remote, runs each
// cluster's queries once. It returns the exit code.
func reportCheck(opts *options, clusters int, cfg *config.Config, stdout io.Writer, log *slog.Logger) int {
	fmt.Fprintf(stdout, "configuration OK: %d cluster(s)\n", clusters)
	if opts.shard.total > 1 {
		fmt.Fprintf(stdout, "shard %d of %d: %d cluster(s)\n", opts.shard.index, opts.shard.total, len(cfg.Clusters))
	}
	if opts.checkRemote {
		return checkRemote(cfg, stdout, log)
	}
	return 0
}

// serveUntilStopped starts the engine on cfg and the HTTP server on ln,
// serves until a signal, stop or the server's end (see waitForStop), then
// shuts both down. It returns the exit code.
func (a *app) serveUntilStopped(cfg *config.Config, ln net.Listener, scheme string, stdout io.Writer, stop <-chan struct{}) int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a.eng.Start(ctx, cfg)
	a.startProbe(ctx, cfg)

	fmt.Fprintf(stdout, "storcast listening on %s\n", displayURL(ln.Addr(), scheme))
	server := newHTTPServer(a.routes(ctx), defaultServerLimits)
	serveErr := serve(ln, server, cfg.Web.ConfigFile, a.log)

	code := a.waitForStop(ctx, stop, serveErr)

	sctx, scancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer scancel()
	server.Shutdown(sctx)
	cancel()
	a.mu.Lock()
	a.stopProbe()
	a.mu.Unlock()
	a.eng.Stop() // waits for a save in progress: state stays consistent
	a.log.Info("stopped")
	return code
}

// startProbe runs, in the background on cfg, the same probe as
// --config.check.remote, logged: an empty matcher is named at start, not
// found later as "no data". It has a context of its own, which a reload
// cancels (stopProbe).
func (a *app) startProbe(ctx context.Context, cfg *config.Config) {
	src, ok := a.eng.Source().(*source.Prometheus)
	if !ok {
		return
	}
	pctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	a.probeCancel, a.probeDone = cancel, done
	go func() {
		defer close(done)
		probeClusters(pctx, cfg, src, io.Discard, a.log)
	}()
}

// stopProbe cancels the start-up probe and waits for it to end; a.mu is
// held. A reload calls it before Forget: the probe runs on the start's
// cluster list, and one that went on would count the queries of a cluster
// the reload removed into series Forget had just dropped, for good.
func (a *app) stopProbe() {
	if a.probeCancel == nil {
		return
	}
	a.probeCancel()
	<-a.probeDone
	a.probeCancel, a.probeDone = nil, nil
}

// options are the command line's settings other than configuration keys
// (those config.Flags registers on fs and config.Load reads from it).
type options struct {
	fs           *pflag.FlagSet
	configFile   string
	check        bool
	checkRemote  bool
	showVersion  bool
	demoScenario string
	demoAge      time.Duration
	log          promslog.Config
	shardFlags   shardFlags
	shard        shard // resolved from shardFlags
}

// parseFlags parses args; when it returns !ok, run exits with code.
func parseFlags(args []string, stderr io.Writer) (o *options, code int, ok bool) {
	o = &options{fs: pflag.NewFlagSet("storcast", pflag.ContinueOnError)}
	fs := o.fs
	fs.SetOutput(stderr)
	config.Flags(fs)
	fs.BoolVar(&o.check, "config.check", false, "Check the configuration, the files it names and the web config, then exit (0 when valid).")
	fs.BoolVar(&o.checkRemote, "config.check.remote", false, "With --config.check: also run each cluster's queries once against the configured Prometheus and print how many series each selects (exit 1 when the ops or bytes queries select nothing).")
	for _, f := range logflag.Flags(&o.log) {
		fs.Var(f.Value, f.Name, f.Help)
	}
	fs.StringVar(&o.demoScenario, "demo.scenario", "growth", "storagesim scenario of --demo (a shipped name or a YAML path).")
	fs.DurationVar(&o.demoAge, "demo.age", 150*time.Hour, "How long ago the --demo cluster started (its scenario's origin). With growth, 150h puts today's load at 90% of capacity, the latency SLO breach ~20 h ahead and saturation ~30 h ahead.")
	fs.BoolVar(&o.showVersion, "version", false, "Print the version and exit.")
	addShardFlags(fs, &o.shardFlags)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return nil, 0, false
		}
		fmt.Fprintf(stderr, "storcast: %v (storcast --help lists the flags)\n", err)
		return nil, 2, false
	}
	// storcast takes no arguments: "--demo false" leaves "false" over (a
	// boolean flag takes --demo=false) and would run the demo; a file
	// named without --config.file would be ignored.
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "storcast: unexpected argument %q: storcast takes flags only (a boolean flag is set false as --flag=false; the configuration file is --config.file)\n", fs.Arg(0))
		return nil, 2, false
	}
	// Flags that would otherwise be ignored, or start a demo with no data
	// for days, are refused.
	if o.checkRemote && !o.check {
		fmt.Fprintf(stderr, "storcast: --config.check.remote: only with --config.check (it adds the queries' check to it; without, storcast would start serving)\n")
		return nil, 2, false
	}
	if o.demoAge < 0 {
		fmt.Fprintf(stderr, "storcast: --demo.age: %v is negative: it is how long ago the demo cluster started (its scenario's origin would lie in the future, with no data until then)\n", o.demoAge)
		return nil, 2, false
	}
	var err error
	if o.shard, err = o.shardFlags.resolve(fs, osHostname); err != nil {
		fmt.Fprintf(stderr, "storcast: %v\n", err)
		return nil, 2, false
	}
	o.configFile, _ = fs.GetString("config.file")
	return o, 0, true
}

// loadConfig is the configuration as start-up, --config.check and every
// reload see it: decoded and validated, then its files checked.
func loadConfig(o *options) (*config.Config, error) {
	cfg, err := config.Load(o.configFile, o.fs)
	if err != nil {
		return nil, err
	}
	if err := cfg.CheckFiles(); err != nil {
		return nil, err
	}
	return cfg, nil
}

// app is the running exporter: its metrics, source, engine and the
// configuration in force.
type app struct {
	opts       *options
	log        *slog.Logger
	reg        *prometheus.Registry // the process's own series; the forecasts are added by metrics
	metrics    *collector.Exposition
	srcMetrics *source.Metrics
	reloads    *collector.ConfigReload // the outcome of the last load of the configuration
	demoSrc    *demo.Prometheus        // the demo's in-process Prometheus (nil: none)
	eng        *engine.Engine

	mu  sync.Mutex     // serialises reloads; guards cfg, promDigest and the probe's fields
	cfg *config.Config // this shard's clusters only
	// promDigest is settingsDigest of cfg.Prometheus, taken at load.
	promDigest string
	// probeCancel and probeDone are the start-up probe's (nil: none runs).
	probeCancel context.CancelFunc
	probeDone   chan struct{}

	shardReport atomic.Pointer[collector.Shard] // read by scrapes, not held up by a reload

	term <-chan os.Signal // SIGTERM, SIGINT, caught from start-up on (run)
	hup  <-chan os.Signal // SIGHUP, likewise
}

// Shard implements collector.ShardReporter.
func (a *app) Shard() collector.Shard { return *a.shardReport.Load() }

// newApp builds the metrics registry, the source (Prometheus or the demo
// cluster) and the engine for cfg.
func newApp(o *options, cfg *config.Config, shardReport collector.Shard, log *slog.Logger) (_ *app, err error) {
	a := &app{opts: o, log: log, cfg: cfg, promDigest: settingsDigest(cfg.Prometheus), reg: prometheus.NewRegistry(),
		reloads: collector.NewConfigReload(time.Now())}
	a.shardReport.Store(&shardReport)
	a.reg.MustRegister(versioncollector.NewCollector("storcast"), collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), a.reloads)
	if a.srcMetrics, err = source.NewMetrics(a.reg); err != nil {
		return nil, fmt.Errorf("registering metrics: %w", err)
	}
	if cfg.Demo {
		demoSrc, demoErr := demo.New(o.demoScenario, 1, time.Now(), o.demoAge)
		if demoErr != nil {
			return nil, fmt.Errorf("demo: %w", demoErr)
		}
		a.demoSrc = demoSrc
		// run closes it once newApp returns the app; before, a failure
		// here left its temporary directory behind.
		defer func() {
			if err != nil {
				a.demoSrc.Close()
			}
		}()
		if err := prepareDemo(cfg, a.demoSrc); err != nil {
			return nil, fmt.Errorf("demo: %w", err)
		}
	}
	src, err := a.newSource(cfg)
	if err != nil {
		return nil, fmt.Errorf("source: %w", err)
	}
	a.eng = engine.New(engine.Options{Source: src, Fitters: models.All(), Log: log})
	if a.metrics, err = collector.NewExposition(collector.New(a.eng, a, log), a.reg, log); err != nil {
		return nil, err
	}
	return a, nil
}

func (a *app) newSource(c *config.Config) (source.Source, error) {
	if c.Demo {
		return source.NewPrometheusQuerier(a.demoSrc, c.Prometheus, a.srcMetrics, a.log), nil
	}
	return source.NewPrometheus(c.Prometheus, a.srcMetrics, a.log)
}

// reload loads the configuration again and applies it, or returns why not
// and keeps the running one; either way its outcome is exported
// (storcast_config_last_reload_successful). The listener and its web
// config are set up once: a change of either is refused rather than
// reported as applied.
func (a *app) reload(ctx context.Context) (err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	defer func() { a.reloads.Record(err, time.Now()) }()
	all, err := loadConfig(a.opts)
	if err != nil {
		return err
	}
	nc, shardReport := a.opts.shard.split(all)  // the shard flags stay: only the cluster list can change
	promDigest := settingsDigest(nc.Prometheus) // before anything uses it (see settingsDigest)
	if nc.Web.ListenAddress != a.cfg.Web.ListenAddress {
		return fmt.Errorf("web.listen_address: changed from %q to %q; a reload does not move the listener: restart storcast to apply it", a.cfg.Web.ListenAddress, nc.Web.ListenAddress)
	}
	if nc.Web.ConfigFile != a.cfg.Web.ConfigFile {
		return fmt.Errorf("web.config_file: changed from %q to %q; a reload does not change the listener's web config file: restart storcast to apply it (edits inside the file apply at once)", a.cfg.Web.ConfigFile, nc.Web.ConfigFile)
	}
	if nc.Demo && !a.cfg.Demo {
		return errors.New("demo: cannot be switched on by a reload")
	}
	if nc.Demo {
		if err := prepareDemo(nc, a.demoSrc); err != nil {
			return err
		}
	}
	// The same query backend keeps its source, so that the loops of
	// unchanged clusters keep running (engine.Start); the demo switched
	// off is another backend. The section kept is the running one, the
	// source's: the engine compares it with reflect.DeepEqual, which finds
	// the same pointers equal without reading what the source writes
	// behind them.
	if nc.Demo != a.cfg.Demo || promDigest != a.promDigest {
		s, err := a.newSource(nc)
		if err != nil {
			return err
		}
		a.eng.SetSource(s)
	} else {
		nc.Prometheus = a.cfg.Prometheus
	}
	kept := a.eng.Start(ctx, nc)
	probing := a.probeCancel != nil
	a.stopProbe()
	a.srcMetrics.Forget(removedClusters(a.cfg, nc))
	a.cfg, a.promDigest = nc, promDigest
	if probing {
		// The probe ended before it reached every cluster: it runs again on
		// the new list, so that none loses its start-up diagnostics.
		a.startProbe(ctx, nc)
	}
	a.shardReport.Store(&shardReport)
	a.log.Info("configuration reloaded", "clusters", len(all.Clusters), "assigned", len(nc.Clusters), "unchanged_kept_running", kept)
	return nil
}

// removedClusters lists the clusters of old that next no longer has.
func removedClusters(old, next *config.Config) []string {
	keep := map[string]bool{}
	for _, c := range next.Clusters {
		keep[c.Name] = true
	}
	var out []string
	for _, c := range old.Clusters {
		if !keep[c.Name] {
			out = append(out, c.Name)
		}
	}
	return out
}

// routes is the HTTP API: /metrics, /api/v1, the probes, /-/reload and the
// landing page.
func (a *app) routes(ctx context.Context) http.Handler {
	log := a.log
	svc := api.NewService(a.eng)
	mux := http.NewServeMux()
	mux.Handle("/metrics", a.metrics)
	mux.Handle("/api/v1/", svc.Handler(log))
	mux.HandleFunc("/-/healthy", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, "Healthy") })
	mux.HandleFunc("/-/ready", func(w http.ResponseWriter, r *http.Request) {
		// A shard the configuration gives no cluster has nothing to wait
		// for: not ready, its StatefulSet would never roll out.
		if s := a.Shard(); s.Total > 1 && len(s.Assigned) == 0 {
			fmt.Fprintln(w, "Ready: no cluster is assigned to this shard")
			return
		}
		if !a.eng.Ready() {
			http.Error(w, "Not ready: no cluster refreshed yet", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "Ready")
	})
	// Cross-origin protection: a page on another site (a plain HTML form,
	// which needs no preflight) must not make an operator's browser reload
	// storcast; curl and Prometheus-style tooling send no Origin and pass.
	mux.Handle("/-/reload", http.NewCrossOriginProtection().Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost && r.Method != http.MethodPut {
			w.Header().Set("Allow", "POST, PUT")
			http.Error(w, "use POST or PUT", http.StatusMethodNotAllowed)
			return
		}
		if err := a.reload(ctx); err != nil {
			log.Error("reload failed; keeping the running configuration", "err", err)
			http.Error(w, "reload failed: "+err.Error(), http.StatusInternalServerError)
			return
		}
		fmt.Fprintln(w, "Reloaded")
	})))
	mux.Handle("/", ui.NewHandler(svc))
	return mux
}

// serve runs server on ln through exporter-toolkit (TLS and basic auth from
// the web config file); the returned channel gets its end.
func serve(ln net.Listener, server *http.Server, webConfig string, log *slog.Logger) <-chan error {
	serveErr := make(chan error, 1)
	go func() {
		serveErr <- web.Serve(ln, server, &web.FlagConfig{WebConfigFile: &webConfig}, log)
	}()
	return serveErr
}

// waitForStop reloads on SIGHUP and returns the exit code at SIGTERM,
// SIGINT, stop or the end of the HTTP server. A stop pending beside a
// SIGHUP (both sent during start-up, or a SIGTERM during a reload, which
// waits in its own channel meanwhile) goes first: no reload before it.
func (a *app) waitForStop(ctx context.Context, stop <-chan struct{}, serveErr <-chan error) int {
	for {
		select {
		case s := <-a.term:
			a.log.Info("shutting down", "signal", s.String())
			return 0
		case <-stop:
			return 0
		default:
		}
		select {
		case s := <-a.term:
			a.log.Info("shutting down", "signal", s.String())
			return 0
		case <-stop:
			return 0
		case err := <-serveErr:
			if !errors.Is(err, http.ErrServerClosed) {
				a.log.Error("HTTP server failed", "err", err)
				return 1
			}
			return 0
		case <-a.hup:
			if err := a.reload(ctx); err != nil {
				a.log.Error("reload failed; keeping the running configuration", "err", err)
			}
		}
	}
}

// prepareDemo points the demo cluster at the scenario's benchmark
// calibration, written to the state directory.
func prepareDemo(cfg *config.Config, src *demo.Prometheus) error {
	if err := os.MkdirAll(cfg.StateDir, 0o755); err != nil {
		return err
	}
	data, err := conservation.MarshalCalibration(src.Calibration())
	if err != nil {
		return err
	}
	path := filepath.Join(cfg.StateDir, "demo-calibration.yml")
	// Replaced atomically: a fit running during a reload re-reads it.
	if err := state.WriteFile(path, data); err != nil {
		return err
	}
	for i := range cfg.Clusters {
		if cfg.Clusters[i].Calibration.File == "" {
			cfg.Clusters[i].Calibration.File = path
		}
		if len(cfg.Clusters[i].Hosts.Roles) == 0 {
			cfg.Clusters[i].Hosts.Roles = []config.Role{{Name: "osd"}}
		}
		cfg.Clusters[i].LatencySLO.Threshold = time.Duration(src.Cluster.Scenario().SLOSeconds * float64(time.Second))
	}
	// The demo Prometheus keeps demo.MaxLookback of history (see there).
	if cfg.Fit.Lookback > demo.MaxLookback {
		cfg.Fit.Lookback = demo.MaxLookback
	}
	if cfg.Fit.RefreshInterval > 15*time.Second {
		cfg.Fit.RefreshInterval = 15 * time.Second
	}
	return nil
}

// displayURL is the URL printed at start: scheme (webScheme) and the
// listener's address, a wildcard host shown as loopback.
func displayURL(a net.Addr, scheme string) string {
	host, port, _ := net.SplitHostPort(a.String())
	if host == "" || host == "::" || host == "0.0.0.0" {
		host = "127.0.0.1"
	}
	return fmt.Sprintf("%s://%s/", scheme, net.JoinHostPort(host, port))
}

// webScheme is the scheme exporter-toolkit serves with the web config file
// at path: https when its tls_server_config enables TLS, http otherwise (a
// file with basic auth alone is served in plain HTTP, and no file too).
func webScheme(path string) (string, error) {
	if path == "" {
		return "http", nil
	}
	data, err := boundedread.Read(path, config.MaxFileBytes, "a web config file")
	if err != nil {
		return "", fmt.Errorf("web.config_file: %w", err)
	}
	var c web.Config
	if err := yaml.Unmarshal(data, &c); err != nil {
		return "", fmt.Errorf("web.config_file: %s: %v", path, err)
	}
	if c.TLSConfig.IsEnabled() {
		return "https", nil
	}
	return "http", nil
}

// settingsDigest is the SHA-256 of v's settings (writeSettings), taken at
// load. A reload compares the prometheus section by it rather than with
// reflect.DeepEqual on the running struct: prometheus/common's OAuth2 round
// tripper stores a proxy func in the *OAuth2 that the running
// configuration shares with its source at the first token fetch, so the
// running section never equalled a freshly loaded one (every reload
// restarted every loop) and reading it raced with that write. Its YAML or
// JSON would not do: prometheus/common writes secrets as <secret>, and a
// changed password would compare equal.
func settingsDigest(v any) string {
	h := sha256.New()
	writeSettings(h, reflect.ValueOf(v))
	return hex.EncodeToString(h.Sum(nil))
}

// writeSettings writes v to w unambiguously: every field, unexported ones
// too (a proxy URL's password is in url.Userinfo's), pointers followed,
// map entries in the order of their keys' encoding; funcs and channels,
// run-time state rather than settings, are left out. The configuration
// holds no cycle.
func writeSettings(w io.Writer, v reflect.Value) {
	switch v.Kind() {
	case reflect.Invalid, reflect.Func, reflect.Chan, reflect.UnsafePointer:
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			io.WriteString(w, "nil;")
			return
		}
		if v.Kind() == reflect.Interface {
			fmt.Fprintf(w, "%s:", v.Elem().Type())
		}
		writeSettings(w, v.Elem())
	case reflect.Struct:
		io.WriteString(w, "{")
		for i := range v.NumField() {
			fmt.Fprintf(w, "%s:", v.Type().Field(i).Name)
			writeSettings(w, v.Field(i))
		}
		io.WriteString(w, "}")
	case reflect.Slice, reflect.Array:
		fmt.Fprintf(w, "[%d:", v.Len())
		for i := range v.Len() {
			writeSettings(w, v.Index(i))
		}
		io.WriteString(w, "]")
	case reflect.Map:
		entries := make([][2]string, 0, v.Len())
		for it := v.MapRange(); it.Next(); {
			var k, e strings.Builder
			writeSettings(&k, it.Key())
			writeSettings(&e, it.Value())
			entries = append(entries, [2]string{k.String(), e.String()})
		}
		slices.SortFunc(entries, func(x, y [2]string) int { return strings.Compare(x[0], y[0]) })
		fmt.Fprintf(w, "map[%d:", len(entries))
		for _, e := range entries {
			io.WriteString(w, e[0]+e[1])
		}
		io.WriteString(w, "]")
	case reflect.String:
		fmt.Fprintf(w, "%q;", v.String())
	case reflect.Bool:
		fmt.Fprintf(w, "%t;", v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		fmt.Fprintf(w, "%d;", v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		fmt.Fprintf(w, "%d;", v.Uint())
	case reflect.Float32, reflect.Float64:
		fmt.Fprintf(w, "%s;", strconv.FormatFloat(v.Float(), 'g', -1, 64))
	case reflect.Complex64, reflect.Complex128:
		fmt.Fprintf(w, "%v;", v.Complex())
	}
}

// Command storcast queries a Prometheus-compatible API for a storage
// cluster's metrics, fits Storcast's models in the background and exposes
// the forecasts as Prometheus series (/metrics), over a JSON API (/api/v1)
// and on a landing page (/). `storcast --demo` runs the same pipeline on an
// embedded simulated cluster.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	versioncollector "github.com/prometheus/client_golang/prometheus/collectors/version"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/common/version"
	"github.com/prometheus/exporter-toolkit/web"
	"github.com/spf13/pflag"

	"github.com/storcast/storcast/exporter/api"
	"github.com/storcast/storcast/exporter/collector"
	"github.com/storcast/storcast/exporter/config"
	"github.com/storcast/storcast/exporter/demo"
	"github.com/storcast/storcast/exporter/engine"
	"github.com/storcast/storcast/exporter/models"
	"github.com/storcast/storcast/exporter/source"
	"github.com/storcast/storcast/exporter/ui"
	"github.com/storcast/storcast/forecaster/conservation"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr, nil)) }

// run is main with its inputs explicit; stop (may be nil) ends it like
// SIGTERM. It returns the exit code.
func run(args []string, stdout, stderr io.Writer, stop <-chan struct{}) int {
	fs := pflag.NewFlagSet("storcast", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	config.Flags(fs)
	check := fs.Bool("config.check", false, "Check the configuration and exit (0 when valid).")
	logLevel := fs.String("log.level", "info", "Log level: debug, info, warn or error.")
	logFormat := fs.String("log.format", "logfmt", "Log format: logfmt or json.")
	demoScenario := fs.String("demo.scenario", "growth", "storagesim scenario of --demo (a shipped name or a YAML path).")
	demoAge := fs.Duration("demo.age", 150*time.Hour, "How long ago the --demo cluster started (its scenario's origin). With growth, 150h puts today's load at 90% of capacity, the latency SLO breach ~20 h ahead and saturation ~30 h ahead.")
	showVersion := fs.Bool("version", false, "Print the version and exit.")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *showVersion {
		fmt.Fprintln(stdout, version.Print("storcast"))
		return 0
	}
	log, err := newLogger(stderr, *logLevel, *logFormat)
	if err != nil {
		fmt.Fprintln(stderr, "storcast:", err)
		return 2
	}
	configFile, _ := fs.GetString("config.file")
	load := func() (*config.Config, error) { return config.Load(configFile, fs) }
	cfg, err := load()
	if err != nil {
		fmt.Fprintf(stderr, "storcast: configuration: %v\n", err)
		return 1
	}
	if *check {
		fmt.Fprintf(stdout, "configuration OK: %d cluster(s)\n", len(cfg.Clusters))
		return 0
	}
	log.Info("starting storcast", "version", version.Info(), "clusters", len(cfg.Clusters), "demo", cfg.Demo)

	reg := prometheus.NewRegistry()
	reg.MustRegister(versioncollector.NewCollector("storcast"), collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	srcMetrics, err := source.NewMetrics(reg)
	if err != nil {
		log.Error("registering metrics", "err", err)
		return 1
	}

	var demoSrc *demo.Prometheus
	newSource := func(c *config.Config) (source.Source, error) {
		if c.Demo {
			return source.NewPrometheusQuerier(demoSrc, c.Prometheus, srcMetrics, log), nil
		}
		return source.NewPrometheus(c.Prometheus, srcMetrics, log)
	}
	if cfg.Demo {
		demoSrc, err = demo.New(*demoScenario, 1, time.Now(), *demoAge)
		if err != nil {
			log.Error("demo", "err", err)
			return 1
		}
		defer demoSrc.Close()
		if err := prepareDemo(cfg, demoSrc); err != nil {
			log.Error("demo", "err", err)
			return 1
		}
	}
	src, err := newSource(cfg)
	if err != nil {
		log.Error("source", "err", err)
		return 1
	}
	eng := engine.New(engine.Options{Source: src, Latency: models.MLISP{}, Trend: models.DemandTrend{}, Log: log})
	reg.MustRegister(collector.New(eng, log))

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	eng.Start(ctx, cfg)

	var reloadMu sync.Mutex
	reload := func() error {
		reloadMu.Lock()
		defer reloadMu.Unlock()
		nc, err := load()
		if err != nil {
			return err
		}
		if nc.Demo && !cfg.Demo {
			return errors.New("demo: cannot be switched on by a reload")
		}
		if nc.Demo {
			if err := prepareDemo(nc, demoSrc); err != nil {
				return err
			}
		}
		s, err := newSource(nc)
		if err != nil {
			return err
		}
		eng.SetSource(s)
		eng.Start(ctx, nc)
		cfg = nc
		log.Info("configuration reloaded", "clusters", len(nc.Clusters))
		return nil
	}

	svc := api.NewService(eng)
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelError)}))
	mux.Handle("/api/v1/", svc.Handler(log))
	mux.HandleFunc("/-/healthy", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, "Healthy") })
	mux.HandleFunc("/-/ready", func(w http.ResponseWriter, r *http.Request) {
		if !eng.Ready() {
			http.Error(w, "Not ready: no cluster refreshed yet", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "Ready")
	})
	mux.HandleFunc("/-/reload", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost && r.Method != http.MethodPut {
			http.Error(w, "use POST", http.StatusMethodNotAllowed)
			return
		}
		if err := reload(); err != nil {
			log.Error("reload failed; keeping the running configuration", "err", err)
			http.Error(w, "reload failed: "+err.Error(), http.StatusInternalServerError)
			return
		}
		fmt.Fprintln(w, "Reloaded")
	})
	mux.Handle("/", ui.NewHandler(svc))

	ln, err := net.Listen("tcp", cfg.Web.ListenAddress)
	if err != nil {
		log.Error("listen", "address", cfg.Web.ListenAddress, "err", err)
		return 1
	}
	fmt.Fprintf(stdout, "storcast listening on %s\n", displayURL(ln.Addr(), cfg.Web.ConfigFile != ""))
	server := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	webConfig := cfg.Web.ConfigFile
	serveErr := make(chan error, 1)
	go func() {
		serveErr <- web.Serve(ln, server, &web.FlagConfig{WebConfigFile: &webConfig}, log)
	}()

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGHUP, syscall.SIGTERM, syscall.SIGINT)
	defer signal.Stop(sig)
	code := 0
loop:
	for {
		select {
		case s := <-sig:
			if s == syscall.SIGHUP {
				if err := reload(); err != nil {
					log.Error("reload failed; keeping the running configuration", "err", err)
				}
				continue
			}
			log.Info("shutting down", "signal", s.String())
			break loop
		case <-stop:
			break loop
		case err := <-serveErr:
			if !errors.Is(err, http.ErrServerClosed) {
				log.Error("HTTP server failed", "err", err)
				code = 1
			}
			break loop
		}
	}
	sctx, scancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer scancel()
	server.Shutdown(sctx)
	cancel()
	eng.Stop() // waits for a save in progress: state stays consistent
	log.Info("stopped")
	return code
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
	if err := os.WriteFile(path, data, 0o644); err != nil {
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

func displayURL(a net.Addr, tls bool) string {
	host, port, _ := net.SplitHostPort(a.String())
	if host == "" || host == "::" || host == "0.0.0.0" {
		host = "127.0.0.1"
	}
	scheme := "http"
	if tls {
		scheme = "https"
	}
	return fmt.Sprintf("%s://%s/", scheme, net.JoinHostPort(host, port))
}

func newLogger(w io.Writer, level, format string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log.level: %q is not one of debug, info, warn, error", level)
	}
	opts := &slog.HandlerOptions{Level: l}
	switch strings.ToLower(format) {
	case "logfmt", "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("--log.format: %q is not logfmt or json", format)
}

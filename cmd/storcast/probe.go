package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/storcast/storcast/exporter/config"
	"github.com/storcast/storcast/exporter/engine"
	"github.com/storcast/storcast/exporter/source"
)

// probeRange is the span each cluster's queries are probed over: the last
// ten minutes at the fit step (at most 60 points).
func probeRange(cfg *config.Config, now time.Time) source.Range {
	step := max(cfg.Fit.Step, 10*time.Second)
	end := now.Truncate(step)
	return source.Range{Start: end.Add(-10 * time.Minute), End: end, Step: step}
}

// probeClusters runs each cluster's queries once against the configured
// Prometheus and reports, per cluster, how many series each selects,
// naming the empty and failing ones. Each cluster has the deadline of a
// fit's fetch (engine.FitFetchDeadline), its own: one shared by all let a
// query that kept timing out on the first cluster fail every query of the
// clusters after it. Cancelled (the start-up probe, by a reload or the
// shutdown), it probes no further cluster and reports none whose probe it
// cut short. It returns how many required queries (the ops and bytes
// signals) selected nothing and how many failed.
func probeClusters(ctx context.Context, cfg *config.Config, src *source.Prometheus, w io.Writer, log *slog.Logger) (empty, failed int) {
	r := probeRange(cfg, time.Now())
	for i := range cfg.Clusters {
		cl := &cfg.Clusters[i]
		var probes []source.Probe
		if ctx.Err() == nil {
			cctx, cancel := context.WithTimeout(ctx, engine.FitFetchDeadline(cfg))
			probes = src.ProbeCluster(cctx, cl, r)
			cancel()
		}
		if ctx.Err() != nil {
			// The failures of a probe cut short are the cancellation's.
			log.Info("probe: cancelled", "cluster", cl.Name)
			break
		}
		emptyOrFailed := 0
		for _, p := range probes {
			name := p.Signal
			if p.Role != "" {
				name = "host " + p.Role + "/" + p.Signal
			}
			switch {
			case p.Err != nil:
				emptyOrFailed++
				if p.Required() {
					failed++
				}
				log.Warn("probe: query failed", "cluster", cl.Name, "query", name, "promql", p.Query, "err", p.Err)
				fmt.Fprintf(w, "%s\t%s\tFAILED: %v\t%s\n", cl.Name, name, p.Err, p.Query)
			case p.Series == 0:
				emptyOrFailed++
				if p.Required() {
					empty++
				}
				log.Warn("probe: query selects no series", "cluster", cl.Name, "query", name, "promql", p.Query)
				fmt.Fprintf(w, "%s\t%s\tEMPTY\t%s\n", cl.Name, name, p.Query)
			default:
				fmt.Fprintf(w, "%s\t%s\t%d series\n", cl.Name, name, p.Series)
			}
		}
		log.Info("probe: cluster queries", "cluster", cl.Name, "queries", len(probes), "empty_or_failed", emptyOrFailed)
	}
	return empty, failed
}

// checkRemote is --config.check --config.check.remote: the probe, printed;
// exit code 1 when a required query selects nothing or fails.
func checkRemote(cfg *config.Config, stdout io.Writer, log *slog.Logger) int {
	if cfg.Demo {
		fmt.Fprintln(stdout, "remote check: --demo has no remote Prometheus")
		return 0
	}
	src, err := source.NewPrometheus(cfg.Prometheus, nil, log)
	if err != nil {
		fmt.Fprintf(stdout, "remote check: %v\n", err)
		return 1
	}
	empty, failed := probeClusters(context.Background(), cfg, src, stdout, log)
	if empty > 0 {
		fmt.Fprintf(stdout, "remote check: %d required queries (ops or bytes) select nothing: the cluster's matchers select no series there\n", empty)
	}
	if failed > 0 {
		fmt.Fprintf(stdout, "remote check: %d required queries (ops or bytes) failed: see the errors above (prometheus.url, its authentication, prometheus.timeout)\n", failed)
	}
	if empty+failed > 0 {
		return 1
	}
	fmt.Fprintln(stdout, "remote check OK")
	return 0
}

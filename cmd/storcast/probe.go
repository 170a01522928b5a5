package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/storcast/storcast/exporter/config"
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
// naming the empty and failing ones. It returns the number of required
// queries (the ops and bytes signals) that selected nothing or failed.
func probeClusters(ctx context.Context, cfg *config.Config, src *source.Prometheus, w io.Writer, log *slog.Logger) int {
	bad := 0
	r := probeRange(cfg, time.Now())
	for i := range cfg.Clusters {
		cl := &cfg.Clusters[i]
		probes := src.ProbeCluster(ctx, cl, r)
		empty := 0
		for _, p := range probes {
			name := p.Signal
			if p.Role != "" {
				name = "host " + p.Role + "/" + p.Signal
			}
			switch {
			case p.Err != nil:
				empty++
				log.Warn("probe: query failed", "cluster", cl.Name, "query", name, "promql", p.Query, "err", p.Err)
				fmt.Fprintf(w, "%s\t%s\tFAILED: %v\t%s\n", cl.Name, name, p.Err, p.Query)
			case p.Series == 0:
				empty++
				log.Warn("probe: query selects no series", "cluster", cl.Name, "query", name, "promql", p.Query)
				fmt.Fprintf(w, "%s\t%s\tEMPTY\t%s\n", cl.Name, name, p.Query)
			default:
				fmt.Fprintf(w, "%s\t%s\t%d series\n", cl.Name, name, p.Series)
			}
			if (p.Err != nil || p.Series == 0) && p.Required() {
				bad++
			}
		}
		log.Info("probe: cluster queries", "cluster", cl.Name, "queries", len(probes), "empty_or_failed", empty)
	}
	return bad
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
	ctx, cancel := context.WithTimeout(context.Background(), 4*cfg.Prometheus.Timeout)
	defer cancel()
	if bad := probeClusters(ctx, cfg, src, stdout, log); bad > 0 {
		fmt.Fprintf(stdout, "remote check: %d required queries (ops or bytes) select nothing or fail: the cluster's matchers select no series there\n", bad)
		return 1
	}
	fmt.Fprintln(stdout, "remote check OK")
	return 0
}

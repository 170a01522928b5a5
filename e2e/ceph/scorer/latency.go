package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/storcast/storcast/exporter/config"
	"github.com/storcast/storcast/exporter/models"
	"github.com/storcast/storcast/exporter/source"
	"github.com/storcast/storcast/forecaster/conservation"
)

// runLatencyRecord writes the record the capacity-anchored latency model
// learns from (models.QueueingRecord) over a time range, for the first
// cluster of a storcast config file: fetched and placed on the frontier by
// storcast's own config, source, capacity fitter and queueing fitter. e2e/ceph/latency-record.sh runs it on an archived run at the
// what-if snapshot's lookback; the records refit offline in
// exporter/models (TestRecordedLatencyRecomputed).
func runLatencyRecord(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("latency-record", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfgFile := fs.String("config", "", "storcast config file (its first cluster)")
	start := fs.Int64("start", 0, "range start, Unix seconds")
	end := fs.Int64("end", 0, "range end, Unix seconds")
	step := fs.Duration("step", 3*time.Second, "fit step (the what-if snapshot's)")
	out := fs.String("out", "", "JSON file to write")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *cfgFile == "" || *out == "" || !(*start > 0) || !(*end > *start) {
		fmt.Fprintln(stderr, "scorer latency-record: -config, -out and -start < -end are required")
		return 2
	}
	rec, err := latencyRecord(*cfgFile, time.Unix(*start, 0), time.Unix(*end, 0), *step)
	if err != nil {
		fmt.Fprintln(stderr, "scorer latency-record:", err)
		return 1
	}
	if err := writeRecord(*out, rec); err != nil {
		fmt.Fprintln(stderr, "scorer latency-record:", err)
		return 1
	}
	fmt.Fprintf(stdout, "%s: %d windows\n", *out, len(rec.Samples))
	return 0
}

func latencyRecord(cfgFile string, start, end time.Time, step time.Duration) (models.QueueingRecord, error) {
	cfg, src, err := recordSource(cfgFile)
	if err != nil {
		return models.QueueingRecord{}, err
	}
	cl := &cfg.Clusters[0]
	ctx := context.Background()
	frame, err := src.Fetch(ctx, cl, source.Range{Start: start, End: end, Step: step})
	if err != nil {
		return models.QueueingRecord{}, err
	}
	in := models.Input{Cluster: cl, Frame: frame, Fitted: models.Set{}}
	capm, err := models.CapacityFitter{Estimate: conservation.EstimateOptions{Interference: true}}.Fit(ctx, in) // as cmd/storcast
	if err != nil {
		return models.QueueingRecord{}, fmt.Errorf("capacity: %w", err)
	}
	in.Fitted[models.Conservation] = capm
	return models.QueueingRecordOf(in) // at the mix of the last window the frontier places
}

// recordSource is a storcast config file with at least one cluster and the
// Prometheus source storcast would query: the records read an archived run
// through storcast's own config and source, for its first cluster.
func recordSource(cfgFile string) (*config.Config, *source.Prometheus, error) {
	cfg, err := config.Load(cfgFile, nil)
	if err != nil {
		return nil, nil, err
	}
	if len(cfg.Clusters) == 0 {
		return nil, nil, fmt.Errorf("%s: no cluster", cfgFile)
	}
	src, err := source.NewPrometheus(cfg.Prometheus, nil, slog.New(slog.DiscardHandler))
	if err != nil {
		return nil, nil, err
	}
	return cfg, src, nil
}

// writeRecord writes v as indented JSON to out.
func writeRecord(out string, v any) error {
	data, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(out, append(data, '\n'), 0o644)
}

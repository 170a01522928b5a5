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
	"github.com/storcast/storcast/exporter/features"
	"github.com/storcast/storcast/exporter/models"
	"github.com/storcast/storcast/exporter/source"
	"github.com/storcast/storcast/forecaster/conservation"
)

// runLatencyRecord writes the record a latency model learns from over a time
// range, for the first cluster of a storcast config file, by storcast's own
// config and source. -model queueing (the default): the capacity-anchored
// model's windows (models.QueueingRecord), placed on the frontier by
// storcast's capacity fitter; the records refit offline in exporter/models
// (TestRecordedLatencyRecomputed). -model mlisp: the columns M-LISP's fitter
// receives (MLISPRecord); they refit offline in forecaster/mlisp
// (TestRecordedCephWalk). e2e/ceph/latency-record.sh runs it on an archived
// run at the snapshots' lookback.
func runLatencyRecord(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("latency-record", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfgFile := fs.String("config", "", "storcast config file (its first cluster)")
	start := fs.Int64("start", 0, "range start, Unix seconds")
	end := fs.Int64("end", 0, "range end, Unix seconds")
	step := fs.Duration("step", 3*time.Second, "fit step (the snapshots')")
	model := fs.String("model", "queueing", "the latency model whose record to write: queueing or mlisp")
	out := fs.String("out", "", "JSON file to write")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *cfgFile == "" || *out == "" || !(*start > 0) || !(*end > *start) || (*model != "queueing" && *model != "mlisp") {
		fmt.Fprintln(stderr, "scorer latency-record: -config, -out, -start < -end and -model queueing or mlisp are required")
		return 2
	}
	from, to := time.Unix(*start, 0), time.Unix(*end, 0)
	var rec any
	var n int
	var err error
	if *model == "mlisp" {
		var r MLISPRecord
		if r, err = mlispRecord(*cfgFile, from, to, *step); err == nil {
			rec, n = r, len(r.Columns[0])
		}
	} else {
		var r models.QueueingRecord
		if r, err = latencyRecord(*cfgFile, from, to, *step); err == nil {
			rec, n = r, len(r.Samples)
		}
	}
	if err == nil {
		err = writeRecord(*out, rec)
	}
	if err != nil {
		fmt.Fprintln(stderr, "scorer latency-record:", err)
		return 1
	}
	fmt.Fprintf(stdout, "%s: %d windows\n", *out, n)
	return 0
}

// MLISPRecord is what storcast's M-LISP fitter receives for a range: the
// latency columns of the frame (features.LatencyColumns: IOPS, latency, then
// the counters), as M-LISP's Dataset.
type MLISPRecord struct {
	Start   int64       `json:"start"`
	End     int64       `json:"end"`
	Step    string      `json:"step"`
	Names   []string    `json:"names"`
	Columns [][]float64 `json:"columns"`
}

func mlispRecord(cfgFile string, start, end time.Time, step time.Duration) (MLISPRecord, error) {
	_, frame, err := recordFrame(cfgFile, start, end, step)
	if err != nil {
		return MLISPRecord{}, err
	}
	names, cols := features.LatencyColumns(frame)
	if len(cols) < 2 || len(cols[0]) == 0 {
		return MLISPRecord{}, fmt.Errorf("%s .. %s: no IOPS and latency windows", start.UTC().Format(time.RFC3339), end.UTC().Format(time.RFC3339))
	}
	return MLISPRecord{Start: start.Unix(), End: end.Unix(), Step: step.String(), Names: names, Columns: cols}, nil
}

func latencyRecord(cfgFile string, start, end time.Time, step time.Duration) (models.QueueingRecord, error) {
	cl, frame, err := recordFrame(cfgFile, start, end, step)
	if err != nil {
		return models.QueueingRecord{}, err
	}
	in := models.Input{Cluster: cl, Frame: frame, Fitted: models.Set{}}
	capm, err := models.CapacityFitter{Estimate: conservation.EstimateOptions{Interference: true}}.Fit(context.Background(), in) // as cmd/storcast
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

// recordFrame is the frame storcast's source fetches for the config's first
// cluster over [start, end] every step.
func recordFrame(cfgFile string, start, end time.Time, step time.Duration) (*config.Cluster, *source.Frame, error) {
	cfg, src, err := recordSource(cfgFile)
	if err != nil {
		return nil, nil, err
	}
	cl := &cfg.Clusters[0]
	frame, err := src.Fetch(context.Background(), cl, source.Range{Start: start, End: end, Step: step})
	if err != nil {
		return nil, nil, err
	}
	return cl, frame, nil
}

// writeRecord writes v as indented JSON to out.
func writeRecord(out string, v any) error {
	data, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(out, append(data, '\n'), 0o644)
}

package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/storcast/storcast/exporter/features"
	"github.com/storcast/storcast/exporter/models"
	"github.com/storcast/storcast/exporter/source"
	"github.com/storcast/storcast/forecaster/insideout"
)

// InsideOutRecord is an Inside-Out model as storcast fitted it at one time
// of an archived run, and the host feature vectors it was then asked to
// predict from, with the IOPS the cluster did: the record
// forecaster/insideout's TestRecordedLoadStart predicts offline.
type InsideOutRecord struct {
	FitAt   int64             `json:"fitAt"` // Unix seconds
	Model   *insideout.Model  `json:"model"`
	Windows []InsideOutWindow `json:"windows"`
}

// InsideOutWindow is one prediction the live storcast made after the fit:
// the latest window's features (laid out as the model's) and the cluster's
// read plus write IOPS in it.
type InsideOutWindow struct {
	T        int64     `json:"t"`
	Features []float64 `json:"features"`
	IOPS     float64   `json:"iops"`
}

// runInsideOutRecord writes an InsideOutRecord: the Inside-Out model fitted
// by storcast's own config, source and fitter at -fit-at over the config's
// fit.lookback and step, then every -step until -to the features of the latest
// window of a two-minute frame, from which storcast's refresh derives its
// prediction (models.Set.Derive). e2e/ceph/insideout-record.sh runs it on an archived
// run.
func runInsideOutRecord(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("insideout-record", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfgFile := fs.String("config", "", "storcast config file (its first cluster)")
	fitAt := fs.Int64("fit-at", 0, "time of the fit, Unix seconds")
	to := fs.Int64("to", 0, "last prediction, Unix seconds")
	step := fs.Duration("step", 5*time.Second, "time between predictions (storcast's refresh interval)")
	out := fs.String("out", "", "JSON file to write")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *cfgFile == "" || *out == "" || !(*fitAt > 0) || !(*to > *fitAt) || !(*step > 0) {
		fmt.Fprintln(stderr, "scorer insideout-record: -config, -out, -fit-at < -to and a positive -step are required")
		return 2
	}
	rec, err := insideOutRecord(*cfgFile, time.Unix(*fitAt, 0), time.Unix(*to, 0), *step)
	if err == nil {
		err = writeRecord(*out, rec)
	}
	if err != nil {
		fmt.Fprintln(stderr, "scorer insideout-record:", err)
		return 1
	}
	fmt.Fprintf(stdout, "%s: %d windows after the fit\n", *out, len(rec.Windows))
	return 0
}

// recentSpan is the frame a prediction is derived from: enough steps for
// the features' one-minute moving average and the rate window before it.
const recentSpan = 2 * time.Minute

func insideOutRecord(cfgFile string, fitAt, to time.Time, step time.Duration) (InsideOutRecord, error) {
	cfg, src, err := recordSource(cfgFile)
	if err != nil {
		return InsideOutRecord{}, err
	}
	cl, st := &cfg.Clusters[0], cfg.Fit.Step
	ctx := context.Background()
	frame, err := src.Fetch(ctx, cl, source.Range{Start: fitAt.Add(-cfg.Fit.Lookback), End: fitAt, Step: st})
	if err != nil {
		return InsideOutRecord{}, err
	}
	f, err := models.InsideOutFitter{}.Fit(ctx, models.Input{Cluster: cl, Frame: frame, Fitted: models.Set{}})
	if err != nil {
		return InsideOutRecord{}, err
	}
	m := f.(models.InsideOutFit).Model
	rec := InsideOutRecord{FitAt: fitAt.Unix(), Model: m}
	for t := fitAt.Add(step); !t.After(to); t = t.Add(step) {
		recent, err := src.Fetch(ctx, cl, source.Range{Start: t.Add(-recentSpan), End: t, Step: st})
		if err != nil {
			return InsideOutRecord{}, err
		}
		rows, err := features.HostFeatures(recent, m.Schema, 0)
		if err != nil {
			return InsideOutRecord{}, fmt.Errorf("%s: %w", t.UTC().Format(time.RFC3339), err)
		}
		last := len(rows.Hosts) - 1
		rec.Windows = append(rec.Windows, InsideOutWindow{T: t.Unix(),
			Features: append([]float64(nil), rows.X.RawRowView(last)...),
			IOPS:     rows.Targets[insideout.ReadIOPS][last] + rows.Targets[insideout.WriteIOPS][last]})
	}
	return rec, nil
}

package conservation

import (
	"fmt"
	"sort"
	"strings"
)

// MergeCalibrations merges calibrations of one cluster measured separately
// (several fio files, a YAML file and a fio file, ...) into one whose
// figures carry every run: for each size (and each mixed point's size and
// read ratio) the runs of all inputs are pooled, a figure without runs
// counting as one run, and the figure becomes the pooled mean. Sources are
// joined with " | ". The cluster name and interpolation are the first
// non-empty ones; differing non-empty values are an error.
func MergeCalibrations(cals ...Calibration) (Calibration, error) {
	if len(cals) == 0 {
		return Calibration{}, inputError("cals", "empty: at least one calibration is needed")
	}
	var out Calibration
	type pure struct {
		read, write []float64
		sources     []string
	}
	points := map[float64]*pure{}
	type mixKey struct{ size, wsize, ratio float64 }
	type mixed struct {
		runs    []float64
		sources []string
	}
	mixes := map[mixKey]*mixed{}
	asRuns := func(central float64, runs []float64) []float64 {
		if len(runs) == 0 {
			return []float64{central}
		}
		return runs
	}
	for i, c := range cals {
		if err := c.Validate(); err != nil {
			return Calibration{}, fmt.Errorf("cals[%d]: %w", i, err)
		}
		for _, f := range []struct {
			name     string
			dst, src *string
		}{{"cluster", &out.Cluster, &c.Cluster}, {"interpolation", &out.Interpolation, &c.Interpolation}} {
			switch {
			case *f.src == "":
			case *f.dst == "":
				*f.dst = *f.src
			case *f.dst != *f.src:
				return Calibration{}, inputError(fmt.Sprintf("cals[%d].%s", i, f.name), "%q differs from %q of an earlier calibration", *f.src, *f.dst)
			}
		}
		for _, p := range c.Points {
			q := points[p.IOSizeBytes]
			if q == nil {
				q = &pure{}
				points[p.IOSizeBytes] = q
			}
			q.read = append(q.read, asRuns(p.ReadIOPS, p.ReadRuns)...)
			q.write = append(q.write, asRuns(p.WriteIOPS, p.WriteRuns)...)
			if p.Source != "" {
				q.sources = append(q.sources, p.Source)
			}
		}
		for _, p := range c.Mixed {
			k := mixKey{p.IOSizeBytes, 0, p.ReadRatio}
			if p.mixedSize() {
				k.wsize = p.WriteIOSizeBytes
			}
			q := mixes[k]
			if q == nil {
				q = &mixed{}
				mixes[k] = q
			}
			q.runs = append(q.runs, asRuns(p.IOPS, p.Runs)...)
			if p.Source != "" {
				q.sources = append(q.sources, p.Source)
			}
		}
	}
	figure := func(runs []float64) (float64, []float64) {
		if len(runs) == 1 {
			return runs[0], nil
		}
		return mean(runs), runs
	}
	for s, q := range points {
		r, rr := figure(q.read)
		w, wr := figure(q.write)
		out.Points = append(out.Points, Point{IOSizeBytes: s, ReadIOPS: r, WriteIOPS: w, ReadRuns: rr, WriteRuns: wr, Source: strings.Join(q.sources, " | ")})
	}
	sort.Slice(out.Points, func(a, b int) bool { return out.Points[a].IOSizeBytes < out.Points[b].IOSizeBytes })
	for k, q := range mixes {
		v, vr := figure(q.runs)
		out.Mixed = append(out.Mixed, MixedPoint{IOSizeBytes: k.size, WriteIOSizeBytes: k.wsize, ReadRatio: k.ratio, IOPS: v, Runs: vr, Source: strings.Join(q.sources, " | ")})
	}
	sort.Slice(out.Mixed, func(a, b int) bool {
		if out.Mixed[a].IOSizeBytes != out.Mixed[b].IOSizeBytes {
			return out.Mixed[a].IOSizeBytes < out.Mixed[b].IOSizeBytes
		}
		if out.Mixed[a].WriteIOSizeBytes != out.Mixed[b].WriteIOSizeBytes {
			return out.Mixed[a].WriteIOSizeBytes < out.Mixed[b].WriteIOSizeBytes
		}
		return out.Mixed[a].ReadRatio < out.Mixed[b].ReadRatio
	})
	if err := out.Validate(); err != nil {
		return Calibration{}, err
	}
	return out, nil
}

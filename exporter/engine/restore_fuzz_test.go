package engine

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/storcast/storcast/exporter/internal/promfake"
	"github.com/storcast/storcast/exporter/models"
	"github.com/storcast/storcast/exporter/source"
	"github.com/storcast/storcast/exporter/state"
	"github.com/storcast/storcast/forecaster/conservation"
)

// restoreFitters are the models storcast fits (cmd/storcast's list).
func restoreFitters() []models.Fitter {
	return []models.Fitter{
		models.CapacityFitter{Estimate: conservation.EstimateOptions{Interference: true}},
		models.InsideOutFitter{}, models.QueueingFitter{}, models.MLISPFitter{},
		models.DemandTrend{}, models.SaturationFitter{}, models.AdvisorFitter{}, models.WhatIfFitter{},
	}
}

// fittedSnapshot fits every model once on the fake's workload (with a
// rule-set catalog, so that the advisor fits too) and returns the snapshot
// and the state file's JSON of each model.
func fittedSnapshot(f *testing.F) (*Snapshot, map[string]json.RawMessage) {
	fake := promfake.New(testWorkload().Answer)
	f.Cleanup(fake.Close)
	cfg := testConfig(f, fake.URL)
	cfg.Clusters[0].Advisor.CatalogFile = "testdata/advisor-catalog.yml"
	src, err := source.NewPrometheus(cfg.Prometheus, nil, nil)
	if err != nil {
		f.Fatal(err)
	}
	e := New(Options{Source: src, Fitters: restoreFitters(), Now: (&clock{t: testNow}).Now})
	e.Start(context.Background(), cfg)
	deadline := time.Now().Add(60 * time.Second)
	for {
		st, err := state.Load(cfg.StateDir, "a")
		if err == nil && len(st.Fitted) >= 6 {
			e.Stop()
			return e.Snapshot("a"), st.Fitted
		}
		if time.Now().After(deadline) {
			e.Stop()
			f.Fatalf("the engine saved no fitted models within 60 s (%v)", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// FuzzRestoreSavedModel: whatever a state file holds for one model (a
// damaged file, another version's), decoding it and deriving the live
// figures and the outlook from it, beside the other models as they were
// fitted and beside the capacity model alone, ends within 10 s and does
// not panic. restore turns a panic into
// "not restored" (decodeSaved, deriveSaved); this target calls the models
// without that net, so that a panic shows as the defect it is. A decoded
// trend whose next-peak search never ended (a season with a period of 0)
// hung storcast at start before Trend's decoding refused it.
func FuzzRestoreSavedModel(f *testing.F) {
	snap, saved := fittedSnapshot(f)
	fitters := restoreFitters()
	for i, fi := range fitters {
		raw, ok := saved[fi.Name()]
		if !ok {
			continue
		}
		f.Add(uint8(i), []byte(raw))
		if fi.Name() == models.Trend {
			// The demand trend with a daily profile whose period is 0.
			var d map[string]any
			var tr map[string]any
			if err := json.Unmarshal(raw, &d); err != nil {
				f.Fatalf("saved trend %s: %v", raw, err)
			}
			if tr, _ = d["trend"].(map[string]any); tr == nil {
				f.Fatalf("saved trend %s: no trend", raw)
			}
			tr["season"], tr["seasonSeconds"] = []float64{0.9, 1.1}, 0
			b, _ := json.Marshal(d)
			f.Add(uint8(i), b)
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		fi := fitters[int(which)%len(fitters)]
		done := make(chan struct{})
		go func() {
			defer close(done)
			m, err := fi.Decode(data)
			if err != nil {
				return
			}
			// Beside every other model, and beside the capacity model alone
			// (where the fallbacks answer: the demand trend's ETA when there
			// is no saturation trend, say).
			full := snap.clone()
			alone := snap.clone()
			alone.Set = models.Set{models.Conservation: snap.Set[models.Conservation]}
			for _, s := range []*Snapshot{full, alone} {
				s.Set[fi.Name()] = m
				s.Live = s.Set.Derive(s.Observed, s.HasObserved, nil)
				s.ComputeOutlook()
			}
			full.Set.Encode() // as persist does at the next save
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("restoring the %s model from %q did not end within 10 s", fi.Name(), data)
		}
	})
}

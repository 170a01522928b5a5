package engine

import (
	"strings"
	"testing"
	"time"

	"github.com/storcast/storcast/exporter/internal/promfake"
	"github.com/storcast/storcast/exporter/models"
)

// A cluster without a calibration file whose history never saturated has
// no max IOPS (the capacity model serves a lower bound), and an idle one
// not even that: the models that read the max IOPS, and the capacity model
// on an idle history, wait; they do not fail. A failure would read
// storcast_model_fit_error 1 and page (StorcastModelFitFailing) on every
// healthy uncalibrated or idle cluster.
func TestNoMaxIOPSWaitsNotFails(t *testing.T) {
	for _, c := range []struct {
		name     string
		workload promfake.Workload
		waiting  map[string]string // model -> what its status waits for
	}{
		{"never saturated, no calibration", testWorkload(), map[string]string{
			models.Queueing: "max IOPS", models.Saturation: "max IOPS", models.WhatIf: "max IOPS",
		}},
		{"idle", func() promfake.Workload {
			w := testWorkload()
			w.IOPS = func(time.Time) float64 { return 0 }
			return w
		}(), map[string]string{
			models.Conservation: "windows with load",
			models.Queueing:     "max IOPS", models.Saturation: "max IOPS", models.WhatIf: "max IOPS",
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			fake := promfake.New(c.workload.Answer)
			defer fake.Close()
			cfg := testConfig(t, fake.URL)
			cfg.Clusters[0].Calibration.File = ""
			e := startWithin(t, cfg, models.All(), &clock{t: testNow})
			defer e.Stop()
			waitFor(t, "a fit", func() bool { return e.Snapshot("a").Fits > 0 })
			s := e.Snapshot("a")
			for name, what := range c.waiting {
				st := s.Models[name]
				if st.Fitted || !strings.Contains(st.Waiting, what) {
					t.Errorf("%s: fitted %v, waiting %q, error %q; want it waiting for %s", name, st.Fitted, st.Waiting, st.Error, what)
				}
			}
			for name, st := range s.Models {
				if st.Error != "" && st.Waiting == "" {
					t.Errorf("%s failed: %s", name, st.Error)
				}
			}
		})
	}
}

//go:build e2e

package alerts

import (
	"fmt"
	"math"
	"testing"
	"time"
)

// TestSaturationAlertFiresBeforeSaturation: the growth scenario.
func TestSaturationAlertFiresBeforeSaturation(t *testing.T) {
	t.Parallel()
	s := startStack(t, stackOptions{scenario: "testdata/growth-e2e.yml", history: 48 * time.Hour, sloMs: 10})
	const alert = "StorcastMaxIOPSSaturationPredicted"
	fired := waitForAlert(t, s, alert, `storcast_saturation_eta_seconds{limit="max_iops"}`)
	tr := getTruth(t, s)
	if tr.SaturationTime == nil {
		t.Fatalf("storagesim's truth has no saturation time for the growth scenario")
	}
	t.Logf("%s started at %s; truth: saturation at %s (%.1f h later), utilization now %.3f",
		alert, fired.StartsAt.UTC().Format(time.RFC3339), tr.SaturationTime.UTC().Format(time.RFC3339),
		tr.SaturationTime.Sub(fired.StartsAt).Hours(), tr.Utilization)
	if !fired.StartsAt.Before(*tr.SaturationTime) {
		t.Errorf("the alert started at %s, not before the truth's saturation at %s", fired.StartsAt, *tr.SaturationTime)
	}
	if tr.Utilization >= 1 {
		t.Errorf("the cluster is already saturated (utilization %.3f): the alert was not a prediction", tr.Utilization)
	}
	if fired.Labels["severity"] != "warning" || fired.Annotations["runbook_url"] == "" || fired.Annotations["summary"] == "" {
		t.Errorf("alert without severity or annotations: %+v", fired)
	}
	// storcast's ETA against the truth's time to saturation.
	_, etas, err := promQuery(s.prometheus, `storcast_saturation_eta_seconds{limit="max_iops",cluster="`+s.cluster+`"}`)
	if err != nil || len(etas) != 1 {
		t.Fatalf("storcast_saturation_eta_seconds: %v %v", etas, err)
	}
	want := time.Until(*tr.SaturationTime).Seconds()
	if math.Abs(etas[0]-want) > 0.5*want {
		t.Errorf("storcast's ETA %.1f h, truth %.1f h: off by more than 50%%", etas[0]/3600, want/3600)
	}
	t.Logf("storcast ETA %.2f h, truth %.2f h", etas[0]/3600, want/3600)
}

// TestSteadyScenarioRaisesNoAlert: the steady scenario.
func TestSteadyScenarioRaisesNoAlert(t *testing.T) {
	t.Parallel()
	s := startStack(t, stackOptions{scenario: "steady", history: 72 * time.Hour, sloMs: 20})
	// Wait until storcast's forecasts are in Prometheus, then let the rules
	// evaluate on them for a while.
	waitFor(t, "storcast's forecasts in Prometheus", 8*time.Minute, func() (bool, string) {
		ls, _, err := promQuery(s.prometheus, `storcast_headroom_ratio and on (cluster) storcast_saturation_eta_seconds{limit="max_iops"}`)
		if err != nil {
			return false, err.Error()
		}
		present, _, _ := promQuery(s.prometheus, `count by (__name__) ({__name__=~"storcast_.+"})`)
		return len(ls) == 1, fmt.Sprintf("storcast series in Prometheus: %v", present)
	})
	// The rules' first evaluation may precede Prometheus's first scrape of
	// storcast: StorcastExporterDown (absent up) is then pending until the
	// next one. storcast's series being in Prometheus, it must clear.
	waitFor(t, "StorcastExporterDown to clear after the first scrape", 10*evalInterval, func() (bool, string) {
		pa, err := promAlerts(s.prometheus)
		if err != nil {
			return false, err.Error()
		}
		for _, a := range pa {
			if ls, _ := a["labels"].(map[string]any); ls["alertname"] == "StorcastExporterDown" {
				return false, fmt.Sprintf("%v", a)
			}
		}
		return true, ""
	})
	// Several fits and many rule evaluations (fit interval 30 s, evaluation 2 s).
	soak := 3*fitInterval + 5*evalInterval
	t.Logf("forecasts present; soaking %s", soak)
	deadline := time.Now().Add(soak)
	for time.Now().Before(deadline) {
		if pa, err := promAlerts(s.prometheus); err != nil {
			t.Fatal(err)
		} else if len(pa) > 0 {
			t.Fatalf("Prometheus has alerts in the steady scenario: %v", pa)
		}
		time.Sleep(time.Second)
	}
	as, err := amAlerts(s.alertmanager)
	if err != nil {
		t.Fatal(err)
	}
	if len(as) > 0 {
		t.Errorf("Alertmanager received alerts in the steady scenario: %s", names(as))
	}
	_, h, _ := promQuery(s.prometheus, "storcast_headroom_ratio")
	_, eta, _ := promQuery(s.prometheus, "storcast_saturation_eta_seconds")
	tr := getTruth(t, s)
	t.Logf("steady: headroom %v, ETAs %v s; truth utilization %.3f", h, eta, tr.Utilization)
}

// TestOutgrownCalibrationIsContradicted: the steady scenario (40% of its
// capacity, a daily cycle peaking near 55%) with a calibration at 40% of
// its true capacity, as from hardware the cluster has since outgrown. The history serves more
// than that calibration allows, and StorcastCalibrationContradicted reaches
// Alertmanager; the steady scenario with its true calibration raises no
// alert at all (TestSteadyScenarioRaisesNoAlert).
func TestOutgrownCalibrationIsContradicted(t *testing.T) {
	t.Parallel()
	const scale = 0.4
	s := startStack(t, stackOptions{scenario: "steady", history: 24 * time.Hour, sloMs: 20, calibrationScale: scale})
	const alert = "StorcastCalibrationContradicted"
	waitForAlert(t, s, alert, "storcast_capacity_history_load_ratio")
	// The ratio is the history's load over 40% of the true capacity: 2.5
	// times the truth's utilization near the busiest windows (at most 1),
	// over 1.1: a calibration without repeated runs is held to its max
	// plus 10%.
	_, r, err := promQuery(s.prometheus, `storcast_capacity_history_load_ratio{cluster="`+s.cluster+`"}`)
	if err != nil || len(r) != 1 {
		t.Fatalf("storcast_capacity_history_load_ratio: %v %v", r, err)
	}
	tr := getTruth(t, s)
	if !(r[0] > 1) || r[0] > 1.2/scale {
		t.Errorf("history load ratio %.3f: want above 1 and at most %.1f, the capacity over the calibration with 20%% to spare (truth now %.3f)", r[0], 1.2/scale, tr.Utilization)
	}
	t.Logf("history load ratio %.3f against a calibration at %.0f%% of the capacity; truth utilization now %.3f", r[0], 100*scale, tr.Utilization)
}

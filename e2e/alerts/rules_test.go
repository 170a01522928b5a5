//go:build e2e

package alerts

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/storcast/storcast/alerts"
)

// testRules generates the rules from the shipped thresholds with every for:
// duration set to 0, so that an alert fires at the first evaluation its
// expression holds; the thresholds themselves are unchanged. Except
// StorcastExporterDown's: it also fires while the job has no up series
// (absent), which every stack does at its first evaluation, before its
// first scrape of storcast; its shipped for: is what covers that.
func testRules(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, "alerts", "thresholds.yml"))
	if err != nil {
		t.Fatal(err)
	}
	th, err := alerts.ParseThresholds(data, "alerts/thresholds.yml")
	if err != nil {
		t.Fatal(err)
	}
	th.Headroom.WarningFor, th.Headroom.CriticalFor = 0, 0
	th.Saturation.For, th.Latency.For = 0, 0
	th.Calibration.ContradictedFor = 0
	th.Model.StaleFor, th.Model.InaccurateFor = 0, 0
	th.Source.DownFor = 0
	th.Model.FitFailingFor, th.State.NotSavedFor, th.State.NotRestoredFor = 0, 0, 0
	th.Exporter.CollectorFailingFor, th.Exporter.ReloadFailedFor, th.Shards.MismatchFor = 0, 0, 0
	rules, err := alerts.Generate(th, "alerts/thresholds.yml with every for: 0s (e2e test copy)")
	if err != nil {
		t.Fatal(err)
	}
	return rules
}

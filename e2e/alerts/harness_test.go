//go:build e2e

package alerts

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/storcast/storcast/internal/testtool"
	"github.com/storcast/storcast/storagesim"
)

// repoRoot is the repository root, from this package's directory.
const repoRoot = "../.."

// buildBinaries builds storcast and storagesim from this checkout once.
func buildBinaries(t *testing.T) (storcast, storagesim string) {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command("go", "build", "-o", dir+string(os.PathSeparator), "./cmd/storcast", "./cmd/storagesim")
	cmd.Dir = repoRoot
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/storcast ./cmd/storagesim: %v\n%s", err, out)
	}
	return filepath.Join(dir, "storcast"), filepath.Join(dir, "storagesim")
}

// promQuery runs an instant query at now and returns the samples' labels and values.
func promQuery(base, expr string) ([]map[string]string, []float64, error) {
	res, err := testtool.Query(base, expr, time.Time{})
	if err != nil {
		return nil, nil, err
	}
	var ls []map[string]string
	var vs []float64
	for _, s := range res {
		ls = append(ls, s.Metric)
		vs = append(vs, s.Value)
	}
	return ls, vs, nil
}

// amAlert is one alert from Alertmanager's API v2.
type amAlert struct {
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
	StartsAt    time.Time         `json:"startsAt"`
	Status      struct {
		State string `json:"state"`
	} `json:"status"`
}

func amAlerts(base string) ([]amAlert, error) {
	var as []amAlert
	err := testtool.GetJSON(base+"/api/v2/alerts", &as)
	return as, err
}

// promAlerts returns Prometheus's pending and firing alerts.
func promAlerts(base string) ([]map[string]any, error) {
	var r struct {
		Data struct {
			Alerts []map[string]any `json:"alerts"`
		} `json:"data"`
	}
	err := testtool.GetJSON(base+"/api/v1/alerts", &r)
	return r.Data.Alerts, err
}

// stack is one scenario's processes.
type stack struct {
	prometheus, alertmanager, storcast, storagesim string // base URLs
	origin                                         time.Time
	cluster                                        string
}

// stackOptions say how to run a scenario.
type stackOptions struct {
	scenario string        // shipped name or path
	history  time.Duration // backfilled before now; also storcast's lookback
	sloMs    int
	// calibrationScale multiplies the calibration file's IOPS (0: 1, the
	// scenario's true capacity): below 1, a calibration the cluster has
	// outgrown.
	calibrationScale float64
}

const (
	evalInterval = 2 * time.Second
	fitInterval  = 30 * time.Second
)

// startStack backfills the scenario's history into a fresh Prometheus TSDB
// and starts storagesim, Alertmanager, storcast and Prometheus.
func startStack(t *testing.T, o stackOptions) stack {
	t.Helper()
	testtool.Need(t, "prometheus") // before the build, so that a missing one ends the test at once
	promtool := testtool.Need(t, "promtool")
	amBin := testtool.Need(t, "prometheus-alertmanager", "alertmanager")
	storcastBin, simBin := buildBinaries(t)
	dir := t.TempDir()
	s := stack{cluster: "sim"}

	// History: origin = now - history, written at a 1 m step and converted
	// into TSDB blocks; storagesim then serves the same cluster live.
	now := time.Now().UTC().Truncate(time.Minute)
	s.origin = now.Add(-o.history)
	hist := filepath.Join(dir, "history.om")
	out, err := exec.Command(simBin, "history", "--scenario", o.scenario, "--start", s.origin.Format(time.RFC3339),
		"--end", now.Format(time.RFC3339), "--step", "1m", "--out", hist).CombinedOutput()
	if err != nil {
		t.Fatalf("storagesim history: %v\n%s", err, out)
	}
	data := filepath.Join(dir, "prometheus")
	if out, err := exec.Command(promtool, "tsdb", "create-blocks-from", "openmetrics", "-q", hist, data).CombinedOutput(); err != nil {
		t.Fatalf("promtool tsdb create-blocks-from openmetrics: %v\n%s", err, out)
	}
	_ = os.Remove(hist)

	simAddr := testtool.FreeAddr(t)
	sim := testtool.Start(t, "storagesim", simBin, "serve", "--scenario", o.scenario, "--start", s.origin.Format(time.RFC3339),
		"--web.listen-address", simAddr)
	s.storagesim = "http://" + simAddr
	sim.WaitHTTP(s.storagesim+"/truth", 30*time.Second)

	amAddr := testtool.FreeAddr(t)
	amCfg := filepath.Join(dir, "alertmanager.yml")
	writeFile(t, amCfg, "route:\n  receiver: test\n  group_by: [alertname, cluster]\n  group_wait: 0s\n  group_interval: 1s\nreceivers:\n  - name: test\n")
	am := testtool.Start(t, "alertmanager", amBin, "--config.file="+amCfg, "--storage.path="+filepath.Join(dir, "am"),
		"--web.listen-address="+amAddr, "--cluster.listen-address=", "--log.level=warn")
	s.alertmanager = "http://" + amAddr
	am.WaitHTTP(s.alertmanager+"/-/ready", 30*time.Second)

	promAddr := testtool.FreeAddr(t)
	s.prometheus = "http://" + promAddr
	scAddr := testtool.FreeAddr(t)
	s.storcast = "http://" + scAddr
	cal := filepath.Join(dir, "calibration.yml")
	scale := o.calibrationScale
	if scale == 0 {
		scale = 1
	}
	writeFile(t, cal, calibration(t, o.scenario, scale))
	scCfg := filepath.Join(dir, "storcast.yml")
	writeFile(t, scCfg, fmt.Sprintf(`prometheus:
  url: %s
  timeout: 20s
fit:
  interval: %s
  lookback: %s
  step: 5m
  refresh_interval: 5s
state_dir: %s
web:
  listen_address: %q
clusters:
  - name: %s
    kind: ceph
    matchers: ['job="ceph"']
    hosts:
      matchers: ['job="node"']
    latency_slo:
      threshold: %dms
      latency: op
    calibration:
      file: %q
`, s.prometheus, fitInterval, o.history, filepath.Join(dir, "state"), scAddr, s.cluster, o.sloMs, cal))

	rules := filepath.Join(dir, "storcast.rules.yml")
	writeFile(t, rules, string(testRules(t)))
	promCfg := fmt.Sprintf(`global:
  scrape_interval: %[1]s
  evaluation_interval: %[1]s
rule_files: [%[2]q]
alerting:
  alertmanagers:
    - static_configs: [{targets: [%[3]q]}]
scrape_configs:
  - job_name: storagesim
    http_sd_configs: [{url: "%[4]s/sd", refresh_interval: 5s}]
  - job_name: storcast
    static_configs: [{targets: [%[5]q]}]
`, evalInterval, rules, amAddr, s.storagesim, scAddr)
	testtool.StartPrometheus(t, promAddr, promCfg, data)

	sc := testtool.Start(t, "storcast", storcastBin, "--config.file="+scCfg)
	sc.WaitHTTP(s.storcast+"/-/healthy", 60*time.Second)
	t.Logf("stack up: prometheus %s, alertmanager %s, storcast %s, storagesim %s (origin %s, %d CPUs)",
		s.prometheus, s.alertmanager, s.storcast, s.storagesim, s.origin.Format(time.RFC3339), runtime.NumCPU())
	return s
}

// calibration writes the scenario's capacity points, times scale, as a
// calibration file: what an operator measures with fio before going live
// (storcast --demo does the same).
func calibration(t *testing.T, scenario string, scale float64) string {
	t.Helper()
	sc, err := storagesim.LoadScenario(scenario)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "cluster: sim\npoints:\n")
	for _, p := range sc.Capacity.Points {
		fmt.Fprintf(&b, "  - {io_size_bytes: %g, read_iops: %g, write_iops: %g, source: storagesim scenario %s x %g}\n",
			float64(p.Size), scale*p.ReadIOPS, scale*p.WriteIOPS, sc.Name, scale)
	}
	return b.String()
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// truth is the part of storagesim's /truth the test reads.
type truth struct {
	Time           time.Time  `json:"time"`
	Utilization    float64    `json:"utilization"`
	SaturationTime *time.Time `json:"saturation_time"`
	MaxIOPS        struct {
		Total float64 `json:"total"`
	} `json:"max_iops"`
}

func getTruth(t *testing.T, s stack) truth {
	t.Helper()
	var tr truth
	if err := testtool.GetJSON(s.storagesim+"/truth", &tr); err != nil {
		t.Fatal(err)
	}
	return tr
}

// waitFor polls cond every second until it returns true or the timeout.
func waitFor(t *testing.T, what string, timeout time.Duration, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	last := ""
	for time.Now().Before(deadline) {
		ok, state := cond()
		if ok {
			return
		}
		last = state
		time.Sleep(time.Second)
	}
	t.Fatalf("timed out after %s waiting for %s; last state: %s", timeout, what, last)
}

// waitForAlert waits until Alertmanager holds alert active for the stack's
// cluster and returns it; while it waits, its state names the alerts there
// and the value of the query that should bring it.
func waitForAlert(t *testing.T, s stack, alert, query string) amAlert {
	t.Helper()
	var fired amAlert
	waitFor(t, alert+" in Alertmanager", 8*time.Minute, func() (bool, string) {
		as, err := amAlerts(s.alertmanager)
		if err != nil {
			return false, err.Error()
		}
		for _, a := range as {
			if a.Labels["alertname"] == alert && a.Labels["cluster"] == s.cluster && a.Status.State == "active" {
				fired = a
				return true, ""
			}
		}
		_, v, _ := promQuery(s.prometheus, query)
		return false, fmt.Sprintf("alertmanager has [%s]; %s = %v", names(as), query, v)
	})
	return fired
}

func names(as []amAlert) string {
	var n []string
	for _, a := range as {
		n = append(n, a.Labels["alertname"]+"{"+a.Labels["cluster"]+"}")
	}
	return strings.Join(n, ", ")
}

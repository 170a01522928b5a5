package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/storcast/storcast/exporter/demo"
	"github.com/storcast/storcast/forecaster/conservation"
	"github.com/storcast/storcast/internal/testtool"
)

// TestStoppedUpstreamMarkedWithinDeadline stops a real Prometheus with
// SIGSTOP — it keeps its socket and accepts connections but never answers,
// the hung upstream operators meet — and reads storcast's own /metrics:
// storcast_source_up must drop to 0 and the fitted capacity model turn
// stale within one refresh (the refresh deadline, prometheus.timeout, plus
// the refresh interval), and both recover after SIGCONT.
func TestStoppedUpstreamMarkedWithinDeadline(t *testing.T) {
	promBin := testtool.Need(t, "prometheus")
	it := newScenarioIntegration(t, "steady", time.Hour) // live storagesim; the history file is not loaded
	cal, err := conservation.MarshalCalibration(demo.Calibration(it.sim.Scenario()))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(it.dir, "calibration.yml"), cal, 0o644); err != nil {
		t.Fatal(err)
	}

	promAddr, scAddr := testtool.FreeAddr(t), testtool.FreeAddr(t)
	promCfg := filepath.Join(it.dir, "prometheus.yml")
	if err := os.WriteFile(promCfg, []byte(it.scrapeConfig(scAddr)), 0o644); err != nil {
		t.Fatal(err)
	}
	prom := testtool.Start(t, "prometheus", promBin, "--config.file="+promCfg, "--storage.tsdb.path="+filepath.Join(it.dir, "prom"),
		"--web.listen-address="+promAddr, "--log.level=warn")
	t.Cleanup(func() { _ = syscall.Kill(prom.Cmd.Process.Pid, syscall.SIGCONT) }) // runs before its stop
	prom.WaitHTTP("http://"+promAddr+"/-/ready", 90*time.Second)

	const timeout, refresh = 2 * time.Second, 2 * time.Second
	cfg := fmt.Sprintf(`prometheus: {url: "http://%s", timeout: %s, retries: 0}
fit: {interval: 1h, stale_after: 3h, lookback: 10m, step: 15s, refresh_interval: %s}
state_dir: %s
clusters:
  - name: sim
    kind: ceph
    matchers: ['job="ceph"']
    calibration: {file: calibration.yml}
`, promAddr, timeout, refresh, filepath.Join(it.dir, "state"))
	cfgPath := filepath.Join(it.dir, "storcast.yml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := buildStorcast(t, t.TempDir())
	sc := testtool.Start(t, "storcast", bin, "--config.file="+cfgPath, "--web.listen-address="+scAddr)
	sc.WaitHTTP("http://"+scAddr+"/-/healthy", 30*time.Second)

	metrics := func() string {
		_, body := get(t, "http://"+scAddr+"/metrics")
		return body
	}
	up := `storcast_source_up{cluster="sim"} 1`
	down := `storcast_source_up{cluster="sim"} 0`
	stale := `storcast_model_stale{cluster="sim",model="conservation"} 1`
	fresh := `storcast_model_stale{cluster="sim",model="conservation"} 0`
	waitMetrics := func(what string, within time.Duration, want ...string) time.Duration {
		t.Helper()
		start := time.Now()
		for {
			body := metrics()
			ok := true
			for _, w := range want {
				ok = ok && strings.Contains(body, w)
			}
			if ok {
				return time.Since(start)
			}
			if time.Since(start) > within {
				t.Fatalf("%s: not within %s; want %q in\n%s", what, within, want, body)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	// Rate windows of a minute fill after about a minute of scraping.
	waitMetrics("source up with the capacity model fitted", 3*time.Minute, up, fresh)

	if err := syscall.Kill(prom.Cmd.Process.Pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	// One refresh deadline plus the wait for the next refresh; the slack
	// is for a loaded CI machine, not for the design.
	limit := timeout + refresh
	took := waitMetrics("source down after SIGSTOP", limit+10*time.Second, down, stale)
	t.Logf("SIGSTOP'd Prometheus noticed after %s (refresh deadline %s + refresh interval %s)", took.Round(100*time.Millisecond), timeout, refresh)
	if took > limit+5*time.Second {
		t.Errorf("noticed after %s; the design bound is %s", took, limit)
	}
	if !strings.Contains(metrics(), `storcast_max_iops{cluster="sim",op="total"}`) {
		t.Error("the last max IOPS is no longer served while the upstream hangs")
	}

	if err := syscall.Kill(prom.Cmd.Process.Pid, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	waitMetrics("recovery after SIGCONT", time.Minute, up, fresh)
}

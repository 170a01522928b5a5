//go:build e2e

package alerts

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/storcast/storcast/storagesim"
)

// repoRoot is the repository root, from this package's directory.
const repoRoot = "../.."

func lookPath(t *testing.T, names ...string) string {
	t.Helper()
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s not found on PATH (scripts/install-test-deps.sh installs it)", names[0])
	}
	t.Skipf("%s not found on PATH; install it to run this test", names[0])
	return ""
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

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

// proc is a started process; it is stopped (its process group) at cleanup
// and its log is printed when the test failed.
type proc struct {
	name string
	cmd  *exec.Cmd
	log  string
	done chan struct{}
}

func start(t *testing.T, name string, bin string, args ...string) *proc {
	t.Helper()
	logPath := filepath.Join(t.TempDir(), name+".log")
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	p := &proc{name: name, cmd: cmd, log: logPath, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); logf.Close(); close(p.done) }()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-p.done
		}
		if t.Failed() {
			b, _ := os.ReadFile(logPath)
			if len(b) > 8000 {
				b = append([]byte("...\n"), b[len(b)-8000:]...)
			}
			t.Logf("--- %s log (last 8 kB) ---\n%s", name, b)
		}
	})
	return p
}

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// waitHTTP waits until GET url answers 200, failing when p exits first.
func waitHTTP(t *testing.T, p *proc, u string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		resp, err := http.Get(u)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return
			}
		}
		if p.exited() {
			b, _ := os.ReadFile(p.log)
			t.Fatalf("%s exited before %s answered:\n%s", p.name, u, b)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %s not ready after %s: %v", p.name, u, timeout, err)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

func getJSON(u string, v any) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		return fmt.Errorf("GET %s: HTTP %d: %s", u, resp.StatusCode, b)
	}
	return json.Unmarshal(b, v)
}

// promQuery runs an instant query at now and returns the samples' labels and values.
func promQuery(base, expr string) ([]map[string]string, []float64, error) {
	var r struct {
		Status string `json:"status"`
		Data   struct {
			Result []struct {
				Metric map[string]string `json:"metric"`
				Value  [2]any            `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := getJSON(base+"/api/v1/query?"+url.Values{"query": {expr}}.Encode(), &r); err != nil {
		return nil, nil, err
	}
	var ls []map[string]string
	var vs []float64
	for _, s := range r.Data.Result {
		str, _ := s.Value[1].(string)
		v, err := strconv.ParseFloat(str, 64)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: value %v", expr, s.Value)
		}
		ls = append(ls, s.Metric)
		vs = append(vs, v)
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
	err := getJSON(base+"/api/v2/alerts", &as)
	return as, err
}

// promAlerts returns Prometheus's pending and firing alerts.
func promAlerts(base string) ([]map[string]any, error) {
	var r struct {
		Data struct {
			Alerts []map[string]any `json:"alerts"`
		} `json:"data"`
	}
	err := getJSON(base+"/api/v1/alerts", &r)
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
}

const (
	evalInterval = 2 * time.Second
	fitInterval  = 30 * time.Second
)

// startStack backfills the scenario's history into a fresh Prometheus TSDB
// and starts storagesim, Alertmanager, storcast and Prometheus.
func startStack(t *testing.T, o stackOptions) stack {
	t.Helper()
	promBin := lookPath(t, "prometheus")
	promtool := lookPath(t, "promtool")
	amBin := lookPath(t, "prometheus-alertmanager", "alertmanager")
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

	simAddr := freeAddr(t)
	sim := start(t, "storagesim", simBin, "serve", "--scenario", o.scenario, "--start", s.origin.Format(time.RFC3339),
		"--web.listen-address", simAddr)
	s.storagesim = "http://" + simAddr
	waitHTTP(t, sim, s.storagesim+"/truth", 30*time.Second)

	amAddr := freeAddr(t)
	amCfg := filepath.Join(dir, "alertmanager.yml")
	writeFile(t, amCfg, "route:\n  receiver: test\n  group_by: [alertname, cluster]\n  group_wait: 0s\n  group_interval: 1s\nreceivers:\n  - name: test\n")
	am := start(t, "alertmanager", amBin, "--config.file="+amCfg, "--storage.path="+filepath.Join(dir, "am"),
		"--web.listen-address="+amAddr, "--cluster.listen-address=", "--log.level=warn")
	s.alertmanager = "http://" + amAddr
	waitHTTP(t, am, s.alertmanager+"/-/ready", 30*time.Second)

	promAddr := freeAddr(t)
	s.prometheus = "http://" + promAddr
	scAddr := freeAddr(t)
	s.storcast = "http://" + scAddr
	cal := filepath.Join(dir, "calibration.yml")
	writeFile(t, cal, calibration(t, o.scenario))
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
	promCfg := filepath.Join(dir, "prometheus.yml")
	writeFile(t, promCfg, fmt.Sprintf(`global:
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
`, evalInterval, rules, amAddr, s.storagesim, scAddr))
	prom := start(t, "prometheus", promBin, "--config.file="+promCfg, "--storage.tsdb.path="+data,
		"--web.listen-address="+promAddr, "--storage.tsdb.retention.time=30d", "--log.level=warn")
	waitHTTP(t, prom, s.prometheus+"/-/ready", 90*time.Second)

	sc := start(t, "storcast", storcastBin, "--config.file="+scCfg)
	waitHTTP(t, sc, s.storcast+"/-/healthy", 60*time.Second)
	t.Logf("stack up: prometheus %s, alertmanager %s, storcast %s, storagesim %s (origin %s, %d CPUs)",
		s.prometheus, s.alertmanager, s.storcast, s.storagesim, s.origin.Format(time.RFC3339), runtime.NumCPU())
	return s
}

// calibration writes the scenario's capacity points as a calibration file:
// what an operator measures with fio before going live (storcast --demo does
// the same).
func calibration(t *testing.T, scenario string) string {
	t.Helper()
	sc, err := storagesim.LoadScenario(scenario)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "cluster: sim\npoints:\n")
	for _, p := range sc.Capacity.Points {
		fmt.Fprintf(&b, "  - {io_size_bytes: %g, read_iops: %g, write_iops: %g, source: storagesim scenario %s}\n",
			float64(p.Size), p.ReadIOPS, p.WriteIOPS, sc.Name)
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
	if err := getJSON(s.storagesim+"/truth", &tr); err != nil {
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

func names(as []amAlert) string {
	var n []string
	for _, a := range as {
		n = append(n, a.Labels["alertname"]+"{"+a.Labels["cluster"]+"}")
	}
	return strings.Join(n, ", ")
}

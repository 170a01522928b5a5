package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/storcast/storcast/exporter/config"
	"github.com/storcast/storcast/exporter/source"
	"github.com/storcast/storcast/internal/testtool"
)

// TestProbeDeadlinePerCluster: a query of the first cluster that keeps
// timing out (its retries included) does not fail the second cluster's
// queries. With one deadline for the whole probe it used all of it, and
// --config.check.remote reported every query of the clusters after it as
// failed, the matchers blamed.
func TestProbeDeadlinePerCluster(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.FormValue("query")
		if strings.Contains(q, `cluster="a"`) && strings.Contains(q, "ceph_osd_op_r{") {
			<-r.Context().Done() // hangs until the client gives up
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[%s,"1"]]}]}}`, r.FormValue("start"))
	}))
	defer srv.Close()
	cfg := config.Default()
	cfg.Prometheus.URL = srv.URL
	// Four attempts of 200 ms: the hanging query alone outlasts 4 x 200 ms.
	cfg.Prometheus.Timeout, cfg.Prometheus.Retries, cfg.Prometheus.RetryBackoff = 200*time.Millisecond, 3, 10*time.Millisecond
	for _, name := range []string{"a", "b"} {
		cfg.Clusters = append(cfg.Clusters, config.Cluster{Name: name, Kind: config.KindCeph,
			Matchers: []config.Matcher{{Name: "cluster", Op: "=", Value: name}}, LatencySLO: config.LatencySLO{Threshold: 20 * time.Millisecond, Latency: "op"}})
	}
	src, err := source.NewPrometheus(cfg.Prometheus, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	empty, failed := probeClusters(context.Background(), &cfg, src, &out, slog.New(slog.DiscardHandler))
	if empty != 0 || failed != 1 {
		t.Errorf("required queries empty %d, failed %d; want 0, 1 (cluster a's read_ops):\n%s", empty, failed, out.String())
	}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if strings.HasPrefix(line, "b\t") && !strings.Contains(line, "1 series") {
			t.Errorf("cluster b: %q; want its series counted", line)
		}
	}
	if !strings.Contains(out.String(), "a\tread_ops\tFAILED") || !strings.Contains(out.String(), "b\tread_ops\t1 series") {
		t.Errorf("probe output:\n%s", out.String())
	}
}

// TestReloadCancelsStartUpProbe: a reload that removes cluster b while the
// start-up probe is held up on cluster a leaves no source series of b. The
// probe ran on the start's cluster list, unstopped: it went on to b after
// the reload's Forget(b) and counted b's queries again, series exported
// until the process ended.
func TestReloadCancelsStartUpProbe(t *testing.T) {
	prom, open := heldProm(t)
	t.Cleanup(open) // before prom.Close, after storcast stopped (cleanups run last first)
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "storcast.yml")
	write := func(clusters string) {
		// A timeout far longer than the test: the probe stays on a until released.
		body := fmt.Sprintf("prometheus: {url: %q, timeout: 60s, retries: 0}\nfit: {refresh_interval: 1s}\nstate_dir: %s\nclusters: %s\n",
			prom.URL, filepath.Join(dir, "state"), clusters)
		if err := os.WriteFile(cfgPath, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(`[{name: a, kind: ceph, matchers: ['cluster="a"']}, {name: b, kind: ceph, matchers: ['cluster="b"']}]`)
	addr := "127.0.0.1:" + testtool.FreePort(t)
	errb := runInProcess(t, addr, "--config.file="+cfgPath, "--web.listen-address="+addr)
	base := "http://" + addr

	write(`[{name: a, kind: ceph, matchers: ['cluster="a"']}]`)
	resp, err := http.Post(base+"/-/reload", "", nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("reload removing b: %v %v\n%s", resp, err, errb.String())
	}
	resp.Body.Close()
	open()
	// The probe's end: cancelled by the reload, or (unstopped) its report
	// of b.
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(errb.String(), `msg="probe: cancelled"`) && !strings.Contains(errb.String(), `msg="probe: cluster queries" cluster=b`) {
		if time.Now().After(deadline) {
			t.Fatalf("the start-up probe did not end:\n%s", errb.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	_, body := get(t, base+"/metrics")
	for _, l := range strings.Split(body, "\n") {
		for _, name := range []string{source.MetricQueries, source.MetricQueryErrors, source.MetricRetries, source.MetricRespBytes} {
			if strings.HasPrefix(l, name+"{") && strings.Contains(l, `cluster="b"`) {
				t.Errorf("a series of the removed cluster: %s", l)
			}
		}
	}
}

// TestReloadRestartsStartUpProbe: a reload that keeps every cluster ends
// the start-up probe (it ran on the old list) and runs it again on the new
// one, so the clusters it had not reached are still probed.
func TestReloadRestartsStartUpProbe(t *testing.T) {
	prom, open := heldProm(t)
	t.Cleanup(open)
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "storcast.yml")
	body := fmt.Sprintf("prometheus: {url: %q, timeout: 60s, retries: 0}\nfit: {refresh_interval: 1s}\nstate_dir: %s\nclusters: %s\n",
		prom.URL, filepath.Join(dir, "state"), `[{name: a, kind: ceph, matchers: ['cluster="a"']}, {name: b, kind: ceph, matchers: ['cluster="b"']}]`)
	if err := os.WriteFile(cfgPath, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := "127.0.0.1:" + testtool.FreePort(t)
	errb := runInProcess(t, addr, "--config.file="+cfgPath, "--web.listen-address="+addr)
	resp, err := http.Post("http://"+addr+"/-/reload", "", nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("unchanged reload: %v %v\n%s", resp, err, errb.String())
	}
	resp.Body.Close()
	open()
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(errb.String(), `msg="probe: cluster queries" cluster=b`) {
		if time.Now().After(deadline) {
			t.Fatalf("cluster b was never probed after the reload:\n%s", errb.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// heldProm is a Prometheus whose answers to cluster a's queries (the
// start-up probe's first cluster) wait until open is called (or the test
// ends); every other query gets an empty matrix.
func heldProm(t *testing.T) (prom *httptest.Server, open func()) {
	release := make(chan struct{})
	var once sync.Once
	open = func() { once.Do(func() { close(release) }) }
	prom = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.FormValue("query"), `cluster="a"`) {
			select {
			case <-release:
			case <-r.Context().Done():
				return
			}
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"status":"success","data":{"resultType":"matrix","result":[]}}`)
	}))
	t.Cleanup(prom.Close)
	return prom, open
}

package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/storcast/storcast/exporter/config"
	"github.com/storcast/storcast/exporter/source"
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

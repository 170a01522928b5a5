package source

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/storcast/storcast/exporter/config"
	"github.com/storcast/storcast/internal/testtool"
)

// TestSwiftReadOnlyOnPrometheus: statsd_exporter creates a Swift method's
// series at its first request, so a cluster that only served GETs since
// the exporter started has no PUT series at all. Through a real
// Prometheus, its writes read 0 (features.Current then makes a busy,
// read-only observation), not missing data that marks the source down; a
// cluster none of whose series exist still reads as missing data.
func TestSwiftReadOnlyOnPrometheus(t *testing.T) {
	const gets, bytesPerGet, secondsPerGet = 200.0, 4096.0, 0.003 // per second
	p, r := backfilled(t, func(w io.Writer, t0 time.Time, k float64) {
		lbl := `type="object",method="GET",policy="all",swift_cluster="s1"`
		fmt.Fprintf(w, "swift_proxy_count{%s} %g %d\n", lbl, gets*k, t0.Unix())
		fmt.Fprintf(w, "swift_proxy_transfer{%s} %g %d\n", lbl, gets*bytesPerGet*k, t0.Unix())
		fmt.Fprintf(w, "swift_proxy_sum{%s} %g %d\n", lbl, gets*secondsPerGet*k, t0.Unix())
	})

	cl := testCluster(t, `swift_cluster="s1"`)
	cl.Kind = config.KindSwift
	fr, err := p.Fetch(context.Background(), cl, r)
	if err != nil {
		t.Fatal(err)
	}
	for sig, want := range map[string]float64{ReadOps: gets, ReadBytes: gets * bytesPerGet, WriteOps: 0, WriteBytes: 0} {
		if v, ok := fr.Last(sig, 1); !ok || math.Abs(v-want) > 1e-9*math.Max(want, 1) {
			t.Errorf("%s: %v (ok %v), want %v", sig, v, ok, want)
		}
	}

	none := testCluster(t, `swift_cluster="s2"`)
	none.Kind = config.KindSwift
	fr, err = p.Fetch(context.Background(), none, r)
	if err != nil {
		t.Fatal(err)
	}
	for _, sig := range []string{ReadOps, WriteOps, ReadBytes, WriteBytes} {
		if v, ok := fr.Last(sig, r.N()); ok {
			t.Errorf("%s of a cluster with no series: %v, want missing", sig, v)
		}
	}
}

// TestSwiftErrorsAreNotLoad: through a real Prometheus, the proxy's 503s
// (the cluster failed them) and 499s (the client went away) are no served
// IOPS or bytes; the latency takes every answer but the 499s': a 503
// after the node timeout is the overload the SLO is for, a 499's length
// the client's patience.
func TestSwiftErrorsAreNotLoad(t *testing.T) {
	type class struct {
		status           string
		rate, bytes, lat float64 // per second, per request
	}
	classes := []class{{"200", 150, 4096, 0.004}, {"404", 10, 0, 0.002}, {"503", 40, 0, 10}, {"499", 5, 1024, 30}}
	p, r := backfilled(t, func(w io.Writer, t0 time.Time, k float64) {
		for _, c := range classes {
			lbl := `type="object",method="GET",policy="all",status="` + c.status + `",swift_cluster="s1"`
			fmt.Fprintf(w, "swift_proxy_count{%s} %g %d\n", lbl, c.rate*k, t0.Unix())
			fmt.Fprintf(w, "swift_proxy_transfer{%s} %g %d\n", lbl, c.rate*c.bytes*k, t0.Unix())
			fmt.Fprintf(w, "swift_proxy_sum{%s} %g %d\n", lbl, c.rate*c.lat*k, t0.Unix())
		}
	})
	cl := testCluster(t, `swift_cluster="s1"`)
	cl.Kind = config.KindSwift
	fr, err := p.Fetch(context.Background(), cl, r)
	if err != nil {
		t.Fatal(err)
	}
	served := classes[0].rate + classes[1].rate
	answered := served + classes[2].rate
	lat := (classes[0].rate*classes[0].lat + classes[1].rate*classes[1].lat + classes[2].rate*classes[2].lat) / answered
	for sig, want := range map[string]float64{ReadOps: served, ReadBytes: classes[0].rate * classes[0].bytes, WriteOps: 0, Latency: lat} {
		if v, ok := fr.Last(sig, 1); !ok || math.Abs(v-want) > 1e-9*math.Max(want, 1) {
			t.Errorf("%s: %v (ok %v), want %v", sig, v, ok, want)
		}
	}
}

// TestDiskRequestsOnPrometheus: the hosts' merged and completed block
// requests (the sequential share) through a real Prometheus count the
// physical disks of the hosts the roles select, each host once: not an
// LVM volume above a disk (dm-0 counts sda's requests again and merges
// none: the share read half), not a host of another cluster that
// hosts.matchers alone lets in, and a host in two roles once.
func TestDiskRequestsOnPrometheus(t *testing.T) {
	// Per second: host, device, reads merged, writes merged, reads completed, writes completed.
	disks := []struct {
		host, device   string
		rm, wm, rc, wc float64
	}{
		{"h1", "sda", 100, 200, 300, 400},
		{"h1", "dm-0", 0, 0, 300, 400},
		{"h2", "sdb", 50, 50, 100, 100},
		{"h9", "sdc", 1000, 0, 0, 0}, // another cluster's host
	}
	p, r := backfilled(t, func(w io.Writer, t0 time.Time, k float64) {
		for _, d := range disks {
			lbl := fmt.Sprintf(`job="node",instance=%q,device=%q`, d.host, d.device)
			for name, rate := range map[string]float64{"reads_merged": d.rm, "writes_merged": d.wm, "reads_completed": d.rc, "writes_completed": d.wc} {
				fmt.Fprintf(w, "node_disk_%s_total{%s} %g %d\n", name, lbl, rate*k, t0.Unix())
			}
		}
	})
	cl := testCluster(t, `swift_cluster="s1"`)
	cl.Kind = config.KindSwift
	osd, _ := config.ParseMatchers(`instance="h1"`)
	mon, _ := config.ParseMatchers(`instance=~"h1|h2"`)
	cl.Hosts.Roles = []config.Role{{Name: "osd", Matchers: osd}, {Name: "mon", Matchers: mon}}
	fr, err := p.Fetch(context.Background(), cl, r)
	if err != nil {
		t.Fatal(err)
	}
	for sig, want := range map[string]float64{DiskMerged: 100 + 200 + 50 + 50, DiskCompleted: 300 + 400 + 100 + 100} {
		if v, ok := fr.Last(sig, 1); !ok || math.Abs(v-want) > 1e-9*want {
			t.Errorf("%s: %v (ok %v), want %v", sig, v, ok, want)
		}
	}
}

// backfilled starts a real Prometheus on an hour of OpenMetrics samples,
// every 15 s, that write gives at each time t0 (k seconds into the hour),
// backfilled with promtool, and returns a source on it and a range of
// 1-minute steps over the hour's last 50 minutes.
func backfilled(t *testing.T, write func(w io.Writer, t0 time.Time, k float64)) (*Prometheus, Range) {
	t.Helper()
	promtool := testtool.Need(t, "promtool")
	testtool.Need(t, "prometheus")
	dir := t.TempDir()
	end := time.Now().Add(-time.Hour).Truncate(time.Hour)
	start := end.Add(-time.Hour)
	om := filepath.Join(dir, "samples.om")
	f, err := os.Create(om)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for t0, k := start, 0.0; !t0.After(end); t0, k = t0.Add(15*time.Second), k+15 {
		write(w, t0, k)
	}
	fmt.Fprintln(w, "# EOF")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	data := filepath.Join(dir, "prom")
	if out, err := exec.Command(promtool, "tsdb", "create-blocks-from", "openmetrics", "-q", om, data).CombinedOutput(); err != nil {
		t.Fatalf("promtool tsdb create-blocks-from openmetrics: %v\n%s", err, out)
	}
	base := testtool.StartPrometheus(t, "", "global: {scrape_interval: 15s}\n", data)
	p, _ := testSource(t, base, func(c *config.Prometheus) { c.Timeout = 30 * time.Second })
	return p, Range{Start: start.Add(10 * time.Minute), End: end, Step: time.Minute}
}

package main

// The shards integration test: three storcast shards and a replica of shard
// 0 against one real Prometheus holding many simulated clusters, with the
// generated alert rules loaded into that Prometheus.

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/common/model"

	"github.com/storcast/storcast/alerts"
	"github.com/storcast/storcast/exporter/demo"
	"github.com/storcast/storcast/forecaster/conservation"
	"github.com/storcast/storcast/internal/testtool"
	"github.com/storcast/storcast/storagesim"
)

const (
	shardClusters = 30            // simulated clusters, one storagesim each
	shardTotal    = 3             // storcast shards; a fourth process replicates shard 0
	shardLookback = 6 * time.Hour // history backfilled, and fit.lookback
)

// shardClusterName is the name of simulated cluster i; its series carry the
// label sim=<name>.
func shardClusterName(i int) string { return fmt.Sprintf("cluster-%02d", i) }

// TestIntegrationShards: every configured cluster is forecast by exactly
// the shard its name hashes to; the replica of shard 0 fits the same window
// to the same values as its twin; StorcastShardMismatch, evaluated by the
// real Prometheus from the generated rule file, stays silent, stays silent
// when one of the two shard-0 replicas stops, and fires for exactly shard
// 2's clusters when shard 2 stops.
func TestIntegrationShards(t *testing.T) {
	testtool.Need(t, "prometheus")
	promtool := testtool.Need(t, "promtool")
	dir := t.TempDir()
	sc, err := storagesim.LoadScenario("growth")
	if err != nil {
		t.Fatal(err)
	}
	// One host per cluster: the query engine's host statistics are then
	// exact whatever order it sums hosts in. Prometheus 2.x (Debian's)
	// assembles a range query's inner aggregation in map order, so with
	// several hosts the same query's mean, std and sum differ in their last
	// bits between evaluations, the twins' inputs differ, and a fit's
	// discrete choices can take that to 1e-6 (docs/operations.md, "HA
	// replicas and the backend's summation order"). What is compared below
	// is storcast's own determinism on one input window.
	sc.Cluster.Hosts = 1
	now := time.Now()
	origin := now.Add(-shardLookback).Truncate(backfillStep)
	end := now.Add(-time.Minute).Truncate(backfillStep)

	// One storagesim per cluster (seed i), served live, its history written
	// per 2 h block; the blocks of all clusters are merged so that promtool
	// runs once per block, not once per cluster and block.
	t0 := time.Now()
	var simAddrs []string
	perBlock := map[string][]string{} // block file name -> one file per cluster
	for i := range shardClusters {
		sim, err := storagesim.New(sc, int64(100+i), origin)
		if err != nil {
			t.Fatal(err)
		}
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		srv := &http.Server{Handler: sim.Handler()}
		go func() { _ = srv.Serve(l) }()
		t.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
		simAddrs = append(simAddrs, l.Addr().String())
		files, err := storagesim.WriteHistoryBlocks(filepath.Join(dir, "history", shardClusterName(i)), sim, origin, end, backfillStep, 2*time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			perBlock[filepath.Base(f)] = append(perBlock[filepath.Base(f)], f)
		}
	}
	data := filepath.Join(dir, "prom")
	blocks := slices.Sorted(func(yield func(string) bool) {
		for b := range perBlock {
			if !yield(b) {
				return
			}
		}
	})
	for _, b := range blocks {
		merged := filepath.Join(dir, "history", b)
		if err := mergeHistory(merged, perBlock[b]); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(promtool, "tsdb", "create-blocks-from", "openmetrics", "-q", merged, data).CombinedOutput(); err != nil {
			t.Fatalf("promtool tsdb create-blocks-from openmetrics %s: %v\n%s", merged, err, out)
		}
	}
	t.Logf("%d clusters: %s of history each at %s, written and backfilled (%d merged blocks) in %s",
		shardClusters, shardLookback, backfillStep, len(blocks), time.Since(t0).Round(time.Millisecond))

	// The shipped rules, with StorcastShardMismatch's "for" at 0 so that the
	// test waits for Prometheus's evaluation rather than 5 minutes.
	th, err := alerts.ParseThresholds([]byte("shards:\n  mismatch_for: 0s\n"), "test thresholds")
	if err != nil {
		t.Fatal(err)
	}
	rules, err := alerts.Generate(th, "test thresholds")
	if err != nil {
		t.Fatal(err)
	}
	rulesPath := filepath.Join(dir, "storcast.rules.yml")
	if err := os.WriteFile(rulesPath, rules, 0o644); err != nil {
		t.Fatal(err)
	}

	bin := buildStorcast(t, dir)
	// Processes 0..2 are shards 0..2; process 3 is the replica of shard 0.
	procShard := []int{0, 1, 2, 0}
	var addrs []string
	for range procShard {
		addrs = append(addrs, testtool.FreeAddr(t))
	}
	var cfg strings.Builder
	fmt.Fprintf(&cfg, "global:\n  scrape_interval: %s\n  evaluation_interval: 5s\nrule_files: ['%s']\nscrape_configs:\n", scrapeEvery, rulesPath)
	fmt.Fprintf(&cfg, "  - job_name: storcast\n    static_configs:\n      - targets: ['%s']\n", strings.Join(addrs, "', '"))
	for i, a := range simAddrs {
		fmt.Fprintf(&cfg, "  - job_name: sim-%02d\n    scrape_interval: 10s\n    http_sd_configs: [{url: 'http://%s/sd'}]\n    relabel_configs: [{target_label: sim, replacement: %s}]\n", i, a, shardClusterName(i))
	}
	base := testtool.StartPrometheus(t, "", cfg.String(), data)
	t.Cleanup(func() {
		// Where the fit time goes, for the report and for a slow run.
		if res, err := testtool.Query(base, `avg by (model) (storcast_model_fit_duration_seconds)`, time.Time{}); err == nil {
			for _, s := range res {
				t.Logf("mean fit duration of %s: %.2f s", s.Metric["model"], s.Value)
			}
		}
	})

	// One configuration for every process: the 30 clusters.
	cal, err := conservation.MarshalCalibration(demo.Calibration(sc))
	if err != nil {
		t.Fatal(err)
	}
	calPath := filepath.Join(dir, "calibration.yml")
	if err := os.WriteFile(calPath, cal, 0o644); err != nil {
		t.Fatal(err)
	}
	var cl strings.Builder
	for i := range shardClusters {
		n := shardClusterName(i)
		fmt.Fprintf(&cl, `  - name: %s
    kind: ceph
    matchers: ['sim="%s"', 'job="ceph"']
    hosts:
      matchers: ['sim="%s"', 'job="node"']
      roles: [{name: osd}]
    latency_slo: {threshold: %s, latency: op}
    calibration: {file: %s}
`, n, n, n, time.Duration(sc.SLOSeconds*float64(time.Second)), calPath)
	}
	// fit.interval 1h and accuracy_threshold 0: each process fits each
	// cluster once, at start, so that the twins' fits can be compared.
	storcastCfg := fmt.Sprintf(`prometheus: {url: %s, timeout: 60s}
fit: {interval: 1h, stale_after: 3h, lookback: %s, step: %s, refresh_interval: 15s, accuracy_threshold: 0}
clusters:
%s`, base, model.Duration(shardLookback), backfillStep, cl.String())
	cfgPath := filepath.Join(dir, "storcast.yml")
	if err := os.WriteFile(cfgPath, []byte(storcastCfg), 0o644); err != nil {
		t.Fatal(err)
	}

	// The twins must fit in the same fit.step for their windows to be the
	// same: start them at least 15 s into a step (the last live samples
	// before its start are stored by then) and 100 s before its end (the
	// first fits took up to 70 s on a 2-core machine at load 11).
	if into := time.Duration(time.Now().UnixNano()) % backfillStep; into < 15*time.Second || into > backfillStep-100*time.Second {
		wait := (backfillStep-into)%backfillStep + 15*time.Second
		if into < 15*time.Second {
			wait = 15*time.Second - into
		}
		t.Logf("waiting %s, to 15 s into a %s step, so that the twins fit the same window", wait.Round(time.Second), backfillStep)
		time.Sleep(wait)
	}
	var procs []*testtool.Process
	for p, s := range procShard {
		args := []string{"--config.file=" + cfgPath, "--web.listen-address=" + addrs[p],
			"--state.dir=" + filepath.Join(dir, fmt.Sprintf("state-%d", p)), "--shard.total=" + strconv.Itoa(shardTotal)}
		if p == 3 {
			// The replica takes its index from a StatefulSet-style name.
			args = append(args, "--shard.from-name=storcast-b-"+strconv.Itoa(s))
		} else {
			args = append(args, "--shard.index="+strconv.Itoa(s))
		}
		procs = append(procs, testtool.Start(t, fmt.Sprintf("storcast-%d", p), bin, args...))
	}
	for p, pr := range procs {
		pr.WaitHTTP("http://"+addrs[p]+"/-/healthy", 30*time.Second)
	}

	// Expected assignment, from the pinned hash.
	assigned := map[int][]string{}
	for i := range shardClusters {
		n := shardClusterName(i)
		assigned[shardOf(n, shardTotal)] = append(assigned[shardOf(n, shardTotal)], n)
	}
	t.Logf("clusters per shard: %d, %d, %d", len(assigned[0]), len(assigned[1]), len(assigned[2]))
	for s := range shardTotal {
		if len(assigned[s]) == 0 {
			t.Fatalf("shard %d has no cluster: the test would not show it", s)
		}
	}
	series := shardClusters + len(assigned[0]) // the replica exports shard 0's again

	// Every process scraped, and every process has fitted every cluster it
	// has (trend and insideout fit on the backfilled history).
	waitSeries(t, base, `storcast_cluster_shard_index`, series, 2*time.Minute)
	waitSeries(t, base, `storcast_model_training_samples{model="insideout"}`, series, 3*time.Minute)
	waitSeries(t, base, `storcast_model_training_samples{model="trend"}`, series, time.Minute)
	t.Logf("all processes scraped and fitted after %s", time.Since(t0).Round(time.Second))

	// Exactly one shard per cluster, and the right one on the right process.
	res, err := testtool.Query(base, `storcast_cluster_shard_index`, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	byCluster := map[string][]string{}
	for _, s := range res {
		c, inst := s.Metric["cluster"], s.Metric["instance"]
		p := slices.Index(addrs, inst)
		want := shardOf(c, shardTotal)
		if p < 0 || procShard[p] != want || s.Value != float64(want) {
			t.Errorf("%s forecast by %s (process %d) with shard index %v; it hashes to shard %d", c, inst, p, s.Value, want)
		}
		byCluster[c] = append(byCluster[c], inst)
	}
	for i := range shardClusters {
		n := shardClusterName(i)
		want := 1
		if shardOf(n, shardTotal) == 0 {
			want = 2 // the twins
		}
		if len(byCluster[n]) != want {
			t.Errorf("%s forecast by processes %v, want %d", n, byCluster[n], want)
		}
	}
	for p, s := range procShard {
		v := queryOne(t, base, fmt.Sprintf(`storcast_clusters_assigned{instance="%s"}`, addrs[p]))
		if int(v) != len(assigned[s]) {
			t.Errorf("process %d (shard %d): storcast_clusters_assigned %v, want %d", p, s, v, len(assigned[s]))
		}
		// The other shards' clusters are not fitted there.
		others, err := testtool.Query(base, fmt.Sprintf(`storcast_source_up{instance="%s"}`, addrs[p]), time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range others {
			if shardOf(o.Metric["cluster"], shardTotal) != s {
				t.Errorf("process %d (shard %d) exports storcast_source_up of %s, shard %d's", p, s, o.Metric["cluster"], shardOf(o.Metric["cluster"], shardTotal))
			}
		}
		if len(others) != len(assigned[s]) {
			t.Errorf("process %d (shard %d): storcast_source_up for %d clusters, want %d", p, s, len(others), len(assigned[s]))
		}
	}

	// The twins: same window (their fits in the same fit.step), then the
	// same fitted values to the bit: cross-validated and backtest accuracies
	// (k-fold splits, IRLS, M-LISP's resampling) and sample counts.
	twinA, twinB := addrs[0], addrs[3]
	for _, c := range assigned[0] {
		fitA := queryOne(t, base, fmt.Sprintf(`storcast_model_last_fit_timestamp_seconds{cluster="%s",model="insideout",instance="%s"}`, c, twinA))
		fitB := queryOne(t, base, fmt.Sprintf(`storcast_model_last_fit_timestamp_seconds{cluster="%s",model="insideout",instance="%s"}`, c, twinB))
		step := backfillStep.Seconds()
		if int64(fitA/step) != int64(fitB/step) {
			t.Fatalf("%s: the twins fitted in different %s steps (%v, %v): their windows differ, so the comparison below would mean nothing", c, backfillStep, fitA, fitB)
		}
		for _, name := range []string{"storcast_model_accuracy_ratio", "storcast_model_training_samples"} {
			a := seriesValues(t, base, fmt.Sprintf(`%s{cluster="%s",instance="%s"}`, name, c, twinA))
			b := seriesValues(t, base, fmt.Sprintf(`%s{cluster="%s",instance="%s"}`, name, c, twinB))
			if len(a) < 2 {
				t.Errorf("%s{cluster=%q}: only %d series on shard 0: nothing to compare", name, c, len(a))
			}
			if fmt.Sprint(a) != fmt.Sprint(b) {
				t.Errorf("%s{cluster=%q} differs between the twins:\n%v\n%v", name, c, a, b)
			}
		}
	}

	// The rule is loaded and evaluated, and silent.
	waitRuleEvaluated(t, base, "StorcastShardMismatch", time.Now())
	if firing := mismatchAlerts(t, base); len(firing) != 0 {
		t.Errorf("StorcastShardMismatch with every shard up: %v", firing)
	}

	// One shard-0 twin stops: the other still forecasts its clusters.
	stopProcess(t, procs[0])
	waitSeries(t, base, fmt.Sprintf(`up{instance="%s"} == 0`, twinA), 1, 30*time.Second)
	waitSeries(t, base, `storcast_cluster_shard_index`, shardClusters, 30*time.Second)
	waitRuleEvaluated(t, base, "StorcastShardMismatch", time.Now())
	if firing := mismatchAlerts(t, base); len(firing) != 0 {
		t.Errorf("StorcastShardMismatch with one replica of shard 0 stopped and its twin up: %v", firing)
	}

	// Shard 2 stops: its clusters are forecast by none.
	stopProcess(t, procs[2])
	deadline := time.Now().Add(45 * time.Second)
	var firing []string
	for {
		firing = mismatchAlerts(t, base)
		if len(firing) >= len(assigned[2]) || time.Now().After(deadline) {
			break
		}
		time.Sleep(2 * time.Second)
	}
	want := slices.Sorted(slices.Values(assigned[2]))
	if !slices.Equal(firing, want) {
		t.Errorf("StorcastShardMismatch firing for %v after shard 2 stopped, want its clusters %v", firing, want)
	}
	t.Logf("StorcastShardMismatch fired for shard 2's %d clusters; total %s", len(firing), time.Since(t0).Round(time.Second))
}

// mergeHistory writes to out the OpenMetrics files in (one per cluster, the
// same families in the same order) as one file, each sample line given the
// label sim=<the file's directory name>.
func mergeHistory(out string, in []string) error {
	type section struct {
		header  []string
		samples []string
	}
	var merged []section
	for fi, path := range in {
		sim := filepath.Base(filepath.Dir(path))
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		k := -1
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "# EOF":
			case strings.HasPrefix(line, "# HELP "):
				k++
				if fi == 0 {
					merged = append(merged, section{})
				} else if k >= len(merged) || merged[k].header[0] != line {
					return fmt.Errorf("%s: family %d is %q, not what %s has there", path, k, line, in[0])
				}
				if fi == 0 {
					merged[k].header = append(merged[k].header, line)
				}
			case strings.HasPrefix(line, "#"):
				if fi == 0 {
					merged[k].header = append(merged[k].header, line)
				}
			default:
				i := strings.IndexByte(line, '{')
				if i < 0 {
					return fmt.Errorf("%s: sample without labels: %q", path, line)
				}
				merged[k].samples = append(merged[k].samples, line[:i+1]+`sim="`+sim+`",`+line[i+1:])
			}
		}
		if err := sc.Err(); err != nil {
			return err
		}
	}
	var buf bytes.Buffer
	for _, s := range merged {
		for _, l := range s.header {
			buf.WriteString(l + "\n")
		}
		for _, l := range s.samples {
			buf.WriteString(l + "\n")
		}
	}
	buf.WriteString("# EOF\n")
	return os.WriteFile(out, buf.Bytes(), 0o644)
}

// queryOne is the value of an instant query that must return one sample.
func queryOne(t *testing.T, base, expr string) float64 {
	t.Helper()
	res, err := testtool.Query(base, expr, time.Time{})
	if err != nil || len(res) != 1 {
		t.Fatalf("%s: %v, err %v; want one sample", expr, res, err)
	}
	return res[0].Value
}

// seriesValues returns "labels=value" for each sample of expr, with the
// instance label left out, sorted.
func seriesValues(t *testing.T, base, expr string) []string {
	t.Helper()
	res, err := testtool.Query(base, expr, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range res {
		var ls []string
		for k, v := range s.Metric {
			if k != "instance" {
				ls = append(ls, k+"="+v)
			}
		}
		sort.Strings(ls)
		out = append(out, strings.Join(ls, ",")+"="+strconv.FormatFloat(s.Value, 'g', -1, 64))
	}
	sort.Strings(out)
	return out
}

// mismatchAlerts are the clusters StorcastShardMismatch fires for, sorted.
func mismatchAlerts(t *testing.T, base string) []string {
	t.Helper()
	res, err := testtool.Query(base, `ALERTS{alertname="StorcastShardMismatch",alertstate="firing"}`, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range res {
		out = append(out, s.Metric["cluster"])
	}
	sort.Strings(out)
	return out
}

// waitRuleEvaluated waits until Prometheus has evaluated the alerting rule
// twice after since, healthy, so that a silent alert is a result and not
// a rule not yet run.
func waitRuleEvaluated(t *testing.T, base, alert string, since time.Time) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var r struct {
			Data struct {
				Groups []struct {
					Rules []struct {
						Name           string    `json:"name"`
						Health         string    `json:"health"`
						LastError      string    `json:"lastError"`
						LastEvaluation time.Time `json:"lastEvaluation"`
					} `json:"rules"`
				} `json:"groups"`
			} `json:"data"`
		}
		if err := testtool.GetJSON(base+"/api/v1/rules?type=alert", &r); err != nil {
			t.Fatal(err)
		}
		found := false
		for _, g := range r.Data.Groups {
			for _, rule := range g.Rules {
				if rule.Name != alert {
					continue
				}
				found = true
				if rule.Health == "err" {
					t.Fatalf("%s: evaluation error: %s", alert, rule.LastError)
				}
				if rule.Health == "ok" && rule.LastEvaluation.After(since.Add(6*time.Second)) {
					return
				}
			}
		}
		if !found {
			t.Fatalf("%s is not among Prometheus's loaded rules", alert)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not evaluated within 30 s", alert)
		}
		time.Sleep(time.Second)
	}
}

// stopProcess sends SIGTERM to a process started by testtool.Start and
// waits for it to end.
func stopProcess(t *testing.T, p *testtool.Process) {
	t.Helper()
	_ = syscall.Kill(-p.Cmd.Process.Pid, syscall.SIGTERM)
	deadline := time.Now().Add(15 * time.Second)
	for !p.Exited() {
		if time.Now().After(deadline) {
			t.Fatalf("%s did not stop within 15 s of SIGTERM", p.Name)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

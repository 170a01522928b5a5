package main

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/storcast/storcast/exporter/config"
	"github.com/storcast/storcast/internal/testtool"
)

// TestShardOfIsPinned pins the hash and the assignment of a few names: a
// change of either moves clusters between shards of processes running
// different versions, so it must be a deliberate, visible change. The
// hashes of "", "a" and "foobar" are the FNV-1a 64 reference values
// (Fowler, Noll and Vo's test vectors); the rest were computed with an
// independent few-line Python FNV-1a.
func TestShardOfIsPinned(t *testing.T) {
	for _, tc := range []struct {
		name     string
		hash     uint64
		of3, of7 int
	}{
		{"", 0xcbf29ce484222325, 2, 2},
		{"a", 0xaf63dc4c8601ec8c, 1, 5},
		{"foobar", 0x85944171f73967e8, 0, 6},
		{"ceph-a", 0xbd52850ceac3b52b, 1, 2},
		{"swift-b", 0xa22e926210011e77, 0, 4},
		{"other", 0x0a24ad61c2562a55, 0, 1},
		{"prod-eu-1", 0xb4421d049b11ffd3, 2, 5},
		{"cluster-00", 0xeb2309a2a0d80c00, 1, 6},
		{"cluster-29", 0xeb2a1ea2a0de4e5d, 2, 4},
	} {
		if h := clusterHash(tc.name); h != tc.hash {
			t.Errorf("clusterHash(%q) = %#x, want %#x", tc.name, h, tc.hash)
		}
		if s := shardOf(tc.name, 3); s != tc.of3 {
			t.Errorf("shardOf(%q, 3) = %d, want %d", tc.name, s, tc.of3)
		}
		if s := shardOf(tc.name, 7); s != tc.of7 {
			t.Errorf("shardOf(%q, 7) = %d, want %d", tc.name, s, tc.of7)
		}
		if s := shardOf(tc.name, 1); s != 0 {
			t.Errorf("shardOf(%q, 1) = %d, want 0", tc.name, s)
		}
	}
}

// TestShardSplitPartitions: over 3 shards every cluster of a 1,000-name
// configuration is assigned to exactly one shard, in configuration order,
// and no shard gets more than 10% above or below its share (a binomial
// standard deviation is 1.5% of the share here: 10% is about 7 of them).
func TestShardSplitPartitions(t *testing.T) {
	cfg := &config.Config{}
	for i := range 1000 {
		cfg.Clusters = append(cfg.Clusters, config.Cluster{Name: fmt.Sprintf("cluster-%03d", i)})
	}
	seen := map[string]int{}
	for i := range 3 {
		own, rep := shard{index: i, total: 3}.split(cfg)
		if rep.Index != i || rep.Total != 3 || len(rep.Configured) != 1000 || len(rep.Assigned) != len(own.Clusters) {
			t.Fatalf("shard %d: report %d/%d, %d configured, %d assigned for %d clusters", i, rep.Index, rep.Total, len(rep.Configured), len(rep.Assigned), len(own.Clusters))
		}
		if n := len(own.Clusters); n < 300 || n > 367 {
			t.Errorf("shard %d of 3 has %d of 1000 clusters, want 333 ± 10%%", i, n)
		}
		for j, c := range own.Clusters {
			seen[c.Name]++
			if rep.Assigned[j] != c.Name || shardOf(c.Name, 3) != i {
				t.Errorf("shard %d: cluster %d is %q (report %q), hashing to %d", i, j, c.Name, rep.Assigned[j], shardOf(c.Name, 3))
			}
			if j > 0 && own.Clusters[j-1].Name >= c.Name {
				t.Errorf("shard %d: %q after %q: not in configuration order", i, c.Name, own.Clusters[j-1].Name)
			}
		}
	}
	if len(seen) != 1000 {
		t.Errorf("%d clusters assigned, want 1000", len(seen))
	}
	for n, k := range seen {
		if k != 1 {
			t.Errorf("%s assigned to %d shards", n, k)
		}
	}
	if len(cfg.Clusters) != 1000 {
		t.Errorf("split changed its input: %d clusters left", len(cfg.Clusters))
	}
}

func TestShardFlags(t *testing.T) {
	hostname := func(name string) func() (string, error) {
		return func() (string, error) { return name, nil }
	}
	for _, tc := range []struct {
		args    []string
		host    func() (string, error)
		index   int
		total   int
		wantErr string
	}{
		{args: nil, index: 0, total: 1},
		{args: []string{"--shard.total=3", "--shard.index=2"}, index: 2, total: 3},
		{args: []string{"--shard.total=3", "--shard.from-hostname"}, host: hostname("storcast-1"), index: 1, total: 3},
		{args: []string{"--shard.total=12", "--shard.from-name=storcast-eu-west-11"}, index: 11, total: 12},
		{args: []string{"--shard.total=3", "--shard.index=3"}, wantErr: "--shard.index: shard index 3 is not in 0 to 2 (--shard.total 3)"},
		{args: []string{"--shard.index=1"}, wantErr: "--shard.index: shard index 1 is not in 0 to 0 (--shard.total 1)"},
		{args: []string{"--shard.total=3", "--shard.index=-1"}, wantErr: "--shard.index: shard index -1 is not in 0 to 2 (--shard.total 3)"},
		{args: []string{"--shard.total=0"}, wantErr: "--shard.total: 0 is not a number of shards (at least 1)"},
		{args: []string{"--shard.total=3", "--shard.from-name=storcast"}, wantErr: `--shard.from-name "storcast": the name does not end in -N, a StatefulSet pod ordinal`},
		{args: []string{"--shard.total=3", "--shard.from-name=storcast-7"}, wantErr: `--shard.from-name "storcast-7": shard index 7 is not in 0 to 2 (--shard.total 3)`},
		{args: []string{"--shard.total=3", "--shard.from-hostname"}, host: hostname("node4.example.org"), wantErr: `--shard.from-hostname (hostname "node4.example.org"): the name does not end in -N, a StatefulSet pod ordinal`},
		{args: []string{"--shard.total=3", "--shard.from-hostname"}, host: func() (string, error) { return "", errors.New("uname failed") }, wantErr: "--shard.from-hostname: reading the hostname: uname failed"},
		{args: []string{"--shard.total=3", "--shard.index=1", "--shard.from-name=storcast-1"}, wantErr: "--shard.index, --shard.from-hostname and --shard.from-name each give the shard index: use one"},
		// An unset $(POD_NAME) gives an empty name: refused, not shard 0.
		{args: []string{"--shard.total=3", "--shard.from-name="}, wantErr: `--shard.from-name "": the name does not end in -N, a StatefulSet pod ordinal`},
		// Arguments left over are refused: "--demo false" ran the demo.
		{args: []string{"--demo", "false"}, wantErr: `unexpected argument "false": storcast takes flags only (a boolean flag is set false as --flag=false; the configuration file is --config.file)`},
		{args: []string{"storcast.yml"}, wantErr: `unexpected argument "storcast.yml": storcast takes flags only (a boolean flag is set false as --flag=false; the configuration file is --config.file)`},
		// Ignored before: the check flag alone started the server; a
		// negative age put the demo's origin in the future, with no data.
		{args: []string{"--config.check.remote"}, wantErr: "--config.check.remote: only with --config.check (it adds the queries' check to it; without, storcast would start serving)"},
		{args: []string{"--demo", "--demo.age=-150h"}, wantErr: "--demo.age: -150h0m0s is negative: it is how long ago the demo cluster started (its scenario's origin would lie in the future, with no data until then)"},
		// --shard.from-hostname=false gives no index: --shard.index does.
		{args: []string{"--shard.total=3", "--shard.from-hostname=false", "--shard.index=1"}, index: 1, total: 3},
	} {
		host := tc.host
		if host == nil {
			host = hostname("unused")
		}
		old := osHostname
		osHostname = host
		var errb strings.Builder
		o, code, ok := parseFlags(tc.args, &errb)
		osHostname = old
		if tc.wantErr != "" {
			if ok || code != 2 || errb.String() != "storcast: "+tc.wantErr+"\n" {
				t.Errorf("%v: ok %v, exit %d, stderr %q; want exit 2 and %q", tc.args, ok, code, errb.String(), tc.wantErr)
			}
			continue
		}
		if !ok {
			t.Errorf("%v: refused: %s", tc.args, errb.String())
			continue
		}
		if o.shard.index != tc.index || o.shard.total != tc.total {
			t.Errorf("%v: shard %d of %d, want %d of %d", tc.args, o.shard.index, o.shard.total, tc.index, tc.total)
		}
	}
}

// TestShardServesItsClustersAcrossAReload runs storcast as shard 1 of 3:
// /api/v1/clusters and /metrics hold only its clusters, the shard series
// say which shard it is, and a reload that adds clusters keeps the shard.
func TestShardServesItsClustersAcrossAReload(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "storcast.yml")
	write := func(names ...string) {
		var cl []string
		for _, n := range names {
			cl = append(cl, "{name: "+n+", kind: ceph}")
		}
		if err := os.WriteFile(cfgPath, []byte(`prometheus: {url: "http://127.0.0.1:1", timeout: 1s, retries: 0}
fit: {refresh_interval: 1s}
state_dir: `+filepath.Join(dir, "state")+`
clusters: [`+strings.Join(cl, ", ")+`]
`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Of these, ceph-a, a and cluster-00 hash to shard 1 of 3 (see
	// TestShardOfIsPinned); swift-b, other and foobar to 0; prod-eu-1 to 2.
	write("ceph-a", "swift-b", "other", "prod-eu-1")
	addr := "127.0.0.1:" + testtool.FreePort(t)
	errb := runInProcess(t, addr, "--config.file="+cfgPath, "--web.listen-address="+addr, "--shard.total=3", "--shard.index=1")
	base := "http://" + addr
	check := func(stage string, assigned, others []string) {
		t.Helper()
		_, clusters := get(t, base+"/api/v1/clusters")
		_, metrics := get(t, base+"/metrics")
		for _, want := range []string{"storcast_shard_index 1\n", "storcast_total_shards 3\n", fmt.Sprintf("storcast_clusters_assigned %d\n", len(assigned))} {
			if !strings.Contains(metrics, want) {
				t.Errorf("%s: /metrics lacks %q", stage, want)
			}
		}
		for _, n := range assigned {
			if !strings.Contains(clusters, `"name":"`+n+`"`) {
				t.Errorf("%s: /api/v1/clusters lacks %s, assigned to this shard: %s", stage, n, clusters)
			}
			for _, want := range []string{`storcast_cluster_shard_index{cluster="` + n + `"} 1`, `storcast_source_up{cluster="` + n + `"}`, `storcast_cluster_configured{cluster="` + n + `"} 1`} {
				if !strings.Contains(metrics, want) {
					t.Errorf("%s: /metrics lacks %s", stage, want)
				}
			}
		}
		for _, n := range others {
			if strings.Contains(clusters, `"name":"`+n+`"`) {
				t.Errorf("%s: /api/v1/clusters lists %s, another shard's cluster", stage, n)
			}
			if strings.Contains(metrics, `storcast_source_up{cluster="`+n+`"}`) || strings.Contains(metrics, `storcast_cluster_shard_index{cluster="`+n+`"}`) {
				t.Errorf("%s: /metrics exports another shard's cluster %s", stage, n)
			}
			if !strings.Contains(metrics, `storcast_cluster_configured{cluster="`+n+`"} 1`) {
				t.Errorf("%s: /metrics lacks storcast_cluster_configured of %s", stage, n)
			}
		}
	}
	// The engine publishes a cluster's snapshot on its first refresh: wait
	// for readiness.
	waitStatus(t, base+"/-/ready", 200, 10*time.Second, errb.String)
	check("start", []string{"ceph-a"}, []string{"swift-b", "other", "prod-eu-1"})

	write("ceph-a", "swift-b", "other", "prod-eu-1", "a", "foobar", "cluster-00")
	resp, err := http.Post(base+"/-/reload", "", nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("reload: %v %v", resp, err)
	}
	resp.Body.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, m := get(t, base+"/metrics"); strings.Contains(m, `storcast_source_up{cluster="cluster-00"}`) && strings.Contains(m, `storcast_source_up{cluster="a"}`) {
			break
		}
		if time.Now().After(deadline) {
			break // check reports what is missing
		}
		time.Sleep(100 * time.Millisecond)
	}
	check("after reload", []string{"ceph-a", "a", "cluster-00"}, []string{"swift-b", "other", "prod-eu-1", "foobar"})
}

// TestShardWithoutClustersIsReady: a shard the configuration gives no
// cluster answers /-/ready 200 (there is nothing to wait for) and exports
// storcast_clusters_assigned 0.
func TestShardWithoutClustersIsReady(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "storcast.yml")
	// ceph-a hashes to shard 1 of 3, swift-b and other to 0: none to 2.
	if err := os.WriteFile(cfgPath, []byte(`prometheus: {url: "http://127.0.0.1:1", timeout: 1s, retries: 0}
state_dir: `+filepath.Join(dir, "state")+`
clusters: [{name: ceph-a, kind: ceph}, {name: swift-b, kind: ceph}, {name: other, kind: ceph}]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := "127.0.0.1:" + testtool.FreePort(t)
	runInProcess(t, addr, "--config.file="+cfgPath, "--web.listen-address="+addr, "--shard.total=3", "--shard.from-name=storcast-2")
	base := "http://" + addr
	if code, body := get(t, base+"/-/ready"); code != 200 || !strings.Contains(body, "no cluster is assigned to this shard") {
		t.Errorf("/-/ready of a shard without clusters: %d %q", code, body)
	}
	_, metrics := get(t, base+"/metrics")
	for _, want := range []string{"storcast_shard_index 2\n", "storcast_clusters_assigned 0\n", `storcast_cluster_configured{cluster="other"} 1`} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	if strings.Contains(metrics, "storcast_cluster_shard_index{") {
		t.Errorf("a shard without clusters exports storcast_cluster_shard_index")
	}
}

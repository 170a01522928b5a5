package config

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// TestInvalidConfigs loads every testdata/invalid-*.yml, then checks its
// files as start-up and --config.check do, and expects the exact error
// message given on its first line ("# error: ...").
func TestInvalidConfigs(t *testing.T) {
	files, err := filepath.Glob("testdata/invalid-*.yml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata/invalid-*.yml: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			fh, err := os.Open(f)
			if err != nil {
				t.Fatal(err)
			}
			line, _ := bufio.NewReader(fh).ReadString('\n')
			fh.Close()
			want, ok := strings.CutPrefix(strings.TrimRight(line, "\n"), "# error: ")
			if !ok {
				t.Fatalf("first line %q is not '# error: <message>'", line)
			}
			c, err := Load(f, nil)
			if err == nil {
				err = c.CheckFiles()
			}
			if err == nil {
				t.Fatalf("loaded without error; want %q", want)
			}
			if err.Error() != want {
				t.Errorf("error\n got: %s\nwant: %s", err, want)
			}
		})
	}
}

func TestValidFull(t *testing.T) {
	c, err := Load("testdata/valid-full.yml", nil)
	if err != nil {
		t.Fatal(err)
	}
	c.StateDir = t.TempDir() // the file's /var/lib/storcast need not exist here
	if err := c.CheckFiles(); err != nil {
		t.Fatal(err)
	}
	if a := c.Prometheus.HTTPConfig.Authorization; a == nil || string(a.Credentials) != "s3cret" {
		got := a
		t.Errorf("bearer token %q", got)
	}
	if !c.Prometheus.HTTPConfig.TLSConfig.InsecureSkipVerify {
		t.Error("tls_config.insecure_skip_verify not decoded")
	}
	if c.Fit.Lookback != 7*24*time.Hour || c.Fit.Interval != 5*time.Minute {
		t.Errorf("fit %+v", c.Fit)
	}
	if len(c.Clusters) != 3 || c.Clusters[0].LatencySLO.Threshold != 20*time.Millisecond {
		t.Fatalf("clusters %+v", c.Clusters)
	}
	if c.Clusters[1].LatencySLO.Latency != "op" || c.Clusters[1].LatencySLO.Threshold != 50*time.Millisecond {
		t.Errorf("cluster defaults not applied: %+v", c.Clusters[1].LatencySLO)
	}
	if got := Selector(c.Clusters[0].Matchers); got != `cluster="ceph-a"` {
		t.Errorf("selector %s", got)
	}
	if c.Prometheus.Retries != 2 || c.Prometheus.MaxSeriesPerQuery != 500 || c.Prometheus.MaxResponseBytes != 64<<20 || c.Web.ListenAddress != ":9596" {
		t.Errorf("prometheus %+v web %+v", c.Prometheus, c.Web)
	}
}

// TestPrecedence: flags > environment > file > defaults.
func TestPrecedence(t *testing.T) {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	Flags(fs)
	// file sets :9596 and 5m; env overrides both; a flag overrides the address.
	t.Setenv("STORCAST_WEB_LISTEN_ADDRESS", ":7000")
	t.Setenv("STORCAST_FIT_INTERVAL", "2m")
	t.Setenv("STORCAST_FIT_STEP", "2m")
	if err := fs.Parse([]string{"--web.listen-address=:8000"}); err != nil {
		t.Fatal(err)
	}
	c, err := Load("testdata/valid-full.yml", fs)
	if err != nil {
		t.Fatal(err)
	}
	if c.Web.ListenAddress != ":8000" {
		t.Errorf("flag did not win: %s", c.Web.ListenAddress)
	}
	if c.Fit.Interval != 2*time.Minute || c.Fit.Step != 2*time.Minute {
		t.Errorf("env did not win over file: %s %s", c.Fit.Interval, c.Fit.Step)
	}
	if c.Fit.StaleAfter != 30*time.Minute {
		t.Errorf("file did not win over default: %s", c.Fit.StaleAfter)
	}
	if c.Fit.RefreshInterval != Default().Fit.RefreshInterval {
		t.Errorf("default lost: %s", c.Fit.RefreshInterval)
	}
	// An unset flag does not override the file.
	fs2 := pflag.NewFlagSet("t", pflag.ContinueOnError)
	Flags(fs2)
	os.Unsetenv("STORCAST_WEB_LISTEN_ADDRESS")
	c, err = Load("testdata/valid-full.yml", fs2)
	if err != nil {
		t.Fatal(err)
	}
	if c.Web.ListenAddress != ":9596" {
		t.Errorf("unset flag default overrode the file: %s", c.Web.ListenAddress)
	}
}

func TestDemoNeedsNoFile(t *testing.T) {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	Flags(fs)
	if err := fs.Parse([]string{"--demo"}); err != nil {
		t.Fatal(err)
	}
	c, err := Load("", fs)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Clusters) != 1 || c.Clusters[0].Name != "demo" {
		t.Errorf("demo clusters %+v", c.Clusters)
	}
}

// TestMatcherEscaping: hostile values come out as one quoted PromQL string.
func TestMatcherEscaping(t *testing.T) {
	for _, tc := range []struct{ in, out string }{
		{`cluster="a"`, `cluster="a"`},
		{`cluster=a`, `cluster="a"`},
		{`cluster='x"}) or vector(1) #'`, `cluster="x\"}) or vector(1) #"`},
		{`cluster="a\"b\\c\n"`, `cluster="a\"b\\c\n"`},
		{`instance=~"osd-[0-9]+"`, `instance=~"osd-[0-9]+"`},
		{`job != "x"`, `job!="x"`},
	} {
		m, err := ParseMatcher(tc.in)
		if err != nil {
			t.Errorf("%s: %v", tc.in, err)
			continue
		}
		if got := m.String(); got != tc.out {
			t.Errorf("%s -> %s, want %s", tc.in, got, tc.out)
		}
	}
	for _, bad := range []string{`cluster=a"}) or vector(1`, `1abc="x"`, `cluster`, `x="unterminated`} {
		if _, err := ParseMatcher(bad); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
}

// TestEnvironment: every scalar key is settable as STORCAST_<KEY>, through
// the same decoder as the file, and a bad value names the variable.
func TestEnvironment(t *testing.T) {
	keys := scalarKeys()
	for _, want := range []string{"demo", "fit.accuracy_threshold", "prometheus.retries", "prometheus.url", "state_dir", "web.listen_address"} {
		if !slices.Contains(keys, want) {
			t.Errorf("%s is not settable from the environment (keys %v)", want, keys)
		}
	}
	env := map[string]string{"STORCAST_PROMETHEUS_RETRIES": "5", "STORCAST_FIT_ACCURACY_THRESHOLD": "0.25", "STORCAST_DEMO": "true"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	c, err := load("", nil, lookup)
	if err != nil {
		t.Fatal(err)
	}
	if c.Prometheus.Retries != 5 || c.Fit.AccuracyThreshold != 0.25 || !c.Demo {
		t.Errorf("environment not applied: retries %d, threshold %v, demo %v", c.Prometheus.Retries, c.Fit.AccuracyThreshold, c.Demo)
	}
	env["STORCAST_PROMETHEUS_RETRIES"] = "1e23"
	_, err = load("", nil, lookup)
	if want := `decoding configuration: 'prometheus.retries' (from STORCAST_PROMETHEUS_RETRIES) "1e23" is not an integer`; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
	env["STORCAST_PROMETHEUS_RETRIES"] = "2"
	env["STORCAST_FIT_ACCURACY_THRESHOLD"] = "NaN"
	_, err = load("", nil, lookup)
	if want := `fit.accuracy_threshold: NaN is outside [0, 1]`; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
	// Set but empty: the file's value stands. It was decoded: an empty
	// STORCAST_WEB_CONFIG_FILE cleared the file's, serving without TLS
	// and auth; an empty duration became 0.
	dir := t.TempDir()
	file := filepath.Join(dir, "storcast.yml")
	if err := os.WriteFile(filepath.Join(dir, "web.yml"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte("web: {config_file: web.yml}\nprometheus: {url: http://p:9090, retry_backoff: 200ms}\nclusters: [{name: a, kind: ceph, matchers: ['cluster=\"a\"']}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env = map[string]string{"STORCAST_WEB_CONFIG_FILE": "", "STORCAST_PROMETHEUS_RETRY_BACKOFF": "", "STORCAST_FIT_INTERVAL": ""}
	c, err = load(file, nil, lookup)
	if err != nil {
		t.Fatal(err)
	}
	if c.Web.ConfigFile != filepath.Join(dir, "web.yml") || c.Prometheus.RetryBackoff != 200*time.Millisecond || c.Fit.Interval != Default().Fit.Interval {
		t.Errorf("empty variables applied: web config %q, retry backoff %v, fit interval %v", c.Web.ConfigFile, c.Prometheus.RetryBackoff, c.Fit.Interval)
	}
}

// TestFlagKeys: every flag sets the key it names, and a bad flag value
// names the flag.
func TestFlagKeys(t *testing.T) {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	Flags(fs) // panics on a key that does not resolve
	if err := fs.Parse([]string{"--demo", "--prometheus.url=http://p:9090", "--state.dir=/tmp/s", "--web.config.file=/tmp/w.yml", "--web.listen-address=127.0.0.1:1"}); err != nil {
		t.Fatal(err)
	}
	c, err := load("", fs, func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	if !c.Demo || c.Prometheus.URL != "http://p:9090" || c.StateDir != "/tmp/s" || c.Web.ConfigFile != "/tmp/w.yml" || c.Web.ListenAddress != "127.0.0.1:1" {
		t.Errorf("flags not applied: %+v %+v %s %v", c.Prometheus.URL, c.Web, c.StateDir, c.Demo)
	}
	fs = pflag.NewFlagSet("t", pflag.ContinueOnError)
	Flags(fs)
	if err := fs.Parse([]string{"--demo", "--web.listen-address=nope"}); err != nil {
		t.Fatal(err)
	}
	_, err = load("", fs, func(string) (string, bool) { return "", false })
	if want := `web.listen_address: "nope" is not host:port (e.g. ":9595" or "127.0.0.1:9595")`; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

// TestValidateIsPure: Validate changes nothing and reads no file: a
// calibration file that does not exist passes Validate and fails CheckFiles.
func TestValidateIsPure(t *testing.T) {
	c, err := Parse([]byte(`{prometheus: {url: "http://p:9090"}, clusters: [{name: a, kind: ceph, matchers: ['c=~"a.*"'], calibration: {file: /nonexistent/cal.yml}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	before := c.Clusters[0].SourceKey()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if after := c.Clusters[0].SourceKey(); after != before {
		t.Errorf("Validate changed the cluster:\n%s\n%s", before, after)
	}
	c.StateDir = t.TempDir()
	if err := c.CheckFiles(); err == nil || err.Error() != "clusters[0].calibration.file: /nonexistent/cal.yml: no such file or directory" {
		t.Errorf("CheckFiles: %v", err)
	}
}

// TestSourceKeyFollowsTheCalibrationFile: CheckFiles puts the calibration
// and catalog files' digests in the key, so a reload after either was
// rewritten in place refits the cluster; the same content gives the same
// key.
func TestSourceKeyFollowsTheCalibrationFile(t *testing.T) {
	dir := t.TempDir()
	cal := filepath.Join(dir, "cal.yml")
	write := func(readIOPS int) {
		t.Helper()
		y := fmt.Sprintf("points:\n  - {io_size: 4096, read_iops: %d, write_iops: 4000}\n", readIOPS)
		if err := os.WriteFile(cal, []byte(y), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	key := func() string {
		t.Helper()
		c, err := Parse([]byte(`{prometheus: {url: "http://p:9090"}, clusters: [{name: a, kind: ceph, matchers: ['c="a"'], calibration: {file: ` + cal + `}}]}`))
		if err != nil {
			t.Fatal(err)
		}
		c.StateDir = dir
		if err := c.CheckFiles(); err != nil {
			t.Fatal(err)
		}
		return c.Clusters[0].SourceKey()
	}
	write(12000)
	k1 := key()
	if k2 := key(); k2 != k1 {
		t.Errorf("the same file gave two keys:\n%s\n%s", k1, k2)
	}
	write(15000) // recalibrated in place
	if k3 := key(); k3 == k1 {
		t.Error("a rewritten calibration file left the key unchanged: a reload would not refit")
	}
}

// TestAdvisorActiveRuleSet: a rule set of the catalog is accepted, kept,
// and part of the cluster's key, so that applying another one refits.
func TestAdvisorActiveRuleSet(t *testing.T) {
	catalog, err := filepath.Abs("testdata/files/catalog.yml")
	if err != nil {
		t.Fatal(err)
	}
	cluster := func(advisor string) Cluster {
		t.Helper()
		c, err := Parse([]byte(`{prometheus: {url: "http://p:9090"}, clusters: [{name: a, kind: ceph, advisor: ` + advisor + `}]}`))
		if err != nil {
			t.Fatal(err)
		}
		c.StateDir = t.TempDir()
		if err := c.CheckFiles(); err != nil {
			t.Fatal(err)
		}
		return c.Clusters[0]
	}
	none := cluster(`{catalog_file: ` + catalog + `}`)
	active := cluster(`{catalog_file: ` + catalog + `, active_rule_set: read-window}`)
	if none.Advisor.ActiveRuleSet != "" || active.Advisor.ActiveRuleSet != "read-window" {
		t.Errorf("active rule set %q and %q, want \"\" and read-window", none.Advisor.ActiveRuleSet, active.Advisor.ActiveRuleSet)
	}
	if none.SourceKey() == active.SourceKey() {
		t.Error("applying a rule set left the cluster's key unchanged: a reload would not refit")
	}
}

// TestSourceKey: equal settings give equal keys whatever the map order or
// quoting; any source-relevant change gives a different key.
func TestSourceKey(t *testing.T) {
	parse := func(y string) Cluster {
		t.Helper()
		c, err := Parse([]byte(`{prometheus: {url: "http://p:9090"}, clusters: [` + y + `]}`))
		if err != nil {
			t.Fatal(err)
		}
		return c.Clusters[0]
	}
	base := parse(`{name: a, kind: ceph, matchers: ['c="x"'], metrics: {read_ops: r, write_ops: w}}`)
	same := parse(`{name: a, kind: ceph, matchers: ["c = x"], metrics: {write_ops: w, read_ops: r}}`)
	if base.SourceKey() != same.SourceKey() {
		t.Errorf("equal clusters, different keys:\n%s\n%s", base.SourceKey(), same.SourceKey())
	}
	for _, y := range []string{
		`{name: a, kind: ceph, matchers: ['c="y"'], metrics: {read_ops: r, write_ops: w}}`,
		`{name: a, kind: ceph, matchers: ['c!="x"'], metrics: {read_ops: r, write_ops: w}}`,
		`{name: a, kind: ceph, matchers: ['c="x"'], metrics: {read_ops: r2, write_ops: w}}`,
		`{name: a, kind: swift, matchers: ['c="x"'], metrics: {read_ops: r, write_ops: w}}`,
		`{name: a, kind: ceph, matchers: ['c="x"'], metrics: {read_ops: r, write_ops: w}, latency_slo: {threshold: 1s}}`,
		`{name: a, kind: ceph, matchers: ['c="x"'], metrics: {read_ops: r, write_ops: w}, hosts: {roles: [{name: osd}]}}`,
	} {
		if k := parse(y).SourceKey(); k == base.SourceKey() {
			t.Errorf("%s: same key as the base cluster", y)
		}
	}
}

// TestBackoff: doubling per attempt, capped at MaxRetryBackoff.
func TestBackoff(t *testing.T) {
	p := Prometheus{RetryBackoff: 10 * time.Second}
	for attempt, want := range []time.Duration{10 * time.Second, 20 * time.Second, 40 * time.Second, time.Minute, time.Minute} {
		if got := p.Backoff(attempt); got != want {
			t.Errorf("Backoff(%d) = %s, want %s", attempt, got, want)
		}
	}
	if got := (Prometheus{RetryBackoff: time.Second}).Backoff(1000); got != MaxRetryBackoff {
		t.Errorf("Backoff(1000) = %s", got)
	}
}

// TestStateDirCreatable: a state_dir that does not exist passes when it can
// be created and fails under a file.
func TestStateDirCreatable(t *testing.T) {
	dir := t.TempDir()
	if err := creatableDir(filepath.Join(dir, "a", "b")); err != nil {
		t.Error(err)
	}
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	want := file + "/x cannot be created: " + file + " is not a directory"
	if err := creatableDir(filepath.Join(file, "x")); err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

// FuzzParse: any bytes give a configuration or an error, never a panic; an
// accepted configuration validates and decodes the same way twice. Seeds:
// every testdata/*.yml.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.yml")
	if len(files) == 0 {
		f.Fatal("no seeds in testdata/*.yml")
	}
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(data)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error message")
			}
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("Parse accepted what Validate refuses: %v", err)
		}
		again, err := Parse(data)
		if err != nil {
			t.Fatalf("second Parse: %v", err)
		}
		for i := range c.Clusters {
			if c.Clusters[i].SourceKey() != again.Clusters[i].SourceKey() {
				t.Fatalf("cluster %d decodes differently twice", i)
			}
		}
	})
}

// An anchor outside prometheus.http_config used inside it loads: the
// section is encoded again for its own decoder, and the anchor was not in
// it ("unknown anchor 'p' referenced" for a valid file).
func TestAliasIntoHTTPConfig(t *testing.T) {
	file := filepath.Join(t.TempDir(), "storcast.yml")
	y := "clusters: [{name: a, kind: ceph, matchers: [&m 'cluster=\"a\"']}]\nprometheus:\n  url: http://p:9090\n  http_config:\n    http_headers: {X-Cluster: {values: [*m]}}\n"
	if err := os.WriteFile(file, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(file, nil)
	if err != nil {
		t.Fatal(err)
	}
	if h := c.Prometheus.HTTPConfig.HTTPHeaders; h == nil || len(h.Headers["X-Cluster"].Values) != 1 || h.Headers["X-Cluster"].Values[0] != `cluster="a"` {
		t.Errorf("http_headers %+v, want X-Cluster from the anchor", h)
	}
}

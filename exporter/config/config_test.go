package config

import (
	"bufio"
	"os"
	"path/filepath"
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
	if c.Prometheus.Retries != 2 || c.Prometheus.MaxSeriesPerQuery != 500 || c.Web.ListenAddress != ":9596" {
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

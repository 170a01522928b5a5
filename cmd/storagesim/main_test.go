package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	out := filepath.Join(t.TempDir(), "h.om")
	for _, tc := range []struct {
		args      []string
		code      int
		stdout    string
		stderrHas string
	}{
		{[]string{"scenarios"}, 0, "closed-loop\ngrowth\ngrowth-interference\ninterference\nmix-shift\nscale-out\nsteady\nswift\n", ""},
		{[]string{"check", "--scenario", "growth"}, 0, "scenario growth (growth): OK\n", ""},
		{[]string{"check", "--scenario", "../../storagesim/testdata/invalid-knee.yml"}, 1, "", "latency.knee_factor: 1, must be > 1"},
		{[]string{"check", "--scenario", "nope"}, 1, "", `scenario "nope": not a shipped scenario`},
		{[]string{"frobnicate"}, 2, "", `unknown command "frobnicate"`},
		{[]string{"serve", "--log.level", "loud"}, 2, "", `invalid value "loud" for flag -log.level: unrecognized log level loud`},
		{[]string{"serve", "--log.format", "xml"}, 2, "", `invalid value "xml" for flag -log.format: unrecognized log format xml`},
		{[]string{"serve", "--start", "yesterday"}, 2, "", "--start:"},
		{[]string{"history", "--step", "0s"}, 2, "", `--step: "0s" is not a positive duration`},
		{[]string{"history", "--scenario", "steady", "--end", "1767571200", "--duration", "10m", "--step", "1m", "--out", out}, 0, "", "history written"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(tc.args, &stdout, &stderr)
		if code != tc.code || (tc.stdout != "" && stdout.String() != tc.stdout) || !strings.Contains(stderr.String(), tc.stderrHas) {
			t.Errorf("storagesim %s: exit %d, stdout %q, stderr %q; want exit %d, stdout %q, stderr containing %q",
				strings.Join(tc.args, " "), code, stdout.String(), stderr.String(), tc.code, tc.stdout, tc.stderrHas)
		}
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasSuffix(data, []byte("# EOF\n")) || !bytes.Contains(data, []byte(`ceph_pool_rd{instance="ceph-mgr:9283",job="ceph",pool_id="1"} `)) {
		t.Errorf("history output malformed: %d bytes", len(data))
	}
	// 11 instants (10m at 1m, both ends), ending at --end.
	if n := bytes.Count(data, []byte(`ceph_pool_rd{instance="ceph-mgr:9283",job="ceph",pool_id="1"} `)); n != 11 {
		t.Errorf("%d samples of ceph_pool_rd{pool_id=1}, want 11", n)
	}
	if !bytes.Contains(data, []byte(" 1767571200\n")) {
		t.Errorf("history does not end at --end 1767571200")
	}
}

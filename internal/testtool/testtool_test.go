package testtool

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestNeedTakesTheFirstAlternativeFound(t *testing.T) {
	sh := Need(t, "storcast-no-such-program", "sh")
	if filepath.Base(sh) != "sh" {
		t.Errorf("Need(no-such-program, sh) = %q, want a path to sh", sh)
	}
}

func TestFreeAddrIsLoopback(t *testing.T) {
	if a := FreeAddr(t); !strings.HasPrefix(a, "127.0.0.1:") || a == "127.0.0.1:0" {
		t.Errorf("FreeAddr = %q", a)
	}
	if a, err := FindFreeAddr(); err != nil || !strings.HasPrefix(a, "127.0.0.1:") || a == "127.0.0.1:0" {
		t.Errorf("FindFreeAddr = %q, %v", a, err)
	}
}

// TestFreePortBelowTheEphemeralRange: the port can be listened on and,
// where the kernel's ephemeral range can be read and leaves room, comes
// from below it (outgoing connections never take it between the test's
// asking and its server's binding); elsewhere from the kernel (port 0).
func TestFreePortBelowTheEphemeralRange(t *testing.T) {
	lo, ok := ephemeralLow()
	below := ok && lo > minFixedPort+1000
	for range 20 {
		p, err := strconv.Atoi(FreePort(t))
		if err != nil || p <= 0 || below && (p < minFixedPort || p >= lo) {
			t.Fatalf("FreePort = %d (%v), want a port in [%d, %d) (range read: %v)", p, err, minFixedPort, lo, below)
		}
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
		if err != nil {
			t.Fatalf("port %d from FreePort: %v", p, err)
		}
		l.Close()
	}
}

// TestStartPrometheusQueryAndStop starts the real Prometheus in a subtest,
// queries it, and checks that the subtest's cleanup stopped it.
func TestStartPrometheusQueryAndStop(t *testing.T) {
	bin := Need(t, "prometheus")
	var p *Process
	t.Run("running", func(t *testing.T) {
		addr := FreeAddr(t)
		cfg := filepath.Join(t.TempDir(), "prometheus.yml")
		if err := os.WriteFile(cfg, []byte("scrape_configs: []\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		p = Start(t, "prometheus", bin, "--config.file="+cfg, "--storage.tsdb.path="+t.TempDir(),
			"--web.listen-address="+addr, "--log.level=warn")
		p.WaitHTTP("http://"+addr+"/-/ready", 90*time.Second)
		res, err := Query("http://"+addr, `label_replace(vector(42), "k", "v", "", "")`, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		if len(res) != 1 || res[0].Value != 42 || res[0].Metric["k"] != "v" {
			t.Errorf("query result %+v, want one sample {k=\"v\"} 42", res)
		}
		if _, err := Query("http://"+addr, `sum(`, time.Time{}); err == nil || !strings.Contains(err.Error(), "HTTP 400") {
			t.Errorf("a bad expression: error %v, want HTTP 400", err)
		}
		if p.Exited() {
			t.Error("prometheus exited while the test ran")
		}
	})
	if p != nil && !p.Exited() {
		t.Errorf("prometheus still running after the test's cleanup")
	}
}

func TestStartPrometheus(t *testing.T) {
	base := StartPrometheus(t, "", "scrape_configs: []\n", t.TempDir())
	at := time.Now().Add(-time.Minute).Truncate(time.Second)
	res, err := Query(base, "time()", at)
	if err == nil {
		t.Errorf("time() is a scalar; Query returned %v, want an error", res)
	}
	res, err = Query(base, "vector(time())", at)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].Value != float64(at.Unix()) {
		t.Errorf("vector(time()) at %s = %+v, want %d", at, res, at.Unix())
	}
}

// groupTestPGIDFile, when set, makes TestStartedGroupDiesWithTheTestBinary
// the test binary that dies: it starts a group, writes the group's id to
// this file and waits for its -test.timeout.
const groupTestPGIDFile = "TESTTOOL_GROUP_TEST_PGID_FILE"

// TestStartedGroupDiesWithTheTestBinary re-runs this test binary, which
// starts a shell with a background job through Start and then times out
// (the timeout's panic runs no cleanup, as with Ctrl-C, SIGTERM or
// SIGKILL): the whole group, the shell's background job included, must go
// with it.
func TestStartedGroupDiesWithTheTestBinary(t *testing.T) {
	if path := os.Getenv(groupTestPGIDFile); path != "" {
		p := Start(t, "sleepers", "sh", "-c", "sleep 600 & sleep 600")
		if err := os.WriteFile(path, []byte(strconv.Itoa(p.Cmd.Process.Pid)), 0o644); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Hour) // until -test.timeout
		return
	}
	path := filepath.Join(t.TempDir(), "pgid")
	cmd := exec.Command(os.Args[0], "-test.run=^TestStartedGroupDiesWithTheTestBinary$", "-test.timeout=3s")
	cmd.Env = append(os.Environ(), groupTestPGIDFile+"="+path)
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "test timed out") {
		t.Fatalf("the test binary did not time out: %v\n%s", err, out)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the test binary wrote no group id: %v\n%s", err, out)
	}
	pgid, err := strconv.Atoi(string(b))
	if err != nil {
		t.Fatal(err)
	}
	// Whatever the outcome, nothing of it is left running.
	t.Cleanup(func() { _ = syscall.Kill(-pgid, syscall.SIGKILL) })
	deadline := time.Now().Add(10 * time.Second)
	for groupAlive(pgid) {
		if time.Now().After(deadline) {
			t.Fatalf("process group %d still has live members 10 s after the test binary that started it died", pgid)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

package testtool

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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

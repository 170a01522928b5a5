package testtool

import (
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// Need returns the path of program, or of the first of alternatives found
// when program is not on PATH (Debian names some programs differently, e.g.
// prometheus-alertmanager). When none is found it fails the test under
// CI=true and skips it otherwise.
func Need(t testing.TB, program string, alternatives ...string) string {
	t.Helper()
	names := append([]string{program}, alternatives...)
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	what := strings.Join(names, " or ")
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s not on PATH (install it: scripts/install-test-deps.sh)", what)
	}
	t.Skipf("%s not on PATH; skipping (CI=true makes this a failure)", what)
	return ""
}

// FreePort returns a TCP port on 127.0.0.1 that was free when asked, from
// below the kernel's ephemeral range when there is room: a port the kernel
// hands out (port 0) goes back to the pool it gives outgoing connections
// their local ports from, and a test that started its server a minute
// later (after a backfill, waiting for a step) found it taken by one of
// Prometheus's scrapes ("bind: address already in use").
func FreePort(t testing.TB) string {
	t.Helper()
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	return port
}

// freePort is FreePort's choice, failing with an error.
func freePort() (string, error) {
	if lo, ok := ephemeralLow(); ok && lo > minFixedPort+1000 {
		for range 50 {
			port := minFixedPort + rand.IntN(lo-minFixedPort)
			if l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port)); err == nil {
				l.Close()
				return strconv.Itoa(port), nil
			}
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port), nil
}

// minFixedPort is the lowest port FreePort picks itself: above the
// well-known and most registered services' ports.
const minFixedPort = 20000

// ephemeralLow is the lowest port of the kernel's ephemeral range (Linux's
// ip_local_port_range); ok is false where it cannot be read.
func ephemeralLow() (int, bool) {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(b))
	if len(f) != 2 {
		return 0, false
	}
	lo, err := strconv.Atoi(f[0])
	return lo, err == nil
}

// FreeAddr returns "127.0.0.1:port" with a port from FreePort.
func FreeAddr(t testing.TB) string {
	t.Helper()
	return "127.0.0.1:" + FreePort(t)
}

// FindFreeAddr is FreeAddr for what has no test to fail: a server that
// TestMain or a sync.Once shared by tests starts.
func FindFreeAddr() (string, error) {
	port, err := freePort()
	if err != nil {
		return "", err
	}
	return "127.0.0.1:" + port, nil
}

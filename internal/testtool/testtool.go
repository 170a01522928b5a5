package testtool

import (
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

// FreePort returns a TCP port on 127.0.0.1 that was free when asked.
func FreePort(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

// FreeAddr returns "127.0.0.1:port" with a port from FreePort.
func FreeAddr(t testing.TB) string {
	t.Helper()
	return "127.0.0.1:" + FreePort(t)
}

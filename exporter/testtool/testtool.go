// Package testtool finds the real programs tests run (prometheus, promtool,
// victoria-metrics) on PATH: a missing one fails the test when CI=true and
// skips it otherwise.
package testtool

import (
	"net"
	"os"
	"os/exec"
	"strconv"
	"testing"
)

// Need returns the path of program, or ends the test.
func Need(t testing.TB, program string) string {
	t.Helper()
	p, err := exec.LookPath(program)
	if err == nil {
		return p
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s not on PATH (install it: scripts/install-test-deps.sh)", program)
	}
	t.Skipf("%s not on PATH; skipping (CI=true makes this a failure)", program)
	return ""
}

// FreePort returns a free TCP port on 127.0.0.1.
func FreePort(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

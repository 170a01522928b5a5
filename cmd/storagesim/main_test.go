package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/storcast/storcast/internal/testtool"
)

func TestRun(t *testing.T) {
	out := filepath.Join(t.TempDir(), "h.om")
	for _, tc := range []struct {
		args      []string
		code      int
		stdout    string
		stderrHas string
	}{
		{[]string{"scenarios"}, 0, "closed-loop\ngrowth\ngrowth-diurnal\ngrowth-interference\ninterference\nmix-shift\nscale-out\nsteady\nswift\n", ""},
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

// syncBuffer is the output of a process or of run, read while it writes.
type syncBuffer = testtool.SyncBuffer

// storagesim serve closes a kept-alive connection that stays idle for
// idleTimeout: an idle client does not hold a goroutine for ever.
func TestServeClosesIdleConnections(t *testing.T) {
	defer func(d time.Duration) { idleTimeout = d }(idleTimeout)
	idleTimeout = 300 * time.Millisecond

	var stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"serve", "--scenario", "steady", "--web.listen-address", "127.0.0.1:0"}, io.Discard, &stderr)
	}()
	addrRE := regexp.MustCompile(`address=(127\.0\.0\.1:[0-9]+)`)
	var addr string
	for deadline := time.Now().Add(30 * time.Second); addr == ""; time.Sleep(20 * time.Millisecond) {
		if m := addrRE.FindStringSubmatch(stderr.String()); m != nil {
			addr = m[1]
		}
		select {
		case code := <-done:
			t.Fatalf("serve exited with %d: %s", code, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not log its address: %s", stderr.String())
		}
	}
	defer func() {
		// serve stops on SIGINT (signal.NotifyContext, registered before it
		// logged its address, so the signal does not end the test binary).
		if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		select {
		case code := <-done:
			if code != 0 {
				t.Errorf("serve exited with %d: %s", code, stderr.String())
			}
		case <-time.After(30 * time.Second):
			t.Error("serve did not stop on SIGINT")
		}
	}()

	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "GET /truth HTTP/1.1\r\nHost: storagesim\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(io.Discard, resp.Body); err != nil || resp.StatusCode != 200 || resp.Close {
		t.Fatalf("/truth: HTTP %d, close %v, %v", resp.StatusCode, resp.Close, err)
	}
	resp.Body.Close()
	// The connection is kept alive and idle now; the server must close it.
	idle := time.Now()
	if err := conn.SetReadDeadline(idle.Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	n, err := br.Read(make([]byte, 1))
	if !errors.Is(err, io.EOF) {
		t.Fatalf("idle kept-alive connection: read %d bytes, %v after %s; want the server to close it (EOF) after %s",
			n, err, time.Since(idle).Round(time.Millisecond), idleTimeout)
	}
	if d := time.Since(idle); d < idleTimeout/2 {
		t.Errorf("connection closed %s after the response, before the idle timeout %s", d, idleTimeout)
	}
}

// The server of storagesim serve bounds every phase of a connection.
func TestServerTimeouts(t *testing.T) {
	srv := newServer(http.NotFoundHandler())
	if srv.ReadHeaderTimeout <= 0 || srv.ReadTimeout <= 0 || srv.WriteTimeout <= 0 || srv.IdleTimeout <= 0 {
		t.Errorf("server timeouts: header %s, read %s, write %s, idle %s; want all set",
			srv.ReadHeaderTimeout, srv.ReadTimeout, srv.WriteTimeout, srv.IdleTimeout)
	}
	if srv.WriteTimeout < time.Minute {
		t.Errorf("write timeout %s: a scrape that first re-integrates the counters needs seconds to a minute", srv.WriteTimeout)
	}
}

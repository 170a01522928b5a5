package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/storcast/storcast/exporter/config"
	"github.com/storcast/storcast/internal/testtool"
	"github.com/storcast/storcast/storagesim"
)

// syncBuffer is the output of a process or of run, read while it writes.
type syncBuffer = testtool.SyncBuffer

func TestConfigCheck(t *testing.T) {
	var out, errb syncBuffer
	if code := run([]string{"--config.check", "--config.file=../../exporter/config/testdata/valid-full.yml"}, &out, &errb, nil); code != 0 {
		t.Errorf("valid config: exit %d, stderr %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "configuration OK: 3 cluster(s)") {
		t.Errorf("stdout %q", out.String())
	}
	errb = syncBuffer{}
	if code := run([]string{"--config.check", "--config.file=../../exporter/config/testdata/invalid-unknown-kind.yml"}, io.Discard, &errb, nil); code != 1 {
		t.Errorf("invalid config: exit %d", code)
	}
	if want := `clusters[0].kind: unknown kind "lustre" (want ceph, swift or generic)`; !strings.Contains(errb.String(), want) {
		t.Errorf("stderr %q lacks %q", errb.String(), want)
	}
	if code := run([]string{"--no-such-flag"}, io.Discard, io.Discard, nil); code != 2 {
		t.Errorf("unknown flag: exit %d, want 2", code)
	}
	errb = syncBuffer{}
	if code := run([]string{"--demo", "--log.level=loud"}, io.Discard, &errb, nil); code != 2 || !strings.Contains(errb.String(), "unrecognized log level loud") {
		t.Errorf("bad --log.level: exit %d, stderr %q", code, errb.String())
	}
}

// TestConfigCheckFiles: --config.check runs the file checks too: a web
// config exporter-toolkit refuses, a state_dir under a file and a demo
// scenario that does not exist fail it.
func TestConfigCheckFiles(t *testing.T) {
	dir := t.TempDir()
	webCfg := filepath.Join(dir, "web.yml")
	if err := os.WriteFile(webCfg, []byte("tls_server_config:\n  cert_file: nope.crt\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--web.config.file=" + webCfg}, "storcast: configuration: web.config_file: " + webCfg + ": missing one of key or key_file\n"},
		{[]string{"--web.config.file=" + filepath.Join(dir, "nope.yml")}, "storcast: configuration: web.config_file: " + filepath.Join(dir, "nope.yml") + ": no such file or directory\n"},
		{[]string{"--state.dir=" + filepath.Join(webCfg, "state")}, "storcast: configuration: state_dir: " + filepath.Join(webCfg, "state") + " cannot be created: " + webCfg + " is not a directory\n"},
		{[]string{"--demo.scenario=typo"}, "storcast: configuration: --demo.scenario: scenario \"typo\": not a shipped scenario (have " + strings.Join(storagesim.ScenarioNames(), ", ") + ") and not a file path\n"},
	} {
		var errb syncBuffer
		args := append([]string{"--config.check", "--demo", "--state.dir=" + dir}, tc.args...)
		if code := run(args, io.Discard, &errb, nil); code != 1 || errb.String() != tc.want {
			t.Errorf("%v: exit %d, stderr %q; want exit 1, %q", tc.args, code, errb.String(), tc.want)
		}
	}
}

// TestConfigCheckBuildsThePrometheusClient: --config.check builds the HTTP
// client to Prometheus as start-up does, so a CA file that opens but is not
// a certificate fails the check (it passed, and the start then failed).
func TestConfigCheckBuildsThePrometheusClient(t *testing.T) {
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(ca, []byte("not a cert\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfgPath := filepath.Join(dir, "storcast.yml")
	if err := os.WriteFile(cfgPath, []byte(`prometheus:
  url: "https://127.0.0.1:1"
  http_config: {tls_config: {ca_file: `+ca+`}}
state_dir: `+filepath.Join(dir, "state")+`
clusters: [{name: a, kind: ceph}]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	var errb syncBuffer
	if code := run([]string{"--config.file=" + cfgPath, "--config.check"}, io.Discard, &errb, nil); code != 1 ||
		!strings.HasPrefix(errb.String(), "storcast: configuration: ") || !strings.Contains(errb.String(), "CA") {
		t.Errorf("a CA file that is no certificate: exit %d, stderr %q; want exit 1 naming it", code, errb.String())
	}
}

// TestReloadRefusesNewListenAddress: a reload that moves the listen address
// fails with the reason and keeps serving on the old one.
func TestReloadRefusesNewListenAddress(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "storcast.yml")
	addr := "127.0.0.1:" + testtool.FreePort(t)
	write := func(listen string) {
		if err := os.WriteFile(cfgPath, []byte(`prometheus: {url: "http://127.0.0.1:1", retries: 0}
state_dir: `+filepath.Join(dir, "state")+`
web: {listen_address: "`+listen+`"}
clusters: [{name: a, kind: ceph}]
`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(addr)
	errb := runInProcess(t, addr, "--config.file="+cfgPath)
	base := "http://" + addr
	other := "127.0.0.1:" + testtool.FreePort(t)
	write(other)
	resp, err := http.Post(base+"/-/reload", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	want := `web.listen_address: changed from "` + addr + `" to "` + other + `"; a reload does not move the listener: restart storcast to apply it`
	if resp.StatusCode != 500 || !strings.Contains(string(body), want) {
		t.Errorf("reload to a new address: %d %q; want 500 with %q", resp.StatusCode, body, want)
	}
	if !strings.Contains(errb.String(), "reload failed; keeping the running configuration") {
		t.Errorf("no log line for the refused reload:\n%s", errb.String())
	}
	if code, _ := get(t, base+"/-/healthy"); code != 200 {
		t.Errorf("old address no longer served: %d", code)
	}
}

func get(t *testing.T, u string) (int, string) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestReloadDemoOffQueriesPrometheus: a reload that switches demo off with
// the same prometheus section builds the Prometheus source (the source is
// kept across reloads only while the query backend is the same): the
// clusters then query the configured Prometheus, not the simulator.
func TestReloadDemoOffQueriesPrometheus(t *testing.T) {
	// A Prometheus that counts the range queries it is sent and answers
	// each with no series.
	var queries atomic.Int64
	fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/api/v1/query_range") {
			queries.Add(1)
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"status":"success","data":{"resultType":"matrix","result":[]}}`)
	}))
	defer fake.Close()
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "storcast.yml")
	write := func(demo bool) {
		body := fmt.Sprintf("demo: %v\nprometheus: {url: %q, timeout: 1s, retries: 0}\nfit: {refresh_interval: 1s}\nstate_dir: %s\nclusters: [{name: a, kind: ceph}]\n",
			demo, fake.URL, filepath.Join(dir, "state"))
		if err := os.WriteFile(cfgPath, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(true)
	addr := "127.0.0.1:" + testtool.FreePort(t)
	errb := runInProcess(t, addr, "--config.file="+cfgPath, "--web.listen-address="+addr)
	base := "http://" + addr
	waitStatus(t, base+"/-/ready", 200, 60*time.Second, errb.String)
	if n := queries.Load(); n != 0 {
		t.Fatalf("the demo sent %d queries to the configured Prometheus", n)
	}
	write(false)
	resp, err := http.Post(base+"/-/reload", "", nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("reload to demo off: %v %v; stderr %s", resp, err, errb.String())
	}
	resp.Body.Close()
	deadline := time.Now().Add(20 * time.Second)
	for queries.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("demo off: no query reached the configured Prometheus; stderr %s", errb.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitStatus polls url until it answers code, failing the test after
// within with the last answer and diag (storcast's output).
func waitStatus(t *testing.T, url string, code int, within time.Duration, diag func() string) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		got, _ := get(t, url)
		if got == code {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET %s: %d after %v, want %d; output:\n%s", url, got, within, code, diag())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// runInProcess runs storcast (run, with args) in this process until the
// test ends, when it is stopped and its exit awaited for 30 s, and waits up
// to 60 s for /-/healthy on addr; the returned buffer is its stderr.
func runInProcess(t *testing.T, addr string, args ...string) *syncBuffer {
	t.Helper()
	errb := new(syncBuffer)
	stop := make(chan struct{})
	done := make(chan int, 1)
	go func() { done <- run(args, io.Discard, errb, stop) }()
	t.Cleanup(func() {
		close(stop)
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Error("storcast did not stop within 30 s")
		}
	})
	waitStatus(t, "http://"+addr+"/-/healthy", 200, 60*time.Second, errb.String)
	return errb
}

// TestServeReloadShutdown runs storcast against an unreachable Prometheus:
// it serves /metrics and the probes, reloads a valid configuration, keeps the
// old one on an invalid reload, exports each load's outcome
// (storcast_config_last_reload_successful), and exits 0 on stop.
func TestServeReloadShutdown(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "storcast.yml")
	write := func(s string) {
		if err := os.WriteFile(cfgPath, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(`prometheus: {url: "http://127.0.0.1:1", timeout: 1s, retries: 0}
fit: {refresh_interval: 1s}
state_dir: ` + filepath.Join(dir, "state") + `
clusters: [{name: a, kind: ceph}]
`)
	addr := "127.0.0.1:" + testtool.FreePort(t)
	stop := make(chan struct{})
	var out, errb syncBuffer
	done := make(chan int)
	go func() {
		done <- run([]string{"--config.file=" + cfgPath, "--web.listen-address=" + addr}, &out, &errb, stop)
	}()
	base := "http://" + addr
	waitStatus(t, base+"/-/healthy", 200, 10*time.Second, errb.String)
	if !strings.Contains(out.String(), "storcast listening on http://"+addr+"/") {
		t.Errorf("URL not printed: %q", out.String())
	}
	// The source is down: the exporter still serves, becomes ready once it
	// has tried, and says the source is down. (The snapshot before the first
	// attempt reports source_up 0 as well, so readiness is awaited first.)
	waitStatus(t, base+"/-/ready", 200, 10*time.Second, errb.String)
	if _, body := get(t, base+"/metrics"); !strings.Contains(body, `storcast_source_up{cluster="a"} 0`) {
		t.Errorf("no storcast_source_up 0 in /metrics after a failed refresh:\n%s", body)
	}
	if !strings.Contains(errb.String(), "refresh failed") {
		t.Errorf("failed refresh not logged: %s", errb.String())
	}
	reloadOutcome := func(when, want string) {
		t.Helper()
		if _, body := get(t, base+"/metrics"); !strings.Contains(body, "\nstorcast_config_last_reload_successful "+want+"\n") {
			t.Errorf("%s: no storcast_config_last_reload_successful %s in /metrics:\n%s", when, want, body)
		}
	}
	reloadOutcome("at start", "1")

	// Valid reload adds a cluster.
	valid := `prometheus: {url: "http://127.0.0.1:1", timeout: 1s, retries: 0}
fit: {refresh_interval: 1s}
state_dir: ` + filepath.Join(dir, "state") + `
clusters: [{name: a, kind: ceph}, {name: b, kind: swift}]
`
	write(valid)
	resp, err := http.Post(base+"/-/reload", "", nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("reload: %v %v", resp, err)
	}
	resp.Body.Close()
	_, body := get(t, base+"/api/v1/clusters")
	if !strings.Contains(body, `"name":"b"`) {
		t.Errorf("cluster b missing after reload: %s", body)
	}
	// The same query backend: cluster a's loop went on (a new source
	// would have restarted it). Again with nothing changed: both went on.
	if !strings.Contains(errb.String(), "unchanged_kept_running=1") {
		t.Errorf("reload adding b: no log line saying a's loop was kept:\n%s", errb.String())
	}
	resp, err = http.Post(base+"/-/reload", "", nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("reload unchanged: %v %v", resp, err)
	}
	resp.Body.Close()
	if !strings.Contains(errb.String(), "unchanged_kept_running=2") {
		t.Errorf("unchanged reload: no log line saying both loops were kept:\n%s", errb.String())
	}
	// Invalid reload: 500, old configuration kept.
	write("clusters: [{name: a, kind: lustre}]\n")
	resp, err = http.Post(base+"/-/reload", "", nil)
	if err != nil || resp.StatusCode != 500 {
		t.Fatalf("invalid reload: %v %v", resp, err)
	}
	resp.Body.Close()
	if _, body := get(t, base+"/api/v1/clusters"); !strings.Contains(body, `"name":"b"`) {
		t.Errorf("configuration lost after an invalid reload: %s", body)
	}
	reloadOutcome("after an invalid reload", "0")
	write(valid)
	resp, err = http.Post(base+"/-/reload", "", nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("valid reload after the invalid one: %v %v", resp, err)
	}
	resp.Body.Close()
	reloadOutcome("after a valid reload", "1")
	if resp, err := http.Get(base + "/-/reload"); err != nil || resp.StatusCode != 405 || resp.Header.Get("Allow") != "POST, PUT" {
		t.Errorf("GET /-/reload: %v %v; want 405 with Allow: POST, PUT", resp, err)
	} else {
		resp.Body.Close()
	}
	// From another site's page (a form posts without a preflight): refused.
	req, _ := http.NewRequest("POST", base+"/-/reload", nil)
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	req.Header.Set("Origin", "https://elsewhere.example")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 403 {
		t.Errorf("cross-site POST /-/reload: %v %v; want 403", resp, err)
	} else {
		resp.Body.Close()
	}

	close(stop)
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d; stderr %s", code, errb.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("did not stop")
	}
}

// TestWebConfigBasicAuth: --web.config.file (exporter-toolkit) protects our
// endpoints with basic auth, and the URL printed at start is http: without
// tls_server_config exporter-toolkit serves plain HTTP (https was printed
// for any web config file).
func TestWebConfigBasicAuth(t *testing.T) {
	dir := t.TempDir()
	hash, err := bcrypt.GenerateFromPassword([]byte("s3cret"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	webCfg := filepath.Join(dir, "web.yml")
	if err := os.WriteFile(webCfg, []byte("basic_auth_users:\n  admin: "+string(hash)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfgPath := filepath.Join(dir, "storcast.yml")
	if err := os.WriteFile(cfgPath, []byte(`prometheus: {url: "http://127.0.0.1:1", retries: 0}
state_dir: `+filepath.Join(dir, "state")+`
clusters: [{name: a, kind: ceph}]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := "127.0.0.1:" + testtool.FreePort(t)
	stop := make(chan struct{})
	done := make(chan int)
	var out syncBuffer
	go func() {
		done <- run([]string{"--config.file=" + cfgPath, "--web.listen-address=" + addr, "--web.config.file=" + webCfg}, &out, io.Discard, stop)
	}()
	defer func() { close(stop); <-done }()
	u := "http://" + addr + "/metrics"
	waitStatus(t, u, 401, 10*time.Second, func() string { return "(GET /metrics without credentials)" })
	if want := "storcast listening on http://" + addr + "/\n"; out.String() != want {
		t.Errorf("printed %q, want %q", out.String(), want)
	}
	req, _ := http.NewRequest("GET", u, nil)
	req.SetBasicAuth("admin", "s3cret")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("with credentials: %d, want 200", resp.StatusCode)
	}
}

// TestMain lets a test re-run this binary as storcast itself (for signals).
func TestMain(m *testing.M) {
	if args := os.Getenv("STORCAST_TEST_RUN_MAIN"); args != "" {
		os.Exit(run(strings.Split(args, " "), os.Stdout, os.Stderr, nil))
	}
	os.Exit(m.Run())
}

// TestSignals: storcast as its own process reloads on SIGHUP, exits 0 on
// SIGTERM and leaves no temporary state file behind.
func TestSignals(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "storcast.yml")
	if err := os.WriteFile(cfgPath, []byte(`prometheus: {url: "http://127.0.0.1:1", retries: 0}
state_dir: `+filepath.Join(dir, "state")+`
clusters: [{name: a, kind: ceph}]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := "127.0.0.1:" + testtool.FreePort(t)
	cmd, out := startMain(t, "--config.file="+cfgPath+" --web.listen-address="+addr)
	waitStatus(t, "http://"+addr+"/-/healthy", 200, 20*time.Second, out.String)
	if err := os.WriteFile(cfgPath, []byte(`prometheus: {url: "http://127.0.0.1:1", retries: 0}
state_dir: `+filepath.Join(dir, "state")+`
clusters: [{name: a, kind: ceph}, {name: b, kind: ceph}]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, body := get(t, "http://"+addr+"/api/v1/clusters"); strings.Contains(body, `"name":"b"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("SIGHUP did not reload:\n%s", out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.waitExit(30 * time.Second); err != nil {
		t.Errorf("exit after SIGTERM: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), `msg="shutting down" signal=terminated`) || !strings.Contains(out.String(), "msg=stopped") {
		t.Errorf("no clean shutdown in the log:\n%s", out.String())
	}
	if tmp, _ := filepath.Glob(filepath.Join(dir, "state", "*.tmp")); len(tmp) > 0 {
		t.Errorf("temporary state files left: %v", tmp)
	}
}

// startMain starts this test binary as storcast (TestMain runs main with
// args from STORCAST_TEST_RUN_MAIN), its output in out. A test that fails
// before stopping it leaves it to the cleanup, which kills it.
func startMain(t *testing.T, args string) (*mainProcess, *syncBuffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "STORCAST_TEST_RUN_MAIN="+args)
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &mainProcess{Cmd: cmd, exited: make(chan struct{})}
	go func() { p.err = cmd.Wait(); close(p.exited) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-p.exited
	})
	return p, out
}

// mainProcess is a storcast process of startMain.
type mainProcess struct {
	*exec.Cmd
	exited chan struct{}
	err    error // its exit, once exited is closed
}

// waitExit waits up to d for the process to exit and returns its error;
// past d it kills it: a shutdown that hangs (what the signal tests look
// for) fails the test, not the whole go test run at its limit.
func (p *mainProcess) waitExit(d time.Duration) error {
	select {
	case <-p.exited:
		return p.err
	case <-time.After(d):
		p.Process.Kill()
		<-p.exited
		return fmt.Errorf("not exited %s after the signal: killed", d)
	}
}

// TestSIGHUPDuringStartUp: a SIGHUP while storcast starts (here while the
// demo builds its history; in production while the saved state loads)
// neither kills it (Go's default action, before the handler was installed
// once serving) nor is lost: it starts, serves and reloads.
func TestSIGHUPDuringStartUp(t *testing.T) {
	cmd, out, addr := startDemoStarting(t)
	if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if code, _ := get(t, "http://"+addr+"/-/healthy"); code == 200 && strings.Contains(out.String(), "configuration reloaded") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not serving and reloaded after a SIGHUP at start-up:\n%s", out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.waitExit(30 * time.Second); err != nil || !strings.Contains(out.String(), "msg=stopped") {
		t.Errorf("exit after SIGTERM: %v\n%s", err, out.String())
	}
}

// TestWebScheme: the scheme printed at start is https exactly when the web
// config's tls_server_config enables TLS, as exporter-toolkit decides.
func TestWebScheme(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, body, want string }{
		{"basic auth", "basic_auth_users:\n  admin: $2y$10$x\n", "http"},
		{"http server settings", "http_server_config:\n  http2: false\n", "http"},
		{"tls", "tls_server_config:\n  cert_file: s.crt\n  key_file: s.key\n", "https"},
		{"tls and basic auth", "tls_server_config:\n  cert_file: s.crt\n  key_file: s.key\nbasic_auth_users:\n  admin: $2y$10$x\n", "https"},
	} {
		path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".yml")
		if err := os.WriteFile(path, []byte(tc.body), 0o644); err != nil {
			t.Fatal(err)
		}
		if got, err := webScheme(path); err != nil || got != tc.want {
			t.Errorf("%s: %q %v, want %q", tc.name, got, err, tc.want)
		}
	}
	if got, err := webScheme(""); err != nil || got != "http" {
		t.Errorf("no web config: %q %v, want http", got, err)
	}
}

// TestBusyPortStartsNothing: a second instance on a port in use exits 1
// naming the address before its engine starts: its saved state is not
// read (an unreadable state file, which a start sets aside, stays as it
// is). It restored the state and started the loops first, and returned
// without stopping them.
func TestBusyPortStartsNothing(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	addr := busy.Addr().String()
	dir := t.TempDir()
	stateDir := filepath.Join(dir, "state")
	if err := os.MkdirAll(stateDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(stateDir, "a.json"), []byte("not a state file"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfgPath := filepath.Join(dir, "storcast.yml")
	if err := os.WriteFile(cfgPath, []byte(`prometheus: {url: "http://127.0.0.1:1", retries: 0}
state_dir: `+stateDir+`
clusters: [{name: a, kind: ceph}]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	var errb syncBuffer
	code := run([]string{"--config.file=" + cfgPath, "--web.listen-address=" + addr}, io.Discard, &errb, nil)
	if want := "listen tcp " + addr + ": bind: address already in use"; code != 1 || !strings.Contains(errb.String(), want) {
		t.Errorf("exit %d, stderr %q; want exit 1 with %q", code, errb.String(), want)
	}
	entries, err := os.ReadDir(stateDir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"a.json"}) {
		t.Errorf("state_dir holds %v, want [a.json] untouched: the engine started", names)
	}
}

// TestSIGTERMAfterSIGHUPAtStartUp: a SIGHUP then a SIGTERM sent while
// storcast starts stop it, exit 0. Both shared one channel of one slot,
// unread until serving: the SIGTERM found it full of the SIGHUP and was
// dropped, and storcast reloaded and never stopped.
func TestSIGTERMAfterSIGHUPAtStartUp(t *testing.T) {
	cmd, out, _ := startDemoStarting(t)
	for _, s := range []os.Signal{syscall.SIGHUP, syscall.SIGTERM} {
		if err := cmd.Process.Signal(s); err != nil {
			t.Fatal(err)
		}
	}
	// A bound on the wait, not on speed: the demo builds its history first.
	if err := cmd.waitExit(60 * time.Second); err != nil || !strings.Contains(out.String(), `msg="shutting down" signal=terminated`) {
		t.Errorf("exit after SIGHUP and SIGTERM at start-up: %v\n%s", err, out.String())
	}
}

// TestUnchangedReloadWithOAuth2KeepsLoops: with an oauth2 block (a
// proxy_url in it) in prometheus.http_config, a reload of the same file
// after the first token fetch keeps every loop. prometheus/common stores a
// proxy func in the *OAuth2 that the running configuration shared with the
// source at that fetch, so the running section never equalled a freshly
// loaded one: every reload replaced the source and restarted every loop.
func TestUnchangedReloadWithOAuth2KeepsLoops(t *testing.T) {
	var withToken atomic.Int64
	prom := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "Bearer t0ken" {
			withToken.Add(1)
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"status":"success","data":{"resultType":"matrix","result":[]}}`)
	}))
	defer prom.Close()
	// The proxy answers every request as the token endpoint: token_url's
	// own address refuses connections, so a token comes through it only.
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"access_token":"t0ken","token_type":"Bearer","expires_in":3600}`)
	}))
	defer proxy.Close()
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "storcast.yml")
	if err := os.WriteFile(cfgPath, []byte(fmt.Sprintf(`prometheus:
  url: %q
  timeout: 2s
  retries: 0
  http_config:
    oauth2: {client_id: storcast, client_secret: s3cret, token_url: "http://127.0.0.1:1/token", proxy_url: %q}
fit: {refresh_interval: 1s}
state_dir: %s
clusters: [{name: a, kind: ceph}, {name: b, kind: ceph}]
`, prom.URL, proxy.URL, filepath.Join(dir, "state"))), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := "127.0.0.1:" + testtool.FreePort(t)
	errb := runInProcess(t, addr, "--config.file="+cfgPath, "--web.listen-address="+addr)
	deadline := time.Now().Add(30 * time.Second)
	for withToken.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("no query with the token reached Prometheus:\n%s", errb.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	resp, err := http.Post("http://"+addr+"/-/reload", "", nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("unchanged reload: %v %v\n%s", resp, err, errb.String())
	}
	resp.Body.Close()
	if !strings.Contains(errb.String(), "unchanged_kept_running=2") {
		t.Errorf("unchanged reload: no log line saying both loops were kept:\n%s", errb.String())
	}
}

// TestSettingsDigest: the digest tells settings apart by every value,
// secrets and a proxy URL's password included (prometheus/common writes
// both redacted in YAML and JSON), and ignores the proxy func that
// prometheus/common stores at first use.
func TestSettingsDigest(t *testing.T) {
	load := func(httpConfig string) config.Prometheus {
		t.Helper()
		c, err := config.Parse([]byte("clusters: [{name: a, kind: ceph}]\nprometheus:\n  url: http://prom:9090\n  http_config: " + httpConfig + "\n"))
		if err != nil {
			t.Fatal(err)
		}
		return c.Prometheus
	}
	const oauth2 = `{oauth2: {client_id: c, client_secret: %s, token_url: "http://idp/token", proxy_url: "http://u:%s@proxy:3128"}}`
	base := load(fmt.Sprintf(oauth2, "s1", "p1"))
	if settingsDigest(base) != settingsDigest(load(fmt.Sprintf(oauth2, "s1", "p1"))) {
		t.Error("the same settings give two digests")
	}
	for _, other := range []string{fmt.Sprintf(oauth2, "s2", "p1"), fmt.Sprintf(oauth2, "s1", "p2")} {
		if settingsDigest(base) == settingsDigest(load(other)) {
			t.Errorf("%s: the digest of %s", other, fmt.Sprintf(oauth2, "s1", "p1"))
		}
	}
	used := load(fmt.Sprintf(oauth2, "s1", "p1"))
	if used.HTTPConfig.OAuth2.Proxy() == nil { // what the round tripper does at its first token fetch
		t.Fatal("no proxy func")
	}
	if settingsDigest(used) != settingsDigest(base) {
		t.Error("the proxy func stored at first use changes the digest")
	}
}

// TestConfigCheckRemoteNamesEmptyQueries: against a real Prometheus that
// holds nothing of the cluster (the README's matcher on someone else's
// Prometheus), --config.check.remote names each query that selects no
// series and exits 1; --config.check alone still says OK.
func TestConfigCheckRemoteNamesEmptyQueries(t *testing.T) {
	testtool.Need(t, "prometheus")
	dir := t.TempDir()
	base := testtool.StartPrometheus(t, "", "global: {scrape_interval: 5s}\n", filepath.Join(dir, "prom"))
	cfgPath := filepath.Join(dir, "storcast.yml")
	if err := os.WriteFile(cfgPath, []byte(`prometheus: {url: "`+base+`"}
state_dir: `+filepath.Join(dir, "state")+`
clusters:
  - {name: ceph-prod, kind: ceph, matchers: ['cluster="ceph-prod"']}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	var out syncBuffer
	if code := run([]string{"--config.file=" + cfgPath, "--config.check"}, &out, io.Discard, nil); code != 0 {
		t.Fatalf("--config.check: exit %d: %s", code, out.String())
	}
	out = syncBuffer{}
	code := run([]string{"--config.file=" + cfgPath, "--config.check", "--config.check.remote"}, &out, io.Discard, nil)
	got := out.String()
	if code != 1 {
		t.Errorf("--config.check.remote: exit %d, want 1:\n%s", code, got)
	}
	for _, want := range []string{
		"ceph-prod\tread_ops\tEMPTY\tsum(rate(ceph_osd_op_r{cluster=\"ceph-prod\"}",
		"ceph-prod\twrite_bytes\tEMPTY",
		"remote check: 4 required queries (ops or bytes) select nothing",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
}

func TestRemovedClusters(t *testing.T) {
	cfg := func(names ...string) *config.Config {
		c := &config.Config{}
		for _, n := range names {
			c.Clusters = append(c.Clusters, config.Cluster{Name: n})
		}
		return c
	}
	if got := removedClusters(cfg("a", "b", "c"), cfg("b", "d")); !slices.Equal(got, []string{"a", "c"}) {
		t.Errorf("removed %v, want [a c]", got)
	}
	if got := removedClusters(cfg("a"), cfg("a")); len(got) != 0 {
		t.Errorf("removed %v, want none", got)
	}
}

// startDemoStarting starts storcast --demo on a free address and returns
// once it logged "starting storcast": its start-up (the demo building its
// history) is still going on, signals not yet read by a server.
func startDemoStarting(t *testing.T) (*mainProcess, *syncBuffer, string) {
	t.Helper()
	addr := "127.0.0.1:" + testtool.FreePort(t)
	cmd, out := startMain(t, "--demo --state.dir="+t.TempDir()+" --web.listen-address="+addr)
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(out.String(), "starting storcast") {
		if time.Now().After(deadline) {
			t.Fatalf("no start:\n%s", out.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	return cmd, out, addr
}

// TestFailedDemoStartRemovesItsData: a demo whose start fails after its
// in-process Prometheus was made (here its calibration cannot be written:
// a directory stands where the file goes) exits 1 and leaves no
// storcast-demo-* directory in TMPDIR; each such failed start left one.
func TestFailedDemoStartRemovesItsData(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	state := t.TempDir()
	if err := os.Mkdir(filepath.Join(state, "demo-calibration.yml"), 0o755); err != nil {
		t.Fatal(err)
	}
	var errb syncBuffer
	if code := run([]string{"--demo", "--state.dir=" + state, "--web.listen-address=127.0.0.1:0"}, io.Discard, &errb, nil); code != 1 || !strings.Contains(errb.String(), "demo: ") {
		t.Fatalf("exit %d, stderr %q; want exit 1 and the demo's error", code, errb.String())
	}
	left, err := filepath.Glob(filepath.Join(tmp, "storcast-demo-*"))
	if err != nil || len(left) != 0 {
		t.Errorf("left behind in TMPDIR: %v (%v)", left, err)
	}
}

package testtool

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// logTail is how much of a process's log a failed test prints.
const logTail = 8000

// Process is a program started by Start.
type Process struct {
	Name string    // the name given to Start, used in messages
	Log  string    // path of the file holding its stdout and stderr
	Cmd  *exec.Cmd // the started command

	t     testing.TB
	group *Group
}

// Start runs bin with args in its own process group (StartGroup: killed
// when the test binary dies without its cleanups), its stdout and stderr
// going to a log file named after name. At cleanup the group gets SIGTERM,
// then SIGKILL after 10 s; when the test failed, the tail of the log is
// printed.
func Start(t testing.TB, name, bin string, args ...string) *Process {
	t.Helper()
	logPath := filepath.Join(t.TempDir(), name+".log")
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	g, err := StartGroup(cmd)
	logf.Close() // the process has its own descriptor
	if err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	p := &Process{Name: name, Log: logPath, Cmd: cmd, t: t, group: g}
	t.Cleanup(func() {
		g.Stop(10 * time.Second)
		if t.Failed() {
			t.Logf("--- %s log (last %d bytes) ---\n%s", name, logTail, p.tail())
		}
	})
	return p
}

// Exited reports whether the process has ended.
func (p *Process) Exited() bool {
	select {
	case <-p.group.Done():
		return true
	default:
		return false
	}
}

// tail is the end of the process's log.
func (p *Process) tail() []byte {
	b, _ := os.ReadFile(p.Log)
	if len(b) > logTail {
		b = append([]byte("...\n"), b[len(b)-logTail:]...)
	}
	return b
}

// WaitHTTP waits until GET url answers 200. It fails the test when the
// process exits first (printing its log tail) or after timeout.
func (p *Process) WaitHTTP(url string, timeout time.Duration) {
	p.t.Helper()
	deadline := time.Now().Add(timeout)
	// A listener that accepts and never answers must not hold the wait
	// past its deadline (http.Get has no timeout of its own).
	client := &http.Client{Timeout: 2 * time.Second}
	for {
		resp, err := client.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if p.Exited() {
			p.t.Fatalf("%s exited before %s answered:\n%s", p.Name, url, p.tail())
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("%s: %s not ready after %s: %v", p.Name, url, timeout, err)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/storcast/storcast/exporter/apiv1"
	"github.com/storcast/storcast/internal/testtool"
)

// readmeRecipe returns the shell lines between the README's recipe markers.
func readmeRecipe(t *testing.T, root string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(data), "<!-- recipe -->\n```sh\n")
	block, _, ok2 := strings.Cut(rest, "```\n<!-- end recipe -->")
	if !ok || !ok2 || !strings.Contains(block, "bin/storcast") {
		t.Fatal("README.md has no recipe block between <!-- recipe --> and <!-- end recipe -->")
	}
	return block
}

// TestREADMERecipe runs the README's "try it with your own Prometheus"
// lines verbatim in bash (ports and directory from the environment, as the
// recipe allows) and waits until every model of the cluster has fitted.
func TestREADMERecipe(t *testing.T) {
	testtool.Need(t, "prometheus")
	testtool.Need(t, "promtool")
	testtool.Need(t, "make")
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	script := readmeRecipe(t, root)
	dir := t.TempDir()
	storcast := testtool.FreeAddr(t)
	cmd := exec.Command("bash", "-e", "-c", script)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "DIR="+dir, "SIM="+testtool.FreeAddr(t), "PROM="+testtool.FreeAddr(t), "STORCAST="+storcast)
	// A file, not a buffer: the processes left in the background keep the
	// output open, and Wait would wait for them to close a pipe.
	out := logFile{filepath.Join(dir, "recipe.log")}
	f, err := os.Create(out.path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd.Stdout, cmd.Stderr = f, f
	// Its own process group: the recipe leaves storagesim, Prometheus and
	// storcast running in the background; the cleanup stops them all.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Stopped and waited for: the temporary directory's removal (a cleanup
	// registered earlier, so run after this one) fails while Prometheus or
	// storcast still write into it.
	t.Cleanup(func() { stopGroup(cmd.Process.Pid, 10*time.Second) })
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the recipe failed: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "remote check OK") {
		t.Errorf("--config.check.remote did not pass:\n%s", out.String())
	}
	want := []string{"conservation", "insideout", "queueing", "mlisp", "trend", "saturation"}
	deadline := time.Now().Add(5 * time.Minute)
	for {
		var env struct {
			Data []apiv1.Cluster `json:"data"`
		}
		err := testtool.GetJSON("http://"+storcast+"/api/v1/clusters", &env)
		var missing []string
		if err == nil && len(env.Data) == 1 {
			for _, m := range want {
				if st := env.Data[0].Models[m]; !st.Fitted {
					missing = append(missing, m+" ("+st.Waiting+st.Error+")")
				}
			}
			if len(missing) == 0 {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 5 minutes: %v; not fitted: %v\n%s", err, missing, out.String())
		}
		time.Sleep(2 * time.Second)
	}
}

// logFile is an output file read back for the test's messages.
type logFile struct{ path string }

func (l logFile) String() string {
	b, _ := os.ReadFile(l.path)
	return string(b)
}

// stopGroup sends SIGTERM to the process group pgid and waits until no
// process of it is left, SIGKILL after grace.
func stopGroup(pgid int, grace time.Duration) {
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	deadline := time.Now().Add(grace)
	for syscall.Kill(-pgid, 0) == nil {
		if time.Now().After(deadline) {
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
			deadline = time.Now().Add(grace)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

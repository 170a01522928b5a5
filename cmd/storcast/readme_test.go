package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
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
// Its Prometheus starts late (slowPrometheus): the recipe has to wait for
// it to be ready, not for a fixed time.
func TestREADMERecipe(t *testing.T) {
	prometheus := testtool.Need(t, "prometheus")
	testtool.Need(t, "promtool")
	testtool.Need(t, "make")
	testtool.Need(t, "curl")
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	script := readmeRecipe(t, root)
	dir := t.TempDir()
	storcast := testtool.FreeAddr(t)
	cmd := exec.Command("bash", "-e", "-c", script)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "DIR="+dir, "SIM="+testtool.FreeAddr(t), "PROM="+testtool.FreeAddr(t), "STORCAST="+storcast,
		"PATH="+slowPrometheus(t, prometheus)+string(os.PathListSeparator)+os.Getenv("PATH"))
	// A file, not a buffer: the processes left in the background keep the
	// output open, and Wait would wait for them to close a pipe.
	out := logFile{filepath.Join(dir, "recipe.log")}
	f, err := os.Create(out.path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd.Stdout, cmd.Stderr = f, f
	// A group: the recipe leaves storagesim, Prometheus and storcast
	// running in the background; the cleanup, or the group's guard when
	// the test binary dies first, stops them all.
	g, err := testtool.StartGroup(cmd)
	if err != nil {
		t.Fatal(err)
	}
	// Stopped and waited for: the temporary directory's removal (a cleanup
	// registered earlier, so run after this one) fails while Prometheus or
	// storcast still write into it.
	t.Cleanup(func() { g.Stop(10 * time.Second) })
	if err := g.Wait(); err != nil {
		t.Fatalf("the recipe failed: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "remote check OK") {
		t.Errorf("--config.check.remote did not pass:\n%s", out.String())
	}
	// The check passes when only optional queries failed; one that failed
	// because Prometheus did not answer yet says nothing of the cluster.
	if strings.Contains(out.String(), "\tFAILED: ") {
		t.Errorf("--config.check.remote had queries fail:\n%s", out.String())
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

// prometheusSlowStart is how long the recipe's Prometheus takes to start
// listening in TestREADMERecipe: longer than the fixed 20 s the recipe once
// slept before its remote check, as loading the backfilled blocks on a
// busy machine did.
const prometheusSlowStart = 30 * time.Second

// slowPrometheus returns a directory holding a "prometheus" that waits
// prometheusSlowStart, then runs the real one (bin) in its place.
func slowPrometheus(t *testing.T, bin string) string {
	t.Helper()
	dir := t.TempDir()
	wrapper := fmt.Sprintf("#!/bin/sh\nsleep %d\nexec %q \"$@\"\n", int(prometheusSlowStart.Seconds()), bin)
	if err := os.WriteFile(filepath.Join(dir, "prometheus"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// makeDryRun is the commands "make -n target" would run in the repository,
// with env added to the environment.
func makeDryRun(t *testing.T, target string, env ...string) string {
	t.Helper()
	testtool.Need(t, "make")
	cmd := exec.Command("make", "-n", target)
	cmd.Dir = filepath.Join("..", "..")
	// Not a sub-make of the make test that may run this test (its flags
	// and jobserver are not this one's).
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != "MAKEFLAGS" && k != "MFLAGS" && k != "MAKELEVEL" {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make -n %s: %v\n%s", target, err, out)
	}
	return string(out)
}

// TestMakeRunListensWhereTheREADMESays: `make run`, the README's first
// command, serves on the loopback address the README tells to open, not
// on every interface.
func TestMakeRunListensWhereTheREADMESays(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`make run .*open http://(127\.0\.0\.1:[0-9]+)/`).FindStringSubmatch(string(data))
	if m == nil {
		t.Fatal("README.md has no `make run ... open http://127.0.0.1:port/` line")
	}
	if want := "--web.listen-address=" + m[1]; !strings.Contains(makeDryRun(t, "run"), want) {
		t.Errorf("make run does not pass %s", want)
	}
}

// TestMakeLintRunsTheLintersGoInstallWrote: make lint runs staticcheck and
// deadcode from the directory scripts/install-test-deps.sh installs them
// to, go install's: GOBIN when set, else the first GOPATH entry's bin.
func TestMakeLintRunsTheLintersGoInstallWrote(t *testing.T) {
	dir := t.TempDir()
	gobin, first, second := filepath.Join(dir, "gobin"), filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for _, c := range []struct {
		env  []string
		want string
	}{
		{[]string{"GOENV=off", "GOBIN=" + gobin}, gobin},
		{[]string{"GOENV=off", "GOBIN=", "GOPATH=" + first + string(os.PathListSeparator) + second}, filepath.Join(first, "bin")},
	} {
		out := makeDryRun(t, "lint", c.env...)
		for _, linter := range []string{"staticcheck", "deadcode"} {
			if want := filepath.Join(c.want, linter) + " "; !strings.Contains(out, want) {
				t.Errorf("%v: make lint does not run %q:\n%s", c.env, want, out)
			}
		}
	}
}

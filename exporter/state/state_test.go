package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/storcast/storcast/exporter/apiv1"
	"github.com/storcast/storcast/exporter/config"
)

// bigState returns a state of about 1 MB whose every part carries k, so a
// mix of two saves would show.
func bigState(k int) *Cluster {
	payload := strings.Repeat(strconv.Itoa(k)+",", 200000)
	return &Cluster{
		Cluster: "a", SavedUnix: float64(k), Hosts: k,
		InsideOut: json.RawMessage(`{"payload":"` + payload + `"}`),
		Models:    map[string]apiv1.ModelStatus{"conservation": {Fitted: true, TrainingSamples: k}},
	}
}

func consistent(c *Cluster) error {
	k := c.Hosts
	if c.SavedUnix != float64(k) || c.Models["conservation"].TrainingSamples != k {
		return fmt.Errorf("parts disagree: saved %v hosts %d samples %d", c.SavedUnix, k, c.Models["conservation"].TrainingSamples)
	}
	var p struct{ Payload string }
	if err := json.Unmarshal(c.InsideOut, &p); err != nil {
		return err
	}
	if p.Payload != strings.Repeat(strconv.Itoa(k)+",", 200000) {
		return fmt.Errorf("payload of save %d is mixed", k)
	}
	return nil
}

func TestSaveLoadRoundTrip(t *testing.T) {
	dir := t.TempDir()
	if _, err := Load(dir, "a"); err != ErrNotFound {
		t.Fatalf("empty dir: %v, want ErrNotFound", err)
	}
	if err := Save(dir, bigState(7)); err != nil {
		t.Fatal(err)
	}
	c, err := Load(dir, "a")
	if err != nil {
		t.Fatal(err)
	}
	if err := consistent(c); err != nil || c.Hosts != 7 {
		t.Fatalf("%v (hosts %d)", err, c.Hosts)
	}
	if err := os.WriteFile(Path(dir, "a"), []byte(`{"version":1,"cluster":"a"`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir, "a"); err == nil {
		t.Error("truncated file loaded")
	}
}

// TestSaveLoop is the child of TestKill9DuringSave: it saves forever.
func TestSaveLoop(t *testing.T) {
	dir := os.Getenv("STORCAST_TEST_SAVE_LOOP")
	if dir == "" {
		return // only runs as the child process of TestKill9DuringSave
	}
	for k := 1; ; k++ {
		if err := Save(dir, bigState(k)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
	}
}

// TestKill9DuringSave kills a process that saves in a loop with SIGKILL at
// random instants; the file left must always load and be one whole save.
func TestKill9DuringSave(t *testing.T) {
	for round := 0; round < 8; round++ {
		dir := t.TempDir()
		cmd := exec.Command(os.Args[0], "-test.run=^TestSaveLoop$")
		cmd.Env = append(os.Environ(), "STORCAST_TEST_SAVE_LOOP="+dir)
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Wait for the first complete save, then kill at a random moment.
		deadline := time.Now().Add(20 * time.Second)
		for {
			if _, err := os.Stat(Path(dir, "a")); err == nil {
				break
			}
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				t.Fatal("child never saved")
			}
			time.Sleep(time.Millisecond)
		}
		time.Sleep(time.Duration(rand.IntN(50000)) * time.Microsecond)
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		cmd.Wait()
		c, err := Load(dir, "a")
		if err != nil {
			t.Fatalf("round %d: state unreadable after kill -9: %v", round, err)
		}
		if err := consistent(c); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		t.Logf("round %d: killed after save %d", round, c.Hosts)
	}
}

// A write that fails (here the rename: a directory stands where the file
// goes) leaves no temporary file behind: on a full disk each failed save
// held its partial file.
func TestFailedWriteLeavesNoTemporaryFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.json")
	if err := os.MkdirAll(filepath.Join(path, "in-the-way"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("{}")); err == nil {
		t.Fatal("a write over a directory succeeded")
	}
	if _, err := os.Stat(path + ".tmp"); !os.IsNotExist(err) {
		t.Errorf("temporary file left after a failed write: %v", err)
	}
}

// TestLongestClusterNameSaves: a cluster named with the longest name the
// configuration takes saves, loads and is set aside (its file names, with
// their suffixes, within the 255 bytes a file system allows); one byte more
// than the file name allows fails.
func TestLongestClusterNameSaves(t *testing.T) {
	dir := t.TempDir()
	name := strings.Repeat("c", config.MaxClusterNameBytes)
	if err := Save(dir, &Cluster{Cluster: name, Hosts: 3}); err != nil {
		t.Fatalf("save: %v", err)
	}
	if c, err := Load(dir, name); err != nil || c.Hosts != 3 {
		t.Fatalf("load: %v %v", c, err)
	}
	if _, err := SetAside(dir, name, time.Now()); err != nil {
		t.Fatalf("set aside: %v", err)
	}
	if last := filepath.Base(SetAsidePath(dir, name, time.Now(), SetAsideTries-1)); len(last) > 255 {
		t.Errorf("the last set-aside name tried is %d bytes, past the file system's 255", len(last))
	}
	if err := Save(dir, &Cluster{Cluster: strings.Repeat("c", 256-len(".json.tmp"))}); err == nil {
		t.Error("a name past the file system's limit saved: the test's limit is not the file system's")
	}
}

// TestLoadRefusesWhatIsNotAStateFile: what stands at <cluster>.json and is
// no state storcast could have written is refused at once, naming the file
// and what is wrong, and costs next to nothing: a sparse file past
// MaxFileBytes (os.ReadFile allocated all of it: a 1 GiB file killed
// storcast at every start), a FIFO (whose open blocked start for good), a
// directory, a symbolic link, a device.
func TestLoadRefusesWhatIsNotAStateFile(t *testing.T) {
	for _, c := range []struct {
		name string
		make func(path string) error
		want string
	}{
		{"just past the cap", func(p string) error { return sparse(p, MaxFileBytes+1) }, fmt.Sprintf("a.json: %d bytes, more than a state file holds (at most %d)", MaxFileBytes+1, MaxFileBytes)},
		{"1 GiB", func(p string) error { return sparse(p, 1<<30) }, fmt.Sprintf("a.json: %d bytes, more than a state file holds", 1<<30)},
		{"FIFO", func(p string) error { return syscall.Mkfifo(p, 0o644) }, "a.json: not a regular file but a FIFO"},
		{"directory", func(p string) error { return os.Mkdir(p, 0o755) }, "a.json: not a regular file but a directory"},
		{"symbolic link", func(p string) error {
			if err := Save(filepath.Dir(p), &Cluster{Cluster: "b"}); err != nil {
				return err
			}
			return os.Symlink("b.json", p)
		}, "a.json: not a regular file but a symbolic link"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := c.make(Path(dir, "a")); err != nil {
				t.Fatal(err)
			}
			type result struct {
				err   error
				alloc uint64
			}
			done := make(chan result, 1)
			go func() {
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				_, err := Load(dir, "a")
				runtime.ReadMemStats(&after)
				done <- result{err, after.TotalAlloc - before.TotalAlloc}
			}()
			var r result
			select {
			case r = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("Load has not returned after 10 s")
			}
			if r.err == nil || !strings.Contains(r.err.Error(), filepath.Join(dir, c.want)) {
				t.Errorf("Load: %v; want an error with %q", r.err, filepath.Join(dir, c.want))
			}
			if errors.Is(r.err, ErrNotFound) {
				t.Error("reported as no saved state: the next save would replace it without setting it aside")
			}
			if r.alloc > 4<<20 {
				t.Errorf("Load allocated %d bytes, want under 4 MiB", r.alloc)
			}
		})
	}
}

// sparse makes a file of size bytes that holds no data (no disk used).
func sparse(path string, size int64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	f.Close()
	return os.Truncate(path, size)
}

// TestSetAsideKeepsEarlierFilesOfTheSameSecond: two files set aside within
// one second (a start, then a reload that sets aside the next unreadable
// file) are both kept, under distinct names: the second rename replaced
// the first.
func TestSetAsideKeepsEarlierFilesOfTheSameSecond(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	var got []string
	for _, content := range []string{"first", "second", "third"} {
		if err := os.WriteFile(Path(dir, "a"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		to, err := SetAside(dir, "a", now.Add(time.Duration(len(got))*100*time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, to)
	}
	for i, content := range []string{"first", "second", "third"} {
		if want := SetAsidePath(dir, "a", now, i); got[i] != want {
			t.Errorf("set aside %d to %s, want %s", i, got[i], want)
		}
		if b, err := os.ReadFile(got[i]); err != nil || string(b) != content {
			t.Errorf("%s: %q, %v; want %q", got[i], b, err, content)
		}
	}
	if _, err := os.Lstat(Path(dir, "a")); !os.IsNotExist(err) {
		t.Errorf("the state file is still in place: %v", err)
	}
	// What a link cannot move (a directory) is renamed, to a free name.
	if err := os.Mkdir(Path(dir, "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	to, err := SetAside(dir, "a", now)
	if fi, serr := os.Lstat(to); err != nil || serr != nil || !fi.IsDir() || to != SetAsidePath(dir, "a", now, 3) {
		t.Errorf("directory set aside to %s (%v, %v), want %s", to, err, serr, SetAsidePath(dir, "a", now, 3))
	}
}

// TestSaveDoesNotFollowALinkAtTheTemporaryFile: a symbolic link standing
// at <cluster>.json.tmp is replaced, and the file it points to is left as
// it was: the temporary file was opened with O_TRUNC through the link,
// truncating its target.
func TestSaveDoesNotFollowALinkAtTheTemporaryFile(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("not storcast's"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, Path(dir, "a")+".tmp"); err != nil {
		t.Fatal(err)
	}
	if err := Save(dir, &Cluster{Cluster: "a", Hosts: 3}); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(victim); err != nil || string(b) != "not storcast's" {
		t.Errorf("the link's target after a save: %q, %v", b, err)
	}
	if c, err := Load(dir, "a"); err != nil || c.Hosts != 3 {
		t.Errorf("saved state: %+v, %v", c, err)
	}
}

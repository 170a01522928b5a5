package boundedread

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestStopsAtTheLimit: a file read past its size at the check (one growing
// meanwhile; /proc's files say 0 bytes and hold more) is cut at limit+1
// bytes and refused; one of limit bytes reads whole; a device is refused
// before it is opened.
func TestStopsAtTheLimit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, read := range map[string]func(string, int64, string) ([]byte, error){"Read": Read, "ReadNoFollow": ReadNoFollow} {
		if b, err := read(path, 10, "a test file"); err != nil || string(b) != "0123456789" {
			t.Errorf("%s: a file of the limit: %q, %v", name, b, err)
		}
		if _, err := read(path, 9, "a test file"); err == nil || err.Error() != path+": 10 bytes, more than a test file holds (at most 9)" {
			t.Errorf("%s: a file past the limit: %v", name, err)
		}
		if _, err := read("/dev/zero", 9, "a test file"); err == nil || err.Error() != "/dev/zero: not a regular file but a device" {
			t.Errorf("%s: /dev/zero: %v; want refused as a device", name, err)
		}
		// Linux only, as storcast: /proc's files report size 0.
		const proc = "/proc/self/maps"
		if fi, err := os.Stat(proc); err != nil || fi.Size() != 0 {
			t.Fatalf("%s: %v, %v; want a file that reads longer than its size", proc, fi, err)
		}
		if b, err := read(proc, 16, "a test file"); err == nil || err.Error() != proc+": grew past 16 bytes while read, more than a test file holds" {
			t.Errorf("%s: %s read with a limit of 16: %d bytes, %v; want refused", name, proc, len(b), err)
		}
	}
}

// TestSymbolicLinks: Read follows a link to a regular file (a Kubernetes
// ConfigMap's files are links) and still refuses a link to a FIFO, without
// blocking; ReadNoFollow refuses the link itself.
func TestSymbolicLinks(t *testing.T) {
	dir := t.TempDir()
	file, fifo := filepath.Join(dir, "file"), filepath.Join(dir, "fifo")
	if err := os.WriteFile(file, []byte("content"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	toFile, toFIFO := filepath.Join(dir, "to-file"), filepath.Join(dir, "to-fifo")
	if err := os.Symlink("file", toFile); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("fifo", toFIFO); err != nil {
		t.Fatal(err)
	}
	if b, err := Read(toFile, 100, "a test file"); err != nil || string(b) != "content" {
		t.Errorf("Read of a link to a regular file: %q, %v", b, err)
	}
	if _, err := ReadNoFollow(toFile, 100, "a test file"); err == nil || err.Error() != toFile+": not a regular file but a symbolic link" {
		t.Errorf("ReadNoFollow of a link: %v; want refused as a link", err)
	}
	for _, c := range []struct {
		name string
		read func(string, int64, string) ([]byte, error)
		path string
	}{
		{"Read, a FIFO", Read, fifo},
		{"Read, a link to a FIFO", Read, toFIFO},
		{"ReadNoFollow, a FIFO", ReadNoFollow, fifo},
	} {
		done := make(chan error, 1)
		go func() {
			_, err := c.read(c.path, 100, "a test file")
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || err.Error() != c.path+": not a regular file but a FIFO" {
				t.Errorf("%s: %v; want refused as a FIFO", c.name, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: not returned after 10 s", c.name)
		}
	}
	if _, err := Read(filepath.Join(dir, "nope"), 100, "a test file"); !os.IsNotExist(err) {
		t.Errorf("a missing file: %v; want a not-exist error", err)
	}
}

package state

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadBoundedStopsAtTheLimit: a file read past its size at the check
// (one growing meanwhile; /proc's files say 0 bytes and hold more) is cut
// at limit+1 bytes and refused; one of limit bytes reads whole.
func TestReadBoundedStopsAtTheLimit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := readBounded(path, 10); err != nil || string(b) != "0123456789" {
		t.Errorf("a file of the limit: %q, %v", b, err)
	}
	if _, err := readBounded(path, 9); err == nil || !strings.Contains(err.Error(), "10 bytes, more than a state file holds (at most 9)") {
		t.Errorf("a file past the limit: %v", err)
	}
	if _, err := readBounded("/dev/zero", 9); err == nil || !strings.Contains(err.Error(), "/dev/zero: not a regular file but a device") {
		t.Errorf("/dev/zero: %v; want refused as a device", err)
	}
	// Linux only, as storcast: /proc's files report size 0.
	const proc = "/proc/self/maps"
	if fi, err := os.Stat(proc); err != nil || fi.Size() != 0 {
		t.Fatalf("%s: %v, %v; want a file that reads longer than its size", proc, fi, err)
	}
	if b, err := readBounded(proc, 16); err == nil || !strings.Contains(err.Error(), "grew past 16 bytes while read") {
		t.Errorf("%s read with a limit of 16: %d bytes, %v; want refused", proc, len(b), err)
	}
}

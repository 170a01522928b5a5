// Package boundedread reads a file storcast is pointed at (its
// configuration, a calibration, a rule-set catalog, a saved state) whole into
// memory, but only a regular file of at most a given size. What stands at
// the path may be anything: a FIFO, whose plain open blocks until a writer
// comes; /dev/zero, which never ends; a file of gigabytes. os.ReadFile would
// block or exhaust memory on each.
package boundedread

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"syscall"
)

// Read reads the regular file at path, of at most limit bytes, following
// symbolic links: a Kubernetes ConfigMap or Secret mounts each of its files
// as one. what names the kind of file in the message of one too large
// ("a calibration file").
func Read(path string, limit int64, what string) ([]byte, error) {
	return read(path, limit, what, true)
}

// ReadNoFollow is Read refusing a symbolic link at path, for the files
// storcast writes itself (a link there is nothing it made).
func ReadNoFollow(path string, limit int64, what string) ([]byte, error) {
	return read(path, limit, what, false)
}

// read checks the name first (Stat, or Lstat when not following links):
// opening some devices acts on them (a tape rewinds, a watchdog arms). It
// then opens without blocking (a FIFO swapped in after the check would
// block a plain open until a writer came), checks what it opened again and
// reads through a limit of limit+1 bytes, so that a file growing meanwhile
// is refused rather than read on.
func read(path string, limit int64, what string, follow bool) ([]byte, error) {
	stat, flags := os.Stat, os.O_RDONLY|syscall.O_NONBLOCK
	if !follow {
		// O_NOFOLLOW: a symbolic link swapped in after the Lstat is
		// refused too (ELOOP).
		stat, flags = os.Lstat, flags|syscall.O_NOFOLLOW
	}
	fi, err := stat(path)
	if err != nil {
		return nil, err
	}
	if err := checkRegular(path, fi, limit, what); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, flags, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, err
	}
	if err := checkRegular(path, fi, limit, what); err != nil {
		return nil, err
	}
	// A regular file read blocking again: a file system that honours
	// O_NONBLOCK on one (some FUSE ones) could otherwise answer EAGAIN.
	if err := syscall.SetNonblock(int(f.Fd()), false); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var b bytes.Buffer
	b.Grow(int(fi.Size()) + bytes.MinRead)
	if _, err := b.ReadFrom(io.LimitReader(f, limit+1)); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(b.Len()) > limit {
		return nil, fmt.Errorf("%s: grew past %d bytes while read, more than %s holds", path, limit, what)
	}
	return b.Bytes(), nil
}

// checkRegular refuses anything but a regular file of at most limit bytes.
func checkRegular(path string, fi os.FileInfo, limit int64, what string) error {
	if !fi.Mode().IsRegular() {
		kind := fmt.Sprintf("a file of mode %v", fi.Mode())
		switch t := fi.Mode().Type(); {
		case t&os.ModeDir != 0:
			kind = "a directory"
		case t&os.ModeSymlink != 0:
			kind = "a symbolic link"
		case t&os.ModeNamedPipe != 0:
			kind = "a FIFO"
		case t&os.ModeSocket != 0:
			kind = "a socket"
		case t&os.ModeDevice != 0:
			kind = "a device"
		}
		return fmt.Errorf("%s: not a regular file but %s", path, kind)
	}
	if fi.Size() > limit {
		return fmt.Errorf("%s: %d bytes, more than %s holds (at most %d)", path, fi.Size(), what, limit)
	}
	return nil
}

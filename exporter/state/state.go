// Package state persists what the exporter learned, one JSON file per
// cluster in the state directory, so a restart serves the last models at once.
//
// Save is atomic and durable: it writes <cluster>.json.tmp, fsyncs it,
// renames it over <cluster>.json and fsyncs the directory. A crash (kill -9,
// power loss) at any point leaves either the old file or the new one, never a
// mix; a leftover .tmp is ignored and replaced by the next save.
package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/storcast/storcast/exporter/apiv1"
	"github.com/storcast/storcast/exporter/features"
	"github.com/storcast/storcast/forecaster/conservation"
	"github.com/storcast/storcast/internal/boundedread"
)

// Version is the file format version; a file with another version does not
// load (the engine moves it aside and refits the models).
const Version = 1

// Cluster is the persisted state of one cluster.
type Cluster struct {
	Version   int     `json:"version"`
	Cluster   string  `json:"cluster"`
	SavedUnix float64 `json:"savedUnix"`
	// Fitted holds each fitted model's own JSON by model name (what the
	// model's fitter decodes).
	Fitted map[string]json.RawMessage `json:"fitted,omitempty"`
	// Files written before models were saved by name kept four fields;
	// they are read (LegacyFitted), never written.
	Calibration       *conservation.Calibration     `json:"calibration,omitempty"`
	CalibrationSource string                        `json:"calibrationSource,omitempty"`
	InsideOut         json.RawMessage               `json:"insideout,omitempty"`
	Latency           json.RawMessage               `json:"latency,omitempty"`
	Trend             json.RawMessage               `json:"trend,omitempty"`
	Models            map[string]apiv1.ModelStatus  `json:"models"`
	FitSeconds        map[string]float64            `json:"fitSeconds,omitempty"`
	Accuracy          map[string]map[string]float64 `json:"accuracy,omitempty"`
	Observed          *features.Observed            `json:"observed,omitempty"`
	Hosts             int                           `json:"hosts,omitempty"`
}

// Path is the file of cluster in dir.
func Path(dir, cluster string) string { return filepath.Join(dir, cluster+".json") }

// Save writes c atomically and durably.
func Save(dir string, c *Cluster) error {
	c.Version = Version
	data, err := json.Marshal(c)
	if err != nil {
		return fmt.Errorf("encoding state of %s: %w", c.Cluster, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return WriteFile(Path(dir, c.Cluster), data)
}

// WriteFile replaces the file at path by data atomically and durably: a
// temporary file beside it, synced, renamed over it, and the directory
// synced. A reader (or a crash) sees the old content or the new, never a
// partial file; a write that fails removes its temporary file (on a full
// disk it would hold the space).
func WriteFile(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := writeSynced(tmp, data); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	d, err := os.Open(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// writeSynced writes data to a new file at path and syncs it. Whatever
// stands at path (a crash's leftover, a symbolic link someone placed) is
// removed first and the file is created exclusively, not followed: opening
// a link there with O_TRUNC truncated its target, any file storcast could
// write.
func writeSynced(path string, data []byte) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// SetAsideTries is how many names SetAside tries for one second
// (SetAsidePath 0 .. SetAsideTries-1) before it gives up.
const SetAsideTries = 100

// SetAsidePath is the n-th name SetAside tries for the state file of
// cluster set aside at now: <cluster>.json.unreadable-<UTC time of now>,
// then with -2, -3, ... appended (n = 1, 2, ...).
func SetAsidePath(dir, cluster string, now time.Time, n int) string {
	p := Path(dir, cluster) + ".unreadable-" + now.UTC().Format("20060102T150405Z")
	if n > 0 {
		p += "-" + strconv.Itoa(n+1)
	}
	return p
}

// SetAside moves the state file of cluster to the first free SetAsidePath,
// durably, so that the next Save does not replace a file Load could not
// read (a later version's, or damaged): the operator keeps it. It returns
// the new path. No earlier set-aside file is replaced (a rename onto a name
// taken within the same second replaced it): the file is hard-linked to the
// new name, which fails when the name is taken, then unlinked from its
// own; where a link cannot be made (a directory, a file system without
// hard links) it is renamed to a name found free. The directory is synced
// after the move on a best-effort basis: a crash before that leaves the
// file under its old name, set aside again at the next start.
func SetAside(dir, cluster string, now time.Time) (string, error) {
	from := Path(dir, cluster)
	for n := range SetAsideTries {
		to := SetAsidePath(dir, cluster, now, n)
		moved, err := moveUnlessTaken(from, to)
		if err != nil {
			return "", err
		}
		if !moved {
			continue
		}
		if d, err := os.Open(dir); err == nil {
			_ = d.Sync()
			d.Close()
		}
		return to, nil
	}
	return "", fmt.Errorf("setting %s aside: %s and the next %d names are taken", from, SetAsidePath(dir, cluster, now, 0), SetAsideTries-1)
}

// moveUnlessTaken moves from to to unless something stands at to (moved
// false, no error).
func moveUnlessTaken(from, to string) (moved bool, err error) {
	err = os.Link(from, to)
	switch {
	case err == nil:
		if err := os.Remove(from); err != nil {
			os.Remove(to) // as it was: the file under its own name only
			return false, err
		}
		return true, nil
	case errors.Is(err, os.ErrExist):
		return false, nil
	case errors.Is(err, os.ErrNotExist):
		return false, err // nothing to move
	}
	// No link (a directory, a FIFO on some file systems, no hard links):
	// rename, to a name free a moment ago.
	if _, err := os.Lstat(to); err == nil {
		return false, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return false, err
	}
	if err := os.Rename(from, to); err != nil {
		return false, err
	}
	return true, nil
}

// ErrNotFound is returned by Load when no state exists.
var ErrNotFound = errors.New("no saved state")

// MaxFileBytes is the largest state file Load reads: one larger is refused
// as unreadable (the engine sets it aside) rather than read into memory, so
// that a stray file of gigabytes at <cluster>.json cannot exhaust storcast's
// memory at every start. The largest state storcast writes is about 100 kB:
// measured for a 1,000-host x 10,000-OSD cluster (the fit-cycle benchmark's
// fake and calibration) fitted with every model (models.All, a rule-set
// catalog too), 100,033 bytes at 2,016 points per series and 99,662 at
// 11,000 (config.MaxPoints): no model's saved form grows with the lookback;
// the MLISP model (49 kB) and the what-if learners (27 kB) are most of it.
// The cap is some 650 times that.
const MaxFileBytes = 64 << 20

// Load reads the state of cluster, ErrNotFound when there is none. A file
// that is not a regular file (a FIFO, a device, a directory, a symbolic
// link) or is larger than MaxFileBytes is an error, read no further: its
// open does not block and at most MaxFileBytes+1 bytes are read, even from
// a file that grows meanwhile.
func Load(dir, cluster string) (*Cluster, error) {
	path := Path(dir, cluster)
	data, err := boundedread.ReadNoFollow(path, MaxFileBytes, "a state file")
	if errors.Is(err, os.ErrNotExist) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	var c Cluster
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if c.Version != Version {
		return nil, fmt.Errorf("%s: version %d, want %d", path, c.Version, Version)
	}
	if c.Cluster != cluster {
		return nil, fmt.Errorf("%s: holds cluster %q", path, c.Cluster)
	}
	return &c, nil
}

// LegacyFitted returns the models of a file written with the four fixed
// model fields, in the encoding of Fitted (model name -> JSON); nil when
// the file has none.
func (c *Cluster) LegacyFitted() map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	if c.Calibration != nil {
		if b, err := json.Marshal(struct {
			Calibration *conservation.Calibration `json:"calibration"`
			Source      string                    `json:"source"`
		}{c.Calibration, c.CalibrationSource}); err == nil {
			out["conservation"] = b
		}
	}
	for name, raw := range map[string]json.RawMessage{"insideout": c.InsideOut, "mlisp": c.Latency, "trend": c.Trend} {
		if len(raw) > 0 {
			out[name] = raw
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

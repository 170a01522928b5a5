package engine

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/storcast/storcast/exporter/source"
	"github.com/storcast/storcast/exporter/state"
	"github.com/storcast/storcast/internal/testtool"
)

// TestUnusedStateFileWarned: a state file no configured cluster loads (a
// cluster renamed, here old -> a) is logged at warn level at start, naming
// the file and saying its models are not used: it lay in state_dir unseen
// while the renamed cluster started empty. The configured cluster's file
// and the files beside state files (.tmp, .unreadable-*, other names) are
// not; a reload that renames the cluster back warns of the other.
func TestUnusedStateFileWarned(t *testing.T) {
	cfg := testConfig(t, "http://127.0.0.1:1") // no Prometheus: nothing is fitted nor saved
	dir := cfg.StateDir
	for _, name := range []string{"old", "a"} {
		if err := state.Save(dir, &state.Cluster{Cluster: name}); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"b.json.tmp", "c.json.unreadable-20260101T000000Z", "demo-calibration.yml"} {
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "d.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	src, err := source.NewPrometheus(cfg.Prometheus, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var logs testtool.SyncBuffer
	e := New(Options{Source: src, Now: (&clock{t: testNow}).Now, Log: slog.New(slog.NewTextHandler(&logs, nil))})
	read := 0
	// warned returns the warnings logged since it was last called.
	warned := func() []string {
		all := logs.String()
		var out []string
		for _, l := range strings.Split(all[read:], "\n") {
			if strings.Contains(l, "no configured cluster") {
				out = append(out, l)
			}
		}
		read = len(all)
		return out
	}
	e.Start(context.Background(), cfg)
	e.Stop()
	want := `level=WARN msg="state file of no configured cluster: its models are not used (a renamed cluster starts empty)" file=` + state.Path(dir, "old")
	if got := warned(); len(got) != 1 || !strings.HasSuffix(got[0], want) {
		t.Errorf("warnings at start:\n%s\nwant one ending %s", strings.Join(got, "\n"), want)
	}
	cfg.Clusters[0].Name = "old"
	e.Start(context.Background(), cfg)
	e.Stop()
	if got, want := warned(), "file="+state.Path(dir, "a"); len(got) != 1 || !strings.HasSuffix(got[0], want) {
		t.Errorf("warnings after renaming the cluster back:\n%s\nwant one ending %s", strings.Join(got, "\n"), want)
	}
}

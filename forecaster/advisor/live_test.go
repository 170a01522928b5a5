package advisor

import (
	"errors"
	"math"
	"testing"
)

func TestLiveWorkload(t *testing.T) {
	nan := math.NaN()
	// Ceph mgr only: 300 reads/s of 64 KiB and 100 writes/s of 1 MiB.
	ceph := Rates{ReadOps: 300, WriteOps: 100, ReadBytes: 300 * 65536, WriteBytes: 100 << 20,
		DiskMerged: nan, DiskCompleted: nan}
	w, err := LiveWorkload(ceph)
	if err != nil {
		t.Fatal(err)
	}
	bytes := 300*65536.0 + 100<<20
	want := Workload{RequestBytes: bytes / 400, ReadShare: 300 * 65536 / bytes, OriginalThroughput: bytes}
	if !equalWorkload(w, want) {
		t.Errorf("Ceph only: %v, want %v (no sequential share)", w, want)
	}
	// With node_exporter: 30 of 130 submitted block requests were merged.
	withDisks := ceph
	withDisks.DiskMerged, withDisks.DiskCompleted = 10+20, 60+40
	w, _ = LiveWorkload(withDisks)
	if math.Abs(w[SequentialShare]-30.0/130) > 1e-15 || len(w) != 4 {
		t.Errorf("with disks: %v", w)
	}
	// A rule set applied: the original throughput is unknown.
	active := withDisks
	active.RuleSetActive = true
	w, _ = LiveWorkload(active)
	if _, ok := w[OriginalThroughput]; ok || len(w) != 3 {
		t.Errorf("rule set active: %v", w)
	}
	a, err := Train(loadTestCatalog(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Predict(w); err == nil || err.Error() != `invalid input: workload.original_throughput: missing; the advisor's models need ["request_bytes", "sequential_share", "read_share", "original_throughput"]` {
		t.Errorf("predict without original throughput: %v", err)
	}
	for name, r := range map[string]Rates{
		"idle":     {},
		"negative": {ReadOps: -1, ReadBytes: 5},
		"nan":      {ReadOps: nan, ReadBytes: 5},
	} {
		if _, err := LiveWorkload(r); err == nil || !errors.Is(err, ErrInput) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

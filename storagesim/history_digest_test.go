package storagesim

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// historyDigestCases are histories whose bytes must not depend on how the
// writer organises its work: several days of scale-out (a host joining at
// 3 d, a noisy neighbour at 5 d, a host leaving at 6 d) with OSD restarts
// and scrape gaps made frequent, starting after the origin (counters
// integrated before the first instant), single file and 2 h blocks; swift
// from a sub-second start at a step that divides neither the tick nor the
// block (fractional ticks and timestamps); and the one-host small cluster.
var historyDigestCases = []struct {
	name, scenario string
	seed           int64
	start, end     time.Duration // after the origin
	step, block    time.Duration // block 0: WriteHistory
}{
	{"scale-out-7d", "scale-out", 3, 2*time.Hour + 30*time.Minute, 7 * 24 * time.Hour, 5 * time.Minute, 0},
	{"scale-out-7d-blocks", "scale-out", 3, 2*time.Hour + 30*time.Minute, 7 * 24 * time.Hour, 5 * time.Minute, 2 * time.Hour},
	{"swift-2d", "swift", 5, 1500 * time.Millisecond, 2 * 24 * time.Hour, 70 * time.Second, 0},
	{"swift-2d-blocks", "swift", 5, 1500 * time.Millisecond, 2 * 24 * time.Hour, 70 * time.Second, 2 * time.Hour},
	{"small-1d", "testdata/small.yml", 7, 0, 24 * time.Hour, 50 * time.Second, 0},
}

// historyDigest is the sha256 of one case's output; for blocks, of each
// file's base name and contents in order.
func historyDigest(t *testing.T, name, scenario string, seed int64, start, end, step, block time.Duration) string {
	t.Helper()
	sc, err := LoadScenario(scenario)
	if err != nil {
		t.Fatal(err)
	}
	sc.Faults.ScrapeGapsPerDay = 24
	sc.Faults.ScrapeGapDuration = Duration(10 * time.Minute)
	sc.Faults.RestartsPerOSDPerDay = 2
	c, err := New(sc, seed, testOrigin)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	if block == 0 {
		if err := WriteHistory(h, c, testOrigin.Add(start), testOrigin.Add(end), step); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return hex.EncodeToString(h.Sum(nil))
	}
	files, err := WriteHistoryBlocks(t.TempDir(), c, testOrigin.Add(start), testOrigin.Add(end), step, block)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	for _, f := range files {
		io.WriteString(h, filepath.Base(f)+"\n")
		r, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		_, err = io.Copy(h, r)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// The histories are byte for byte those of the writer that kept every
// tick's state in memory (testdata/history-digests.txt, written by it).
func TestHistoryDigestsUnchanged(t *testing.T) {
	const file = "testdata/history-digests.txt"
	got := map[string]string{}
	for _, tc := range historyDigestCases {
		got[tc.name] = historyDigest(t, tc.name, tc.scenario, tc.seed, tc.start, tc.end, tc.step, tc.block)
	}
	if *update {
		var b strings.Builder
		b.WriteString("# sha256 of the histories of historyDigestCases, written by the writer that\n# kept one state per tick from the origin (before bounding its memory).\n")
		for _, tc := range historyDigestCases {
			fmt.Fprintf(&b, "%s %s\n", tc.name, got[tc.name])
		}
		if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		name, sum, ok := strings.Cut(line, " ")
		if !ok {
			t.Fatalf("%s: line %q is not \"name sha256\"", file, line)
		}
		want[name] = sum
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range historyDigestCases {
		if want[tc.name] == "" {
			t.Errorf("%s: no digest for %s", file, tc.name)
		} else if got[tc.name] != want[tc.name] {
			t.Errorf("%s: history digest %s, want %s", tc.name, got[tc.name], want[tc.name])
		}
	}
	// Again with windows shorter than the step and buffers of a few series
	// or none, so that every range takes many passes (on the cheaper
	// cases: each pass computes the states again).
	defer func(w int64, b int) { historyWindowTicks, historyBufferBytes = w, b }(historyWindowTicks, historyBufferBytes)
	for _, sq := range []struct {
		window int64
		buffer int
		cases  []string
	}{{7, 0, []string{"small-1d"}}, {7, 100000, []string{"swift-2d", "small-1d"}}} {
		historyWindowTicks, historyBufferBytes = sq.window, sq.buffer
		for _, tc := range historyDigestCases {
			if !slices.Contains(sq.cases, tc.name) {
				continue
			}
			if d := historyDigest(t, tc.name, tc.scenario, tc.seed, tc.start, tc.end, tc.step, tc.block); d != want[tc.name] {
				t.Errorf("%s with %d-tick windows and a %d-byte buffer: history digest %s, want %s", tc.name, sq.window, sq.buffer, d, want[tc.name])
			}
		}
	}
}

// heapPeakWriter discards what it is given and records the largest heap in
// use seen at each write (the writer flushes every MiB).
type heapPeakWriter struct{ peak uint64 }

func (w *heapPeakWriter) Write(p []byte) (int, error) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	w.peak = max(w.peak, ms.HeapAlloc)
	return len(p), nil
}

// A long history's memory does not grow with its length: 60 days at a 1 h
// step are 1441 instants but 1036800 ticks, whose states the writer once
// held all at once (about 270 MB).
func TestHistoryMemoryBounded(t *testing.T) {
	c := mustCluster(t, "testdata/small.yml", 1)
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	w := &heapPeakWriter{}
	if err := WriteHistory(w, c, testOrigin, testOrigin.Add(60*24*time.Hour), time.Hour); err != nil {
		t.Fatal(err)
	}
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	if w.peak == 0 {
		t.Fatal("the history was never written")
	}
	// Live during the write: the values of all series but one over the
	// 1441 instants (8 bytes and a presence bit each), one window of
	// states and the 1 MiB write buffer; the heap may hold as much again
	// of garbage between collections (GOGC=100), and 1 MiB covers the
	// rest (labels, instants of a window).
	live := (len(c.series)-1)*(8*1441+8*((1441+63)/64)) + int(historyWindowTicks)*int(unsafe.Sizeof(state{})) + 1<<20
	bound := uint64(2*live + 1<<20)
	growth := w.peak - min(w.peak, before.HeapAlloc)
	t.Logf("%d series: heap peak %.1f MB over %.1f MB before (bound %.1f MB), %.1f MB allocated in all",
		len(c.series), float64(growth)/1e6, float64(before.HeapAlloc)/1e6, float64(bound)/1e6, float64(after.TotalAlloc-before.TotalAlloc)/1e6)
	if growth > bound {
		t.Errorf("a 60-day history at a 1 h step grew the heap by %d bytes, more than the %d a window of states and a buffer of values take", growth, bound)
	}
}

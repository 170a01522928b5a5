package storagesim

import (
	"bufio"
	"bytes"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// parseHistory reads WriteHistory output into "instance|name|k=v,..." →
// timestamp → value, checking the OpenMetrics framing on the way.
func parseHistory(t *testing.T, data []byte) map[string]map[int64]float64 {
	t.Helper()
	if !bytes.HasSuffix(data, []byte("# EOF\n")) {
		t.Fatal("history does not end with # EOF")
	}
	out := map[string]map[int64]float64{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		sp := strings.LastIndexByte(line, ' ')
		sp2 := strings.LastIndexByte(line[:sp], ' ')
		ts, err := strconv.ParseInt(line[sp+1:], 10, 64)
		if err != nil {
			t.Fatalf("bad timestamp in %q", line)
		}
		v, err := strconv.ParseFloat(line[sp2+1:sp], 64)
		if err != nil {
			t.Fatalf("bad value in %q", line)
		}
		key := seriesKeyFromText(line[:sp2])
		if out[key] == nil {
			out[key] = map[int64]float64{}
		}
		out[key][ts] = v
	}
	return out
}

func seriesKeyFromText(s string) string {
	name, rest, _ := strings.Cut(s, "{")
	rest = strings.TrimSuffix(rest, "}")
	var inst string
	var labels []string
	for _, kv := range strings.Split(rest, ",") {
		k, v, _ := strings.Cut(kv, "=")
		v = strings.Trim(v, `"`)
		switch k {
		case "instance":
			inst = v
		case "job":
		default:
			labels = append(labels, k+"="+v)
		}
	}
	sort.Strings(labels)
	return inst + "|" + name + "|" + strings.Join(labels, ",")
}

func seriesKey(instance string, se Series) string {
	var labels []string
	for k, v := range se.Labels {
		labels = append(labels, k+"="+v)
	}
	sort.Strings(labels)
	return instance + "|" + se.Name + "|" + strings.Join(labels, ",")
}

// The history and the live samples are the same numbers: every sample of a
// history equals Sample at its instant, and nothing is missing but gaps.
func TestHistoryEqualsSample(t *testing.T) {
	for _, scenario := range []string{"scale-out", "swift"} {
		sc, err := LoadScenario(scenario)
		if err != nil {
			t.Fatal(err)
		}
		sc.Faults.ScrapeGapsPerDay = 24 // make sure gaps are exercised
		sc.Faults.ScrapeGapDuration = Duration(10 * time.Minute)
		sc.Faults.RestartsPerOSDPerDay = 48
		if len(sc.Events) > 0 {
			sc.Events[0].At = Duration(time.Hour) // scale-out's host joins early
		}
		c, err := New(sc, 3, testOrigin)
		if err != nil {
			t.Fatal(err)
		}
		// Around the host added at 1h.
		start := testOrigin.Add(time.Hour - 20*time.Minute)
		end := start.Add(40 * time.Minute)
		var buf bytes.Buffer
		if err := WriteHistory(&buf, c, start, end, 15*time.Second); err != nil {
			t.Fatal(err)
		}
		hist := parseHistory(t, buf.Bytes())
		fresh, err := New(sc, 3, testOrigin)
		if err != nil {
			t.Fatal(err)
		}
		var compared, down int
		for tt := start; !tt.After(end); tt = tt.Add(15 * time.Second) {
			for _, tg := range fresh.Sample(tt).Targets {
				if !tg.Up {
					down++
				}
				for _, se := range tg.Series {
					k := seriesKey(tg.Instance, se)
					v, ok := hist[k][tt.Unix()]
					if !ok {
						t.Fatalf("%s: %s at %s missing from the history", scenario, k, tt)
					}
					if v != se.Value {
						t.Fatalf("%s: %s at %s: history %v, Sample %v", scenario, k, tt, v, se.Value)
					}
					delete(hist[k], tt.Unix())
					compared++
				}
			}
		}
		for k, m := range hist {
			if len(m) > 0 {
				t.Fatalf("%s: history has %d samples of %s that Sample does not", scenario, len(m), k)
			}
		}
		if n := len(c.Targets(end)); scenario == "scale-out" && n != 5 {
			t.Fatalf("scale-out: %d targets after the host joined, want 5", n)
		}
		if compared < 10000 || down == 0 {
			t.Fatalf("%s: compared %d samples, %d target scrapes down", scenario, compared, down)
		}
	}
}

func TestHistoryBlocksEqualSingleFile(t *testing.T) {
	c := mustCluster(t, "testdata/small.yml", 4)
	start, end := testOrigin.Add(time.Hour), testOrigin.Add(7*time.Hour)
	var one bytes.Buffer
	if err := WriteHistory(&one, c, start, end, time.Minute); err != nil {
		t.Fatal(err)
	}
	files, err := WriteHistoryBlocks(t.TempDir(), c, start, end, time.Minute, 2*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 4 { // 01:00-02:00, 02-04, 04-06, 06-07
		t.Fatalf("%d block files, want 4: %v", len(files), files)
	}
	merged := map[string]map[int64]float64{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for k, m := range parseHistory(t, data) {
			if merged[k] == nil {
				merged[k] = map[int64]float64{}
			}
			for ts, v := range m {
				merged[k][ts] = v
			}
		}
	}
	want := parseHistory(t, one.Bytes())
	if len(merged) != len(want) {
		t.Fatalf("blocks have %d series, single file %d", len(merged), len(want))
	}
	for k, m := range want {
		for ts, v := range m {
			if merged[k][ts] != v {
				t.Fatalf("%s at %d: blocks %v, single file %v", k, ts, merged[k][ts], v)
			}
		}
	}
}

func TestHistoryErrors(t *testing.T) {
	c := mustCluster(t, "steady", 1)
	var buf bytes.Buffer
	for _, tc := range []struct {
		start, end time.Time
		step       time.Duration
		want       string
	}{
		{testOrigin, testOrigin.Add(time.Hour), 0, "history: step 0s must be positive"},
		{testOrigin.Add(time.Hour), testOrigin, time.Second, "history: end 2026-01-05T00:00:00Z is before start 2026-01-05T01:00:00Z"},
		{testOrigin.Add(-time.Hour), testOrigin, time.Second, "history: start 2026-01-04T23:00:00Z is before the cluster's origin 2026-01-05T00:00:00Z"},
	} {
		err := WriteHistory(&buf, c, tc.start, tc.end, tc.step)
		if err == nil || err.Error() != tc.want {
			t.Errorf("got %v, want %q", err, tc.want)
		}
	}
}

package storagesim

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
)

// realSwiftSeries is what statsd_exporter, with the shipped mapping, served
// from a real Swift 2.30 all-in-one under GET/PUT load: one series per line,
// `name{label="value",...}` with the quantile and le labels dropped. The
// real-Swift end-to-end suite (e2e/swift/run.sh) captures it on every run.
const realSwiftSeries = "../e2e/swift/testdata/real-swift-series.txt"

// realSwiftSeriesEnv names a capture to compare with in place of the
// golden file: e2e/swift/run.sh points it at the series it has just
// captured, so that the suite fails when storagesim no longer matches real
// Swift (make test only ever sees the last run's golden file).
const realSwiftSeriesEnv = "STORAGESIM_REAL_SWIFT_SERIES"

// realSwiftSeriesPath is the capture the comparison reads.
func realSwiftSeriesPath() string {
	if p := os.Getenv(realSwiftSeriesEnv); p != "" {
		return p
	}
	return realSwiftSeries
}

var seriesLine = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?$`)
var labelPair = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"`)

// realSeries is the golden file: the label sets seen per series name.
type realSeries map[string][]map[string]string

func loadRealSwiftSeries(t *testing.T) realSeries {
	t.Helper()
	path := realSwiftSeriesPath()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := realSeries{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		m := seriesLine.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("%s:%d: not a series: %q", path, n, line)
		}
		labels := map[string]string{}
		for _, p := range labelPair.FindAllStringSubmatch(m[2], -1) {
			labels[p[1]] = p[2]
		}
		out[m[1]] = append(out[m[1]], labels)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatalf("%s: no series", path)
	}
	return out
}

func labelKeys(l map[string]string) string {
	var k []string
	for name := range l {
		if name != "quantile" && name != "le" {
			k = append(k, name)
		}
	}
	sort.Strings(k)
	return strings.Join(k, ",")
}

// has reports whether the real capture holds name with exactly these labels
// (quantile and le aside).
func (r realSeries) has(name string, labels map[string]string) bool {
	for _, l := range r[name] {
		if labelKeys(l) != labelKeys(labels) {
			continue
		}
		same := true
		for k, v := range l {
			if labels[k] != v {
				same = false
				break
			}
		}
		if same {
			return true
		}
	}
	return false
}

// storcastSignal reports whether a series is one storcast's Swift queries
// read: the proxy's object GETs and PUTs, totals over policies.
func storcastSignal(l map[string]string) bool {
	return l["type"] == "object" && l["policy"] == "all" && (l["method"] == "GET" || l["method"] == "PUT")
}

// Every Swift series name storagesim serves exists in the real capture with
// the same label names, and the series storcast's Swift queries read (object
// GET/PUT, policy="all", success statuses) carry the real label values too.
// Label values of other series (per-policy indexes, background request
// statuses) are the scenario's, so only their names and label names are held
// to the real ones.
func TestSwiftSeriesNamesMatchRealSwift(t *testing.T) {
	for _, m := range swiftMismatches(t, loadRealSwiftSeries(t)) {
		t.Error(m)
	}
}

// TestRealSwiftSeriesFromTheEnvironment: with STORAGESIM_REAL_SWIFT_SERIES
// set, the comparison reads that capture, not the golden file: one without
// the proxy's request counts fails it.
func TestRealSwiftSeriesFromTheEnvironment(t *testing.T) {
	golden, err := os.ReadFile(realSwiftSeries)
	if err != nil {
		t.Fatal(err)
	}
	var capture []string
	for _, line := range strings.Split(string(golden), "\n") {
		if !strings.HasPrefix(line, "swift_proxy_count{") {
			capture = append(capture, line)
		}
	}
	path := filepath.Join(t.TempDir(), "real-swift-series.txt")
	if err := os.WriteFile(path, []byte(strings.Join(capture, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(realSwiftSeriesEnv, path)
	want := "storagesim serves swift_proxy_count; real Swift"
	mismatches := swiftMismatches(t, loadRealSwiftSeries(t))
	for _, m := range mismatches {
		if strings.HasPrefix(m, want) {
			return
		}
	}
	t.Errorf("a capture without swift_proxy_count: mismatches %q, want one starting %q", mismatches, want)
}

// swiftMismatches compares the Swift series storagesim serves with a real
// capture and describes each difference (none: they match).
func swiftMismatches(t *testing.T, real realSeries) []string {
	t.Helper()
	var out []string
	c := mustCluster(t, "swift", 1)
	s := c.Sample(testOrigin.Add(5 * time.Hour))
	served := map[string]bool{}
	checked := 0
	for _, tg := range s.Targets {
		if tg.Job != "swift" {
			continue
		}
		for _, se := range tg.Series {
			served[se.Name] = true
			sets, ok := real[se.Name]
			if !ok {
				out = append(out, fmt.Sprintf("storagesim serves %s; real Swift (statsd_exporter, shipped mapping) has no such series", se.Name))
				continue
			}
			keys := labelKeys(se.Labels)
			found := false
			for _, l := range sets {
				if labelKeys(l) == keys {
					found = true
					break
				}
			}
			if !found {
				out = append(out, fmt.Sprintf("%s: storagesim's labels {%s} are not among the real ones %v", se.Name, keys, sets[0]))
			}
			if storcastSignal(se.Labels) && !real.has(se.Name, se.Labels) {
				out = append(out, fmt.Sprintf("%s%v: a series storcast reads is not in the real capture", se.Name, se.Labels))
			}
			checked++
		}
	}
	if checked < 50 {
		t.Fatalf("only %d storagesim swift series checked", checked)
	}
	// The other way: the proxy series storcast's Swift mapping reads exist in
	// real Swift and storagesim serves them.
	for _, name := range []string{"swift_proxy_count", "swift_proxy_sum", "swift_proxy_transfer"} {
		seen := false
		for _, l := range real[name] {
			if storcastSignal(l) {
				seen = true
			}
		}
		if !seen {
			out = append(out, fmt.Sprintf("the real capture has no object GET/PUT %s: the capture is not from a loaded cluster", name))
		}
		if !served[name] {
			out = append(out, fmt.Sprintf("real Swift serves %s (read by storcast); storagesim does not", name))
		}
	}
	return out
}

package docs

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The README's Swift table counts the runs in e2e.md's run list (the suite
// keeps only its last run's results, so the list is the record): every
// figure the table gives over the runs is recomputed here from the list's
// rows, runs 13 on (the first with the scored figures in its row) but those
// marked "not evidence".
func TestREADMESwiftFiguresFromRunList(t *testing.T) {
	list, err := os.ReadFile("e2e.md")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile(`(?m)^\| (\d+) \| 65 s \|.*$`)
	maxIOPS := regexp.MustCompile(`max IOPS ([\d.]+)/([\d.]+)/([\d.]+)% at 50/70/30% GETs.*?16 KiB ([\d.]+)%.*?mixed ([\d.]+)%`)
	var runs [][5]float64
	for _, m := range row.FindAllStringSubmatch(string(list), -1) {
		n, _ := strconv.Atoi(m[1])
		if n < 13 || strings.Contains(m[0], "not evidence") {
			continue
		}
		f := maxIOPS.FindStringSubmatch(m[0])
		if f == nil {
			t.Fatalf("run %d: no max IOPS figures in its row", n)
		}
		var r [5]float64
		for i := range r {
			r[i], _ = strconv.ParseFloat(f[i+1], 64)
		}
		runs = append(runs, r)
	}
	calibrated, heldOut := 0, 0
	var sum4k, sum16k, sumMixed float64
	for _, r := range runs {
		if r[0] <= 8 && r[1] <= 8 && r[2] <= 8 {
			calibrated++
		}
		if r[3] <= 12 && r[4] <= 12 {
			heldOut++
		}
		sum4k += r[0] + r[1] + r[2]
		sum16k += r[3]
		sumMixed += r[4]
	}
	n := float64(len(runs))
	for _, want := range []string{
		fmt.Sprintf("over the %d runs", len(runs)),
		fmt.Sprintf("mean \\|error\\| %.1f%%; all three within 8%% in one run: %d of %d", sum4k/(3*n), calibrated, len(runs)),
		fmt.Sprintf("mean \\|error\\| %.1f · %.1f%%; both within 12%% in one run: %d of %d", sum16k/n, sumMixed/n, heldOut, len(runs)),
	} {
		if !strings.Contains(string(readme), want) {
			t.Errorf("README.md does not say %q (recomputed from e2e.md's Swift run list, %d runs)", want, len(runs))
		}
	}
}

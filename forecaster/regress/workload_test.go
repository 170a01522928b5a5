package regress

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

var updateWorkload = flag.Bool("update-workload", false, "rewrite testdata/workload/workload.csv from workloadData")

// workloadFeatures names the columns of workloadData, in the shape of
// Noorshams et al.'s storage experiments: workload parameters in, mean
// response time out.
var workloadFeatures = []string{"fileset_gb", "request_kb", "read_frac", "sequential",
	"noop_scheduler", "threads", "think_ms", "cache_gb"}

// workloadData draws n synthetic benchmark windows and their mean response
// time in ms. The response comes from a closed queueing network solved
// exactly by mean-value analysis (threads clients with think time in front
// of one disk), not from any of the regression models:
//
//	hit   = read_frac · min(1, cache_gb / fileset_gb)      page-cache hits
//	seek  = sequential ? 0.1 : (2 + 6(1 − e^(−fileset/30)))·(noop ? 1 : 0.85) ms
//	S     = seek + request_kb/150 ms (+30% for writes, + 0.2 ms with noop)
//	D     = (1 − hit)·S + 0.05 ms                           demand per request
//	MVA:  R_k = D (1 + Q_{k−1}),  X_k = k/(R_k + think),  Q_k = X_k R_k,  k = 1…threads
//
// and the observed value is R_threads times log-normal noise (σ = 5%).
func workloadData(n int, seed uint64) ([][]float64, []float64) {
	rng := rand.New(rand.NewPCG(seed, 0xb10c))
	X := make([][]float64, n)
	y := make([]float64, n)
	filesets := []float64{1, 25, 50, 75, 100}
	for i := range X {
		fs := filesets[rng.IntN(len(filesets))]
		kb := float64(4 * (1 + rng.IntN(8)))
		rf := []float64{0, 0.25, 0.3, 0.5, 0.7, 0.75, 1}[rng.IntN(7)]
		seq := float64(rng.IntN(2))
		noop := float64(rng.IntN(2))
		thr := float64(1 + rng.IntN(100))
		think := math.Round(rng.Float64()*200) / 10
		cache := float64(4 * (1 + rng.IntN(16)))
		X[i] = []float64{fs, kb, rf, seq, noop, thr, think, cache}
		hit := rf * math.Min(1, cache/fs)
		seek := 0.1
		if seq == 0 {
			seek = 2 + 6*(1-math.Exp(-fs/30))
			if noop == 0 {
				seek *= 0.85
			}
		}
		s := seek + kb/150
		s *= rf + (1-rf)*1.3
		if noop == 1 {
			s += 0.2
		}
		d := (1-hit)*s + 0.05
		var q, r float64
		for k := 1; k <= int(thr); k++ {
			r = d * (1 + q)
			q = float64(k) / (r + think) * r
		}
		y[i] = r * math.Exp(0.05*rng.NormFloat64())
	}
	return X, y
}

const workloadPath = "testdata/workload/workload.csv"

func formatWorkload(X [][]float64, y []float64) string {
	var b strings.Builder
	b.WriteString(strings.Join(workloadFeatures, ",") + ",response_ms\n")
	for i, x := range X {
		for _, v := range x {
			b.WriteString(strconv.FormatFloat(v, 'g', -1, 64) + ",")
		}
		b.WriteString(strconv.FormatFloat(y[i], 'g', -1, 64) + "\n")
	}
	return b.String()
}

// The committed workload.csv is exactly what workloadData(600, 1) gives.
func TestWorkloadDataIsCommitted(t *testing.T) {
	X, y := workloadData(600, 1)
	want := formatWorkload(X, y)
	if *updateWorkload {
		if err := os.MkdirAll("testdata/workload", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(workloadPath, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(workloadPath)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatalf("%s differs from workloadData(600, 1); rerun with -update-workload", workloadPath)
	}
}

func readWorkload(t testing.TB) ([][]float64, []float64) {
	t.Helper()
	b, err := os.ReadFile(workloadPath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")[1:]
	X := make([][]float64, len(lines))
	y := make([]float64, len(lines))
	for i, l := range lines {
		fs := strings.Split(l, ",")
		row := make([]float64, len(fs)-1)
		for j, s := range fs {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatal(err)
			}
			if j < len(row) {
				row[j] = v
			} else {
				y[i] = v
			}
		}
		X[i] = row
	}
	return X, y
}

// toolboxSearch is the search configuration of the table in docs/models.md:
// 10-fold CV as in the paper, but 2 splits, 2 explorations and 4 rounds
// (the paper: 4, 5 and 10) to keep the test short (about 3 s of CPU).
var toolboxSearch = SearchOptions{Folds: 10, Splits: 2, Explore: 2, MaxRounds: 4, Seed: 1}

// TestToolboxTable runs Algorithm 1 for every learner on the committed
// workload data and prints the table of docs/models.md. It checks the
// search's contract (it starts from the defaults, so it never ends worse
// than them), what the search earns (MARS, CART and Cubist each at least
// 15% below their defaults' CV RMSE; docs/models.md: 56.5, 21.4, 25.4%) and
// which learners beat plain LRM.
func TestToolboxTable(t *testing.T) {
	X, y := readWorkload(t)
	t0, cpu0 := time.Now(), cpuTime()
	res, best, err := SearchAll(Learners(), X, y, toolboxSearch)
	t.Logf("search took %v wall, %v CPU (user+system of the test process)", time.Since(t0), cpuTime()-cpu0)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("| learner | default parameters | default CV RMSE (ms) | optimized parameters | optimized CV RMSE (ms) | reduction | candidates |\n")
	b.WriteString("|---|---|---|---|---|---|---|\n")
	for _, r := range res {
		fmt.Fprintf(&b, "| %s | %s | %.2f | %s | %.2f | %.1f%% | %d |\n", r.Learner, paramString(r.Params, r.Default),
			r.DefaultScore, paramString(r.Params, r.Best.Params), r.Best.Score,
			100*(1-r.Best.Score/r.DefaultScore), len(r.Candidates))
		if r.Best.Score > r.DefaultScore*(1+1e-12) {
			t.Errorf("%s: optimized CV RMSE %.4f is worse than the default's %.4f", r.Learner, r.Best.Score, r.DefaultScore)
		}
		if (r.Learner == "MARS" || r.Learner == "CART" || r.Learner == "Cubist") && !(r.Best.Score < 0.85*r.DefaultScore) {
			t.Errorf("%s: the search took CV RMSE from %.2f to %.2f, less than the 15%% it earns on this data", r.Learner, r.DefaultScore, r.Best.Score)
		}
	}
	t.Logf("best learner: %s\n%s", res[best].Learner, b.String())
	lrm := res[0]
	for _, r := range res[1:] {
		t.Logf("%s optimized %.2f vs LRM optimized %.2f: beats LRM %v", r.Learner, r.Best.Score, lrm.Best.Score, r.Best.Score < lrm.Best.Score)
	}
	for _, name := range []string{"MARS", "Cubist"} {
		for _, r := range res {
			if r.Learner == name && !(r.Best.Score < lrm.Best.Score) {
				t.Errorf("%s (%.3f) does not beat LRM (%.3f) after optimization", name, r.Best.Score, lrm.Best.Score)
			}
		}
	}
}

func paramString(ps []Param, v []float64) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = fmt.Sprintf("%s=%.4g", p.Name, v[i])
	}
	return strings.Join(parts, " ")
}

// cpuTime is the CPU time used by this process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/storcast/storcast/forecaster/conservation"
	"gonum.org/v1/gonum/stat"
)

// latestRun is the part of results/latest.json the offline recompute needs:
// the run's fio calibration and, per scored mix, the measured max and the
// rates fio measured at their sizes in the step it comes from; the checks
// as the run scored them.
type latestRun struct {
	When        string                   `json:"when"`
	Calibration conservation.Calibration `json:"calibration"`
	Mixes       []struct {
		ReadPct  int     `json:"readPct"`
		BS       string  `json:"bs"`
		Measured float64 `json:"measured"`
		Side     struct {
			ReadIOPS   float64 `json:"readIops"`
			WriteIOPS  float64 `json:"writeIops"`
			ReadBytes  float64 `json:"readBytes"`
			WriteBytes float64 `json:"writeBytes"`
		} `json:"sideBySide"`
	} `json:"mixes"`
	Checks []struct {
		Name  string   `json:"name"`
		Value *float64 `json:"value"` // null: not scored
		Pass  bool     `json:"pass"`
	} `json:"checks"`
}

// loadRun reads a run's results JSON (results/latest.json or a committed
// copy under testdata/runs).
func loadRun(t *testing.T, path string) latestRun {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r latestRun
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(r.Calibration.Points) == 0 || len(r.Mixes) == 0 {
		t.Fatalf("%s: %d calibration points, %d mixes", path, len(r.Calibration.Points), len(r.Mixes))
	}
	return r
}

// The held-out table of the committed run, recomputed offline from its
// calibration with the models of this tree: the paper (no mixed points) and
// the frontier (NewModel, what storcast serves), at the rates fio measured
// (logged: go test -v -run TestLatestRunRecomputed ./e2e/ceph/scorer).
func TestLatestRunRecomputed(t *testing.T) {
	// The latest run is one of the committed runs, so that its figures are
	// in TestRecordedRunsRecomputed's table and the docs' counts.
	latest, err := os.ReadFile("../results/latest.json")
	if err != nil {
		t.Fatal(err)
	}
	runs, err := filepath.Glob("testdata/runs/*.json")
	if err != nil {
		t.Fatal(err)
	}
	committed := false
	for _, p := range runs {
		if b, err := os.ReadFile(p); err == nil && bytes.Equal(b, latest) {
			committed = true
		}
	}
	if !committed {
		t.Error("e2e/ceph/results/latest.json is none of testdata/runs/*.json: copy the run there and add it to the recomputed tables")
	}
	r := loadRun(t, "../results/latest.json")
	frontier, err := conservation.NewModel(r.Calibration)
	if err != nil {
		t.Fatal(err)
	}
	paper, err := conservation.NewPaperModel(r.Calibration)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range frontier.Interference() {
		t.Logf("γ at %v B: %.3f (estimate %.3f ± %.3f, %.0f dof): %s", g.IOSizeBytes, g.Gamma, g.Estimate, g.StdErr, g.DoF, g.Test)
	}
	for _, m := range r.Mixes {
		sb := sideBySide(paper, frontier, m.Side.ReadIOPS, m.Side.WriteIOPS, m.Side.ReadBytes, m.Side.WriteBytes)
		if !sb.Have {
			t.Fatal(sb.Err)
		}
		t.Logf("%d%% reads %s: measured %.0f; paper %.0f (%+.1f%%); frontier %.0f [%.0f, %.0f] (%+.1f%%, in band %v, U %.3f)",
			m.ReadPct, m.BS, m.Measured, sb.Paper.MaxTotalIOPS, 100*(sb.Paper.MaxTotalIOPS/m.Measured-1),
			sb.Frontier.MaxTotalIOPS, sb.Frontier.MaxTotalIOPSLower, sb.Frontier.MaxTotalIOPSUpper,
			100*(sb.Frontier.MaxTotalIOPS/m.Measured-1), InBand(sb.Frontier, m.Measured), sb.Frontier.Utilization)
	}
}

// The forty-eight real-Ceph runs of 2026-11-24, 25, 27, 28 and 29 whose figures the docs quote
// (testdata/runs: each run's results/latest.json as committed), recomputed
// with the models of this tree: signed error (model/measured − 1, %) of the
// paper's line and of the frontier at each scored mix (50/70/30% reads at
// 4 KiB, 50% at 16 KiB, 4 KiB reads with 64 KiB writes), to 0.05 points.
// The frontier uses γ and η at their estimates whatever their test says
// (docs/models.md "Interference: the estimate, not a test"); in the runs of
// 10:25 and 12:28 γ's test dropped it and in those and 13:34 η's, which the
// served frontier did then; 15:50, 16:30, 17:22, 19:21, 20:20, 20:52, 22:21, 22:47, 23:38, 00:23, 02:03, 02:29, 03:29, 06:05 and 2026-11-27 08:35, 09:10, 09:56, 11:10, 11:51, 12:45, 15:16, 16:16, 16:50, 17:56, 19:37, 20:27, 22:19, 23:17 and 2026-11-28 02:09, 05:10, 07:18, 08:38, 11:13, 12:13, 13:40, 15:02, 17:49, 19:44, 20:59, 23:56 and 2026-11-29 03:30, 06:15, 07:15 and 13:22 were served this way (11:51 and the twenty-five after it with the cost model across sizes, the others recomputed with it).
func TestRecordedRunsRecomputed(t *testing.T) {
	want := map[string]struct{ paper, frontier [5]float64 }{
		"2026-11-24T0748.json": {[5]float64{12.81, 17.38, 0.43, 15.99, 28.61}, [5]float64{1.23, -0.59, -5.28, 2.77, 10.47}},
		"2026-11-24T1025.json": {[5]float64{0.78, 10.05, 4.71, 10.33, 8.24}, [5]float64{-6.20, -1.56, 0.74, 6.23, 3.37}},
		"2026-11-24T1228.json": {[5]float64{-3.11, 10.56, 5.10, 6.80, 15.28}, [5]float64{-9.80, -1.18, 1.18, 1.04, -0.07}},
		"2026-11-24T1334.json": {[5]float64{-3.11, 12.62, -2.84, 10.56, 21.53}, [5]float64{-10.58, -0.43, -6.95, 3.49, 2.16}},
		"2026-11-24T1550.json": {[5]float64{12.99, 11.69, 4.97, 12.20, 23.15}, [5]float64{4.36, -1.12, 0.57, 3.22, 13.72}},
		"2026-11-24T1630.json": {[5]float64{17.07, 22.47, 16.16, 17.61, 24.56}, [5]float64{1.46, -0.49, 7.13, 8.45, 2.36}},
		"2026-11-24T1722.json": {[5]float64{12.74, 19.70, 14.61, 8.65, 30.48}, [5]float64{3.99, 5.70, 9.73, -0.86, -1.02}},
		"2026-11-24T1921.json": {[5]float64{19.82, 26.97, 10.34, 14.80, 18.76}, [5]float64{5.64, 5.22, 2.91, 3.55, 1.42}},
		"2026-11-24T2020.json": {[5]float64{18.72, 19.71, 8.53, 17.62, 22.01}, [5]float64{23.41, 27.68, 10.67, 17.68, 23.71}},
		"2026-11-24T2052.json": {[5]float64{14.43, 18.90, -4.82, -1.97, 16.17}, [5]float64{10.83, 12.87, -6.38, -6.59, -5.33}},
		"2026-11-24T2221.json": {[5]float64{-4.83, 23.11, 15.85, 14.99, 26.06}, [5]float64{-18.89, -1.97, 5.64, 0.51, -16.46}},
		"2026-11-24T2247.json": {[5]float64{4.52, 17.52, 2.92, 10.98, 8.67}, [5]float64{-5.70, 0.28, -2.62, 2.14, 3.92}},
		"2026-11-24T2338.json": {[5]float64{14.18, 16.22, 5.12, 11.29, 16.28}, [5]float64{6.64, 4.20, 1.43, 5.19, -4.84}},
		"2026-11-25T0023.json": {[5]float64{19.59, 29.38, 18.92, 10.33, 27.58}, [5]float64{13.05, 18.31, 15.45, 1.76, 2.47}},
		"2026-11-25T0203.json": {[5]float64{41.07, 18.62, 9.67, 24.73, 19.82}, [5]float64{21.48, -5.04, 0.92, 11.36, -8.92}},
		"2026-11-25T0229.json": {[5]float64{13.62, 26.06, 11.30, 6.06, 14.82}, [5]float64{3.47, 8.96, 5.86, -0.07, -6.38}},
		"2026-11-25T0329.json": {[5]float64{27.57, 27.50, 46.46, 26.98, 8.47}, [5]float64{14.94, 8.72, 38.39, 18.83, -12.43}},
		"2026-11-25T0605.json": {[5]float64{34.81, 53.15, 9.38, 48.44, 51.70}, [5]float64{21.12, 30.11, 3.18, 29.26, 15.99}},
		"2026-11-27T0835.json": {[5]float64{-3.00, 9.22, 3.93, 8.25, 17.67}, [5]float64{-6.17, 3.02, 2.25, 1.57, -9.86}},
		"2026-11-27T0910.json": {[5]float64{27.28, 27.14, 8.27, 12.19, 16.38}, [5]float64{9.80, 1.97, -0.28, 2.66, -17.11}},
		"2026-11-27T0956.json": {[5]float64{18.73, 20.70, 11.61, 3.49, 1.69}, [5]float64{8.02, 3.70, 6.20, -2.59, -12.83}},
		"2026-11-27T1110.json": {[5]float64{-2.99, 22.91, 2.87, -0.22, 26.37}, [5]float64{-12.07, 5.46, -2.37, -8.26, 1.02}},
		"2026-11-27T1151.json": {[5]float64{36.82, 30.84, 29.86, 24.83, 39.63}, [5]float64{15.54, 1.81, 18.11, 13.23, 17.64}},
		"2026-11-27T1245.json": {[5]float64{8.85, 24.09, 18.30, 12.65, 25.07}, [5]float64{1.28, 10.48, 13.92, 5.04, -3.26}},
		"2026-11-27T1516.json": {[5]float64{15.70, 24.77, 25.78, 25.70, 28.15}, [5]float64{2.31, 2.81, 17.75, 13.01, 4.28}},
		"2026-11-27T1616.json": {[5]float64{10.96, 4.28, 2.25, 15.25, 21.43}, [5]float64{-3.68, -16.06, -5.32, 2.60, -6.71}},
		"2026-11-27T1650.json": {[5]float64{10.07, 45.42, 35.87, 39.06, 26.72}, [5]float64{-4.65, 16.88, 25.61, 25.76, 24.33}},
		"2026-11-27T1756.json": {[5]float64{12.98, 15.87, -3.62, -11.60, 40.99}, [5]float64{6.27, 4.73, -6.60, -19.89, 4.49}},
		"2026-11-27T1937.json": {[5]float64{10.70, 53.35, 57.27, 56.45, 65.25}, [5]float64{-1.97, 26.73, 47.35, 42.67, 40.71}},
		"2026-11-27T2027.json": {[5]float64{9.37, 15.91, -2.41, 15.49, 20.88}, [5]float64{2.90, 4.77, -5.40, 8.05, 2.32}},
		"2026-11-27T2219.json": {[5]float64{17.44, 15.57, 11.36, -2.15, 23.93}, [5]float64{6.74, -1.03, 5.95, -10.32, -8.96}},
		"2026-11-27T2317.json": {[5]float64{-7.15, 35.75, 16.07, 17.25, 36.75}, [5]float64{-13.11, 21.95, 12.12, 9.41, 22.43}},
		"2026-11-28T0209.json": {[5]float64{14.74, 26.42, 19.10, 22.94, 40.70}, [5]float64{6.27, 11.41, 14.49, 12.85, 20.37}},
		"2026-11-28T0510.json": {[5]float64{10.14, 22.96, -3.78, 10.63, 39.54}, [5]float64{3.60, 10.75, -6.69, 6.65, 23.16}},
		"2026-11-28T0718.json": {[5]float64{42.08, 64.21, 41.36, 37.09, 67.10}, [5]float64{18.74, 26.20, 27.61, 18.81, 67.44}},
		"2026-11-28T0838.json": {[5]float64{9.01, 17.22, -11.85, 18.65, 24.06}, [5]float64{-0.93, 0.50, -16.15, 10.81, 17.63}},
		"2026-11-28T1113.json": {[5]float64{8.54, 13.45, 3.78, 1.67, 13.39}, [5]float64{-2.93, -4.46, -2.27, -5.58, 3.81}},
		"2026-11-28T1213.json": {[5]float64{17.81, 29.22, 8.46, 9.09, 23.82}, [5]float64{3.40, 6.03, 0.95, -1.40, -7.90}},
		"2026-11-28T1340.json": {[5]float64{-3.09, 1.72, -7.10, -7.74, 5.84}, [5]float64{-7.74, -6.25, -9.40, -13.51, -20.14}},
		"2026-11-28T1502.json": {[5]float64{10.89, 19.13, 7.87, 10.83, 26.39}, [5]float64{-1.05, -0.26, 1.51, 0.07, 2.84}},
		"2026-11-28T1749.json": {[5]float64{13.11, 17.78, 2.49, 4.39, 15.70}, [5]float64{4.30, 3.59, -1.81, -1.66, -6.82}},
		"2026-11-28T1944.json": {[5]float64{15.72, 22.49, 6.89, 10.18, 20.04}, [5]float64{4.21, 4.53, 0.98, 1.30, 7.41}},
		"2026-11-28T2059.json": {[5]float64{7.53, 18.94, 2.37, 5.54, 22.88}, [5]float64{3.86, 12.24, 0.59, 0.60, -3.23}},
		"2026-11-28T2356.json": {[5]float64{0.18, 7.57, -2.00, -0.43, 11.83}, [5]float64{-6.46, -3.38, -5.47, -8.07, 4.20}},
		"2026-11-29T0330.json": {[5]float64{15.63, 22.99, 9.35, 11.67, 18.22}, [5]float64{3.50, 3.83, 2.93, 1.43, 2.11}},
		"2026-11-29T0615.json": {[5]float64{14.13, 26.72, 10.07, 13.66, 23.57}, [5]float64{2.74, 7.56, 3.99, 4.33, 5.49}},
		"2026-11-29T0715.json": {[5]float64{19.44, 30.40, 12.49, 19.97, 33.70}, [5]float64{11.61, 17.02, 8.55, 12.22, 10.27}},
		"2026-11-29T1322.json": {[5]float64{10.32, 13.25, 9.96, 21.31, 27.11}, [5]float64{4.94, 4.45, 7.16, 13.90, 8.75}},
	}
	better, inBand := 0, 0
	runsCalibrated, runsHeldOut, runsBoth := 0, 0, 0
	// Per mix over the runs: how often each model came within 8% and 12%
	// of the measured max, and its mean |error| (the README's table).
	type tally struct{ within8, within12, sumAbs float64 }
	var byMix [5]struct{ paper, frontier tally }
	count := func(t *tally, e float64) {
		t.sumAbs += math.Abs(e)
		if math.Abs(e) <= 8 {
			t.within8++
		}
		if math.Abs(e) <= 12 {
			t.within12++
		}
	}
	for name, w := range want {
		r := loadRun(t, "testdata/runs/"+name)
		frontier, err := conservation.NewModel(r.Calibration)
		if err != nil {
			t.Fatal(err)
		}
		paper, err := conservation.NewPaperModel(r.Calibration)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Mixes) != 5 {
			t.Fatalf("%s: %d mixes, want 5", name, len(r.Mixes))
		}
		var sumP, sumF float64
		calibratedOK, heldOutOK := true, true // the project's targets: 8% at 4 KiB, 12% held out
		for i, m := range r.Mixes {
			sb := sideBySide(paper, frontier, m.Side.ReadIOPS, m.Side.WriteIOPS, m.Side.ReadBytes, m.Side.WriteBytes)
			if !sb.Have {
				t.Fatalf("%s: %s", name, sb.Err)
			}
			if InBand(sb.Frontier, m.Measured) {
				inBand++
			} else {
				t.Logf("%s %d%% %s: measured %.0f outside the band [%.0f, %.0f]", name, m.ReadPct, m.BS, m.Measured, sb.Frontier.MaxTotalIOPSLower, sb.Frontier.MaxTotalIOPSUpper)
			}
			ep, ef := 100*(sb.Paper.MaxTotalIOPS/m.Measured-1), 100*(sb.Frontier.MaxTotalIOPS/m.Measured-1)
			sumP, sumF = sumP+math.Abs(ep), sumF+math.Abs(ef)
			count(&byMix[i].paper, ep)
			count(&byMix[i].frontier, ef)
			if i < 3 {
				calibratedOK = calibratedOK && math.Abs(ef) <= 8
			} else {
				heldOutOK = heldOutOK && math.Abs(ef) <= 12
			}
			t.Logf("%s %d%% %s: paper %+.2f%%, frontier %+.2f%%", name, m.ReadPct, m.BS, ep, ef)
			if math.Abs(ep-w.paper[i]) > 0.05 || math.Abs(ef-w.frontier[i]) > 0.05 {
				t.Errorf("%s mix %d (%d%% %s): paper %+.2f%%, frontier %+.2f%%, want %+.2f%%, %+.2f%%", name, i, m.ReadPct, m.BS, ep, ef, w.paper[i], w.frontier[i])
			}
		}
		t.Logf("%s: mean |error| paper %.2f%%, frontier %.2f%%", name, sumP/5, sumF/5)
		if sumF < sumP {
			better++
		}
		if calibratedOK {
			runsCalibrated++
		}
		if heldOutOK {
			runsHeldOut++
		}
		if calibratedOK && heldOutOK {
			runsBoth++
		}
	}
	// Run by run, the project's targets for the frontier: every 4 KiB mix
	// within 8% in 20 runs, the 16 KiB and mixed-size steps within 12% in
	// 28, both in 17, of 48 (the measurement itself repeats within 8% in 33:
	// TestRecordedRunsRepeatability).
	t.Logf("every 4 KiB mix within 8%% in %d runs, 16 KiB and mixed sizes within 12%% in %d, both in %d", runsCalibrated, runsHeldOut, runsBoth)
	if runsCalibrated != 20 || runsHeldOut != 28 || runsBoth != 17 {
		t.Errorf("runs meeting the targets: %d, %d, %d; pinned 20, 28, 17", runsCalibrated, runsHeldOut, runsBoth)
	}
	// The frontier's mean error is below the paper's in every run but 20:20
	// (its calibration 5-28% above what the load then measured at every mix,
	// γ at 4 KiB −0.07: no model of that calibration comes near),
	// 2026-11-28 13:40 (one of the three 50/50 4 KiB calibration runs, 4851,
	// 25% below the other two: the point's mean, 5972, 7.7% under the load's
	// 50/50 step, put γ at +0.13 and every mix inside the paper's line, which
	// was closer at all five) and 23:56 (its calibration's 50/50 4 KiB point,
	// 6325, 6.6% under the load's step, 6770: the measured max above the
	// frontier at four mixes, U 1.04-1.10, where the paper's line, outside
	// the frontier for γ > 0, came closer at three; mean |error| 4.4% against
	// the frontier's 5.5%, both within every target).
	if better != len(want)-3 {
		t.Errorf("the frontier's mean |error| is below the paper's in %d of %d runs, want %d", better, len(want), len(want)-3)
	}
	// The frontier's band (where one more saturated run would land, 95%,
	// from the runs' pooled noise) holds the measured max at 225 of the 240
	// mixes (93.75%): about as often as it claims (12 misses expected, 15
	// seen, 3 of them in 19:37, whose host slowed after its 50% steps, and
	// all 5 of 2026-11-29 07:15, whose load's 50/50 step came out 11.6%
	// under its calibration's 50/50 point: U 0.84-0.92 at every mix), so
	// neither far too narrow nor too wide for this machine's noise.
	// Pinned: within 8%, within 12%, mean |error| %, paper then frontier,
	// at 50/70/30% reads (4 KiB), 50% at 16 KiB, 4 KiB reads + 64 KiB writes.
	pinned := [5][2]tally{
		{{11, 21, 14.2}, {32, 38, 7.6}},
		{{3, 7, 22.5}, {32, 37, 7.9}},
		{{21, 34, 12.1}, {33, 37, 8.4}},
		{{11, 24, 15.0}, {27, 35, 8.4}},
		{{2, 6, 24.7}, {26, 32, 10.9}},
	}
	n := float64(len(want))
	for i, m := range byMix {
		for k, got := range []tally{m.paper, m.frontier} {
			got.sumAbs = math.Round(10*got.sumAbs/n) / 10
			t.Logf("mix %d, %s: within 8%% in %.0f, within 12%% in %.0f of %.0f runs, mean |error| %.1f%%", i, [2]string{"paper", "frontier"}[k], got.within8, got.within12, n, got.sumAbs)
			if got != pinned[i][k] {
				t.Errorf("mix %d, %s: %v, pinned %v", i, [2]string{"paper", "frontier"}[k], got, pinned[i][k])
			}
		}
	}
	t.Logf("measured max inside the frontier's band at %d of %d mixes", inBand, 5*len(want))
	if inBand != 225 {
		t.Errorf("measured max inside the frontier's band at %d of %d mixes, pinned 225", inBand, 5*len(want))
	}
}

// The committed runs' 50/50 4 KiB step repeats their calibration's 50/50
// 4 KiB job (the frontier passes through it by construction): the two
// measurements of one mix, minutes apart on this machine, no model between
// them. They lie within 8% of each other in 33 of the 48 runs (sd 9.1%),
// so the project's "every 4 KiB mix within 8%" is out of this machine's
// reach in 15 runs whatever the model; the repeat is pinned here,
// model-free.
func TestRecordedRunsRepeatability(t *testing.T) {
	names, err := filepath.Glob("testdata/runs/*.json")
	if err != nil || len(names) != 48 {
		t.Fatalf("%d committed runs (%v), want 48", len(names), err)
	}
	var errs []float64
	within := 0
	for _, name := range names {
		r := loadRun(t, name)
		n := 0
		for _, m := range r.Mixes {
			p, ok := repeatOf(r.Calibration, m.Side.ReadIOPS, m.Side.WriteIOPS, m.Side.ReadBytes, m.Side.WriteBytes)
			if !ok {
				continue
			}
			n++
			if m.ReadPct != 50 || m.BS != "4k" {
				t.Errorf("%s: the %d%% %s mix repeats a calibration point (%+v): only the 50%% 4k one should", name, m.ReadPct, m.BS, p)
			}
			e := 100 * (p.IOPS/m.Measured - 1)
			errs = append(errs, e)
			if math.Abs(e) <= 8 {
				within++
			}
			t.Logf("%s: calibration %.0f, step %.0f: %+.1f%%", filepath.Base(name), p.IOPS, m.Measured, e)
		}
		if n != 1 {
			t.Errorf("%s: %d scored mixes repeat a calibration point, want 1", name, n)
		}
	}
	mean, sd := stat.PopMeanStdDev(errs, nil)
	t.Logf("within 8%% in %d of %d runs; mean %+.1f%%, sd %.1f%%", within, len(errs), mean, sd)
	if within != 33 || math.Abs(sd-9.115) > 0.005 || math.Abs(mean-2.894) > 0.005 {
		t.Errorf("the repeat within 8%% in %d runs, mean %+.4f%%, sd %.4f%%; pinned 33, +2.894%%, 9.115%%", within, mean, sd)
	}
	// What the same difference does to a latency forecast at the 80% step:
	// the plan puts that step at 80% of the calibrated capacity C(1+e) (the
	// frontier passes through the calibration's 50/50 point), so a curve of
	// exactly M/M/1's shape anchored on it reads U = 0.8 where the cluster
	// is at 0.8(1+e): it predicts L/0.2 where the truth is L/(0.2 − 0.8e),
	// a ratio of 1 − 4e, within 20% only for e in [−5%, +5%] (the window
	// this test took before, [−4%, +6.7%], read the step at 80% of the true
	// capacity, which the plan never does). The repeats lie there in 22 of the 48 runs: the
	// ceiling of "within 20% at the 80% step" for a perfect curve fed the
	// calibration's capacity.
	lo, hi := -5.0, 5.0 // |1 − 4e| <= 0.2
	inWindow := 0
	for _, e := range errs {
		if e >= lo && e <= hi {
			inWindow++
		}
	}
	t.Logf("within the M/M/1 window [%+.1f%%, %+.1f%%] at the 80%% step: %d of %d", lo, hi, inWindow, len(errs))
	if inWindow != 22 {
		t.Errorf("the repeat inside [%+.1f%%, %+.1f%%] in %d runs, pinned 22", lo, hi, inWindow)
	}
}

// The committed runs' own checks, as scored when each ran (the served
// models changed over the runs; these are not recomputed). No code of this
// tree runs here: the test is the source of the figures docs/e2e.md and the
// README quote from those runs, and fails when a run is added without them
// or the quoted figures drift from the data; per check, the
// runs that scored it, the median and worst of its value over them, and
// how many failed (docs/e2e.md "Bounds, and why" and the README's table).
// Inside-Out failed once (2026-11-24 22:21, 436%: a runaway linear
// prediction, fixed by holding host features inside their training range),
// M-LISP twice (20:20, trained on windows holding the saturated
// calibration; 2026-11-25 02:03, a trend fitted along counters that are
// exact functions of the load; both fixed). The passive check scores only
// when storcast found a capacity line in the history (14 runs).
func TestRecordedRunsChecks(t *testing.T) {
	paths, err := filepath.Glob("testdata/runs/*.json")
	if err != nil {
		t.Fatal(err)
	}
	values := map[string][]float64{}
	failed := map[string]int{}
	for _, p := range paths {
		for _, c := range loadRun(t, p).Checks {
			if c.Value != nil {
				values[c.Name] = append(values[c.Name], *c.Value)
			}
			if !c.Pass {
				failed[c.Name]++
			}
		}
	}
	for _, want := range []struct {
		name          string
		runs          int
		median, worst float64 // to 0.0005
		failed        int
	}{
		{"plumbing: Ceph op rate vs fio IOPS (saturated steps)", 48, 0.0478, 0.1349, 0},
		{"conservation model (fio calibration) vs measured max IOPS", 48, 0.1460, 0.6744, 0},
		{"frontier vs measured max IOPS, mixes at a calibrated size", 48, 0.1030, 0.4735, 0},
		{"frontier vs measured max IOPS, a size not calibrated and mixed sizes", 48, 0.1177, 0.6744, 0},
		{"storcast capacity curve vs conservation model (plumbing)", 48, 0, 0, 0},
		{"storcast_max_iops vs measured max IOPS", 48, 0.1404, 0.6822, 0},
		{"plumbing: storcast_max_iops vs conservation model at the step's mix and size", 48, 0.0025, 0.0097, 0},
		{"storcast_max_iops vs the scorer's frontier at the mix storcast saw (plumbing)", 45, 0.0002, 0.0005, 0},
		{"storcast_headroom_ratio vs measured headroom (abs)", 48, 0.0960, 0.2766, 0},
		{"Inside-Out storcast_predicted_iops MAPE over the load", 48, 0.4510, 4.3611, 1},
		{"M-LISP latency forecast (lower steps) vs measured at higher steps", 48, 0.2137, 67.9184, 2},
		{"plumbing: what-if latency beyond the history answered by queueing (points by another model)", 30, 0, 0, 0},
		{"passive calibration vs measured max IOPS", 14, 0.2990, 0.7637, 0},
	} {
		v := append([]float64(nil), values[want.name]...)
		sort.Float64s(v)
		if len(v) == 0 {
			t.Errorf("%s: scored in no run", want.name)
			continue
		}
		med, worst := (v[(len(v)-1)/2]+v[len(v)/2])/2, v[len(v)-1]
		t.Logf("%s: %d runs, median %.4f, worst %.4f, failed in %d", want.name, len(v), med, worst, failed[want.name])
		if len(v) != want.runs || failed[want.name] != want.failed ||
			math.Abs(med-want.median) > 0.0005 || math.Abs(worst-want.worst) > 0.0005 {
			t.Errorf("%s: %d runs, median %.4f, worst %.4f, failed in %d; pinned %d, %.4f, %.4f, %d",
				want.name, len(v), med, worst, failed[want.name], want.runs, want.median, want.worst, want.failed)
		}
	}
}

package main

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/storcast/storcast/forecaster/conservation"
)

// latestRun is the part of results/latest.json the offline recompute needs:
// the run's fio calibration and, per scored mix, the measured max and the
// rates fio measured at their sizes in the step it comes from.
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
}

func loadLatestRun(t *testing.T) latestRun {
	t.Helper()
	data, err := os.ReadFile("../results/latest.json")
	if err != nil {
		t.Fatal(err)
	}
	var r latestRun
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Calibration.Points) == 0 || len(r.Mixes) == 0 {
		t.Fatalf("results/latest.json: %d calibration points, %d mixes", len(r.Calibration.Points), len(r.Mixes))
	}
	return r
}

// The held-out table of the committed run, recomputed offline from its
// calibration with the models of this tree: the paper (no mixed points) and
// the frontier (NewModel, what storcast serves), at the rates fio measured.
func TestLatestRunRecomputed(t *testing.T) {
	r := loadLatestRun(t)
	frontier, err := conservation.NewModel(r.Calibration)
	if err != nil {
		t.Fatal(err)
	}
	paper, err := paperModel(r.Calibration)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range frontier.Interference() {
		t.Logf("γ at %v B: %.3f (estimate %.3f ± %.3f, %.0f dof): %s", g.IOSizeBytes, g.Gamma, g.Estimate, g.StdErr, g.DoF, g.Test)
	}
	for _, m := range r.Mixes {
		sb := sideBySide(paper, frontier, nil, m.Side.ReadIOPS, m.Side.WriteIOPS, m.Side.ReadBytes, m.Side.WriteBytes)
		if !sb.Have {
			t.Fatal(sb.Err)
		}
		t.Logf("%d%% reads %s: measured %.0f; paper %.0f (%+.1f%%); frontier %.0f [%.0f, %.0f] (%+.1f%%, in band %v, U %.3f)",
			m.ReadPct, m.BS, m.Measured, sb.Paper.MaxTotalIOPS, 100*(sb.Paper.MaxTotalIOPS/m.Measured-1),
			sb.Frontier.MaxTotalIOPS, sb.Frontier.MaxTotalIOPSLower, sb.Frontier.MaxTotalIOPSUpper,
			100*(sb.Frontier.MaxTotalIOPS/m.Measured-1), InBand(sb.Frontier, m.Measured), sb.Frontier.Utilization)
	}
}

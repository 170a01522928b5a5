package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/storcast/storcast/forecaster/conservation"
)

// StepRecord is one line of steps.jsonl, written by run.sh after each fio step.
type StepRecord struct {
	Name      string  `json:"name"`
	ReadPct   int     `json:"readPct"`
	BS        string  `json:"bs"`
	RateRead  int     `json:"rateRead"`
	RateWrite int     `json:"rateWrite"`
	Start     float64 `json:"start"` // Unix seconds
	End       float64 `json:"end"`
	Fio       string  `json:"fio"`       // path of the step's fio JSON
	Steal     float64 `json:"steal"`     // share of all CPU time stolen by the hypervisor during the step
	BusyCores float64 `json:"busyCores"` // cores kept busy by every process on the machine
	OursCores float64 `json:"oursCores"` // of which the system under test (Ceph, Prometheus, storcast, fio)
	// ObserverCores is the part of OursCores that Prometheus and the storcast instances used: the
	// observers, which a real deployment runs elsewhere (absent from runs before 2026-11-27 11:30).
	ObserverCores float64 `json:"observerCores"`
	OSDRSSMB      float64 `json:"osdRssMB"` // RSS of the three OSDs together after the step
}

// OtherCores is the CPU the rest of the machine (the noisy neighbour) used during the step.
func (r StepRecord) OtherCores() float64 { return max(r.BusyCores-r.OursCores, 0) }

// ReadSteps reads steps.jsonl.
func ReadSteps(path string) ([]StepRecord, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []StepRecord
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var r StepRecord
		if err := json.Unmarshal(line, &r); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, n, err)
		}
		if r.End <= r.Start {
			return nil, fmt.Errorf("%s:%d: step %q ends (%v) before it starts (%v)", path, n, r.Name, r.End, r.Start)
		}
		out = append(out, r)
	}
	return out, sc.Err()
}

// FioResult is what one fio step measured, client side.
type FioResult struct {
	ReadIOPS, WriteIOPS float64
	// Mean completion latency in seconds, per direction and op-weighted.
	ReadLatency, WriteLatency, Latency float64
}

// IOPS is the total.
func (r FioResult) IOPS() float64 { return r.ReadIOPS + r.WriteIOPS }

type fioStepJSON struct {
	Jobs []struct {
		JobName string `json:"jobname"`
		Error   int    `json:"error"`
		Read    fioDir `json:"read"`
		Write   fioDir `json:"write"`
	} `json:"jobs"`
}

type fioDir struct {
	IOPS  float64 `json:"iops"`
	LatNS struct {
		Mean float64 `json:"mean"`
	} `json:"lat_ns"`
}

// CalibrationMix is a mixed run of the calibration itself (loadgen's
// cal-r<read%>-<size> jobs other than 100% and 0%): the paper's conservation
// law checked on points measured back to back with the ones it is built from.
type CalibrationMix struct {
	Name        string
	ReadPct     int
	IOSizeBytes float64
	Measured    float64 // IOPS, both directions
	Model       float64 // the paper's law (γ = 0) through the calibration's pure points, at the same mix and size
}

// ParseCalibrationMixes reads the mixed runs from a calibration runs file
// (fio-shaped JSON, one job per run, named cal-r<read%>-<size>) and puts the
// paper's law through cal's pure points next to each: not the frontier,
// which passes through the mean of these very runs when cal holds them as
// its mixed points (each run would be scored against its own mean).
func ParseCalibrationMixes(data []byte, cal conservation.Calibration) ([]CalibrationMix, error) {
	m, err := conservation.NewPaperModel(cal)
	if err != nil {
		return nil, err
	}
	var f fioStepJSON
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("decoding calibration runs: %v", err)
	}
	var out []CalibrationMix
	for _, j := range f.Jobs {
		var readPct int
		var size string
		if n, err := fmt.Sscanf(strings.Replace(j.JobName, "-", " ", 2), "cal r%d %s", &readPct, &size); err != nil || n != 2 {
			continue
		}
		if readPct <= 0 || readPct >= 100 {
			continue
		}
		bytes, err := conservation.ParseSize(size)
		if err != nil {
			return nil, fmt.Errorf("calibration run %s: %v", j.JobName, err)
		}
		// At the read share the run did, not the one it drew with: the
		// load generator's random draws spread it by about a point, and
		// at Swift's 4 KiB the capacity moves 1.2% a point.
		share := float64(readPct) / 100
		if total := j.Read.IOPS + j.Write.IOPS; total > 0 {
			share = j.Read.IOPS / total
		}
		pts, _, err := m.Curve(bytes, []float64{share})
		if err != nil {
			return nil, err
		}
		out = append(out, CalibrationMix{Name: j.JobName, ReadPct: readPct, IOSizeBytes: bytes, Measured: j.Read.IOPS + j.Write.IOPS, Model: pts[0].MaxIOPS})
	}
	return out, nil
}

// ParseFioStep sums the jobs of one fio JSON output (text before the JSON,
// such as fio's warnings, is skipped).
func ParseFioStep(data []byte) (FioResult, error) {
	i := bytes.IndexByte(data, '{')
	if i < 0 {
		return FioResult{}, fmt.Errorf("no JSON object in fio output")
	}
	var f fioStepJSON
	if err := json.NewDecoder(bytes.NewReader(data[i:])).Decode(&f); err != nil {
		return FioResult{}, fmt.Errorf("decoding fio JSON: %v", err)
	}
	if len(f.Jobs) == 0 {
		return FioResult{}, fmt.Errorf("fio JSON has no jobs")
	}
	var r FioResult
	var rlat, wlat float64
	for _, j := range f.Jobs {
		if j.Error != 0 {
			return FioResult{}, fmt.Errorf("fio job %q reported error %d", j.JobName, j.Error)
		}
		r.ReadIOPS += j.Read.IOPS
		r.WriteIOPS += j.Write.IOPS
		rlat += j.Read.IOPS * j.Read.LatNS.Mean / 1e9
		wlat += j.Write.IOPS * j.Write.LatNS.Mean / 1e9
	}
	if r.ReadIOPS > 0 {
		r.ReadLatency = rlat / r.ReadIOPS
	}
	if r.WriteIOPS > 0 {
		r.WriteLatency = wlat / r.WriteIOPS
	}
	if r.IOPS() > 0 {
		r.Latency = (rlat + wlat) / r.IOPS()
	}
	return r, nil
}

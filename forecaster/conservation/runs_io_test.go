package conservation

import (
	"errors"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"
)

func TestLoadCalibrationRunsAndMixed(t *testing.T) {
	data, err := os.ReadFile("testdata/calibration-runs.yml")
	if err != nil {
		t.Fatal(err)
	}
	c, err := LoadCalibration(data)
	if err != nil {
		t.Fatal(err)
	}
	p := c.Points[0]
	if c.Interpolation != Auto || len(c.Points) != 3 || len(p.ReadRuns) != 4 || !near(p.ReadIOPS, (19193+27450+15740+14010)/4.0, 1e-15) ||
		!near(p.WriteIOPS, (2539+3097+2082+1853)/4.0, 1e-15) || c.Points[1].ReadRuns != nil || c.Points[1].ReadIOPS != 17000 {
		t.Errorf("points %+v", c.Points)
	}
	if len(c.Mixed) != 2 || c.Mixed[0].IOSizeBytes != 4096 || c.Mixed[0].ReadRatio != 0.5 || !near(c.Mixed[0].IOPS, (4579+4350+4705)/3.0, 1e-15) ||
		c.Mixed[1].IOSizeBytes != 65536 || c.Mixed[1].IOPS != 3500 || c.Mixed[1].Runs != nil {
		t.Errorf("mixed %+v", c.Mixed)
	}
	out, err := MarshalCalibration(c)
	if err != nil {
		t.Fatal(err)
	}
	back, err := LoadCalibration(out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !reflect.DeepEqual(back, c) {
		t.Errorf("round trip:\n%+v\n%+v\n%s", back, c, out)
	}
	m, err := NewModel(c)
	if err != nil {
		t.Fatal(err)
	}
	res, err := m.AtMix([]OpClass{{Op: Read, IOSizeBytes: 4096, Rate: 1000}, {Op: Write, IOSizeBytes: 4096, Rate: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	// The runs are far apart (the 4 KiB reads 14010..27450), so the pooled
	// noise is large and the band is wide; it covers the mixed runs. By the
	// band's formula (doc.go, "Calibration as a distribution"; worked as in
	// TestRunsBand): σ² pooled over the five figures with runs, 10 degrees
	// of freedom; at the calibrated mix the max is the mixed figure (its
	// elasticity 1, the others' 0), of 3 runs: max·exp(∓t₀.₉₇₅(10)·σ·√(4/3)).
	var ss float64
	for _, runs := range [][]float64{{19193, 27450, 15740, 14010}, {2539, 3097, 2082, 1853}, {9841, 9120}, {2205, 2010}, {4579, 4350, 4705}} {
		mu := mean(runs)
		for _, r := range runs {
			ss += (r/mu - 1) * (r/mu - 1)
		}
	}
	mixed := (4579 + 4350 + 4705) / 3.0
	h := 2.2281388519649385 * math.Sqrt(ss/10) * math.Sqrt(4.0/3) // t₀.₉₇₅(10) from R's qt(0.975, 10)
	lo, hi := mixed*math.Exp(-h), mixed*math.Exp(h)               // 2615 .. 7899
	if !near(res.MaxTotalIOPS, mixed, 1e-9) || !near(res.MaxTotalIOPSLower, lo, 1e-6) || !near(res.MaxTotalIOPSUpper, hi, 1e-6) ||
		!(res.MaxTotalIOPSLower < 4350 && res.MaxTotalIOPSUpper > 4705) {
		t.Errorf("at the 4 KiB 50/50 point: max %v [%v, %v], want %v [%v, %v], covering the runs 4350..4705",
			res.MaxTotalIOPS, res.MaxTotalIOPSLower, res.MaxTotalIOPSUpper, mixed, lo, hi)
	}
	t.Logf("size form: %+v; γ: %+v", m.SizeForm(), m.Interference())
}

func TestImportFioMixedAndRepeats(t *testing.T) {
	// The committed fixture's 70/30 job is now a mixed point.
	data, _ := os.ReadFile("testdata/fio-rbd.json")
	c, err := ImportFio(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Mixed) != 1 || c.Mixed[0].IOSizeBytes != 4096 || c.Mixed[0].ReadRatio != 0.7 || c.Mixed[0].IOPS != 35000 ||
		!strings.Contains(c.Mixed[0].Source, "70% read group 5 (4k-mixed-70)") {
		t.Errorf("mixed %+v", c.Mixed)
	}
	// Repeats: groups 0 and 2 are the same randread setting (runs), group 4
	// a deeper queue (a sweep: its mean is lower, so it is not taken);
	// groups 1 and 3 the write runs; groups 5 and 6 a 50/50 mix twice.
	js := `{"fio version":"fio-3.33","global options":{"bs":"4k","iodepth":"32"},"jobs":[
 {"jobname":"r","groupid":0,"job options":{"rw":"randread"},"read":{"iops":100}},
 {"jobname":"w","groupid":1,"job options":{"rw":"randwrite"},"write":{"iops":20}},
 {"jobname":"r","groupid":2,"job options":{"rw":"randread"},"read":{"iops":140}},
 {"jobname":"w","groupid":3,"job options":{"rw":"randwrite"},"write":{"iops":30}},
 {"jobname":"r64","groupid":4,"job options":{"rw":"randread","iodepth":"64"},"read":{"iops":110}},
 {"jobname":"m","groupid":5,"job options":{"rw":"randrw","rwmixread":"50"},"read":{"iops":20},"write":{"iops":20}},
 {"jobname":"m","groupid":6,"job options":{"rw":"randrw"},"read":{"iops":22},"write":{"iops":22}}]}`
	c, err = ImportFio([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	p := c.Points[0]
	if len(c.Points) != 1 || p.ReadIOPS != 120 || !reflect.DeepEqual(p.ReadRuns, []float64{100, 140}) || p.WriteIOPS != 25 || !reflect.DeepEqual(p.WriteRuns, []float64{20, 30}) {
		t.Errorf("point %+v", p)
	}
	if !strings.Contains(p.Source, "read groups 0+2 (2 runs: r; r)") {
		t.Errorf("source %q", p.Source)
	}
	if len(c.Mixed) != 1 || c.Mixed[0].IOPS != 42 || !reflect.DeepEqual(c.Mixed[0].Runs, []float64{40, 44}) || c.Mixed[0].ReadRatio != 0.5 {
		t.Errorf("mixed %+v", c.Mixed)
	}
	// Two files merged: the runs pool.
	c2, _ := ImportFio([]byte(strings.Replace(js, `"iops":100}`, `"iops":90}`, 1)))
	merged, err := MergeCalibrations(c, c2)
	if err != nil {
		t.Fatal(err)
	}
	if got := merged.Points[0].ReadRuns; !reflect.DeepEqual(got, []float64{100, 140, 90, 140}) {
		t.Errorf("merged runs %v", got)
	}
	for in, msg := range map[string]string{
		`{"jobs":[{"jobname":"m","job options":{"rw":"randrw","rwmixread":"150"}}]}`:                    "jobs[0] (m): read percent 150: must be in 0..100",
		`{"jobs":[{"jobname":"m","job options":{"rw":"randrw"},"read":{"iops":5},"write":{"iops":5}}]}`: "mixed jobs alone cannot calibrate",
	} {
		if _, err := ImportFio([]byte(in)); err == nil || !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), msg) {
			t.Errorf("ImportFio(%.50q): %v, want %q", in, err, msg)
		}
	}
}

package main

import (
	"fmt"
	"os"
	"time"

	"github.com/storcast/storcast/forecaster/conservation"
)

// System is what differs between the suites the scorer serves: the storage
// system's own counters, the load tool, the calibration's file format and
// the plan. Everything else (steps, checks, table) is shared.
type System struct {
	Kind        string // flag value: ceph or swift
	Name        string // the storage system, in the table: "Ceph"
	Client      string // the load tool: "fio"
	Description string // the cluster and the load, one sentence
	Daemons     string // the storage daemons whose RSS run.sh records (osdRssMB)
	Queries     Queries
	// ImportCalibration reads the calibration file run.sh wrote.
	ImportCalibration func(data []byte) (conservation.Calibration, error)
	// Plan derives the load steps from the calibrated model.
	Plan func(m *conservation.Model) ([]PlanStep, error)
	// Lag is how late the system's counters reach Prometheus.
	Lag time.Duration
	// Trim is cut from the start of each step before the system's counters
	// are compared with the load tool's (its ramp, the counters' refresh).
	Trim time.Duration
}

// PlanFrom reads a calibration file's content and derives the plan.
func (s System) PlanFrom(calibration []byte) ([]PlanStep, error) {
	cal, err := s.ImportCalibration(calibration)
	if err != nil {
		return nil, err
	}
	m, err := conservation.NewModel(cal)
	if err != nil {
		return nil, err
	}
	return s.Plan(m)
}

// LoadModel reads a calibration file and builds the conservation model.
func (s System) LoadModel(path string) (conservation.Calibration, *conservation.Model, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return conservation.Calibration{}, nil, err
	}
	cal, err := s.ImportCalibration(data)
	if err != nil {
		return cal, nil, fmt.Errorf("calibration: %w", err)
	}
	m, err := conservation.NewModel(cal)
	return cal, m, err
}

var cephSystem = System{
	Kind: "ceph", Name: "Ceph", Client: "fio", Daemons: "the 3 OSDs",
	Description:       "One host: 1 mon, 1 mgr, 3 memstore OSDs, size-3 pool, random IO through librbd (fio, iodepth 32): 4 KiB, one 16 KiB step and one of 4 KiB reads with 64 KiB writes.",
	Queries:           defaultQueries,
	ImportCalibration: conservation.ImportFio,
	Plan:              Plan,
	// mgr refresh 5 s, scrape 5 s; fio's connect and ramp.
	Lag:  5 * time.Second,
	Trim: 12 * time.Second,
}

// swiftObject selects the proxy's object requests: GETs are reads, PUTs
// writes, policy="all" the per-request totals (the same requests are also
// counted per policy). The names are statsd_exporter's with the shipped
// mapping, the same storcast's SwiftMapping queries: the served requests
// (no 5xx, no 499) for the load, every answer but a 499 for the latency.
const (
	swiftObject   = `type="object",method=~"GET|PUT",policy="all",status!~"5..|499",cluster="e2e"`
	swiftAnswered = `type="object",method=~"GET|PUT",policy="all",status!="499",cluster="e2e"`
)

var swiftSystem = System{
	Kind: "swift", Name: "Swift", Client: "loadgen", Daemons: "the 4 Swift servers",
	Description: "One host: Swift 2.30 all-in-one (1 proxy, account, container and object server, one process each), 3 replicas over 3 tmpfs directory devices; " +
		"object GET/PUT through tempauth by e2e/swift/loadgen (closed loop, or open loop at a rate).",
	Queries: Queries{
		MaxIOPS:       defaultQueries.MaxIOPS,
		Headroom:      defaultQueries.Headroom,
		PredictedIOPS: defaultQueries.PredictedIOPS,
		ClusterIOPS1m: `sum(rate(swift_proxy_count{` + swiftObject + `}[1m]))`,
		ClusterOps:    `sum(increase(swift_proxy_count{` + swiftObject + `}[%[1]s]))`,
		ClusterLatSum: `sum(increase(swift_proxy_sum{` + swiftAnswered + `}[%[1]s]))`,
		ClusterLatCnt: `sum(increase(swift_proxy_count{` + swiftAnswered + `}[%[1]s]))`,
	},
	ImportCalibration: conservation.LoadCalibration,
	Plan:              SwiftPlan,
	// Swift sends a request's StatsD packet when it completes and
	// statsd_exporter counts it on arrival: a sample holds every request
	// done by its scrape, so the window is the step's own (no lag). Runs up
	// to 36 shifted it 3 s late, taking in 3 s after the step: a step
	// followed by a pause read 0-5% under loadgen's count (r70-f50 -4.5%
	// in run 36), back-to-back ramp steps within 0.1%. A step is already
	// loadgen's measured interval (after its login and ramp): nothing to
	// trim, and the throughput moves with the neighbour's CPU within a
	// step, so the windows must be the same.
	Lag:  0,
	Trim: 0,
}

var systems = map[string]System{"ceph": cephSystem, "swift": swiftSystem}

func systemFor(kind string) (System, error) {
	s, ok := systems[kind]
	if !ok {
		return System{}, fmt.Errorf("-system %q: want ceph or swift", kind)
	}
	return s, nil
}

// The Swift plan's object sizes: the ramp and the other mixes at the
// smaller calibrated size, then one size the calibration did not measure
// (between the calibrated ones, at most 32 KiB where the conservation model's
// published Swift accuracy holds) and a step whose objects are half 4 KiB,
// half 64 KiB.
var (
	swiftBS, swiftBSBytes           = "4k", 4096.0
	swiftUncalBS, swiftUncalBSBytes = "16k", 16384.0
	swiftMixedBS, swiftMixedBSBytes = "4k,64k", (4096.0 + 65536.0) / 2
	swiftUncalFractions             = []float64{0.5}
)

// SwiftPlan returns the Swift load steps: the Ceph plan's ramp and mixes at
// 4 KiB, then 50% GETs at 16 KiB (rate-limited at half the predicted
// capacity, and saturated) and saturated with mixed 4 KiB / 64 KiB objects.
// The mixed step's size is the mean object size, which is what storcast
// sees (bytes over ops).
//
// Every rate-limited step runs before any saturated one, so that a reading
// of a rate-limited step can never be of a window still holding saturation:
// the harness's steps (65 s) outlast storcast's 1m rate window, and this
// order keeps a step shorter than the window (STEP_SECONDS) from reading
// negative headroom. The ramp's 80% step comes right after the mark; its
// saturated step follows the other rate-limited ones.
func SwiftPlan(m *conservation.Model) ([]PlanStep, error) {
	p := planner{m: m}
	for _, f := range rampLower {
		if s := p.add(rampReadPct, swiftBS, swiftBSBytes, f, ""); s != nil {
			s.Ramp = true
		}
	}
	p.out = append(p.out, PlanStep{Kind: "mark", Name: "mlisp"})
	for _, f := range rampHigher {
		if f == 0 {
			continue // saturated: below, with the others
		}
		if s := p.add(rampReadPct, swiftBS, swiftBSBytes, f, ""); s != nil {
			s.Ramp = true
		}
	}
	for _, r := range otherMixes {
		p.add(r, swiftBS, swiftBSBytes, otherFraction[0], "")
	}
	p.add(rampReadPct, swiftUncalBS, swiftUncalBSBytes, swiftUncalFractions[0], "16k")
	if s := p.add(rampReadPct, swiftBS, swiftBSBytes, 0, ""); s != nil {
		s.Ramp = true
	}
	for _, r := range otherMixes {
		p.add(r, swiftBS, swiftBSBytes, 0, "")
	}
	p.add(rampReadPct, swiftUncalBS, swiftUncalBSBytes, 0, "16k")
	p.add(rampReadPct, swiftMixedBS, swiftMixedBSBytes, 0, "mixsize")
	return p.out, p.err
}

package models

import (
	"fmt"
	"sort"
	"time"

	"github.com/storcast/storcast/exporter/features"
	"github.com/storcast/storcast/exporter/source"
	"github.com/storcast/storcast/forecaster/conservation"
)

// HistoryLoad is a calibration tested against what the cluster served: at
// each measured window of the lookback, its IOPS over the upper end of the
// max-IOPS band at that window's own mix. A cluster cannot serve more than
// its capacity, and the band's upper end is where one more saturated
// calibration run would land at most (95%); so with a calibration that
// still describes the cluster every window stays at or below 1, and a
// window above it proves the capacity at its mix higher than the
// calibration allows. Real clusters drift from their calibration (new
// disks, firmware, a fuller cluster; on the e2e's shared 2-core host a
// whole calibration ran 5-30% off the load that followed it), and a
// calibration too low fires the headroom alerts on a cluster that has room.
//
// Windows are the ones whose rate window was full (features.MeasuredLoad):
// a rate Prometheus extrapolated from part of its window can overshoot.
//
// The capacity a window is held to is the larger of the frontier's and the
// paper's line through the same pure points (the calibration without its
// mixed points), each at its band's upper end. A window's rate averages
// whatever ran within it: a saturated read phase and then a saturated write
// phase inside one window average to a 50/50 mix at a load that the
// frontier, whose read/write interference γ > 0 holds for reads and writes
// at once, calls impossible; the line is the time-average of the pure
// points and allows it. No sequence of loads inside the frontier averages
// to a point above the larger of the two (with γ < 0 the frontier is the
// larger), so a window above it is a calibration that is too low, not a
// workload that alternated.
//
// A calibration without repeated runs has a band of no width, and its
// figures are one run's: each window is then held to the larger max plus
// singleRunSpread. Without it a cluster running at its calibrated capacity
// contradicts the calibration by its counters' noise alone (the Swift e2e
// of 2026-11-27 12:13, one run per figure: windows 0.75% above a max its
// saturated steps met within 0.2-2.8%).
type HistoryLoad struct {
	// Windows is how many measured windows with load were tested.
	Windows int `json:"windows"`
	// Above counts those whose load exceeded the band's upper end.
	Above int `json:"above"`
	// Ratio is the load over the band's upper end at the third-highest
	// window (0 with fewer than historyLoadRank windows): one window can be
	// a glitch of the counters, three rates over full windows are a load
	// the cluster sustained. Above 1, the history contradicts the
	// calibration.
	Ratio float64 `json:"ratio"`
	// The window that gives Ratio: its time (Unix seconds), IOPS, read
	// ratio, the band's upper end at its mix, and whether its sizes lie
	// outside the calibrated range (the capacity there extrapolated).
	Time         float64 `json:"time,omitempty"`
	IOPS         float64 `json:"iops,omitempty"`
	ReadRatio    float64 `json:"readRatio,omitempty"`
	Upper        float64 `json:"upper,omitempty"`
	Extrapolated bool    `json:"extrapolated,omitempty"`
}

// historyLoadRank is the rank of the window whose ratio HistoryLoad reports.
const historyLoadRank = 3

// singleRunSpread is the relative spread a calibration without repeated
// runs is granted above its max: one 10 s saturated fio point on the e2e's
// Ceph host moved ±11% when repeated (e2e/ceph/results/mixed-repeatability.md).
const singleRunSpread = 0.10

// Contradicted reports whether the history served more than the calibration
// allows.
func (h HistoryLoad) Contradicted() bool { return h.Ratio > 1 }

// testHistoryLoad tests the calibration of the capacity model m against
// the measured windows of frame f.
func testHistoryLoad(m *conservation.Model, f *source.Frame) (HistoryLoad, error) {
	cal := m.Calibration()
	line, err := conservation.NewPaperModel(cal)
	if err != nil {
		return HistoryLoad{}, fmt.Errorf("the calibration's pure points: %w", err)
	}
	type tested struct {
		o     features.Observed
		upper float64
		ratio float64
		extra bool
	}
	var ts []tested
	var h HistoryLoad
	spread := 0.0
	if !cal.HasRuns() {
		spread = singleRunSpread
	}
	for _, o := range features.MeasuredLoad(f, source.RateWindowOf(f.Range.Step)) {
		classes := features.OpClasses(o)
		res, err := m.AtMix(classes)
		if err != nil {
			continue
		}
		lres, err := line.AtMix(classes)
		if err != nil {
			continue
		}
		upper := max(res.MaxTotalIOPSUpper, lres.MaxTotalIOPSUpper, (1+spread)*max(res.MaxTotalIOPS, lres.MaxTotalIOPS))
		if !(upper > 0) || !finite(upper) {
			continue
		}
		r := o.IOPS / upper
		h.Windows++
		if r > 1 {
			h.Above++
		}
		ts = append(ts, tested{o, upper, r, res.Extrapolated})
	}
	if len(ts) < historyLoadRank {
		return h, nil
	}
	sort.Slice(ts, func(i, j int) bool { return ts[i].ratio > ts[j].ratio })
	t := ts[historyLoadRank-1]
	h.Ratio, h.Time, h.IOPS, h.ReadRatio, h.Upper, h.Extrapolated = t.ratio, t.o.Time, t.o.IOPS, t.o.ReadRatio, t.upper, t.extra
	return h, nil
}

// note says what the test found when it contradicts the calibration ("" when
// it does not).
func (h HistoryLoad) note() string {
	if !h.Contradicted() {
		return ""
	}
	where := "recalibrate"
	if h.Extrapolated {
		where = "its IO sizes lie outside the calibrated range: calibrate at them"
	}
	return fmt.Sprintf("the history served more than the calibration allows: %d of %d measured windows above the max-IOPS band's upper end at their mix (the frontier's or the paper's line's, the larger), the third-highest %.0f IOPS at %.0f%% reads at %s where the band ends at %.0f (%.2fx); %s",
		h.Above, h.Windows, h.IOPS, 100*h.ReadRatio, time.Unix(int64(h.Time), 0).UTC().Format(time.RFC3339), h.Upper, h.Ratio, where)
}

package conservation

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/storcast/storcast/forecaster/internal/check"
)

// ErrInput is wrapped by every error that reports bad input; inputError
// returns one that names the argument.
var inputError, ErrInput = check.Input()

// ErrNoLoad is returned by Model.AtMix when every op class has a zero rate:
// an idle cluster has no mix, so "max IOPS at the current mix" is undefined.
// Use Model.Curve to show capacity at chosen read ratios instead.
var ErrNoLoad = errors.New("no load: every op class has a zero rate, the mix is undefined")

// Point is one calibration point: the saturated IOPS of the whole cluster at
// one IO size for 100% reads and for 100% writes (T_read100 and T_write100 of
// the paper).
//
// A calibration re-run on the same cluster moves (by tens of percent on a
// busy machine), so a point may carry its repeated runs: ReadIOPS and
// WriteIOPS are then the runs' means (LoadCalibration and ImportFio set
// them so) and the runs' min..max gives the band of every figure derived
// from the point.
type Point struct {
	IOSizeBytes float64   `json:"ioSizeBytes"`
	ReadIOPS    float64   `json:"readIops"`            // T_read100(S) = C(S)
	WriteIOPS   float64   `json:"writeIops"`           // T_write100(S) = C(S) / f_rw(S)
	ReadRuns    []float64 `json:"readRuns,omitempty"`  // repeated runs of ReadIOPS, when known
	WriteRuns   []float64 `json:"writeRuns,omitempty"` // repeated runs of WriteIOPS, when known
	Source      string    `json:"source,omitempty"`    // where the figures come from (fio file, history fit, ...)
}

// FRW is the paper's f_rw = T_read100 / T_write100 (eq. 4): how many reads
// one write costs.
func (p Point) FRW() float64 { return p.ReadIOPS / p.WriteIOPS }

// MixedPoint is a saturated measurement at a read/write mix: the total IOPS
// of the cluster at one IO size and read ratio (strictly between 0 and 1).
// It fixes the interference coefficient γ at that size (see
// FrontierUtilization). Runs are repeated measurements; IOPS is their mean.
//
// With WriteIOSizeBytes set and different from IOSizeBytes it is a
// mixed-size point: reads of IOSizeBytes and writes of WriteIOSizeBytes at
// once (fio's bs=4k,64k), which fixes the interference between sizes η
// (SizeInterferenceFit) instead of γ.
type MixedPoint struct {
	IOSizeBytes float64 `json:"ioSizeBytes"`
	// WriteIOSizeBytes is the writes' size when it differs from
	// IOSizeBytes (then the reads' size); 0: the same size.
	WriteIOSizeBytes float64   `json:"writeIoSizeBytes,omitempty"`
	ReadRatio        float64   `json:"readRatio"`
	IOPS             float64   `json:"iops"`
	Runs             []float64 `json:"runs,omitempty"`
	Source           string    `json:"source,omitempty"`
}

// Calibration is the set of calibration points of one cluster.
type Calibration struct {
	Cluster string       `json:"cluster,omitempty"`
	Points  []Point      `json:"points"`
	Mixed   []MixedPoint `json:"mixed,omitempty"`
	// Interpolation across sizes: "" (the default: Cost through two sizes
	// when it passes through both, else LogLog), Auto, LogLog or Cost.
	Interpolation string `json:"interpolation,omitempty"`
}

// Validate checks that the calibration has at least one point, every point
// has a positive finite size and positive finite IOPS, and no size repeats;
// runs are positive and finite and bracket their mean; mixed points have a
// read ratio strictly between 0 and 1. Errors name the offending field, e.g.
// "points[2].write_iops".
func (c Calibration) Validate() error {
	if len(c.Points) == 0 {
		return inputError("points", "empty calibration: at least one point is needed")
	}
	seen := make(map[float64]int, len(c.Points))
	for i, p := range c.Points {
		if err := checkSize(fmt.Sprintf("points[%d].io_size_bytes", i), p.IOSizeBytes); err != nil {
			return err
		}
		if err := checkPositive(fmt.Sprintf("points[%d].read_iops", i), p.ReadIOPS); err != nil {
			return err
		}
		if err := checkPositive(fmt.Sprintf("points[%d].write_iops", i), p.WriteIOPS); err != nil {
			return err
		}
		if err := checkRuns(fmt.Sprintf("points[%d].read_iops", i), p.ReadIOPS, p.ReadRuns); err != nil {
			return err
		}
		if err := checkRuns(fmt.Sprintf("points[%d].write_iops", i), p.WriteIOPS, p.WriteRuns); err != nil {
			return err
		}
		if j, ok := seen[p.IOSizeBytes]; ok {
			return inputError(fmt.Sprintf("points[%d].io_size_bytes", i), "size %g already given by points[%d]", p.IOSizeBytes, j)
		}
		seen[p.IOSizeBytes] = i
	}
	type mixKey struct{ size, wsize, ratio float64 }
	seenMix := make(map[mixKey]int, len(c.Mixed))
	for i, p := range c.Mixed {
		if err := checkSize(fmt.Sprintf("mixed[%d].io_size_bytes", i), p.IOSizeBytes); err != nil {
			return err
		}
		if p.WriteIOSizeBytes != 0 {
			if err := checkSize(fmt.Sprintf("mixed[%d].write_io_size_bytes", i), p.WriteIOSizeBytes); err != nil {
				return err
			}
		}
		if !check.Finite(p.ReadRatio) || p.ReadRatio <= 0 || p.ReadRatio >= 1 {
			return inputError(fmt.Sprintf("mixed[%d].read_ratio", i), "must be strictly between 0 and 1 (100%% read and write are points), got %v", p.ReadRatio)
		}
		if err := checkPositive(fmt.Sprintf("mixed[%d].iops", i), p.IOPS); err != nil {
			return err
		}
		if err := checkRuns(fmt.Sprintf("mixed[%d].iops", i), p.IOPS, p.Runs); err != nil {
			return err
		}
		k := mixKey{p.IOSizeBytes, p.writeSize(), p.ReadRatio}
		if j, ok := seenMix[k]; ok {
			return inputError(fmt.Sprintf("mixed[%d]", i), "size %g at read ratio %g already given by mixed[%d]; put repeated runs in one list", p.IOSizeBytes, p.ReadRatio, j)
		}
		seenMix[k] = i
	}
	switch c.Interpolation {
	case "", LogLog, Cost, Auto:
	default:
		return inputError("interpolation", "must be %q, %q or %q (or empty for the default), got %q", LogLog, Cost, Auto, c.Interpolation)
	}
	return nil
}

// checkSize: an IO moves at least a byte. Below one the cost model and
// the interference terms extrapolate to capacities of 1e80 and more, where
// their arithmetic keeps a few digits.
func checkSize(name string, v float64) error {
	if err := checkPositive(name, v); err != nil {
		return err
	}
	if v < 1 {
		return inputError(name, "must be at least 1 byte, got %v", v)
	}
	return nil
}

func checkPositive(name string, v float64) error {
	if !check.Finite(v) {
		return inputError(name, "must be a finite number, got %v", v)
	}
	if v <= 0 {
		return inputError(name, "must be > 0, got %v", v)
	}
	return nil
}

// checkRuns: every run positive and finite, and the central value within
// the runs' range (a little slack for the rounding of a mean).
func checkRuns(name string, central float64, runs []float64) error {
	if len(runs) == 0 {
		return nil
	}
	for k, r := range runs {
		if err := checkPositive(fmt.Sprintf("%s runs[%d]", name, k), r); err != nil {
			return err
		}
	}
	lo, hi := runsMin(central, runs), runsMax(central, runs)
	if central < lo*(1-1e-9) || central > hi*(1+1e-9) {
		return inputError(name, "%v lies outside its runs' range %v..%v", central, lo, hi)
	}
	return nil
}

// runsMin and runsMax are the ends of a figure's spread: its runs' min and
// max, or the figure itself when it has no runs.
func runsMin(central float64, runs []float64) float64 {
	if len(runs) == 0 {
		return central
	}
	m := runs[0]
	for _, r := range runs[1:] {
		m = math.Min(m, r)
	}
	return m
}

func runsMax(central float64, runs []float64) float64 {
	if len(runs) == 0 {
		return central
	}
	m := runs[0]
	for _, r := range runs[1:] {
		m = math.Max(m, r)
	}
	return m
}

func mean(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// Model answers capacity questions for one cluster from its calibration.
// It is immutable after NewModel and safe for concurrent use.
type Model struct {
	cal     Calibration
	logSize []float64 // ascending
	logC    []float64 // log T_read100
	logW    []float64 // log T_write100
	read    []float64 // T_read100, exact at calibrated sizes
	write   []float64 // T_write100
	form    SizeForm
	cost    bool // form.Used == Cost
	// Interference: γ at the sizes of the mixed points (ascending log size).
	gammas     []GammaFit
	gammaLogSz []float64
	gammaVal   []float64
	// eta: the interference between sizes (nil without mixed-size points).
	eta *SizeInterferenceFit
	// lo and hi are the models of the runs' low and high ends (every pure
	// and mixed figure at its runs' min, resp. max); nil without runs.
	lo, hi *Model
	// sens holds one model per figure (figureAt's order) with that figure
	// raised by sensStep, nil for a figure the model does not use; predT is
	// t₀.₉₇₅(ν)·σ of the runs' pooled noise; sensN the figures' run counts.
	// Nil without a noise estimate (prediction.go).
	sens  []*Model
	sensN []float64
	predT float64
}

// NewModel validates c and prepares it for interpolation. The points need not
// be sorted.
func NewModel(c Calibration) (*Model, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	m, err := buildModel(c, "")
	if err != nil {
		return nil, err
	}
	spread := false
	for _, p := range c.Points {
		spread = spread || len(p.ReadRuns) > 1 || len(p.WriteRuns) > 1
	}
	for _, p := range c.Mixed {
		spread = spread || len(p.Runs) > 1
	}
	if !spread {
		if m.gammas, err = fitGammas(c, m, nil, nil, false); err != nil {
			return nil, err
		}
		m.setGammas()
		if err := m.fitEta(false, false, false); err != nil {
			return nil, err
		}
		return m, nil
	}
	// The runs' ends: every figure at its runs' min, resp. max. They use the
	// central model's form of interpolation, so that the band measures the
	// runs' spread, not a switch of form.
	end := func(pick func(float64, []float64) float64) (*Model, error) {
		e := Calibration{Cluster: c.Cluster, Interpolation: c.Interpolation}
		for _, p := range c.Points {
			e.Points = append(e.Points, Point{IOSizeBytes: p.IOSizeBytes, ReadIOPS: pick(p.ReadIOPS, p.ReadRuns), WriteIOPS: pick(p.WriteIOPS, p.WriteRuns)})
		}
		for _, p := range c.Mixed {
			e.Mixed = append(e.Mixed, MixedPoint{IOSizeBytes: p.IOSizeBytes, WriteIOSizeBytes: p.WriteIOSizeBytes, ReadRatio: p.ReadRatio, IOPS: pick(p.IOPS, p.Runs)})
		}
		return buildModel(e, m.form.Used)
	}
	if m.lo, err = end(runsMin); err != nil {
		return nil, err
	}
	if m.hi, err = end(runsMax); err != nil {
		return nil, err
	}
	if m.gammas, err = fitGammas(c, m, m.lo, m.hi, false); err != nil {
		return nil, err
	}
	m.setGammas()
	gammaZero := len(m.gammas) > 0 && m.gammas[0].Test == GammaZero
	if err := m.fitEta(true, gammaZero, false); err != nil {
		return nil, err
	}
	// An end's γ below MinGamma (runs far apart) is held at the bound, and
	// so is its η.
	for _, e := range []*Model{m.lo, m.hi} {
		if e.gammas, err = fitGammas(e.cal, e, nil, nil, true); err != nil {
			return nil, err
		}
		e.setGammas()
		// The ends keep their own γ and η, whatever the central test says,
		// so that the band reaches the mixed runs.
		if err := e.fitEta(false, false, true); err != nil {
			return nil, err
		}
	}
	if m.hi, err = m.hi.reachMixed(true); err != nil {
		return nil, err
	}
	if m.lo, err = m.lo.reachMixed(false); err != nil {
		return nil, err
	}
	m.fitSensitivity(c)
	return m, nil
}

// reachMixed makes a band end reach its own mixed figures. An end whose γ
// was held at the edge of the family (the mixed run too far above the line
// between its pure figures for any frontier of the form to pass through
// it) falls short of its mixed run, and the band would not cover the runs.
// The upper end then scales its pure figures at that size up (the lower
// end, past its run, down) by the ratio of the run to its frontier there,
// and refits γ: the band widens, at the pure mixes too, because the runs do
// not fit one frontier. Only mixed points at calibrated sizes are reached;
// a few rounds, as refitting γ (and under Cost the fit across sizes,
// which follows a scaled figure only in part) moves the frontier.
func (e *Model) reachMixed(upper bool) (*Model, error) {
	for round := 0; round < 4; round++ {
		scale := map[float64]float64{}
		for _, p := range e.cal.Mixed {
			if p.mixedSize() {
				continue
			}
			ls := math.Log(p.IOSizeBytes)
			i := sort.SearchFloat64s(e.logSize, ls)
			if i == len(e.logSize) || e.logSize[i] != ls {
				continue
			}
			// The capacities γ was fitted to and AtMix uses: under Cost
			// the fit's, not the figures (it need not pass through them).
			r, w, _ := e.at(ls)
			t, err := MaxAtReadRatio(r, w, gammaAt(e.gammaLogSz, e.gammaVal, ls), p.ReadRatio)
			if err != nil {
				return nil, err
			}
			k := p.IOPS / t
			if upper && k > 1+1e-12 || !upper && k < 1-1e-12 {
				if f, ok := scale[p.IOSizeBytes]; !ok || upper && k > f || !upper && k < f {
					scale[p.IOSizeBytes] = k
				}
			}
		}
		if len(scale) == 0 {
			return e, nil
		}
		c := e.cal
		c.Points = append([]Point(nil), e.cal.Points...)
		for j, p := range c.Points {
			if k, ok := scale[p.IOSizeBytes]; ok {
				c.Points[j].ReadIOPS, c.Points[j].WriteIOPS = k*p.ReadIOPS, k*p.WriteIOPS
			}
		}
		next, err := buildModel(c, e.form.Used)
		if err != nil {
			return nil, err
		}
		if next.gammas, err = fitGammas(next.cal, next, nil, nil, true); err != nil {
			return nil, err
		}
		next.setGammas()
		if err := next.fitEta(false, false, true); err != nil {
			return nil, err
		}
		e = next
	}
	return e, nil
}

// buildModel prepares the pure (γ = 0) model; force, when set, overrides
// the form of interpolation.
func buildModel(c Calibration, force string) (*Model, error) {
	pts := append([]Point(nil), c.Points...)
	sort.Slice(pts, func(i, j int) bool { return pts[i].IOSizeBytes < pts[j].IOSizeBytes })
	mixed := append([]MixedPoint(nil), c.Mixed...)
	sort.SliceStable(mixed, func(i, j int) bool {
		if mixed[i].IOSizeBytes != mixed[j].IOSizeBytes {
			return mixed[i].IOSizeBytes < mixed[j].IOSizeBytes
		}
		if mixed[i].writeSize() != mixed[j].writeSize() {
			return mixed[i].writeSize() < mixed[j].writeSize()
		}
		return mixed[i].ReadRatio < mixed[j].ReadRatio
	})
	m := &Model{cal: Calibration{Cluster: c.Cluster, Points: pts, Mixed: mixed, Interpolation: c.Interpolation}}
	m.logSize = make([]float64, len(pts))
	m.logC = make([]float64, len(pts))
	m.logW = make([]float64, len(pts))
	m.read = make([]float64, len(pts))
	m.write = make([]float64, len(pts))
	sizes := make([]float64, len(pts))
	for i, p := range pts {
		sizes[i] = p.IOSizeBytes
		m.read[i], m.write[i] = p.ReadIOPS, p.WriteIOPS
		m.logSize[i] = math.Log(p.IOSizeBytes)
		m.logC[i] = math.Log(p.ReadIOPS)
		m.logW[i] = math.Log(p.WriteIOPS)
		if i > 0 && m.logSize[i] == m.logSize[i-1] {
			// Distinct sizes whose logs coincide: nothing to interpolate
			// between (0/0).
			return nil, inputError("points", "io sizes %v and %v are too close together to interpolate between", pts[i-1].IOSizeBytes, p.IOSizeBytes)
		}
	}
	req := c.Interpolation
	if force != "" {
		req = force
	}
	form, err := chooseSizeForm(req, sizes, m.read, m.write)
	if err != nil {
		return nil, err
	}
	form.Requested = c.Interpolation
	m.form, m.cost = form, form.Used == Cost
	return m, nil
}

func (m *Model) setGammas() {
	m.gammaLogSz = make([]float64, len(m.gammas))
	m.gammaVal = make([]float64, len(m.gammas))
	for i, g := range m.gammas {
		m.gammaLogSz[i], m.gammaVal[i] = math.Log(g.IOSizeBytes), g.Gamma
	}
}

// Calibration returns the model's calibration, points sorted by size.
func (m *Model) Calibration() Calibration {
	c := m.cal
	c.Points = append([]Point(nil), m.cal.Points...)
	c.Mixed = append([]MixedPoint(nil), m.cal.Mixed...)
	if len(c.Mixed) == 0 {
		c.Mixed = nil
	}
	return c
}

// SizeForm reports the interpolation across sizes in use and, with three
// or more calibrated sizes, the leave-one-size-out errors of both forms.
func (m *Model) SizeForm() SizeForm { return m.form }

// Interference returns the fitted γ per size (empty when the calibration
// has no mixed points: γ = 0 everywhere, the paper's law).
func (m *Model) Interference() []GammaFit { return append([]GammaFit(nil), m.gammas...) }

// SizeInterference returns the fitted interference between sizes; ok is
// false when the calibration has no mixed-size point (η = 0).
func (m *Model) SizeInterference() (SizeInterferenceFit, bool) {
	if m.eta == nil {
		return SizeInterferenceFit{}, false
	}
	return *m.eta, true
}

// SizeCapacity is the capacity of the cluster at one IO size.
type SizeCapacity struct {
	IOSizeBytes  float64 `json:"ioSizeBytes"`
	ReadIOPS     float64 `json:"readIops"`  // C(S) = T_read100(S)
	WriteIOPS    float64 `json:"writeIops"` // T_write100(S)
	FRW          float64 `json:"frw"`       // f_rw(S)
	Extrapolated bool    `json:"extrapolated"`
	// Gamma is the read/write interference γ at this size (0: none known).
	Gamma float64 `json:"gamma"`
	// Interpolation is the form used across sizes (LogLog or Cost).
	Interpolation string `json:"interpolation"`
}

// At returns C, T_write100, f_rw and γ at ioSizeBytes. With LogLog, between
// calibrated sizes log C and log T_write100 (hence log f_rw) are linear in
// log size; outside the calibrated range the line through the nearest two
// points is extended (a power law in size). With Cost, T100 = 1/(c0 + c1·S)
// per direction everywhere (it passes exactly through the calibrated
// sizes only when two sizes fit it exactly). Outside the calibrated range
// Extrapolated is set. A one-point calibration is taken as constant across
// sizes, also flagged when the size differs.
func (m *Model) At(ioSizeBytes float64) (SizeCapacity, error) {
	if err := checkPositive("io_size_bytes", ioSizeBytes); err != nil {
		return SizeCapacity{}, err
	}
	ls := math.Log(ioSizeBytes)
	r, w, ext := m.at(ls)
	if !(r > 0 && w > 0) || !check.Finite(r) || !check.Finite(w) {
		return SizeCapacity{}, inputError("io_size_bytes", "%v is too far outside the calibrated range to extrapolate", ioSizeBytes)
	}
	return SizeCapacity{IOSizeBytes: ioSizeBytes, ReadIOPS: r, WriteIOPS: w, FRW: r / w, Extrapolated: ext,
		Gamma: gammaAt(m.gammaLogSz, m.gammaVal, ls), Interpolation: m.form.Used}, nil
}

// sizeTolerance is how far (relatively) a size may lie outside the
// calibrated range and still not count as extrapolated. A mean IO size read
// from counters is never exact: Ceph's counters gave 4095.0 bytes for a 4 KiB
// workload, and flagging that as an extrapolation only raises a false alarm.
// The value is still computed by extending the nearest segment.
var sizeTolerance = math.Log1p(0.02)

// at works on log size and allocates nothing.
func (m *Model) at(ls float64) (readMax, writeMax float64, extrapolated bool) {
	n := len(m.logSize)
	if n == 1 {
		return m.read[0], m.write[0], math.Abs(ls-m.logSize[0]) > sizeTolerance
	}
	extrapolated = m.logSize[0]-ls > sizeTolerance || ls-m.logSize[n-1] > sizeTolerance
	if m.cost {
		s := math.Exp(ls)
		return 1 / (m.form.ReadC0 + m.form.ReadC1*s), 1 / (m.form.WriteC0 + m.form.WriteC1*s), extrapolated
	}
	// i: first index with logSize[i] >= ls.
	i := sort.SearchFloat64s(m.logSize, ls)
	if i < n && m.logSize[i] == ls {
		return m.read[i], m.write[i], false
	}
	lo := i - 1
	switch {
	case i == 0:
		lo = 0
	case i == n:
		lo = n - 2
	}
	hi := lo + 1
	t := (ls - m.logSize[lo]) / (m.logSize[hi] - m.logSize[lo])
	lc := m.logC[lo] + t*(m.logC[hi]-m.logC[lo])
	lw := m.logW[lo] + t*(m.logW[hi]-m.logW[lo])
	return math.Exp(lc), math.Exp(lw), extrapolated
}

// Op is the direction of an op class.
type Op string

// The two op directions.
const (
	Read  Op = "read"
	Write Op = "write"
)

// OpClass is one class of observed operations: direction, IO size and
// current rate (ops/s), e.g. from rate(ceph_pool_rd[5m]) and the mean size
// rate(ceph_pool_rd_bytes[5m]) / rate(ceph_pool_rd[5m]).
type OpClass struct {
	Op          Op      `json:"op"`
	IOSizeBytes float64 `json:"ioSizeBytes"`
	Rate        float64 `json:"rate"`
}

// Result is the capacity of a cluster at its current op mix.
//
// With read/write interference (γ ≠ 0) utilization is no longer linear in
// load: Utilization is U at the current load, and LoadRatio =
// CurrentIOPS/MaxTotalIOPS is how much of the max at this mix is in use.
// The two are equal when γ = 0.
type Result struct {
	CurrentIOPS  float64 `json:"currentIops"`  // Σ rate_i
	MaxTotalIOPS float64 `json:"maxTotalIops"` // s·CurrentIOPS, s the scale with U(s·load) = 1
	MaxReadIOPS  float64 `json:"maxReadIops"`  // s · read rates
	MaxWriteIOPS float64 `json:"maxWriteIops"` // s · write rates
	Utilization  float64 `json:"utilization"`  // U at the current load: Σ shares + interference (past capacity see UtilizationPastPeak)
	// Interference is the interference part of U = Σ shares + Interference
	// (0 when γ = 0).
	Interference float64 `json:"interference"`
	// LoadRatio = CurrentIOPS / MaxTotalIOPS (equals Utilization when γ = 0).
	LoadRatio     float64 `json:"loadRatio"`
	HeadroomRatio float64 `json:"headroomRatio"` // 1 − LoadRatio (negative above calibrated capacity)
	HeadroomIOPS  float64 `json:"headroomIops"`  // MaxTotalIOPS − CurrentIOPS
	// The band of MaxTotalIOPS and HeadroomRatio from the calibration's
	// runs: where one more saturated run at this mix would land, 95% (the
	// delta method over the figures with their pooled run-to-run noise),
	// widened to the models of every figure at its runs' min, resp. max
	// (equal to the central figures when the calibration has no runs).
	MaxTotalIOPSLower  float64 `json:"maxTotalIopsLower"`
	MaxTotalIOPSUpper  float64 `json:"maxTotalIopsUpper"`
	HeadroomRatioLower float64 `json:"headroomRatioLower"`
	HeadroomRatioUpper float64 `json:"headroomRatioUpper"`
	Extrapolated       bool    `json:"extrapolated"` // some class's size lies outside the calibrated range
	// Interpolation is the form used across sizes (LogLog or Cost).
	Interpolation string `json:"interpolation"`
}

// UtilizationPastPeak is U = L + Q at the current load, kept from falling
// back past capacity: with γ < 0 (reads and writes helping each other) U(s) =
// sL + s²Q peaks at s = −L/(2Q), at least 1 where γ is accepted, and falls
// after it, below 1 and then below 0 at loads far past capacity, which the
// callers' "U ≥ 1: saturated" would read as room left. Past the peak U is
// held at the peak's value −L²/(4Q); past capacity (loadRatio ≥ 1) it is at
// least 1. Below capacity the load is on the rising side and U is L + Q.
func UtilizationPastPeak(L, Q, loadRatio float64) float64 {
	u := L + Q
	if Q < 0 && L+2*Q < 0 {
		u = -L * L / (4 * Q)
	}
	if loadRatio >= 1 {
		u = math.Max(u, 1)
	}
	return u
}

// AtMix returns the capacity at the mix of classes. Every class i uses the
// share x_i = rate_i / max_i of the capacity, max_i being C(S_i) for reads
// and C(S_i)/f_rw(S_i) for writes, and every pair of a read class i and a
// write class j adds the interference 4 γ_ij x_i x_j, γ_ij = γ at the
// geometric mean of their sizes:
//
//	U = Σ_i x_i + 4 Σ_{i read, j write} γ_ij x_i x_j = L + Q.
//
// Scaling every rate by s keeps the mix and gives U(s) = sL + s²Q; the max at
// the mix is s·CurrentIOPS with U(s) = 1, s = 2/(L + √(L² + 4Q)). With no
// interference (Q = 0) this is the paper's law: s = 1/U, HeadroomRatio = 1 − U.
// A read class and a write class at different sizes add the interference
// between sizes, 4 η w_ij x_i x_j (SizeInterferenceFit), when the
// calibration has mixed-size points. Classes of one direction at different
// sizes have no pairwise term: the exporter sees one mean size per
// direction, and a calibration at the workload's own size split carries
// what sizes mixed within a direction cost.
// It returns ErrNoLoad when all rates are zero, and an error naming the class
// for a bad direction, size or rate. It allocates nothing.
//
// With runs, the band evaluates the runs' end models and one sensitivity
// model per figure at every call; AtMixCentral skips it.
func (m *Model) AtMix(classes []OpClass) (Result, error) {
	res, err := m.AtMixCentral(classes)
	if err != nil {
		return Result{}, err
	}
	for _, e := range [2]*Model{m.lo, m.hi} {
		if e == nil {
			continue
		}
		er, err := e.AtMixCentral(classes)
		if err != nil {
			return Result{}, err
		}
		if er.MaxTotalIOPS < res.MaxTotalIOPSLower {
			res.MaxTotalIOPSLower, res.HeadroomRatioLower = er.MaxTotalIOPS, er.HeadroomRatio
		}
		if er.MaxTotalIOPS > res.MaxTotalIOPSUpper {
			res.MaxTotalIOPSUpper, res.HeadroomRatioUpper = er.MaxTotalIOPS, er.HeadroomRatio
		}
		res.Extrapolated = res.Extrapolated || er.Extrapolated
	}
	// One more run's 95% prediction interval (prediction.go), where wider.
	if m.sens != nil {
		var buf [32]float64
		ys := buf[:0]
		if len(m.sens) > len(buf) {
			ys = make([]float64, 0, len(m.sens))
		}
		for _, pm := range m.sens {
			y := 0.0
			if pm != nil {
				if pr, err := pm.AtMixCentral(classes); err == nil {
					y = pr.MaxTotalIOPS
				}
			}
			ys = append(ys, y)
		}
		lo, hi := res.MaxTotalIOPSLower, res.MaxTotalIOPSUpper
		widen(res.MaxTotalIOPS, m.halfWidth(res.MaxTotalIOPS, ys), &lo, &hi)
		if lo < res.MaxTotalIOPSLower {
			res.MaxTotalIOPSLower, res.HeadroomRatioLower = lo, 1-res.CurrentIOPS/lo
		}
		if hi > res.MaxTotalIOPSUpper {
			res.MaxTotalIOPSUpper, res.HeadroomRatioUpper = hi, 1-res.CurrentIOPS/hi
		}
	}
	return res, nil
}

// AtMixCentral is AtMix without the band (its bounds equal the central
// figures): for callers that place many windows and read only the max,
// the utilization or the interference.
func (m *Model) AtMixCentral(classes []OpClass) (Result, error) {
	if len(classes) == 0 {
		return Result{}, inputError("classes", "empty: at least one op class is needed")
	}
	var res Result
	var readTotal, writeTotal float64
	// Each class's capacity share and log size, kept for the interference
	// pairs (on the stack for up to 16 classes).
	var shareBuf, logBuf [16]float64
	var shares, logs []float64
	if len(classes) <= len(shareBuf) {
		shares, logs = shareBuf[:len(classes)], logBuf[:len(classes)]
	} else {
		shares, logs = make([]float64, len(classes)), make([]float64, len(classes))
	}
	for i := range classes {
		c := &classes[i]
		if !check.Finite(c.Rate) || c.Rate < 0 {
			return Result{}, inputError("classes["+itoa(i)+"].rate", "must be a finite number >= 0, got %v", c.Rate)
		}
		if !check.Finite(c.IOSizeBytes) || c.IOSizeBytes <= 0 {
			return Result{}, inputError("classes["+itoa(i)+"].ioSizeBytes", "must be a finite number > 0, got %v", c.IOSizeBytes)
		}
		if c.Op != Read && c.Op != Write {
			return Result{}, inputError("classes["+itoa(i)+"].op", "must be %q or %q, got %q", Read, Write, string(c.Op))
		}
		if c.Rate == 0 {
			continue
		}
		logs[i] = math.Log(c.IOSizeBytes)
		r, w, ext := m.at(logs[i])
		if !(r > 0 && w > 0) || !check.Finite(r) || !check.Finite(w) {
			return Result{}, inputError("classes["+itoa(i)+"].ioSizeBytes", "%v is too far outside the calibrated range to extrapolate", c.IOSizeBytes)
		}
		res.Extrapolated = res.Extrapolated || ext
		if c.Op == Read {
			shares[i] = c.Rate / r
			readTotal += c.Rate
		} else {
			shares[i] = c.Rate / w
			writeTotal += c.Rate
		}
		res.Utilization += shares[i]
	}
	res.CurrentIOPS = readTotal + writeTotal
	res.Interpolation = m.form.Used
	if res.CurrentIOPS == 0 {
		return Result{}, ErrNoLoad
	}
	if !(res.Utilization > 0) || !check.Finite(res.Utilization) || !check.Finite(res.CurrentIOPS) {
		return Result{}, inputError("classes", "rates out of range: utilization %v from %v ops/s", res.Utilization, res.CurrentIOPS)
	}
	L := res.Utilization
	rq := m.interference(classes, shares, logs, L) // Q/L²
	Q := rq * L * L
	res.Interference = Q
	res.Utilization = L + Q
	if !check.Finite(res.Utilization) {
		return Result{}, inputError("classes", "rates out of range: utilization %v from %v ops/s", res.Utilization, res.CurrentIOPS)
	}
	if rq == 0 {
		// The paper's law, computed as it always was.
		res.LoadRatio = L
		res.MaxTotalIOPS = res.CurrentIOPS / L
		res.MaxReadIOPS = readTotal / L
		res.MaxWriteIOPS = writeTotal / L
		res.HeadroomRatio = 1 - L
	} else {
		inv := frontierScale(L, rq) // 1/s
		if !(inv > 0) || !check.Finite(inv) || !check.Finite(res.CurrentIOPS/inv) {
			return Result{}, inputError("classes", "rates out of range: utilization %v (interference %v) from %v ops/s", res.Utilization, Q, res.CurrentIOPS)
		}
		res.LoadRatio = inv
		res.MaxTotalIOPS = res.CurrentIOPS / inv
		res.MaxReadIOPS = readTotal / inv
		res.MaxWriteIOPS = writeTotal / inv
		res.HeadroomRatio = 1 - inv
		res.Utilization = UtilizationPastPeak(L, Q, inv)
	}
	res.HeadroomIOPS = res.MaxTotalIOPS - res.CurrentIOPS
	res.MaxTotalIOPSLower, res.MaxTotalIOPSUpper = res.MaxTotalIOPS, res.MaxTotalIOPS
	res.HeadroomRatioLower, res.HeadroomRatioUpper = res.HeadroomRatio, res.HeadroomRatio
	return res, nil
}

// interference returns Q/L², Q = 4 Σ_{i read, j write} (γ_ij + η w_ij) x_i x_j
// with x the classes' capacity shares, computed relative to L so that it
// does not underflow; 0 without mixed points. Classes were validated by AtMix,
// which filled shares and logs (log sizes) for every class with a rate.
func (m *Model) interference(classes []OpClass, shares, logs []float64, L float64) float64 {
	var eta, D float64
	if m.eta != nil {
		eta, D = m.eta.Eta, m.eta.LogSizeRatio
	}
	if len(m.gammaVal) == 0 && eta == 0 {
		return 0
	}
	var q float64
	for i := range classes {
		if classes[i].Op != Read || classes[i].Rate == 0 {
			continue
		}
		for j := range classes {
			if classes[j].Op != Write || classes[j].Rate == 0 {
				continue
			}
			g := gammaAt(m.gammaLogSz, m.gammaVal, (logs[i]+logs[j])/2)
			if eta != 0 {
				g += eta * sizeWeight(logs[i], logs[j], D)
			}
			q += g * (shares[i] / L) * (shares[j] / L)
		}
	}
	return 4 * q
}

// itoa avoids fmt on the hot path's error branches only; kept tiny.
func itoa(i int) string { return fmt.Sprint(i) }

// CurvePoint is max IOPS at one read ratio (0..1) and one IO size.
type CurvePoint struct {
	ReadRatio    float64 `json:"readRatio"`
	MaxIOPS      float64 `json:"maxIops"`
	MaxReadIOPS  float64 `json:"maxReadIops"`
	MaxWriteIOPS float64 `json:"maxWriteIops"`
	// The band of MaxIOPS over the calibration's runs (equal to MaxIOPS
	// without runs), as Result.MaxTotalIOPSLower/Upper.
	MaxIOPSLower float64 `json:"maxIopsLower"`
	MaxIOPSUpper float64 `json:"maxIopsUpper"`
}

// Curve returns the capacity curve at one IO size: for each read ratio ρ in
// 0..1, the paper's eq. 6 with R = 100ρ,
//
//	k = C / (R + (100−R) f_rw),  MaxReadIOPS = kR,  MaxWriteIOPS = k(100−R),
//
// or, where the size has interference γ ≠ 0, MaxAtReadRatio; with runs,
// MaxIOPSLower/Upper carry the band.
//
// The bool reports whether the size was extrapolated.
func (m *Model) Curve(ioSizeBytes float64, readRatios []float64) ([]CurvePoint, bool, error) {
	sc, err := m.At(ioSizeBytes)
	if err != nil {
		return nil, false, err
	}
	out := make([]CurvePoint, len(readRatios))
	for i, rho := range readRatios {
		if !check.Finite(rho) || rho < 0 || rho > 1 {
			return nil, false, inputError("readRatios["+itoa(i)+"]", "must be in 0..1, got %v", rho)
		}
		if sc.Gamma == 0 {
			_, r, w, _ := ReadWriteAtReadPercent(sc.ReadIOPS, sc.FRW, 100*rho)
			out[i] = CurvePoint{ReadRatio: rho, MaxIOPS: r + w, MaxReadIOPS: r, MaxWriteIOPS: w}
			continue
		}
		t, err := MaxAtReadRatio(sc.ReadIOPS, sc.WriteIOPS, sc.Gamma, rho)
		if err != nil {
			return nil, false, err
		}
		out[i] = CurvePoint{ReadRatio: rho, MaxIOPS: t, MaxReadIOPS: rho * t, MaxWriteIOPS: (1 - rho) * t}
	}
	for i := range out {
		out[i].MaxIOPSLower, out[i].MaxIOPSUpper = out[i].MaxIOPS, out[i].MaxIOPS
	}
	for _, e := range [2]*Model{m.lo, m.hi} {
		if e == nil {
			continue
		}
		ec, _, err := e.Curve(ioSizeBytes, readRatios)
		if err != nil {
			return nil, false, err
		}
		for i := range out {
			out[i].MaxIOPSLower = math.Min(out[i].MaxIOPSLower, ec[i].MaxIOPS)
			out[i].MaxIOPSUpper = math.Max(out[i].MaxIOPSUpper, ec[i].MaxIOPS)
		}
	}
	if m.sens != nil {
		curves := make([][]CurvePoint, len(m.sens))
		for j, pm := range m.sens {
			if pm != nil {
				curves[j], _, _ = pm.Curve(ioSizeBytes, readRatios)
			}
		}
		ys := make([]float64, len(m.sens))
		for i := range out {
			for j := range ys {
				ys[j] = 0
				if curves[j] != nil {
					ys[j] = curves[j][i].MaxIOPS
				}
			}
			widen(out[i].MaxIOPS, m.halfWidth(out[i].MaxIOPS, ys), &out[i].MaxIOPSLower, &out[i].MaxIOPSUpper)
		}
	}
	return out, sc.Extrapolated, nil
}

// ReadRatios returns n evenly spaced read ratios from 0 to 1 (n >= 2), the
// x axis of Curve.
func ReadRatios(n int) []float64 {
	if n < 2 {
		n = 2
	}
	out := make([]float64, n)
	for i := range out {
		out[i] = float64(i) / float64(n-1)
	}
	return out
}

package conservation

import (
	"errors"
	"fmt"
	"math"
	"sort"
)

// ErrInput is wrapped by every error that reports bad input.
var ErrInput = errors.New("invalid input")

// ErrNoLoad is returned by Model.AtMix when every op class has a zero rate:
// an idle cluster has no mix, so "max IOPS at the current mix" is undefined.
// Use Model.Curve to show capacity at chosen read ratios instead.
var ErrNoLoad = errors.New("no load: every op class has a zero rate, the mix is undefined")

func inputError(arg, format string, a ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrInput, arg, fmt.Sprintf(format, a...))
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// Point is one calibration point: the saturated IOPS of the whole cluster at
// one IO size for 100% reads and for 100% writes (T_read100 and T_write100 of
// the paper).
type Point struct {
	IOSizeBytes float64 `json:"ioSizeBytes"`
	ReadIOPS    float64 `json:"readIops"`         // T_read100(S) = C(S)
	WriteIOPS   float64 `json:"writeIops"`        // T_write100(S) = C(S) / f_rw(S)
	Source      string  `json:"source,omitempty"` // where the figures come from (fio file, history fit, ...)
}

// FRW is the paper's f_rw = T_read100 / T_write100 (eq. 4): how many reads
// one write costs.
func (p Point) FRW() float64 { return p.ReadIOPS / p.WriteIOPS }

// Calibration is the set of calibration points of one cluster.
type Calibration struct {
	Cluster string  `json:"cluster,omitempty"`
	Points  []Point `json:"points"`
}

// Validate checks that the calibration has at least one point, every point
// has a positive finite size and positive finite IOPS, and no size repeats.
// Errors name the offending point, e.g. "points[2].write_iops".
func (c Calibration) Validate() error {
	if len(c.Points) == 0 {
		return inputError("points", "empty calibration: at least one point is needed")
	}
	seen := make(map[float64]int, len(c.Points))
	for i, p := range c.Points {
		if err := checkPositive(fmt.Sprintf("points[%d].io_size_bytes", i), p.IOSizeBytes); err != nil {
			return err
		}
		if err := checkPositive(fmt.Sprintf("points[%d].read_iops", i), p.ReadIOPS); err != nil {
			return err
		}
		if err := checkPositive(fmt.Sprintf("points[%d].write_iops", i), p.WriteIOPS); err != nil {
			return err
		}
		if j, ok := seen[p.IOSizeBytes]; ok {
			return inputError(fmt.Sprintf("points[%d].io_size_bytes", i), "size %g already given by points[%d]", p.IOSizeBytes, j)
		}
		seen[p.IOSizeBytes] = i
	}
	return nil
}

func checkPositive(name string, v float64) error {
	if !finite(v) {
		return inputError(name, "must be a finite number, got %v", v)
	}
	if v <= 0 {
		return inputError(name, "must be > 0, got %v", v)
	}
	return nil
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
}

// NewModel validates c and prepares it for interpolation. The points need not
// be sorted.
func NewModel(c Calibration) (*Model, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	pts := append([]Point(nil), c.Points...)
	sort.Slice(pts, func(i, j int) bool { return pts[i].IOSizeBytes < pts[j].IOSizeBytes })
	m := &Model{cal: Calibration{Cluster: c.Cluster, Points: pts}}
	m.logSize = make([]float64, len(pts))
	m.logC = make([]float64, len(pts))
	m.logW = make([]float64, len(pts))
	m.read = make([]float64, len(pts))
	m.write = make([]float64, len(pts))
	for i, p := range pts {
		m.read[i], m.write[i] = p.ReadIOPS, p.WriteIOPS
		m.logSize[i] = math.Log(p.IOSizeBytes)
		m.logC[i] = math.Log(p.ReadIOPS)
		m.logW[i] = math.Log(p.WriteIOPS)
	}
	return m, nil
}

// Calibration returns the model's calibration, points sorted by size.
func (m *Model) Calibration() Calibration {
	return Calibration{Cluster: m.cal.Cluster, Points: append([]Point(nil), m.cal.Points...)}
}

// SizeCapacity is the capacity of the cluster at one IO size.
type SizeCapacity struct {
	IOSizeBytes  float64 `json:"ioSizeBytes"`
	ReadIOPS     float64 `json:"readIops"`  // C(S) = T_read100(S)
	WriteIOPS    float64 `json:"writeIops"` // T_write100(S)
	FRW          float64 `json:"frw"`       // f_rw(S)
	Extrapolated bool    `json:"extrapolated"`
}

// At returns C, T_write100 and f_rw at ioSizeBytes. Between calibrated sizes
// log C and log T_write100 (hence log f_rw) are linear in log size; outside
// the calibrated range the line through the nearest two points is extended
// (a power law in size) and Extrapolated is set. A one-point calibration is
// taken as constant across sizes, also flagged when the size differs.
func (m *Model) At(ioSizeBytes float64) (SizeCapacity, error) {
	if err := checkPositive("io_size_bytes", ioSizeBytes); err != nil {
		return SizeCapacity{}, err
	}
	r, w, ext := m.at(math.Log(ioSizeBytes))
	if !(r > 0 && w > 0) || !finite(r) || !finite(w) {
		return SizeCapacity{}, inputError("io_size_bytes", "%v is too far outside the calibrated range to extrapolate", ioSizeBytes)
	}
	return SizeCapacity{IOSizeBytes: ioSizeBytes, ReadIOPS: r, WriteIOPS: w, FRW: r / w, Extrapolated: ext}, nil
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
	// i: first index with logSize[i] >= ls.
	i := sort.SearchFloat64s(m.logSize, ls)
	if i < n && m.logSize[i] == ls {
		return m.read[i], m.write[i], false
	}
	lo := i - 1
	switch {
	case i == 0:
		lo, extrapolated = 0, m.logSize[0]-ls > sizeTolerance
	case i == n:
		lo, extrapolated = n-2, ls-m.logSize[n-1] > sizeTolerance
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
type Result struct {
	CurrentIOPS   float64 `json:"currentIops"`   // Σ rate_i
	MaxTotalIOPS  float64 `json:"maxTotalIops"`  // CurrentIOPS / U
	MaxReadIOPS   float64 `json:"maxReadIops"`   // read rates / U
	MaxWriteIOPS  float64 `json:"maxWriteIops"`  // write rates / U
	Utilization   float64 `json:"utilization"`   // U = Σ rate_i / max_i
	HeadroomRatio float64 `json:"headroomRatio"` // 1 − U (negative above calibrated capacity)
	HeadroomIOPS  float64 `json:"headroomIops"`  // MaxTotalIOPS − CurrentIOPS
	Extrapolated  bool    `json:"extrapolated"`  // some class's size lies outside the calibrated range
}

// AtMix returns the capacity at the mix of classes: every class uses the
// share rate_i / max_i of the capacity, max_i being C(S_i) for reads and
// C(S_i)/f_rw(S_i) for writes, so
//
//	U = Σ_i rate_i / max_i,   MaxTotalIOPS = Σ_i rate_i / U,   HeadroomRatio = 1 − U.
//
// Scaling every rate by 1/U keeps the mix and uses exactly the whole capacity.
// It returns ErrNoLoad when all rates are zero, and an error naming the class
// for a bad direction, size or rate. It allocates nothing.
func (m *Model) AtMix(classes []OpClass) (Result, error) {
	if len(classes) == 0 {
		return Result{}, inputError("classes", "empty: at least one op class is needed")
	}
	var res Result
	var readTotal, writeTotal float64
	for i := range classes {
		c := &classes[i]
		if !finite(c.Rate) || c.Rate < 0 {
			return Result{}, inputError("classes["+itoa(i)+"].rate", "must be a finite number >= 0, got %v", c.Rate)
		}
		if !finite(c.IOSizeBytes) || c.IOSizeBytes <= 0 {
			return Result{}, inputError("classes["+itoa(i)+"].ioSizeBytes", "must be a finite number > 0, got %v", c.IOSizeBytes)
		}
		if c.Op != Read && c.Op != Write {
			return Result{}, inputError("classes["+itoa(i)+"].op", "must be %q or %q, got %q", Read, Write, string(c.Op))
		}
		if c.Rate == 0 {
			continue
		}
		r, w, ext := m.at(math.Log(c.IOSizeBytes))
		if !(r > 0 && w > 0) || !finite(r) || !finite(w) {
			return Result{}, inputError("classes["+itoa(i)+"].ioSizeBytes", "%v is too far outside the calibrated range to extrapolate", c.IOSizeBytes)
		}
		res.Extrapolated = res.Extrapolated || ext
		if c.Op == Read {
			res.Utilization += c.Rate / r
			readTotal += c.Rate
		} else {
			res.Utilization += c.Rate / w
			writeTotal += c.Rate
		}
	}
	res.CurrentIOPS = readTotal + writeTotal
	if res.CurrentIOPS == 0 {
		return Result{}, ErrNoLoad
	}
	if !(res.Utilization > 0) || !finite(res.Utilization) || !finite(res.CurrentIOPS) {
		return Result{}, inputError("classes", "rates out of range: utilization %v from %v ops/s", res.Utilization, res.CurrentIOPS)
	}
	res.MaxTotalIOPS = res.CurrentIOPS / res.Utilization
	res.MaxReadIOPS = readTotal / res.Utilization
	res.MaxWriteIOPS = writeTotal / res.Utilization
	res.HeadroomRatio = 1 - res.Utilization
	res.HeadroomIOPS = res.MaxTotalIOPS - res.CurrentIOPS
	return res, nil
}

// itoa avoids fmt on the hot path's error branches only; kept tiny.
func itoa(i int) string { return fmt.Sprint(i) }

// CurvePoint is max IOPS at one read ratio (0..1) and one IO size.
type CurvePoint struct {
	ReadRatio    float64 `json:"readRatio"`
	MaxIOPS      float64 `json:"maxIops"`
	MaxReadIOPS  float64 `json:"maxReadIops"`
	MaxWriteIOPS float64 `json:"maxWriteIops"`
}

// Curve returns the capacity curve at one IO size: for each read ratio ρ in
// 0..1, the paper's eq. 6 with R = 100ρ,
//
//	k = C / (R + (100−R) f_rw),  MaxReadIOPS = kR,  MaxWriteIOPS = k(100−R).
//
// The bool reports whether the size was extrapolated.
func (m *Model) Curve(ioSizeBytes float64, readRatios []float64) ([]CurvePoint, bool, error) {
	sc, err := m.At(ioSizeBytes)
	if err != nil {
		return nil, false, err
	}
	out := make([]CurvePoint, len(readRatios))
	for i, rho := range readRatios {
		if !finite(rho) || rho < 0 || rho > 1 {
			return nil, false, inputError("readRatios["+itoa(i)+"]", "must be in 0..1, got %v", rho)
		}
		_, r, w, _ := ReadWriteAtReadPercent(sc.ReadIOPS, sc.FRW, 100*rho)
		out[i] = CurvePoint{ReadRatio: rho, MaxIOPS: r + w, MaxReadIOPS: r, MaxWriteIOPS: w}
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

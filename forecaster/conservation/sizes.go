package conservation

import (
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"

	"github.com/storcast/storcast/forecaster/internal/check"
	"github.com/storcast/storcast/forecaster/regress"
)

// The forms of interpolation across IO sizes.
const (
	// LogLog: log T100 linear in log size between calibrated sizes
	// (piecewise power laws). The default, and the only form before the
	// cost model existed.
	LogLog = "loglog"
	// Cost: time per op linear in size per direction, T100(S) = 1/(c0 + c1·S),
	// c0, c1 >= 0 fitted by non-negative least squares.
	Cost = "cost"
	// Auto: with three or more sizes LogLog or Cost by leave-one-size-out
	// error; with two, Cost when it passes through both sizes in both
	// directions, else LogLog; with one, constant. The default ("") is the
	// same but keeps LogLog with three or more sizes (every calibrated
	// figure kept).
	Auto = "auto"
)

// SizeForm reports which interpolation across sizes a model uses and why.
type SizeForm struct {
	Used      string `json:"used"`      // LogLog or Cost
	Requested string `json:"requested"` // the calibration's Interpolation ("": the default)
	// LogLogLOO and CostLOO are the leave-one-size-out errors: the RMS over
	// calibrated sizes and both directions of log(predicted/measured) T100,
	// each size predicted from the others. 0 with fewer than 3 sizes.
	LogLogLOO float64 `json:"loglogLoo"`
	CostLOO   float64 `json:"costLoo"`
	// Cost-model coefficients (seconds of cluster time per op, and per byte)
	// for reads and writes; filled whenever at least two sizes exist.
	ReadC0  float64 `json:"readC0"`
	ReadC1  float64 `json:"readC1"`
	WriteC0 float64 `json:"writeC0"`
	WriteC1 float64 `json:"writeC1"`
	Reason  string  `json:"reason"`
}

// fitCost fits time per op = c0 + c1·size to (size, iops) pairs by
// non-negative least squares on the relative residual
// (c0 + c1·S_k)·T_k − 1, so each size weighs the same whatever its IOPS.
// With two sizes and falling IOPS the fit is exact.
func fitCost(sizes, iops []float64) (c0, c1 float64, err error) {
	n := len(sizes)
	// Scale both columns to O(1): τ_k = T_k/Tref, σ_k = S_k/Sref.
	var lt, ls float64
	for k := range sizes {
		lt += math.Log(iops[k])
		ls += math.Log(sizes[k])
	}
	tref, sref := math.Exp(lt/float64(n)), math.Exp(ls/float64(n))
	a := mat.NewDense(n, 2, nil)
	b := make([]float64, n)
	for k := range sizes {
		tau := iops[k] / tref
		a.Set(k, 0, tau)
		a.Set(k, 1, tau*sizes[k]/sref)
		b[k] = 1
	}
	x, err := regress.NNLS(a, b)
	if err != nil {
		return 0, 0, err
	}
	c0, c1 = x[0]/tref, x[1]/(tref*sref)
	if !(c0+c1 > 0) || !check.Finite(c0) || !check.Finite(c1) {
		return 0, 0, fmt.Errorf("cost model degenerate (c0=%g, c1=%g)", c0, c1)
	}
	return c0, c1, nil
}

// loglogAt interpolates v (given as log values at ascending log sizes) at
// ls: linear between neighbours, the nearest segment extended outside.
func loglogAt(logSize, logV []float64, ls float64) float64 {
	n := len(logSize)
	if n == 1 {
		return math.Exp(logV[0])
	}
	i := sort.SearchFloat64s(logSize, ls)
	if i < n && logSize[i] == ls {
		return math.Exp(logV[i])
	}
	lo := i - 1
	switch {
	case i == 0:
		lo = 0
	case i == n:
		lo = n - 2
	}
	t := (ls - logSize[lo]) / (logSize[lo+1] - logSize[lo])
	return math.Exp(logV[lo] + t*(logV[lo+1]-logV[lo]))
}

// costExact is how close to the calibrated figures a two-size cost fit must
// come to count as passing through them (relative, rounding only).
const costExact = 1e-9

// passesThrough reports whether time per op c0 + c1·S reproduces every
// (size, iops) pair to costExact.
func passesThrough(c0, c1 float64, sizes, iops []float64) bool {
	for k := range sizes {
		if !(math.Abs((c0+c1*sizes[k])*iops[k]-1) <= costExact) {
			return false
		}
	}
	return true
}

// chooseSizeForm fits the cost model and, with >= 3 sizes, scores both
// forms by leave-one-size-out error. sizes are ascending.
func chooseSizeForm(requested string, sizes, read, write []float64) (SizeForm, error) {
	sf := SizeForm{Requested: requested, Used: LogLog}
	n := len(sizes)
	if n >= 2 {
		var err error
		if sf.ReadC0, sf.ReadC1, err = fitCost(sizes, read); err != nil {
			return sf, inputError("points", "read_iops: %v", err)
		}
		if sf.WriteC0, sf.WriteC1, err = fitCost(sizes, write); err != nil {
			return sf, inputError("points", "write_iops: %v", err)
		}
	}
	if n >= 3 {
		var sl, sc float64
		for k := 0; k < n; k++ {
			var s, r, w []float64
			for j := 0; j < n; j++ {
				if j != k {
					s, r, w = append(s, sizes[j]), append(r, read[j]), append(w, write[j])
				}
			}
			ls := make([]float64, len(s))
			lr, lw := make([]float64, len(s)), make([]float64, len(s))
			for j := range s {
				ls[j], lr[j], lw[j] = math.Log(s[j]), math.Log(r[j]), math.Log(w[j])
			}
			x := math.Log(sizes[k])
			for _, d := range []struct {
				lv   []float64
				v    []float64
				meas float64
			}{{lr, r, read[k]}, {lw, w, write[k]}} {
				e := math.Log(loglogAt(ls, d.lv, x) / d.meas)
				sl += e * e
				c0, c1, err := fitCost(s, d.v)
				if err != nil {
					sc = math.Inf(1)
					continue
				}
				e = math.Log(1 / (c0 + c1*sizes[k]) / d.meas)
				sc += e * e
			}
		}
		sf.LogLogLOO, sf.CostLOO = math.Sqrt(sl/float64(2*n)), math.Sqrt(sc/float64(2*n))
	}
	switch requested {
	case LogLog:
		sf.Used, sf.Reason = LogLog, "log-log requested"
	case Cost:
		if n < 2 {
			sf.Used, sf.Reason = LogLog, "cost model requested but one calibrated size cannot fit it: constant across sizes"
		} else {
			sf.Used, sf.Reason = Cost, "cost model requested"
		}
	case "", Auto:
		switch {
		case n < 2:
			sf.Used, sf.Reason = LogLog, "one calibrated size: constant across sizes"
		case n == 2:
			// Nothing to leave out: the physical form when it keeps both
			// figures. A cost per op plus a cost per byte makes the capacity
			// at a mean size that of any mix of sizes with that mean, which is
			// all the sources show (docs/models.md, "Across sizes").
			if passesThrough(sf.ReadC0, sf.ReadC1, sizes, read) && passesThrough(sf.WriteC0, sf.WriteC1, sizes, write) {
				sf.Used, sf.Reason = Cost, "two calibrated sizes: the cost model passes through both in both directions (IOPS fall and throughput rises with size) and is used"
			} else {
				sf.Used, sf.Reason = LogLog, "two calibrated sizes, and the cost model cannot pass through both in each direction (IOPS rise, or throughput falls, with size): log-log"
			}
		case requested == "":
			// The default keeps every calibrated figure: a least-squares cost
			// fit through three or more sizes would move them.
			sf.Used, sf.Reason = LogLog, fmt.Sprintf("%d calibrated sizes: log-log through each (interpolation: auto lets leave-one-size-out error choose a least-squares cost fit instead)", n)
		case sf.CostLOO < sf.LogLogLOO:
			sf.Used, sf.Reason = Cost, fmt.Sprintf("auto: cost model has the lower leave-one-size-out error (%.3f vs %.3f log-log)", sf.CostLOO, sf.LogLogLOO)
		default:
			sf.Used, sf.Reason = LogLog, fmt.Sprintf("auto: log-log has the lower leave-one-size-out error (%.3f vs %.3f cost)", sf.LogLogLOO, sf.CostLOO)
		}
	default:
		return sf, inputError("interpolation", "must be %q, %q or %q (or empty for the default), got %q", LogLog, Cost, Auto, requested)
	}
	return sf, nil
}

package mlisp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"sync"

	"github.com/storcast/storcast/forecaster/internal/check"
	"github.com/storcast/storcast/forecaster/kriging"
	"github.com/storcast/storcast/forecaster/regress"
	"gonum.org/v1/gonum/mat"
)

// inputError returns an error wrapping regress.ErrInput that names the argument.
func inputError(arg, format string, a ...any) error {
	return check.Errorf(regress.ErrInput, arg, format, a...)
}

// Dataset is the raw measurement history M-LISP learns from: one column per
// counter, one row per time window, in time order (the last window is the
// most recent). NaN marks a missing value; ±Inf is an error.
type Dataset struct {
	Names   []string    // counter names, unique and non-empty
	Columns [][]float64 // Columns[j][t]: counter Names[j] in window t
	IOPS    string      // name of the load counter (the independent variable)
	Latency string      // name of the latency counter (the modelled target)
}

// Options tunes Fit. The zero value of each field selects its default.
type Options struct {
	// WorkingSet is the size of the working sample set (paper: 500–1000).
	// Default 1000. Windows beyond it are subsampled.
	WorkingSet int `json:"working_set"`
	// RecencyHalfLife, in windows, weights the subsample towards recent
	// windows (weight 2^(−age/half-life)); 0 samples uniformly (the paper).
	RecencyHalfLife float64 `json:"recency_half_life"`
	// Seed makes the subsample reproducible.
	Seed uint64 `json:"seed"`
	// MaxMissing drops a counter missing in more than this fraction of the
	// active windows. Default 0.2. Windows missing any kept counter are
	// dropped afterwards.
	MaxMissing float64 `json:"max_missing"`
	// MinActive drops a counter that is non-zero in fewer than this fraction
	// of windows (inactive). Default 0.01.
	MinActive float64 `json:"min_active"`
	// MinSamples is the fewest windows left after cleansing. Default 30.
	MinSamples int `json:"min_samples"`
	// Tolerance is the CART stopping rule of the paper: a node is not split
	// when best SSE reduction / node SSE < Tolerance. Default 0.1.
	Tolerance float64 `json:"tolerance"`
	// CP is rpart's cost-complexity pruning parameter applied on top of the
	// tolerance rule; default 0.01, negative disables it. See doc.go for why.
	CP float64 `json:"cp"`
	// MinSplit is CART's minimum node size for a split. Default 20.
	MinSplit int `json:"min_split"`
	// MaxSignature caps the workload signature (IOPS and latency included).
	// Default 16; Model.SignatureTruncated records when the cap was hit.
	MaxSignature int `json:"max_signature"`
	// MaxLeafSamples caps the CART-leaf samples a Kriging step trains on;
	// a larger leaf contributes its samples nearest to the query. Default 100.
	MaxLeafSamples int `json:"max_leaf_samples"`
	// Steps is the number of extrapolation steps; the curve has Steps+1
	// points from X to the horizon (paper: 21 points). Default 20.
	Steps int `json:"steps"`
	// Kriging selects the Kriging of each extrapolation step:
	// "regression" (default) fits a linear trend in the Kriging inputs to
	// the CART-leaf samples and Kriges the residuals of the leaf and
	// synthetic samples with non-negative weights summing to one
	// (kriging.Convex); "paper" applies the paper's non-negative Kriging
	// (no Σw = 1) to the values themselves, exactly as published. See
	// doc.go for why the default differs from the paper.
	Kriging string `json:"kriging"`
	// NoConvexFloor turns off the shape constraint of the regression
	// variant's mean: latency of a queue is non-decreasing and convex in
	// load, so the extrapolated mean is lifted to at least the line from its
	// value at X with the slope of the top quarter of the data, and made
	// non-decreasing (doc.go).
	NoConvexFloor bool `json:"no_convex_floor,omitempty"`
	// Horizon is the end of the curve Fit computes, as a multiple of X, the
	// highest observed IOPS. Default 2.
	Horizon float64 `json:"horizon"`
}

func (o Options) withDefaults() Options {
	positiveOr(&o.WorkingSet, 1000)
	positiveOr(&o.MaxMissing, 0.2)
	positiveOr(&o.MinActive, 0.01)
	positiveOr(&o.MinSamples, 30)
	positiveOr(&o.Tolerance, 0.1)
	if o.CP == 0 { // negative is valid: it disables the pruning
		o.CP = 0.01
	}
	positiveOr(&o.MinSplit, 20)
	positiveOr(&o.MaxSignature, 16)
	positiveOr(&o.MaxLeafSamples, 100)
	positiveOr(&o.Steps, 20)
	positiveOr(&o.Horizon, 2)
	if o.Kriging == "" {
		o.Kriging = KrigingRegression
	}
	return o
}

// positiveOr sets *v to def unless it is positive: zero (and a negative
// value, which validate rejects first) means "the default".
func positiveOr[T int | float64](v *T, def T) {
	if *v <= 0 {
		*v = def
	}
}

// Kriging variants for Options.Kriging.
const (
	KrigingRegression = "regression"
	KrigingPaper      = "paper"
)

func (o Options) kriging() kriging.Options {
	if o.Kriging == KrigingPaper {
		return kriging.Options{Method: kriging.NonNegative, Drift: kriging.NoDrift}
	}
	return kriging.Options{Method: kriging.Convex, Drift: kriging.LinearDrift}
}

func (o Options) validate() error {
	switch {
	case o.WorkingSet < 0:
		return inputError("WorkingSet", "negative (%d)", o.WorkingSet)
	case o.RecencyHalfLife < 0 || math.IsNaN(o.RecencyHalfLife) || math.IsInf(o.RecencyHalfLife, 0):
		return inputError("RecencyHalfLife", "must be finite and ≥ 0, got %v", o.RecencyHalfLife)
	case o.MaxMissing < 0 || o.MaxMissing >= 1 || math.IsNaN(o.MaxMissing):
		return inputError("MaxMissing", "must be in [0, 1), got %v", o.MaxMissing)
	case o.MinActive < 0 || o.MinActive >= 1 || math.IsNaN(o.MinActive):
		return inputError("MinActive", "must be in [0, 1), got %v", o.MinActive)
	case o.Tolerance < 0 || o.Tolerance >= 1 || math.IsNaN(o.Tolerance):
		return inputError("Tolerance", "must be in [0, 1), got %v", o.Tolerance)
	case math.IsNaN(o.CP) || math.IsInf(o.CP, 0) || o.CP >= 1:
		return inputError("CP", "must be finite and < 1, got %v", o.CP)
	case o.MinSplit < 0 || o.MinSamples < 0 || o.MaxSignature < 0 || o.MaxLeafSamples < 0 || o.Steps < 0:
		return inputError("Options", "negative count in %+v", o)
	case o.Steps > 10000:
		return inputError("Steps", "%d is too many (max 10000)", o.Steps)
	case math.IsNaN(o.Horizon) || math.IsInf(o.Horizon, 0) || o.Horizon < 0 || (o.Horizon > 0 && o.Horizon <= 1):
		return inputError("Horizon", "must be a multiple > 1 of the highest observed IOPS, got %v", o.Horizon)
	case o.Kriging != "" && o.Kriging != KrigingRegression && o.Kriging != KrigingPaper:
		return inputError("Kriging", "must be %q or %q, got %q", KrigingRegression, KrigingPaper, o.Kriging)
	case o.MaxSignature == 1:
		return inputError("MaxSignature", "must be ≥ 2 (IOPS and latency)")
	}
	return nil
}

func (o Options) treeOptions() regress.TreeOptions {
	cp := o.CP
	if cp < 0 {
		cp = 0
	}
	return regress.TreeOptions{MinSplit: o.MinSplit, Tolerance: o.Tolerance, CP: cp}
}

// Cleansing reports what cleansing and sampling did to the input.
type Cleansing struct {
	Windows        int      `json:"windows"`          // input windows
	Idle           int      `json:"idle"`             // dropped: IOPS or latency missing or ≤ 0
	MissingValues  int      `json:"missing_values"`   // dropped: missing a kept counter
	Constant       []string `json:"constant"`         // dropped counters
	Inactive       []string `json:"inactive"`         // dropped counters
	OftenMissing   []string `json:"often_missing"`    // dropped counters
	Counters       int      `json:"counters"`         // kept counters, IOPS and latency included
	CleanWindows   int      `json:"clean_windows"`    // windows left after cleansing
	WorkingSetSize int      `json:"working_set_size"` // samples in the working set

	maxIOPS float64
}

// Model is a fitted M-LISP model. It holds the working sample set restricted
// to the workload signature, which is all Extrapolate needs: the per-counter
// CARTs of Algorithm 2 are rebuilt from it when the model is decoded from
// JSON.
type Model struct {
	// Signature lists the workload signature: [0] is the IOPS counter, [1]
	// the latency counter, then the other counters in discovery order.
	Signature []string `json:"signature"`
	// SignatureTruncated is set when the closure hit Options.MaxSignature.
	SignatureTruncated bool `json:"signature_truncated"`
	// Samples is the working sample set on the signature columns (row-major).
	Samples [][]float64 `json:"samples"`
	// Scale is the standard deviation of each signature column in Samples;
	// Kriging distances are Euclidean on columns divided by Scale.
	Scale []float64 `json:"scale"`
	// MaxIOPS is X, the highest IOPS among the cleansed windows.
	MaxIOPS   float64   `json:"max_iops"`
	Options   Options   `json:"options"`
	Cleansing Cleansing `json:"cleansing"`
	// Calibration widens the Kriging band to its nominal coverage; nil
	// leaves the raw band (see doc.go).
	Calibration *Calibration `json:"calibration"`
	// Curve is the extrapolation from X to Options.Horizon·X made by Fit.
	Curve *Curve `json:"curve"`

	// trees[i] predicts signature column i from the signature columns
	// inputs[i] (see inputsOf); trees[0], for IOPS, is nil: IOPS is the
	// independent variable. Trees take full signature vectors.
	trees  []*regress.Tree
	inputs [][]int
}

// Fit cleanses d, draws the working sample set, finds the workload signature,
// grows the per-counter CARTs and extrapolates the latency curve to
// opt.Horizon times the highest observed IOPS.
func Fit(d Dataset, opt Options) (*Model, error) {
	if err := opt.validate(); err != nil {
		return nil, err
	}
	opt = opt.withDefaults()
	Z, names, iopsCol, latCol, cl, err := cleanse(d, opt)
	if err != nil {
		return nil, err
	}
	sig, truncated, err := findSignature(Z, iopsCol, latCol, opt)
	if err != nil {
		return nil, err
	}
	n, _ := Z.Dims()
	m := &Model{Options: opt, Cleansing: cl, SignatureTruncated: truncated, MaxIOPS: cl.maxIOPS}
	for _, c := range sig {
		m.Signature = append(m.Signature, names[c])
	}
	m.Samples = make([][]float64, n)
	for i := range m.Samples {
		row := make([]float64, len(sig))
		for k, c := range sig {
			row[k] = Z.At(i, c)
		}
		m.Samples[i] = row
	}
	if err := m.prepare(); err != nil {
		return nil, err
	}
	m.Calibration = m.calibrate()
	m.Curve, err = m.Extrapolate(opt.Horizon * m.MaxIOPS)
	if err != nil {
		return nil, err
	}
	return m, nil
}

// inputsOf returns the signature columns that explain column i in
// Algorithm 1: IOPS and the other counters for a counter (latency is not an
// input: the paper extrapolates the counters first, then latency from them),
// and IOPS and every counter for latency.
func inputsOf(i, s int) []int {
	var in []int
	for k := 0; k < s; k++ {
		if k == i || (i != 1 && k == 1) {
			continue
		}
		in = append(in, k)
	}
	return in
}

// prepare computes Scale and grows the Algorithm-2 trees from Samples.
func (m *Model) prepare() error {
	s := len(m.Signature)
	n := len(m.Samples)
	m.Scale = make([]float64, s)
	for k := 0; k < s; k++ {
		var mean, ss float64
		for _, r := range m.Samples {
			mean += r[k]
		}
		mean /= float64(n)
		for _, r := range m.Samples {
			ss += (r[k] - mean) * (r[k] - mean)
		}
		sd := math.Sqrt(ss / float64(n))
		if sd <= 1e-12*math.Max(1, math.Abs(mean)) {
			sd = 1
		}
		m.Scale[k] = sd
	}
	S := mat.NewDense(n, s, nil)
	for i, r := range m.Samples {
		copy(S.RawRowView(i), r)
	}
	cols, err := regress.NewColumns(S)
	if err != nil {
		return fmt.Errorf("mlisp: working set: %w", err)
	}
	m.trees = make([]*regress.Tree, s)
	m.inputs = make([][]int, s)
	opt := m.Options.treeOptions()
	y := make([]float64, n)
	for k := 1; k < s; k++ {
		m.inputs[k] = inputsOf(k, s)
		mat.Col(y, k, S)
		t, err := cols.FitTree(y, m.inputs[k], opt)
		if err != nil {
			return fmt.Errorf("mlisp: CART for %q: %w", m.Signature[k], err)
		}
		m.trees[k] = t
	}
	return nil
}

// cleanse implements the paper's data cleansing and the working sample set.
// It returns the working set as a dense matrix over the kept counters.
func cleanse(d Dataset, opt Options) (*mat.Dense, []string, int, int, Cleansing, error) {
	var cl Cleansing
	fail := func(err error) (*mat.Dense, []string, int, int, Cleansing, error) {
		return nil, nil, 0, 0, cl, err
	}
	if len(d.Names) == 0 {
		return fail(inputError("Names", "empty"))
	}
	if len(d.Columns) != len(d.Names) {
		return fail(inputError("Columns", "%d columns for %d names", len(d.Columns), len(d.Names)))
	}
	T := len(d.Columns[0])
	if T == 0 {
		return fail(inputError("Columns", "no windows"))
	}
	iopsCol, latCol := -1, -1
	seen := make(map[string]bool, len(d.Names))
	for j, name := range d.Names {
		if name == "" {
			return fail(inputError("Names", "element %d is empty", j))
		}
		if seen[name] {
			return fail(inputError("Names", "duplicate counter %q", name))
		}
		seen[name] = true
		if len(d.Columns[j]) != T {
			return fail(inputError("Columns", "counter %q has %d windows, %q has %d", name, len(d.Columns[j]), d.Names[0], T))
		}
		for t, v := range d.Columns[j] {
			if math.IsInf(v, 0) {
				return fail(inputError("Columns", "counter %q window %d is %v", name, t, v))
			}
		}
		switch name {
		case d.IOPS:
			iopsCol = j
		case d.Latency:
			latCol = j
		}
	}
	if iopsCol < 0 {
		return fail(inputError("IOPS", "counter %q not in Names", d.IOPS))
	}
	if latCol < 0 {
		return fail(inputError("Latency", "counter %q not in Names", d.Latency))
	}
	cl.Windows = T
	// 1. Windows where the modelled quantities are missing or idle.
	active := make([]int, 0, T)
	for t := 0; t < T; t++ {
		l, x := d.Columns[latCol][t], d.Columns[iopsCol][t]
		if math.IsNaN(l) || math.IsNaN(x) || l <= 0 || x <= 0 {
			cl.Idle++
			continue
		}
		active = append(active, t)
	}
	if len(active) < opt.MinSamples {
		return fail(inputError("Columns", "%d windows with positive IOPS and latency, need at least %d", len(active), opt.MinSamples))
	}
	// 2. Counters: constant, inactive, too often missing.
	var keep []int
	for j, col := range d.Columns {
		missing, nonzero := 0, 0
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, t := range active {
			v := col[t]
			if math.IsNaN(v) {
				missing++
				continue
			}
			if v != 0 {
				nonzero++
			}
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
		present := len(active) - missing
		name := d.Names[j]
		isTarget := j == iopsCol || j == latCol
		switch {
		case isTarget && lo == hi:
			arg := "IOPS"
			if j == latCol {
				arg = "Latency"
			}
			return fail(inputError(arg, "counter %q is constant (%v) over the active windows; there is nothing to model", name, lo))
		case isTarget:
			keep = append(keep, j)
		case float64(missing) > opt.MaxMissing*float64(len(active)):
			cl.OftenMissing = append(cl.OftenMissing, name)
		case present == 0 || lo == hi:
			cl.Constant = append(cl.Constant, name)
		case float64(nonzero) < opt.MinActive*float64(len(active)):
			cl.Inactive = append(cl.Inactive, name)
		default:
			keep = append(keep, j)
		}
	}
	// 3. Windows missing a kept counter.
	clean := active[:0:0]
	for _, t := range active {
		ok := true
		for _, j := range keep {
			if math.IsNaN(d.Columns[j][t]) {
				ok = false
				break
			}
		}
		if ok {
			clean = append(clean, t)
		} else {
			cl.MissingValues++
		}
	}
	if len(clean) < opt.MinSamples {
		return fail(inputError("Columns", "%d complete windows after dropping those with missing values, need at least %d", len(clean), opt.MinSamples))
	}
	cl.Counters = len(keep)
	cl.CleanWindows = len(clean)
	for _, t := range clean {
		cl.maxIOPS = math.Max(cl.maxIOPS, d.Columns[iopsCol][t])
	}
	// 4. Working sample set.
	wss := subsample(clean, opt)
	cl.WorkingSetSize = len(wss)
	Z := mat.NewDense(len(wss), len(keep), nil)
	names := make([]string, len(keep))
	newIOPS, newLat := -1, -1
	for k, j := range keep {
		names[k] = d.Names[j]
		if j == iopsCol {
			newIOPS = k
		}
		if j == latCol {
			newLat = k
		}
	}
	raw := Z.RawMatrix()
	for i, t := range wss {
		row := raw.Data[i*raw.Stride : i*raw.Stride+len(keep)]
		for k, j := range keep {
			row[k] = d.Columns[j][t]
		}
	}
	// The working set must still vary in IOPS and latency.
	for _, c := range []int{newIOPS, newLat} {
		lo, hi := math.Inf(1), math.Inf(-1)
		for i := range wss {
			v := Z.At(i, c)
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
		if lo == hi {
			return fail(inputError("Columns", "counter %q is constant in the working set", names[c]))
		}
	}
	return Z, names, newIOPS, newLat, cl, nil
}

// subsample draws opt.WorkingSet of the windows (kept in time order):
// uniformly without replacement, or, with a recency half-life, by weighted
// sampling without replacement (Efraimidis–Spirakis keys ln(u)/w).
func subsample(windows []int, opt Options) []int {
	if len(windows) <= opt.WorkingSet {
		return append([]int(nil), windows...)
	}
	rng := rand.New(rand.NewPCG(opt.Seed, opt.Seed^0x9e3779b97f4a7c15))
	n := len(windows)
	type keyed struct {
		key float64
		idx int
	}
	keys := make([]keyed, n)
	for i := range windows {
		u := rng.Float64()
		for u == 0 {
			u = rng.Float64()
		}
		k := u
		if opt.RecencyHalfLife > 0 {
			age := float64(n - 1 - i)
			// ln(u)/w with w = 2^(−age/h): larger is better.
			k = math.Log(u) * math.Exp2(age/opt.RecencyHalfLife)
		}
		keys[i] = keyed{k, i}
	}
	sort.Slice(keys, func(a, b int) bool { return keys[a].key > keys[b].key })
	pick := make([]int, opt.WorkingSet)
	for k := range pick {
		pick[k] = keys[k].idx
	}
	sort.Ints(pick)
	out := make([]int, len(pick))
	for k, i := range pick {
		out[k] = windows[i]
	}
	return out
}

// findSignature computes the workload signature as the transitive closure of
// CART split variables, starting from {IOPS, latency}: the CART of latency on
// every other counter, then, for each newly added counter, the CART of that
// counter on every other counter, until no new counter appears. Each round's
// CARTs are independent and are grown in parallel; the result does not depend
// on the order (only the truncation at MaxSignature does, and it follows
// discovery order).
func findSignature(Z *mat.Dense, iopsCol, latCol int, opt Options) ([]int, bool, error) {
	sig := []int{iopsCol, latCol}
	in := map[int]bool{iopsCol: true, latCol: true}
	frontier := []int{latCol}
	truncated := false
	topt := opt.treeOptions()
	n, p := Z.Dims()
	// Presort every column once; each closure CART reuses the orders.
	cols, err := regress.NewColumns(Z)
	if err != nil {
		return nil, false, fmt.Errorf("mlisp: working set: %w", err)
	}
	for len(frontier) > 0 {
		splits := make([][]int, len(frontier))
		errs := make([]error, len(frontier))
		var wg sync.WaitGroup
		sem := make(chan struct{}, 2)
		for k, target := range frontier {
			wg.Add(1)
			go func(k, target int) {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				y := make([]float64, n)
				mat.Col(y, target, Z)
				features := make([]int, 0, p-1)
				for j := 0; j < p; j++ {
					if j != target {
						features = append(features, j)
					}
				}
				t, err := cols.FitTree(y, features, topt)
				if err != nil {
					errs[k] = err
					return
				}
				splits[k] = t.SplitFeatures()
			}(k, target)
		}
		wg.Wait()
		var next []int
		for k := range frontier {
			if errs[k] != nil {
				return nil, false, fmt.Errorf("mlisp: signature CART: %w", errs[k])
			}
			for _, f := range splits[k] {
				if in[f] {
					continue
				}
				if len(sig) >= opt.MaxSignature {
					truncated = true
					continue
				}
				in[f] = true
				sig = append(sig, f)
				next = append(next, f)
			}
		}
		frontier = next
	}
	return sig, truncated, nil
}

package insideout

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sort"
	"strings"
	"sync"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/storcast/storcast/forecaster/regress"
)

// DefaultThresholds is the default grid of a: 0, 0.25, …, 2.25 (10 values).
// a = 0 keeps every feature; larger a keeps only features whose Ridge
// coefficient is well above the median.
var DefaultThresholds = []float64{0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75, 2, 2.25}

// Options configures training. The zero value gives the defaults.
type Options struct {
	Thresholds []float64 // grid of a; nil means DefaultThresholds
	RidgeAlpha float64   // Ridge filter penalty on standardized features; 0 means 1 (scikit-learn's default)
	NAlphas    int       // Lasso alphas per threshold; 0 means 30
	Eps        float64   // alpha_min / alpha_max of the Lasso grid; 0 means 1e-3
	Folds      int       // k of k-fold CV; 0 means 10
	Seed       uint64    // fold shuffling seed
	Tol        float64   // coordinate-descent tolerance; 0 means 1e-4
	MaxIter    int       // coordinate-descent sweeps; 0 means 1000
}

func (o Options) withDefaults() (Options, error) {
	if o.Thresholds == nil {
		o.Thresholds = DefaultThresholds
	}
	if len(o.Thresholds) == 0 {
		return o, errors.New("insideout: options: empty threshold grid")
	}
	for _, a := range o.Thresholds {
		if math.IsNaN(a) || math.IsInf(a, 0) || a < 0 {
			return o, fmt.Errorf("insideout: options: threshold %v; must be finite and ≥ 0", a)
		}
	}
	if o.RidgeAlpha == 0 {
		o.RidgeAlpha = 1
	}
	if o.NAlphas == 0 {
		o.NAlphas = 30
	}
	if o.Eps == 0 {
		o.Eps = 1e-3
	}
	if o.Folds == 0 {
		o.Folds = 10
	}
	if o.Tol == 0 {
		o.Tol = 1e-4
	}
	if o.MaxIter == 0 {
		o.MaxIter = 1000
	}
	if math.IsNaN(o.RidgeAlpha) || o.RidgeAlpha < 0 || o.NAlphas < 1 || !(o.Eps > 0 && o.Eps < 1) || o.Folds < 2 || o.Tol < 0 || o.MaxIter < 1 {
		return o, fmt.Errorf("insideout: options: invalid %+v", o)
	}
	return o, nil
}

// Train aggregates windows with schema and fits one model per target.
// targets[t][i] is the measured value of target t over window i (averaged
// over the same one-minute window as the host metrics).
//
// Live data has gaps, so a window that cannot be aggregated (a role with no
// finite value of a metric) or whose measured value of some target is NaN
// or ±Inf is dropped and counted in Model.DroppedWindows; the error of the
// first dropped window is kept in Model.DropReason. A target that cannot be
// fitted (constant, say) is listed in Model.Skipped. Train fails when the
// schema is invalid, the lengths disagree, fewer windows than folds remain,
// or no target could be fitted.
func Train(schema Schema, windows []Window, targets map[Target][]float64, opt Options) (*Model, error) {
	if err := schema.Validate(); err != nil {
		return nil, err
	}
	if len(windows) == 0 {
		return nil, errors.New("insideout: windows: empty")
	}
	for t, y := range targets {
		if len(y) != len(windows) {
			return nil, fmt.Errorf("insideout: target %q: length %d does not match %d windows", t, len(y), len(windows))
		}
	}
	p := schema.NumFeatures()
	data := make([]float64, 0, len(windows)*p)
	keep := make([]int, 0, len(windows))
	var dropReason string
	var buf []float64
	for i, w := range windows {
		var err error
		for t, y := range targets {
			if math.IsNaN(y[i]) || math.IsInf(y[i], 0) {
				err = fmt.Errorf("insideout: target %q is %v", t, y[i])
				break
			}
		}
		if err == nil {
			var row []float64
			row, err = schema.aggregateInto(data[len(data):], w, buf)
			if err == nil {
				data = data[:len(data)+len(row)]
			}
		}
		if err != nil {
			if dropReason == "" {
				dropReason = fmt.Sprintf("window %d: %v", i, err)
			}
			continue
		}
		keep = append(keep, i)
	}
	if len(keep) == 0 {
		return nil, fmt.Errorf("insideout: every window was dropped; first: %s", dropReason)
	}
	X := mat.NewDense(len(keep), p, data)
	kept := make(map[Target][]float64, len(targets))
	for t, y := range targets {
		ky := make([]float64, len(keep))
		for r, i := range keep {
			ky[r] = y[i]
		}
		kept[t] = ky
	}
	m, err := TrainMatrix(schema.FeatureNames(), X, kept, opt)
	if err != nil {
		if dropReason != "" {
			return nil, fmt.Errorf("%w (%d of %d windows dropped; first: %s)", err, len(windows)-len(keep), len(windows), dropReason)
		}
		return nil, err
	}
	meanToSum(m, X)
	m.Schema = schema
	m.DroppedWindows = len(windows) - len(keep)
	m.DropReason = dropReason
	return m, nil
}

// TrainMatrix fits the two-level learner on an already aggregated n×p
// feature matrix whose columns are named by features.
func TrainMatrix(features []string, X mat.Matrix, targets map[Target][]float64, opt Options) (*Model, error) {
	opt, err := opt.withDefaults()
	if err != nil {
		return nil, err
	}
	if X == nil {
		return nil, errors.New("insideout: X: nil")
	}
	n, p := X.Dims()
	if len(features) != p {
		return nil, fmt.Errorf("insideout: features: %d names for %d columns", len(features), p)
	}
	if len(targets) == 0 {
		return nil, errors.New("insideout: targets: none given")
	}
	for t, y := range targets {
		if len(y) != n {
			return nil, fmt.Errorf("insideout: target %q: length %d does not match %d samples", t, len(y), n)
		}
	}
	d, err := newDesign(X, opt)
	if err != nil {
		return nil, err
	}
	m := &Model{Features: append([]string(nil), features...), Samples: n, Folds: opt.Folds,
		Targets: map[Target]*TargetModel{}, Skipped: map[Target]string{},
		FeatureMin: make([]float64, p), FeatureMax: make([]float64, p)}
	col := make([]float64, n)
	for j := range p {
		mat.Col(col, j, X)
		m.FeatureMin[j], m.FeatureMax[j] = floats.Min(col), floats.Max(col)
	}
	names := make([]string, 0, len(targets))
	for t := range targets {
		names = append(names, string(t))
	}
	sort.Strings(names)
	var errs []string
	for _, name := range names {
		t := Target(name)
		tm, err := d.fitTarget(targets[t], opt)
		if err != nil {
			m.Skipped[t] = err.Error()
			errs = append(errs, fmt.Sprintf("%s: %v", t, err))
			continue
		}
		for _, j := range tm.kept {
			tm.Kept = append(tm.Kept, features[j])
		}
		for j, w := range tm.Coef {
			if w != 0 {
				tm.Selected = append(tm.Selected, features[j])
			}
		}
		m.Targets[t] = &tm.TargetModel
	}
	if len(m.Targets) == 0 {
		return nil, fmt.Errorf("insideout: no target could be fitted: %s", strings.Join(errs, "; "))
	}
	if len(m.Skipped) == 0 {
		m.Skipped = nil
	}
	return m, nil
}

// design is what every target shares: the standardized features, the folds
// and the per-fold cross products Z_f'Z_f. Targets then only add Z'y.
// Z is stored in fold order (fold f's held-out rows are one contiguous
// block), so a fold is a view and no rows are copied; pos maps an original
// row index to its row in Z.
type design struct {
	std     *regress.Standardizer
	Z       *mat.Dense
	pos     []int
	folds   []regress.Fold
	total   *regress.Moments   // X part only (N, SumX, XX)
	foldMom []*regress.Moments // X part of each held-out fold
}

func newDesign(X mat.Matrix, opt Options) (*design, error) {
	n, p := X.Dims()
	std, err := regress.FitStandardizer(X)
	if err != nil {
		return nil, err
	}
	folds, err := regress.KFold(n, opt.Folds, opt.Seed)
	if err != nil {
		return nil, err
	}
	d := &design{std: std, Z: mat.NewDense(n, p, nil), pos: make([]int, n), folds: folds}
	xd, _ := X.(*mat.Dense)
	r := 0
	for _, f := range folds {
		for _, i := range f.Test {
			d.pos[i] = r
			dst := d.Z.RawRowView(r)
			if xd != nil {
				std.TransformRow(dst, xd.RawRowView(i))
			} else {
				for j := range dst {
					dst[j] = (X.At(i, j) - std.Mean[j]) / std.Scale[j]
				}
			}
			r++
		}
	}
	start := 0
	for _, f := range folds {
		sub := d.Z.Slice(start, start+len(f.Test), 0, p)
		start += len(f.Test)
		mom, err := regress.NewMoments(sub, make([]float64, len(f.Test)))
		if err != nil {
			return nil, err
		}
		d.foldMom = append(d.foldMom, mom)
		d.total = d.total.Add(mom)
	}
	return d, nil
}

// withY completes X-only moments with the target's cross products over rows.
func (d *design) withY(xm *regress.Moments, y []float64, rows []int) *regress.Moments {
	p := len(xm.SumX)
	m := *xm
	m.Xy = make([]float64, p)
	m.SumY, m.YY = 0, 0
	for _, i := range rows {
		yi := y[i]
		m.SumY += yi
		m.YY += yi * yi
		for j, v := range d.Z.RawRowView(d.pos[i]) {
			m.Xy[j] += v * yi
		}
	}
	return &m
}

type fitted struct {
	TargetModel
	kept []int
}

func (d *design) fitTarget(y []float64, opt Options) (*fitted, error) {
	if err := regress.CheckVector("y", y); err != nil {
		return nil, err
	}
	// Target moments per fold and in total.
	foldY := make([]*regress.Moments, len(d.folds))
	var total *regress.Moments
	for f, fold := range d.folds {
		foldY[f] = d.withY(d.foldMom[f], y, fold.Test)
		total = total.Add(foldY[f])
	}
	gAll, err := total.Gram(nil)
	if err != nil {
		return nil, err
	}
	// Level 1: Ridge on every standardized feature.
	ridge, err := gAll.Ridge(opt.RidgeAlpha)
	if err != nil {
		return nil, fmt.Errorf("ridge filter: %w", err)
	}
	abs := make([]float64, len(ridge.Coef))
	for j, w := range ridge.Coef {
		abs[j] = math.Abs(w)
	}
	med := median(abs)
	trainMom := make([]*regress.Moments, len(d.folds))
	for f := range d.folds {
		trainMom[f] = total.Sub(foldY[f])
	}
	// Level 2: for each threshold, Lasso path scored by k-fold CV MAPE.
	best := struct {
		a, alpha, mape float64
		kept           []int
	}{mape: math.Inf(1)}
	var grid []ThresholdScore
	cache := map[string]ThresholdScore{}
	for _, a := range opt.Thresholds {
		var kept []int
		for j, v := range abs {
			if v >= a*med && (v > 0 || a == 0) {
				kept = append(kept, j)
			}
		}
		if len(kept) == 0 {
			continue
		}
		key := fmt.Sprint(kept)
		ts, ok := cache[key]
		if !ok {
			ts, err = d.scoreThreshold(kept, total, trainMom, y, opt)
			if err != nil {
				return nil, err
			}
			cache[key] = ts
		}
		ts.Threshold = a
		grid = append(grid, ts)
		if ts.CVMAPE < best.mape {
			best.a, best.alpha, best.mape, best.kept = a, ts.Alpha, ts.CVMAPE, kept
		}
	}
	if best.kept == nil {
		return nil, errors.New("no threshold kept any feature (every Ridge coefficient is zero)")
	}
	// Refit the Lasso on all data at the chosen (a, alpha).
	g, err := total.Gram(best.kept)
	if err != nil {
		return nil, err
	}
	lm, err := g.ElasticNet(regress.ElasticNet{Alpha: best.alpha, L1Ratio: 1, Tol: opt.Tol, MaxIter: opt.MaxIter}, nil)
	if err != nil && !errors.Is(err, regress.ErrNotConverged) {
		return nil, err
	}
	wStd := make([]float64, len(abs))
	for k, j := range best.kept {
		wStd[j] = lm.Coef[k]
	}
	coef, b := d.std.Inverse(wStd, lm.Intercept)
	return &fitted{
		TargetModel: TargetModel{Threshold: best.a, Alpha: best.alpha, Coef: coef, Intercept: b,
			CVMAPE: best.mape, CVAccuracy: regress.Accuracy(best.mape), Grid: grid},
		kept: best.kept,
	}, nil
}

// scoreThreshold runs the Lasso path on the kept features in every fold and
// returns the alpha with the lowest mean held-out MAPE.
func (d *design) scoreThreshold(kept []int, total *regress.Moments, trainMom []*regress.Moments, y []float64, opt Options) (ThresholdScore, error) {
	gAll, err := total.Gram(kept)
	if err != nil {
		return ThresholdScore{}, err
	}
	amax := gAll.AlphaMax(1)
	if amax == 0 {
		return ThresholdScore{}, errors.New("kept features are uncorrelated with the target")
	}
	alphas := regress.AlphaGrid(amax, opt.Eps, opt.NAlphas)
	sum := make([]float64, len(alphas))
	cnt := make([]int, len(alphas))
	// Folds are independent: run them on all cores, then add their scores
	// in fold order so the result does not depend on scheduling.
	foldMAPE := make([][]float64, len(d.folds))
	foldErr := make([]error, len(d.folds))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(runtime.GOMAXPROCS(0), len(d.folds)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for f := range next {
				g, err := trainMom[f].Gram(kept)
				if err == nil {
					var path *regress.Path
					path, err = g.Path(regress.PathOptions{L1Ratio: 1, Alphas: alphas, Tol: opt.Tol, MaxIter: opt.MaxIter})
					if err == nil {
						foldMAPE[f] = d.pathMAPE(path, kept, d.folds[f].Test, y)
					}
				}
				if err != nil {
					foldErr[f] = fmt.Errorf("fold %d: %w", f+1, err)
				}
			}
		}()
	}
	for f := range d.folds {
		next <- f
	}
	close(next)
	wg.Wait()
	for f := range d.folds {
		if foldErr[f] != nil {
			return ThresholdScore{}, foldErr[f]
		}
		for i, v := range foldMAPE[f] {
			if !math.IsNaN(v) {
				sum[i] += v
				cnt[i]++
			}
		}
	}
	ts := ThresholdScore{Kept: len(kept), CVMAPE: math.Inf(1)}
	for i, a := range alphas {
		if cnt[i] == 0 {
			continue
		}
		if m := sum[i] / float64(cnt[i]); m < ts.CVMAPE {
			ts.CVMAPE, ts.Alpha = m, a
		}
	}
	if math.IsInf(ts.CVMAPE, 1) {
		return ts, errors.New("MAPE undefined in every fold (the target is zero on every held-out sample)")
	}
	return ts, nil
}

// pathMAPE scores every model of a path on the held-out rows. Only columns
// that some model uses are touched, and the predictions of all alphas come
// from one matrix product.
func (d *design) pathMAPE(path *regress.Path, kept, test []int, y []float64) []float64 {
	var used []int // positions in kept
	for k := range kept {
		for _, m := range path.Models {
			if m.Coef[k] != 0 {
				used = append(used, k)
				break
			}
		}
	}
	nA := len(path.Models)
	out := make([]float64, nA)
	var pred *mat.Dense
	if len(used) > 0 {
		Zt := mat.NewDense(len(test), len(used), nil)
		for r, i := range test {
			row := d.Z.RawRowView(d.pos[i])
			dst := Zt.RawRowView(r)
			for c, k := range used {
				dst[c] = row[kept[k]]
			}
		}
		W := mat.NewDense(len(used), nA, nil)
		for a, m := range path.Models {
			for c, k := range used {
				W.Set(c, a, m.Coef[k])
			}
		}
		pred = mat.NewDense(len(test), nA, nil)
		pred.Mul(Zt, W)
	}
	for a, m := range path.Models {
		var s float64
		var c int
		for r, i := range test {
			if y[i] == 0 {
				continue
			}
			v := m.Intercept
			if pred != nil {
				v += pred.At(r, a)
			}
			s += math.Abs(v-y[i]) / math.Abs(y[i])
			c++
		}
		if c == 0 {
			out[a] = math.NaN()
		} else {
			out[a] = s / float64(c)
		}
	}
	return out
}

// median of v (v is not modified).
func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return 0.5 * (s[n/2-1] + s[n/2])
}

// meanToSum moves the weight of a "mean" feature to its "sum" where the
// training windows had one host count N throughout (sum = N·mean in every
// row): the two columns are then the same after standardization, and the
// Lasso's coordinate descent, visiting mean first, gave mean all the weight.
// On the training rows the model is unchanged (w·mean = (w/N)·sum); with M
// hosts later, at the same load, sum carries it and mean, the load per host,
// would have read N/M of it (a scale-out from 8 to 12 hosts: 0.67×).
func meanToSum(m *Model, X *mat.Dense) {
	n, _ := X.Dims()
	idx := map[string]int{}
	for j, f := range m.Features {
		idx[f] = j
	}
	for j, f := range m.Features {
		base, ok := strings.CutSuffix(f, "/mean")
		if !ok {
			continue
		}
		k, ok := idx[base+"/sum"]
		if !ok {
			continue
		}
		hosts := constantRatio(X, k, j, n)
		if hosts == 0 {
			continue
		}
		for _, t := range m.Targets {
			if w := t.Coef[j]; w != 0 {
				t.Coef[k] += w / hosts
				t.Coef[j] = 0
			}
		}
	}
	for _, t := range m.Targets {
		t.Selected = t.Selected[:0]
		for j, w := range t.Coef {
			if w != 0 {
				t.Selected = append(t.Selected, m.Features[j])
			}
		}
	}
}

// constantRatio is N when column k is N times column j in every row of X,
// N a whole number of hosts (a row where both are 0 agrees with any N); 0
// when not, or when no row tells.
func constantRatio(X *mat.Dense, k, j, n int) float64 {
	hosts := 0.0
	for r := range n {
		sum, mean := X.At(r, k), X.At(r, j)
		if mean == 0 {
			if sum != 0 {
				return 0
			}
			continue
		}
		h := math.Round(sum / mean)
		if h < 1 || math.Abs(sum-h*mean) > 1e-9*math.Abs(sum) || hosts != 0 && h != hosts {
			return 0
		}
		hosts = h
	}
	return hosts
}

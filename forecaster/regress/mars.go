package regress

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// MARSOptions controls a MARS fit. The names and meanings follow R's earth
// package (Milborrow), whose forward pass this implementation reproduces;
// DefaultMARSOptions gives earth's defaults.
type MARSOptions struct {
	// Degree is the largest number of hinge factors in a term (1: additive
	// model; 2: pairwise interactions).
	Degree int `json:"degree"`
	// MaxTerms is earth's nk: the forward pass stops when the model has
	// MaxTerms−1 or more term slots (a slot is used even when only one
	// hinge of a pair is kept, as in earth).
	MaxTerms int `json:"maxTerms"`
	// Penalty is the GCV cost per knot, d in
	// C(M) = M + d·(M−1)/2. earth uses 2 for degree 1 and 3 otherwise.
	Penalty float64 `json:"penalty"`
	// Thresh stops the forward pass when a step raises R² by less than
	// Thresh or R² reaches 1−Thresh. 0 disables both (and the GRSq < −10
	// rule), leaving MaxTerms and "no term improves the fit".
	Thresh float64 `json:"thresh"`
	// MinSpan is the number of eligible cases between candidate knots; 0
	// selects Friedman's formula (earth's default).
	MinSpan int `json:"minSpan"`
	// EndSpan is the number of cases at each end of a variable's range that
	// cannot hold a knot; 0 selects Friedman's formula (earth's default).
	EndSpan int `json:"endSpan"`
	// AdjustEndSpan multiplies EndSpan for terms of degree 2 and more
	// (earth's Adjust.endspan, default 2).
	AdjustEndSpan float64 `json:"adjustEndSpan"`
	// NPrune caps the number of terms (intercept included) after pruning;
	// 0 means no cap.
	NPrune int `json:"nprune"`
}

// DefaultMARSOptions returns earth's defaults for p predictors and the
// given degree: nk = min(200, max(20, 2p)) + 1, penalty 2 (degree 1) or 3,
// thresh 0.001, automatic minspan and endspan, Adjust.endspan 2.
func DefaultMARSOptions(p, degree int) MARSOptions {
	pen := 2.0
	if degree > 1 {
		pen = 3
	}
	return MARSOptions{Degree: degree, MaxTerms: min(200, max(20, 2*p)) + 1, Penalty: pen,
		Thresh: 0.001, AdjustEndSpan: 2}
}

func (o MARSOptions) validate() error {
	switch {
	case o.Degree < 1 || o.Degree > 10:
		return inputError("Degree", "%d; must be in [1, 10]", o.Degree)
	case o.MaxTerms < 1 || o.MaxTerms > 1000:
		return inputError("MaxTerms", "%d; must be in [1, 1000]", o.MaxTerms)
	case !(o.Penalty >= 0 && o.Penalty <= 1000) && o.Penalty != -1:
		return inputError("Penalty", "%v; must be in [0, 1000] or -1", o.Penalty)
	case !(o.Thresh >= 0 && o.Thresh < 1):
		return inputError("Thresh", "%v; must be in [0, 1)", o.Thresh)
	case o.MinSpan < 0:
		return inputError("MinSpan", "negative (%d)", o.MinSpan)
	case o.EndSpan < 0:
		return inputError("EndSpan", "negative (%d)", o.EndSpan)
	case !(o.AdjustEndSpan >= 0 && o.AdjustEndSpan <= 10):
		return inputError("AdjustEndSpan", "%v; must be in [0, 10]", o.AdjustEndSpan)
	case o.NPrune < 0:
		return inputError("NPrune", "negative (%d)", o.NPrune)
	}
	return nil
}

// MARSFactor is one factor of a MARS term: Dir +1 is max(0, x[Var]−Knot),
// Dir −1 is max(0, Knot−x[Var]), Dir 0 is x[Var] entering linearly (earth
// adds a linear term when the best "knot" is the variable's minimum).
type MARSFactor struct {
	Var  int     `json:"var"`
	Knot float64 `json:"knot"`
	Dir  int     `json:"dir"`
}

// Eval returns the factor's value at x.
func (f MARSFactor) Eval(x []float64) float64 {
	switch f.Dir {
	case 1:
		return math.Max(0, x[f.Var]-f.Knot)
	case -1:
		return math.Max(0, f.Knot-x[f.Var])
	}
	return x[f.Var]
}

// MARSTerm is a product of factors on distinct variables.
type MARSTerm []MARSFactor

// Eval returns the product of the factors at x.
func (t MARSTerm) Eval(x []float64) float64 {
	v := 1.0
	for _, f := range t {
		v *= f.Eval(x)
	}
	return v
}

// String writes the term as earth prints it, e.g. h(x1-0.5)*h(0.3-x2).
func (t MARSTerm) String() string {
	parts := make([]string, len(t))
	for i, f := range t {
		switch f.Dir {
		case 1:
			parts[i] = fmt.Sprintf("h(x%d-%g)", f.Var+1, f.Knot)
		case -1:
			parts[i] = fmt.Sprintf("h(%g-x%d)", f.Knot, f.Var+1)
		default:
			parts[i] = fmt.Sprintf("x%d", f.Var+1)
		}
	}
	return strings.Join(parts, "*")
}

// MARSModel is a fitted MARS model ŷ = Intercept + Σ Coef_t Terms_t(x).
type MARSModel struct {
	P         int        `json:"p"`
	Terms     []MARSTerm `json:"terms"`
	Coef      []float64  `json:"coef"`
	Intercept float64    `json:"intercept"`
	// RSS and GCV of the selected model on the training data.
	RSS float64 `json:"rss"`
	GCV float64 `json:"gcv"`
}

// Predict returns the model's prediction, NaN when len(x) != P.
func (m *MARSModel) Predict(x []float64) float64 {
	if len(x) != m.P {
		return math.NaN()
	}
	s := m.Intercept
	for t, term := range m.Terms {
		s += m.Coef[t] * term.Eval(x)
	}
	return s
}

// MARS is the Learner for FitMARS. Its box: nk (MaxTerms) in [3, 41],
// thresh in [1e-5, 0.01] (log scale) and degree in {1, 2}; the penalty
// follows the degree (2 or 3) and the spans are automatic, as in earth.
type MARS struct{}

// Name implements Learner.
func (MARS) Name() string { return "MARS" }

// Params implements Learner.
func (MARS) Params() []Param {
	return []Param{
		{Name: "nk", Lower: 3, Upper: 41, Integer: true, Default: 21},
		{Name: "thresh", Lower: 1e-5, Upper: 0.01, Log: true, Default: 0.001},
		{Name: "degree", Lower: 1, Upper: 2, Integer: true, Default: 1},
	}
}

// Fit implements Learner.
func (l MARS) Fit(X [][]float64, y []float64, params []float64) (Model, error) {
	if err := checkParams(l.Params(), params); err != nil {
		return nil, err
	}
	d, err := denseXY(X, y)
	if err != nil {
		return nil, err
	}
	_, p := d.Dims()
	o := DefaultMARSOptions(p, int(params[2]))
	o.MaxTerms, o.Thresh = int(params[0]), params[1]
	return FitMARS(d, y, o)
}

// earth's constants.
const (
	marsMinBxSOS   = 0.01  // a candidate linear term with less is "not a new form"
	marsQRTol      = 1e-8  // relative norm below which a column is dependent
	marsMinGRSq    = -10.0 // forward pass stops below this GRSq (when Thresh > 0)
	marsMaxDegree  = 100   // degree marking an unusable slot
	marsRSSNullMin = 1e-8  // per case: y with less total variance is constant
)

// marsGCV is earth's generalized cross-validation, RSS/(n(1−C/n)²) with
// C = terms + penalty·(terms−1)/2, +Inf when C ≥ n.
func marsGCV(nTerms int, n int, rss, penalty float64) float64 {
	cost := 0.0
	if penalty != -1 {
		cost = (float64(nTerms) + penalty*float64(nTerms-1)/2) / float64(n)
	}
	if cost >= 1 {
		return math.Inf(1)
	}
	return rss / (float64(n) * (1 - cost) * (1 - cost))
}

// marsFwd is the state of the forward pass (column-major, like earth).
type marsFwd struct {
	o      MARSOptions
	n, p   int
	x      [][]float64 // x[j][i]
	order  [][]int     // order[j]: case indices sorted by x[j]
	yc     []float64   // centred y
	bx     [][]float64 // slot columns; bx[0] is the intercept
	term   []MARSTerm  // slot terms
	dirs   [][]int     // dirs[slot][j] != 0 when variable j is in the slot's term
	used   []bool      // earth's FullSet
	degree []int
	q      [][]float64 // centred orthonormal basis of the used slots
	ycbo   []float64   // q_k · yc

	// Forward-pass progress. The terms it adds do not depend on MaxTerms
	// or Thresh, which only decide where it stops; steps records what the
	// stopping rules read, so that one pass serves every (MaxTerms,
	// Thresh) of a search (forwardEnd).
	active             bool // y varies: the forward pass runs at all
	exhausted          bool // no term improves the fit any more
	rssNull, gcvNull   float64
	rss, rssDelta, rsq float64
	nUsed              int
	steps              []marsStep

	scratchV []float64 // findTerm's linear candidate, normalized
	// lin[{parent, pred}]: the centred x_pred·parent column orthogonalized
	// against q[:done]. The basis only grows, so each step projects out
	// the new vectors alone: modified Gram-Schmidt is sequential, and the
	// result is the same as projecting on the whole basis at once.
	lin map[[2]int]*marsLin
}

type marsLin struct {
	v    []float64
	done int
}

// linResidual returns the linear candidate x_pred·parent centred and
// orthogonalized against the basis (as orthogonalize does), and its sum of
// squares. The returned slice must not be modified.
func (f *marsFwd) linResidual(parent, pred int) ([]float64, float64) {
	key := [2]int{parent, pred}
	l := f.lin[key]
	if l == nil {
		if f.lin == nil {
			f.lin = map[[2]int]*marsLin{}
		}
		u := make([]float64, f.n)
		pcol := f.bx[parent]
		for i := range u {
			u[i] = f.x[pred][i] * pcol[i]
		}
		centre(u)
		l = &marsLin{v: u}
		f.lin[key] = l
	}
	ss := project(l.v, f.q[l.done:])
	l.done = len(f.q)
	return l.v, ss
}

// marsStep is one forward step: the slots before and after it, and the
// values the stopping rules test.
type marsStep struct {
	before, after int
	rsqDelta, gcv float64
	rsq           float64
}

// FitMARS fits a MARS model (Friedman, "Multivariate Adaptive Regression
// Splines", 1991) to X and y: earth's forward pass, then backward
// elimination scored by GCV. See the package documentation for the math.
func FitMARS(X mat.Matrix, y []float64, o MARSOptions) (*MARSModel, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	if err := CheckXY(X, y); err != nil {
		return nil, err
	}
	n, _ := X.Dims()
	if n < 2 {
		return nil, inputError("X", "%d row; MARS needs at least 2", n)
	}
	f, err := newMARSFwd(X, y, o)
	if err != nil {
		return nil, err
	}
	return f.prune(y, f.forwardEnd(o.MaxTerms, o.Thresh))
}

// newMARSFwd prepares the forward pass on X and y (validated, n ≥ 2) with
// the intercept as the only slot. Of o it uses Degree, Penalty and the
// spans.
func newMARSFwd(X mat.Matrix, y []float64, o MARSOptions) (*marsFwd, error) {
	n, p := X.Dims()
	f := &marsFwd{o: o, n: n, p: p}
	f.x = make([][]float64, p)
	f.order = make([][]int, p)
	for j := 0; j < p; j++ {
		col := make([]float64, n)
		for i := range col {
			col[i] = X.At(i, j)
		}
		f.x[j] = col
		ord := make([]int, n)
		for i := range ord {
			ord[i] = i
		}
		sort.SliceStable(ord, func(a, b int) bool { return col[ord[a]] < col[ord[b]] })
		f.order[j] = ord
	}
	var ym float64
	for _, v := range y {
		ym += v
	}
	ym /= float64(n)
	f.yc = make([]float64, n)
	var rssNull float64
	for i, v := range y {
		f.yc[i] = v - ym
		rssNull += f.yc[i] * f.yc[i]
	}
	if math.IsInf(rssNull, 0) {
		return nil, inputError("y", "sum of squares overflows float64; rescale y")
	}
	one := make([]float64, n)
	for i := range one {
		one[i] = 1
	}
	f.addSlot(one, nil, make([]int, p), 0, true)
	f.active = rssNull >= marsRSSNullMin*float64(n)
	f.rssNull, f.rss, f.rssDelta, f.nUsed = rssNull, rssNull, rssNull, 1
	f.gcvNull = marsGCV(1, n, rssNull, o.Penalty)
	return f, nil
}

func (f *marsFwd) addSlot(col []float64, t MARSTerm, dirs []int, degree int, used bool) {
	f.bx = append(f.bx, col)
	f.term = append(f.term, t)
	f.dirs = append(f.dirs, dirs)
	f.used = append(f.used, used)
	f.degree = append(f.degree, degree)
	if used && len(f.bx) > 1 {
		f.orthAppend(col)
	}
}

// orthogonalize returns col centred and orthogonalized (modified
// Gram-Schmidt) against f.q and its sum of squares.
func (f *marsFwd) orthogonalize(col []float64) ([]float64, float64) {
	v := slices.Clone(col)
	centre(v)
	return v, project(v, f.q)
}

// centre subtracts v's mean from each element, in place.
func centre(v []float64) {
	var m float64
	for _, c := range v {
		m += c
	}
	m /= float64(len(v))
	for i, c := range v {
		v[i] = c - m
	}
}

// project removes from v, in place, its component along each vector of the
// orthonormal basis in turn (modified Gram-Schmidt) and returns the sum of
// squares of what is left.
func project(v []float64, basis [][]float64) float64 {
	for _, q := range basis {
		var b float64
		for i := range v {
			b += q[i] * v[i]
		}
		for i := range v {
			v[i] -= b * q[i]
		}
	}
	var ss float64
	for _, c := range v {
		ss += c * c
	}
	return ss
}

func (f *marsFwd) orthAppend(col []float64) {
	var ss0 float64
	for _, c := range col {
		ss0 += c * c
	}
	v, ss := f.orthogonalize(col)
	if ss <= 1e-20*ss0 || ss == 0 { // dependent: nothing new in the span
		return
	}
	s := 1 / math.Sqrt(ss)
	var yb float64
	for i := range v {
		v[i] *= s
		yb += v[i] * f.yc[i]
	}
	f.q = append(f.q, v)
	f.ycbo = append(f.ycbo, yb)
}

// spans returns earth's minspan, endspan and startspan for a parent term
// of the given (new) degree.
func (f *marsFwd) spans(parent int, degree int) (minSpan, endSpan, startSpan int) {
	n := f.n
	endSpan = 1
	if f.o.EndSpan > 0 {
		endSpan = f.o.EndSpan
	} else {
		endSpan = int(7.32193 + math.Log(float64(f.p))/0.69315)
	}
	if degree >= 2 {
		endSpan += int(f.o.AdjustEndSpan*float64(endSpan) + .5)
	}
	if endSpan > n/2-1 {
		endSpan = n/2 - 1
	}
	endSpan = max(1, endSpan)
	if f.o.MinSpan > 0 {
		minSpan = f.o.MinSpan
	} else {
		nUsed := 0
		for _, v := range f.bx[parent] {
			if v > 0 {
				nUsed++
			}
		}
		minSpan = 1
		if nUsed > 0 { // log(0): a parent that is zero everywhere has no knots anyway
			minSpan = int((2.9702 + math.Log(float64(f.p*nUsed))) / 1.7329)
		}
	}
	minSpan = max(1, minSpan)
	nAvail := max(0, n-2*endSpan)
	startSpan = nAvail / 2
	if nAvail > minSpan {
		nDiv := nAvail / minSpan
		if nAvail == nDiv*minSpan {
			startSpan = minSpan / 2
		} else {
			startSpan = (nAvail - nDiv*minSpan) / 2
		}
	}
	startSpan = max(1, endSpan+startSpan)
	return minSpan, endSpan, startSpan
}

// newForm is earth's GetNewFormFlag: whether parent·x[pred] may still be
// new to the span (it is not when every used term already holds pred and
// the parent's other variables).
func (f *marsFwd) newForm(pred, parent, nSlots int) bool {
	isNew := true
	for i := 1; i < nSlots; i++ {
		if !f.used[i] {
			continue
		}
		isNew = false
		if f.dirs[i][pred] == 0 {
			return true
		}
		for j := 0; j < f.p; j++ {
			if j != pred && (f.dirs[i][j] != 0) != (f.dirs[parent][j] != 0) {
				return true
			}
		}
	}
	return isNew
}

type marsCand struct {
	delta          float64
	parent, pred   int
	knotPos        int // position in order[pred]; 0 with lin means linear
	lin, isNewForm bool
}

// findTerm searches every parent, predictor and knot for the term (pair)
// that most reduces the RSS, as earth's FindTerm without Fast MARS.
func (f *marsFwd) findTerm(maxLegal float64) marsCand {
	best := marsCand{knotPos: -1}
	nSlots := len(f.bx)
	for parent := 0; parent < nSlots; parent++ {
		if f.degree[parent] >= f.o.Degree {
			continue
		}
		minSpan, endSpan, startSpan := f.spans(parent, f.degree[parent]+1)
		for pred := 0; pred < f.p; pred++ {
			if f.dirs[parent][pred] != 0 {
				continue
			}
			isNew := f.newForm(pred, parent, nSlots)
			deltaLin := 0.0
			var qLin []float64
			var yLin float64
			if isNew {
				r, ss := f.linResidual(parent, pred)
				if ss <= marsMinBxSOS {
					isNew = false
				} else {
					if f.scratchV == nil {
						f.scratchV = make([]float64, f.n)
					}
					v := f.scratchV // the candidate is scored and forgotten
					s := 1 / math.Sqrt(ss)
					for i := range v {
						v[i] = r[i] * s
						yLin += v[i] * f.yc[i]
					}
					qLin = v
					deltaLin = yLin * yLin
				}
				if deltaLin > best.delta {
					best = marsCand{delta: deltaLin, parent: parent, pred: pred, knotPos: 0, lin: true}
				}
			}
			pos, d := f.findKnot(parent, pred, qLin, yLin, deltaLin, maxLegal, minSpan, endSpan, startSpan)
			if pos >= 0 && d > best.delta {
				best = marsCand{delta: d, parent: parent, pred: pred, knotPos: pos, isNewForm: isNew}
			}
		}
	}
	return best
}

// findKnot scans the knots of pred under parent from the top down (earth's
// FindKnot): the RSS reduction of adding the hinge max(0, x−t)·parent to
// the basis (plus the candidate linear term qLin when it is new) is
//
//	Δ = (h̃'y)² / h̃'h̃,  h̃ = h − Σ_k (q_k'h) q_k,
//
// with h'y, q_k'h and the centred h'h updated in O(basis) per knot.
// A knot counts only when the parent is positive just above it, the
// hinge is not almost in the span (h̃'h̃ / h'h > tol) and Δ < maxLegal.
func (f *marsFwd) findKnot(parent, pred int, qLin []float64, yLin, deltaLin, maxLegal float64,
	minSpan, endSpan, startSpan int) (int, float64) {
	basis := f.q
	ycbo := f.ycbo
	if qLin != nil {
		basis = append(basis[:len(basis):len(basis)], qLin)
		ycbo = append(ycbo[:len(ycbo):len(ycbo)], yLin)
	}
	newCol := len(f.bx) // slot the hinge would occupy
	if qLin != nil {
		newCol++
	}
	tol := 1e-5
	if newCol < 15 {
		tol = .01
	}
	m := len(basis)
	covSx := make([]float64, m)
	covCol := make([]float64, m)
	var covNew, ycboNew, ybx float64
	var bxSum, bxSqSum, bxxSum, bxSqxSum, st float64
	ord := f.order[pred]
	xs := f.x[pred]
	pcol := f.bx[parent]
	n := float64(f.n)
	iSpan := startSpan
	bestPos, bestDelta := -1, deltaLin
	// covCol[k] += xd·covSx[k] is deferred while covSx does not change
	// (the parent is zero at the case passed): pend holds the sum of xd.
	var pend float64
	for i := f.n - 2; i >= endSpan; i-- {
		ix0, ix1 := ord[i], ord[i+1]
		x0, x1 := xs[ix0], xs[ix1]
		b1 := pcol[ix1]
		xd := x1 - x0
		if b1 == 0 {
			pend += xd
		} else {
			for k, q := range basis {
				if pend != 0 {
					covCol[k] += pend * covSx[k]
				}
				covSx[k] += q[ix1] * b1
				covCol[k] += xd * covSx[k]
			}
			pend = 0
		}
		bxSum += b1
		bxSqSum += b1 * b1
		bxxSum += b1 * x1
		bxSqxSum += b1 * b1 * x1
		su := st
		st = bxxSum - bxSum*x0
		covNew += xd*(2*bxSqxSum-bxSqSum*(x0+x1)) + (su*su-st*st)/n
		ybx += f.yc[ix1] * b1
		ycboNew += xd * ybx
		if !(b1 > 0 && covNew > 0) {
			continue
		}
		iSpan--
		if iSpan != 0 {
			continue
		}
		iSpan = minSpan
		t1, t2 := ycboNew, covNew
		for k := 0; k < m; k++ {
			t1 -= ycbo[k] * covCol[k]
			t2 -= covCol[k] * covCol[k]
		}
		if !(t2/covNew > tol) {
			continue
		}
		d := deltaLin + t1*t1/t2
		if d > bestDelta && d < maxLegal {
			bestPos, bestDelta = i, d
		}
	}
	return bestPos, bestDelta
}

// forwardEnd runs earth's forward pass from the intercept-only model
// under the stopping rules of maxTerms and thresh, resuming where an
// earlier call left off, and returns how many slots the model keeps (a
// step rejected by the thresh rule is dropped, as earth marks it unused).
func (f *marsFwd) forwardEnd(maxTerms int, thresh float64) int {
	if !f.active || maxTerms < 3 {
		return 1
	}
	for s := 0; ; s++ {
		if s == len(f.steps) && !f.step() {
			return len(f.bx)
		}
		st := f.steps[s]
		if thresh != 0 && (st.rsqDelta < thresh || 1-st.gcv/f.gcvNull < marsMinGRSq) {
			return st.before
		}
		if st.rsq >= 1-thresh || st.after >= maxTerms-1 {
			return st.after
		}
	}
}

// step adds the best term pair and records it; false when no term
// improves the fit.
func (f *marsFwd) step() bool {
	if f.exhausted {
		return false
	}
	maxLegal := math.Min(1.01*f.rss, 10*f.rssDelta)
	c := f.findTerm(maxLegal)
	if c.knotPos < 0 {
		f.exhausted = true
		return false
	}
	before := len(f.bx)
	f.addTerm(c)
	f.rssDelta = c.delta
	f.nUsed++
	if c.knotPos > 0 && c.isNewForm {
		f.nUsed++
	}
	f.rss = math.Max(f.rss-f.rssDelta, 0)
	gcv := marsGCV(f.nUsed, f.n, f.rss, f.o.Penalty)
	old := f.rsq
	f.rsq = 1 - f.rss/f.rssNull
	f.steps = append(f.steps, marsStep{before: before, after: len(f.bx),
		rsqDelta: math.Max(f.rsq-old, 0), gcv: gcv, rsq: f.rsq})
	return true
}

// addTerm adds the chosen term pair in two slots, as earth does: a linear
// term uses one slot and leaves the other unused; a hinge pair whose
// linear part is already in the span keeps only the upper hinge.
func (f *marsFwd) addTerm(c marsCand) {
	pd := f.dirs[c.parent]
	pt := f.term[c.parent]
	deg := f.degree[c.parent] + 1
	pcol := f.bx[c.parent]
	xs := f.x[c.pred]
	knot := xs[f.order[c.pred][c.knotPos]]
	mk := func(dir int) ([]int, MARSTerm) {
		d := append([]int(nil), pd...)
		d[c.pred] = 1
		if dir == 0 {
			d[c.pred] = 2
		}
		t := append(append(MARSTerm(nil), pt...), MARSFactor{Var: c.pred, Knot: knot, Dir: dir})
		if dir == 0 {
			t[len(t)-1].Knot = 0
		}
		return d, t
	}
	up := make([]float64, f.n)
	lo := make([]float64, f.n)
	for i := range up {
		if c.lin {
			up[i] = pcol[i] * xs[i]
		} else {
			up[i] = pcol[i] * math.Max(0, xs[i]-knot)
			lo[i] = pcol[i] * math.Max(0, knot-xs[i])
		}
	}
	if c.lin {
		d, t := mk(0)
		f.addSlot(up, t, d, deg, true)
		f.addSlot(lo, nil, make([]int, f.p), marsMaxDegree+1, false)
		return
	}
	d, t := mk(1)
	f.addSlot(up, t, d, deg, true)
	d, t = mk(-1)
	if c.isNewForm {
		f.addSlot(lo, t, d, deg, true)
	} else {
		f.addSlot(lo, t, d, marsMaxDegree+1, false)
	}
}

// prune drops dependent columns, then eliminates terms backwards (the one
// whose removal raises the RSS least, β_j²/[(B'B)⁻¹]_jj, as earth's
// EvalSubsetsUsingXtx) and keeps the subset size with the smallest GCV.
// It considers the slots [0, end).
func (f *marsFwd) prune(y []float64, end int) (*MARSModel, error) {
	// Columns in slot order; a column (nearly) in the span of the earlier
	// ones is dropped, like R's dqrdc2 with tolerance 1e-8.
	var cols []int
	var basis [][]float64
	for s := 0; s < end; s++ {
		if !f.used[s] {
			continue
		}
		v := append([]float64(nil), f.bx[s]...)
		var ss0 float64
		for _, c := range v {
			ss0 += c * c
		}
		ss := project(v, basis)
		if ss0 == 0 || math.Sqrt(ss/ss0) < marsQRTol {
			continue
		}
		sc := 1 / math.Sqrt(ss)
		for i := range v {
			v[i] *= sc
		}
		basis = append(basis, v)
		cols = append(cols, s)
	}
	work := append([]int(nil), cols...)
	bestGCV, bestSet := math.Inf(1), []int(nil)
	nprune := len(cols)
	if f.o.NPrune > 0 && f.o.NPrune < nprune {
		nprune = f.o.NPrune
	}
	el, err := f.newMARSElim(work, y)
	if err != nil {
		return nil, err
	}
	for len(work) > 0 {
		beta, rss, diag := el.solve()
		if len(work) <= nprune {
			if g := marsGCV(len(work), f.n, rss, f.o.Penalty); g <= bestGCV {
				// which.min keeps the first minimum in size order 1, 2, ...;
				// we go downwards, so ties go to the smaller model.
				bestGCV, bestSet = g, append([]int(nil), work...)
			}
		}
		if len(work) == 1 {
			break
		}
		del, minD := -1, math.Inf(1)
		for k := 1; k < len(work); k++ {
			if d := beta[k] * beta[k] / diag[k]; d < minD {
				del, minD = k, d
			}
		}
		if del < 0 {
			del = len(work) - 1
		}
		work = append(work[:del], work[del+1:]...)
		el.drop(del)
	}
	// The chosen subset is refitted by QR from its columns; its RSS and
	// GCV are reported from that fit.
	beta, rss, _, err := f.regress(bestSet, y, false)
	if err != nil {
		return nil, err
	}
	m := &MARSModel{P: f.p, Intercept: beta[0], RSS: rss, GCV: marsGCV(len(bestSet), f.n, rss, f.o.Penalty)}
	for k, s := range bestSet[1:] {
		m.Terms = append(m.Terms, f.term[s])
		m.Coef = append(m.Coef, beta[k+1])
	}
	if !allFinite(m.Coef) || math.IsNaN(m.Intercept) || math.IsInf(m.Intercept, 0) {
		return nil, inputError("X, y", "the fit overflowed float64; rescale X and y")
	}
	return m, nil
}

// regress fits y on the slot columns cols (cols[0] is the intercept) by QR
// and returns β, the RSS and, when wantDiag, diag((B'B)⁻¹).
func (f *marsFwd) regress(cols []int, y []float64, wantDiag bool) ([]float64, float64, []float64, error) {
	m := len(cols)
	B := mat.NewDense(f.n, m, nil)
	for k, s := range cols {
		for i := 0; i < f.n; i++ {
			B.Set(i, k, f.bx[s][i])
		}
	}
	var qr mat.QR
	qr.Factorize(B)
	var b mat.Dense
	if err := qr.SolveTo(&b, false, mat.NewDense(f.n, 1, append([]float64(nil), y...))); err != nil {
		return nil, 0, nil, inputError("X", "MARS basis is singular: %v", err)
	}
	beta := make([]float64, m)
	for k := range beta {
		beta[k] = b.At(k, 0)
	}
	var rss float64
	for i := 0; i < f.n; i++ {
		r := y[i]
		for k, s := range cols {
			r -= beta[k] * f.bx[s][i]
		}
		rss += r * r
	}
	var diag []float64
	if wantDiag {
		var Rd mat.Dense
		qr.RTo(&Rd)
		R := mat.NewTriDense(m, mat.Upper, nil)
		for i := 0; i < m; i++ {
			for j := i; j < m; j++ {
				R.SetTri(i, j, Rd.At(i, j))
			}
		}
		var Ri mat.TriDense
		if err := Ri.InverseTri(R); err != nil {
			return nil, 0, nil, inputError("X", "MARS basis is singular: %v", err)
		}
		diag = make([]float64, m)
		for i := 0; i < m; i++ {
			for j := i; j < m; j++ {
				diag[i] += Ri.At(i, j) * Ri.At(i, j)
			}
		}
	}
	return beta, rss, diag, nil
}

// marsElim carries the backward elimination's least squares from one
// subset to the next: B = QR once for the starting columns (modified
// Gram-Schmidt on [B y]), then each dropped column is removed from R by
// Givens rotations, O(m²) instead of a new O(n·m²) factorization. z = Q'y
// rotates along; the component that leaves the span adds to the RSS.
type marsElim struct {
	r   [][]float64 // r[c]: column c of the upper-triangular R (len m)
	z   []float64
	rss float64
}

func (f *marsFwd) newMARSElim(cols []int, y []float64) (*marsElim, error) {
	m := len(cols)
	qs := make([][]float64, m)
	el := &marsElim{r: make([][]float64, m), z: make([]float64, m)}
	for a, s := range cols {
		v := append([]float64(nil), f.bx[s]...)
		rc := make([]float64, m)
		for b := 0; b < a; b++ {
			var d float64
			for i, q := range qs[b] {
				d += q * v[i]
			}
			rc[b] = d
			for i, q := range qs[b] {
				v[i] -= d * q
			}
		}
		var ss float64
		for _, c := range v {
			ss += c * c
		}
		if !(ss > 0) {
			return nil, inputError("X", "MARS basis is singular")
		}
		nrm := math.Sqrt(ss)
		rc[a] = nrm
		for i := range v {
			v[i] /= nrm
		}
		qs[a], el.r[a] = v, rc
	}
	res := append([]float64(nil), y...)
	for b := range qs {
		var d float64
		for i, q := range qs[b] {
			d += q * res[i]
		}
		el.z[b] = d
		for i, q := range qs[b] {
			res[i] -= d * q
		}
	}
	for _, c := range res {
		el.rss += c * c
	}
	return el, nil
}

// solve returns β (Rβ = z), the RSS and diag((B'B)⁻¹) = the squared row
// norms of R⁻¹.
func (el *marsElim) solve() ([]float64, float64, []float64) {
	m := len(el.z)
	beta := make([]float64, m)
	for i := m - 1; i >= 0; i-- {
		v := el.z[i]
		for j := i + 1; j < m; j++ {
			v -= el.r[j][i] * beta[j]
		}
		beta[i] = v / el.r[i][i]
	}
	// R⁻¹ column by column (upper triangular): R x = e_j.
	inv := make([][]float64, m) // inv[j]: column j of R⁻¹
	for j := 0; j < m; j++ {
		x := make([]float64, j+1)
		for i := j; i >= 0; i-- {
			v := 0.0
			if i == j {
				v = 1
			}
			for k := i + 1; k <= j; k++ {
				v -= el.r[k][i] * x[k]
			}
			x[i] = v / el.r[i][i]
		}
		inv[j] = x
	}
	diag := make([]float64, m)
	for j := 0; j < m; j++ {
		for i, v := range inv[j] {
			diag[i] += v * v
		}
	}
	return beta, el.rss, diag
}

// drop removes column k and restores R to upper-triangular form.
func (el *marsElim) drop(k int) {
	m := len(el.z)
	el.r = append(el.r[:k], el.r[k+1:]...)
	for j := k; j < m-1; j++ {
		a, b := el.r[j][j], el.r[j][j+1]
		h := math.Hypot(a, b)
		if h == 0 {
			continue
		}
		c, s := a/h, b/h
		for col := j; col < m-1; col++ {
			u, v := el.r[col][j], el.r[col][j+1]
			el.r[col][j], el.r[col][j+1] = c*u+s*v, -s*u+c*v
		}
		u, v := el.z[j], el.z[j+1]
		el.z[j], el.z[j+1] = c*u+s*v, -s*u+c*v
	}
	el.rss += el.z[m-1] * el.z[m-1]
	el.z = el.z[:m-1]
	for col := range el.r {
		el.r[col] = el.r[col][:m-1]
	}
}

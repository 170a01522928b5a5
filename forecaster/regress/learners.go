package regress

// CART is the Learner for FitTree (rpart-like regression trees). Its box
// is rpart's minsplit in [2, 400] and cp in [1e-6, 0.5] (log scale);
// defaults are rpart's (20, 0.01).
type CART struct{}

// Name implements Learner.
func (CART) Name() string { return "CART" }

// Params implements Learner.
func (CART) Params() []Param {
	return []Param{
		{Name: "minsplit", Lower: 2, Upper: 400, Integer: true, Default: 20},
		{Name: "cp", Lower: 1e-6, Upper: 0.5, Log: true, Default: 0.01},
	}
}

// Fit implements Learner.
func (l CART) Fit(X [][]float64, y []float64, params []float64) (Model, error) {
	if err := checkParams(l.Params(), params); err != nil {
		return nil, err
	}
	d, err := denseXY(X, y)
	if err != nil {
		return nil, err
	}
	return FitTree(d, y, TreeOptions{MinSplit: int(params[0]), CP: params[1]})
}

// M5 is the Learner for FitM5 (model trees). Its box is the smallest leaf
// in [2, 100] and the sd fraction below which a node is not split in
// [0.001, 0.5] (log scale); defaults 4 and 0.05 (M5's 4 is a node size in
// Witten & Frank's M5' and Weka's M5P, i.e. minleaf 2; see M5Options).
type M5 struct{}

// Name implements Learner.
func (M5) Name() string { return "M5" }

// Params implements Learner.
func (M5) Params() []Param {
	return []Param{
		{Name: "minleaf", Lower: 2, Upper: 100, Integer: true, Default: 4},
		{Name: "sdfraction", Lower: 0.001, Upper: 0.5, Log: true, Default: 0.05},
	}
}

// Fit implements Learner.
func (l M5) Fit(X [][]float64, y []float64, params []float64) (Model, error) {
	if err := checkParams(l.Params(), params); err != nil {
		return nil, err
	}
	d, err := denseXY(X, y)
	if err != nil {
		return nil, err
	}
	return FitM5(d, y, M5Options{MinLeaf: int(params[0]), SDFraction: params[1]})
}

// Learners returns the five learners of the toolbox in a fixed order:
// LRM, MARS, CART, M5, Cubist.
func Learners() []Learner { return []Learner{LRM{}, MARS{}, CART{}, M5{}, Cubist{}} }

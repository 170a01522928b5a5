package regress

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// Fold is one split of k-fold cross-validation: row indices to train on and
// to test on. Test sets of the folds are disjoint and cover every row.
type Fold struct {
	Train []int
	Test  []int
}

// KFold splits n rows into k folds after shuffling them with a PCG generator
// seeded by seed, so the same (n, k, seed) always gives the same folds. As in
// scikit-learn, the first n mod k folds hold one extra test row. 2 ≤ k ≤ n.
func KFold(n, k int, seed uint64) ([]Fold, error) {
	if k < 2 {
		return nil, inputError("k", "%d folds; need at least 2", k)
	}
	if n < k {
		return nil, inputError("n", "%d rows cannot be split into %d folds", n, k)
	}
	perm := rand.New(rand.NewPCG(seed, 0x5eed)).Perm(n)
	folds := make([]Fold, k)
	start := 0
	for f := 0; f < k; f++ {
		size := n / k
		if f < n%k {
			size++
		}
		test := append([]int(nil), perm[start:start+size]...)
		train := make([]int, 0, n-size)
		train = append(train, perm[:start]...)
		train = append(train, perm[start+size:]...)
		folds[f] = Fold{Train: train, Test: test}
		start += size
	}
	return folds, nil
}

// CVResult holds per-fold and mean errors of a cross-validation.
type CVResult struct {
	RMSE     []float64 `json:"rmse"`
	MAPE     []float64 `json:"mape"` // NaN for a fold whose test targets include a zero
	MeanRMSE float64   `json:"meanRmse"`
	MeanMAPE float64   `json:"meanMape"` // mean over folds with a defined MAPE; NaN when none
}

// CrossValidate trains tr on k−1 folds and scores the held-out fold, for each
// of the k folds of KFold(n, k, seed).
func CrossValidate(tr Trainer, X mat.Matrix, y []float64, k int, seed uint64) (*CVResult, error) {
	if tr == nil {
		return nil, inputError("trainer", "nil")
	}
	if err := CheckXY(X, y); err != nil {
		return nil, err
	}
	n, p := X.Dims()
	folds, err := KFold(n, k, seed)
	if err != nil {
		return nil, err
	}
	res := &CVResult{}
	var mapeSum float64
	var mapeN int
	for f, fold := range folds {
		Xtr, ytr := rows(X, y, fold.Train, p)
		Xte, yte := rows(X, y, fold.Test, p)
		m, err := tr.Train(Xtr, ytr)
		if err != nil {
			return nil, fmt.Errorf("fold %d of %d: %w", f+1, k, err)
		}
		pred := PredictAll(m, Xte)
		rmse, err := RMSE(yte, pred)
		if err != nil {
			return nil, fmt.Errorf("fold %d of %d: %w", f+1, k, err)
		}
		res.RMSE = append(res.RMSE, rmse)
		res.MeanRMSE += rmse / float64(k)
		mape, err := MAPE(yte, pred)
		if err != nil {
			mape = math.NaN()
		} else {
			mapeSum += mape
			mapeN++
		}
		res.MAPE = append(res.MAPE, mape)
	}
	res.MeanMAPE = math.NaN()
	if mapeN > 0 {
		res.MeanMAPE = mapeSum / float64(mapeN)
	}
	return res, nil
}

// rows copies the rows idx of X and y.
func rows(X mat.Matrix, y []float64, idx []int, p int) (*mat.Dense, []float64) {
	out := mat.NewDense(len(idx), p, nil)
	yy := make([]float64, len(idx))
	for r, i := range idx {
		for j := 0; j < p; j++ {
			out.Set(r, j, X.At(i, j))
		}
		yy[r] = y[i]
	}
	return out, yy
}

package regress

import (
	"math/rand/v2"
	"testing"
)

// A search session must give exactly the models of the learner's Fit on the
// same rows, whatever the order of the parameter points (sessions extend
// MARS's forward pass and Cubist's committee chain on demand, and memoize
// M5's nodes and CART's unpruned trees). Predictions are compared bit for
// bit on held-out rows, over the box's corners, the defaults and random
// points, visited in a shuffled order with repeats.
func TestSessionMatchesFit(t *testing.T) {
	X, y := workloadData(260, 7)
	Xtr, ytr, Xte := X[:200], y[:200], X[200:]
	rng := rand.New(rand.NewPCG(3, 4))
	for _, l := range Learners() {
		box := l.Params()
		points := [][]float64{Defaults(l)}
		lo, hi := make([]float64, len(box)), make([]float64, len(box))
		for i, p := range box {
			lo[i], hi[i] = snap(p, p.Lower), snap(p, p.Upper)
		}
		points = append(points, lo, hi)
		for k := 0; k < 12; k++ {
			v := make([]float64, len(box))
			for i, p := range box {
				v[i] = snap(p, p.Lower+rng.Float64()*(p.Upper-p.Lower))
			}
			points = append(points, v)
		}
		rng.Shuffle(len(points), func(a, b int) { points[a], points[b] = points[b], points[a] })
		points = append(points, points[:4]...) // repeats hit the memos
		s := newFitSession(l, Xtr, ytr)
		if _, ok := s.(*lockedSession); !ok && l.Name() != "LRM" { // LRM has two points: nothing to share
			t.Errorf("%s: no search session", l.Name())
		}
		for _, v := range points {
			want, err := l.Fit(Xtr, ytr, v)
			if err != nil {
				t.Fatalf("%s %v: %v", l.Name(), v, err)
			}
			got, err := s.Fit(v)
			if err != nil {
				t.Fatalf("%s %v: session: %v", l.Name(), v, err)
			}
			for i, x := range Xte {
				if g, w := got.Predict(x), want.Predict(x); g != w {
					t.Fatalf("%s %v row %d: session predicts %v, Fit %v", l.Name(), v, i, g, w)
				}
			}
		}
		if _, err := s.Fit(make([]float64, len(box)+1)); err == nil {
			t.Errorf("%s: session accepted a parameter vector of the wrong length", l.Name())
		}
	}
}

package regress

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// learnerArgs are the argument names a Learner's input errors may carry.
var learnerArgs = []string{"X", "y", "params", "Committees", "Neighbors", "MinLeaf", "MaxTerms", "Degree", "Thresh", "degree"}

// fuzzLearner fits l on a decoded problem with parameters a, b, c (cycled
// over the box, so they may fall outside it) and predicts: an error must
// wrap ErrInput and name an argument; nothing may panic; a sample of the
// wrong length predicts NaN.
func fuzzLearner(t *testing.T, l Learner, data []byte, n, p uint8, a, b, c float64) {
	Xd, y, ok := fuzzProblem(data, n, p)
	if !ok {
		return
	}
	rows, cols := Xd.Dims()
	X := make([][]float64, rows)
	for i := range X {
		X[i] = Xd.RawRowView(i)
	}
	if n%7 == 6 && cols > 1 { // a ragged last row
		X[rows-1] = X[rows-1][:cols-1]
	}
	params := Defaults(l)
	abc := []float64{a, b, c}
	for i := range params {
		if v := abc[i%3]; v != 0 { // zero keeps the default
			params[i] = v
		}
	}
	m, err := l.Fit(X, y, params)
	if err != nil {
		if !errors.Is(err, ErrInput) {
			t.Fatalf("error does not wrap ErrInput: %v", err)
		}
		named := false
		for _, arg := range learnerArgs {
			named = named || strings.Contains(err.Error(), ": "+arg)
		}
		if !named {
			t.Fatalf("error names no argument: %v", err)
		}
		return
	}
	for _, x := range X {
		m.Predict(x)
	}
	if v := m.Predict(make([]float64, cols+1)); !math.IsNaN(v) {
		t.Fatalf("prediction for %d features from a %d-feature model: %v, want NaN", cols+1, cols, v)
	}
}

func learnerSeeds(f *testing.F, a, b, c float64) {
	b0 := make([]byte, 0, 8*100)
	for i := 0; i < 100; i++ {
		b0 = append(b0, byte(i*37), byte(i), 0, 0, 0, 0, 0xf0, 0x3f) // values near 1..2
	}
	f.Add(b0, uint8(11), uint8(2), a, b, c)
	f.Add(b0, uint8(0), uint8(0), a, b, c) // one row, one column
	f.Add(b0, uint8(11), uint8(2), -1.0, math.NaN(), 1e308)
	nan := append([]byte(nil), b0...)
	copy(nan[16:], []byte{0, 0, 0, 0, 0, 0, 0xf8, 0x7f}) // a NaN in X
	f.Add(nan, uint8(5), uint8(2), a, b, c)
	huge := append([]byte(nil), b0...)
	copy(huge[8:], []byte{0, 0, 0, 0, 0, 0, 0xe0, 0x7f}) // 2^1023
	f.Add(huge, uint8(6), uint8(2), a, b, c)
	f.Add(b0, uint8(6), uint8(3), a, b, c) // ragged: n%7 == 6
}

func FuzzLRMFit(f *testing.F) {
	learnerSeeds(f, 2, 0, 0)
	f.Fuzz(func(t *testing.T, data []byte, n, p uint8, a, b, c float64) {
		fuzzLearner(t, LRM{}, data, n, p, a, b, c)
	})
}

func FuzzMARSFit(f *testing.F) {
	learnerSeeds(f, 11, 0.001, 2)
	f.Fuzz(func(t *testing.T, data []byte, n, p uint8, a, b, c float64) {
		fuzzLearner(t, MARS{}, data, n, p, a, b, c)
	})
}

func FuzzCubistFit(f *testing.F) {
	learnerSeeds(f, 3, 2, 2)
	f.Fuzz(func(t *testing.T, data []byte, n, p uint8, a, b, c float64) {
		fuzzLearner(t, Cubist{}, data, n, p, a, b, c)
	})
}

func FuzzCARTFit(f *testing.F) {
	learnerSeeds(f, 4, 0.01, 0)
	f.Fuzz(func(t *testing.T, data []byte, n, p uint8, a, b, c float64) {
		fuzzLearner(t, CART{}, data, n, p, a, b, c)
	})
}

func FuzzM5Fit(f *testing.F) {
	learnerSeeds(f, 2, 0.05, 0)
	f.Fuzz(func(t *testing.T, data []byte, n, p uint8, a, b, c float64) {
		fuzzLearner(t, M5{}, data, n, p, a, b, c)
	})
}

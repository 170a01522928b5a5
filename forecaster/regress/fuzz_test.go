package regress

import (
	"encoding/binary"
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// fuzzProblem decodes fuzz bytes into an n×p matrix and a target of length n
// (values may be NaN, Inf or huge: the fits must reject or survive them).
func fuzzProblem(data []byte, n, p uint8) (*mat.Dense, []float64, bool) {
	rows, cols := int(n%12)+1, int(p%6)+1
	need := (rows*cols + rows) * 8
	if len(data) < need {
		return nil, nil, false
	}
	v := make([]float64, rows*cols+rows)
	for i := range v {
		v[i] = math.Float64frombits(binary.LittleEndian.Uint64(data[i*8:]))
	}
	return mat.NewDense(rows, cols, v[:rows*cols]), v[rows*cols:], true
}

func seedCorpus(f *testing.F) {
	b := make([]byte, 0, 8*100)
	for i := 0; i < 100; i++ {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(float64(i%7)-3.5+float64(i)/13))
	}
	f.Add(b, uint8(10), uint8(3), 0.5)
	f.Add(b, uint8(2), uint8(5), 0.0)
	nan := append([]byte(nil), b...)
	binary.LittleEndian.PutUint64(nan[16:], math.Float64bits(math.NaN()))
	f.Add(nan, uint8(5), uint8(2), 1.0)
	huge := append([]byte(nil), b...)
	binary.LittleEndian.PutUint64(huge[8:], math.Float64bits(1e300))
	f.Add(huge, uint8(6), uint8(2), 1e-300)
}

// finiteOrErr fails unless err != nil, or every coefficient is finite.
func finiteOrErr(t *testing.T, m *LinearModel, err error) {
	t.Helper()
	if err != nil {
		if !errors.Is(err, ErrInput) && !errors.Is(err, ErrNotConverged) {
			t.Fatalf("error does not wrap ErrInput or ErrNotConverged: %v", err)
		}
		return
	}
	for _, v := range append([]float64{m.Intercept}, m.Coef...) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("non-finite coefficient with nil error: %v", m)
		}
	}
}

func FuzzRidge(f *testing.F) {
	seedCorpus(f)
	f.Fuzz(func(t *testing.T, data []byte, n, p uint8, alpha float64) {
		X, y, ok := fuzzProblem(data, n, p)
		if !ok {
			return
		}
		m, err := FitRidge(X, y, alpha)
		finiteOrErr(t, m, err)
	})
}

func FuzzLasso(f *testing.F) {
	seedCorpus(f)
	f.Fuzz(func(t *testing.T, data []byte, n, p uint8, alpha float64) {
		X, y, ok := fuzzProblem(data, n, p)
		if !ok {
			return
		}
		m, err := ElasticNet{Alpha: alpha, L1Ratio: 1, MaxIter: 200}.Fit(X, y)
		finiteOrErr(t, m, err)
	})
}

func FuzzElasticNetPath(f *testing.F) {
	seedCorpus(f)
	f.Fuzz(func(t *testing.T, data []byte, n, p uint8, l1 float64) {
		X, y, ok := fuzzProblem(data, n, p)
		if !ok {
			return
		}
		path, err := ElasticNetPath(X, y, PathOptions{L1Ratio: l1, NAlphas: 5, MaxIter: 200})
		if err != nil {
			finiteOrErr(t, nil, err)
			return
		}
		for _, m := range path.Models {
			finiteOrErr(t, m, nil)
		}
	})
}

func FuzzNNLS(f *testing.F) {
	seedCorpus(f)
	f.Fuzz(func(t *testing.T, data []byte, n, p uint8, _ float64) {
		A, b, ok := fuzzProblem(data, n, p)
		if !ok {
			return
		}
		x, err := NNLS(A, b)
		if err != nil {
			return // any error is fine; a panic is not
		}
		for _, v := range x {
			if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("NNLS returned %v", x)
			}
		}
	})
}

func FuzzStandardizer(f *testing.F) {
	seedCorpus(f)
	f.Fuzz(func(t *testing.T, data []byte, n, p uint8, _ float64) {
		X, _, ok := fuzzProblem(data, n, p)
		if !ok {
			return
		}
		s, err := FitStandardizer(X)
		if err != nil {
			return
		}
		for j := range s.Scale {
			if !(s.Scale[j] > 0) || math.IsNaN(s.Mean[j]) {
				t.Fatalf("column %d: mean %v scale %v", j, s.Mean[j], s.Scale[j])
			}
		}
	})
}

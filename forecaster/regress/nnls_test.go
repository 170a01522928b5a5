package regress

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// bruteNNLS enumerates every passive set S, solves least squares on the
// columns in S and keeps the best solution that is non-negative: the
// optimum of a small NNLS problem by exhaustion.
func bruteNNLS(A *mat.Dense, b []float64) ([]float64, float64) {
	m, n := A.Dims()
	best := make([]float64, n)
	bestR := norm2(b)
	for mask := 1; mask < 1<<n; mask++ {
		var idx []int
		for j := 0; j < n; j++ {
			if mask&(1<<j) != 0 {
				idx = append(idx, j)
			}
		}
		sub := mat.NewDense(m, len(idx), nil)
		for c, j := range idx {
			for i := 0; i < m; i++ {
				sub.Set(i, c, A.At(i, j))
			}
		}
		var sol mat.Dense
		if err := sol.Solve(sub, mat.NewVecDense(m, b)); err != nil {
			continue
		}
		x := make([]float64, n)
		ok := true
		for c, j := range idx {
			x[j] = sol.At(c, 0)
			if x[j] < 0 {
				ok = false
			}
		}
		if !ok {
			continue
		}
		if r := residual(A, x, b); r < bestR {
			best, bestR = x, r
		}
	}
	return best, bestR
}

func norm2(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x * x
	}
	return math.Sqrt(s)
}

func residual(A *mat.Dense, x, b []float64) float64 {
	var ax mat.VecDense
	ax.MulVec(A, mat.NewVecDense(len(x), x))
	r := make([]float64, len(b))
	for i := range b {
		r[i] = b[i] - ax.AtVec(i)
	}
	return norm2(r)
}

func randProblem(rng *rand.Rand, m, n int) (*mat.Dense, []float64) {
	A := mat.NewDense(m, n, nil)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			A.Set(i, j, rng.NormFloat64())
		}
	}
	b := make([]float64, m)
	for i := range b {
		b[i] = rng.NormFloat64()
	}
	return A, b
}

func TestNNLSMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 0))
	for trial := 0; trial < 200; trial++ {
		m := 3 + rng.IntN(8)
		n := 1 + rng.IntN(7)
		A, b := randProblem(rng, m, n)
		x, err := NNLS(A, b)
		if err != nil {
			t.Fatalf("trial %d (%d×%d): %v", trial, m, n, err)
		}
		want, wantR := bruteNNLS(A, b)
		got := residual(A, x, b)
		if got > wantR*(1+1e-9)+1e-12 {
			t.Errorf("trial %d (%d×%d): residual %.12g, brute force %.12g", trial, m, n, got, wantR)
		}
		for j := range x {
			if x[j] < 0 {
				t.Errorf("trial %d: x[%d] = %g < 0", trial, j, x[j])
			}
			// Full column rank (m ≥ n, Gaussian) makes the optimum unique.
			if m >= n && math.Abs(x[j]-want[j]) > 1e-8*math.Max(1, math.Abs(want[j])) {
				t.Errorf("trial %d (%d×%d): x[%d] = %.12g, brute force %.12g", trial, m, n, j, x[j], want[j])
			}
		}
	}
}

func TestNNLSKKTAndExactRecovery(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 0))
	// Kriging-sized square problems: check the KKT conditions.
	for trial := 0; trial < 20; trial++ {
		A, b := randProblem(rng, 40, 40)
		x, err := NNLS(A, b)
		if err != nil {
			t.Fatal(err)
		}
		var r, w mat.VecDense
		r.MulVec(A, mat.NewVecDense(40, x))
		r.SubVec(mat.NewVecDense(40, b), &r)
		w.MulVec(A.T(), &r)
		for j := 0; j < 40; j++ {
			if x[j] < 0 || w.AtVec(j) > 1e-9 || (x[j] > 0 && math.Abs(w.AtVec(j)) > 1e-9) {
				t.Errorf("trial %d: KKT violated at %d: x=%g w=%g", trial, j, x[j], w.AtVec(j))
			}
		}
	}
	// b = A x* with x* ≥ 0 (some zeros): recovered exactly.
	A, _ := randProblem(rng, 30, 10)
	xs := []float64{0, 1, 2, 0, 0.5, 3, 0, 0, 7, 0.1}
	var b mat.VecDense
	b.MulVec(A, mat.NewVecDense(10, xs))
	x, err := NNLS(A, b.RawVector().Data)
	if err != nil {
		t.Fatal(err)
	}
	for j := range xs {
		if math.Abs(x[j]-xs[j]) > 1e-10 {
			t.Errorf("x[%d] = %.12g, truth %g", j, x[j], xs[j])
		}
	}
	// b in the negative cone: the answer is 0.
	I := mat.NewDense(2, 2, []float64{1, 0, 0, 1})
	x, _ = NNLS(I, []float64{-1, -2})
	if x[0] != 0 || x[1] != 0 {
		t.Errorf("negative b: x = %v, want 0", x)
	}
}

// NNLSGram validates G and c as NNLS validates A and b: a NaN in c made
// the tolerance NaN and returned w = 0 with no error; a nil G panicked.
func TestNNLSGramBadInput(t *testing.T) {
	one := mat.NewDense(1, 1, []float64{1})
	for _, c := range []struct {
		name string
		G    *mat.Dense
		c    []float64
		want string
	}{
		{"nil G", nil, []float64{1}, "G: nil matrix"},
		{"NaN in c", one, []float64{math.NaN()}, "c: element 0 is NaN"},
		{"Inf in c", one, []float64{math.Inf(1)}, "c: element 0 is +Inf"},
		{"NaN in G", mat.NewDense(2, 2, []float64{1, 0, math.NaN(), 1}), []float64{1, 1}, "G: row 1 holds a NaN or ±Inf"},
		{"shape", one, []float64{1, 2}, "G: 1×1 does not match c of length 2"},
	} {
		_, err := NNLSGram(c.G, c.c)
		if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want ErrInput containing %q", c.name, err, c.want)
		}
	}
}

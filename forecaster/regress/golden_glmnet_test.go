package regress

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestGoldenGlmnet compares Lasso and Elastic Net fits with R's glmnet
// (testdata/glmnet/gen.R → glmnet.txt): glmnet's lambda and alpha are our
// Alpha and L1Ratio. Both sides run to tolerance ~1e-14; agreement within
// 1e-6 of the largest coefficient.
func TestGoldenGlmnet(t *testing.T) {
	f, err := os.Open("testdata/glmnet/glmnet.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	nums := func(fields []string) []float64 {
		out := make([]float64, len(fields))
		for i, s := range fields {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatalf("parse %q: %v", s, err)
			}
			out[i] = v
		}
		return out
	}
	sc.Scan()
	dims := nums(strings.Fields(sc.Text()))
	n, p := int(dims[0]), int(dims[1])
	X := mat.NewDense(n, p, nil)
	for i := 0; i < n; i++ {
		sc.Scan()
		X.SetRow(i, nums(strings.Fields(sc.Text())))
	}
	sc.Scan()
	y := nums(strings.Fields(sc.Text()))
	fits := 0
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 || fields[0] != "fit" {
			continue
		}
		v := nums(fields[1:])
		l1, lambda, intercept, coef := v[0], v[1], v[2], v[3:]
		m, err := ElasticNet{Alpha: lambda, L1Ratio: l1, Tol: 1e-14, MaxIter: 1_000_000}.Fit(X, y)
		if err != nil {
			t.Fatalf("alpha=%g l1=%g: %v", lambda, l1, err)
		}
		what := "glmnet l1=" + strconv.FormatFloat(l1, 'g', -1, 64) + " lambda=" + strconv.FormatFloat(lambda, 'g', -1, 64)
		closeVec(t, what+" coef", m.Coef, coef, cdTol)
		closeScalar(t, what+" intercept", m.Intercept, intercept, 1, cdTol)
		fits++
	}
	if fits != 9 {
		t.Fatalf("%d fits in the golden file, want 9", fits)
	}
}

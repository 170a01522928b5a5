package regress

import (
	"bufio"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

type lmGolden struct {
	degree int
	names  []string  // "(Intercept)", then LRMTerms order
	coef   []float64 // intercept first
	fitted []float64
}

func readLM(t *testing.T, path string) lmGolden {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var g lmGolden
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		fs := strings.Fields(line)
		switch fs[0] {
		case "#":
		case "degree":
			g.degree, err = strconv.Atoi(fs[1])
		case "coef":
			var v float64
			v, err = strconv.ParseFloat(fs[2], 64)
			g.names, g.coef = append(g.names, fs[1]), append(g.coef, v)
		case "fitted":
			var v float64
			v, err = strconv.ParseFloat(fs[1], 64)
			g.fitted = append(g.fitted, v)
		default:
			t.Fatalf("%s: unknown line %q", path, line)
		}
		if err != nil {
			t.Fatalf("%s: %q: %v", path, line, err)
		}
	}
	return g
}

func csvHeader(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan()
	return strings.Split(sc.Text(), ",")
}

// TestLRMMatchesLm compares FitLRM with base R's lm() (testdata/lm/gen_lm.R,
// R 4.2.2 from Debian) at degree 1 (y ~ .) and degree 2 (y ~ .^2: every
// x_j·x_k, j < k, and no squares, LRM's design) on two committed data sets:
// the Friedman #1 sample and the workload windows (mixed scales, 0/1
// features, the learner's real input).
//
// Tolerance 1e-8, relative: fitted values within 1e-8·sd(y), and each
// coefficient times its term's sd within 1e-8·sd(y) (the standardized
// scale; raw coefficients span many magnitudes), the intercept within
// 1e-8·(sd(y) + Σ_t |c_t|·|mean_t|). Both sides solve the same
// well-posed least squares (kappa of the standardized designs ≤ 22, no
// aliased term in lm), lm by QR and LRM by Cholesky on standardized
// columns, so they agree to rounding (2e-13 at most seen). LRM's 1e-8·n
// ridge is only a fallback for a singular or ill-conditioned Gram matrix
// and is not taken here; had it been, it would have moved the fitted values
// by 2.2e-8·sd(y) (degree 1) to 4.2e-7·sd(y) (degree 2), as R computes with
// the same ridge on these designs, so 1e-8 separates the two.
func TestLRMMatchesLm(t *testing.T) {
	for _, c := range []struct{ data, name string }{
		{"testdata/trees/data-friedman1.csv", "friedman1"},
		{"testdata/workload/workload.csv", "workload"},
	} {
		X, y := readCSV(t, c.data)
		header := csvHeader(t, c.data)
		n, p := X.Dims()
		for _, degree := range []int{1, 2} {
			file := "testdata/lm/lm-" + c.name + "-deg" + strconv.Itoa(degree) + ".txt"
			t.Run(file, func(t *testing.T) {
				g := readLM(t, file)
				terms := LRMTerms(p, degree)
				if g.degree != degree || len(g.coef) != len(terms)+1 || len(g.fitted) != n {
					t.Fatalf("golden has degree %d, %d coefficients, %d fitted values; want %d, %d, %d",
						g.degree, len(g.coef), len(g.fitted), degree, len(terms)+1, n)
				}
				for k, tm := range terms {
					want := header[tm[0]]
					if tm[1] >= 0 {
						want += ":" + header[tm[1]]
					}
					if g.names[k+1] != want {
						t.Fatalf("golden term %d is %s, LRMTerms has %s", k, g.names[k+1], want)
					}
				}
				m, err := FitLRM(X, y, degree)
				if err != nil {
					t.Fatal(err)
				}
				_, sdY := meanSD(y)
				const tol = 1e-8
				var worst float64
				for i := 0; i < n; i++ {
					d := math.Abs(m.Predict(X.RawRowView(i))-g.fitted[i]) / sdY
					worst = math.Max(worst, d)
					if d > tol {
						t.Fatalf("fitted value %d: %.15g, lm %.15g", i, m.Predict(X.RawRowView(i)), g.fitted[i])
					}
				}
				// Each term's column, for its mean and sd.
				col := make([]float64, n)
				interceptScale := sdY
				for k, tm := range terms {
					for i := 0; i < n; i++ {
						col[i] = X.At(i, tm[0])
						if tm[1] >= 0 {
							col[i] *= X.At(i, tm[1])
						}
					}
					mean, sd := meanSD(col)
					interceptScale += math.Abs(g.coef[k+1] * mean)
					d := math.Abs(m.Coef[k]-g.coef[k+1]) * sd / sdY
					worst = math.Max(worst, d)
					if d > tol {
						t.Errorf("coefficient of %s: %.15g, lm %.15g", g.names[k+1], m.Coef[k], g.coef[k+1])
					}
				}
				if d := math.Abs(m.Intercept - g.coef[0]); d > tol*interceptScale {
					t.Errorf("intercept %.15g, lm %.15g", m.Intercept, g.coef[0])
				}
				t.Logf("largest relative difference %.2g", worst)
			})
		}
	}
}

// meanSD returns the mean and population standard deviation of v.
func meanSD(v []float64) (mean, sd float64) {
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	for _, x := range v {
		sd += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(sd / float64(len(v)))
}

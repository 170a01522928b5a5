package kriging_test

import (
	"fmt"

	"github.com/storcast/storcast/forecaster/kriging"
	"gonum.org/v1/gonum/mat"
)

// Ordinary Kriging reproduces its samples and interpolates between them;
// the band is zero at a sample and opens up between samples.
func ExampleFit() {
	X := mat.NewDense(5, 1, []float64{0, 1, 2, 3, 4})
	f := []float64{1, 2, 5, 10, 17} // 1 + x²
	m, err := kriging.Fit(X, f, kriging.Options{Method: kriging.Ordinary})
	if err != nil {
		fmt.Println(err)
		return
	}
	at2, _ := m.Estimate([]float64{2})
	mid, _ := m.Estimate([]float64{2.5})
	fmt.Printf("at x=2:   %.3f ± %.3f\n", at2.Mean, at2.Upper-at2.Mean)
	fmt.Printf("at x=2.5: %.2f (band > 0: %v)\n", mid.Mean, mid.Upper > mid.Mean)
	// Output:
	// at x=2:   5.000 ± 0.000
	// at x=2.5: 7.50 (band > 0: true)
}

// The linear drift carries an exactly linear target beyond the data.
func ExampleFit_drift() {
	X := mat.NewDense(4, 1, []float64{0, 1, 2, 3})
	f := []float64{2, 4, 6, 8} // 2 + 2x
	m, err := kriging.Fit(X, f, kriging.Options{Method: kriging.Ordinary, Drift: kriging.LinearDrift})
	if err != nil {
		fmt.Println(err)
		return
	}
	p, _ := m.Estimate([]float64{10})
	fmt.Printf("at x=10: %.1f\n", p.Mean)
	// Output:
	// at x=10: 22.0
}

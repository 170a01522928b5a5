package regress_test

import (
	"fmt"

	"github.com/storcast/storcast/forecaster/regress"
	"gonum.org/v1/gonum/mat"
)

func ExampleFitM5() {
	// Throughput that grows with x0 below a knob value x1 < 0.5 and falls
	// with x0 above it: two linear regimes.
	var data, y []float64
	for i := 0; i < 40; i++ {
		x0, x1 := float64(i%10)/10, float64(i/10)/4
		data = append(data, x0, x1)
		if x1 < 0.5 {
			y = append(y, 1+2*x0)
		} else {
			y = append(y, 5-3*x0)
		}
	}
	tree, err := regress.FitM5(mat.NewDense(40, 2, data), y, regress.M5Options{})
	if err != nil {
		panic(err)
	}
	root := tree.Nodes[0]
	fmt.Printf("split x%d < %.3f, %d leaves\n", root.Feature, root.Threshold, tree.NumLeaves())
	for _, leaf := range []int{root.Left, root.Right} {
		m := tree.Nodes[leaf].Model
		fmt.Printf("leaf: %.1f %+.1f·x%d\n", m.Intercept, m.Coef[0], m.Features[0])
	}
	fmt.Printf("predict(0.5, 0.9) = %.2f\n", tree.Predict([]float64{0.5, 0.9}))
	// Output:
	// split x1 < 0.375, 2 leaves
	// leaf: 1.0 +2.0·x0
	// leaf: 5.0 -3.0·x0
	// predict(0.5, 0.9) = 3.50
}

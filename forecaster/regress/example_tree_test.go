package regress_test

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/storcast/storcast/forecaster/regress"
)

// A tree learns a latency that jumps once load passes 800 IOPS.
func ExampleFitTree() {
	iops := []float64{100, 200, 300, 400, 500, 600, 700, 800, 900, 1000, 1100, 1200}
	latencyMs := []float64{2, 2, 2, 2, 2, 2, 2, 2, 9, 9, 9, 9}
	X := mat.NewDense(len(iops), 1, iops)
	tree, err := regress.FitTree(X, latencyMs, regress.TreeOptions{MinSplit: 2})
	if err != nil {
		panic(err)
	}
	root := tree.Nodes[0]
	fmt.Printf("split at %.0f IOPS, %d leaves\n", root.Threshold, tree.NumLeaves())
	fmt.Printf("latency at 650 IOPS: %.0f ms, at 1150 IOPS: %.0f ms\n", tree.Predict([]float64{650}), tree.Predict([]float64{1150}))
	// Output:
	// split at 850 IOPS, 2 leaves
	// latency at 650 IOPS: 2 ms, at 1150 IOPS: 9 ms
}

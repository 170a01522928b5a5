package regress_test

import (
	"fmt"
	"math"

	"github.com/storcast/storcast/forecaster/regress"
	"gonum.org/v1/gonum/mat"
)

// MARS recovers a hinge: y = 1 + 3·max(0, x − 0.5) on a grid.
func ExampleFitMARS() {
	n := 101
	X := mat.NewDense(n, 1, nil)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		x := float64(i) / 100
		X.Set(i, 0, x)
		y[i] = 1 + 3*math.Max(0, x-0.5)
	}
	o := regress.DefaultMARSOptions(1, 1)
	o.MinSpan, o.EndSpan = 1, 1
	m, err := regress.FitMARS(X, y, o)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("intercept %.3f\n", m.Intercept)
	for k, t := range m.Terms {
		fmt.Printf("%+.3f %s\n", m.Coef[k], t)
	}
	fmt.Printf("f(0.8) = %.3f\n", m.Predict([]float64{0.8}))
	// Output:
	// intercept 1.000
	// +3.000 h(x1-0.5)
	// f(0.8) = 1.900
}

// Cubist's rules of a piecewise-linear truth, and the committee average.
func ExampleFitCubist() {
	n := 200
	X := mat.NewDense(n, 2, nil)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		a, b := float64(i%20)/20, float64(i/20)/10
		X.SetRow(i, []float64{a, b})
		if a < 0.5 {
			y[i] = 1 + 2*b
		} else {
			y[i] = 5 - b
		}
	}
	m, err := regress.FitCubist(X, y, regress.CubistOptions{Committees: 3})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range m.Committees[0] {
		c := r.Conds[0]
		op := ">="
		if c.Less {
			op = "<"
		}
		fmt.Printf("if x%d %s %.3f then y = %.3f %+.3f·x%d\n", c.Var+1, op, c.Value,
			r.Model.Intercept, r.Model.Coef[0], r.Model.Features[0]+1)
	}
	fmt.Printf("f(0.2, 0.5) = %.3f, f(0.9, 0.5) = %.3f\n", m.Predict([]float64{0.2, 0.5}), m.Predict([]float64{0.9, 0.5}))
	// Output:
	// if x1 < 0.475 then y = 1.000 +2.000·x2
	// if x1 >= 0.475 then y = 5.000 -1.000·x2
	// f(0.2, 0.5) = 2.000, f(0.9, 0.5) = 4.500
}

// Algorithm 1 on a bowl with its minimum at (1.3, −2.7).
func ExampleOptimize() {
	box := []regress.Param{{Name: "a", Lower: -5, Upper: 5}, {Name: "b", Lower: -5, Upper: 5}}
	bowl := func(p []float64) (float64, error) {
		return (p[0]-1.3)*(p[0]-1.3) + (p[1]+2.7)*(p[1]+2.7), nil
	}
	res, err := regress.Optimize(box, bowl, regress.SearchOptions{MaxRounds: 20, Epsilon: -1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("a = %.3f, b = %.3f after %d rounds\n", res.Best.Params[0], res.Best.Params[1], res.Rounds)
	// Output:
	// a = 1.300, b = -2.700 after 20 rounds
}

// Search tunes CART's minsplit and cp by 10-fold cross-validation.
func ExampleSearch() {
	var X [][]float64
	var y []float64
	for i := 0; i < 200; i++ {
		x := float64(i) / 200
		X = append(X, []float64{x})
		y = append(y, math.Floor(4*x)+0.1*math.Sin(float64(i))) // four steps and a wiggle
	}
	res, err := regress.Search(regress.CART{}, X, y, regress.SearchOptions{Splits: 2, Explore: 2, MaxRounds: 3, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("default CV RMSE %.3f, optimized %.3f\n", res.DefaultScore, res.Best.Score)
	fmt.Println("optimized is no worse:", res.Best.Score <= res.DefaultScore)
	// Output:
	// default CV RMSE 0.128, optimized 0.120
	// optimized is no worse: true
}

package regress

import "gonum.org/v1/gonum/mat"

// Model is a fitted regression model.
type Model interface {
	// Predict returns the prediction for one sample x of length p.
	Predict(x []float64) float64
}

// Trainer fits a Model to X (n×p) and y (length n).
type Trainer interface {
	Train(X mat.Matrix, y []float64) (Model, error)
}

// TrainerFunc adapts a function to the Trainer interface.
type TrainerFunc func(X mat.Matrix, y []float64) (Model, error)

// Train calls f(X, y).
func (f TrainerFunc) Train(X mat.Matrix, y []float64) (Model, error) { return f(X, y) }

// PredictAll applies m to every row of X.
func PredictAll(m Model, X mat.Matrix) []float64 {
	n, p := X.Dims()
	out := make([]float64, n)
	row := make([]float64, p)
	for i := 0; i < n; i++ {
		mat.Row(row, i, X)
		out[i] = m.Predict(row)
	}
	return out
}

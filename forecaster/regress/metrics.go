package regress

import (
	"math"

	"gonum.org/v1/gonum/stat"
)

// checkPair validates a measured/predicted pair of equal, non-zero length.
func checkPair(measured, predicted []float64) error {
	if err := CheckVector("measured", measured); err != nil {
		return err
	}
	if err := CheckVector("predicted", predicted); err != nil {
		return err
	}
	if len(measured) != len(predicted) {
		return inputError("predicted", "length %d does not match %d measured values", len(predicted), len(measured))
	}
	return nil
}

// MAPE is the mean absolute percentage error as a fraction:
//
//	MAPE = (1/n) Σ |pred_i − meas_i| / |meas_i|
//
// It is the error measure of every accuracy figure ("error = |predicted − measured| /
// measured"). A measured value of zero makes the ratio undefined and is an
// error.
func MAPE(measured, predicted []float64) (float64, error) {
	if err := checkPair(measured, predicted); err != nil {
		return 0, err
	}
	var s float64
	for i, m := range measured {
		if m == 0 {
			return 0, inputError("measured", "element %d is zero; MAPE is undefined", i)
		}
		s += math.Abs(predicted[i]-m) / math.Abs(m)
	}
	return s / float64(len(measured)), nil
}

// Accuracy is the Inside-Out paper's score, max(1 − MAPE, 0).
func Accuracy(mape float64) float64 { return math.Max(1-mape, 0) }

// RMSE is the root mean squared error √((1/n) Σ (pred_i − meas_i)²).
func RMSE(measured, predicted []float64) (float64, error) {
	if err := checkPair(measured, predicted); err != nil {
		return 0, err
	}
	var s float64
	for i, m := range measured {
		d := predicted[i] - m
		s += d * d
	}
	return math.Sqrt(s / float64(len(measured))), nil
}

// MAE is the mean absolute error (1/n) Σ |pred_i − meas_i|.
func MAE(measured, predicted []float64) (float64, error) {
	if err := checkPair(measured, predicted); err != nil {
		return 0, err
	}
	var s float64
	for i, m := range measured {
		s += math.Abs(predicted[i] - m)
	}
	return s / float64(len(measured)), nil
}

// R2 is the coefficient of determination 1 − SS_res/SS_tot. A constant
// measured vector has SS_tot = 0 and is an error.
func R2(measured, predicted []float64) (float64, error) {
	if err := checkPair(measured, predicted); err != nil {
		return 0, err
	}
	mean := stat.Mean(measured, nil)
	var ssRes, ssTot float64
	for i, m := range measured {
		ssRes += (m - predicted[i]) * (m - predicted[i])
		ssTot += (m - mean) * (m - mean)
	}
	if ssTot == 0 {
		return 0, inputError("measured", "constant; R² is undefined")
	}
	return 1 - ssRes/ssTot, nil
}

// Correlation is Pearson's correlation coefficient between measured and
// predicted. Either vector being constant is an error.
func Correlation(measured, predicted []float64) (float64, error) {
	if err := checkPair(measured, predicted); err != nil {
		return 0, err
	}
	if stat.Variance(measured, nil) == 0 || stat.Variance(predicted, nil) == 0 {
		return 0, inputError("measured/predicted", "constant; correlation is undefined")
	}
	return stat.Correlation(measured, predicted, nil), nil
}

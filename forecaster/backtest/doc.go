// Package backtest is Storcast's one extrapolation backtest (docs/models.md,
// "Backtesting"), shared by the exporter and the accuracy tables so both
// report the same figures.
//
// Given windows (load, features, measured target) and a split load X, Run
// fits a Forecaster on the windows with load < X and predicts every window
// with load > X and the bin centres m·X for the requested multiples m. It
// reports
//
//	error_i  = |pred_i − meas_i| / meas_i
//	MAPE     = mean error over the windows above X (but those the model
//	           answers saturated: a capacity-anchored model makes no
//	           latency claim at or past capacity; they are counted)
//	accuracy = max(1 − MAPE, 0)
//	coverage = fraction of the scored windows (those of the MAPE) whose
//	           measured value lies inside the predicted band (models with
//	           a band only)
//
// and, per multiple m, the error of the prediction at m·X against the mean
// measured value of the windows within ±5% of X around m·X (the paper's
// Table 4 averaged 950–1050 IOPS for 1000).
package backtest

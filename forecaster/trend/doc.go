// Package trend fits the demand trend of a cluster's observed total IOPS and
// answers "when will demand reach the capacity?" (the saturation ETA).
//
// # Model
//
//	y(t) = a + b (t − t̄) + s(t) + ε
//
// a, b: Theil–Sen line. The slope b is the median of the pairwise slopes
// (y_j − y_i)/(t_j − t_i) over all pairs t_i < t_j (a fixed-seed sample of
// MaxPairs pairs when there are more), and a = median(y_i − b (t_i − t̄)).
// We chose Theil–Sen over least squares because IOPS series carry spikes
// (backfills, scrubs, benchmark runs, scrape gaps read as zeros): its
// breakdown point is 29%, so up to that share of wild points cannot move the
// line, while a single spike moves a least-squares slope. On clean Gaussian
// data it loses little efficiency (~91% of OLS's).
//
// s(t): optional seasonal profile with period SeasonSeconds (86400 for the
// daily cycle), a step function over SeasonBins phase bins of absolute Unix
// time, estimated as the per-bin mean of the detrended values. Line and
// profile are refitted alternately (three rounds), so a cycle does not bias
// the slope when the window is not a whole number of periods. Without it the
// cycle stays in the residuals and widens the band.
//
// # Band
//
// With s the residual standard deviation (n − 2 − bins degrees of freedom),
// S_tt = Σ (t_i − t̄)² and z the normal quantile of the Level (1.96 for 95%),
// the prediction band is the least-squares one applied to the robust line:
//
//	mean(t) ± z s √(1 + 1/n + (t − t̄)²/S_tt).
//
// It assumes independent residuals; real series are autocorrelated, so the
// band is narrower than it should be far from the data. Refit often.
//
// # ETA
//
// ETA(limit, now) gives the seconds from now until mean(t) reaches limit
// (MeanSeconds) and until the upper band does (UpperSeconds, the early
// warning; never later than MeanSeconds). Both are +Inf when the slope is
// not positive (the trend does not grow), and 0 when the limit is already
// reached at now. With a seasonal profile the crossing is the first time the
// peak bins reach the limit. +Inf encodes as null in JSON.
//
// Backtest fits on the early part of a series and scores the mean forecast
// on the held-out rest: accuracy = max(1 − MAPE, 0), and band coverage.
//
// Times are Unix seconds; a Trend is a plain struct that encodes to JSON and
// back, so the exporter can persist it.
package trend

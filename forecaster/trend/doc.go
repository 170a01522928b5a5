// Package trend fits the demand trend of a cluster's observed total IOPS and
// the trend of the capacity frontier's utilization, and answers "when will
// demand reach the capacity?" (the saturation ETA).
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
// warning; never later than MeanSeconds); 0 when the limit is already
// reached at now. With a seasonal profile the crossing is the first time the
// peak bins reach the limit. A flat or falling trend reaches it only where
// it already is: now, or at a peak bin within the coming period; otherwise
// both are +Inf ("never"). +Inf encodes as null in JSON.
//
// Backtest fits on the early part of a series and scores the mean forecast
// on the held-out rest: accuracy = max(1 − MAPE, 0), and band coverage.
//
// # Saturation ETA: the trend of utilization
//
// Demand in IOPS is the wrong quantity to extrapolate when the mix drifts:
// capacity moves with the mix. FitUtilization therefore fits the trend of
// the capacity frontier's utilization U (demand over capacity at the
// window's mix, from the conservation model) and ETA answers "when does U
// reach 1?":
//
//	g(U(t)) = a + b·(t − t̄) + Σ_{k=1..H} (c_k cos kωt + d_k sin kωt) + ε,   ω = 2π/day,
//
// with g = identity (linear growth) or g = log (exponential growth, the
// daily cycle then a proportion of the level), by iteratively reweighted
// least squares with Tukey's bisquare (c = 4.685 times the MAD scale
// 1.4826·median|r|, taken about the fit as R's MASS::rlm does; ten rounds
// from ordinary least squares; within 1e-6 of rlm on testdata/rlm, measured
// within 1e-7): the line and the harmonics must be
// fitted jointly, which Theil–Sen cannot, and the reweighting gives back
// what least squares loses to spikes (one window in five of the first half
// dipping to 60% tilts a least-squares slope 65%; the reweighted one stays
// within 5%). GrowthAuto keeps the form with the smaller squared error in U
// (both have 2 + 2H parameters). The phase is the clock's (absolute Unix
// time), so the harmonics are the daily profile.
//
// A limit that moves with the mix. The exporter fits demand in units of
// the capacity at today's mix, not U itself, and sets Limit: the capacity
// at the forecast read ratio relative to today's. The read ratio follows
// its own fitted line plus its daily cycle (Limit.Cycle; clamped to
// [0, 1]); the crossing is where the demand trend meets that falling or
// rising limit, so a mix drifting toward writes brings the ETA forward by
// as much as the capacity model says the drift costs, and write-heavy
// hours at the demand peak lower the limit there. Without Limit the level
// is 1.
//
// # How many daily harmonics
//
// By default the number of harmonics follows the history's span (none
// below 18 h, one below two days, two from two days). With
// UtilizationOptions.ChooseHarmonics, from two days on, it is the H in
// 1..6 whose line through the hourly medians has the least BIC,
// m·ln(SSE/m) + (2 + 2H)·ln m: a profile that switches at once (business
// hours and a nightly batch) leaves a third of its amplitude to two
// harmonics, and what they leave is a daily wiggle the bend's tests below
// read as wander. The exporter asks it for the read ratio and for demand.
// It is chosen once for both growth forms, on the log scale when the
// exponential form may be fitted (the series positive): exponential
// growth times a cosine cycle is, on that scale, a cosine plus a second
// harmonic of a²/4 that the linear scale does not show (chosen there, one
// harmonic was taken and the next day's peak came out 1.5% low; 0.04%
// now, TestChooseHarmonicsOnTheLogScale).
//
// # The daily profile
//
// A window that switches at once on the hour, a nightly backup or business
// hours, is not a few harmonics: two fall short of a 4-hour window's top
// and overshoot an 8-hour one's (−10% and +2% on the next day's peak,
// TestProfileKnownTruth), more ring about it (Gibbs), and the bisquare
// takes the top they miss for outliers. With UtilizationOptions.Profile
// the choice above also weighs the hour-of-day profile, a level per hour of
// the day (UTC),
//
//	g(U(t)) = a + b·(t − t̄) + p_hour(t),  Σ p_h = 0,
//
// 23 free levels (hour 23's the negated sum: effect coding, so the line is
// the daily mean as with harmonics), priced by BIC at 25 coefficients
// against 2 + 2H; it needs 50 hourly bins. Each level is its hour's mean,
// so the profile cannot overshoot the truth's range, and the ETA's
// crossing of a window's edge falls on the hour. A cosine cycle or a flat
// line does not take it (TestProfileNotOnASmoothCycle). A profile holds no
// cycle a Limit can carry (DailyCycle is nil): the exporter offers it to
// demand, not to the read ratio.
//
// A rate is an average over the window before its sample, so the sample
// at a window's edge belongs to the hour before: on a quiet series every
// window of the edge hour then lies far from that hour's level, the
// bisquare gave them all weight 0, and the design was singular. When a
// reweighted solve is singular the bisquare's cut-off is widened, 2×, 4×,
// … until the design is identified (the weights floored at 0.01 only past
// 1024×): the hour's good windows come back, the edge sample stays out
// and the next round tightens the cut-off again (TestProfileHourThatSwitches).
//
// # A line that bends
//
// A straight line through days of a drift that speeds up lags it.
// UtilizationOptions.Bend lets the line bend once,
//
//	g(U(t)) = a + b·(t − t̄) + c·max(0, t − τ) + harmonics,
//
// and the forecast follows the last segment (Slope is b + c, its standard
// error √(Var b + Var c + 2 Cov(b, c))·s). τ is chosen on the medians of
// hourly bins (windows minutes apart are not independent), from two days
// of history on, at least half a day from either end, and kept only if
// BIC prefers it over the bins' effective count m(1 − ρ)/(1 + ρ) and the
// bent line, refitted at origins 6-24 h before the end, predicts the next
// 12 h with at most half the straight line's squared error (chooseBend).
// A mix that only wanders for hours (docs/models.md) bent in 32 of 40
// trials under BIC with the bins counted as independent (two harmonics), and its
// forecast then erred twice as much as the straight line's; with both
// tests 3 of 40 bent.
//
// The search over τ does not refit per candidate: the bent line's squared
// error is the straight line's less what the hinge z = max(0, t − τ) adds,
// SSE₁ = SSE₀ − (zᵀr₀)²/‖Mz‖² (Frisch–Waugh; r₀ the straight line's
// residuals, Mz the hinge's part orthogonal to the straight design).
//
// The slope's error ahead. The slope's standard error assumes the line is
// the truth; a drift that keeps changing, or a mix that wanders for hours,
// moves further. BacktestSlopeError is the line's own error per day ahead:
// refitted at the origins 6, 12, 18 and 24 h before the end (its bend
// chosen there as at the end), its forecasts of every later hourly bin
// give √(Σ(e² − s²)/Σh²), h in days, s² the bins' noise about the
// origin's fit (in every error whatever the time ahead). A forecast's band
// taking the larger of the two held the truth 36 h ahead in 191 of 200
// wandering histories where the standard error alone held it in 104
// (TestBendCostOnAWanderingMix).
//
// Peaks, not the mean: the latency SLO is violated at the daily peak, so
// PeakSeconds is the first time the full curve (trend plus daily cycle)
// reaches 1; MeanSeconds (the trend alone, the daily mean) is reported
// beside it and is later whenever the cycle has an amplitude. The band:
// EarlySeconds and LateSeconds are the first times the upper and the lower
// prediction band of the peaks, z·s·√(1 + xᵀ(XᵀWX)⁻¹x) on the fitted scale
// (W the robust weights of the last weighted solve; s the weighted
// residual scale √(Σ wᵢrᵢ² / (Σ wᵢ − p)) of that solve's residuals rᵢ, at
// the weights wᵢ they give, one reweighting later), reach the lower and
// the upper end of the limit's band (the capacity's band over
// the read ratio's, r̂(t) ± z·√(LevelSE² + (SlopeSE·(t − T0))²); 1 at both
// ends without a Limit). With demand's band alone the ETA's band was
// minutes wide where the limit's forecast was hours off.
//
// Short history. Below 18 hours of history no daily cycle is fitted: over
// less than three quarters of a period the sine and cosine of the day are
// indistinguishable from a curvature of the line, and extrapolating them
// turned that curvature into ETAs hours off (6 h of a growth scenario gave
// 1.8 h or 6.3 h for a true 6 h, depending on where in the hour the history
// began). From 18 hours to two days the cycle is one harmonic fitted jointly
// with the line (a rolling daily maximum would be a single number, and a
// line fitted alone to one day of a sinusoid errs by about 2·amplitude per
// day); from two days on, two harmonics (a sharper peak). The peak is thus
// the fitted daily cycle's maximum over each day ahead, not a quantile of
// the raw samples: it follows the cycle's shape and the trend together, and
// noise does not pull it up.
//
// Horizon: the ETA is searched at 15-minute steps (a daily peak is a few
// hours wide) and bisected to the second, up to HorizonSeconds (default one
// year); beyond it, +Inf ("not within the horizon", null in JSON). A year
// because a capacity plan acts on months, and a line extrapolated further
// from days of history says little. The peak ETA moves in whole days when a
// daily peak grazes 1: a slope error of a percent then decides between two
// days, which EarlySeconds..LateSeconds may not cover.
//
// ETA(now, currentU, overSLO) is 0 for every field when currentU ≥ 1
// (Reason "saturated") or the caller reports the latency SLO already
// violated (Reason "over SLO").
//
// Times are Unix seconds; a Trend is a plain struct that encodes to JSON and
// back, so the exporter can persist it.
package trend

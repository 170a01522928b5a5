// Package forecaster holds Storcast's models. It is pure computation on
// gonum: no I/O, no Prometheus imports, so that the exporter, the Grafana
// plugin backend, the tests and the benchmarks all call the same code.
//
// The data flow is source -> features -> models -> series; this tree is the
// "models" step:
//
//   - regress: the regression toolbox the models stand on (standardization,
//     Ridge, Lasso/Elastic Net, CART, M5, NNLS, cross-validation, metrics).
//   - conservation: the conservation-of-processing-capability model (max IOPS
//     at the current read/write and IO-size mix, utilization, headroom).
//   - insideout: end-to-end IOPS and throughput from host metrics.
//   - kriging and mlisp: latency extrapolation beyond the highest observed
//     load, with a 95% band (M-LISP).
//   - backtest: one protocol (train below load X, score above X) for every model.
//   - queueing: latency against the capacity frontier's utilization (open or
//     closed loop told from the history), the model served by default.
//   - trend: the demand trend used for saturation ETAs.
//   - advisor: workload characterization and the traffic-control rule set
//     advisor (M5 over a catalog of rule sets).
//   - internal/check: the bad-input error message and the finite test the
//     packages share (each keeps its own ErrInput sentinel). YAML input
//     (calibration, rule-set catalog) is decoded by the module's one strict
//     decoder, internal/yamlstrict.
//
// The math and the decisions the papers leave open are in docs/models.md.
package forecaster

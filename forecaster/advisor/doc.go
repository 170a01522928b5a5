// Package advisor is the rule-set advisor of Lu, "Storage Workload
// Characterization and Performance Prediction for Better I/O Traffic
// Management" (thesis, 2015): it predicts the throughput boost each known
// traffic-control rule set would give the current workload, and recommends
// the best one, or none.
//
// # The thesis' pipeline
//
// An aggregated workload is characterized by four features: the sequential
// request size (consecutive requests joined into one), the access type
// (random or sequential), the read/write ratio by bytes, and the original
// throughput (without any rule set). Each rule set was tuned for a common
// workload; from it, derived workloads are made by changing one feature at
// a time, and each is run several times without and with the rule set. The
// throughput boost of a derived workload is
//
//	br = mean(with rule set) / mean(without) − 1
//
// and the pairs (features, br) are the training set of one M5 model tree
// per rule set (Quinlan, "Learning with continuous classes", 1992; Wang &
// Witten, 1997): a regression tree split by standard-deviation reduction
//
//	SDR = sd(T) − Σ_i |T_i|/|T| sd(T_i)
//
// with a least-squares linear model in each leaf (forecaster/regress's
// FitM5; its doc has the growing, simplification and pruning rules). Online,
// the current workload's features go through every tree; the rule set with
// the highest predicted boost is applied, none if every prediction is
// negative. The thesis reports a correlation of 0.87 and a mean absolute
// error of 3.8% (0.038 of boost rate) in its abstract; its table gives
// 0.86 and 3.8% for the best of four trees, 0.61-0.64 and 2.1-2.7% for the
// other three, against measured boosts.
//
// # This package
//
//   - Catalog, LoadCatalog: the operator's catalog (YAML): the features the
//     models use, and per rule set its name, description, common workload
//     and experiments (workload features, baseline and with-rule-set
//     throughput runs in bytes/s). Strict decoding and pure validation;
//     every error names the rule set, the experiment and the field.
//   - Train: one regress.FitM5 tree per rule set with default options, its
//     k-fold cross-validated mean absolute error (regress.KFold over the w
//     distinct workloads, k = min(10, w/2), fixed seed; a workload's
//     repeats share a fold), the same folds' error of the mean boost
//     (ConstantCVError, which RuleSetModel.Accuracy scores the tree
//     against) and the run-to-run noise of its boosts.
//   - Advisor.Predict: each rule set's predicted boost with its CV error,
//     run noise and whether the workload lies outside the rule set's
//     experiments; Advisor.Advise: the predictions, the recommended rule
//     set (or none) and why (Recommend: the name alone). The Advisor
//     encodes to JSON and decodes with its trees checked.
//   - LiveWorkload: the features live rates can measure (below).
//
// # Where it departs from the thesis, and why
//
//   - Aggregated features only. The thesis' vector holds one (request size,
//     access type) pair per file plus the ratio and throughput; no exporter
//     of a storage cluster sees files, so the four features describe the
//     aggregate. A catalog may use a subset: a feature the live source
//     cannot measure is left out of the catalog, never estimated.
//   - Access type is a share 0..1 (the enumerator is the case 0 or 1): the
//     only live proxy (merged block requests) is a share.
//   - The read/write ratio r:w is the read share r/(r+w) of bytes: bounded,
//     and defined for pure workloads (the thesis has no ratio for them).
//   - The original throughput of an experiment is the mean of its baseline
//     runs; it is not written twice.
//   - The trees see log2 of request size and throughput (effects of size
//     are multiplicative over orders of magnitude); shares as they are.
//   - The thesis keeps only trees that passed 10-fold cross-validation
//     "with good results" (no threshold given). Here every rule set keeps
//     its tree and reports CVError and RunNoise; the caller judges. A
//     catalog needs at least MinExperiments distinct workloads per rule
//     set and MinRuns runs of each kind per experiment.
//   - Repeats: experiments of the same workload (the same written
//     features and, when original_throughput is a feature, baseline means
//     within two standard errors) are kept as rows, each a session of its
//     own, but count once toward MinExperiments and share a CV fold, so
//     that no held-out experiment has a twin in training. Pooling their
//     runs instead would mix the spread between sessions into the
//     run-to-run noise and redefine the boost across sessions.
//   - The thesis applies the highest predicted boost if positive. Advise
//     needs a boost above the rule set's Margin, max(CVError, RunNoise):
//     CVError is how far a prediction typically is from a measured boost
//     at an unseen workload (that measurement's noise included), RunNoise
//     a floor for a near-perfect tree. An extrapolated prediction competes,
//     as in the thesis, but beats an in-range candidate only by more than
//     its own Margin.
//
// # What live sources measure of the four features
//
//   - Ceph (mgr prometheus module, ceph-exporter): client ops and bytes per
//     direction (ceph_osd_op_r/_w with ceph_osd_op_r_out_bytes/_w_in_bytes;
//     per pool ceph_pool_rd/_wr with _rd_bytes/_wr_bytes): mean request
//     size per direction and overall, read share by ops and by bytes,
//     throughput. Nothing about sequentiality.
//   - node_exporter on OSD or object-server hosts:
//     node_disk_reads_merged_total and node_disk_writes_merged_total against
//     node_disk_reads_completed_total / node_disk_writes_completed_total: the
//     share of block requests merged into a neighbour, a proxy of the
//     sequential share at the disks (after the daemons reorder, replicate
//     and add their own I/O); bytes per completed request, the merged
//     request size at the disk.
//   - Swift (statsd_exporter): requests per method (swift_proxy_count) and
//     bytes (swift_proxy_transfer) for GET and PUT: request size, read
//     share, throughput; no sequentiality.
//   - Unknown everywhere: the sequential request size proper (consecutive
//     requests on one object joined within a few ms needs a client-side
//     trace; the mean client request is its lower bound), and the original
//     throughput while a rule set is applied. These are left out, never
//     filled in; Predict names the missing feature.
//
// A catalog is only valid for live use when its experiments measured each
// feature the way the live source does.
//
// # Accuracy on storagesim
//
// storagesim's rule-set truth (three rule sets, boosts a stated nonlinear
// function of the four features plus an unobserved contention term, 4% run
// noise, 5 runs) gives, over 20 seeds, trees trained on 47 experiments per
// rule set (44, 43 and 43 distinct workloads: the common workload recurs
// in the sweeps) and scored on 60 held-out derived workloads each:
// correlation 0.85 and MAE 2.7 points against the true boost (thesis 0.87,
// 3.8% against measured boosts), CV error 3.5 points against measured
// boosts, accuracy 0.48 against the mean boost; the recommendation picks
// the truly best rule set (or correctly none) for 74% of held-out
// workloads, losing 0.9 points of boost on average, and applies a rule
// set that hurts to 3% of them (10% when any positive prediction wins). A
// simulator's truth, not a cluster's: see docs/models.md.
package advisor

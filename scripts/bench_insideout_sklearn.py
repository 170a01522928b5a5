#!/usr/bin/python3
"""scikit-learn's equivalent of Storcast's Inside-Out training, for the
speed/accuracy table in the README.

Same data as the Go benchmark (BenchmarkTrain/n=20000/p=256/read_iops):

    go test ./forecaster/insideout -run TestWriteBenchmarkData \\
        -insideout.benchdata /tmp/insideout-bench.f64
    /usr/bin/python3 scripts/bench_insideout_sklearn.py /tmp/insideout-bench.f64

Same pipeline and parameters as forecaster/insideout (Options zero value):
StandardScaler on all samples; Ridge(alpha=1) on all features; thresholds
a = 0, 0.25, ..., 2.25 keep |coef| >= a * median(|coef|) (identical kept sets
are scored once); for each kept set a 30-alpha geometric grid from alpha_max
down to 1e-3 * alpha_max; KFold(10, shuffle=True) and for each fold
sklearn.linear_model.lasso_path (coordinate descent, precomputed Gram,
tol=1e-4, max_iter=1000; this is what LassoCV runs per fold) on the centred
training rows; the held-out MAPE picks (a, alpha); Lasso refit on all
samples. Accuracy = max(1 - CV MAPE, 0). The folds differ from Go's (numpy
vs PCG shuffling), so accuracies agree to about 1e-3, not exactly.

A second timing runs LassoCV(cv=KFold(10)) per threshold with its own
criterion (MSE), the stock scikit-learn way to do the selection.
"""
import resource
import sys
import time

import numpy as np
import sklearn
from sklearn.linear_model import Lasso, LassoCV, Ridge, lasso_path
from sklearn.model_selection import KFold
from sklearn.preprocessing import StandardScaler

THRESHOLDS = [0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75, 2, 2.25]
N_ALPHAS, EPS, FOLDS, RIDGE_ALPHA = 30, 1e-3, 10, 1.0


def load(path):
    raw = np.fromfile(path, dtype="<f8")
    n, p = int(raw[0]), int(raw[1])
    X = raw[2 : 2 + n * p].reshape(n, p)
    y = raw[2 + n * p : 2 + n * p + n]
    return X, y


def kept_sets(Z, y):
    coef = np.abs(Ridge(alpha=RIDGE_ALPHA).fit(Z, y).coef_)
    med = np.median(coef)
    seen = {}
    for a in THRESHOLDS:
        kept = np.flatnonzero((coef >= a * med) & ((coef > 0) | (a == 0)))
        if len(kept):
            seen.setdefault(tuple(kept), a)
    return [(a, np.array(k)) for k, a in seen.items()]


def mape(y, pred):
    nz = y != 0
    return np.mean(np.abs(pred[nz] - y[nz]) / np.abs(y[nz]))


def same_criterion(X, y):
    """The Go pipeline step by step: lasso_path per fold, MAPE criterion."""
    Z = StandardScaler().fit_transform(X)
    folds = list(KFold(FOLDS, shuffle=True, random_state=1).split(Z))
    best = (np.inf, None, None, None)
    for a, kept in kept_sets(Z, y):
        Zk = Z[:, kept]
        Zc = Zk - Zk.mean(0)
        amax = np.max(np.abs(Zc.T @ (y - y.mean()))) / len(y)
        alphas = np.geomspace(amax, amax * EPS, N_ALPHAS)
        scores = np.zeros(N_ALPHAS)
        for train, test in folds:
            xm, ym = Zk[train].mean(0), y[train].mean()
            _, coefs, _ = lasso_path(Zk[train] - xm, y[train] - ym, alphas=alphas, tol=1e-4, max_iter=1000)
            pred = (Zk[test] - xm) @ coefs + ym  # (n_test, n_alphas)
            scores += [mape(y[test], pred[:, i]) for i in range(N_ALPHAS)]
        scores /= FOLDS
        i = int(np.argmin(scores))
        if scores[i] < best[0]:
            best = (scores[i], a, alphas[i], kept)
    cv_mape, a, alpha, kept = best
    model = Lasso(alpha=alpha, tol=1e-4, max_iter=1000).fit(Z[:, kept], y)
    return cv_mape, a, alpha, int(np.count_nonzero(model.coef_))


def lassocv(X, y):
    """Stock scikit-learn: LassoCV(MSE) per threshold, best by its CV MSE."""
    Z = StandardScaler().fit_transform(X)
    best = (np.inf, None)
    for a, kept in kept_sets(Z, y):
        m = LassoCV(n_alphas=N_ALPHAS, eps=EPS, cv=KFold(FOLDS, shuffle=True, random_state=1)).fit(Z[:, kept], y)
        mse = m.mse_path_.mean(axis=1).min()
        if mse < best[0]:
            best = (mse, m)
    return best


def timed(f, *args):
    w0, c0 = time.perf_counter(), time.process_time()
    r = f(*args)
    return r, time.perf_counter() - w0, time.process_time() - c0


def main():
    X, y = load(sys.argv[1])
    print(f"scikit-learn {sklearn.__version__}, numpy {np.__version__}, data {X.shape[0]}x{X.shape[1]}")
    (cv_mape, a, alpha, nnz), wall, cpu = timed(same_criterion, X, y)
    print(f"same pipeline (lasso_path per fold, MAPE): wall {wall:.2f} s, cpu {cpu:.2f} s, "
          f"CV accuracy {max(1 - cv_mape, 0):.4f}, a={a}, alpha={alpha:.4g}, selected {nnz}")
    (_, m), wall, cpu = timed(lassocv, X, y)
    print(f"LassoCV per threshold (MSE): wall {wall:.2f} s, cpu {cpu:.2f} s, alpha={m.alpha_:.4g}")
    print(f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")


if __name__ == "__main__":
    main()

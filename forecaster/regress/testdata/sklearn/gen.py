#!/usr/bin/python3
"""Golden results from scikit-learn for forecaster/regress.

Run with Debian's python3 (python3-sklearn):

    /usr/bin/python3 forecaster/regress/testdata/sklearn/gen.py

It writes linear.json next to this script: seeded data sets, and for each
the StandardScaler statistics and the coefficients, intercepts and
predictions of Ridge, Lasso and ElasticNet, and an Elastic Net path
(enet_path on centred data, which equals fitting with an intercept).
Coordinate descent runs at tol=1e-12 so the goldens are the optimum, not
an iterate; the Go tests use the same tolerance.
"""
import json
import os

import numpy as np
import sklearn
from sklearn.linear_model import ElasticNet, Lasso, Ridge, enet_path
from sklearn.preprocessing import StandardScaler

TOL = 1e-12
MAX_ITER = 1_000_000


def datasets():
    rng = np.random.default_rng(20261122)
    out = []
    # Well-posed: n=60, p=6, two correlated columns, different scales/offsets.
    n, p = 60, 6
    X = rng.normal(size=(n, p))
    X[:, 1] = 0.8 * X[:, 0] + 0.2 * X[:, 1]
    X = X * np.array([1, 10, 0.1, 5, 1, 100]) + np.array([0, 50, -3, 1000, 2, 0])
    beta = np.array([2.0, -0.3, 15.0, 0.0, 0.0, 0.01])
    y = 4.0 + X @ beta + rng.normal(scale=0.5, size=n)
    out.append(("tall", X, y))
    # Wide: more features than samples (Lasso picks a subset).
    n, p = 30, 45
    X = rng.normal(size=(n, p))
    beta = np.zeros(p)
    beta[[0, 7, 21]] = [3.0, -2.0, 1.5]
    y = -1.0 + X @ beta + rng.normal(scale=0.3, size=n)
    out.append(("wide", X, y))
    # Storage-like: IOPS from disk ops of a few hosts, large magnitudes.
    n, p = 80, 8
    X = rng.uniform(100, 5000, size=(n, p))
    y = X[:, :4].sum(axis=1) * 0.98 + rng.normal(scale=50, size=n)
    out.append(("iops", X, y))
    return out


def fit_json(m, X):
    return {
        "coef": m.coef_.tolist(),
        "intercept": float(m.intercept_),
        "pred": m.predict(X).tolist(),
    }


def main():
    result = {"sklearn": sklearn.__version__, "tol": TOL, "datasets": []}
    for name, X, y in datasets():
        sc = StandardScaler().fit(X)
        d = {
            "name": name,
            "X": X.tolist(),
            "y": y.tolist(),
            "scaler": {"mean": sc.mean_.tolist(), "scale": sc.scale_.tolist()},
            "ridge": [],
            "lasso": [],
            "enet": [],
        }
        for a in [0.01, 1.0, 100.0]:
            d["ridge"].append({"alpha": a, **fit_json(Ridge(alpha=a).fit(X, y), X)})
        amax = np.max(np.abs((X - X.mean(0)).T @ (y - y.mean()))) / len(y)
        for f in [0.5, 0.1, 0.01]:
            a = float(f * amax)
            m = Lasso(alpha=a, tol=TOL, max_iter=MAX_ITER).fit(X, y)
            d["lasso"].append({"alpha": a, **fit_json(m, X)})
        for f, l1 in [(0.2, 0.5), (0.05, 0.2), (0.5, 0.9)]:
            a = float(f * amax)
            m = ElasticNet(alpha=a, l1_ratio=l1, tol=TOL, max_iter=MAX_ITER).fit(X, y)
            d["enet"].append({"alpha": a, "l1_ratio": l1, **fit_json(m, X)})
        # Path on standardized data (as Inside-Out uses it), l1_ratio=0.7.
        Z = sc.transform(X)
        Zc, yc = Z - Z.mean(0), y - y.mean()
        alphas, coefs, _ = enet_path(Zc, yc, l1_ratio=0.7, eps=1e-3, n_alphas=20, tol=TOL, max_iter=MAX_ITER)
        d["path"] = {
            "l1_ratio": 0.7,
            "alphas": alphas.tolist(),
            "coefs": coefs.T.tolist(),
            "intercepts": [float(y.mean() - Z.mean(0) @ c) for c in coefs.T],
        }
        result["datasets"].append(d)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "linear.json")
    with open(path, "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()

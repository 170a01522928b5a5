#!/usr/bin/python3
"""Reference result of the Inside-Out two-level learner from scikit-learn.

Reads pipeline-data.json (written by the Go test with
-insideout.update-golden-data: features, targets, the fold test rows and the
options) and writes pipeline-sklearn.json:

    /usr/bin/python3 forecaster/insideout/testdata/sklearn_pipeline.py

Pipeline (forecaster/insideout/doc.go): StandardScaler on all rows; Ridge on
all features; per threshold a keep |coef| >= a * median|coef| (and > 0 unless
a = 0); on the kept columns a geometric grid of n_alphas alphas from
alpha_max = max|Zc'yc|/n down to eps * alpha_max; per fold lasso_path on the
centred training rows; mean held-out MAPE per alpha; the best (a, alpha) over
the grid (first on ties); Lasso refit on all rows; coefficients mapped back to
raw feature units.
"""
import json
import os

import numpy as np
import sklearn
from sklearn.linear_model import Lasso, Ridge, lasso_path
from sklearn.preprocessing import StandardScaler

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "pipeline-data.json")) as f:
    d = json.load(f)
X, y = np.array(d["X"]), np.array(d["y"])
o = d["options"]
n = len(y)
sc = StandardScaler().fit(X)
Z = sc.transform(X)
ridge = Ridge(alpha=o["ridge_alpha"]).fit(Z, y)
absc = np.abs(ridge.coef_)
med = np.median(absc)
all_rows = np.arange(n)
folds = [(np.setdiff1d(all_rows, test), np.array(test)) for test in d["folds"]]


def mape(yt, pred):
    nz = yt != 0
    return np.mean(np.abs(pred[nz] - yt[nz]) / np.abs(yt[nz]))


grid, best = [], None
for a in o["thresholds"]:
    kept = np.flatnonzero((absc >= a * med) & ((absc > 0) | (a == 0)))
    if len(kept) == 0:
        continue
    Zk = Z[:, kept]
    amax = np.max(np.abs((Zk - Zk.mean(0)).T @ (y - y.mean()))) / n
    alphas = np.geomspace(amax, amax * o["eps"], o["n_alphas"])
    scores = np.zeros(len(alphas))
    for train, test in folds:
        xm, ym = Zk[train].mean(0), y[train].mean()
        _, coefs, _ = lasso_path(Zk[train] - xm, y[train] - ym, alphas=alphas, tol=o["tol"], max_iter=1_000_000)
        pred = (Zk[test] - xm) @ coefs + ym
        scores += [mape(y[test], pred[:, i]) for i in range(len(alphas))]
    scores /= len(folds)
    i = int(np.argmin(scores))
    grid.append({"threshold": a, "kept": int(len(kept)), "alpha": float(alphas[i]), "cv_mape": float(scores[i])})
    if best is None or scores[i] < best[0]:
        best = (scores[i], a, alphas[i], kept)

cv_mape, a, alpha, kept = best
lasso = Lasso(alpha=alpha, tol=o["tol"], max_iter=1_000_000).fit(Z[:, kept], y)
w_std = np.zeros(X.shape[1])
w_std[kept] = lasso.coef_
coef = w_std / sc.scale_
intercept = lasso.intercept_ - coef @ sc.mean_
out = {
    "sklearn": sklearn.__version__,
    "ridge_coef": ridge.coef_.tolist(),
    "grid": grid,
    "threshold": a,
    "alpha": float(alpha),
    "cv_mape": float(cv_mape),
    "coef": coef.tolist(),
    "intercept": float(intercept),
}
with open(os.path.join(here, "pipeline-sklearn.json"), "w") as f:
    json.dump(out, f, indent=1)
    f.write("\n")

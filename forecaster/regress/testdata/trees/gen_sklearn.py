#!/usr/bin/python3
"""Golden CART results from scikit-learn's DecisionTreeRegressor (Debian's
python3-sklearn) for the data sets written by gen_data.py.

scikit-learn's ccp_alpha is on the impurity scale SSE/n, so rpart's cp maps to
ccp_alpha = cp * SSE(root) / n. min_samples_leaf = round(minsplit/3) as in
rpart. Writes sklearn-<data>-<minsplit>-<cp>.csv with the leaf count and the
fitted values at the training points.
"""
import numpy as np
import sklearn
from sklearn.tree import DecisionTreeRegressor

cases = [("friedman1", 20, 0.01), ("friedman1", 10, 0.001), ("steps", 20, 0.01), ("steps", 6, 0.0)]
for data, minsplit, cp in cases:
    d = np.loadtxt(f"data-{data}.csv", delimiter=",", skiprows=1)
    X, y = d[:, :-1], d[:, -1]
    sse = ((y - y.mean())**2).sum()
    t = DecisionTreeRegressor(min_samples_split=minsplit, min_samples_leaf=max(1, round(minsplit/3)),
                              ccp_alpha=cp*sse/len(y), random_state=0).fit(X, y)
    with open(f"sklearn-{data}-{minsplit}-{cp:g}.csv", "w") as f:
        f.write(f"# scikit-learn {sklearn.__version__} minsplit={minsplit} cp={cp:g} leaves={t.get_n_leaves()}\n")
        f.write("fitted\n")
        for v in t.predict(X):
            f.write(f"{v:.17g}\n")

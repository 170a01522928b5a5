#!/usr/bin/python3
"""Writes the data sets for the CART golden tests (data-*.csv).

Run with Debian's python3 (numpy). Seeded: the output is committed and must
not change unless this script does. Continuous features avoid ties, so that
rpart, scikit-learn and Storcast pick the same splits.
"""
import numpy as np

def write(name, X, y):
    with open(f"data-{name}.csv", "w") as f:
        f.write(",".join([f"x{j}" for j in range(X.shape[1])] + ["y"]) + "\n")
        for row, t in zip(X, y):
            f.write(",".join(repr(float(v)) for v in row) + "," + repr(float(t)) + "\n")

rng = np.random.default_rng(20261122)
# Friedman #1: nonlinear with interactions, 5 informative + 3 noise features.
n = 300
X = rng.uniform(0, 1, size=(n, 8))
y = 10*np.sin(np.pi*X[:, 0]*X[:, 1]) + 20*(X[:, 2]-0.5)**2 + 10*X[:, 3] + 5*X[:, 4] + rng.normal(0, 1, n)
write("friedman1", X, y)
# A step function in one of four features, with noise.
n = 200
X = rng.normal(size=(n, 4))
y = np.where(X[:, 2] < 0.3, 1.0, 5.0) + np.where(X[:, 0] < -0.5, 2.0, 0.0) + rng.normal(0, 0.3, n)
write("steps", X, y)

"""scikit-learn's L2 LogisticRegression as a repro series (the command method).

    python3 sklearn_logreg.py train TRAIN MODEL --C C [--seed S]
    python3 sklearn_logreg.py predict TEST MODEL PREDICTIONS

TRAIN and TEST are the LIBSVM files repro writes (labels are class indices
0..K-1; TEST's are all 0). PREDICTIONS is written in liblinear's -b 1
format: a header "labels c1 ... cm", then per row the predicted label and
the m class probabilities, which repro reads with `output: labels`.
"""
import argparse
import pickle
import sys

import numpy as np
from sklearn.datasets import load_svmlight_file
from sklearn.linear_model import LogisticRegression


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["train", "predict"])
    ap.add_argument("rows")
    ap.add_argument("model")
    ap.add_argument("predictions", nargs="?")
    ap.add_argument("--C", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    if a.mode == "train":
        X, y = load_svmlight_file(a.rows)
        # L2 penalty, unpenalized intercept: repro's logreg-l2 objective.
        clf = LogisticRegression(C=a.C, solver="lbfgs", tol=1e-6, max_iter=10000,
                                 random_state=a.seed)
        clf.fit(X, y)
        with open(a.model, "wb") as f:
            pickle.dump((X.shape[1], clf), f)
        return
    with open(a.model, "rb") as f:
        n, clf = pickle.load(f)
    X, _ = load_svmlight_file(a.rows, n_features=None)
    if X.shape[1] < n:  # the test rows use fewer columns than the training rows
        X, _ = load_svmlight_file(a.rows, n_features=n)
    X = X[:, :n]  # columns never seen in training have no weight
    P = clf.predict_proba(X)
    labels = clf.classes_[np.argmax(P, axis=1)]
    with open(a.predictions, "w") as f:
        f.write("labels " + " ".join("%d" % c for c in clf.classes_) + "\n")
        for lab, row in zip(labels, P):
            f.write("%d %s\n" % (lab, " ".join(repr(float(p)) for p in row)))


if __name__ == "__main__":
    sys.exit(main())

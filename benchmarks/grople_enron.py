"""GroPLE on enron: is its accuracy (0.34 at the defaults) a gap against paper 001 or a protocol
difference?

Paper 001 (GroPLE) has no enron row: its Table 1/2 cover genbase, medical, CAL500, corel5k,
rcv1 (subsets 1-3), bibtex, corel16k001, delicious, mediamill and bookmarks, and report
accuracy, example F1, macro F1 and micro F1 (no Hamming loss). So this script compares GroPLE
with what linear models of the same family reach under the same protocol, and checks the
suspects: alpha/beta (the defaults were chosen on medical and genbase), feature scaling
(enron's features are binary word indicators), d and K (run separately, see docs/GROPLE.md).

Protocol: Table 2's (``tests/test_grople_paper.py``): ``KFold(5, shuffle=True,
random_state=0)`` on the whole MULAN file, d = 100, K = 10, lambda1 = 0.001, lambda2 = 1.

* fixed settings: GroPLE at the defaults (alpha = 0.01, beta = 1), at beta = 3, 10, 30, and at
  the defaults on rows scaled to unit l2 norm (a per-row transform, nothing learnt across
  folds); ridge binary relevance on the +-1 labels, threshold 0 (ridge alpha 1 and 10);
* nested: beta chosen on every outer training fold by an inner 3-fold CV (alpha = 0.01
  fixed: on enron alpha in {0, 1e-3, 1e-2, 1e-1} changes accuracy by <= 0.002 at every beta),
  stages 1-2 fitted once per inner split, Eq. 5 per beta; on raw X over beta in {0.1, 1, 3,
  10, 30} and on l2-normalised rows over beta in {0.1, 0.3, 1, 3, 10}.

Run: ``OPENBLAS_NUM_THREADS=1 python benchmarks/grople_enron.py`` (about 4 CPU minutes).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
from sklearn.linear_model import Ridge
from sklearn.metrics import f1_score, hamming_loss, jaccard_score
from sklearn.model_selection import KFold
from sklearn.preprocessing import normalize
from threadpoolctl import threadpool_limits

_HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(_HERE.parent), str(_HERE)]

from _common import machine_description, mulan_dir  # noqa: E402

from mlviz.grople import GroPLE, fit_feature_embedding, fit_label_embedding  # noqa: E402
from mlviz.io import load_arff  # noqa: E402
from mlviz.label_clustering import LabelClustering  # noqa: E402

ALPHA = 0.01
RAW_BETAS = (0.1, 1.0, 3.0, 10.0, 30.0)
NORMALISED_BETAS = (0.1, 0.3, 1.0, 3.0, 10.0)


def scores(truth, predicted) -> dict[str, float]:
    # the conventions of tests/test_grople_paper.py, plus Hamming loss
    return {
        "accuracy": jaccard_score(truth, predicted, average="samples", zero_division=1),
        "example_f1": f1_score(truth, predicted, average="samples", zero_division=1),
        "macro_f1": f1_score(truth, predicted, average="macro", zero_division=0),
        "micro_f1": f1_score(truth, predicted, average="micro", zero_division=0),
        "hamming_loss": hamming_loss(truth, predicted),
    }


class RidgeBinaryRelevance:
    """Reference: one ridge regression per +-1 label, relevant when the score is > 0."""

    def __init__(self, alpha: float) -> None:
        self.alpha = alpha

    def fit(self, X, Y):
        self.model_ = Ridge(alpha=self.alpha).fit(X, 2.0 * Y - 1.0)
        return self

    def predict(self, X):
        return (self.model_.predict(X) > 0).astype(np.uint8)


def inner_accuracy(X_train, Y_train, X_valid, Y_valid, betas) -> np.ndarray:
    groups = LabelClustering(10, random_state=0).fit(Y_train).labels_
    U, V, _ = fit_label_embedding(2.0 * Y_train - 1.0, groups, 100, 1e-3, 1.0, random_state=0)
    result = []
    for beta in betas:
        Z, intercept, _ = fit_feature_embedding(X_train, U, ALPHA, beta)
        predicted = ((np.asarray(X_valid @ Z) + intercept) @ V > 0).astype(np.uint8)
        result.append(scores(Y_valid, predicted)["accuracy"])
    return np.array(result)


def nested_beta(X, Y, folds, betas):
    rows, chosen = [], []
    for fold, (train, test) in enumerate(folds):
        inner = KFold(3, shuffle=True, random_state=fold).split(train)
        grid = np.mean(
            [
                inner_accuracy(X[train[a]], Y[train[a]], X[train[b]], Y[train[b]], betas)
                for a, b in inner
            ],
            axis=0,
        )
        beta = betas[int(np.argmax(grid))]
        chosen.append(beta)
        model = GroPLE(alpha=ALPHA, beta=beta, random_state=0).fit(X[train], Y[train])
        rows.append(scores(Y[test], model.predict(X[test])))
    return rows, chosen


def summary(label: str, rows, cpu: float) -> str:
    cells = []
    for metric in rows[0]:
        values = np.array([row[metric] for row in rows])
        cells.append(f"{values.mean():.3f} ± {values.std(ddof=1):.3f}")
    return f"| {label} | " + " | ".join(cells) + f" | {cpu:.0f} |"


def main() -> None:
    if mulan_dir() is None:
        sys.exit("The MULAN folder (../shared/data/mulan) is needed for this comparison.")
    data = load_arff(mulan_dir() / "enron.arff")
    X, Y = data.X, np.asarray(data.Y, dtype=np.float64)
    X_normalised = normalize(X)
    folds = list(KFold(5, shuffle=True, random_state=0).split(X))
    print(machine_description())
    print(f"enron: {X.shape[0]} x {X.shape[1]} features, {Y.shape[1]} labels\n")
    print("| setting | accuracy | example F1 | macro F1 | micro F1 | Hamming loss | CPU s |")
    print("|---|---|---|---|---|---|---|")
    fixed = [
        ("GroPLE defaults (α = 0.01, β = 1)", GroPLE, X),
        ("GroPLE β = 3", lambda: GroPLE(beta=3.0, random_state=0), X),
        ("GroPLE β = 10", lambda: GroPLE(beta=10.0, random_state=0), X),
        ("GroPLE β = 30", lambda: GroPLE(beta=30.0, random_state=0), X),
        ("GroPLE defaults, rows l2-normalised", GroPLE, X_normalised),
        ("ridge BR, ridge α = 1", lambda: RidgeBinaryRelevance(1.0), X),
        ("ridge BR, ridge α = 10", lambda: RidgeBinaryRelevance(10.0), X),
    ]
    with threadpool_limits(1):
        for label, make, features in fixed:
            start = time.process_time()
            rows = [
                scores(Y[test], make().fit(features[train], Y[train]).predict(features[test]))
                for train, test in folds
            ]
            print(summary(label, rows, time.process_time() - start), flush=True)
        for label, features, betas in (
            ("nested β", X, RAW_BETAS),
            ("nested β, rows l2-normalised", X_normalised, NORMALISED_BETAS),
        ):
            start = time.process_time()
            rows, chosen = nested_beta(features, Y, folds, betas)
            label = f"{label} over {betas}; chosen {chosen}"
            print(summary(label, rows, time.process_time() - start), flush=True)


if __name__ == "__main__":
    main()

"""ML-KNN fit + predict time: mlviz.MLkNN against a straightforward transcription of Fig. 1.

Data sets: yeast and tmc2007-500 (official MULAN train/test splits, when the MULAN folder is
present) and ``make_multilabel_classification(n_samples=2000, n_features=100, n_classes=14,
n_labels=4, random_state=0)`` split 1600/400 by ``train_test_split(random_state=0)``.
Parameters: k = 10, s = 1 (the paper's). Each time is the median of ``repeats`` runs.

The reference (``_Fig1Reference``) is what a direct reading of the pseudo code gives: one
distance vector per instance (numpy), a Python loop over labels and instances for the
counts (steps 4-13) and over test instances and labels for the decision (steps 14-18). It
is not run on tmc2007-500, where its 29k distance rows over 21.5k training instances would
take tens of minutes.

Run: ``python benchmarks/bench_mlknn.py`` (``--repeats N`` to change the number of runs).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.datasets import make_multilabel_classification
from sklearn.model_selection import train_test_split

# Run as a file (python benchmarks/bench_mlknn.py) or imported by the runner: make both the
# repository (the mlviz package itself, whatever the installed copy) and _common importable.
_HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(_HERE.parent), str(_HERE)]

from _common import machine_description, markdown_table, median_time, mulan_dir  # noqa: E402

import mlviz  # noqa: E402
from mlviz.mlknn import MLkNN  # noqa: E402

K, S = 10, 1.0


class _Fig1Reference:
    """Plain transcription of Fig. 1 of paper 003 (self excluded by index, ties positive)."""

    def __init__(self, k: int = K, s: float = S) -> None:
        self.k, self.s = k, s

    def _neighbours(self, x: np.ndarray, skip: int | None = None) -> np.ndarray:
        distances = np.sqrt(((self.X - x) ** 2).sum(axis=1))
        if skip is not None:
            distances[skip] = np.inf
        return np.argsort(distances, kind="stable")[: self.k]

    def fit(self, X: np.ndarray, Y: np.ndarray) -> _Fig1Reference:
        k, s = self.k, self.s
        self.X, self.Y = X, np.asarray(Y, dtype=int).tolist()  # Python ints: no overflow
        m, n_labels = Y.shape
        self.prior = [(s + sum(self.Y[i][label] for i in range(m))) / (s * 2 + m) for label in
                      range(n_labels)]  # fmt: skip
        neighbours = [self._neighbours(X[i], skip=i).tolist() for i in range(m)]
        self.cond_pos = [[0.0] * n_labels for _ in range(k + 1)]
        self.cond_neg = [[0.0] * n_labels for _ in range(k + 1)]
        for label in range(n_labels):
            c, c_prime = [0] * (k + 1), [0] * (k + 1)
            for i in range(m):
                delta = sum(self.Y[a][label] for a in neighbours[i])
                if self.Y[i][label] == 1:
                    c[delta] += 1
                else:
                    c_prime[delta] += 1
            for j in range(k + 1):
                self.cond_pos[j][label] = (s + c[j]) / (s * (k + 1) + sum(c))
                self.cond_neg[j][label] = (s + c_prime[j]) / (s * (k + 1) + sum(c_prime))
        return self

    def predict(self, X: np.ndarray) -> np.ndarray:
        n_labels = len(self.prior)
        out = np.zeros((X.shape[0], n_labels), dtype=np.uint8)
        for t in range(X.shape[0]):
            neighbours = self._neighbours(X[t]).tolist()
            for label in range(n_labels):
                count = sum(self.Y[a][label] for a in neighbours)
                pos = self.prior[label] * self.cond_pos[count][label]
                neg = (1 - self.prior[label]) * self.cond_neg[count][label]
                out[t, label] = pos >= neg
        return out


def _datasets() -> list[tuple[str, object, np.ndarray, object, np.ndarray, bool]]:
    """(name, X_train, Y_train, X_test, Y_test, run_reference) for every available data set."""
    found = []
    folder = mulan_dir()
    for stem, with_reference in (("yeast", True), ("tmc2007-500", False)):
        if folder is None or not (folder / f"{stem}-train.arff").exists():
            print(f"skipping {stem}: MULAN data folder not found", file=sys.stderr)
            continue
        train = mlviz.load_arff(folder / f"{stem}-train.arff")
        test = mlviz.load_arff(folder / f"{stem}-test.arff")
        found.append((stem, train.X, train.Y, test.X, test.Y, with_reference))
    X, Y = make_multilabel_classification(
        n_samples=2000, n_features=100, n_classes=14, n_labels=4, random_state=0
    )
    X_train, X_test, Y_train, Y_test = train_test_split(X, Y, test_size=400, random_state=0)
    found.append(("synthetic 2000×100, 14 labels", X_train, Y_train, X_test, Y_test, True))
    return found


def _time_model(make, X_train, Y_train, X_test, repeats: int) -> tuple[float, float, np.ndarray]:
    fit_s = median_time(lambda: make().fit(X_train, Y_train), repeats)
    fitted = make().fit(X_train, Y_train)
    predict_s = median_time(lambda: fitted.predict(X_test), repeats)
    return fit_s, predict_s, fitted.predict(X_test)


def run(repeats: int = 5) -> pd.DataFrame:
    """One row per (method, data set): fit and predict median seconds, speed-up, agreement."""
    rows = []
    for name, X_train, Y_train, X_test, Y_test, with_reference in _datasets():
        shape = (
            f"train {X_train.shape[0]}×{X_train.shape[1]}"
            f"{' sparse' if sp.issparse(X_train) else ''}, test {X_test.shape[0]}, "
            f"{Y_train.shape[1]} labels"
        )
        fit_s, predict_s, predicted = _time_model(
            lambda: MLkNN(k=K, s=S), X_train, Y_train, X_test, repeats
        )
        ours = {
            "method": "mlviz.MLkNN",
            "dataset": name,
            "shape": shape,
            "params": f"k={K}, s={S:g}",
            "fit_s": fit_s,
            "predict_s": predict_s,
            "total_s": fit_s + predict_s,
            "hamming_loss": float(np.mean(predicted != Y_test)),
            "speedup_vs_reference": float("nan"),
            "same_predictions_as_reference": float("nan"),
        }
        if with_reference:
            dense = (lambda A: A.toarray()) if sp.issparse(X_train) else np.asarray
            ref_fit, ref_predict, ref_predicted = _time_model(
                lambda: _Fig1Reference(k=K, s=S), dense(X_train), Y_train, dense(X_test),
                repeats,
            )  # fmt: skip
            agreement = float(np.mean(ref_predicted == predicted))
            ours["speedup_vs_reference"] = (ref_fit + ref_predict) / ours["total_s"]
            ours["same_predictions_as_reference"] = agreement
            rows.append(ours)
            rows.append(
                {
                    **ours,
                    "method": "Fig. 1 loop reference",
                    "fit_s": ref_fit,
                    "predict_s": ref_predict,
                    "total_s": ref_fit + ref_predict,
                    "hamming_loss": float(np.mean(ref_predicted != Y_test)),
                    "speedup_vs_reference": 1.0,
                }
            )
        else:
            rows.append(ours)
    return pd.DataFrame(rows)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print(machine_description())
    print()
    print(markdown_table(run(repeats=args.repeats)))

"""GroPLE fit and predict time, with the per-stage split (label groups / Eq. 4 / Eq. 5).

Data sets (when the MULAN folder is present): medical (d = 100, K = 5, the setting of the
paper's Figure 1), enron and tmc2007-500 (d = 100, K = 10), each fitted on the whole file
(medical 978 x 1449, enron 1702 x 1001, tmc2007-500 28596 x 500); otherwise a
``make_multilabel_classification`` sample. Other parameters are the GroPLE defaults
(lambda1 = 0.001, lambda2 = 1, alpha = 0.01, beta = 1). Times are medians of ``repeats`` runs;
the stage split is the median of ``repeats`` further runs of the three stage functions.

Run: ``OPENBLAS_NUM_THREADS=1 python benchmarks/bench_grople.py`` (``--repeats N`` to change
the number of runs, ``--datasets medical enron`` to run a subset of the MULAN files).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.datasets import make_multilabel_classification

_HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(_HERE.parent), str(_HERE)]

from _common import machine_description, markdown_table, median_time, mulan_dir  # noqa: E402

from mlviz.grople import GroPLE, fit_feature_embedding, fit_label_embedding  # noqa: E402
from mlviz.label_clustering import LabelClustering  # noqa: E402

SETTINGS = (("medical", 5), ("enron", 10), ("tmc2007-500", 10))


def _datasets(names=None):
    folder = mulan_dir()
    if folder is None:
        X, Y = make_multilabel_classification(2000, 100, n_classes=20, n_labels=3, random_state=0)
        yield "synthetic", X, Y, 10
        return
    from mlviz.io import load_arff

    for name, n_groups in SETTINGS:
        if names and name not in names:
            continue
        data = load_arff(folder / f"{name}.arff")
        yield name, data.X, data.Y, n_groups


def _stage_times(X, Y, model: GroPLE) -> dict[str, float]:
    start = time.perf_counter()
    groups = LabelClustering(model.n_groups, random_state=0).fit(Y).labels_
    t_groups = time.perf_counter()
    U, _, history = fit_label_embedding(
        2.0 * Y - 1.0, groups, model.n_components, model.lambda1, model.lambda2
    )
    t_labels = time.perf_counter()
    _, _, feature_history = fit_feature_embedding(X, U, model.alpha, model.beta)
    t_features = time.perf_counter()
    return {
        "groups_s": t_groups - start,
        "label_embedding_s": t_labels - t_groups,
        "feature_embedding_s": t_features - t_labels,
        "outer_iterations": len(history),
        "feature_iterations": len(feature_history) - 1,
    }


def _median_stage_times(X, Y, model: GroPLE, repeats: int) -> dict[str, float]:
    runs = [_stage_times(X, Y, model) for _ in range(max(1, repeats))]
    return {key: float(np.median([run[key] for run in runs])) for key in runs[0]}


def run(repeats: int = 5, datasets=None) -> pd.DataFrame:
    rows = []
    for name, X, Y, n_groups in _datasets(datasets):
        model = GroPLE(n_components=100, n_groups=n_groups)
        fit_s = median_time(lambda model=model, X=X, Y=Y: model.fit(X, Y), repeats)
        predict_s = median_time(lambda model=model, X=X: model.predict(X), repeats)
        rows.append(
            {
                "method": "GroPLE",
                "dataset": name,
                "shape": f"{X.shape[0]}x{X.shape[1]}, L={Y.shape[1]}",
                "params": f"d=100, K={n_groups}, λ1=0.001, λ2=1, α=0.01, β=1",
                "fit_s": fit_s,
                "predict_s": predict_s,
                **_median_stage_times(X, np.asarray(Y, dtype=float), model, repeats),
            }
        )
    return pd.DataFrame(rows)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument(
        "--datasets", nargs="*", choices=[name for name, _ in SETTINGS], help="default: all"
    )
    args = parser.parse_args()
    print(machine_description())
    print()
    print(markdown_table(run(args.repeats, args.datasets)))

"""GroPLE fit and predict time, with the per-stage split (label groups / Eq. 4 / Eq. 5).

Data sets: medical (d = 100, K = 5, the setting of the paper's Figure 1), enron and
tmc2007-500 (d = 100, K = 10), each fitted on the whole file (medical 978 x 1449, enron
1702 x 1001, tmc2007-500 28596 x 500) when the MULAN folder is present (otherwise a
``make_multilabel_classification`` sample); and the training split (first 70 %, 11,273 rows)
of the delicious-shaped set ``make_long_tailed(**LONG_TAILED_SHAPES["delicious"])``: the
estimator's defaults (d = 100, K = 10), the GroPLE page's opening settings (d = 100, which
the page uses above 200 labels, and K = 2, the eigengap's suggestion there) and the largest d
its slider offers (200, K = 2). Other parameters are the GroPLE defaults (lambda1 = 0.001,
lambda2 = 1, alpha = 0.01, beta = 1).

``fit_s`` and ``fit_cpu_s`` are the median wall and CPU (process) time of ``GroPLE.fit`` over
``repeats`` runs; the stage columns are medians of ``repeats`` further runs of the three
stages exactly as ``fit`` calls them (stage 1 :class:`~mlviz.LabelClustering`, stage 2
Algorithm 1 on the 0/1 labels, stage 3 the Eq. (5) APG), in CPU seconds, so that they can be
read on a busy machine. The load average before the run is printed: on the shared 2-core
machine compare CPU times, or before/after pairs run back to back.

Run: ``OPENBLAS_NUM_THREADS=1 python benchmarks/bench_grople.py`` (``--repeats N`` to change
the number of runs, ``--datasets medical delicious-d100-K2`` to run a subset).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.datasets import make_multilabel_classification

_HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(_HERE.parent), str(_HERE)]

from _common import machine_description, markdown_table, mulan_dir  # noqa: E402

from mlviz.grople import (  # noqa: E402
    GroPLE,
    _fit_label_embedding,
    _SignedLabels,
    fit_feature_embedding,
)
from mlviz.label_clustering import LabelClustering  # noqa: E402

# (name, d, K)
MULAN_SETTINGS = (("medical", 100, 5), ("enron", 100, 10), ("tmc2007-500", 100, 10))
DELICIOUS_SETTINGS = (
    ("delicious-d100-K10", 100, 10),
    ("delicious-d100-K2", 100, 2),
    ("delicious-d200-K2", 200, 2),
)
NAMES = [name for name, _, _ in MULAN_SETTINGS + DELICIOUS_SETTINGS]


def _datasets(names=None):
    folder = mulan_dir()
    if folder is None:
        X, Y = make_multilabel_classification(2000, 100, n_classes=20, n_labels=3, random_state=0)
        yield "synthetic", X, Y, 100, 10
    else:
        from mlviz.io import load_arff

        for name, d, n_groups in MULAN_SETTINGS:
            if names and name not in names:
                continue
            data = load_arff(folder / f"{name}.arff")
            yield name, data.X, data.Y, d, n_groups
    wanted = [s for s in DELICIOUS_SETTINGS if not names or s[0] in names]
    if wanted:
        from mlviz.synthetic import LONG_TAILED_SHAPES, make_long_tailed

        data = make_long_tailed(**LONG_TAILED_SHAPES["delicious"], random_state=0)
        n_train = int(0.7 * data.n_samples)
        for name, d, n_groups in wanted:
            yield name, data.X[:n_train], data.Y[:n_train], d, n_groups


def feature_stage(X, U, model: GroPLE) -> list[float]:
    """Stage 3 (Eq. 5) as ``GroPLE.fit`` runs it on U with ``model``'s settings; its
    objective history."""
    return fit_feature_embedding(
        X,
        U,
        model.alpha,
        model.beta,
        fit_intercept=model.fit_intercept,
        gamma=model.gamma,
        max_iter=model.feature_max_iter,
        tol=model.feature_tol,
        step=model.feature_step,
    )[2]


def _stage_times(X, Y, model: GroPLE) -> dict[str, float]:
    """The three stages as ``GroPLE._fit_stages`` runs them, in CPU seconds."""
    start = time.process_time()
    groups = (
        LabelClustering(
            n_groups=model.n_groups,
            affinity=model.label_affinity,
            n_neighbors=model.n_neighbors,
            random_state=model.random_state,
        )
        .fit(Y)
        .labels_
    )
    t_groups = time.process_time()
    U, _, history = _fit_label_embedding(
        _SignedLabels(Y, signed=False),
        groups,
        model.n_components,
        model.lambda1,
        model.lambda2,
        init=model.init,
        gamma=model.gamma,
        max_iter=model.max_iter,
        tol=model.tol,
        apg_max_iter=model.apg_max_iter,
        apg_tol=model.apg_tol,
        balance=True,
        warm_start=True,
        random_state=model.random_state,
        use_gram=None,
        solver=model.solver,
    )
    t_labels = time.process_time()
    feature_history = feature_stage(X, U, model)
    t_features = time.process_time()
    return {
        "groups_cpu_s": t_groups - start,
        "label_embedding_cpu_s": t_labels - t_groups,
        "feature_embedding_cpu_s": t_features - t_labels,
        "outer_iterations": len(history),
        "feature_iterations": len(feature_history) - 1,
    }


def _median_times(fn, repeats: int) -> tuple[float, float]:
    wall, cpu = [], []
    for _ in range(max(1, repeats)):
        start_wall, start_cpu = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - start_wall)
        cpu.append(time.process_time() - start_cpu)
    return float(np.median(wall)), float(np.median(cpu))


def run(repeats: int = 5, datasets=None) -> pd.DataFrame:
    rows = []
    for name, X, Y, d, n_groups in _datasets(datasets):
        model = GroPLE(n_components=d, n_groups=n_groups, random_state=0)
        fit_s, fit_cpu_s = _median_times(lambda model=model, X=X, Y=Y: model.fit(X, Y), repeats)
        predict_s, _ = _median_times(lambda model=model, X=X: model.predict(X), repeats)
        runs = [_stage_times(X, np.asarray(Y, dtype=float), model) for _ in range(repeats)]
        rows.append(
            {
                "method": "GroPLE",
                "dataset": name,
                "shape": f"{X.shape[0]}x{X.shape[1]}, L={Y.shape[1]}",
                "params": f"d={d}, K={n_groups}, λ1=0.001, λ2=1, α=0.01, β=1",
                "fit_s": fit_s,
                "fit_cpu_s": fit_cpu_s,
                "predict_s": predict_s,
                **{key: float(np.median([run[key] for run in runs])) for key in runs[0]},
            }
        )
        print(rows[-1], flush=True)
    return pd.DataFrame(rows)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--datasets", nargs="*", choices=NAMES, help="default: all")
    args = parser.parse_args()
    print(machine_description())
    print(f"load average before the run: {os.getloadavg()[0]:.1f} (1 min)")
    print()
    print(markdown_table(run(args.repeats, args.datasets)))

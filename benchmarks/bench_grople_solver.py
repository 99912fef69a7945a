"""GroPLE's Eq. (4): the paper's alternation against variable projection (issue 33, goal 2).

For each data set and (λ1, λ2), stage 2 alone (``mlviz.grople._fit_label_embedding``, as
``GroPLE.fit`` calls it; stage 1's groups are computed once, outside the timing) with
``solver="alternating"`` (the paper's Algorithm 1 from the random U_0) and
``solver="varpro"`` (the default): the iterations, Eq. (4) where each stopped, the latent
rows used by any group, and the CPU seconds. Data sets: medical (K = 5, the paper's Figure 1
setting), enron (K = 10) from the MULAN folder when present; the planted sample (K = 10);
the bibtex-shaped generated set (800 rows, 159 labels, K = 10) and the delicious-shaped
training split (11,273 rows, 983 labels, K = 2, as the GroPLE page opens there). d = 100,
one BLAS thread (as ``fit`` runs).

Run: ``OPENBLAS_NUM_THREADS=1 python benchmarks/bench_grople_solver.py`` (``--datasets
medical planted`` for a subset). Results: docs/GROPLE.md, "Variable projection".
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

_HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(_HERE.parent), str(_HERE)]

from _common import datasets_main, mulan_dir  # noqa: E402

from mlviz.grople import _fit_label_embedding, _SignedLabels  # noqa: E402
from mlviz.label_clustering import LabelClustering  # noqa: E402

GROUPS = {"medical": 5, "enron": 10, "planted": 10, "bibtex-like": 10, "delicious-like": 2}
LAMBDAS = [(1e-3, 1.0), (1e-2, 10.0), (1e-3, 0.1), (1.0, 1.0)]


def _labels(name: str) -> np.ndarray | None:
    from mlviz.synthetic import LONG_TAILED_SHAPES, make_long_tailed, make_planted

    if name == "planted":
        return make_planted(random_state=0)[0].Y
    if name == "bibtex-like":
        shape = {**LONG_TAILED_SHAPES["bibtex"], "n_samples": 800, "n_features": 200}
        return make_long_tailed(**shape, random_state=0).Y
    if name == "delicious-like":
        data = make_long_tailed(**LONG_TAILED_SHAPES["delicious"], random_state=0)
        return data.Y[: int(0.7 * data.n_samples)]
    folder = mulan_dir()
    if folder is None or not (folder / f"{name}.arff").exists():
        return None
    from mlviz.io import load_arff

    return load_arff(folder / f"{name}.arff").Y


def run(repeats: int = 1, names: list[str] | None = None) -> pd.DataFrame:
    """One fit per setting (``repeats`` is ``run_all.py``'s argument; CPU columns are
    single runs)."""
    rows = []
    names = names or list(GROUPS)
    with threadpool_limits(1, "blas"):
        for name in names:
            Y = _labels(name)
            if Y is None:
                print(f"{name}: not found in the MULAN folder, skipped", flush=True)
                continue
            groups = LabelClustering(n_groups=GROUPS[name], random_state=0).fit(Y).labels_
            labels = _SignedLabels(Y, signed=False)
            for lambda1, lambda2 in LAMBDAS:
                for solver in ("alternating", "varpro"):
                    started = time.process_time()
                    _, V, history = _fit_label_embedding(
                        labels,
                        groups,
                        100,
                        lambda1,
                        lambda2,
                        random_state=0,  # GroPLE's other defaults
                        solver=solver,
                    )
                    row = {
                        "dataset": name,
                        "lambda1": lambda1,
                        "lambda2": lambda2,
                        "solver": solver,
                        "iterations": len(history),
                        "eq4_at_stop": round(history[-1], 4),
                        "rows_used": int((np.linalg.norm(V, axis=1) > 0).sum()),
                        "cpu_s": round(time.process_time() - started, 3),
                    }
                    print(row, flush=True)
                    rows.append(row)
    return pd.DataFrame(rows)


def main(argv: list[str] | None = None) -> None:
    datasets_main(__doc__, run, list(GROUPS), argv)


if __name__ == "__main__":
    main()

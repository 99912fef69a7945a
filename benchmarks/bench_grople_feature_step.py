"""GroPLE's Eq. (5): LLSF's uniform APG step against the diagonal step (issue 33, goal 2).

For each data set, a 70/30 split (shuffled with seed 0) and GroPLE at its defaults (d = 100,
``random_state=0``) with K per data set, fitted once with ``feature_step="uniform"`` (one
step from the Lipschitz constant, as LLSF) and once with ``feature_step="diagonal"`` (the
default: a step per entry of Z from Gershgorin row sums). Stages 1 and 2 are the same in
both fits; the columns are the whole fit's CPU seconds, then stage 3 alone
(``fit_feature_embedding`` on the fitted U, as ``fit`` calls it): its CPU seconds, its APG
steps, the lowest Eq. (5) it reached (the iterate it returns), and the test micro- and
example-based F1 of each fitted model. Data sets: medical (K = 5, the paper's Figure 1
setting), enron, genbase, yeast, emotions and tmc2007-500 from the MULAN folder when present;
the bibtex-shaped generated set (800 rows, 159 labels) and the delicious-shaped one
(16,105 rows, 983 labels, K = 2, as the GroPLE page opens there). One BLAS thread (as
``fit`` runs).

Run: ``OPENBLAS_NUM_THREADS=1 python benchmarks/bench_grople_feature_step.py``
(``--datasets medical enron`` for a subset). Results: docs/GROPLE.md, "Eq. 5's diagonal
step".
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pandas as pd
from sklearn.metrics import f1_score
from sklearn.model_selection import train_test_split
from threadpoolctl import threadpool_limits

_HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(_HERE.parent), str(_HERE)]

from _common import datasets_main, mulan_dir  # noqa: E402
from bench_grople import feature_stage  # noqa: E402

from mlviz.grople import GroPLE  # noqa: E402

GROUPS = {
    "medical": 5,
    "enron": 10,
    "genbase": 10,
    "yeast": 5,
    "emotions": 3,
    "tmc2007-500": 10,
    "bibtex-like": 10,
    "delicious-like": 2,
}


def _data(name: str):
    from mlviz.synthetic import LONG_TAILED_SHAPES, make_long_tailed

    if name == "bibtex-like":
        shape = {**LONG_TAILED_SHAPES["bibtex"], "n_samples": 800, "n_features": 200}
        data = make_long_tailed(**shape, random_state=0)
        return data.X, data.Y
    if name == "delicious-like":
        data = make_long_tailed(**LONG_TAILED_SHAPES["delicious"], random_state=0)
        return data.X, data.Y
    folder = mulan_dir()
    if folder is None or not (folder / f"{name}.arff").exists():
        return None
    from mlviz.io import load_arff

    data = load_arff(folder / f"{name}.arff")
    return data.X, data.Y


def run(repeats: int = 1, names: list[str] | None = None) -> pd.DataFrame:
    """One fit per data set and step (``repeats`` is ``run_all.py``'s argument; the CPU
    columns are single runs)."""
    rows = []
    names = names or list(GROUPS)
    with threadpool_limits(1, "blas"):
        for name in names:
            data = _data(name)
            if data is None:
                print(f"{name}: not found in the MULAN folder, skipped", flush=True)
                continue
            X_train, X_test, Y_train, Y_test = train_test_split(
                *data, test_size=0.3, random_state=0
            )
            for step in ("uniform", "diagonal"):
                model = GroPLE(n_groups=GROUPS[name], feature_step=step, random_state=0)
                started = time.process_time()
                model.fit(X_train, Y_train)
                fit_cpu = time.process_time() - started
                started = time.process_time()
                history = feature_stage(X_train, model.U_, model)
                stage3_cpu = time.process_time() - started
                predicted = model.predict(X_test)
                row = {
                    "dataset": name,
                    "step": step,
                    "fit_cpu_s": round(fit_cpu, 3),
                    "eq5_cpu_s": round(stage3_cpu, 3),
                    "eq5_steps": len(history) - 1,
                    "eq5_lowest": round(min(history), 3),
                    "converged": model.feature_converged_,
                    "micro_f1": round(f1_score(Y_test, predicted, average="micro"), 4),
                    "example_f1": round(
                        f1_score(Y_test, predicted, average="samples", zero_division=0), 4
                    ),
                }
                print(row, flush=True)
                rows.append(row)
    return pd.DataFrame(rows)


def main(argv: list[str] | None = None) -> None:
    datasets_main(__doc__, run, list(GROUPS), argv)


if __name__ == "__main__":
    main()

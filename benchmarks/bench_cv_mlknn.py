"""CPU time of one ML-KNN cross-validation fold: one test neighbour search or two.

``cross_validate`` needs an ML-KNN model's hard predictions and its scores (for the ranking
metrics). Through ``predict`` and then ``decision_function`` the test neighbours are searched
twice; through :meth:`mlviz.MLkNN.predict_with_scores` (what ``cross_validate`` calls) once.
Both paths run here on the same fold, and their tables of scores must be identical.

Data: the delicious-shaped set, ``make_long_tailed(**LONG_TAILED_SHAPES["delicious"])``
(16,105 x 500 sparse, 983 labels), one 80/20 split (``repeated_splits(1, 0.2, 0)``), k = 10.
Times are process CPU seconds (``time.process_time``), medians of ``repeats`` runs; BLAS
threads should be 1 (``OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1``).

Run: ``python benchmarks/bench_cv_mlknn.py`` (``--repeats N``, ``--n-samples N`` for a
smaller set).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import pandas as pd

_HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(_HERE.parent), str(_HERE)]

from _common import machine_description, markdown_table  # noqa: E402

from mlviz.evaluation import cross_validate, repeated_splits  # noqa: E402
from mlviz.mlknn import MLkNN  # noqa: E402
from mlviz.synthetic import LONG_TAILED_SHAPES, make_long_tailed  # noqa: E402


class _TwoSearches(MLkNN):
    """MLkNN without predict_with_scores: cross_validate calls predict, then
    decision_function (the path before predict_with_scores existed)."""

    predict_with_scores = property()  # hasattr() is False


def _cpu_seconds(estimator, X, Y) -> tuple[float, float, pd.DataFrame]:
    start = time.process_time()
    table = cross_validate(
        {"ML-KNN": estimator}, X, Y, cv=repeated_splits(1, 0.2, random_state=0), n_jobs=1
    ).results
    return time.process_time() - start, float(table["predict_time"].iloc[0]), table


def run(repeats: int = 3, n_samples: int | None = None) -> pd.DataFrame:
    shape = dict(LONG_TAILED_SHAPES["delicious"])
    if n_samples is not None:
        shape["n_samples"] = n_samples
    data = make_long_tailed(**shape, random_state=0)
    rows, tables = [], {}
    for name, estimator in [("two searches", _TwoSearches(k=10)), ("one search", MLkNN(k=10))]:
        runs = [_cpu_seconds(estimator, data.X, data.Y) for _ in range(repeats)]
        tables[name] = runs[-1][2].drop(columns=["fit_time", "predict_time"])
        rows.append(
            {
                "path": name,
                "fold CPU s": statistics.median(r[0] for r in runs),
                "predict + scores wall s": statistics.median(r[1] for r in runs),
            }
        )
    pd.testing.assert_frame_equal(tables["two searches"], tables["one search"])
    return pd.DataFrame(rows)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--n-samples", type=int, default=None)
    args = parser.parse_args()
    print(machine_description())
    print(markdown_table(run(args.repeats, args.n_samples), floatfmt=".3g"))

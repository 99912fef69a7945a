"""GroPLE's U step in its two forms, per outer iteration of Eq. (4), over shapes (issue 33).

``_fit_label_embedding`` needs U only through ``U^T U`` and ``U^T Y``: from the (L, L) Gram
matrix of Y (the Gram form) or from U itself (a Cholesky solve with N right-hand sides). This
times both forms (``use_gram=True`` / ``False``, the variable-projection solver, λ1 = 1,
λ2 = 10, K = 5) on long-tailed label matrices of several shapes and prints, per shape, the
seconds per iteration of each, the faster one and which one :func:`mlviz.grople.
_gram_form_is_cheaper` picks. That rule's weight ``_DIRECT_FORM_SLOWDOWN`` comes from here.

Run: ``OPENBLAS_NUM_THREADS=1 python benchmarks/bench_grople_gram.py``.
"""

from __future__ import annotations

import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

_HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(_HERE.parent), str(_HERE)]

from _common import machine_description, markdown_table  # noqa: E402

#: (N, L, d, label cardinality): the chance panel's folds of a 159-label set, medical, yeast,
#: enron, corel5k and delicious-like shapes
SHAPES = [
    (373, 159, 80, 2.4),
    (2000, 159, 80, 2.4),
    (5200, 159, 80, 2.4),
    (400, 45, 22, 1.25),
    (400, 45, 100, 1.25),
    (1500, 14, 7, 4.2),
    (1100, 53, 27, 3.4),
    (300, 374, 100, 3.5),
    (3500, 374, 100, 3.5),
    (3000, 983, 100, 19.0),
    (150, 22, 11, 2.0),
]


def run(repeats: int = 2) -> pd.DataFrame:
    """The fastest of ``repeats`` fits per form and shape, in seconds per iteration."""
    from threadpoolctl import threadpool_limits

    import mlviz.grople as grople
    from mlviz.label_clustering import LabelClustering
    from mlviz.synthetic import make_long_tailed

    rows = []
    with threadpool_limits(1):
        for n_samples, n_labels, d, cardinality in SHAPES:
            Y = np.asarray(
                make_long_tailed(
                    n_samples=n_samples,
                    n_features=10,
                    n_labels=n_labels,
                    cardinality=cardinality,
                    tail_exponent=1.0,
                    random_state=0,
                ).Y
            )
            groups = LabelClustering(n_groups=5, random_state=0).fit(Y).labels_
            labels = grople._SignedLabels(Y, signed=False)
            per_iteration = {}
            for use_gram in (False, True):
                times = []
                for _ in range(repeats):
                    started = time.perf_counter()
                    _, _, history = grople._fit_label_embedding(
                        labels,
                        groups,
                        d,
                        1.0,
                        10.0,
                        use_gram=use_gram,
                        random_state=0,
                        solver="varpro",
                    )
                    times.append((time.perf_counter() - started) / len(history))
                per_iteration[use_gram] = min(times)
            picks = grople._gram_form_is_cheaper(n_samples, n_labels, d, labels.product_cost())
            faster = per_iteration[True] < per_iteration[False]
            rows.append(
                {
                    "N": n_samples,
                    "L": n_labels,
                    "d": d,
                    "direct_ms": 1e3 * per_iteration[False],
                    "gram_ms": 1e3 * per_iteration[True],
                    "faster": "gram" if faster else "direct",
                    "ratio": max(per_iteration.values()) / min(per_iteration.values()),
                    "rule_picks": "gram" if picks else "direct",
                }
            )
            print(rows[-1], flush=True)
    return pd.DataFrame(rows)


def main() -> None:
    warnings.simplefilter("ignore")
    print(machine_description(), f"load average {os.getloadavg()[0]:.2f}", flush=True)
    print(markdown_table(run(), floatfmt=".3g"))


if __name__ == "__main__":
    main()

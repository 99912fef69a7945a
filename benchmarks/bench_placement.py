"""CLEMS's out-of-sample placement alone, at the shape of its M = L fit on delicious.

:func:`mlviz.mds.out_of_sample_smacof` places 8,000 points against 1,000 fixed landmarks in
983 dimensions (CLEMS's landmark path at M = L = 983 places ~11,000 candidates against
1,000 landmarks, docs/CLEMS.md): random landmarks, and dissimilarities that are each point's
true distances stretched by up to 5 % (so every point needs a few updates), one BLAS thread
per call, on ``--n-jobs`` threads (default one), in ``--dtype`` precision (default float64;
CLEMS places in float32, ``mlviz.clems.PLACEMENT_DTYPE``).
This shape takes the "combinations of landmarks" path (M > n_landmarks / 2). Reported: the
minimum and median wall time of ``--repeats`` calls, and the sum of the final stresses and
of the updates, which must agree between checkouts compared.

Run in any checkout: ``python benchmarks/bench_placement.py [--n-jobs 2] [--dtype float32]``
(``--dtype`` needs the checkouts since issue 33's stop 49); ``run()`` for
``benchmarks/run_all.py``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from scipy.spatial.distance import cdist  # noqa: E402

_HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(_HERE.parent), str(_HERE)]

from _common import machine_description, markdown_table  # noqa: E402

from mlviz.mds import out_of_sample_smacof  # noqa: E402


def run(repeats: int = 3, n_jobs: int | None = None, dtype: str | None = None) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    landmarks = 0.05 * rng.standard_normal((1000, 983))
    points = 0.05 * rng.standard_normal((8000, 983))
    delta = cdist(points, landmarks) * (1.0 + 0.05 * rng.random((8000, 1000)))
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        precision = {} if dtype is None else {"dtype": dtype}
        result = out_of_sample_smacof(landmarks, delta, tol=1e-4, n_jobs=n_jobs, **precision)
        times.append(time.perf_counter() - start)
    _, stress, n_iter = result
    return pd.DataFrame(
        [
            {
                "points x landmarks x M": "8,000 x 1,000 x 983",
                "n_jobs": n_jobs,
                "dtype": dtype or "float64",
                "min (s)": min(times),
                "median (s)": float(np.median(times)),
                "sum of stresses": float(stress.sum()),
                "updates": int(n_iter.sum()),
            }
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--n-jobs", type=int, default=None)
    parser.add_argument("--dtype", choices=["float64", "float32"], default=None)
    args = parser.parse_args()
    print(machine_description(), "\n")
    print(markdown_table(run(args.repeats, args.n_jobs, args.dtype), floatfmt=".10g"))


if __name__ == "__main__":
    main()

"""Classical MDS: scikit-learn's ClassicalMDS (full eigh) against the truncated eigensolver.

python benchmarks/bench_classical_mds.py [--repeats N] [--sizes 2000 8000] [--components 2 983]

Dissimilarities: CLEMS' F1 cost between the n most frequent distinct label sets of the
delicious-shaped set (``make_long_tailed(**LONG_TAILED_SHAPES["delicious"])``, 983 labels),
symmetrised, i.e. the matrix CLEMS' classical start factorises. Times are CPU seconds
(``time.process_time``, median of the repeats) with one BLAS thread, so they are comparable
on a shared machine. ClassicalMDS always computes the whole spectrum, so it is timed once per
n (for the largest M; its cost does not depend on M): about 100 s a repeat at n = 8,000.
``mlviz.mds.classical_mds`` picks ClassicalMDS when M > n/5 and the truncated solver
otherwise; the ``chosen`` column says which.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import machine_description, markdown_table  # noqa: E402
from mlviz.costs import cost_matrix  # noqa: E402
from mlviz.mds import (  # noqa: E402
    _classical_mds_full,
    _classical_mds_truncated,
    _wants_full_spectrum,
)
from mlviz.stats import unique_rows  # noqa: E402
from mlviz.synthetic import LONG_TAILED_SHAPES, make_long_tailed  # noqa: E402


def _dissimilarities(labels: np.ndarray, n: int) -> np.ndarray:
    rows, counts = unique_rows(labels)
    top = rows[np.argsort(-counts, kind="stable")[:n]]
    if len(top) < n:
        raise SystemExit(f"the delicious-shaped set has only {len(top)} distinct label sets")
    delta = cost_matrix(top, top, "f1")
    return 0.5 * (delta + delta.T)


def _cpu_seconds(repeats: int, fn, *args):
    seconds = []
    for _ in range(repeats):
        start = time.process_time()
        result = fn(*args)
        seconds.append(time.process_time() - start)
    return float(np.median(seconds)), result


def run(
    repeats: int = 1,
    sizes: tuple[int, ...] = (2000, 8000),
    components: tuple[int, ...] = (2, 20, 100, 400, 983),
) -> pd.DataFrame:
    """One row per (n, M): CPU seconds of both paths, the path classical_mds takes, and the
    largest difference between their embeddings."""
    labels = make_long_tailed(**LONG_TAILED_SHAPES["delicious"], random_state=0).Y
    rows = []
    for n in sizes:
        delta = _dissimilarities(labels, n)
        wanted = [m for m in components if m <= n]
        full_seconds, full = _cpu_seconds(repeats, _classical_mds_full, delta, max(wanted))
        for m in wanted:
            seconds, truncated = _cpu_seconds(repeats, _classical_mds_truncated, delta, m)
            rows.append(
                {
                    "n": n,
                    "M": m,
                    "truncated_cpu_s": seconds,
                    "ClassicalMDS_cpu_s": full_seconds,
                    "chosen": "ClassicalMDS" if _wants_full_spectrum(n, m) else "truncated",
                    "max_abs_difference": float(np.max(np.abs(truncated - full[:, :m]))),
                }
            )
            print(rows[-1], file=sys.stderr, flush=True)
    return pd.DataFrame(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000, 8000])
    parser.add_argument("--components", type=int, nargs="+", default=[2, 20, 100, 400, 983])
    args = parser.parse_args()
    table = run(args.repeats, tuple(args.sizes), tuple(args.components))
    print(machine_description())
    print()
    print(markdown_table(table, floatfmt=".3g"))


if __name__ == "__main__":
    main()

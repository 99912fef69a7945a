"""Per-rerun helpers of the pages at the delicious shape (issue 33, stop 43).

Each row times one call the pages make on a rerun or a slider move, at delicious's shape
(:data:`mlviz.synthetic.LONG_TAILED_SHAPES` ["delicious"]: 16,105 rows, 983 labels), one BLAS
thread, minimum and median of ``--repeats`` calls in this process:

* ``fit_lines``: a group's labels cut to the table's four lines (950 names in a 590 px
  column; the GroPLE and Label clusters pages draw one per group on every run);
* ``labelset_text``: every distinct label set of 12,000 rows as hover text (the CLEMS page,
  once per fit);
* ``group_diagnostics``: one partition (K = 12) with its pair counts counted, and with the
  counts given (the Label clusters page on every move of K);
* ``stats.cooccurrence``: the pair counts themselves (once per data set);
* ``lambda1_max``: the λ1 slider's bound at d = 246 on 12,000 rows (every move of d on the
  GroPLE page), with the number of margin evaluations;
* both λ bounds of a move of d (d = 246, 12,000 rows): by the two functions, and from one
  ``LambdaBounds`` (stop 44), where the checkout has it.

Run in any checkout (``python benchmarks/bench_page_helpers.py``); a row whose call that
checkout does not have (``cooccurrence=``) is left out. ``run()`` for
``benchmarks/run_all.py``.
"""

from __future__ import annotations

import argparse
import inspect
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")  # the app server's choice (pages/_app/server.py)

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

_HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(_HERE.parent), str(_HERE)]

from _common import machine_description, markdown_table  # noqa: E402

from mlviz import grople, stats  # noqa: E402
from mlviz.figures.hypercube import labelset_text  # noqa: E402
from mlviz.label_clustering import group_diagnostics  # noqa: E402
from mlviz.synthetic import LONG_TAILED_SHAPES, make_long_tailed  # noqa: E402
from pages._app.tables import fit_lines  # noqa: E402


def _times(call: Callable[[], object], repeats: int) -> tuple[float, float]:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return min(times), float(np.median(times))


def run(repeats: int = 7) -> pd.DataFrame:
    data = make_long_tailed(**LONG_TAILED_SHAPES["delicious"], random_state=0)
    Y, names = np.asarray(data.Y), list(data.label_names)
    topics = ["computational", "biology", "ml", "web2.0", "semantic", "networks"]
    group = [f"tag_{topics[i % 6]}_{i:03d}" for i in range(950)]
    sets = np.unique(Y[:12_000], axis=0)
    partition = np.arange(Y.shape[1]) % 12
    calls: dict[str, Callable[[], object]] = {
        "fit_lines, 950 names, 590 px": lambda: fit_lines(group, 590),
        f"labelset_text, {len(sets):,} label sets": lambda: labelset_text(sets, names),
        "group_diagnostics, K = 12, counts counted": lambda: group_diagnostics(
            Y, partition, label_names=names
        ),
    }
    if "cooccurrence" in inspect.signature(group_diagnostics).parameters:
        counts = stats.cooccurrence(Y)
        calls["group_diagnostics, K = 12, counts given"] = lambda: group_diagnostics(
            Y, partition, label_names=names, cooccurrence=counts
        )
    calls["stats.cooccurrence"] = lambda: stats.cooccurrence(Y)
    bound_groups = np.arange(Y.shape[1]) % 4
    calls["lambda1_max, d = 246, 12,000 rows"] = lambda: grople.lambda1_max(
        Y[:12_000], bound_groups, 246, 10.0, random_state=0
    )
    both = "both λ bounds, d = 246, 12,000 rows"
    calls[f"{both}: the functions"] = lambda: (
        grople.lambda2_max(Y[:12_000], bound_groups, 246, random_state=0),
        grople.lambda1_max(Y[:12_000], bound_groups, 246, 10.0, random_state=0),
    )
    if hasattr(grople, "LambdaBounds"):

        def from_one_start() -> tuple[float, float]:
            bounds = grople.LambdaBounds(Y[:12_000], bound_groups, 246, random_state=0)
            return bounds.lambda2_max(), bounds.lambda1_max(10.0)

        calls[f"{both}: one LambdaBounds"] = from_one_start
    rows = []
    for name, call in calls.items():
        fastest, median = _times(call, repeats if "λ" not in name and "lambda" not in name else 3)
        rows.append({"call": name, "min (s)": fastest, "median (s)": median})
    return pd.DataFrame(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    print(machine_description(), "\n")
    print(markdown_table(run(args.repeats)))


if __name__ == "__main__":
    main()

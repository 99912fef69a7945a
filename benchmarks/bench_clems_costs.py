"""CLEMS' candidate costs with dense and with sparse (CSR) candidates, by share of ones (issue 33).

CLEMS counts ``|a ∧ b|`` for its cost blocks by a float32 product of the 0/1 candidate
matrices. :func:`mlviz.clems._cost_input` makes the candidates CSR when at most
``_SPARSE_CANDIDATE_DENSITY`` of the entries are ones, so the product is sparse x dense. Two
parts:

* ``block``: one cost block, 12,000 candidates against 256 (the size of a landmark batch), at
  several numbers of labels L and shares of ones, dense against CSR: where the two are level
  is where the threshold belongs;
* ``candidate costs``: the whole of :func:`mlviz.clems._candidate_costs` (landmark choice and
  the costs to the landmarks) on the training share (75 %) of the delicious-shaped set, dense
  (threshold forced below 0) against the default.

Run: ``OPENBLAS_NUM_THREADS=1 python benchmarks/bench_clems_costs.py`` (``--repeats N``).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp

_HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(_HERE.parent), str(_HERE)]

from _common import machine_description, markdown_table, median_time  # noqa: E402

#: (L, share of ones): delicious ~2 %, medical ~3 %, enron ~6 %, yeast ~30 %
SHAPES = [
    (983, 0.02),
    (983, 0.03),
    (983, 0.05),
    (983, 0.1),
    (983, 0.2),
    (174, 0.02),
    (174, 0.1),
    (22, 0.3),
]


def run(repeats: int = 3) -> pd.DataFrame:
    """Median seconds of each part, dense and sparse."""
    from threadpoolctl import threadpool_limits

    import mlviz.clems as clems
    from mlviz.synthetic import LONG_TAILED_SHAPES, make_long_tailed

    rows = []
    rng = np.random.default_rng(0)
    with threadpool_limits(1):
        for n_labels, share in SHAPES:
            candidates = (rng.random((12_000, n_labels)) < share).astype(np.float32)
            batch = candidates[:256]
            sparse = sp.csr_matrix(candidates)
            dense_s = median_time(
                lambda c=candidates, b=batch: clems._candidate_cost_matrix(c, b, "f1"), repeats
            )
            sparse_s = median_time(
                lambda c=sparse, b=batch: clems._candidate_cost_matrix(c, b, "f1"), repeats
            )
            rows.append(
                {
                    "part": f"block 12,000 x 256, L = {n_labels}, {share:.0%} ones",
                    "dense_s": dense_s,
                    "sparse_s": sparse_s,
                    "speed-up": dense_s / sparse_s,
                }
            )
            print(rows[-1], flush=True)

        ds = make_long_tailed(**LONG_TAILED_SHAPES["delicious"], random_state=0)
        Y = np.asarray(ds.Y[: int(0.75 * ds.n_samples)], dtype=np.uint8)
        default = clems._SPARSE_CANDIDATE_DENSITY
        times = {}
        for name, threshold in [("dense", -1.0), ("sparse", default)]:
            clems._SPARSE_CANDIDATE_DENSITY = threshold
            try:
                times[name] = median_time(lambda: clems._candidate_costs(Y, "f1", None), repeats)
            finally:
                clems._SPARSE_CANDIDATE_DENSITY = default
        rows.append(
            {
                "part": "candidate costs, delicious shape (75 % of the rows)",
                "dense_s": times["dense"],
                "sparse_s": times["sparse"],
                "speed-up": times["dense"] / times["sparse"],
            }
        )
        print(rows[-1], flush=True)
    return pd.DataFrame(rows)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    print(machine_description(), f"load average {os.getloadavg()[0]:.2f}", flush=True)
    print(markdown_table(run(repeats=args.repeats), floatfmt=".3g"))


if __name__ == "__main__":
    main()

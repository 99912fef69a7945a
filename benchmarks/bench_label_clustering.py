"""Label clustering time: LabelClustering.fit per affinity and the K sweep of stability.

Data: medical (978 x 45 labels, when the MULAN folder is present) and a generated
delicious-shaped label matrix (16,105 instances x 983 labels, Zipf-like label frequencies
from 20 % down to a few instances, about 1.6 labels per instance; seeded numpy, built here
because ``mlviz.synthetic`` has no such generator yet). Times are medians of ``--repeats``
runs (the sweep: one run), one BLAS thread recommended.

Run: ``OPENBLAS_NUM_THREADS=1 python benchmarks/bench_label_clustering.py``
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

_HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(_HERE.parent), str(_HERE)]

from _common import machine_description, median_time, mulan_dir  # noqa: E402

from mlviz.label_clustering import LabelClustering, clustering_stability  # noqa: E402

AFFINITIES = ("heat", "cooccurrence", "correlation")


def delicious_shaped(n_samples: int = 16_105, n_labels: int = 983, seed: int = 0) -> sp.csr_matrix:
    rng = np.random.default_rng(seed)
    frequency = np.clip(0.2 / np.arange(1, n_labels + 1) ** 0.9, 3 / n_samples, None)
    rows, cols = np.nonzero(rng.random((n_samples, n_labels)) < frequency)
    return sp.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(n_samples, n_labels))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    sets = []
    folder = mulan_dir()
    if folder is not None:
        from mlviz.io import load_arff

        sets.append(("medical", load_arff(folder / "medical.arff").Y))
    sets.append(("delicious-shaped 16,105 x 983", delicious_shaped()))
    print(machine_description(), "\n")
    print("| labels | affinity | fit K = 10 (s) | stability sweep K = 2..30, 10 resamples (s) |")
    print("|---|---|---|---|")
    for name, Y in sets:
        ks = range(2, min(30, Y.shape[1]) + 1)
        for affinity in AFFINITIES:
            fit = median_time(
                lambda: LabelClustering(10, affinity=affinity, random_state=0).fit(Y),  # noqa: B023
                args.repeats,
            )
            start = time.perf_counter()
            clustering_stability(Y, ks, affinity=affinity, n_resamples=10, random_state=0)
            sweep = time.perf_counter() - start
            print(f"| {name} | {affinity} | {fit:.2f} | {sweep:.1f} |", flush=True)


if __name__ == "__main__":
    main()

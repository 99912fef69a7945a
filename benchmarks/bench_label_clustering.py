"""Label clustering time: LabelClustering.fit per affinity, the default K, the per-label
bootstrap co-assignment and the K sweep of stability (with and without its null).

Data: medical (978 x 45 labels, when the MULAN folder is present) and label matrices shaped
like bibtex (7,395 x 159) and delicious (16,105 x 983) from
:func:`mlviz.synthetic.make_long_tailed` (seed 0); with ``--wide``, also 20 rows of 10,000
labels each present with probability 1 % (seed 0; the ~1,845 labels that occur are kept), the
shape of the test suite's degenerate ``many_labels`` member. Times are medians of
``--repeats`` runs (the sweeps and the co-assignment: one run), one BLAS thread recommended.
``--affinities`` limits the affinities measured. The last line is the process's peak resident
memory (with ``--wide``: that of the widest set's sweeps).

Run: ``OPENBLAS_NUM_THREADS=1 python benchmarks/bench_label_clustering.py [--skip-delicious]
[--wide] [--affinities heat]``
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

import numpy as np

_HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(_HERE.parent), str(_HERE)]

from _common import machine_description, median_time, mulan_dir  # noqa: E402

from mlviz.label_clustering import (  # noqa: E402
    LabelClustering,
    clustering_stability,
    label_coassignment,
)
from mlviz.synthetic import LONG_TAILED_SHAPES, make_long_tailed  # noqa: E402

AFFINITIES = ("heat", "cooccurrence", "correlation")


def _timed(fn) -> tuple[float, object]:
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--skip-delicious", action="store_true")
    parser.add_argument("--wide", action="store_true", help="add 20 rows x ~1,845 labels")
    parser.add_argument("--affinities", default=",".join(AFFINITIES))
    args = parser.parse_args(argv)
    affinities = [a.strip() for a in args.affinities.split(",") if a.strip()]
    sets = []
    folder = mulan_dir()
    if folder is not None:
        from mlviz.io import load_arff

        sets.append(("medical", load_arff(folder / "medical.arff").Y))
    sets.append(
        ("bibtex-shaped", make_long_tailed(**LONG_TAILED_SHAPES["bibtex"], random_state=0).Y)
    )
    if not args.skip_delicious:
        sets.append(("delicious-shaped", make_long_tailed(random_state=0).Y))
    if args.wide:
        wide = (np.random.default_rng(0).random((20, 10_000)) < 0.01).astype(np.uint8)
        sets.append(("20 rows, 10,000 labels at 1 %", wide))
    print(machine_description(), "\n")
    print(
        "| data | labels | affinity | fit K = 30 (s) | default K (s) | co-assignment at "
        "default K, 10 resamples (s) | sweep K = 2..30, 10 resamples, no null (s) | the same "
        "with its null (s) |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for name, Y in sets:
        Y = Y[:, np.asarray(Y.sum(axis=0)).ravel() > 0]
        for affinity in affinities:
            print(_row(name, Y, affinity, args.repeats), flush=True)
    # the whole process's peak: the largest set's sweeps set it (Linux reports KiB)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\npeak resident memory of this process: {peak:.0f} MiB")


def _row(name: str, Y, affinity: str, repeats: int) -> str:
    L = Y.shape[1]
    k_max = min(30, L - 1)
    ks = list(range(2, k_max + 1))

    def spectrum():
        return LabelClustering(min(30, L), affinity=affinity, random_state=0).fit(Y)

    fit = median_time(spectrum, repeats)
    model = spectrum()
    rule, k = _timed(lambda: model.default_n_groups(k_max))
    groups = LabelClustering(k, affinity=affinity, random_state=0).fit(Y).labels_
    together, _ = _timed(
        lambda: label_coassignment(Y, groups, affinity=affinity, n_resamples=10, random_state=0)
    )
    sweeps = [
        _timed(
            lambda n_null=n_null: clustering_stability(
                Y, ks, affinity=affinity, n_resamples=10, n_null=n_null, random_state=0
            )
        )[0]
        for n_null in (0, 1)
    ]
    return (
        f"| {name} | {L} | {affinity} | {fit:.2f} | {rule:.2f} (K = {k}) | {together:.2f} | "
        f"{sweeps[0]:.1f} | {sweeps[1]:.1f} |"
    )


if __name__ == "__main__":
    main()

"""The grouping against chance on medical with GroPLE at the GroPLE page's opening settings.

What the "Compare with random groupings" button costs (issue 32 item 5): GroPLE at the
registry's default preset for medical's training rows (``GROPLE.default_settings``, as the
GroPLE page opens), its groups those of the page's first fit (:class:`mlviz.LabelClustering`,
heat kernel, K from the same settings, on the training labels), cross-validated 3-fold with the
groups and with ``n_random`` random groupings of the same sizes
(:func:`mlviz.label_clustering.grouping_vs_random`, micro F1). Prints the wall time, the time
per fit, the peak memory, and the outcome (the grouping's score, the random scores' range and
``p_beats_random``), as markdown for docs/BENCHMARKS.md.

Data: medical from the MULAN folder (``$MLVIZ_DATA_DIR`` or ../shared/data/mulan): its
published training file (333 rows) and the training rows of a random 70/30 split of all 978
(seed 0), the app's two kinds of split; raw features (the page scales them as the sidebar
says). The script exits with a message when the folder is absent.

Run: ``OPENBLAS_NUM_THREADS=1 python benchmarks/bench_grouping_vs_random.py [--n-random 20]``
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from benchmarks._common import machine_description, mulan_dir  # noqa: E402


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-random", type=int, default=20)
    parser.add_argument("--cv", type=int, default=3)
    args = parser.parse_args(argv)

    from mlviz.io import load_arff
    from mlviz.label_clustering import LabelClustering, grouping_vs_random
    from mlviz.methods import METHODS

    folder = mulan_dir()
    if folder is None or not (folder / "medical.arff").is_file():
        sys.exit("medical.arff not found: set MLVIZ_DATA_DIR to the MULAN folder.")
    from sklearn.model_selection import train_test_split

    whole = load_arff(folder / "medical.arff")
    published = load_arff(folder / "medical-train.arff")
    train, _ = train_test_split(np.arange(whole.n_samples), test_size=0.3, random_state=0)
    cases = {
        "published training split": (published.X, published.Y),
        "random 70 % split (the app's other default)": (whole.X[train], whole.Y[train]),
    }
    grople = METHODS["GroPLE"]
    print(f"Machine: {machine_description()}\n")
    print(
        "| training rows | N × L | settings | groups | fits | seconds | seconds per fit | "
        "micro F1 with the groups | random groupings (min, median, max) | p_beats_random |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, (X, Y) in cases.items():
        settings = grople.default_settings(Y.shape[1], Y.shape[0], preset=grople.default_preset)
        # the page's first fit: its own stage-1 grouping of the training labels, all columns
        groups = (
            LabelClustering(n_groups=settings["K"], affinity=settings["affinity"], random_state=0)
            .fit(Y)
            .labels_
        )
        start = time.perf_counter()
        result = grouping_vs_random(
            grople.make(**settings), X, Y, groups, n_random=args.n_random, cv=args.cv
        )
        seconds = time.perf_counter() - start
        fits = (args.n_random + 1) * args.cv
        randoms = result.random_scores
        print(
            f"| {name} | {Y.shape[0]} × {Y.shape[1]} | d = {settings['d']}, K = {settings['K']}, "
            f"λ1 = {settings['lambda1']:g}, λ2 = {settings['lambda2']:g} | "
            f"{result.group_sizes} | {fits} | {seconds:.1f} | {seconds / fits:.2f} | "
            f"{result.score:.4f} | {randoms.min():.4f}, {np.median(randoms):.4f}, "
            f"{randoms.max():.4f} | {result.p_beats_random:.2f} |"
        )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**10
    print(f"\nPeak memory of the process: {peak:.0f} MiB.")


if __name__ == "__main__":
    main()

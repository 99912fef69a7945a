"""GroPLE with the paper's heat-kernel label groups against Jaccard co-occurrence groups.

Issue 12 asks whether a grouping that keeps rare labels with the labels they occur with
(``label_affinity="cooccurrence"``) helps GroPLE where it should: on tail labels.

Protocol (the Table 2 protocol of ``tests/test_grople_paper.py``): ``KFold(5, shuffle=True,
random_state=0)`` on the whole MULAN file; GroPLE defaults (d = 100, K = 10, lambda1 = 0.001,
lambda2 = 1, alpha = 0.01, beta = 1), only ``label_affinity`` changes. Per fold:

* accuracy: sample-wise Jaccard (``mlviz.metrics.accuracy``);
* macro F1: mean per-label F1 over all labels, a label never present and never predicted in
  the test fold scored 0 (the paper's convention, as in docs/GROPLE.md);
* tail macro F1: mean per-label F1 over the *tail* labels, i.e. labels on fewer than
  ``--tail`` (default 5 %) of the fold's *training* instances, counting only those present
  in the test fold (their F1 is defined without a convention);
* ``n_tail``: tail labels present in the test fold (averaged over folds).

Tables: mean ± standard deviation over the folds, then the per-fold difference
(cooccurrence − heat) with its mean and the number of folds where it is positive.

Run: ``OPENBLAS_NUM_THREADS=1 python benchmarks/grople_affinity.py`` (``--datasets medical
yeast`` for a subset, ``--tail 0.05``).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pandas as pd
from sklearn.model_selection import KFold

_HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(_HERE.parent), str(_HERE)]

from _common import machine_description, mulan_dir  # noqa: E402

from mlviz.grople import GroPLE  # noqa: E402
from mlviz.io import load_arff  # noqa: E402
from mlviz.metrics import accuracy, per_label_f1  # noqa: E402

DATASETS = ("medical", "enron", "genbase", "yeast")
AFFINITIES = ("heat", "cooccurrence")


def fold_scores(Y_train, Y_test, Y_pred, tail_threshold: float) -> dict[str, float]:
    f1 = per_label_f1(Y_test, Y_pred, zero_division=0.0)
    tail = (Y_train.mean(axis=0) < tail_threshold) & (Y_test.sum(axis=0) > 0)
    return {
        "accuracy": accuracy(Y_test, Y_pred),
        "macro_f1": float(f1.mean()),
        "tail_macro_f1": float(f1[tail].mean()) if tail.any() else float("nan"),
        "n_tail": int(tail.sum()),
    }


def run(name: str, tail_threshold: float) -> pd.DataFrame:
    data = load_arff(mulan_dir() / f"{name}.arff")
    X, Y = data.X, data.Y
    rows = []
    for fold, (train, test) in enumerate(KFold(5, shuffle=True, random_state=0).split(X)):
        for affinity in AFFINITIES:
            start = time.perf_counter()
            model = GroPLE(label_affinity=affinity, random_state=0).fit(X[train], Y[train])
            predicted = model.predict(X[test])
            scores = fold_scores(Y[train], Y[test], predicted, tail_threshold)
            rows.append(
                {
                    "dataset": name,
                    "fold": fold,
                    "affinity": affinity,
                    **scores,
                    "seconds": time.perf_counter() - start,
                }
            )
            print(f"{name} fold {fold} {affinity}: {scores}", file=sys.stderr, flush=True)
    return pd.DataFrame(rows)


def summarise(results: pd.DataFrame) -> tuple[str, str]:
    metrics = ["accuracy", "macro_f1", "tail_macro_f1"]
    lines = [
        "| data set | affinity | accuracy | macro F1 | tail macro F1 | tail labels |",
        "|---|---|---|---|---|---|",
    ]
    for (name, affinity), group in results.groupby(["dataset", "affinity"], sort=False):
        cells = [f"{group[m].mean():.3f} ± {group[m].std(ddof=1):.3f}" for m in metrics]
        lines.append(
            f"| {name} | {affinity} | " + " | ".join(cells) + f" | {group['n_tail'].mean():.1f} |"
        )
    diff_lines = ["| data set | Δ accuracy | Δ macro F1 | Δ tail macro F1 |", "|---|---|---|---|"]
    for name, group in results.groupby("dataset", sort=False):
        wide = group.pivot(index="fold", columns="affinity", values=metrics)
        cells = []
        for m in metrics:
            delta = wide[(m, "cooccurrence")] - wide[(m, "heat")]
            cells.append(f"{delta.mean():+.3f} ({int((delta > 0).sum())}/5 folds > 0)")
        diff_lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines), "\n".join(diff_lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="*", default=list(DATASETS))
    parser.add_argument("--tail", type=float, default=0.05)
    args = parser.parse_args(argv)
    if mulan_dir() is None:
        sys.exit("The MULAN folder (../shared/data/mulan) is needed for this comparison.")
    results = pd.concat([run(name, args.tail) for name in args.datasets], ignore_index=True)
    table, deltas = summarise(results)
    print(f"Tail threshold {args.tail:g} of the training instances. {machine_description()}\n")
    print(table)
    print()
    print(deltas)
    print(f"\nTotal fit + predict time: {results['seconds'].sum():.0f} s")


if __name__ == "__main__":
    main()

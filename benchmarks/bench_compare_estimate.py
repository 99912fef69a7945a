"""Compare's time estimate against what a run takes, at the delicious shape (issue 31, item 6).

The Compare page states "~N s" before its cross-validation runs (``estimated_seconds``, from
each method's measured rate in the registry, ``Method.cv_seconds_per_cell``). This runs the
page through AppTest, as a user's press of "Run cross-validation" does (every step: the
folds, the per-label loss reasons with their scores, the per-label table), on a generated
delicious-shaped set (:func:`mlviz.synthetic.make_long_tailed` at its defaults: 16,105
instances x 983 labels), first each default method alone, then all of them together, and
prints the estimate the page showed, the measured seconds and their ratio. One BLAS thread,
as the app's server runs. Usage::

    python benchmarks/bench_compare_estimate.py [--folds 2] [--methods BR,PLST,ML-KNN,CLEMS]
    python benchmarks/bench_compare_estimate.py --source mulan:tmc2007-500 --methods ML-KNN

The measured rates go into ``mlviz/methods.py`` (``cv_seconds_per_cell``; for ML-KNN also
``cv_seconds_per_pair``, from its times on the delicious shape and on tmc2007-500: many labels
and fewer rows, few labels and more rows) and the results into docs/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def run(
    dataset, methods: list[str], folds: int, name: str = "delicious-shaped"
) -> tuple[float, float | None]:
    """(measured seconds of the press, the estimate the page stated before it or None)."""
    from streamlit.testing.v1 import AppTest

    import pages._app  # noqa: F401  (first, as app.py: the server's native threads)

    at = AppTest.from_file(str(REPO / "pages" / "compare.py"), default_timeout=3600)
    at.session_state["dataset"] = dataset
    at.session_state["dataset_label"] = name
    at.run()
    at.multiselect(key="compare_methods").set_value(methods).run()
    at.slider(key="compare_folds").set_value(folds).run()
    stated = [c.value for c in at.caption if "Rough estimate" in c.value]
    found = re.search(r"~(\d+) s for", stated[0]) if stated else None
    start = time.perf_counter()
    at.button(key="compare_fit").click().run(timeout=3600)
    seconds = time.perf_counter() - start
    if at.exception:
        raise RuntimeError([e.message for e in at.exception])
    return seconds, float(found.group(1)) if found else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folds", type=int, default=2)
    parser.add_argument("--methods", default="BR,PLST,ML-KNN,CLEMS")
    parser.add_argument("--together-only", action="store_true", help="skip the single runs")
    parser.add_argument(
        "--source",
        default=None,
        help="a data set the app lists (e.g. mulan:tmc2007-500); default: the generated "
        "delicious shape",
    )
    args = parser.parse_args()
    from threadpoolctl import threadpool_limits

    from mlviz.synthetic import make_long_tailed

    if args.source is None:
        dataset = make_long_tailed(random_state=0)
    else:
        from mlviz import datasets

        dataset = datasets.load_source(args.source)
    cells = dataset.n_samples * dataset.n_labels
    methods = args.methods.split(",")
    print(f"{dataset.n_samples:,} x {dataset.n_labels:,} ({cells:,} cells), {args.folds} folds")
    print("| methods | stated estimate (s) | measured (s) | measured / cell (µs) |")
    print("|---|---|---|---|")
    with threadpool_limits(1):
        singles = [] if args.together_only else [[m] for m in methods]
        for chosen in singles + ([methods] if len(methods) > 1 else []):
            seconds, stated = run(dataset, chosen, args.folds, args.source or "delicious-shaped")
            shown = "—" if stated is None else f"{stated:.0f}"
            print(
                f"| {', '.join(chosen)} | {shown} | {seconds:.1f} | "
                f"{1e6 * seconds / (cells * len(chosen)):.3f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()

"""At scale (issue 14): every page's first render, a widget change and a refit, on the
delicious-shaped set, with the peak memory of the process that ran them.

The pages run through ``streamlit.testing.v1.AppTest`` in ONE process, one after the other,
the way one user visiting every page keeps one server busy: caches filled by one page (the
split, the vertices) serve the next, and the peak resident memory at the end is what that
server would have needed. What is timed is the script run on the server (the models, the
figures' construction); the browser's drawing of the figures is not included (see
``bench_app.py`` for browser timings on yeast). The data set is put in the session as the
sidebar would put it; it is generated first (not timed with the pages).

The process first imports the library and what its figures and tables use, timed as its own
row: a server pays that once, for the first visit after it starts, not per page or session
(before stop 41 it was part of whichever page came first, CLEMS in the default order).

Per page: ``first render`` (the page's first run: every fit it starts without a press),
``change`` (one widget, named in the table; "refit" says when that change refits a model; a
few pages have a second change in ``MORE_CHANGES``) and ``button`` (the page's fit button,
pressed once after the change, when the page has one). ``seconds`` is wall time, the budget's
measure on an idle machine; ``cpu_seconds`` is the CPU time of the process over the same step,
the figure to compare when other work shares the machine.

Usage::

    python benchmarks/bench_app_scale.py                  # full delicious shape, all pages
    python benchmarks/bench_app_scale.py --pages plst,clems --n-samples 4000
    python benchmarks/bench_app_scale.py --no-buttons          # renders and changes only
    python benchmarks/bench_app_scale.py --skip-compare        # all but Compare's button

It prints the machine and a markdown table and writes the table to ``--output`` (default
``benchmarks/results/bench_app_scale.md``, not committed).
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
import warnings
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path[:0] = [str(REPO), str(HERE)]

from _common import machine_description, markdown_table  # noqa: E402

# One widget change per page: (key, value, what it does). A value of None moves the widget
# to another of its values (the middle of a slider, the next option otherwise).
CHANGES: dict[str, tuple[str, object, str]] = {
    "plst.py": ("plst_m", 30, "slider M (truncation of the fitted model, no refit)"),
    "clems.py": ("clems_m", 2, "slider M (refit of the MDS and regressor, costs reused)"),
    "mlknn.py": ("mlknn_k", 5, "slider k (neighbours and count tables reused, MLkNNPath)"),
    "hypercube.py": ("cube_dim", 3, "2-D -> 3-D (projection of the drawn vertices)"),
    "compare.py": ("compare_k", 5, "slider k of ML-KNN (nothing runs until the button)"),
    "label_clusters.py": ("groups_k", 12, "slider K (k-means on the fitted spectrum, no refit)"),
}
# Further changes after the first one, where a second widget has its own cost.
MORE_CHANGES: dict[str, list[tuple[str, object, str]]] = {
    "mlknn.py": [("mlknn_s", 0.1, "slider s (tables only)")],
    "clems.py": [("clems_instance", 1, "test instance (no refit: the instance view only)")],
}

# Buttons not pressed here, with the reason (the table says so). Compare's button is pressed:
# on this set the page opens at 3 folds (its default for large data sets); --skip-compare
# leaves it out.
SKIPPED_BUTTONS: dict[str, str] = {}
COMPARE_SKIPPED = "cross-validation of several methods; not pressed (--skip-compare)"


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _problems(at) -> str:
    messages = [e.message for e in at.exception] + [e.value for e in at.error]
    return "; ".join(m.splitlines()[0][:160] for m in messages)


def _change(at, page: str, change: tuple | None = None) -> tuple[str, float, float] | None:
    """Apply the page's widget change (or ``change``); return what was changed and the wall
    and CPU seconds it took."""
    key, value, what = change or CHANGES.get(page, (None, None, None))
    widget = None
    if key is not None:
        for kind in ("slider", "radio", "select_slider", "selectbox", "number_input"):
            matches = [w for w in getattr(at, kind) if w.key == key]
            if matches:
                widget = matches[0]
                break
    if widget is None:  # the page's first slider in the main area, to its middle
        sliders = [s for s in at.slider if not s.disabled and s.key]
        if not sliders:
            return None
        widget = sliders[0]
        value = type(widget.value)((widget.min + widget.max) / 2)
        if value == widget.value:
            value = widget.min
        what = f"slider {widget.label!r} -> {value}"
    start, cpu = time.perf_counter(), time.process_time()
    widget.set_value(value).run()
    return what, time.perf_counter() - start, time.process_time() - cpu


def _import_once() -> dict:
    """Import, timed, what the classroom server imports when it starts (``serve.preload``:
    every import of app.py and the pages, the page packages among them) and every module of
    the library, so that a page's first render counts what a user of the server waits for."""
    import importlib
    import pkgutil

    import mlviz
    import serve

    start, cpu = time.perf_counter(), time.process_time()
    # the server's order: app.py's imports first, so that pages._app sets the native threads
    # before scikit-learn loads OpenMP (pages/_app/server.py)
    failed = serve.preload()
    names = [
        info.name
        for info in pkgutil.walk_packages(mlviz.__path__, "mlviz.")
        if not info.name.endswith("__main__")
    ]
    for name in [*names, "pyarrow", "plotly.graph_objects", "plotly.subplots"]:
        importlib.import_module(name)
    return {
        "page": "(process)",
        "action": f"imports: {len(names)} mlviz modules and the server's preload (once per server)",
        "seconds": time.perf_counter() - start,
        "cpu_seconds": round(time.process_time() - cpu, 2),
        "peak_mib": _peak_mib(),
        "note": f"not importable: {'; '.join(failed)}" if failed else "",
    }


def run(
    pages: list[str],
    n_samples: int | None,
    threads: int,
    press_buttons: bool = True,
    skip_compare: bool = False,
) -> pd.DataFrame:
    from streamlit.testing.v1 import AppTest
    from threadpoolctl import threadpool_limits

    from mlviz.stats import unique_rows
    from mlviz.synthetic import LONG_TAILED_SHAPES, make_long_tailed

    shape = dict(LONG_TAILED_SHAPES["delicious"])
    if n_samples:
        shape["n_samples"] = n_samples
    dataset = make_long_tailed(**shape, random_state=0)
    n_sets = len(unique_rows(dataset.Y)[0])
    print(
        f"data: {dataset.n_samples:,} x {dataset.n_features} sparse, {dataset.n_labels} "
        f"labels, {n_sets:,} distinct label sets; peak after generating {_peak_mib():.0f} MiB",
        flush=True,
    )
    rows = [_import_once()]
    print(rows[-1], flush=True)
    skipped = {**SKIPPED_BUTTONS, **({"compare.py": COMPARE_SKIPPED} if skip_compare else {})}
    with threadpool_limits(threads), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for page in pages:
            at = AppTest.from_file(str(REPO / "pages" / page), default_timeout=3600)
            at.session_state["dataset"] = dataset
            at.session_state["dataset_label"] = "delicious-shaped (generated)"
            start, cpu = time.perf_counter(), time.process_time()
            at.run()
            rows.append(
                {
                    "page": page,
                    "action": "first render",
                    "seconds": time.perf_counter() - start,
                    "cpu_seconds": round(time.process_time() - cpu, 2),
                    "peak_mib": _peak_mib(),
                    "note": _problems(at),
                }
            )
            print(rows[-1], flush=True)
            for change in [None, *MORE_CHANGES.get(page, [])]:
                changed = _change(at, page, change)
                if changed is None:
                    continue
                rows.append(
                    {
                        "page": page,
                        "action": "change: " + changed[0],
                        "seconds": changed[1],
                        "cpu_seconds": round(changed[2], 2),
                        "peak_mib": _peak_mib(),
                        "note": _problems(at),
                    }
                )
                print(rows[-1], flush=True)
            buttons = [b for b in at.button if b.key and b.key.endswith("_fit")]
            if buttons and page in skipped:
                rows.append(
                    {
                        "page": page,
                        "action": f"button: {buttons[0].label}",
                        "seconds": float("nan"),
                        "peak_mib": _peak_mib(),
                        "note": skipped[page],
                    }
                )
            elif buttons and press_buttons:
                start, cpu = time.perf_counter(), time.process_time()
                buttons[0].click().run()
                rows.append(
                    {
                        "page": page,
                        "action": f"button: {buttons[0].label}",
                        "seconds": time.perf_counter() - start,
                        "cpu_seconds": round(time.process_time() - cpu, 2),
                        "peak_mib": _peak_mib(),
                        "note": _problems(at),
                    }
                )
                print(rows[-1], flush=True)
    return pd.DataFrame(rows)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", default="", help="comma-separated page files (default all)")
    parser.add_argument(
        "--n-samples",
        type=int,
        default=None,
        help="fewer instances than delicious' 16,105 (labels stay 983)",
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=1,
        help="BLAS threads until the pages are imported; the app's server then uses one per "
        "call (pages/_app/server.py)",
    )
    parser.add_argument("--no-buttons", action="store_true", help="press no fit button")
    parser.add_argument(
        "--skip-compare", action="store_true", help="do not press Compare's cross-validation"
    )
    parser.add_argument("--output", type=Path, default=HERE / "results" / "bench_app_scale.md")
    args = parser.parse_args(argv)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, str(args.threads))
    pages = [p if p.endswith(".py") else p + ".py" for p in args.pages.split(",") if p] or sorted(
        p.name for p in (REPO / "pages").glob("*.py") if not p.name.startswith("_")
    )
    print(machine_description(), flush=True)
    table = run(pages, args.n_samples, args.threads, not args.no_buttons, args.skip_compare)
    text = markdown_table(table.round({"seconds": 2, "peak_mib": 0}))
    print(text)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(text + "\n")


if __name__ == "__main__":
    main()

"""The GroPLE page's λ changes on medical: a slider move, then the Fit button (issue 33, goal 2).

The page (``pages/grople.py``) refits only when its button is pressed; fits are cached, so a
λ pair seen before costs no fit. Through ``streamlit.testing.v1.AppTest`` in one process:
the page's first run on a data set (its opening fit included), then for each move of the λ
sliders (λ2 one step down, λ1 one step down, λ2 back up, λ1 back up: the last is a pair
fitted before) the seconds from the press of "Fit GroPLE" to the end of the rerun. The
slider moves themselves (no fit) are not timed here; ``bench_rerun.py`` times reruns.

Run: ``OPENBLAS_NUM_THREADS=1 python benchmarks/bench_grople_refit.py`` (``--source
mulan:yeast`` for another data set; MULAN names need the MULAN folder, see ``_common``).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

import pandas as pd

_HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(_HERE.parent), str(_HERE)]

from _common import machine_description, markdown_table, mulan_dir  # noqa: E402

MOVES = [
    ("grople_lambda2", -1),
    ("grople_lambda1", -1),
    ("grople_lambda2", 1),
    ("grople_lambda1", 1),
]


def _slider(at, key: str):
    return next(s for s in at.select_slider if s.key == key)


def run(repeats: int = 1, source: str = "mulan:medical") -> pd.DataFrame:
    """One pass of the moves (``repeats`` is ``run_all.py``'s argument)."""
    from streamlit.testing.v1 import AppTest

    import pages._app  # noqa: F401  (first, as app.py: the server's native threads)
    from mlviz import datasets

    at = AppTest.from_file(str(_HERE.parent / "pages" / "grople.py"), default_timeout=600)
    at.session_state["dataset"] = datasets.load_source(source)
    at.session_state["dataset_label"] = source
    rows = []
    started, cpu = time.perf_counter(), time.process_time()
    at.run()
    rows.append(
        {
            "action": "first run (opening fit)",
            "seconds": round(time.perf_counter() - started, 2),
            "cpu_seconds": round(time.process_time() - cpu, 2),
            "errors": len(at.exception) + len(at.error),
        }
    )
    for key, step in MOVES:
        slider = _slider(at, key)
        options = [float(option) for option in slider.options]
        before = float(slider.value)
        after = options[options.index(before) + step]
        slider.set_value(after).run()
        button = next(b for b in at.button if b.key and b.key.endswith("_fit"))
        started, cpu = time.perf_counter(), time.process_time()
        button.click().run()
        rows.append(
            {
                "action": f"{key.removeprefix('grople_')} {before:g} -> {after:g}, Fit pressed",
                "seconds": round(time.perf_counter() - started, 2),
                "cpu_seconds": round(time.process_time() - cpu, 2),
                "errors": len(at.exception) + len(at.error),
            }
        )
        print(rows[-1], flush=True)
    return pd.DataFrame(rows)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", default="mulan:medical")
    args = parser.parse_args(argv)
    if args.source.startswith("mulan:") and mulan_dir() is None:
        raise SystemExit("the MULAN folder is absent: pass --source sample:planted")
    warnings.simplefilter("ignore")
    print(machine_description(), f"load average {os.getloadavg()[0]:.2f}", flush=True)
    print(markdown_table(run(source=args.source)))


if __name__ == "__main__":
    main()

"""A rerun's CPU in a new session whose results are all cached (issue 33, goal 3).

In a class, 30 sessions rerun the same pages with the same inputs: every fit and shared
figure comes from the process-wide caches, and what is left per session is the page script,
its widgets and the figures it still builds itself. For each page: one warm-up session (fills
the caches), then ``--sessions`` new sessions (``AppTest`` on the embedded sample, the
router's data set), each run once and then rerun; the CPU time of the rerun is recorded
(``time.process_time``: AppTest runs the script in a thread of this process). Prints the
median and the minimum per page.

Run: ``OPENBLAS_NUM_THREADS=1 MLVIZ_UMAP_WARM_UP=0 python benchmarks/bench_rerun.py``
(``--pages lesson.py plst.py``, ``--sessions 15``).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import warnings
from pathlib import Path

_HERE = Path(__file__).resolve().parent
REPO = _HERE.parent
sys.path[:0] = [str(REPO), str(_HERE)]

from _common import machine_description  # noqa: E402

PAGES = sorted(p.name for p in (REPO / "pages").glob("*.py"))


def rerun_cpu(page: str, sessions: int) -> list[float]:
    from streamlit.testing.v1 import AppTest

    import pages._app  # noqa: F401  (first, as app.py: the server's native threads)

    def session() -> AppTest:
        return AppTest.from_file(str(REPO / "pages" / page), default_timeout=600).run()

    session().run()  # warm-up: every fit and shared figure of the page lands in the caches
    seconds = []
    for _ in range(sessions):
        at = session()
        started = time.process_time()
        at.run()
        seconds.append(time.process_time() - started)
    return seconds


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", nargs="+", default=PAGES, choices=PAGES)
    parser.add_argument("--sessions", type=int, default=15)
    args = parser.parse_args(argv)
    print(machine_description(), flush=True)
    print("| page | rerun CPU median (ms) | min (ms) |\n|---|---|---|")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for page in args.pages:
            seconds = rerun_cpu(page, args.sessions)
            print(
                f"| {page} | {1000 * statistics.median(seconds):.1f} | {1000 * min(seconds):.1f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()

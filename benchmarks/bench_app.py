"""App latency measured in a real browser (Debian chromium driven by Playwright).

Measures what a user waits for at 1280 × 720: app start to first rendered chart, the first
visits of the PLST and GroPLE pages on medical, a slider move on yeast redrawing the PLST and
ML-KNN views, and a GroPLE refit on medical. The server and chromium are the browser test's
(``tests/_browser.py``); data sets are opened by link (``?dataset=``). Never run in the tests.

Usage::

    python benchmarks/bench_app.py --repeats 3
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]

from _common import machine_description, markdown_table  # noqa: E402

from tests import _browser  # noqa: E402  (the browser test's chromium, flags and server)

SLIDER = "[data-testid='stMain'] [data-testid='stSlider'] input[type='range']"
SIGNATURE = """() => Array.from(document.querySelectorAll('.js-plotly-plot'))
    .map(p => JSON.stringify([(p.data || []).map(t => [t.x, t.y, t.marker && t.marker.color]),
                              p.layout && p.layout.title])).join('|')"""


def _first_visit(page, url: str, path: str, dataset: str) -> float:
    """Seconds from opening ``path`` with ``dataset`` in the link until every fit is drawn."""
    start = time.perf_counter()
    page.goto(f"{url}/{path}?dataset={dataset}")
    page.wait_for_selector(".js-plotly-plot", timeout=300_000)
    # idle = the script state quiet for QUIET_MS (a rerun can start just after a run ends)
    _browser.wait_idle(page, timeout=300_000)
    return time.perf_counter() - start - _browser.QUIET_MS / 1000


def _slider_redraw(page, url: str, path: str, dataset: str) -> float:
    """Seconds from a slider key press until a chart on the page shows new data."""
    page.goto(f"{url}/{path}?dataset={dataset}")
    page.wait_for_selector(".js-plotly-plot", timeout=120_000)
    _browser.wait_idle(page, timeout=120_000)
    _browser.wait_settled(page)
    slider = page.locator(SLIDER).first
    slider.focus()
    before = page.evaluate(SIGNATURE)
    start = time.perf_counter()
    page.keyboard.press("ArrowRight")
    page.wait_for_function(f"(b) => ({SIGNATURE})() !== b", arg=before, timeout=120_000)
    return time.perf_counter() - start


def run(repeats: int = 3) -> pd.DataFrame:
    from playwright.sync_api import sync_playwright

    rows = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=_browser.chromium_path(), args=_browser.CHROMIUM_FLAGS
        )
        for _ in range(repeats):
            started = time.perf_counter()
            with _browser.streamlit_server() as url:
                ready = time.perf_counter()
                page = browser.new_page(viewport={"width": 1280, "height": 720})
                requested = time.perf_counter()
                page.goto(url)
                page.wait_for_selector(".js-plotly-plot", timeout=120_000)
                shown = time.perf_counter()
                rows += [
                    {
                        "measurement": "app start to first chart (fresh server)",
                        "dataset": "planted sample",
                        "seconds": shown - started,
                    },
                    {
                        "measurement": "  of which: `streamlit run` until the server answers",
                        "dataset": "",
                        "seconds": ready - started,
                    },
                    {
                        "measurement": "  of which: first page request until its first chart",
                        "dataset": "planted sample",
                        "seconds": shown - requested,
                    },
                ]
                # first visits on medical (issue 14: PLST and GroPLE <= 3 s), as a user makes
                # them: medical opened, then the page chosen in the sidebar (its fits run now)
                for path in ("plst", "grople"):
                    _first_visit(page, url, "", "mulan:medical")
                    start = time.perf_counter()
                    _browser.open_page(page, path)
                    rows.append(
                        {
                            "measurement": f"first visit of /{path} from the sidebar, drawn",
                            "dataset": "medical",
                            "seconds": time.perf_counter() - start,
                        }
                    )
                for path in ("plst", "mlknn"):
                    _first_visit(page, url, path, "mulan:yeast")  # warm: fits and caches
                    rows.append(
                        {
                            "measurement": f"slider move redraws /{path}",
                            "dataset": "yeast",
                            "seconds": _slider_redraw(page, url, path, "mulan:yeast"),
                        }
                    )
                _first_visit(page, url, "grople", "mulan:medical")
                slider = page.locator(SLIDER).first
                slider.focus()
                since = _browser.runs_so_far(page)
                page.keyboard.press("ArrowLeft")  # a new d, so the fit is not cached
                _browser.wait_idle(page, since, timeout=120_000)
                since = _browser.runs_so_far(page)
                start = time.perf_counter()
                page.get_by_role("button", name="Fit GroPLE").click()
                _browser.wait_idle(page, since, timeout=300_000)
                rows.append(
                    {
                        "measurement": "GroPLE refit (d changed) until redrawn",
                        "dataset": "medical",
                        "seconds": time.perf_counter() - start - _browser.QUIET_MS / 1000,
                    }
                )
                page.close()
        browser.close()
    table = pd.DataFrame(rows)
    return (
        table.groupby(["measurement", "dataset"], sort=False)["seconds"]
        .agg(median="median", max="max", runs="count")
        .reset_index()
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(machine_description())
    print(markdown_table(run(args.repeats)))

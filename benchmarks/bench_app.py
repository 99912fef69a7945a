"""App latency measured in a real browser (Debian chromium driven by Playwright).

Measures what a user waits for: app start to first rendered chart, a slider move on yeast
redrawing the PLST and ML-KNN views, and a GroPLE refit on medical. Never run in the tests.

Usage::

    python benchmarks/bench_app.py --repeats 3
"""

from __future__ import annotations

import argparse
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]

from _common import machine_description, markdown_table  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SLIDER = "[data-testid='stMain'] [data-testid='stSlider'] input[type='range']"
SIGNATURE = """() => Array.from(document.querySelectorAll('.js-plotly-plot'))
    .map(p => JSON.stringify([(p.data || []).map(t => [t.x, t.y, t.marker && t.marker.color]),
                              p.layout && p.layout.title])).join('|')"""
IDLE = "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _start_server() -> tuple[subprocess.Popen, str, float, float]:
    port = _free_port()
    start = time.perf_counter()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            "app.py",
            "--server.headless",
            "true",
            "--server.address",
            "127.0.0.1",
            "--server.port",
            str(port),
            "--browser.gatherUsageStats",
            "false",
        ],
        cwd=HERE.parent,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    while True:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=1):
                return proc, url, start, time.perf_counter()
        except OSError:
            time.sleep(0.05)


def _choose(page, name: str) -> None:
    box = page.locator("[data-testid='stSidebar'] [data-testid='stSelectbox']").first
    box.click()
    page.keyboard.type(name)
    page.keyboard.press("Enter")
    page.wait_for_function(IDLE, timeout=120_000)
    page.wait_for_timeout(300)
    page.wait_for_function(IDLE, timeout=120_000)


def _slider_redraw(page, url: str, path: str) -> float:
    """Seconds from a slider key press until a chart on the page shows new data."""
    page.goto(f"{url}/{path}")
    page.wait_for_selector(".js-plotly-plot", timeout=120_000)
    page.wait_for_function(IDLE, timeout=120_000)
    page.wait_for_timeout(500)
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
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        for _ in range(repeats):
            proc, url, started, ready = _start_server()
            try:
                page = browser.new_page(viewport={"width": 1400, "height": 1000})
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
                _choose(page, "yeast")
                for path in ("plst", "mlknn"):
                    _slider_redraw(page, url, path)  # warm: the first visit fits and caches
                    rows.append(
                        {
                            "measurement": f"slider move redraws /{path}",
                            "dataset": "yeast",
                            "seconds": _slider_redraw(page, url, path),
                        }
                    )
                page.goto(url)
                page.wait_for_selector(".js-plotly-plot", timeout=120_000)
                _choose(page, "medical")
                page.goto(f"{url}/grople")
                page.wait_for_selector(".js-plotly-plot", timeout=300_000)
                page.wait_for_function(IDLE, timeout=300_000)
                slider = page.locator(SLIDER).first
                slider.focus()
                page.keyboard.press("ArrowLeft")  # a new d, so the fit is not cached
                page.wait_for_function(IDLE, timeout=120_000)
                start = time.perf_counter()
                page.get_by_role("button", name="Fit GroPLE").click()
                page.wait_for_timeout(200)
                page.wait_for_function(IDLE, timeout=300_000)
                rows.append(
                    {
                        "measurement": "GroPLE refit (d changed) until redrawn",
                        "dataset": "medical",
                        "seconds": time.perf_counter() - start,
                    }
                )
                page.close()
            finally:
                proc.terminate()
                proc.wait(timeout=30)
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

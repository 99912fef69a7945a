"""A class of 30 students on one server (issue 24, item 7).

Starts a real ``streamlit run app.py --server.headless true`` on loopback and opens 30
concurrent sessions: one Debian chromium driven by Playwright, one browser context (its own
cookies, so its own Streamlit session) per student. Student ``i`` opens page ``i mod 9`` of the
navigation on the embedded sample (the app's default data set), then reruns it 3 times with
Streamlit's rerun key ("r": the same inputs, so everything should come from the caches).

Recorded: the first view (from the request until the app is idle: script finished, nothing
stale, no spinner) and each rerun (from the key press until idle again), their p50 / p95,
errors (a traceback element shown, or a wait that timed out) and the server's peak resident
memory (``VmHWM`` of the server process, read at the end). ``st.error`` boxes are counted
separately: the sample's pages may legitimately show one.

Usage::

    python benchmarks/bench_classroom.py --students 30 --reruns 3

The browser runs on the same machine as the server, so its CPU use is part of what the
server competes with: the numbers are an upper bound of what 30 separate laptops would see.
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]

from _common import machine_description  # noqa: E402

from tests import _browser  # noqa: E402  (chromium path and flags, the idle condition)

WAIT_MS = 300_000  # a view that takes longer counts as an error


def _start_server() -> tuple[subprocess.Popen, str]:
    port = _browser.free_port()
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
        cwd=_browser.REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                if response.status == 200:
                    return proc, url
        except OSError:
            time.sleep(0.3)
    proc.kill()
    raise RuntimeError("streamlit did not start within 120 s")


def _peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def _wait_idle(page, since: int | None, path: str | None) -> None:
    await page.wait_for_selector("[data-testid='stMain'] h1", timeout=WAIT_MS)
    await page.wait_for_function(
        _browser._IDLE, arg=[since, _browser.QUIET_MS, path], timeout=WAIT_MS
    )


async def _student(browser, url: str, path: str, reruns: int, record: dict) -> None:
    context = await browser.new_context(viewport=_browser.PROJECTOR)
    page = await context.new_page()
    quiet = _browser.QUIET_MS / 1000
    try:
        start = time.perf_counter()
        await page.goto(f"{url}/{path}")
        await _wait_idle(page, None, path)
        record["first"].append(time.perf_counter() - start - quiet)
        for _ in range(reruns):
            since = await page.evaluate(
                "() => { const r = (" + _browser._RUNS + ")(); r.newDocument = false;"
                " return r.changes; }"
            )
            await page.evaluate("() => document.activeElement && document.activeElement.blur()")
            start = time.perf_counter()
            await page.keyboard.press("r")
            await _wait_idle(page, since, None)
            record["rerun"].append(time.perf_counter() - start - quiet)
        shown = await page.evaluate(
            """() => [document.querySelectorAll('[data-testid="stException"]').length,
                      document.querySelectorAll('[data-testid="stAlertContentError"]').length]"""
        )
        if shown[0]:
            record["errors"].append(f"/{path}: {shown[0]} traceback(s) shown")
        record["st_error"] += shown[1]
    except Exception as error:  # a timed-out wait: an error of the run, with its page
        record["errors"].append(f"/{path}: {type(error).__name__}: {str(error)[:200]}")
    finally:
        await context.close()


async def _run(url: str, students: int, reruns: int) -> dict:
    from playwright.async_api import async_playwright

    record: dict = {"first": [], "rerun": [], "errors": [], "st_error": 0}
    paths = list(_browser.NAV_PAGES)
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(
            executable_path=_browser.chromium_path(), args=_browser.CHROMIUM_FLAGS
        )
        await asyncio.gather(
            *(
                _student(browser, url, paths[i % len(paths)], reruns, record)
                for i in range(students)
            )
        )
        await browser.close()
    return record


def _load() -> str:
    one, five, fifteen = Path("/proc/loadavg").read_text().split()[:3]
    return f"load average {one} / {five} / {fifteen}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--reruns", type=int, default=3)
    args = parser.parse_args()
    print(machine_description())
    print(f"before: {_load()}")
    proc, url = _start_server()
    try:
        started = time.perf_counter()
        record = asyncio.run(_run(url, args.students, args.reruns))
        wall = time.perf_counter() - started
        rss = _peak_rss_mb(proc.pid)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
    print(f"after: {_load()}")
    first, rerun = np.array(record["first"]), np.array(record["rerun"])
    print(f"{args.students} students, {args.reruns} reruns each, wall {wall:.1f} s")
    for name, values in (("first view", first), ("rerun", rerun)):
        if values.size:
            p50, p95 = np.percentile(values, [50, 95])
            print(
                f"{name}: n = {values.size}, p50 {p50:.2f} s, p95 {p95:.2f} s, "
                f"max {values.max():.2f} s"
            )
    print(f"errors: {len(record['errors'])}")
    for error in record["errors"]:
        print(f"  {error}")
    print(f"st.error boxes shown at the end: {record['st_error']}")
    print(f"server peak RSS: {rss:.0f} MB")


if __name__ == "__main__":
    main()

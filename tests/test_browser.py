"""Real-browser test: Debian's chromium driven by Playwright against `streamlit run app.py`.

Never downloads a browser (no ``playwright install``): it uses /usr/bin/chromium. Locally the
test skips when chromium is missing; under CI (``MLVIZ_REQUIRE_BROWSER=1``) it fails instead.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

pytestmark = pytest.mark.browser
MAIN_SLIDER = "[data-testid='stMain'] [data-testid='stSlider'] input[type='range']"


def _chromium() -> str:
    path = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists()
                                       else None)
    if path is None:
        if os.environ.get("MLVIZ_REQUIRE_BROWSER"):
            pytest.fail("MLVIZ_REQUIRE_BROWSER is set but chromium is not installed")
        pytest.skip("chromium not installed (apt-get install -y chromium); CI installs it")
    return path


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def server_url():
    port = _free_port()
    proc = subprocess.Popen(
        [
            sys.executable, "-m", "streamlit", "run", "app.py",
            "--server.headless", "true",
            "--server.address", "127.0.0.1",
            "--server.port", str(port),
            "--browser.gatherUsageStats", "false",
        ],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                if response.status == 200:
                    break
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            output = proc.stdout.read() if proc.stdout else ""
            pytest.fail(f"streamlit did not start within 60 s:\n{output[-3000:]}")
        time.sleep(0.3)
    yield url
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()


@pytest.fixture(scope="module")
def page(server_url):
    from playwright.sync_api import sync_playwright

    executable = _chromium()
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=executable, args=CHROMIUM_FLAGS)
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        pg = context.new_page()
        pg.set_default_timeout(60_000)
        yield pg
        browser.close()


def _wait_idle(pg) -> None:
    """Wait until the app has finished its current run (no 'running' indicator)."""
    pg.wait_for_selector("[data-testid='stApp']")
    pg.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=90_000
    )
    pg.wait_for_timeout(300)


def _assert_no_exception(pg, where: str) -> None:
    exceptions = pg.locator("[data-testid='stException']")
    assert exceptions.count() == 0, f"{where}: {exceptions.first.inner_text()[:2000]}"


def _chart_titles(pg) -> list[str]:
    return pg.eval_on_selector_all(
        ".js-plotly-plot .gtitle", "els => els.map(e => e.textContent)"
    )


def test_data_page_slider_redraws_chart(page, server_url):
    page.goto(server_url)
    _wait_idle(page)
    page.wait_for_selector(".js-plotly-plot")
    _assert_no_exception(page, "data page")
    before = _chart_titles(page)
    slider = page.locator(MAIN_SLIDER).first
    slider.focus()
    for _ in range(20):
        page.keyboard.press("ArrowRight")
    _wait_idle(page)
    page.wait_for_function(
        "(before) => JSON.stringify(Array.from(document.querySelectorAll("
        "'.js-plotly-plot .gtitle')).map(e => e.textContent)) !== JSON.stringify(before)",
        arg=before,
        timeout=30_000,
    )
    after = _chart_titles(page)
    assert after != before, "moving the tail-threshold slider did not redraw the chart"
    _assert_no_exception(page, "data page after slider move")

"""Browser code shared by ``tests/test_browser.py`` and ``tests/screenshots.py``.

Starts ``streamlit run app.py`` on a free port, drives Debian's chromium through Playwright
(never a downloaded browser), opens pages through the sidebar navigation (so the session, and
with it the chosen data set, survives), and measures what a projector would show wrong:
clipped chart titles, legends on axis titles and horizontally clipped tables.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

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
#: The projector check's screen (issue 15).
PROJECTOR = {"width": 1280, "height": 720}
#: url path -> sidebar title, in navigation order.
NAV_PAGES = {
    "": "Data",
    "lesson": "Lesson",
    "hypercube": "Hypercube",
    "label_clusters": "Label clusters",
    "plst": "PLST & linear",
    "grople": "GroPLE",
    "clems": "CLEMS / MDS",
    "mlknn": "ML-KNN",
    "compare": "Compare",
}


def chromium_path() -> str | None:
    """Debian's chromium, or None when it is not installed."""
    found = shutil.which("chromium")
    if found:
        return found
    return "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def streamlit_server(timeout: float = 60) -> Iterator[str]:
    """Run the app headless on a free port; yield its URL; stop it afterwards."""
    port = free_port()
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
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + timeout
    try:
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
                raise RuntimeError(
                    f"streamlit did not start within {timeout:.0f} s:\n{output[-3000:]}"
                )
            time.sleep(0.3)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def wait_idle(pg) -> None:
    """Wait until the page has a title and the app has finished its current run."""
    pg.wait_for_selector("[data-testid='stMain'] h1")
    for _ in range(2):  # a rerun can start just after the first idle moment
        pg.wait_for_function(
            "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')",
            timeout=180_000,
        )
        pg.wait_for_timeout(400)


def open_page(pg, path: str) -> None:
    """Open a page through the sidebar navigation, keeping the session (and its data set)."""
    link = pg.locator(f"[data-testid='stSidebarNav'] a[href$='/{path}']").first
    link.click()
    pg.wait_for_timeout(300)
    wait_idle(pg)


def choose_dataset(pg, name: str) -> None:
    """Pick a data set by (part of) its name in the sidebar picker."""
    picker = pg.locator("[data-testid='stSidebar'] [data-testid='stSelectbox'] input").first
    picker.click()
    picker.fill(name)
    pg.locator("[role='option']", has_text=name).first.click()
    pg.wait_for_timeout(300)
    wait_idle(pg)


def chosen_dataset(pg) -> str:
    """The sidebar picker's current text."""
    return pg.locator(
        "[data-testid='stSidebar'] [data-testid='stSelectbox'] input"
    ).first.input_value()


def screenshot_dir() -> Path:
    """``$MLVIZ_SCREENSHOT_DIR``, else a fresh ``/tmp/mlviz-screenshots/<run>``."""
    chosen = os.environ.get("MLVIZ_SCREENSHOT_DIR")
    folder = (
        Path(chosen)
        if chosen
        else (Path("/tmp/mlviz-screenshots") / time.strftime("%Y%m%d-%H%M%S"))
    )
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def plain(text: str | None) -> str:
    """A title as the reader sees it: no HTML tags, no whitespace (line breaks differ)."""
    text = re.sub(r"</?(b|i|em|sub|sup|br|span)\b[^>]*>", "", text or "").replace("\u200b", "")
    text = text.replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
    return re.sub(r"\s+", "", text)


# One pass over every plotly chart and every data frame of the main area. Plotly draws a title
# with <br> as several <tspan>s, so texts are compared without whitespace (``plain``).
_MEASURE = """() => {
  const box = e => e.getBoundingClientRect();
  const overlap = (a, b) => Math.max(0, Math.min(a.right, b.right) - Math.max(a.left, b.left))
      * Math.max(0, Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top));
  const charts = Array.from(document.querySelectorAll('[data-testid="stMain"] .js-plotly-plot'))
    .map(p => {
      const layoutTitle = p.layout && p.layout.title;
      const wanted = typeof layoutTitle === 'string' ? layoutTitle
          : (layoutTitle && layoutTitle.text) || '';
      const plot = box(p);
      const title = p.querySelector('.g-gtitle .gtitle');
      const tb = title ? box(title) : null;
      const legend = p.querySelector('.legend');
      const lb = legend ? box(legend) : null;
      const axisTitles = Array.from(p.querySelectorAll('.g-xtitle text, .g-ytitle text, '
          + '[class*="g-x"][class*="title"] text, [class*="g-y"][class*="title"] text'))
          .filter(t => t.textContent.trim()).map(box);
      const legendOnAxisTitle = lb && lb.width > 0
          ? axisTitles.some(a => overlap(a, lb) > 0.2 * a.width * a.height) : false;
      return {
        wanted: wanted,
        shown: title ? title.textContent : '',
        titleLeft: tb ? tb.left - plot.left : 0,
        titleRight: tb ? plot.right - tb.right : 0,
        plotWidth: plot.width,
        legendOnAxisTitle: legendOnAxisTitle,
      };
    });
  const tables = Array.from(document.querySelectorAll('[data-testid="stMain"] '
      + '[data-testid="stDataFrame"]')).filter(t => t.checkVisibility()).map(t => {
    const scroller = t.querySelector('.dvn-scroller') || t;
    const header = Array.from(t.querySelectorAll('[role="columnheader"]'))
        .map(h => h.textContent).join(' | ');
    return {scrollWidth: scroller.scrollWidth, clientWidth: scroller.clientWidth,
            header: header.slice(0, 200)};
  });
  return {charts: charts, tables: tables};
}"""


def layout_problems(pg, where: str) -> list[str]:
    """Clipped titles, legends on axis titles and clipped tables on the current page."""
    measured = pg.evaluate(_MEASURE)
    problems = []
    for i, chart in enumerate(measured["charts"]):
        name = f"{where}: chart {i + 1} {chart['wanted'][:70]!r}"
        if plain(chart["shown"]) != plain(chart["wanted"]):
            problems.append(f"{name}: title shows {chart['shown']!r}")
        if chart["titleLeft"] < -1 or chart["titleRight"] < -1:
            problems.append(
                f"{name}: title wider than the plot ({chart['plotWidth']:.0f} px; "
                f"overflows {-min(chart['titleLeft'], chart['titleRight']):.0f} px)"
            )
        if chart["legendOnAxisTitle"]:
            problems.append(f"{name}: legend covers an axis title")
    for i, table in enumerate(measured["tables"]):
        if table["scrollWidth"] > table["clientWidth"] + 2:
            problems.append(
                f"{where}: table {i + 1} clipped ({table['scrollWidth']} px of columns in "
                f"{table['clientWidth']} px): {table['header']}"
            )
    return problems


def assert_no_exception(pg, where: str) -> None:
    exceptions = pg.locator("[data-testid='stException']")
    assert exceptions.count() == 0, f"{where}: {exceptions.first.inner_text()[:2000]}"


#: Height of everything Streamlit draws: its main area and sidebar scroll inside themselves,
#: so the document is never taller than the window and ``full_page`` alone shows one screen.
_CONTENT_HEIGHT = """() => Math.ceil(Math.max(window.innerHeight,
  ...Array.from(document.querySelectorAll(
      '[data-testid="stMain"], [data-testid="stSidebarContent"]'))
    .map(e => e.getBoundingClientRect().top + e.scrollHeight)))"""
#: Tallest screenshot taken (px): chromium refuses larger surfaces.
MAX_SHOT_HEIGHT = 16_000


def shoot(pg, path: Path | None, *, full_page: bool = True, clip_sidebar: bool = False) -> bytes:
    """A screenshot of the page as it is now (charts drawn, runs finished); returns the PNG.

    With ``full_page`` the whole page, every chart below the first screen included: the
    window is made as tall as Streamlit's content for the shot (the width, and with it the
    layout the projector check measures, stays) and restored afterwards. With
    ``clip_sidebar`` only the main area is kept.
    """
    pg.wait_for_timeout(300)
    viewport = dict(pg.viewport_size)
    if full_page:
        for _ in range(3):  # charts may grow once they are laid out at the new height
            height = min(pg.evaluate(_CONTENT_HEIGHT), MAX_SHOT_HEIGHT)
            if height <= pg.viewport_size["height"]:
                break
            pg.set_viewport_size({"width": viewport["width"], "height": height})
            pg.wait_for_timeout(700)
    try:
        clip = None
        if clip_sidebar:
            left = pg.locator("[data-testid='stSidebar']").bounding_box()["width"]
            size = pg.viewport_size
            clip = dict(x=left, y=0, width=size["width"] - left, height=size["height"])
        return pg.screenshot(path=str(path) if path else None, clip=clip)
    finally:
        if pg.viewport_size != viewport:
            pg.set_viewport_size(viewport)
            pg.wait_for_timeout(500)

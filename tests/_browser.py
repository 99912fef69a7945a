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
#: Every document the tests open draws no CSS animation or transition (unless its context is
#: made with ``motion=True``, as the presentation walk's is): the tests look at pages
#: at rest (their waits outlast every transition), and the frames of Streamlit's running
#: indicator, spinners and sidebar slides were ~13 % of chromium's renderer CPU over a
#: presentation walk (47 -> 41 s on the sample; docs/BENCHMARKS.md, stop 52). Playwright's
#: own screenshots offer the same (``animations="disabled"``).
NO_MOTION = """(() => {
  const still = () => {
    const style = document.createElement('style');
    style.textContent = '*, *::before, *::after '
      + '{ animation: none !important; transition: none !important; }';
    document.head.appendChild(style);
  };
  if (document.head) still(); else document.addEventListener('DOMContentLoaded', still);
})();"""
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


def require_chromium() -> str:
    """Debian's chromium; the calling test skips without it, or fails under CI
    (``MLVIZ_REQUIRE_BROWSER=1``), where the browser tests must run."""
    import pytest

    path = chromium_path()
    if path is None:
        if os.environ.get("MLVIZ_REQUIRE_BROWSER"):
            pytest.fail("MLVIZ_REQUIRE_BROWSER is set but chromium is not installed")
        pytest.skip("chromium not installed (apt-get install -y chromium); CI installs it")
    return path


@contextlib.contextmanager
def chromium() -> Iterator:
    """A Playwright chromium browser (one Playwright per caller: a second sync_playwright()
    inside a first one fails)."""
    from playwright.sync_api import sync_playwright

    executable = require_chromium()
    with sync_playwright() as pw:
        launched = pw.chromium.launch(executable_path=executable, args=CHROMIUM_FLAGS)
        # every page of every context keeps a RunLog of its script runs (wait_idle reads it)
        new_context = launched.new_context

        def tracked_context(*args, motion: bool = False, **kwargs):
            # motion=True keeps the page's CSS motion: the presentation walk, where what a
            # class sees after a key press includes the app's scrolling during transitions
            context = new_context(*args, **kwargs)
            if not motion:
                context.add_init_script(NO_MOTION)
            context.on("page", track_runs)
            return context

        launched.new_context = tracked_context
        try:
            yield launched
        finally:
            launched.close()


@contextlib.contextmanager
def served(env: dict[str, str] | None = None) -> Iterator[str]:
    """:func:`streamlit_server` for a test fixture: a server that does not start fails the
    test with streamlit's output instead of an error in the fixture."""
    import pytest

    server = streamlit_server(env=env)
    try:
        url = server.__enter__()
    except RuntimeError as err:
        pytest.fail(str(err))
    try:
        yield url
    finally:
        server.__exit__(None, None, None)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def streamlit_command(port: int) -> list[str]:
    """The app's server (``python serve.py``: ``streamlit run app.py`` with the pages'
    libraries imported before it serves) headless on loopback at ``port``, without usage
    statistics."""
    return [
        sys.executable,
        "serve.py",
        "--server.headless",
        "true",
        "--server.address",
        "127.0.0.1",
        "--server.port",
        str(port),
        "--browser.gatherUsageStats",
        "false",
    ]


def wait_healthy(url: str, proc: subprocess.Popen, timeout: float) -> None:
    """Return once the server at ``url`` answers its health check; kill ``proc`` and raise
    RuntimeError (with what it printed, if piped) when it exits or ``timeout`` s pass."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            output = proc.stdout.read() if proc.stdout else ""
            raise RuntimeError(f"streamlit did not start within {timeout:.0f} s:\n{output[-3000:]}")
        time.sleep(0.3)


@contextlib.contextmanager
def streamlit_server(timeout: float = 60, env: dict[str, str] | None = None) -> Iterator[str]:
    """Run the app headless on a free port; yield its URL; stop it afterwards.

    ``env`` adds environment variables for the server (e.g. ``MLVIZ_DATA_DIR``).
    """
    port = free_port()
    proc = subprocess.Popen(
        streamlit_command(port),
        cwd=REPO,
        env={**os.environ, **(env or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, proc, timeout)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


# Waits are conditions on what the page shows, never fixed sleeps. Streamlit writes its script
# state ("running", "notRunning", "rerunRequested", ...) into stApp's data-test-script-state
# attribute; a MutationObserver (installed once per document) counts its changes, so a wait can
# ask for "a run has started since the click and has finished" instead of sleeping until the
# run has probably started.
_RUNS = """() => {
  if (!window.__mlvizRuns) {
    const runs = {changes: 0, changed: performance.now(), newDocument: true};
    new MutationObserver(records => {
      runs.changes += records.length;
      runs.changed = performance.now();
    }).observe(document.documentElement, {
      attributes: true, subtree: true, attributeFilter: ['data-test-script-state'],
    });
    window.__mlvizRuns = runs;
  }
  return window.__mlvizRuns;
}"""

#: How long (ms) the script state must stay unchanged before the app counts as idle, for a page
#: without a :class:`RunLog` (every page of :func:`chromium`'s contexts has one, and needs only
#: :data:`SETTLED_QUIET_MS`). A run that the script itself requests (the router's first rerun,
#: ``st.rerun``) starts within a few milliseconds of the previous run's end, so a quiet spell
#: far longer than that means no run is pending. The wait returns as soon as the spell is over
#: (not a fixed sleep after an event).
QUIET_MS = 250

# True once the app is idle: connected, script not running and not about to rerun, no status
# widget, no stale element left, the state quiet for QUIET_MS, and -- when ``since`` is given --
# at least one script-state change after ``since`` (a run started by the caller's action, or a
# new document), or, with ``url``, an address changed since the mark (a widget's new value in
# the link), or, when ``path`` is given, the address showing that page: the server sends the
# new page's address when the navigation's run starts, and a run served from the caches can go
# running -> notRunning within one render, which the observer never sees (CI stop 27: Compare on
# medical, already computed by an earlier test of the same server).
_IDLE = (
    "([since, quiet, path, url]) => {\n  const runs = ("
    + _RUNS
    + """)();
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app || app.getAttribute('data-test-connection-state') !== 'CONNECTED') return false;
  if (app.getAttribute('data-test-script-state') !== 'notRunning') return false;
  if (document.querySelector('[data-testid="stStatusWidget"]')) return false;
  if (document.querySelector('[data-stale="true"]')) return false;
  const there = path !== null
      && location.pathname.replace(/\\/+$/, '') === (path === '' ? '' : '/' + path);
  // the app writes every widget's value into the address during its run, so a new
  // address is also a run started since the mark
  const moved = url && runs.href !== undefined && location.href !== runs.href;
  if (since !== null && !runs.newDocument && runs.changes <= since && !there && !moved) {
    return false;
  }
  return performance.now() - runs.changed >= quiet;
}"""
)


#: With a :class:`RunLog` that says every run has ended, the script state only has to stay
#: unchanged this long (ms): time for the browser to apply the messages it has received.
SETTLED_QUIET_MS = 50
#: A rerun the browser asked for whose run has not started after this long (s), while the app
#: shows no run, counts as dropped by the server (Streamlit drops a fragment's rerun once the
#: fragment is gone); the wait then ends as it would without a log.
DROPPED_REQUEST_S = 5.0
#: How often (ms) a wait for the run an action started looks at the :class:`RunLog` again.
LOG_POLL_MS = 250


class RunLog:
    """The script runs of one page, as the server reported them over its websocket.

    The script state in the DOM cannot tell a finished run from one about to start: a run
    the script requests itself (``st.rerun``, the router's first rerun) follows a
    ``notRunning`` within milliseconds, which is why :data:`QUIET_MS` exists. The messages
    can: Streamlit ends such a run with ``script_finished`` = ``FINISHED_EARLY_FOR_RERUN``,
    starts every run with ``new_session`` and ends it with another ``script_finished``;
    the browser asks for a run with a ``rerun_script`` message. Events are numbered in the
    order Playwright reports them (frames sent and received, in order).
    """

    def __init__(self) -> None:
        self.events = 0
        self.requested = -1  # the last rerun asked for (by the browser or by the script)
        self.requested_by_browser = False
        self.requested_at = 0.0
        self.started = -1  # the last run's start
        self.finished = -1  # the last run's end (not one ended early for a rerun)

    def _next(self) -> int:
        self.events += 1
        return self.events

    def received(self, payload: bytes | str) -> None:
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        message = ForwardMsg()
        message.ParseFromString(payload if isinstance(payload, bytes) else payload.encode())
        kind = message.WhichOneof("type")
        if kind == "new_session":
            self.started = self._next()
        elif kind == "script_finished":
            if message.script_finished == ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                self.requested, self.requested_by_browser = self._next(), False
            else:
                self.finished = self._next()

    def sent(self, payload: bytes | str) -> None:
        from streamlit.proto.BackMsg_pb2 import BackMsg

        message = BackMsg()
        message.ParseFromString(payload if isinstance(payload, bytes) else payload.encode())
        if message.WhichOneof("type") == "rerun_script":
            self.requested, self.requested_by_browser = self._next(), True
            self.requested_at = time.monotonic()

    def asked_since(self, events: int) -> bool:
        """Whether a run was asked for or started after the log's ``events``-th event."""
        return max(self.requested, self.started) > events

    def settled(self) -> bool:
        """No run going and none asked for (a browser request unanswered for
        :data:`DROPPED_REQUEST_S` counts as dropped)."""
        if self.started < self.requested:
            dropped = time.monotonic() - self.requested_at >= DROPPED_REQUEST_S
            if not (self.requested_by_browser and dropped):
                return False
        return self.finished >= self.started


def track_runs(pg) -> None:
    """Keep a :class:`RunLog` of ``pg``'s script runs (``pg.run_log``); every page of a
    context made by :func:`chromium`'s browser gets one when it opens."""
    log = RunLog()
    pg.run_log = log

    def connected(socket) -> None:
        socket.on("framereceived", log.received)
        socket.on("framesent", log.sent)

    pg.on("websocket", connected)


class Mark(int):
    """What :func:`runs_so_far` returns: the page's count of script-state changes (what the
    idle condition in the page compares) and, on a page with a :class:`RunLog`, the log's
    event count at the same moment (``events``, else ``None``)."""

    events: int | None

    def __new__(cls, changes: int, events: int | None) -> Mark:
        mark = super().__new__(cls, changes)
        mark.events = events
        return mark


def runs_so_far(pg) -> Mark:
    """A mark to pass to :func:`wait_idle` as ``since`` before an action that starts a run."""
    log = getattr(pg, "run_log", None)
    changes = pg.evaluate(
        "() => { const runs = (" + _RUNS + ")(); runs.newDocument = false;"
        " runs.href = location.href; return runs.changes; }"
    )
    return Mark(changes, None if log is None else log.events)


def wait_idle(
    pg,
    since: int | None = None,
    timeout: float = 180_000,
    path: str | None = None,
    url: bool = False,
) -> None:
    """Wait until the page has a title and the app has finished running.

    With ``since`` (from :func:`runs_so_far` taken before the action) the wait also requires
    that a run started after the action, so it cannot return in the moment between a click and
    the run it triggers. With ``path`` (a navigation to that page, ``""`` for the home page) the
    address reaching that page also counts as such a run; with ``url`` (an action that changes
    a widget on an idle page) so does any change of the address. Not for clicks that may
    follow a run whose address update is still arriving (it would count that one).

    On a page with a :class:`RunLog` the wait also needs the server's word that no run is
    going or about to start, and then the script state only has to stay unchanged for
    :data:`SETTLED_QUIET_MS` instead of :data:`QUIET_MS`; a run the server was asked for (or
    started) after ``since`` then counts as the action's run even if the page never showed it.
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    pg.wait_for_selector("[data-testid='stMain'] h1", timeout=timeout)
    log = getattr(pg, "run_log", None)
    quiet = QUIET_MS if log is None else SETTLED_QUIET_MS
    deadline = time.monotonic() + timeout / 1000
    logged = log is not None and getattr(since, "events", None) is not None
    try:
        while True:
            left = max(1.0, (deadline - time.monotonic()) * 1000)
            if logged and since is not None and log.asked_since(since.events):
                # the server got the action's rerun request (or started a run) after the mark:
                # the page need not show that run. A fast one can go from "running" back to
                # "notRunning" within one render, and then the page never counts it; the log
                # (settled() below) still waits for every run asked for to end
                since = None
            condition = [None if since is None else int(since), quiet, path, url]
            if logged and since is not None:
                # a run the page shows, or the log's word between short waits
                try:
                    pg.wait_for_function(_IDLE, arg=condition, timeout=min(left, LOG_POLL_MS))
                except PlaywrightTimeout:
                    if time.monotonic() >= deadline:
                        raise
                    continue
            else:
                pg.wait_for_function(_IDLE, arg=condition, timeout=left)
            if log is None or log.settled():
                return
            # the server has a run to start (the page shows none yet): wait for its messages
            while not log.settled() and time.monotonic() < deadline:
                pg.wait_for_timeout(10)
            if time.monotonic() >= deadline:
                raise TimeoutError("a requested run never ended")
    except Exception as error:  # say which condition did not hold
        raise AssertionError(
            f"the app did not become idle (since={since}): {app_state(pg)}"
        ) from error


def app_state(pg) -> dict:
    """What the idle condition looks at (runs seen, the running indicator, the
    :class:`RunLog`), for messages."""
    state = pg.evaluate(_APP_STATE)
    log = getattr(pg, "run_log", None)
    if log is not None:
        state["runLog"] = {**vars(log), "settled": log.settled()}
    return state


# What the idle condition looks at, for the message of a wait that timed out.
_APP_STATE = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  const runs = window.__mlvizRuns;
  return {
    url: location.href,
    script: app && app.getAttribute('data-test-script-state'),
    connection: app && app.getAttribute('data-test-connection-state'),
    statusWidget: !!document.querySelector('[data-testid="stStatusWidget"]'),
    stale: Array.from(document.querySelectorAll('[data-stale="true"]'))
        .map(e => (e.getAttribute('data-testid') || e.tagName) + ': '
             + (e.textContent || '').slice(0, 80)),
    changes: runs ? runs.changes : null,
    quietMs: runs ? Math.round(performance.now() - runs.changed) : null,
  };
}"""


# True once every plotly chart of the main area is drawn (plotly has laid it out and its SVG
# exists) and the charts' and the page's geometry has stayed the same for 5 animation frames:
# plotly lays out titles and legends, and Streamlit resizes charts to a new window, after the
# run has ended.
_SETTLED = """() => {
  const plots = Array.from(document.querySelectorAll('[data-testid="stMain"] .js-plotly-plot'));
  if (plots.some(p => !p._fullLayout || !p.querySelector('.main-svg'))) return false;
  const box = e => { const b = e.getBoundingClientRect();
                     return [b.left, b.top, b.width, b.height].map(Math.round).join(','); };
  const shape = [window.innerWidth, window.innerHeight, ...plots.map(box),
      ...Array.from(document.querySelectorAll(
          '[data-testid="stMain"] .js-plotly-plot .gtitle, '
          + '[data-testid="stMain"] .js-plotly-plot .legend')).map(box)].join('|');
  const state = window.__mlvizLayout || {shape: null, frames: 0};
  state.frames = state.shape === shape ? state.frames + 1 : 0;
  state.shape = shape;
  window.__mlvizLayout = state;
  return state.frames >= 5;
}"""


def wait_settled(pg, timeout: float = 60_000) -> None:
    """Wait until the main area's charts are drawn and their layout has stopped moving."""
    pg.evaluate("() => { window.__mlvizLayout = null; }")
    pg.wait_for_function(_SETTLED, polling="raf", timeout=timeout)


def open_page(pg, path: str) -> None:
    """Open a page through the sidebar navigation, keeping the session (and its data set)."""
    link = pg.locator(f"[data-testid='stSidebarNav'] a[href$='/{path}']").first
    here = pg.url.split("?")[0].rstrip("/") == link.evaluate("a => a.href").rstrip("/")
    since = runs_so_far(pg)
    link.click()
    # the page already shown may not run again
    wait_idle(pg, None if here else since, path=path)


def click_and_wait(pg, locator) -> None:
    """Click a control that starts a run (a button) and wait until that run has finished."""
    since = runs_so_far(pg)
    locator.click()
    wait_idle(pg, since)


def choose_dataset(pg, name: str) -> None:
    """Pick a data set by (part of) its name in the sidebar picker."""
    before = chosen_dataset(pg)
    picker = pg.locator("[data-testid='stSidebar'] [data-testid='stSelectbox'] input").first
    picker.click()
    picker.fill(name)
    option = pg.locator("[role='option']", has_text=name).first
    same = option.inner_text().strip() == before.strip()
    since = runs_so_far(pg)
    option.click()
    # choosing the data set already shown starts no run; another one changes the address
    # (?dataset=...), which also counts as its run: a run served from the cache can end before
    # the run counter sees it start (a full suite once waited 180 s for medical that way)
    wait_idle(pg, None if same else since, url=not same)


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
_MEASURE = """(scope) => {
  const box = e => e.getBoundingClientRect();
  const overlap = (a, b) => Math.max(0, Math.min(a.right, b.right) - Math.max(a.left, b.left))
      * Math.max(0, Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top));
  const charts = Array.from(document.querySelectorAll(scope + ' .js-plotly-plot'))
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
      // the legend's entries (not its background) against the title's lines
      const entries = Array.from(p.querySelectorAll('.legend .traces')).map(box);
      const legendOnTitle = tb ? entries.some(e => overlap(e, tb) > 0) : false;
      // the title's lines against subplot titles and other annotations, and colour bars
      // (their ticks and title): a few px of touching glyph boxes are not a collision
      const clash = b => tb && b.width > 0 && overlap(b, tb) > 16;
      const onTitle = [
        ...Array.from(p.querySelectorAll('.annotation text'))
          .filter(t => t.textContent.trim() && clash(box(t)))
          .map(t => 'annotation ' + JSON.stringify(t.textContent.slice(0, 40))),
        ...Array.from(p.querySelectorAll('.colorbar'))
          .filter(c => clash(box(c))).map(() => 'colour bar'),
      ];
      return {
        wanted: wanted,
        shown: title ? title.textContent : '',
        titleLeft: tb ? tb.left - plot.left : 0,
        titleRight: tb ? plot.right - tb.right : 0,
        plotWidth: plot.width,
        legendOnAxisTitle: legendOnAxisTitle,
        legendOnTitle: legendOnTitle,
        onTitle: onTitle,
      };
    });
  const tables = Array.from(document.querySelectorAll(scope + ' [data-testid="stDataFrame"]'))
      .filter(t => t.checkVisibility()).map(t => {
    const scroller = t.querySelector('.dvn-scroller') || t;
    const header = Array.from(t.querySelectorAll('[role="columnheader"]'))
        .map(h => h.textContent).join(' | ');
    return {scrollWidth: scroller.scrollWidth, clientWidth: scroller.clientWidth,
            header: header.slice(0, 200)};
  });
  return {charts: charts, tables: tables};
}"""


#: Where the checks look: Streamlit's main area (an exported file: ``"body"``).
MAIN = '[data-testid="stMain"]'


def layout_problems(pg, where: str, scope: str = MAIN) -> list[str]:
    """Clipped titles, legends on axis titles or on the title, titles on subplot titles,
    annotations or colour bars, clipped tables on the page, and texts of text-mode points
    drawn over each other (:func:`text_problems`)."""
    measured = pg.evaluate(_MEASURE, scope)
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
        if chart["legendOnTitle"]:
            problems.append(f"{name}: legend drawn over the title")
        for other in chart["onTitle"]:
            problems.append(f"{name}: title collides with {other}")
    for i, table in enumerate(measured["tables"]):
        if table["scrollWidth"] > table["clientWidth"] + 2:
            problems.append(
                f"{where}: table {i + 1} clipped ({table['scrollWidth']} px of columns in "
                f"{table['clientWidth']} px): {table['header']}"
            )
    return problems + text_problems(pg, where, scope)


# The texts of plotly's text-mode points (a biplot's label names), as the boxes they cover
# on the screen, per chart, with the plot area of their subplot (which clips them); plotly
# places them where their points are, without avoiding each other or the area's edges.
_POINT_TEXTS = """(scope) => Array.from(
  document.querySelectorAll(scope + ' .js-plotly-plot')).map(p => Array.from(
    p.querySelectorAll('.textpoint text')).filter(t => t.textContent.trim()).map(t => {
      const b = t.getBoundingClientRect();
      const sub = t.closest('.subplot');
      const name = sub ? Array.from(sub.classList).find(c => c !== 'subplot') : null;
      const drag = name ? p.querySelector('.draglayer .' + name + ' .nsewdrag') : null;
      const a = drag ? drag.getBoundingClientRect() : null;
      return {text: t.textContent, left: b.left, right: b.right, top: b.top, bottom: b.bottom,
              area: a && {left: a.left, right: a.right, top: a.top, bottom: a.bottom}};
    }))"""


def text_problems(pg, where: str, scope: str = MAIN) -> list[str]:
    """Texts of plotly's text-mode points drawn over each other (more than 1 px both ways)
    or cut by the edge of their plot area (more than 1 px outside it)."""
    problems = []
    for i, texts in enumerate(pg.evaluate(_POINT_TEXTS, scope)):
        for t in texts:
            area = t["area"]
            if area and (
                t["left"] < area["left"] - 1
                or t["right"] > area["right"] + 1
                or t["top"] < area["top"] - 1
                or t["bottom"] > area["bottom"] + 1
            ):
                problems.append(
                    f"{where}: chart {i + 1}: {t['text'][:40]!r} is cut by the plot's edge"
                )
        for j, a in enumerate(texts):
            for b in texts[j + 1 :]:
                wide = min(a["right"], b["right"]) - max(a["left"], b["left"])
                high = min(a["bottom"], b["bottom"]) - max(a["top"], b["top"])
                if wide > 1 and high > 1:
                    problems.append(
                        f"{where}: chart {i + 1}: {a['text'][:40]!r} is drawn over "
                        f"{b['text'][:40]!r} ({wide:.0f} x {high:.0f} px)"
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
    wait_settled(pg)
    viewport = dict(pg.viewport_size)
    if full_page:
        for _ in range(3):  # charts may grow once they are laid out at the new height
            height = min(pg.evaluate(_CONTENT_HEIGHT), MAX_SHOT_HEIGHT)
            if height <= pg.viewport_size["height"]:
                break
            pg.set_viewport_size({"width": viewport["width"], "height": height})
            wait_settled(pg)
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
            wait_settled(pg)


# Every tick label of every plotly chart of the main area, as the quadrilateral it covers on the
# screen: the text's own box (getBBox, before its rotation) mapped through getScreenCTM, so a
# label slanted at -60° is the slanted rectangle, not its axis-aligned hull. Labels are grouped
# by the axis layer that draws them (one group per axis of each subplot, one per colour bar).
_TICKS = """(scope) => {
  const corners = t => {
    const b = t.getBBox(), m = t.getScreenCTM();
    // glyph boxes include the line's leading: 1 px in from each side
    const pts = [[b.x + 1, b.y + 1], [b.x + b.width - 1, b.y + 1],
                 [b.x + b.width - 1, b.y + b.height - 1], [b.x + 1, b.y + b.height - 1]];
    return pts.map(([x, y]) => [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f]);
  };
  return Array.from(document.querySelectorAll(scope + ' .js-plotly-plot'))
    .map(p => {
      const svg = p.querySelector('.main-svg').getBoundingClientRect();
      const layoutTitle = p.layout && p.layout.title;
      const title = typeof layoutTitle === 'string' ? layoutTitle
          : (layoutTitle && layoutTitle.text) || '';
      const groups = new Map();
      // axis ticks, and the colour bars' own (a 'cbaxis' layer per bar)
      p.querySelectorAll('.xtick text, .ytick text, .cbaxis text').forEach(t => {
        if (!t.textContent.trim() || t.getAttribute('display') === 'none') return;
        const layer = t.parentNode.parentNode;
        if (!groups.has(layer)) groups.set(layer, []);
        groups.get(layer).push({text: t.textContent, quad: corners(t)});
      });
      return {title: title, svg: [svg.left, svg.top, svg.right, svg.bottom],
              axes: Array.from(groups.values())};
    });
}"""


def _separated(a: list, b: list) -> bool:
    """Two convex quadrilaterals do not overlap (separating axis test on their edges)."""
    for quad in (a, b):
        for i in range(4):
            (x1, y1), (x2, y2) = quad[i], quad[(i + 1) % 4]
            nx, ny = y2 - y1, x1 - x2
            pa = [nx * x + ny * y for x, y in a]
            pb = [nx * x + ny * y for x, y in b]
            if max(pa) <= min(pb) or max(pb) <= min(pa):
                return True
    return False


def tick_problems(pg, where: str, scope: str = MAIN) -> list[str]:
    """Tick labels that overlap a neighbour on their axis, or stick out of their chart's SVG."""
    problems = []
    for i, chart in enumerate(pg.evaluate(_TICKS, scope)):
        name = f"{where}: chart {i + 1} {plain(chart['title'])[:60]!r}"
        left, top, right, bottom = chart["svg"]
        for ticks in chart["axes"]:
            cut = [
                t["text"]
                for t in ticks
                if any(
                    x < left - 1 or x > right + 1 or y < top - 1 or y > bottom + 1
                    for x, y in t["quad"]
                )
            ]
            if cut:
                problems.append(f"{name}: {len(cut)} tick labels cut by the edge, e.g. {cut[:3]}")
            clashes = [
                (a["text"], b["text"])
                for j, a in enumerate(ticks)
                for b in ticks[j + 1 : j + 4]  # neighbours along the axis
                if not _separated(a["quad"], b["quad"])
            ]
            if clashes:
                problems.append(
                    f"{name}: {len(clashes)} pairs of tick labels overlap, e.g. {clashes[:3]}"
                )
    return problems


def fewest_folds(pg) -> None:
    """Compare's "Folds" slider to its minimum (2), before a browser test runs the
    cross-validation to look at its charts: they draw the same label names and methods at any
    number of folds, and the default folds' run was half of test_browser_labels' time (28 s of
    55 s on the 983-label set)."""
    slider = (
        pg.locator("[data-testid='stMain'] [data-testid='stSlider']")
        .filter(has_text="Folds")
        .locator("input[type='range']")
    )
    if slider.count() == 0 or slider.input_value() == "2":
        return  # no slider (2 folds fixed) or already at 2
    slider.focus()
    since = runs_so_far(pg)
    pg.keyboard.press("Home")
    wait_idle(pg, since, url=True)
    assert slider.input_value() == "2", f"Compare's folds at {slider.input_value()}, not 2"

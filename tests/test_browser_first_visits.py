"""Real browser: a class arriving at once on a freshly started server (issue 29, item 4).

A teacher starts the server and the students open the link at the same moment. Every one of
those first sessions starts while Streamlit 1.67 still runs the app in its legacy ``pages/``
folder mode (until the process's first ``st.navigation``; see ``pages/_app/router.py``), so
this test needs its OWN fresh server, not the module-shared one. It opens several tabs (one
browser context, i.e. one session, each) within a fraction of a second, on the root and on deep
links, and checks that:

* no tab shows Streamlit's "Page not found" dialog nor receives its cause (a
  ``page_not_found`` message, decoded from the websocket) and each shows its page's title;
* the test really hit the window it is about: at least one tab's first run was a legacy-mode
  run (its first ``navigation`` message lists every file of ``pages/`` plus ``app.py``); a
  wave that missed the window (a race on a loaded machine) is repeated once on a new fresh
  server (:data:`ATTEMPTS`);
* the detector was checked once by hand, not in every run: on a router with an explicit
  ``url_path="linear"`` for PLST this test failed in 4 of 4 runs. A control tab on a page that
  does not exist cannot stand in for that: such a page gets the dialog only in some first runs
  (a session whose first run is the router's falls back to the default page silently).

Each tab opens the URL the router's navigation gives its page file, so a router URL that the
legacy mode does not know (the mechanism, see the router's docstring) is opened too.

Same set-up as ``tests/test_browser.py`` (Debian's chromium, never downloaded; marker
``browser``).
"""

from __future__ import annotations

import time

import pytest

from tests import _browser

pytestmark = pytest.mark.browser

#: (page file, query) -> the beginning of the title the page shows; each tab opens the URL the
#: router's navigation gives that file (so a router URL the legacy mode does not know is opened).
PAGES = {
    ("data.py", ""): "Data: ",
    ("plst.py", "?plst_m=2"): "PLST and the linear label-space transformations",
    ("lesson.py", ""): "Lesson",
    ("mlknn.py", ""): "ML-KNN",
    ("clems.py", ""): "CLEMS: cost-sensitive label embedding",
    ("data.py", "?present=1"): "Data: ",
}
NOT_FOUND = "Page not found"
#: Pages in the legacy mode's navigation: app.py and every page file (the router has 9).
LEGACY_PAGES = 1 + len(list((_browser.REPO / "pages").glob("*.py")))
# True once the tab shows the dialog, or its app has a title and is idle.
_DONE = (
    "([since, quiet, path, url]) => document.body.innerText.includes('"
    + NOT_FOUND
    + "') || (!!document.querySelector(\"[data-testid='stMain'] h1\") && ("
    + _browser._IDLE
    + ")([since, quiet, path, url]))"
)


def _record_messages(page, seen: list) -> None:
    """Append what the tab's server says that matters here: the page count of every
    ``navigation`` ForwardMsg, and NOT_FOUND for a ``page_not_found`` one (the dialog's cause;
    the dialog itself can be closed again, e.g. by a reconnect under load)."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    def on_frame(payload) -> None:
        if isinstance(payload, (bytes, bytearray)):
            message = ForwardMsg()
            message.ParseFromString(bytes(payload))
            kind = message.WhichOneof("type")
            if kind == "navigation":
                seen.append(len(message.navigation.app_pages))
            elif kind == "page_not_found":
                seen.append(NOT_FOUND)

    page.on("websocket", lambda ws: ws.on("framereceived", on_frame))


def _router_urls_script():
    import streamlit as st

    from pages._app import router

    pages = zip(router.PAGES, router.navigation_pages(), strict=True)
    st.session_state["urls"] = {file: page.url_path for (file, _, _), page in pages}


def router_links() -> dict[str, str]:
    """Link (path and query) -> expected title start, with the router's URL of each file
    (computed in this process by AppTest, so the server stays untouched)."""
    from streamlit.testing.v1 import AppTest

    urls = AppTest.from_function(_router_urls_script).run().session_state["urls"]
    return {urls[file] + query: title for (file, query), title in PAGES.items()}


#: Fresh servers a run of the test may start: the legacy window is a race (the first wave
#: of tabs must reach the server before its first ``st.navigation``), and on a loaded machine
#: one wave missed it (a suite run at stop 53: six tabs opened within 2.74 s, none of them in
#: the legacy mode). A wave that misses it tested nothing about that window, so the class
#: arrives again on a new fresh server; the checks of what the tabs show hold for every wave.
ATTEMPTS = 2


def _first_wave(browser, expected: dict[str, str]) -> tuple[dict, float]:
    """Open every link at once on a fresh server; what each tab showed and the spread (s)."""
    links = list(expected)
    with _browser.served() as url:
        tabs = []
        for link in links:
            context = browser.new_context(viewport=_browser.PROJECTOR)
            page = context.new_page()
            page.set_default_timeout(120_000)
            messages: list = []
            _record_messages(page, messages)
            tabs.append((link, context, page, messages))
        started = time.monotonic()
        # "commit": the next tab starts as soon as this one's document arrives, not after it
        # has loaded, so every session's first run starts within the legacy-mode window
        for link, _, page, _ in tabs:
            page.goto(f"{url}/{link}", wait_until="commit")
        spread = time.monotonic() - started
        seen = {}
        try:
            for link, _, page, messages in tabs:
                page.wait_for_function(_DONE, arg=[None, _browser.QUIET_MS, None, False])
                if NOT_FOUND in page.inner_text("body"):  # the page loads behind the dialog
                    _browser.wait_idle(page)
                titles = page.locator("[data-testid='stMain'] h1").all_inner_texts()
                seen[link] = (
                    NOT_FOUND in page.inner_text("body") or NOT_FOUND in messages,
                    titles[0] if titles else "",
                    list(messages),
                )
        finally:
            for _, context, _, _ in tabs:
                context.close()
    return seen, spread


def test_a_class_opening_a_fresh_server_at_once(browser):
    expected = router_links()
    reports = []
    for _ in range(ATTEMPTS):
        seen, spread = _first_wave(browser, expected)
        report = f"tabs opened within {spread:.2f} s: {seen}"
        reports.append(report)
        # No control tab: an unknown page gets the dialog only in some first runs (a session
        # whose first run is the router's falls back to the default page silently: seen on a
        # warm server), so it cannot prove the detector in every run. The detector (the
        # dialog's text, or the page_not_found message on the websocket) was checked on a
        # router with an explicit url_path="linear" for PLST: this test failed there in 4 of 4
        # runs.
        for link, title in expected.items():
            not_found, shown, _ = seen[link]
            assert not not_found, f"/{link} showed '{NOT_FOUND}': {report}"
            assert shown.startswith(title), f"/{link} shows {shown!r}, not {title!r}: {report}"
        legacy = [  # a first navigation message of the legacy mode's size
            link
            for link, (_, _, messages) in seen.items()
            if [m for m in messages if m != NOT_FOUND][:1] == [LEGACY_PAGES]
        ]
        if legacy:
            break
    assert legacy, (
        f"no tab's first run was in the legacy pages/ mode in {ATTEMPTS} fresh servers (not "
        "fresh servers?): " + " | ".join(reports)
    )

"""Real browser: a hostile link's markdown payload renders as text (issue 24, item 2).

The issue's link put a clickable "Sign in again" (to http://evil.example) and an image fetched
from http://127.0.0.1:1 into the "link ignored" note, through ``plst_m=`` and ``dataset=``.
In a real chromium the note must show the payload's characters and the DOM must hold no such
link and no such image; no request may go to either address. Same set-up as
``tests/test_browser.py`` (Debian's chromium, never downloaded; marker ``browser``).
"""

from __future__ import annotations

from urllib.parse import quote, urlparse

import pytest

from tests import _browser

pytestmark = pytest.mark.browser

PAYLOAD = "x` [Sign in again](http://evil.example/login) ![p](http://127.0.0.1:1/pixel.png) `"


@pytest.fixture(scope="module")
def page(server_url, browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = context.new_page()
    pg.set_default_timeout(60_000)
    pg.server_url = server_url
    yield pg
    context.close()


def test_markdown_payload_in_a_link_renders_as_text(page):
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    q = quote(PAYLOAD, safe="")
    page.goto(f"{page.server_url}/plst?plst_m={q}&dataset={q}")
    _browser.wait_idle(page, path="plst")
    _browser.assert_no_exception(page, "/plst with the payload")
    notes = [  # the helper's invisible word joiners break autolinks; the text reads the same
        n.replace("\u2060", "")
        for n in page.locator("[data-testid='stAlertContainer']").all_inner_texts()
    ]
    with_payload = [n for n in notes if "[Sign in again](http://evil.example/login)" in n]
    assert len(with_payload) == 2, notes  # plst_m and dataset, each shown character by character
    links = page.eval_on_selector_all("a[href*='evil.example']", "els => els.map(e => e.href)")
    images = page.eval_on_selector_all("img[src*='127.0.0.1:1']", "els => els.map(e => e.src)")
    assert links == [] and images == []
    hosts = {(urlparse(r).hostname, urlparse(r).port) for r in requests}
    assert ("evil.example", None) not in hosts and ("127.0.0.1", 1) not in hosts, hosts

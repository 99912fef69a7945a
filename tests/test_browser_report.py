"""Real-browser test: the HTML report opens offline (issue 24 item 4, issue 23 item 2).

The report of a view is written to a file and opened in Debian's chromium through
``file://`` with the network switched off and every non-file request aborted: each figure
must render (plotly draws its SVG), and the page must not even try to fetch anything.
"""

from __future__ import annotations

import plotly.graph_objects as go
import pytest

from mlviz.figures.report import html_report
from tests import _browser

pytestmark = pytest.mark.browser


def _open_offline(path):
    from playwright.sync_api import sync_playwright

    requested: list[str] = []
    errors: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=_browser.require_chromium(), args=_browser.CHROMIUM_FLAGS
        )
        context = browser.new_context(offline=True)

        def guard(route):
            if route.request.url.startswith("file://"):
                route.continue_()
            else:
                requested.append(route.request.url)
                route.abort()

        context.route("**/*", guard)
        page = context.new_page()
        page.on("pageerror", lambda err: errors.append(str(err)))
        page.goto(path.as_uri())
        page.wait_for_function(
            "n => document.querySelectorAll('.js-plotly-plot .main-svg').length >= n",
            arg=2,
            timeout=60_000,
        )
        plots = page.eval_on_selector_all(
            ".js-plotly-plot",
            "els => els.map(e => [e.querySelectorAll('.main-svg').length, "
            "e.querySelectorAll('.point, .trace').length])",
        )
        browser.close()
    return plots, requested, errors


def test_html_report_renders_its_figures_offline(tmp_path):
    figures = {
        "spectrum": go.Figure(go.Bar(x=["a", "b", "c"], y=[3, 2, 1])),
        "loss": go.Figure(go.Scatter(x=[1, 2, 3], y=[0.3, 0.2, 0.1])),
    }
    path = tmp_path / "report.html"
    path.write_text(html_report("offline check", figures, {"M": 4}), encoding="utf-8")
    plots, requested, errors = _open_offline(path)
    assert not requested, f"the report tried to load {requested}"
    assert not errors, errors
    assert len(plots) == 2
    assert all(svgs >= 1 and marks >= 1 for svgs, marks in plots), plots

"""Real-browser test: Debian's chromium driven by Playwright against `streamlit run app.py`.

Never downloads a browser (no ``playwright install``): it uses /usr/bin/chromium. Locally the
test skips when chromium is missing; under CI (``MLVIZ_REQUIRE_BROWSER=1``) it fails instead.
"""

from __future__ import annotations

import warnings

import pytest

from mlviz.datasets import default_data_dir
from tests import _browser

pytestmark = pytest.mark.browser
MAIN_SLIDER = "[data-testid='stMain'] [data-testid='stSlider'] input[type='range']"


@pytest.fixture(scope="module")
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = context.new_page()
    pg.set_default_timeout(60_000)
    yield pg
    context.close()


_wait_idle = _browser.wait_idle
_assert_no_exception = _browser.assert_no_exception


def _chart_titles(pg) -> list[str]:
    return pg.eval_on_selector_all(".js-plotly-plot .gtitle", "els => els.map(e => e.textContent)")


def test_deep_link_on_a_fresh_server_gets_the_router(page, server_url):
    # Must be the module's first visit: Streamlit runs a pages/ folder as a legacy
    # multipage app until the server's first st.navigation call.
    page.goto(f"{server_url}/mlknn")
    _wait_idle(page)
    page.wait_for_selector(".js-plotly-plot")
    _assert_no_exception(page, "/mlknn opened first")
    assert page.locator("[data-testid='stMain'] h1").first.inner_text() == "ML-KNN"
    nav = page.locator("[data-testid='stSidebarNav']").inner_text()
    assert "Label clusters" in nav and "shared" not in nav, nav


def test_the_tests_browser_draws_no_transition(page, server_url):
    """Every page the tests open draws no CSS transition (``_browser.NO_MOTION``): Streamlit's
    own CSS gives ~50 elements one, the sidebar's slide among them (0.3 s)."""
    page.goto(server_url)
    _wait_idle(page)
    moving = page.evaluate(
        "() => Array.from(document.querySelectorAll('*')).filter(e => {"
        " const style = getComputedStyle(e);"
        " return style.transitionDuration.split(',').some(d => parseFloat(d) > 0)"
        "   || style.animationName !== 'none'; }).length"
    )
    assert moving == 0, f"{moving} elements still move"


def test_a_csv_download_is_written_when_pressed(browser, server_url, tmp_path):
    """The CSV buttons write their file when pressed (a deferred download), not on every
    run: the file still arrives, named and neutralised, with the table's rows."""
    import csv

    context = browser.new_context(viewport=_browser.PROJECTOR, accept_downloads=True)
    pg = context.new_page()
    pg.set_default_timeout(60_000)
    try:
        pg.goto(server_url)
        _wait_idle(pg)
        button = pg.get_by_role("button", name="Download the label table (CSV)")
        button.scroll_into_view_if_needed()
        with pg.expect_download() as info:
            button.click()
        download = info.value
        assert download.suggested_filename.endswith("_labels.csv"), download.suggested_filename
        path = tmp_path / download.suggested_filename
        download.save_as(path)
        rows = list(csv.reader(path.open(encoding="utf-8")))
        assert rows[0][:3] == ["label", "count", "frequency"], rows[0]
        text = pg.locator("[data-testid='stSidebar']").inner_text()
        assert f"{len(rows) - 1} labels" in text.replace(",", ""), (len(rows), text[:300])
        _assert_no_exception(pg, "after the CSV download")
    finally:
        context.close()


def test_sidebar_tail_threshold_redraws_the_data_page_chart(page, server_url):
    page.goto(server_url)
    _wait_idle(page)
    page.wait_for_selector(".js-plotly-plot")
    _assert_no_exception(page, "data page")
    before = _chart_titles(page)
    page.locator("[data-testid='stSidebar']").get_by_text("Experiment settings").click()
    slider = (
        page.locator("[data-testid='stSidebar'] [data-testid='stSlider']")
        .filter(has_text="Tail share")  # the default (adaptive) rule's slider
        .locator("input[type='range']")
    )
    slider.focus()
    since = _browser.runs_so_far(page)
    # one key, one new value (the slider's top): 20 arrow presses could be cut short when the
    # run started by the first one redrew the slider and took its focus (CI, under load: a
    # one-step move that left the tail count, and so the title, as it was)
    page.keyboard.press("End")
    _wait_idle(page, since, url=True)
    page.wait_for_function(
        "(before) => JSON.stringify(Array.from(document.querySelectorAll("
        "'.js-plotly-plot .gtitle')).map(e => e.textContent)) !== JSON.stringify(before)",
        arg=before,
        timeout=30_000,
    )
    after = _chart_titles(page)
    assert after != before, "moving the tail-share slider did not redraw the chart"
    _assert_no_exception(page, "data page after slider move")


PAGES = {  # url path -> whether moving its first slider must change a chart
    "": False,  # the Data page's only slider is the sidebar's tail share (test above)
    "lesson": False,
    "hypercube": False,
    "label_clusters": True,
    "plst": True,
    "grople": True,
    "clems": True,
    "mlknn": True,
    "compare": False,
}

_PLOTS_SIGNATURE = """() => Array.from(document.querySelectorAll('.js-plotly-plot'))
    .map(p => JSON.stringify([(p.data || []).map(t => [t.x, t.y, t.z, t.marker && t.marker.color]),
                              p.layout && p.layout.title]))
    .join('|')"""


@pytest.mark.parametrize("path", list(PAGES))
def test_every_page_renders_and_a_slider_redraws(page, server_url, path):
    page.goto(f"{server_url}/{path}")
    _wait_idle(page)
    _assert_no_exception(page, f"/{path}")
    assert page.locator("[data-testid='stMain'] h1").count() == 1, f"/{path}: no page title"
    if path != "compare":
        page.wait_for_selector(".js-plotly-plot")
    sliders = page.locator(MAIN_SLIDER)
    if sliders.count() == 0:
        return
    before = page.evaluate(_PLOTS_SIGNATURE)
    slider = sliders.first
    # the range input's value and min (Streamlit's slider input carries no aria-valuenow: a
    # wait on it held at once, whether or not the slider had moved)
    value, minimum = slider.input_value(), slider.get_attribute("min")
    slider.focus()
    since = _browser.runs_so_far(page)
    page.keyboard.press("Home")  # to the slider's minimum: M = 1, k = 1, K = 1, ...
    # a slider already at its minimum does not move, and then starts no run
    moves = value != minimum
    if moves:
        page.wait_for_function(
            "([selector, value]) => { const el = document.querySelector(selector);"
            " return !!el && el.value !== value; }",
            arg=[MAIN_SLIDER, value],
        )
    _wait_idle(page, since if moves else None)
    fit = page.get_by_role("button", name="Fit GroPLE")
    if fit.count():
        # a press that lands while the page redraws the button after the slider's run can be
        # lost (seen once in a full suite under load: no run started, 180 s); press again then
        since = _browser.runs_so_far(page)
        fit.click()
        try:
            _browser.wait_idle(page, since, timeout=30_000)
        except AssertionError as lost:  # "the app did not become idle": no run started
            # said in the suite's warnings: how often it happens, and what the page and the
            # server's messages showed when it did
            warnings.warn(
                f"/{path}: the Fit GroPLE press started no run in 30 s: {lost}", stacklevel=1
            )
            _browser.click_and_wait(page, fit)
    _assert_no_exception(page, f"/{path} after moving a slider")
    if PAGES[path]:
        page.wait_for_function(
            f"(before) => ({_PLOTS_SIGNATURE})() !== before", arg=before, timeout=60_000
        )


# --- the projector check (issue 15): every page at 1280x720 on the sample, yeast and medical --

PROJECTOR_DATASETS = ["planted", "yeast", "medical"]


@pytest.fixture(scope="module")
def projector_page(browser):
    context = browser.new_context(viewport=_browser.PROJECTOR)
    pg = context.new_page()
    pg.set_default_timeout(60_000)
    yield pg
    context.close()


@pytest.mark.parametrize("dataset", PROJECTOR_DATASETS)
def test_every_page_legible_at_1280x720(projector_page, server_url, dataset):
    data_dir = default_data_dir()
    if dataset != "planted" and (data_dir is None or not (data_dir / f"{dataset}.arff").exists()):
        pytest.skip(f"{dataset}.arff not found in the data folder ({data_dir}; MLVIZ_DATA_DIR)")
    folder = _browser.screenshot_dir()
    print(f"\nscreenshots of every page on {dataset}: {folder}")
    pg = projector_page
    pg.goto(server_url)
    _browser.wait_idle(pg)
    _browser.choose_dataset(pg, dataset)
    assert dataset in _browser.chosen_dataset(pg), _browser.chosen_dataset(pg)
    problems = []
    for number, (path, title) in enumerate(_browser.NAV_PAGES.items()):
        _browser.open_page(pg, path)
        where = f"{dataset} / {title}"
        if path == "compare":  # its tables and charts appear after a run
            _browser.click_and_wait(pg, pg.get_by_role("button", name="Run cross-validation"))
        _browser.assert_no_exception(pg, where)
        # shoot waits until plotly has laid out titles and legends (after the run ends), and
        # leaves the window at its size, so the measurement below sees the same layout
        _browser.shoot(pg, folder / f"{dataset}-{number}-{path or 'data'}.png")
        problems += _browser.layout_problems(pg, where) + _browser.tick_problems(pg, where)
    assert not problems, "\n".join(problems)

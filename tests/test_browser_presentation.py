"""Presentation mode in a real browser at the projector's 1280 × 720 (issues 23 and 30).

On the planted sample and on medical (skipped when its file is absent): presentation mode is
switched on by the sidebar toggle, the sidebar collapses, and on every page and every
Lesson step the first chart of the main area starts within the first screen (its top edge
above 720 px), with no title, legend or tick label out of place. The Lesson is presented as a
class sees it: PageDown (the key a presenter's clicker sends) reveals formula, figure, what to
notice, step after step at 1280 × 720, and PageUp hides them again one by one at 1366 × 768;
after every press the part shown last lies whole in the window. A link copied mid-lesson
reopens the same part, and the exported Lesson, opened offline, shows maths and figures whole.
Debian's chromium through Playwright, as in ``tests/test_browser.py``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mlviz.datasets import default_data_dir
from tests import _browser

pytestmark = pytest.mark.browser
SCREEN_HEIGHT = _browser.PROJECTOR["height"]
STEPS = 7  # the Lesson's steps (pages/_lesson/state.py STEPS)

# Top edge (px from the window's top) of the main area's first chart, or null without one.
_FIRST_CHART_TOP = """() => {
  const plot = document.querySelector('[data-testid="stMain"] .js-plotly-plot');
  return plot ? plot.getBoundingClientRect().top : null;
}"""
# The sidebar's right edge: 0 (or less) when collapsed.
_SIDEBAR_RIGHT = """() => {
  const bar = document.querySelector('[data-testid="stSidebar"]');
  return bar ? bar.getBoundingClientRect().right : 0;
}"""


def _sidebar_collapsed(pg) -> bool:
    return pg.evaluate(_SIDEBAR_RIGHT) <= 1


def _open_presenting(pg, path: str) -> None:
    """Open a page through the sidebar navigation, then collapse the sidebar again."""
    if _sidebar_collapsed(pg):
        pg.locator("[data-testid='stExpandSidebarButton']").click()
        pg.wait_for_function("() => (" + _SIDEBAR_RIGHT + ")() > 1")
    _browser.open_page(pg, path)
    if not _sidebar_collapsed(pg):
        pg.locator("[data-testid='stSidebarCollapseButton'] button").click()
        pg.wait_for_function("() => (" + _SIDEBAR_RIGHT + ")() <= 1")


def _first_chart_top(pg, where: str) -> float:
    _browser.wait_settled(pg)
    _browser.assert_no_exception(pg, where)
    top = pg.evaluate(_FIRST_CHART_TOP)
    assert top is not None, f"{where}: no chart in the main area"
    return top


def _press(pg, key: str, done: str, arg=None) -> None:
    """Press a key bound to a button's shortcut; wait until ``done`` (a JS predicate of the
    page, called with ``arg``) holds, then until the app is idle.

    The press's visible effect is the evidence that its run happened: a run served from the
    caches can flip the script state within one render, unseen (a clean-clone CI run timed out
    waiting for it after the first PageDown of the Lesson).
    """
    # focus on the page, not a widget, without scrolling it (a click on the title would)
    pg.evaluate("() => document.activeElement && document.activeElement.blur()")
    pg.keyboard.press(key)
    pg.wait_for_function(done, arg=arg, timeout=180_000)
    _browser.wait_idle(pg)


# the texts of the errors and toasts on the page
_SHOWN_ERRORS = """() => Array.from(document.querySelectorAll(
  '[data-testid="stException"], [data-testid="stAlertContentError"], [data-testid="stToast"]'))
  .map(e => e.textContent.slice(0, 300))"""
_HAS_CHART = "() => !!document.querySelector('[data-testid=\"stMain\"] .js-plotly-plot')"
_HAS_NOTICE = """() => Array.from(document.querySelectorAll(
  '[data-testid="stMain"] [data-testid="stAlert"]'))
  .some(e => e.textContent.includes('What to notice'))"""
_STEP_CHECKED = """(n) => {
  const radios = document.querySelectorAll(
    '[data-testid="stMain"] [data-testid="stRadio"] input[type="radio"]');
  return !!radios[n] && radios[n].checked;
}"""


@pytest.fixture(scope="module")
def shots():
    """Where each page's first screen while presenting is saved (CI keeps them), to look at."""
    return _browser.screenshot_dir()


@pytest.mark.parametrize("dataset", ["planted", "yeast", "medical"])
def test_presentation_mode_puts_every_figure_on_the_first_screen(
    browser, server_url, dataset, shots
):
    data_dir = default_data_dir()
    if dataset != "planted" and (data_dir is None or not (data_dir / f"{dataset}.arff").exists()):
        pytest.skip(f"{dataset}.arff not found in the data folder ({data_dir}; MLVIZ_DATA_DIR)")
    # with the page's CSS motion, as a class sees it: the sidebar slides, and the app scrolls
    # to each revealed part while the page may still be moving
    context = browser.new_context(viewport=_browser.PROJECTOR, motion=True)
    pg = context.new_page()
    pg.set_default_timeout(120_000)
    try:
        pg.goto(server_url)
        _browser.wait_idle(pg)
        slide = pg.evaluate(
            "() => getComputedStyle(document.querySelector('[data-testid=\"stSidebar\"]'))"
            ".transitionDuration"
        )
        assert any(float(d.rstrip("s")) > 0 for d in slide.split(",")), slide
        _browser.choose_dataset(pg, dataset)
        assert not _sidebar_collapsed(pg), "the sidebar starts collapsed outside presentation"
        pg.locator("[data-testid='stSidebar']").get_by_text("Presentation mode").click()
        # the toggle's visible effect (the sidebar collapses) is the evidence of its run
        pg.wait_for_function("() => (" + _SIDEBAR_RIGHT + ")() <= 1", timeout=180_000)
        _browser.wait_idle(pg)
        assert "present=1" in pg.url, pg.url

        tops, legibility = {}, []
        for path, title in _browser.NAV_PAGES.items():
            where = f"{dataset} / {title}"
            _open_presenting(pg, path)
            assert "present=1" in pg.url, f"{where}: the link lost ?present=1 ({pg.url})"
            if path == "lesson":
                tops.update(_lesson_tops(pg, dataset, legibility, shots))
                continue
            if path == "compare":  # its charts appear after a run (test_browser: default folds)
                _browser.fewest_folds(pg)
                _browser.click_and_wait(pg, pg.get_by_role("button", name="Run cross-validation"))
            tops[where] = _first_chart_top(pg, where)
            _browser.shoot(pg, shots / f"present-{dataset}-{path or 'data'}.png", full_page=False)
            # the larger fonts cut no title, push no legend onto an axis title, no tick label
            # off its figure or onto another
            legibility += _browser.layout_problems(pg, where) + _browser.tick_problems(pg, where)
        problems = legibility + [
            f"{where}: first chart starts at {top:.0f} px"
            for where, top in tops.items()
            if top >= SCREEN_HEIGHT
        ]
        print(f"\nfirst chart's top edge (px) at 1280 x 720 on {dataset}: {tops}")
        assert not problems, "\n".join(problems)
    finally:
        context.close()


def _lesson_tops(pg, dataset: str, legibility: list[str], shots: Path) -> dict[str, float]:
    """Present the Lesson as a class would (issue 30): PageDown through every part of every
    step at 1280 × 720, then PageUp back through every part at 1366 × 768; after each press
    the part it shows last lies whole inside the window (:func:`_assert_part_in_view`).

    On the sample, a link copied mid-lesson is opened in a new tab (a new session) and shows
    the same parts. Adds each step's layout problems (:func:`tests._browser.layout_problems`)
    to ``legibility``; saves each step's screens into ``shots``; returns the figures' tops.
    """
    tops = {}
    radio = "[data-testid='stMain'] [data-testid='stRadio'] input[type='radio']"
    assert pg.locator(radio).first.is_checked(), "the Lesson does not open at step 1"
    for number in range(1, STEPS + 1):
        where = f"{dataset} / Lesson step {number}"
        assert pg.locator(radio).nth(number - 1).is_checked(), f"{where}: not the step shown"
        # stage 0: the formula, no figure and nothing to notice yet
        _browser.wait_settled(pg)
        assert pg.locator("[data-testid='stMain'] .katex").count() > 0, f"{where}: no formula"
        assert pg.evaluate(_FIRST_CHART_TOP) is None, f"{where}: figure shown before its reveal"
        _assert_part_in_view(pg, "formula", where)
        _press(pg, "PageDown", _HAS_CHART)
        _assert_part_in_view(pg, "figure", where)
        tops[where] = _first_chart_top(pg, where)
        _browser.shoot(pg, shots / f"present-{dataset}-lesson-{number}.png", full_page=False)
        notice = pg.locator(
            "[data-testid='stMain'] [data-testid='stAlert']", has_text="What to notice"
        )
        assert notice.count() == 0, f"{where}: what to notice shown before its reveal"
        if number == 2 and dataset == "planted":
            _assert_link_reopens(pg, where)
        _press(pg, "PageDown", _HAS_NOTICE)
        assert notice.count() == 1, f"{where}: what to notice not revealed"
        _assert_part_in_view(pg, "notice", where)
        _browser.shoot(pg, shots / f"present-{dataset}-lesson-{number}-notice.png", full_page=False)
        _browser.wait_settled(pg)
        legibility += _browser.layout_problems(pg, where) + _browser.tick_problems(pg, where)
        if number < STEPS:
            _press(pg, "PageDown", _STEP_CHECKED, number)  # the next step (index number)
    if dataset == "yeast":
        return tops
    # back through every part, one press each, on a 1366 x 768 screen
    pg.set_viewport_size(WIDER)
    _browser.wait_settled(pg)
    for number in range(STEPS, 0, -1):
        where = f"{dataset} / Lesson step {number}, PageUp at 1366 x 768"
        _press(pg, "PageUp", f"() => !({_HAS_NOTICE})()")
        assert pg.locator(radio).nth(number - 1).is_checked(), f"{where}: left the step"
        _assert_part_in_view(pg, "figure", where)
        _press(pg, "PageUp", f"() => !({_HAS_CHART})()")
        _assert_part_in_view(pg, "formula", where)
        if number > 1:  # the previous step, at its last part
            _press(pg, "PageUp", _HAS_NOTICE)
            assert pg.locator(radio).nth(number - 2).is_checked(), f"{where}: not the step before"
            _assert_part_in_view(pg, "notice", where)
    back = pg.get_by_role("button", name=re.compile(r"^← Back"))
    assert back.is_disabled(), "Back is enabled at the first part of the first step"
    # and on a full-HD screen, the first figure
    pg.set_viewport_size(FULL_HD)
    _press(pg, "PageDown", _HAS_CHART)
    _assert_part_in_view(pg, "figure", f"{dataset} / Lesson step 1 at 1920 x 1080")
    pg.set_viewport_size(_browser.PROJECTOR)
    return tops


WIDER = {"width": 1366, "height": 768}
FULL_HD = {"width": 1920, "height": 1080}

# The box (top, bottom, px from the window's top) of a revealed part of the Lesson -- its
# formulas, its figures or its "What to notice" box (the containers pages/_app/presentation.py
# names lesson_part_*) -- and the lowest edge Streamlit's fixed header covers.
_PART_BOX = """(part) => {
  const main = document.querySelector('[data-testid="stMain"]');
  const parts = part === 'formula'
      ? Array.from(main.querySelectorAll('.katex-display'))
      : Array.from(main.querySelectorAll('[class*="st-key-lesson_part_' + part + '"]'));
  const header = document.querySelector('[data-testid="stHeader"]');
  const boxes = parts.map(e => e.getBoundingClientRect()).filter(b => b.height > 0);
  if (!boxes.length) return null;
  return {top: Math.min(...boxes.map(b => b.top)), bottom: Math.max(...boxes.map(b => b.bottom)),
          header: header ? header.getBoundingClientRect().bottom : 0,
          window: window.innerHeight};
}"""
# Whole in the window under the header; a part taller than that room (a heatmap naming 45
# labels keeps its height while presenting, pages/_app/presentation.py fit_height) shows its
# top, title included, right under the header.
_PART_IN_VIEW = (
    "(part) => { const b = (" + _PART_BOX + ")(part);"
    " if (!b || b.top < b.header - 1) return false;"
    " if (b.bottom - b.top > b.window - b.header) return b.top <= b.header + 12;"
    " return b.bottom <= b.window + 1; }"
)


def _assert_part_in_view(pg, part: str, where: str) -> None:
    """The part lies whole in the window, under the header, once the page has scrolled (one
    taller than the window: its top right under the header).

    The page scrolls after the run (the charts are laid out first); the wait gives it 10 s,
    then the assertion says where the part was.
    """
    _browser.wait_settled(pg)
    try:
        pg.wait_for_function(_PART_IN_VIEW, arg=part, timeout=10_000)
    except Exception:  # the condition never held: say where the part is
        box = pg.evaluate(_PART_BOX, part)
        raise AssertionError(f"{where}: the {part} is not whole in the window: {box}") from None


def _assert_link_reopens(pg, where: str) -> None:
    """The address, opened in a new tab (a new session), shows the same step and parts."""
    link = pg.url
    assert "lesson_part=figure" in link, f"{where}: the link lost the part ({link})"
    tab = pg.context.new_page()
    try:
        tab.goto(link)
        _browser.wait_idle(tab)
        tab.wait_for_function(_HAS_CHART, timeout=180_000)
        _browser.wait_idle(tab)
        _browser.assert_no_exception(tab, f"{where}, link")
        radios = tab.locator("[data-testid='stMain'] [data-testid='stRadio'] input[type='radio']")
        assert radios.nth(1).is_checked(), f"{where}: the link opens another step"
        assert not tab.evaluate(_HAS_NOTICE), f"{where}: the link reveals the notice too"
        _assert_part_in_view(tab, "figure", f"{where}, link")
    finally:
        tab.close()


def test_the_exported_lesson_opens_offline_with_every_step(browser, server_url, tmp_path):
    """ "Export this Lesson" on the sample: the downloaded file, opened without a network."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    context = browser.new_context(viewport=_browser.PROJECTOR, accept_downloads=True)
    pg = context.new_page()
    pg.set_default_timeout(120_000)
    try:
        pg.goto(server_url)
        _browser.wait_idle(pg)
        _browser.choose_dataset(pg, "planted")
        _browser.open_page(pg, "lesson")
        _browser.click_and_wait(pg, pg.get_by_role("button", name="Export this Lesson"))
        download_button = pg.get_by_role("button", name="Download the Lesson (HTML)")
        download_button.wait_for()
        # what the page said, for a press that never downloads (a suite run once timed out
        # here, 1 in ~12 suites; alone and after the module's walks it passes)
        console = []
        pg.on("console", lambda message: console.append(f"{message.type}: {message.text}"[:300]))
        try:
            with pg.expect_download() as info:
                download_button.click()
            download = info.value
        except PlaywrightTimeoutError:
            shown = pg.evaluate(_SHOWN_ERRORS)
            raise AssertionError(
                f"no download within the wait; the page showed {shown!r}; console: {console}; "
                f"app state: {_browser.app_state(pg)}"
            ) from None
        assert re.fullmatch(r"lesson-[A-Za-z0-9._-]+\.html", download.suggested_filename)
        path = tmp_path / download.suggested_filename
        download.save_as(path)
        text = path.read_text(encoding="utf-8")
        assert "<script src" not in text.lower()
    finally:
        context.close()
    offline = browser.new_context(viewport=_browser.PROJECTOR, offline=True)
    try:
        doc = offline.new_page()
        failed = []
        doc.on("requestfailed", lambda request: failed.append(request.url))
        doc.goto(path.as_uri())
        doc.wait_for_function(
            "() => document.querySelectorAll('.js-plotly-plot .main-svg').length > 0"
        )
        titles = doc.locator("h2").all_inner_texts()
        assert [t.split(" · ")[0] for t in titles] == [str(n) for n in range(1, STEPS + 1)]
        figures = doc.locator("div.plotly-graph-div")
        doc.wait_for_function(
            "(n) => document.querySelectorAll('.js-plotly-plot .main-svg').length >= n",
            arg=figures.count(),
        )
        assert figures.count() >= STEPS, "a step without its figure"
        # every formula drawn as maths by the browser itself: MathML boxes of real size, none
        # left as LaTeX source
        assert doc.locator("pre.latex").count() == 0
        boxes = doc.locator("math[display='block']").evaluate_all(
            "els => els.map(e => [e.getBoundingClientRect().width,"
            " e.getBoundingClientRect().height])"
        )
        assert len(boxes) >= STEPS and all(w > 40 and h > 12 for w, h in boxes), boxes
        inline = doc.locator("math[display='inline']").evaluate_all(
            "els => els.map(e => [e.getBoundingClientRect().width,"
            " e.getBoundingClientRect().height])"
        )
        assert inline and all(w > 4 and h > 8 for w, h in inline), inline
        assert doc.locator(".notice").count() == STEPS
        assert not failed, f"the file asked the network for {failed}"
        # the handout as students read it (issue 30): no formula left as $…$ anywhere in
        # its text, headings included; every tick label inside its figure, no title on a
        # subplot title, legend or colour bar
        visible = doc.locator("body").inner_text()
        assert not re.findall(r"\$[^$\s][^$]*\$", visible), re.findall(r"\$[^$]*\$", visible)
        assert doc.locator("h2 math").count() >= 1, "the heading's formula is not MathML"
        problems = _browser.tick_problems(doc, "export", scope="body")
        problems += _browser.layout_problems(doc, "export", scope="body")
        assert not problems, "\n".join(problems)
    finally:
        offline.close()

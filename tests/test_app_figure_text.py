"""Pages draw user names into figures as text, never as plotly HTML (issue 24, item 2).

The figure builders escape label names (``tests/test_figures_user_text.py``); these tests
check the pages end to end: every plotly chart a page shows, with an upload's hostile label
names, holds no markup of theirs, and text a page writes into a built figure itself (the
Lesson's biplot arrow names) is escaped too, once.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from mlviz.figures._style import plain
from tests.conftest import press_fit_buttons

REPO = Path(__file__).resolve().parents[1]
TIMEOUT = 300

HOSTILE = (
    '<a href="http://evil.example">x1</a>',
    "<b>bold2</b>",
    "x3<br>y3",
    "&amp;4",
    "<img src=x onerror=alert(5)>",
    '<span style="font-size:99px">big6</span>',
)
RAW_MARKUP = ("<a ", "<b>bold2", "x3<br>y3", "&amp;4", "<img", '<span style="font-size')


@pytest.fixture(scope="module")
def hostile():
    from mlviz import datasets

    ds = datasets.load_source("sample:planted")
    names = [HOSTILE[i] if i < len(HOSTILE) else f"l{i}" for i in range(ds.n_labels)]
    return dataclasses.replace(ds, label_names=type(ds.label_names)(names))


def _strings(value, found: list[str]) -> list[str]:
    if isinstance(value, str):
        found.append(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            if key != "template":
                _strings(item, found)
    elif isinstance(value, list):
        for item in value:
            _strings(item, found)
    return found


def chart_specs(at: AppTest) -> list[dict]:
    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


def open_page(page: str, dataset) -> AppTest:
    at = AppTest.from_file(str(REPO / "pages" / page), default_timeout=TIMEOUT)
    at.session_state["dataset"] = dataset
    at.session_state["dataset_label"] = "names.csv (upload)"
    return at.run()


def assert_no_user_markup(at: AppTest, page: str) -> None:
    assert not at.exception, [e.value for e in at.exception]
    specs = chart_specs(at)
    assert specs, f"{page} drew no chart: nothing was checked"
    texts = [t for spec in specs for t in _strings(spec, [])]
    for raw in RAW_MARKUP:
        leaked = [t for t in texts if raw in t]
        assert not leaked, f"{page}: user markup {raw!r} in a chart: {leaked[:3]}"
    everything = "\n".join(texts)
    assert any(plain(name) in everything for name in HOSTILE), f"{page}: no name shown escaped"
    # escaped once: plotly shows "&amp;lt;" as "&lt;", not as "<"
    assert "&amp;lt;" not in everything


@pytest.mark.parametrize(
    "page",
    [
        "data.py",
        "label_clusters.py",
        "hypercube.py",
        "plst.py",
        "mlknn.py",
        "clems.py",
        "grople.py",
    ],
)
def test_page_charts_show_label_names_as_text(hostile, page):
    assert_no_user_markup(open_page(page, hostile), page)


def test_compare_charts_show_label_names_as_text(hostile):
    """Compare fits on request: two quick methods, two folds, then its per-label charts."""
    at = open_page("compare.py", hostile)
    at.multiselect(key="compare_methods").set_value(["PLST", "ML-KNN"]).run()
    at.slider(key="compare_folds").set_value(2).run()
    at.button(key="compare_fit").click().run()
    assert_no_user_markup(at, "compare.py")


LESSON_STEPS = ["hypercube", "plst", "groups", "grople", "clems", "mlknn", "compare"]


@pytest.mark.parametrize("step", LESSON_STEPS)
def test_lesson_step_charts_show_label_names_as_text(hostile, step):
    at = open_page("lesson.py", hostile)
    at.radio(key="lesson_step").set_value(step).run()
    assert_no_user_markup(at, f"lesson.py {step}")


def test_lesson_biplot_arrow_names_are_escaped_once(hostile):
    """The Lesson's step 1 writes the drawn arrows' names into the figure itself."""
    at = open_page("lesson.py", hostile)
    at.checkbox(key="lesson_cube_axes").check().run()
    assert_no_user_markup(at, "lesson.py")
    arrows = [
        text
        for spec in chart_specs(at)
        for trace in spec["data"]
        if trace.get("mode") == "text"
        for text in trace.get("text", [])
    ]
    assert arrows, "the biplot drew no arrow names"
    named = [t for t in arrows if "&lt;" in t or "&amp;" in t]
    assert named, f"no hostile name among the drawn arrows {arrows}: nothing was checked"
    assert all("<" not in t and "&amp;lt;" not in t for t in arrows), arrows
    # plotly decodes &lt; &gt; &amp; but shows &quot; literally: quotes stay as typed
    assert not [t for t in arrows if "&quot;" in t], arrows


def test_pages_plain_html_is_the_figures_escape_cut():
    from pages._app import plain as page_plain

    assert page_plain.html('"q" <b>&amp;') == '"q" &lt;b&gt;&amp;amp;'
    assert page_plain.html("x" * 500) == plain("x" * (page_plain.MAX_CHARS - 1)) + "…"


PAGES = sorted(p.name for p in (REPO / "pages").glob("*.py"))


@pytest.mark.parametrize("page", PAGES)
def test_a_20k_character_label_name_leaves_every_chart_small(page):
    """Names are user text of any length: a page must not multiply one into every hover (the
    CLEMS Shepard diagram paired label-set texts for each candidate pair: a 100,000-character
    name asked numpy for 4.7 GB). Every chart stays below 10 MB of JSON with a 20,000-character
    name (the Shepard diagram's bound: 20,000 pairs x two label-set texts of at most ~175
    characters; unbounded, the name alone made it 800 MB), and no page raises."""
    from mlviz import datasets

    ds = datasets.load_source("sample:planted")
    names = ["n" * 20_000 if i == 0 else f"l{i}" for i in range(ds.n_labels)]
    at = open_page(page, dataclasses.replace(ds, label_names=type(ds.label_names)(names)))
    press_fit_buttons(at)
    assert not at.exception, [e.value for e in at.exception]
    sizes = [len(chart.proto.spec) for chart in at.get("plotly_chart")]
    assert sizes and max(sizes) < 10_000_000, sizes

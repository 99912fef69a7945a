"""App tests of presentation mode and "Export this Lesson" (issue 23, items 1 and 2).

The pages run as their own scripts with the data set the router would have put in the session
(see tests/test_app.py). The browser test ``tests/test_browser_presentation.py`` measures where
the figures land; these check what each mode shows and what the export holds.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from mlviz import datasets
from mlviz.figures._style import PROJECTOR_FONT
from mlviz.figures.slides import Step
from pages._app import presentation
from pages._lesson import state

REPO = Path(__file__).resolve().parents[1]
TIMEOUT = 180
STEPS = ["hypercube", "plst", "groups", "grople", "clems", "mlknn", "compare"]


def _app(page: str, *, presenting: bool) -> AppTest:
    at = AppTest.from_file(str(REPO / "pages" / page), default_timeout=TIMEOUT)
    dataset = datasets.load_source("sample:planted")
    at.session_state["dataset"] = dataset
    at.session_state["dataset_label"] = dataset.name
    at.session_state[presentation.KEY] = presenting
    return at.run()


def _clean(at: AppTest, where: str) -> None:
    assert not at.exception, f"{where}: {[e.message for e in at.exception]}"


def _notices(at: AppTest) -> list[str]:
    return [i.value for i in at.info if "What to notice" in i.value]


@pytest.mark.parametrize("page", ["plst.py", "mlknn.py"])
def test_presentation_hides_exactly_the_intro_paragraph(page):
    shown = _app(page, presenting=False)
    hidden = _app(page, presenting=True)
    _clean(shown, page)
    _clean(hidden, page)
    normal = [m.value for m in shown.markdown]
    presenting = [m.value for m in hidden.markdown]
    missing = [m for m in normal if m not in presenting]
    # the intro (the page's first paragraph) is the one text gone; the rest stays
    assert missing == [normal[0]], missing
    assert len(presenting) == len(normal) - 1


def test_presentation_flag_from_the_link_and_back():
    def script():
        import streamlit as st

        from pages._app import presentation

        presentation.read_link()
        st.write("on" if presentation.is_on() else "off")
        presentation.intro("INTRO PARAGRAPH")

    at = AppTest.from_function(script, default_timeout=TIMEOUT)
    at.query_params["present"] = "1"
    at.run()
    assert at.markdown[0].value == "on" and len(at.markdown) == 1
    at.query_params.clear()  # a page change drops the query: the session keeps the mode ...
    at.run()
    assert at.markdown[0].value == "on"
    assert at.query_params.get("present") in ("1", ["1"])  # ... and writes it back
    at.query_params["present"] = "0"
    at.run()
    assert at.markdown[0].value == "off" and at.markdown[1].value == "INTRO PARAGRAPH"
    assert "present" not in at.query_params
    at.query_params["present"] = "maybe"
    at.run()
    assert at.markdown[0].value == "off"
    assert any("`present` = maybe was ignored" in w.value for w in at.warning)


def test_lesson_reveals_formula_then_figure_then_notice():
    at = _app("lesson.py", presenting=True)
    for number, step in enumerate(STEPS):
        where = f"step {number + 1} ({step})"
        _clean(at, where)
        assert at.session_state["lesson_step"] == step, where
        assert len(at.get("plotly_chart")) == 0 and not _notices(at), f"{where}: stage 0"
        assert at.get("markdown") or at.get("latex"), where
        at.button(key="lesson_next").click().run()
        assert len(at.get("plotly_chart")) >= 1 and not _notices(at), f"{where}: stage 1"
        at.button(key="lesson_next").click().run()
        assert len(at.get("plotly_chart")) >= 1 and len(_notices(at)) == 1, f"{where}: stage 2"
        if number < len(STEPS) - 1:
            at.button(key="lesson_next").click().run()
    assert at.button(key="lesson_next").disabled  # the last part of the last step
    # PageUp hides the last part shown, one at a time, then opens the previous step at its
    # last part (issue 30 item 2)
    shown = len(at.get("plotly_chart"))
    at.button(key="lesson_previous").click().run()
    _clean(at, "back from the notice")
    assert at.session_state["lesson_step"] == "compare"
    assert len(at.get("plotly_chart")) == shown and not _notices(at), "notice not hidden"
    at.button(key="lesson_previous").click().run()
    assert at.session_state["lesson_step"] == "compare"
    assert len(at.get("plotly_chart")) == 0 and not _notices(at), "figure not hidden"
    at.button(key="lesson_previous").click().run()
    _clean(at, "previous step")
    assert at.session_state["lesson_step"] == "mlknn"
    assert len(at.get("plotly_chart")) >= 1 and len(_notices(at)) == 1  # its last part


def test_back_at_the_first_part_of_the_first_step_is_disabled():
    at = _app("lesson.py", presenting=True)
    assert at.button(key="lesson_previous").disabled
    at.button(key="lesson_next").click().run()
    assert not at.button(key="lesson_previous").disabled


@pytest.mark.parametrize("part", ["figure", "notice"])
def test_a_link_reopens_the_step_at_the_part_revealed(part):
    """The address written mid-lesson, opened in a new session, shows the same parts."""
    at = _app("lesson.py", presenting=True)
    at.radio(key="lesson_step").set_value("plst").run()
    for _ in range(presentation.STAGES.index(part)):
        at.button(key="lesson_next").click().run()
    _clean(at, "presenting")
    assert at.query_params[presentation.PART_PARAM] in (part, [part])
    charts, notices = len(at.get("plotly_chart")), len(_notices(at))
    link = {k: at.query_params[k] for k in at.query_params}
    again = AppTest.from_file(str(REPO / "pages" / "lesson.py"), default_timeout=TIMEOUT)
    dataset = datasets.load_source("sample:planted")
    again.session_state["dataset"] = dataset
    again.session_state["dataset_label"] = dataset.name
    again.session_state[presentation.KEY] = True
    for key, value in link.items():
        again.query_params[key] = value
    again.run()
    _clean(again, "the link")
    assert again.session_state["lesson_step"] == "plst"
    assert (len(again.get("plotly_chart")), len(_notices(again))) == (charts, notices) != (0, 0)
    assert not [w.value for w in again.warning], "the link gave a note"
    # one more PageDown goes on from there
    again.button(key="lesson_next").click().run()
    expected = "groups" if part == "notice" else "plst"
    assert again.session_state["lesson_step"] == expected


def test_a_link_with_an_unknown_part_opens_the_formula_with_a_note():
    at = AppTest.from_file(str(REPO / "pages" / "lesson.py"), default_timeout=TIMEOUT)
    dataset = datasets.load_source("sample:planted")
    at.session_state["dataset"] = dataset
    at.session_state["dataset_label"] = dataset.name
    at.session_state[presentation.KEY] = True
    at.query_params[presentation.PART_PARAM] = "everything"
    at.run()
    _clean(at, "bad part")
    assert len(at.get("plotly_chart")) == 0
    assert any(presentation.PART_PARAM in w.value for w in at.warning), at.warning


def test_lesson_outside_presentation_shows_every_part_at_once():
    at = _app("lesson.py", presenting=False)
    _clean(at, "lesson")
    assert len(at.get("plotly_chart")) >= 1 and len(_notices(at)) == 1


def test_export_this_lesson_records_every_step_into_one_offline_file():
    at = _app("lesson.py", presenting=False)
    at.radio(key="lesson_step").set_value("plst").run()
    at.button(key="lesson_export").click().run()
    _clean(at, "export walk")
    # the walk ran every step and came back to the step it started from
    assert at.session_state["lesson_step"] == "plst"
    assert at.get("download_button"), "no download button after the walk"
    record = at.session_state["_lesson_record"]
    assert set(record["steps"]) == set(STEPS)
    steps = [Step(**record["steps"][s]) for s in STEPS]
    # each step recorded under its own title ("1 · The label hypercube", ...)
    assert [s.title.split(" · ")[0] for s in steps] == [str(n) for n in range(1, 8)]
    for step in steps:
        assert step.formulas, f"{step.title}: no formula recorded"
        assert step.figures, f"{step.title}: no figure recorded"
        assert step.notice, f"{step.title}: nothing to notice recorded"
    page = state.lesson_document(record["steps"], "planted (sample)", "planted")
    assert "<script src" not in page.lower()
    headings = re.findall(r"<h2>(.*?)</h2>", page)
    assert len(headings) == len(steps)
    for step, heading in zip(steps, headings, strict=True):
        if "$" not in step.title:
            assert heading == html.escape(step.title), step.title
    assert page.count('class="plotly-graph-div"') == sum(len(s.figures) for s in steps)
    assert "lesson-plst_decoding-planted" in page
    # every formula of every step is MathML the browser draws offline, none left as source:
    # the display ones, and the inline ones of the text, headings and notices (issue 30)
    assert len(re.findall(r'<math [^>]*display="block"', page)) == sum(
        len(s.formulas) for s in steps
    )
    inline = sum(
        len(re.findall(r"\$[^$]+\$", t)) for s in steps for t in [s.title, *s.text, *s.notice]
    )
    assert inline > 0 and len(re.findall(r'<math [^>]*display="inline"', page)) >= inline
    assert "could not be drawn offline" not in page and "class='latex'" not in page
    body = page[page.index("<body>") :]
    visible = re.sub(
        r"<script.*?</script>|<annotation.*?</annotation>|<[^>]+>", " ", body, flags=re.S
    )
    assert not re.findall(r"\$[^$\s][^$]*\$", visible)


@pytest.mark.parametrize(("presenting", "image_format"), [(False, "png"), (True, "svg")])
def test_every_chart_saves_at_slide_size_with_a_safe_name(presenting, image_format):
    at = AppTest.from_file(str(REPO / "pages" / "plst.py"), default_timeout=TIMEOUT)
    dataset = datasets.load_source("sample:planted")
    at.session_state["dataset"] = dataset
    at.session_state["dataset_label"] = dataset.name
    at.session_state[presentation.KEY] = presenting
    at.session_state[presentation.FORMAT_KEY] = image_format
    at.session_state["_current_page"] = "plst"  # what the router sets
    at.run()
    _clean(at, "plst")
    charts = at.get("plotly_chart")
    assert charts
    names = []
    for chart in charts:
        options = json.loads(chart.proto.config)["toImageButtonOptions"]
        assert (options["width"], options["height"], options["scale"]) == (1600, 900, 1)
        assert options["format"] == image_format
        assert re.fullmatch(r"plst-[A-Za-z0-9._-]+-planted", options["filename"]), options
        names.append(options["filename"])
        font = json.loads(chart.proto.spec)["layout"].get("font", {}).get("size")
        assert (font == PROJECTOR_FONT["base"]) is presenting, font
    assert "plst-spectrum-planted" in names
    assert len(set(names)) == len(names), "two charts of one page share a file name"

"""Every page on every member of the degenerate corpus, every slider at both ends.

No exception anywhere; where a view cannot be drawn the page says why (``st.info`` or a
caption) instead of raising. The data sets come from tests/degenerate.py; each page file runs
on its own with the data set already in the session, as the router would leave it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from degenerate import MEMBERS, degenerate_corpus
from streamlit.testing.v1 import AppTest

REPO = Path(__file__).resolve().parents[1]
PAGES = sorted(p.name for p in (REPO / "pages").glob("*.py") if not p.name.startswith("_"))
TIMEOUT = 180
CORPUS = degenerate_corpus()

# Known failures, listed in the project notes: add a mark while a page has a known gap and
# remove it once the page is fixed (strict: a page that starts passing makes its mark fail).
# A member in NOT_RUN would take minutes on that page and stall the suite. None today.
XFAIL: dict[tuple[str, str], str] = {}
NOT_RUN: dict[tuple[str, str], str] = {}


def degenerate_app(page: str, member: str) -> AppTest:
    at = AppTest.from_file(str(REPO / "pages" / page), default_timeout=TIMEOUT)
    at.session_state["dataset"] = CORPUS[member]
    at.session_state["dataset_label"] = member
    return at.run()


def _raised(at: AppTest) -> list[str]:
    return [e.message for e in at.exception]


def _check(at: AppTest, where: str) -> None:
    assert not at.exception, f"{where}: {_raised(at)}"
    assert at.session_state["dataset"] is not None
    assert len(at.title) == 1, f"{where}: the page drew no title"


def _every_slider_at_both_ends(at: AppTest, where: str) -> None:
    for end in (0, -1):
        for slider in [s for s in at.slider if not s.disabled]:
            value = (slider.min, slider.max)[end]
            at.slider(key=slider.key).set_value(value).run()
            _check(at, f"{where}, {slider.label!r} = {value}")
        for select in [s for s in at.select_slider if not s.disabled]:
            value = type(select.value)(select.options[end])
            at.select_slider(key=select.key).set_value(value).run()
            _check(at, f"{where}, {select.label!r} = {value}")
        for key in [b.key for b in at.button if b.key and b.key.endswith("_fit")]:
            # a press can end the page early (a fit that predicts nothing says so and stops):
            # the buttons below it are gone, and are pressed at the other end instead
            if key not in {b.key for b in at.button}:
                continue
            button = at.button(key=key)
            button.click().run()
            _check(at, f"{where}, {button.label!r} pressed")


def _cases():
    for page in PAGES:
        for member in MEMBERS:
            marks = []
            if (page, member) in XFAIL:
                marks = [pytest.mark.xfail(reason=XFAIL[page, member], strict=True)]
            if (page, member) in NOT_RUN:
                marks = [pytest.mark.xfail(reason=NOT_RUN[page, member], run=False)]
            yield pytest.param(page, member, id=f"{page[:-3]}-{member}", marks=marks)


@pytest.mark.slow
@pytest.mark.parametrize(("page", "member"), list(_cases()))
def test_page_survives_degenerate_data(page, member):
    at = degenerate_app(page, member)
    where = f"{page} on {member}"
    _check(at, where)
    assert at.session_state["dataset"].name == member, "the page replaced the data set"
    _every_slider_at_both_ends(at, where)


def _said(at: AppTest) -> str:
    return " ".join(e.value for kind in (at.info, at.caption, at.warning) for e in kind)


@pytest.mark.parametrize(
    ("page", "member", "explanation"),
    [
        ("plst.py", "one_label", "Embedding dimension M is 1"),
        ("clems.py", "one_label", "Embedding dimension M is 1"),
        ("plst.py", "one_labelset", "same label set"),
        ("plst.py", "one_row", "at least 2 instances"),
        ("clems.py", "one_row", "at least 2 instances"),
        ("mlknn.py", "one_row", "at least 2 instances"),
        ("mlknn.py", "two_rows", "at least 2 training"),
        ("mlknn.py", "three_rows", "Neighbours k is 1"),
        ("plst.py", "many_labels", "up to 2,000 labels"),
        ("data.py", "many_labels", "most frequent of 10000 labels"),
        ("data.py", "one_label", "no pairs"),
        ("grople.py", "one_row", "at least 2 instances"),
        ("grople.py", "two_rows", "at least 2 training"),
        ("lesson.py", "one_row", "at least 2 instances"),
        ("grople.py", "many_labels", "up to 2,000 labels"),
        ("grople.py", "label_never_on", "never occur in the training split: 1 of 4"),
        ("label_clusters.py", "many_labels", "labels never occur"),
        ("label_clusters.py", "label_never_on", "1 of the 4 labels never occurs"),
        ("compare.py", "many_labels", "BR, PLST left out"),
    ],
)
def test_a_view_that_cannot_be_drawn_is_explained(page, member, explanation):
    at = degenerate_app(page, member)
    _check(at, f"{page} on {member}")
    titles = " ".join(chart.proto.spec for chart in at.get("plotly_chart"))
    titles = titles.replace("\\u003cbr\\u003e", " ").replace("<br>", " ")  # wrapped titles
    assert explanation in _said(at) + titles, _said(at)[:2000]

"""Figures with one row or column per label on a 200-label set: what they show is named.

Beyond its ``MAX_NAMED_LABELS`` (40 or 45, per figure module) labels cannot all be named on one
axis; a figure then
shows a stated top-N (every one of its labels named) or aggregates by group with a
drill-down into one group (issue 15). Checked from the plotly spec the page sends.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from mlviz.figures.grople import MAX_NAMED_LABELS as VK_NAMED
from mlviz.figures.linear import MAX_NAMED_LABELS as DECODING_NAMED
from mlviz.synthetic import make_long_tailed

REPO = Path(__file__).resolve().parents[1]
N_LABELS = 200


@pytest.fixture(scope="module")
def many_labels():
    return make_long_tailed(
        n_samples=600, n_features=60, n_labels=N_LABELS, cardinality=5.0, random_state=0
    )


def _open(page: str, dataset, params: dict | None = None) -> AppTest:
    at = AppTest.from_file(str(REPO / "pages" / page), default_timeout=240)
    at.session_state["dataset"] = dataset
    at.session_state["dataset_label"] = "200 labels (test)"
    for name, value in (params or {}).items():
        at.query_params[name] = value
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    return at


def _figures(at: AppTest) -> list[dict]:
    return [json.loads(chart.proto.spec) for chart in at.get("plotly_chart")]


def _title(fig: dict) -> str:
    title = fig["layout"].get("title", {})
    text = title.get("text", "") if isinstance(title, dict) else str(title)
    return text.replace("<br>", " ").replace("<sup>", "").replace("</sup>", "")


def _figure(at: AppTest, words: str) -> dict:
    found = [f for f in _figures(at) if words in _title(f)]
    assert len(found) == 1, (words, [_title(f) for f in _figures(at)])
    return found[0]


def _names_every_column(fig: dict, axis: str = "xaxis") -> list[str]:
    """The tick names of ``axis``: one per drawn category, none skipped."""
    ticks = fig["layout"][axis]
    assert ticks.get("tickmode") == "array", "a crowded category axis skips names"
    names = ticks.get("ticktext") or ticks["tickvals"]
    assert all(str(n).strip() for n in names)
    return [str(n) for n in names]


def test_data_cooccurrence_names_its_stated_top_n(many_labels):
    fig = _figure(_open("data.py", many_labels), "co-occurrence")
    assert f"the 50 most frequent of {N_LABELS} labels" in _title(fig)
    heatmap = fig["data"][0]
    assert _names_every_column(fig) == [str(n) for n in heatmap["x"]]
    assert _names_every_column(fig, "yaxis") == [str(n) for n in heatmap["y"]]
    assert len(heatmap["x"]) == 50


def test_grople_aggregates_v_by_group_with_a_drill_down(many_labels):
    at = _open("grople.py", many_labels, {"grople_d": "20", "groups_k": "6"})
    groups = _figure(at, "one column per group")
    assert f"{N_LABELS} labels in 6 groups" in _title(groups)
    assert _names_every_column(groups) == [str(x) for x in groups["data"][0]["x"]]
    assert len(groups["data"][0]["x"]) == 6
    drill = at.selectbox(key="grople_drill_group")
    assert len(drill.options) == 6
    for position in range(len(drill.options)):
        drill.set_value(position).run()
        (fig,) = [f for f in _figures(at) if re.match(r"V\d+: ", _title(f))]
        names = _names_every_column(fig)
        title = _title(fig)
        assert f"all {len(names)} label" in title or (
            f"the {VK_NAMED} most frequent of its" in title and len(names) == VK_NAMED
        ), title
    for fig in _figures(at):  # no figure of the page names more than it can
        assert len(fig["layout"].get("xaxis", {}).get("ticktext") or []) <= VK_NAMED


def test_plst_decoding_names_its_stated_top_n(many_labels):
    fig = _figure(_open("plst.py", many_labels), "decoded step by step")
    assert f"{DECODING_NAMED} of {N_LABELS} labels shown" in _title(fig)
    assert len(_names_every_column(fig, "xaxis2")) == DECODING_NAMED


def test_lesson_grople_step_aggregates_by_group(many_labels):
    at = _open("lesson.py", many_labels, {"lesson_step": "4 · GroPLE", "lesson_grople_d": "10"})
    fig = _figure(at, "one column per group")
    assert f"{N_LABELS} labels in" in _title(fig)
    assert _names_every_column(fig) == [str(x) for x in fig["data"][0]["x"]]

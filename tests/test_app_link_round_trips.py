"""Links reopen the same view (issue 24, item 3): a round trip per page.

Open a page, change some of its widgets as a teacher would, read the URL the page wrote, open
the page afresh (a new session, as a student's browser) with that URL alone, and compare: every
widget with a key, every metric, every table and every caption must be the same. The changes
include the cases the issue reports: Label clusters' K equal to the default of another affinity,
a Lesson link to step 7 after step 6's k was changed, Hypercube's projection by its key, and
``cube_max_vertices`` / ``clems_max_candidates``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

REPO = Path(__file__).resolve().parents[1]
TIMEOUT = 300


def open_page(page: str, params: dict | None = None) -> AppTest:
    at = AppTest.from_file(str(REPO / "pages" / page), default_timeout=TIMEOUT)
    for name, value in (params or {}).items():
        at.query_params[name] = value
    return at.run()


def widget_values(at: AppTest, where: str = "main") -> dict:
    """Key -> value of every keyed widget in the main area (or the sidebar)."""
    values = {}
    for w in getattr(at, where):
        key = getattr(w, "key", None)
        if key and w.type not in ("button", "download_button") and hasattr(w, "value"):
            values[key] = w.value
    return values


def shown(at: AppTest) -> dict:
    """What the page shows: widget values, metrics, tables and captions."""
    return {
        "widgets": widget_values(at),
        "metrics": [(m.label, m.value) for m in at.main.metric],
        "tables": [df.value.to_csv() for df in at.main.dataframe],
        "captions": [c.value for c in at.main.caption],
        "markdown": [m.value for m in at.main.markdown],
        "charts": [c.proto.spec for c in at.main.get("plotly_chart")],
    }


def change(at: AppTest, kind: str, key: str, value) -> None:
    if kind == "button":  # a page that fits on a button press: press it after the changes
        at.button(key=key).click().run()
        assert not at.exception, [e.message for e in at.exception]
        return
    widget = getattr(at, kind)(key=key)
    widget.set_value(value).run()
    assert not at.exception, [e.message for e in at.exception]
    assert getattr(at, kind)(key=key).value == value, key


def assert_round_trip(page: str, changes: list[tuple[str, str, object]]) -> AppTest:
    at = open_page(page)
    assert not at.exception, [e.message for e in at.exception]
    for kind, key, value in changes:
        change(at, kind, key, value)
    link = {k: v if isinstance(v, list) else [v] for k, v in at.query_params.items()}
    for kind, key, _ in changes:
        assert kind == "button" or key in link, (key, link)
    fresh = open_page(page, {k: v if len(v) > 1 else v[0] for k, v in link.items()})
    assert not fresh.exception, [e.message for e in fresh.exception]
    assert not [w.value for w in fresh.warning if w.value.startswith("The link's")]
    for kind, key, _ in changes:  # Compare runs only on its button, on a link too
        if kind == "button" and any("Press" in i.value for i in fresh.info):
            change(fresh, "button", key, None)
    before, after = shown(at), shown(fresh)
    for part in before:
        assert after[part] == before[part], part
    assert before["metrics"] or before["tables"] or before["charts"], "no number to compare"
    return fresh


@pytest.mark.parametrize(
    "page, changes",
    [
        ("data.py", [("radio", "cooc_norm", "jaccard")]),
        (
            "hypercube.py",
            [
                ("selectbox", "cube_projection", "mds"),
                ("number_input", "cube_max_vertices", 40),
                ("radio", "cube_colour", "label cluster"),
                ("slider", "groups_k", 3),
            ],
        ),
        ("plst.py", [("slider", "plst_m", 3), ("number_input", "plst_instance", 2)]),
        (
            # K = 5 under co-occurrence: the link reopened at that affinity's default
            "label_clusters.py",
            [("selectbox", "groups_affinity", "cooccurrence"), ("slider", "groups_k", 5)],
        ),
        (
            "grople.py",
            [
                ("slider", "groups_k", 3),
                ("select_slider", "grople_beta", 0.1),
                ("button", "grople_fit", None),
            ],
        ),
        (
            "clems.py",
            [
                ("slider", "clems_m", 3),
                ("number_input", "clems_max_candidates", 20),
                ("selectbox", "clems_cost", "hamming"),
            ],
        ),
        (
            "mlknn.py",
            [
                ("slider", "mlknn_k", 5),
                ("select_slider", "mlknn_s", 0.5),
            ],
        ),
        (
            "compare.py",
            [
                ("multiselect", "compare_methods", ["BR", "PLST"]),
                ("slider", "compare_m", 3),
                ("button", "compare_fit", None),
            ],
        ),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_page_link_round_trip(page, changes):
    assert_round_trip(page, changes)


def test_lesson_link_to_step_7_carries_the_other_steps_settings():
    """Step 7 fits ML-KNN with step 6's k: a link to step 7 must carry that k."""
    at = open_page("lesson.py", {"lesson_step": "mlknn"})
    change(at, "slider", "lesson_mlknn_k", 3)
    change(at, "radio", "lesson_step", "compare")
    link = {k: v if isinstance(v, list) else [v] for k, v in at.query_params.items()}
    assert link["lesson_mlknn_k"] == ["3"] and link["lesson_step"] == ["compare"]
    for key in ("lesson_plst_m", "lesson_grople_d", "lesson_clems_cost", "groups_k"):
        assert key in link, key
    fresh = open_page("lesson.py", {k: v if len(v) > 1 else v[0] for k, v in link.items()})
    assert not fresh.exception
    assert fresh.session_state["lesson_mlknn_k"] == 3
    assert shown(fresh) == shown(at)
    # and the link differs from the one with step 6's default k: the number depends on it
    default = open_page("lesson.py", {"lesson_step": "compare"})
    assert default.query_params["lesson_mlknn_k"] != "3"


def test_sidebar_link_round_trip_through_the_router():
    """The experiment settings every page shares, through ``app.py`` (the sidebar is drawn)."""
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=TIMEOUT).run()
    for kind, key, value in [
        ("slider", "test_size", 0.4),
        ("number_input", "split_seed", 7),
        ("slider", "tail_share", 0.1),
        ("radio", "tail_rule", "fixed"),
        ("slider", "tail_threshold", 0.1),
    ]:
        at.sidebar.get(kind)  # the sidebar is drawn
        change(at, kind, key, value)
    link = dict(at.query_params)
    assert link["split_seed"] == "7" and link["test_size"] == "0.4"
    fresh = AppTest.from_file(str(REPO / "app.py"), default_timeout=TIMEOUT)
    for name, value in link.items():
        fresh.query_params[name] = value
    fresh.run()
    assert not fresh.exception
    assert not [w.value for w in fresh.warning if w.value.startswith("The link's")]
    assert widget_values(fresh, "sidebar") == widget_values(at, "sidebar")


def test_another_page_leaves_the_previous_pages_parameters_out_of_the_link():
    """The router drops parameters no widget of the shown page drew (``links.finish_run``)."""
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=TIMEOUT).run()
    at.switch_page("pages/plst.py").run()
    change(at, "slider", "plst_m", 3)
    assert at.query_params["plst_m"] == "3"
    at.switch_page("pages/mlknn.py").run()
    assert not at.exception
    assert "plst_m" not in at.query_params and "mlknn_k" in at.query_params
    assert "split_seed" in at.query_params and "dataset" in at.query_params
    at.switch_page("pages/plst.py").run()  # the session kept M = 3, and the link has it again
    assert at.slider(key="plst_m").value == 3 and at.query_params["plst_m"] == "3"

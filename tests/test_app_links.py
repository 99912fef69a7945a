"""Links that restore a view: widgets bound to the URL, bad link values noted, never raised.

Every parameter widget goes through ``pages._app.links.bound`` (Streamlit's own
``bind="query-params"``) and the data set through ``?dataset=``. A link opened in AppTest
(``at.query_params``) must give the same widget values; a malformed link must fall back to
the defaults with a note naming the parameter, and never an exception or ``st.error``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from mlviz import datasets
from mlviz.label_clustering import LabelClustering

REPO = Path(__file__).resolve().parents[1]
TIMEOUT = 180


def open_link(page: str, params: dict, source_key: str = "sample:planted") -> AppTest:
    """``pages/<page>`` run alone: the data set in the session, ``params`` in the URL."""
    at = AppTest.from_file(str(REPO / "pages" / page), default_timeout=TIMEOUT)
    at.session_state["dataset"] = datasets.load_source(source_key)
    at.session_state["dataset_label"] = source_key
    for name, value in params.items():
        at.query_params[name] = value
    return at.run()


def link_notes(at: AppTest) -> list[str]:
    return [w.value for w in at.warning if "link" in w.value]


def assert_no_failure(at: AppTest) -> None:
    assert not at.exception, [e.message for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def test_grople_link_round_trip():
    params = {
        "grople_d": "3",
        "groups_k": "2",
        "groups_affinity": "correlation",
        "grople_lambda2": "10.0",
        "grople_beta": "0.1",
    }
    at = open_link("grople.py", params)
    assert_no_failure(at)
    assert not link_notes(at)
    assert at.slider(key="grople_d").value == 3
    assert at.slider(key="groups_k").value == 2
    assert at.selectbox(key="groups_affinity").value == "correlation"
    assert at.select_slider(key="grople_lambda2").value == 10.0
    assert at.select_slider(key="grople_beta").value == 0.1


def test_grople_malformed_link_falls_back_with_notes():
    defaults = open_link("grople.py", {})
    assert_no_failure(defaults)
    bad = {
        "grople_d": "many",
        "groups_k": "999",
        "groups_affinity": "cosine",
        "grople_lambda2": "7",
    }
    at = open_link("grople.py", bad)
    assert_no_failure(at)
    notes = link_notes(at)
    for name in bad:
        assert any(f"`{name}` =" in note for note in notes), (name, notes)
    assert any("not a finite number" in n for n in notes if "`grople_d`" in n)
    assert any("not one of the options" in n for n in notes if "`groups_affinity`" in n)
    for key in ("grople_d", "groups_k"):
        assert at.slider(key=key).value == defaults.slider(key=key).value
    assert at.selectbox(key="groups_affinity").value == "heat"
    assert at.select_slider(key="grople_lambda2").value == 10.0  # the page's opening λ2


def test_teaching_defaults_of_grople_and_label_clusters():
    ds = datasets.load_source("sample:planted")
    grople = open_link("grople.py", {})
    assert_no_failure(grople)
    assert grople.slider(key="grople_d").value <= ds.n_labels
    clusters = open_link("label_clusters.py", {})
    assert_no_failure(clusters)
    k_max = int(clusters.slider(key="groups_k").max)
    # the app's default rule: the largest eigengap with no group over half the labels
    spectrum = LabelClustering(n_groups=min(30, ds.n_labels), random_state=0).fit(ds.Y)
    assert clusters.slider(key="groups_k").value == spectrum.default_n_groups(k_max)


def test_label_clusters_out_of_range_k_is_noted():
    at = open_link("label_clusters.py", {"groups_k": "1"})
    assert_no_failure(at)
    notes = link_notes(at)
    assert len(notes) == 1 and "`groups_k` = 1 was ignored" in notes[0], notes
    assert "outside 2–" in notes[0]


@pytest.mark.parametrize("page", ["grople.py", "label_clusters.py"])
def test_report_download_is_offered(page):
    at = open_link(page, {})
    assert_no_failure(at)
    buttons = at.get("download_button")
    assert any("HTML report" in b.proto.label for b in buttons)


def test_router_link_selects_the_data_set_and_notes_an_unknown_one():
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=TIMEOUT)
    at.query_params["dataset"] = "sample:cube"
    at.query_params["test_size"] = "0.4"
    at.run()
    assert_no_failure(at)
    assert at.session_state["dataset"].name == "cube"
    assert at.session_state["test_size"] == pytest.approx(0.4)
    stale = AppTest.from_file(str(REPO / "app.py"), default_timeout=TIMEOUT)
    stale.query_params["dataset"] = "mulan:no-such-set"
    stale.query_params["test_size"] = "2"
    stale.run()
    assert_no_failure(stale)
    notes = link_notes(stale)
    assert any("`dataset` = mulan\\:no\\-such\\-set" in n for n in notes), notes
    assert any("`test_size` = 2 was ignored" in n for n in notes), notes
    assert stale.session_state["dataset"].name == "planted"


def test_plst_link_and_you_are_here_marker():
    at = open_link("plst.py", {"plst_m": "3"})
    assert_no_failure(at)
    assert at.slider(key="plst_m").value == 3
    spectrum = next(c for c in at.get("plotly_chart") if "you are here: M = 3" in c.proto.spec)
    assert spectrum is not None


def test_clems_opens_at_m_2_with_the_full_m_metrics_and_stress1():
    at = open_link("clems.py", {})
    assert_no_failure(at)
    assert at.slider(key="clems_m").value == 2
    labels = [m.label for m in at.metric]
    assert "Stress-1 (Kruskal)" in labels
    assert any("(M = 2)" in label for label in labels)
    deltas = [m.proto.body for m in at.metric if "(M = 2)" in m.label]
    assert deltas
    assert all(" at M = L = " in m.delta for m in at.metric if "(M = 2)" in m.label)


# ---------------------------------------------------------------------------------- lesson
# the step radio's options as the URL carries them (their visible titles)
LESSON_PLST, LESSON_GROPLE, LESSON_COMPARE = "2 · PLST", "4 · GroPLE", "7 · Compare & tail"


@pytest.mark.parametrize(
    "params, expected",
    [
        # M = 1 is the slider's minimum but not the step's default (M = 2): it must survive
        (
            {"lesson_step": LESSON_PLST, "lesson_plst_m": "1", "lesson_plst_instance": "3"},
            {"lesson_step": "plst", "lesson_plst_m": 1, "lesson_plst_instance": 3},
        ),
        (
            {"lesson_step": LESSON_GROPLE, "lesson_grople_d": "5", "lesson_grople_lambda2": "10.0"},
            {"lesson_step": "grople", "lesson_grople_d": 5, "lesson_grople_lambda2": 10.0},
        ),
        (
            {"lesson_step": LESSON_COMPARE, "lesson_compare_methods": ["BR", "GroPLE"]},
            {"lesson_step": "compare", "lesson_compare_methods": ["BR", "GroPLE"]},
        ),
    ],
    ids=["plst", "grople", "compare"],
)
def test_lesson_link_round_trip(params, expected):
    at = open_link("lesson.py", params)
    assert_no_failure(at)
    assert not link_notes(at)
    for key, value in expected.items():
        assert at.session_state[key] == value, key
    widgets = {w.key: w.value for w in at.main if getattr(w, "key", None) in expected}
    assert widgets == expected


def test_lesson_malformed_link_falls_back_with_notes():
    bad = {
        "lesson_step": LESSON_GROPLE,
        "lesson_grople_d": "many",
        "lesson_grople_lambda2": "7",
    }
    at = open_link("lesson.py", bad)
    assert_no_failure(at)
    notes = link_notes(at)
    assert any("`lesson_grople_d` = many" in n and "not a finite number" in n for n in notes)
    assert any("`lesson_grople_lambda2` = 7" in n for n in notes), notes
    L = at.session_state["dataset"].n_labels
    assert at.slider(key="lesson_grople_d").value == (L + 1) // 2  # the registry's d: ~L / 2
    assert at.select_slider(key="lesson_grople_lambda2").value == 10.0
    unknown_step = open_link("lesson.py", {"lesson_step": "8 · Deep learning"})
    assert_no_failure(unknown_step)
    assert any("`lesson_step` = 8 · Deep learning" in n for n in link_notes(unknown_step))
    assert unknown_step.radio(key="lesson_step").value == "hypercube"


def test_lesson_try_this_button_moves_the_link_along():
    at = open_link("lesson.py", {"lesson_step": LESSON_GROPLE})
    assert_no_failure(at)
    assert at.query_params["lesson_grople_lambda2"] == "10"  # every setting is in the link
    at.button(key="lesson_try_grople").click().run()
    assert_no_failure(at)
    assert at.select_slider(key="lesson_grople_lambda2").value == 1.0
    assert at.query_params["lesson_grople_lambda2"] == "1"
    reopened = open_link("lesson.py", dict(at.query_params))
    assert_no_failure(reopened)
    assert reopened.radio(key="lesson_step").value == "grople"
    assert reopened.select_slider(key="lesson_grople_lambda2").value == 1.0

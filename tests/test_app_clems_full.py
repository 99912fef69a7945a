"""The CLEMS page's M = L comparison: fitted beside the teaching view on small data, behind a
button above :data:`pages._app.budget.CLEMS_AUTO_FULL_LABEL_SETS` label sets (issue 33: the
page fitted CLEMS twice on every visit at delicious's shape)."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from mlviz import datasets
from pages._app import budget

REPO = Path(__file__).resolve().parents[1]
TIMEOUT = 300


def _clems_page() -> AppTest:
    dataset = datasets.load_source("sample:planted")
    at = AppTest.from_file(str(REPO / "pages" / "clems.py"), default_timeout=TIMEOUT)
    at.session_state["dataset"] = dataset
    at.session_state["dataset_label"] = dataset.name
    return at.run()


def _deltas(at: AppTest) -> list[str]:
    return [m.delta or "" for m in at.metric if m.label.startswith("Test ")]


def test_on_small_data_the_comparison_is_fitted_without_a_press():
    at = _clems_page()
    assert not at.exception, [e.message for e in at.exception]
    assert not [b for b in at.button if b.key == "clems_full_fit"]
    assert all(" at M = L = 22" in delta for delta in _deltas(at)), _deltas(at)


def test_above_the_budget_the_comparison_waits_for_its_button(monkeypatch):
    monkeypatch.setattr(budget, "CLEMS_AUTO_FULL_LABEL_SETS", 10)
    at = _clems_page()
    assert not at.exception, [e.message for e in at.exception]
    assert any("more than 10) that second fit" in c.value for c in at.caption)
    assert not any(" at M = L" in delta for delta in _deltas(at)), _deltas(at)
    at.button(key="clems_full_fit").click().run()
    assert not at.exception, [e.message for e in at.exception]
    assert all(" at M = L = 22" in delta for delta in _deltas(at)), _deltas(at)


def test_moving_the_test_instance_does_not_write_every_candidate_again(monkeypatch):
    """The candidates' texts are written once per fit (0.35 s for 16,105 sets of 983 labels),
    not on every move of the test instance; the figures still name every candidate."""
    from mlviz.figures import hypercube
    from pages._app import fitting

    fitting._outcomes.clear()  # the texts of an earlier test's identical fit
    calls = []
    original = hypercube.labelset_text

    def counted(Y, names, *args, **kwargs):
        calls.append(len(Y))
        return original(Y, names, *args, **kwargs)

    monkeypatch.setattr(hypercube, "labelset_text", counted)
    at = _clems_page()
    assert not at.exception, [e.message for e in at.exception]
    n_candidates = max(calls)
    assert n_candidates > 1
    calls.clear()
    at.number_input(key="clems_instance").set_value(1).run()
    assert not at.exception, [e.message for e in at.exception]
    assert calls and max(calls) == 1, calls  # only the instance's truth and decoded sets
    embedding = next(c for c in at.get("plotly_chart") if "candidate label sets" in c.proto.spec)
    assert embedding.proto.spec.count("training instances") >= n_candidates

"""AppTest of the Compare page: tail columns, the out-of-fold per-label view, failing methods.

Kept apart from tests/test_app.py (which runs every page generically) because these tests
drive the page's own widgets: few methods and 2 folds keep them quick.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import mulan_path
from streamlit.testing.v1 import AppTest

from mlviz import datasets
from mlviz.data import Dataset

REPO = Path(__file__).resolve().parents[1]
TIMEOUT = 300


def _compare(dataset: Dataset, methods: list[str], folds: int = 2, **state) -> AppTest:
    at = AppTest.from_file(str(REPO / "pages" / "compare.py"), default_timeout=TIMEOUT)
    at.session_state["dataset"] = dataset
    at.session_state["dataset_label"] = dataset.name
    for key, value in state.items():
        at.session_state[key] = value
    at.run()
    at.multiselect(key="compare_methods").set_value(methods).run()
    at.slider(key="compare_folds").set_value(folds).run()
    at.button(key="compare_fit").click().run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def _tables(at: AppTest):
    return [frame.value for frame in at.dataframe]


@pytest.mark.parametrize("source", ["sample:planted", "mulan:medical"])
def test_compare_shows_tail_columns_and_the_out_of_fold_per_label_view(source):
    if source.startswith("mulan:"):
        mulan_path(source.split(":")[1] + ".arff")
    dataset = datasets.load_source(source)
    at = _compare(dataset, ["BR", "PLST"], tail_threshold=0.05)
    assert not at.error, [e.value for e in at.error]
    summary, per_label = _tables(at)
    assert {"Tail macro F1 ↑", "Head macro F1 ↑", "Tail recall (micro) ↑"} <= set(
        summary.columns
    )
    assert list(summary.index) == ["BR", "PLST"]
    # one row per label, rarest first, F1 and recall per method, the best method
    assert len(per_label) == dataset.n_labels
    assert {"label", "frequency", "tail", "F1 BR", "F1 PLST", "recall BR", "recall PLST",
            "best F1"} <= set(per_label.columns)
    assert per_label["frequency"].is_monotonic_increasing
    frequencies = dataset.Y.mean(axis=0)
    assert per_label["tail"].sum() == int((frequencies < 0.05).sum())
    chart_keys = [c.proto.id for c in at.get("plotly_chart")]
    assert len(chart_keys) == 2  # metrics per method, per-label chart
    assert len(at.get("download_button")) == 2
    # the per-label chart switches to recall without a rerun of the cross-validation
    at.radio(key="compare_label_metric").set_value("recall").run()
    assert not at.exception and not at.error


def test_a_method_failing_in_every_fold_is_an_error_and_the_others_still_show():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(10, 4))
    Y = (rng.random((10, 3)) < 0.5).astype(np.uint8)
    Y[0] = 1
    tiny = Dataset("tiny", X, Y, ("a", "b", "c", "d"), ("l1", "l2", "l3"))
    at = _compare(tiny, ["BR", "ML-KNN"], folds=5, compare_k=10)
    errors = [e.value for e in at.error]
    assert len(errors) == 1
    assert "ML-KNN" in errors[0] and "every fold" in errors[0] and "k=10" in errors[0]
    summary, per_label = _tables(at)
    assert list(summary.index) == ["BR"]
    assert "F1 BR" in per_label.columns and "F1 ML-KNN" not in per_label.columns


def test_tail_threshold_zero_means_no_tail_columns():
    dataset = datasets.load_source("sample:planted")
    at = _compare(dataset, ["BR"], tail_threshold=0.0)
    assert not at.error
    summary = _tables(at)[0]
    assert "Tail macro F1 ↑" not in summary.columns
    assert any("no tail columns" in c.value for c in at.caption)

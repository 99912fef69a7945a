"""App tests of the Data page's imbalance measures and UpSet view (issue 32 item 4)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from mlviz import stats
from mlviz.io import Dataset
from mlviz.synthetic import make_long_tailed, make_planted

REPO = Path(__file__).resolve().parents[1]
TIMEOUT = 240


def _data_page(dataset: Dataset) -> AppTest:
    at = AppTest.from_file(str(REPO / "pages" / "data.py"), default_timeout=TIMEOUT)
    at.session_state["dataset"] = dataset
    at.session_state["dataset_label"] = dataset.name
    return at.run()


def _metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def _upset(at: AppTest):
    charts = [c for c in at.get("plotly_chart") if "most common label set" in c.proto.spec]
    assert len(charts) == 1
    import json

    return json.loads(charts[0].proto.spec)


def test_measures_and_per_label_columns_equal_the_library():
    ds, _ = make_planted(n_samples=300, random_state=0)
    at = _data_page(ds)
    assert not at.exception, [e.message for e in at.exception]
    numbers = stats.summary(ds)
    assert _metric(at, "Mean imbalance ratio") == f"{numbers['mean_ir']:.2f}"
    assert _metric(at, "Max imbalance ratio") == f"{numbers['max_ir']:.1f}"
    assert _metric(at, "SCUMBLE") == f"{numbers['scumble']:.3f}"
    assert _metric(at, "SCUMBLE CV") == f"{numbers['scumble_cv']:.2f}"
    caption = next(c.value for c in at.caption if c.value.startswith("Imbalance:"))
    assert f"{numbers['mean_ir']:.1f} times rarer" in caption
    table = next(f.value for f in at.dataframe if "co_occurring_labels" in f.value.columns)
    np.testing.assert_allclose(table["imbalance_ratio"], stats.imbalance_ratio(ds.Y))
    np.testing.assert_allclose(table["scumble"], stats.label_scumble(ds.Y))


def test_balanced_labels_say_scumble_is_zero_without_claiming_imbalance():
    Y = np.array([[1, 1], [1, 1], [0, 0], [1, 1]])
    ds = Dataset("even", np.zeros((4, 1)), Y, feature_names=("x",), label_names=("a", "b"))
    at = _data_page(ds)
    assert not at.exception, [e.message for e in at.exception]
    assert _metric(at, "SCUMBLE CV") == "—"
    caption = next(c.value for c in at.caption if c.value.startswith("Imbalance:"))
    assert "No instance carries labels of different frequencies" in caption


@pytest.mark.parametrize("n_labels", [159, 983])
def test_upset_view_counts_what_it_leaves_out_and_follows_the_control(n_labels):
    ds = make_long_tailed(n_samples=1500, n_labels=n_labels, cardinality=3, random_state=0)
    at = _data_page(ds)
    assert not at.exception, [e.message for e in at.exception]
    table = stats.labelset_counts(ds.Y)
    spec = _upset(at)
    shown = spec["layout"]["meta"]["shown_sets"]
    assert 1 <= shown <= 20
    meta = spec["layout"]["meta"]
    assert meta["not_shown_sets"] == len(table) - shown
    caption = next(c.value for c in at.caption if c.value.startswith("UpSet view"))
    assert f"{meta['not_shown_sets']:,} more label sets" in caption
    at.slider(key="data_upset_sets").set_value(5).run()
    assert _upset(at)["layout"]["meta"]["shown_sets"] == 5
    assert not at.exception

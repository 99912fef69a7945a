"""App tests of the method pages' tail views: the chart and a caption true on the data.

Each page is run as its own script with the data set the router would have put in the
session (see tests/test_app.py for why). The split is the pages' default random split
(test fraction 0.3, seed 0), recomputed here to check the captions' numbers.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from conftest import mulan_path
from sklearn.model_selection import train_test_split
from streamlit.testing.v1 import AppTest

from mlviz import datasets
from mlviz.io import Dataset
from mlviz.stats import tail_labels

REPO = Path(__file__).resolve().parents[1]
TIMEOUT = 180
SOURCES = ["sample:planted", "mulan:medical"]


def _load(source: str) -> Dataset:
    if source.startswith("mulan:"):
        mulan_path(source.split(":")[1] + ".arff")
    return datasets.load_source(source)


def _app(page: str, dataset: Dataset, **state) -> AppTest:
    at = AppTest.from_file(str(REPO / "pages" / page), default_timeout=TIMEOUT)
    at.session_state["dataset"] = dataset
    at.session_state["dataset_label"] = dataset.name
    for key, value in state.items():
        at.session_state[key] = value
    return at


def _assert_clean(at: AppTest, where: str) -> None:
    assert not at.exception, f"{where}: {[e.message for e in at.exception]}"
    assert not [e.value for e in at.error], f"{where}: {[e.value for e in at.error]}"


def _train_labels(dataset: Dataset) -> np.ndarray:
    train, _ = train_test_split(np.arange(dataset.n_samples), test_size=0.3, random_state=0)
    return dataset.Y[train]


def _tail_view(at: AppTest, title_start: str) -> tuple[dict, str]:
    """The tail chart's figure (as plotly JSON) and the caption under the subheader."""
    figures = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    tail = [f for f in figures if f["layout"]["title"]["text"].startswith(title_start)]
    assert len(tail) == 1, [f["layout"]["title"]["text"] for f in figures]
    captions = [c.value for c in at.caption if "labels are in the tail" in c.value
                or "No label is in the tail" in c.value]
    assert len(captions) == 1, [c.value for c in at.caption]
    return tail[0], captions[0]


@pytest.mark.parametrize("source", SOURCES)
def test_grople_tail_view(source):
    dataset = _load(source)
    at = _app("grople.py", dataset, grople_d=20).run()
    _assert_clean(at, source)
    assert any(h.value.startswith("Tail labels:") for h in at.subheader)
    figure, caption = _tail_view(at, "GroPLE vs BR")
    Y_train = _train_labels(dataset)
    n_tail = len(tail_labels(Y_train, 0.05))
    assert f"{n_tail} of {dataset.n_labels} labels are in the tail" in caption
    assert "fewer than 5% of the training instances" in caption
    never, never_br = map(int, re.search(
        r"GroPLE never predicts (\d+) of them, binary relevance (\d+)", caption).groups())
    assert 0 <= never <= n_tail and 0 <= never_br <= n_tail
    # one marker per label and method (less the undefined F1s), the tail shaded
    assert len(figure["data"]) == 2
    shapes = [s for s in figure["layout"]["shapes"] if s["type"] == "rect"]
    assert len(shapes) == 1 and shapes[0]["x1"] == dataset.n_labels - 0.5
    assert shapes[0]["x0"] == dataset.n_labels - n_tail - 0.5

    # the sidebar threshold moves the tail without a refit
    at.session_state["tail_threshold"] = 0.2
    at.run()
    _assert_clean(at, f"{source} threshold 20%")
    _, caption = _tail_view(at, "GroPLE vs BR")
    n_tail = len(tail_labels(Y_train, 0.2))
    assert f"{n_tail} of {dataset.n_labels} labels are in the tail" in caption
    assert "fewer than 20% of the training instances" in caption

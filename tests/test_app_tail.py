"""App tests of the method pages' tail views: the chart and a caption true on the data.

Each page is run as its own script with the data set the router would have put in the
session (see tests/test_app.py for why). The split is the pages' default random split
(test fraction 0.3, seed 0), recomputed here to check the captions' numbers.
"""

from __future__ import annotations

import dataclasses
import json
import re
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from _plotly import values
from conftest import mulan_path
from sklearn.model_selection import train_test_split
from streamlit.testing.v1 import AppTest

from mlviz import datasets
from mlviz.clems import CLEMS
from mlviz.io import Dataset
from mlviz.linear import PLST
from mlviz.methods import METHODS
from mlviz.mlknn import MLkNN
from mlviz.stats import label_frequencies, tail_cutoff, tail_labels
from mlviz.wording import counted

REPO = Path(__file__).resolve().parents[1]
TIMEOUT = 180
SOURCES = ["sample:planted", "mulan:medical"]


def _load(source: str) -> Dataset:
    if source.startswith("mulan:"):
        mulan_path(source.split(":")[1] + ".arff")
    return datasets.load_source(source)


def _app(page: str, source: str, **state) -> AppTest:
    at = AppTest.from_file(str(REPO / "pages" / page), default_timeout=TIMEOUT)
    at.session_state["dataset"] = _load(source)
    at.session_state["dataset_label"] = source
    # the picker's own record of what it loaded, so that it keeps this data set
    at.session_state["source_choice"] = source
    at.session_state["loaded_source"] = source
    for key, value in state.items():
        at.session_state[key] = value
    return at


def _assert_clean(at: AppTest, where: str) -> None:
    assert not at.exception, f"{where}: {[e.message for e in at.exception]}"
    assert not [e.value for e in at.error], f"{where}: {[e.value for e in at.error]}"


def _split(dataset: Dataset):
    train, test = train_test_split(np.arange(dataset.n_samples), test_size=0.3, random_state=0)
    return dataset.X[train], dataset.X[test], dataset.Y[train], dataset.Y[test]


def _train_labels(dataset: Dataset) -> np.ndarray:
    return _split(dataset)[2]


def _cutoff(dataset: Dataset) -> float:
    """The sidebar's default rule (adaptive, 5 % of label occurrences) as the frequency cut-off
    every page applies: computed on all rows of the data set, as pages._app.experiment does."""
    return min(tail_cutoff(label_frequencies(dataset.Y, relative=True)), 1.0)


def _never_predicted_tail(model, dataset: Dataset, threshold: float | None = None) -> int:
    """Tail labels the model, refitted here on the pages' split, never predicts on its test."""
    threshold = _cutoff(dataset) if threshold is None else threshold
    X_train, X_test, Y_train, _ = _split(dataset)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # constant labels on medical's split
        predicted = model.fit(X_train, Y_train).predict(X_test)
    tail = tail_labels(Y_train, threshold)
    return int((predicted[:, tail].sum(axis=0) == 0).sum())


def _tail_view(at: AppTest, title_start: str) -> tuple[dict, str]:
    """The tail chart's figure (as plotly JSON) and the caption under the subheader."""
    figures = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    tail = [f for f in figures if f["layout"]["title"]["text"].startswith(title_start)]
    assert len(tail) == 1, [f["layout"]["title"]["text"] for f in figures]
    captions = [
        c.value
        for c in at.caption
        if "labels are in the tail" in c.value or "No label is in the tail" in c.value
    ]
    assert len(captions) == 1, [c.value for c in at.caption]
    return tail[0], captions[0]


@pytest.mark.parametrize("source", SOURCES)
def test_grople_tail_view(source):
    at = _app("grople.py", source, grople_d=20).run()
    dataset = at.session_state["dataset"]
    _assert_clean(at, source)
    assert any(h.value.startswith("Tail labels:") for h in at.subheader)
    figure, caption = _tail_view(at, "GroPLE vs BR")
    Y_train = _train_labels(dataset)
    cutoff = _cutoff(dataset)
    n_tail = len(tail_labels(Y_train, cutoff))
    assert f"{n_tail} of {dataset.n_labels} labels are in the tail" in caption
    assert f"fewer than {100 * cutoff:.3g}% of the {len(Y_train):,} training instances" in caption
    assert "adaptive tail rule: the rarest labels that together hold at most 5%" in caption
    never, never_br = map(
        int,
        re.search(r"GroPLE never predicts (\d+) of them, binary relevance (\d+)", caption).groups(),
    )
    assert 0 <= never <= n_tail and 0 <= never_br <= n_tail
    # one marker per label and method (less the undefined F1s), the tail shaded
    assert len(figure["data"]) == 2
    shapes = [s for s in figure["layout"]["shapes"] if s["type"] == "rect"]
    assert len(shapes) == 1 and shapes[0]["x1"] == dataset.n_labels - 0.5
    assert shapes[0]["x0"] == dataset.n_labels - n_tail - 0.5

    # the sidebar's fixed rule and threshold move the tail without a refit
    at.session_state["tail_rule"] = "fixed"
    at.session_state["tail_threshold"] = 0.2
    at.run()
    _assert_clean(at, f"{source} threshold 20%")
    _, caption = _tail_view(at, "GroPLE vs BR")
    n_tail = len(tail_labels(Y_train, 0.2))
    assert f"{n_tail} of {dataset.n_labels} labels are in the tail" in caption
    assert f"fewer than 20% of the {len(Y_train):,} training instances" in caption
    assert "fixed tail rule" in caption


def _check_tail_caption(at: AppTest, title_start: str, never_text: str, never: int) -> dict:
    dataset = at.session_state["dataset"]
    assert any(h.value.startswith("Tail labels:") for h in at.subheader)
    figure, caption = _tail_view(at, title_start)
    n_tail = len(tail_labels(_train_labels(dataset), _cutoff(dataset)))
    assert f"{n_tail} of {dataset.n_labels} labels are in the tail" in caption
    assert "adaptive tail rule" in caption
    assert never_text.format(never) in caption, caption
    shapes = [s for s in figure["layout"]["shapes"] if s["type"] == "rect"]
    assert [(s["x0"], s["x1"]) for s in shapes] == [
        (dataset.n_labels - n_tail - 0.5, dataset.n_labels - 0.5)
    ]
    return figure


@pytest.mark.parametrize("source", SOURCES)
def test_plst_tail_view(source):
    at = _app("plst.py", source, plst_methods=[]).run()
    _assert_clean(at, source)
    dataset = at.session_state["dataset"]
    M = METHODS["PLST"].default_settings(dataset.n_labels)["M"]  # the page opens at ~L / 2
    never = _never_predicted_tail(PLST(n_components=M), dataset)
    figure = _check_tail_caption(at, f"PLST, M = {M}", "PLST never predicts {} of the tail", never)
    assert f"unrepresented at M = {M}" in _tail_view(at, f"PLST, M = {M}")[1]
    drawn = sum(np.isfinite(values(trace["y"])).sum() for trace in figure["data"])
    constant = int((_train_labels(dataset).std(axis=0) == 0).sum())
    assert drawn == dataset.n_labels - constant


@pytest.mark.parametrize("source", SOURCES)
def test_clems_tail_view(source):
    at = _app("clems.py", source).run()
    _assert_clean(at, source)
    dataset = at.session_state["dataset"]
    # the page opens at M = 2 (the teaching default; the picture is the whole embedding)
    never = _never_predicted_tail(
        CLEMS(n_components=min(2, dataset.n_labels), random_state=0), dataset
    )
    figure = _check_tail_caption(
        at,
        "CLEMS: each label",
        "on the test split "
        + counted(never, "tail label is", plural="tail labels are")
        + " in no decoded set",
        never,
    )
    assert [values(trace["x"]).size for trace in figure["data"]] == [dataset.n_labels] * 2


@pytest.mark.parametrize("source", SOURCES)
def test_mlknn_tail_view(source):
    at = _app("mlknn.py", source).run()
    _assert_clean(at, source)
    dataset = at.session_state["dataset"]
    never = _never_predicted_tail(MLkNN(k=10, s=1.0), dataset)
    _check_tail_caption(at, "ML-KNN: prior", "ML-KNN never predicts {} of the tail", never)


def test_the_sidebar_offers_the_adaptive_rule_first_and_counts_the_tail():
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=TIMEOUT).run()
    _assert_clean(at, "start")
    dataset = at.session_state["dataset"]
    rule = at.radio(key="tail_rule")
    assert rule.value == "adaptive" and rule.options[1].startswith("fixed")
    n_tail = len(tail_labels(dataset.Y))  # the adaptive rule on all rows
    sidebar = " ".join(c.value for c in at.sidebar.caption)
    assert f"{n_tail} of {dataset.n_labels} labels are tail labels on the whole data set" in sidebar
    assert "adaptive tail rule" in sidebar
    assert not [s for s in at.slider if s.key == "tail_threshold"]  # the fixed rule's slider
    # the Data page's chart and caption count the same labels
    assert f"the {n_tail} red bars of {dataset.n_labels}" in " ".join(c.value for c in at.caption)
    rule.set_value("fixed").run()
    _assert_clean(at, "fixed rule")
    at.slider(key="tail_threshold").set_value(0.2).run()
    n_fixed = len(tail_labels(dataset.Y, 0.2))
    sidebar = " ".join(c.value for c in at.sidebar.caption)
    assert f"{n_fixed} of {dataset.n_labels} labels are tail labels" in sidebar
    assert "fixed tail rule: labels on fewer than 20% of the instances" in sidebar


@pytest.mark.parametrize("source", SOURCES)
def test_one_tail_cut_off_one_rounding_and_every_count_names_its_rows(source):
    """Issue 31: the Data page said "8 tail labels (below 0.2 %)" and the model pages "14 …
    fewer than 0.24 %" for one cut-off. Every page now writes the cut-off with one rounding
    rule, and each count says which rows it counts, so the two counts can be told apart."""
    from mlviz.stats import is_tail
    from mlviz.wording import percent_text

    dataset = _load(source)
    cutoff = _cutoff(dataset)
    data = _app("data.py", source).run()
    _assert_clean(data, f"{source} data")
    texts = " ".join(c.value for c in data.caption)
    n_whole = int(is_tail(label_frequencies(dataset.Y, relative=True), cutoff).sum())
    assert f"of all {dataset.n_samples:,} instances" in texts
    assert f"{n_whole} red bars" in texts and f"cut-off of {percent_text(cutoff)}" in texts
    Y_train = _train_labels(dataset)
    n_train_tail = len(tail_labels(Y_train, cutoff))
    for page, title in [("plst.py", "PLST"), ("mlknn.py", "ML-KNN"), ("grople.py", "GroPLE")]:
        at = _app(page, source, grople_d=20).run()
        _assert_clean(at, f"{source} {page}")
        caption = next(c.value for c in at.caption if "labels are in the tail" in c.value)
        assert f"{n_train_tail} of {dataset.n_labels} labels are in the tail" in caption, title
        assert (
            f"fewer than {percent_text(cutoff)} of the {len(Y_train):,} training instances"
            in caption
        ), title


@pytest.mark.parametrize(
    ("page", "table"),
    [
        ("clems.py", "clems_label_table"),
        ("mlknn.py", "mlknn_label_table"),
        ("plst.py", "plst_label_table"),
        ("grople.py", "grople_label_table"),
    ],
)
def test_a_rerun_with_the_same_settings_does_not_rebuild_the_per_label_table(
    page, table, monkeypatch
):
    # each per-label table predicts the whole test split; a rerun with nothing changed (a
    # sidebar widget, the test instance box) must take it from the cache (the CLEMS page
    # rebuilt it on every rerun)
    from mlviz import per_label

    calls = []
    original = getattr(per_label, table)

    def counted_table(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(per_label, table, counted_table)
    for name, module in list(sys.modules.items()):  # page packages imported by earlier tests
        if name.startswith("pages.") and getattr(module, table, None) is original:
            monkeypatch.setattr(module, table, counted_table)
    at = _app(page, "sample:planted")
    # a data set no other test loads: the page caches are shared by every session (and test)
    # of the process, and this table must be computed here once
    sample = at.session_state["dataset"]
    renamed = [f"{name} (rerun)" for name in sample.label_names]
    at.session_state["dataset"] = dataclasses.replace(sample, label_names=renamed)
    at.run()
    _assert_clean(at, page)
    assert len(calls) == 1
    at.run()
    _assert_clean(at, page)
    assert len(calls) == 1, f"{page} rebuilt its per-label table on a rerun"

"""App tests of the Label clusters and GroPLE pages: every affinity, odd label counts, large L.

Each page is run as its own script with the data set the router would have put in the
session (see tests/test_app.py for why).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import mulan_path
from streamlit.testing.v1 import AppTest

from mlviz import datasets
from mlviz.grople import GroPLE
from mlviz.io import Dataset
from mlviz.label_clustering import LabelClustering
from mlviz.synthetic import make_planted

REPO = Path(__file__).resolve().parents[1]
TIMEOUT = 180
AFFINITIES = ["heat", "cooccurrence", "correlation"]


def _app(page: str, dataset: Dataset) -> AppTest:
    at = AppTest.from_file(str(REPO / "pages" / page), default_timeout=TIMEOUT)
    at.session_state["dataset"] = dataset
    at.session_state["dataset_label"] = dataset.name
    return at


def _load(source: str) -> Dataset:
    if source.startswith("mulan:"):
        mulan_path(source.split(":")[1] + ".arff")
    return datasets.load_source(source)


def _assert_clean(at: AppTest, where: str) -> None:
    assert not at.exception, f"{where}: {[e.message for e in at.exception]}"
    assert not [e.value for e in at.error], f"{where}: {[e.value for e in at.error]}"


def _metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def _small(n_labels: int, seed: int = 0) -> Dataset:
    rng = np.random.default_rng(seed)
    Y = (rng.random((50, n_labels)) < 0.4).astype(np.uint8)
    Y[:5] = 1  # the labels co-occur on the first 5 rows at least
    X = rng.standard_normal((50, 3))
    return Dataset(
        name=f"tiny{n_labels}",
        X=X,
        Y=Y,
        feature_names=("f1", "f2", "f3"),
        label_names=tuple(f"L{j}" for j in range(n_labels)),
    )


@pytest.mark.parametrize("source", ["sample:planted", "mulan:medical"])
def test_label_clusters_every_affinity(source):
    at = _app("label_clusters.py", _load(source)).run()
    _assert_clean(at, source)
    for affinity in AFFINITIES:
        at.selectbox(key="clusters_affinity").set_value(affinity).run()
        _assert_clean(at, f"{source} {affinity}")
        titles = [c.proto.spec for c in at.get("plotly_chart")]
        assert len(titles) == 3, f"{source} {affinity}: heatmap, spectrum and K sweep expected"
        assert len(at.dataframe) >= 1
        for k in (2, at.slider(key="clusters_k").max):
            at.slider(key="clusters_k").set_value(k).run()
            _assert_clean(at, f"{source} {affinity} K={k}")


def test_label_clusters_planted_sample_reports_agreement_and_flags():
    at = _app("label_clusters.py", _load("sample:planted")).run()
    # the default: the paper's heat kernel at K = 10 puts the rare labels together
    heat_ari = float(_metric(at, "ARI vs planted groups"))
    at.selectbox(key="clusters_affinity").set_value("cooccurrence").run()
    at.slider(key="clusters_k").set_value(4).run()
    _assert_clean(at, "planted cooccurrence K=4")
    assert float(_metric(at, "ARI vs planted groups")) >= 0.9 > heat_ari
    assert _metric(at, "Never co-occurring") == "0"


def test_use_suggested_k_button_applies_the_eigengap():
    at = _app("label_clusters.py", _load("sample:planted"))
    at.session_state["clusters_affinity"] = "cooccurrence"
    at.session_state["clusters_k"] = 10
    at.run()
    suggested = int(_metric(at, "Eigengap suggests K"))
    assert at.slider(key="clusters_k").value != suggested  # precondition: K = 10
    at.button(key="clusters_use_suggested").click().run()
    _assert_clean(at, "after 'use suggested K'")
    assert at.slider(key="clusters_k").value == suggested


def test_heat_on_medical_flags_never_cooccurring_groups_in_words():
    at = _app("label_clusters.py", _load("mulan:medical"))
    at.session_state["clusters_k"] = 5
    at.run()
    _assert_clean(at, "medical heat K=5")
    n_never = int(_metric(at, "Never co-occurring"))
    assert n_never > 0
    assert any("never appear together" in w.value for w in at.warning)
    assert sum("never appear together" in m.value for m in at.markdown) == n_never


@pytest.mark.parametrize("n_labels", [1, 2])
def test_label_clusters_with_one_or_two_labels_says_why(n_labels):
    at = _app("label_clusters.py", _small(n_labels)).run()
    _assert_clean(at, f"{n_labels} labels")
    assert any(f"this data set has {n_labels}" in w.value for w in at.warning)
    assert not at.slider and not at.get("plotly_chart")


def test_label_clusters_with_three_labels():
    at = _app("label_clusters.py", _small(3)).run()
    _assert_clean(at, "3 labels")
    assert at.slider(key="clusters_k").max == 3
    at.slider(key="clusters_k").set_value(3).run()
    _assert_clean(at, "3 labels, K=3")


def test_many_labels_show_the_group_summary_and_drill_down():
    data, _ = make_planted(
        n_samples=400, n_groups=12, labels_per_group=8, n_tail=10, random_state=0
    )
    assert data.n_labels > 100  # the sweep runs on request above 100 labels
    at = _app("label_clusters.py", data).run()
    _assert_clean(at, "106 labels")
    charts = at.get("plotly_chart")
    assert len(charts) == 3  # group summary, drill-down, spectrum (no sweep yet)
    drill = at.selectbox(key="clusters_drill_group")
    drill.set_value(1).run()
    _assert_clean(at, "drill-down")
    at.button(key="clusters_sweep_fit").click().run()
    _assert_clean(at, "sweep on request")
    assert len(at.get("plotly_chart")) == 4


@pytest.mark.parametrize("source", ["sample:planted", "mulan:medical"])
def test_grople_page_every_affinity(source):
    at = _app("grople.py", _load(source))
    at.session_state["grople_d"] = 20
    at.run()
    _assert_clean(at, source)
    for affinity in AFFINITIES:
        at.selectbox(key="grople_affinity").set_value(affinity).run()
        at.button(key="grople_fit").click().run()
        _assert_clean(at, f"GroPLE {source} {affinity}")
        assert any(affinity in c.value for c in at.caption), "the caption names the affinity"
        groups_table = at.dataframe[0].value
        assert "latent rows used" in groups_table.columns
        assert groups_table["n_labels"].sum() == at.session_state["dataset"].n_labels


@pytest.mark.parametrize(
    ("page", "estimator"), [("label_clusters.py", LabelClustering), ("grople.py", GroPLE)]
)
def test_a_failed_fit_after_a_data_set_change_never_shows_the_previous_model(
    page, estimator, monkeypatch
):
    at = _app(page, _small(4)).run()
    _assert_clean(at, "first data set")
    assert at.get("plotly_chart")
    # same name and label count, other content (seed 7 is used nowhere else: the failure
    # below is cached for this content)
    other = _small(4, seed=7)
    at.session_state["dataset"] = other

    def fail(self, *args, **kwargs):
        raise ValueError("planted failure")

    monkeypatch.setattr(estimator, "fit", fail)
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert any("planted failure" in e.value for e in at.error)
    assert not at.get("plotly_chart"), "a figure of the previous data set is shown"

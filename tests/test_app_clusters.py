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
from mlviz.label_clustering import VERDICTS, LabelClustering
from mlviz.synthetic import make_planted

REPO = Path(__file__).resolve().parents[1]
TIMEOUT = 180
AFFINITIES = ["heat", "cooccurrence", "correlation"]


def _group_table(at: AppTest):
    """The group table (the page also shows the candidates for K in a table above it)."""
    tables = [d.value for d in at.dataframe if "verdict" in d.value.columns]
    assert len(tables) == 1, [list(d.value.columns) for d in at.dataframe]
    return tables[0]


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
        at.selectbox(key="groups_affinity").set_value(affinity).run()
        _assert_clean(at, f"{source} {affinity}")
        at.button(key="clusters_sweep_fit").click().run()
        _assert_clean(at, f"{source} {affinity} sweep")
        titles = [c.proto.spec for c in at.get("plotly_chart")]
        assert len(titles) == 4, f"{source} {affinity}: heatmap, spectrum, sweep, co-assignment"
        assert len(at.dataframe) >= 1
        for k in (2, int(at.slider(key="groups_k").max)):
            at.slider(key="groups_k").set_value(k).run()
            _assert_clean(at, f"{source} {affinity} K={k}")
            # every group has exactly one verdict, and the banner counts them
            verdicts = _group_table(at)["verdict"]
            assert verdicts.isin(list(VERDICTS)).all()
            banner = (at.warning or at.success)[0].value
            assert f"K = {k}" in banner


def test_label_clusters_planted_sample_reports_agreement_and_flags():
    at = _app("label_clusters.py", _load("sample:planted")).run()
    # the default: the paper's heat kernel at K = 10 puts the rare labels together
    heat_ari = float(_metric(at, "ARI vs planted groups"))
    # heat keeps the six rare labels in a bucket of their own, and the banner says so
    table = _group_table(at)
    bucket = table[table["verdict"] == "tail bucket"]
    assert len(bucket) == 1 and "A_rare1" in bucket["labels"].iloc[0]
    assert "1 tail bucket" in at.warning[0].value
    assert not any("Every group" in w.value for w in at.info)
    at.selectbox(key="groups_affinity").set_value("cooccurrence").run()
    at.slider(key="groups_k").set_value(4).run()
    _assert_clean(at, "planted cooccurrence K=4")
    assert float(_metric(at, "ARI vs planted groups")) >= 0.9 > heat_ari


def test_one_suggested_k_and_its_button_set_the_shared_k():
    """Issue 31: one suggested K (not the eigengap's, the default rule's and the sweep's each
    on its own line), its button, and the candidates that lost with their reasons."""
    at = _app("label_clusters.py", _load("sample:planted"))
    at.session_state["groups_affinity"] = "cooccurrence"
    at.session_state["groups_k"] = 10
    at.run()
    labels = [m.label for m in at.metric]
    assert "Suggested K" in labels
    assert not {"Eigengap K", "Default K", "K against the null"} & set(labels)
    suggested = int(_metric(at, "Suggested K"))
    assert at.slider(key="groups_k").value != suggested  # precondition: K = 10
    at.button(key="clusters_use_suggested").click().run()
    _assert_clean(at, "after 'use suggested K'")
    assert at.slider(key="groups_k").value == suggested == 4  # the four planted groups
    assert any(i.value.startswith(f"**Suggested K = {suggested}**") for i in at.info)
    at.button(key="clusters_sweep_fit").click().run()
    _assert_clean(at, "after the sweep")
    assert int(_metric(at, "Suggested K")) == 4  # the sweep agrees: the planted K
    shown = next(i.value for i in at.info if i.value.startswith("**Suggested K"))
    assert "stability" in shown  # the sweep's K is one of the candidates now


def test_heat_on_medical_explains_every_doubtful_group_in_words():
    at = _app("label_clusters.py", _load("mulan:medical"))
    at.session_state["groups_k"] = 5
    at.run()
    _assert_clean(at, "medical heat K=5")
    table = _group_table(at)
    doubtful = table[table["verdict"].isin(["never co-occur", "tail bucket", "weak"])]
    assert len(doubtful) > 0
    assert any(f"{len(doubtful)} of the 5 groups" in w.value for w in at.warning)
    listed = [m.value for m in at.markdown if m.value.startswith("- **Group")]
    assert len(listed) == len(doubtful)
    assert all(v in text for v, text in zip(doubtful["verdict"], listed, strict=True))


@pytest.mark.parametrize("n_labels", [1, 2])
def test_label_clusters_with_one_or_two_labels_says_why(n_labels):
    at = _app("label_clusters.py", _small(n_labels)).run()
    _assert_clean(at, f"{n_labels} labels")
    assert any(f"this data set has {n_labels}" in w.value for w in at.warning)
    assert not at.slider and not at.get("plotly_chart")


def test_label_clusters_with_three_labels():
    at = _app("label_clusters.py", _small(3)).run()
    _assert_clean(at, "3 labels")
    # K = 3 would leave every label alone: K = 2 is the only grouping
    assert not at.slider
    assert any("Number of groups K is 2" in c.value for c in at.caption)


def test_many_labels_show_the_group_summary_and_drill_down():
    data, _ = make_planted(
        n_samples=400, n_groups=12, labels_per_group=8, n_tail=10, random_state=0
    )
    assert data.n_labels > 100
    at = _app("label_clusters.py", data).run()
    _assert_clean(at, "106 labels")
    charts = at.get("plotly_chart")
    assert len(charts) == 4  # group summary, drill-down, spectrum, co-assignment (no sweep)
    drill = at.selectbox(key="clusters_drill_group")
    drill.set_value(1).run()
    _assert_clean(at, "drill-down")
    at.button(key="clusters_sweep_fit").click().run()
    _assert_clean(at, "sweep on request")
    assert len(at.get("plotly_chart")) == 5


@pytest.mark.parametrize("n_groups", [4, 51])
def test_the_stability_column_is_there_only_when_it_was_measured(n_groups):
    # up to 400 labels the page regroups bootstrap samples at K (the stability column and the
    # stability rule of the verdicts); above, the column would be empty cells: it is left out
    # and the caption says so, with the numbers
    data, _ = make_planted(
        n_samples=400,
        n_groups=n_groups,
        labels_per_group=8,
        n_tail=10,
        n_features=60,
        random_state=0,
    )
    at = _app("label_clusters.py", data).run()
    _assert_clean(at, f"{data.n_labels} labels")
    shown = next(d for d in at.dataframe if "verdict" in d.value.columns).proto.column_order
    caption = next(c.value for c in at.caption if c.value.startswith("One row per group"))
    measured = data.n_labels <= 400
    assert ("stability" in shown) == measured, list(shown)
    assert ("across 10 bootstrap samples" in caption) == measured, caption
    assert ("stability below 60%" in caption) == measured, caption
    if not measured:
        assert (
            f"stability is not measured with more than 400 labels ({data.n_labels} here)" in caption
        ), caption


@pytest.mark.parametrize("source", ["sample:planted", "mulan:medical"])
def test_grople_page_every_affinity(source):
    at = _app("grople.py", _load(source))
    at.session_state["grople_d"] = 20
    at.run()
    _assert_clean(at, source)
    for affinity in AFFINITIES:
        at.selectbox(key="groups_affinity").set_value(affinity).run()
        at.button(key="grople_fit").click().run()
        _assert_clean(at, f"GroPLE {source} {affinity}")
        assert any(affinity in c.value for c in at.caption), "the caption names the affinity"
        groups_table = _group_table(at)
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


def test_sweep_on_medical_heat_says_no_k_beats_the_null():
    at = _app("label_clusters.py", _load("mulan:medical")).run()
    at.button(key="clusters_sweep_fit").click().run()
    _assert_clean(at, "medical heat sweep")
    assert any("No K is clearly more stable than on shuffled labels" in w.value for w in at.warning)
    assert _metric(at, "Suggested K") == "none"
    assert any(w.value.startswith("**No clear group structure") for w in at.warning)
    at.selectbox(key="groups_affinity").set_value("cooccurrence").run()
    at.button(key="clusters_sweep_fit").click().run()
    _assert_clean(at, "medical co-occurrence sweep")
    assert not any("No K is clearly more stable" in w.value for w in at.warning)


def test_group_tables_are_tall_enough_for_every_row_and_the_scroll_bar(monkeypatch):
    """Issue 31: the last row of the group tables hid behind the table's own horizontal scroll
    bar (Streamlit's "auto" height leaves no room for it)."""
    from pages._app import tables

    asked = []
    original = tables.fitted_table

    def recording(table, **kwargs):
        if "verdict" in getattr(table, "columns", []):
            asked.append((len(table), kwargs.get("row_height"), kwargs.get("height")))
        return original(table, **kwargs)

    monkeypatch.setattr(tables, "fitted_table", recording)
    at = _app("label_clusters.py", _load("mulan:medical"))
    at.run()
    _assert_clean(at, "medical")
    assert asked, "the group table was not drawn"
    for n_rows, row_px, height in asked:
        row_px = row_px or tables.ROW_PX
        shown = min(n_rows, tables.MAX_SHOWN_ROWS)
        assert height >= tables.HEADER_PX + shown * row_px + tables.SCROLLBAR_PX
    assert tables.table_height(3) == 35 + 3 * 35 + 20 + 2
    assert tables.table_height(50) == tables.table_height(10)


def test_a_rerun_of_label_clusters_hashes_no_label_matrix(monkeypatch):
    """The occurring labels are a cached result, keyed by origin: a fresh ``Y[:, occurring]``
    on every run was hashed (16 MB at delicious's shape) for the suggested K's cache key on
    every rerun and every move of the K slider."""
    from pages._app import fitting

    ds, _ = make_planted(n_samples=400, random_state=3)
    at = _app("label_clusters.py", ds).run()
    _assert_clean(at, "first run")
    hashed: list[tuple[int, ...]] = []
    original = fitting._array_key

    def recording(a):
        hashed.append(np.shape(a))
        return original(a)

    monkeypatch.setattr(fitting, "_array_key", recording)
    at.run()
    _assert_clean(at, "rerun")
    at.slider(key="groups_k").set_value(3).run()
    _assert_clean(at, "K = 3")
    assert ds.Y.shape not in hashed and (ds.n_samples, ds.n_labels - 1) not in hashed
    assert all(len(shape) < 2 or shape[0] < ds.n_samples for shape in hashed), hashed


def test_a_move_of_k_counts_no_label_pairs(monkeypatch):
    """The pairs' counts Yᵀ Y do not depend on K: the page counts them once per data set and
    every K's group diagnostics read them (they were counted again on every move)."""
    import mlviz.label_clustering as label_clustering
    from mlviz import stats

    ds, _ = make_planted(n_samples=400, random_state=3)
    at = _app("label_clusters.py", ds).run()
    _assert_clean(at, "first run")
    counted: list[str] = []
    for module, name in ((label_clustering, "_label_counts"), (stats, "cooccurrence")):
        original = getattr(module, name)

        def recording(*args, _original=original, _name=name, **kwargs):
            if kwargs.get("weights") is None and len(args) < 2:  # not a bootstrap resample
                counted.append(_name)
            return _original(*args, **kwargs)

        monkeypatch.setattr(module, name, recording)
    at.slider(key="groups_k").set_value(3).run()
    _assert_clean(at, "K = 3")
    assert "Group diagnostics" not in str(at.error)
    assert counted == [], counted

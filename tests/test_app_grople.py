"""GroPLE page: the latent dimension it opens with and says so (issue 14), and the V^k caption
states what the fitted model shown does, on any data set (issue 15).

Above 200 labels the page opens at the paper's d = 100 instead of about half the labels,
states it under the slider, and keeps half the labels within the slider's reach; up to 200
labels it opens at about half the labels, as before. The page is run as its own script with
the data set the router would have put in the session (see tests/test_app.py).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from sklearn.model_selection import train_test_split
from streamlit.testing.v1 import AppTest

from mlviz import datasets
from mlviz.figures.grople import round_up
from mlviz.grople import GroPLE, lambda1_max
from mlviz.io import Dataset
from mlviz.metrics import METRICS
from mlviz.reproduce import GroPLEFigure1
from mlviz.synthetic import make_long_tailed

REPO = Path(__file__).resolve().parents[1]


def _page(n_labels: int) -> AppTest:
    dataset = make_long_tailed(
        n_samples=300, n_features=40, n_labels=n_labels, cardinality=4.0, random_state=0
    )
    at = AppTest.from_file(str(REPO / "pages" / "grople.py"), default_timeout=300)
    at.session_state["dataset"] = dataset
    at.session_state["dataset_label"] = "long-tailed (test)"
    return at.run()


@pytest.mark.parametrize("n_labels", [60, 201, 260])
def test_opening_latent_dimension_and_its_caption(n_labels):
    at = _page(n_labels)
    assert not at.exception, [e.message for e in at.exception]
    assert not [e.value for e in at.error]
    slider = at.slider(key="grople_d")
    half = (n_labels + 1) // 2
    captions = " ".join(c.value for c in at.caption)
    if half <= 100:
        assert slider.value == half
        assert "the paper's value" not in captions
    else:
        assert slider.value == 100
        assert f"about half the {n_labels} labels ({half})" in captions
        assert slider.max >= half  # the larger fit stays one press away
    assert slider.min <= slider.value <= slider.max


def _open(source: str, params: dict | None = None) -> AppTest:
    at = AppTest.from_file(str(REPO / "pages" / "grople.py"), default_timeout=180)
    at.session_state["dataset"] = datasets.load_source(source)
    at.session_state["dataset_label"] = source
    for name, value in (params or {}).items():
        at.query_params[name] = value
    return at.run()


def _fitted_model(at: AppTest) -> GroPLE:
    """The GroPLE the page shows: the page's last good fit (pages/_app/fitting.py)."""
    shown = [v for _, v in at.session_state["_fit_last_good"].values() if isinstance(v, GroPLE)]
    assert shown, "no fitted GroPLE in the session"
    return shown[-1]


def _vk_caption(at: AppTest) -> str:
    return next(c.value for c in at.caption if "paper Figure 1" in c.value)


@pytest.mark.parametrize("lambda2", ["1.0", "10.0"])
def test_vk_caption_counts_the_rows_of_the_model_shown(lambda2):
    at = _open("sample:planted", {"grople_d": "22", "grople_lambda2": lambda2})
    assert not at.exception and not at.error
    model = _fitted_model(at)
    support = model.row_support_
    users = support.sum(axis=0)
    per_group = support.sum(axis=1)
    caption = _vk_caption(at)
    fewest, most = per_group.min(), per_group.max()
    used_range = f"{fewest}" if fewest == most else f"{fewest}–{most}"
    assert (
        f"use {used_range} rows each; {(users > 1).sum()} "
        f"{'row is' if (users > 1).sum() == 1 else 'rows are'} used by two or more groups, "
        f"{(users == 1).sum()} by one group only" in caption
    ), caption
    assert ((users == 0).sum() == 0) == ("by none" not in caption)
    own = int((support & (users == 1)[None, :]).any(axis=1).sum())
    patterns = len({row.tobytes() for row in support})
    if own:
        assert re.search(
            rf"{own} of the {support.shape[0]} groups (has rows of its|have rows of their) own "
            rf"\({patterns} ",
            caption,
        )
    else:
        assert "No group has a row of its own" in caption
    # the λ2 sentence states the bound of this fit, not a promise ("raise λ2 to ...")
    assert f"λ2 = {float(lambda2):g} is below λ2_max = {model.lambda2_max_:.3g}" in caption
    assert "Raise λ2" not in caption


def test_opening_settings_show_group_specific_rows_on_the_planted_sample():
    # measured on the planted sample at the opening d = 11, the eigengap's K = 5 and the
    # page's λ1 = 1, λ2 = 10: 2-5 rows per group, five different row sets, three groups with
    # rows of their own, micro-F1 0.770 against binary relevance's 0.753 (docs/GROPLE.md)
    at = _open("sample:planted")
    assert not at.exception and not at.error
    assert at.slider(key="grople_d").value <= at.session_state["dataset"].n_labels
    assert at.select_slider(key="grople_lambda1").value == 1.0
    assert at.select_slider(key="grople_lambda2").value == 10.0
    model = _fitted_model(at)
    support = model.row_support_
    assert len({row.tobytes() for row in support}) >= 2
    assert np.all(support.sum(axis=1) >= 1) and np.all(support.sum(axis=1) < support.shape[1])
    users = support.sum(axis=0)
    assert (support & (users == 1)[None, :]).any(axis=1).sum() >= 2
    table = next(d.value for d in at.dataframe if "BR" in d.value.index)
    label = f"{METRICS['micro_f1'].label} {METRICS['micro_f1'].arrow}"
    assert table.loc["GroPLE", label] >= table.loc["BR", label] - 0.02


def test_lambda2_slider_ends_at_the_bound_of_the_data():
    # issue 31: the slider spans the whole range where the model changes, its last value the
    # bound rounded up (V = 0 there), not the grid's next value (100) nor a value below it
    at = _open("sample:planted")
    model = _fitted_model(at)
    options = [float(v) for v in at.select_slider(key="grople_lambda2").options]
    assert max(options[:-1]) < model.lambda2_max_ <= options[-1] == round_up(model.lambda2_max_)
    assert 100.0 not in options  # on the page's grid, the first value at/above λ2_max (67.9)
    captions = " ".join(c.value for c in at.caption)
    assert f"λ2 ≥ {model.lambda2_max_:.3g} makes every V^k zero" in captions
    assert f"the slider ends at {options[-1]:g}, the first of its values where V is zero" in (
        captions
    )


@pytest.mark.parametrize("lambda2", ["1.0", "10.0"])
def test_lambda1_slider_spans_up_to_the_bound_at_the_chosen_lambda2(lambda2):
    # planted sample, the page's default random split (30 % test, seed 0): λ1_max is ~1e4 at
    # λ2 = 1 and ~1e3 at λ2 = 10, both beyond the former fixed grid's end (100)
    at = _open("sample:planted", {"grople_lambda2": lambda2})
    assert not at.exception
    model = _fitted_model(at)
    dataset = at.session_state["dataset"]
    train, _ = train_test_split(np.arange(dataset.n_samples), test_size=0.3, random_state=0)
    bound = lambda1_max(
        dataset.Y[train], model.groups_, model.n_components, float(lambda2), random_state=0
    )
    options = [float(v) for v in at.select_slider(key="grople_lambda1").options]
    # the grid continued (1, 3, 10, … per decade) up to the bound, then the bound rounded up
    assert max(options[:-1]) < bound <= options[-1] == round_up(bound)
    assert bound <= 3.4 * max(options[:-1])
    captions = " ".join(c.value for c in at.caption)
    assert f"λ1 above {bound:.3g} makes every V^k zero at λ2 = {float(lambda2):g}" in captions
    above = GroPLE(**{**model.get_params(), "lambda1": 1.01 * bound, "groups": model.groups_})
    assert not above.fit(dataset.X[train], dataset.Y[train]).V_.any()


def test_lambda1_slider_at_lambda2_zero_keeps_its_grid_and_says_why():
    at = _open("sample:planted", {"grople_lambda2": "0.0"})
    assert not at.exception
    options = [float(v) for v in at.select_slider(key="grople_lambda1").options]
    assert max(options) == 100.0
    assert any("At λ2 = 0 no λ1 makes V zero" in c.value for c in at.caption)


def _noise_labels(n_labels: int = 4, seed: int = 0) -> Dataset:
    """50 instances whose labels are coin flips independent of the 3 features."""
    rng = np.random.default_rng(seed)
    Y = (rng.random((50, n_labels)) < 0.4).astype(np.uint8)
    Y[:5] = 1
    return Dataset(
        name=f"noise{n_labels}",
        X=rng.standard_normal((50, 3)),
        Y=Y,
        feature_names=("f1", "f2", "f3"),
        label_names=tuple(f"L{j}" for j in range(n_labels)),
    )


def _open_dataset(dataset: Dataset, params: dict | None = None) -> AppTest:
    at = AppTest.from_file(str(REPO / "pages" / "grople.py"), default_timeout=180)
    at.session_state["dataset"] = dataset
    at.session_state["dataset_label"] = dataset.name
    for name, value in (params or {}).items():
        at.query_params[name] = value
    return at.run()


def test_lambda1_that_would_zero_v_is_not_offered_and_the_fit_shown_is_not_zero():
    # noise labels: λ2 = 10 is on the slider (λ2_max = 13.3 here). At the page's former λ1 = 1
    # Eq. (4) ended at V = 0 (its local minimiser for every λ2 > 0); λ1 = 1 is above λ1_max
    # at λ2 = 10 on this split, so the λ1 slider now stops below it and the link's λ1 = 1 is
    # ignored with a note
    dataset = _noise_labels()
    at = _open_dataset(dataset, {"grople_lambda2": "10.0", "grople_lambda1": "1.0"})
    assert not at.exception
    assert at.select_slider(key="grople_lambda2").value == 10.0
    model = _fitted_model(at)
    train, _ = train_test_split(np.arange(dataset.n_samples), test_size=0.3, random_state=0)
    X, Y = dataset.X[train], dataset.Y[train]
    bound = lambda1_max(Y, model.groups_, model.n_components, 10.0, random_state=0)
    options = [float(v) for v in at.select_slider(key="grople_lambda1").options]
    assert max(options[:-1]) < bound <= options[-1] < 1.0  # the last option: V = 0 there
    assert any("`grople_lambda1` = 1" in w.value and "ignored" in w.value for w in at.warning)
    # the excluded value would have been the all-zero fit, which is an error-level message
    zero = GroPLE(**{**model.get_params(), "lambda1": 1.0, "groups": model.groups_}).fit(X, Y)
    assert not zero.V_.any() and "V is all zero" in zero.degenerate_
    assert model.V_.any() and model.lambda1 == max(options[:-1])  # opens below the bound
    errors = [e.value for e in at.error]
    assert all(model.degenerate_ in e for e in errors) if model.degenerate_ else not errors


def test_a_fit_that_predicts_nothing_is_an_error_with_cause_and_fix():
    # λ1 = 100 with λ2 = 10 (both on the sliders, below λ2_max) on the planted sample: one
    # row per group is left and every score stays negative (λ1^(1/3) λ2^(2/3) ~ 21)
    at = _open("sample:planted", {"grople_lambda1": "100.0", "grople_lambda2": "10.0"})
    assert not at.exception
    model = _fitted_model(at)
    assert model.V_.any() and "predicts no label" in model.degenerate_
    errors = [e.value for e in at.error]
    assert any("degenerate" in e and model.degenerate_ in e for e in errors), errors
    assert not at.get("plotly_chart")


def test_figure1_button_is_disabled_with_its_reason_below_five_labels():
    at = _page(4)
    assert not at.exception
    button = at.button(key="grople_figure1")
    assert button.disabled
    assert "at least 5 labels" in button.help
    assert any("at least 5 labels" in c.value for c in at.caption)


@pytest.mark.slow
def test_figure1_button_sets_k5_and_the_cross_validated_lambdas():
    at = _open("sample:planted")
    at.button(key="grople_figure1").click().run()
    assert not at.exception and not at.error
    (figure1,) = [
        v for _, v in at.session_state["_fit_last_good"].values() if isinstance(v, GroPLEFigure1)
    ]
    table = figure1.search.table
    best = table.loc[table["mean"].idxmax()]
    assert (figure1.lambda1, figure1.lambda2) == (best["lambda1"], best["lambda2"])
    # the page now shows K = 5 at the chosen λs, fitted without a second press
    assert at.slider(key="groups_k").value == 5
    assert at.select_slider(key="grople_lambda1").value == figure1.lambda1
    assert at.select_slider(key="grople_lambda2").value == figure1.lambda2
    model = _fitted_model(at)
    assert model.n_groups_ == 5
    assert (model.lambda1, model.lambda2) == (figure1.lambda1, figure1.lambda2)
    assert model.U_.shape[0] == figure1.model.U_.shape[0]  # the same training split
    np.testing.assert_array_equal(model.row_support_, figure1.model.row_support_)
    caption = next(c.value for c in at.caption if "chose λ1" in c.value)
    assert ", ".join(map(str, figure1.rows_used)) in caption


def test_group_table_fits_the_page_without_an_unmeasured_stability_column():
    """With its verdict and stability columns the group table was 855 px of columns in an
    818 px main area at 1280 × 720: now the view fits, and the stability the page does not
    measure (no bootstrap here, NaN in every row) is left out of the view and said so."""
    import json

    from pages._app.tables import MAIN_AREA_PX

    at = _open("sample:planted")
    assert not at.exception and not at.error
    groups = next(d for d in at.dataframe if "latent rows used" in d.value.columns)
    assert groups.value["stability"].isna().all()  # the frame keeps the column
    order = list(groups.proto.column_order)
    assert "stability" not in order and {"latent rows used", "verdict", "labels"} <= set(order)
    config = json.loads(groups.proto.columns)
    assert sum(config[c]["width"] for c in order) <= MAIN_AREA_PX
    captions = " ".join(c.value for c in at.caption)
    assert "stability under resampling is not measured here" in captions


def test_presentation_mode_folds_the_slider_notes_into_one_expander():
    """While presenting the λ1/λ2 range notes move from under the sliders into "Slider
    ranges" below the controls (the first figure then starts on the first screen); outside
    presentation mode they stay under the sliders, with the same text."""
    plain = _open("sample:planted")
    notes = [c.value for c in plain.caption if "makes every V^k zero" in c.value]
    assert len(notes) == 2 and not [e for e in plain.expander if e.label == "Slider ranges"]
    at = AppTest.from_file(str(REPO / "pages" / "grople.py"), default_timeout=180)
    at.session_state["dataset"] = datasets.load_source("sample:planted")
    at.session_state["dataset_label"] = "sample:planted"
    at.session_state["_presenting"] = True
    at.run()
    assert not at.exception and not at.error
    (expander,) = [e for e in at.expander if e.label == "Slider ranges"]
    assert sorted(c.value for c in expander.caption) == sorted(notes)


@pytest.mark.parametrize("source", ["sample:planted", "mulan:medical"])
def test_the_page_says_beside_the_figure_whether_grople_beats_binary_relevance(source):
    """Issue 31: GroPLE at its defaults scored below BR on bibtex and nothing on the page said
    so. The page compares the two on the test split it shows, right under V^k, with the
    numbers, and warns when GroPLE is below on any of the four scores."""
    from conftest import mulan_path

    from mlviz.figures.grople import VERSUS_METRICS

    if source.startswith("mulan:"):
        mulan_path("medical.arff")
    at = _open(source)
    assert not at.exception, [e.message for e in at.exception]
    metrics = next(
        d.value for d in at.dataframe if "GroPLE" in d.value.index and "BR" in d.value.index
    )
    labels = {m: f"{METRICS[m].label} {METRICS[m].arrow}" for m in VERSUS_METRICS}
    below = [
        m for m in VERSUS_METRICS if metrics.loc["GroPLE", labels[m]] < metrics.loc["BR", labels[m]]
    ]
    warned = [w.value for w in at.warning if w.value.startswith("At these settings GroPLE")]
    said = [c.value for c in at.caption if "GroPLE is at or above binary relevance" in c.value]
    if below:
        assert len(warned) == 1 and not said
        named = ", ".join(METRICS[m].label for m in below)
        assert f"on {len(below)} of {len(VERSUS_METRICS)} scores ({named})" in warned[0]
        for m in below:
            g, b = metrics.loc["GroPLE", labels[m]], metrics.loc["BR", labels[m]]
            assert f"{METRICS[m].label} {g:.3f} vs {b:.3f}" in warned[0]
    else:
        assert len(said) == 1 and not warned


def test_the_objective_caption_names_the_solver_the_fit_used():
    """Eq. 4's history mixes Algorithm 1's iterations and variable projection's steps
    (issue 33): the caption under the objective says which solver drew it (and which step
    Eq. 5's APG took), and the history it draws never increases."""
    at = _open("sample:planted")
    assert not at.exception and not at.error
    model = _fitted_model(at)
    assert model.solver == "varpro"
    caption = next(c.value for c in at.caption if c.value.startswith("Objective of Eq. 4"))
    assert "variable projection" in caption and "outer iteration" not in caption
    # and how Eq. 5 was solved: the default diagonal step, not LLSF's single step
    assert model.feature_step == "diagonal"
    assert "a step per entry of Z" in caption and "LLSF's one step for every" not in caption
    assert np.all(np.diff(model.objective_history_) <= 1e-9 * abs(model.objective_history_[0]))


@pytest.mark.parametrize(
    "params", [{}, {"grople_d": "8", "groups_affinity": "cooccurrence", "groups_k": "3"}]
)
def test_the_fit_shown_is_the_model_that_runs_stage_1_itself(params):
    # the page hands the fit the groups its λ bounds already computed (stage 1 ran twice at
    # every first view): the model shown must be the one GroPLE fits from K and the affinity
    at = _open("sample:planted", params)
    assert not at.exception and not at.error
    model = _fitted_model(at)
    assert model.groups is not None  # the page's groups were passed, stage 1 not rerun
    if params:
        assert (model.label_affinity, model.n_groups, model.n_components) == ("cooccurrence", 3, 8)
    dataset = at.session_state["dataset"]
    train, _ = train_test_split(np.arange(dataset.n_samples), test_size=0.3, random_state=0)
    own = GroPLE(**{**model.get_params(), "groups": None})
    own.fit(dataset.X[train], dataset.Y[train])
    np.testing.assert_array_equal(model.groups_, own.groups_)
    np.testing.assert_array_equal(model.U_, own.U_)
    np.testing.assert_array_equal(model.V_, own.V_)
    np.testing.assert_array_equal(model.Z_, own.Z_)


def test_the_group_table_caption_counts_the_groups_that_never_co_occur():
    """The caption under "The label groups GroPLE used" counts, from the table it captions,
    the groups whose labels never appear together, with the verb in the right number (it
    wrote "1 group(s) hold" on medical)."""
    from conftest import mulan_path

    from mlviz.wording import counted

    mulan_path("medical.arff")
    at = _open("mulan:medical")
    assert not at.exception, [e.message for e in at.exception]
    table = next(d.value for d in at.dataframe if {"verdict", "labels"} <= set(d.value.columns))
    never = int((table["verdict"] == "never co-occur").sum())
    assert never >= 1  # medical at the page's defaults: the case the sentence is about
    (caption,) = [c.value for c in at.caption if c.value.startswith("Stage 1 grouped")]
    verb = counted(never, "group holds", plural="groups hold")
    assert f"{verb} labels that never appear together" in caption, caption
    assert "(s)" not in caption

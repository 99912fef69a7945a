"""App tests of the Lesson page: every step, every "try this" button, odd data sets.

The page runs as its own script with the data set the router would have put in the session
(see tests/test_app.py for why). The "what to notice" texts are checked against numbers
computed here independently, so a text that stops matching its figure fails.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from conftest import mulan_path
from streamlit.testing.v1 import AppTest

from mlviz import datasets
from mlviz.io import Dataset
from mlviz.linear import PLST
from mlviz.mlknn import MLkNN

REPO = Path(__file__).resolve().parents[1]
TIMEOUT = 120
STEPS = ["hypercube", "plst", "groups", "grople", "clems", "mlknn", "compare"]

# step -> (widget key, its value before and after the step's "try this" button)
TRY_THIS = {
    "hypercube": ("lesson_cube_axes", False, True),
    "plst": ("lesson_plst_m", 2, 1),
    "groups": ("groups_affinity", "heat", "cooccurrence"),  # the app's shared grouping
    "grople": ("lesson_grople_lambda2", 10.0, 1.0),
    "clems": ("lesson_clems_cost", "f1", "rank_loss"),
    "mlknn": ("lesson_mlknn_k", 10, 1),
    "compare": ("lesson_compare_methods", ["PLST", "CLEMS", "ML-KNN"], None),  # after: + BR
}


def _shown(at: AppTest, cls: type):
    """The model of class ``cls`` the page shows: its last good fit (pages/_app/fitting.py)."""
    shown = [v for _, v in at.session_state["_fit_last_good"].values() if isinstance(v, cls)]
    assert shown, f"no fitted {cls.__name__} in the session"
    return shown[-1]


def _load(source: str) -> Dataset:
    if source.startswith("mulan:"):
        mulan_path(source.split(":")[1] + ".arff")
    return datasets.load_source(source)


def _app(dataset: Dataset) -> AppTest:
    at = AppTest.from_file(str(REPO / "pages" / "lesson.py"), default_timeout=TIMEOUT)
    at.session_state["dataset"] = dataset
    at.session_state["dataset_label"] = dataset.name
    return at.run()


def _assert_clean(at: AppTest, where: str) -> None:
    assert not at.exception, f"{where}: {[e.message for e in at.exception]}"
    assert not [e.value for e in at.error], f"{where}: {[e.value for e in at.error]}"


def _go(at: AppTest, step: str) -> AppTest:
    return at.radio(key="lesson_step").set_value(step).run()


def _notice(at: AppTest) -> str:
    texts = [i.value for i in at.info if i.value.startswith("**What to notice**")]
    assert len(texts) == 1, f"one 'what to notice' box expected, got {len(texts)}"
    return texts[0]


def _charts(at: AppTest) -> int:
    return len(at.get("plotly_chart"))


def _try_button(at: AppTest, step: str):
    return next(b for b in at.button if b.key == f"lesson_try_{step}")


@pytest.fixture(scope="module", params=["sample:planted", "mulan:medical"])
def dataset(request) -> Dataset:
    return _load(request.param)


@pytest.mark.parametrize("step", STEPS)
def test_every_step_and_its_try_this_button(dataset, step):
    at = _go(_app(dataset), step)
    where = f"{dataset.name} {step}"
    _assert_clean(at, where)
    assert _charts(at) == 1, f"{where}: one figure per step"
    _notice(at)
    key, before, after = TRY_THIS[step]
    assert at.session_state[key] == before, f"{where}: default of {key}"
    button = _try_button(at, step)
    assert not button.disabled, f"{where}: the try-this button is disabled at the defaults"
    if step == "compare":
        after = ["BR", *before]
    button.click().run()
    _assert_clean(at, f"{where} after try this")
    assert at.session_state[key] == after, f"{where}: {key} did not change to {after!r}"
    assert _charts(at) == 1
    _notice(at)
    assert _try_button(at, step).disabled, f"{where}: pressing it again would change nothing"


def test_notices_state_what_the_data_shows():
    ds = _load("sample:planted")
    at = _app(ds)
    n_sets = len(np.unique(ds.Y, axis=0))
    assert f"**{n_sets}** of the $2^{{{ds.n_labels}}}$ = {2**ds.n_labels:,}" in _notice(at)
    # the planted sample's notes are said only on the planted sample
    assert "planted sample" in at.caption[0].value

    _go(at, "plst")
    model = _shown(at, PLST)  # the fitted model
    sigma = np.sort(model.singular_values_)[::-1]
    share = (sigma[:2] ** 2).sum() / (sigma**2).sum()
    assert f"retains **{share:.0%}**" in _notice(at)


def test_medical_has_no_planted_notes_and_names_never_predicted_labels():
    at = _app(_load("mulan:medical"))
    assert "planted" not in at.caption[0].value
    _go(at, "groups")
    assert "Planted sample" not in _notice(at)
    _go(at, "mlknn")
    model = _shown(at, MLkNN)
    assert model.k_ == 10
    match = re.search(r"never predicts \*\*(\d+)\*\* of 45 labels", _notice(at))
    assert match, _notice(at)


def test_navigation_buttons_and_settings_carry_over():
    at = _app(_load("sample:planted"))
    assert at.session_state["lesson_step"] == "hypercube"
    at.button(key="lesson_next").click().run()
    assert at.session_state["lesson_step"] == "plst"
    at.slider(key="lesson_plst_m").set_value(3).run()
    _go(at, "compare")
    _assert_clean(at, "compare after changing M")
    assert "PLST (M = 3)" in _notice(at), "the comparison must use step 2's M"
    at.button(key="lesson_previous").click().run()
    assert at.session_state["lesson_step"] == "mlknn"
    _go(at, "plst")
    assert at.slider(key="lesson_plst_m").value == 3, "the step's widget kept its value"


def _small(n_samples: int, n_labels: int, seed: int = 0) -> Dataset:
    rng = np.random.default_rng(seed)
    Y = (rng.random((n_samples, n_labels)) < 0.5).astype(np.uint8)
    return Dataset(
        name=f"small{n_samples}x{n_labels}",
        X=rng.standard_normal((n_samples, 3)),
        Y=Y,
        feature_names=("f1", "f2", "f3"),
        label_names=tuple(f"L{j}" for j in range(n_labels)),
    )


def _one_labelset(n_samples: int = 30) -> Dataset:
    return Dataset(
        name="one_labelset",
        X=np.random.default_rng(0).standard_normal((n_samples, 2)),
        Y=np.tile(np.array([1, 0, 1], dtype=np.uint8), (n_samples, 1)),
        feature_names=("f1", "f2"),
        label_names=("a", "b", "c"),
    )


@pytest.mark.parametrize(
    "dataset",
    [_small(40, 2), _small(3, 4), _small(40, 1), _one_labelset()],
    ids=["two labels", "three rows", "one label", "one label set"],
)
def test_every_step_on_degenerate_data(dataset):
    at = _app(dataset)
    for step in STEPS:
        _go(at, step)
        _assert_clean(at, f"{dataset.name} {step}")
        # a step draws its figure or says in words why it cannot
        assert _charts(at) == 1 or at.warning, f"{dataset.name} {step}: no figure, no reason"
        for slider in at.slider:
            assert slider.min < slider.max, f"{dataset.name} {step}: empty slider {slider.key}"
        button = [b for b in at.button if b.key == f"lesson_try_{step}"]
        if button and not button[0].disabled:
            button[0].click().run()
            _assert_clean(at, f"{dataset.name} {step} after try this")


def test_groups_step_explains_why_it_has_no_figure_below_three_labels():
    at = _go(_app(_small(40, 2)), "groups")
    assert _charts(at) == 0
    assert "fewer than 3 labels" in at.warning[0].value


def test_another_data_set_starts_every_step_from_its_defaults():
    at = _go(_app(_load("sample:planted")), "grople")
    assert at.slider(key="lesson_grople_d").value == 22  # d = L
    at.select_slider(key="lesson_grople_lambda2").set_value(1.0).run()
    medical = _load("mulan:medical")
    at.session_state["dataset"] = medical
    at.run()
    _assert_clean(at, "medical after planted")
    assert at.slider(key="lesson_grople_d").value == medical.n_labels
    assert at.select_slider(key="lesson_grople_lambda2").value == 10.0


def test_grople_step_says_a_degenerate_fit_is_one_and_bounds_its_slider():
    from tests.test_app_grople import _noise_labels

    data = _noise_labels(6)  # coin-flip labels, 50 instances
    at = AppTest.from_file(str(REPO / "pages" / "lesson.py"), default_timeout=TIMEOUT)
    at.session_state["dataset"] = data
    at.session_state["dataset_label"] = data.name
    at.query_params["lesson_step"] = "4 · GroPLE"
    at.query_params["lesson_grople_lambda2"] = "10.0"
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    slider = at.select_slider(key="lesson_grople_lambda2")
    assert slider.value == 10.0
    bound = float(re.search(r"From λ2 = ([0-9.]+) on", " ".join(c.value for c in at.caption))[1])
    assert max(float(v) for v in slider.options) < bound <= 30.0  # 30 is cut off
    errors = [e.value for e in at.error]
    assert any("degenerate" in e and "predicts no label" in e for e in errors), errors
    assert _charts(at) == 0  # no V^k view of a model that predicts nothing


def test_grople_step_states_lambda1_max_of_its_fixed_lambda1():
    # step 4 fits λ1 = 1 (no λ1 slider): its caption gives λ1_max at the chosen λ2, the λ1
    # above which the fit's second V step is zero, computed on the training split
    from sklearn.model_selection import train_test_split

    from mlviz.grople import GroPLE, lambda1_max

    at = _go(_app(_load("sample:planted")), "grople")
    _assert_clean(at, "GroPLE step")
    model = [v for _, v in at.session_state["_fit_last_good"].values() if isinstance(v, GroPLE)][-1]
    data = at.session_state["dataset"]
    train, _ = train_test_split(np.arange(data.n_samples), test_size=0.3, random_state=0)
    bound = lambda1_max(
        data.Y[train], model.groups_, model.n_components, model.lambda2, random_state=0
    )
    assert model.lambda1 < bound < np.inf
    captions = " ".join(c.value for c in at.caption)
    assert f"At λ2 = {model.lambda2:g} every V^k would also be zero for λ1 above {bound:.3g}" in (
        captions
    )


def test_grople_step_leaves_out_a_lambda2_at_which_its_lambda1_zeroes_v():
    # coin-flip labels (6, seed 1): λ2_max = 10.2, so λ2 = 10 would pass the λ2 bound, but at
    # λ2 = 10 the step's λ1 = 1 is above λ1_max: the second V step, and the fit, is zero
    from sklearn.model_selection import train_test_split

    from mlviz.grople import GroPLE, lambda1_max, lambda2_max
    from tests.test_app_grople import _noise_labels

    data = _noise_labels(6, seed=1)
    at = AppTest.from_file(str(REPO / "pages" / "lesson.py"), default_timeout=TIMEOUT)
    at.session_state["dataset"] = data
    at.session_state["dataset_label"] = data.name
    at.query_params["lesson_step"] = "4 · GroPLE"
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    model = [v for _, v in at.session_state["_fit_last_good"].values() if isinstance(v, GroPLE)][-1]
    train, _ = train_test_split(np.arange(data.n_samples), test_size=0.3, random_state=0)
    Y = data.Y[train]
    assert 10.0 < lambda2_max(Y, model.groups_, model.n_components, random_state=0)
    bound = lambda1_max(Y, model.groups_, model.n_components, 10.0, random_state=0)
    assert bound <= model.lambda1
    options = [float(v) for v in at.select_slider(key="lesson_grople_lambda2").options]
    assert 10.0 not in options and 1.0 in options
    captions = " ".join(c.value for c in at.caption)
    assert f"λ2 = 10 is left out too: λ1 = 1 is above its λ1_max = {bound:.3g}" in captions
    at_ten = GroPLE(**{**model.get_params(), "lambda2": 10.0, "groups": model.groups_})
    assert not at_ten.fit(data.X[train], Y).V_.any()


def test_the_lesson_reuses_a_pages_fit_with_the_same_settings():
    """Issue 21: fits are cached by what they are, so the Lesson's PLST at M = L is the PLST
    page's own fit (one object, fitted once), not a refit under a name of the Lesson's."""
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=TIMEOUT).run()
    L = at.session_state["dataset"].n_labels
    at.switch_page("pages/plst.py").run()
    _assert_clean(at, "PLST page")
    at.session_state["lesson_step"] = "plst"
    at.session_state["lesson_plst_m"] = L
    at.switch_page("pages/lesson.py").run()
    _assert_clean(at, "Lesson step 2 at M = L")
    shown = [
        v
        for _, v in at.session_state["_fit_last_good"].values()
        if isinstance(v, PLST) and v.n_components == L
    ]
    assert len(shown) == 2, "the PLST page's slot and the Lesson's slot"
    assert shown[0] is shown[1], "the Lesson must get the PLST page's fit from the cache"

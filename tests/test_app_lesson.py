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
from mlviz.methods import METHODS
from mlviz.mlknn import MLkNN

REPO = Path(__file__).resolve().parents[1]
TIMEOUT = 120
STEPS = ["hypercube", "plst", "groups", "grople", "clems", "mlknn", "compare"]

# step -> (widget key, its value before and after the step's "try this" button)
TRY_THIS = {
    "hypercube": ("lesson_cube_axes", False, True),
    "plst": ("lesson_plst_m", "registry", 1),  # the registry's M on the data (about L / 2)
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
    if before == "registry":
        before = METHODS["PLST"].default_settings(dataset.n_labels)["M"]
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
    share = (sigma[: model.n_components_] ** 2).sum() / (sigma**2).sum()
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
    assert at.slider(key="lesson_grople_d").value == 11  # the registry's d: about L / 2
    at.select_slider(key="lesson_grople_lambda2").set_value(1.0).run()
    medical = _load("mulan:medical")
    at.session_state["dataset"] = medical
    at.run()
    _assert_clean(at, "medical after planted")
    assert at.slider(key="lesson_grople_d").value == 23  # 45 labels
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
    options = [float(v) for v in slider.options]
    assert max(options[:-1]) < bound <= options[-1] < 30.0  # ends at the bound, 30 cut off
    errors = [e.value for e in at.error]
    assert any("degenerate" in e and "predicts no label" in e for e in errors), errors
    assert _charts(at) == 0  # no V^k view of a model that predicts nothing


def test_grople_step_lambda1_slider_ends_at_lambda1_max():
    # step 4's λ1 slider (issue 31; λ1 was fixed at 1 before) spans the range where the fit
    # changes at the chosen λ2: its last option is λ1_max rounded up, computed on the training
    # split, and the step opens at the registry's λ1 below it
    from sklearn.model_selection import train_test_split

    from mlviz.figures.grople import round_up
    from mlviz.grople import GroPLE, lambda1_max

    at = _go(_app(_load("sample:planted")), "grople")
    _assert_clean(at, "GroPLE step")
    model = [v for _, v in at.session_state["_fit_last_good"].values() if isinstance(v, GroPLE)][-1]
    data = at.session_state["dataset"]
    train, _ = train_test_split(np.arange(data.n_samples), test_size=0.3, random_state=0)
    bound = lambda1_max(
        data.Y[train], model.groups_, model.n_components, model.lambda2, random_state=0
    )
    options = [float(v) for v in at.select_slider(key="lesson_grople_lambda1").options]
    assert max(options[:-1]) < bound <= options[-1] == round_up(bound)
    assert model.lambda1 == METHODS["GroPLE"].presets["teaching"].settings["lambda1"] < bound
    captions = " ".join(c.value for c in at.caption)
    assert f"λ1 above {bound:.3g} makes every V^k zero at λ2 = {model.lambda2:g}" in captions


def test_grople_step_opens_lambda1_below_its_bound_where_the_preset_is_above_it():
    # coin-flip labels (6, seed 1) at d = L = 6: λ2_max = 10.2, and at λ2 = 10 the preset's
    # λ1 = 1 is above λ1_max, where the fit's second V step is zero: the λ1 slider ends at that
    # bound and opens below it (before, the step fixed λ1 = 1 and left λ2 = 10 out)
    from sklearn.model_selection import train_test_split

    from mlviz.grople import GroPLE, lambda1_max, lambda2_max
    from tests.test_app_grople import _noise_labels

    data = _noise_labels(6, seed=1)
    at = AppTest.from_file(str(REPO / "pages" / "lesson.py"), default_timeout=TIMEOUT)
    at.session_state["dataset"] = data
    at.session_state["dataset_label"] = data.name
    at.query_params["lesson_step"] = "4 · GroPLE"
    at.query_params["lesson_grople_lambda2"] = "10.0"
    at.query_params["lesson_grople_d"] = "6"
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert at.select_slider(key="lesson_grople_lambda2").value == 10.0
    model = [v for _, v in at.session_state["_fit_last_good"].values() if isinstance(v, GroPLE)][-1]
    train, _ = train_test_split(np.arange(data.n_samples), test_size=0.3, random_state=0)
    Y = data.Y[train]
    assert 10.0 < lambda2_max(Y, model.groups_, model.n_components, random_state=0)
    bound = lambda1_max(Y, model.groups_, model.n_components, 10.0, random_state=0)
    options = [float(v) for v in at.select_slider(key="lesson_grople_lambda1").options]
    assert max(options[:-1]) < bound <= options[-1] < 1.0
    assert model.lambda2 == 10.0 and model.lambda1 == max(options[:-1]) < bound
    at_one = GroPLE(**{**model.get_params(), "lambda1": 1.0, "groups": model.groups_})
    assert not at_one.fit(data.X[train], Y).V_.any()


def test_a_second_session_draws_step_one_from_the_shared_figure(monkeypatch):
    """A class opens step 1 together: its biplot is built once for every session (issue 33,
    the rerun goal: building it per session was 15 % of a classroom's rerun samples)."""
    import functools

    from pages._app import fitting
    from pages._lesson import hypercube as step

    built = []
    original = step._projection_figure

    @functools.wraps(original)
    def counting(*args):
        built.append(args)
        return original(*args)

    monkeypatch.setattr(step, "_projection_figure", counting)
    fitting._figures.clear()
    dataset = _load("sample:planted")
    first, second = _app(dataset), _app(dataset)
    for at in (first, second):
        _assert_clean(at, "step 1")
        assert _charts(at) == 1
    assert len(built) == 1, f"the biplot was built {len(built)} times for two sessions"
    # the same figure, with the same title, in both sessions
    assert first.get("plotly_chart")[0].proto.spec == second.get("plotly_chart")[0].proto.spec


def test_step_one_never_rounds_the_most_frequent_set_to_zero_percent():
    """Seen in the browser on a generated 983-label set where every label set occurs once:
    "holds 0% of the instances" (1 of 1,500)."""
    from pages._lesson.hypercube import _share

    assert _share(1, 1_500) == "0.067%"
    assert _share(1, 3) == "33%" and _share(15, 1_500) == "1%"
    rng = np.random.default_rng(0)
    Y = np.zeros((300, 40), dtype=np.uint8)
    for i in range(300):  # 300 distinct sets: the most frequent holds 1 of 300
        Y[i, rng.choice(40, 3, replace=False)] = 1
        Y[i, i % 40] = 1
    data = Dataset(
        name="distinct",
        X=rng.standard_normal((300, 3)),
        Y=Y,
        feature_names=("a", "b", "c"),
        label_names=tuple(f"l{j}" for j in range(40)),
    )
    notice = _notice(_app(data))
    assert "holds 0% of" not in notice
    share = re.search(r"holds ([\d.]+)% of the instances", notice)
    assert share and float(share.group(1)) > 0, notice


def test_groups_step_says_why_the_default_rule_passes_over_the_eigengap():
    """tmc2007-500 under the heat kernel: the eigengap's K = 2 puts 59 % of the labels into
    one group; the default rule's next gap, K = 21, would leave 20 of 22 alone, so it takes
    K = 3. The step says which of the rule's two shares each K fails, from the partitions."""
    at = _go(_app(_load("mulan:tmc2007-500")), "groups")
    _assert_clean(at, "tmc2007-500, groups step")
    said = _notice(at)
    assert "The eigengap suggests **K = 2**" in said and "takes **K = 3**" in said, said
    assert "its groups put more than half the labels into one, so the default rule" in said
    assert "leave more than half" not in said  # K = 2 has no label alone


def test_the_groups_steps_reason_names_each_share_a_partition_fails():
    from pages._lesson.groups import _why_not_default
    from tests.test_label_groups_verdicts import _stub_spectrum

    partitions = {2: [0, 0, 0, 0, 0, 1], 3: [0, 0, 0, 1, 1, 2], 5: [0, 0, 1, 2, 3, 4]}
    spectrum = _stub_spectrum({2: 0.5, 5: 0.3, 3: 0.2}, partitions)
    assert _why_not_default(spectrum, 2, 3) == (
        "; its groups put more than half the labels into one, so the default rule takes "
        "**K = 3**, the largest gap whose groups do neither."
    )
    assert "its groups leave more than half the labels alone, so" in _why_not_default(
        spectrum, 5, 3
    )
    # the rule's fallback (no K qualifies): said as such, not as a K that does neither
    said = _why_not_default(spectrum, 2, 5)
    assert "and so do those of every other K" in said and "exceeds those shares least" in said

"""One set of defaults (issue 31 items 2 and 4): every page opens a method at the registry's
settings, states the preset it runs, and spans the range where the model changes.

For every method of :data:`mlviz.methods.METHODS`, on the planted sample, the settings Compare
fits (its record of ``settings_of``, from which ``make()`` builds each estimator), the method
page's opening settings (the fitted model's ``get_params()`` for GroPLE; the widgets for PLST
and ML-KNN, whose pages fit one model for every M / k, and for CLEMS, whose page also fits
M = L) and the Lesson's (its fitted models) are equal, or differ only in what the preset the
page runs fixes, and then the page names that preset. The range tests walk generated sets
shaped like bibtex and delicious (rows scaled down): GroPLE's λ2 slider ends at λ2_max of the
loaded data and λ1's at λ1_max, on the page and in the Lesson.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from sklearn.model_selection import train_test_split
from streamlit.testing.v1 import AppTest

from mlviz import datasets
from mlviz.clems import CLEMS
from mlviz.grople import GroPLE, lambda1_max, lambda2_max
from mlviz.label_clustering import LabelClustering
from mlviz.linear import PLST
from mlviz.methods import METHODS
from mlviz.mlknn import MLkNN
from mlviz.synthetic import LONG_TAILED_SHAPES, make_long_tailed

REPO = Path(__file__).resolve().parents[1]
TIMEOUT = 240
PLANTED = "sample:planted"


def _open(page: str, dataset, params: dict[str, Any] | None = None) -> AppTest:
    at = AppTest.from_file(str(REPO / "pages" / page), default_timeout=TIMEOUT)
    at.session_state["dataset"] = dataset
    at.session_state["dataset_label"] = dataset.name
    for key, value in (params or {}).items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def _fitted(at: AppTest, cls: type):
    shown = [v for _, v in at.session_state["_fit_last_good"].values() if isinstance(v, cls)]
    assert shown, f"no fitted {cls.__name__} in the session"
    return shown[-1]


def _captions(at: AppTest) -> str:
    return " ".join(c.value for c in at.caption)


def _params(name: str, settings: dict[str, Any]) -> dict[str, Any]:
    """The estimator parameters the registry builds from ``settings`` (objects by repr)."""
    return {k: repr(v) for k, v in METHODS[name].make(**settings).get_params().items()}


def _model_params(model) -> dict[str, Any]:
    return {k: repr(v) for k, v in model.get_params().items()}


@pytest.fixture(scope="module")
def planted():
    return datasets.load_source(PLANTED)


@pytest.fixture(scope="module")
def compare(planted):
    # every method chosen, so that Compare records the settings it would fit each with
    return _open("compare.py", planted, {"compare_methods": list(METHODS)})


@pytest.fixture(scope="module")
def pages(planted) -> dict[str, AppTest]:
    return {
        "PLST": _open("plst.py", planted, {"plst_methods": []}),
        "ML-KNN": _open("mlknn.py", planted),
        "CLEMS": _open("clems.py", planted),
        "GroPLE": _open("grople.py", planted),
    }


@pytest.fixture(scope="module")
def lesson(planted) -> dict[str, AppTest]:
    steps = {
        "PLST": "2 · PLST",
        "GroPLE": "4 · GroPLE",
        "CLEMS": "5 · CLEMS",
        "ML-KNN": "6 · ML-KNN",
    }
    return {name: _open("lesson.py", planted, {"lesson_step": s}) for name, s in steps.items()}


def _page_params(name: str, at: AppTest) -> dict[str, Any]:
    """The settings the method's page opened at, as estimator parameters."""
    if name == "PLST":  # one fit with all L directions; the slider's M is the model shown
        return _params(name, {"M": at.slider(key="plst_m").value})
    if name == "ML-KNN":  # one neighbour search for every k and s; the sliders pick the model
        return _params(
            name, {"k": at.slider(key="mlknn_k").value, "s": at.select_slider(key="mlknn_s").value}
        )
    if name == "CLEMS":  # its M = L comparison fit is the last CLEMS fitted: the widgets
        cost = at.selectbox(key="clems_cost").value
        return _params(name, {"M": at.slider(key="clems_m").value, "cost": cost})
    model = _fitted(at, GroPLE)
    params = _model_params(model)
    if model.groups is not None:
        # the page hands its fit the label groups its λ bounds computed: they must be stage
        # 1's own (the model's K, affinity and seed on the training rows), so that the page
        # shows the model every other view fits from K and the affinity
        ds = at.session_state["dataset"]
        train, _ = train_test_split(np.arange(ds.n_samples), test_size=0.3, random_state=0)
        own = LabelClustering(
            n_groups=model.n_groups,
            affinity=model.label_affinity,
            n_neighbors=model.n_neighbors,
            random_state=model.random_state,
        ).fit(ds.Y[train])
        np.testing.assert_array_equal(model.groups, own.labels_)
        params["groups"] = repr(None)
    return params


def _lesson_params(name: str, at: AppTest) -> dict[str, Any]:
    cls = {"PLST": PLST, "GroPLE": GroPLE, "CLEMS": CLEMS, "ML-KNN": MLkNN}[name]
    return _model_params(_fitted(at, cls))


def _preset_named(name: str, at: AppTest) -> str | None:
    """The preset the page says it runs, from its caption (None: it names none)."""
    for preset in getattr(METHODS[name], "presets", ()):
        if f"{name}, {preset} preset" in _captions(at):
            return preset
    return None


@pytest.mark.parametrize("name", list(METHODS))
def test_compare_the_method_page_and_the_lesson_open_at_the_same_settings(
    name, planted, compare, pages, lesson
):
    method = METHODS[name]
    L = planted.n_labels
    if name in pages and name in lesson:  # the method's page and its Lesson step agree
        assert (_preset_named(name, pages[name]), _page_params(name, pages[name])) == (
            _preset_named(name, lesson[name]),
            _lesson_params(name, lesson[name]),
        ), f"the {name} page and the Lesson open {name} differently"
    try:
        recorded = compare.session_state["_compare_settings"]
    except KeyError:  # Compare does not say what it fits
        recorded = {}
    assert set(recorded) == set(METHODS)  # every method runs on the planted sample
    compare_settings = recorded[name]
    # Compare runs the registry's default preset unless its menu says otherwise, and states it
    assert method.describe(compare_settings, method.default_preset) in _captions(compare)
    reference = _params(name, compare_settings)
    others = {f"{name} page": pages.get(name), f"Lesson, {name} step": lesson.get(name)}
    for where, at in others.items():
        if at is None:  # BR, PBR, CPLST, CS: the PLST page sweeps their M, the Lesson fits none
            continue
        shown = _page_params(name, at) if "page" in where else _lesson_params(name, at)
        preset = _preset_named(name, at) or method.default_preset
        if preset == method.default_preset:
            assert shown == reference, f"{where} differs from Compare"
        else:
            # only what the preset fixes differs, and the page says which preset it runs
            expected = _params(name, {**compare_settings, **method.presets[preset].fixed(L)})
            assert shown == expected, f"{where}: more than the {preset} preset differs"
            assert shown != reference
        if len(method.presets) > 1:
            assert _preset_named(name, at) == preset, f"{where} does not name its preset"


def test_grople_runs_the_teaching_preset_everywhere_and_says_so(compare, pages, lesson):
    teaching = METHODS["GroPLE"].presets["teaching"].settings
    for where, at in {
        "Compare": compare,
        "page": pages["GroPLE"],
        "Lesson": lesson["GroPLE"],
    }.items():
        assert "GroPLE, teaching preset: " in _captions(at), where
    for at in (pages["GroPLE"], lesson["GroPLE"]):
        model = _fitted(at, GroPLE)
        assert (model.lambda1, model.lambda2) == (teaching["lambda1"], teaching["lambda2"])
    assert compare.selectbox(key="compare_preset_grople").value == "teaching"
    assert "CLEMS, picture preset: M = 2" in _captions(pages["CLEMS"])
    assert "CLEMS, picture preset: M = 2" in _captions(lesson["CLEMS"])


def test_compare_fits_the_preset_chosen_in_its_menu(planted):
    at = _open("compare.py", planted, {"compare_methods": ["GroPLE"]})
    at.selectbox(key="compare_preset_grople").set_value("paper").run()
    assert not at.exception
    paper = METHODS["GroPLE"].presets["paper"].settings
    settings = at.session_state["_compare_settings"]["GroPLE"]
    assert {k: settings[k] for k in paper} == dict(paper)  # d = 100 too: the preset fixes it
    assert "GroPLE, paper preset: d = 100" in _captions(at)


# ------------------------------------------------------------ ranges reach the data's bounds

SHAPES = {
    # bibtex's and delicious' label counts and cardinality, rows scaled down for CI time
    "bibtex-like": dict(LONG_TAILED_SHAPES["bibtex"], n_samples=1_500, n_features=500),
    "delicious-like": dict(LONG_TAILED_SHAPES["delicious"], n_samples=1_000),
}


@pytest.fixture(scope="module", params=list(SHAPES))
def long_tailed(request):
    return make_long_tailed(**SHAPES[request.param], random_state=0)


def _bounds(dataset, model: GroPLE) -> tuple[float, float]:
    """λ2_max and λ1_max (at the model's λ2) on the pages' training split, at its groups."""
    train, _ = train_test_split(np.arange(dataset.n_samples), test_size=0.3, random_state=0)
    Y = dataset.Y[train]
    args = (Y, model.groups_, model.n_components)
    return (
        lambda2_max(*args, random_state=0),
        lambda1_max(*args, model.lambda2, random_state=0),
    )


def _assert_reaches(options, bound: float, what: str) -> None:
    values = [float(v) for v in options]
    # the last option is at or just above the bound (V = 0 there), every other one below it
    assert values[-1] >= bound > max(values[:-1]), f"{what}: {values} against {bound:.4g}"
    assert values[-1] <= 1.01 * bound, f"{what}: the last option overshoots {bound:.4g}"


@pytest.mark.parametrize("where", ["page", "lesson"])
def test_grople_lambda_sliders_reach_the_bounds_of_long_tailed_data(long_tailed, where):
    if where == "page":
        at = _open("grople.py", long_tailed)
        keys = ("grople_lambda2", "grople_lambda1")
    else:
        at = _open("lesson.py", long_tailed, {"lesson_step": "grople"})
        keys = ("lesson_grople_lambda2", "lesson_grople_lambda1")
    model = _fitted(at, GroPLE)
    bound2, bound1 = _bounds(long_tailed, model)
    assert bound2 > 100.0  # beyond the former grid's end on these shapes
    _assert_reaches(at.select_slider(key=keys[0]).options, bound2, f"{where} λ2")
    _assert_reaches(at.select_slider(key=keys[1]).options, bound1, f"{where} λ1")

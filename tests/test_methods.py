"""mlviz.methods: the one registry of methods, against the estimators and the pages."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import numpy as np
import pytest
from sklearn.base import clone, is_classifier

from mlviz import costs, label_clustering, per_label
from mlviz.figures._style import METHOD_COLORS, method_color
from mlviz.methods import AFFINITY_LABELS, COST_LABELS, MAX_LABELS_SQUARE, METHODS

REPO = Path(__file__).resolve().parents[1]
PAGE_FILES = sorted((REPO / "pages").rglob("*.py"))


def _class(path: str) -> type:
    module, name = path.rsplit(".", 1)
    return getattr(importlib.import_module(module), name)


def test_the_registry_holds_every_method_compare_offers_in_its_order():
    assert list(METHODS) == ["BR", "PLST", "PBR", "CPLST", "CS", "ML-KNN", "CLEMS", "GroPLE"]
    assert all(name == method.name for name, method in METHODS.items())


@pytest.mark.parametrize("name", list(METHODS))
def test_every_factory_returns_an_unfitted_estimator_of_its_class_that_fits(name):
    method = METHODS[name]
    estimator = method.make()
    assert type(estimator) is _class(method.estimator)
    assert is_classifier(estimator)
    clone(estimator)  # a scikit-learn estimator: get_params round-trips
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 4))
    Y = (rng.random((30, 5)) < 0.4).astype(int)
    Y[0] = 1  # no constant label column
    Y[1] = 0
    small = {"M": 2, "d": 2, "K": 2, "k": 3}  # the dimension setting within 5 labels
    fitted = method.make(**small).fit(X, Y)
    assert fitted.predict(X).shape == Y.shape


@pytest.mark.parametrize("name", list(METHODS))
def test_the_dimension_setting_reaches_the_estimator(name):
    method = METHODS[name]
    if method.dimension is None:
        assert method.symbol is None
        return
    assert method.symbol == method.dimension and method.dimension in method.settings
    params = method.make(**{method.dimension: 7}).get_params()
    assert 7 in (params.get("n_components"), params.get("k"))


def test_make_ignores_settings_a_method_does_not_take():
    settings = {"M": 3, "d": 5, "k": 4, "cost": "hamming", "K": 2, "affinity": "correlation"}
    assert METHODS["PLST"].make(**settings).n_components == 3
    assert METHODS["ML-KNN"].make(**settings).k == 4
    assert METHODS["CLEMS"].make(**settings).get_params()["cost"] == "hamming"
    grople = METHODS["GroPLE"].make(**settings).get_params()
    assert (grople["n_components"], grople["n_groups"], grople["label_affinity"]) == (
        5,
        2,
        "correlation",
    )


def test_colours_are_distinct_and_the_style_module_uses_them():
    colours = [m.color for m in METHODS.values()]
    assert len(set(colours)) == len(colours)
    for name, method in METHODS.items():
        assert METHOD_COLORS[name] == method_color(name) == method.color
    assert set(METHOD_COLORS) - set(METHODS) == {"PLST-origin"}  # PLST's variant, its own hue
    assert METHOD_COLORS["PLST-origin"] not in colours


def test_label_caps_are_the_methods_holding_an_L_by_L_matrix():
    capped = {name for name, m in METHODS.items() if m.max_labels is not None}
    assert capped == {"BR", "PLST", "PBR", "CPLST", "GroPLE"}
    assert {m.max_labels for m in METHODS.values() if m.max_labels} == {MAX_LABELS_SQUARE}
    assert METHODS["PLST"].runs_on(MAX_LABELS_SQUARE)
    assert not METHODS["PLST"].runs_on(MAX_LABELS_SQUARE + 1)
    assert METHODS["ML-KNN"].runs_on(10**6)


def test_tail_tables_exist_in_per_label():
    with_reasons = {name for name, m in METHODS.items() if m.tail_reasons}
    assert with_reasons == {"PLST", "ML-KNN", "CLEMS", "GroPLE"}
    for name in with_reasons:
        assert callable(getattr(per_label, METHODS[name].tail_table))
    assert {f for f in per_label.__all__ if f.endswith("_label_table")} - {
        "label_frequency_table"
    } == {METHODS[name].tail_table for name in with_reasons}


def test_display_labels_name_exactly_the_librarys_options():
    assert tuple(COST_LABELS) == costs.COSTS
    assert set(AFFINITY_LABELS) == set(label_clustering.AFFINITIES)
    assert METHODS["CLEMS"].option_labels == {"cost": COST_LABELS}
    assert METHODS["GroPLE"].option_labels == {"affinity": AFFINITY_LABELS}


def _string_lists(tree: ast.AST):
    """Every literal list/tuple/set of strings and every dict keyed by strings, except a
    widget's ``default=`` (the page's initial choice among the registry's methods)."""
    defaults = {
        id(keyword.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        for keyword in node.keywords
        if keyword.arg == "default"
    }
    for node in ast.walk(tree):
        if id(node) in defaults:
            continue
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            values = node.elts
        elif isinstance(node, ast.Dict):
            values = [k for k in node.keys if k is not None]
        else:
            continue
        strings = {v.value for v in values if isinstance(v, ast.Constant)}
        if strings and all(
            isinstance(v, ast.Constant) and isinstance(v.value, str) for v in values
        ):
            yield node.lineno, strings


@pytest.mark.parametrize("path", PAGE_FILES, ids=lambda p: str(p.relative_to(REPO)))
def test_no_page_defines_its_own_method_list(path):
    """Two or more method names (or the cost/affinity names) in one literal are a list of their
    own, which drifts from the registry: pages read mlviz.methods instead."""
    tree = ast.parse(path.read_text())
    own = []
    for line, strings in _string_lists(tree):
        for registry in (set(METHODS), set(COST_LABELS), set(AFFINITY_LABELS)):
            if len(strings & registry) >= 2:
                own.append((line, sorted(strings & registry)))
    assert not own, f"{path.name} lists methods/options itself at {own}"


@pytest.mark.parametrize("path", PAGE_FILES, ids=lambda p: str(p.relative_to(REPO)))
def test_no_page_writes_the_label_cap_itself(path):
    assert "2_000" not in path.read_text() and "2000" not in path.read_text()


def test_the_apps_clems_runs_its_blocks_on_the_apps_threads():
    # the one fit that splits its work into blocks is given the server's cores, a number
    # (memory grows with it), not -1
    from mlviz.methods import APP_THREADS

    assert METHODS["CLEMS"].make().n_jobs == APP_THREADS == 2

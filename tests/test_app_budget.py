"""Bounded work per session (issue 24, item 5): the upload limits and the per-page budgets.

The budgets are module constants of ``pages/_app/budget.py``; the tests lower them
(``monkeypatch``) so that small generated uploads are over budget, and check that the app says
what it did (refused, sampled) and why. AppTest runs the app in this process, so the patched
constants are the ones the app reads.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from pages._app import budget

REPO = Path(__file__).resolve().parents[1]
TIMEOUT = 180


def _csv(n_rows: int, n_features: int, n_labels: int, seed: int = 0) -> bytes:
    """A CSV upload: features f0.., 0/1 labels l0.. (each label occurs and is absent)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_rows, n_features))
    Y = (rng.random((n_rows, n_labels)) < 0.3).astype(int)
    Y[0], Y[1] = 1, 0
    header = [f"f{j}" for j in range(n_features)] + [f"l{j}" for j in range(n_labels)]
    rows = [
        ",".join([f"{v:.3f}" for v in x] + [str(v) for v in y]) for x, y in zip(X, Y, strict=True)
    ]
    return ("\n".join([",".join(header), *rows]) + "\n").encode()


def _upload(payload: bytes, n_labels: int, name: str = "big.csv") -> AppTest:
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=TIMEOUT).run()
    at.text_input(key="upload_labels").input(str(n_labels))
    at.file_uploader(key="upload_file").upload(name, payload, "text/csv")
    return at.run()


def _sidebar_errors(at: AppTest) -> list[str]:
    return [e.value for e in at.sidebar.error]


def test_the_upload_limit_of_the_server_config_is_the_budgets():
    config = tomllib.loads((REPO / ".streamlit" / "config.toml").read_text())
    assert config["server"]["maxUploadSize"] == budget.MAX_UPLOAD_MB
    assert f"{budget.MAX_UPLOAD_MB} MB" in (REPO / "README.md").read_text()
    # the classroom settings found by profiling 30 sessions (docs/BENCHMARKS.md)
    assert config["server"]["fileWatcherType"] == "none"
    assert config["runner"]["postScriptGC"] is False
    assert config["browser"]["gatherUsageStats"] is False
    assert config["runner"]["magicEnabled"] is False


def test_no_script_the_router_runs_relies_on_streamlit_magic():
    # magic is off in the server's config: a page that relied on it (a bare expression meant to
    # be shown) would lose that element. Streamlit's own magic pass must add nothing to any of
    # them (it wraps a displayable bare expression in a call of __streamlitmagic__).
    import ast

    from streamlit.runtime.scriptrunner.magic import MAGIC_MODULE_NAME, add_magic

    scripts = [REPO / "app.py", *sorted((REPO / "pages").glob("*.py"))]
    assert len(scripts) >= 10
    for script in scripts:
        tree = add_magic(script.read_text(), str(script))
        names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
        assert MAGIC_MODULE_NAME not in names, f"{script.name} writes by magic"
    shown = add_magic("import streamlit as st\nx = 1\nx\n", "probe.py")
    assert MAGIC_MODULE_NAME in {n.id for n in ast.walk(shown) if isinstance(n, ast.Name)}


def test_an_upload_with_too_many_labels_is_refused_with_the_limit_and_what_to_do(monkeypatch):
    monkeypatch.setattr(budget, "MAX_UPLOAD_LABELS", 3)
    at = _upload(_csv(20, 2, 4), 4)
    assert not at.exception, [e.message for e in at.exception]
    errors = _sidebar_errors(at)
    assert len(errors) == 1, errors
    assert "4 label columns" in errors[0] and "up to 3" in errors[0]
    assert "upload again" in errors[0]
    assert at.session_state["dataset"].name == "planted", "the data set loaded before stays"


def test_an_upload_with_too_many_values_is_refused_with_the_limit_and_what_to_do(monkeypatch):
    monkeypatch.setattr(budget, "MAX_UPLOAD_CELLS", 100)
    at = _upload(_csv(30, 3, 2), 2)  # 30 x 5 = 150 values
    # refused by the loader before parsing (issue 29): the message is shown markdown-escaped
    errors = [error.replace("\\", "") for error in _sidebar_errors(at)]
    assert len(errors) == 1, errors
    assert "30 rows × 5 columns = 150 values" in errors[0] and "up to 100" in errors[0]
    assert "20 rows fit" in errors[0]  # 100 // 5: what to upload instead
    assert at.session_state["dataset"].name == "planted"


@pytest.mark.parametrize("kind", ["csv", "arff"])
def test_an_upload_over_the_column_budget_is_refused_before_it_is_parsed(monkeypatch, kind):
    # issue 29: the budgets were checked only on the parsed data set (a 1 M-column CSV: 135 s)
    from pages._app import source

    monkeypatch.setattr(budget, "MAX_UPLOAD_COLUMNS", 3)
    if kind == "csv":
        payload, name = _csv(20, 2, 2), "wide.csv"
    else:
        header = "".join(f"@attribute a{j} numeric\n" for j in range(2))
        header += "@attribute l0 {0,1}\n@attribute l1 {0,1}\n"
        payload, name = f"@relation w\n{header}@data\n0.5,1,0,1\n".encode(), "wide.arff"

    monkeypatch.setattr(source, "load_csv", _budget_only(source.load_csv))
    monkeypatch.setattr(source, "load_arff", _budget_only(source.load_arff))
    at = _upload(payload, 2, name=name)
    assert not at.exception, [e.message for e in at.exception]
    errors = _sidebar_errors(at)
    assert len(errors) == 1, errors
    assert "4 " in errors[0] and "up to 3" in errors[0], errors[0]
    assert at.session_state["dataset"].name == "planted"
    assert budget.loader_budgets("arff")["max_values"] == budget.MAX_UPLOAD_ARFF_VALUES


def _budget_only(loader):
    """``loader`` that fails if it gets past its budget checks (pandas/liac-arff never run)."""

    def checked(*args, **kwargs):
        assert kwargs.get("max_columns") is not None, "the app passes the budgets"
        import mlviz.io.arff as arff_module

        real = arff_module.arff.ArffDecoder
        arff_module.arff.ArffDecoder = None  # calling it would raise
        try:
            return loader(*args, **kwargs)
        finally:
            arff_module.arff.ArffDecoder = real

    return checked


@pytest.mark.parametrize("kind", ["malformed", "over budget"])
def test_a_failed_upload_is_parsed_once_not_on_every_rerun(monkeypatch, kind):
    from pages._app import source

    calls = []
    real = source.load_csv

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(source, "load_csv", counting)
    if kind == "malformed":
        payload = b"f0,l0\nnot a number,1\n0.5,0\n"
    else:
        monkeypatch.setattr(budget, "MAX_UPLOAD_LABELS", 1)
        payload = _csv(10, 2, 2, seed=len(kind))  # a new file: not in the parse cache
        # the parse itself is also in Streamlit's resource cache: count the budget check too
        check = budget.upload_refusal

        def counting_check(ds):
            calls.append("check")
            return check(ds)

        monkeypatch.setattr(budget, "upload_refusal", counting_check)
    at = _upload(payload, 1 if kind == "malformed" else 2, name=f"{kind.replace(' ', '_')}.csv")
    first = _sidebar_errors(at)
    once = len(calls)
    assert len(first) == 1 and once == (1 if kind == "malformed" else 2), (first, calls)
    for _ in range(3):
        at.run()
        assert _sidebar_errors(at) == first, "the same message on every rerun"
    at.switch_page("pages/mlknn.py").run()
    assert _sidebar_errors(at) == first
    assert len(calls) == once, f"parsed or checked again: {calls}"


def test_above_the_row_budget_every_page_computes_on_a_stated_sample(monkeypatch):
    monkeypatch.setattr(budget, "MAX_ROWS", 40)
    at = _upload(_csv(90, 3, 3), 3, name="rows.csv")
    assert not at.exception, [e.message for e in at.exception]
    ds = at.session_state["dataset"]
    assert ds.n_samples == 40 and ds.n_labels == 3
    assert "sample of 40 rows" in ds.name

    def statement() -> list[str]:
        return [w.value for w in at.main.warning if "random sample of 40 rows" in w.value]

    assert statement() and "90 rows" in statement()[0]
    for page in ("mlknn", "plst", "hypercube"):
        at.switch_page(f"pages/{page}.py").run()
        assert not at.exception, (page, [e.message for e in at.exception])
        assert statement(), f"{page}: the sample is stated on every page"
        assert at.session_state["dataset"].n_samples == 40


def test_the_row_sample_is_seeded_and_keeps_each_rows_features_with_its_labels(monkeypatch):
    from mlviz.io import load_csv

    monkeypatch.setattr(budget, "MAX_ROWS", 25)
    full = load_csv(_csv(60, 2, 2), 2)
    a, said = budget.sample_rows(full)
    b, _ = budget.sample_rows(full)
    assert said is not None and a.digest == b.digest
    # every sampled row is a row of the full data set, features and labels together, no repeats
    whole = np.hstack([full.X, full.Y])
    rows = [int(np.flatnonzero((whole == r).all(axis=1))[0]) for r in np.hstack([a.X, a.Y])]
    assert len(set(rows)) == 25 and rows == sorted(rows)
    small, none = budget.sample_rows(load_csv(_csv(25, 2, 2), 2))
    assert none is None and small.n_samples == 25


def test_pages_quadratic_in_the_labels_refuse_above_the_label_budget_with_the_reason(monkeypatch):
    """MAX_LABELS_SQUARE lowered to 4: a 6-label upload gets, on Label clusters, a refusal that
    names the size and the limit; on CLEMS, M capped at 4 and the M = L comparison skipped,
    both said. No page raises."""
    monkeypatch.setattr(budget, "MAX_LABELS_SQUARE", 4)
    at = _upload(_csv(60, 3, 6), 6, name="wide.csv")
    assert at.session_state["dataset"].n_labels == 6
    at.switch_page("pages/label_clusters.py").run()
    assert not at.exception, [e.message for e in at.exception]
    said = [w.value for w in at.main.warning]
    assert any("6 × 6 label-by-label matrix" in w and "up to 4 labels" in w for w in said), said
    assert not at.get("plotly_chart"), "nothing quadratic in L is drawn above the budget"
    at.switch_page("pages/clems.py").run()
    assert not at.exception, [e.message for e in at.exception]
    assert at.slider(key="clems_m").max == 4
    captions = [c.value for c in at.caption]
    assert any("M goes up to 4, not L = 6" in c for c in captions), captions
    monkeypatch.setattr(budget, "MAX_LABELS_SQUARE", 6)  # at the budget: computed and drawn
    at.switch_page("pages/label_clusters.py").run()
    assert not at.exception and at.get("plotly_chart")
    assert not any("label-by-label matrix" in w.value for w in at.main.warning)


def test_a_figure_is_built_once_per_arguments_and_shared(monkeypatch):
    """fitting.figure: the same builder and arguments give the same (shared) object without
    building again; other arguments build anew; a fitted model that is not a cached result
    is never a key (built each time); the store keeps at most max_entries figures."""
    import streamlit as st
    from sklearn.linear_model import Ridge

    from mlviz.io import load_csv
    from pages._app import fitting

    st.session_state["dataset"] = load_csv(_csv(10, 2, 2), 2)
    store = fitting._FigureStore(3)
    monkeypatch.setattr(fitting, "_figures", lambda: store)
    built = []

    def builder(values, *, title):
        built.append(title)
        return {"values": list(values), "title": title}

    a = fitting.figure(builder, np.arange(3), title="t")
    b = fitting.figure(builder, np.arange(3), title="t")
    assert a is b and built == ["t"]
    fitting.figure(builder, np.arange(4), title="t")
    assert len(built) == 2, "other values are another figure"
    model = Ridge().fit(np.eye(3), np.arange(3))
    fitting.figure(builder, model.coef_, title=str(model))
    for _ in range(2):
        fitting.figure(lambda m, title: builder([], title=title), model, title="model")
    assert built.count("model") == 2, "a model not held by the fit cache is never a key"
    for i in range(5):
        fitting.figure(builder, np.arange(i), title="fill")
    assert len(fitting._figures()) == 3

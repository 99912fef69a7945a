"""No session changes what another sees (issue 29, item 1).

Every shared cache (fits, figures, tables, statistics, splits) lives for the whole server
process, so its key must cover everything a result shows. A key of the numbers alone let one
student upload the sample's exact numbers with label names ``PWNED_0 …`` and rename the
teacher's labels on every page. Here two sessions run in one process (AppTest shares
Streamlit's caches the way a server's sessions do): same numbers, different label, feature and
data set names, over every page and every Lesson step, in both orders; and two uploads through
the router with the same file name and different contents.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from mlviz import datasets
from mlviz.io import Dataset

REPO = Path(__file__).resolve().parents[1]
TIMEOUT = 300
PAGES = sorted(p.name for p in (REPO / "pages").glob("*.py") if not p.name.startswith("_"))
LESSON_STEPS = ["hypercube", "plst", "groups", "grople", "clems", "mlknn", "compare"]
VIEWS = [p for p in PAGES if p != "lesson.py"] + [f"lesson.py:{step}" for step in LESSON_STEPS]


def _named(ds: Dataset, marker: str) -> Dataset:
    """``ds`` with every name carrying ``marker``: the same numbers, another identity."""
    return dataclasses.replace(
        ds,
        name=f"{marker}set",
        label_names=tuple(f"{marker}{j}" for j in range(ds.n_labels)),
        feature_names=tuple(f"{marker}feat{j}" for j in range(ds.n_features)),
    )


@pytest.fixture(scope="module")
def twins() -> tuple[Dataset, Dataset]:
    ds = datasets.load_source("sample:planted")
    alpha, bravo = _named(ds, "ALPHA"), _named(ds, "BRAVO")
    assert alpha.content_digest == bravo.content_digest  # the same numbers, byte for byte
    return alpha, bravo


def shown(at: AppTest) -> str:
    """Everything the session drew: every element's protobuf as text (markdown bodies, widget
    labels and options, dataframe bytes, plotly specs)."""
    out: list[str] = []

    def walk(node) -> None:
        proto = getattr(node, "proto", None)
        if proto is not None:
            out.append(str(proto))
        children = getattr(node, "children", None)
        if isinstance(children, dict):
            for child in children.values():
                walk(child)

    walk(at._tree)
    return "\n".join(out)


def run_view(view: str, dataset: Dataset) -> AppTest:
    page, _, step = view.partition(":")
    at = AppTest.from_file(str(REPO / "pages" / page), default_timeout=TIMEOUT)
    at.session_state["dataset"] = dataset
    at.session_state["dataset_label"] = f"{dataset.name} (upload)"
    if step:
        at.session_state["lesson_step"] = step
    at.run()
    if page == "compare.py":  # cross-validates behind its button
        at.button(key="compare_fit").click().run()
    assert not at.exception, f"{view}: {[e.message for e in at.exception]}"
    if step:
        assert at.session_state["lesson_step"] == step
    return at


@pytest.mark.parametrize("view", VIEWS)
def test_two_sessions_with_the_same_numbers_never_see_each_others_names(twins, view):
    alpha, bravo = twins
    first = shown(run_view(view, alpha))
    second = shown(run_view(view, bravo))  # same numbers: every cached result is a candidate
    third = shown(run_view(view, alpha))  # and back: B's results must not reach A either
    assert "ALPHA" in first and "BRAVO" in second, f"{view}: the names are shown at all"
    assert "ALPHA" not in second, f"{view}: session B sees session A's names"
    assert "BRAVO" not in third, f"{view}: session A sees session B's names"


def _csv(names: list[str], X: np.ndarray, Y: np.ndarray) -> bytes:
    rows = [
        ",".join([f"{v:.3f}" for v in x] + [str(int(v)) for v in y])
        for x, y in zip(X, Y, strict=True)
    ]
    return ("\n".join([",".join(names), *rows]) + "\n").encode()


def _upload(payload: bytes, page: str) -> AppTest:
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=TIMEOUT).run()
    at.text_input(key="upload_labels").input("3")
    at.file_uploader(key="upload_file").upload("class.csv", payload, "text/csv")
    at.run()
    at.switch_page(f"pages/{page}").run()
    assert not at.exception, [e.message for e in at.exception]
    return at


@pytest.mark.parametrize("page", ["data.py", "plst.py", "mlknn.py"])
def test_two_uploads_with_one_file_name_and_other_contents_stay_apart(page):
    """The same file name, the same numbers, other label names in the header; then the same
    names over other numbers: each session sees its own file."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 4))
    Y = (rng.random((60, 3)) < 0.4).astype(int)
    Y[0], Y[1] = 1, 0
    features = [f"f{j}" for j in range(4)]
    mine = _upload(_csv([*features, "ALPHA0", "ALPHA1", "ALPHA2"], X, Y), page)
    theirs = _upload(_csv([*features, "BRAVO0", "BRAVO1", "BRAVO2"], X, Y), page)
    assert "BRAVO0" in shown(theirs) and "ALPHA0" not in shown(theirs)
    assert "ALPHA0" in shown(mine) and "BRAVO0" not in shown(mine)
    # same names, other numbers: each session's data set is its own file's
    other = _upload(_csv([*features, "ALPHA0", "ALPHA1", "ALPHA2"], X, 1 - Y), page)
    assert other.session_state["dataset"].Y.sum() == (1 - Y).sum()
    assert mine.session_state["dataset"].Y.sum() == Y.sum()

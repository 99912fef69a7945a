"""AppTest of Compare with a model trained elsewhere (issue 32, item 2) and the contribution
by label frequency bin (item 3).

The external model is the truth itself plus small noise ("oracle"): its out-of-fold F1 is 1 on
every label, so its column, its loss reasons and its bins can be checked against numbers
computed here from the same matrix.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest
from _plotly import values
from streamlit.testing.v1 import AppTest

from mlviz import datasets
from mlviz.metrics import frequency_bin_contributions, precision_at_k

REPO = Path(__file__).resolve().parents[1]
TIMEOUT = 300


@pytest.fixture(scope="module")
def planted():
    return datasets.load_source("sample:planted")


def _oracle_scores(Y: np.ndarray) -> np.ndarray:
    """Scores that rank every row's labels first: 0.9 on a label, 0.1 off, tiny seeded noise."""
    rng = np.random.default_rng(0)
    return np.where(np.asarray(Y) > 0, 0.9, 0.1) + rng.uniform(0, 0.01, size=Y.shape)


def _npy(scores: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, scores, allow_pickle=False)
    return buffer.getvalue()


def _run(dataset, payload: bytes | None, name: str = "oracle", file: str = "s.npy") -> AppTest:
    at = AppTest.from_file(str(REPO / "pages" / "compare.py"), default_timeout=TIMEOUT)
    at.session_state["dataset"] = dataset
    at.session_state["dataset_label"] = dataset.name
    at.run()
    at.multiselect(key="compare_methods").set_value(["BR", "PLST"]).run()
    at.slider(key="compare_folds").set_value(2).run()
    at.text_input(key="compare_external_name").input(name).run()
    if payload is not None:
        at.file_uploader(key="compare_external_file").upload(
            file, payload, "application/octet-stream"
        )
        at.run()
    at.button(key="compare_fit").click().run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def _bins_figure(at: AppTest) -> dict:
    for chart in at.get("plotly_chart"):
        spec = json.loads(chart.proto.spec)
        title = json.dumps(spec["layout"].get("title", ""))
        if "@" in title and "bin" in json.dumps(spec["layout"]).lower():
            return spec
    raise AssertionError("no contribution-by-bin chart on the page")


def test_an_uploaded_models_scores_join_every_per_label_view(planted):
    scores = _oracle_scores(planted.Y)
    at = _run(planted, _npy(scores))
    assert not at.error, [e.value for e in at.error]
    per_label = at.dataframe[1].value
    assert "F1 oracle" in per_label.columns and "recall oracle" in per_label.columns
    # the oracle predicts exactly the truth at the 0.5 threshold: F1 1 on every label present
    present = per_label["support"] > 0
    assert np.allclose(per_label.loc[present, "F1 oracle"], 1.0)
    reasons = at.dataframe[2].value
    assert set(reasons.loc[present, "why lost oracle"]) == {"kept"}
    captions = " ".join(c.value for c in at.caption)
    assert "unknown for oracle, an external model" in captions or "oracle" in captions
    assert "not in the fold table" in captions  # where it is not shown, said
    assert not any("another row or label order" in w.value for w in at.warning)


def test_scores_in_another_row_order_are_called_out(planted):
    """Scores whose rows do not line up with the data set rank worse than label frequency
    alone: the page says so, and in which order the rows must come."""
    scores = _oracle_scores(planted.Y)[np.random.default_rng(1).permutation(planted.n_samples)]
    at = _run(planted, _npy(scores))
    warning = " ".join(w.value for w in at.warning if "another row or label order" in w.value)
    assert "no better than ranking the labels by their frequency" in warning, warning
    assert "in the order of the data set" in warning
    expander = " ".join(c.value for c in at.caption)
    assert f"scores for every one of the {planted.n_samples:,} rows, in the order" in expander


def test_the_bins_of_an_uploaded_model_sum_to_its_precision_at_k(planted):
    scores = _oracle_scores(planted.Y)
    at = _run(planted, _npy(scores))
    spec = _bins_figure(at)
    oracle = next(t for t in spec["data"] if t["name"] == "oracle")
    expected = precision_at_k(planted.Y, scores, k=5)
    table = frequency_bin_contributions(planted.Y, scores, Y_train=planted.Y, k=5, n_bins=10)
    bars = values(oracle["y"]).astype(float)
    # the bins from the tail to the head, then "all labels": the metric itself
    assert bars[-1] == pytest.approx(expected)
    assert np.allclose(bars[:-1], table["contribution"].to_numpy()[::-1])
    assert bars[:-1].sum() == pytest.approx(expected)


@pytest.mark.parametrize(
    ("name", "payload_rows", "message"),
    [
        ("PLST", None, "one of mlviz's methods"),
        ("oracle", 7, "rows"),
    ],
)
def test_bad_external_scores_are_a_specific_error(planted, name, payload_rows, message):
    scores = _oracle_scores(planted.Y)
    if payload_rows is not None:
        scores = scores[:payload_rows]
    at = _run(planted, _npy(scores), name=name)
    errors = " ".join(e.value for e in at.error)
    assert message in errors, errors
    assert "F1 oracle" not in at.dataframe[1].value.columns


def test_a_top_k_text_file_with_a_label_beyond_the_data_set_names_its_line(planted):
    lines = ["0:0.9 1:0.5"] * planted.n_samples
    lines[3] = f"{planted.n_labels}:0.7"
    at = _run(planted, ("\n".join(lines) + "\n").encode(), file="scores.txt")
    errors = " ".join(e.value for e in at.error)
    assert "line 4" in errors, errors


def test_an_external_models_hostile_name_is_shown_literally(planted):
    name = "**bold** <b>x</b> [a](http://e.x)"
    at = _run(planted, _npy(_oracle_scores(planted.Y)), name=name)
    assert not at.error, [e.value for e in at.error]
    captions = [c.value for c in at.caption if "uploaded scores" in c.value]
    assert captions and "\\*\\*bold\\*\\*" in captions[0], captions
    spec = _bins_figure(at)
    assert any(t["name"] == "**bold** &lt;b&gt;x&lt;/b&gt; [a](http://e.x)" for t in spec["data"])


def test_with_a_published_split_the_expected_row_order_is_the_apps(planted):
    """With a published split the app holds the training file's rows, then the test file's:
    the upload's instructions say so (a file in the original data file's order would not line
    up)."""
    from pages._app import source

    at = AppTest.from_file(str(REPO / "pages" / "compare.py"), default_timeout=TIMEOUT)
    at.session_state["dataset"] = planted
    at.session_state["dataset_label"] = planted.name
    at.session_state[source.OFFICIAL_TRAIN_KEY] = 400
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    expander = " ".join(c.value for c in at.caption)
    assert "the published split's 400 training rows first" in expander, expander


def _test_rows(dataset) -> np.ndarray:
    """The sidebar's default random split's test rows (30 %, seed 0), as the app makes them."""
    from sklearn.model_selection import train_test_split

    return train_test_split(np.arange(dataset.n_samples), test_size=0.3, random_state=0)[1]


def _test_split_charts(at: AppTest) -> dict[str, dict]:
    return {
        c.proto.id.rsplit("-", 1)[-1]: json.loads(c.proto.spec)
        for c in at.get("plotly_chart")
        if "compare_test_" in c.proto.id
    }


def test_scores_for_the_splits_test_rows_get_their_own_section(planted):
    """A model scored on the split's test rows only: every chosen method is fitted on the
    training rows and judged with it on the same test rows; the oracle finds every label."""
    test = _test_rows(planted)
    scores = _oracle_scores(np.asarray(planted.Y)[test])
    at = _run(planted, _npy(scores))
    assert not at.error, [e.value for e in at.error]
    assert not any("no better than ranking" in w.value for w in at.warning)
    charts = _test_split_charts(at)
    assert set(charts) == {
        "compare_test_per_label",
        "compare_test_loss_reasons",
        "compare_test_bins",
    }
    bars = {t["name"]: values(t["y"]).astype(float) for t in charts["compare_test_bins"]["data"]}
    Y_test = np.asarray(planted.Y)[test]
    assert bars["oracle"][-1] == pytest.approx(precision_at_k(Y_test, scores, k=5))
    assert {"BR", "PLST", "oracle"} <= set(bars)
    # the out-of-fold views above do not mix it in: it has no column there
    assert "F1 oracle" not in at.dataframe[1].value.columns
    captions = " ".join(c.value for c in at.caption)
    assert f"all judged on the same {len(test):,} test rows" in captions


def test_test_row_scores_out_of_order_are_called_out(planted):
    test = _test_rows(planted)
    scores = _oracle_scores(np.asarray(planted.Y)[np.sort(test)])  # data order, not the list's
    at = _run(planted, _npy(scores))
    warning = " ".join(w.value for w in at.warning if "no better than ranking" in w.value)
    assert "another row order than the test-row list" in warning, warning

"""Regression tests for issue 24 item 6, "other breakages", each reproduced on the old code.

* Compare on data with missing feature values: ``cross_validate`` rejected NaN before the
  pipeline's imputer could fill it inside each fold.
* A CSV upload whose labels box names a column twice (``l1, l1``) loaded silently.
* ``GroPLE.fit`` on constant features raised scipy's raw ``ArpackError`` (error -9).
* PBR / CS on always-1 labels predicted 1 for some of them and 0 for others.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.model_selection import KFold
from streamlit.testing.v1 import AppTest

from mlviz.evaluation import cross_validate
from mlviz.grople import GroPLE
from mlviz.io import DataFormatError, Dataset, load_csv
from mlviz.linear import PBR, BinaryRelevance, CompressedSensing
from mlviz.preprocessing import with_feature_steps
from mlviz.synthetic import make_planted

REPO = Path(__file__).resolve().parents[1]
TIMEOUT = 300


# ----------------------------------------------------- missing feature values in Compare
class _Recorder(BaseEstimator):
    """Predicts nothing; remembers the X of every fit (class-level: estimators are cloned)."""

    seen: list[np.ndarray] = []

    def fit(self, X, Y):
        type(self).seen.append(np.array(X))
        self.n_labels_ = np.asarray(Y).shape[1]
        return self

    def predict(self, X):
        return np.zeros((np.asarray(X).shape[0], self.n_labels_), dtype=np.uint8)


def _with_gaps():
    ds, _ = make_planted(n_samples=90, random_state=0)
    X = ds.X.astype(float).copy()
    X[::7, 0] = np.nan
    X[3, 2] = np.nan
    return X, ds.Y


def test_cross_validate_imputes_inside_each_fold_on_the_training_rows():
    X, Y = _with_gaps()
    _Recorder.seen = []
    cv = KFold(3, shuffle=True, random_state=0)
    model = with_feature_steps(_Recorder(), "none", sparse=False, impute=True)
    result = cross_validate({"rec": model}, X, Y, cv=cv, n_jobs=None)
    assert result.failures.empty
    assert len(_Recorder.seen) == 3
    for (train, _), seen in zip(cv.split(X, Y), _Recorder.seen, strict=True):
        # the gaps are filled with the mean of this fold's training rows, not of all rows
        expected = np.where(np.isnan(X[train]), np.nanmean(X[train], axis=0), X[train])
        np.testing.assert_allclose(seen, expected)


def test_cross_validate_with_nan_and_no_imputer_reports_the_method_not_a_crash():
    X, Y = _with_gaps()
    result = cross_validate({"BR": BinaryRelevance()}, X, Y, cv=2, on_error="collect")
    assert len(result.failures) == 2
    assert result.failures["error"].str.contains("NaN").all()
    with pytest.raises(ValueError, match="infinite|inf"):
        cross_validate({"BR": BinaryRelevance()}, np.where(np.isnan(X), np.inf, X), Y, cv=2)


def test_compare_page_runs_on_data_with_missing_values():
    X, Y = _with_gaps()
    names = tuple(f"l{k}" for k in range(Y.shape[1]))
    ds = Dataset("gaps", X, Y, tuple(f"f{j}" for j in range(X.shape[1])), names)
    at = AppTest.from_file(str(REPO / "pages" / "compare.py"), default_timeout=TIMEOUT)
    at.session_state["dataset"] = ds
    at.session_state["dataset_label"] = ds.name
    at.run()
    at.multiselect(key="compare_methods").set_value(["BR", "ML-KNN"]).run()
    at.slider(key="compare_folds").set_value(2).run()
    at.button(key="compare_fit").click().run()
    assert not at.exception, [e.message for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    summary = at.dataframe[0].value
    assert list(summary.columns) == ["BR", "ML-KNN"]
    # the dimension sweep cross-validates too
    at.multiselect(key="compare_sweep_methods").set_value(["PLST"]).run()
    at.button(key="compare_sweep_fit").click().run()
    assert not at.exception, [e.message for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    assert any(c.proto.id.endswith("compare_sweep_chart") for c in at.get("plotly_chart"))


# ----------------------------------------------------------------- a label named twice
CSV = b"f1,f2,l1,l2\n0.1,1.0,1,0\n0.3,0.2,0,1\n0.5,0.4,1,1\n0.7,0.9,0,0\n"


def test_load_csv_rejects_a_label_column_named_twice():
    with pytest.raises(DataFormatError, match=r"\['l1'\] are named more than once"):
        load_csv(CSV, ["l1", "l1"])
    assert load_csv(CSV, ["l1", "l2"]).label_names == ("l1", "l2")


def _picker_script():
    import streamlit as st

    from pages._app import source

    source.dataset_picker()
    st.write(st.session_state["dataset"].name)


def test_upload_with_a_label_named_twice_is_an_error_and_keeps_the_data_set():
    at = AppTest.from_function(_picker_script, default_timeout=TIMEOUT).run()
    before = at.session_state["dataset"]
    at.text_input(key="upload_labels").input("l1, l1")
    at.file_uploader(key="upload_file").upload("tiny.csv", CSV, "text/csv")
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    errors = [e.value for e in at.error]
    assert errors and "named more than once" in errors[0]
    assert at.session_state["dataset"].digest == before.digest


# ------------------------------------------------------------ GroPLE, constant features
@pytest.mark.parametrize(
    "X",
    [
        np.ones((60, 5)),  # the Gram-matrix path
        np.zeros((60, 300)),  # many features: the path through X itself
        sp.csr_matrix(np.zeros((60, 300))),
        np.full((60, 40), 0.1),
    ],
    ids=["ones", "zeros-wide", "sparse", "tenths"],
)
def test_grople_on_constant_features_fits_and_says_why_it_is_useless(X):
    ds, _ = make_planted(n_samples=60, random_state=0)
    model = GroPLE(n_components=3, n_groups=2, random_state=0).fit(X, ds.Y)
    scores = model.decision_function(X)
    # constant features: every instance gets the same scores
    np.testing.assert_allclose(scores, np.broadcast_to(scores[:1], scores.shape), atol=1e-9)
    if not model.predict(X).any():
        assert "Every feature is constant" in model.degenerate_


def test_grople_varying_features_keep_the_old_degenerate_message():
    ds, _ = make_planted(n_samples=60, random_state=0)
    model = GroPLE(n_components=3, n_groups=2, lambda2=1e6, random_state=0).fit(ds.X, ds.Y)
    assert model.degenerate_ and "constant" not in model.degenerate_


# -------------------------------------------------------------- always-1 labels, PBR / CS
# columns 0 and 2 are always 1, column 1 always 0, columns 3-5 vary: with M = 1 PBR keeps
# label 0 (most frequent, lower index first), so the paper's PBR-Origin would decode
# label 2 to its offset o = 0 and predict it for nobody
Y_CONSTANT = np.array(
    [
        [1, 0, 1, 1, 0, 0],
        [1, 0, 1, 0, 1, 0],
        [1, 0, 1, 0, 0, 1],
        [1, 0, 1, 1, 1, 0],
        [1, 0, 1, 0, 1, 1],
        [1, 0, 1, 1, 0, 1],
        [1, 0, 1, 0, 0, 0],
        [1, 0, 1, 1, 1, 1],
    ]
)
X_CONSTANT = np.random.default_rng(0).normal(size=(8, 3))


@pytest.mark.parametrize(
    "model",
    [
        PBR(n_components=1),
        PBR(n_components=1, reference="mean"),
        PBR(n_components=4),
        CompressedSensing(n_components=2, random_state=0),
        CompressedSensing(n_components=2, decoder="omp", random_state=0),
        CompressedSensing(n_components=4, reference="best_vertex", random_state=1),
        CompressedSensing(n_components=3, projection="gaussian", random_state=2),
        BinaryRelevance(),
    ],
    ids=repr,
)
def test_constant_labels_are_predicted_as_their_value(model):
    model.fit(X_CONSTANT, Y_CONSTANT)
    X_new = np.random.default_rng(5).normal(size=(20, 3))
    predicted = model.predict(X_new)
    assert predicted[:, [0, 2]].all() and not predicted[:, 1].any()
    assert model.constant_labels_.tolist() == [0, 1, 2]
    assert model.constant_values_.tolist() == [1.0, 0.0, 1.0]
    # y~ is exactly the constant: decision y~ - 1/2 is +1/2 / -1/2
    scores = model.decision_function(X_new)
    np.testing.assert_array_equal(scores[:, [0, 2]], 0.5)
    np.testing.assert_array_equal(scores[:, 1], -0.5)
    decoded = model.inverse_transform_labels(model.transform_labels(Y_CONSTANT))
    np.testing.assert_array_equal(decoded[:, [0, 1, 2]], Y_CONSTANT[:, [0, 1, 2]])


def test_pbr_varying_labels_decode_as_before():
    """Only the constant labels are pinned: the others are still o + P^T r(x) (Algorithm 8)."""
    model = PBR(n_components=4).fit(X_CONSTANT, Y_CONSTANT)
    X_new = np.random.default_rng(5).normal(size=(20, 3))
    codes = model.regressor_.predict(X_new)
    expected = model._decode(codes)  # the paper's decoding, without the pin
    np.testing.assert_array_equal(model.predict_decoded(X_new)[:, 3:], expected[:, 3:])

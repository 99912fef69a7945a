"""Feature scaling shared by the app's split and the Compare page's cross-validation."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import Normalizer

from mlviz.evaluation import cross_validate
from mlviz.linear import PLST
from mlviz.preprocessing import (
    FEATURE_SCALINGS,
    feature_steps,
    fit_transform_split,
    has_missing,
    with_feature_steps,
)
from mlviz.synthetic import make_long_tailed


def _data(sparse: bool):
    rng = np.random.default_rng(0)
    X = rng.poisson(1.0, size=(40, 6)).astype(float)
    X[3] = 0.0  # an empty document stays empty
    return sp.csr_matrix(X) if sparse else X


@pytest.mark.parametrize("sparse", [False, True])
def test_unit_rows_gives_every_nonempty_instance_length_one(sparse):
    X = _data(sparse)
    train, test = fit_transform_split(X[:30], X[30:], "unit_rows", impute=False)
    assert sp.issparse(train) == sparse
    norms = np.sqrt(np.asarray((train.multiply(train) if sparse else train**2).sum(axis=1)))
    expected = np.where(np.arange(30) == 3, 0.0, 1.0)
    np.testing.assert_allclose(norms.ravel(), expected)
    dense_test = test.toarray() if sparse else test
    np.testing.assert_allclose(np.linalg.norm(dense_test, axis=1), 1.0)


def test_standardise_is_fitted_on_the_training_rows_and_keeps_sparse_zeros():
    X = _data(False)
    train, test = fit_transform_split(X[:30], X[30:], "standardise", impute=False)
    np.testing.assert_allclose(train.mean(axis=0), 0.0, atol=1e-12)
    mean, sd = X[:30].mean(axis=0), X[:30].std(axis=0)
    np.testing.assert_allclose(test, (X[30:] - mean) / sd)  # the training rows' statistics
    sparse_train, _ = fit_transform_split(
        sp.csr_matrix(X[:30]), sp.csr_matrix(X[30:]), "standardise", impute=False
    )
    assert sparse_train.nnz == np.count_nonzero(X[:30])  # scaled, not centred


def test_missing_values_are_filled_with_the_training_mean_before_scaling():
    X = np.array([[1.0, np.nan], [3.0, 4.0], [np.nan, 0.0], [5.0, 2.0]])
    assert has_missing(X) and not has_missing(np.nan_to_num(X))
    train, test = fit_transform_split(X[:2], X[2:], "none", impute=True)
    np.testing.assert_array_equal(train, [[1.0, 4.0], [3.0, 4.0]])
    np.testing.assert_array_equal(test, [[2.0, 0.0], [5.0, 2.0]])


def test_none_leaves_the_estimator_alone_and_other_scalings_build_a_pipeline():
    assert FEATURE_SCALINGS == ("none", "standardise", "unit_rows")
    assert feature_steps("none", sparse=False, impute=False) == []
    estimator = PLST(n_components=2)
    assert with_feature_steps(estimator, "none", sparse=False, impute=False) is estimator
    pipeline = with_feature_steps(estimator, "unit_rows", sparse=True, impute=False)
    assert isinstance(pipeline, Pipeline) and isinstance(pipeline.steps[0][1], Normalizer)
    assert pipeline.steps[-1][1] is estimator


def test_a_bad_scaling_is_named_with_the_valid_ones():
    with pytest.raises(ValueError, match=r"'scaling' parameter of feature_steps.*unit_rows"):
        feature_steps("l2", sparse=False, impute=False)


def test_cross_validating_the_pipeline_equals_cross_validating_scaled_features():
    # Normalizer is stateless, so scaling inside each fold equals scaling once beforehand
    ds = make_long_tailed(n_samples=120, n_features=30, n_labels=8, cardinality=2.0, random_state=0)
    inside = cross_validate(
        {"PLST": with_feature_steps(PLST(n_components=3), "unit_rows", sparse=True, impute=False)},
        ds.X,
        ds.Y,
        cv=3,
        random_state=0,
    ).results
    before = cross_validate(
        {"PLST": PLST(n_components=3)}, Normalizer().fit_transform(ds.X), ds.Y, cv=3, random_state=0
    ).results
    assert len(inside) == len(before) > 0
    np.testing.assert_allclose(
        inside["value"].to_numpy(dtype=float), before["value"].to_numpy(dtype=float)
    )
    assert inside["metric"].tolist() == before["metric"].tolist()

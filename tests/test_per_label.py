"""Per-label evidence of the tail views: PLST's per-label encoding error, CLEMS's decoded
label counts, ML-KNN's priors, GroPLE beside BR, and the per-label test scores."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_multilabel_classification

from mlviz import per_label
from mlviz.clems import CLEMS, decoded_label_frequencies
from mlviz.grople import GroPLE
from mlviz.linear import CPLST, PBR, PLST, BinaryRelevance
from mlviz.mlknn import MLkNN
from mlviz.stats import tail_labels


def _data(n_samples=120, n_labels=8, seed=0):
    X, Y = make_multilabel_classification(
        n_samples=n_samples, n_features=6, n_classes=n_labels, n_labels=2, random_state=seed
    )
    return X.astype(float), Y


# ------------------------------------------------------------------------ PLST


def test_pbr_per_label_error_by_hand():
    # label 0 is in 3 of 4 rows, label 1 in 1: both have variance 3/16 around the mean;
    # PBR with M = 1 keeps the more frequent label 0, so label 1 keeps all of its variance
    Y = np.array([[1, 1], [1, 0], [1, 0], [0, 0]])
    X = np.arange(8.0).reshape(4, 2)
    model = PBR(n_components=1, reference="mean").fit(X, Y)
    np.testing.assert_allclose(model.label_encoding_error(Y), [0.0, 3 / 16])
    np.testing.assert_allclose(model.label_encoding_error(Y, 0), [3 / 16, 3 / 16])
    np.testing.assert_allclose(model.label_encoding_error(Y, 2), [0.0, 0.0])
    # around the origin the lost label keeps its mean square, 1/4, instead
    origin = PBR(n_components=1, reference="origin").fit(X, Y)
    np.testing.assert_allclose(origin.label_encoding_error(Y), [0.0, 1 / 4])
    np.testing.assert_allclose(origin.label_encoding_error(Y, 0), [3 / 4, 1 / 4])


@pytest.mark.parametrize("n_components", [1, 2, 5, 7, 8])
def test_plst_per_label_error_is_the_residual_column_by_column(n_components):
    X, Y = _data()
    model = PLST(n_components=n_components).fit(X, Y)
    P = model.components_
    residual = (Y - model.offset_) @ (np.eye(Y.shape[1]) - P.T @ P)  # rows: (I - P^T P)(y - o)
    expected = (residual**2).mean(axis=0)
    got = model.label_encoding_error(Y)
    np.testing.assert_allclose(got, expected, atol=1e-12)
    # summed over labels: the per-example error of Theorem 1, averaged over examples
    per_example = model.encoding_error(Y)[:, n_components]
    assert got.sum() == pytest.approx(per_example.mean(), abs=1e-12)
    np.testing.assert_allclose((residual**2).sum(axis=1), per_example, atol=1e-12)


def test_per_label_error_of_sparse_labels_equals_the_dense_one_for_every_m():
    """A CSR label matrix (what labels_for_products gives mostly-zero labels) takes the
    sparse products; the error is the dense one, for every M, through both of the method's
    ways (the kept directions below L / 2, the rest above), and on other labels too."""
    import scipy.sparse as sp

    from mlviz._validation import labels_for_products

    rng = np.random.default_rng(3)
    Y = (rng.random((200, 40)) < 0.04).astype(np.uint8)
    Y[:, 0] = 0  # a label that never occurs
    X = rng.normal(size=(200, 5))
    model = PLST(n_components=12).fit(X, Y)
    assert sp.issparse(labels_for_products(Y))
    for M in range(41):
        for labels in (Y, Y[:50]):
            dense = model.label_encoding_error(labels, M)
            np.testing.assert_allclose(
                model.label_encoding_error(sp.csr_matrix(labels), M), dense, atol=1e-12
            )
            np.testing.assert_allclose(
                model.label_encoding_error(labels_for_products(labels), M), dense, atol=1e-12
            )
    # a sparse matrix is checked like a dense one
    bad = sp.csr_matrix(Y, dtype=float)
    bad.data[3] = 2.0
    with pytest.raises(ValueError, match="only 0 and 1; found 2"):
        model.label_encoding_error(bad)
    with pytest.raises(ValueError, match="39 label columns, but PLST was fitted with 40"):
        model.label_encoding_error(sp.csr_matrix(Y[:, :39]))


def test_per_label_error_for_every_m_and_on_other_labels():
    X, Y = _data()
    Y_other = _data(seed=1)[1]
    model = CPLST(n_components=3).fit(X, Y)
    full = model.encoding_error(Y_other).mean(axis=0)
    for M in range(Y.shape[1] + 1):
        assert model.label_encoding_error(Y_other, M).sum() == pytest.approx(full[M], abs=1e-12)
    # M = 0: the mean squared deviation from the reference point
    np.testing.assert_allclose(
        model.label_encoding_error(Y_other, 0), ((Y_other - model.offset_) ** 2).mean(axis=0)
    )


@pytest.mark.parametrize("bad", [-1, 9, 2.5, True])
def test_per_label_error_rejects_a_bad_m(bad):
    X, Y = _data()
    model = PLST(n_components=2).fit(X, Y)
    with pytest.raises(ValueError, match="between 0 and the number of labels L=8"):
        model.label_encoding_error(Y, bad)


def test_plst_table_unrepresented_share():
    X, Y = _data()
    model = PLST(n_components=2).fit(X[:80], Y[:80])
    table = per_label.plst_label_table(model, X[80:], Y[80:], Y[:80], 0.2)
    np.testing.assert_allclose(table["unrepresented"], table["encoding_error"] / table["variance"])
    assert ((table["unrepresented"] >= -1e-12) & (table["unrepresented"] <= 1 + 1e-12)).all()
    np.testing.assert_array_equal(table["predicted"], model.predict(X[80:]).sum(axis=0))


def test_constant_label_has_no_unrepresented_share():
    X, Y = _data()
    Y[:, 3] = 0
    with pytest.warns(UserWarning, match="constant"):
        model = PLST(n_components=2).fit(X, Y)
    table = per_label.plst_label_table(model, X, Y, Y, 0.1)
    assert np.isnan(table["unrepresented"][3])
    assert table["tail"][3]


# ------------------------------------------------------------------------ CLEMS


def test_clems_decoded_counts_by_hand():
    # three training label sets: {0}, {0, 1}, {2}; label 0 is in two candidate sets
    Y = np.array([[1, 0, 0]] * 4 + [[1, 1, 0]] * 3 + [[0, 0, 1]] * 3)
    X = np.repeat(np.eye(3), [4, 3, 3], axis=0) * 5.0
    model = CLEMS(random_state=0).fit(X, Y)
    table = decoded_label_frequencies(model, X, Y_true=Y)
    assert table["candidate_sets"].tolist() == [2, 1, 1]
    # each training row is decoded to its own label set (the features say which one)
    np.testing.assert_array_equal(model.predict(X), Y)
    assert table["decoded"].tolist() == [7, 3, 3]
    assert table["true"].tolist() == [7, 3, 3]
    np.testing.assert_allclose(table["decoded_share"], [0.7, 0.3, 0.3])


def test_clems_decoded_counts_equal_counting_predict():
    X, Y = _data(n_samples=150)
    model = CLEMS(n_components=4, random_state=0).fit(X[:100], Y[:100])
    chosen = model.predict_candidates(X[100:])
    np.testing.assert_array_equal(model.candidates_[chosen], model.predict(X[100:]))
    table = decoded_label_frequencies(model, X[100:], Y_true=Y[100:])
    np.testing.assert_array_equal(table["decoded"], model.predict(X[100:]).sum(axis=0))
    np.testing.assert_array_equal(table["true"], Y[100:].sum(axis=0))
    np.testing.assert_array_equal(table["candidate_sets"], model.candidates_.sum(axis=0))
    with pytest.raises(ValueError, match=r"Y_true must have shape \(50, 8\)"):
        decoded_label_frequencies(model, X[100:], Y_true=Y[:10])


# ------------------------------------------------------------------------ scores and tables


def test_test_scores_by_hand():
    Y_true = np.array([[1, 0, 0, 0], [1, 1, 0, 0]])
    Y_pred = np.array([[1, 0, 1, 0], [0, 1, 0, 0]])
    scores = per_label._test_scores(Y_true, Y_pred)
    assert scores["support"].tolist() == [2, 1, 0, 0]
    assert scores["predicted"].tolist() == [1, 1, 1, 0]
    np.testing.assert_allclose(scores["recall"], [0.5, 1.0, np.nan, np.nan])
    # label 2: predicted without a positive -> F1 0; label 3: nothing at all -> undefined
    np.testing.assert_allclose(scores["f1"], [2 / 3, 1.0, 0.0, np.nan])
    one = per_label._test_scores(Y_true[:, :1], Y_pred[:, :1])  # a single label column
    np.testing.assert_allclose(one[["recall", "f1"]].to_numpy(), [[0.5, 2 / 3]])


def test_frequency_table_uses_the_tail_definition():
    Y = np.zeros((20, 4), dtype=int)
    Y[:1, 0] = 1  # 5 %
    Y[:2, 1] = 1  # 10 %: not below 10 %
    Y[:10, 2] = 1
    table = per_label.label_frequency_table(Y, 0.1, label_names=["a", "b", "c", "d"])
    assert table["train_count"].tolist() == [1, 2, 10, 0]
    assert table["tail"].tolist() == [True, False, False, True]
    assert sorted(np.flatnonzero(table["tail"])) == sorted(tail_labels(Y, 0.1))
    with pytest.raises(ValueError, match="3 names but Y_train has 4"):
        per_label.label_frequency_table(Y, 0.1, label_names=["a", "b", "c"])


def test_mlknn_table_prior_by_hand():
    X, Y = _data()
    model = MLkNN(k=5, s=1.0).fit(X[:90], Y[:90])
    table = per_label.mlknn_label_table(model, X[90:], Y[90:], Y[:90], 0.2)
    np.testing.assert_allclose(table["prior"], (1 + Y[:90].sum(axis=0)) / (2 + 90))
    pred = model.predict(X[90:])
    given = per_label.mlknn_label_table(model, None, Y[90:], Y[:90], 0.2, Y_pred=pred)
    pd.testing.assert_frame_equal(given, table)
    frequencies = per_label.label_frequency_table(Y[:90], 0.2)
    reused = per_label.mlknn_label_table(
        model, None, Y[90:], Y[:90], 0.2, Y_pred=pred, frequencies=frequencies
    )
    pd.testing.assert_frame_equal(reused, table)
    assert "prior" not in frequencies  # the given table is not modified
    with pytest.raises(ValueError, match="frequencies has 3 label rows"):
        per_label.mlknn_label_table(
            model, None, Y[90:], Y[:90], 0.2, Y_pred=pred, frequencies=frequencies[:3]
        )
    tp = (pred & Y[90:]).sum(axis=0)
    support = Y[90:].sum(axis=0)
    np.testing.assert_allclose(
        table["recall"], np.where(support > 0, tp / np.maximum(support, 1), np.nan)
    )


def test_grople_table_beside_the_baseline():
    X, Y = _data()
    model = GroPLE(n_components=4, n_groups=3, random_state=0).fit(X[:90], Y[:90])
    baseline = BinaryRelevance().fit(X[:90], Y[:90])
    table = per_label.grople_label_table(model, baseline, X[90:], Y[90:], Y[:90], 0.2)
    np.testing.assert_array_equal(table["group"], model.groups_)
    own = per_label._test_scores(Y[90:], model.predict(X[90:]))
    other = per_label._test_scores(Y[90:], baseline.predict(X[90:]))
    np.testing.assert_allclose(table["f1"], own["f1"])
    np.testing.assert_allclose(table["baseline_f1"], other["f1"])
    # predictions passed in are used instead of predicting again: all-zero ones give F1 0
    zero = np.zeros_like(Y[90:])
    given = per_label.grople_label_table(
        model, baseline, X[90:], Y[90:], Y[:90], 0.2, Y_pred=zero, baseline_pred=Y[90:]
    )
    assert (given["predicted"] == 0).all() and (given["baseline_recall"].dropna() == 1).all()
    with pytest.raises(ValueError, match="fitted with 8 labels"):
        per_label.grople_label_table(model, baseline, X[90:], Y[90:], Y[:90, :5], 0.2)


def test_tail_summary_by_hand():
    table = pd.DataFrame(
        {
            "tail": [False, True, True, True, True],
            "support": [9, 3, 0, 2, 1],
            "predicted": [9, 0, 0, 1, 4],
            "recall": [1.0, 0.0, np.nan, 0.5, 0.0],
            "baseline_predicted": [9, 1, 0, 0, 0],
            "baseline_recall": [1.0, 1 / 3, np.nan, 0.0, 0.0],
        }
    )
    assert per_label.tail_summary(table) == {
        "labels": 5,
        "tail": 4,
        "tail_never_predicted": 2,
        "tail_with_test_positive": 3,
        "tail_found": 1,
        "tail_never_predicted_baseline": 3,
        "tail_found_baseline": 1,
    }
    with_shares = table.assign(unrepresented=[0.1, 0.9, np.nan, 0.5, 0.7])
    summary = per_label.tail_summary(with_shares)
    assert summary["tail_unrepresented_median"] == pytest.approx(0.7)
    assert summary["head_unrepresented_median"] == pytest.approx(0.1)


def test_label_frequency_table_reads_uint8_labels_as_their_float_copy_and_names_bad_ones():
    from mlviz.per_label import label_frequency_table

    rng = np.random.default_rng(2)
    Y = (rng.random((50, 6)) < 0.3).astype(np.uint8)
    ours = label_frequency_table(Y, 0.2)
    reference = label_frequency_table(Y.astype(np.float64), 0.2)
    pd.testing.assert_frame_equal(ours, reference)
    Y[4, 2] = 3
    with pytest.raises(ValueError, match="Y_train must contain only 0 and 1; found 3 at row 4"):
        label_frequency_table(Y, 0.2)

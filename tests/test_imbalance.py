"""IRLbl, meanIR and SCUMBLE (mldr's definitions): hand-worked cases, an independent per-row
oracle, sparse input, and the published values on yeast and medical."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import mulan_path
from scipy.stats import gmean

from mlviz import stats
from mlviz.io import Dataset

# counts 4, 1, 1: IRLbl 1, 4, 4. Rows 0 and 2 mix IRLbl 1 and 4: 1 - sqrt(4) / 2.5 = 0.2
Y_HAND = np.array([[1, 1, 0], [1, 0, 0], [1, 0, 1], [1, 0, 0]])


def _dataset(Y) -> Dataset:
    return Dataset(
        "hand",
        np.zeros((Y.shape[0], 1)),
        Y,
        feature_names=("x",),
        label_names=tuple(f"l{j}" for j in range(Y.shape[1])),
    )


def _scumble_oracle(Y: np.ndarray) -> np.ndarray:
    """A direct per-row loop of mldr's formula (scipy's gmean for the geometric mean)."""
    counts = Y.sum(axis=0)
    out = np.zeros(Y.shape[0])
    for i, row in enumerate(Y):
        members = np.flatnonzero(row)
        if members.size:
            ratio = counts.max() / counts[members]
            out[i] = 1 - gmean(ratio) / ratio.mean()
    return out


def test_hand_worked_imbalance_and_scumble():
    np.testing.assert_allclose(stats.imbalance_ratio(Y_HAND), [1.0, 4.0, 4.0])
    np.testing.assert_allclose(stats.scumble(Y_HAND), [0.2, 0.0, 0.2, 0.0])
    np.testing.assert_allclose(stats.label_scumble(Y_HAND), [0.1, 0.2, 0.2])
    numbers = stats.summary(_dataset(Y_HAND))
    assert numbers["mean_ir"] == pytest.approx(3.0)
    assert numbers["max_ir"] == pytest.approx(4.0)
    assert numbers["scumble"] == pytest.approx(0.1)
    # R's sd of (0.2, 0, 0.2, 0) is sqrt(0.04 / 3); over the mean 0.1
    assert numbers["scumble_cv"] == pytest.approx(math.sqrt(0.04 / 3) / 0.1)


def test_label_that_never_occurs_is_nan_and_left_out_of_the_means():
    Y = np.column_stack([Y_HAND, np.zeros(4, dtype=int)])
    ratio = stats.imbalance_ratio(Y)
    assert np.isnan(ratio[3]) and np.isnan(stats.label_scumble(Y)[3])
    numbers = stats.summary(_dataset(Y))
    assert numbers["mean_ir"] == pytest.approx(3.0)  # mldr would count the label as 0: 2.25
    np.testing.assert_allclose(stats.scumble(Y), stats.scumble(Y_HAND))
    table = stats.label_table(Y, tail_threshold=0.1)
    assert np.isnan(table["imbalance_ratio"].iloc[3])


def test_balanced_and_empty_rows_score_zero_and_cv_is_nan_without_spread():
    Y = np.array([[1, 1], [1, 1], [0, 0]])
    np.testing.assert_array_equal(stats.scumble(Y), [0.0, 0.0, 0.0])
    numbers = stats.summary(_dataset(Y))
    assert numbers["scumble"] == 0.0 and math.isnan(numbers["scumble_cv"])


@pytest.mark.parametrize("seed", [0, 1])
def test_random_data_equal_the_row_by_row_oracle_dense_and_sparse(seed):
    rng = np.random.default_rng(seed)
    Y = (rng.random((200, 25)) < np.geomspace(0.01, 0.6, 25)).astype(int)
    expected = _scumble_oracle(Y)
    np.testing.assert_allclose(stats.scumble(Y), expected, atol=1e-12)
    np.testing.assert_allclose(stats.scumble(sp.csr_matrix(Y)), expected, atol=1e-12)
    np.testing.assert_allclose(stats.scumble(sp.csc_matrix(Y)), expected, atol=1e-12)
    per_label = [expected[Y[:, j] == 1].mean() if Y[:, j].any() else np.nan for j in range(25)]
    np.testing.assert_allclose(stats.label_scumble(Y), per_label, atol=1e-12)


def test_hundreds_of_labels_on_one_row_do_not_overflow():
    # 983 labels whose IRLbl reach 10^4: their product (~10^1900) overflows a float
    n_labels = 983
    counts = np.geomspace(1, 10_000, n_labels).astype(int)
    Y = np.zeros((10_000, counts.size), dtype=np.uint8)
    for j, c in enumerate(counts):
        Y[:c, j] = 1
    got = stats.scumble(Y)
    assert np.all(np.isfinite(got))
    ratio = counts.max() / counts.astype(float)
    assert got[0] == pytest.approx(1 - gmean(ratio) / ratio.mean(), rel=1e-10)


def test_sparse_input_is_not_densified():
    # dense, this matrix would take 24 GB as float64: only a nonzero-linear path finishes
    rng = np.random.default_rng(0)
    rows, columns = rng.integers(300_000, size=60_000), rng.integers(10_000, size=60_000)
    Y = sp.csr_matrix((np.ones(60_000), (rows, columns)), shape=(300_000, 10_000))
    Y.data[:] = 1  # a repeated (row, column) pair was summed to 2
    assert stats.scumble(Y).shape == (300_000,)
    assert stats.imbalance_ratio(Y).shape == (10_000,)
    assert stats.label_scumble(Y).shape == (10_000,)


def test_sparse_values_other_than_one_are_rejected():
    with pytest.raises(ValueError, match="only 0 and 1"):
        stats.scumble(sp.csr_matrix(np.array([[2, 0], [1, 1]])))


@pytest.mark.parametrize(
    "name,mean_ir,scumble",
    [("yeast", 7.20, 0.104), ("medical", 89.50, 0.047)],
)
def test_published_values_on_mulan_data(name, mean_ir, scumble):
    from mlviz import load_arff

    numbers = stats.summary(load_arff(mulan_path(f"{name}.arff")))
    assert numbers["mean_ir"] == pytest.approx(mean_ir, abs=0.005)
    assert numbers["scumble"] == pytest.approx(scumble, abs=0.0005)


@pytest.mark.parametrize("dtype", [np.uint8, np.int64, np.float64, bool])
def test_statistics_read_labels_of_every_dtype_alike_and_refuse_non_binary_uint8(dtype):
    # uint8 (a data set's own labels) takes a range check instead of the float64 validation
    Y = np.array([[1, 1, 0], [1, 1, 0], [1, 0, 1], [0, 0, 0]]).astype(dtype)
    assert stats.distinct_labelsets(Y) == 3
    assert stats.label_cardinality(Y) == pytest.approx(6 / 4)
    bad = np.array([[0, 1], [2, 0]], dtype=np.uint8)
    with pytest.raises(ValueError, match="found 2 at row 1, label column 0"):
        stats.label_cardinality(bad)

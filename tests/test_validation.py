"""mlviz._validation.check_label_matrix: every dtype gives the same answer (issue 33 made 0/1
integer and boolean matrices skip the float checks)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from mlviz._validation import (
    SPARSE_LABEL_DENSITY,
    check_label_matrix,
    check_sparse_labels,
    csr_labels,
    labels_for_products,
)


@pytest.mark.parametrize("dtype", [bool, np.uint8, np.int8, np.int64, np.float32, np.float64])
def test_zero_one_labels_of_every_dtype_give_the_same_float_matrix(dtype):
    Y = np.array([[1, 0, 1], [0, 0, 1]])
    out = check_label_matrix(Y.astype(dtype))
    assert out.dtype == np.float64
    np.testing.assert_array_equal(out, Y)


@pytest.mark.parametrize(
    ("dtype", "value"),
    [(np.int8, 2), (np.int8, -1), (np.int64, -1), (np.uint8, 2), (np.float64, 2), (np.float64, -1)],
)
def test_a_value_outside_zero_one_is_located_whatever_the_dtype(dtype, value):
    Y = np.zeros((3, 4), dtype=dtype)
    Y[2, 1] = value
    with pytest.raises(ValueError, match=f"only 0 and 1; found {value} at row 2, label column 1"):
        check_label_matrix(Y)


def test_an_empty_integer_matrix_and_nan_labels():
    assert check_label_matrix(np.zeros((0, 3), dtype=np.int64)).shape == (0, 3)
    with pytest.raises(ValueError, match="NaN or infinite"):
        check_label_matrix(np.array([[0.0, np.nan]]))


@pytest.mark.parametrize(
    "Y",
    [np.array([[1, 0], [0, 1]], dtype=np.uint8), np.array([[True, False], [False, True]])]
    + [np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([[1, 0], [0, 1]], dtype=np.int64)],
)
def test_check_label_matrix_returns_the_asked_dtype_with_the_same_values(Y):
    # the metrics ask for int8 (they count): no float64 copy in between, the same 0/1 values
    out = check_label_matrix(Y, dtype=np.int8)
    assert out.dtype == np.int8
    np.testing.assert_array_equal(out, [[1, 0], [0, 1]])
    assert check_label_matrix(Y).dtype == np.float64


@pytest.mark.parametrize("bad", [0.5, 2.0, -1.0, np.nan])
def test_check_label_matrix_int8_still_refuses_what_is_not_0_1(bad):
    # a cast to int8 would turn 0.5 into 0 and 2 into a count: the checks come first
    Y = np.array([[1.0, 0.0], [0.0, bad]])
    with pytest.raises(ValueError, match="Y"):
        check_label_matrix(Y, dtype=np.int8)
    if bad in (2.0, -1.0):  # the same values stored as integers take the range check
        with pytest.raises(ValueError, match="only 0 and 1"):
            check_label_matrix(Y.astype(np.int64), dtype=np.int8)


@pytest.mark.parametrize("dtype", [np.uint8, np.float64, bool, np.int64])
@pytest.mark.parametrize("shape", [(7, 5), (0, 3), (4, 1), (3, 0)])
def test_csr_labels_equals_scipys_conversion(dtype, shape):
    rng = np.random.default_rng(9)
    Y = (rng.random(shape) < 0.3).astype(dtype)
    if Y.size:
        Y[-1] = 0  # an empty last row: its indptr entry must still be written
    for data_dtype in (np.float64, np.int8):
        ours = csr_labels(Y, data_dtype)
        reference = sp.csr_matrix(Y, dtype=data_dtype)
        assert ours.shape == reference.shape and ours.dtype == data_dtype
        np.testing.assert_array_equal(ours.toarray(), reference.toarray())
        assert ours.has_canonical_format
    # F-ordered and sliced arrays too
    if Y.size:
        view = np.asfortranarray(Y)[:, ::-1]
        np.testing.assert_array_equal(csr_labels(view).toarray(), view.astype(float))


def test_labels_for_products_is_sparse_for_mostly_zeros_and_checks_like_the_dense_check():
    rng = np.random.default_rng(4)
    n_ones = int(SPARSE_LABEL_DENSITY * 1000)
    Y = np.zeros((50, 20), dtype=np.uint8)
    Y.flat[rng.choice(1000, n_ones, replace=False)] = 1  # at the density: sparse
    sparse = labels_for_products(Y)
    assert sp.isspmatrix_csr(sparse) and sparse.dtype == np.float64
    np.testing.assert_array_equal(sparse.toarray(), Y)
    Y.flat[np.flatnonzero(Y.ravel() == 0)[0]] = 1  # one more: dense, as check_label_matrix
    dense = labels_for_products(Y)
    assert isinstance(dense, np.ndarray) and dense.dtype == np.float64
    np.testing.assert_array_equal(dense, Y)
    assert sp.isspmatrix_csr(labels_for_products(sp.csc_matrix(Y)))  # sparse stays sparse
    # what check_label_matrix refuses, both forms refuse
    for bad in (2.0, -1.0, 0.5, np.nan):
        Z = np.zeros((30, 4))
        Z[7, 2] = bad
        with pytest.raises(ValueError, match="Y"):
            labels_for_products(Z)
        with pytest.raises(ValueError, match="at row 7, label column 2"):
            check_sparse_labels(sp.csr_matrix(Z))
    with pytest.raises(ValueError, match="numeric"):
        labels_for_products(np.array([["a", "b"]], dtype=object))
    with pytest.raises(ValueError, match="^Y_train must contain only 0 and 1"):  # named
        labels_for_products(sp.csr_matrix([[0, 2]]), name="Y_train")
    with pytest.raises(ValueError, match="no label columns"):
        check_sparse_labels(sp.csr_matrix((3, 0)))

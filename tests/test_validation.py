"""mlviz._validation.check_label_matrix: every dtype gives the same answer (issue 33 made 0/1
integer and boolean matrices skip the float checks)."""

from __future__ import annotations

import numpy as np
import pytest

from mlviz._validation import check_label_matrix


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

"""Input validation shared by every mlviz estimator.

scikit-learn's ``check_array``/``validate_data`` do the heavy lifting; these wrappers add
the multi-label specific checks (a 0/1 label matrix, matching rows) and messages that say
what was wrong and what to do.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp


def check_features(X, *, name: str = "X", allow_sparse: bool = True, allow_nan: bool = False):
    """Return X as float64 ndarray or CSR matrix, rejecting NaN/inf with a clear message.

    ``allow_nan=True`` lets NaN through (infinite values are still rejected): for callers
    that only split X and hand each part to an estimator that validates it itself, e.g. a
    pipeline whose imputer fills the NaN on the training rows of each fold.
    """
    # imported here: scikit-learn costs ~1 s to import, and the label-only paths (statistics,
    # the app's first page) never need it
    from sklearn.utils.validation import check_array

    try:
        return check_array(
            X,
            accept_sparse=["csr"] if allow_sparse else False,
            dtype=np.float64,
            ensure_all_finite="allow-nan" if allow_nan else True,
            input_name=name,
        )
    except ValueError as err:
        raise ValueError(
            f"{name} is not a valid feature matrix: {err} "
            "Impute or drop missing values before fitting (mlviz.load_arff imputes '?' by "
            "column mean)."
        ) from err


def check_label_matrix(
    Y, *, n_samples: int | None = None, name: str = "Y", dtype=np.float64
) -> np.ndarray:
    """Return Y as a dense (N, L) array of 0/1 values, float64 unless ``dtype`` says otherwise.

    Accepts dense arrays, scipy sparse matrices, boolean arrays and {-1, 1} is *not*
    accepted (that would be a silent re-interpretation): labels must be 0/1. ``dtype``
    (e.g. int8 for the metrics, which count) is the type of the returned copy; integer and
    boolean input is converted to it directly, without a float64 copy in between.
    """
    if sp.issparse(Y):
        Y = Y.toarray()
    Y = np.asarray(Y)
    if Y.ndim == 1:
        raise ValueError(
            f"{name} must be a 2-D 0/1 label matrix of shape (n_samples, n_labels); got a 1-D "
            f"array of shape {Y.shape}. For a single label use Y.reshape(-1, 1)."
        )
    if Y.ndim != 2:
        raise ValueError(f"{name} must be 2-D (n_samples, n_labels); got shape {Y.shape}.")
    if Y.shape[1] == 0:
        raise ValueError(f"{name} has no label columns: a multi-label problem needs at least one.")
    if Y.dtype == object or not np.issubdtype(Y.dtype, np.number) and Y.dtype != bool:
        raise ValueError(f"{name} must be numeric 0/1; got dtype {Y.dtype}.")
    if Y.dtype == bool or (
        np.issubdtype(Y.dtype, np.integer) and (Y.size == 0 or (Y.min() >= 0 and Y.max() <= 1))
    ):
        # 0/1 by type or by range: the float checks below cost ~5 passes over a float64 copy
        # (0.1 s on a 16,105 x 983 matrix, and pages call this ~20 times a run)
        Yf = Y.astype(dtype)
    else:
        Yf = _checked_float_labels(Y, name).astype(dtype, copy=False)
    if n_samples is not None and Yf.shape[0] != n_samples:
        raise ValueError(
            f"X and {name} have different numbers of rows: {n_samples} and {Yf.shape[0]}."
        )
    return Yf


def csr_labels(Y, dtype=np.float64) -> sp.csr_matrix:
    """A (validated) label matrix as CSR with ``dtype`` data, for sparse products and counts.

    A dense array goes through one ``np.flatnonzero`` pass and the row counts, where
    scipy's conversion builds a COO copy first: 46 -> 27 ms for 11,273 x 983 uint8 labels
    (67 -> 51 ms from float64), and pages convert the same training labels several times a
    run.

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz._validation import csr_labels
    >>> csr_labels(np.array([[0, 1, 1], [0, 0, 0], [1, 0, 0]])).toarray().tolist()
    [[0.0, 1.0, 1.0], [0.0, 0.0, 0.0], [1.0, 0.0, 0.0]]
    """
    if sp.issparse(Y):
        return sp.csr_matrix(Y, dtype=dtype)
    Y = np.asarray(Y)
    if Y.ndim != 2:
        return sp.csr_matrix(Y, dtype=dtype)
    flat = np.flatnonzero(Y)
    n_rows, n_cols = Y.shape
    rows, columns = np.divmod(flat, max(n_cols, 1))
    index = np.int32 if max(flat.size, n_cols) < np.iinfo(np.int32).max else np.int64
    indptr = np.zeros(n_rows + 1, dtype=index)
    np.cumsum(np.bincount(rows, minlength=n_rows), out=indptr[1:])
    data = Y.reshape(-1)[flat].astype(dtype)
    return sp.csr_matrix((data, columns.astype(index), indptr), shape=Y.shape)


#: Label matrices with at most this share of ones are multiplied as CSR: a product then costs
#: the stored ones (delicious ~2 %, medical ~3 %), where a dense BLAS product costs every cell.
#: The one rule for the label co-occurrence counts (``mlviz.label_clustering``), GroPLE's
#: stage 2 and the per-label encoding errors (:func:`labels_for_products`).
SPARSE_LABEL_DENSITY = 0.05


def labels_for_products(Y, *, name: str = "Y") -> np.ndarray | sp.csr_matrix:
    """Validated 0/1 labels in the form their products are cheapest in: CSR (float64) when
    sparse already or at most :data:`SPARSE_LABEL_DENSITY` ones, else a dense float64 array.

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz._validation import labels_for_products
    >>> Y = np.zeros((100, 50), dtype=np.uint8)
    >>> Y[::10, 0] = 1
    >>> type(labels_for_products(Y)).__name__, labels_for_products(np.ones((3, 2))).dtype
    ('csr_matrix', dtype('float64'))
    """
    if sp.issparse(Y):
        return check_sparse_labels(Y, name=name)
    Y = np.asarray(Y)
    if Y.ndim == 2 and np.count_nonzero(Y) <= SPARSE_LABEL_DENSITY * Y.size:
        check_label_matrix(Y[:0], name=name)  # the dtype's checks; the values: below
        return check_sparse_labels(csr_labels(Y), name=name)
    return check_label_matrix(Y, name=name)


def check_sparse_labels(Y, *, name: str = "Y") -> sp.csr_matrix:
    """A sparse label matrix as CSR with float64 data, its stored values checked to be 0 or 1
    (the check of :func:`check_label_matrix`, over the stored entries only).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> from mlviz._validation import check_sparse_labels
    >>> check_sparse_labels(sp.csr_matrix([[0, 2]]))
    Traceback (most recent call last):
    ...
    ValueError: Y must contain only 0 and 1; found 2 at row 0, label column 1. ...
    """
    Y = sp.csr_matrix(Y, dtype=np.float64)
    if Y.shape[1] == 0:
        raise ValueError(f"{name} has no label columns: a multi-label problem needs at least one.")
    data = Y.data
    bad = ~np.isfinite(data) | ((data != 0) & (data != 1))
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        row = int(np.searchsorted(Y.indptr, first, side="right") - 1)
        raise ValueError(
            f"{name} must contain only 0 and 1; found {data[first]:g} at row {row}, label "
            f"column {Y.indices[first]}. Convert {{-1, 1}} labels with (Y + 1) // 2."
        )
    return Y


def _checked_float_labels(Y: np.ndarray, name: str) -> np.ndarray:
    Yf = Y.astype(np.float64)
    if not np.all(np.isfinite(Yf)):
        raise ValueError(f"{name} contains NaN or infinite values; labels must be 0/1.")
    bad = (Yf != 0) & (Yf != 1)
    if bad.any():
        row, col = np.argwhere(bad)[0]
        raise ValueError(
            f"{name} must contain only 0 and 1; found {Yf[row, col]:g} at row {row}, label "
            f"column {col}. Convert {{-1, 1}} labels with (Y + 1) // 2."
        )
    return Yf


def check_multilabel_target(
    y, *, n_samples: int, name: str = "y"
) -> tuple[np.ndarray, np.dtype, bool]:
    """Validate the target of a multi-label estimator's ``fit``.

    Parameters
    ----------
    y : array-like or scipy sparse matrix of shape (n_samples, n_labels) or (n_samples,)
        0/1 label indicator matrix. A 1-D array is one label column: scikit-learn's binary
        classification convention, which its estimator checks rely on.
    n_samples : int
        Rows of X.
    name : str, default="y"
        Name used in error messages.

    Returns
    -------
    Y : ndarray of float64, shape (n_samples, n_labels)
        Always 2-D (a 1-D ``y`` becomes one column).
    dtype : numpy.dtype
        The dtype of ``y``, which predictions are returned in.
    is_1d : bool
        Whether ``y`` was 1-D.

    Raises
    ------
    ValueError
        With scikit-learn's wording where its checks look for it: "Only binary
        classification is supported" for a 1-D target with more than two values, "continuous"
        for non-integer values; otherwise the cell that is not 0/1 and what to do.
    """
    if y is None:
        raise ValueError(
            f"this estimator requires y to be passed, but the target {name} is None: pass the "
            "0/1 label matrix as the second argument of fit."
        )
    array = y.toarray() if sp.issparse(y) else np.asarray(y)
    if array.dtype == object:
        # numbers stored as Python objects (e.g. from a DataFrame of mixed columns): let
        # numpy infer their common numeric dtype; anything else stays non-numeric
        array = np.array(array.tolist())
    if not (np.issubdtype(array.dtype, np.number) or array.dtype == bool):
        example = array.flat[0] if array.size else None
        raise ValueError(
            f"Unknown label type: {name} must be a numeric 0/1 label indicator matrix; got "
            f"dtype {array.dtype} (values such as {example!r}). Encode class names as a 0/1 "
            "matrix first, e.g. with sklearn.preprocessing.MultiLabelBinarizer."
        )
    is_1d = array.ndim == 1
    if is_1d:
        if array.size and np.all(np.isfinite(array)) and np.all(array == np.round(array)):
            values = np.unique(array)
            if values.size > 2:
                shown = ", ".join(str(v) for v in values[:5]) + (", ..." if values.size > 5 else "")
                raise ValueError(
                    f"Only binary classification is supported. {name} is a 1-D target with "
                    f"{values.size} distinct values ({shown}), i.e. multi-class; mlviz "
                    "estimators take 0/1 label indicators. One-hot encode a multi-class target "
                    "with sklearn.preprocessing.LabelBinarizer."
                )
        array = array.reshape(-1, 1)
    # integer and boolean labels cannot be continuous (skips four passes over N x L)
    exact = np.issubdtype(array.dtype, np.integer) or array.dtype == bool
    finite = None if exact else array.astype(np.float64)
    non_integer = None if exact else np.isfinite(finite) & (finite != np.round(finite))
    if non_integer is not None and non_integer.any():
        row, col = np.argwhere(non_integer)[0]
        raise ValueError(
            f"{name} has continuous values (e.g. {finite[row, col]:g} at row {row}, label "
            f"column {col}); a classifier needs 0/1 label indicators. Threshold real-valued "
            "targets yourself or use a regressor."
        )
    return check_label_matrix(array, n_samples=n_samples, name=name), array.dtype, is_1d

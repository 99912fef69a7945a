"""Input validation shared by every mlviz estimator.

scikit-learn's ``check_array``/``validate_data`` do the heavy lifting; these wrappers add
the multi-label specific checks (a 0/1 label matrix, matching rows) and messages that say
what was wrong and what to do.
"""

from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp


def check_features(X, *, name: str = "X", allow_sparse: bool = True):
    """Return X as float64 ndarray or CSR matrix, rejecting NaN/inf with a clear message."""
    # imported here: scikit-learn costs ~1 s to import, and the label-only paths (statistics,
    # the app's first page) never need it
    from sklearn.utils.validation import check_array

    try:
        return check_array(
            X,
            accept_sparse=["csr"] if allow_sparse else False,
            dtype=np.float64,
            ensure_all_finite=True,
            input_name=name,
        )
    except ValueError as err:
        raise ValueError(
            f"{name} is not a valid feature matrix: {err} "
            "Impute or drop missing values before fitting (mlviz.load_arff imputes '?' by "
            "column mean)."
        ) from err


def check_label_matrix(Y, *, n_samples: int | None = None, name: str = "Y") -> np.ndarray:
    """Return Y as a dense float64 (N, L) array of 0/1 values.

    Accepts dense arrays, scipy sparse matrices, boolean arrays and {-1, 1} is *not*
    accepted (that would be a silent re-interpretation): labels must be 0/1.
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
    Yf = Y.astype(np.float64)
    if not np.all(np.isfinite(Yf)):
        raise ValueError(f"{name} contains NaN or infinite values; labels must be 0/1.")
    bad = (Yf != 0) & (Yf != 1)
    if bad.any():
        row, col = np.argwhere(bad)[0]
        raise ValueError(
            f"{name} must contain only 0 and 1; found {Yf[row, col]!r} at row {row}, label "
            f"column {col}. Convert {{-1, 1}} labels with (Y + 1) // 2."
        )
    if n_samples is not None and Yf.shape[0] != n_samples:
        raise ValueError(
            f"X and {name} have different numbers of rows: {n_samples} and {Yf.shape[0]}."
        )
    return Yf


def check_n_components(n_components, n_labels: int, *, name: str = "n_components") -> int:
    """Validate an embedding dimension 1 <= M <= K."""
    if not isinstance(n_components, numbers.Integral) or isinstance(n_components, bool):
        raise ValueError(f"{name} must be an integer; got {n_components!r}.")
    if not 1 <= n_components <= n_labels:
        raise ValueError(
            f"{name}={n_components} is out of range: it must be between 1 and the number of "
            f"labels K={n_labels}."
        )
    return int(n_components)

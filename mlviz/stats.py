"""Label-space statistics of a multi-label data set (the *Data* page's numbers).

Every function takes a 0/1 label matrix ``Y`` of shape (N, L) or a :class:`mlviz.Dataset`
(its ``Y`` is used). Definitions follow the MULAN conventions the papers' data-set tables use
(e.g. paper 001 Table 1 "cardinality", paper 002 Table 1 distinct label sets, paper 004's
hypercube view): cardinality is the mean number of labels per instance, density is
cardinality / L, and the hypercube sparsity is the fraction of the 2^L vertices that any
instance occupies, reported as a base-10 logarithm because 2^L overflows a float for L > 1023.
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
import pandas as pd
import scipy.sparse as sp

from mlviz._validation import check_label_matrix
from mlviz.io import Dataset

__all__ = [
    "cooccurrence",
    "distinct_labelsets",
    "hypercube_sparsity_log10",
    "is_tail",
    "label_cardinality",
    "label_density",
    "label_frequencies",
    "labelset_counts",
    "summary",
    "tail_labels",
    "unique_rows",
]


def _labels(Y) -> np.ndarray:
    """The label matrix as uint8 (N, L), validated; accepts a Dataset."""
    if isinstance(Y, Dataset):
        Y = Y.Y
    Y = check_label_matrix(Y)
    if Y.shape[0] == 0:
        raise ValueError("Y has no rows: statistics need at least one instance.")
    return Y.astype(np.uint8)


def label_cardinality(Y) -> float:
    """Mean number of relevant labels per instance, ``1/N Σ_i |Y_i|``.

    Examples
    --------
    >>> import numpy as np
    >>> Y = np.array([[1, 1, 0], [1, 1, 0], [1, 0, 1], [0, 1, 1], [0, 0, 0]])
    >>> from mlviz.stats import label_cardinality
    >>> round(label_cardinality(Y), 3)
    1.6
    """
    return float(_labels(Y).sum(axis=1).mean())


def label_density(Y) -> float:
    """Label cardinality divided by the number of labels L (mean of all Y entries).

    Examples
    --------
    >>> import numpy as np
    >>> Y = np.array([[1, 1, 0], [1, 1, 0], [1, 0, 1], [0, 1, 1], [0, 0, 0]])
    >>> from mlviz.stats import label_density
    >>> round(label_density(Y), 3)
    0.533
    """
    Y = _labels(Y)
    return float(Y.sum(axis=1).mean() / Y.shape[1])


def unique_rows(Y, *, return_inverse: bool = False):
    """Distinct rows of a 0/1 matrix and their counts, in lexicographic order of the rows.

    The same as ``np.unique(Y, axis=0, return_counts=True)`` (and ``return_inverse``), but the
    rows are first packed to bits (``np.packbits``) and compared as single byte strings: 8x
    less memory, and much faster with ~1,000 labels (``benchmarks/bench_scale.py`` times
    both). Packing is big-endian with zero padding, so byte order is the rows' lexicographic
    order. The one helper for counting label
    sets: ``stats``, ``hypercube`` and ``clems`` all use it.

    Parameters
    ----------
    Y : array-like of shape (N, L)
        0/1 matrix (not validated: callers pass an already checked label matrix).
    return_inverse : bool, default=False
        Also return, for every row of Y, the index of its distinct row.

    Returns
    -------
    rows : ndarray of uint8, shape (n_distinct, L)
    counts : ndarray of int64, shape (n_distinct,)
    inverse : ndarray of intp, shape (N,)
        Only with ``return_inverse=True``.

    Examples
    --------
    >>> import numpy as np
    >>> Y = np.array([[1, 1, 0], [1, 1, 0], [1, 0, 1], [0, 1, 1], [0, 0, 0]])
    >>> from mlviz.stats import unique_rows
    >>> rows, counts = unique_rows(Y)
    >>> rows.tolist(), counts.tolist()
    ([[0, 0, 0], [0, 1, 1], [1, 0, 1], [1, 1, 0]], [1, 1, 1, 2])
    """
    Y = np.ascontiguousarray(Y, dtype=np.uint8)
    if Y.shape[1] == 0:
        # no columns: every row is the same (empty) vector
        n_rows = Y.shape[0]
        rows, counts = Y[: min(1, n_rows)], np.full(min(1, n_rows), n_rows, dtype=np.int64)
        inverse = np.zeros(n_rows, dtype=np.intp)
        return (rows, counts, inverse) if return_inverse else (rows, counts)
    packed = np.packbits(Y, axis=1)
    keys = packed.view(np.dtype((np.void, packed.shape[1]))).ravel()
    _, first, inverse, counts = np.unique(
        keys, return_index=True, return_inverse=True, return_counts=True
    )
    counts = counts.astype(np.int64)
    if return_inverse:
        return Y[first], counts, inverse.ravel().astype(np.intp)
    return Y[first], counts


def distinct_labelsets(Y) -> int:
    """Number of distinct label vectors (label sets) among the instances.

    Examples
    --------
    >>> import numpy as np
    >>> Y = np.array([[1, 1, 0], [1, 1, 0], [1, 0, 1], [0, 1, 1], [0, 0, 0]])
    >>> from mlviz.stats import distinct_labelsets
    >>> distinct_labelsets(Y)
    4
    """
    return int(len(unique_rows(_labels(Y))[1]))


def hypercube_sparsity_log10(Y) -> float:
    """``log10(distinct / 2^L)``: how small a fraction of the hypercube's vertices is used.

    Computed as ``log10(distinct) - L log10(2)`` so it never overflows (2^L does for
    L > 1023). Always <= 0; e.g. yeast (198 distinct of 2^14) gives about -1.92.

    Examples
    --------
    >>> import numpy as np
    >>> Y = np.array([[1, 1, 0], [1, 1, 0], [1, 0, 1], [0, 1, 1], [0, 0, 0]])
    >>> from mlviz.stats import hypercube_sparsity_log10
    >>> round(hypercube_sparsity_log10(Y), 3)  # 4 of the 2^3 = 8 vertices: log10(0.5)
    -0.301
    """
    Y = _labels(Y)
    return math.log10(distinct_labelsets(Y)) - Y.shape[1] * math.log10(2.0)


def label_frequencies(Y, *, relative: bool = False) -> np.ndarray:
    """Per-label number of relevant instances, shape (L,), in column order.

    Parameters
    ----------
    relative : bool
        Return the fraction of instances instead of counts.

    Examples
    --------
    >>> import numpy as np
    >>> Y = np.array([[1, 1, 0], [1, 1, 0], [1, 0, 1], [0, 1, 1], [0, 0, 0]])
    >>> from mlviz.stats import label_frequencies
    >>> label_frequencies(Y).tolist()
    [3, 3, 2]
    >>> label_frequencies(Y, relative=True).tolist()
    [0.6, 0.6, 0.4]
    """
    Y = _labels(Y)
    counts = Y.sum(axis=0, dtype=np.int64)
    return counts / Y.shape[0] if relative else counts


def is_tail(frequencies, threshold: float) -> np.ndarray:
    """Whether each label is a tail label: relative frequency strictly below ``threshold``.

    This is the one place mlviz compares a frequency with the tail threshold;
    :func:`tail_labels`, the per-label tables, the figures and the app all ask it, so that a
    label exactly at the threshold is a head label everywhere.

    Parameters
    ----------
    frequencies : array-like of float, shape (L,)
        Relative label frequencies (fractions of the instances), e.g.
        ``label_frequencies(Y, relative=True)``.
    threshold : float
        A fraction of the instances. Not validated here (the callers that take it from a user
        validate it, e.g. :func:`tail_labels`).

    Returns
    -------
    ndarray of bool, shape (L,)

    Examples
    --------
    >>> from mlviz.stats import is_tail
    >>> is_tail([0.01, 0.05, 0.2], threshold=0.05).tolist()  # at the threshold is not tail
    [True, False, False]
    """
    return np.asarray(frequencies, dtype=float) < threshold


def tail_labels(Y, threshold: float) -> np.ndarray:
    """Indices of the labels whose relative frequency is strictly below ``threshold``.

    Parameters
    ----------
    threshold : float in (0, 1]
        A fraction of the instances, e.g. 0.05 for labels present in fewer than 5% of them.

    Returns
    -------
    ndarray of int
        Column indices, rarest first (ties in column order).

    Examples
    --------
    >>> import numpy as np
    >>> Y = np.array([[1, 1, 0], [1, 1, 0], [1, 0, 1], [0, 1, 1], [0, 0, 0]])
    >>> from mlviz.stats import tail_labels
    >>> tail_labels(Y, threshold=0.5).tolist()  # label 2 is on 40% of the instances
    [2]
    """
    if not isinstance(threshold, (int, float)) or not 0.0 < float(threshold) <= 1.0:
        raise ValueError(
            f"threshold must be a fraction of the instances in (0, 1]; got {threshold!r}. For a "
            "count c over N instances pass c / N."
        )
    frequencies = label_frequencies(Y, relative=True)
    rare = np.flatnonzero(is_tail(frequencies, threshold))
    return rare[np.argsort(frequencies[rare], kind="stable")]


def cooccurrence(Y, normalize: Literal["jaccard", "conditional"] | None = None) -> np.ndarray:
    """Label co-occurrence matrix, shape (L, L).

    Parameters
    ----------
    normalize : {None, "jaccard", "conditional"}
        * ``None``: ``C[i, j]`` = number of instances with both labels i and j (the diagonal is
          the label frequency), i.e. ``Yᵀ Y``;
        * ``"jaccard"``: ``C[i, j] / (n_i + n_j - C[i, j])``, symmetric, 1 on the diagonal;
        * ``"conditional"``: ``C[i, j] / n_i`` = P(label j | label i), rows sum the co-occurring
          mass of label i, 1 on the diagonal.

        Labels that never occur give 0/0; those entries (their row and column, diagonal
        included) are set to 0.

    Returns
    -------
    ndarray of int64 (counts) or float64 (normalised)

    Examples
    --------
    >>> import numpy as np
    >>> Y = np.array([[1, 1, 0], [1, 1, 0], [1, 0, 1], [0, 1, 1], [0, 0, 0]])
    >>> from mlviz.stats import cooccurrence
    >>> cooccurrence(Y).tolist()
    [[3, 2, 1], [2, 3, 1], [1, 1, 2]]
    >>> cooccurrence(Y, normalize="conditional").round(2)[0].tolist()  # P(j | label 0)
    [1.0, 0.67, 0.33]
    """
    if normalize not in (None, "jaccard", "conditional"):
        raise ValueError(f"normalize must be None, 'jaccard' or 'conditional'; got {normalize!r}.")
    # numpy's integer matrix product does not use BLAS (minutes with ~1,000 labels); a sparse
    # product of the 0/1 matrix gives the same exact counts in a fraction of a second
    labels = sp.csr_matrix(_labels(Y), dtype=np.int64)
    counts = (labels.T @ labels).toarray()
    if normalize is None:
        return counts
    n = np.diag(counts).astype(np.float64)
    if normalize == "jaccard":
        denominator = n[:, None] + n[None, :] - counts
    else:
        denominator = np.broadcast_to(n[:, None], counts.shape)
    out = np.zeros(counts.shape, dtype=np.float64)
    np.divide(counts, denominator, out=out, where=denominator > 0)
    return out


def labelset_counts(Y, label_names=None) -> pd.DataFrame:
    """How many instances carry each distinct label set, most frequent first.

    Parameters
    ----------
    Y : array-like (N, L) or Dataset
    label_names : sequence of str, optional
        Names for the ``labels`` column; default the Dataset's names, else ``"0"``, ``"1"``, ...

    Returns
    -------
    DataFrame with columns
        ``labelset`` (tuple of label column indices, sorted), ``labels`` (their names joined by
        ``", "``, ``"∅"`` for the empty set), ``count`` (instances), ``size`` (number of labels).
        Ties in ``count`` are ordered by size, then by the index tuple.

    Examples
    --------
    >>> import numpy as np
    >>> Y = np.array([[1, 1, 0], [1, 1, 0], [1, 0, 1], [0, 1, 1], [0, 0, 0]])
    >>> from mlviz.stats import labelset_counts
    >>> table = labelset_counts(Y, label_names=["a", "b", "c"])
    >>> table["labels"].tolist(), table["count"].tolist()
    (['a, b', '∅', 'a, c', 'b, c'], [2, 1, 1, 1])
    """
    if label_names is None and isinstance(Y, Dataset):
        label_names = Y.label_names
    Y = _labels(Y)
    if label_names is None:
        label_names = [str(k) for k in range(Y.shape[1])]
    if len(label_names) != Y.shape[1]:
        raise ValueError(
            f"label_names has {len(label_names)} names but Y has {Y.shape[1]} label columns."
        )
    vectors, counts = unique_rows(Y)
    sets = [tuple(int(k) for k in np.flatnonzero(v)) for v in vectors]
    table = pd.DataFrame(
        {
            "labelset": sets,
            "labels": [", ".join(label_names[k] for k in s) if s else "∅" for s in sets],
            "count": counts.astype(np.int64),
            "size": [len(s) for s in sets],
        }
    )
    order = sorted(range(len(sets)), key=lambda i: (-counts[i], len(sets[i]), sets[i]))
    return table.iloc[order].reset_index(drop=True)


def summary(dataset: Dataset, *, tail_threshold: float = 0.01) -> dict[str, object]:
    """The headline numbers of a data set, for a table or ``st.metric`` row.

    Returns
    -------
    dict
        ``name``, ``instances``, ``features``, ``labels``, ``sparse`` (X stored as CSR),
        ``cardinality``, ``density``, ``distinct`` (label sets), ``log10_sparsity``
        (:func:`hypercube_sparsity_log10`), ``max_labels`` (most labels on one instance),
        ``empty_instances`` (instances with no label), ``unique_labelsets`` (label sets seen
        on exactly one instance), ``min_label_count`` / ``max_label_count`` (rarest and most
        frequent label), ``tail_labels`` (labels below ``tail_threshold`` relative frequency)
        and ``tail_threshold``.

    Examples
    --------
    >>> from mlviz.stats import summary
    >>> from mlviz.synthetic import make_cube
    >>> numbers = summary(make_cube(n_samples=40, random_state=0))
    >>> numbers["instances"], numbers["labels"], numbers["distinct"]
    (40, 3, 7)
    """
    Y = _labels(dataset)
    sizes = Y.sum(axis=1)
    frequencies = label_frequencies(Y)
    _, set_counts = unique_rows(Y)
    return {
        "name": dataset.name,
        "instances": dataset.n_samples,
        "features": dataset.n_features,
        "labels": dataset.n_labels,
        "sparse": dataset.is_sparse,
        "cardinality": float(sizes.mean()),
        "density": float(sizes.mean() / Y.shape[1]),
        "distinct": int(len(set_counts)),
        "log10_sparsity": math.log10(len(set_counts)) - Y.shape[1] * math.log10(2.0),
        "max_labels": int(sizes.max()),
        "empty_instances": int((sizes == 0).sum()),
        "unique_labelsets": int((set_counts == 1).sum()),
        "min_label_count": int(frequencies.min()),
        "max_label_count": int(frequencies.max()),
        "tail_labels": int(len(tail_labels(Y, tail_threshold))),
        "tail_threshold": float(tail_threshold),
    }

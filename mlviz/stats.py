"""Label-space statistics of a multi-label data set (the *Data* page's numbers).

Every function takes a 0/1 label matrix ``Y`` of shape (N, L) or a :class:`mlviz.Dataset`
(its ``Y`` is used). Definitions follow the MULAN conventions the papers' data-set tables use
(e.g. paper 001 Table 1 "cardinality", paper 002 Table 1 distinct label sets, paper 004's
hypercube view): cardinality is the mean number of labels per instance, density is
cardinality / L, and the hypercube sparsity is the fraction of the 2^L vertices that any
instance occupies, reported as a base-10 logarithm because 2^L overflows a float for L > 1023.

The last section holds the numbers behind the Lesson page's "what to notice" sentences
(formerly ``mlviz.figures.lesson``, which drew no figure): statistics of label matrices,
predictions and fitted attributes, so that every sentence is true on whatever data set is
loaded. None of them fits a model.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Literal

import numpy as np
import pandas as pd
import scipy.sparse as sp

from mlviz._validation import check_label_matrix, csr_labels
from mlviz.io import Dataset
from mlviz.wording import percent_text

__all__ = [
    "cooccurrence",
    "distinct_labelsets",
    "hypercube_sparsity_log10",
    "DEFAULT_TAIL_SHARE",
    "imbalance_ratio",
    "is_tail",
    "label_cardinality",
    "label_density",
    "label_frequencies",
    "label_table",
    "labels_to_show",
    "label_scumble",
    "labelset_counts",
    "never_predicted",
    "rows_per_group",
    "scumble",
    "summary",
    "summary_table",
    "tail_head_f1",
    "tail_cutoff",
    "tail_labels",
    "tail_rule_description",
    "unique_rows",
    "unseen_labelset_share",
    "votes_needed",
]


def _labels(Y, name: str = "Y") -> np.ndarray:
    """The label matrix as uint8 (N, L), validated; accepts a Dataset. ``name`` names it in
    errors."""
    if isinstance(Y, Dataset):
        Y = Y.Y
    if isinstance(Y, np.ndarray) and Y.dtype == np.uint8 and Y.ndim == 2 and Y.shape[1]:
        # a data set's own labels (uint8): a range check, not check_label_matrix's float64
        # copy and back (0.1 s at 16,105 x 983, and pages ask for several statistics a run)
        if Y.size and Y.max() > 1:
            Y = check_label_matrix(Y, name=name)  # raises, naming the first value not 0/1
    else:
        Y = check_label_matrix(Y, name=name)
    if Y.shape[0] == 0:
        raise ValueError(f"{name} has no rows: statistics need at least one instance.")
    return Y.astype(np.uint8, copy=False)


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


#: The adaptive tail rule's default share of label occurrences (see :func:`tail_cutoff`).
DEFAULT_TAIL_SHARE = 0.05


def tail_cutoff(frequencies, share: float = DEFAULT_TAIL_SHARE) -> float:
    """The frequency below which a label is a tail label under the adaptive rule.

    **The adaptive rule**: the tail is the largest set of the rarest labels that together
    hold at most ``share`` of all label occurrences (``Σ_l N_l``, the number of ones in Y).
    Labels with equal frequencies are never split: a tie group that would take the tail past
    ``share`` stays in the head, so the rule is a frequency cut-off and
    ``is_tail(frequencies, tail_cutoff(frequencies))`` is that set.

    Why this rule and why 5 %: a fixed share of the *instances* (e.g. 5 %) calls almost every
    label tail on data with many labels and few per instance (156 of bibtex's 159 labels, 38
    of medical's 45) and none on data with few, frequent labels, so it diagnoses nothing.
    The share of *occurrences* adapts to the data set and means one thing everywhere: a model
    that never predicts any tail label loses at most ``share`` of micro-averaged recall, so
    micro-averaged and instance-averaged metrics barely see these labels, which is what makes
    them the tail. With 5 % it gives a minority of the labels on every shared MULAN set and
    every sample (``tests/test_stats.py`` counts them: e.g. medical 22 of 45, enron 23 of 53,
    genbase 11 of 27, tmc2007-500 5 of 22, yeast 3 of 14, planted 6 of 22; none on emotions,
    scene and cube, whose labels are all frequent); 10 % already makes a majority tail on
    medical (28 of 45) and enron (32 of 53). A frequency quantile (e.g. the rarest quarter)
    was not chosen: it names a fixed share of labels tail on every data set, balanced or not.

    Parameters
    ----------
    frequencies : array-like of float, shape (L,)
        Label frequencies, relative (``label_frequencies(Y, relative=True)``) or counts: the
        rule depends only on their proportions.
    share : float in (0, 1), default=DEFAULT_TAIL_SHARE (0.05)
        The share of all label occurrences the tail may hold.

    Returns
    -------
    float
        The frequency of the rarest head label (in the units of ``frequencies``): a label is
        tail when its frequency is strictly below it. ``inf`` when every label is tail (no
        label occurs at all); the smallest frequency when no label is (the rarest tie group
        alone holds more than ``share``).

    Examples
    --------
    >>> from mlviz.stats import tail_cutoff
    >>> # 100 occurrences: labels of 1, 1 and 3 hold 5 % together; the next (5) would pass it
    >>> tail_cutoff([1, 1, 3, 5, 40, 50], share=0.05)
    5.0
    """
    if not isinstance(share, (int, float)) or not 0.0 < float(share) < 1.0:
        raise ValueError(
            f"share must be a share of the label occurrences in (0, 1); got {share!r}."
        )
    values = np.asarray(frequencies, dtype=float).ravel()
    values = values[~np.isnan(values)]
    if values.size == 0:
        return math.inf
    levels, counts = np.unique(values, return_counts=True)  # ascending tie groups
    held = np.cumsum(levels * counts)  # occurrences held by the labels at or below each level
    total = held[-1]
    if total <= 0:
        return math.inf  # nothing occurs: every label is as rare as it gets
    # a relative tolerance, so that a share met exactly by frequencies n_l / N still counts
    within = held <= share * total * (1.0 + 1e-12)
    n_within = int(np.count_nonzero(within))  # the tie groups that fit (a prefix: held grows)
    return float(levels[n_within]) if n_within < levels.size else math.inf


def is_tail(frequencies, threshold: float | None = None, *, share: float = DEFAULT_TAIL_SHARE):
    """Whether each label is a tail label: the one tail rule of mlviz.

    Two rules, one comparison (relative frequency strictly below a cut-off), so that a label
    exactly at the cut-off is a head label everywhere:

    * **adaptive** (``threshold=None``, the default): the cut-off is
      :func:`tail_cutoff` of ``frequencies`` itself: the rarest labels that together hold at
      most ``share`` (default 5 %) of all label occurrences;
    * **fixed** (``threshold`` given): relative frequency strictly below ``threshold``.

    :func:`tail_labels`, the per-label tables, the figures and the app all ask it.

    Parameters
    ----------
    frequencies : array-like of float, shape (L,)
        Relative label frequencies (fractions of the instances), e.g.
        ``label_frequencies(Y, relative=True)``: all labels of the data set, since the
        adaptive rule looks at their whole distribution. NaN is never tail.
    threshold : float, optional
        The fixed rule's cut-off, a fraction of the instances. Not validated here (the
        callers that take it from a user validate it, e.g. :func:`tail_labels`).
    share : float in (0, 1), default=0.05
        The adaptive rule's share of label occurrences; ignored with a ``threshold``.

    Returns
    -------
    ndarray of bool, shape (L,)

    Examples
    --------
    >>> from mlviz.stats import is_tail
    >>> is_tail([0.01, 0.05, 0.2], threshold=0.05).tolist()  # at the threshold is not tail
    [True, False, False]
    >>> is_tail([0.01, 0.01, 0.03, 0.05, 0.4, 0.5]).tolist()  # adaptive: 5 % of occurrences
    [True, True, True, False, False, False]
    """
    frequencies = np.asarray(frequencies, dtype=float)
    if threshold is None:
        threshold = tail_cutoff(frequencies, share)
    return frequencies < threshold


def tail_rule_description(
    threshold: float | None = None, *, share: float = DEFAULT_TAIL_SHARE
) -> str:
    """One plain sentence naming the tail rule, for captions (no markdown).

    Examples
    --------
    >>> from mlviz.stats import tail_rule_description
    >>> tail_rule_description()
    'adaptive tail rule: the rarest labels that together hold at most 5% of all label occurrences'
    >>> tail_rule_description(0.05)
    'fixed tail rule: labels on fewer than 5% of the instances'
    """
    if threshold is None:
        return (
            f"adaptive tail rule: the rarest labels that together hold at most "
            f"{percent_text(share)} of all label occurrences"
        )
    return f"fixed tail rule: labels on fewer than {percent_text(threshold)} of the instances"


def tail_labels(Y, threshold: float | None = None, *, share: float = DEFAULT_TAIL_SHARE):
    """Indices of the tail labels of ``Y`` (:func:`is_tail`), rarest first.

    Parameters
    ----------
    threshold : float in (0, 1], optional
        The fixed rule: relative frequency strictly below it, e.g. 0.05 for labels present in
        fewer than 5% of the instances. Default (None): the adaptive rule of
        :func:`tail_cutoff`, the rarest labels holding at most ``share`` of all label
        occurrences.
    share : float in (0, 1), default=0.05
        The adaptive rule's share; ignored with a ``threshold``.

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
    >>> tail_labels(Y).tolist()  # adaptive: label 2 alone holds 2 of 8 occurrences, > 5 %
    []
    """
    if threshold is not None and (
        not isinstance(threshold, (int, float)) or not 0.0 < float(threshold) <= 1.0
    ):
        raise ValueError(
            f"threshold must be a fraction of the instances in (0, 1]; got {threshold!r}. For a "
            "count c over N instances pass c / N; None applies the adaptive rule."
        )
    frequencies = label_frequencies(Y, relative=True)
    rare = np.flatnonzero(is_tail(frequencies, threshold, share=share))
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
    labels = csr_labels(_labels(Y), dtype=np.int64)  # one nonzero pass, no COO copy
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


# ------------------------------------------------------------ imbalance and concurrence
# mldr (Charte & Charte, R Journal 2015; R/measures.R) and Charte et al., "Dealing with
# difficult minority labels in imbalanced multilabel data sets" (Neurocomputing 2019) define
# IRLbl, meanIR and SCUMBLE. These work on the nonzeros of a CSR copy of Y (never an N x L
# float matrix), so a sparse Y of 300k rows x 10k labels costs memory linear in its 1s.


def _label_csr(Y) -> sp.csr_matrix:
    """Y (array, sparse matrix or Dataset) as a validated 0/1 CSR matrix, not densified."""
    if isinstance(Y, Dataset):
        Y = Y.Y
    if sp.issparse(Y):
        Y = sp.csr_matrix(Y, dtype=np.float64, copy=True)
        Y.eliminate_zeros()
        if Y.ndim != 2 or Y.shape[1] == 0:
            raise ValueError(f"Y must be a 2-D label matrix with label columns; got {Y.shape}.")
        if Y.nnz and not np.all(Y.data == 1):
            raise ValueError("Y must contain only 0 and 1; a sparse Y stores other values.")
        Y.sum_duplicates()
        if Y.nnz and not np.all(Y.data == 1):
            raise ValueError("Y must contain only 0 and 1; a sparse Y has duplicate entries.")
    else:
        Y = sp.csr_matrix(check_label_matrix(Y))
    if Y.shape[0] == 0:
        raise ValueError("Y has no rows: statistics need at least one instance.")
    return Y


def _imbalance_ratio(counts: np.ndarray) -> np.ndarray:
    ratio = np.full(counts.shape, np.nan)
    np.divide(counts.max(initial=0), counts, out=ratio, where=counts > 0)
    return ratio


def imbalance_ratio(Y) -> np.ndarray:
    """IRLbl of every label: the most frequent label's count over this label's count.

    ``IRLbl_l = max_j n_j / n_l`` (Charte et al., Neurocomputing 2015, Eq. 1; mldr's
    ``IRLbl``), n_l the instances carrying label l. 1 for the most frequent label, larger
    the rarer the label.

    A label that never occurs has no ratio: it is **NaN** here. mldr stores 0 for it (to
    avoid ``Inf``) and then averages that 0 into meanIR; :func:`summary`'s ``mean_ir`` and
    ``max_ir`` skip NaN instead, so a never-seen label does not pull the mean down. On data
    where every label occurs (the MULAN sets) both agree.

    Parameters
    ----------
    Y : array-like or sparse matrix of shape (N, L), or Dataset
        0/1 labels; a sparse matrix is not densified.

    Returns
    -------
    ndarray of float, shape (L,)

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.stats import imbalance_ratio
    >>> Y = np.array([[1, 1, 0], [1, 0, 0], [1, 0, 0], [1, 1, 0]])
    >>> imbalance_ratio(Y).tolist()  # counts 4, 2, 0
    [1.0, 2.0, nan]
    """
    Y = _label_csr(Y)
    return _imbalance_ratio(np.bincount(Y.indices, minlength=Y.shape[1]).astype(np.float64))


def _scumble(Y: sp.csr_matrix, ratio: np.ndarray) -> np.ndarray:
    sizes = np.diff(Y.indptr)
    rows = np.repeat(np.arange(Y.shape[0]), sizes)
    values = ratio[Y.indices]  # every label on a row occurs, so its ratio is finite
    safe = np.maximum(sizes, 1)
    # the geometric mean from logs: a product of hundreds of ratios overflows a float
    geometric = np.exp(np.bincount(rows, weights=np.log(values), minlength=Y.shape[0]) / safe)
    arithmetic = np.bincount(rows, weights=values, minlength=Y.shape[0]) / safe
    out = np.zeros(Y.shape[0])
    np.subtract(1.0, geometric / np.where(sizes > 0, arithmetic, 1.0), out=out, where=sizes > 0)
    return np.clip(out, 0.0, 1.0)  # AM >= GM; the clip only removes rounding below 0


def scumble(Y) -> np.ndarray:
    """SCUMBLE of every instance: how much rare and frequent labels occur together on it.

    ``SCUMBLE_i = 1 - (Π_{l ∈ Y_i} IRLbl_l)^(1/|Y_i|) / mean_{l ∈ Y_i} IRLbl_l`` (Charte et
    al., HAIS 2014, Eq. 3; mldr's ``.SCUMBLE``): one minus the geometric over the arithmetic
    mean of the IRLbl (:func:`imbalance_ratio`) of the instance's labels, in [0, 1). It is 0
    when all its labels are equally frequent (or it has one label, or none: 0 for an empty
    row, as in mldr) and grows when a rare label sits beside frequent ones. The geometric
    mean is taken from the mean of logarithms (the product overflows with hundreds of labels).

    Parameters
    ----------
    Y : array-like or sparse matrix of shape (N, L), or Dataset
        0/1 labels; a sparse matrix is not densified.

    Returns
    -------
    ndarray of float, shape (N,)

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.stats import scumble
    >>> Y = np.array([[1, 1], [1, 0], [1, 0], [1, 0], [0, 0]])  # counts 4 and 1: IRLbl 1 and 4
    >>> scumble(Y).round(3).tolist()  # row 0: 1 - sqrt(1 * 4) / ((1 + 4) / 2) = 0.2
    [0.2, 0.0, 0.0, 0.0, 0.0]
    """
    Y = _label_csr(Y)
    ratio = _imbalance_ratio(np.bincount(Y.indices, minlength=Y.shape[1]).astype(np.float64))
    return _scumble(Y, ratio)


def label_scumble(Y) -> np.ndarray:
    """Per label, the mean :func:`scumble` of the instances that carry it (mldr's per-label
    ``SCUMBLE``); NaN for a label that never occurs.

    A high value: the label mostly appears beside labels of very different frequency, the
    case resampling methods find hardest (Charte et al., Neurocomputing 2019).

    Parameters
    ----------
    Y : array-like or sparse matrix of shape (N, L), or Dataset

    Returns
    -------
    ndarray of float, shape (L,)

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.stats import label_scumble
    >>> Y = np.array([[1, 1], [1, 0], [1, 0], [1, 0], [0, 0]])  # instance SCUMBLE 0.2, 0, 0, 0, 0
    >>> label_scumble(Y).round(3).tolist()  # label 0: mean of 0.2, 0, 0, 0; label 1: 0.2
    [0.05, 0.2]
    """
    Y = _label_csr(Y)
    counts = np.bincount(Y.indices, minlength=Y.shape[1]).astype(np.float64)
    per_row = _scumble(Y, _imbalance_ratio(counts))
    sums = np.bincount(
        Y.indices, weights=np.repeat(per_row, np.diff(Y.indptr)), minlength=Y.shape[1]
    )
    out = np.full(Y.shape[1], np.nan)
    np.divide(sums, counts, out=out, where=counts > 0)
    return out


def _imbalance_summary(Y) -> dict[str, float]:
    """meanIR, maxIR, SCUMBLE and SCUMBLE.CV as mldr's ``measures`` computes them."""
    Y = _label_csr(Y)
    ratio = _imbalance_ratio(np.bincount(Y.indices, minlength=Y.shape[1]).astype(np.float64))
    per_row = _scumble(Y, ratio)
    mean = float(per_row.mean())
    # R's sd (n - 1 in the denominator), as mldr's scumble.cv; undefined for one row or mean 0
    spread = float(per_row.std(ddof=1)) if per_row.size > 1 else math.nan
    occurring = ratio[np.isfinite(ratio)]
    return {
        "mean_ir": float(occurring.mean()) if occurring.size else math.nan,
        "max_ir": float(occurring.max()) if occurring.size else math.nan,
        "scumble": mean,
        "scumble_cv": spread / mean if mean > 0 else math.nan,
    }


def summary(
    dataset: Dataset, *, tail_threshold: float | None = None, tail_share: float = DEFAULT_TAIL_SHARE
) -> dict[str, object]:
    """The headline numbers of a data set, for a table or ``st.metric`` row.

    Returns
    -------
    dict
        ``name``, ``instances``, ``features``, ``labels``, ``sparse`` (X stored as CSR),
        ``cardinality``, ``density``, ``distinct`` (label sets), ``log10_sparsity``
        (:func:`hypercube_sparsity_log10`), ``max_labels`` (most labels on one instance),
        ``empty_instances`` (instances with no label), ``unique_labelsets`` (label sets seen
        on exactly one instance), ``min_label_count`` / ``max_label_count`` (rarest and most
        frequent label), ``tail_labels`` (the number of tail labels, :func:`tail_labels` with
        ``tail_threshold``, or the adaptive rule with ``tail_share`` when it is None),
        ``tail_threshold`` (the relative-frequency cut-off in force: the fixed one, or the one
        the adaptive rule found, :func:`tail_cutoff`) and ``tail_rule``
        (:func:`tail_rule_description`). The imbalance measures of mldr (Charte & Charte,
        R Journal 2015): ``mean_ir`` / ``max_ir`` (mean and largest :func:`imbalance_ratio`
        over the labels that occur), ``scumble`` (mean :func:`scumble` over all instances,
        empty ones at 0) and ``scumble_cv`` (its standard deviation, n - 1 as in R, over its
        mean; NaN when the mean is 0).

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
        "tail_labels": int(len(tail_labels(Y, tail_threshold, share=tail_share))),
        "tail_threshold": float(
            tail_threshold
            if tail_threshold is not None
            else tail_cutoff(frequencies / Y.shape[0], tail_share)
        ),
        "tail_rule": tail_rule_description(tail_threshold, share=tail_share),
        **_imbalance_summary(Y),
    }


# ------------------------------------------------- the Lesson page's "what to notice" numbers
def _unique_row_keys(Y: np.ndarray) -> np.ndarray:
    """One hashable bytes key per 0/1 row (bit-packed, so wide label sets stay cheap)."""
    packed = np.packbits(np.asarray(Y, dtype=bool), axis=1)
    return np.array([row.tobytes() for row in packed], dtype=object)


def unseen_labelset_share(Y_reference: np.ndarray, Y: np.ndarray) -> float:
    """Share of the rows of ``Y`` whose label set is no row of ``Y_reference``.

    CLEMS decodes to a training label set (paper 002, §3.4), so a test instance whose label
    set never occurs in training cannot be predicted exactly: this is that share.

    Parameters
    ----------
    Y_reference, Y : ndarray of 0/1, shapes (n_reference, L) and (n, L)

    Returns
    -------
    float
        In [0, 1]; NaN when ``Y`` has no rows.

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.stats import unseen_labelset_share
    >>> unseen_labelset_share(np.array([[1, 0], [0, 1]]), np.array([[1, 0], [1, 1]]))
    0.5
    """
    Y_reference = np.asarray(Y_reference)
    Y = np.asarray(Y)
    if Y_reference.ndim != 2 or Y.ndim != 2 or Y_reference.shape[1] != Y.shape[1]:
        raise ValueError(
            f"unseen_labelset_share: both label matrices need the same number of columns; got "
            f"shapes {Y_reference.shape} and {Y.shape}."
        )
    if Y.shape[0] == 0:
        return float("nan")
    seen = set(_unique_row_keys(Y_reference))
    return float(np.mean([key not in seen for key in _unique_row_keys(Y)]))


def rows_per_group(row_support: np.ndarray) -> pd.DataFrame:
    """Latent rows each group's V^k uses, and how many of them no other group uses.

    Parameters
    ----------
    row_support : ndarray of bool, shape (n_groups, d)
        ``GroPLE.row_support_``: True where row i of the group's V^k is non-zero.

    Returns
    -------
    pandas.DataFrame
        One row per group (in the order given) with ``rows_used`` (non-zero rows of V^k) and
        ``private_rows`` (non-zero rows used by no other group). A group with
        ``rows_used > 0`` and ``private_rows == rows_used`` shares no latent dimension with
        the others: GroPLE models it independently (paper 001, §3).

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.stats import rows_per_group
    >>> support = np.array([[True, True, False], [False, True, True]])  # group x latent row
    >>> rows_per_group(support).values.tolist()
    [[2, 1], [2, 1]]
    """
    support = np.asarray(row_support, dtype=bool)
    if support.ndim != 2:
        raise ValueError(
            f"rows_per_group: row_support must be a (n_groups, d) boolean matrix; got shape "
            f"{support.shape}."
        )
    users = support.sum(axis=0)
    return pd.DataFrame(
        {
            "rows_used": support.sum(axis=1),
            "private_rows": (support & (users == 1)[None, :]).sum(axis=1),
        }
    )


def never_predicted(Y_pred: np.ndarray, Y_true: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Labels a model predicts for no instance, and those of them the truth does carry.

    Parameters
    ----------
    Y_pred, Y_true : ndarray of 0/1, shape (n, L)

    Returns
    -------
    never : ndarray of intp
        Label columns with no predicted 1.
    missed : ndarray of intp
        The subset of ``never`` that occurs at least once in ``Y_true``: labels the model
        gets wrong on every instance that has them.

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.stats import never_predicted
    >>> Y_pred, Y_true = np.array([[1, 0, 0], [1, 0, 0]]), np.array([[1, 1, 0], [0, 0, 0]])
    >>> never, missed = never_predicted(Y_pred, Y_true)
    >>> never.tolist(), missed.tolist()
    ([1, 2], [1])
    """
    Y_pred = np.asarray(Y_pred)
    Y_true = np.asarray(Y_true)
    if Y_pred.shape != Y_true.shape or Y_pred.ndim != 2:
        raise ValueError(
            f"never_predicted: predictions {Y_pred.shape} and truth {Y_true.shape} must be "
            "label matrices of the same shape."
        )
    never = np.flatnonzero(~Y_pred.astype(bool).any(axis=0))
    missed = never[Y_true[:, never].astype(bool).any(axis=0)]
    return never, missed


def votes_needed(prior: np.ndarray, cond_pos: np.ndarray, cond_neg: np.ndarray) -> np.ndarray:
    """Per label, the fewest of the k neighbours that must carry it for ML-KNN to predict it.

    The MAP rule (paper 003, Eq. 8) predicts label l for an instance with ``C(l) = j`` when
    ``P(H1) P(E_j|H1) ≥ P(H0) P(E_j|H0)`` (ties positive, as ``MLkNN``). This returns the
    smallest such j. The rule need not be monotone in j (the likelihood tables are
    estimated), so the smallest j is what it says: the first count that wins, not a
    threshold above which every count wins.

    Parameters
    ----------
    prior : ndarray, shape (L,)
        ``MLkNN.prior_``, P(H1) per label.
    cond_pos, cond_neg : ndarray, shape (k + 1, L)
        ``MLkNN.cond_pos_`` and ``MLkNN.cond_neg_``: P(E_j | H1) and P(E_j | H0).

    Returns
    -------
    ndarray of int, shape (L,)
        The smallest winning count j in 0..k, or -1 when no count wins: the label is never
        predicted, whatever its neighbours carry.

    Examples
    --------
    >>> from mlviz.synthetic import make_planted
    >>> ds, groups = make_planted(n_samples=150, random_state=0)
    >>> X, Y = ds.X, ds.Y
    >>> from mlviz.mlknn import MLkNN
    >>> from mlviz.stats import votes_needed
    >>> model = MLkNN(k=5).fit(X, Y)
    >>> needed = votes_needed(model.prior_, model.cond_pos_, model.cond_neg_)
    >>> needed.shape, bool(((needed >= -1) & (needed <= 5)).all())
    ((22,), True)
    """
    prior = np.asarray(prior, dtype=float).ravel()
    cond_pos = np.asarray(cond_pos, dtype=float)
    cond_neg = np.asarray(cond_neg, dtype=float)
    if cond_pos.shape != cond_neg.shape or cond_pos.ndim != 2 or cond_pos.shape[1] != prior.size:
        raise ValueError(
            f"votes_needed: cond_pos {cond_pos.shape} and cond_neg {cond_neg.shape} must both "
            f"be (k + 1, L) with L = {prior.size} (the length of prior)."
        )
    wins = prior * cond_pos >= (1.0 - prior) * cond_neg
    return np.where(wins.any(axis=0), wins.argmax(axis=0), -1)


def tail_head_f1(
    frequencies: np.ndarray, f1_by_method: Mapping[str, np.ndarray], threshold: float
) -> pd.DataFrame:
    """Mean per-label F1 of each method on the tail labels and on the others.

    Parameters
    ----------
    frequencies : ndarray, shape (L,)
        Share of training instances carrying each label.
    f1_by_method : mapping of method name to ndarray, shape (L,)
        Per-label test F1 (``mlviz.metrics.per_label_f1``, with ``zero_division=nan`` so that
        a label neither present nor predicted is undefined); NaN entries are skipped.
    threshold : float
        A label is a tail label when its frequency is strictly below this
        (as :func:`mlviz.stats.tail_labels`).

    Returns
    -------
    pandas.DataFrame
        Index: the methods; columns ``tail_f1`` and ``head_f1`` (NaN when the part has no
        label), and ``n_tail``, ``n_head``: how many labels each mean is over.

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.stats import tail_head_f1
    >>> frequencies = np.array([0.5, 0.3, 0.01])
    >>> table = tail_head_f1(frequencies, {"PLST": np.array([0.9, 0.7, 0.0])}, threshold=0.05)
    >>> table.round(3).to_dict("records")
    [{'tail_f1': 0.0, 'head_f1': 0.8, 'n_tail': 1, 'n_head': 2}]
    """
    frequencies = np.asarray(frequencies, dtype=float).ravel()
    tail = is_tail(frequencies, threshold)
    rows = {}
    for method, f1 in f1_by_method.items():
        f1 = np.asarray(f1, dtype=float).ravel()
        if f1.shape != frequencies.shape:
            raise ValueError(
                f"tail_head_f1: {method!r} has {f1.size} F1 values for {frequencies.size} labels."
            )
        parts = {}
        for name, mask in (("tail", tail), ("head", ~tail)):
            values = f1[mask & np.isfinite(f1)]
            parts[f"{name}_f1"] = float(values.mean()) if values.size else float("nan")
        rows[method] = parts
    table = pd.DataFrame.from_dict(rows, orient="index", columns=["tail_f1", "head_f1"])
    table["n_tail"] = int(tail.sum())
    table["n_head"] = int((~tail).sum())
    return table


def labels_to_show(priority: np.ndarray, keep: np.ndarray, max_shown: int) -> np.ndarray:
    """Which labels a per-label figure shows when there are too many to name them all.

    Every label flagged in ``keep`` comes first (e.g. the instance's true and predicted
    labels), then the rest by decreasing ``priority``, up to ``max_shown`` labels; the result
    is sorted back into label order. With at most ``max_shown`` labels all are shown.

    Parameters
    ----------
    priority : ndarray, shape (L,)
        Higher is shown first (e.g. the decoded score).
    keep : ndarray of bool, shape (L,)
    max_shown : int, at least 1

    Returns
    -------
    ndarray of intp
        Label indices in ascending order; fewer than the kept labels only when more than
        ``max_shown`` are flagged (then the flagged ones with the highest priority).

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.stats import labels_to_show
    >>> keep = np.array([True, False, True, True])
    >>> labels_to_show(np.array([0.1, 0.9, 0.5, 0.7]), keep, max_shown=2).tolist()
    [2, 3]
    """
    priority = np.asarray(priority, dtype=float).ravel()
    keep = np.asarray(keep, dtype=bool).ravel()
    if keep.shape != priority.shape:
        raise ValueError(
            f"labels_to_show: keep has {keep.size} entries for {priority.size} labels."
        )
    if max_shown < 1:
        raise ValueError(f"labels_to_show: max_shown must be at least 1; got {max_shown}.")
    if priority.size <= max_shown:
        return np.arange(priority.size)
    # flagged labels first, then by priority (NaN last); stable, so ties keep label order
    order = np.lexsort((-np.nan_to_num(priority, nan=-np.inf), ~keep))
    return np.sort(order[:max_shown])


# ------------------------------------------------------------- the Data page's downloads
#: Column names of :func:`summary_table`, each saying what it counts, by :func:`summary` key.
SUMMARY_COLUMNS: dict[str, str] = {
    "name": "data_set",
    "instances": "instances",
    "features": "features",
    "labels": "labels",
    "sparse": "features_stored_sparse",
    "cardinality": "mean_labels_per_instance",
    "density": "label_density",
    "distinct": "distinct_label_sets",
    "log10_sparsity": "log10_share_of_label_sets_occupied",
    "max_labels": "max_labels_per_instance",
    "empty_instances": "instances_without_label",
    "unique_labelsets": "label_sets_on_one_instance_only",
    "min_label_count": "rarest_label_instances",
    "max_label_count": "most_frequent_label_instances",
    "tail_labels": "tail_labels",
    "tail_threshold": "tail_threshold",
    "mean_ir": "mean_imbalance_ratio",
    "max_ir": "max_imbalance_ratio",
    "scumble": "mean_scumble",
    "scumble_cv": "scumble_coefficient_of_variation",
}


def summary_table(dataset: Dataset, *, tail_threshold: float | None = None) -> pd.DataFrame:
    """:func:`summary` as a one-row table whose column names say what each number counts.

    ``summary``'s keys are short (``distinct`` and ``unique_labelsets`` read alike): here
    ``distinct_label_sets`` is the number of different label vectors among the instances
    (occupied vertices of {0,1}^L) and ``label_sets_on_one_instance_only`` how many of those
    occur on exactly one instance; :data:`SUMMARY_COLUMNS` gives every renaming.
    ``tail_threshold`` is :func:`summary`'s (None: the adaptive tail rule).

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.io import Dataset
    >>> from mlviz.stats import summary_table
    >>> Y = np.array([[1, 1, 0], [1, 1, 0], [1, 0, 1], [0, 1, 1], [0, 0, 0]])
    >>> ds = Dataset("toy", np.zeros((5, 1)), Y, feature_names=("x",), label_names=("a", "b", "c"))
    >>> row = summary_table(ds, tail_threshold=0.5).iloc[0]
    >>> int(row["distinct_label_sets"]), int(row["label_sets_on_one_instance_only"])
    (4, 3)
    """
    numbers = summary(dataset, tail_threshold=tail_threshold)
    return pd.DataFrame([{SUMMARY_COLUMNS.get(key, key): value for key, value in numbers.items()}])


# label_table's work bounds: entries of one block of Yᵀ Y, and the largest N x L that is
# multiplied as a dense float32 matrix (64 MB) rather than as a sparse one
_LABEL_TABLE_BLOCK = 2**22
_LABEL_TABLE_DENSE = 2**24
_LABEL_TABLE_DENSITY = 0.03  # share of 1s from which the dense product is the faster one


def label_table(Y, label_names=None, *, tail_threshold: float | None = None) -> pd.DataFrame:
    """One row per label: its count, frequency, tail flag and co-occurrence degree.

    Parameters
    ----------
    Y : array-like (N, L) or Dataset
    label_names : sequence of str, optional
        Default: the Dataset's names, else ``"0"``, ``"1"``, ...
    tail_threshold : float or None, default=None
        The tail rule's threshold (None: the adaptive rule); the ``tail`` column is
        :func:`is_tail` of the relative frequencies (the rule every other view uses).

    Returns
    -------
    pandas.DataFrame
        In label (column) order, with columns ``label`` (name), ``count`` (instances that
        carry it), ``frequency`` (``count / N``), ``tail`` (bool) and
        ``co_occurring_labels``: the number of *other* labels that share at least one
        instance with it (its degree in the co-occurrence graph, ``Yᵀ Y`` off the
        diagonal). The degree comes from ``Yᵀ Y`` computed per block of label columns
        (about 4M entries per block, never an (L, L) matrix): a dense float32 product when
        N·L <= 2^24 and at least 3% of Y is 1, else a sparse one (its work is the instances'
        label pairs). Then ``imbalance_ratio`` (:func:`imbalance_ratio`, NaN for a label
        that never occurs) and ``scumble`` (:func:`label_scumble`).

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.stats import label_table
    >>> Y = np.array([[1, 1, 0], [1, 1, 0], [1, 0, 1], [0, 1, 1], [0, 0, 0]])
    >>> table = label_table(Y, ["a", "b", "c"], tail_threshold=0.5)
    >>> table["count"].tolist(), table["tail"].tolist(), table["co_occurring_labels"].tolist()
    ([3, 3, 2], [False, False, True], [2, 2, 2])
    """
    if label_names is None and isinstance(Y, Dataset):
        label_names = Y.label_names
    Y = _labels(Y)
    n_samples, n_labels = Y.shape
    if label_names is None:
        label_names = [str(k) for k in range(n_labels)]
    if len(label_names) != n_labels:
        raise ValueError(
            f"label_table: label_names has {len(label_names)} names but Y has {n_labels} label "
            "columns."
        )
    counts = Y.sum(axis=0, dtype=np.int64)
    frequencies = counts / n_samples
    degree = np.zeros(n_labels, dtype=np.int64)
    block = max(1, _LABEL_TABLE_BLOCK // max(n_labels, 1))
    if Y.size <= _LABEL_TABLE_DENSE and counts.sum() >= _LABEL_TABLE_DENSITY * Y.size:
        # BLAS on float32 0/1 (a sum of non-negative terms is > 0 exactly when a pair
        # exists): on 200 rows x 10,000 labels at half density 3.8 s instead of the sparse
        # product's 21 s (whose output has 10^8 entries there); on sparser labels (16,000
        # x 983 at 2%) the sparse product is faster (0.8 s vs 1.6 s; loaded 2-core machine)
        dense = Y.astype(np.float32)
        for start in range(0, n_labels, block):
            pairs = dense[:, start : start + block].T @ dense
            degree[start : start + block] = np.count_nonzero(pairs > 0, axis=1)
    else:
        by_column = sp.csc_matrix(Y, dtype=np.int32)
        by_row = sp.csr_matrix(Y, dtype=np.int32)
        for start in range(0, n_labels, block):
            # counts of a 0/1 product are positive where stored: the stored entries of a row
            # are the labels that co-occur with it (itself included when it occurs at all)
            pairs = by_column[:, start : start + block].T @ by_row
            degree[start : start + block] = np.diff(sp.csr_matrix(pairs).indptr)
    degree -= counts > 0
    return pd.DataFrame(
        {
            "label": [str(name) for name in label_names],
            "count": counts,
            "frequency": frequencies,
            "tail": is_tail(frequencies, tail_threshold),
            "co_occurring_labels": degree,
            "imbalance_ratio": _imbalance_ratio(counts.astype(np.float64)),
            "scumble": label_scumble(Y),
        }
    )

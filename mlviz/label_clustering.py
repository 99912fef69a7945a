"""Spectral clustering of labels: stage 1 of GroPLE, also behind the app's Label clusters page.

Paper 001 (Kumar et al., GroPLE), section 3, "Identification of groups of labels": build a
graph over the label columns of Y in {-1, 1}, weight edges with a heat kernel whose width is
self-tuned (Zelnik-Manor & Perona, local scaling), normalise the affinity as
``D^{-1/2} A D^{-1/2}`` and run k-means on its K leading eigenvectors (Ng, Jordan & Weiss).

The paper says it does "not claim that spectral clustering is the best option"; its heat
kernel compares label columns as vectors, so two rare labels (mostly zeros) look alike whether
or not they ever occur together. :class:`LabelClustering` therefore also offers affinities
built from co-occurrence (``"cooccurrence"``, ``"correlation"``) or given by the user
(``"precomputed"``); every affinity goes through the same normalisation, eigengap and k-means.
:func:`group_diagnostics` and :func:`clustering_stability` give the evidence to judge a
partition and its number of groups.

Every affinity is computed from the label counts ``n_j`` and the co-occurrence counts
``C = Y^T Y`` (one sparse or BLAS product; for {-1, 1} columns the squared distance is
``||s_i - s_j||^2 = 4 (n_i + n_j - 2 C_ij)``), never from pairwise distances over columns.
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy.sparse as sp
from scipy.linalg import LinAlgError, eigh
from scipy.sparse.linalg import ArpackError, ArpackNoConvergence, eigsh
from sklearn.base import BaseEstimator, clone
from sklearn.cluster import KMeans
from sklearn.model_selection import KFold
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from mlviz import metrics as _metrics
from mlviz._compat import Interval, StrOptions, validate_params
from mlviz._validation import (
    SPARSE_LABEL_DENSITY,
    check_features,
    check_label_matrix,
    csr_labels,
)
from mlviz.stats import is_tail

__all__ = [
    "AFFINITIES",
    "LabelClustering",
    "MIN_COHERENT_SHARE",
    "canonical_group_ids",
    "check_groups",
    "clustering_stability",
    "group_diagnostics",
    "group_verdict",
    "grouping_vs_random",
    "GroupingVsRandom",
    "label_affinity",
    "label_coassignment",
    "KRecommendation",
    "recommend_n_groups",
    "stable_n_groups",
    "verdict_counts",
    "VERDICTS",
    "VERDICT_THRESHOLDS",
    "within_group_cooccurrence",
]

#: The affinities :class:`LabelClustering` computes from Y, and what each one measures.
AFFINITIES: dict[str, str] = {
    "heat": "the paper's self-tuned heat kernel on the Euclidean distance between the {-1, 1} "
    "label columns: labels that agree on most instances (including where both are absent) "
    "are close",
    "cooccurrence": "Jaccard co-occurrence: the share of instances with either label that "
    "carry both",
    "correlation": "Pearson correlation of the label columns, negative values set to 0",
}

#: Up to this many labels the whole spectrum is computed (a dense ``eigh``); above it only
#: the leading ``max(n_groups, MIN_LEADING_EIGENVALUES) + 1`` eigenpairs.
FULL_SPECTRUM_MAX_LABELS = 300
MIN_LEADING_EIGENVALUES = 30

#: From this many labels the bootstrap resamples of :func:`clustering_stability` and
#: :func:`label_coassignment` compute their leading eigenvectors with ARPACK's Lanczos solver
#: instead of LAPACK's subset solver (measured faster at 983 labels, not at 374).
ITERATIVE_MIN_LABELS = 500

#: :meth:`LabelClustering.default_n_groups` and :func:`stable_n_groups` skip a K whose
#: largest group holds more than this share of the labels.
DEFAULT_MAX_GROUP_SHARE = 0.5
#: :meth:`LabelClustering.default_n_groups` and :func:`stable_n_groups` skip a K that leaves
#: more than this share of the labels alone (in groups of one).
DEFAULT_MAX_SINGLETON_SHARE = 0.5
#: Below this adjusted stability no K is more reproducible than on shuffled labels: the sweep
#: supports no K (on medical under the heat kernel every K from 2 to 30 scores -0.05..0.09 with
#: 10 resamples, the spread of the null itself; the planted sample's K = 4 scores 0.83).
MIN_ADJUSTED_STABILITY = 0.1

#: Restarts ARPACK may take for a bootstrap resample's leading eigenvectors before the exact
#: LAPACK solve takes over (see ``_Bootstrap.vectors``).
ARPACK_MAX_RESTARTS = 100

# scikit-learn's parameter validation (as in LabelClustering's _parameter_constraints) for the
# public functions' parameters; checks that need Y or the contents of groups stay
# hand-written, because they name the offending entry.
_POSITIVE_INT = Interval(numbers.Integral, 1, None, closed="left")
_LABELS = ["array-like", "sparse matrix"]


# ------------------------------------------------------------------------- group ids
@validate_params({"group_ids": ["array-like"]}, prefer_skip_nested_validation=True)
def canonical_group_ids(group_ids) -> np.ndarray:
    """Relabel group ids to 0..G-1 in order of each group's first label.

    k-means numbers its clusters arbitrarily; renumbering by first appearance makes the
    result independent of that numbering and leaves no empty group ids.

    Examples
    --------
    >>> from mlviz.label_clustering import canonical_group_ids
    >>> canonical_group_ids([5, 5, 2, 7, 2]).tolist()
    [0, 0, 1, 2, 1]
    """
    group_ids = np.asarray(group_ids)
    _, first_index, inverse = np.unique(group_ids, return_index=True, return_inverse=True)
    order = np.argsort(np.argsort(first_index))
    return order[inverse.ravel()].astype(np.intp)


@validate_params(
    {"groups": ["array-like"], "n_labels": [_POSITIVE_INT]}, prefer_skip_nested_validation=True
)
def check_groups(groups, n_labels: int) -> np.ndarray:
    """Validate user-given label groups and return canonical group ids (one per label).

    Parameters
    ----------
    groups : array-like of int, shape (n_labels,), or sequence of sequences of int
        Either a group id per label column, or a partition given as lists of label indices
        (every label index 0..n_labels-1 exactly once).
    n_labels : int
        Number of label columns of Y.

    Returns
    -------
    ndarray of intp, shape (n_labels,)
        Group id per label, renumbered 0..G-1 by first appearance.

    Examples
    --------
    >>> from mlviz.label_clustering import check_groups
    >>> check_groups([3, 3, 1], n_labels=3).tolist()
    [0, 0, 1]
    """
    if (
        isinstance(groups, np.ndarray)
        and groups.ndim == 1
        or (
            not isinstance(groups, np.ndarray)
            and len(groups) > 0
            and all(isinstance(g, numbers.Integral) for g in groups)
        )
    ):
        ids = np.asarray(groups)
        if ids.shape != (n_labels,):
            raise ValueError(
                f"groups has {ids.shape[0]} entries but Y has {n_labels} label columns: give one "
                "group id per label column, or a list of lists of label indices."
            )
        if not np.issubdtype(ids.dtype, np.integer):
            raise ValueError(f"group ids must be integers; got dtype {ids.dtype}.")
        return canonical_group_ids(ids)
    members = [np.asarray(g, dtype=np.intp).ravel() for g in groups]
    if any(m.size == 0 for m in members):
        raise ValueError("groups contains an empty group: every group needs at least one label.")
    flat = np.concatenate(members) if members else np.empty(0, dtype=np.intp)
    if flat.size and (flat.min() < 0 or flat.max() >= n_labels):
        bad = int(flat.max()) if flat.max() >= n_labels else int(flat.min())
        raise ValueError(f"groups refers to label index {bad}, outside 0..{n_labels - 1}.")
    counts = np.bincount(flat, minlength=n_labels)
    if np.any(counts != 1):
        missing = np.flatnonzero(counts == 0)
        repeated = np.flatnonzero(counts > 1)
        raise ValueError(
            "groups must be a partition of the label indices 0.."
            f"{n_labels - 1}: missing {missing.tolist()[:10]}, repeated {repeated.tolist()[:10]}."
        )
    ids = np.empty(n_labels, dtype=np.intp)
    for k, m in enumerate(members):
        ids[m] = k
    return canonical_group_ids(ids)


# ------------------------------------------------------------------- counts and affinities
def _label_counts(Y, weights: np.ndarray | None = None) -> tuple[float, np.ndarray, np.ndarray]:
    """``(N, n, C)``: (weighted) number of instances, label counts and ``C = Y^T W Y``.

    One sparse product when Y is sparse or mostly zeros, otherwise one float64 BLAS product
    (numpy's integer matmul does not use BLAS and is ~500x slower at 16k x 1,000).
    ``weights`` (one non-negative weight per row) serve the bootstrap of
    :func:`clustering_stability`: a row drawn twice counts twice.
    """
    n_rows = Y.shape[0]
    w = np.ones(n_rows) if weights is None else np.asarray(weights, dtype=np.float64)
    if sp.issparse(Y) or np.count_nonzero(Y) <= SPARSE_LABEL_DENSITY * Y.size:
        Ys = csr_labels(Y)
        weighted = Ys if weights is None else sp.diags(w) @ Ys
        cooc = np.asarray((Ys.T @ weighted).toarray())
        counts = np.asarray(weighted.sum(axis=0)).ravel()
    else:
        Yd = np.asarray(Y, dtype=np.float64)
        weighted = Yd if weights is None else Yd * w[:, None]
        cooc = Yd.T @ weighted
        counts = weighted.sum(axis=0)
    return float(w.sum()), counts, cooc


def _heat_affinity(
    counts: np.ndarray, cooc: np.ndarray, n_neighbors: int
) -> tuple[np.ndarray, np.ndarray]:
    """Self-tuned heat kernel of paper 001 §3 from counts; returns ``(A, sigma)``."""
    n_labels = counts.size
    if n_labels == 1:
        return np.zeros((1, 1)), np.ones(1)
    # Two (L, L) buffers, each step written in place: the clustering stability sweep computes
    # this for every bootstrap sample, and at ~1,800 labels a dozen fresh 27 MB arrays per call
    # cost more than the arithmetic. The operations and their order are those of the formulas,
    # so the values are the same bit for bit (tests/test_label_clustering.py).
    # columns in {-1, 1} differ by 2 wherever exactly one of the two labels is present
    squared = np.add(counts[:, None], counts[None, :])
    scratch = np.multiply(cooc, 2.0)
    squared -= scratch
    np.maximum(squared, 0.0, out=squared)  # the disagreements
    np.fill_diagonal(squared, 0.0)
    squared *= 4.0
    distances = np.sqrt(squared, out=scratch)
    # the smallest positive distance (the floor of sigma below) does not depend on the order
    # within rows, so it is read before the partition reorders them
    floor = float(np.min(distances, where=distances > 0, initial=np.inf))
    floor = floor if np.isfinite(floor) else 1.0
    neighbour_rank = min(int(n_neighbors), n_labels - 1)
    # rank 0 of each row is the label itself (distance 0)
    distances.partition(neighbour_rank, axis=1)
    sigma = distances[:, neighbour_rank].copy()
    sigma = np.where(sigma > 0, sigma, floor)
    outer = np.outer(sigma, sigma, out=distances)
    affinity = np.divide(squared, outer, out=squared)
    np.negative(affinity, out=affinity)  # -(a / b) is (-a) / b exactly
    np.exp(affinity, out=affinity)
    np.fill_diagonal(affinity, 0.0)
    return affinity, sigma


def _jaccard_affinity(counts: np.ndarray, cooc: np.ndarray) -> np.ndarray:
    union = counts[:, None] + counts[None, :] - cooc
    affinity = np.divide(cooc, union, out=np.zeros_like(cooc), where=union > 0)
    np.fill_diagonal(affinity, 0.0)
    return affinity


def _correlation_affinity(n_samples: float, counts: np.ndarray, cooc: np.ndarray) -> np.ndarray:
    p = counts / n_samples
    covariance = cooc / n_samples - np.outer(p, p)
    scale = np.sqrt(np.clip(p * (1.0 - p), 0.0, None))
    outer = np.outer(scale, scale)
    correlation = np.divide(covariance, outer, out=np.zeros_like(covariance), where=outer > 0)
    affinity = np.clip(correlation, 0.0, 1.0)
    np.fill_diagonal(affinity, 0.0)
    return affinity


def _affinity_from_counts(
    affinity: str, n_samples: float, counts: np.ndarray, cooc: np.ndarray, n_neighbors: int
) -> tuple[np.ndarray, np.ndarray | None]:
    if affinity == "heat":
        return _heat_affinity(counts, cooc, n_neighbors)
    if affinity == "cooccurrence":
        return _jaccard_affinity(counts, cooc), None
    if affinity == "correlation":
        return _correlation_affinity(n_samples, counts, cooc), None
    raise ValueError(
        f"affinity must be one of {sorted(AFFINITIES)} to be computed from Y; got {affinity!r}."
    )


@validate_params(
    {"Y": _LABELS, "affinity": [StrOptions(set(AFFINITIES))], "n_neighbors": [_POSITIVE_INT]},
    prefer_skip_nested_validation=True,
)
def label_affinity(Y, affinity: str = "heat", *, n_neighbors: int = 7) -> np.ndarray:
    """The (L, L) affinity between the label columns of a 0/1 matrix Y (zero diagonal).

    See :class:`LabelClustering` for the definitions of ``"heat"``, ``"cooccurrence"`` and
    ``"correlation"``.

    Examples
    --------
    >>> from mlviz.synthetic import make_planted
    >>> ds, groups = make_planted(n_samples=150, random_state=0)
    >>> X, Y = ds.X, ds.Y
    >>> import numpy as np
    >>> from mlviz.label_clustering import label_affinity
    >>> A = label_affinity(Y)
    >>> A.shape, bool(np.allclose(A, A.T)), bool((np.diag(A) == 0).all())
    ((22, 22), True, True)
    """
    Y = check_label_matrix(Y)
    n_samples, counts, cooc = _label_counts(Y)
    return _affinity_from_counts(affinity, n_samples, counts, cooc, n_neighbors)[0]


# -------------------------------------------------------------------- spectral steps
def _normalize(affinity: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``D^{-1/2} A D^{-1/2}`` and the boolean mask of isolated labels (zero degree)."""
    degree = affinity.sum(axis=1)
    isolated = degree <= 0
    inv_sqrt_degree = np.zeros_like(degree)
    inv_sqrt_degree[~isolated] = 1.0 / np.sqrt(degree[~isolated])
    return inv_sqrt_degree[:, None] * affinity * inv_sqrt_degree[None, :], isolated


def _n_eigenpairs(n_labels: int, n_groups: int) -> int:
    if n_labels <= FULL_SPECTRUM_MAX_LABELS:
        return n_labels
    return min(n_labels, max(n_groups, MIN_LEADING_EIGENVALUES) + 1)


def _leading_eigenpairs(matrix: np.ndarray, n_pairs: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``n_pairs`` largest eigenvalues (descending) of a symmetric matrix and vectors.

    LAPACK's ``syevr`` through ``eigh(subset_by_index=...)`` computes only the wanted pairs
    (deterministic, unlike ARPACK's random start). ``syevr`` can fail ("Internal Error") on a
    large block of equal eigenvalues, e.g. hundreds of identical all-zero label columns on a
    handful of rows; ``syevx`` then computes the same pairs.
    """
    n = matrix.shape[0]
    if n_pairs >= n:
        values, vectors = eigh(matrix)
    else:
        try:
            values, vectors = eigh(matrix, subset_by_index=[n - n_pairs, n - 1])
        except LinAlgError:
            values, vectors = eigh(matrix, subset_by_index=[n - n_pairs, n - 1], driver="evx")
    return values[::-1], vectors[:, ::-1]


def _n_distinct_rows(rows: np.ndarray) -> int:
    """``np.unique(rows, axis=0).shape[0]`` for a 2-D float array, by hashing each row's bytes.

    ``np.unique`` with ``axis=0`` sorts the rows as structured records: 9.6 ms against 0.4 ms
    at 1,845 x 30, and the stability sweep counts the distinct rows of every resample at every
    K (12 % of a sweep on 20 rows x 1,845 labels). ``-0.0`` is made ``0.0`` first, since the
    two compare equal (as in ``np.unique``) but differ in their bytes.
    """
    rows = np.ascontiguousarray(rows + 0.0, dtype=np.float64)
    records = rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))).ravel()
    return len(set(records.tolist()))


def _cluster_embedding(
    eigenvectors: np.ndarray, n_groups: int, n_init: int, random_state, init: str = "k-means++"
) -> tuple[np.ndarray, np.ndarray]:
    """Row-normalised K leading eigenvectors and their k-means partition (canonical ids)."""
    n_labels = eigenvectors.shape[0]
    leading = eigenvectors[:, :n_groups]
    row_norm = np.linalg.norm(leading, axis=1, keepdims=True)
    embedding = np.divide(leading, row_norm, out=np.zeros_like(leading), where=row_norm > 0)
    if n_groups == 1:
        ids = np.zeros(n_labels, dtype=np.intp)
    elif n_groups == n_labels:
        ids = np.arange(n_labels)
    else:
        n_distinct = _n_distinct_rows(np.round(embedding, 12))
        with warnings.catch_warnings():
            # fewer distinct points than K is handled here (fewer groups), not an error
            warnings.filterwarnings("ignore", message="Number of distinct clusters")
            ids = (
                KMeans(
                    n_clusters=min(n_groups, n_distinct),
                    init=init,
                    n_init=n_init,
                    random_state=random_state,
                )
                .fit(embedding)
                .labels_
            )
    return embedding, canonical_group_ids(ids)


# ------------------------------------------------------------------------ estimator
class LabelClustering(BaseEstimator):
    """Group the label columns of Y by spectral clustering (GroPLE stage 1).

    A transformer-like estimator **on the label matrix**: ``fit(Y)`` takes the (n_samples,
    n_labels) 0/1 matrix and learns a partition of its *columns*; ``labels_`` has one group
    id per label (not per instance). It is therefore not a scikit-learn clusterer
    (whose ``fit_predict`` returns one value per row): its tags declare no estimator type,
    and ``fit_predict`` documents that it returns ``n_labels`` values.

    Parameters
    ----------
    n_groups : int, default=10
        K, the number of label groups (paper default 10). When K exceeds the number of labels
        L it is reduced to L with a warning; the number actually found is ``n_groups_``.
    affinity : {"heat", "cooccurrence", "correlation", "precomputed"}, default="heat"
        Edge weight between labels i and j (every choice has a zero diagonal):

        * ``"heat"`` (paper 001 §3, the default for fidelity): ``A_ij = exp(-||s_i -
          s_j||^2 / (sigma_i sigma_j))`` on the {-1, 1} columns s = 2y - 1, with the local
          scale sigma_i of Zelnik-Manor & Perona. Helps when groups are frequent labels that
          switch on together. Fails on rare labels: two labels that are mostly absent agree
          on most instances, so they are close whether or not they ever co-occur, and the
          rare labels end up in groups of their own.
        * ``"cooccurrence"``: Jaccard ``C_ij / (n_i + n_j - C_ij)`` (C = Y^T Y, n_j the label
          counts). Only shared positive instances count, so rare labels join the frequent
          labels they occur with. Fails when a group's labels are mutually exclusive
          (siblings that never occur together) and for labels that never co-occur with any
          other (isolated, see below).
        * ``"correlation"``: Pearson correlation of the 0/1 columns, negative values set to
          0. Like co-occurrence, but rewards pairs that are also absent together and is
          scaled by each label's variance; a pair of rare labels that co-occur once gets a
          high weight, so it is noisier on very rare labels.
        * ``"precomputed"``: ``fit`` takes a symmetric, non-negative (L, L) affinity matrix
          instead of Y; its diagonal is ignored (set to 0).
    n_neighbors : int, default=7
        ``"heat"`` only. Local scale neighbour: sigma_i is the distance from label i to its
        n_neighbors-th nearest other label (Zelnik-Manor & Perona use the 7th). With fewer
        than n_neighbors + 1 labels the farthest other label is used instead.
    n_init : int, default=10
        k-means restarts (scikit-learn's KMeans).
    random_state : int, RandomState or None, default=None
        Seed of k-means.

    Attributes
    ----------
    labels_ : ndarray of intp, shape (n_labels,)
        Group id per label column, numbered 0..n_groups_-1 in order of first label.
    n_groups_ : int
        Number of non-empty groups.
    affinity_ : ndarray, shape (n_labels, n_labels)
        The affinity A (zero diagonal).
    normalized_affinity_ : ndarray, shape (n_labels, n_labels)
        ``D^{-1/2} A D^{-1/2}`` with ``D_ii = sum_j A_ij`` (rows and columns of isolated
        labels are 0).
    eigenvalues_ : ndarray
        Eigenvalues of the normalised affinity, largest first (the eigengap plot): all
        n_labels of them when n_labels <= ``FULL_SPECTRUM_MAX_LABELS`` (300), otherwise only
        the leading ``max(n_groups, 30) + 1`` (enough for the eigengap of every K up to
        max(n_groups, 30)), computed by LAPACK's subset eigensolver.
    eigenvectors_ : ndarray, shape (n_labels, len(eigenvalues_))
        The eigenvectors of ``eigenvalues_`` (columns, same order); :meth:`default_n_groups`
        clusters their leading columns at other K.
    embedding_ : ndarray, shape (n_labels, n_groups_)
        Row-normalised leading eigenvectors that k-means clustered.
    sigma_ : ndarray of shape (n_labels,) or None
        Local scales of ``"heat"`` (None for the other affinities).
    label_counts_ : ndarray of shape (n_labels,) or None
        Positive instances per label (None for ``"precomputed"``).
    empty_labels_ : ndarray of intp
        Label columns with no positive instance (empty for ``"precomputed"``).
    isolated_labels_ : ndarray of intp
        Labels with zero affinity to every other label (zero degree).
    n_features_in_ : int
        Number of label columns seen in fit (scikit-learn's name for the input width).
    feature_names_in_ : ndarray of str
        Label names, when Y was a DataFrame with string column names.

    Notes
    -----
    Choices where the paper is silent:

    * the diagonal of A is zero, as in Ng-Jordan-Weiss and Zelnik-Manor-Perona;
    * a local scale of 0 (at least n_neighbors duplicates of a label) is replaced by the
      smallest non-zero distance between any two labels (1 if all labels are identical), so
      that duplicates get affinity 1 and no division by zero happens;
    * labels with no positive instance: under ``"heat"`` they are identical {-1, 1}
      columns, so they have affinity 1 to each other and always share one group; under
      ``"cooccurrence"`` and ``"correlation"`` they have no affinity to anything, i.e. they
      are isolated;
    * isolated labels (all affinities 0: an empty label, a label that never co-occurs with
      any other under ``"cooccurrence"``, or a heat affinity that underflowed) cannot be
      placed by the spectrum: their row of the embedding is 0, so k-means puts them all in
      the group whose centre is nearest the origin, often a group of their own. They are
      listed in ``isolated_labels_``, and :func:`group_diagnostics` reports such a group
      as one whose labels never co-occur;
    * K = 1 skips k-means (one group), but the affinity and eigenvalues are still computed.

    Examples
    --------
    >>> from mlviz.synthetic import make_planted
    >>> ds, groups = make_planted(n_samples=150, random_state=0)
    >>> X, Y = ds.X, ds.Y
    >>> from mlviz.label_clustering import LabelClustering
    >>> clustering = LabelClustering(n_groups=4, random_state=0).fit(Y)
    >>> clustering.labels_.shape, clustering.n_groups_
    ((22,), 4)
    """

    _parameter_constraints: dict = {
        "n_groups": [Interval(numbers.Integral, 1, None, closed="left")],
        "affinity": [StrOptions({*AFFINITIES, "precomputed"})],
        "n_neighbors": [Interval(numbers.Integral, 1, None, closed="left")],
        "n_init": [Interval(numbers.Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        n_groups: int = 10,
        *,
        affinity: str = "heat",
        n_neighbors: int = 7,
        n_init: int = 10,
        random_state=None,
    ) -> None:
        self.n_groups = n_groups
        self.affinity = affinity
        self.n_neighbors = n_neighbors
        self.n_init = n_init
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # not a clusterer (labels_ has one entry per column), not a classifier or regressor
        tags.estimator_type = None
        tags.target_tags.required = False
        tags.input_tags.sparse = self.affinity != "precomputed"
        tags.input_tags.pairwise = self.affinity == "precomputed"
        return tags

    def fit(self, Y, y=None) -> LabelClustering:
        """Learn a partition of the label columns.

        Parameters
        ----------
        Y : array-like or sparse matrix of shape (n_samples, n_labels)
            The 0/1 label matrix (a DataFrame's column names become ``feature_names_in_``);
            with ``affinity="precomputed"`` the (n_labels, n_labels) affinity instead.
        y : None
            Ignored (scikit-learn's signature).

        Returns
        -------
        self
        """
        self._validate_params()
        if self.affinity == "precomputed":
            affinity = self._check_precomputed(Y)
            self.sigma_ = None
            self.label_counts_ = None
            self.empty_labels_ = np.empty(0, dtype=np.intp)
        else:
            Y = self._check_labels(Y)
            n_samples, counts, cooc = _label_counts(Y)
            affinity, self.sigma_ = _affinity_from_counts(
                self.affinity, n_samples, counts, cooc, int(self.n_neighbors)
            )
            self.label_counts_ = counts
            self.empty_labels_ = np.flatnonzero(counts == 0)
        n_labels = affinity.shape[0]
        n_groups = int(self.n_groups)
        if n_groups > n_labels:
            warnings.warn(
                f"n_groups={n_groups} is larger than the number of labels ({n_labels}); using "
                f"{n_labels} groups (one label per group).",
                UserWarning,
                stacklevel=2,
            )
            n_groups = n_labels
        self.affinity_ = affinity
        self.normalized_affinity_, isolated = _normalize(affinity)
        self.isolated_labels_ = np.flatnonzero(isolated)
        self.eigenvalues_, self.eigenvectors_ = _leading_eigenpairs(
            self.normalized_affinity_, _n_eigenpairs(n_labels, n_groups)
        )
        self.embedding_, self.labels_ = _cluster_embedding(
            self.eigenvectors_, n_groups, int(self.n_init), self.random_state
        )
        self.n_groups_ = int(self.labels_.max()) + 1
        return self

    def _check_labels(self, Y):
        Y = validate_data(self, Y, accept_sparse="csr", dtype="numeric", reset=True)
        if sp.issparse(Y):
            data = Y.data
            if not np.all((data == 0) | (data == 1)):
                raise ValueError(
                    "Y must contain only 0 and 1; the sparse matrix has other stored values. "
                    "Convert {-1, 1} labels with (Y + 1) // 2."
                )
            return Y
        if (Y.dtype == bool or np.issubdtype(Y.dtype, np.integer)) and Y.ndim == 2 and Y.shape[1]:
            # 0/1 integers (a data set's uint8 labels) stay as they are: the counts convert
            # them (to CSR when sparse), and check_label_matrix's float64 copy of a 11,273 x
            # 983 matrix was a tenth of the GroPLE page's first run at delicious's shape
            if Y.size == 0 or (Y.min() >= 0 and Y.max() <= 1):
                return Y
        return check_label_matrix(Y)

    def _check_precomputed(self, A) -> np.ndarray:
        A = validate_data(self, A, dtype=np.float64, reset=True)
        if A.shape[0] != A.shape[1]:
            raise ValueError(
                f"affinity='precomputed' expects a square (n_labels, n_labels) affinity matrix; "
                f"got shape {A.shape}. Pass the label matrix with another affinity."
            )
        if np.any(A < 0):
            raise ValueError("a precomputed affinity must be non-negative (it weights edges).")
        if not np.allclose(A, A.T, rtol=1e-10, atol=1e-12):
            raise ValueError(
                "a precomputed affinity must be symmetric; symmetrise it, e.g. (A + A.T) / 2."
            )
        A = (A + A.T) / 2.0
        np.fill_diagonal(A, 0.0)
        return A

    def fit_predict(self, Y, y=None) -> np.ndarray:
        """Fit and return ``labels_``: one group id per label **column** (n_labels values)."""
        return self.fit(Y).labels_

    def suggest_n_groups(self, max_groups: int | None = None, min_groups: int = 2) -> int:
        """K with the largest eigengap ``lambda_K - lambda_{K+1}`` (von Luxburg 2007, 8.3).

        Parameters
        ----------
        max_groups : int, optional
            Largest K considered (default: the last K whose gap ``eigenvalues_`` holds, i.e.
            ``len(eigenvalues_) - 1``).
        min_groups : int, default=2
            Smallest K considered. K = 1 is excluded by default: with the 7th-neighbour
            scale the label graph is dense (most labels have fewer than 7 group mates), so
            ``lambda_1 - lambda_2`` is often the largest gap even when groups are clear.
            Pass ``min_groups=1`` for the textbook heuristic.

        Returns
        -------
        int
            With fewer than 3 labels there is no gap to choose from: L (or 1 when
            ``min_groups <= 1``) is returned.
        """
        check_is_fitted(self)
        n_values = self.eigenvalues_.shape[0]
        if n_values < 3:
            return n_values if min_groups > 1 else 1
        upper = n_values - 1 if max_groups is None else min(int(max_groups), n_values - 1)
        lower = max(int(min_groups), 1)
        if lower > upper:
            raise ValueError(
                f"no K to choose from: min_groups={min_groups} > max_groups={upper} "
                f"(with {n_values} eigenvalues)."
            )
        gaps = self.eigenvalues_[:-1] - self.eigenvalues_[1:]
        return int(lower + np.argmax(gaps[lower - 1 : upper]))

    def partition_at(self, n_groups: int) -> np.ndarray:
        """The partition :meth:`fit` would give at ``n_groups``, from the fitted spectrum.

        k-means on the ``n_groups`` leading eigenvectors kept by this fit (no new affinity
        or eigendecomposition), as :meth:`default_n_groups` reads each candidate K.

        Examples
        --------
        >>> from mlviz.label_clustering import LabelClustering
        >>> from mlviz.synthetic import make_planted
        >>> ds, planted = make_planted(n_samples=300, random_state=0)
        >>> spectrum = LabelClustering(n_groups=10, random_state=0).fit(ds.Y)
        >>> ids = spectrum.partition_at(4)
        >>> ids.shape, int(ids.max()) + 1
        ((22,), 4)
        """
        check_is_fitted(self)
        n_groups = int(n_groups)
        if not 1 <= n_groups <= self.eigenvectors_.shape[1]:
            raise ValueError(
                f"n_groups={n_groups} is outside 1..{self.eigenvectors_.shape[1]}, the "
                "eigenvectors this fit kept: fit with a larger n_groups."
            )
        return _cluster_embedding(
            self.eigenvectors_, n_groups, int(self.n_init), self.random_state
        )[1]

    def partition_shares(self, n_groups: int) -> tuple[float, float]:
        """The shares of the labels in the largest group and alone (in groups of one) of the
        partition at ``n_groups`` (:meth:`partition_at`): what :meth:`default_n_groups` judges
        a K by.

        Examples
        --------
        >>> from mlviz.label_clustering import LabelClustering
        >>> from mlviz.synthetic import make_planted
        >>> ds, planted = make_planted(n_samples=300, random_state=0)
        >>> spectrum = LabelClustering(n_groups=21, random_state=0).fit(ds.Y)
        >>> [round(share, 2) for share in spectrum.partition_shares(5)]  # 6 of 22 at most
        [0.27, 0.0]
        >>> [round(share, 2) for share in spectrum.partition_shares(21)]  # 20 labels alone
        [0.09, 0.91]
        """
        return _group_shares(self.partition_at(n_groups))

    def with_n_groups(self, n_groups: int) -> LabelClustering:
        """This fit at ``n_groups`` groups: the estimator :meth:`fit` with ``n_groups`` gives.

        ``fit`` at another K recomputes the co-occurrence counts, the affinity and the
        eigendecomposition, none of which depend on K; this keeps them (shared with ``self``,
        not copied) and runs only the k-means of :meth:`partition_at`. Every fitted
        attribute equals a fresh fit's (tested), which holds when the fresh fit would keep
        as many eigenpairs as this one: always with at most ``FULL_SPECTRUM_MAX_LABELS``
        labels (all are kept), and above that for ``n_groups`` up to
        ``max(self.n_groups, 30)`` when this fit was at ``n_groups <= 30``
        (``MIN_LEADING_EIGENVALUES``, 31 pairs kept either way). Otherwise it raises.

        Parameters
        ----------
        n_groups : int
            K, from 1 to the number of labels.

        Returns
        -------
        LabelClustering
            A new fitted estimator with ``n_groups`` set; ``self`` is unchanged.

        Examples
        --------
        >>> from mlviz.label_clustering import LabelClustering
        >>> from mlviz.synthetic import make_planted
        >>> ds, planted = make_planted(n_samples=300, random_state=0)
        >>> spectrum = LabelClustering(n_groups=10, random_state=0).fit(ds.Y)
        >>> at4 = spectrum.with_n_groups(4)
        >>> fresh = LabelClustering(n_groups=4, random_state=0).fit(ds.Y)
        >>> bool((at4.labels_ == fresh.labels_).all()), at4.n_groups_
        (True, 4)
        """
        check_is_fitted(self)
        n_groups = int(n_groups)
        n_labels, kept = self.eigenvectors_.shape
        if not 1 <= n_groups <= n_labels:
            raise ValueError(f"n_groups={n_groups} is outside 1..{n_labels} (the labels).")
        if _n_eigenpairs(n_labels, n_groups) != kept:
            raise ValueError(
                f"a fit at n_groups={n_groups} keeps {_n_eigenpairs(n_labels, n_groups)} "
                f"eigenpairs of the {n_labels} labels, this one {kept}: fit at "
                f"n_groups={n_groups} instead."
            )
        other = clone(self).set_params(n_groups=n_groups)
        # the K-independent attributes (input width and names included) are this fit's
        other.__dict__.update(
            {name: value for name, value in vars(self).items() if name.endswith("_")}
        )
        other.embedding_, other.labels_ = _cluster_embedding(
            self.eigenvectors_, n_groups, int(self.n_init), self.random_state
        )
        other.n_groups_ = int(other.labels_.max()) + 1
        return other

    def default_n_groups(
        self,
        max_groups: int | None = None,
        *,
        min_groups: int = 2,
        max_group_share: float = DEFAULT_MAX_GROUP_SHARE,
        max_singleton_share: float = DEFAULT_MAX_SINGLETON_SHARE,
    ) -> int:
        """The app's default K: the largest eigengap whose partition is a grouping, neither one
        dominant group nor mostly labels alone.

        The plain eigengap (:meth:`suggest_n_groups`) often picks K = 2 on long-tailed label
        sets, because the frequent labels separate from everything else: on a bibtex-shaped
        set (159 labels) the heat kernel's K = 2 puts 74 % of the labels into one group, on a
        delicious-shaped one (983 labels) 73 %. The rule, documented and tested:

        1. order the K in ``min_groups..max_groups`` by decreasing eigengap
           ``lambda_K - lambda_{K+1}``;
        2. return the first K whose partition (k-means on the K leading eigenvectors, as
           :meth:`fit` at that K would give) puts at most ``max_group_share`` of the labels
           into its largest group and leaves at most ``max_singleton_share`` of them alone
           (:meth:`partition_shares`);
        3. if no K qualifies, the K that exceeds those shares least (the larger of its two
           excesses; ties: larger eigengap).

        K = L (every label alone) is never returned while L > ``min_groups``: it is
        trivially "balanced". Nor, by the second share, is a K near L: the eigengaps at the
        end of the spectrum can be large (on tmc2007-500's 22 labels the heat kernel's second
        largest gap is at K = 21, whose partition leaves 20 labels alone; the rule then gives
        K = 3, 45 % of the labels in its largest group). :func:`stable_n_groups` applies the
        same two shares to the stability sweep.

        Parameters
        ----------
        max_groups : int, optional
            Largest K considered (default and cap: ``len(eigenvalues_) - 1``, and L - 1).
        min_groups : int, default=2
        max_group_share : float, default=0.5
            Largest share of the labels one group may hold ("most labels in one bucket" is
            more than half).
        max_singleton_share : float, default=0.5
            Largest share of the labels that may be alone, each in a group of its own.

        Returns
        -------
        int
        """
        check_is_fitted(self)
        n_labels = self.labels_.size
        n_values = self.eigenvalues_.shape[0]
        upper = min(n_values - 1, n_labels - 1)
        if max_groups is not None:
            upper = min(upper, int(max_groups))
        lower = max(int(min_groups), 1)
        if upper < lower:
            return self.suggest_n_groups(max_groups=max_groups, min_groups=min_groups)
        gaps = self.eigenvalues_[:-1] - self.eigenvalues_[1:]
        candidates = sorted(range(lower, upper + 1), key=lambda k: (-gaps[k - 1], k))
        excess = {}
        for k in candidates:
            largest, alone = self.partition_shares(k)
            if largest <= max_group_share and alone <= max_singleton_share:
                return int(k)
            excess[k] = max(largest - max_group_share, alone - max_singleton_share)
        return int(min(candidates, key=lambda k: (excess[k], candidates.index(k))))


# ---------------------------------------------------------------------- diagnostics
def _group_shares(ids: np.ndarray) -> tuple[float, float]:
    """The shares of the labels in the largest group and alone (groups of one) of a partition
    (group id per label): the two shares the K rules judge (default and stable K)."""
    sizes = np.bincount(ids)
    n_labels = int(sizes.sum())
    return float(sizes.max() / n_labels), float(np.sum(sizes == 1) / n_labels)


def _pair_stats(cooc: np.ndarray, counts: np.ndarray, members: np.ndarray) -> tuple[float, float]:
    """Share of co-occurring pairs and mean Jaccard over the label pairs of one group."""
    if members.size < 2:
        return float("nan"), float("nan")
    block = cooc[np.ix_(members, members)]
    upper = np.triu_indices(members.size, k=1)
    shared = block[upper]
    union = counts[members][:, None] + counts[members][None, :] - block
    jaccard = np.divide(block, union, out=np.zeros_like(block), where=union > 0)[upper]
    return float(np.mean(shared > 0)), float(np.mean(jaccard))


#: The group verdicts of :func:`group_diagnostics`, in the order their rules are tried
#: (the first rule that holds gives the group's verdict), and what each one means.
VERDICTS: dict[str, str] = {
    "singleton": "a single label: nothing to judge about belonging together",
    "never co-occur": "no two of its labels appear together in any instance: held together "
    "by the affinity (e.g. shared rarity under the heat kernel), not by co-occurrence",
    "tail bucket": "mostly tail labels that rarely occur together: rare labels gathered "
    "because they are rare, not because they belong together",
    "weak": "some of its labels occur together, but too few pairs, too weakly, or the group "
    "does not survive resampling of the instances",
    "coherent": "its label pairs occur together, clearly enough and reproducibly",
}

#: Default thresholds of the verdict rules (parameters of :func:`group_diagnostics`).
VERDICT_THRESHOLDS: dict[str, float] = {
    "min_pair_share": 0.5,
    "min_jaccard": 0.05,
    "tail_bucket_share": 0.5,
    "min_stability": 0.6,
}


def group_verdict(
    n_labels: int,
    pair_share: float,
    mean_jaccard: float,
    tail_share: float,
    *,
    stability: float = float("nan"),
    min_pair_share: float = VERDICT_THRESHOLDS["min_pair_share"],
    min_jaccard: float = VERDICT_THRESHOLDS["min_jaccard"],
    tail_bucket_share: float = VERDICT_THRESHOLDS["tail_bucket_share"],
    min_stability: float = VERDICT_THRESHOLDS["min_stability"],
) -> tuple[str, str]:
    """The verdict on one label group and the reason, by the first rule that holds.

    Rules, in order (the keys of :data:`VERDICTS`):

    1. ``"singleton"``: ``n_labels == 1``;
    2. ``"never co-occur"``: ``pair_share == 0`` (no pair of its labels in any instance);
    3. ``"tail bucket"``: ``tail_share >= tail_bucket_share`` and (``pair_share <
       min_pair_share`` or ``mean_jaccard < min_jaccard``): mostly tail labels, rarely
       together;
    4. ``"weak"``: ``pair_share < min_pair_share``, or ``mean_jaccard < min_jaccard``, or
       ``stability < min_stability`` (only when the stability is known, i.e. not NaN);
    5. ``"coherent"``: otherwise.

    The defaults (:data:`VERDICT_THRESHOLDS`) are choices, not from a paper: half the pairs
    co-occurring at least once; a mean Jaccard of 0.05 (pairs share one instance in twenty
    of those carrying either; the planted sample's real groups score 0.44-0.52, its bucket of
    rare labels 0.006); half the labels tail; a label kept with its group mates in 60 % of
    bootstrap resamples (:func:`label_coassignment`).

    Returns
    -------
    (verdict, reason) : tuple of str
        The reason names the numbers that decided it.

    Examples
    --------
    >>> from mlviz.label_clustering import group_verdict
    >>> group_verdict(4, pair_share=1.0, mean_jaccard=0.4, tail_share=0.0)[0]
    'coherent'
    >>> group_verdict(6, pair_share=0.1, mean_jaccard=0.004, tail_share=1.0)[0]
    'tail bucket'
    """
    if n_labels <= 1:
        return "singleton", "one label"
    if pair_share == 0:
        return "never co-occur", "no pair of its labels occurs together"
    few_pairs = pair_share < min_pair_share
    faint = mean_jaccard < min_jaccard
    numbers = f"{pair_share:.0%} of pairs co-occur, mean Jaccard {mean_jaccard:.3f}"
    if tail_share >= tail_bucket_share and (few_pairs or faint):
        return "tail bucket", f"{tail_share:.0%} tail labels; {numbers}"
    reasons = []
    if few_pairs:
        reasons.append(f"only {pair_share:.0%} of pairs co-occur (< {min_pair_share:.0%})")
    if faint:
        reasons.append(f"mean Jaccard {mean_jaccard:.3f} (< {min_jaccard:g})")
    if not np.isnan(stability) and stability < min_stability:
        reasons.append(f"kept together in {stability:.0%} of resamples (< {min_stability:.0%})")
    if reasons:
        return "weak", "; ".join(reasons)
    kept = "" if np.isnan(stability) else f", kept together in {stability:.0%} of resamples"
    return "coherent", numbers + kept


_SHARE = Interval(numbers.Real, 0, 1, closed="both")


@validate_params(
    {
        "Y": _LABELS,
        "groups": ["array-like"],
        "label_names": ["array-like", None],
        "tail_threshold": [_SHARE],
        "coassignment": ["array-like", None],
        "cooccurrence": ["array-like", None],
        "min_pair_share": [_SHARE],
        "min_jaccard": [_SHARE],
        "tail_bucket_share": [_SHARE],
        "min_stability": [_SHARE],
    },
    prefer_skip_nested_validation=True,
)
def group_diagnostics(
    Y,
    groups,
    *,
    label_names: Sequence[str] | None = None,
    tail_threshold: float = 0.05,
    coassignment=None,
    cooccurrence=None,
    min_pair_share: float = VERDICT_THRESHOLDS["min_pair_share"],
    min_jaccard: float = VERDICT_THRESHOLDS["min_jaccard"],
    tail_bucket_share: float = VERDICT_THRESHOLDS["tail_bucket_share"],
    min_stability: float = VERDICT_THRESHOLDS["min_stability"],
) -> pd.DataFrame:
    """Evidence for each label group and a verdict: size, support, co-occurrence, tail share,
    stability.

    Parameters
    ----------
    Y : array-like or sparse matrix of shape (n_samples, n_labels)
        0/1 label matrix.
    groups : array-like of int, shape (n_labels,), or list of lists of label indices
        The partition (e.g. ``LabelClustering.labels_``), see :func:`check_groups`.
    label_names : sequence of str, optional
        Names used in the ``labels`` column (default: column indices).
    tail_threshold : float, default=0.05
        A label is a tail label when its share of instances is strictly below this
        (as :func:`mlviz.stats.tail_labels`).
    coassignment : array-like of shape (n_labels,), optional
        Per-label bootstrap co-assignment (:func:`label_coassignment` of this partition);
        its mean over a group is the group's ``stability``. Without it the stability is NaN
        and the verdicts use the co-occurrence rules only.
    cooccurrence : array-like of shape (n_labels, n_labels), optional
        ``Yᵀ Y``, the instances shared by each pair of labels (:func:`mlviz.stats.cooccurrence`
        of Y), counted from Y when omitted. Pass it to judge several partitions of the same
        labels: the count is about half of a call at ~1,000 labels (the Label clusters
        page's K slider, :func:`recommend_n_groups`). Its diagonal must be Y's label counts.
    min_pair_share, min_jaccard, tail_bucket_share, min_stability : float
        Thresholds of the verdict rules, see :func:`group_verdict`.

    Returns
    -------
    pandas.DataFrame
        One row per group (ascending id) with columns

        * ``group``: the group id;
        * ``n_labels``: labels in the group;
        * ``labels``: their names (or indices), in column order;
        * ``support``: instances that carry at least one label of the group;
        * ``cooccurrence_rate``: share of the group's label pairs that occur together in at
          least one instance (NaN for a single-label group). 0 means no two labels of the
          group ever appear together: the group is held together by something other than
          co-occurrence (with ``"heat"``, typically shared rarity);
        * ``mean_jaccard``: mean Jaccard co-occurrence over the group's label pairs (NaN for
          a single label);
        * ``tail_share``: share of the group's labels under ``tail_threshold``;
        * ``stability``: mean co-assignment of the group's labels (NaN without
          ``coassignment`` and for a single label);
        * ``verdict`` and ``reason``: :func:`group_verdict` of the row, one of
          :data:`VERDICTS` for every group.

    Examples
    --------
    >>> from mlviz.synthetic import make_planted
    >>> ds, groups = make_planted(n_samples=150, random_state=0)
    >>> X, Y = ds.X, ds.Y
    >>> from mlviz.label_clustering import group_diagnostics
    >>> table = group_diagnostics(Y, groups, tail_threshold=0.05)
    >>> table["group"].tolist(), table["n_labels"].tolist()
    ([0, 1, 2, 3], [6, 6, 5, 5])
    """
    # checked as 0/1 bytes and counted from one CSR copy: a float64 copy of a 16,105 x 983
    # label matrix (127 MB, not contiguous after a column selection) made the counts and the
    # support ~0.4 s per call, and the Label clusters page calls this once per candidate K
    Y = check_label_matrix(Y, dtype=np.uint8)
    n_samples, n_labels = Y.shape
    ids = check_groups(groups, n_labels)
    if label_names is None:
        names: list = list(range(n_labels))
    else:
        names = [str(name) for name in label_names]
        if len(names) != n_labels:
            raise ValueError(
                f"label_names has {len(names)} names but Y has {n_labels} label columns."
            )
    if coassignment is None:
        together = np.full(n_labels, np.nan)
    else:
        together = np.asarray(coassignment, dtype=np.float64).ravel()
        if together.shape != (n_labels,):
            raise ValueError(
                f"coassignment has {together.size} values but Y has {n_labels} label columns."
            )
    labels = csr_labels(Y)
    if cooccurrence is None:
        _, counts, cooc = _label_counts(labels)
    else:
        cooc = np.asarray(cooccurrence, dtype=np.float64)
        counts = np.asarray(labels.sum(axis=0)).ravel()
        if cooc.shape != (n_labels, n_labels) or not np.array_equal(np.diagonal(cooc), counts):
            raise ValueError(
                f"cooccurrence must be Y^T Y for this Y: a ({n_labels}, {n_labels}) matrix "
                f"whose diagonal is each label's count; got shape {cooc.shape}"
                + ("" if cooc.shape != (n_labels, n_labels) else " and another diagonal")
                + ". Compute it with mlviz.stats.cooccurrence(Y), or leave it out."
            )
    tail = is_tail(counts / n_samples, tail_threshold)
    indicator = sp.csr_matrix(
        (np.ones(n_labels), (np.arange(n_labels), ids)), shape=(n_labels, ids.max() + 1)
    )
    # instances with any label of the group: non-zero entries of Y @ indicator
    support = np.asarray((labels @ indicator > 0).sum(axis=0)).ravel()
    thresholds = {
        "min_pair_share": min_pair_share,
        "min_jaccard": min_jaccard,
        "tail_bucket_share": tail_bucket_share,
        "min_stability": min_stability,
    }
    rows = []
    for k in range(int(ids.max()) + 1):
        members = np.flatnonzero(ids == k)
        rate, jaccard = _pair_stats(cooc, counts, members)
        kept = together[members][~np.isnan(together[members])]
        stability = float(kept.mean()) if members.size > 1 and kept.size else float("nan")
        tail_share = float(tail[members].mean())
        verdict, reason = group_verdict(
            int(members.size), rate, jaccard, tail_share, stability=stability, **thresholds
        )
        rows.append(
            {
                "group": k,
                "n_labels": int(members.size),
                "labels": [names[j] for j in members],
                "support": int(support[k]),
                "cooccurrence_rate": rate,
                "mean_jaccard": jaccard,
                "tail_share": tail_share,
                "stability": stability,
                "verdict": verdict,
                "reason": reason,
            }
        )
    return pd.DataFrame(rows)


def verdict_counts(diagnostics: pd.DataFrame) -> dict[str, int]:
    """Groups per verdict, in the order of :data:`VERDICTS` (verdicts with no group left out).

    Examples
    --------
    >>> import pandas as pd
    >>> from mlviz.label_clustering import verdict_counts
    >>> verdict_counts(pd.DataFrame({"verdict": ["weak", "coherent", "weak"]}))
    {'weak': 2, 'coherent': 1}
    """
    counts = diagnostics["verdict"].value_counts()
    return {v: int(counts[v]) for v in VERDICTS if v in counts.index}


@validate_params(
    {"cooc": ["array-like"], "groups": ["array-like"]}, prefer_skip_nested_validation=True
)
def within_group_cooccurrence(cooc: np.ndarray, groups: np.ndarray) -> tuple[float, int]:
    """Pooled share of within-group label pairs that co-occur, and the number of groups of
    two or more labels in which no pair co-occurs (NaN share when every group is a single).

    Examples
    --------
    >>> from mlviz.synthetic import make_planted
    >>> ds, groups = make_planted(n_samples=150, random_state=0)
    >>> X, Y = ds.X, ds.Y
    >>> from mlviz.label_clustering import within_group_cooccurrence
    >>> from mlviz.stats import cooccurrence
    >>> rate, never = within_group_cooccurrence(cooccurrence(Y), groups)
    >>> bool(0 <= rate <= 1), never
    (True, 0)
    """
    groups = np.asarray(groups)
    same = groups[:, None] == groups[None, :]
    upper = np.triu(same, k=1)
    n_pairs = int(upper.sum())
    share = float(np.mean(cooc[upper] > 0)) if n_pairs else float("nan")
    never = 0
    for k in np.unique(groups):
        members = np.flatnonzero(groups == k)
        if members.size > 1 and not np.any(np.triu(cooc[np.ix_(members, members)] > 0, k=1)):
            never += 1
    return share, never


def _adjusted_rand(a: np.ndarray, b: np.ndarray) -> float:
    """Adjusted Rand index of two partitions given as ids 0..; scikit-learn's
    ``adjusted_rand_score`` without its input validation (~3 ms a call, most of a sweep's
    time at tens of labels; ``tests/test_label_clustering.py`` checks they agree)."""
    n = a.size
    n_b = int(b.max()) + 1
    contingency = np.bincount(a * n_b + b)
    pairs = float((contingency * (contingency - 1)).sum()) / 2.0
    size_a = np.bincount(a)
    size_b = np.bincount(b)
    pairs_a = float((size_a * (size_a - 1)).sum()) / 2.0
    pairs_b = float((size_b * (size_b - 1)).sum()) / 2.0
    total = n * (n - 1) / 2.0
    expected = pairs_a * pairs_b / total if total else 0.0
    maximum = (pairs_a + pairs_b) / 2.0
    if maximum == expected:  # both all singletons or both one group: the same partition
        return 1.0
    return (pairs - expected) / (maximum - expected)


def _permuted_columns(Y, rng) -> sp.csr_matrix:
    """The null of independent labels: each column's ones moved to rows drawn at random.

    Every label keeps its count (so its frequency and, under ``"heat"``, its rarity), but
    which labels occur together is left to chance.
    """
    Yc = sp.csc_matrix(Y, dtype=np.float64)
    Yc.eliminate_zeros()
    n_samples = Yc.shape[0]
    counts = np.diff(Yc.indptr)
    rows = [rng.permutation(n_samples)[:c] for c in counts]
    indices = np.concatenate(rows) if rows else np.empty(0, dtype=np.intp)
    permuted = sp.csc_matrix((np.ones(indices.size), indices, Yc.indptr), shape=Yc.shape)
    return permuted.tocsr()


class _Bootstrap:
    """Partitions of one label matrix and of its bootstrap resamples, at several K.

    Each bootstrap sample costs one weighted co-occurrence product and one eigen
    decomposition shared by every K; only k-means runs per K. Resampling needs no refit of
    anything else, because the affinities are functions of the (weighted) counts.
    """

    def __init__(self, Y, affinity: str, n_neighbors: int, n_init: int) -> None:
        nnz = Y.nnz if sp.issparse(Y) else np.count_nonzero(Y)
        self.Y = sp.csr_matrix(Y) if nnz <= SPARSE_LABEL_DENSITY * np.prod(Y.shape) else Y
        self.n_samples, self.n_labels = Y.shape
        self.affinity = affinity
        self.n_neighbors = n_neighbors
        self.n_init = n_init

    def vectors(self, weights, n_pairs: int, iterative: bool = False) -> np.ndarray:
        total, counts, cooc = _label_counts(self.Y, weights)
        A, _ = _affinity_from_counts(self.affinity, total, counts, cooc, self.n_neighbors)
        normalized = _normalize(A)[0]
        if iterative and n_pairs < self.n_labels - 1:
            try:
                # Lanczos (ARPACK) from a fixed start: deterministic, and at ~1,000 labels
                # 1.5-12x faster than LAPACK's subset solve (benchmarks/
                # bench_label_clustering.py); a resample only needs its K leading vectors
                # restarts bounded: on a large block of equal eigenvalues (hundreds of labels
                # on 20 rows) ARPACK's default of 10 L restarts ran for minutes before it gave
                # up; a well-separated spectrum converges in a few
                values, vectors = eigsh(
                    normalized,
                    k=n_pairs,
                    which="LA",
                    v0=np.ones(self.n_labels),
                    maxiter=ARPACK_MAX_RESTARTS,
                )
                return vectors[:, np.argsort(values)[::-1]]
            except (ArpackNoConvergence, ArpackError):
                pass  # e.g. a large block of equal eigenvalues: LAPACK below
        return _leading_eigenpairs(normalized, n_pairs)[1]

    def full(self, ks: np.ndarray, random_state) -> dict[int, np.ndarray]:
        """LabelClustering's own partitions (whole spectrum up to 300 labels, 10 restarts)."""
        vectors = self.vectors(None, _n_eigenpairs(self.n_labels, int(ks.max())))
        return {int(k): _cluster_embedding(vectors, int(k), 10, random_state)[1] for k in ks}

    def resampled(self, ks: np.ndarray, rng) -> dict[int, np.ndarray]:
        """Partitions of one bootstrap sample (same size, drawn with replacement)."""
        weights = np.bincount(
            rng.randint(0, self.n_samples, self.n_samples), minlength=self.n_samples
        )
        # only the leading max(K) eigenvectors are clustered: a subset solve suffices
        vectors = self.vectors(
            weights.astype(np.float64),
            int(ks.max()),
            iterative=self.n_labels >= ITERATIVE_MIN_LABELS,
        )
        seed = rng.randint(np.iinfo(np.int32).max)
        # k-means++ seeding costs more than the clustering at this size, and the score is an
        # average over resamples anyway: random initial centres
        return {
            int(k): _cluster_embedding(vectors, int(k), self.n_init, seed, "random")[1] for k in ks
        }


@validate_params(
    {
        "Y": _LABELS,
        "n_groups": [_POSITIVE_INT, "array-like"],
        # "precomputed" cannot be resampled with the instances
        "affinity": [StrOptions(set(AFFINITIES))],
        "n_resamples": [_POSITIVE_INT],
        "n_null": [Interval(numbers.Integral, 0, None, closed="left")],
        "random_state": ["random_state"],
        "n_neighbors": [_POSITIVE_INT],
        "n_init": [_POSITIVE_INT],
        "progress": [callable, None],
    },
    prefer_skip_nested_validation=True,
)
def clustering_stability(
    Y,
    n_groups,
    *,
    affinity: str = "heat",
    n_resamples: int = 10,
    n_null: int = 1,
    random_state=0,
    n_neighbors: int = 7,
    n_init: int = 3,
    progress=None,
) -> pd.DataFrame:
    """Stability of the label partition under bootstrap resampling, against a null.

    For each K the partition of the full data is compared with the partitions of
    ``n_resamples`` bootstrap samples of the rows (drawn with replacement, same size) by
    the adjusted Rand index (ARI, both partitions are of the same label columns); the mean
    ARI is the stability (1: every resample gives the same groups; 0: agreement at chance).

    The ARI is chance-adjusted for the group sizes, yet a partition can be reproducible for
    reasons that say nothing about labels belonging together: with K = L - 1 only the one
    most similar pair is joined, and it is found again in every resample (yeast's 14
    labels: ARI 1.00 at K = 13); under the heat kernel labels of similar frequency are
    alike whatever they co-occur with. The null measures exactly that part: the same
    procedure (full-data partition, ``n_resamples`` bootstrap samples) on ``n_null`` data
    sets in which every label column is permuted independently (label frequencies kept,
    co-occurrence left to chance). ``adjusted_stability = stability - null_stability``
    is the reproducibility owed to which labels occur together; this is the reference
    distribution idea of Clest (Dudoit & Fridlyand, Genome Biology 3(7), 2002), there
    with a prediction score and here with the bootstrap ARI.

    Parameters
    ----------
    Y : array-like or sparse matrix of shape (n_samples, n_labels)
        0/1 label matrix.
    n_groups : int or sequence of int
        The K (or Ks) to evaluate; each must be in 1..n_labels.
    affinity : {"heat", "cooccurrence", "correlation"}, default="heat"
        As in :class:`LabelClustering` ("precomputed" cannot be resampled).
    n_resamples : int, default=10
        Bootstrap samples per K (the same samples for every K).
    n_null : int, default=1
        Null data sets (each with its own ``n_resamples`` bootstrap samples); 0 skips the
        null (its columns are NaN) and halves the time.
    random_state : int, RandomState or None, default=0
        Seed of the bootstrap, the null permutations and k-means: by default the same
        numbers on every call; None draws anew each call.
    n_neighbors : int, default=7
        Local scale of ``"heat"``.
    n_init : int, default=3
        k-means restarts per bootstrap sample, from random initial centres. The full-data
        partitions are exactly those of ``LabelClustering(K, affinity=affinity,
        n_neighbors=n_neighbors, random_state=random_state)`` (10 restarts) whenever
        n_labels <= 300 (above, the eigenvectors come from a subset solve of a different
        size and may differ in the last digits).
    progress : callable, optional
        ``progress(done, total, message)`` after each partition of every K, e.g. to
        advance a progress bar (``total = (1 + n_resamples) * (1 + n_null)``).

    Returns
    -------
    pandas.DataFrame
        One row per K (ascending) with columns ``n_groups``, ``stability`` (mean ARI),
        ``stability_std`` (its standard deviation over resamples), ``null_stability`` and
        ``null_stability_std`` (the same on the null data sets), ``adjusted_stability``
        (``stability - null_stability``), ``n_groups_found`` (groups of the full-data
        partition), ``largest_group_share`` (share of the labels in its largest group),
        ``singleton_share`` (share of the labels alone in their group),
        ``cooccurrence_rate`` (share of within-group label pairs of the full-data partition
        that co-occur in at least one instance; NaN when every group is a single label) and
        ``n_never_cooccurring`` (groups of two or more labels in which no pair ever
        co-occurs).

    Examples
    --------
    >>> from mlviz.synthetic import make_planted
    >>> ds, groups = make_planted(n_samples=150, random_state=0)
    >>> X, Y = ds.X, ds.Y
    >>> from mlviz.label_clustering import clustering_stability
    >>> table = clustering_stability(Y, n_groups=[2, 4], n_resamples=3, random_state=0)
    >>> table["n_groups"].tolist(), bool(table["stability"].between(-1, 1).all())
    ([2, 4], True)
    """
    Y = check_label_matrix(Y)
    n_samples, n_labels = Y.shape
    ks = np.atleast_1d(np.asarray(n_groups))
    if ks.size == 0 or not np.issubdtype(ks.dtype, np.integer):
        raise ValueError(
            f"n_groups must be an integer or a sequence of integers; got {n_groups!r}."
        )
    if ks.min() < 1 or ks.max() > n_labels:
        raise ValueError(
            f"every K in n_groups must lie in 1..{n_labels} (the number of labels); got "
            f"{sorted(set(ks.tolist()))}."
        )
    ks = np.unique(ks)
    rng = check_random_state(random_state)
    total_steps = (1 + n_resamples) * (1 + n_null)
    done = 0

    def tick(message: str) -> None:
        nonlocal done
        done += 1
        if progress is not None:
            progress(done, total_steps, message)

    def scores_of(bootstrap: _Bootstrap, what: str) -> tuple[dict[int, np.ndarray], np.ndarray]:
        full = bootstrap.full(ks, random_state)
        tick(f"{what}: the full-data partitions")
        scores = np.empty((n_resamples, ks.size))
        for b in range(n_resamples):
            resampled = bootstrap.resampled(ks, rng)
            for i, k in enumerate(ks):
                scores[b, i] = _adjusted_rand(full[int(k)], resampled[int(k)])
            tick(f"{what}: bootstrap sample {b + 1} of {n_resamples}")
        return full, scores

    full, scores = scores_of(_Bootstrap(Y, affinity, n_neighbors, n_init), "data")
    null_scores = np.full((max(n_null, 1) * n_resamples, ks.size), np.nan)
    for r in range(n_null):
        null = _Bootstrap(_permuted_columns(Y, rng), affinity, n_neighbors, n_init)
        block = scores_of(null, f"null data set {r + 1} of {n_null}")[1]
        null_scores[r * n_resamples : (r + 1) * n_resamples] = block
    cooc = _label_counts(Y)[2]
    rows = []
    for i, k in enumerate(ks):
        share, never = within_group_cooccurrence(cooc, full[int(k)])
        largest, alone = _group_shares(full[int(k)])
        stability = float(scores[:, i].mean())
        null_stability = float(null_scores[:, i].mean()) if n_null else float("nan")
        rows.append(
            {
                "n_groups": int(k),
                "stability": stability,
                "stability_std": float(scores[:, i].std()),
                "null_stability": null_stability,
                "null_stability_std": float(null_scores[:, i].std()) if n_null else float("nan"),
                "adjusted_stability": stability - null_stability,
                "n_groups_found": int(full[int(k)].max()) + 1,
                "largest_group_share": largest,
                "singleton_share": alone,
                "cooccurrence_rate": share,
                "n_never_cooccurring": never,
            }
        )
    return pd.DataFrame(rows)


def stable_n_groups(
    sweep: pd.DataFrame,
    *,
    max_group_share: float = DEFAULT_MAX_GROUP_SHARE,
    max_singleton_share: float = DEFAULT_MAX_SINGLETON_SHARE,
) -> int:
    """The K of a sweep with the largest null-adjusted stability among K that group.

    A K is eligible when its full-data partition puts at most ``max_group_share`` of the
    labels into its largest group (not one bucket) and leaves at most
    ``max_singleton_share`` of them alone (not near-singletons: joining the one most
    similar pair of labels is reproducible whatever the data, e.g. the planted sample under
    the heat kernel at K = 21 of 22 labels, adjusted stability 0.80). Among the eligible K
    (every K if none is), the one with the largest ``adjusted_stability`` of
    :func:`clustering_stability`; ties go to the smaller K (fewer groups to explain).

    Examples
    --------
    >>> import pandas as pd
    >>> from mlviz.label_clustering import stable_n_groups
    >>> sweep = pd.DataFrame({"n_groups": [2, 3, 13], "adjusted_stability": [0.1, 0.4, 0.9],
    ...                       "largest_group_share": [0.5, 0.4, 0.14],
    ...                       "singleton_share": [0.0, 0.0, 0.86]})
    >>> stable_n_groups(sweep)
    3
    """
    if "adjusted_stability" not in sweep or sweep["adjusted_stability"].isna().all():
        raise ValueError(
            "stable_n_groups needs the null-adjusted stability: pass the table of "
            "clustering_stability with n_null >= 1."
        )
    eligible = (sweep["largest_group_share"] <= max_group_share) & (
        sweep["singleton_share"] <= max_singleton_share
    )
    candidates = sweep[eligible] if eligible.any() else sweep
    candidates = candidates.dropna(subset=["adjusted_stability"])
    best = candidates["adjusted_stability"].max()
    return int(candidates.loc[candidates["adjusted_stability"] == best, "n_groups"].min())


#: :func:`recommend_n_groups` recommends no K whose groups hold fewer than this share of the
#: labels in *coherent* groups (:func:`group_verdict`): below it most labels sit in groups that
#: are no evidence that their labels belong together.
MIN_COHERENT_SHARE = 0.5


@dataclass(frozen=True)
class KRecommendation:
    """One suggested number of label groups, with the evidence for and against each candidate.

    Attributes
    ----------
    k : int or None
        The recommended K; None when no candidate shows group structure (every candidate
        lost: the label space has no clear group structure at this affinity).
    candidates : pandas.DataFrame
        One row per candidate K (ascending) with ``n_groups``, ``proposed_by`` (which rules
        proposed it: "eigengap", "default rule", "stability"), ``eigengap`` (lambda_K -
        lambda_{K+1}), ``largest_group_share``, ``coherent_share`` (share of the labels in
        coherent groups), ``verdicts`` (groups per verdict, as text), ``adjusted_stability``
        (NaN when the sweep did not run), ``qualified`` and ``why`` (why it was recommended
        or why it lost).

    Examples
    --------
    >>> import pandas as pd
    >>> from mlviz.label_clustering import KRecommendation
    >>> advice = KRecommendation(k=None, candidates=pd.DataFrame({"n_groups": [2, 3]}))
    >>> advice.has_structure  # no candidate showed group structure
    False
    """

    k: int | None
    candidates: pd.DataFrame

    @property
    def has_structure(self) -> bool:
        """Whether some candidate K showed group structure (``k`` is not None)."""
        return self.k is not None


def recommend_n_groups(
    spectrum: LabelClustering,
    Y,
    *,
    max_groups: int | None = None,
    sweep: pd.DataFrame | None = None,
    tail_threshold: float = 0.05,
    eigengap_k: int | None = None,
    default_k: int | None = None,
    max_group_share: float = DEFAULT_MAX_GROUP_SHARE,
    min_coherent_share: float = MIN_COHERENT_SHARE,
    min_adjusted_stability: float = MIN_ADJUSTED_STABILITY,
) -> KRecommendation:
    """One suggested K from the eigengap, the null-adjusted stability and the group verdicts.

    Three rules each propose a K: the plain eigengap (:meth:`LabelClustering.suggest_n_groups`,
    von Luxburg 2007, 8.3), the app's default rule (:meth:`LabelClustering.default_n_groups`)
    and, when a stability sweep is given, the K most stable beyond shuffled labels
    (:func:`stable_n_groups`). They often disagree (on a bibtex-shaped set: 2, 4 and 13), so
    this rule weighs their evidence. Not from a paper; documented and tested:

    1. each candidate's partition (:meth:`LabelClustering.partition_at`) is judged by
       :func:`group_diagnostics` (co-occurrence rules; no bootstrap co-assignment);
    2. a candidate is *disqualified* when its largest group holds more than
       ``max_group_share`` of the labels (one bucket), when fewer than
       ``min_coherent_share`` of the labels sit in coherent groups, or, with a sweep, when
       its adjusted stability is below ``min_adjusted_stability`` (no more reproducible
       than on shuffled labels; a K outside the sweep is not judged on stability);
    3. among the qualified, the largest coherent share wins; ties go to the larger adjusted
       stability, then the larger eigengap, then the smaller K;
    4. when none qualifies, ``k`` is None: the label space shows no clear group structure
       at this affinity, whatever K is chosen.

    Parameters
    ----------
    spectrum : LabelClustering
        Fitted on ``Y`` with ``n_groups`` at least the largest candidate (its eigenvectors
        give every candidate's partition).
    Y : array-like or sparse matrix of shape (n_samples, n_labels)
        The labels ``spectrum`` was fitted on.
    max_groups : int, optional
        Largest K the eigengap rules consider (default: what the spectrum holds).
    sweep : pandas.DataFrame, optional
        :func:`clustering_stability` with ``n_null >= 1``: adds its K and the stability test.
    tail_threshold : float, default=0.05
        As in :func:`group_diagnostics`.
    eigengap_k, default_k : int, optional
        The two rules' K when already known (``spectrum.suggest_n_groups(max_groups)`` and
        ``spectrum.default_n_groups(max_groups)``, which runs k-means at many K): passed in,
        they are not computed again.
    max_group_share, min_coherent_share, min_adjusted_stability : float
        The thresholds of step 2.

    Returns
    -------
    KRecommendation

    Examples
    --------
    >>> from mlviz.label_clustering import LabelClustering, recommend_n_groups
    >>> from mlviz.synthetic import make_planted
    >>> ds, planted = make_planted(n_samples=300, random_state=0)
    >>> spectrum = LabelClustering(n_groups=10, random_state=0).fit(ds.Y)
    >>> advice = recommend_n_groups(spectrum, ds.Y, max_groups=10)
    >>> advice.k, advice.has_structure  # the 4 planted groups and a bucket of rare labels
    (5, True)
    >>> sorted(advice.candidates.columns)[:3]
    ['adjusted_stability', 'coherent_share', 'eigengap']
    """
    check_is_fitted(spectrum)
    Y = check_label_matrix(Y, dtype=np.uint8)  # 0/1 bytes, checked again cheaply per K below
    n_labels = Y.shape[1]
    if spectrum.labels_.size != n_labels:
        raise ValueError(
            f"the spectrum was fitted on {spectrum.labels_.size} label columns, Y has {n_labels}."
        )
    proposed: dict[int, list[str]] = {}
    if eigengap_k is None:
        eigengap_k = spectrum.suggest_n_groups(max_groups=max_groups)
    if default_k is None:
        default_k = spectrum.default_n_groups(max_groups)
    proposed.setdefault(int(eigengap_k), []).append("eigengap")
    proposed.setdefault(int(default_k), []).append("default rule")
    by_k = None
    if sweep is not None:
        by_k = sweep.set_index("n_groups")
        stable = stable_n_groups(sweep, max_group_share=max_group_share)
        if stable <= spectrum.eigenvectors_.shape[1]:
            proposed.setdefault(stable, []).append("stability")
    gaps = spectrum.eigenvalues_[:-1] - spectrum.eigenvalues_[1:]
    # the pair counts do not depend on K: counted once for every candidate
    cooc = _label_counts(csr_labels(check_label_matrix(Y, dtype=np.uint8)))[2]
    rows = []
    for k in sorted(proposed):
        ids = spectrum.partition_at(k)
        table = group_diagnostics(Y, ids, tail_threshold=tail_threshold, cooccurrence=cooc)
        coherent = float(table.loc[table["verdict"] == "coherent", "n_labels"].sum() / n_labels)
        largest = float(np.bincount(ids).max() / n_labels)
        stability = (
            float(by_k.loc[k, "adjusted_stability"])
            if by_k is not None and k in by_k.index
            else float("nan")
        )
        against = []
        if largest > max_group_share:
            against.append(f"puts {largest:.0%} of the labels into one group")
        if coherent < min_coherent_share:
            against.append(f"only {coherent:.0%} of labels in coherent groups")
        if not np.isnan(stability) and stability < min_adjusted_stability:
            against.append(
                f"adjusted stability {stability:.2f} < {min_adjusted_stability:g} (no more "
                "reproducible than shuffled labels)"
            )
        counts = verdict_counts(table)
        rows.append(
            {
                "n_groups": int(k),
                "proposed_by": ", ".join(proposed[k]),
                "eigengap": float(gaps[k - 1]) if k - 1 < gaps.size else float("nan"),
                "largest_group_share": largest,
                "coherent_share": coherent,
                "verdicts": ", ".join(f"{n} {v}" for v, n in counts.items()),
                "adjusted_stability": stability,
                "qualified": not against,
                "why": "; ".join(against),
            }
        )
    candidates = pd.DataFrame(rows)
    qualified = candidates[candidates["qualified"]]
    if qualified.empty:
        return KRecommendation(k=None, candidates=candidates)
    order = qualified.assign(
        _stability=qualified["adjusted_stability"].fillna(-np.inf)
    ).sort_values(
        ["coherent_share", "_stability", "eigengap", "n_groups"],
        ascending=[False, False, False, True],
    )
    best = int(order["n_groups"].iloc[0])
    winner = candidates.loc[candidates["n_groups"] == best].iloc[0]
    for i, row in candidates.iterrows():
        if row["n_groups"] == best:
            candidates.loc[i, "why"] = (
                f"{row['coherent_share']:.0%} of the labels in coherent groups"
            )
        elif row["qualified"]:
            candidates.loc[i, "why"] = (
                f"fewer labels in coherent groups ({row['coherent_share']:.0%}) than K = "
                f"{best} ({winner['coherent_share']:.0%})"
                if row["coherent_share"] < winner["coherent_share"]
                else f"ties with K = {best} on coherent groups, which is more stable or has "
                "the larger eigengap"
            )
    return KRecommendation(k=best, candidates=candidates)


@validate_params(
    {
        "Y": _LABELS,
        "groups": ["array-like"],
        "affinity": [StrOptions(set(AFFINITIES))],
        "n_resamples": [_POSITIVE_INT],
        "random_state": ["random_state"],
        "n_neighbors": [_POSITIVE_INT],
        "n_init": [_POSITIVE_INT],
    },
    prefer_skip_nested_validation=True,
)
def label_coassignment(
    Y,
    groups,
    *,
    affinity: str = "heat",
    n_resamples: int = 10,
    random_state=0,
    n_neighbors: int = 7,
    n_init: int = 3,
) -> np.ndarray:
    """How often each label stays with its group mates across bootstrap resamples.

    The partition ``groups`` (K groups) is compared with the K-group partitions of
    ``n_resamples`` bootstrap samples of the rows (as in :func:`clustering_stability`). For
    label j in group g, its co-assignment in one resample is the share of the other labels
    of g that land in the same resampled group as j; the value returned is the mean over
    resamples. 1: the label is always found with all its mates; near 0: its membership is
    an accident of the sample. The mean over a group is its ``stability`` in
    :func:`group_diagnostics`.

    Parameters
    ----------
    Y : array-like or sparse matrix of shape (n_samples, n_labels)
        0/1 label matrix.
    groups : array-like of int, shape (n_labels,)
        The partition to judge (e.g. ``LabelClustering(K, affinity=affinity).labels_``),
        see :func:`check_groups`.
    affinity, n_neighbors, n_init, n_resamples, random_state
        As in :func:`clustering_stability`; the resampled partitions use the affinity given
        here, so pass the one ``groups`` came from.

    Returns
    -------
    ndarray of shape (n_labels,)
        NaN for a label alone in its group.

    Examples
    --------
    >>> from mlviz.synthetic import make_planted
    >>> ds, groups = make_planted(n_samples=300, random_state=0)
    >>> from mlviz.label_clustering import label_coassignment
    >>> together = label_coassignment(ds.Y, groups, affinity="cooccurrence", random_state=0)
    >>> together.shape, bool(((together >= 0) & (together <= 1)).all())
    ((22,), True)
    """
    Y = check_label_matrix(Y)
    n_labels = Y.shape[1]
    ids = check_groups(groups, n_labels)
    n_groups = int(ids.max()) + 1
    size = np.bincount(ids)
    rng = check_random_state(random_state)
    bootstrap = _Bootstrap(Y, affinity, n_neighbors, n_init)
    ks = np.array([n_groups])
    together = np.zeros(n_labels)
    for _ in range(n_resamples):
        resampled = bootstrap.resampled(ks, rng)[n_groups]
        n_r = int(resampled.max()) + 1
        contingency = np.bincount(ids * n_r + resampled, minlength=n_groups * n_r)
        together += contingency[ids * n_r + resampled] - 1
    with np.errstate(invalid="ignore", divide="ignore"):
        share = together / n_resamples / (size[ids] - 1)
    return np.where(size[ids] > 1, share, np.nan)


# ------------------------------------------------------------- the grouping against chance
# Szymański, Kajdanowicz & Kersting, "How is a data-driven approach better than random choice
# in label space division for multi-label classification?" (Entropy 2016): a data-driven
# label partition is worth its cost only if the model trained with it beats the same model
# trained with random partitions of the same group sizes. Cross-validation is written here
# with scikit-learn's KFold (mlviz.evaluation is a later layer) on the same shuffled folds
# as mlviz.evaluation.cross_validate with cv=int.

_GROUPING_SCORES = (
    "micro_f1",
    "macro_f1",
    "example_f1",
    "accuracy",
    "hamming_loss",
    "subset_accuracy",
)


@dataclass(frozen=True)
class GroupingVsRandom:
    """What :func:`grouping_vs_random` returns.

    Attributes
    ----------
    score : float
        The grouping's cross-validated score (mean over folds).
    random_scores : ndarray of float, shape (n_random,)
        The same model's score with each random partition of the same group sizes.
    p_beats_random : float
        Share of the random partitions the grouping beats (ties count half), in [0, 1].
    scoring : str
        The metric (a name of :data:`mlviz.metrics.METRICS`).
    greater_is_better : bool
        Its direction ("beats" means higher when True, lower when False).
    group_sizes : tuple of int
        Labels per group, the sizes every random partition keeps.
    n_splits : int
        Folds of the cross-validation.

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.label_clustering import GroupingVsRandom
    >>> result = GroupingVsRandom(0.6, np.array([0.5, 0.6, 0.7]), 0.5, "micro_f1", True,
    ...                           (2, 2), 3)
    >>> result.n_random, result.beaten, result.tied
    (3, 1, 1)
    """

    score: float
    random_scores: np.ndarray
    p_beats_random: float
    scoring: str
    greater_is_better: bool
    group_sizes: tuple[int, ...]
    n_splits: int

    @property
    def n_random(self) -> int:
        """Number of random partitions."""
        return int(self.random_scores.size)

    @property
    def beaten(self) -> int:
        """Random partitions the grouping scores strictly better than."""
        sign = 1.0 if self.greater_is_better else -1.0
        return int(np.sum(sign * (self.score - self.random_scores) > 0))

    @property
    def tied(self) -> int:
        """Random partitions with exactly the grouping's score."""
        return int(np.sum(self.random_scores == self.score))


def _beats_share(score: float, others: np.ndarray, greater_is_better: bool) -> float:
    sign = 1.0 if greater_is_better else -1.0
    difference = sign * (score - others)
    return float((np.sum(difference > 0) + 0.5 * np.sum(difference == 0)) / others.size)


def grouping_vs_random(
    estimator,
    X,
    Y,
    groups,
    *,
    n_random: int = 20,
    cv: int = 3,
    scoring: str = "micro_f1",
    random_state: int | None = 0,
    progress=None,
) -> GroupingVsRandom:
    """Does a label grouping beat random groupings of the same sizes? (Szymański et al. 2016)

    The estimator is cloned and fitted with ``groups`` (``set_params(groups=...)``) on every
    training fold of a shuffled k-fold, and scored on the test fold; then the same for
    ``n_random`` random partitions, each a random permutation of the group assignment (so
    every group keeps its size). ``p_beats_random`` is the share of random partitions whose
    score the grouping beats, ties counting half: near 1 the grouping carries information the
    model uses; near 0.5 it does no better than chance (also when the model ignores the
    grouping). With n random partitions the share moves in steps of 1/n: 20 can tell "beats
    nearly all" from "chance", not a small edge.

    Parameters
    ----------
    estimator : estimator with a ``groups`` parameter
        E.g. :class:`mlviz.GroPLE`; unfitted, cloned for every fit.
    X : array-like or sparse matrix of shape (N, D)
    Y : array-like of shape (N, L)
    groups : array-like of int (L,) or sequence of sequences of int
        The grouping to test (:func:`check_groups`).
    n_random : int, default=20
        Random partitions to compare with.
    cv : int, default=3
        Folds of the shuffled k-fold (seeded with ``random_state``; the same folds for the
        grouping and every random partition).
    scoring : str, default="micro_f1"
        One of ``"micro_f1"``, ``"macro_f1"``, ``"example_f1"``, ``"accuracy"``,
        ``"hamming_loss"``, ``"subset_accuracy"`` (:mod:`mlviz.metrics`; Hamming loss is
        lower-is-better and "beats" follows it).
    random_state : int or None, default=0
        Seed of the folds and of the random partitions (the same result on every call).
    progress : callable (done, total, message), optional
        Called with ``done=0`` before the first fit and after each fit.

    Returns
    -------
    GroupingVsRandom

    Examples
    --------
    >>> from mlviz import GroPLE
    >>> from mlviz.label_clustering import grouping_vs_random
    >>> from mlviz.synthetic import make_planted
    >>> ds, planted = make_planted(n_samples=90, n_groups=2, labels_per_group=3, n_tail=0,
    ...                            random_state=0)
    >>> model = GroPLE(n_components=2, max_iter=50, random_state=0)
    >>> result = grouping_vs_random(model, ds.X, ds.Y, planted, n_random=3, cv=2)
    >>> result.n_random, result.group_sizes, 0 <= result.p_beats_random <= 1
    (3, (3, 3), True)
    """
    if scoring not in _GROUPING_SCORES:
        raise ValueError(f"scoring must be one of {_GROUPING_SCORES}; got {scoring!r}.")
    if isinstance(n_random, bool) or not isinstance(n_random, numbers.Integral) or n_random < 1:
        raise ValueError(f"n_random must be a positive integer; got {n_random!r}.")
    if isinstance(cv, bool) or not isinstance(cv, numbers.Integral) or cv < 2:
        raise ValueError(f"cv must be an integer of at least 2 folds; got {cv!r}.")
    if "groups" not in estimator.get_params():
        raise ValueError(
            f"{type(estimator).__name__} has no 'groups' parameter: grouping_vs_random needs "
            "an estimator that is given its label groups (e.g. GroPLE)."
        )
    X = check_features(X, allow_nan=True)
    Y = check_label_matrix(Y, n_samples=X.shape[0])
    ids = check_groups(groups, Y.shape[1])
    if X.shape[0] < cv:
        raise ValueError(f"{X.shape[0]} instances cannot be split into {cv} folds.")
    score_of = getattr(_metrics, scoring)
    greater = _metrics.METRICS[scoring].greater_is_better
    rng = np.random.default_rng(random_state)
    partitions = [ids] + [rng.permutation(ids) for _ in range(int(n_random))]
    splits = list(KFold(n_splits=int(cv), shuffle=True, random_state=random_state).split(X))
    total = len(partitions) * len(splits)
    if progress is not None:
        progress(0, total, f"{len(partitions)} groupings × {len(splits)} folds")
    scores = np.empty(len(partitions))
    done = 0
    for index, partition in enumerate(partitions):
        fold_scores = []
        for train, test in splits:
            model = clone(estimator).set_params(groups=partition)
            model.fit(X[train], Y[train])
            fold_scores.append(score_of(Y[test], model.predict(X[test])))
            done += 1
            if progress is not None:
                name = "the grouping" if index == 0 else f"random grouping {index}"
                progress(done, total, f"{name}: fold {len(fold_scores)}/{len(splits)}")
        scores[index] = float(np.mean(fold_scores))
    return GroupingVsRandom(
        score=float(scores[0]),
        random_scores=scores[1:],
        p_beats_random=_beats_share(scores[0], scores[1:], greater),
        scoring=scoring,
        greater_is_better=greater,
        group_sizes=tuple(int(c) for c in np.bincount(ids)),
        n_splits=len(splits),
    )

"""Spectral clustering of labels: stage 1 of GroPLE, also behind the app's Label clusters page.

Paper 001 (Kumar et al., GroPLE), section 3, "Identification of groups of labels": build a
graph over the label columns of Y in {-1, 1}, weight edges with a heat kernel whose width is
self-tuned (Zelnik-Manor & Perona, local scaling), normalise the affinity as
``D^{-1/2} A D^{-1/2}`` and run k-means on its K leading eigenvectors (Ng, Jordan & Weiss).
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np
from scipy.linalg import eigh
from scipy.spatial.distance import pdist, squareform
from sklearn.base import BaseEstimator
from sklearn.cluster import KMeans
from sklearn.utils.validation import check_is_fitted

from mlviz._validation import check_label_matrix

__all__ = ["LabelClustering", "check_groups", "canonical_group_ids"]


def canonical_group_ids(group_ids) -> np.ndarray:
    """Relabel group ids to 0..G-1 in order of each group's first label.

    k-means numbers its clusters arbitrarily; renumbering by first appearance makes the
    result independent of that numbering and leaves no empty group ids.
    """
    group_ids = np.asarray(group_ids)
    _, first_index, inverse = np.unique(group_ids, return_index=True, return_inverse=True)
    order = np.argsort(np.argsort(first_index))
    return order[inverse.ravel()].astype(np.intp)


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


class LabelClustering(BaseEstimator):
    """Group labels by self-tuning spectral clustering of the columns of Y (GroPLE stage 1).

    Parameters
    ----------
    n_groups : int, default=10
        K, the number of label groups (paper default 10). When K exceeds the number of labels
        L it is reduced to L with a warning; the number actually found is ``n_groups_``.
    n_neighbors : int, default=7
        Local scale neighbour: sigma_i is the distance from label i to its n_neighbors-th
        nearest other label (Zelnik-Manor & Perona use the 7th). With fewer than
        n_neighbors + 1 labels the farthest other label is used instead.
    n_init : int, default=10
        k-means restarts (scikit-learn's KMeans).
    random_state : int, RandomState or None, default=0
        Seed of k-means.

    Attributes
    ----------
    labels_ : ndarray of intp, shape (n_labels,)
        Group id per label, numbered 0..n_groups_-1 in order of first label.
    n_groups_ : int
        Number of non-empty groups.
    affinity_ : ndarray, shape (n_labels, n_labels)
        Heat-kernel affinity A with zero diagonal, ``A_ij = exp(-||Y_i - Y_j||^2 /
        (sigma_i sigma_j))`` (Y in {-1, 1}; section 3 of paper 001 with self-tuned sigma).
    normalized_affinity_ : ndarray, shape (n_labels, n_labels)
        ``D^{-1/2} A D^{-1/2}``.
    eigenvalues_ : ndarray, shape (n_labels,)
        Eigenvalues of the normalised affinity, largest first (the eigengap plot).
    embedding_ : ndarray, shape (n_labels, n_groups_)
        Row-normalised leading eigenvectors that k-means clustered.
    sigma_ : ndarray, shape (n_labels,)
        Local scales.
    empty_labels_ : ndarray of intp
        Indices of label columns with no positive example. They are identical columns in
        {-1, 1}, so they have affinity 1 to each other and always share one group.

    Notes
    -----
    Choices where the paper is silent:

    * the diagonal of A is zero, as in Ng-Jordan-Weiss and Zelnik-Manor-Perona;
    * a local scale of 0 (at least n_neighbors duplicates of a label) is replaced by the
      smallest non-zero distance between any two labels (1 if all labels are identical), so
      that duplicates get affinity 1 and no division by zero happens;
    * a label whose affinities all underflow to 0 keeps a zero row in the embedding and ends
      up in whichever group k-means puts the origin in;
    * K = 1 skips k-means (one group), but the affinity and eigenvalues are still computed.
    """

    def __init__(
        self,
        n_groups: int = 10,
        *,
        n_neighbors: int = 7,
        n_init: int = 10,
        random_state=0,
    ) -> None:
        self.n_groups = n_groups
        self.n_neighbors = n_neighbors
        self.n_init = n_init
        self.random_state = random_state

    def fit(self, Y, y=None) -> LabelClustering:
        """Cluster the label columns of the 0/1 matrix Y (n_samples, n_labels)."""
        Y = check_label_matrix(Y)
        if (
            not isinstance(self.n_groups, numbers.Integral)
            or isinstance(self.n_groups, bool)
            or self.n_groups < 1
        ):
            raise ValueError(f"n_groups must be a positive integer; got {self.n_groups!r}.")
        if not isinstance(self.n_neighbors, numbers.Integral) or self.n_neighbors < 1:
            raise ValueError(f"n_neighbors must be a positive integer; got {self.n_neighbors!r}.")
        n_labels = Y.shape[1]
        n_groups = int(self.n_groups)
        if n_groups > n_labels:
            warnings.warn(
                f"n_groups={n_groups} is larger than the number of labels ({n_labels}); using "
                f"{n_labels} groups (one label per group).",
                UserWarning,
                stacklevel=2,
            )
            n_groups = n_labels

        self.empty_labels_ = np.flatnonzero(Y.sum(axis=0) == 0)
        signed = 2.0 * Y - 1.0
        self.affinity_, self.sigma_ = self._heat_kernel(signed)
        degree = self.affinity_.sum(axis=1)
        # isolated labels (all affinities underflowed) would divide by zero
        inv_sqrt_degree = np.zeros_like(degree)
        positive = degree > 0
        inv_sqrt_degree[positive] = 1.0 / np.sqrt(degree[positive])
        normalized = inv_sqrt_degree[:, None] * self.affinity_ * inv_sqrt_degree[None, :]
        self.normalized_affinity_ = normalized
        eigenvalues, eigenvectors = eigh(normalized)
        order = np.argsort(eigenvalues)[::-1]
        self.eigenvalues_ = eigenvalues[order]
        leading = eigenvectors[:, order[:n_groups]]
        row_norm = np.linalg.norm(leading, axis=1, keepdims=True)
        embedding = np.divide(leading, row_norm, out=np.zeros_like(leading), where=row_norm > 0)
        self.embedding_ = embedding

        if n_groups == 1:
            ids = np.zeros(n_labels, dtype=np.intp)
        elif n_groups == n_labels:
            ids = np.arange(n_labels)
        else:
            n_distinct = np.unique(np.round(embedding, 12), axis=0).shape[0]
            with warnings.catch_warnings():
                # fewer distinct points than K is handled below (fewer groups), not an error
                warnings.filterwarnings("ignore", message="Number of distinct clusters")
                kmeans = KMeans(
                    n_clusters=min(n_groups, n_distinct),
                    n_init=self.n_init,
                    random_state=self.random_state,
                ).fit(embedding)
            ids = kmeans.labels_
        self.labels_ = canonical_group_ids(ids)
        self.n_groups_ = int(self.labels_.max()) + 1
        return self

    def fit_predict(self, Y, y=None) -> np.ndarray:
        """Fit and return the group id of each label."""
        return self.fit(Y).labels_

    def _heat_kernel(self, signed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        n_labels = signed.shape[1]
        if n_labels == 1:
            return np.zeros((1, 1)), np.ones(1)
        distances = squareform(pdist(signed.T, metric="euclidean"))
        neighbour_rank = min(int(self.n_neighbors), n_labels - 1)
        # column 0 of each sorted row is the label itself (distance 0)
        sigma = np.sort(distances, axis=1)[:, neighbour_rank]
        positive = distances[distances > 0]
        floor = positive.min() if positive.size else 1.0
        sigma = np.where(sigma > 0, sigma, floor)
        affinity = np.exp(-(distances**2) / np.outer(sigma, sigma))
        np.fill_diagonal(affinity, 0.0)
        return affinity, sigma

    def suggest_n_groups(self, max_groups: int | None = None, min_groups: int = 2) -> int:
        """K with the largest eigengap ``lambda_K - lambda_{K+1}`` (von Luxburg 2007, 8.3).

        Parameters
        ----------
        max_groups : int, optional
            Largest K considered (default: n_labels - 1).
        min_groups : int, default=2
            Smallest K considered. K = 1 is excluded by default: with the 7th-neighbour
            scale the label graph is dense (most labels have fewer than 7 group mates), so
            ``lambda_1 - lambda_2`` is often the largest gap even when groups are clear.
            Pass ``min_groups=1`` for the textbook heuristic.
        """
        check_is_fitted(self)
        n_labels = self.eigenvalues_.shape[0]
        if n_labels < 3:
            return n_labels if min_groups > 1 else 1
        upper = n_labels - 1 if max_groups is None else min(int(max_groups), n_labels - 1)
        lower = max(int(min_groups), 1)
        if lower > upper:
            raise ValueError(
                f"no K to choose from: min_groups={min_groups} > max_groups={upper} "
                f"(with {n_labels} labels)."
            )
        gaps = self.eigenvalues_[:-1] - self.eigenvalues_[1:]
        return int(lower + np.argmax(gaps[lower - 1 : upper]))

"""Pairwise cost matrices between two sets of 0/1 label vectors (what CLEMS embeds).

``cost_matrix(A, B, cost)[i, j] = c(truth=A[i], prediction=B[j])`` for the costs of the CLEMS
paper (``002_a9fa9cac89b97038.txt``, Huang & Lin, §2 and §4) plus Hamming loss. Every cost is
computed from the three count matrices ``A @ B.T`` (labels in both), ``|a|`` and ``|b|`` (row
sums), so a 1000 x 1000 matrix with L = 50 labels costs three BLAS products and some
elementwise arithmetic.

Conventions (stated once here, repeated in :func:`cost_matrix`):

* ``"f1"``: ``1 - F1(a, b)`` with ``F1 = 2|a ∧ b| / (|a| + |b|)``; when both vectors are empty
  ``F1 = 1`` (cost 0), so ``c(y, y) = 0`` holds for the empty label set too. (The authors'
  reference code scores F1 = 1 whenever the *truth* is empty; we do not: an empty truth with a
  non-empty prediction costs 1.)
* ``"accuracy"``: ``1 - Jaccard(a, b)`` with ``Jaccard = |a ∧ b| / |a ∨ b|``, 1 when both empty.
* ``"hamming"``: fraction of the L labels on which ``a`` and ``b`` differ (normalised by L,
  paper 002 §2 ``Hamming(y, ỹ) = 1/L Σ_j [y_j != ỹ_j]``, the paper's K being L).
* ``"rank_loss"``: the hard-prediction rank loss of paper 002 §4. Over the pairs ``(j, l)``
  with ``a[j] > a[l]`` (j relevant, l irrelevant in the truth) it counts 1 when the prediction
  orders them the wrong way (``b[j] < b[l]``) and 1/2 when it ties them (``b[j] == b[l]``).
  **Not normalised**: it is the paper's plain sum (values up to ``|a| (L - |a|)``), which is
  also what the authors' code computes (``criteria.py`` in ej0cl6/csmlc) and what their
  published numbers (> 1 on scene) show.
  The paper's printed formula reads ``Σ_{y[i] < y[j]} [ỹ[i] < ỹ[j]] + ½[ỹ[i] = ỹ[j]]``, which
  as printed would count *correctly* ordered pairs and give ``c(y, y) > 0``, contradicting the
  paper's own requirement ``c(y, y) = 0`` (§2); we use the evident intent (count reversed
  pairs), as the authors' code does. It is asymmetric, and ``c(a, b) = 0`` for every ``b``
  when ``a`` is empty or full (there are no pairs to order).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from mlviz._validation import check_label_matrix

COSTS: tuple[str, ...] = ("f1", "accuracy", "hamming", "rank_loss")

_SYMMETRIC = {"f1": True, "accuracy": True, "hamming": True, "rank_loss": False}


def _check_cost(cost: str) -> str:
    if cost not in _SYMMETRIC:
        raise ValueError(f"unknown cost {cost!r}; choose one of {', '.join(COSTS)}.")
    return cost


def is_symmetric(cost: str) -> bool:
    """Whether ``c(a, b) == c(b, a)`` for every pair of label vectors.

    CLEMS needs the mirroring trick only for asymmetric costs (``"rank_loss"``).

    Examples
    --------
    >>> from mlviz.costs import is_symmetric
    >>> is_symmetric("hamming"), is_symmetric("rank_loss")
    (True, False)
    """
    return _SYMMETRIC[_check_cost(cost)]


def _safe_ratio(numerator: np.ndarray, denominator: np.ndarray, *, empty: float) -> np.ndarray:
    """numerator / denominator with ``empty`` where the denominator is 0 (both sets empty)."""
    out = np.full(np.broadcast_shapes(numerator.shape, denominator.shape), empty)
    np.divide(numerator, denominator, out=out, where=denominator > 0)
    return out


def cost_matrix(A, B, cost: str) -> np.ndarray:
    """Cost of predicting each row of ``B`` when the truth is each row of ``A``.

    Parameters
    ----------
    A : array-like of shape (n_a, L)
        0/1 ground-truth label vectors (dense or scipy sparse).
    B : array-like of shape (n_b, L)
        0/1 predicted label vectors, same L.
    cost : {"f1", "accuracy", "hamming", "rank_loss"}
        See the module docstring for the exact definitions and conventions:
        ``f1`` = 1 - F1 (0 when both empty), ``accuracy`` = 1 - Jaccard (0 when both empty),
        ``hamming`` = differing labels / L, ``rank_loss`` = paper 002's unnormalised hard
        rank loss (reversed relevant/irrelevant pairs count 1, ties 1/2), asymmetric.

    Returns
    -------
    C : ndarray of float64, shape (n_a, n_b)
        ``C[i, j] = c(truth=A[i], prediction=B[j])``; ``C[i, j] = 0`` when ``A[i] == B[j]``.

    Examples
    --------
    >>> cost_matrix([[1, 1, 0]], [[1, 0, 0], [0, 0, 1]], "f1").round(3)
    array([[0.333, 1.   ]])
    """
    _check_cost(cost)
    A = check_label_matrix(A, name="A")
    B = check_label_matrix(B, name="B")
    if A.shape[1] != B.shape[1]:
        raise ValueError(
            f"A and B must have the same number of labels; got A with {A.shape[1]} and B with "
            f"{B.shape[1]} label columns."
        )
    both = _intersection_counts(A, B)  # |a ∧ b|
    size_a = A.sum(axis=1)[:, None]  # |a|
    size_b = B.sum(axis=1)[None, :]  # |b|
    return _cost_from_counts(cost, both, size_a, size_b, A.shape[1])


def _intersection_counts(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """``A @ B.T`` for 0/1 matrices: the number of labels in both, for every pair of rows.

    Counts are small integers, exact in float64 whichever way they are summed. With many
    labels and few per row (delicious: 19 of 983) a sparse product, whose work is the number of
    (row of A, row of B, shared label) triples, is far cheaper than the dense O(n_a n_b L)
    product, so it is used when the rows are sparse.
    """
    density = (np.count_nonzero(A) + np.count_nonzero(B)) / max(1, A.size + B.size)
    if A.shape[1] >= 64 and density < 0.1:
        return (sp.csr_matrix(A) @ sp.csr_matrix(B).T).toarray()
    return A @ B.T


def paired_costs(A, B, cost: str) -> np.ndarray:
    """Row-by-row costs ``c(truth=A[i], prediction=B[i])``: the diagonal of :func:`cost_matrix`.

    Parameters
    ----------
    A, B : array-like of shape (n, L)
        0/1 truth and prediction, one pair per row.
    cost : {"f1", "accuracy", "hamming", "rank_loss"}
        As in :func:`cost_matrix`.

    Returns
    -------
    ndarray of float64, shape (n,)

    Examples
    --------
    >>> from mlviz.costs import paired_costs
    >>> truth, predicted = [[1, 1, 0], [0, 0, 1]], [[1, 0, 0], [0, 0, 1]]
    >>> paired_costs(truth, predicted, cost="hamming").round(3).tolist()
    [0.333, 0.0]
    """
    _check_cost(cost)
    A = check_label_matrix(A, name="A")
    B = check_label_matrix(B, name="B")
    if A.shape != B.shape:
        raise ValueError(f"A and B must have the same shape; got {A.shape} and {B.shape}.")
    both = np.einsum("ik,ik->i", A, B)
    return _cost_from_counts(cost, both, A.sum(axis=1), B.sum(axis=1), A.shape[1])


def _cost_from_counts(
    cost: str, both: np.ndarray, size_a: np.ndarray, size_b: np.ndarray, n_labels: int
) -> np.ndarray:
    """Every cost from |a ∧ b|, |a|, |b| and L (broadcasting), so both entry points agree."""
    if cost == "f1":
        return 1.0 - _safe_ratio(2.0 * both, size_a + size_b, empty=1.0)
    if cost == "accuracy":
        return 1.0 - _safe_ratio(both, size_a + size_b - both, empty=1.0)
    if cost == "hamming":
        return (size_a + size_b - 2.0 * both) / n_labels
    # rank_loss: split truth-relevant (a=1) and truth-irrelevant (a=0) labels by the predicted
    # value; reversed pairs are (a=1, b=0) x (a=0, b=1), ties are (a=1, b=0) x (a=0, b=0) and
    # (a=1, b=1) x (a=0, b=1).
    missed = size_a - both  # a=1, b=0
    false_alarm = size_b - both  # a=0, b=1
    true_negative = n_labels - size_a - size_b + both  # a=0, b=0
    return missed * false_alarm + 0.5 * (missed * true_negative + both * false_alarm)

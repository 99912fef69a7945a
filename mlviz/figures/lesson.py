"""What the Lesson page's "what to notice" texts state, computed from what its figures show.

Each step of the Lesson page (``pages/lesson.py``) draws one figure of a live model and says
what to notice in it. The numbers behind those sentences are computed here, from the same
arrays the figure is drawn from, so that every sentence is true on whatever data set is
loaded. Nothing here fits a model: each function takes fitted attributes or predictions.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from mlviz.stats import is_tail

__all__ = [
    "labels_to_show",
    "never_predicted",
    "rows_per_group",
    "tail_head_f1",
    "unseen_labelset_share",
    "variance_kept",
    "votes_needed",
]


def variance_kept(singular_values: np.ndarray, n_components: int) -> float:
    """Share of the label variance the first ``n_components`` principal directions keep.

    ``Σ_{m≤M} σ_m² / Σ_m σ_m²`` (PLST paper 004, §3.3: the training encoding error of PLST
    is the rest, ``Σ_{m>M} σ_m²``).

    Parameters
    ----------
    singular_values : ndarray, shape (n,)
        Singular values of the mean-shifted training label matrix, any order.
    n_components : int
        M, at least 0; values above n keep everything.

    Returns
    -------
    float
        In [0, 1]; NaN when every singular value is 0 (all training instances share one
        label set, so there is no variance to keep).

    Examples
    --------
    >>> from mlviz.figures.lesson import variance_kept
    >>> round(variance_kept([3.0, 2.0, 1.0], 1), 3)  # 9 / (9 + 4 + 1)
    0.643
    """
    sigma = np.sort(np.abs(np.asarray(singular_values, dtype=float).ravel()))[::-1]
    if n_components < 0:
        raise ValueError(f"n_components must be at least 0; got {n_components}.")
    energy = sigma**2
    total = energy.sum()
    if total <= 0:
        return float("nan")
    return float(energy[: int(n_components)].sum() / total)


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
    >>> from mlviz.figures.lesson import unseen_labelset_share
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
    >>> from mlviz.figures.lesson import rows_per_group
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
    >>> from mlviz.figures.lesson import never_predicted
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
    >>> from mlviz.figures.lesson import votes_needed
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
    >>> from mlviz.figures.lesson import tail_head_f1
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
    >>> from mlviz.figures.lesson import labels_to_show
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

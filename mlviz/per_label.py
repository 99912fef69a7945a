"""Per-label evidence of each method on one train/test split: which labels it loses, and why.

Every method loses rare (tail) labels for its own reason, and each table here puts that
reason beside the label's training frequency:

* PLST (paper 004): the M principal directions leave part of a label unrepresented -- the
  per-label share of the encoding error of Theorem 1 (Eq. 3);
* CLEMS (paper 002): it predicts only training label sets (§3.4), so a rare label is decoded
  only as part of the few candidate sets that contain it;
* ML-KNN (paper 003): the prior P(H_1) of Fig. 1 step 2 is small for a rare label, so the
  MAP rule of Eq. (8) needs strong neighbour evidence to predict it;
* GroPLE (paper 001): a label shares its latent rows with the rest of its group (Eq. 4).

The tail is :func:`mlviz.stats.tail_labels` of the training labels: relative training
frequency strictly below the threshold. Test-split scores per label are
:func:`mlviz.metrics.per_label_scores` (scikit-learn underneath) with ``zero_division=nan``:
a label without a positive in the test split has no recall (NaN), and also no F1 when it is
never predicted either.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from sklearn.utils.validation import check_is_fitted

from mlviz._validation import check_label_matrix, labels_for_products
from mlviz.clems import CLEMS, decoded_label_frequencies
from mlviz.metrics import _check_scores, _per_label_auc, per_label_scores
from mlviz.stats import _labels, label_frequencies, tail_labels

__all__ = [
    "LOSS_REASONS",
    "LOSS_RULE_DEFAULTS",
    "best_threshold_f1",
    "clems_label_table",
    "grople_label_table",
    "label_frequency_table",
    "loss_reasons",
    "mlknn_label_table",
    "clems_unrepresented_share",
    "plst_label_table",
    "plst_unrepresented_share",
    "reason_counts",
    "tail_summary",
    "unrepresented_share",
]


def label_frequency_table(
    Y_train, tail_threshold: float, *, label_names: Sequence[str] | None = None
) -> pd.DataFrame:
    """Training count, relative frequency and tail membership of every label.

    Parameters
    ----------
    Y_train : array-like of shape (n_samples, n_labels)
        0/1 training labels: the frequencies the tail is defined on.
    tail_threshold : float in (0, 1]
        A label is in the tail when its relative training frequency is below it
        (:func:`mlviz.stats.tail_labels`).
    label_names : sequence of str, optional
        Default ``"0"``, ``"1"``, ...

    Returns
    -------
    pandas.DataFrame
        One row per label in column order: ``label``, ``train_count``, ``frequency``,
        ``tail`` (bool).

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.per_label import label_frequency_table
    >>> Y_train = np.array([[1, 0], [1, 0], [1, 1], [0, 0]])
    >>> table = label_frequency_table(Y_train, tail_threshold=0.5, label_names=["a", "b"])
    >>> table["train_count"].tolist(), table["tail"].tolist()
    ([3, 1], [False, True])
    """
    # uint8, range-checked (a float64 copy, validated again by every statistic below, was a
    # fifth of a PLST slider move at delicious's shape)
    Y_train = _labels(Y_train, name="Y_train")
    n_labels = Y_train.shape[1]
    if label_names is None:
        label_names = [str(k) for k in range(n_labels)]
    if len(label_names) != n_labels:
        raise ValueError(
            f"label_names has {len(label_names)} names but Y_train has {n_labels} label columns."
        )
    tail = np.zeros(n_labels, dtype=bool)
    tail[tail_labels(Y_train, tail_threshold)] = True
    counts = label_frequencies(Y_train)  # each call validates the (N, L) matrix: count once
    return pd.DataFrame(
        {
            "label": [str(name) for name in label_names],
            "train_count": counts,
            "frequency": counts / Y_train.shape[0],  # = label_frequencies(relative=True)
            "tail": tail,
        }
    )


def _test_scores(Y_true, Y_pred) -> pd.DataFrame:
    """:func:`mlviz.metrics.per_label_scores` with NaN where a score is undefined.

    Recall of a label without a positive, precision of a label never predicted, and F1 of a
    label neither present nor predicted are NaN (``zero_division=nan``); the index is the
    column position, to line up with the other per-label columns.
    """
    return per_label_scores(Y_true, Y_pred, zero_division=np.nan).reset_index(drop=True)


def _base(model, Y_train, tail_threshold, label_names) -> pd.DataFrame:
    check_is_fitted(model)
    table = label_frequency_table(Y_train, tail_threshold, label_names=label_names)
    if len(table) != model.n_labels_:
        raise ValueError(
            f"Y_train has {len(table)} label columns but the model was fitted with "
            f"{model.n_labels_} labels."
        )
    return table


def plst_label_table(
    model,
    X_test,
    Y_test,
    Y_train,
    tail_threshold: float,
    *,
    label_names: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Per-label encoding error of a fitted PLST (or another round-based transform).

    Parameters
    ----------
    model : PLST, PLST-origin, PBR, CPLST or BinaryRelevance, fitted on ``Y_train``
    X_test, Y_test : the test split
    Y_train : the training labels (frequencies, tail, encoding error)
    tail_threshold : float in (0, 1]
    label_names : sequence of str, optional

    Returns
    -------
    pandas.DataFrame
        :func:`label_frequency_table` plus ``encoding_error`` (mean squared residual of the
        label on the training labels at the model's M,
        :meth:`~mlviz.linear.PLST.label_encoding_error`), ``variance`` (the same at M = 0)
        and ``unrepresented`` (their ratio: 0 fully represented, 1 not at all; NaN for a
        label constant in training), and the test scores ``support``, ``predicted``,
        ``precision``, ``recall``, ``f1``.

    Examples
    --------
    >>> from mlviz.synthetic import make_planted
    >>> ds, groups = make_planted(n_samples=150, random_state=0)
    >>> X, Y = ds.X, ds.Y
    >>> X_train, X_test, Y_train, Y_test = X[:100], X[100:], Y[:100], Y[100:]
    >>> from mlviz.linear import PLST
    >>> from mlviz.per_label import plst_label_table
    >>> model = PLST(4).fit(X_train, Y_train)
    >>> table = plst_label_table(model, X_test, Y_test, Y_train, tail_threshold=0.05,
    ...                       label_names=ds.label_names)
    >>> len(table), bool(table["unrepresented"].dropna().between(0, 1).all())
    (22, True)
    """
    table = _base(model, Y_train, tail_threshold, label_names)
    # validated once for both calls, and sparse when mostly zeros: the PLST page's M slider
    # at 11,273 x 983 spent ~0.15 s validating the dense labels twice and multiplying them
    labels = labels_for_products(Y_train, name="Y_train")
    error = model.label_encoding_error(labels)
    variance = model.label_encoding_error(labels, 0)
    table["encoding_error"] = error
    table["variance"] = variance
    # a variance of 0 is a constant label: nothing to represent, the share is undefined
    table["unrepresented"] = np.divide(
        error, variance, out=np.full(error.shape, np.nan), where=variance > 1e-12
    )
    return pd.concat([table, _test_scores(Y_test, model.predict(X_test))], axis=1)


def clems_label_table(
    model: CLEMS,
    X_test,
    Y_test,
    Y_train,
    tail_threshold: float,
    *,
    label_names: Sequence[str] | None = None,
) -> pd.DataFrame:
    """How often CLEMS decodes each label on the test split, beside the truth.

    Returns
    -------
    pandas.DataFrame
        :func:`label_frequency_table` plus the columns of
        :func:`mlviz.clems.decoded_label_frequencies` on the test split (``candidate_sets``,
        ``decoded``, ``decoded_share``, ``true``, ``true_share``) and the test scores
        ``support``, ``predicted`` (equal to ``true`` and ``decoded``), ``precision``,
        ``recall``, ``f1``.

    Examples
    --------
    >>> from mlviz.synthetic import make_planted
    >>> ds, groups = make_planted(n_samples=150, random_state=0)
    >>> X, Y = ds.X, ds.Y
    >>> X_train, X_test, Y_train, Y_test = X[:100], X[100:], Y[:100], Y[100:]
    >>> from mlviz.clems import CLEMS
    >>> from mlviz.per_label import clems_label_table
    >>> model = CLEMS(n_components=3, random_state=0).fit(X_train, Y_train)
    >>> table = clems_label_table(model, X_test, Y_test, Y_train, tail_threshold=0.05,
    ...                       label_names=ds.label_names)
    >>> len(table), bool((table["predicted"] == table["decoded"]).all())
    (22, True)
    """
    table = _base(model, Y_train, tail_threshold, label_names)
    decoded = decoded_label_frequencies(model, X_test, Y_true=Y_test)
    Y_pred = model.predict(X_test)
    return pd.concat([table, decoded, _test_scores(Y_test, Y_pred)], axis=1)


def mlknn_label_table(
    model,
    X_test,
    Y_test,
    Y_train,
    tail_threshold: float,
    *,
    label_names: Sequence[str] | None = None,
    Y_pred=None,
    frequencies: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """ML-KNN's prior P(H_1) of every label (Fig. 1 step 2) beside its test recall.

    Parameters
    ----------
    Y_pred : array-like of shape (n_test, n_labels), optional
        ``model.predict(X_test)`` when already computed: ML-KNN predicts by a neighbour
        search over the training set, which is worth doing once.
    frequencies : pandas.DataFrame, optional
        ``label_frequency_table(Y_train, tail_threshold, label_names)`` when already
        computed: it depends on neither k nor s, and validating and counting ~1,000 label
        columns of the training split is a large part of redrawing the table for a new k.

    Returns
    -------
    pandas.DataFrame
        :func:`label_frequency_table` plus ``prior`` (``model.prior_``) and the test scores
        ``support``, ``predicted``, ``precision``, ``recall``, ``f1``.

    Examples
    --------
    >>> from mlviz.synthetic import make_planted
    >>> ds, groups = make_planted(n_samples=150, random_state=0)
    >>> X, Y = ds.X, ds.Y
    >>> X_train, X_test, Y_train, Y_test = X[:100], X[100:], Y[:100], Y[100:]
    >>> from mlviz.mlknn import MLkNN
    >>> from mlviz.per_label import mlknn_label_table
    >>> model = MLkNN(k=5).fit(X_train, Y_train)
    >>> table = mlknn_label_table(model, X_test, Y_test, Y_train, tail_threshold=0.05,
    ...                       label_names=ds.label_names)
    >>> len(table), bool(table["prior"].between(0, 1).all())
    (22, True)
    """
    if frequencies is None:
        table = _base(model, Y_train, tail_threshold, label_names)
    else:
        check_is_fitted(model)
        if len(frequencies) != model.n_labels_:
            raise ValueError(
                f"frequencies has {len(frequencies)} label rows but the model was fitted with "
                f"{model.n_labels_} labels."
            )
        table = frequencies.copy()
    table["prior"] = model.prior_
    if Y_pred is None:
        Y_pred = model.predict(X_test)
    return pd.concat([table, _test_scores(Y_test, Y_pred)], axis=1)


def grople_label_table(
    model,
    baseline,
    X_test,
    Y_test,
    Y_train,
    tail_threshold: float,
    *,
    label_names: Sequence[str] | None = None,
    Y_pred=None,
    baseline_pred=None,
) -> pd.DataFrame:
    """GroPLE's test F1 of every label with the label's group, beside a baseline's.

    Parameters
    ----------
    model : GroPLE, fitted on the training split
    baseline : a multi-label classifier fitted on the same split (binary relevance on the
        GroPLE page)
    Y_pred, baseline_pred : array-like of shape (n_test, n_labels), optional
        ``model.predict(X_test)`` and ``baseline.predict(X_test)`` when already computed
        (the GroPLE page scores both models' test predictions for its metrics table first).

    Returns
    -------
    pandas.DataFrame
        :func:`label_frequency_table` plus ``group`` (``model.groups_``), the test scores
        ``support``, ``predicted``, ``precision``, ``recall``, ``f1`` of GroPLE and
        ``baseline_predicted``, ``baseline_recall``, ``baseline_f1`` of the baseline.

    Examples
    --------
    >>> from mlviz.synthetic import make_planted
    >>> ds, groups = make_planted(n_samples=150, random_state=0)
    >>> X, Y = ds.X, ds.Y
    >>> X_train, X_test, Y_train, Y_test = X[:100], X[100:], Y[:100], Y[100:]
    >>> from mlviz.grople import GroPLE
    >>> from mlviz.linear import BinaryRelevance
    >>> from mlviz.per_label import grople_label_table
    >>> model = GroPLE(n_components=5, n_groups=4, random_state=0).fit(X_train, Y_train)
    >>> baseline = BinaryRelevance().fit(X_train, Y_train)
    >>> table = grople_label_table(model, baseline, X_test, Y_test, Y_train, tail_threshold=0.05,
    ...                       label_names=ds.label_names)
    >>> len(table), sorted(table["group"].unique().tolist())
    (22, [0, 1, 2, 3])
    """
    table = _base(model, Y_train, tail_threshold, label_names)
    table["group"] = np.asarray(model.groups_, dtype=np.int64)
    own = _test_scores(Y_test, model.predict(X_test) if Y_pred is None else Y_pred)
    other = _test_scores(
        Y_test, baseline.predict(X_test) if baseline_pred is None else baseline_pred
    )
    other = other[["predicted", "recall", "f1"]].add_prefix("baseline_")
    return pd.concat([table, own, other], axis=1)


def tail_summary(table: pd.DataFrame) -> dict[str, float]:
    """The counts a caption states about the tail of one of these tables.

    Returns
    -------
    dict of str to int
        ``labels``; ``tail`` (tail labels); ``tail_never_predicted`` (tail labels with no
        predicted positive on the test split); ``tail_with_test_positive`` (tail labels with
        at least one positive in the test split) and ``tail_found`` (of those, the ones with a
        true positive, recall > 0); with a ``baseline_predicted`` column also
        ``tail_never_predicted_baseline`` and ``tail_found_baseline``; with
        ``candidate_sets`` also ``tail_in_no_candidate`` (tail labels no candidate set
        contains, which CLEMS can never predict); with ``unrepresented`` also
        ``tail_unrepresented_median`` and ``head_unrepresented_median`` (medians over the
        tail and the other labels, NaN for an empty side or constant labels only).

    Examples
    --------
    >>> from mlviz.synthetic import make_planted
    >>> ds, groups = make_planted(n_samples=150, random_state=0)
    >>> X, Y = ds.X, ds.Y
    >>> X_train, X_test, Y_train, Y_test = X[:100], X[100:], Y[:100], Y[100:]
    >>> from mlviz.mlknn import MLkNN
    >>> from mlviz.per_label import mlknn_label_table, tail_summary
    >>> model = MLkNN(k=5).fit(X_train, Y_train)
    >>> counts = tail_summary(mlknn_label_table(model, X_test, Y_test, Y_train, 0.05))
    >>> counts["labels"], counts["tail"] <= counts["labels"]
    (22, True)
    """
    tail = table["tail"].to_numpy(dtype=bool)
    tested = tail & (table["support"].to_numpy() > 0)
    summary = {
        "labels": len(table),
        "tail": int(tail.sum()),
        "tail_never_predicted": int((tail & (table["predicted"].to_numpy() == 0)).sum()),
        "tail_with_test_positive": int(tested.sum()),
        "tail_found": int((tested & (table["recall"].to_numpy() > 0)).sum()),
    }
    if "baseline_predicted" in table:
        never = tail & (table["baseline_predicted"].to_numpy() == 0)
        summary["tail_never_predicted_baseline"] = int(never.sum())
        summary["tail_found_baseline"] = int(
            (tested & (table["baseline_recall"].to_numpy() > 0)).sum()
        )
    if "candidate_sets" in table:
        summary["tail_in_no_candidate"] = int(
            (tail & (table["candidate_sets"].to_numpy() == 0)).sum()
        )
    if "unrepresented" in table:
        share = table["unrepresented"].to_numpy(dtype=float)
        for name, side in (("tail", tail), ("head", ~tail)):
            values = share[side & ~np.isnan(share)]
            summary[f"{name}_unrepresented_median"] = (
                float(np.median(values)) if values.size else float("nan")
            )
    return summary


# ----------------------------------------------------------------- why each tail label is lost
#: The reasons :func:`loss_reasons` gives, in the order its rules are tried.
LOSS_REASONS: tuple[str, ...] = (
    "no positive",
    "kept",
    "not represented",
    "no scores",
    "ranked but not predicted",
    "too rare to judge",
    "not learnable",
    "weakly ranked",
)


#: The default thresholds of :func:`loss_reasons`' rules (captions quote them from here).
LOSS_RULE_DEFAULTS: dict[str, float] = {
    "f1_kept": 0.5,
    "unrepresented_min": 0.5,
    "auc_chance": 0.6,
    "auc_ranked": 0.8,
    "best_f1_min": 0.5,
    "min_support": 10,
}


def unrepresented_share(model, Y_train) -> np.ndarray | None:
    """How much of each label the fitted method's label space cannot express, or None.

    * PLST, CPLST (any model with ``label_encoding_error``, paper 004 Eq. 3): the label's
      encoding error on ``Y_train`` at the model's M over its error at M = 0 (its variance):
      0 fully represented, 1 not at all; NaN for a label constant in ``Y_train``;
    * CLEMS (paper 002 §3.4): 1 when no kept candidate label set contains the label (it can
      never be decoded), else 0;
    * GroPLE (paper 001 Eq. 4): 1 when the label's column of V^k is zero (its decoding
      weights are all zero), else 0;
    * binary relevance and PBR have a full basis: all 0;
    * ML-KNN (and any method without a label space) represents every label: None.

    A scikit-learn Pipeline is unwrapped to its last step.

    Parameters
    ----------
    model : fitted multi-label estimator (or Pipeline ending in one)
    Y_train : array-like of shape (n_samples, n_labels)
        The labels the model was fitted on (PLST/CPLST's encoding error is measured on them).

    Returns
    -------
    ndarray of float, shape (n_labels,), or None

    Examples
    --------
    >>> from mlviz.synthetic import make_planted
    >>> from mlviz.clems import CLEMS
    >>> from mlviz.per_label import unrepresented_share
    >>> ds, _ = make_planted(n_samples=100, random_state=0)
    >>> model = CLEMS(n_components=3, random_state=0).fit(ds.X, ds.Y)
    >>> share = unrepresented_share(model, ds.Y)
    >>> share.shape, set(share.tolist()) <= {0.0, 1.0}
    ((22,), True)
    """
    if hasattr(model, "steps"):
        model = model.steps[-1][1]
    check_is_fitted(model)
    if isinstance(model, CLEMS):
        return (model.candidates_.sum(axis=0) == 0).astype(float)
    if hasattr(model, "V_") and hasattr(model, "groups_"):  # GroPLE's decoding matrix
        return (~np.asarray(model.V_ != 0).any(axis=0)).astype(float)
    if hasattr(model, "label_encoding_error"):
        Y_train = labels_for_products(Y_train, name="Y_train")  # validated once for both
        error = np.asarray(model.label_encoding_error(Y_train), dtype=float)
        variance = np.asarray(model.label_encoding_error(Y_train, 0), dtype=float)
        return np.divide(error, variance, out=np.full(error.shape, np.nan), where=variance > 1e-12)
    return None


def plst_unrepresented_share(Y, n_components: int) -> np.ndarray:
    """PLST's unrepresented share of each label at M, from the label covariance alone.

    PLST's basis is the top-M right singular vectors of the centred label matrix Z (paper 004,
    Eq. 6-7), i.e. the top-M eigenvectors v_m of the label covariance ``C = Zᵀ Z / N``; it
    depends on Y only. The residual ``(I - Pᵀ P) z`` of label k then has mean square
    ``Σ_{m > M} λ_m v_km²`` and the label's variance is ``C_kk`` (Theorem 1, Eq. 3), so the
    share :func:`unrepresented_share` reads from a fitted PLST is their ratio, without a
    regression or an SVD of the N x L matrix: one ``eigh`` of the L x L covariance, from the
    sparse co-occurrence counts (:func:`mlviz.stats.cooccurrence`). ``tests/test_loss_reasons.py``
    checks it against fitted PLST models. Labels constant in Y give NaN.

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.linear import PLST
    >>> from mlviz.per_label import plst_unrepresented_share, unrepresented_share
    >>> from mlviz.synthetic import make_planted
    >>> ds, _ = make_planted(n_samples=100, random_state=0)
    >>> full = unrepresented_share(PLST(5).fit(ds.X, ds.Y), ds.Y)
    >>> bool(np.allclose(plst_unrepresented_share(ds.Y, 5), full, equal_nan=True))
    True
    """
    from mlviz.stats import cooccurrence

    Y = check_label_matrix(Y)
    n_samples = Y.shape[0]
    mean = Y.mean(axis=0)
    covariance = cooccurrence(Y) / n_samples - np.outer(mean, mean)
    eigenvalues, eigenvectors = np.linalg.eigh(covariance)  # ascending
    n_left = max(0, Y.shape[1] - int(n_components))  # the directions PLST leaves out
    left = np.clip(eigenvalues[:n_left], 0.0, None)  # rounding can make 0 slightly negative
    error = (eigenvectors[:, :n_left] ** 2) @ left
    variance = np.diag(covariance)
    return np.divide(error, variance, out=np.full(variance.shape, np.nan), where=variance > 1e-12)


def clems_unrepresented_share(Y, max_candidates: int | None = None) -> np.ndarray:
    """CLEMS's "in no kept candidate" of each label, without embedding the candidates.

    CLEMS's candidates are the distinct training label sets, the ``max_candidates`` most
    frequent when capped (paper 002 §3.4; :class:`mlviz.clems.CLEMS`); a label in none of them
    is never decoded. This keeps the same sets (most frequent first, ties in the lexicographic
    order of :func:`mlviz.stats.unique_rows`, as CLEMS does) and returns 1 for a label in
    none, else 0; ``tests/test_loss_reasons.py`` checks it against fitted models.

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.per_label import clems_unrepresented_share
    >>> Y = np.array([[1, 0, 0], [1, 0, 0], [0, 1, 0], [0, 1, 1]])
    >>> clems_unrepresented_share(Y, max_candidates=2).tolist()  # {0} twice, then {1}
    [0.0, 0.0, 1.0]
    """
    from mlviz.stats import unique_rows

    Y = check_label_matrix(Y).astype(np.uint8)
    distinct, counts = unique_rows(Y)
    order = np.argsort(-counts, kind="stable")
    if max_candidates is not None:
        order = order[:max_candidates]
    return (distinct[order].sum(axis=0) == 0).astype(float)


def best_threshold_f1(Y, Y_score) -> np.ndarray:
    """Per label, the F1 at the best threshold on these scores (:func:`mlviz.thresholds`).

    Optimistic by construction (the threshold is chosen on the rows it is scored on): it
    says whether *some* threshold separates the label, which is what the "ranked but not
    predicted" rule asks; :class:`mlviz.thresholds.PerLabelThreshold` shows the honest gain.

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.per_label import best_threshold_f1
    >>> Y = np.array([[1], [0], [1], [0]])
    >>> best_threshold_f1(Y, np.array([[0.3], [0.2], [0.1], [0.0]])).round(3).tolist()
    [0.8]
    """
    from mlviz.thresholds import best_f1_thresholds

    return best_f1_thresholds(Y, Y_score)[1]


def loss_reasons(
    Y,
    Y_pred,
    *,
    Y_score=None,
    unrepresented=None,
    label_names: Sequence[str] | None = None,
    f1_kept: float = LOSS_RULE_DEFAULTS["f1_kept"],
    unrepresented_min: float = LOSS_RULE_DEFAULTS["unrepresented_min"],
    auc_chance: float = LOSS_RULE_DEFAULTS["auc_chance"],
    auc_ranked: float = LOSS_RULE_DEFAULTS["auc_ranked"],
    best_f1_min: float = LOSS_RULE_DEFAULTS["best_f1_min"],
    min_support: int = int(LOSS_RULE_DEFAULTS["min_support"]),
) -> pd.DataFrame:
    """Why each label is lost by one method, from its out-of-fold predictions and scores.

    The rules, tried in this order (the first that holds is the label's reason):

    1. **no positive**: the label never occurs in ``Y``: nothing to find, nothing to judge.
    2. **kept**: out-of-fold F1 at the method's own threshold (``Y_pred``) is at least
       ``f1_kept``: the label is not lost.
    3. **not represented**: the method's label space leaves at least ``unrepresented_min``
       of the label out (``unrepresented``, :func:`unrepresented_share`: PLST/CPLST's
       unrepresented share at M, CLEMS's "in no kept candidate", GroPLE's zero V^k column):
       no threshold or features can bring it back.
    4. **ranked but not predicted**: AUC at least ``auc_ranked`` and the F1 at the best
       out-of-fold threshold (:func:`best_threshold_f1`) at least ``best_f1_min``: the scores
       separate the label, the method's threshold (½, the MAP rule, the nearest candidate)
       never fires for it; a per-label threshold
       (:class:`mlviz.thresholds.PerLabelThreshold`) is the fix to try.
    5. **too rare to judge**: fewer than ``min_support`` positives: the AUC is too noisy to
       call the label learnable or not.
    6. **not learnable**: the out-of-fold AUC is at most ``auc_chance`` (near ½, or below):
       the scores do not rank the label's instances above the others, so the features (as
       this method uses them) do not predict it.
    7. **weakly ranked**: lost, AUC between the two bounds, or ranked but no threshold
       reaches ``best_f1_min``: better than chance, not good enough for any one cause.

    Without scores, a lost label that is represented gets **no scores** (rules 4-7 need
    them).

    Defaults: F1 ½ splits "found more than it misses" (F1 ≥ ½ means TP ≥ (FP + FN) / 2);
    0.8 is the usual "good discrimination" bound for an AUC; 0.6 and 10 positives go
    together: the AUC of a random score has the Mann-Whitney sd
    ``sqrt((n₊ + n₋ + 1) / (12 n₊ n₋))``, ≈ 0.09 for 10 positives among 1,000 instances, so
    from 10 positives on an AUC at most 0.6 is more than two sd below a label ranked at 0.8,
    while with 2 positives (sd ≈ 0.2) it is not (medical's adaptive tail labels have 1-8
    positives: on them the rule says "too rare to judge" instead of "not learnable"). All
    are parameters: a caption quotes them.

    Parameters
    ----------
    Y : array-like of shape (n_samples, n_labels)
        0/1 truth, every row once (the rows the out-of-fold predictions cover).
    Y_pred : array-like of shape (n_samples, n_labels)
        Out-of-fold 0/1 predictions of the method.
    Y_score : array-like of shape (n_samples, n_labels), optional
        Out-of-fold scores (``decision_function``); without them only rules 1-3 apply.
    unrepresented : array-like of shape (n_labels,), optional
        :func:`unrepresented_share` of the method (None: the method represents every label).
    label_names : sequence of str, optional
    f1_kept, unrepresented_min, auc_chance, auc_ranked, best_f1_min : float
        The rules' thresholds (see above); ``auc_chance < auc_ranked``.
    min_support : int, default=10
        Fewest positives for rules 6-7 (see above).

    Returns
    -------
    pandas.DataFrame
        One row per label in column order: ``label``, ``support``, ``f1`` (at the method's
        threshold), ``auc``, ``best_f1`` (at the best out-of-fold threshold; computed only
        for lost labels with AUC at least ``auc_ranked``, the only ones rule 5 asks about,
        NaN elsewhere), ``unrepresented`` and ``reason`` (one of :data:`LOSS_REASONS`).

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.per_label import loss_reasons
    >>> Y = np.array([[1, 0], [1, 0], [0, 1], [0, 0]])
    >>> Y_pred = np.array([[0, 0], [0, 0], [0, 0], [0, 0]])
    >>> Y_score = np.array([[0.4, 0.1], [0.3, 0.2], [0.1, 0.1], [0.0, 0.3]])
    >>> loss_reasons(Y, Y_pred, Y_score=Y_score)["reason"].tolist()
    ['ranked but not predicted', 'too rare to judge']
    >>> loss_reasons(Y, Y_pred, Y_score=Y_score, min_support=1)["reason"].tolist()
    ['ranked but not predicted', 'not learnable']
    """
    if not 0.0 <= auc_chance < auc_ranked <= 1.0:
        raise ValueError(
            f"loss_reasons needs 0 <= auc_chance < auc_ranked <= 1; got {auc_chance} and "
            f"{auc_ranked}."
        )
    Y = check_label_matrix(Y).astype(bool)
    Y_pred = check_label_matrix(Y_pred, name="Y_pred").astype(bool)
    if Y_pred.shape != Y.shape:
        raise ValueError(f"Y {Y.shape} and Y_pred {Y_pred.shape} must have the same shape.")
    n_labels = Y.shape[1]
    names = [str(j) for j in range(n_labels)] if label_names is None else list(label_names)
    if len(names) != n_labels:
        raise ValueError(f"{len(names)} label names for {n_labels} label columns.")
    share = np.full(n_labels, np.nan)
    if unrepresented is not None:
        share = np.asarray(unrepresented, dtype=float).ravel()
        if share.shape != (n_labels,):
            raise ValueError(f"unrepresented has {share.size} values for {n_labels} labels.")
    # F1 from the per-label counts (2 TP / (positives + predicted), 0 when both are 0, as
    # per_label_scores with zero_division=0): scikit-learn's per-label loop took seconds at
    # 16,000 x 1,000
    support = np.count_nonzero(Y, axis=0)
    predicted = np.count_nonzero(Y_pred, axis=0)
    hits = np.count_nonzero(Y & Y_pred, axis=0)
    f1 = np.zeros(n_labels)
    np.divide(2.0 * hits, support + predicted, out=f1, where=(support + predicted) > 0)
    auc = np.full(n_labels, np.nan)
    best = np.full(n_labels, np.nan)
    if Y_score is not None:
        Y_int, scores = _check_scores(Y.astype(np.int8), Y_score)
        auc = _per_label_auc(Y_int, scores)
        # the best threshold only where rule 5 could apply (lost, ranked): one sort per label
        ask = (support > 0) & (f1 < f1_kept) & (auc >= auc_ranked)
        if ask.any():
            best[ask] = best_threshold_f1(Y[:, ask], scores[:, ask])
    reason = np.full(n_labels, "weakly ranked", dtype=object)
    undecided = np.ones(n_labels, dtype=bool)
    rules = [
        ("no positive", support == 0),
        ("kept", f1 >= f1_kept),
        ("not represented", np.nan_to_num(share, nan=0.0) >= unrepresented_min),
        ("no scores", np.full(n_labels, Y_score is None)),
        ("ranked but not predicted", (auc >= auc_ranked) & (best >= best_f1_min)),
        ("too rare to judge", support < min_support),
        ("not learnable", auc <= auc_chance),  # NaN compares False
    ]
    for name, holds in rules:
        chosen = undecided & holds
        reason[chosen] = name
        undecided &= ~chosen
    return pd.DataFrame(
        {
            "label": names,
            "support": support,
            "f1": f1,
            "auc": auc,
            "best_f1": best,
            "unrepresented": share,
            "reason": reason,
        }
    )


def reason_counts(reasons: pd.DataFrame, labels=None) -> dict[str, int]:
    """How many labels (of ``labels``, default all) have each reason, in :data:`LOSS_REASONS`
    order, reasons with no label left out.

    Examples
    --------
    >>> import pandas as pd
    >>> from mlviz.per_label import reason_counts
    >>> table = pd.DataFrame({"reason": ["kept", "not learnable", "kept"]})
    >>> reason_counts(table)
    {'kept': 2, 'not learnable': 1}
    """
    values = reasons["reason"] if labels is None else reasons["reason"].iloc[labels]
    counts = values.value_counts()
    return {name: int(counts[name]) for name in LOSS_REASONS if name in counts}

"""One decision threshold per label, tuned on inner folds: a meta-estimator around any scorer.

Multi-label methods decide every label with one rule (PLST and CPLST round the decoded score
at ½, binary relevance at ½, ML-KNN by the MAP rule, CLEMS by the nearest candidate set).
A rare label can be *ranked* well by the scores (high AUC) and still never cross that one
threshold: its F1 at the method's threshold is low although a lower threshold would find it.
:class:`PerLabelThreshold` tunes a threshold per label, as scikit-learn's
:class:`~sklearn.model_selection.TunedThresholdClassifierCV` does for one binary target,
from scores the wrapped estimator gives on instances it did not train on (inner k-fold), so
the gain it shows is the gain a user would get, not the optimistic gain of tuning on the
evaluation rows.

The Compare page uses it to show what a fix would give for the labels
:func:`mlviz.per_label.loss_reasons` finds "ranked but not predicted".
"""

from __future__ import annotations

from numbers import Integral

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.model_selection import KFold
from sklearn.utils.validation import check_array, check_is_fitted

from mlviz._compat import HasMethods, Interval, _fit_context
from mlviz._validation import check_multilabel_target
from mlviz.base import MultiLabelEstimator

__all__ = ["PerLabelThreshold", "best_f1_thresholds", "label_scores"]


def label_scores(estimator, X) -> np.ndarray:
    """Real-valued scores per label: ``decision_function``, else P(label = 1).

    ``predict_proba`` may return one (n, 2) array per label (MultiOutputClassifier): keep the
    last column of each. Raises TypeError when the estimator has neither, since a threshold
    needs something to compare with.

    Examples
    --------
    >>> from mlviz.linear import PLST
    >>> from mlviz.synthetic import make_planted
    >>> from mlviz.thresholds import label_scores
    >>> ds, _ = make_planted(n_samples=60, random_state=0)
    >>> label_scores(PLST(4).fit(ds.X, ds.Y), ds.X).shape
    (60, 22)
    """
    if hasattr(estimator, "decision_function"):
        scores = estimator.decision_function(X)
    elif hasattr(estimator, "predict_proba"):
        scores = estimator.predict_proba(X)
        if isinstance(scores, list):
            scores = np.column_stack([p[:, -1] for p in scores])
    else:
        raise TypeError(
            f"{type(estimator).__name__} has neither decision_function nor predict_proba: "
            "there is no score to put a threshold on."
        )
    if sp.issparse(scores):
        scores = scores.toarray()
    scores = np.asarray(scores, dtype=np.float64)
    return scores[:, None] if scores.ndim == 1 else scores


def best_f1_thresholds(Y, scores) -> tuple[np.ndarray, np.ndarray]:
    """Per label, the threshold t maximising the F1 of ``scores >= t``, and that F1.

    Every cut between distinct scores is tried (all columns at once: one sort per column);
    predicting every instance is one of them. Among equal F1 the highest threshold wins (the
    fewest positives). A label without a positive has F1 0 at every cut: its threshold is
    ``+inf`` (never predicted), the only choice that does not add false positives.

    Parameters
    ----------
    Y : array-like of shape (n_samples, n_labels)
        0/1 truth.
    scores : array-like of shape (n_samples, n_labels)

    Returns
    -------
    thresholds : ndarray of float, shape (n_labels,)
        The score at the cut (predict when ``score >= threshold``).
    f1 : ndarray of float, shape (n_labels,)
        F1 at that threshold on these rows (optimistic: chosen on the same rows).

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.thresholds import best_f1_thresholds
    >>> Y = np.array([[1], [1], [0], [0]])
    >>> thresholds, f1 = best_f1_thresholds(Y, np.array([[0.3], [0.2], [0.1], [0.0]]))
    >>> thresholds.tolist(), f1.tolist()  # a cut at 0.2 finds both, no false alarm
    ([0.2], [1.0])
    """
    Y = np.asarray(Y, dtype=bool)
    scores = np.asarray(scores, dtype=np.float64)
    if Y.shape != scores.shape or Y.ndim != 2:
        raise ValueError(f"Y {Y.shape} and scores {scores.shape} must be (n_samples, n_labels).")
    n_samples, n_labels = Y.shape
    thresholds = np.full(n_labels, np.inf)
    best = np.zeros(n_labels)
    if n_samples == 0:
        return thresholds, best
    order = np.argsort(-scores, axis=0, kind="stable")
    ordered = np.take_along_axis(scores, order, axis=0)
    hits = np.cumsum(np.take_along_axis(Y, order, axis=0), axis=0)  # TP of the top i + 1
    predicted = np.arange(1, n_samples + 1)[:, None]
    positives = Y.sum(axis=0)
    f1 = 2.0 * hits / (positives[None, :] + predicted)
    # a cut is only possible where the next score differs (a threshold cannot split ties)
    valid = np.ones_like(f1, dtype=bool)
    valid[:-1] = ordered[:-1] != ordered[1:]
    f1 = np.where(valid, f1, -1.0)
    at = np.argmax(f1, axis=0)  # the first (highest-threshold) maximum
    top = f1[at, np.arange(n_labels)]
    found = (positives > 0) & (top > 0)
    thresholds[found] = ordered[at[found], np.flatnonzero(found)]
    best[found] = top[found]
    return thresholds, best


def _rows(X, index: np.ndarray):
    """Rows of X by position: a DataFrame by ``iloc``, arrays and sparse matrices directly."""
    return X.iloc[index] if hasattr(X, "iloc") else X[index]


class PerLabelThreshold(MultiLabelEstimator):
    """Any multi-label scorer with one decision threshold per label, tuned on inner folds.

    ``fit`` splits the training rows into ``cv`` folds, fits a clone of ``estimator`` on each
    training part and scores the held-out part (``decision_function``, else
    ``predict_proba``), so every training instance gets a score from a model that did not see
    it; per label it then takes the threshold with the best F1 on those scores
    (:func:`best_f1_thresholds`), and finally refits ``estimator`` on all training rows.
    ``predict`` is ``scores >= threshold_`` per label. This is scikit-learn's
    ``TunedThresholdClassifierCV`` (one binary target) for L labels at once, with F1 as the
    objective because the per-label tables judge labels by F1.

    A label without a positive in training gets threshold ``+inf`` (never predicted).

    Parameters
    ----------
    estimator : multi-label estimator
        Unfitted, with ``fit(X, Y)`` and ``decision_function`` or ``predict_proba``.
    cv : int, default=3
        Inner folds (a shuffled :class:`~sklearn.model_selection.KFold`). At least 2.
    random_state : int, RandomState or None, default=None
        Seed of the inner folds' shuffle.

    Attributes
    ----------
    estimator_ : estimator
        ``estimator`` refitted on all training rows; its scores are thresholded.
    thresholds_ : ndarray of float, shape (n_labels,)
    inner_f1_ : ndarray of float, shape (n_labels,)
        F1 of each label at its threshold on the inner out-of-fold scores.
    n_labels_ : int

    Examples
    --------
    >>> from mlviz.linear import PLST
    >>> from mlviz.synthetic import make_planted
    >>> from mlviz.thresholds import PerLabelThreshold
    >>> ds, _ = make_planted(n_samples=150, random_state=0)
    >>> model = PerLabelThreshold(PLST(n_components=4), cv=3, random_state=0).fit(ds.X, ds.Y)
    >>> model.thresholds_.shape, model.predict(ds.X[:5]).shape
    ((22,), (5, 22))
    """

    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit"])],
        "cv": [Interval(Integral, 2, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(self, estimator, *, cv: int = 3, random_state=None) -> None:
        self.estimator = estimator
        self.cv = cv
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y) -> PerLabelThreshold:
        """Tune the thresholds on inner out-of-fold scores, then refit on all rows.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            Passed to the wrapped estimator as is (it validates it).
        y : array-like of shape (n_samples, n_labels)
            0/1 labels.

        Returns
        -------
        self : PerLabelThreshold
        """
        if not hasattr(X, "iloc"):  # a DataFrame goes through as is, for its feature names
            # arrays, lists and every sparse format as an array or CSR the folds can index;
            # finiteness and dtype are the wrapped estimator's to check
            X = check_array(X, accept_sparse="csr", dtype=None, ensure_all_finite=False)
        n_samples = X.shape[0]
        Y, self._target_dtype, self._target_is_1d = check_multilabel_target(y, n_samples=n_samples)
        self.n_labels_ = Y.shape[1]
        classes = np.array([0, 1], dtype=self._target_dtype)
        self.classes_ = classes if self._target_is_1d else np.tile(classes, (self.n_labels_, 1))
        if n_samples < self.cv:
            raise ValueError(
                f"PerLabelThreshold needs at least cv = {self.cv} training instances for its "
                f"inner folds; got n_samples = {n_samples}."
            )
        scores = np.empty(Y.shape)
        folds = KFold(self.cv, shuffle=True, random_state=self.random_state)
        for train, held_out in folds.split(np.zeros(n_samples)):
            model = clone(self.estimator).fit(_rows(X, train), Y[train])
            scores[held_out] = label_scores(model, _rows(X, held_out))
        self.thresholds_, self.inner_f1_ = best_f1_thresholds(Y, scores)
        self.estimator_ = clone(self.estimator).fit(X, Y)
        # the wrapped estimator validated X: its feature count and names are this model's
        for name in ("n_features_in_", "feature_names_in_"):
            if hasattr(self.estimator_, name):
                setattr(self, name, getattr(self.estimator_, name))
        return self

    def decision_function(self, X) -> np.ndarray:
        """Each label's score minus its threshold: positive (or 0) exactly where predicted.

        The margin by which a label clears its own threshold, so ranking metrics rank the
        labels as the decisions do (per label, the order of the wrapped estimator's scores
        is kept). A label never predicted (threshold ``+inf``) gets ``-1 - |score|``:
        negative and finite, as the evaluation requires finite scores.
        """
        check_is_fitted(self)
        scores = label_scores(self.estimator_, X)
        finite = np.isfinite(self.thresholds_)
        margin = np.where(finite, scores - np.where(finite, self.thresholds_, 0.0), 0.0)
        margin = np.where(finite, margin, -1.0 - np.abs(scores))
        return self._format_scores(margin)

    def predict(self, X) -> np.ndarray:
        """``scores >= thresholds_`` per label, in the dtype of the training ``y``."""
        check_is_fitted(self)
        return self._format_labels(label_scores(self.estimator_, X) >= self.thresholds_)

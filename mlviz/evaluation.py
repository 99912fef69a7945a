"""One evaluation engine: cross-validation, summaries, ranks and the Friedman/Nemenyi test.

Everything here returns pandas objects so that the app, the reproduction report and the
benchmarks read the same numbers:

- :func:`cross_validate` fits a dict of estimators on the same folds (k-fold or
  :func:`repeated_splits`) in parallel through joblib and returns a tidy table with one
  row per (method, fold, metric).
- :func:`aggregate` / :func:`summarize` turn it into mean, standard deviation and standard
  error per method ("mean ± sd" or "mean ± se" strings for display).
- :func:`rank_table` ranks methods per data set with ties averaged (the convention of the
  GroPLE paper's Table 2, ``../shared/papers/001_20309f7d22cfebb1.txt``).
- :func:`friedman_nemenyi` runs the Friedman test and the Nemenyi post-hoc critical
  difference of Demšar (2006), the analysis of the GroPLE paper's Table 3 and Figure 4.

Scaling out: the folds run through :class:`joblib.Parallel` without a fixed backend, so
wrapping a call in :func:`dask_backend` (or ``joblib.parallel_config(backend="ray")``) runs
the same code on a cluster (see ``docs/SCALING.md``).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import Any, Literal

import numpy as np
import pandas as pd
import scipy.sparse as sp
from joblib import Parallel, delayed
from scipy import stats
from sklearn.base import clone
from sklearn.model_selection import KFold, ParameterGrid, ShuffleSplit

from mlviz._compat import (
    HasMethods,
    Interval,
    Options,
    StrOptions,
    validate_params,
)
from mlviz._validation import check_features, check_label_matrix
from mlviz.metrics import (
    EVALUATE_KEYS,
    METRICS,
    TAIL_KEYS,
    evaluate,
    finite_scores,
    per_label_scores,
)
from mlviz.stats import label_frequencies, tail_labels

__all__ = [
    "CrossValidationResult",
    "EvaluationError",
    "FriedmanNemenyiResult",
    "GridSearchResult",
    "OutOfFoldPredictions",
    "aggregate",
    "cross_validate",
    "dask_backend",
    "external_predictions",
    "friedman_nemenyi",
    "grid_search_cv",
    "holdout_predictions",
    "nemenyi_critical_difference",
    "nemenyi_groups",
    "nemenyi_q_alpha",
    "per_label_comparison",
    "rank_table",
    "repeated_splits",
    "summarize",
]

ProgressCallback = Callable[[int, int, str], None]

RESULT_COLUMNS = ("method", "fold", "metric", "value", "fit_time", "predict_time")
FAILURE_COLUMNS = ("method", "fold", "stage", "error")


class EvaluationError(RuntimeError):
    """An estimator failed inside :func:`cross_validate`; the message names method and fold.

    Examples
    --------
    >>> from mlviz.evaluation import EvaluationError
    >>> issubclass(EvaluationError, Exception)
    True
    """


# scikit-learn's parameter validation (as for the estimators' _parameter_constraints) for the
# public functions' parameters; checks that need the data or the contents of a collection
# (metric names, label counts) stay hand-written below.
_SHARE = Interval(Real, 0, 1, closed="right")  # a tail threshold: a share of the instances
_ALPHA = Interval(Real, 0, 1, closed="neither")
_ZERO_DIVISION = [Options(Real, {0, 1}), "nan"]

# ----------------------------------------------------------------------------- splitting


@validate_params(
    {
        "n_repeats": [Interval(Integral, 1, None, closed="left")],
        "test_size": [Interval(Real, 0, 1, closed="neither")],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def repeated_splits(
    n_repeats: int = 20, test_size: float = 0.1, *, random_state: int | None = 0
) -> ShuffleSplit:
    """Repeated random train/test partitions, for the PLST (20 × 90/10) and CLEMS (20 × 50/50)
    protocols.

    Parameters
    ----------
    n_repeats : int, default=20
        Number of independent random partitions.
    test_size : float, default=0.1
        Fraction of the examples held out in each partition.
    random_state : int, RandomState instance or None, default=0
        Seed; the same seed gives the same partitions for every method and every call.
        None draws new partitions on each use.

    Returns
    -------
    sklearn.model_selection.ShuffleSplit
        A splitter accepted by ``cross_validate(cv=...)`` (or any scikit-learn tool).

    Examples
    --------
    >>> from mlviz.evaluation import repeated_splits
    >>> splitter = repeated_splits(n_repeats=20, test_size=0.5, random_state=0)  # CLEMS' 20 x 50/50
    >>> splitter.get_n_splits()
    20
    """
    return ShuffleSplit(n_splits=int(n_repeats), test_size=test_size, random_state=random_state)


def _resolve_cv(cv: Any, random_state: int | None):
    # cv is an int >= 2 or has split() (validate_params of cross_validate). Shuffled, unlike
    # scikit-learn's cv=int (unshuffled KFold): MULAN files are often ordered (a published
    # split stacked, rows grouped by source), so contiguous folds would test on one kind of row.
    # Seeded by default (random_state=0), so that an int cv gives the same folds on every call
    # as scikit-learn's does (issue 31: two identical calls gave BR accuracy 0.470 and 0.509).
    if isinstance(cv, Integral):
        return KFold(n_splits=int(cv), shuffle=True, random_state=random_state)
    return cv


# ----------------------------------------------------------------------------- metrics


def _greater_is_better(metric: str, overrides: Mapping[str, bool] | None = None) -> bool:
    if overrides is not None and metric in overrides:
        return bool(overrides[metric])
    if metric not in METRICS:
        raise ValueError(
            f"unknown metric {metric!r}: it is not in mlviz.metrics.METRICS, so its direction "
            "is unknown. Pass greater_is_better={metric_name: True/False}."
        )
    return METRICS[metric].greater_is_better


def _label_scores(estimator, X) -> np.ndarray | None:
    """Real-valued label scores for the ranking metrics, or None when the model has none.

    ``decision_function`` comes first, as in scikit-learn's scorers; ``predict_proba``
    may return one (n, 2) array per label (MultiOutputClassifier): keep P(label = 1).
    """
    if hasattr(estimator, "decision_function"):
        scores = estimator.decision_function(X)
    elif hasattr(estimator, "predict_proba"):
        scores = estimator.predict_proba(X)
        if isinstance(scores, list):
            scores = np.column_stack([p[:, -1] for p in scores])
    else:
        return None
    if sp.issparse(scores):
        scores = scores.toarray()
    return np.asarray(scores, dtype=np.float64)


def _predict_with_scores(estimator, X) -> tuple[np.ndarray, np.ndarray | None]:
    """Hard predictions and the scores of :func:`_label_scores`.

    An estimator with ``predict_with_scores`` (:meth:`mlviz.MLkNN.predict_with_scores`)
    gives both from one pass over the test set (for ML-KNN, one neighbour search instead of
    two); it must return ``(predict(X), decision_function(X))``.
    """
    if hasattr(estimator, "predict_with_scores") and hasattr(estimator, "decision_function"):
        labels, scores = estimator.predict_with_scores(X)
        return np.asarray(labels), np.asarray(scores, dtype=np.float64)
    return np.asarray(estimator.predict(X)), _label_scores(estimator, X)


# ----------------------------------------------------------------------------- cross-validation


@dataclass(frozen=True)
class OutOfFoldPredictions:
    """One method's predictions for every instance, each made by the model that did not see it.

    Attributes
    ----------
    Y_pred : ndarray of shape (n_samples, n_labels), int8
        Hard 0/1 predictions; row i comes from the fold in which i was a test instance.
    Y_score : ndarray of shape (n_samples, n_labels) or None
        Real-valued scores (``decision_function``, else ``predict_proba``); None when the
        method has neither, or when ``cross_validate`` was asked for labels only.

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.evaluation import OutOfFoldPredictions
    >>> predictions = OutOfFoldPredictions(Y_pred=np.array([[1, 0], [0, 1]]), Y_score=None)
    >>> predictions.Y_pred.shape, predictions.Y_score is None
    ((2, 2), True)
    """

    Y_pred: np.ndarray
    Y_score: np.ndarray | None


def external_predictions(
    Y_score, *, threshold: float = 0.5, top_k: int | None = None
) -> OutOfFoldPredictions:
    """A model trained outside mlviz as one more method: its scores as out-of-fold predictions.

    The result goes wherever an estimator's :class:`OutOfFoldPredictions` go
    (:func:`per_label_comparison`, :func:`mlviz.per_label.loss_reasons`,
    :func:`mlviz.metrics.evaluate` with ``Y_score``), so the per-label table of an external
    model is built exactly as that of PLST or ML-KNN. The scores must cover the rows they are
    compared on (e.g. :func:`mlviz.io.load_scores` with ``n_rows``): the test rows of a
    split, or every row when they are the model's own out-of-fold scores.

    Parameters
    ----------
    Y_score : array-like of shape (n_samples, n_labels)
        Scores, higher is more confident; ``-inf`` for a label the model did not score (a
        top-k file's unlisted labels). NaN and ``+inf`` are refused.
    threshold : float, default=0.5
        A label is predicted when its score is at least this (0.5 suits probabilities, as
        napkinXC's and pyxclib's models write; 0 suits a decision function). ``-inf`` is
        never predicted.
    top_k : int, optional
        Instead of the threshold: predict each instance's ``top_k`` highest-scored labels
        (ties broken by the lower label index; never a ``-inf`` label), as XMC papers do.

    Returns
    -------
    OutOfFoldPredictions
        ``Y_pred`` (int8) from the raw scores; ``Y_score`` made finite by
        :func:`mlviz.metrics.finite_scores` (``-inf`` becomes one value below every finite
        score), so no metric meets an infinite score and none returns NaN because of it. The
        loss reasons that need a model's internals (``unrepresented``) are unknown for an
        external model: pass ``unrepresented=None`` to :func:`~mlviz.per_label.loss_reasons`,
        whose rules then judge the label from its scores alone.

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.evaluation import external_predictions, per_label_comparison
    >>> scores = np.array([[0.9, -np.inf], [0.2, 0.7], [0.6, -np.inf]])
    >>> predictions = external_predictions(scores)
    >>> predictions.Y_pred.tolist(), bool(np.isfinite(predictions.Y_score).all())
    ([[1, 0], [0, 1], [1, 0]], True)
    >>> external_predictions(scores, top_k=1).Y_pred.tolist()
    [[1, 0], [0, 1], [1, 0]]
    >>> Y = np.array([[1, 0], [0, 1], [1, 1]])
    >>> table = per_label_comparison({"napkinXC": predictions}, Y, label_names=["a", "b"])
    >>> table["label"].tolist(), table["F1 napkinXC"].round(3).tolist()
    (['a', 'b'], [1.0, 0.667])
    """
    raw = np.asarray(Y_score, dtype=np.float64)
    if raw.ndim != 2:
        raise ValueError(f"Y_score must be 2-D (instances x labels); got shape {raw.shape}.")
    finite = finite_scores(raw)  # refuses NaN and +inf
    if top_k is None:
        if not np.isfinite(threshold):
            raise ValueError(f"threshold must be a finite number; got {threshold!r}.")
        Y_pred = (raw >= threshold).astype(np.int8)
    else:
        if isinstance(top_k, bool) or not isinstance(top_k, Integral) or top_k < 1:
            raise ValueError(f"top_k must be a positive int; got {top_k!r}.")
        k = min(int(top_k), raw.shape[1])
        # a stable sort of -score: ties go to the lower label index
        top = np.argsort(-raw, axis=1, kind="stable")[:, :k]
        Y_pred = np.zeros(raw.shape, dtype=np.int8)
        np.put_along_axis(Y_pred, top, 1, axis=1)
        Y_pred[np.isneginf(raw)] = 0
    return OutOfFoldPredictions(Y_pred=Y_pred, Y_score=finite)


def holdout_predictions(
    estimators: Mapping[str, Any], X_train, Y_train, X_test
) -> tuple[dict[str, OutOfFoldPredictions], dict[str, str]]:
    """Every estimator fitted once on a split's training rows, predicting its test rows.

    The counterpart of :func:`cross_validate`'s out-of-fold predictions for one train/test
    split: an external model's scores for the test rows only (:func:`external_predictions`)
    go beside these in :func:`per_label_comparison` and
    :func:`mlviz.per_label.loss_reasons`. Each estimator is cloned; the order is kept.

    Parameters
    ----------
    estimators : mapping of str to estimator
    X_train, Y_train, X_test : array-like or sparse matrix

    Returns
    -------
    predictions : dict of str to OutOfFoldPredictions
        Hard predictions and scores (``decision_function``, else ``predict_proba``; None when
        the estimator has neither) of each estimator that fitted and predicted.
    failures : dict of str to str
        For each estimator that raised, ``"during fit: <error>"`` or ``"during predict: ..."``
        (it is then absent from ``predictions``; nothing is dropped silently).

    Examples
    --------
    >>> from mlviz.evaluation import holdout_predictions
    >>> from mlviz.linear import BinaryRelevance
    >>> from mlviz.synthetic import make_cube
    >>> ds = make_cube(n_samples=60, random_state=0)
    >>> predictions, failures = holdout_predictions(
    ...     {"BR": BinaryRelevance()}, ds.X[:40], ds.Y[:40], ds.X[40:]
    ... )
    >>> predictions["BR"].Y_pred.shape, failures
    ((20, 3), {})
    """
    predictions: dict[str, OutOfFoldPredictions] = {}
    failures: dict[str, str] = {}
    for name, estimator in estimators.items():
        stage = "fit"
        try:
            model = clone(estimator).fit(X_train, Y_train)
            stage = "predict"
            Y_pred, Y_score = _predict_with_scores(model, X_test)
        except Exception as err:  # reported per estimator, as cross_validate's "collect"
            failures[name] = f"during {stage}: {type(err).__name__}: {err}"
            continue
        predictions[name] = OutOfFoldPredictions(
            Y_pred=np.asarray(Y_pred, dtype=np.int8), Y_score=Y_score
        )
    return predictions, failures


@dataclass(frozen=True)
class CrossValidationResult:
    """What :func:`cross_validate` returns, whatever its flags: every field is always present.

    Attributes
    ----------
    results : pandas.DataFrame
        The tidy table (one row per method, fold and metric) of the runs that succeeded.
    failures : pandas.DataFrame
        One row per failed (method, fold): columns ``method, fold, stage, error`` (stage is
        "fit", "predict" or "evaluate"; error is the exception's type and message). Empty
        when every run succeeded, and always empty with ``on_error="raise"`` (a failure
        raises instead).
    predictions : dict of str -> OutOfFoldPredictions
        With ``return_predictions=True``: the out-of-fold predictions of every method that
        succeeded in every fold (a method with a failed fold has none); otherwise empty.
    unscored : dict of str -> str
        Methods that gave no real-valued scores in some fold (neither ``decision_function``
        nor ``predict_proba``), each with the reason its score-based metrics (ranking loss,
        P@k, PSP@k, ...) are NaN in ``results``; empty when every method has scores.

    Examples
    --------
    >>> from mlviz import PLST, cross_validate
    >>> from mlviz.synthetic import make_planted
    >>> ds, _ = make_planted(n_samples=120, random_state=0)
    >>> result = cross_validate({"PLST": PLST(n_components=4)}, ds.X, ds.Y, cv=3,
    ...                         metrics=["hamming_loss"], random_state=0)
    >>> len(result.results), result.failures.empty, result.predictions, result.failed_methods
    (3, True, {}, [])
    >>> result.unscored
    {}
    """

    results: pd.DataFrame
    failures: pd.DataFrame
    predictions: dict[str, OutOfFoldPredictions] = field(default_factory=dict)
    unscored: dict[str, str] = field(default_factory=dict)

    @property
    def failed_methods(self) -> list[str]:
        """Methods that failed in at least one fold, in the order given to cross_validate."""
        return list(dict.fromkeys(self.failures["method"]))


@dataclass(frozen=True)
class _FoldOutcome:
    name: str
    fold: int
    scores: dict[str, float] | None
    fit_time: float = math.nan
    predict_time: float = math.nan
    Y_pred: np.ndarray | None = None
    Y_score: np.ndarray | None = None
    stage: str = ""
    error: str = ""
    unscored: bool = False


def _fit_and_score(
    name: str,
    estimator,
    X,
    Y: np.ndarray,
    train: np.ndarray,
    test: np.ndarray,
    fold: int,
    metrics: Sequence[str] | None,
    zero_division: float,
    tail_threshold: float | None,
    keep_predictions: bool | str,
    collect_errors: bool,
) -> _FoldOutcome:
    stage = "fit"
    try:
        model = clone(estimator)
        start = time.perf_counter()
        model.fit(X[train], Y[train])
        fit_time = time.perf_counter() - start
        stage = "predict"
        start = time.perf_counter()
        Y_pred, Y_score = _predict_with_scores(model, X[test])
        predict_time = time.perf_counter() - start
        stage = "evaluate"
        scores = evaluate(
            Y[test],
            Y_pred,
            Y_score=Y_score,
            zero_division=zero_division,
            tail_threshold=tail_threshold,
            Y_train=Y[train],
        )
    except Exception as err:
        error = f"{type(err).__name__}: {err}"
        if collect_errors:
            return _FoldOutcome(name, fold, None, stage=stage, error=error)
        # Re-raised (never swallowed) with the context a user needs to find the failing run.
        raise EvaluationError(
            f"method {name!r} failed in fold {fold} during {stage} "
            f"({len(train)} training / {len(test)} test examples): {error}"
        ) from err
    unscored = Y_score is None
    if metrics is not None:
        # A ranking metric is absent when the model has no scores: NaN, not a KeyError.
        scores = {m: scores.get(m, np.nan) for m in metrics}
    elif unscored:
        # every score-based metric is a NaN row, so the table shows the gap (and
        # CrossValidationResult.unscored says why) instead of leaving the rows out
        scores.update({m: np.nan for m in EVALUATE_KEYS if METRICS[m].needs_scores})
    if not keep_predictions:
        Y_pred = Y_score = None
    elif keep_predictions == "labels":
        Y_score = None
    return _FoldOutcome(
        name, fold, scores, fit_time, predict_time, Y_pred, Y_score, unscored=unscored
    )


def _check_partition(splits: list[tuple[np.ndarray, np.ndarray]], n_samples: int) -> None:
    tested = np.concatenate([test for _, test in splits])
    if tested.size != n_samples or not np.array_equal(np.sort(tested), np.arange(n_samples)):
        raise ValueError(
            "return_predictions=True needs every instance in exactly one test fold (k-fold, "
            f"cv=int or a KFold); this splitter tests {np.unique(tested).size} of {n_samples} "
            f"instances in {tested.size} test slots (repeated or random partitions cannot give "
            "one out-of-fold prediction per instance)."
        )


class _OutOfFold:
    """Out-of-fold predictions filled in as each (method, fold) arrives.

    Each fold's arrays are copied into one (n_samples, n_labels) array per method and then
    dropped, so the peak holds one copy of the predictions, not the folds' and the assembled
    ones side by side (~130 MB per method for float64 scores at 16,000 × 1,000).
    """

    def __init__(self, splits: list[tuple[np.ndarray, np.ndarray]], shape: tuple[int, int]):
        self.splits, self.shape = splits, shape
        self.labels: dict[str, np.ndarray] = {}
        self.scores: dict[str, np.ndarray | None] = {}

    def add(self, outcome: _FoldOutcome) -> None:
        test = self.splits[outcome.fold][1]
        if outcome.name not in self.labels:
            self.labels[outcome.name] = np.zeros(self.shape, dtype=np.int8)
            has_scores = outcome.Y_score is not None
            self.scores[outcome.name] = np.empty(self.shape) if has_scores else None
        self.labels[outcome.name][test] = outcome.Y_pred
        scores = self.scores[outcome.name]
        if scores is not None and outcome.Y_score is None:
            self.scores[outcome.name] = None  # a fold without scores: no scores at all
        elif scores is not None:
            scores[test] = outcome.Y_score

    def predictions(self, names: Sequence[str], failed: set[str]) -> dict:
        return {
            name: OutOfFoldPredictions(self.labels[name], self.scores[name])
            for name in names
            if name in self.labels and name not in failed
        }


@validate_params(
    {
        "estimators": [Mapping],
        "X": ["array-like", "sparse matrix"],
        "Y": ["array-like", "sparse matrix"],
        # scikit-learn's splitter interface; split alone would let a str through
        "cv": [Interval(Integral, 2, None, closed="left"), HasMethods(["split", "get_n_splits"])],
        "metrics": ["array-like", None],
        "random_state": ["random_state"],
        "n_jobs": [Integral, None],
        "progress": [callable, None],
        "dataset": [str, None],
        "zero_division": _ZERO_DIVISION,
        "tail_threshold": [_SHARE, StrOptions({"adaptive"}), None],
        "return_predictions": ["boolean", StrOptions({"labels"})],
        "on_error": [StrOptions({"raise", "collect"})],
    },
    # the estimators are the caller's: their fit must validate their own parameters
    prefer_skip_nested_validation=False,
)
def cross_validate(
    estimators: Mapping[str, Any],
    X,
    Y,
    *,
    cv: int | Any = 5,
    metrics: Sequence[str] | None = None,
    random_state: int | None = 0,
    n_jobs: int | None = None,
    progress: ProgressCallback | None = None,
    dataset: str | None = None,
    zero_division: float = 0,
    tail_threshold: float | None = None,
    return_predictions: bool | Literal["labels"] = False,
    on_error: Literal["raise", "collect"] = "raise",
) -> CrossValidationResult:
    """Fit and score several multi-label estimators on the same folds.

    Parameters
    ----------
    estimators : dict of str -> estimator
        Display name -> unfitted estimator with ``fit(X, Y)`` / ``predict(X)``. Each is
        cloned per fold. When it has ``decision_function`` (or else ``predict_proba``),
        those scores feed the ranking metrics (one-error, coverage, ranking loss, average
        precision, macro AUC) and the top-k ones (P@1, P@3, nDCG@3 and the propensity-scored
        PSP@1, PSP@3, PSnDCG@3, their inverse propensities estimated on each fold's training
        labels, :func:`mlviz.metrics.inverse_propensity`). An estimator with
        ``predict_with_scores`` (ML-KNN) gives the predictions and the decision scores from
        one call instead.
    X : array-like or sparse matrix of shape (n_samples, n_features)
    Y : array-like of shape (n_samples, n_labels)
        0/1 label matrix.
    cv : int or scikit-learn splitter, default=5
        An int is the number of folds of a shuffled :class:`~sklearn.model_selection.KFold`
        seeded with ``random_state``; a splitter (``split(X, Y)`` and ``get_n_splits``) is
        used as is, e.g. :func:`repeated_splits` for the repeated random-partition protocols.
    metrics : sequence of str, optional
        Names from :func:`mlviz.metrics.evaluate` to keep; default all it returns, the
        score-based ones (ranking metrics, P@k, nDCG@k, PSP@k, PSnDCG@k) included. For a
        method without scores those are NaN rows, and :attr:`CrossValidationResult.unscored`
        names the method and the reason.
    random_state : int, RandomState instance or None, default=0
        Seed of the k-fold shuffle when ``cv`` is an int: by default the same folds on every
        call (a shuffled :class:`~sklearn.model_selection.KFold`, seed 0); None draws new
        folds each call. Ignored with a splitter, which carries its own seed.
    n_jobs : int, optional
        Number of parallel folds (joblib semantics; None means 1 unless inside a
        ``joblib.parallel_config`` context such as :func:`dask_backend`).
    progress : callable (done, total, message), optional
        Called from the calling process: once with ``done=0`` before the first fit and
        then each time a (method, fold) result arrives. With a joblib backend that cannot
        stream results (multiprocessing, Ray) the calls all come when the last fold ends.
    dataset : str, optional
        When given, a leading ``dataset`` column holding this name (for :func:`rank_table`
        and :func:`friedman_nemenyi` over several data sets).
    zero_division : {0, 1, nan}, default=0
        Macro F1's value for a label absent from a test fold and never predicted (see
        :func:`mlviz.metrics.per_label_f1`); 0 is scikit-learn's default and what the GroPLE
        paper's numbers imply.
    tail_threshold : float in (0, 1] or "adaptive", optional
        Adds ``tail_macro_f1``, ``head_macro_f1`` and ``tail_recall``
        (:func:`mlviz.metrics.tail_head_scores`), the tail being the labels below this
        relative frequency in each fold's *training* labels, or with ``"adaptive"`` the
        rarest labels holding at most 5 % of the fold's training label occurrences
        (:func:`mlviz.stats.tail_cutoff`).
    return_predictions : bool or "labels", default=False
        Also return every method's out-of-fold predictions and scores
        (:class:`OutOfFoldPredictions`), e.g. for :func:`mlviz.metrics.per_label_scores` over
        the whole data set. Needs a splitter that tests every instance exactly once (k-fold).
        Memory: one int8 and one float64 (n_samples, n_labels) array per method; "labels"
        keeps the hard predictions only (``Y_score`` None), for per-label views without AUC.
    on_error : {"raise", "collect"}, default="raise"
        "raise": the first failing (method, fold) raises :class:`EvaluationError`. "collect":
        failures are recorded in :attr:`CrossValidationResult.failures` and the other runs
        go on.

    Returns
    -------
    CrossValidationResult
        One type whatever the flags. ``results`` is the tidy table: one row per (method,
        fold, metric) with columns ``method, fold, metric, value, fit_time, predict_time``
        (seconds; ``predict_time`` includes computing the scores), ordered by method (as
        given), fold, metric. ``failures`` lists the failed runs (empty unless
        ``on_error="collect"``), so failures cannot be mistaken for a complete table;
        ``predictions`` holds the out-of-fold predictions (empty unless
        ``return_predictions``).

    Raises
    ------
    EvaluationError
        With ``on_error="raise"``, when an estimator raises in a fold; the message names
        the method, the fold and the stage, and the original exception is chained.

    Examples
    --------
    >>> from mlviz import BinaryRelevance, PLST, cross_validate
    >>> from mlviz.synthetic import make_planted
    >>> ds, _ = make_planted(n_samples=120, random_state=0)
    >>> result = cross_validate(
    ...     {"BR": BinaryRelevance(), "PLST": PLST(n_components=4)}, ds.X, ds.Y, cv=3,
    ...     metrics=["hamming_loss", "micro_f1"], return_predictions=True, random_state=0)
    >>> result.results.groupby(["method", "metric"]).size().tolist()  # 3 folds each
    [3, 3, 3, 3]
    >>> sorted(result.predictions), result.predictions["PLST"].Y_pred.shape == ds.Y.shape
    (['BR', 'PLST'], True)
    """
    if not estimators:
        raise ValueError(
            "estimators must be a non-empty dict mapping a display name to an estimator, e.g. "
            "{'PLST': PLST(n_components=4)}."
        )
    for name, est in estimators.items():
        if not hasattr(est, "fit") or not hasattr(est, "predict"):
            raise ValueError(f"estimator {name!r} has no fit/predict methods: got {est!r}.")
    if metrics is not None:
        metrics = list(metrics)
        unknown = [m for m in metrics if m not in METRICS]
        if unknown:
            raise ValueError(f"unknown metric(s) {unknown}; available: {sorted(METRICS)}.")
        if tail_threshold is None and set(metrics) & set(TAIL_KEYS):
            raise ValueError(
                f"metric(s) {sorted(set(metrics) & set(TAIL_KEYS))} need tail_threshold=... "
                "(the relative training frequency below which a label is a tail label)."
            )
    # NaN is each estimator's business: a pipeline's imputer fills it inside every fold, on
    # that fold's training rows (the app's sidebar promises this); an estimator that cannot
    # take NaN fails in its own fit, which on_error reports per method and fold
    X = check_features(X, allow_nan=True)
    Y = check_label_matrix(Y, n_samples=X.shape[0])
    splitter = _resolve_cv(cv, random_state)
    splits = [(np.asarray(tr), np.asarray(te)) for tr, te in splitter.split(X, Y)]
    if not splits:
        raise ValueError(f"the splitter {splitter!r} produced no train/test splits.")
    if return_predictions:
        _check_partition(splits, X.shape[0])

    collect = on_error == "collect"
    tasks = [
        delayed(_fit_and_score)(
            name,
            est,
            X,
            Y,
            train,
            test,
            fold,
            metrics,
            zero_division,
            tail_threshold,
            return_predictions,
            collect,
        )
        for name, est in estimators.items()
        for fold, (train, test) in enumerate(splits)
    ]
    total = len(tasks)
    if progress is not None:
        progress(0, total, f"{len(estimators)} method(s) × {len(splits)} fold(s)")
    try:
        runner = Parallel(n_jobs=n_jobs, return_as="generator_unordered")
    except ValueError:
        # Backends such as multiprocessing or Ray cannot stream results back.
        runner = Parallel(n_jobs=n_jobs, return_as="list")

    records, failures, unscored = [], [], set()
    out_of_fold = _OutOfFold(splits, Y.shape) if return_predictions else None
    for done, outcome in enumerate(runner(tasks), 1):
        if outcome.scores is None:
            failures.append((outcome.name, outcome.fold, outcome.stage, outcome.error))
            status = f"failed during {outcome.stage}"
        else:
            records += [
                (
                    outcome.name,
                    outcome.fold,
                    metric,
                    float(value),
                    outcome.fit_time,
                    outcome.predict_time,
                )
                for metric, value in outcome.scores.items()
            ]
            if out_of_fold is not None:
                out_of_fold.add(outcome)
            if outcome.unscored:
                unscored.add(outcome.name)
            status = "done"
        if progress is not None:
            progress(done, total, f"{outcome.name}: fold {outcome.fold + 1}/{len(splits)} {status}")

    method_rank = {name: i for i, name in enumerate(estimators)}
    df = pd.DataFrame.from_records(records, columns=list(RESULT_COLUMNS))
    # Results arrive in completion order; present them in the order the caller gave.
    metric_rank = df["metric"].map({m: i for i, m in enumerate(dict.fromkeys(df["metric"]))})
    order = np.lexsort(
        (metric_rank.to_numpy(), df["fold"].to_numpy(), df["method"].map(method_rank).to_numpy())
    )
    df = df.iloc[order].reset_index(drop=True)
    if dataset is not None:
        df.insert(0, "dataset", dataset)
    failed = pd.DataFrame.from_records(failures, columns=list(FAILURE_COLUMNS))
    failed = failed.sort_values(
        ["method", "fold"], key=lambda c: c.map(method_rank) if c.name == "method" else c
    ).reset_index(drop=True)
    predictions = (
        out_of_fold.predictions(list(estimators), set(failed["method"]))
        if out_of_fold is not None
        else {}
    )
    reasons = {
        name: (
            f"{name} has neither decision_function nor predict_proba: no ranking of the labels, "
            "so its score-based metrics ("
            + ", ".join(METRICS[m].label for m in EVALUATE_KEYS if METRICS[m].needs_scores)
            + ") are NaN."
        )
        for name in estimators
        if name in unscored
    }
    return CrossValidationResult(df, failed, predictions, reasons)


PER_LABEL_METRICS = {"f1": "F1", "recall": "recall", "precision": "precision", "auc": "AUC"}


@dataclass(frozen=True)
class GridSearchResult:
    """Outcome of :func:`grid_search_cv`.

    Attributes
    ----------
    best_params : dict
        The cell with the best mean score (the first in grid order among equals).
    best_score : float
        Its mean over the folds.
    metric : str
        The score (a name of :func:`mlviz.metrics.evaluate`).
    table : pandas.DataFrame
        One row per cell in grid order: the parameters, then ``mean``, ``sd``, ``n`` of
        ``metric`` over the folds.

    Examples
    --------
    >>> from mlviz import PLST
    >>> from mlviz.evaluation import grid_search_cv
    >>> from mlviz.synthetic import make_planted
    >>> ds, _ = make_planted(n_samples=120, random_state=0)
    >>> result = grid_search_cv(PLST(), {"n_components": [2, 4]}, ds.X, ds.Y,
    ...                         metric="micro_f1", cv=3, random_state=0)
    >>> result.metric, len(result.table), bool(result.best_score == result.table["mean"].max())
    ('micro_f1', 2, True)
    """

    best_params: dict[str, Any]
    best_score: float
    metric: str
    table: pd.DataFrame


def grid_search_cv(
    estimator,
    param_grid: Mapping[str, Sequence[Any]],
    X,
    Y,
    *,
    metric: str = "accuracy",
    cv: int | Any = 5,
    random_state: int | None = 0,
    n_jobs: int | None = None,
    progress: ProgressCallback | None = None,
) -> GridSearchResult:
    """Choose parameters by k-fold cross-validation on (X, Y): every cell of a grid, same folds.

    scikit-learn's :class:`~sklearn.model_selection.ParameterGrid` enumerates the cells and
    :func:`cross_validate` fits a clone of ``estimator`` per cell and fold on the same folds
    (so the cells are compared on equal terms, in parallel, with ``progress``); the best mean
    wins. It is :class:`~sklearn.model_selection.GridSearchCV` with mlviz's multi-label
    metrics and a progress callback, without the refit: callers refit the winner on what
    they choose (the GroPLE paper's Figure 1 protocol: training folds only).

    Parameters
    ----------
    estimator : multi-label estimator (unfitted)
    param_grid : dict of str -> sequence
        Parameter name -> values to try (``estimator.set_params`` names).
    X, Y : features and 0/1 labels
        Only these rows are used (pass the training split).
    metric : str, default="accuracy"
        Name from :func:`mlviz.metrics.evaluate`; larger or smaller is better as
        :data:`mlviz.metrics.METRICS` says.
    cv, random_state, n_jobs, progress
        As in :func:`cross_validate`.

    Returns
    -------
    GridSearchResult

    Examples
    --------
    >>> from mlviz import PLST
    >>> from mlviz.evaluation import grid_search_cv
    >>> from mlviz.synthetic import make_planted
    >>> ds, _ = make_planted(n_samples=120, random_state=0)
    >>> search = grid_search_cv(PLST(), {"n_components": [1, 8]}, ds.X, ds.Y,
    ...                         metric="hamming_loss", cv=3, random_state=0)
    >>> search.table[["n_components", "n"]].values.tolist()  # every cell on the same 3 folds
    [[1, 3], [8, 3]]
    >>> search.best_params  # lower Hamming loss wins
    {'n_components': 8}
    """
    if metric not in METRICS:
        raise ValueError(f"unknown metric {metric!r}; choose one of {sorted(METRICS)}.")
    cells = list(ParameterGrid(dict(param_grid)))
    if not cells:
        raise ValueError("param_grid has no cell: give every parameter at least one value.")
    names = [f"cell {i}" for i in range(len(cells))]
    estimators = {
        name: clone(estimator).set_params(**cell) for name, cell in zip(names, cells, strict=True)
    }
    results = cross_validate(
        estimators,
        X,
        Y,
        cv=cv,
        metrics=[metric],
        random_state=random_state,
        n_jobs=n_jobs,
        progress=progress,
    ).results
    scores = aggregate(results).set_index("method")
    table = pd.DataFrame(cells)
    table["mean"] = [float(scores.loc[name, "mean"]) for name in names]
    table["sd"] = [float(scores.loc[name, "sd"]) for name in names]
    table["n"] = [int(scores.loc[name, "n"]) for name in names]
    means = table["mean"].to_numpy()
    if np.isnan(means).all():
        raise ValueError(f"{metric} is undefined in every fold of every cell.")
    sign = 1.0 if _greater_is_better(metric) else -1.0
    best = int(np.nanargmax(sign * means))
    return GridSearchResult(
        best_params=dict(cells[best]),
        best_score=float(means[best]),
        metric=metric,
        table=table,
    )


@validate_params(
    {
        "predictions": [Mapping],
        "Y": ["array-like", "sparse matrix"],
        "label_names": ["array-like", None],
        "tail_threshold": [_SHARE, StrOptions({"adaptive"}), None],
        "metrics": ["array-like"],
        "zero_division": _ZERO_DIVISION,
        "reasons": [Mapping, None],
    },
    prefer_skip_nested_validation=True,
)
def per_label_comparison(
    predictions: Mapping[str, OutOfFoldPredictions],
    Y,
    *,
    label_names: Sequence[str] | None = None,
    tail_threshold: float | None = None,
    metrics: Sequence[str] = ("f1", "recall"),
    zero_division: float = 0,
    reasons: Mapping[str, pd.DataFrame] | None = None,
) -> pd.DataFrame:
    """Per-label scores of every method side by side, from out-of-fold predictions.

    Parameters
    ----------
    predictions : dict of str -> OutOfFoldPredictions
        ``cross_validate(..., return_predictions=True).predictions``.
    Y : array-like of shape (n_samples, n_labels)
        The labels the cross-validation ran on.
    label_names : sequence of str, optional
        Default ``"0", "1", ...``.
    tail_threshold : float in (0, 1] or "adaptive", optional
        Adds a boolean ``tail`` column (:func:`mlviz.stats.tail_labels` on ``Y``: the fixed
        rule at this share, or its default adaptive rule).
    metrics : sequence of {"f1", "recall", "precision", "auc"}, default=("f1", "recall")
        Columns of :func:`mlviz.metrics.per_label_scores` to show per method ("auc" needs
        scores; NaN for a method without).
    zero_division : {0, 1, nan}, default=0
    reasons : dict of str -> pandas.DataFrame, optional
        Method -> :func:`mlviz.per_label.loss_reasons` (rows in label column order): adds a
        ``"why lost <method>"`` column per method with its ``reason``.

    Returns
    -------
    pandas.DataFrame
        One row per label, rarest first (ties in column order): ``label``, ``frequency``
        (share of all instances carrying it; each fold trains on (k-1)/k of them),
        ``support`` (count), [``tail``], then ``"<metric> <method>"`` columns (e.g.
        ``"F1 PLST"``), then ``"best <first metric>"``: the method(s) with the highest value,
        joined by ", " when tied, "all tied" when every method ties (e.g. all 0).

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.evaluation import OutOfFoldPredictions, per_label_comparison
    >>> Y = np.array([[1, 0], [1, 1], [1, 0], [0, 0]])
    >>> predictions = {"A": OutOfFoldPredictions(Y_pred=np.array([[1, 0], [1, 0], [1, 0], [0, 0]]),
    ...                                          Y_score=None)}
    >>> table = per_label_comparison(predictions, Y, label_names=["x", "y"])
    >>> table["label"].tolist(), table["F1 A"].tolist()  # rarest label first
    (['y', 'x'], [0.0, 1.0])
    """
    if not predictions:
        raise ValueError(
            "per_label_comparison needs the out-of-fold predictions of at least one method: "
            "call cross_validate(..., return_predictions=True)."
        )
    unknown = [m for m in metrics if m not in PER_LABEL_METRICS]
    if unknown or not metrics:
        raise ValueError(
            f"metrics must be a non-empty selection of {sorted(PER_LABEL_METRICS)}; "
            f"got {list(metrics)}."
        )
    Y = check_label_matrix(Y)
    names = [str(j) for j in range(Y.shape[1])] if label_names is None else list(label_names)
    if len(names) != Y.shape[1]:
        raise ValueError(f"{len(names)} label names for {Y.shape[1]} label columns.")
    table = pd.DataFrame(
        {
            "label": names,
            "frequency": label_frequencies(Y, relative=True),
            "support": Y.sum(axis=0, dtype=np.int64),
        }
    )
    if tail_threshold is not None:
        table["tail"] = False
        fixed = None if tail_threshold == "adaptive" else tail_threshold
        table.loc[tail_labels(Y, fixed), "tail"] = True
    # the per-label AUC ranks every score column (seconds at 16k x 1,000): only when asked
    with_auc = "auc" in metrics
    scores = {
        method: per_label_scores(
            Y, oof.Y_pred, Y_score=oof.Y_score if with_auc else None, zero_division=zero_division
        )
        for method, oof in predictions.items()
    }
    for metric in metrics:
        for method, table_of_method in scores.items():
            column = table_of_method[metric].to_numpy() if metric in table_of_method else np.nan
            table[f"{PER_LABEL_METRICS[metric]} {method}"] = column
    if len(predictions) > 1:
        methods = np.asarray(list(predictions), dtype=object)
        values = table[[f"{PER_LABEL_METRICS[metrics[0]]} {m}" for m in methods]].to_numpy(float)
        top = np.max(np.where(np.isnan(values), -np.inf, values), axis=1, keepdims=True)
        best = np.isclose(values, top)  # NaN (undefined) is never best
        table[f"best {PER_LABEL_METRICS[metrics[0]]}"] = [
            "all tied" if row.all() else ", ".join(methods[row]) if row.any() else "undefined"
            for row in best
        ]
    for method, why in (reasons or {}).items():
        if len(why) != len(table):
            raise ValueError(f"reasons of {method!r} have {len(why)} rows for {len(table)} labels.")
        table[f"why lost {method}"] = why["reason"].to_numpy()
    return table.sort_values("frequency", kind="stable").reset_index(drop=True)


@contextmanager
def dask_backend(address: str | None = None, **client_options) -> Iterator[Any]:
    """Run :func:`cross_validate` (any joblib work) on a Dask cluster inside this block.

    Connects a :class:`dask.distributed.Client` to the scheduler at ``address`` (e.g.
    ``"tcp://scheduler-host:8786"``; None starts a local cluster) and selects joblib's
    ``dask`` backend, so every (method, fold) becomes a task on the workers. Results stream
    back, so progress callbacks still fire as folds finish. Dask is an optional dependency
    (``pip install "mlviz[dask]"``), imported only here.

    Yields
    ------
    dask.distributed.Client
        The connected client; it is closed when the block ends.

    Examples
    --------
    >>> from mlviz.evaluation import dask_backend
    >>> with dask_backend(processes=False, n_workers=1, threads_per_worker=1,
    ...                   dashboard_address=None) as client:  # an in-process cluster (mlviz[dask])
    ...     print(client.status, len(client.scheduler_info()["workers"]))
    running 1
    """
    try:
        from dask.distributed import Client
    except ImportError as err:
        raise ImportError(
            "running on Dask needs the optional dependency dask[distributed]: "
            'pip install "mlviz[dask]" (on the client and on every worker).'
        ) from err
    from joblib import parallel_config

    with Client(address, **client_options) as client, parallel_config(backend="dask"):
        yield client


# ----------------------------------------------------------------------------- summaries


def _group_keys(df: pd.DataFrame) -> list[str]:
    missing = {"method", "metric", "value"} - set(df.columns)
    if missing:
        raise ValueError(
            f"results table lacks column(s) {sorted(missing)}; pass the table "
            "cross_validate(...).results (columns method, fold, metric, value, ...)."
        )
    return ["dataset", "method"] if "dataset" in df.columns else ["method"]


@validate_params({"df": [pd.DataFrame]}, prefer_skip_nested_validation=True)
def aggregate(df: pd.DataFrame) -> pd.DataFrame:
    """Mean, sample standard deviation (ddof=1), standard error and count per method and metric.

    Parameters
    ----------
    df : pandas.DataFrame
        Tidy table of :func:`cross_validate` (its ``results``), optionally with a
        ``dataset`` column.

    Returns
    -------
    pandas.DataFrame
        Columns ``[dataset,] method, metric, mean, sd, se, n`` (pandas' mean, std, sem and
        count); ``se = sd / sqrt(n)``, the PLST paper's "standard error" over its 20
        partitions. NaN values (a metric undefined in a fold) are left out, and ``n`` counts
        the folds where the metric is defined.

    Examples
    --------
    >>> import pandas as pd
    >>> results = pd.DataFrame({"method": ["A", "A", "B", "B"], "fold": [0, 1, 0, 1],
    ...                         "metric": "hamming_loss", "value": [0.1, 0.2, 0.3, 0.3]})
    >>> from mlviz.evaluation import aggregate
    >>> aggregate(results)[["method", "mean", "n"]].round(3).to_dict("records")
    [{'method': 'A', 'mean': 0.15, 'n': 2}, {'method': 'B', 'mean': 0.3, 'n': 2}]
    """
    keys = _group_keys(df) + ["metric"]
    out = df.groupby(keys, sort=False)["value"].agg(["mean", "std", "sem", "count"])
    out = out.rename(columns={"std": "sd", "sem": "se", "count": "n"}).reset_index()
    return out[keys + ["mean", "sd", "se", "n"]]


@validate_params(
    {
        "df": [pd.DataFrame],
        "spread": [StrOptions({"sd", "se"})],
        "decimals": [Interval(Integral, 0, None, closed="left"), None],
    },
    prefer_skip_nested_validation=True,
)
def summarize(df: pd.DataFrame, spread: str = "sd", *, decimals: int | None = None) -> pd.DataFrame:
    """Wide display table: rows method (or data set, method), columns metric, "mean ± spread".

    Parameters
    ----------
    df : pandas.DataFrame
        Tidy table of :func:`cross_validate` (its ``results``).
    spread : {"sd", "se"}, default="sd"
        Sample standard deviation over folds (the ML-KNN and GroPLE papers) or standard
        error of the mean (the PLST paper).
    decimals : int or None, default=None
        Decimals of every cell; None gives each metric its own
        (:attr:`mlviz.metrics.MetricInfo.decimals`: 4 for the rates in [0, 1], 3 for
        coverage and the hard rank loss, which count labels or pairs) and 4 to a metric
        mlviz does not know. Thousands are separated by commas.

    Returns
    -------
    pandas.DataFrame of str
        "—" where the metric is undefined in every fold (e.g. tail macro F1 when no label is
        rare); a mean over the folds where it is defined otherwise (see :func:`aggregate`).

    Examples
    --------
    >>> import pandas as pd
    >>> results = pd.DataFrame({"method": ["A", "A", "B", "B"], "fold": [0, 1, 0, 1],
    ...                         "metric": "hamming_loss", "value": [0.1, 0.2, 0.3, 0.3]})
    >>> from mlviz.evaluation import summarize
    >>> summarize(results, decimals=2)["hamming_loss"].tolist()
    ['0.15 ± 0.07', '0.30 ± 0.00']
    >>> coverage = results.assign(metric="coverage", value=[859.42, 861.0, 7.0, 7.5])
    >>> summarize(coverage)["coverage"].tolist()
    ['860.210 ± 1.117', '7.250 ± 0.354']
    """
    agg = aggregate(df)
    keys = _group_keys(df)
    places = [
        decimals if decimals is not None else METRICS[m].decimals if m in METRICS else 4
        for m in agg["metric"]
    ]
    agg["cell"] = [
        "—"
        if not np.isfinite(m)
        else f"{m:,.{d}f} ± {s:,.{d}f}"
        if np.isfinite(s)
        else f"{m:,.{d}f}"
        for m, s, d in zip(agg["mean"], agg[spread], places, strict=True)
    ]
    wide = agg.pivot(index=keys, columns="metric", values="cell")
    # pivot sorts alphabetically; keep the order of the results instead.
    rows = agg[keys].drop_duplicates()
    row_index = pd.MultiIndex.from_frame(rows) if len(keys) > 1 else pd.Index(rows[keys[0]])
    wide = wide.reindex(index=row_index, columns=list(dict.fromkeys(agg["metric"])))
    wide.columns.name = None
    return wide


@validate_params(
    {
        "df": [pd.DataFrame],
        "decimals": [Interval(Integral, 0, None, closed="left"), None],
        "greater_is_better": [Mapping, None],
    },
    prefer_skip_nested_validation=True,
)
def rank_table(
    df: pd.DataFrame,
    *,
    decimals: int | None = None,
    greater_is_better: Mapping[str, bool] | None = None,
) -> pd.DataFrame:
    """Rank the methods per data set and metric, rank 1 best, tied means sharing the average rank.

    Parameters
    ----------
    df : pandas.DataFrame
        Tidy results with a ``dataset`` column (e.g. several :func:`cross_validate` ``results``
        concatenated, each called with ``dataset=...``).
    decimals : int, optional
        Round the means to this many decimals before ranking. The GroPLE paper ranks the
        values it prints (3 decimals), so equal printed values tie; ``None`` ranks exact means.
    greater_is_better : dict of str -> bool, optional
        Direction per metric; default from ``mlviz.metrics.METRICS``.

    Returns
    -------
    pandas.DataFrame
        Index (metric, dataset), one column per method, values the ranks. Average ranks per
        metric: ``rank_table(df).groupby(level="metric").mean()``.

    Examples
    --------
    >>> import pandas as pd
    >>> results = pd.DataFrame({"dataset": ["d1"] * 3 + ["d2"] * 3 + ["d3"] * 3,
    ...                         "method": ["A", "B", "C"] * 3, "metric": "micro_f1",
    ...                         "value": [0.5, 0.6, 0.7, 0.4, 0.5, 0.6, 0.3, 0.5, 0.4]})
    >>> from mlviz.evaluation import rank_table
    >>> rank_table(results).groupby(level="metric").mean().round(3).to_dict("records")
    [{'A': 3.0, 'B': 1.667, 'C': 1.333}]
    """
    if "dataset" not in df.columns:
        raise ValueError(
            "rank_table needs a 'dataset' column: call cross_validate(..., dataset=name) per "
            "data set and concatenate the results."
        )
    means = aggregate(df)
    if decimals is not None:
        means["mean"] = means["mean"].round(decimals)
    frames = []
    for metric, part in means.groupby("metric", sort=False):
        wide = part.pivot(index="dataset", columns="method", values="mean")
        ascending = not _greater_is_better(str(metric), greater_is_better)
        ranks = wide.rank(axis=1, method="average", ascending=ascending)
        ranks.index = pd.MultiIndex.from_product(
            [[metric], ranks.index], names=["metric", "dataset"]
        )
        frames.append(ranks)
    out = pd.concat(frames)
    out = out[list(dict.fromkeys(df["method"]))]
    out.columns.name = None
    return out


# ----------------------------------------------------------------------------- Friedman / Nemenyi


@validate_params(
    {"n_methods": [Interval(Integral, 2, None, closed="left")], "alpha": [_ALPHA]},
    prefer_skip_nested_validation=True,
)
def nemenyi_q_alpha(n_methods: int, alpha: float = 0.05) -> float:
    """Critical value q_α of the Nemenyi test: the studentized range quantile over √2.

    Demšar (2006), Table 5(a): 1.960, 2.343, 2.569, ... for k = 2, 3, 4, ... at α = 0.05.

    Examples
    --------
    >>> from mlviz.evaluation import nemenyi_q_alpha
    >>> round(nemenyi_q_alpha(3), 3)  # Demsar (2006) Table 5: 2.343
    2.344
    """
    return float(stats.studentized_range.ppf(1.0 - alpha, n_methods, np.inf) / math.sqrt(2.0))


@validate_params(
    {
        "n_methods": [Interval(Integral, 2, None, closed="left")],
        "n_datasets": [Interval(Integral, 1, None, closed="left")],
        "alpha": [_ALPHA],
    },
    prefer_skip_nested_validation=True,
)
def nemenyi_critical_difference(n_methods: int, n_datasets: int, *, alpha: float = 0.05) -> float:
    """Nemenyi critical difference CD = q_α √(k(k+1) / (6N)) (Demšar 2006, §3.2.2).

    Examples
    --------
    >>> from mlviz.evaluation import nemenyi_critical_difference
    >>> # q_0.05 sqrt(k (k + 1) / (6 N)) = 2.344 * sqrt(3 * 4 / (6 * 10))
    >>> round(nemenyi_critical_difference(n_methods=3, n_datasets=10), 3)
    1.048
    """
    q = nemenyi_q_alpha(n_methods, alpha)
    return q * math.sqrt(n_methods * (n_methods + 1) / (6.0 * n_datasets))


@validate_params(
    {"average_ranks": [Mapping], "cd": [Interval(Real, 0, None, closed="left")]},
    prefer_skip_nested_validation=True,
)
def nemenyi_groups(average_ranks: Mapping[str, float], cd: float) -> list[list[str]]:
    """Maximal groups of methods whose average ranks all lie less than ``cd`` apart.

    These are the thick bars of a CD diagram: methods joined by one are not significantly
    different. Groups contained in another group, and single methods, are left out.

    Examples
    --------
    >>> from mlviz.evaluation import nemenyi_groups
    >>> nemenyi_groups({"a": 1.0, "b": 1.5, "c": 3.0}, cd=1.0)
    [['a', 'b']]
    """
    ordered = sorted(average_ranks.items(), key=lambda kv: kv[1])
    names = [n for n, _ in ordered]
    ranks = np.array([r for _, r in ordered], dtype=float)
    groups: list[list[str]] = []
    last_end = -1
    for i in range(len(names)):
        j = i
        while j + 1 < len(names) and ranks[j + 1] - ranks[i] < cd:
            j += 1
        if j > i and j > last_end:
            groups.append(names[i : j + 1])
            last_end = j
    return groups


@dataclass(frozen=True)
class FriedmanNemenyiResult:
    """Outcome of :func:`friedman_nemenyi`.

    Attributes
    ----------
    statistic : float
        Friedman χ²_F.
    pvalue : float
        p-value of χ²_F against χ² with k − 1 degrees of freedom.
    iman_davenport : float
        F_F = (N − 1) χ²_F / (N(k − 1) − χ²_F), the statistic the GroPLE paper's Table 3 reports.
    f_critical : float
        Critical value of F with (k − 1, (k − 1)(N − 1)) degrees of freedom at ``alpha``.
    f_pvalue : float
    q_alpha, critical_difference : float
        Nemenyi q_α and CD.
    average_ranks : pandas.Series
        Per method, best (lowest) first.
    ranks : pandas.DataFrame
        Rank of each method (columns) on each data set (rows).
    groups : list of list of str
        Methods not significantly different from each other (:func:`nemenyi_groups`).

    Examples
    --------
    >>> import pandas as pd
    >>> results = pd.DataFrame({"dataset": ["d1"] * 3 + ["d2"] * 3 + ["d3"] * 3,
    ...                         "method": ["A", "B", "C"] * 3, "metric": "micro_f1",
    ...                         "value": [0.5, 0.6, 0.7, 0.4, 0.5, 0.6, 0.3, 0.5, 0.4]})
    >>> from mlviz.evaluation import friedman_nemenyi
    >>> result = friedman_nemenyi(results, metric="micro_f1")
    >>> result.n_datasets, result.n_methods, result.alpha
    (3, 3, 0.05)
    """

    statistic: float
    pvalue: float
    iman_davenport: float
    f_critical: float
    f_pvalue: float
    q_alpha: float
    critical_difference: float
    average_ranks: pd.Series
    ranks: pd.DataFrame
    n_datasets: int
    n_methods: int
    alpha: float
    tie_correction: bool
    groups: list[list[str]] = field(default_factory=list)

    @property
    def rejected(self) -> bool:
        """Whether the Friedman test rejects "all methods perform equally" at ``alpha``."""
        return self.pvalue < self.alpha


def _score_matrix(results: pd.DataFrame, metric: str | None) -> tuple[pd.DataFrame, str | None]:
    if {"dataset", "method", "metric", "value"} <= set(results.columns):
        available = list(dict.fromkeys(results["metric"]))
        if metric is None:
            if len(available) != 1:
                raise ValueError(
                    f"results hold several metrics {available}; choose one with metric=..."
                )
            metric = available[0]
        if metric not in available:
            raise ValueError(f"metric {metric!r} not in the results; available: {available}.")
        part = aggregate(results[results["metric"] == metric])
        wide = part.pivot(index="dataset", columns="method", values="mean")
        return wide[list(dict.fromkeys(part["method"]))], metric
    return results, metric


@validate_params(
    {
        "results": [pd.DataFrame],
        "metric": [str, None],
        "alpha": [_ALPHA],
        "greater_is_better": ["boolean", None],
        "tie_correction": ["boolean"],
    },
    prefer_skip_nested_validation=True,
)
def friedman_nemenyi(
    results: pd.DataFrame,
    *,
    metric: str | None = None,
    alpha: float = 0.05,
    greater_is_better: bool | None = None,
    tie_correction: bool = True,
) -> FriedmanNemenyiResult:
    """Friedman test over data sets followed by the Nemenyi critical difference (Demšar 2006).

    Parameters
    ----------
    results : pandas.DataFrame
        Either a score matrix (rows data sets, columns methods) or the tidy ``results`` of
        :func:`cross_validate` with a ``dataset`` column, whose fold means are used.
    metric : str, optional
        Metric to test when ``results`` is tidy (required if it holds several).
    alpha : float, default=0.05
    greater_is_better : bool, optional
        Direction of the scores; default from ``mlviz.metrics.METRICS`` for tidy input with a
        named metric, else True.
    tie_correction : bool, default=True
        True: χ²_F from :func:`scipy.stats.friedmanchisquare`, which corrects for tied ranks.
        False: Demšar's Eq. χ²_F = 12N/(k(k+1)) [Σ_j R_j² − k(k+1)²/4] without the correction,
        which is what the GroPLE paper's Table 3 used (its F_F = 7.758 for accuracy is
        reproduced only without it; with it the value is 8.003).

    Returns
    -------
    FriedmanNemenyiResult

    Examples
    --------
    >>> import pandas as pd
    >>> results = pd.DataFrame({"dataset": ["d1"] * 3 + ["d2"] * 3 + ["d3"] * 3,
    ...                         "method": ["A", "B", "C"] * 3, "metric": "micro_f1",
    ...                         "value": [0.5, 0.6, 0.7, 0.4, 0.5, 0.6, 0.3, 0.5, 0.4]})
    >>> from mlviz.evaluation import friedman_nemenyi
    >>> result = friedman_nemenyi(results, metric="micro_f1")
    >>> result.average_ranks.round(3).to_dict(), round(result.critical_difference, 3)
    ({'C': 1.333, 'B': 1.667, 'A': 3.0}, 1.914)
    """
    scores, metric = _score_matrix(results, metric)
    if scores.isna().any().any():
        missing = scores.columns[scores.isna().any()].tolist()
        raise ValueError(
            f"the score matrix has missing values for method(s) {missing}: every method needs a "
            "result on every data set for the Friedman test (drop the data set or the method)."
        )
    n_datasets, n_methods = scores.shape
    if n_methods < 3:
        raise ValueError(
            f"the Friedman test needs at least 3 methods (got {n_methods}); compare two "
            "methods with scipy.stats.wilcoxon over data sets instead."
        )
    if n_datasets < 2:
        raise ValueError(f"the Friedman test needs at least 2 data sets; got {n_datasets}.")
    if greater_is_better is None:
        greater_is_better = _greater_is_better(metric) if metric is not None else True
    ranks = scores.rank(axis=1, method="average", ascending=not greater_is_better)
    average_ranks = ranks.mean(axis=0)
    if tie_correction:
        statistic, pvalue = stats.friedmanchisquare(*ranks.to_numpy().T)
    else:
        k, n = n_methods, n_datasets
        statistic = (
            12.0
            * n
            / (k * (k + 1))
            * (float(np.sum(average_ranks.to_numpy() ** 2)) - k * (k + 1) ** 2 / 4.0)
        )
        pvalue = stats.chi2.sf(statistic, k - 1)
    dfn, dfd = n_methods - 1, (n_methods - 1) * (n_datasets - 1)
    denominator = n_datasets * (n_methods - 1) - statistic
    # All data sets ranking the methods identically makes the denominator 0: F_F is infinite.
    f_stat = (n_datasets - 1) * statistic / denominator if denominator > 0 else math.inf
    cd = nemenyi_critical_difference(n_methods, n_datasets, alpha=alpha)
    average_ranks = average_ranks.sort_values(kind="stable")
    return FriedmanNemenyiResult(
        statistic=float(statistic),
        pvalue=float(pvalue),
        iman_davenport=float(f_stat),
        f_critical=float(stats.f.ppf(1.0 - alpha, dfn, dfd)),
        f_pvalue=float(stats.f.sf(f_stat, dfn, dfd)) if math.isfinite(f_stat) else 0.0,
        q_alpha=nemenyi_q_alpha(n_methods, alpha),
        critical_difference=cd,
        average_ranks=average_ranks,
        ranks=ranks,
        n_datasets=n_datasets,
        n_methods=n_methods,
        alpha=alpha,
        tie_correction=tie_correction,
        groups=nemenyi_groups(average_ranks.to_dict(), cd),
    )

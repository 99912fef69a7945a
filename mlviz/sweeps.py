"""Train/test sweeps over one parameter: the curves of the PLST, GroPLE and Compare views.

``cross_validate`` (mlviz.evaluation) answers "how good is each method"; a sweep answers
"how does one method change as its dimension or regularisation changes" on one split, which
is what a slider-driven view needs (PLST paper Figs. 2 and 9, GroPLE paper Fig. 5).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator

from mlviz.linear import is_truncatable
from mlviz.metrics import Evaluator

ProgressCallback = Callable[[int, int, str], None]


def _scores(estimator, X) -> np.ndarray | None:
    for name in ("decision_function", "predict_proba"):
        method = getattr(estimator, name, None)
        if method is not None:
            return np.asarray(method(X), dtype=np.float64)
    return None


def ideal_decoding(estimator, Y) -> np.ndarray:
    """Labels decoded from the *exact* codes of Y: the ideal learner of PLST paper Fig. 2.

    With a perfect regressor the prediction is round(o + Pᵀ P (y − o)), so what is left
    of the loss is the encoding error alone.

    Examples
    --------
    >>> from mlviz.synthetic import make_planted
    >>> ds, groups = make_planted(n_samples=150, random_state=0)
    >>> X, Y = ds.X, ds.Y
    >>> from mlviz.linear import PLST
    >>> from mlviz.sweeps import ideal_decoding
    >>> ideal_decoding(PLST(22).fit(X, Y), Y).shape
    (150, 22)
    >>> bool((ideal_decoding(PLST(22).fit(X, Y), Y) == Y).all())  # all M kept: Y comes back
    True
    """
    codes = estimator.transform_labels(Y)
    decoded = estimator.inverse_transform_labels(codes)
    return (np.asarray(decoded) >= 0.5).astype(np.uint8)


def _same_params(first, second, *, ignore: str) -> bool:
    """Whether two estimators are configured alike apart from the parameter ``ignore``."""
    if type(first) is not type(second):
        return False
    a, b = first.get_params(deep=False), second.get_params(deep=False)
    if a.keys() != b.keys():
        return False
    return all(_same_value(a[key], b[key]) for key in a if key != ignore)


def _same_value(first, second) -> bool:
    if hasattr(first, "get_params") and hasattr(second, "get_params"):
        return _same_params(first, second, ignore="")
    if isinstance(first, np.ndarray) or isinstance(second, np.ndarray):
        return np.array_equal(first, second)
    try:
        return bool(first == second)
    except (TypeError, ValueError):
        return first is second


def _truncation_parent(estimators: list[BaseEstimator | None]) -> BaseEstimator | None:
    """The estimator with the largest M from which all the others can be cut, or None.

    Only when every estimator is truncatable (:func:`mlviz.linear.is_truncatable`) and they
    are configured alike apart from ``n_components``.
    """
    models = [est for est in estimators if est is not None]
    if not models or not all(is_truncatable(est) for est in models):
        return None
    if any(est.n_components is None for est in models):
        return None  # M = L is known only at fit: fit each model (correct, just slower)
    parent = max(models, key=lambda est: est.n_components)
    if all(_same_params(est, parent, ignore="n_components") for est in models):
        return parent
    return None


def parameter_sweep(
    factories: Mapping[str, Callable[[Any], BaseEstimator]],
    values: Iterable[Any],
    X_train,
    Y_train,
    X_test,
    Y_test,
    *,
    param: str = "M",
    ideal: bool = False,
    ranking: bool = True,
    progress: ProgressCallback | None = None,
) -> pd.DataFrame:
    """Fit ``factories[method](value)`` on the training split for every value; score on test.

    When a method's estimators differ only in ``n_components`` and are truncatable (PLST,
    PLST-Origin, PBR, CPLST with a ridge or least-squares regressor, see
    :func:`mlviz.linear.is_truncatable`), the one with the largest M is fitted once and every
    smaller M is obtained with ``truncate(M)``: the same predictions as refitting per M
    (the basis does not depend on M and the regressor is linear per output), one fit instead
    of one per value.

    Parameters
    ----------
    factories : mapping of method name -> callable(value) -> unfitted estimator
        A factory may return None for a value it does not support (e.g. M > L); that value
        is skipped for that method.
    values : iterable
        Parameter values, e.g. embedding dimensions M.
    ideal : bool
        Also score the ideal learner (exact codes, see :func:`ideal_decoding`) for methods
        that have ``transform_labels`` / ``inverse_transform_labels``.
    ranking : bool, default=True
        Also score the ranking metrics from the estimators' scores. A view that shows only
        bipartition metrics should pass False: with ~1,000 labels the per-label macro AUC
        costs far more than the fits (``benchmarks/bench_scale.py``).
    progress : callable(done, total, message), optional

    Returns
    -------
    DataFrame
        Tidy: method, <param>, kind ("learned" or "ideal"), metric, value.

    Examples
    --------
    >>> from mlviz.synthetic import make_planted
    >>> ds, groups = make_planted(n_samples=150, random_state=0)
    >>> X, Y = ds.X, ds.Y
    >>> from mlviz.linear import PLST
    >>> from mlviz.sweeps import parameter_sweep
    >>> table = parameter_sweep({"PLST": lambda M: PLST(M)}, [2, 4], X[:100], Y[:100],
    ...                         X[100:], Y[100:], param="M")
    >>> sorted(table["M"].unique().tolist()), sorted(table["kind"].unique().tolist())
    ([2, 4], ['learned'])
    """
    values = list(values)
    total = len(values) * len(factories)
    # every (method, value) is scored against the same test labels: check and count them once
    evaluator = Evaluator(Y_test)
    rows: list[dict[str, Any]] = []
    done = 0
    for method, factory in factories.items():
        estimators = [(value, factory(value)) for value in values]
        parent = _truncation_parent([est for _, est in estimators])
        fitted_parent = None
        for value, estimator in estimators:
            done += 1
            if progress is not None:
                progress(done, total, f"{method}, {param} = {value}")
            if estimator is None:
                continue
            if parent is not None:
                if fitted_parent is None:
                    fitted_parent = parent.fit(X_train, Y_train)
                estimator = fitted_parent.truncate(estimator.n_components)
            else:
                estimator.fit(X_train, Y_train)
            label_scores = _scores(estimator, X_test) if ranking else None
            scores = evaluator.score(estimator.predict(X_test), label_scores)
            rows += [
                {"method": method, param: value, "kind": "learned", "metric": k, "value": v}
                for k, v in scores.items()
            ]
            if ideal and hasattr(estimator, "transform_labels"):
                ideal_scores = evaluator.score(ideal_decoding(estimator, Y_test))
                rows += [
                    {"method": method, param: value, "kind": "ideal", "metric": k, "value": v}
                    for k, v in ideal_scores.items()
                ]
    return pd.DataFrame(rows, columns=["method", param, "kind", "metric", "value"])

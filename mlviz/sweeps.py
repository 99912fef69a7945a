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

from mlviz.metrics import evaluate

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
    """
    codes = estimator.transform_labels(Y)
    decoded = estimator.inverse_transform_labels(codes)
    return (np.asarray(decoded) >= 0.5).astype(np.uint8)


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
    progress: ProgressCallback | None = None,
) -> pd.DataFrame:
    """Fit ``factories[method](value)`` on the training split for every value; score on test.

    Parameters
    ----------
    factories : mapping of method name -> callable(value) -> unfitted estimator
        A factory may return None for a value it does not support (e.g. M > K); that value
        is skipped for that method.
    values : iterable
        Parameter values, e.g. embedding dimensions M.
    ideal : bool
        Also score the ideal learner (exact codes, see :func:`ideal_decoding`) for methods
        that have ``transform_labels`` / ``inverse_transform_labels``.
    progress : callable(done, total, message), optional

    Returns
    -------
    DataFrame
        Tidy: method, <param>, kind ("learned" or "ideal"), metric, value.
    """
    values = list(values)
    total = len(values) * len(factories)
    rows: list[dict[str, Any]] = []
    done = 0
    for method, factory in factories.items():
        for value in values:
            estimator = factory(value)
            done += 1
            if progress is not None:
                progress(done, total, f"{method}, {param} = {value}")
            if estimator is None:
                continue
            estimator.fit(X_train, Y_train)
            scores = evaluate(Y_test, estimator.predict(X_test), _scores(estimator, X_test))
            rows += [
                {"method": method, param: value, "kind": "learned", "metric": k, "value": v}
                for k, v in scores.items()
            ]
            if ideal and hasattr(estimator, "transform_labels"):
                ideal_scores = evaluate(Y_test, ideal_decoding(estimator, Y_test))
                rows += [
                    {"method": method, param: value, "kind": "ideal", "metric": k, "value": v}
                    for k, v in ideal_scores.items()
                ]
    return pd.DataFrame(rows, columns=["method", param, "kind", "metric", "value"])

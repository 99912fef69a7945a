"""The one place mlviz touches scikit-learn's private API.

scikit-learn's parameter validation (``Interval``, ``StrOptions``, ``validate_params``, ...)
and ``_fit_context`` are what its own estimators use for ``_parameter_constraints``, but they
live in private modules (``sklearn.utils._param_validation``, ``sklearn.base``) that may move
between releases. Every mlviz module and test imports them from here, so a scikit-learn
upgrade that moves them is fixed in this file alone (``tests/test_architecture.py`` checks
that no other module imports a private scikit-learn module or name).
"""

from __future__ import annotations

from sklearn.base import _fit_context
from sklearn.utils._param_validation import (
    HasMethods,
    Interval,
    InvalidParameterError,
    Options,
    StrOptions,
    validate_params,
)

__all__ = [
    "HasMethods",
    "Interval",
    "InvalidParameterError",
    "Options",
    "StrOptions",
    "_fit_context",
    "validate_params",
]

"""Feature preprocessing shared by the app's train/test split and its cross-validation.

One place decides what "feature scaling" means, so that a model page (fitted on the sidebar's
split) and the Compare page (cross-validated on the whole data set) transform features the
same way, always fitted on training rows only: on a split by :func:`fit_transform_split`, in
cross-validation by putting the same steps in a :class:`~sklearn.pipeline.Pipeline` in front
of each estimator (:func:`with_feature_steps`), so every fold fits them on its own training
part. The steps are scikit-learn's; this module only chooses and orders them.

Scalings (:data:`FEATURE_SCALINGS`):

``"none"``
    Features as loaded.
``"standardise"``
    Each feature to zero mean and unit variance (:class:`~sklearn.preprocessing.StandardScaler`;
    sparse features are only scaled, so their zeros stay zeros).
``"unit_rows"``
    Each instance's feature vector to unit Euclidean length
    (:class:`~sklearn.preprocessing.Normalizer`), the usual choice for bag-of-words features,
    where a long document otherwise gets large scores for every label. Measured on enron
    (docs/GROPLE.md): GroPLE's five-fold accuracy 0.344 as loaded, 0.430 with unit rows.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.impute import SimpleImputer
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import Normalizer, StandardScaler

from mlviz._compat import StrOptions, validate_params

__all__ = ["FEATURE_SCALINGS", "feature_steps", "fit_transform_split", "with_feature_steps"]

#: The feature scalings, in the order an app offers them.
FEATURE_SCALINGS: tuple[str, ...] = ("none", "standardise", "unit_rows")

_SCALING = [StrOptions(set(FEATURE_SCALINGS))]


@validate_params(
    {"scaling": _SCALING, "sparse": ["boolean"], "impute": ["boolean"]},
    prefer_skip_nested_validation=True,
)
def feature_steps(scaling: str, *, sparse: bool, impute: bool) -> list[Any]:
    """The unfitted scikit-learn transformers for a scaling, in the order they apply.

    Parameters
    ----------
    scaling : {"none", "standardise", "unit_rows"}
        See the module docstring.
    sparse : bool
        Whether the features are a sparse matrix (standardising then keeps zeros: no
        centring).
    impute : bool
        Whether missing values (NaN) are to be filled first, with the training mean of each
        feature (a feature with no training value becomes 0).

    Returns
    -------
    list of transformers
        Empty for ``"none"`` without imputation.

    Examples
    --------
    >>> from mlviz.preprocessing import feature_steps
    >>> [type(step).__name__ for step in feature_steps("standardise", sparse=False, impute=True)]
    ['SimpleImputer', 'StandardScaler']
    """
    steps: list[Any] = []
    if impute:
        steps.append(SimpleImputer(strategy="mean", keep_empty_features=True))
    if scaling == "standardise":
        steps.append(StandardScaler(with_mean=not sparse))
    elif scaling == "unit_rows":
        steps.append(Normalizer(norm="l2"))
    return steps


def with_feature_steps(estimator: Any, scaling: str, *, sparse: bool, impute: bool) -> Any:
    """``estimator`` behind the steps of :func:`feature_steps` (itself when there are none).

    Examples
    --------
    >>> from sklearn.linear_model import Ridge
    >>> from mlviz.preprocessing import with_feature_steps
    >>> model = with_feature_steps(Ridge(), scaling="unit_rows", sparse=False, impute=False)
    >>> [name for name, _ in model.steps]  # doctest: +ELLIPSIS
    [..., 'ridge']
    """
    steps = feature_steps(scaling, sparse=sparse, impute=impute)
    return make_pipeline(*steps, estimator) if steps else estimator


def fit_transform_split(
    X_train: Any, X_test: Any, scaling: str, *, impute: bool
) -> tuple[Any, Any]:
    """Fit the steps on ``X_train`` and transform both sides of a train/test split.

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.preprocessing import fit_transform_split
    >>> X_train, X_test = np.array([[1.0, 2.0], [3.0, 6.0]]), np.array([[2.0, 4.0]])
    >>> train, test = fit_transform_split(X_train, X_test, scaling="standardise", impute=False)
    >>> train.tolist(), test.tolist()
    ([[-1.0, -1.0], [1.0, 1.0]], [[0.0, 0.0]])
    """
    for step in feature_steps(scaling, sparse=sp.issparse(X_train), impute=impute):
        X_train = step.fit_transform(X_train)
        X_test = step.transform(X_test)
    return X_train, X_test


def has_missing(X: Any) -> bool:
    """Whether a dense or sparse feature matrix holds a NaN.

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.preprocessing import has_missing
    >>> has_missing(np.array([[1.0, np.nan]])), has_missing(np.eye(2))
    (True, False)
    """
    values = X.data if sp.issparse(X) else np.asarray(X)
    return bool(np.isnan(values).any())

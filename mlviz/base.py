"""What every mlviz multi-label estimator shares: scikit-learn tags and fit-input checks."""

from __future__ import annotations

from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from mlviz._validation import check_features, check_label_matrix


class MultiLabelEstimator(BaseEstimator):
    """Base class: a multi-label estimator taking X (dense or CSR) and a 0/1 matrix Y.

    Subclasses call :meth:`_validate_fit` in ``fit`` and :meth:`_validate_predict` in
    ``predict``/``decision_function``. Both set/check ``n_features_in_`` and
    ``n_labels_`` the way scikit-learn's own estimators do.
    """

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.target_tags.multi_output = True
        tags.target_tags.single_output = False
        tags.input_tags.sparse = True
        return tags

    def _validate_fit(self, X, Y):
        if Y is None:
            raise ValueError(
                f"{type(self).__name__} requires y to be passed, but the target y is None: "
                "pass the 0/1 label matrix Y as the second argument of fit."
            )
        X = check_features(X)
        Y = check_label_matrix(Y, n_samples=X.shape[0])
        self.n_features_in_ = X.shape[1]
        self.n_labels_ = Y.shape[1]
        return X, Y

    def _validate_predict(self, X):
        check_is_fitted(self)
        X = check_features(X)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X has {X.shape[1]} features, but {type(self).__name__} is expecting "
                f"{self.n_features_in_} features as input."
            )
        return X

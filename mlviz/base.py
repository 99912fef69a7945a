"""What every mlviz multi-label estimator shares: the scikit-learn classifier API.

Every estimator is a scikit-learn *multi-label classifier*: ``fit(X, y)`` with a 0/1 label
indicator matrix ``y`` of shape (n_samples, n_labels), ``predict`` returning a matrix of the
same shape and dtype as ``y``, ``classes_`` (``array([0, 1])`` per label), ``score`` = subset
accuracy (:class:`~sklearn.base.ClassifierMixin`), and tags that declare a multi-label,
multi-output classifier, so scikit-learn's model selection, pipelines and estimator checks
treat it as one.

A 1-D ``y`` is accepted as a single label column and then handled with scikit-learn's
binary-classifier conventions (1-D ``predict`` and ``decision_function``, ``predict_proba`` of
shape (n_samples, 2), ``classes_`` one array): scikit-learn's classifier checks fit on 1-D
binary targets, and a one-label problem is a legitimate (if degenerate) multi-label problem.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from mlviz._validation import check_multilabel_target


class MultiLabelEstimator(ClassifierMixin, BaseEstimator):
    """Base class: a multi-label classifier taking X (dense or CSR) and a 0/1 matrix y.

    Subclasses call :meth:`_validate_fit` at the start of ``fit`` and
    :meth:`_validate_predict` at the start of every prediction method, and return their
    0/1 decisions through :meth:`_format_labels` and real-valued scores through
    :meth:`_format_scores`. These set and check ``n_features_in_``, ``feature_names_in_``
    (for DataFrames), ``n_labels_`` and ``classes_`` the way scikit-learn's own estimators do.

    Attributes
    ----------
    classes_ : ndarray of shape (n_labels, 2), or of shape (2,) when y was 1-D
        ``classes_[k]`` is ``array([0, 1])`` (in the dtype of ``y``), the classes of label k:
        scikit-learn's "one class listing per output" of a multi-output classifier. It is an
        array rather than a list because ``cross_val_predict`` reads ``classes_.shape[0]`` as
        the number of labels when it collects a ``decision_function`` or ``predict_proba``
        of shape (n_samples, n_labels). Both classes are listed for every label, also for a
        label that is constant in training: the label space is fixed, not learnt.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when X was a DataFrame with string column names.
    n_labels_ : int

    Examples
    --------
    >>> from mlviz.base import MultiLabelEstimator
    >>> from mlviz.linear import PLST
    >>> from mlviz.mlknn import MLkNN
    >>> issubclass(PLST, MultiLabelEstimator), issubclass(MLkNN, MultiLabelEstimator)
    (True, True)
    """

    # float32 X stays float32 where the maths allows it; a subclass whose computation needs
    # float64 overrides this with (np.float64,) and says why in its docstring.
    _feature_dtypes: tuple = (np.float64, np.float32)
    _parameter_constraints: dict = {}

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_label = True
        tags.classifier_tags.multi_class = False
        tags.target_tags.required = True
        tags.target_tags.multi_output = True
        # a 1-D y is one label column (see the module docstring)
        tags.target_tags.single_output = True
        tags.input_tags.sparse = True
        return tags

    def _validate_fit(self, X, y):
        """Validate X and y at the start of ``fit``; returns X and y as a float64 0/1 matrix."""
        X = validate_data(
            self,
            X,
            reset=True,
            accept_sparse="csr",
            dtype=list(self._feature_dtypes),
            ensure_all_finite=True,
        )
        labels, self._target_dtype, self._target_is_1d = check_multilabel_target(
            y, n_samples=X.shape[0]
        )
        self.n_labels_ = labels.shape[1]
        classes = np.array([0, 1], dtype=self._target_dtype)
        self.classes_ = classes if self._target_is_1d else np.tile(classes, (self.n_labels_, 1))
        return X, labels

    def _validate_predict(self, X):
        """Check that the model is fitted and X matches the training features."""
        check_is_fitted(self)
        return validate_data(
            self,
            X,
            reset=False,
            accept_sparse="csr",
            dtype=list(self._feature_dtypes),
            ensure_all_finite=True,
        )

    def _format_labels(self, positive: np.ndarray) -> np.ndarray:
        """Boolean (n_samples, n_labels) decisions as predictions: y's dtype and shape."""
        labels = np.asarray(positive).astype(self._target_dtype)
        return labels[:, 0] if self._target_is_1d else labels

    def _format_scores(self, scores: np.ndarray) -> np.ndarray:
        """Per-label scores (n_samples, n_labels): one column becomes 1-D for a 1-D y."""
        return scores[:, 0] if self._target_is_1d else scores

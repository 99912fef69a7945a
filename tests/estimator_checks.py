"""scikit-learn's estimator checks for mlviz's multi-label classifiers, shared by the tests.

Every mlviz estimator is tagged as a multi-label (and single-label binary) classifier, so
:func:`~sklearn.utils.estimator_checks.check_estimator` runs scikit-learn's classifier checks
on it. :func:`assert_passes_estimator_checks` runs them twice:

1. on the estimator itself, where the only expected failures are :data:`EXPECTED_FAILURES`,
   each for a stated reason that is a deliberate difference, not a bug;
2. on a *binarizing twin* (:func:`binarized`), whose ``fit`` maps a check's target onto 0/1
   first, so that the checks which fail in 1. only because of their target values still run
   everything else they test (X dtypes, lists instead of arrays, a single feature) for real.

It also runs :func:`~sklearn.utils.estimator_checks.check_param_validation`, which
``check_estimator`` leaves out: every constructor parameter has a constraint and a bad value
raises scikit-learn's ``InvalidParameterError``.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.utils.estimator_checks import check_estimator, check_param_validation

_NOT_0_1 = (
    "the check fits on a 1-D binary target with values {1, 2} (the multi_class=False tag "
    "makes scikit-learn map y onto {min, min + 1}); mlviz estimators take 0/1 label "
    "indicators only and reject other values with a ValueError instead of re-encoding them. "
    "The binarizing twin runs this check for real."
)
_CLASS_NAMES = (
    "the check fits on class names 'one'/'two' and on -1/1 and expects them back as classes_ "
    "and predictions; mlviz classes_ is array([0, 1]) for every label and other target values "
    "are rejected with a ValueError (Unknown label type / only 0 and 1)"
)
_CLASSES_PER_LABEL = (
    "the check indexes classes_ with the 0/1 decision matrix (classes_[decision > 0]), which "
    "works only when classes_ is the label indices arange(n_labels) of OneVsRestClassifier or "
    "MLPClassifier; mlviz's classes_ has one row array([0, 1]) per label, the multi-output "
    "convention of scikit-learn's glossary. The check's other assertions (shapes, integer "
    "predictions, decision_function > 0 and predict_proba agreeing with predict) are in "
    "tests/test_estimator_api.py"
)

EXPECTED_FAILURES: dict[str, str] = {
    "check_estimators_dtypes": _NOT_0_1,
    "check_classifier_data_not_an_array": _NOT_0_1,
    "check_fit2d_1feature": _NOT_0_1,
    "check_classifiers_classes": _CLASS_NAMES,
    "check_classifier_multioutput": _CLASSES_PER_LABEL,
}

# On the binarizing twin binary targets are 0/1, so only the classes_ checks remain.
EXPECTED_FAILURES_BINARIZED: dict[str, str] = {
    "check_classifiers_classes": _CLASS_NAMES,
    "check_classifier_multioutput": _CLASSES_PER_LABEL,
}


def binarize_targets(y):
    """Map a binary target with values other than 0/1 onto 0/1; leave every other y alone.

    Only ``{a < b}`` becomes ``{0, 1}`` (``y == b``): None, constant, multi-class, continuous
    and non-finite targets pass through, so that the estimator's own target validation still
    answers the checks that feed it those.
    """
    if y is None:
        return None
    array = np.asarray(y)
    values = np.unique(array)
    if values.size == 2 and not set(values.tolist()) <= {0, 1}:
        return (array == values[1]).astype(np.int64)
    return y


def _binarized_fit(self, X, y=None, **kwargs):
    return type(self).__mro__[1].fit(self, X, binarize_targets(y), **kwargs)


def binarized(estimator):
    """The estimator's binarizing twin: a subclass whose ``fit`` binarizes the target.

    The subclass is created once per estimator class and stored in this module, so that
    instances pickle (several checks pickle the estimator).
    """
    cls = type(estimator)
    name = f"Binarized{cls.__name__}"
    twin = globals().get(name)
    if twin is None:
        twin = type(name, (cls,), {"fit": _binarized_fit, "__module__": __name__})
        globals()[name] = twin
    return twin(**estimator.get_params(deep=False))


def _run_check_estimator(estimator, expected_failed: dict[str, str]) -> None:
    with warnings.catch_warnings():
        # the generic checks fit on constant or tiny targets on purpose
        warnings.simplefilter("ignore", UserWarning)
        results = check_estimator(estimator, expected_failed_checks=expected_failed, on_fail=None)
    failed = [
        (r["check_name"], str(r["exception"])[:300]) for r in results if r["status"] == "failed"
    ]
    assert not failed, failed
    # an expected failure that passes means the reason above is no longer true
    unexpectedly_passing = [
        r["check_name"] for r in results if r["status"] == "passed" and r["expected_to_fail"]
    ]
    assert not unexpectedly_passing, unexpectedly_passing
    assert sum(r["status"] == "passed" for r in results) >= 50


def assert_passes_estimator_checks(estimator, **extra_expected: str) -> None:
    """scikit-learn's checks on the estimator, on its binarizing twin, and its parameters.

    ``extra_expected`` adds estimator-specific expected failures (check name -> reason) to
    both runs.
    """
    _run_check_estimator(estimator, {**EXPECTED_FAILURES, **extra_expected})
    _run_check_estimator(binarized(estimator), {**EXPECTED_FAILURES_BINARIZED, **extra_expected})
    check_param_validation(type(estimator).__name__, estimator)

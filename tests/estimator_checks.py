"""scikit-learn's check_estimator for multi-label estimators, shared by the estimator tests.

scikit-learn's generic checks fit on targets with values {0, 1, 2} (class ids) or real
numbers (regression); mlviz estimators accept only a 0/1 label matrix and reject anything
else with a ValueError, so those checks fail at input validation, not in the algorithm.
Each test runs check_estimator twice: on the estimator itself with TARGET_CHECKS as expected
failures, and on a module-level subclass whose ``fit`` passes the targets through
:func:`binarize_targets`, so that every one of those checks still runs for real.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.utils.estimator_checks import check_estimator

NOT_0_1 = (
    "scikit-learn's generic checks fit on targets with values {0, 1, 2} or real numbers; "
    "mlviz estimators take a 0/1 label matrix and reject anything else with a ValueError"
)

TARGET_CHECKS = (
    "check_fit_score_takes_y",
    "check_estimators_overwrite_params",
    "check_dont_overwrite_parameters",
    "check_estimators_fit_returns_self",
    "check_readonly_memmap_input",
    "check_n_features_in_after_fitting",
    "check_positive_only_tag_during_fit",
    "check_estimators_dtypes",
    "check_dtype_object",
    "check_estimator_sparse_tag",
    "check_estimator_sparse_array",
    "check_estimator_sparse_matrix",
    "check_f_contiguous_array_estimator",
    "check_methods_sample_order_invariance",
    "check_methods_subset_invariance",
    "check_fit2d_1feature",
    "check_dict_unchanged",
    "check_fit2d_predict1d",
)


def target_failures(**extra: str) -> dict[str, str]:
    """Expected failures for the raw estimator: TARGET_CHECKS plus any ``extra`` ones."""
    return {**dict.fromkeys(TARGET_CHECKS, NOT_0_1), **extra}


def binarize_targets(Y):
    """Map a generic check's target onto a 0/1 label matrix (None stays None)."""
    if Y is None:
        return None
    Y = np.asarray(Y)
    Y = (Y > Y.min()).astype(np.uint8)
    return Y.reshape(-1, 1) if Y.ndim == 1 else Y


def assert_passes_check_estimator(estimator, expected_failed: dict[str, str]) -> None:
    """Run check_estimator; fail listing every unexpected failure, require real coverage."""
    with warnings.catch_warnings():
        # the generic checks fit on constant or tiny targets on purpose
        warnings.simplefilter("ignore", UserWarning)
        results = check_estimator(estimator, expected_failed_checks=expected_failed, on_fail=None)
    failed = [
        (r["check_name"], str(r["exception"])[:300]) for r in results if r["status"] == "failed"
    ]
    assert not failed, failed
    assert sum(r["status"] == "passed" for r in results) >= 20

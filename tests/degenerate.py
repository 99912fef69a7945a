"""A generated corpus of degenerate and extreme data sets that every app page must survive.

Each member is a tiny :class:`~mlviz.io.Dataset` built in memory (no files), named after what
makes it degenerate. The app test runs every page on every member (tests/test_app_degenerate.py).
"""

from __future__ import annotations

import numpy as np

from mlviz.io import Dataset


def _dataset(name: str, X: np.ndarray, Y: np.ndarray) -> Dataset:
    X = np.asarray(X, dtype=np.float64)
    Y = np.asarray(Y, dtype=np.uint8)
    return Dataset(
        name=name,
        X=X,
        Y=Y,
        feature_names=tuple(f"f{j}" for j in range(X.shape[1])),
        label_names=tuple(f"l{j}" for j in range(Y.shape[1])),
    )


def _features(rng: np.random.Generator, n: int, d: int = 4) -> np.ndarray:
    return rng.normal(size=(n, d))


def _labels(rng: np.random.Generator, n: int, L: int) -> np.ndarray:
    """Random labels with every column both on and off somewhere (when n >= 2)."""
    Y = (rng.random((n, L)) < 0.4).astype(np.uint8)
    if n >= 2:
        Y[0, :] = 1
        Y[1, :] = 0
    return Y


def degenerate_corpus() -> dict[str, Dataset]:
    """The members, by name (deterministic)."""
    rng = np.random.default_rng(0)
    n = 12
    corpus = {
        "one_label": _dataset("one_label", _features(rng, n), _labels(rng, n, 1)),
        "two_labels": _dataset("two_labels", _features(rng, n), _labels(rng, n, 2)),
        "one_row": _dataset("one_row", _features(rng, 1), np.array([[1, 0, 1]])),
        "two_rows": _dataset("two_rows", _features(rng, 2), np.array([[1, 0, 1], [0, 1, 0]])),
        "three_rows": _dataset("three_rows", _features(rng, 3), _labels(rng, 3, 3)),
        "one_labelset": _dataset("one_labelset", _features(rng, n), np.tile([1, 0, 1, 0], (n, 1))),
        "label_always_on": _dataset(
            "label_always_on",
            _features(rng, n),
            np.column_stack([np.ones(n, dtype=np.uint8), _labels(rng, n, 3)]),
        ),
        "label_never_on": _dataset(
            "label_never_on",
            _features(rng, n),
            np.column_stack([_labels(rng, n, 3), np.zeros(n, dtype=np.uint8)]),
        ),
        "zero_features": _dataset("zero_features", np.zeros((n, 4)), _labels(rng, n, 4)),
        "one_feature": _dataset("one_feature", _features(rng, n, 1), _labels(rng, n, 4)),
        "many_labels": _dataset(
            "many_labels", _features(rng, 20), (rng.random((20, 10_000)) < 0.01).astype(np.uint8)
        ),
    }
    return corpus


MEMBERS = tuple(degenerate_corpus())

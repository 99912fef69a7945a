"""The Dataset container: immutable, so its digest is computed once and stays right."""

from __future__ import annotations

import dataclasses
import hashlib

import numpy as np
import pytest
import scipy.sparse as sp

import mlviz.io._dataset as dataset_module
from mlviz.io import Dataset


def _dataset(sparse: bool) -> Dataset:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 5)) * (rng.random((20, 5)) < 0.4)
    Y = (rng.random((20, 3)) < 0.5).astype(np.uint8)
    return Dataset("d", sp.csr_matrix(X) if sparse else X, Y, tuple("abcde"), ("l1", "l2", "l3"))


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
def test_digest_is_computed_once(sparse, monkeypatch):
    ds = _dataset(sparse)
    calls = []
    sha256 = hashlib.sha256

    def counting_sha256(*args):
        calls.append(args)
        return sha256(*args)

    monkeypatch.setattr(dataset_module.hashlib, "sha256", counting_sha256)
    first = ds.digest
    assert ds.digest == first and ds.digest == first
    assert len(calls) == 1
    # the cached value is the hash of the data: a fresh Dataset of the same arrays agrees
    again = Dataset(ds.name, ds.X, ds.Y, ds.feature_names, ds.label_names)
    assert again.digest == first and len(calls) == 2


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
def test_data_cannot_change_under_the_digest(sparse):
    ds = _dataset(sparse)
    with pytest.raises(ValueError, match="read-only"):
        ds.Y[0, 0] = 1 - ds.Y[0, 0]
    with pytest.raises(ValueError, match="read-only"):
        if sparse:
            ds.X.data[0] += 1.0
        else:
            ds.X[0, 0] += 1.0
    with pytest.raises(dataclasses.FrozenInstanceError):
        ds.Y = ds.Y.copy()


def test_a_changed_copy_has_its_own_digest():
    ds = _dataset(sparse=False)
    before = ds.digest
    Y = ds.Y.copy()
    Y[0, 0] = 1 - Y[0, 0]
    changed = dataclasses.replace(ds, Y=Y)
    assert changed.digest != before
    assert ds.digest == before  # the original keeps its data and its digest
    np.testing.assert_array_equal(dataclasses.replace(changed, Y=ds.Y.copy()).Y, ds.Y)
    assert dataclasses.replace(changed, Y=ds.Y.copy()).digest == before


def test_no_copy_of_the_data():
    X = np.arange(12.0).reshape(4, 3)
    Y = np.eye(4, 2, dtype=np.uint8)
    ds = Dataset("d", X, Y, ("a", "b", "c"), ("l1", "l2"))
    assert np.shares_memory(ds.X, X) and np.shares_memory(ds.Y, Y)
    assert X.flags.writeable  # the caller's own arrays are left as they were

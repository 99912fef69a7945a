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
    assert ds.digest == first and ds.digest == first and ds.content_digest
    assert len(calls) == 2  # the numbers once, then the identity over them
    # the cached value is the hash of the data: a fresh Dataset of the same arrays agrees
    again = Dataset(ds.name, ds.X, ds.Y, ds.feature_names, ds.label_names)
    assert again.digest == first and len(calls) == 4


@pytest.mark.parametrize(
    "change",
    [
        {"name": "other"},
        {"label_names": ("l1", "l2", "PWNED")},
        {"feature_names": ("a", "b", "c", "d", "E")},
        {"notes": ("dropped a column",)},
        # names that join to the same text must still differ (the names are JSON-encoded)
        {"label_names": ("l1", "l2,l3", "")},
    ],
    ids=["name", "label", "feature", "notes", "ambiguous join"],
)
def test_every_name_is_part_of_the_digest_but_not_of_the_content_digest(change):
    """Issue 29: results cached under a digest of the numbers alone showed one session's label
    names to every other session with the same numbers."""
    ds = _dataset(sparse=False)
    other = dataclasses.replace(ds, **change)
    assert other.content_digest == ds.content_digest
    assert other.digest != ds.digest


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

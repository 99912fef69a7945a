"""save_arff (liac-arff writes the ARFF): loading the written files gives back identical
X, Y and names, dense and sparse."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
import pytest
import scipy.sparse as sp

from mlviz.io import Dataset, load_arff, save_arff


# --------------------------------------------------------------------------- save_arff
def test_save_then_load_round_trip_dense(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 4)) * 10.0 ** rng.integers(-300, 300, size=(30, 4))
    Y = (rng.random((30, 3)) < 0.4).astype(np.uint8)
    ds = Dataset(
        "round trip",
        X,
        Y,
        ("plain", "with space", "quote'and\\slash", "x{1},%"),
        ("Swainson's Thrush", "l,2", "l3"),
    )
    arff_path, xml_path = save_arff(ds, tmp_path)
    assert arff_path == tmp_path / "round trip.arff" and xml_path == tmp_path / "round trip.xml"
    back = load_arff(arff_path)
    np.testing.assert_array_equal(back.X, X)
    np.testing.assert_array_equal(back.Y, Y)
    assert back.feature_names == ds.feature_names
    assert back.label_names == ds.label_names
    assert back.content_digest == ds.content_digest
    labels = [e.get("name") for e in ET.parse(xml_path).getroot()]
    assert labels == list(ds.label_names)


def test_save_then_load_round_trip_sparse(tmp_path):
    rng = np.random.default_rng(1)
    dense = rng.normal(size=(25, 6)) * (rng.random((25, 6)) < 0.3)
    dense[3] = 0  # an all-zero row
    Y = (rng.random((25, 2)) < 0.5).astype(np.uint8)
    ds = Dataset("sp", sp.csr_matrix(dense), Y, tuple("abcdef"), ("p", "q"))
    arff_path, _ = save_arff(ds, tmp_path / "out" / "file.arff")
    back = load_arff(arff_path)
    assert sp.issparse(back.X)
    np.testing.assert_array_equal(back.X.toarray(), dense)
    np.testing.assert_array_equal(back.Y, Y)
    assert back.content_digest == ds.content_digest


def test_save_writes_comment_before_relation(tmp_path):
    ds = Dataset("c", np.eye(2), np.eye(2, dtype=np.uint8), ("a", "b"), ("p", "q"))
    arff_path, _ = save_arff(ds, tmp_path, comment="Line one.\n\nLine two.")
    assert arff_path.read_text().startswith("% Line one.\n%\n% Line two.\n@RELATION c\n")
    assert load_arff(arff_path).content_digest == ds.content_digest


def test_save_rejects_duplicate_names(tmp_path):
    ds = Dataset("d", np.zeros((2, 1)), np.zeros((2, 1), np.uint8), ("a",), ("a",))
    with pytest.raises(ValueError, match="unique"):
        save_arff(ds, tmp_path)


def test_missing_values_survive_save_and_load_keep(tmp_path):
    dense = np.array([[1.5, np.nan], [np.nan, -2.0], [0.0, 3.0]])
    Y = np.array([[1, 0], [0, 1], [1, 1]], dtype=np.uint8)
    for X in (dense, sp.csr_matrix(dense)):
        ds = Dataset("nan", X, Y, ("a", "b"), ("p", "q"))
        back = load_arff(save_arff(ds, tmp_path)[0], missing="keep")
        assert back.is_sparse == ds.is_sparse
        np.testing.assert_array_equal(back.X.toarray() if back.is_sparse else back.X, dense)
        np.testing.assert_array_equal(back.Y, Y)
        assert back.content_digest == ds.content_digest


@pytest.mark.parametrize("bad", ['say "hi" now', "tab\there", "line\nbreak", "back\\n slash"])
def test_save_rejects_names_that_would_not_read_back(tmp_path, bad):
    ds = Dataset("d", np.zeros((2, 2)), np.zeros((2, 1), np.uint8), ("ok", bad), ("l",))
    with pytest.raises(ValueError, match="(?i)rename") as info:
        save_arff(ds, tmp_path)
    assert repr(bad) in str(info.value)
    assert not (tmp_path / "d.arff").exists()

"""The loaders on the real MULAN files: shapes match the manifest, documented quirks."""

from __future__ import annotations

import csv
import functools
import re
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from conftest import MULAN_DIR, mulan_path

from mlviz.io import Dataset, load_arff, save_arff

MULAN_NS = "http://mulan.sourceforge.net/labels"


# =========================================================================== real MULAN data
def manifest_rows() -> list[dict[str, str]]:
    path = MULAN_DIR / "MANIFEST.tsv"
    if not path.is_file():
        return []
    with path.open(encoding="utf-8") as handle:
        return [row for row in csv.DictReader(handle, delimiter="\t")]


ARFF_ROWS = [row for row in manifest_rows() if row["file"].endswith(".arff")]
# What the loader does to the manifest's attribute counts (it counts raw attributes):
FEATURE_ADJUSTMENT = {
    "genbase": -1,  # 'protein' is an id: dropped
    "birds": 12 - 1,  # 'location' is nominal with 12 values: one-hot
}


@functools.cache
def real(file_name: str) -> Dataset:
    """Each real file is parsed once per test session."""
    return load_arff(mulan_path(file_name))


def declared_names(path: Path) -> list[str]:
    """Attribute names straight from the header, unquoted (a tiny independent parser)."""
    names = []
    pattern = re.compile(r"^@attribute\s+('(?:[^'\\]|\\.)*'|\S+)", re.IGNORECASE)
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.lower().startswith("@data"):
            break
        match = pattern.match(line.strip())
        if match:
            token = match.group(1)
            names.append(token[1:-1].replace("\\'", "'") if token.startswith("'") else token)
    return names


def xml_names(path: Path) -> list[str]:
    return [e.get("name") for e in ET.parse(path).getroot().iter(f"{{{MULAN_NS}}}label")]


def row_multiset(*datasets: Dataset) -> Counter:
    rows: Counter = Counter()
    for ds in datasets:
        if ds.is_sparse:
            X = ds.X.tocsr()
            for i in range(ds.n_samples):
                cut = slice(X.indptr[i], X.indptr[i + 1])
                rows[(X.indices[cut].tobytes(), X.data[cut].tobytes(), ds.Y[i].tobytes())] += 1
        else:
            for x, y in zip(ds.X, ds.Y, strict=True):
                rows[(x.tobytes(), y.tobytes())] += 1
    return rows


@pytest.mark.parametrize("row", ARFF_ROWS or [None], ids=[r["file"] for r in ARFF_ROWS] or ["-"])
def test_real_file_matches_manifest(row):
    mulan_path("MANIFEST.tsv")
    ds = real(row["file"])
    assert ds.n_samples == int(row["n_instances"])
    assert ds.n_labels == int(row["n_labels"])
    assert ds.n_features == int(row["n_features"]) + FEATURE_ADJUSTMENT.get(row["name"], 0)
    assert ds.is_sparse == (row["sparse"] == "yes")
    assert ds.Y.dtype == np.uint8 and set(np.unique(ds.Y)) <= {0, 1}
    if not ds.is_sparse:
        assert ds.X.dtype == np.float64 and np.isfinite(ds.X).all()
    cardinality = ds.Y.sum(axis=1).mean()
    # within one unit of the 3rd decimal: the manifest copies published figures, and emotions'
    # 1.869 is 1108 / 593 = 1.86847 rounded up
    assert abs(cardinality - float(row["cardinality"])) < 0.001
    assert len({y.tobytes() for y in ds.Y}) == int(row["distinct_labelsets"])

    path = mulan_path(row["file"])
    declared = declared_names(path)
    if row["label_location"] == "first":
        expected = declared[: ds.n_labels]
    else:
        expected = declared[-ds.n_labels :]
        xml = xml_names(path.with_name(f"{row['name']}.xml"))
        assert set(ds.label_names) == set(xml)
        assert {xml[0], xml[-1]} <= set(ds.label_names)
    assert ds.label_names == tuple(expected)  # column order


def test_label_order_is_column_order_where_xml_differs():
    yeast = real("yeast.arff")
    assert yeast.label_names == tuple(f"Class{k}" for k in range(1, 15))
    assert xml_names(mulan_path("yeast.xml"))[3] == "Class6"  # the XML order differs
    enron = real("enron.arff")
    assert xml_names(mulan_path("enron.xml"))[0] == "A.A1" and enron.label_names[0] == "A.A8"


def test_emotions_keeps_original_typos():
    ds = real("emotions.arff")
    assert ds.label_names[0] == "amazed-suprised" and ds.label_names[-1] == "angry-aggresive"


def test_birds_escaped_apostrophe_and_one_hot_location():
    ds = real("birds.arff")
    assert "Swainson's Thrush" in ds.label_names
    assert "MacGillivray's Warbler" in ds.label_names
    location = [n for n in ds.feature_names if n.startswith("location=")]
    assert len(location) == 12
    block = ds.X[:, [ds.feature_names.index(n) for n in location]]
    np.testing.assert_array_equal(block.sum(axis=1), 1)  # exactly one category per row
    assert set(np.unique(ds.X[:, ds.feature_names.index("hasSegments")])) <= {0.0, 1.0}
    assert any("'location' (12 values)" in note for note in ds.notes)


def test_genbase_protein_id_dropped_and_yes_means_one():
    ds = real("genbase.arff")
    assert "protein" not in ds.feature_names
    assert any("'protein'" in note and "id-like" in note for note in ds.notes)
    # the first data row of genbase.arff, straight from the text: YES -> 1, NO -> 0
    lines = mulan_path("genbase.arff").read_text().splitlines()
    first = lines[[line.lower().startswith("@data") for line in lines].index(True) + 1]
    cells = [c.strip() for c in first.split(",")][1 : 1 + ds.n_features]
    np.testing.assert_array_equal(ds.X[0], [c == "YES" for c in cells])


def test_medical_stale_meka_c_is_ignored_because_the_xml_wins():
    ds = real("medical.arff")
    declared = declared_names(mulan_path("medical.arff"))
    assert ds.label_names == tuple(declared[-45:])  # not the first 45 as -C 45 would say
    assert any("-C 45" in note and "ignored" in note for note in ds.notes)


def test_scene_meka_labels_first_via_c():
    ds = real("scene-meka.arff")
    assert ds.label_names == ("beach", "sunset", "foliage", "field", "mountain", "urban")
    assert any("-C 6" in note for note in ds.notes)


@pytest.mark.parametrize("name", ["emotions", "yeast", "enron", "medical", "birds", "tmc2007-500"])
def test_train_plus_test_equals_full_set(name):
    train, test = real(f"{name}-train.arff"), real(f"{name}-test.arff")
    full = real(f"{name}.arff")
    assert train.feature_names == full.feature_names == test.feature_names
    assert train.label_names == full.label_names
    assert row_multiset(train, test) == row_multiset(full)


def test_scene_split_equals_meka_file():
    train, test, meka = real("scene-train.arff"), real("scene-test.arff"), real("scene-meka.arff")
    assert [n.lower() for n in train.label_names] == ["beach", "sunset"] + [
        "fallfoliage",
        "field",
        "mountain",
        "urban",
    ]
    assert row_multiset(train, test) == row_multiset(meka)


def test_genbase_official_split_differs_as_documented():
    full = real("genbase.arff")
    train, test = real("genbase-train.arff"), real("genbase-test.arff")
    assert train.n_samples + test.n_samples == full.n_samples
    lines = mulan_path("genbase.arff").read_text().splitlines()
    start = [line.lower().startswith("@data") for line in lines].index(True) + 1
    rows = [line for line in lines[start:] if line.strip()]
    index = {line.split(",")[0]: i for i, line in enumerate(rows)}
    in_both = (full.X[index["Q9XEL8"]].tobytes(), full.Y[index["Q9XEL8"]].tobytes())
    in_neither = (full.X[index["O88658"]].tobytes(), full.Y[index["O88658"]].tobytes())
    split, whole = row_multiset(train, test), row_multiset(full)
    assert split - whole == Counter({in_both: 1})
    assert whole - split == Counter({in_neither: 1})


def test_real_set_survives_save_and_load(tmp_path):
    ds = real("birds-test.arff")
    back = load_arff(save_arff(ds, tmp_path)[0])
    assert back.content_digest == ds.content_digest
    assert back.label_names == ds.label_names and back.feature_names == ds.feature_names

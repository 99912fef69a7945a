"""Data set discovery: embedded samples, a MULAN folder, and the app's single entry point."""

from __future__ import annotations

import csv
import importlib.resources
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import MULAN_DIR, mulan_path

from mlviz import datasets
from mlviz.io import DataFormatError, Dataset, load_arff

ARFF = """% {comment}
@relation {relation}
@attribute x numeric
@attribute a {{0,1}}
@attribute b {{0,1}}
@data
1,0,1
2,1,1
"""
XML = (
    '<labels xmlns="http://mulan.sourceforge.net/labels">'
    '<label name="a"></label><label name="b"></label></labels>'
)


def write_set(folder, stem, *, xml=True, relation="r", comment="a set"):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{stem}.arff").write_text(ARFF.format(relation=relation, comment=comment))
    if xml:
        (folder / f"{stem}.xml").write_text(XML)


@pytest.fixture
def samples(tmp_path, monkeypatch):
    folder = tmp_path / "sample_data"
    for stem in ("cube", "zeta", "planted"):
        write_set(folder, stem, comment=f"the {stem} sample")
    write_set(folder, "orphan", xml=False)  # a sample without XML is not offered
    monkeypatch.setattr(datasets, "SAMPLE_DIR", folder)
    return folder


@pytest.fixture
def mulan_like(tmp_path):
    folder = tmp_path / "mulan"
    write_set(folder, "toy")
    write_set(folder, "toy-train", xml=False)
    write_set(folder, "toy-test", xml=False)
    write_set(folder, "alpha")
    write_set(folder, "meka", xml=False, relation="'meka: -C -2'")
    write_set(folder, "pair-train", xml=False)  # only a split: the whole set is train + test
    write_set(folder, "pair-test", xml=False)
    (folder / "pair.xml").write_text(XML)
    write_set(folder, "unlabelled", xml=False)  # no XML, no -C: cannot be loaded
    write_set(folder, "lonely-train", xml=False)  # split without lonely.xml
    return folder


def test_each_set_is_listed_once_samples_first_then_folder_sets_by_name(samples, mulan_like):
    sources = datasets.list_sources(mulan_like)
    assert [s.key for s in sources] == [
        "sample:planted",
        "sample:cube",
        "sample:zeta",
        "mulan:alpha",
        "mulan:meka",
        "mulan:pair",
        "mulan:toy",
    ]
    assert [s.kind for s in sources] == ["sample"] * 3 + ["folder"] * 4
    by_key = {s.key: s for s in sources}
    planted = by_key["sample:planted"]
    assert planted.name == "planted" and planted.path == samples / "planted.arff"
    assert "the planted sample" in planted.description
    toy, pair = by_key["mulan:toy"], by_key["mulan:pair"]
    assert toy.path == mulan_like / "toy.arff" and toy.has_official_split
    assert (toy.train_path, toy.test_path) == (
        mulan_like / "toy-train.arff",
        mulan_like / "toy-test.arff",
    )
    assert "Published split: 2 train / 2 test" in toy.description
    assert pair.path is None and pair.has_official_split
    assert not by_key["mulan:alpha"].has_official_split
    assert not any(s.has_official_split for s in sources if s.kind == "sample")
    # shapes from the headers and the data lines: 1 feature, 2 labels, 2 rows per file
    assert (toy.n_samples, toy.n_features, toy.n_labels) == (2, 1, 2)
    assert (pair.n_samples, pair.n_features, pair.n_labels) == (4, 1, 2)
    assert toy.label() == "toy — 2 × 1, 2 labels"


def test_shapes_follow_a_rewritten_file(samples, mulan_like):
    before = {s.key: s for s in datasets.list_sources(mulan_like)}["mulan:alpha"]
    path = mulan_like / "alpha.arff"
    path.write_text(path.read_text() + "3,0,0\n% a comment row\n\n4,1,0\n")
    after = {s.key: s for s in datasets.list_sources(mulan_like)}["mulan:alpha"]
    assert (before.n_samples, after.n_samples) == (2, 4)
    assert datasets.load_source(after).n_samples == after.n_samples


def test_load_source_and_the_official_split(samples, mulan_like):
    toy = datasets.load_source("mulan:toy", folder=mulan_like)
    assert toy.name == "toy" and toy.label_names == ("a", "b")
    train, test = datasets.load_official_split("mulan:toy", folder=mulan_like)
    assert (train.name, test.name) == ("toy-train", "toy-test")
    assert train.label_names == test.label_names == ("a", "b")  # toy.xml found for the split
    np.testing.assert_array_equal(train.Y, [[0, 1], [1, 1]])
    # every test row here equals a training row, and the notes say so
    assert "2 of the 2 test instances are identical" in test.notes[-1]
    meka = datasets.load_source("mulan:meka", folder=mulan_like)
    assert meka.label_names == ("a", "b")
    sample = datasets.load_source(datasets.list_sources(mulan_like)[0])
    assert sample.name == "planted" and sample.feature_names == ("x",)
    with pytest.raises(KeyError, match="mulan:nope"):
        datasets.load_source("mulan:nope", folder=mulan_like)
    with pytest.raises(KeyError, match="mulan:toy-train"):  # one key per data set
        datasets.load_source("mulan:toy-train", folder=mulan_like)
    with pytest.raises(ValueError, match="alpha has no official train/test split"):
        datasets.load_official_split("mulan:alpha", folder=mulan_like)


def test_a_set_with_only_a_split_is_its_train_rows_then_its_test_rows(samples, mulan_like):
    (mulan_like / "pair-test.arff").write_text(
        ARFF.format(relation="r", comment="c").replace("1,0,1\n2,1,1", "7,0,0\n8,1,0\n9,0,1")
    )
    whole = datasets.load_source("mulan:pair", folder=mulan_like)
    train, test = datasets.load_official_split("mulan:pair", folder=mulan_like)
    assert whole.name == "pair" and whole.n_samples == 5
    np.testing.assert_array_equal(whole.X[:, 0], [1, 2, 7, 8, 9])
    np.testing.assert_array_equal(whole.Y, np.vstack([train.Y, test.Y]))
    assert "rows 1-2 are pair-train (training), rows 3-5 are pair-test (test)" in whole.notes[0]


def test_a_split_whose_parts_differ_is_an_error(samples, mulan_like):
    text = (mulan_like / "toy-test.arff").read_text().replace("@attribute x", "@attribute y")
    (mulan_like / "toy-test.arff").write_text(text)
    with pytest.raises(DataFormatError, match="declare different features.*position 1"):
        datasets.load_official_split("mulan:toy", folder=mulan_like)


def test_stack_split_keeps_sparse_data_sparse():
    X = sp.csr_matrix(np.array([[0.0, 1.0], [2.0, 0.0]]))
    Y = np.array([[1], [0]], dtype=np.uint8)
    a = Dataset("a", X, Y, ("f", "g"), ("l",))
    b = Dataset("b", X[:1], Y[:1], ("f", "g"), ("l",))
    both = datasets.stack_split(a, b, name="ab")
    assert sp.issparse(both.X) and both.X.format == "csr"
    np.testing.assert_array_equal(both.X.toarray(), [[0, 1], [2, 0], [0, 1]])


def test_missing_folder_adds_nothing(samples, tmp_path):
    keys = [s.key for s in datasets.list_sources(tmp_path / "absent")]
    assert keys == ["sample:planted", "sample:cube", "sample:zeta"]


def test_one_data_folder_resolver_for_app_reproduce_benchmarks_and_tests(monkeypatch, tmp_path):
    import conftest

    from benchmarks import _common
    from mlviz import reproduce

    monkeypatch.setenv(datasets.DATA_DIR_ENV, str(tmp_path))
    assert datasets.default_data_dir() == tmp_path
    assert reproduce.default_data_dir() == tmp_path
    assert _common.mulan_dir() == tmp_path
    monkeypatch.setenv(datasets.DATA_DIR_ENV, str(tmp_path / "absent"))
    assert datasets.default_data_dir() == tmp_path / "absent"  # reported, not hidden
    assert _common.mulan_dir() is None
    monkeypatch.delenv(datasets.DATA_DIR_ENV)
    fallback = datasets.REPO_ROOT.parent / "shared" / "data" / "mulan"
    assert datasets.default_data_dir() == (fallback if fallback.is_dir() else None)
    assert conftest.MULAN_DIR == fallback or conftest.MULAN_DIR == datasets.default_data_dir()


def test_list_sources_uses_the_environment_folder(samples, mulan_like, monkeypatch):
    monkeypatch.setenv(datasets.DATA_DIR_ENV, str(mulan_like))
    assert "mulan:toy" in [s.key for s in datasets.list_sources()]


def test_samples_are_package_data_and_the_top_level_folder_links_to_them():
    package = Path(str(importlib.resources.files("mlviz") / "sample_data"))
    assert datasets.SAMPLE_DIR == package == datasets.REPO_ROOT / "mlviz" / "sample_data"
    top = datasets.REPO_ROOT / "sample_data"
    assert top.is_symlink() and top.resolve() == package.resolve()
    assert (package / "planted.arff").is_file()


def test_embedded_samples_load_and_planted_opens_first():
    sources = [s for s in datasets.list_sources() if s.kind == "sample"]
    assert sources[0].key == "sample:planted"
    for source in sources:
        ds = datasets.load_source(source)
        assert ds.n_samples > 0 and ds.n_labels > 0, source.key
        assert (ds.n_samples, ds.n_features, ds.n_labels) == (
            source.n_samples,
            source.n_features,
            source.n_labels,
        )


def test_real_mulan_folder_lists_each_set_once():
    manifest = mulan_path("MANIFEST.tsv")
    with manifest.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    sources = {s.key: s for s in datasets.list_sources(MULAN_DIR) if s.kind == "folder"}
    assert set(sources) == {f"mulan:{row['name']}" for row in rows}
    for source in sources.values():
        assert source.has_official_split, source.key  # every set here ships its split
    yeast, scene = sources["mulan:yeast"], sources["mulan:scene"]
    assert yeast.label() == "yeast — 2,417 × 103, 14 labels"
    assert scene.path is None and scene.n_samples == 2407  # no scene.arff: train + test
    assert "scene-meka.arff" in scene.description
    full = {row["name"]: row for row in rows if row["file"] == f"{row['name']}.arff"}
    for name, row in full.items():
        source = sources[f"mulan:{name}"]
        assert source.n_samples == int(row["n_instances"]), name
        assert source.n_labels == int(row["n_labels"]), name
        assert source.n_features == int(row["n_features"]), name  # declared attributes


def test_real_official_split_is_the_published_one():
    mulan_path("yeast-train.arff")
    train, test = datasets.load_official_split("mulan:yeast", folder=MULAN_DIR)
    assert (train.n_samples, test.n_samples) == (1500, 917)
    assert train.digest == load_arff(mulan_path("yeast-train.arff")).digest
    scene = datasets.load_source("mulan:scene", folder=MULAN_DIR)
    assert scene.label_names == ("Beach", "Sunset", "FallFoliage", "Field", "Mountain", "Urban")
    assert scene.n_samples == 1211 + 1196


def test_known_groups_match_the_planted_generator_by_name():
    from mlviz.datasets import known_groups, load_source
    from mlviz.io import Dataset
    from mlviz.synthetic import make_planted

    ds = load_source("sample:planted")
    groups = known_groups(ds)
    fresh, planted = make_planted(random_state=0)
    assert fresh.label_names == ds.label_names
    np.testing.assert_array_equal(groups, planted)
    # the same name with other labels is not silently given the planted groups
    renamed = Dataset(
        ds.name, ds.X, ds.Y, ds.feature_names, tuple(f"x{i}" for i in range(ds.n_labels))
    )
    assert known_groups(renamed) is None
    assert known_groups(load_source("sample:cube")) is None

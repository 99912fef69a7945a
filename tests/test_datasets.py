"""Data set discovery: embedded samples, a MULAN folder, and the app's single entry point."""

from __future__ import annotations

import csv

import numpy as np
import pytest
from conftest import MULAN_DIR, mulan_path

from mlviz import datasets
from mlviz.io import load_arff

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
    write_set(folder, "unlabelled", xml=False)  # no XML, no -C: cannot be loaded
    write_set(folder, "lonely-train", xml=False)  # split without lonely.xml
    return folder


def test_samples_first_planted_first_then_folder_sets(samples, mulan_like):
    sources = datasets.list_sources(mulan_like)
    assert [s.key for s in sources] == [
        "sample:planted",
        "sample:cube",
        "sample:zeta",
        "mulan:alpha",
        "mulan:meka",
        "mulan:toy",
        "mulan:toy-train",
        "mulan:toy-test",
    ]
    assert [s.kind for s in sources] == ["sample"] * 3 + ["folder"] * 5
    planted = sources[0]
    assert planted.name == "planted" and planted.path == samples / "planted.arff"
    assert "the planted sample" in planted.description
    assert "training split" in sources[-2].description


def test_load_source_by_key_and_by_source(samples, mulan_like):
    by_key = datasets.load_source("mulan:toy-train", folder=mulan_like)
    assert by_key.name == "toy-train"
    assert by_key.label_names == ("a", "b")  # toy.xml found for the split
    np.testing.assert_array_equal(by_key.Y, [[0, 1], [1, 1]])
    meka = datasets.load_source("mulan:meka", folder=mulan_like)
    assert meka.label_names == ("a", "b")
    sample = datasets.load_source(datasets.list_sources(mulan_like)[0])
    assert sample.name == "planted" and sample.feature_names == ("x",)
    with pytest.raises(KeyError, match="mulan:nope"):
        datasets.load_source("mulan:nope", folder=mulan_like)


def test_missing_folder_adds_nothing(samples, tmp_path):
    keys = [s.key for s in datasets.list_sources(tmp_path / "absent")]
    assert keys == ["sample:planted", "sample:cube", "sample:zeta"]


def test_default_data_dir(monkeypatch, tmp_path):
    monkeypatch.setenv(datasets.DATA_DIR_ENV, str(tmp_path))
    assert datasets.default_data_dir() == tmp_path
    monkeypatch.delenv(datasets.DATA_DIR_ENV)
    fallback = datasets.REPO_ROOT.parent / "shared" / "data" / "mulan"
    assert datasets.default_data_dir() == (fallback if fallback.is_dir() else None)


def test_list_sources_uses_the_environment_folder(samples, mulan_like, monkeypatch):
    monkeypatch.setenv(datasets.DATA_DIR_ENV, str(mulan_like))
    assert "mulan:toy" in [s.key for s in datasets.list_sources()]


def test_sample_dir_is_the_repository_folder():
    assert datasets.SAMPLE_DIR == datasets.REPO_ROOT / "sample_data"
    assert (datasets.REPO_ROOT / "mlviz" / "datasets.py").is_file()


def test_embedded_samples_load_and_planted_opens_first():
    sources = [s for s in datasets.list_sources() if s.kind == "sample"]
    if not sources:
        pytest.skip(f"no embedded samples in {datasets.SAMPLE_DIR} yet")
    assert sources[0].key == "sample:planted"
    for source in sources:
        ds = datasets.load_source(source)
        assert ds.n_samples > 0 and ds.n_labels > 0, source.key


def test_real_mulan_folder_lists_every_arff_file():
    manifest = mulan_path("MANIFEST.tsv")
    with manifest.open(encoding="utf-8") as handle:
        files = {row["file"] for row in csv.DictReader(handle, delimiter="\t")}
    expected = {f"mulan:{f.removesuffix('.arff')}" for f in files if f.endswith(".arff")}
    sources = [s for s in datasets.list_sources(MULAN_DIR) if s.kind == "folder"]
    assert {s.key for s in sources} == expected
    keys = [s.key for s in sources]
    assert (
        keys.index("mulan:yeast") < keys.index("mulan:yeast-train") < keys.index("mulan:yeast-test")
    )


def test_real_sources_load_like_load_arff():
    mulan_path("scene-meka.arff")
    meka = datasets.load_source("mulan:scene-meka", folder=MULAN_DIR)
    assert meka.label_names == ("beach", "sunset", "foliage", "field", "mountain", "urban")
    direct = load_arff(mulan_path("emotions-train.arff"))
    via_key = datasets.load_source("mulan:emotions-train", folder=MULAN_DIR)
    assert via_key.digest == direct.digest and via_key.label_names == direct.label_names


def test_known_groups_match_the_planted_generator_by_name():
    from mlviz.datasets import known_groups, load_source
    from mlviz.io import Dataset
    from mlviz.synthetic import make_planted

    ds = load_source("sample:planted")
    groups = known_groups(ds)
    fresh, planted = make_planted()
    assert fresh.label_names == ds.label_names
    np.testing.assert_array_equal(groups, planted)
    # the same name with other labels is not silently given the planted groups
    renamed = Dataset(ds.name, ds.X, ds.Y, ds.feature_names,
                      tuple(f"x{i}" for i in range(ds.n_labels)))
    assert known_groups(renamed) is None
    assert known_groups(load_source("sample:cube")) is None

"""The data layer: load_arff / save_arff / load_csv on hand-written files and on real MULAN data."""

from __future__ import annotations

import csv
import functools
import io
import re
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import MULAN_DIR, mulan_path

from mlviz.data import DataFormatError, Dataset, load_arff, load_csv, save_arff

MULAN_NS = "http://mulan.sourceforge.net/labels"


def xml_text(*names: str) -> str:
    body = "".join(f'<label name="{n}"></label>' for n in names)
    return f'<?xml version="1.0"?><labels xmlns="{MULAN_NS}">{body}</labels>'


# =========================================================================== hand-written files
SMALL = """% a comment before the header
@relation small

@attribute f1 numeric
@attribute f2 real
@attribute l1 {0,1}
@attribute l2 {0,1}

@data
1.5,2,0,1
% a comment between rows
-3,4e-1,1,1
"""


def test_small_dense_file_by_n_labels():
    ds = load_arff(SMALL, n_labels=2)
    assert isinstance(ds.X, np.ndarray) and ds.X.dtype == np.float64
    np.testing.assert_array_equal(ds.X, [[1.5, 2.0], [-3.0, 0.4]])
    assert ds.Y.dtype == np.uint8
    np.testing.assert_array_equal(ds.Y, [[0, 1], [1, 1]])
    assert ds.feature_names == ("f1", "f2")
    assert ds.label_names == ("l1", "l2")
    assert ds.name == "small"  # text input: the @relation name


def test_label_location_first_and_last():
    text = SMALL.replace("@relation small", "@relation s")
    # f1 holds 1.5 and -3: picking it as a label is an error that names it
    with pytest.raises(DataFormatError, match=r"label 'f1' has value 1\.5 in row 1"):
        load_arff(text, n_labels=3, label_location="first")
    last = load_arff(text, n_labels=1, label_location="last")
    assert last.label_names == ("l2",)
    assert last.feature_names == ("f1", "f2", "l1")
    np.testing.assert_array_equal(last.X[:, 2], [0, 1])


def test_labels_first_layout():
    text = """@relation t
@attribute a {0,1}
@attribute b {0,1}
@attribute x numeric
@data
1,0,0.5
0,0,7
"""
    ds = load_arff(text, n_labels=2, label_location="first")
    assert ds.label_names == ("a", "b")
    np.testing.assert_array_equal(ds.Y, [[1, 0], [0, 0]])
    np.testing.assert_array_equal(ds.X, [[0.5], [7.0]])


def test_xml_matches_by_name_and_keeps_column_order():
    # the XML lists l2 before l1 and leaves a numeric 0/1 column (flag) as a feature
    text = """@relation t
@attribute l1 {0,1}
@attribute flag numeric
@attribute x numeric
@attribute l2 {0,1}
@data
1,0,3,0
0,1,4,1
"""
    ds = load_arff(text, xml=xml_text("l2", "l1"))
    assert ds.label_names == ("l1", "l2")  # ARFF column order, not the XML's
    np.testing.assert_array_equal(ds.Y, [[1, 0], [0, 1]])
    assert ds.feature_names == ("flag", "x")
    np.testing.assert_array_equal(ds.X, [[0, 3], [1, 4]])


@pytest.mark.parametrize("kind", ["path", "str_path", "text", "bytes", "binary_file", "text_file"])
def test_xml_source_kinds(tmp_path, kind):
    xml = xml_text("l1", "l2")
    path = tmp_path / "labels.xml"
    path.write_text(xml, encoding="utf-8")
    given = {
        "path": path,
        "str_path": str(path),
        "text": xml,
        "bytes": xml.encode(),
        "binary_file": io.BytesIO(xml.encode()),
        "text_file": io.StringIO(xml),
    }[kind]
    assert load_arff(SMALL, xml=given).label_names == ("l1", "l2")


def test_xml_hierarchy_nested_labels_all_count():
    text = """@relation h
@attribute x numeric
@attribute root {0,1}
@attribute child {0,1}
@data
1,1,1
2,1,0
"""
    xml = (
        f'<labels xmlns="{MULAN_NS}"><label name="root"><label name="child"></label>'
        "</label></labels>"
    )
    ds = load_arff(text, xml=xml)
    assert ds.label_names == ("root", "child")
    np.testing.assert_array_equal(ds.Y, [[1, 1], [1, 0]])


@pytest.mark.parametrize("kind", ["path", "str_path", "bytes", "upload", "text_file"])
def test_arff_source_kinds(tmp_path, kind):
    path = tmp_path / "mine.arff"
    path.write_text(SMALL, encoding="utf-8")
    upload = io.BytesIO(SMALL.encode())
    upload.name = "uploaded.arff"  # what a Streamlit UploadedFile carries
    given = {
        "path": path,
        "str_path": str(path),
        "bytes": SMALL.encode(),
        "upload": upload,
        "text_file": io.StringIO(SMALL),
    }[kind]
    ds = load_arff(given, n_labels=2)
    np.testing.assert_array_equal(ds.X, [[1.5, 2.0], [-3.0, 0.4]])
    expected_name = {"path": "mine", "str_path": "mine", "upload": "uploaded"}.get(kind, "small")
    assert ds.name == expected_name


def test_crlf_and_bom_are_accepted():
    text = "\ufeff" + SMALL.replace("\n", "\r\n")
    ds = load_arff(text.encode("utf-8"), n_labels=2)
    np.testing.assert_array_equal(ds.Y, [[0, 1], [1, 1]])


def test_xml_auto_discovery_for_full_and_split_files(tmp_path):
    (tmp_path / "toy.xml").write_text(xml_text("l2"), encoding="utf-8")
    for stem in ("toy", "toy-train", "toy-test"):
        (tmp_path / f"{stem}.arff").write_text(SMALL, encoding="utf-8")
        ds = load_arff(tmp_path / f"{stem}.arff")
        assert ds.label_names == ("l2",), stem
        assert ds.feature_names == ("f1", "f2", "l1")
        assert any("toy.xml" in note for note in ds.notes)
    # an explicit n_labels wins over the XML next to the file
    assert load_arff(tmp_path / "toy.arff", n_labels=2).label_names == ("l1", "l2")


def test_meka_c_positive_negative_and_xml_override():
    body = "@attribute a {0,1}\n@attribute x numeric\n@attribute b {0,1}\n@data\n1,5,0\n0,6,1\n"
    first = load_arff("@relation 'M: -C 1 -R'\n" + body)
    assert first.label_names == ("a",)
    assert first.feature_names == ("x", "b")
    last = load_arff("@relation 'M: -C -1'\n" + body)
    assert last.label_names == ("b",)
    # an XML wins over -C, and the override is recorded
    by_xml = load_arff("@relation 'M: -C 1'\n" + body, xml=xml_text("b"))
    assert by_xml.label_names == ("b",)
    assert any("-C 1" in note and "ignored" in note for note in by_xml.notes)
    by_count = load_arff("@relation 'M: -C 1'\n" + body, n_labels=1, label_location="last")
    assert by_count.label_names == ("b",)
    assert any("-C 1" in note and "n_labels" in note for note in by_count.notes)
    # x holds 5 and 6: as a label it is an error naming it
    with pytest.raises(DataFormatError, match="label 'x' has value 5"):
        load_arff("@relation 'M: -C 1'\n" + body, n_labels=2, label_location="last")


NOMINALS = """@relation nominals
@attribute yn {YES, NO}
@attribute ny {no,yes}
@attribute ft {false,true}
@attribute tf {t,f}
@attribute sex {male,female}
@attribute colour {red,green,blue}
@attribute comment string
@attribute id {p1,p2,p3,p4}
@attribute num numeric
@attribute lab {1,0}
@data
YES,no,true,f,female,blue,'hello there',p3,1,1
NO,yes,false,t,male,red,x,p1,?,0
YES,?,true,t,male,?,y,p4,5,0
NO,yes,false,f,female,green,z,p2,3,1
"""


def test_nominal_features_by_meaning_one_hot_drop_and_impute():
    ds = load_arff(NOMINALS, n_labels=1)
    assert ds.feature_names == (
        "yn",
        "ny",
        "ft",
        "tf",
        "sex",
        "colour=red",
        "colour=green",
        "colour=blue",
        "num",
    )
    expected = np.array(
        [
            # yn ny   ft tf sex red green blue num
            [1, 0, 1, 0, 1, 0, 0, 1, 1],
            [0, 1, 0, 1, 0, 1, 0, 0, 3],  # num '?' -> mean of 1, 5, 3
            [1, 2 / 3, 1, 1, 0, 1 / 3, 1 / 3, 1 / 3, 5],  # ny '?' -> mean(0,1,1); colour shares
            [0, 1, 0, 0, 1, 0, 1, 0, 3],
        ]
    )
    np.testing.assert_allclose(ds.X, expected)
    # the label is declared {1,0}: by meaning, not by position
    np.testing.assert_array_equal(ds.Y[:, 0], [1, 0, 0, 1])
    notes = " ".join(ds.notes)
    assert "'comment' (string)" in notes
    assert "'id' (id-like" in notes
    assert "'sex' (male→0, female→1)" in notes
    assert "'colour' (3 values)" in notes
    assert "'num' (1)" in notes and "'ny' (1)" in notes


SPARSE = """@relation sp
@attribute a numeric
@attribute b numeric
@attribute inv {1,0}
@attribute l1 {0,1}
@attribute l2 {0,1}
@data
{0 2.5,3 1}
{1 ?,2 0,4 1}
{}
{0 -1,1 4,3 1,4 1}
"""


def test_sparse_file_gives_csr_with_implicit_values_and_imputation():
    ds = load_arff(SPARSE, n_labels=2)
    assert sp.issparse(ds.X) and ds.X.format == "csr" and ds.X.dtype == np.float64
    # b: '?' in row 2 -> mean over the other rows, implicit zeros included: (0 + 0 + 4) / 3;
    # inv is declared {1,0}: an omitted value is the first declared one, which means 1
    expected = np.array(
        [
            [2.5, 0, 1],
            [0, 4 / 3, 0],
            [0, 0, 1],
            [-1, 4, 1],
        ]
    )
    np.testing.assert_allclose(ds.X.toarray(), expected)
    np.testing.assert_array_equal(ds.Y, [[1, 0], [0, 1], [0, 0], [1, 1]])
    assert ds.n_samples == 4  # the empty row {} counts
    assert not np.any(ds.X.data == 0)  # no explicit zeros stored


def test_quoted_names_with_escapes():
    text = r"""@relation 'quoted relation'
@attribute 'feature one' numeric
@attribute "dq\"name" numeric
@attribute 'Swainson\'s Thrush' {0,1}
@attribute 'back\\slash' {0,1}
@data
1,2,1,0
"""
    ds = load_arff(text, xml=xml_text("Swainson's Thrush", "back\\slash"))
    assert ds.feature_names == ("feature one", 'dq"name')
    assert ds.label_names == ("Swainson's Thrush", "back\\slash")
    np.testing.assert_array_equal(ds.Y, [[1, 0]])


# --------------------------------------------------------------------------- malformed corpus
HEADER = """@relation bad
@attribute f1 numeric
@attribute f2 numeric
@attribute l1 {0,1}
@attribute l2 {0,1}
@data
"""
ROW = "1,2,0,1\n"


def latin1_upload() -> io.BytesIO:
    upload = io.BytesIO((HEADER.replace("f1", "caf\u00e9") + ROW).encode("latin-1"))
    upload.name = "latin.arff"
    return upload


MALFORMED = {
    # id: (source factory, load_arff keywords, patterns the message must contain)
    "empty": (lambda: "", {}, ["empty"]),
    "blank bytes": (lambda: b"  \n\n", {}, ["empty"]),
    "header only, no @data": (
        lambda: HEADER.replace("@data\n", ""),
        {"n_labels": 2},
        ["no @data", "truncated"],
    ),
    "@data without rows": (lambda: HEADER, {"n_labels": 2}, ["line 6", "no rows"]),
    "truncated row": (
        lambda: HEADER + ROW + "3,4,0\n",
        {"n_labels": 2},
        ["line 8", "3 values but 4 attributes", "truncated"],
    ),
    "label value 2 (nominal)": (
        lambda: HEADER + ROW + "3,4,0,2\n",
        {"n_labels": 2},
        ["line 8", "'2'", "'l2'", "only 0 or 1"],
    ),
    "label value 2 (numeric)": (
        lambda: HEADER.replace("l2 {0,1}", "l2 numeric") + ROW + "3,4,0,2\n",
        {"n_labels": 2},
        ["line 8", "'l2'", "value 2", "must be 0 or 1"],
    ),
    "label missing": (
        lambda: HEADER + ROW + "3,4,?,1\n",
        {"n_labels": 2},
        ["line 8", "'l1'", "missing", r"'\?'"],
    ),
    "label not binary": (
        lambda: HEADER.replace("l1 {0,1}", "l1 {a,b,c}") + "1,2,a,1\n",
        {"n_labels": 2},
        ["'l1'", "line 4", "binary"],
    ),
    "xml names a missing attribute": (
        lambda: HEADER + ROW,
        {"xml": xml_text("l1", "L2")},
        ["'L2'", "does not declare", "did you mean 'l2'"],
    ),
    "xml with no labels": (lambda: HEADER + ROW, {"xml": xml_text()}, ["zero labels"]),
    "xml not well-formed": (
        lambda: HEADER + ROW,
        {"xml": '<labels><label name="l1"></labels>'},
        ["line 1", "not well-formed XML"],
    ),
    "-C larger than the attribute count": (
        lambda: HEADER.replace("@relation bad", "@relation 'bad: -C 9'") + ROW,
        {},
        ["line 1", "-C 9", "only 4 attributes"],
    ),
    "-C 0": (
        lambda: HEADER.replace("@relation bad", "@relation 'bad: -C 0'") + ROW,
        {},
        ["-C 0", "zero labels"],
    ),
    "n_labels=0": (lambda: HEADER + ROW, {"n_labels": 0}, ["n_labels=0", "at least one label"]),
    "n_labels = all attributes": (
        lambda: HEADER + ROW,
        {"n_labels": 4},
        ["n_labels=4", "only 4 attributes"],
    ),
    "no label information": (
        lambda: HEADER + ROW,
        {},
        ["cannot tell which attributes are labels", "xml=", "n_labels="],
    ),
    "undecodable bytes (latin-1 e-acute)": (
        latin1_upload,
        {"n_labels": 2},
        ["upload 'latin.arff'", "not UTF-8", "0xe9", "line 2", "iconv"],
    ),
    "garbage text": (
        lambda: "hello world\nthis is not an arff file\n",
        {},
        ["not ARFF", "hello world"],
    ),
    "binary garbage": (lambda: bytes(range(256)), {}, ["not UTF-8"]),
    "unknown attribute type": (
        lambda: HEADER.replace("f2 numeric", "f2 date") + ROW,
        {"n_labels": 2},
        ["line 3", "f2", "'date'"],
    ),
    "sparse index out of range": (
        lambda: HEADER + "{0 1,3 1}\n{0 1,7 1}\n",
        {"n_labels": 2},
        ["line 8", "sparse index 7", "0..3"],
    ),
    "truncated sparse row": (
        lambda: HEADER + "{0 1,3 1}\n{0 1,2 1\n",
        {"n_labels": 2},
        ["line 8", "truncated"],
    ),
    "dense row in a sparse section": (
        lambda: HEADER + "{0 1,3 1}\n" + ROW,
        {"n_labels": 2},
        ["line 8", "dense row in a sparse data section"],
    ),
    "non-numeric value": (
        lambda: HEADER + "1,abc,0,1\n",
        {"n_labels": 2},
        ["line 7", "'abc'", "'f2'"],
    ),
    "undeclared nominal value": (
        lambda: HEADER.replace("f2 numeric", "f2 {a,b}") + "1,c,0,1\n",
        {"n_labels": 2},
        ["line 7", "'c'", "'f2'", "{a,b}"],
    ),
    "duplicate attribute": (
        lambda: HEADER.replace("f2 numeric", "f1 numeric") + ROW,
        {"n_labels": 2},
        ["line 3", "unique name"],
    ),
    "@data before attributes": (lambda: "@relation x\n@data\n1,2\n", {}, ["line 2", "before"]),
}


@pytest.mark.parametrize("case", list(MALFORMED), ids=list(MALFORMED))
def test_malformed_inputs_raise_helpful_errors(case):
    factory, kwargs, patterns = MALFORMED[case]
    with pytest.raises(DataFormatError) as info:
        load_arff(factory(), **kwargs)
    message = str(info.value)
    for pattern in patterns:
        assert re.search(pattern, message), f"{pattern!r} not in {message!r}"
    assert isinstance(info.value, ValueError)


def test_malformed_file_on_disk_names_the_file(tmp_path):
    path = tmp_path / "broken.arff"
    path.write_text(HEADER + ROW + "3,4,0\n", encoding="utf-8")
    with pytest.raises(DataFormatError, match=r"broken\.arff line 8"):
        load_arff(path, n_labels=2)


def test_bad_arguments_are_value_errors():
    with pytest.raises(ValueError, match="label_location"):
        load_arff(SMALL, n_labels=1, label_location="middle")
    with pytest.raises(ValueError, match="either xml"):
        load_arff(SMALL, n_labels=1, xml=xml_text("l1"))
    with pytest.raises(FileNotFoundError, match="not found"):
        load_arff("no/such/file.arff")


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
    assert back.digest == ds.digest
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
    assert back.digest == ds.digest


def test_save_writes_comment_before_relation(tmp_path):
    ds = Dataset("c", np.eye(2), np.eye(2, dtype=np.uint8), ("a", "b"), ("p", "q"))
    arff_path, _ = save_arff(ds, tmp_path, comment="Line one.\n\nLine two.")
    assert arff_path.read_text().startswith("% Line one.\n%\n% Line two.\n@relation c\n")
    assert load_arff(arff_path).digest == ds.digest


def test_save_rejects_duplicate_names(tmp_path):
    ds = Dataset("d", np.zeros((2, 1)), np.zeros((2, 1), np.uint8), ("a",), ("a",))
    with pytest.raises(ValueError, match="unique"):
        save_arff(ds, tmp_path)


# --------------------------------------------------------------------------- load_csv
def test_load_csv_by_count_and_by_name():
    text = "a,b,y1,y2\n1,2.5,0,1\n3,,1,1\n-1,4,0,0\n"
    ds = load_csv(text, 2, name="t")
    np.testing.assert_allclose(ds.X, [[1, 2.5], [3, 3.25], [-1, 4]])  # empty cell -> mean
    np.testing.assert_array_equal(ds.Y, [[0, 1], [1, 1], [0, 0]])
    assert ds.feature_names == ("a", "b") and ds.label_names == ("y1", "y2")
    assert any("'b' (1)" in note for note in ds.notes)
    by_name = load_csv(text.encode(), ["y1"])
    assert by_name.feature_names == ("a", "b", "y2")
    np.testing.assert_array_equal(by_name.Y[:, 0], [0, 1, 0])
    with pytest.raises(DataFormatError, match=r"label column 'a' is '3' in data row 2"):
        load_csv(text.encode(), ["y2", "a"])


@pytest.mark.parametrize("sep", ["\t", ";", "|"])
def test_load_csv_sniffs_separator(tmp_path, sep):
    path = tmp_path / "table.tsv"
    path.write_text(sep.join(["x", "z", "lab"]) + "\n" + sep.join(["1", "2", "1"]) + "\n")
    ds = load_csv(path, ["lab"])
    np.testing.assert_array_equal(ds.X, [[1, 2]])
    assert ds.name == "table"


@pytest.mark.parametrize(
    ("text", "labels", "patterns"),
    [
        ("a,b,l\n1,x,0\n", 1, ["feature column 'b' is not numeric", "'x'", "row 1"]),
        ("a,b,l\n1,2,0\n1,2,2\n", 1, ["label column 'l'", "'2'", "data row 2", "line 3"]),
        ("a,b,l\n1,2,\n", 1, ["label column 'l'", "missing", "row 1"]),
        ("a,b,l\n1,2,0,5\n", 1, ["cannot parse"]),
        ("", 1, ["empty"]),
        ("a,b,l\n", 1, ["no rows"]),
        ("a,b,l\n1,2,0\n", ["nope"], ["'nope'", "not in the table"]),
        ("a,b,l\n1,2,0\n", 3, ["label_columns=3"]),
    ],
)
def test_load_csv_errors(text, labels, patterns):
    with pytest.raises(DataFormatError) as info:
        load_csv(text, labels)
    for pattern in patterns:
        assert re.search(pattern, str(info.value)), f"{pattern!r} not in {info.value}"


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
    assert back.digest == ds.digest
    assert back.label_names == ds.label_names and back.feature_names == ds.feature_names

"""load_arff on hand-written files: layouts, label selection, encodings, missing values, and
the malformed corpus (every error names the input, the line and what to do)."""

from __future__ import annotations

import io
import re
import time

import numpy as np
import pytest
import scipy.sparse as sp

from mlviz.io import DataFormatError, load_arff

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


def test_nominal_features_by_meaning_one_hot_and_drop_with_missing_kept():
    ds = load_arff(NOMINALS, n_labels=1, missing="keep")
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
    nan = np.nan
    expected = np.array(
        [
            # yn ny   ft tf sex red green blue num
            [1, 0, 1, 0, 1, 0, 0, 1, 1],
            [0, 1, 0, 1, 0, 1, 0, 0, nan],  # num '?'
            [1, nan, 1, 1, 0, nan, nan, nan, 5],  # ny '?'; colour '?' in every indicator
            [0, 1, 0, 0, 1, 0, 1, 0, 3],
        ]
    )
    np.testing.assert_array_equal(ds.X, expected)  # NaN positions must match too
    # the label is declared {1,0}: by meaning, not by position
    np.testing.assert_array_equal(ds.Y[:, 0], [1, 0, 0, 1])
    notes = " ".join(ds.notes)
    assert "'comment' (string)" in notes
    assert "'id' (id-like" in notes
    assert "'sex' (male→0, female→1)" in notes
    assert "'colour' (3 values)" in notes
    assert "kept as NaN" in notes and "SimpleImputer" in notes
    assert "'num' (1)" in notes and "'ny' (1)" in notes and "'colour' (1)" in notes


def test_missing_features_are_an_error_by_default_that_says_what_to_do():
    with pytest.raises(DataFormatError) as info:
        load_arff(NOMINALS, n_labels=1)
    message = str(info.value)
    # the first missing cell in file order: row 2 (line 14), attribute 'num'
    for pattern in [
        "line 14",
        "feature 'num' is missing",
        "row 2",
        "3 missing feature value",
        "3 attribute",
        "missing='keep'",
        "SimpleImputer",
    ]:
        assert pattern in message, f"{pattern!r} not in {message!r}"


def test_a_feature_missing_everywhere_is_dropped_when_kept():
    text = "@relation t\n@attribute a numeric\n@attribute b numeric\n@attribute l {0,1}\n"
    text += "@data\n?,1,0\n?,2,1\n"
    ds = load_arff(text, n_labels=1, missing="keep")
    assert ds.feature_names == ("b",)
    assert any("'a' (all values missing)" in note for note in ds.notes)
    with pytest.raises(DataFormatError, match="feature 'a' is missing"):
        load_arff(text, n_labels=1)
    with pytest.raises(ValueError, match="missing must be"):
        load_arff(text, n_labels=1, missing="mean")


@pytest.mark.parametrize("value", ["inf", "-inf", "Infinity", "1e999"])
def test_infinite_feature_is_an_error_naming_attribute_and_line(value):
    text = HEADER + ROW + f"3,{value},0,1\n"
    for missing in ("error", "keep"):
        with pytest.raises(DataFormatError) as info:
            load_arff(text, n_labels=2, missing=missing)
        assert re.search(r"line 8: feature 'f2' is -?inf in row 2", str(info.value)), info.value


def test_nan_literal_counts_as_missing():
    text = HEADER + ROW + "NaN,4,0,1\n"
    with pytest.raises(DataFormatError, match="line 8: feature 'f1' is missing"):
        load_arff(text, n_labels=2)
    assert np.isnan(load_arff(text, n_labels=2, missing="keep").X[1, 0])


def test_a_two_million_digit_number_is_a_data_format_error_naming_the_line():
    # liac-arff's csv reader raises _csv.Error ("field larger than field limit") here
    text = HEADER + ROW + "1" * 2_000_000 + ",4,0,1\n"
    with pytest.raises(DataFormatError, match=r"line 8: a value on this line is longer than"):
        load_arff(text, n_labels=2)


def test_other_decoder_errors_are_data_format_errors_naming_the_line():
    # an unknown escape inside a quoted value makes liac-arff raise a plain ValueError
    text = (
        HEADER.replace("f2 numeric", "f2 {'a b','c'}")
        + ROW.replace("2", "'c'")
        + ("1,'a\\q b',0,1\n")
    )
    with pytest.raises(DataFormatError, match=r"line 8: cannot read this line"):
        load_arff(text, n_labels=2)


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


def test_sparse_file_gives_csr_with_implicit_values_and_missing_kept():
    ds = load_arff(SPARSE, n_labels=2, missing="keep")
    assert sp.issparse(ds.X) and ds.X.format == "csr" and ds.X.dtype == np.float64
    # b: '?' in row 2 stays NaN (stored explicitly); inv is declared {1,0}: an omitted value is
    # the first declared one, which means 1
    expected = np.array(
        [
            [2.5, 0, 1],
            [0, np.nan, 0],
            [0, 0, 1],
            [-1, 4, 1],
        ]
    )
    np.testing.assert_array_equal(ds.X.toarray(), expected)
    np.testing.assert_array_equal(ds.Y, [[1, 0], [0, 1], [0, 0], [1, 1]])
    assert ds.n_samples == 4  # the empty row {} counts
    assert not np.any(ds.X.data == 0)  # no explicit zeros stored
    with pytest.raises(DataFormatError, match="line 9: feature 'b' is missing.*row 2"):
        load_arff(SPARSE, n_labels=2)


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


# =========================================================================== hostile uploads
# (issue 29) every parse linear in the file; budgets checked before any row is parsed
def _timed(call):
    start = time.perf_counter()
    try:
        call()
    except DataFormatError as err:
        return time.perf_counter() - start, str(err)
    return time.perf_counter() - start, None


def test_a_5_mb_quoted_attribute_name_is_refused_fast_naming_the_line():
    # the old name pattern kept ~130 bytes per character (50 MB: 64 s, 7 GB) and loaded it
    text = "@relation r\n@attribute '" + "a" * 5_000_000 + "' numeric\n@attribute l {0,1}\n"
    seconds, message = _timed(lambda: load_arff(text + "@data\n1,0\n", n_labels=1))
    assert message is not None and seconds < 5, (seconds, message)
    assert "line 2" in message and "quoted text" in message and "Shorten" in message


def test_a_broken_nominal_declaration_is_refused_without_liac_arffs_backtracking():
    # liac-arff's nominal pattern backtracks exponentially on this line: 25 values ~15 s, 30
    # values hours, holding the GIL
    text = HEADER.replace("f2 numeric", "f2 {" + ",".join(["a"] * 25) + "} x") + ROW
    seconds, message = _timed(lambda: load_arff(text, n_labels=2))
    assert message is not None and seconds < 5, (seconds, message)
    assert "line 3" in message and "nominal type" in message


def test_a_long_quoted_data_value_is_refused_naming_the_line():
    text = HEADER.replace("f2 numeric", "f2 string") + "1,'" + "b" * 1_500_000 + "',0,1\n"
    seconds, message = _timed(lambda: load_arff(text, n_labels=2))
    assert message is not None and seconds < 5, (seconds, message)
    assert "line 7" in message and "1,000,000" in message


def _wide_arff(n_rows: int, n_attributes: int, sparse: bool = False) -> str:
    head = "@relation wide\n" + "".join(f"@attribute a{j} numeric\n" for j in range(n_attributes))
    row = "{0 1,1 1}" if sparse else ",".join(["0"] * n_attributes)
    return head + "@data\n" + "\n".join([row] * n_rows) + "\n"


@pytest.mark.parametrize(
    ("shape", "budgets", "patterns"),
    [
        ((35, 300_000), {"max_columns": 50_000}, ["300,000 attributes", "50,000 columns"]),
        (
            (35, 30_000),
            {"max_cells": 1_000_000},
            ["35 rows of 30,000", "1,050,000 values", "33 rows fit"],
        ),
        ((35, 30_000), {"max_values": 1_000_000}, ["1,050,000 values", "as CSV"]),
    ],
    ids=["columns", "cells", "values"],
)
def test_a_wide_arff_over_a_budget_is_refused_before_any_row_is_parsed(
    monkeypatch, shape, budgets, patterns
):
    import mlviz.io.arff as arff_module

    text = _wide_arff(*shape)

    def no_parsing(*args, **kwargs):
        raise AssertionError("liac-arff was asked to parse a file over budget")

    monkeypatch.setattr(arff_module.arff, "ArffDecoder", no_parsing)
    seconds, message = _timed(lambda: load_arff(text, n_labels=1, **budgets))
    assert message is not None and seconds < 5, (seconds, message)
    for pattern in patterns:
        assert pattern in message, f"{pattern!r} not in {message!r}"


def test_budgets_count_sparse_entries_and_one_hot_columns():
    sparse = _wide_arff(1_000, 50, sparse=True)
    assert load_arff(sparse, n_labels=1, max_values=3_000).n_samples == 1_000  # 2,000 entries
    with pytest.raises(DataFormatError, match="about 2,000 values"):
        load_arff(sparse, n_labels=1, max_values=1_999)
    many = HEADER.replace("f2 numeric", "f2 {" + ",".join(f"v{k}" for k in range(60)) + "}")
    with pytest.raises(DataFormatError, match="one-hot encode to 63 columns"):
        load_arff(many + "1,v0,0,1\n", n_labels=2, max_columns=50)
    assert load_arff(many + "1,v0,0,1\n", n_labels=2, max_columns=63).n_features == 61


def test_a_repeated_sparse_index_is_an_error_naming_the_line_and_the_index():
    text = HEADER + "{0 1,3 1}\n% a comment\n{0 0.1,0 5,2 1}\n"
    with pytest.raises(DataFormatError) as info:
        load_arff(text, n_labels=2)
    message = str(info.value)
    assert "line 9" in message and "sparse index 0 is given twice" in message, message
    quoted = HEADER.replace("f2 numeric", "f2 string") + "{1 'x, 3 y',3 1}\n{1 'a,b',1 'c'}\n"
    with pytest.raises(DataFormatError, match=r"line 8: sparse index 1 is given twice"):
        load_arff(quoted, n_labels=2, missing="keep")
    # a comma inside a quoted value is not an entry
    assert load_arff(quoted.rsplit("{1 'a", 1)[0], n_labels=2, missing="keep").n_samples == 1


@pytest.mark.parametrize(
    ("first", "second"),
    [("caf\u00e9", "cafe\u0301"), ("a\u200bb", "ab"), ("'l1 '", "l1")],
    ids=["NFC", "zero-width", "whitespace"],
)
def test_attribute_names_that_normalise_alike_are_an_error_naming_both(first, second):
    text = HEADER.replace("@attribute l1", f"@attribute {first}").replace(
        "@attribute l2", f"@attribute {second}"
    )
    with pytest.raises(DataFormatError) as info:
        load_arff(text + ROW, n_labels=2)
    message = str(info.value)
    assert "line 4 and line 5" in message and "same name" in message, message
    assert ascii(first.strip("'")) in message and ascii(second) in message


def test_names_are_stored_normalised_with_a_note_and_xml_names_match_them():
    text = HEADER.replace("@attribute l1", "@attribute 'cafe\u0301 '").replace(
        "@attribute l2", "@attribute a\u200bb"
    )
    ds = load_arff(text + ROW, xml=xml_text(" caf\u00e9", "ab"))
    assert ds.label_names == ("caf\u00e9", "ab")
    assert any("Names normalised" in note and "'ab'" in note for note in ds.notes), ds.notes
    assert not any("Names normalised" in n for n in load_arff(HEADER + ROW, n_labels=2).notes)

"""load_csv: separators, missing cells, repeated or blank column names, bad values."""

from __future__ import annotations

import re

import numpy as np
import pytest

from mlviz.io import DataFormatError, load_csv


# --------------------------------------------------------------------------- load_csv
def test_load_csv_by_count_and_by_name():
    text = "a,b,y1,y2\n1,2.5,0,1\n3,,1,1\n-1,4,0,0\n"
    ds = load_csv(text, 2, name="t", missing="keep")
    np.testing.assert_array_equal(ds.X, [[1, 2.5], [3, np.nan], [-1, 4]])  # empty cell: NaN
    np.testing.assert_array_equal(ds.Y, [[0, 1], [1, 1], [0, 0]])
    assert ds.feature_names == ("a", "b") and ds.label_names == ("y1", "y2")
    assert any("'b' (1)" in note and "kept as NaN" in note for note in ds.notes)
    with pytest.raises(DataFormatError) as info:
        load_csv(text, 2)
    for pattern in [
        "'b' is empty in data row 2",
        "line 3",
        "1 missing",
        "missing='keep'",
        "SimpleImputer",
    ]:
        assert pattern in str(info.value), f"{pattern!r} not in {info.value}"
    by_name = load_csv(text.encode(), ["y1"], missing="keep")
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
        ("a,b,l\n1,inf,0\n", 1, ["feature column 'b' is inf", "data row 1", "finite"]),
        ("a,b,l\n1,-inf,0\n", 1, ["feature column 'b' is -inf"]),
        # a blank header cell (pandas would call it 'Unnamed: 0')
        (",a,l\n0,1,0\n", 1, ["line 1", r"column\(s\) \[1\]", "no name"]),
        ("a,b,l,\n1,2,0,\n", 1, [r"\[4\]", "no name"]),
    ],
)
def test_load_csv_errors(text, labels, patterns):
    with pytest.raises(DataFormatError) as info:
        load_csv(text, labels)
    for pattern in patterns:
        assert re.search(pattern, str(info.value)), f"{pattern!r} not in {info.value}"


@pytest.mark.parametrize("labels", [["l1"], 1])
def test_load_csv_rejects_a_repeated_column_name(labels):
    # pandas would read the second l1 as 'l1.1', a feature: the label would leak into X
    text = "x,l1,z,l1\n1,0,2,0\n3,1,4,1\n"
    with pytest.raises(DataFormatError) as info:
        load_csv(text, labels)
    message = str(info.value)
    assert "line 1" in message and "'l1' at columns [2, 4]" in message, message
    tsv = "x\ty\tx\n1\t0\t2\n"
    with pytest.raises(DataFormatError, match=r"'x' at columns \[1, 3\]"):
        load_csv(tsv, ["y"])

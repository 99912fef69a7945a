"""load_csv: separators, missing cells, repeated or blank column names, bad values."""

from __future__ import annotations

import re
import time

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


# --------------------------------------------------------------------------- hostile uploads
# (issue 29) parsing vectorised, budgets checked before any row is parsed, names normalised
def _wide_csv(n_rows: int, n_columns: int) -> str:
    header = ",".join(f"c{j}" for j in range(n_columns))
    return header + "\n" + "\n".join([",".join(["0"] * n_columns)] * n_rows) + "\n"


def test_a_300k_column_table_is_parsed_in_seconds():
    # pandas' reader costs ~100 µs a column: the old loader took 23.5 s here
    text = _wide_csv(2, 300_000)
    start = time.perf_counter()
    ds = load_csv(text, 1)
    seconds = time.perf_counter() - start
    assert ds.X.shape == (2, 299_999) and ds.label_names == ("c299999",)
    assert seconds < 5, seconds


@pytest.mark.parametrize(
    ("budgets", "patterns"),
    [
        ({"max_columns": 50_000}, ["line 1", "300,000 columns", "up to 50,000"]),
        ({"max_cells": 500_000}, ["2 rows × 300,000 columns = 600,000", "1 rows fit"]),
    ],
    ids=["columns", "cells"],
)
def test_a_table_over_a_budget_is_refused_before_any_row_is_parsed(monkeypatch, budgets, patterns):
    import pandas as pd

    def no_parsing(*args, **kwargs):
        raise AssertionError("a table over budget was parsed")

    monkeypatch.setattr(pd, "read_csv", no_parsing)
    monkeypatch.setattr(np, "loadtxt", no_parsing)
    text = _wide_csv(2, 300_000)
    start = time.perf_counter()
    with pytest.raises(DataFormatError) as info:
        load_csv(text, 1, **budgets)
    assert time.perf_counter() - start < 5
    for pattern in patterns:
        assert pattern in str(info.value), f"{pattern!r} not in {info.value}"


def test_the_cells_budget_counts_rows_not_blank_lines():
    text = "a,b,l\n\n1,2,0\n  \n3,4,1\n\n"
    assert load_csv(text, 1, max_cells=6).n_samples == 2
    with pytest.raises(DataFormatError, match=r"2 rows × 3 columns = 6 values; up to 5"):
        load_csv(text, 1, max_cells=5)


def test_wide_tables_read_by_numpy_load_as_pandas_reads_them(monkeypatch):
    import mlviz.io.csv as csv_module

    rng = np.random.default_rng(0)
    cells = rng.normal(size=(40, 30)).round(3).astype(str).astype(object)
    cells[rng.random(cells.shape) < 0.05] = ""  # empty cells: missing
    cells[3, 0], cells[5, -1] = "", " "
    labels = (rng.random((40, 2)) < 0.4).astype(int).astype(str)
    header = ",".join([f"f{j}" for j in range(30)] + ["l0", " l1 "])
    for eol in ("\n", "\r\n"):
        rows = [",".join([*x, *y]) for x, y in zip(cells, labels, strict=True)]
        text = eol.join([header, *rows]) + eol
        monkeypatch.setattr(csv_module, "_WIDE", 10)  # numpy's reader
        wide = load_csv(text, ["l0", "l1"], missing="keep")
        monkeypatch.setattr(csv_module, "_WIDE", 10_000)  # pandas'
        narrow = load_csv(text, ["l0", "l1"], missing="keep")
        np.testing.assert_array_equal(wide.X, narrow.X)
        np.testing.assert_array_equal(wide.Y, narrow.Y)
        assert wide.notes == narrow.notes and wide.feature_names == narrow.feature_names
        # a cell numpy cannot read: pandas reads the table and names the cell
        monkeypatch.setattr(csv_module, "_WIDE", 10)
        broken = text.replace(cells[4, 7], "abc", 1)
        with pytest.raises(DataFormatError, match=r"'f7' is not numeric \(value 'abc' in data"):
            load_csv(broken, 2, missing="keep")


def test_a_header_name_with_surrounding_spaces_is_chosen_by_its_stripped_name():
    text = 'x, l1 ,"l2 "\n1,0,1\n2,1,0\n'
    ds = load_csv(text, ["l1", " l2"])
    assert ds.label_names == ("l1", "l2") and ds.feature_names == ("x",)
    assert any("Names normalised" in note for note in ds.notes), ds.notes
    with pytest.raises(DataFormatError, match=r"\['l1'\] are named more than once"):
        load_csv(text, ["l1", "l1 "])


@pytest.mark.parametrize(
    ("first", "second"),
    [("caf\u00e9", "cafe\u0301"), ("a\u200bb", "ab"), ("l1", "\ufeffl1")],
    ids=["NFC", "zero-width", "BOM"],
)
def test_header_names_that_normalise_alike_are_an_error_naming_both(first, second):
    with pytest.raises(DataFormatError) as info:
        load_csv(f"x,{first},{second}\n1,0,1\n", 2)
    message = str(info.value)
    assert (
        "line 1" in message and "(column 2 and column 3)" in message and "same name" in message
    ), message
    assert ascii(first) in message and ascii(second) in message


def test_a_hostile_header_is_sniffed_and_refused_fast_with_a_bounded_message():
    # csv.Sniffer is quadratic in a line of quotes (the old loader sniffed 20 whole lines)
    text = "a,'" * 30_000 + "\n" + "1," * 59_999 + "1\n"
    start = time.perf_counter()
    with pytest.raises(DataFormatError) as info:
        load_csv(text, 1)
    assert time.perf_counter() - start < 5
    message = str(info.value)
    assert "column name(s) repeat" in message and len(message) < 1_000, message[:2_000]

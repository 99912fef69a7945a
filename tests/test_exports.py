"""Safe exports (issue 24 item 4): formula cells neutralised, file names sanitised, one path.

The core rules (:mod:`mlviz.io.export`) on a corpus of hostile cells, then the app: no page
writes a download itself, and the Data and Compare pages' CSVs of a data set whose label
names and name are hostile come out neutralised with safe file names.
"""

from __future__ import annotations

import ast
import csv
import io
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from mlviz.io import Dataset
from mlviz.io.export import (
    FORMULA_PREFIXES,
    MAX_FILENAME_LENGTH,
    neutralize_cell,
    safe_csv,
    safe_filename,
)

REPO = Path(__file__).resolve().parents[1]
TIMEOUT = 300

#: Cells a spreadsheet would run (issue 24's examples and the other OWASP prefixes).
HOSTILE = [
    '=HYPERLINK("http://evil.example/login","Sign in again")',
    "@SUM(1)",
    "-2+3+cmd|' /C calc'!A0",
    "+1",
    "\t=1+1",
    "\r=1+1",
    "=1",
]
HARMLESS = ["yeast", "a+b", "x=1", "label 1", "'=already quoted"]
SAFE_NAME = re.compile(r"^[A-Za-z0-9._-]+$")


def _read(text) -> list[list[str]]:
    """A CSV's rows; a download button's data may be the function that writes it."""
    return list(csv.reader(io.StringIO(text() if callable(text) else text)))


def _is_formula(cell: str) -> bool:
    return cell.startswith(FORMULA_PREFIXES)


# ------------------------------------------------------------------------------ the core
@pytest.mark.parametrize("cell", HOSTILE)
def test_a_cell_starting_like_a_formula_gets_a_quote(cell):
    assert neutralize_cell(cell) == "'" + cell


@pytest.mark.parametrize("cell", HARMLESS)
def test_other_text_is_unchanged(cell):
    assert neutralize_cell(cell) == cell


@pytest.mark.parametrize("value", [-0.5, -3, 0, 2.5, np.float64(-1e-9), np.int64(-7), True])
def test_numbers_stay_numbers(value):
    assert neutralize_cell(value) is value


def test_safe_csv_neutralises_cells_and_header_but_not_numbers():
    table = pd.DataFrame(
        {
            "label": HOSTILE + HARMLESS,
            "-score": np.linspace(-1.0, 1.0, len(HOSTILE) + len(HARMLESS)),
            "@count": np.arange(-6, len(HARMLESS) + len(HOSTILE) - 6),
            "tail": [True, False] * 6,
        }
    )
    rows = _read(safe_csv(table))
    header, body = rows[0], rows[1:]
    assert header == ["label", "'-score", "'@count", "tail"]
    assert [row[0] for row in body] == ["'" + c for c in HOSTILE] + HARMLESS
    # the numbers read back as the same numbers, negative ones included
    assert np.allclose([float(row[1]) for row in body], table["-score"])
    assert [int(row[2]) for row in body] == table["@count"].tolist()
    assert not any(_is_formula(cell) for row in rows for cell in row if not _number(cell))


def _number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


def test_safe_csv_text_column_of_numbers_and_missing_values():
    # a text column holding "-1" is text to the rule (only the column's dtype says number);
    # missing cells stay empty, index entries are neutralised when written
    table = pd.DataFrame({"name": ["-1", None, "=2"]}, index=pd.Index(["=i", "j", "+k"]))
    rows = _read(safe_csv(table, index=True))
    assert rows[1:] == [["'=i", "'-1"], ["j", ""], ["'+k", "'=2"]]
    with pytest.raises(TypeError, match="DataFrame"):
        safe_csv([["=1"]])


def test_safe_filename_keeps_only_safe_characters_caps_and_never_empty():
    assert safe_filename("yeast", "per_label", extension="csv") == "yeast_per_label.csv"
    hostile = safe_filename('=HYPERLINK("http://e.x/")/../..\\evil name', extension=".csv")
    assert SAFE_NAME.match(hostile) and hostile.endswith(".csv") and ".." not in hostile[:-4]
    assert safe_filename("", "///", extension="csv") == "mlviz.csv"
    assert safe_filename("ü" * 10) == "mlviz"
    long = safe_filename("x" * 1000, "labels", extension="csv")
    assert len(long) == MAX_FILENAME_LENGTH and long.endswith(".csv")
    assert not safe_filename(".hidden").startswith(".")


# ------------------------------------------------------------------------------ the app
def test_no_page_writes_a_download_itself():
    """Every download goes through pages/_app/export.py (safe CSV, safe file name)."""
    offenders = []
    for path in sorted((REPO / "pages").rglob("*.py")):
        if path == REPO / "pages" / "_app" / "export.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr in ("download_button", "to_csv"):
                offenders.append(f"{path.relative_to(REPO)}:{node.lineno} {node.attr}")
    assert not offenders, offenders


def _hostile_dataset() -> Dataset:
    rng = np.random.default_rng(0)
    names = (*HOSTILE, "plain")
    Y = (rng.random((60, len(names))) < 0.4).astype(np.uint8)
    Y[0] = 1  # every label occurs
    return Dataset(
        "=cmd|' /C calc'!A0 ../../x",
        rng.normal(size=(60, 4)),
        Y,
        feature_names=("f1", "f2", "f3", "f4"),
        label_names=names,
    )


@pytest.fixture
def downloads(monkeypatch):
    """Every st.download_button call of a run: (label, data, file_name)."""
    import streamlit

    calls: list[tuple[str, object, str]] = []

    def record(label, data=None, file_name=None, *args, **kwargs):
        calls.append((label, data, file_name))
        return False

    monkeypatch.setattr(streamlit, "download_button", record)
    return calls


def _run(page: str, dataset: Dataset, **state) -> AppTest:
    at = AppTest.from_file(str(REPO / "pages" / page), default_timeout=TIMEOUT)
    at.session_state["dataset"] = dataset
    at.session_state["dataset_label"] = dataset.name
    for key, value in state.items():
        at.session_state[key] = value
    return at.run()


def _csvs(calls) -> dict[str, tuple[list[list[str]], str]]:
    return {label: (_read(data), name) for label, data, name in calls if name.endswith(".csv")}


def test_data_page_csvs_are_neutralised_and_safely_named(downloads):
    dataset = _hostile_dataset()
    at = _run("data.py", dataset)
    assert not at.exception, [e.message for e in at.exception]
    csvs = _csvs(downloads)
    assert set(csvs) == {"Download the label table (CSV)", "Download the summary (CSV)"}
    for rows, name in csvs.values():
        assert SAFE_NAME.match(name), name
        for row in rows:
            assert not any(_is_formula(cell) for cell in row if not _number(cell)), row
    labels, _ = csvs["Download the label table (CSV)"]
    assert labels[0] == [
        "label",
        "count",
        "frequency",
        "tail",
        "co_occurring_labels",
        "imbalance_ratio",
        "scumble",
    ]
    assert [row[0] for row in labels[1:]] == ["'" + c for c in HOSTILE] + ["plain"]
    summary, _ = csvs["Download the summary (CSV)"]
    assert summary[1][summary[0].index("data_set")] == "'" + dataset.name


def test_compare_page_csvs_are_neutralised_and_safely_named(downloads):
    at = _run("compare.py", _hostile_dataset())
    at.multiselect(key="compare_methods").set_value(["BR"]).run()
    at.slider(key="compare_folds").set_value(2).run()
    at.button(key="compare_fit").click().run()
    assert not at.exception, [e.message for e in at.exception]
    csvs = _csvs(downloads)
    assert {"Download fold results (CSV)", "Download per-label table (CSV)"} <= set(csvs)
    for rows, name in csvs.values():
        assert SAFE_NAME.match(name), name
        for row in rows:
            assert not any(_is_formula(cell) for cell in row if not _number(cell)), row
    per_label, _ = csvs["Download per-label table (CSV)"]
    column = per_label[0].index("label")
    assert sorted(row[column] for row in per_label[1:]) == sorted(
        ["'" + c for c in HOSTILE] + ["plain"]
    )


def test_the_pages_html_report_is_self_contained_and_safely_named(downloads):
    dataset = _hostile_dataset()
    at = _run("data.py", dataset)
    assert not at.exception, [e.message for e in at.exception]
    (report,) = [(data, name) for _, data, name in downloads if name.endswith(".html")]
    data, name = report
    assert SAFE_NAME.match(name), name
    page = data() if callable(data) else data  # built when the button is pressed
    assert not re.search(r"<script\b[^>]*\bsrc\s*=", page, re.IGNORECASE)
    assert page.count('class="plotly-graph-div"') >= 2
    # the data set's hostile name is escaped text in the report, never markup
    assert "<h1>=cmd|&#x27; /C calc&#x27;!A0 ../../x — Data</h1>" in page


def test_csv_button_writes_the_table_as_it_was_when_drawn(downloads):
    """The CSV is written when pressed (after the run), from a copy taken when drawn."""
    from pages._app import export

    table = pd.DataFrame({"label": ["=cmd", "plain"], "count": [3, 1]})
    export.csv_button("Download it", table, name=("data", "table"))
    table.loc[0, "label"] = "changed after the button was drawn"
    ((rows, name),) = _csvs(downloads).values()
    assert name == "data_table.csv"
    assert rows == [["label", "count"], ["'=cmd", "3"], ["plain", "1"]]


def test_a_download_click_does_not_rerun_the_page():
    """A deferred download's click must not rerun the page: the rerun registers the button's
    file under a new id and drops the one the click asked for, and on a busy server the file
    then never came (CI, stops 44 and 46)."""
    from mlviz import datasets

    at = _run("data.py", datasets.load_source("sample:planted"))
    assert not at.exception, [e.message for e in at.exception]
    buttons = at.get("download_button")
    labels = {button.proto.label for button in buttons}
    assert {"Download the label table (CSV)", "Download this view (HTML report)"} <= labels
    for button in buttons:
        assert button.proto.deferred_file_id, f"{button.proto.label}: written on every run"
        assert button.proto.ignore_rerun, f"{button.proto.label}: its click reruns the page"

"""Reading a CSV/TSV table with a header row and 0/1 label columns."""

from __future__ import annotations

import csv
import io
import re
import warnings
from collections import Counter
from itertools import compress

import numpy as np

from mlviz.io._dataset import DataFormatError, Dataset
from mlviz.io._source import Source, _read_source, _snippet, _Text
from mlviz.io.arff import MissingPolicy
from mlviz.io.labels import normalize_name, normalize_names


def load_csv(
    source: Source,
    label_columns: list[str] | int,
    *,
    name: str | None = None,
    sep: str | None = None,
    missing: MissingPolicy = "error",
    max_columns: int | None = None,
    max_cells: int | None = None,
) -> Dataset:
    """Read a CSV/TSV table with a header row and 0/1 label columns.

    Parameters
    ----------
    source : path, str, bytes or file object
        A path, the table's text (a string containing a newline), UTF-8 bytes or a file object.
    label_columns : list of str, or int
        Names of the label columns, or ``n``: the last ``n`` columns.
    name : str, optional
        Data set name; default: the file stem.
    sep : str, optional
        Field separator; sniffed from the first lines (``,`` ``;`` tab ``|``) when None.
    missing : {"error", "keep"}, default "error"
        Empty (or ``NA``/``NaN``) feature cells: "error" raises a :class:`DataFormatError`
        naming the first one and the count; "keep" loads them as NaN with a note, to be
        imputed inside the model on the training rows (``sklearn.impute.SimpleImputer`` in a
        pipeline). The loader never imputes.
    max_columns, max_cells : int, optional
        Budgets checked from the header line and a count of the lines, before any row is
        parsed (None, the default: no limit): the columns, and rows × columns. A table over a
        budget is a :class:`DataFormatError` that says by how much and what to do.

    Returns
    -------
    Dataset
        Dense float64 ``X`` (all other columns, which must be numeric) and uint8 ``Y``.

    Notes
    -----
    Column names, and the names in ``label_columns``, are compared and stored in the form of
    :func:`mlviz.io.labels.normalize_name` (Unicode NFC, zero-width characters removed,
    surrounding whitespace stripped; a note says when a header name changed): a header cell
    ``" l1 "`` is the column ``l1``. Tables wider than 1,000 columns are read by numpy's C
    reader into one array (pandas' costs ~100 µs per column); a cell it cannot read sends the
    table to pandas, whose errors name the cell.

    Raises
    ------
    DataFormatError
        Over a budget; two header names that differ only by Unicode normalisation, zero-width
        characters or surrounding whitespace; empty or unparsable table; a column name that
        repeats (pandas would rename the second copy ``name.1`` and, were it a label, leak it
        into the features) or a header cell with no name; a label column named twice in
        ``label_columns``; unknown label columns; a non-numeric feature column; an infinite
        feature value; a missing feature value (with ``missing="error"``); a label value other
        than 0/1 or a missing label. Each message names the column and the row.

    Examples
    --------
    >>> import io
    >>> from mlviz.io import load_csv
    >>> table = io.StringIO("x1,x2,a,b\\n0.5,1,1,0\\n2,0,0,1\\n1,1,1,1\\n")
    >>> ds = load_csv(table, label_columns=["a", "b"])
    >>> ds.X.shape, ds.label_names, ds.Y.sum(axis=0).tolist()
    ((3, 2), ('a', 'b'), [2, 2])
    """
    if missing not in ("error", "keep"):
        raise ValueError(f"missing must be 'error' or 'keep'; got {missing!r}.")
    if isinstance(label_columns, bool):
        raise TypeError("label_columns must be a list of column names or an int.")
    text = _read_source(source, "CSV", lambda s: "\n" in s or not s.strip())
    if not text.text.strip():
        raise DataFormatError(f"{text.label}: the input is empty. Give a table with a header row.")
    if sep is None:
        try:
            sep = csv.Sniffer().sniff(_sample(text.text), delimiters=",;\t|").delimiter
        except csv.Error:
            sep = ","
    _check_budget(text, sep, max_columns, max_cells)
    columns, header_lines, notes = _check_header(text, sep)
    labels = _label_names(text, label_columns, columns)
    # C-level passes (dict(zip), compress): a header may have millions of columns
    position = dict(zip(columns, range(len(columns)), strict=True))
    label_positions = [position[c] for c in labels]
    is_feature = np.ones(len(columns), dtype=bool)
    is_feature[label_positions] = False
    features = list(compress(columns, is_feature.tolist()))
    if not features:
        raise DataFormatError(f"{text.label}: every column is a label; no features remain.")
    values = None
    if len(columns) > _WIDE:
        values = _parse_wide(text.text, sep, header_lines, len(columns))
    if values is None:
        values = _parse_frame(text, sep, columns, labels)
    if values.shape[0] == 0:
        raise DataFormatError(f"{text.label}: the table has a header but no rows.")
    Y = _label_matrix(text, values[:, label_positions], labels)
    X = values[:, is_feature]
    del values
    notes += _check_features(text, X, features, missing)
    return Dataset(
        name=name or text.stem or "csv",
        X=X,
        Y=Y,
        feature_names=tuple(features),
        label_names=tuple(labels),
        notes=tuple(notes),
    )


# A table wider than this is parsed by numpy's C reader into one float array: pandas' reader
# costs ~100 µs per column (300,000 columns took 23 s) and, 1,000 rows × 50,000 columns, 4x
# numpy's memory (2.1 GB against 0.6 GB).
_WIDE = 1_000
_SNIFF_CHARS = 8_192  # the separator is sniffed from the start only: the sniffer is quadratic
# an empty cell: before a separator at a line's start or after one, or after one at a line's end
_EMPTY_CELL = r"(?<![^\n{sep}])[ \t]*+(?={sep})|(?<={sep})[ \t]*+(?![^\n{sep}])"


def _sample(text: str) -> str:
    """The first 20 lines, at most :data:`_SNIFF_CHARS` characters (the sniffer is Python)."""
    head = text[:_SNIFF_CHARS]
    lines = head.split("\n")[:20]
    return "\n".join(lines[:-1] if len(lines) > 1 and len(head) == _SNIFF_CHARS else lines)


def _count_rows(text: str, header_end: int) -> int:
    """Non-blank lines after the header (pandas and numpy skip blank lines); C-level passes."""
    rest = text[header_end:]
    return rest.count("\n") + 1 - _BLANK_LINE.subn("", rest)[1]


_BLANK_LINE = re.compile(r"^[ \t\r]*+$", re.MULTILINE)


def _check_budget(text: _Text, sep: str, max_columns: int | None, max_cells: int | None) -> None:
    """Refuse a table over a budget from its first line and a line count, before parsing."""
    if max_columns is None and max_cells is None:
        return
    end = text.text.find("\n")
    end = len(text.text) if end < 0 else end
    first = text.text[:end]
    if '"' in first:  # a quoted header cell may hold the separator: count what csv reads
        n_columns = len(next(csv.reader([first], delimiter=sep, skipinitialspace=True)))
    else:
        n_columns = first.count(sep) + 1
    if max_columns is not None and n_columns > max_columns:
        raise DataFormatError(
            f"{text.label} line 1: the header has {n_columns:,} columns; "
            f"up to {max_columns:,} are read here. Keep fewer feature columns (e.g. the most "
            "informative ones) and load the table again."
        )
    rows = _count_rows(text.text, end)
    cells = rows * n_columns
    if max_cells is not None and cells > max_cells:
        raise DataFormatError(
            f"{text.label}: the table has {rows:,} rows × {n_columns:,} columns = {cells:,} "
            f"values; up to {max_cells:,} are read here (rows × columns). Keep a random sample "
            f"of the rows (about {max(max_cells // n_columns, 1):,} rows fit) or fewer columns, "
            "and load the table again."
        )


def _label_names(text: _Text, label_columns: list[str] | int, columns: list[str]) -> list[str]:
    if isinstance(label_columns, int | np.integer):
        n = int(label_columns)
        if not 1 <= n < len(columns):
            raise DataFormatError(
                f"{text.label}: label_columns={n}, but the table has {len(columns)} columns; "
                "need at least one label and one feature column."
            )
        return columns[-n:]
    # the header's names are normalised (normalize_name): so are the names asked for, so that
    # " l1 " in the header is chosen as "l1"
    labels = [normalize_name(str(c)) for c in label_columns]
    counts = Counter(labels)
    repeated = [c for c in counts if counts[c] > 1]
    if repeated:
        # "l1, l1" would load l1 twice as two labels and leave the real second label
        # among the features
        raise DataFormatError(
            f"{text.label}: label column(s) {repeated} are named more than once in "
            f"label_columns {labels}. Name each label column once (were they meant to be "
            "different columns? check the spelling)."
        )
    known = set(columns)
    unknown = [c for c in labels if c not in known]
    if unknown:
        raise DataFormatError(
            f"{text.label}: label column(s) {unknown} not in the table; its columns are "
            f"{columns[:20]}{' ...' if len(columns) > 20 else ''}."
        )
    if not labels:
        raise DataFormatError(f"{text.label}: no label columns given.")
    return labels


def _parse_wide(text: str, sep: str, header_lines: int, n_columns: int) -> np.ndarray | None:
    """The rows as one float array by numpy's C reader, or None to let pandas read (and
    explain) a table with a cell numpy cannot read (text, ``NA``, a short or long row)."""
    start = 0
    for _ in range(header_lines):
        start = text.find("\n", start) + 1 if text.find("\n", start) >= 0 else len(text)
    body = text[start:]
    if not body.strip():
        return np.empty((0, n_columns))
    if "\r" in body:
        body = body.replace("\r\n", "\n").replace("\r", "\n")
    # an empty cell is missing (NaN), as pandas reads it
    empty = re.compile(_EMPTY_CELL.replace("{sep}", re.escape(sep)))
    if f"{sep}{sep}" in body or f"{sep}\n" in body or f"\n{sep}" in body or body[0] == sep:
        body = empty.sub("nan", body)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # "input contained no data"
            values = np.loadtxt(
                io.StringIO(body),
                delimiter=sep,
                dtype=np.float64,
                ndmin=2,
                comments=None,
                quotechar='"',
            )
    except ValueError:
        return None
    return values if values.shape[1] == n_columns else None


def _parse_frame(text: _Text, sep: str, columns: list[str], labels: list[str]) -> np.ndarray:
    """The rows as one float array by pandas' reader; a cell that is not a number is an error
    naming its column and row (NaN: missing)."""
    import pandas as pd

    try:
        # a row longer than the header would silently become the index, or be cut short
        with warnings.catch_warnings():
            warnings.simplefilter("error", pd.errors.ParserWarning)
            frame = pd.read_csv(
                io.StringIO(text.text), sep=sep, skipinitialspace=True, index_col=False
            )
    except (
        pd.errors.ParserError,
        pd.errors.ParserWarning,
        pd.errors.EmptyDataError,
        ValueError,
    ) as err:
        raise DataFormatError(
            f"{text.label}: cannot parse the table ({str(err).strip()}). Every row needs as "
            "many fields as the header, separated by one separator; pass sep= if it is not "
            "sniffed correctly."
        ) from err
    if len(frame.columns) != len(columns):
        raise DataFormatError(
            f"{text.label}: cannot parse the table: pandas reads {len(frame.columns)} columns in "
            f"the header, the csv module {len(columns)} (quoting?). Quote header cells with "
            '"..." only; pass sep= if it is not sniffed correctly.'
        )
    frame.columns = columns
    label_set = set(labels)
    # only the columns pandas did not read as numbers are looked at one by one: in a valid
    # table there are none
    for j in [j for j, dtype in enumerate(frame.dtypes) if dtype.kind not in "fiub"]:
        column, raw = columns[j], frame.iloc[:, j]
        converted = pd.to_numeric(raw, errors="coerce")
        bad = np.flatnonzero(converted.isna().to_numpy() & raw.notna().to_numpy())
        if bad.size:
            row = int(bad[0])
            if column in label_set:
                raise DataFormatError(
                    f"{text.label}: label column {column!r} is '{raw.iloc[row]}' in data row "
                    f"{row + 1} (file line {row + 2}); label values must be 0 or 1."
                )
            raise DataFormatError(
                f"{text.label}: feature column {column!r} is not numeric (value "
                f"'{raw.iloc[row]}' in data row {row + 1}, file line {row + 2}). Encode it as "
                "numbers, drop the column, or name it in label_columns if it is a label."
            )
        frame.isetitem(j, converted)
    return frame.to_numpy(dtype=np.float64, copy=False)  # no copy of a single float block


def _label_matrix(text: _Text, values: np.ndarray, labels: list[str]) -> np.ndarray:
    bad = ~np.isin(values, (0.0, 1.0))  # NaN (missing) too
    if bad.any():
        k = int(np.flatnonzero(bad.any(axis=0))[0])
        row = int(np.flatnonzero(bad[:, k])[0])
        value = values[row, k]
        shown = "missing" if np.isnan(value) else f"'{value:g}'"
        raise DataFormatError(
            f"{text.label}: label column {labels[k]!r} is {shown} in data row {row + 1} (file "
            f"line {row + 2}); label values must be 0 or 1."
        )
    return values.astype(np.uint8)


def _check_features(
    text: _Text, X: np.ndarray, features: list[str], missing: MissingPolicy
) -> list[str]:
    """Infinite values are an error; missing ones an error or a note (``missing``)."""
    infinite = np.isinf(X)
    if infinite.any():
        k = int(np.flatnonzero(infinite.any(axis=0))[0])
        row = int(np.flatnonzero(infinite[:, k])[0])
        raise DataFormatError(
            f"{text.label}: feature column {features[k]!r} is {X[row, k]:g} in data row "
            f"{row + 1} (file line {row + 2}); features must be finite numbers."
        )
    del infinite
    gaps = np.isnan(X)
    counts = gaps.sum(axis=0)
    with_gaps = np.flatnonzero(counts)
    if not with_gaps.size:
        return []
    first_rows = gaps[:, with_gaps].argmax(axis=0)
    missing_cells = [
        (features[k], int(counts[k]), int(r))
        for k, r in zip(with_gaps.tolist(), first_rows.tolist(), strict=True)
    ]
    listed = ", ".join(f"'{c}' ({n})" for c, n, _ in missing_cells[:5])
    listed += " ..." if len(missing_cells) > 5 else ""
    if missing == "error":
        column, _, row = min(missing_cells, key=lambda cell: cell[2])
        total = sum(n for _, n, _ in missing_cells)
        raise DataFormatError(
            f"{text.label}: feature column {column!r} is empty in data row {row + 1} (file "
            f"line {row + 2}), the first of {total} missing feature value(s) in "
            f"{len(missing_cells)} column(s): {listed}. The loader does not fill them in (a "
            "mean over all rows would use the test rows too). Pass missing='keep' to load "
            "them as NaN and impute inside the model, fitted on the training rows only, "
            "e.g. make_pipeline(SimpleImputer(strategy='mean'), model) with "
            "sklearn.impute.SimpleImputer; or fill in the cells."
        )
    return [
        f"Empty feature cells kept as NaN (missing='keep'): {listed}. Impute them on the "
        "training rows before fitting, e.g. with sklearn.impute.SimpleImputer in a pipeline."
    ]


def _check_header(text: _Text, sep: str) -> tuple[list[str], int, list[str]]:
    """The header's names (normalised), how many lines it spans, and a note if a name changed.

    Repeated and blank names are errors, not renamed as pandas would: pandas turns a second
    ``l1`` into ``l1.1`` and a blank name into ``Unnamed: 2``; a renamed copy of a label column
    would then become a feature: the label leaks into ``X``.
    """
    reader = csv.reader(io.StringIO(text.text), delimiter=sep, skipinitialspace=True)
    try:
        header = next(reader)
    except (StopIteration, csv.Error) as err:
        raise DataFormatError(
            f"{text.label} line 1: cannot read the header row ({err}). The first line must name "
            "the columns, separated by one separator; pass sep= if it is not sniffed correctly."
        ) from err
    names, note = normalize_names(
        header, f"{text.label} line 1", place=lambda index: f"column {index + 1}"
    )
    if "" in names:
        blank = [position for position, cell in enumerate(names, start=1) if not cell]
        raise DataFormatError(
            f"{text.label} line 1: column(s) {blank} (counting from 1) have no name in the header "
            "row. Name every column (a leading blank column is often an index written by "
            "pandas: save with index=False, or drop it)."
        )
    if len(set(names)) < len(names):
        positions: dict[str, list[int]] = {}
        for position, cell in enumerate(names, start=1):
            positions.setdefault(cell, []).append(position)
        repeated = [(cell, where) for cell, where in positions.items() if len(where) > 1]
        listed = "; ".join(
            f"{_snippet(cell)!r} at columns {where if len(where) <= 6 else [*where[:5], '...']}"
            for cell, where in repeated[:5]
        ) + ("; ..." if len(repeated) > 5 else "")
        raise DataFormatError(
            f"{text.label} line 1: column name(s) repeat: {listed} (counting from 1). Every "
            "column needs a unique name; rename or drop the copies, so that no copy of a label "
            "can end up among the features."
        )
    return names, reader.line_num, [note] if note else []

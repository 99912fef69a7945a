"""Reading a CSV/TSV table with a header row and 0/1 label columns."""

from __future__ import annotations

import csv
import io
import warnings

import numpy as np

from mlviz.io._dataset import DataFormatError, Dataset
from mlviz.io._source import Source, _read_source, _Text
from mlviz.io.arff import MissingPolicy


def load_csv(
    source: Source,
    label_columns: list[str] | int,
    *,
    name: str | None = None,
    sep: str | None = None,
    missing: MissingPolicy = "error",
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

    Returns
    -------
    Dataset
        Dense float64 ``X`` (all other columns, which must be numeric) and uint8 ``Y``.

    Raises
    ------
    DataFormatError
        Empty or unparsable table; a column name that repeats (pandas would rename the second
        copy ``name.1`` and, were it a label, leak it into the features) or a header cell with
        no name; a label column named twice in ``label_columns``; unknown label columns; a
        non-numeric feature column; an infinite feature value; a missing feature value (with
        ``missing="error"``); a label value other than 0/1 or a missing label. Each message
        names the column and the row.

    Examples
    --------
    >>> import io
    >>> from mlviz.io import load_csv
    >>> table = io.StringIO("x1,x2,a,b\\n0.5,1,1,0\\n2,0,0,1\\n1,1,1,1\\n")
    >>> ds = load_csv(table, label_columns=["a", "b"])
    >>> ds.X.shape, ds.label_names, ds.Y.sum(axis=0).tolist()
    ((3, 2), ('a', 'b'), [2, 2])
    """
    import pandas as pd

    if missing not in ("error", "keep"):
        raise ValueError(f"missing must be 'error' or 'keep'; got {missing!r}.")
    text = _read_source(source, "CSV", lambda s: "\n" in s or not s.strip())
    if not text.text.strip():
        raise DataFormatError(f"{text.label}: the input is empty. Give a table with a header row.")
    if sep is None:
        sample = "\n".join(text.text.splitlines()[:20])
        try:
            sep = csv.Sniffer().sniff(sample, delimiters=",;\t|").delimiter
        except csv.Error:
            sep = ","
    _check_header(text, sep)
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
    columns = [str(c) for c in frame.columns]
    frame.columns = columns
    if isinstance(label_columns, bool):
        raise TypeError("label_columns must be a list of column names or an int.")
    if isinstance(label_columns, int | np.integer):
        n = int(label_columns)
        if not 1 <= n < len(columns):
            raise DataFormatError(
                f"{text.label}: label_columns={n}, but the table has {len(columns)} columns; "
                "need at least one label and one feature column."
            )
        labels = columns[-n:]
    else:
        labels = [str(c) for c in label_columns]
        repeated = [c for c in dict.fromkeys(labels) if labels.count(c) > 1]
        if repeated:
            # "l1, l1" would load l1 twice as two labels and leave the real second label
            # among the features
            raise DataFormatError(
                f"{text.label}: label column(s) {repeated} are named more than once in "
                f"label_columns {labels}. Name each label column once (were they meant to be "
                "different columns? check the spelling)."
            )
        unknown = [c for c in labels if c not in columns]
        if unknown:
            raise DataFormatError(
                f"{text.label}: label column(s) {unknown} not in the table; its columns are "
                f"{columns[:20]}{' ...' if len(columns) > 20 else ''}."
            )
        if not labels:
            raise DataFormatError(f"{text.label}: no label columns given.")
    label_set = set(labels)
    features = [c for c in columns if c not in label_set]
    if not features:
        raise DataFormatError(f"{text.label}: every column is a label; no features remain.")
    if len(frame) == 0:
        raise DataFormatError(f"{text.label}: the table has a header but no rows.")

    Y = np.zeros((len(frame), len(labels)), dtype=np.uint8)
    for k, column in enumerate(labels):
        values = pd.to_numeric(frame[column], errors="coerce").to_numpy(dtype=np.float64)
        bad = np.flatnonzero(~np.isin(values, (0.0, 1.0)))
        if bad.size:
            row = int(bad[0])
            raw = frame[column].iloc[row]
            shown = "missing" if pd.isna(raw) else f"'{raw}'"
            raise DataFormatError(
                f"{text.label}: label column {column!r} is {shown} in data row {row + 1} (file "
                f"line {row + 2}); label values must be 0 or 1."
            )
        Y[:, k] = values

    X = np.empty((len(frame), len(features)), dtype=np.float64)
    missing_cells: list[tuple[str, int, int]] = []  # (column, count, first data row)
    for k, column in enumerate(features):
        raw = frame[column]
        values = pd.to_numeric(raw, errors="coerce").to_numpy(dtype=np.float64, copy=True)
        bad = np.flatnonzero(np.isnan(values) & raw.notna().to_numpy())
        if bad.size:
            row = int(bad[0])
            raise DataFormatError(
                f"{text.label}: feature column {column!r} is not numeric (value "
                f"'{raw.iloc[row]}' in data row {row + 1}, file line {row + 2}). Encode it as "
                "numbers, drop the column, or name it in label_columns if it is a label."
            )
        infinite = np.flatnonzero(np.isinf(values))
        if infinite.size:
            row = int(infinite[0])
            raise DataFormatError(
                f"{text.label}: feature column {column!r} is {values[row]:g} in data row "
                f"{row + 1} (file line {row + 2}); features must be finite numbers."
            )
        gaps = np.flatnonzero(np.isnan(values))
        if gaps.size:
            missing_cells.append((column, int(gaps.size), int(gaps[0])))
        X[:, k] = values
    notes: list[str] = []
    if missing_cells:
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
        notes.append(
            f"Empty feature cells kept as NaN (missing='keep'): {listed}. Impute them on the "
            "training rows before fitting, e.g. with sklearn.impute.SimpleImputer in a pipeline."
        )
    return Dataset(
        name=name or text.stem or "csv",
        X=X,
        Y=Y,
        feature_names=tuple(features),
        label_names=tuple(labels),
        notes=tuple(notes),
    )


def _check_header(text: _Text, sep: str) -> None:
    """Reject repeated and blank column names, which pandas would silently rename.

    pandas turns a second ``l1`` into ``l1.1`` and a blank name into ``Unnamed: 2``; a renamed
    copy of a label column would then become a feature: the label leaks into ``X``.
    """
    try:
        header = next(csv.reader(io.StringIO(text.text), delimiter=sep, skipinitialspace=True))
    except (StopIteration, csv.Error):
        return  # pandas reports an unreadable table
    names = [cell.strip() for cell in header]
    blank = [position for position, cell in enumerate(names, start=1) if not cell]
    if blank:
        raise DataFormatError(
            f"{text.label} line 1: column(s) {blank} (counting from 1) have no name in the header "
            "row. Name every column (a leading blank column is often an index written by "
            "pandas: save with index=False, or drop it)."
        )
    positions: dict[str, list[int]] = {}
    for position, cell in enumerate(names, start=1):
        positions.setdefault(cell, []).append(position)
    repeated = {cell: where for cell, where in positions.items() if len(where) > 1}
    if repeated:
        listed = "; ".join(f"{cell!r} at columns {where}" for cell, where in repeated.items())
        raise DataFormatError(
            f"{text.label} line 1: column name(s) repeat: {listed} (counting from 1). Every "
            "column needs a unique name; rename or drop the copies, so that no copy of a label "
            "can end up among the features."
        )

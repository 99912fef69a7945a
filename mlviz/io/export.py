"""Safe exports: tables as CSV that a spreadsheet cannot run, and file names that cannot escape.

Label names, feature names and data set names come from uploads, so a CSV the app writes can
carry whatever a user typed. Spreadsheet programs evaluate a cell that starts with ``=``,
``+``, ``-`` or ``@`` as a formula (and some strip a leading tab or carriage return first):
``=HYPERLINK("http://evil.example", "Sign in")`` becomes a link, ``-2+3+cmd|' /C calc'!A0``
a DDE call. :func:`safe_csv` applies the OWASP rule ("CSV Injection",
https://owasp.org/www-community/attacks/CSV_Injection): every *text* cell that starts with
one of those characters gets a leading ``'``, which spreadsheets show as text; numbers are
written as numbers (a negative number is not text, so it stays ``-0.5``). Every CSV download
of the app goes through it. :func:`safe_filename` is the one place a download's file name is
made from user text.
"""

from __future__ import annotations

import re
from numbers import Number

import numpy as np
import pandas as pd

__all__ = [
    "FORMULA_PREFIXES",
    "MAX_FILENAME_LENGTH",
    "neutralize_cell",
    "safe_csv",
    "safe_filename",
]

#: First characters that make a spreadsheet read a cell as a formula (OWASP's list).
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")

#: Longest file name :func:`safe_filename` returns (extension included); well below the
#: 255 bytes of common file systems, so a browser never has to cut it.
MAX_FILENAME_LENGTH = 120

_UNSAFE_FILENAME = re.compile(r"[^A-Za-z0-9._-]+")
_DOTS = re.compile(r"\.{2,}")


def neutralize_cell(value: object) -> object:
    """One cell as :func:`safe_csv` writes it: text starting like a formula gets a ``'``.

    Numbers (Python, NumPy), booleans and missing values are returned unchanged; anything
    else is text (its ``str``), prefixed with ``'`` when it starts with one of
    :data:`FORMULA_PREFIXES`.

    Examples
    --------
    >>> from mlviz.io.export import neutralize_cell
    >>> neutralize_cell("=1+1"), neutralize_cell("@SUM(A1)"), neutralize_cell("-2+3")
    ("'=1+1", "'@SUM(A1)", "'-2+3")
    >>> neutralize_cell(-0.5), neutralize_cell("yeast")
    (-0.5, 'yeast')
    """
    if value is None or isinstance(value, (Number, np.number, np.bool_)):
        return value
    text = str(value)
    return "'" + text if text.startswith(FORMULA_PREFIXES) else text


def safe_csv(table: pd.DataFrame, *, index: bool = False) -> str:
    """``table`` as CSV text in which no cell can be read as a spreadsheet formula.

    Every text cell, every column name (label names are column names) and, with
    ``index=True``, every index entry go through :func:`neutralize_cell`. Numeric columns are
    not touched, so ``-0.5`` stays a number; a text column holding ``"-0.5"`` is text and is
    prefixed (the rule cannot know that a string was meant as a number).

    Parameters
    ----------
    table : pandas.DataFrame
    index : bool, default=False
        Write the index as the first column(s).

    Returns
    -------
    str
        CSV text as RFC 4180 has it: ``,`` separated, CRLF line ends, a field quoted when it
        holds a separator, quote, CR or LF.

    Examples
    --------
    >>> import pandas as pd
    >>> from mlviz.io.export import safe_csv
    >>> table = pd.DataFrame({"label": ["=HYPERLINK(1)", "ok"], "f1": [-0.5, 1.0]})
    >>> safe_csv(table).splitlines()
    ['label,f1', "'=HYPERLINK(1),-0.5", 'ok,1.0']
    """
    if not isinstance(table, pd.DataFrame):
        raise TypeError(f"safe_csv: expected a pandas DataFrame; got {type(table).__name__}.")
    out = table.copy(deep=False)
    for position in range(out.shape[1]):
        column = out.iloc[:, position]
        if not (pd.api.types.is_numeric_dtype(column) or pd.api.types.is_bool_dtype(column)):
            out.isetitem(position, column.map(neutralize_cell, na_action="ignore"))
    out.columns = _neutralize_labels(out.columns)
    if index:
        out.index = _neutralize_labels(out.index)
    # CRLF line ends (RFC 4180): the csv writer then quotes every field that holds a CR or a
    # LF; with "\n" alone a lone CR in a label name would end the row in a spreadsheet
    return out.to_csv(index=index, lineterminator="\r\n")


def _neutralize_labels(labels: pd.Index) -> pd.Index:
    if isinstance(labels, pd.MultiIndex):
        return pd.MultiIndex.from_tuples(
            [tuple(neutralize_cell(part) for part in entry) for entry in labels],
            names=[neutralize_cell(name) for name in labels.names],
        )
    return pd.Index([neutralize_cell(label) for label in labels], name=labels.name)


def safe_filename(
    *parts: object, extension: str = "", fallback: str = "mlviz", sep: str = "_"
) -> str:
    """A download's file name from user text: only ``[A-Za-z0-9._-]``, bounded, never empty.

    Each part is reduced to those characters (every run of others becomes one ``-``, a run of
    dots one dot; leading and trailing ``-``/``.`` are dropped, so no part is ``..`` or a
    hidden file), empty parts
    are dropped and the rest joined by ``sep``. The stem is cut so that stem plus extension fit
    in :data:`MAX_FILENAME_LENGTH`; with nothing left it is ``fallback``.

    Parameters
    ----------
    *parts : object
        E.g. the data set's name, the page, what the file holds.
    extension : str, default=""
        Appended after a dot (given with or without it), cleaned the same way.
    fallback : str, default="mlviz"
        The stem when no part has a safe character.
    sep : {"_", "-", "."}, default="_"
        What joins the parts (slides use ``page-figure-dataset``).

    Examples
    --------
    >>> from mlviz.io.export import safe_filename
    >>> safe_filename("=cmd|' /C calc'!A0", "per label", extension="csv")
    'cmd-C-calc-A0_per-label.csv'
    >>> safe_filename("../..", extension=".csv")
    'mlviz.csv'
    >>> safe_filename("lesson", "plst_decoding", "my data", sep="-")
    'lesson-plst_decoding-my-data'
    """
    cleaned = [_DOTS.sub(".", _UNSAFE_FILENAME.sub("-", str(part))).strip("-.") for part in parts]
    if sep not in ("_", "-", "."):
        raise ValueError(f"safe_filename: sep must be '_', '-' or '.', got {sep!r}.")
    stem = sep.join(part for part in cleaned if part)
    suffix = _UNSAFE_FILENAME.sub("-", extension.lstrip(".")).strip("-.")
    suffix = f".{suffix}" if suffix else ""
    if len(suffix) > MAX_FILENAME_LENGTH // 2:
        raise ValueError(f"safe_filename: extension {extension!r} is too long.")
    stem = stem[: MAX_FILENAME_LENGTH - len(suffix)].rstrip("-._")
    return (stem or fallback) + suffix

"""Reading ARFF: MULAN and MEKA layouts, dense and sparse rows, and errors that say where.

Parsing is liac-arff's job (quoting, escapes, sparse rows); this module adds what it does not
do: decoding checks, meaning-based encoding of binary nominal values, feature clean-up, and
error messages that name the input, the line and what to do. Which attributes are labels is
:mod:`mlviz.io.labels`' job.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from typing import Literal

import arff
import numpy as np
import scipy.sparse as sp

from mlviz.io._dataset import DataFormatError, Dataset
from mlviz.io._source import Source, _looks_like_arff_text, _read_source, _snippet, _Text
from mlviz.io.labels import label_indices, normalize_names

_TRUE_WORDS = frozenset({"1", "1.0", "yes", "y", "true", "t", "on", "+"})
_FALSE_WORDS = frozenset({"0", "0.0", "no", "n", "false", "f", "off", "-"})
_NUMERIC_TYPES = frozenset({"NUMERIC", "REAL", "INTEGER"})
# Every pattern below is linear in its input: possessive quantifiers (``*+``, ``++``) never give
# back what they matched, so sre keeps no backtracking state per character. The earlier
# ``'(?:[^'\\]|\\.)*'`` pushed one state per character of a quoted name: a 50 MB name took 64 s
# and 7 GB, holding the GIL.
_QUOTED = r"'(?:[^'\\]++|\\.)*+'" + r'|"(?:[^"\\]++|\\.)*+"'
_BARE_VALUE = r"""[^\s{},'"]++"""
_RAW_ATTRIBUTE = re.compile(
    rf"""^@attribute\s++({_QUOTED}|[^\s{{}}%,'"][^\s{{}}%,]*+)\s*+(.*+)$""",
    re.IGNORECASE,
)
# A nominal declaration {v, v, ...}. liac-arff's own pattern for it nests quantifiers and
# backtracks exponentially when the line does not match (30 values and a stray word after the
# '}' run for hours), so only declarations this pattern accepts reach liac-arff.
_NOMINAL = re.compile(
    rf"\{{\s*+(?:(?:{_QUOTED}|{_BARE_VALUE})\s*+(?:,\s*+(?:{_QUOTED}|{_BARE_VALUE})\s*+)*+)?+\}}$"
)
_NOMINAL_VALUE = re.compile(rf"{_QUOTED}|{_BARE_VALUE}")
_QUOTED_TOKEN = re.compile(_QUOTED)
_DATA_LINE = re.compile(r"^[ \t]*@data\b", re.IGNORECASE | re.MULTILINE)
_ATTRIBUTE_LINE = re.compile(r"^[ \t]*@attribute\b", re.IGNORECASE | re.MULTILINE)
_FIRST_ROW = re.compile(r"^[ \t]*+([^ \t\n%])", re.MULTILINE)  # first character of a row
_NOT_A_ROW = re.compile(r"^[ \t]*+(?:%[^\n]*+)?$", re.MULTILINE)  # blank or comment line
#: The longest line with a quote character that is read. liac-arff's pattern for a quoted value
#: keeps ~130 bytes per character of it (a 2 MB quoted value: 260 MB), so a line of quoted text
#: is bounded to keep one file's memory bounded.
MAX_QUOTED_LINE = 1_000_000
#: The most characters of lines with quote characters in one file: liac-arff reads quoted text
#: at ~5 million characters a second, one character at a time.
MAX_QUOTED_TEXT = 20_000_000
_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "b": "\b", "f": "\f"}


def _unescape(quoted: str) -> str:
    """ARFF quoted token -> text. liac-arff strips the quotes of names but keeps ``\\'``."""
    inner = quoted[1:-1]

    def replace(match: re.Match[str]) -> str:
        code = match.group(1)
        if code.isdigit():
            return chr(int(code, 8))
        if code.startswith("u") and len(code) == 5:
            return chr(int(code[1:], 16))
        return _ESCAPES.get(code, code)

    return re.sub(r"\\([0-7]{1,3}|u[0-9a-fA-F]{4}|.)", replace, inner)


def _binary_meaning(value: str) -> int | None:
    word = value.strip().lower()
    if word in _TRUE_WORDS:
        return 1
    if word in _FALSE_WORDS:
        return 0
    return None


def _binary_codes(values: list[str]) -> dict[str, float] | None:
    """Map a one- or two-valued nominal declaration to 0/1 by meaning, or None if it has none."""
    meanings = [_binary_meaning(v) for v in values]
    if None in meanings or len(values) > 2 or len(set(meanings)) != len(values):
        return None
    return {v: float(m) for v, m in zip(values, meanings, strict=True)}


# --------------------------------------------------------------------------- ARFF structure
@dataclass
class _Header:
    relation: str | None
    relation_line: int | None
    attribute_lines: list[int]  # 1-based file line of each @attribute
    raw_attributes: list[str]  # the stripped @attribute lines
    data_line: int | None
    row_lines: list[int]  # 1-based file line of each data row


def _scan_header(lines: list[str]) -> _Header:
    """Line numbers of the declarations and data rows (liac-arff keeps none of them)."""
    header = _Header(None, None, [], [], None, [])
    for number, line in enumerate(lines, start=1):
        row = line.strip()
        if header.data_line is not None:
            if row and not row.startswith("%"):
                header.row_lines.append(number)
            continue
        upper = row[:10].upper()
        if upper.startswith("@RELATION"):
            header.relation, header.relation_line = row[9:].strip(), number
        elif upper.startswith("@ATTRIBUTE"):
            header.attribute_lines.append(number)
            header.raw_attributes.append(row)
        elif upper.startswith("@DATA"):
            header.data_line = number
    return header


def _check_declarations(header: _Header, label: str, max_columns: int | None) -> None:
    """Refuse @attribute lines liac-arff would choke on, with the error it would give.

    Linear (the patterns above); liac-arff sees only declarations that pass, on which its own
    patterns are fast. With ``max_columns``, also refuse a header whose nominal attributes
    one-hot encode to more columns (the budget counted attributes only).
    """
    columns = 0
    for line, raw in zip(header.attribute_lines, header.raw_attributes, strict=True):
        match = _RAW_ATTRIBUTE.match(raw)
        kind = match.group(2).strip() if match else ""
        shown = f" ({_snippet(raw)!r})"
        if not match or not kind:
            raise DataFormatError(
                f"{label} line {line}: malformed @attribute declaration{shown}. Names with "
                "spaces or special characters must be quoted, e.g. @attribute 'my name' numeric."
            )
        if kind.startswith("{") and not _NOMINAL.match(kind):
            raise DataFormatError(
                f"{label} line {line}: attribute {_snippet(match.group(1))} has type "
                f"{_snippet(kind)!r}, which cannot be read{shown}: a nominal type is "
                "{a,b,...} with nothing after the '}', values quoted when they hold spaces, "
                "commas or braces."
            )
        n_values = _NOMINAL_VALUE.subn("", kind)[1] if kind.startswith("{") else 0
        columns += n_values if n_values > 2 else 1
    if max_columns is not None and columns > max_columns:
        raise DataFormatError(
            f"{label}: the header's nominal attributes one-hot encode to {columns:,} columns "
            f"(a column per declared value); up to {max_columns:,} columns are read here. "
            "Declare fewer values, or fewer attributes, and load the file again."
        )


def _check_quoted_text(lines: list[str], label: str) -> None:
    """Bound the quoted text liac-arff reads (:data:`MAX_QUOTED_LINE`, :data:`MAX_QUOTED_TEXT`)."""
    total = 0
    for number, line in enumerate(lines, start=1):
        if "'" not in line and '"' not in line:
            continue
        total += len(line)
        if len(line) > MAX_QUOTED_LINE:
            raise DataFormatError(
                f"{label} line {number}: this line holds quoted text and is {len(line):,} "
                f"characters long; lines with quotes are read up to {MAX_QUOTED_LINE:,} "
                "characters (a longer quoted name or value cannot be a label or a numeric "
                "feature). Shorten or remove the quoted text."
            )
        if total > MAX_QUOTED_TEXT:
            raise DataFormatError(
                f"{label}: the lines with quoted text add up to more than "
                f"{MAX_QUOTED_TEXT:,} characters (reached at line {number}); quoted text is "
                "read up to that much per file. Remove string attributes (they are dropped as "
                "features anyway) or unneeded quotes."
            )


def _check_budget(
    text: str,
    label: str,
    max_columns: int | None,
    max_cells: int | None,
    max_values: int | None,
) -> None:
    """Refuse a file over a budget from counts alone, before any row is parsed.

    Only C-level passes over the text (``str.count`` and the linear patterns), so a refusal
    costs well under a second even for 100 MB.
    """
    data = _DATA_LINE.search(text)
    if data is None:
        return  # the loader says there is no @data
    n_attributes = len(_ATTRIBUTE_LINE.findall(text, 0, data.start()))
    body = text[data.end() :]
    rows = body.count("\n") + 1 - _NOT_A_ROW.subn("", body)[1]
    first = _FIRST_ROW.search(body, body.find("\n") + 1 if "\n" in body else len(body))
    sparse = first is not None and first.group(1) == "{"
    where = f"{label} line {text.count(chr(10), 0, data.start()) + 1}"
    if max_columns is not None and n_attributes > max_columns:
        raise DataFormatError(
            f"{label}: the header declares {n_attributes:,} attributes; up to "
            f"{max_columns:,} columns are read here. Keep fewer feature attributes (e.g. the "
            "most frequent or informative ones) and load the file again."
        )
    cells = rows * n_attributes
    if max_cells is not None and cells > max_cells:
        raise DataFormatError(
            f"{where}: @data is followed by {rows:,} rows of {n_attributes:,} attributes = "
            f"{cells:,} values; up to {max_cells:,} are read here (rows × columns). Keep a "
            f"random sample of the rows (about {max(max_cells // max(n_attributes, 1), 1):,} "
            "rows fit) or fewer attributes, and load the file again."
        )
    written = body.count(",") + rows if sparse else cells
    if max_values is not None and written > max_values:
        raise DataFormatError(
            f"{where}: the data section holds {'about ' if sparse else ''}{written:,} values "
            f"({rows:,} rows); ARFF rows are read up to {max_values:,} values here (ARFF is "
            "parsed value by value; a CSV table is read much faster). Keep a random sample of "
            "the rows, or save the table as CSV, and load it again."
        )


@dataclass
class _Attribute:
    name: str
    type: str  # NUMERIC / REAL / INTEGER / STRING / NOMINAL
    values: list[str]  # declared nominal values
    line: int

    def describe(self) -> str:
        return f"attribute '{self.name}' (line {self.line})"


def _attributes(parsed: list, header: _Header) -> list[_Attribute]:
    attributes = []
    for (name, kind), line, raw in zip(
        parsed, header.attribute_lines, header.raw_attributes, strict=True
    ):
        match = _RAW_ATTRIBUTE.match(raw)
        if match and match.group(1)[:1] in "'\"":
            name = _unescape(match.group(1))
        if isinstance(kind, list | tuple):
            attributes.append(_Attribute(name, "NOMINAL", [str(v) for v in kind], line))
        else:
            attributes.append(_Attribute(name, str(kind).upper(), [], line))
    return attributes


def _first_data_row(lines: list[str], header: _Header) -> str | None:
    return lines[header.row_lines[0] - 1].strip() if header.row_lines else None


def _row_cells(row: str) -> dict[int, str] | list[str]:
    """Split one data row for error reporting (liac-arff does not say which cell failed)."""
    row = row.strip()
    if row.startswith("{"):
        cells: dict[int, str] = {}
        for item in row.strip("{}").split(","):
            parts = item.strip().split(None, 1)
            if len(parts) == 2 and parts[0].isdigit():
                cells[int(parts[0])] = parts[1].strip().strip("'\"")
        return cells
    reader = csv.reader([row], skipinitialspace=True, quotechar="'", escapechar="\\")
    return [cell.strip() for cell in next(reader)]


def _explain_arff_error(
    err: arff.ArffException,
    text: _Text,
    lines: list[str],
    attributes: list[_Attribute] | None,
    sparse: bool,
) -> DataFormatError:
    line = err.line if isinstance(err.line, int) and err.line > 0 else None
    where = f"{text.label} line {line}" if line else text.label
    row = lines[line - 1] if line and line <= len(lines) else ""
    shown = f" ({_snippet(row)!r})" if row.strip() else ""
    if isinstance(err, arff.BadAttributeType):
        match = _RAW_ATTRIBUTE.match(row.strip())
        kind = match.group(2).strip() if match else "?"
        name = match.group(1) if match else "?"
        return DataFormatError(
            f"{where}: attribute {name} has type {kind!r}, which cannot be read{shown}. Supported "
            "types are numeric, real, integer, string and nominal {a,b,...}; convert the "
            "attribute (dates to numbers) or remove it."
        )
    if isinstance(err, arff.BadAttributeFormat | arff.BadRelationFormat):
        what = "@attribute" if isinstance(err, arff.BadAttributeFormat) else "@relation"
        return DataFormatError(
            f"{where}: malformed {what} declaration{shown}. Names with spaces or special "
            "characters must be quoted, e.g. @attribute 'my name' numeric."
        )
    if isinstance(err, arff.BadAttributeName):
        return DataFormatError(
            f"{where}: {_snippet(row)!r} repeats an attribute name declared earlier. Every "
            "attribute needs a unique name; rename one of them."
        )
    if isinstance(err, arff.BadNominalValue):
        return DataFormatError(
            f"{where}: {_bad_nominal_cell(row, attributes)}{shown}. Fix the value or add it to "
            "the attribute's declaration."
        )
    if isinstance(err, arff.BadNumericalValue):
        return DataFormatError(
            f"{where}: {_bad_number_cell(row, attributes)}{shown}. Use '?' for a missing value."
        )
    if isinstance(err, arff.BadDataFormat | arff.BadLayout) and line and attributes is not None:
        return DataFormatError(f"{where}: {_bad_row(row, attributes, sparse)}{shown}")
    if isinstance(err, arff.BadLayout):
        return DataFormatError(
            f"{where}: the ARFF layout is broken{shown}: {err}. The file must be "
            "@relation, then @attribute lines, then @data and the rows."
        )
    return DataFormatError(f"{where}: {err}")


def _bad_nominal_cell(row: str, attributes: list[_Attribute] | None) -> str:
    if attributes:
        cells = _row_cells(row)
        items = cells.items() if isinstance(cells, dict) else enumerate(cells)
        for index, value in items:
            if index >= len(attributes):
                break
            attribute = attributes[index]
            if attribute.type == "NOMINAL" and value != "?" and value not in attribute.values:
                declared = "{" + ",".join(attribute.values) + "}"
                binary = " (a 0/1 attribute such as a label takes only 0 or 1)"
                return (
                    f"value {value!r} of {attribute.describe()} is not one of its declared "
                    f"values {declared}{binary if _binary_codes(attribute.values) else ''}"
                )
    return "a nominal value is not one of its attribute's declared values"


def _bad_number_cell(row: str, attributes: list[_Attribute] | None) -> str:
    if attributes:
        cells = _row_cells(row)
        items = cells.items() if isinstance(cells, dict) else enumerate(cells)
        for index, value in items:
            if index < len(attributes) and attributes[index].type in _NUMERIC_TYPES:
                try:
                    float(value)
                except ValueError:
                    if value not in ("?", ""):
                        return (
                            f"value {value!r} of numeric {attributes[index].describe()} is not "
                            "a number"
                        )
    return "a value of a numeric attribute is not a number"


def _bad_row(row: str, attributes: list[_Attribute], sparse: bool) -> str:
    n = len(attributes)
    stripped = row.strip()
    if sparse and not stripped.startswith("{"):
        return (
            "a dense row in a sparse data section (the first row is sparse {index value, ...}). "
            "Write every row in the same format."
        )
    if stripped.startswith("{"):
        if not stripped.endswith("}"):
            return "sparse row does not end with '}' (truncated row?). Complete or remove the row."
        cells = _row_cells(stripped)
        if isinstance(cells, dict) and cells and max(cells) >= n:
            return (
                f"sparse index {max(cells)} is out of range: attributes are numbered 0..{n - 1}. "
                "Fix the index or declare the missing attributes."
            )
        return (
            "cannot parse this sparse row; write it as {index value, index value, ...} with "
            "0-based indices. A file must be all sparse or all dense rows."
        )
    count = len(_row_cells(stripped))
    if count != n:
        return (
            f"the row has {count} values but {n} attributes are declared (truncated row, or an "
            "unquoted comma/space in a value?). Complete or remove the row; use '?' for missing "
            "values."
        )
    return (
        "cannot parse this row (a quoted value may be unterminated). Quote values that contain "
        "spaces or commas."
    )


# --------------------------------------------------------------------------- columns
@dataclass
class _Column:
    """One attribute's raw values: a full column, or sparse explicit entries plus a default."""

    values: np.ndarray  # object array: float / str / None(missing)
    rows: np.ndarray | None  # None: dense, values has n entries
    implicit: object = 0.0  # sparse: value of rows not listed (ARFF: 0 / first nominal value)

    def distinct(self, n: int) -> set:
        seen = set(self.values.tolist())
        if self.rows is not None and len(self.rows) < n:
            seen.add(self.implicit)
        return seen

    def first_missing_row(self) -> int | None:
        missing = np.flatnonzero(np.equal(self.values, None))
        if not missing.size:
            return None
        return int(missing[0] if self.rows is None else self.rows[missing[0]])


def _codes(column: _Column, codes: dict[str, float] | None) -> tuple[np.ndarray, float]:
    """Column -> float codes (NaN = missing) of explicit values, and the implicit value's code."""
    values = column.values
    if codes is None:
        out = np.array([np.nan if v is None else v for v in values.tolist()], dtype=np.float64)
        implicit = float(column.implicit) if column.rows is not None else 0.0
    else:
        out = np.array([np.nan if v is None else codes[v] for v in values.tolist()], np.float64)
        implicit = codes[column.implicit] if column.rows is not None else 0.0
    return out, implicit


def _full(column: _Column, explicit: np.ndarray, implicit: float, n: int) -> np.ndarray:
    if column.rows is None:
        return explicit
    full = np.full(n, implicit, dtype=np.float64)
    full[column.rows] = explicit
    return full


# --------------------------------------------------------------------------- load_arff
MissingPolicy = Literal["error", "keep"]


def load_arff(
    source: Source,
    *,
    xml: Source | None = None,
    n_labels: int | None = None,
    label_location: str = "auto",
    name: str | None = None,
    missing: MissingPolicy = "error",
    max_columns: int | None = None,
    max_cells: int | None = None,
    max_values: int | None = None,
) -> Dataset:
    """Read a multi-label ARFF file (MULAN or MEKA layout, dense or sparse).

    Parameters
    ----------
    source : path, str, bytes or file object
        A path (``str`` or ``os.PathLike``), the ARFF text itself (a string containing a
        newline or starting with ``%``/``@``), ``bytes`` (UTF-8), or a binary/text file object
        such as a Streamlit ``UploadedFile``.
    xml : path, str, bytes or file object, optional
        MULAN label file (``<labels><label name="..."/>...</labels>``, namespace optional;
        nested hierarchy labels count as labels). Labels are matched to attributes **by name**.
        When omitted and ``source`` is a path, ``name.xml`` next to it is used if present
        (``name-train.arff`` and ``name-test.arff`` also find ``name.xml``).
    n_labels : int, optional
        Labels by position instead: the first or last ``n_labels`` attributes.
    label_location : {"auto", "first", "last"}
        Where the ``n_labels`` labels are; "auto" means "last" (MULAN's convention).
    name : str, optional
        Data set name; default: the file stem (or the upload's file name).
    missing : {"error", "keep"}, default "error"
        What to do with missing feature values (``?``, or ``NaN``). "error": raise a
        :class:`DataFormatError` naming the first missing cell and the count. "keep": load them
        as NaN in ``X`` and say so in ``notes``; impute them inside the model, fitted on the
        training rows only, e.g. ``make_pipeline(SimpleImputer(strategy="mean"), model)``.
        The loader never imputes: a mean over all rows would leak the test rows into training.
    max_columns, max_cells, max_values : int, optional
        Budgets checked from the header and a count of the rows, before any row is parsed
        (None, the default: no limit). ``max_columns``: attributes, and the columns its
        nominal attributes one-hot encode to; ``max_cells``: rows × attributes;
        ``max_values``: values written in the data section (rows × attributes when dense, the
        ``index value`` entries when sparse), which is what parsing costs (~1 µs each). A
        file over a budget is a :class:`DataFormatError` that says by how much and what to do.

    Returns
    -------
    Dataset
        ``X`` is CSR when the data section is sparse (``{index value, ...}`` rows), dense
        float64 otherwise; ``Y`` is uint8 0/1. Labels keep the ARFF column order (what a user
        sees in the file), not the XML's order, which differs for yeast and enron.

    Notes
    -----
    Label selection, first match wins: ``xml`` or ``n_labels`` if given; otherwise an XML found
    next to the path; otherwise MEKA's ``-C n`` in @relation (n > 0: first n attributes,
    n < 0: last |n|). An XML or ``n_labels`` overrides ``-C`` (medical.arff carries a stale
    ``-C 45``); the override is recorded in ``notes``.

    Features: numeric attributes as they are; binary nominal attributes map to 0/1 by meaning
    ({0,1}, {NO,YES}, {false,true}, {f,t}, ... in any declaration order); other two-valued
    nominal attributes map to 0/1 by declaration order, and nominal attributes with more values
    are one-hot encoded over their declared values (``name=value`` columns), each with a note.
    String attributes and id-like nominal attributes (more than two declared values and a
    different value in every row, like genbase's ``protein``) are dropped with a note. With
    ``missing="keep"`` a missing one-hot encoded value is NaN in each of its columns, and a
    feature with every value missing is dropped with a note. An infinite feature value is
    always an error. Labels can never be missing.

    Names: every attribute name and XML label name is stored in the form of
    :func:`mlviz.io.labels.normalize_name` (Unicode NFC, zero-width characters removed,
    surrounding whitespace stripped), with a note when one changed; two names that become the
    same are an error. A sparse row that gives an index twice is an error.

    Parsing is linear in the file: a line with quoted text is read up to
    :data:`MAX_QUOTED_LINE` characters and a file's quoted lines up to
    :data:`MAX_QUOTED_TEXT` characters (liac-arff reads quoted text slowly and with ~130 bytes
    of memory per character).

    Raises
    ------
    DataFormatError
        Whenever the input is not a valid multi-label ARFF file, including every error
        liac-arff raises while decoding; the message names the input, the line or attribute,
        and what to do.

    Examples
    --------
    >>> import io
    >>> from mlviz.io import load_arff
    >>> text = '''@relation toy
    ... @attribute x numeric
    ... @attribute a {0,1}
    ... @attribute b {0,1}
    ... @data
    ... 0.5,1,0
    ... 1.5,0,1
    ... '''
    >>> ds = load_arff(io.StringIO(text), n_labels=2, name="toy")
    >>> ds.X.shape, ds.label_names, ds.Y.tolist()
    ((2, 1), ('a', 'b'), [[1, 0], [0, 1]])
    """
    if missing not in ("error", "keep"):
        raise ValueError(f"missing must be 'error' or 'keep'; got {missing!r}.")
    text = _read_source(source, "ARFF", _looks_like_arff_text)
    notes: list[str] = []
    if not text.text.strip():
        raise DataFormatError(f"{text.label}: the input is empty. Give an ARFF file's text.")
    normalized = text.text.replace("\r\n", "\n").replace("\r", "\n")
    if (max_columns, max_cells, max_values) != (None, None, None):
        _check_budget(normalized, text.label, max_columns, max_cells, max_values)
    lines = normalized.split("\n")
    del normalized
    header = _scan_header(lines)
    if header.relation is None and not header.attribute_lines and header.data_line is None:
        raise DataFormatError(
            f"{text.label}: this is not ARFF: no @relation, @attribute or @data line found "
            f"(first line: {_snippet(next(line for line in lines if line.strip()))!r}). An ARFF "
            "file starts with @relation <name>, then @attribute lines, then @data."
        )
    if header.data_line is None:
        raise DataFormatError(
            f"{text.label}: no @data line: the file ends after its header (line {len(lines)}). "
            "The file may be truncated; an ARFF file needs '@data' followed by the rows."
        )
    if not header.attribute_lines:
        raise DataFormatError(
            f"{text.label} line {header.data_line}: @data comes before any @attribute "
            "declaration. Declare the attributes first."
        )
    _check_declarations(header, text.label, max_columns)
    _check_quoted_text(lines, text.label)
    first_row = _first_data_row(lines, header)
    sparse = first_row is not None and first_row.startswith("{")
    decoder = arff.ArffDecoder()
    attributes: list[_Attribute] | None = None
    try:
        parsed = decoder.decode(lines[: header.data_line], return_type=arff.DENSE)
        attributes = _attributes(parsed["attributes"], header)
        decoder = arff.ArffDecoder()
        decoded = decoder.decode(lines, return_type=arff.COO if sparse else arff.DENSE)
    except arff.ArffException as err:
        raise _explain_arff_error(err, text, lines, attributes, sparse) from err
    except MemoryError:
        raise
    except Exception as err:
        # liac-arff lets other errors through (csv.Error for a value longer than the csv
        # module's field limit, ValueError for an unknown escape, OverflowError, ...)
        raise _explain_decoder_crash(err, text, lines, decoder) from err
    n_rows = len(header.row_lines)
    if n_rows == 0:
        raise DataFormatError(
            f"{text.label} line {header.data_line}: @data is followed by no rows. The file may "
            "be truncated."
        )
    if sparse:
        _check_sparse_indices(decoded["data"][1], lines, header, text.label)
    names, note = normalize_names(
        [a.name for a in attributes],
        text.label,
        place=lambda index: f"line {attributes[index].line}",
    )
    for attribute, normalized_name in zip(attributes, names, strict=True):
        attribute.name = normalized_name
    if note:
        notes.append(note)
    columns = _columns(decoded["data"], sparse, len(attributes), n_rows)
    label_idx = label_indices(attributes, header, text, xml, n_labels, label_location, notes)
    Y = _labels(attributes, columns, label_idx, header, text, n_rows)
    label_set = set(label_idx)
    feature_idx = [i for i in range(len(attributes)) if i not in label_set]
    features = _Features(attributes, columns, n_rows, sparse, header, text)
    X, feature_names = features.build(feature_idx, missing, notes)
    if not feature_names:
        raise DataFormatError(
            f"{text.label}: no usable feature attributes remain (all were labels or dropped). "
            "Check the label selection."
        )
    return Dataset(
        name=name or text.stem or (header.relation or "arff").strip("'\""),
        X=X,
        Y=Y,
        feature_names=tuple(feature_names),
        label_names=tuple(attributes[i].name for i in label_idx),
        notes=tuple(notes),
    )


def _sparse_entries(row: str) -> list[str]:
    """The ``index value`` entries of one sparse row (quoted values may hold commas)."""
    inner = row.strip()[1:-1]
    if "'" in inner or '"' in inner:
        inner = _QUOTED_TOKEN.sub("''", inner)
    return [] if not inner.strip() else inner.split(",")


def _check_sparse_indices(rows: list[int], lines: list[str], header: _Header, label: str) -> None:
    """A sparse row giving an index twice is an error (liac-arff keeps the last value).

    Each row's entry count is compared with the entries liac-arff kept (one string count per
    row); only a row that lost some is split to name the index.
    """
    kept = np.bincount(np.asarray(rows, dtype=np.int64), minlength=len(header.row_lines))
    for row, number in enumerate(header.row_lines):
        line = lines[number - 1]
        inner = line.strip()[1:-1]
        if "'" in inner or '"' in inner:
            written = len(_sparse_entries(line))
        else:
            written = inner.count(",") + 1 if inner.strip() else 0
        if written == kept[row]:
            continue
        seen: set[str] = set()
        for entry in _sparse_entries(line):
            index = entry.split(None, 1)[0] if entry.strip() else ""
            if index in seen:
                raise DataFormatError(
                    f"{label} line {number}: sparse index {index} is given twice in this row "
                    f"({_snippet(line)!r}). Each attribute may appear once per row; remove or "
                    "merge the repeated entry."
                )
            seen.add(index)


def _explain_decoder_crash(
    err: Exception, text: _Text, lines: list[str], decoder: arff.ArffDecoder
) -> DataFormatError:
    """A non-ARFF exception from liac-arff as a DataFormatError naming the line.

    liac-arff records the line it was reading only on its own exceptions; for the others its
    (private) line counter is the only record, and it counts every line as the file does.
    """
    line = getattr(decoder, "_current_line", None)
    line = line if isinstance(line, int) and 0 < line <= len(lines) else None
    where = f"{text.label} line {line}" if line else text.label
    row = lines[line - 1] if line else ""
    shown = f" ({_snippet(row)!r})" if row.strip() else ""
    if isinstance(err, csv.Error) and "field larger than field limit" in str(err):
        return DataFormatError(
            f"{where}: a value on this line is longer than {csv.field_size_limit():,} "
            f"characters{shown}, which the ARFF reader cannot take (a number that long cannot "
            "be a feature either). Shorten or remove the value."
        )
    return DataFormatError(
        f"{where}: cannot read this line{shown}: {type(err).__name__}: {err}. Check its values "
        "(quoting, escape sequences, numbers); use '?' for a missing value."
    )


def _columns(data, sparse: bool, n_attr: int, n_rows: int) -> list[_Column]:
    if not sparse:
        table = np.empty((n_rows, n_attr), dtype=object)
        for i, row in enumerate(data):
            table[i] = row
        return [_Column(table[:, j], None) for j in range(n_attr)]
    values, rows, cols = data
    values_arr = np.empty(len(values), dtype=object)
    values_arr[:] = values
    rows_arr = np.asarray(rows, dtype=np.int64)
    cols_arr = np.asarray(cols, dtype=np.int64)
    order = np.argsort(cols_arr, kind="stable")
    bounds = np.searchsorted(cols_arr[order], np.arange(n_attr + 1))
    columns = []
    for j in range(n_attr):
        take = order[bounds[j] : bounds[j + 1]]
        columns.append(_Column(values_arr[take], rows_arr[take]))
    return columns


def _labels(
    attributes: list[_Attribute],
    columns: list[_Column],
    label_idx: list[int],
    header: _Header,
    text: _Text,
    n_rows: int,
) -> np.ndarray:
    Y = np.zeros((n_rows, len(label_idx)), dtype=np.uint8)
    for out, j in enumerate(label_idx):
        attribute, column = attributes[j], columns[j]
        codes = None
        if attribute.type == "NOMINAL":
            codes = _binary_codes(attribute.values)
            if codes is None:
                raise DataFormatError(
                    f"{text.label}: label {attribute.describe()} is declared with values "
                    f"{{{','.join(attribute.values)}}}; a label must be binary 0/1 (e.g. {{0,1}} "
                    "or {NO,YES}). If this attribute is a feature, the label selection (XML, -C "
                    "or n_labels) picks the wrong attributes."
                )
            column.implicit = attribute.values[0] if column.rows is not None else None
        elif attribute.type not in _NUMERIC_TYPES:
            raise DataFormatError(
                f"{text.label}: label {attribute.describe()} is a {attribute.type.lower()} "
                "attribute; labels must be 0/1 (numeric or nominal {0,1})."
            )
        missing_row = column.first_missing_row()
        if missing_row is not None:
            raise DataFormatError(
                f"{text.label} line {header.row_lines[missing_row]}: label "
                f"'{attribute.name}' is missing ('?') in row {missing_row + 1}. Labels cannot be "
                "imputed; fill in 0 or 1, or remove the row."
            )
        explicit, implicit = _codes(column, codes)
        full = _full(column, explicit, implicit, n_rows)
        bad = np.flatnonzero((full != 0) & (full != 1))
        if bad.size:
            row = int(bad[0])
            raise DataFormatError(
                f"{text.label} line {header.row_lines[row]}: label '{attribute.name}' has value "
                f"{full[row]:g} in row {row + 1}; label values must be 0 or 1."
            )
        Y[:, out] = full
    return Y


@dataclass
class _MissingCells:
    attribute: _Attribute
    count: int
    first_row: int  # 0-based data row
    dropped: bool  # every value missing: the feature is dropped


class _Features:
    """Builds ``X`` from the feature attributes and says in notes what was encoded or dropped.

    Missing cells are collected, not filled: :func:`load_arff` raises for them or keeps NaN.
    """

    def __init__(
        self,
        attributes: list[_Attribute],
        columns: list[_Column],
        n_rows: int,
        sparse: bool,
        header: _Header,
        text: _Text,
    ) -> None:
        self.attributes, self.columns, self.n_rows = attributes, columns, n_rows
        self.sparse, self.header, self.text = sparse, header, text
        self.blocks: list[np.ndarray] = []  # dense: full columns
        self.triplets: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # sparse
        self.names: list[str] = []
        self.missing: list[_MissingCells] = []
        self.dropped: list[str] = []
        self.declaration_order: list[str] = []
        self.one_hot: list[str] = []

    def build(
        self, feature_idx: list[int], missing: MissingPolicy, notes: list[str]
    ) -> tuple[np.ndarray | sp.csr_matrix, list[str]]:
        for j in feature_idx:
            self._add_attribute(self.attributes[j], self.columns[j])
        if self.missing and missing == "error":
            raise self._missing_error()
        if self.dropped:
            notes.append("Dropped features: " + ", ".join(self.dropped) + ".")
        if self.declaration_order:
            notes.append(
                "Two-valued nominal features without a 0/1 meaning, coded by declaration order: "
                + ", ".join(self.declaration_order)
                + "."
            )
        if self.one_hot:
            notes.append("One-hot encoded nominal features: " + ", ".join(self.one_hot) + ".")
        kept = [f"'{m.attribute.name}' ({m.count})" for m in self.missing if not m.dropped]
        if kept:
            notes.append(
                "Missing feature values kept as NaN (missing='keep'): " + ", ".join(kept) + ". "
                "Impute them on the training rows before fitting, e.g. with "
                "sklearn.impute.SimpleImputer in a pipeline."
            )
        return self._matrix(), self.names

    # ------------------------------------------------------------------ one attribute
    def _add_attribute(self, attribute: _Attribute, column: _Column) -> None:
        if attribute.type == "STRING":
            self.dropped.append(f"'{attribute.name}' (string)")
            return
        if attribute.type in _NUMERIC_TYPES:
            self._add_coded(attribute, column, None)
            return
        if column.rows is not None:
            column.implicit = attribute.values[0]
        values = attribute.values
        present = column.distinct(self.n_rows) - {None}
        if len(values) > 2 and self.n_rows > 2 and len(present) == self.n_rows:
            self.dropped.append(f"'{attribute.name}' (id-like: a different value in each row)")
            return
        codes = _binary_codes(values)
        if codes is None and len(values) == 2:
            codes = {values[0]: 0.0, values[1]: 1.0}
            self.declaration_order.append(f"'{attribute.name}' ({values[0]}→0, {values[1]}→1)")
        if codes is not None:
            self._add_coded(attribute, column, codes)
            return
        index = {v: float(k) for k, v in enumerate(values)}
        explicit, implicit = _codes(column, index)
        category = _full(column, explicit, implicit, self.n_rows)
        missing = np.isnan(category)
        if self._record_missing(attribute, np.flatnonzero(missing)):
            return
        self.one_hot.append(f"'{attribute.name}' ({len(values)} values)")
        for k, value in enumerate(values):
            indicator = (category == k).astype(np.float64)
            indicator[missing] = np.nan
            self._add(indicator, None, f"{attribute.name}={value}")

    def _add_coded(self, attribute: _Attribute, column: _Column, codes: dict | None) -> None:
        """A numeric (``codes`` None) or binary column."""
        explicit, implicit = _codes(column, codes)
        rows = np.arange(len(explicit)) if column.rows is None else column.rows
        infinite = np.flatnonzero(np.isinf(explicit))
        if infinite.size:
            row = int(rows[infinite[0]])
            raise DataFormatError(
                f"{self.text.label} line {self.header.row_lines[row]}: feature "
                f"'{attribute.name}' is {explicit[infinite[0]]:g} in row {row + 1}; features "
                "must be finite numbers. Replace the value by a finite number, or by '?' if it "
                "is unknown."
            )
        if self._record_missing(attribute, rows[np.isnan(explicit)]):
            return
        if column.rows is None:
            self._add(explicit, None, attribute.name)
        elif implicit == 0:
            self._add(explicit, column.rows, attribute.name)
        else:
            self._add(_full(column, explicit, implicit, self.n_rows), None, attribute.name)

    def _record_missing(self, attribute: _Attribute, rows: np.ndarray) -> bool:
        """Note the missing cells of one attribute; True when all are missing (dropped)."""
        if not rows.size:
            return False
        every = rows.size == self.n_rows
        self.missing.append(_MissingCells(attribute, int(rows.size), int(rows.min()), every))
        if every:
            self.dropped.append(f"'{attribute.name}' (all values missing)")
        return every

    def _add(self, values: np.ndarray, rows: np.ndarray | None, name: str) -> None:
        if self.sparse:
            full_rows = np.arange(self.n_rows) if rows is None else rows
            keep = values != 0  # NaN is kept: a stored missing value
            self.triplets.append(
                (full_rows[keep], np.full(keep.sum(), len(self.names)), values[keep])
            )
        else:
            self.blocks.append(values)
        self.names.append(name)

    # ------------------------------------------------------------------ results
    def _missing_error(self) -> DataFormatError:
        first = min(self.missing, key=lambda m: m.first_row)  # ties: the leftmost attribute
        total = sum(m.count for m in self.missing)
        listed = ", ".join(f"'{m.attribute.name}' ({m.count})" for m in self.missing[:5])
        more = " ..." if len(self.missing) > 5 else ""
        return DataFormatError(
            f"{self.text.label} line {self.header.row_lines[first.first_row]}: feature "
            f"'{first.attribute.name}' is missing ('?') in row {first.first_row + 1}, the first "
            f"of {total} missing feature value(s) in {len(self.missing)} attribute(s): "
            f"{listed}{more}. The loader does not fill them in (a mean over all rows would use "
            "the test rows too). Pass missing='keep' to load them as NaN and impute inside the "
            "model, fitted on the training rows only, e.g. make_pipeline(SimpleImputer("
            "strategy='mean'), model) with sklearn.impute.SimpleImputer; or fill in the values "
            "in the file."
        )

    def _matrix(self) -> np.ndarray | sp.csr_matrix:
        n_rows, names = self.n_rows, self.names
        if not self.sparse:
            X = np.column_stack(self.blocks) if self.blocks else np.empty((n_rows, 0))
            return np.ascontiguousarray(X, dtype=np.float64)
        if self.triplets:
            rows = np.concatenate([t[0] for t in self.triplets])
            cols = np.concatenate([t[1] for t in self.triplets])
            vals = np.concatenate([t[2] for t in self.triplets])
        else:
            rows = cols = np.empty(0, dtype=np.int64)
            vals = np.empty(0)
        X = sp.csr_matrix((vals, (rows, cols)), shape=(n_rows, len(names)), dtype=np.float64)
        X.sum_duplicates()
        X.sort_indices()
        return X

"""Multi-label data sets: the :class:`Dataset` container and the ARFF / CSV loaders."""

from __future__ import annotations

import csv
import difflib
import hashlib
import io
import os
import re
import warnings
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import arff
import numpy as np
import scipy.sparse as sp


class DataFormatError(ValueError):
    """A file is not a valid multi-label data set; the message says what, where and what to do."""


@dataclass(frozen=True, eq=False)
class Dataset:
    """A multi-label data set.

    Attributes
    ----------
    name : str
        Display name (file stem for loaded files).
    X : ndarray of float64, shape (n_samples, n_features), or scipy.sparse CSR
        Features; CSR when the source file was sparse.
    Y : ndarray of uint8, shape (n_samples, n_labels)
        Labels, 0/1.
    feature_names, label_names : tuple of str
    notes : tuple of str
        What the loader did to the data (dropped id columns, imputed values, ...).
    """

    name: str
    X: np.ndarray | sp.csr_matrix
    Y: np.ndarray
    feature_names: tuple[str, ...]
    label_names: tuple[str, ...]
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def n_samples(self) -> int:
        return int(self.Y.shape[0])

    @property
    def n_features(self) -> int:
        return int(self.X.shape[1])

    @property
    def n_labels(self) -> int:
        return int(self.Y.shape[1])

    @property
    def is_sparse(self) -> bool:
        return sp.issparse(self.X)

    @property
    def digest(self) -> str:
        """sha256 over the exact bytes of X and Y (and their shapes): a cache key."""
        h = hashlib.sha256()
        h.update(repr((self.X.shape, self.Y.shape, self.is_sparse)).encode())
        if sp.issparse(self.X):
            X = sp.csr_matrix(self.X)
            for part in (X.indptr, X.indices, X.data):
                h.update(np.ascontiguousarray(part).tobytes())
        else:
            h.update(np.ascontiguousarray(self.X, dtype=np.float64).tobytes())
        h.update(np.ascontiguousarray(self.Y, dtype=np.uint8).tobytes())
        return h.hexdigest()


# =========================================================================== loaders
#
# Parsing is liac-arff's job (quoting, escapes, sparse rows); this module adds what it does not
# do: decoding checks, picking the label attributes (MULAN XML, MEKA ``-C``, explicit count),
# meaning-based encoding of binary nominal values, feature clean-up, and error messages that say
# what is wrong, where, and what to do.

MULAN_NAMESPACE = "http://mulan.sourceforge.net/labels"

Source = str | os.PathLike | bytes | bytearray | IO[str] | IO[bytes]

_TRUE_WORDS = frozenset({"1", "1.0", "yes", "y", "true", "t", "on", "+"})
_FALSE_WORDS = frozenset({"0", "0.0", "no", "n", "false", "f", "off", "-"})
_NUMERIC_TYPES = frozenset({"NUMERIC", "REAL", "INTEGER"})
_MEKA_C = re.compile(r"(?:^|[\s:])-C\s+(-?\d+)(?=\s|$|')")
_RAW_ATTRIBUTE = re.compile(
    r"""^@attribute\s+('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|[^\s{}%,]+)\s*(.*)$""",
    re.IGNORECASE,
)
_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "b": "\b", "f": "\f"}
_SNIPPET = 70


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


def _quote(name: str) -> str:
    """Text -> ARFF token, quoted and escaped when it has characters ARFF treats specially."""
    if name and not re.search(r"""[\s'"\\{},%?]""", name):
        return name
    escaped = name.replace("\\", "\\\\").replace("'", "\\'")
    escaped = escaped.replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")
    return f"'{escaped}'"


def _snippet(text: str) -> str:
    text = text.strip()
    return text if len(text) <= _SNIPPET else text[: _SNIPPET - 1] + "…"


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


# --------------------------------------------------------------------------- reading input
@dataclass
class _Text:
    text: str
    label: str  # how messages name the input: "yeast.arff", "upload 'x.arff'", "ARFF text"
    stem: str | None
    path: Path | None


def _decode(data: bytes, label: str, what: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        column = err.start - (data.rfind(b"\n", 0, err.start) + 1) + 1
        raise DataFormatError(
            f"{label}: the {what} is not UTF-8 text: byte 0x{data[err.start]:02x} at line {line}, "
            f"column {column} cannot be decoded. Save the file as UTF-8 (for example "
            "`iconv -f latin1 -t utf-8 in.arff > out.arff`) and load it again."
        ) from err


def _read_source(source: Source, what: str, looks_like_text) -> _Text:
    """Read a path, a text string, bytes or a (binary or text) file object into text."""
    if isinstance(source, os.PathLike) or (isinstance(source, str) and not looks_like_text(source)):
        path = Path(source)
        if not path.is_file():
            raise FileNotFoundError(
                f"{what} file not found: {path}. Pass an existing path, or the file's text."
            )
        return _Text(_decode(path.read_bytes(), path.name, what), path.name, path.stem, path)
    if isinstance(source, str):
        return _Text(source.removeprefix("\ufeff"), f"{what} text", None, None)
    if isinstance(source, bytes | bytearray):
        return _Text(_decode(bytes(source), f"{what} bytes", what), f"{what} bytes", None, None)
    if hasattr(source, "read"):
        file_name = str(getattr(source, "name", "") or "")
        label = f"upload '{Path(file_name).name}'" if file_name else f"{what} file object"
        stem = Path(file_name).stem if file_name else None
        try:
            content = source.read()
        except UnicodeDecodeError as err:
            raise DataFormatError(
                f"{label}: the {what} is not valid text in the file object's encoding ({err}). "
                "Open the file in binary mode, or save it as UTF-8."
            ) from err
        if isinstance(content, bytes | bytearray):
            content = _decode(bytes(content), label, what)
        return _Text(content.removeprefix("\ufeff"), label, stem, None)
    raise TypeError(
        f"{what} source must be a path, a text string, bytes or a file object; "
        f"got {type(source).__name__}."
    )


def _looks_like_arff_text(s: str) -> bool:
    head = s.lstrip()
    return "\n" in s or head == "" or head[:1] in "%@{"


def _looks_like_xml_text(s: str) -> bool:
    return s.lstrip().startswith("<")


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


# --------------------------------------------------------------------------- label selection
def _xml_label_names(xml: Source) -> tuple[list[str], str]:
    """Label names of a MULAN XML file, in document order (nested hierarchy labels included)."""
    text = _read_source(xml, "XML", _looks_like_xml_text)
    if not text.text.strip():
        raise DataFormatError(f"{text.label}: the label XML is empty. Give MULAN's name.xml.")
    try:
        root = ET.fromstring(text.text)
    except ET.ParseError as err:
        line, column = err.position
        raise DataFormatError(
            f"{text.label} line {line}, column {column}: not well-formed XML ({err}). A MULAN "
            'label file looks like <labels xmlns="http://mulan.sourceforge.net/labels">'
            '<label name="a"></label>...</labels>.'
        ) from err
    names: list[str] = []
    for element in root.iter():
        if element.tag.rsplit("}", 1)[-1] != "label":
            continue
        name = element.get("name")
        if name is None:
            raise DataFormatError(
                f"{text.label}: a <label> element has no name attribute. Write "
                '<label name="..."></label>.'
            )
        if name in names:
            raise DataFormatError(f"{text.label}: label {name!r} is listed twice.")
        names.append(name)
    if not names:
        raise DataFormatError(
            f"{text.label}: the XML names zero labels (no <label name=...> elements). A multi-"
            "label data set needs at least one label."
        )
    return names, text.label


def _xml_candidates(path: Path) -> list[Path]:
    candidates = [path.with_suffix(".xml")]
    for suffix in ("-train", "-test", "_train", "_test"):
        if path.stem.lower().endswith(suffix):
            candidates.append(path.with_name(path.stem[: -len(suffix)] + ".xml"))
    return candidates


def _meka_count(relation: str | None) -> int | None:
    match = _MEKA_C.search(relation or "")
    return int(match.group(1)) if match else None


def _label_indices(
    attributes: list[_Attribute],
    header: _Header,
    text: _Text,
    xml: Source | None,
    n_labels: int | None,
    label_location: str,
    notes: list[str],
) -> list[int]:
    """Which attributes are labels, in ARFF column order."""
    n_attr = len(attributes)
    meka = _meka_count(header.relation)
    meka_where = f"{text.label} line {header.relation_line}"
    if label_location not in ("auto", "first", "last"):
        raise ValueError(
            f"label_location must be 'auto', 'first' or 'last'; got {label_location!r}."
        )
    if xml is not None and n_labels is not None:
        raise ValueError(
            "Give either xml (labels by name) or n_labels (labels by position), not both."
        )
    if xml is not None and label_location != "auto":
        raise ValueError(
            "label_location applies to n_labels; with xml the labels are matched by name."
        )

    if xml is None and n_labels is None and label_location == "auto" and text.path is not None:
        xml = next((p for p in _xml_candidates(text.path) if p.is_file()), None)
        if xml is not None:
            notes.append(f"Labels named by {xml.name} (found next to {text.path.name}).")

    if xml is not None:
        names, xml_label = _xml_label_names(xml)
        position = {a.name: i for i, a in enumerate(attributes)}
        missing = [name for name in names if name not in position]
        if missing:
            hints = []
            by_lower = {n.lower(): n for n in position}
            for name in missing[:3]:
                close = difflib.get_close_matches(name.lower(), list(by_lower), n=1)
                suggestion = f" (did you mean {by_lower[close[0]]!r}?)" if close else ""
                hints.append(f"{name!r}{suggestion}")
            raise DataFormatError(
                f"{xml_label} names {len(missing)} label(s) that {text.label} does not declare: "
                f"{', '.join(hints)}{' ...' if len(missing) > 3 else ''}. Use the XML that "
                "belongs to this ARFF file, or fix the names (they must match exactly)."
            )
        if meka is not None:
            notes.append(
                f"@relation carries '-C {meka}' (MEKA layout), ignored: the XML names the labels."
            )
        return sorted(position[name] for name in names)

    if n_labels is None:
        if label_location != "auto":
            raise ValueError(f"label_location={label_location!r} needs n_labels.")
        if meka is None:
            looked = (
                " (looked for " + ", ".join(p.name for p in _xml_candidates(text.path)) + ")"
                if text.path is not None
                else ""
            )
            raise DataFormatError(
                f"{text.label}: cannot tell which attributes are labels: no MULAN XML{looked} "
                "and no MEKA '-C n' in @relation. Pass xml=<name.xml>, or n_labels=<count> with "
                "label_location='first' or 'last'."
            )
        if meka == 0:
            raise DataFormatError(
                f"{meka_where}: '-C 0' declares zero labels. A multi-label data set needs at "
                "least one label; fix -C or pass n_labels."
            )
        if abs(meka) >= n_attr:
            raise DataFormatError(
                f"{meka_where}: '-C {meka}' asks for {abs(meka)} labels but the file declares "
                f"only {n_attr} attributes (at least one must be a feature). Fix -C, or pass "
                "n_labels / xml."
            )
        notes.append(
            f"Labels from MEKA '-C {meka}' in @relation: the "
            f"{'first' if meka > 0 else 'last'} {abs(meka)} attributes."
        )
        return list(range(meka)) if meka > 0 else list(range(n_attr + meka, n_attr))

    if isinstance(n_labels, bool) or not isinstance(n_labels, int | np.integer):
        raise TypeError(f"n_labels must be an int; got {type(n_labels).__name__}.")
    if n_labels < 1:
        raise DataFormatError(
            f"n_labels={n_labels}: a multi-label data set needs at least one label."
        )
    if n_labels >= n_attr:
        raise DataFormatError(
            f"{text.label}: n_labels={n_labels} but the file declares only {n_attr} attributes "
            "(at least one must be a feature)."
        )
    location = "last" if label_location == "auto" else label_location
    if meka is not None:
        notes.append(f"@relation carries '-C {meka}', ignored: n_labels was given.")
    n_labels = int(n_labels)
    return list(range(n_labels)) if location == "first" else list(range(n_attr - n_labels, n_attr))


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
def load_arff(
    source: Source,
    *,
    xml: Source | None = None,
    n_labels: int | None = None,
    label_location: str = "auto",
    name: str | None = None,
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
    different value in every row, like genbase's ``protein``) are dropped with a note. A ``?``
    in a feature is replaced by the column mean (over the non-missing rows, implicit sparse
    zeros included) with a note.

    Raises
    ------
    DataFormatError
        Whenever the input is not a valid multi-label ARFF file; the message names the input,
        the line or attribute, and what to do.
    """
    text = _read_source(source, "ARFF", _looks_like_arff_text)
    notes: list[str] = []
    lines = text.text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if not text.text.strip():
        raise DataFormatError(f"{text.label}: the input is empty. Give an ARFF file's text.")
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
    first_row = _first_data_row(lines, header)
    sparse = first_row is not None and first_row.startswith("{")
    decoder = arff.ArffDecoder()
    attributes: list[_Attribute] | None = None
    try:
        parsed = decoder.decode(lines[: header.data_line], return_type=arff.DENSE)
        attributes = _attributes(parsed["attributes"], header)
        decoded = arff.ArffDecoder().decode(lines, return_type=arff.COO if sparse else arff.DENSE)
    except arff.ArffException as err:
        raise _explain_arff_error(err, text, lines, attributes, sparse) from err
    n_rows = len(header.row_lines)
    if n_rows == 0:
        raise DataFormatError(
            f"{text.label} line {header.data_line}: @data is followed by no rows. The file may "
            "be truncated."
        )
    columns = _columns(decoded["data"], sparse, len(attributes), n_rows)
    label_idx = _label_indices(attributes, header, text, xml, n_labels, label_location, notes)
    Y = _labels(attributes, columns, label_idx, header, text, n_rows)
    label_set = set(label_idx)
    feature_idx = [i for i in range(len(attributes)) if i not in label_set]
    X, feature_names = _features(attributes, columns, feature_idx, n_rows, sparse, notes)
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


def _features(
    attributes: list[_Attribute],
    columns: list[_Column],
    feature_idx: list[int],
    n_rows: int,
    sparse: bool,
    notes: list[str],
) -> tuple[np.ndarray | sp.csr_matrix, list[str]]:
    blocks: list[np.ndarray] = []  # dense path: full columns
    triplets: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # sparse path
    names: list[str] = []
    imputed: list[str] = []
    declaration_order: list[str] = []
    one_hot: list[str] = []
    dropped: list[str] = []

    def add(values: np.ndarray, rows: np.ndarray | None, feature_name: str) -> None:
        if sparse:
            full_rows = np.arange(n_rows) if rows is None else rows
            keep = values != 0
            triplets.append((full_rows[keep], np.full(keep.sum(), len(names)), values[keep]))
        else:
            blocks.append(values)
        names.append(feature_name)

    def add_imputed(name: str, column, codes: dict | None) -> None:
        """A numeric (codes None) or binary column, '?' replaced by the column mean."""
        explicit, implicit = _codes(column, codes)
        explicit, implicit, n_missing = _impute(explicit, implicit, column, n_rows)
        if n_missing < 0:
            dropped.append(f"'{name}' (all values missing)")
            return
        if n_missing:
            imputed.append(f"'{name}' ({n_missing})")
        _add_column(add, column, explicit, implicit, n_rows, name)

    for j in feature_idx:
        attribute, column = attributes[j], columns[j]
        if attribute.type == "STRING":
            dropped.append(f"'{attribute.name}' (string)")
            continue
        if attribute.type in _NUMERIC_TYPES:
            add_imputed(attribute.name, column, None)
            continue
        if column.rows is not None:
            column.implicit = attribute.values[0]
        values = attribute.values
        present = column.distinct(n_rows) - {None}
        if len(values) > 2 and n_rows > 2 and len(present) == n_rows:
            dropped.append(f"'{attribute.name}' (id-like: a different value in each row)")
            continue
        codes = _binary_codes(values)
        if codes is None and len(values) == 2:
            codes = {values[0]: 0.0, values[1]: 1.0}
            declaration_order.append(f"'{attribute.name}' ({values[0]}→0, {values[1]}→1)")
        if codes is not None:
            add_imputed(attribute.name, column, codes)
            continue
        one_hot.append(f"'{attribute.name}' ({len(values)} values)")
        index = {v: float(k) for k, v in enumerate(values)}
        explicit, implicit = _codes(column, index)
        category = _full(column, explicit, implicit, n_rows)
        missing = np.isnan(category)
        if missing.all():
            one_hot.pop()
            dropped.append(f"'{attribute.name}' (all values missing)")
            continue
        if missing.any():
            imputed.append(f"'{attribute.name}' ({int(missing.sum())}, as category shares)")
        for k, value in enumerate(values):
            indicator = (category == k).astype(np.float64)
            indicator[missing] = indicator[~missing].mean()
            add(indicator, None, f"{attribute.name}={value}")

    if dropped:
        notes.append("Dropped features: " + ", ".join(dropped) + ".")
    if declaration_order:
        notes.append(
            "Two-valued nominal features without a 0/1 meaning, coded by declaration order: "
            + ", ".join(declaration_order)
            + "."
        )
    if one_hot:
        notes.append("One-hot encoded nominal features: " + ", ".join(one_hot) + ".")
    if imputed:
        notes.append(
            "Missing feature values ('?') replaced by the column mean: " + ", ".join(imputed) + "."
        )
    if not sparse:
        X = np.column_stack(blocks) if blocks else np.empty((n_rows, 0))
        return np.ascontiguousarray(X, dtype=np.float64), names
    if triplets:
        rows = np.concatenate([t[0] for t in triplets])
        cols = np.concatenate([t[1] for t in triplets])
        vals = np.concatenate([t[2] for t in triplets])
    else:
        rows = cols = np.empty(0, dtype=np.int64)
        vals = np.empty(0)
    X = sp.csr_matrix((vals, (rows, cols)), shape=(n_rows, len(names)), dtype=np.float64)
    X.sum_duplicates()
    X.sort_indices()
    return X, names


def _impute(
    explicit: np.ndarray, implicit: float, column: _Column, n_rows: int
) -> tuple[np.ndarray, float, int]:
    """Replace NaN by the column mean (implicit sparse entries count); -1 when all are missing."""
    missing = np.isnan(explicit)
    n_missing = int(missing.sum())
    if not n_missing:
        return explicit, implicit, 0
    n_implicit = 0 if column.rows is None else n_rows - len(column.rows)
    n_present = n_rows - n_missing
    if n_present == 0:
        return explicit, implicit, -1
    mean = (explicit[~missing].sum() + implicit * n_implicit) / n_present
    explicit = explicit.copy()
    explicit[missing] = mean
    return explicit, implicit, n_missing


def _add_column(add, column: _Column, explicit, implicit: float, n_rows: int, name: str) -> None:
    if column.rows is None:
        add(explicit, None, name)
    elif implicit == 0:
        add(explicit, column.rows, name)
    else:
        add(_full(column, explicit, implicit, n_rows), None, name)


# --------------------------------------------------------------------------- save_arff
def save_arff(
    dataset: Dataset, path: str | os.PathLike, *, comment: str | None = None
) -> tuple[Path, Path]:
    """Write ``dataset`` as MULAN ARFF + XML: ``name.arff`` and ``name.xml`` side by side.

    Parameters
    ----------
    dataset : Dataset
    path : path
        The ``.arff`` file to write, or an existing directory (then ``<dataset.name>.arff``
        inside it). The XML gets the same stem.
    comment : str, optional
        Written as ``%`` comment lines before ``@relation``;
        :func:`mlviz.datasets.list_sources` shows it as the data set's description.

    Returns
    -------
    (arff_path, xml_path) : tuple of Path

    Notes
    -----
    Layout: features (numeric) then labels (nominal ``{0,1}``), rows dense, or sparse
    ``{index value}`` rows when ``dataset.X`` is sparse so that :func:`load_arff` returns CSR
    again. Floats are written with ``repr`` (shortest exact round trip), so loading the files
    gives back identical ``X``, ``Y`` and names.
    """
    target = Path(path)
    if target.is_dir():
        target = target / f"{dataset.name}.arff"
    if target.suffix.lower() != ".arff":
        raise ValueError(f"save_arff writes a .arff file; got {target}.")
    names = list(dataset.feature_names) + list(dataset.label_names)
    if len(set(names)) != len(names):
        duplicates = sorted({n for n in names if names.count(n) > 1})
        raise ValueError(f"ARFF attribute names must be unique; repeated: {duplicates[:5]}.")
    X, Y = dataset.X, np.asarray(dataset.Y, dtype=np.uint8)
    n_features = X.shape[1]
    out = [f"% {line}".rstrip() for line in (comment or "").splitlines()]
    out += [f"@relation {_quote(dataset.name)}", ""]
    out += [f"@attribute {_quote(n)} numeric" for n in dataset.feature_names]
    out += [f"@attribute {_quote(n)} {{0,1}}" for n in dataset.label_names]
    out += ["", "@data"]
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        for i in range(X.shape[0]):
            start, stop = X.indptr[i], X.indptr[i + 1]
            indices, values = X.indices[start:stop].tolist(), X.data[start:stop].tolist()
            cells = [f"{j} {v!r}" for j, v in zip(indices, values, strict=True) if v != 0]
            cells += [f"{n_features + k} 1" for k in np.flatnonzero(Y[i]).tolist()]
            out.append("{" + ",".join(cells) + "}")
    else:
        X = np.asarray(X, dtype=np.float64)
        for x_row, y_row in zip(X.tolist(), Y.tolist(), strict=True):
            out.append(",".join([repr(v) for v in x_row] + [str(v) for v in y_row]))
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("\n".join(out) + "\n", encoding="utf-8")

    ET.register_namespace("", MULAN_NAMESPACE)
    root = ET.Element(f"{{{MULAN_NAMESPACE}}}labels")
    root.text = "\n"
    for label in dataset.label_names:
        ET.SubElement(root, f"{{{MULAN_NAMESPACE}}}label", name=label).tail = "\n"
    xml_path = target.with_suffix(".xml")
    ET.ElementTree(root).write(xml_path, encoding="utf-8", xml_declaration=True)
    return target, xml_path


# --------------------------------------------------------------------------- load_csv
def load_csv(
    source: Source,
    label_columns: list[str] | int,
    *,
    name: str | None = None,
    sep: str | None = None,
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

    Returns
    -------
    Dataset
        Dense float64 ``X`` (all other columns, which must be numeric; empty cells are replaced
        by the column mean with a note) and uint8 ``Y``.

    Raises
    ------
    DataFormatError
        Empty or unparsable table, unknown label columns, a non-numeric feature column (named),
        a label value other than 0/1 or a missing label (column and row named).
    """
    import pandas as pd

    text = _read_source(source, "CSV", lambda s: "\n" in s or not s.strip())
    if not text.text.strip():
        raise DataFormatError(f"{text.label}: the input is empty. Give a table with a header row.")
    if sep is None:
        sample = "\n".join(text.text.splitlines()[:20])
        try:
            sep = csv.Sniffer().sniff(sample, delimiters=",;\t|").delimiter
        except csv.Error:
            sep = ","
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
    if len(set(columns)) != len(columns):
        raise DataFormatError(f"{text.label}: column names repeat: {columns}.")
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

    notes: list[str] = []
    imputed = []
    X = np.empty((len(frame), len(features)), dtype=np.float64)
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
        missing = np.isnan(values)
        if missing.all():
            raise DataFormatError(f"{text.label}: feature column {column!r} is entirely empty.")
        if missing.any():
            values[missing] = values[~missing].mean()
            imputed.append(f"'{column}' ({int(missing.sum())})")
        X[:, k] = values
    if imputed:
        notes.append("Empty feature cells replaced by the column mean: " + ", ".join(imputed) + ".")
    return Dataset(
        name=name or text.stem or "csv",
        X=X,
        Y=Y,
        feature_names=tuple(features),
        label_names=tuple(labels),
        notes=tuple(notes),
    )

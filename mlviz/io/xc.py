"""Reading and writing the Extreme Classification Repository's text format (and LIBSVM's).

The format (Bhatia et al., The Extreme Classification Repository): a header line ``N F L``
(instances, features, labels), then one line per instance::

    l1,l2,... f:v f:v ...

with 0-based label and feature indices. A row without labels starts with a space (or with its
first ``f:v`` pair); a row may have labels and no features, or nothing at all. LIBSVM's copies
of the same data sets have no header and count features from 1. napkinXC
(``napkinxc.datasets.load_libsvm_file``) and pyxclib (``xclib.data.data_utils.read_data``)
read the same files.

Parsing is linear: one Python step per *row* (splitting off the label field), the values and
indices of all rows are checked by one regular expression each and converted by numpy's C
parser in one call (no Python object per value), the matrices are built from index arrays.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

import numpy as np
import scipy.sparse as sp

from mlviz.io._dataset import DataFormatError, Dataset
from mlviz.io._source import Source, _read_source, _snippet, _Text
from mlviz.io.labels import normalize_names
from mlviz.wording import counted

__all__ = ["load_xc", "load_xc_split", "looks_like_xc", "read_split_indices", "write_xc"]

_HEADER = re.compile(r"^ *+(\d{1,15}) ++(\d{1,15}) ++(\d{1,15}) *+$")
_NUMBER = r"[-+]?+(?:\d++\.?+\d*+|\.\d++)(?:[eE][-+]?+\d++)?+"
_INDEX = r"\d{1,15}+"
# a whole label field, and a whole feature field (pairs, or bare indices: value 1)
_BAD_LABELS = re.compile(rf"^(?!(?:{_INDEX}(?:,{_INDEX})*+)?+$)", re.MULTILINE)
_BAD_FEATURES = re.compile(rf"^(?! *+(?:{_INDEX}(?::{_NUMBER})?+(?: ++|$))*+$)", re.MULTILINE)
_BARE_INDEX = re.compile(rf"(?<![^ \n])({_INDEX})(?![^ \n])")
_PAIR = re.compile(rf"^{_INDEX}:{_NUMBER}$")
# a first data line of either layout: labels (or nothing) then a space and an f:v pair
_XC_ROW = re.compile(r"^[\d,]*+ ++\d++:")
#: Label-map files looked for beside a data file, ``{base}`` being its stem without ``_data``.
LABEL_MAP_FILES = ("{base}_labels.txt", "{base}_Yf.txt", "Yf.txt", "labels.txt")
_SPLIT_SUFFIXES = ("_data", "_train", "_test")


def looks_like_xc(text: str | bytes) -> bool:
    """Whether ``text`` (a file's start is enough) is in the XC/LIBSVM layout.

    True when its first non-blank line is an ``N F L`` header of three integers, or a data
    row: an optional comma-separated label field, then spaces and an ``index:value`` pair. A
    CSV/TSV table has neither (a header of names, cells separated by commas or tabs).

    Examples
    --------
    >>> from mlviz.io.xc import looks_like_xc
    >>> looks_like_xc("2 5 3\\n0,2 1:0.5 4:1\\n 0:2\\n"), looks_like_xc("1,3 2:1 7:0.5\\n")
    (True, True)
    >>> looks_like_xc("x1,x2,a,b\\n0.5,1,1,0\\n")
    False
    """
    if isinstance(text, bytes | bytearray):
        text = bytes(text[:4096]).decode("utf-8", errors="replace")
    for line in text[:4096].replace("\t", " ").splitlines():
        if line.strip():
            return bool(_HEADER.match(line) or _XC_ROW.match(line))
    return False


def _label_map_candidates(path: Path) -> list[Path]:
    stem = path.stem
    for suffix in _SPLIT_SUFFIXES:
        if stem.endswith(suffix) and len(stem) > len(suffix):
            stem = stem[: -len(suffix)]
            break
    return [path.with_name(pattern.format(base=stem)) for pattern in LABEL_MAP_FILES]


def _read_label_map(path: Source, n_labels: int) -> list[str]:
    text = _read_source(path, "label map", lambda s: False)
    lines = text.text.replace("\r\n", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if len(lines) != n_labels:
        raise DataFormatError(
            f"{text.label}: the label map has {len(lines):,} lines, the data {n_labels:,} labels. "
            "It needs one name per line, line i naming label i - 1 (0-based); use the label "
            "map that belongs to this data, or remove it to get label_0, label_1, ..."
        )
    names, _ = normalize_names(lines, text.label, place=lambda i: f"line {i + 1}")
    blank = [i + 1 for i, n in enumerate(names) if not n]
    if blank:
        raise DataFormatError(
            f"{text.label} line {blank[0]}: an empty label name ({len(blank)} in all). Name "
            "every label."
        )
    first: dict[str, int] = {}
    for i, n in enumerate(names):
        if first.setdefault(n, i) != i:
            raise DataFormatError(
                f"{text.label} lines {first[n] + 1} and {i + 1}: label name {_snippet(n)!r} "
                "repeats. Every label needs its own name; rename one of them."
            )
    return names


def _label_names(
    label_names, n_labels: int, path: Path | None, notes: list[str]
) -> tuple[str, ...]:
    if label_names is None:
        return tuple(f"label_{j}" for j in range(n_labels))
    if isinstance(label_names, str) and label_names == "auto":
        found = None
        if path is not None:
            found = next((p for p in _label_map_candidates(path) if p.is_file()), None)
        if found is None:
            return tuple(f"label_{j}" for j in range(n_labels))
        notes.append(f"Label names from {found.name} (found next to {path.name}).")
        return tuple(_read_label_map(found, n_labels))
    if isinstance(label_names, str | os.PathLike):
        return tuple(_read_label_map(Path(label_names), n_labels))
    if isinstance(label_names, bytes | bytearray) or hasattr(label_names, "read"):
        return tuple(_read_label_map(label_names, n_labels))  # an upload's label map
    names = [str(n) for n in label_names]
    if len(names) != n_labels:
        raise ValueError(f"{len(names)} label names for {n_labels} labels.")
    return tuple(normalize_names(names, "label_names")[0])


class _Parsed:
    """Index arrays of one file (before the matrices are built) and what was detected."""

    def __init__(self, text: _Text, first_line: int, header: tuple[int, int, int] | None):
        self.text, self.first_line, self.header = text, first_line, header
        self.notes: list[str] = []

    def line(self, row: int) -> int:
        return self.first_line + int(row)


def _error(parsed: _Parsed, row: int, what: str) -> DataFormatError:
    return DataFormatError(f"{parsed.text.label} line {parsed.line(row)}: {what}")


def _diagnose_features(parsed: _Parsed, row: int, field: str) -> DataFormatError:
    for token in field.split():
        if _PAIR.match(token) or re.fullmatch(_INDEX, token):
            continue
        shown = _snippet(token)
        index, colon, value = token.partition(":")
        if not colon or token.count(":") > 1 or not index:
            why = "is not an index:value pair"
        elif not re.fullmatch(r"\d+", index):
            why = "has an index that is not a non-negative integer"
        elif len(index) > 15:
            why = "has an index with more than 15 digits"
        else:
            why = f"has a value {_snippet(value)!r} that is not a finite number"
        return _error(
            parsed,
            row,
            f"feature {shown!r} {why}. Features are written index:value (e.g. 12:0.5), "
            "separated by spaces, after the label field.",
        )
    return _error(parsed, row, f"cannot read the features {_snippet(field)!r}.")


def _parse(
    text: _Text,
    header: bool | Literal["auto"],
    feature_base: int | Literal["auto"],
    n_features: int | None,
    n_labels: int | None,
    max_columns: int | None,
    max_cells: int | None,
) -> tuple[sp.csr_matrix, np.ndarray, list[str], int, bool]:
    """(X, Y, notes, feature base, whether it had a header) of one file's text."""
    body = text.text
    if "\r" in body:
        body = body.replace("\r\n", "\n").replace("\r", "\n")
    if "\t" in body:
        body = body.replace("\t", " ")
    lines = body.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the final line break ends the last row, it does not start one
    if header not in ("auto", True, False):
        raise ValueError(f"header must be 'auto', True or False; got {header!r}.")
    if feature_base not in ("auto", 0, 1) or isinstance(feature_base, bool):
        raise ValueError(f"feature_base must be 'auto', 0 or 1; got {feature_base!r}.")
    match = _HEADER.match(lines[0]) if lines else None
    if header is True and match is None:
        raise DataFormatError(
            f"{text.label} line 1: expected the header 'N F L' (instances, features, labels: "
            f"three integers), found {_snippet(lines[0]) if lines else 'an empty file'!r}. "
            "Pass header=False for a LIBSVM file without one."
        )
    has_header = match is not None and header is not False
    counts = tuple(int(g) for g in match.groups()) if has_header else None
    parsed = _Parsed(text, 2 if has_header else 1, counts)
    rows = lines[1:] if has_header else lines
    if has_header:
        n_rows, n_f, n_l = counts
        if header == "auto":
            parsed.notes.append(
                f"Header 'N F L' detected on line 1 ({n_rows:,} instances, {n_f:,} features, "
                f"{n_l:,} labels): Extreme Classification Repository layout."
            )
        for given, declared, what in ((n_features, n_f, "features"), (n_labels, n_l, "labels")):
            if given is not None and given != declared:
                raise DataFormatError(
                    f"{text.label} line 1: the header declares {declared:,} {what}, the caller "
                    f"{given:,}. Check that the files belong together."
                )
        # refused from the header alone, before a row is looked at
        _check_budget(text, n_rows, n_f + n_l, max_columns, max_cells)
        while len(rows) > n_rows and not rows[-1].strip():
            rows.pop()  # blank lines after the last row
        if len(rows) != n_rows:
            raise DataFormatError(
                f"{text.label} line 1: the header declares {n_rows:,} instances, but "
                f"{len(rows):,} rows follow it (lines 2-{len(rows) + 1:,}). Fix the first "
                "number of the header, or restore the missing rows."
            )
    else:
        while rows and not rows[-1].strip():
            rows.pop()
        if header == "auto":
            parsed.notes.append(
                "No 'N F L' header on line 1: read as a LIBSVM file (shape from the indices)."
            )
    if not rows:
        raise DataFormatError(f"{text.label}: no instances (no rows after the header).")

    # one Python step per row: split off the label field (none when the first token is a pair)
    label_fields, feature_fields = [], []
    for line in rows:
        head, _, rest = line.partition(" ")
        if ":" in head:
            label_fields.append("")
            feature_fields.append(line)
        else:
            label_fields.append(head)
            feature_fields.append(rest)
    labels_text = "\n".join(label_fields)
    features_text = "\n".join(feature_fields)
    bad = _BAD_LABELS.search(labels_text)
    if bad is not None:
        row = labels_text.count("\n", 0, bad.start())
        raise _error(
            parsed,
            row,
            f"the label field {_snippet(label_fields[row])!r} is not a list of label indices. "
            "Labels are written as non-negative integers separated by commas, with no spaces "
            "(e.g. 0,12,40), before the first feature; a row without labels starts with a space.",
        )
    bad = _BAD_FEATURES.search(features_text)
    if bad is not None:
        row = features_text.count("\n", 0, bad.start())
        raise _diagnose_features(parsed, row, feature_fields[row])

    label_counts = np.fromiter(
        (f.count(",") + 1 if f else 0 for f in label_fields), dtype=np.int64, count=len(rows)
    )
    labels = _numbers(",".join(f for f in label_fields if f), ",", np.int64, label_counts.sum())
    n_bare = 0
    if len(features_text.split()) != features_text.count(":"):  # some index has no value
        features_text, n_bare = _BARE_INDEX.subn(r"\1:1", features_text)
    if n_bare:
        parsed.notes.append(
            f"{counted(n_bare, 'feature')} written without a value (e.g. '12' for '12:1') read "
            "as 1, napkinXC's documented convention."
        )
    feature_counts = np.fromiter(
        (f.count(":") for f in features_text.split("\n")), dtype=np.int64, count=len(rows)
    )
    numbers = features_text.replace(":", " ").replace("\n", " ")
    pairs = _numbers(numbers, " ", np.float64, 2 * int(feature_counts.sum()))
    del numbers
    del features_text, labels_text
    indices = pairs[0::2].astype(np.int64)
    values = np.ascontiguousarray(pairs[1::2])
    del pairs
    label_rows = np.repeat(np.arange(len(rows)), label_counts)
    feature_rows = np.repeat(np.arange(len(rows)), feature_counts)

    base = feature_base
    if base == "auto":
        base = 0 if has_header or indices.size == 0 or indices.min() == 0 else 1
        if not has_header and indices.size:
            parsed.notes.append(
                "Feature indices read as 1-based (LIBSVM; no feature 0 in the file)."
                if base == 1
                else "Feature indices read as 0-based (the file has a feature 0)."
            )
    if base == 1:
        if indices.size and indices.min() == 0:
            row = feature_rows[int(np.argmax(indices == 0))]
            raise _error(
                parsed,
                row,
                "feature index 0 in a file read with 1-based features (feature_base=1). "
                "Pass feature_base=0 if its features count from 0.",
            )
        indices -= 1
    if has_header:
        n_rows, n_f, n_l = counts
    else:
        n_rows = len(rows)
        n_f = n_features if n_features is not None else int(indices.max(initial=-1)) + 1
        n_l = n_labels if n_labels is not None else int(labels.max(initial=-1)) + 1
        n_f, n_l = max(n_f, 1), max(n_l, 1)
    where = "the header's" if has_header else "the given"
    _check_range(parsed, labels, label_rows, n_l, f"label index {{}} is beyond {where}", 0)
    _check_range(parsed, indices, feature_rows, n_f, f"feature index {{}} is beyond {where}", base)
    if not has_header:
        _check_budget(text, n_rows, n_f + n_l, max_columns, max_cells)
    _check_repeats(parsed, label_rows, labels, "label")
    order = _check_repeats(parsed, feature_rows, indices, "feature", base)
    indptr = np.concatenate([[0], np.cumsum(feature_counts)])
    X = sp.csr_matrix(
        (values[order], indices[order].astype(np.int32 if n_f < 2**31 else np.int64), indptr),
        shape=(n_rows, n_f),
    )
    X.has_sorted_indices = True
    X.eliminate_zeros()  # an explicit 'f:0' is a zero: the same matrix as without it
    Y = np.zeros((n_rows, n_l), dtype=np.uint8)
    Y[label_rows, labels] = 1
    return X, Y, parsed.notes, base, has_header


def _numbers(text: str, sep: str, dtype, expected: int) -> np.ndarray:
    """The numbers of ``text`` (already checked by a pattern) by numpy's C parser, in one call.

    ``numpy.fromstring`` reads a blank string as one number (-1, or 0 for integers): blank
    text is no number here, and the count is checked against the one the pattern implies.
    """
    values = np.fromstring(text, dtype=dtype, sep=sep) if text.strip() else np.zeros(0, dtype)
    if values.size != expected:  # the patterns admit only what numpy reads: a bug if reached
        raise RuntimeError(f"read {values.size} numbers where {expected} were expected.")
    return values


def _check_range(parsed, indices, rows, limit, template, base) -> None:
    beyond = indices >= limit
    if beyond.any():
        k = int(np.argmax(beyond))
        what = template.split()[0]
        span = f"{base:,} to {limit - 1 + base:,}"
        raise _error(
            parsed,
            rows[k],
            f"{template.format(f'{int(indices[k]) + base:,}')} {limit:,} {what}s ({span}). "
            f"Fix the index, or the {what} count of the header.",
        )


def _check_repeats(parsed, rows, indices, what, base=0) -> np.ndarray:
    """The order sorting each row's indices; an index listed twice in a row is an error.

    Rows come in order, so one int64 key per entry (row × bound + index) sorts them; a file
    whose rows already list their indices in increasing order (the usual) needs no sort.
    """
    if indices.size == 0:
        return np.zeros(0, dtype=np.intp)
    bound = int(indices.max()) + 1
    if (int(rows[-1]) + 1) * bound < 2**62:
        key = rows * np.int64(bound) + indices
        steps = np.diff(key)
        if (steps > 0).all():
            return np.arange(indices.size)
        order = np.argsort(key, kind="stable")
        same = np.diff(key[order]) == 0
    else:  # an index too large for one key: sort by (row, index)
        order = np.lexsort((indices, rows))
        same = (rows[order][1:] == rows[order][:-1]) & (indices[order][1:] == indices[order][:-1])
    if same.any():
        first = order[np.flatnonzero(same) + 1]
        k = int(first[np.argmin(rows[first])])
        raise _error(
            parsed,
            rows[k],
            f"{what} {int(indices[k]) + base} is listed twice in this row. List each {what} "
            "once per row.",
        )
    return order


def _check_budget(text: _Text, rows: int, columns: int, max_columns, max_cells) -> None:
    if max_columns is not None and columns > max_columns:
        raise DataFormatError(
            f"{text.label}: {columns:,} columns (features + labels); up to {max_columns:,} are "
            "read here. Keep fewer features (e.g. the most frequent ones) and load it again."
        )
    cells = rows * columns
    if max_cells is not None and cells > max_cells:
        raise DataFormatError(
            f"{text.label}: {rows:,} rows × {columns:,} columns (features + labels) = "
            f"{cells:,} values; up to {max_cells:,} are read here (rows × columns). Keep a "
            f"random sample of the rows (about {max(max_cells // max(columns, 1), 1):,} rows "
            "fit) or fewer features, and load it again."
        )


def _looks_like_xc_text(s: str) -> bool:
    return "\n" in s or not s.strip()


def load_xc(
    source: Source,
    *,
    header: bool | Literal["auto"] = "auto",
    feature_base: int | Literal["auto"] = "auto",
    n_features: int | None = None,
    n_labels: int | None = None,
    label_names: Sequence[str] | str | os.PathLike | None = "auto",
    name: str | None = None,
    max_columns: int | None = None,
    max_cells: int | None = None,
) -> Dataset:
    """Read an Extreme Classification Repository (or LIBSVM multi-label) text file.

    Parameters
    ----------
    source : path, str, bytes or file object
        A data file (``<name>_data.txt``, ``train.txt``, a LIBSVM file), its text (a string
        with a newline), UTF-8 bytes or a file object; or a folder holding ``train.txt`` and
        ``test.txt``: one data set, the training rows then the test rows, its notes stating the
        published split (:func:`load_xc_split` returns the two parts). Only the data file of
        the ``<name>_data.txt`` layout is read here; its ``_trSplit.txt``/``_tstSplit.txt``
        index files are read by :func:`read_split_indices` (and :mod:`mlviz.datasets`).
    header : {"auto", True, False}, default="auto"
        Whether line 1 is the ``N F L`` header. "auto": when it is three integers and nothing
        else. Without a header the shape comes from the largest indices (or ``n_features`` and
        ``n_labels``).
    feature_base : {"auto", 0, 1}, default="auto"
        Whether feature indices count from 0 (the repository) or 1 (LIBSVM). "auto": 0 with a
        header; without one, 1 unless some feature is 0. Labels always count from 0.
    n_features, n_labels : int, optional
        The shape of a header-less file (e.g. to give a test file its training file's); with
        a header they must agree with it.
    label_names : "auto", sequence of str, path, bytes, file object or None, default="auto"
        Label names; a path (or the bytes or file object of an upload): a label map, one
        name per line (line i names label i - 1).
        "auto": the first of :data:`LABEL_MAP_FILES` beside the data file (``<base>_labels
        .txt``, ``<base>_Yf.txt``, ``Yf.txt``, ``labels.txt``, ``<base>`` the stem without
        ``_data``), if any; else (and with None) ``label_0, label_1, ...``. Names are
        normalised (:func:`mlviz.io.labels.normalize_names`); a repeated name is an error.
    name : str, optional
        Data set name; default: the file stem without ``_data`` (the folder's name for a
        train/test folder).
    max_columns, max_cells : int, optional
        Budgets (None: no limit): features + labels, and rows × (features + labels), checked
        from the header (or, without one, from the indices) before any matrix is built.

    Returns
    -------
    Dataset
        CSR float64 ``X`` (indices sorted, explicit zeros dropped), uint8 ``Y``; rows without
        labels are kept. Feature names are ``f<index>`` with the index as the file writes it.
        The notes say what was detected (header, feature base, values read as 1).

    Notes
    -----
    A feature written without ``:value`` is read as 1, as napkinXC's documentation says;
    napkinXC 0.7.2's reader itself drops such features silently, and scikit-learn's
    ``load_svmlight_file`` refuses them. Blank lines inside the data are instances with no
    label and no feature (as napkinXC reads them); blank lines after the last row are ignored.

    Raises
    ------
    DataFormatError
        Naming the line: a header count that disagrees with the rows that follow, a label
        or feature index beyond the header's count, a malformed label field or ``f:v`` pair,
        a value that is not a finite number, an index listed twice in a row; a label map
        whose line count differs from the labels; over a budget.

    Examples
    --------
    >>> from mlviz.io import load_xc
    >>> ds = load_xc("3 4 2\\n0,1 0:0.5 3:1\\n 2:2\\n1\\n")
    >>> ds.X.toarray().tolist(), ds.Y.tolist(), ds.label_names
    ([[0.5, 0.0, 0.0, 1.0], [0.0, 0.0, 2.0, 0.0], [0.0, 0.0, 0.0, 0.0]], [[1, 1], [0, 0], \
[0, 1]], ('label_0', 'label_1'))
    >>> load_xc("0 1:1 4:2\\n1,2 2:1\\n").n_features  # LIBSVM: no header, features from 1
    4
    """
    if isinstance(source, str | os.PathLike) and not (
        isinstance(source, str) and _looks_like_xc_text(source)
    ):
        folder = Path(source)
        if folder.is_dir():
            train, test = load_xc_split(
                folder,
                header=header,
                feature_base=feature_base,
                label_names=label_names,
                max_columns=max_columns,
                max_cells=max_cells,
            )
            return _stack(train, test, name or folder.name)
    text = _read_source(source, "XC", _looks_like_xc_text)
    X, Y, notes, base, _ = _parse(
        text, header, feature_base, n_features, n_labels, max_columns, max_cells
    )
    names = _label_names(label_names, Y.shape[1], text.path, notes)
    stem = text.stem or "xc"
    if stem.endswith("_data") and len(stem) > 5:
        stem = stem[:-5]
    return Dataset(
        name=name or stem,
        X=X,
        Y=Y,
        feature_names=tuple(f"f{j + base}" for j in range(X.shape[1])),
        label_names=names,
        notes=tuple(notes),
    )


def load_xc_split(
    folder: str | os.PathLike,
    *,
    header: bool | Literal["auto"] = "auto",
    feature_base: int | Literal["auto"] = "auto",
    label_names: Sequence[str] | str | os.PathLike | None = "auto",
    max_columns: int | None = None,
    max_cells: int | None = None,
) -> tuple[Dataset, Dataset]:
    """The published ``(train, test)`` split of a folder holding ``train.txt`` and ``test.txt``.

    Both files are read by :func:`load_xc` (same options) with the same shape: with headers,
    they must declare the same features and labels; without, the larger indices of the two
    set it, and the feature base detected on the training file is used for both. Label names
    from a label map in the folder (``Yf.txt``, ``labels.txt``).

    Raises
    ------
    FileNotFoundError
        The folder lacks one of the two files.
    DataFormatError
        The files declare different shapes (or any error of :func:`load_xc`).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from mlviz.io.xc import load_xc_split
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     _ = (Path(folder) / "train.txt").write_text("2 3 2\\n0 0:1\\n1 2:1\\n")
    ...     _ = (Path(folder) / "test.txt").write_text("1 3 2\\n0,1 1:1\\n")
    ...     train, test = load_xc_split(folder)
    >>> train.n_samples, test.n_samples, test.Y.tolist()
    (2, 1, [[1, 1]])
    """
    folder = Path(folder)
    paths = [folder / "train.txt", folder / "test.txt"]
    for path in paths:
        if not path.is_file():
            raise FileNotFoundError(
                f"{path} not found: a train/test folder holds train.txt and test.txt."
            )
    texts = [_read_source(p, "XC", lambda s: False) for p in paths]
    parts = [_parse(t, header, feature_base, None, None, max_columns, max_cells) for t in texts]
    (X_train, Y_train, notes_train, base, headed), (X_test, Y_test, notes_test, base_test, _) = (
        parts
    )
    if base != base_test and feature_base == "auto":
        # the test file alone may lack feature 0 (or have it): one base for both files
        X_test, Y_test, notes_test, _, _ = _parse(
            texts[1], header, base, None, None, max_columns, max_cells
        )
    shapes = [(X.shape[1], Y.shape[1]) for X, Y in ((X_train, Y_train), (X_test, Y_test))]
    if shapes[0] != shapes[1]:
        if headed:
            raise DataFormatError(
                f"{paths[0].name} declares {shapes[0][0]:,} features and {shapes[0][1]:,} "
                f"labels, {paths[1].name} {shapes[1][0]:,} and {shapes[1][1]:,}. The two parts "
                "of a split must have the same features and labels."
            )
        n_f, n_l = max(shapes[0][0], shapes[1][0]), max(shapes[0][1], shapes[1][1])
        X_train, X_test = (
            sp.csr_matrix((X.data, X.indices, X.indptr), shape=(X.shape[0], n_f))
            for X in (X_train, X_test)
        )
        Y_train, Y_test = (np.pad(Y, ((0, 0), (0, n_l - Y.shape[1]))) for Y in (Y_train, Y_test))
    notes = list(dict.fromkeys(notes_train + notes_test))
    names = _label_names(label_names, Y_train.shape[1], paths[0], notes)
    features = tuple(f"f{j + base}" for j in range(X_train.shape[1]))
    return (
        Dataset("train", X_train, Y_train, features, names, tuple(notes)),
        Dataset("test", X_test, Y_test, features, names, tuple(notes)),
    )


def _stack(train: Dataset, test: Dataset, name: str) -> Dataset:
    """Training rows then test rows, the split stated as :func:`mlviz.datasets.stack_split`
    states it (mlviz.datasets builds on mlviz.io, not the other way round)."""
    note = (
        f"The official split: rows 1-{train.n_samples:,} are train.txt (training), rows "
        f"{train.n_samples + 1:,}-{train.n_samples + test.n_samples:,} are test.txt (test)."
    )
    return Dataset(
        name,
        sp.vstack([train.X, test.X], format="csr"),
        np.vstack([train.Y, test.Y]),
        train.feature_names,
        train.label_names,
        (note, *train.notes),
    )


def write_xc(
    dataset: Dataset, path: str | os.PathLike, *, label_map: bool = True
) -> tuple[Path, Path | None]:
    """Write ``dataset`` in the Extreme Classification Repository layout (0-based, header).

    Parameters
    ----------
    dataset : Dataset
    path : path
        The data file (e.g. ``bibtex_data.txt``), or an existing folder: then
        ``<dataset.name>_data.txt`` in it.
    label_map : bool, default=True
        Also write the label names, one a line, to ``<base>_labels.txt`` beside it (``<base>``:
        the stem without ``_data``), where :func:`load_xc` finds them.

    Returns
    -------
    (data_path, label_map_path) : tuple of Path (the second None without ``label_map``)

    Raises
    ------
    ValueError
        A feature value that is not finite (the format has no missing value), or a label name
        with a line break.

    Notes
    -----
    Values are written with ``repr`` (the shortest text that reads back to the same float),
    so :func:`load_xc` gives back identical ``X`` (its non-zeros), ``Y`` and label names;
    feature names are not stored by the format (they come back as ``f0, f1, ...``).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from mlviz.io import load_xc, write_xc
    >>> from mlviz.synthetic import make_cube
    >>> ds = make_cube(n_samples=20, random_state=0)
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     data_path, names_path = write_xc(ds, Path(folder) / "cube_data.txt")
    ...     back = load_xc(data_path)
    >>> (back.X.toarray() == ds.X).all(), (back.Y == ds.Y).all(), back.label_names == ds.label_names
    (np.True_, np.True_, True)
    """
    target = Path(path)
    if target.is_dir():
        target = target / f"{dataset.name}_data.txt"
    X = sp.csr_matrix(dataset.X, dtype=np.float64, copy=True)  # the Dataset's is read-only
    X.eliminate_zeros()
    X.sort_indices()
    if not np.all(np.isfinite(X.data)):
        raise ValueError(
            "write_xc: X has NaN or infinite values; the XC format has no missing value. "
            "Impute or drop them first."
        )
    names = [str(n) for n in dataset.label_names]
    if label_map and any("\n" in n or "\r" in n for n in names):
        raise ValueError("write_xc: a label name holds a line break; it cannot be one line.")
    Y = sp.csr_matrix(np.asarray(dataset.Y, dtype=np.uint8))
    Y.sort_indices()
    pairs = list(map("{}:{!r}".format, X.indices.tolist(), X.data.tolist()))
    labels = list(map(str, Y.indices.tolist()))
    lines = [f"{X.shape[0]} {X.shape[1]} {Y.shape[1]}"]
    for i in range(X.shape[0]):
        label_field = ",".join(labels[Y.indptr[i] : Y.indptr[i + 1]])
        lines.append(label_field + " " + " ".join(pairs[X.indptr[i] : X.indptr[i + 1]]))
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    if not label_map:
        return target, None
    names_path = _label_map_candidates(target)[0]
    names_path.write_text("".join(n + "\n" for n in names), encoding="utf-8")
    return target, names_path


def read_split_indices(
    train_index: str | os.PathLike,
    test_index: str | os.PathLike,
    n_samples: int,
    *,
    split: int = 0,
) -> tuple[np.ndarray, np.ndarray, tuple[str, ...]]:
    """The rows of one published split from the repository's ``_trSplit.txt``/``_tstSplit.txt``.

    The Extreme Classification Repository ships, beside a ``<name>_data.txt``, two index files
    with one column per random split (10 for Bibtex, Delicious, Mediamill) and one row index a
    line, counted from 1 (MATLAB's). Rows are counted among the data rows, the header line not
    being a row. The base is read from the files, not assumed: 1 unless some index is 0 (then
    0), and stated in the notes; a 0-based file that never lists row 0 would read as 1-based,
    which only an index equal to ``n_samples`` (out of range for 0-based) can rule in.

    Parameters
    ----------
    train_index, test_index : path
        The two index files.
    n_samples : int
        The data file's row count (its header's N).
    split : int, default=0
        Which column (0-based): the first is the split papers call "the" published one.

    Returns
    -------
    train_rows, test_rows : ndarray of int
        0-based row indices into the data file's rows, in the files' order.
    notes : tuple of str
        The split used, the base read, and how many rows are in neither part.

    Raises
    ------
    DataFormatError
        Naming the file and line: a token that is not an integer, a line with another number
        of columns than the first, a split beyond the columns, an index out of range, a row
        listed twice in one part or in both parts.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from mlviz.io.xc import read_split_indices
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     tr, te = Path(folder, "toy_trSplit.txt"), Path(folder, "toy_tstSplit.txt")
    ...     _ = tr.write_text("1 2\\n3 4\\n4 1\\n")
    ...     _ = te.write_text("2 3\\n")
    ...     train, test, notes = read_split_indices(tr, te, 4)
    >>> train.tolist(), test.tolist()
    ([0, 2, 3], [1])
    """
    if isinstance(split, bool) or not isinstance(split, int | np.integer) or split < 0:
        raise ValueError(f"split must be a non-negative integer; got {split!r}.")
    parts = []
    for path in (Path(train_index), Path(test_index)):
        lines = [(i, line.split()) for i, line in enumerate(path.read_text().splitlines(), 1)]
        lines = [(i, tokens) for i, tokens in lines if tokens]
        if not lines:
            raise DataFormatError(f"{path.name} holds no row index.")
        width = len(lines[0][1])
        for i, tokens in lines:
            if len(tokens) != width:
                raise DataFormatError(
                    f"{path.name} line {i}: {counted(len(tokens), 'column')} where line "
                    f"{lines[0][0]} has {width} (one column per split)."
                )
            bad = next((t for t in tokens if not re.fullmatch(r"[+]?\d+", t)), None)
            if bad is not None:
                raise DataFormatError(
                    f"{path.name} line {i}: {_snippet(bad)!r} is not a row index (a "
                    "non-negative integer)."
                )
        if split >= width:
            raise DataFormatError(
                f"{path.name} has {counted(width, 'split')} (columns); split {split} (0-based) "
                "does not exist."
            )
        parts.append((path, [i for i, _ in lines], np.array([int(t[split]) for _, t in lines])))
    base = 0 if min(rows.min() for _, _, rows in parts) == 0 else 1
    result = []
    for path, line_numbers, rows in parts:
        rows = rows - base
        out = np.flatnonzero(rows >= n_samples)
        if out.size:
            raise DataFormatError(
                f"{path.name} line {line_numbers[out[0]]}: row {rows[out[0]] + base} is beyond "
                f"the data file's {n_samples:,} rows (indices read as {base}-based)."
            )
        values, counts = np.unique(rows, return_counts=True)
        if (counts > 1).any():
            twice = values[counts > 1][0]
            raise DataFormatError(
                f"{path.name} lists row {twice + base} {counts[counts > 1][0]} times in split "
                f"{split}."
            )
        result.append(rows)
    train_rows, test_rows = result
    both = np.intersect1d(train_rows, test_rows)
    if both.size:
        raise DataFormatError(
            f"{counted(both.size, 'row')} (first: {both[0] + base}) are in both "
            f"{parts[0][0].name} and {parts[1][0].name} in split {split}."
        )
    neither = n_samples - train_rows.size - test_rows.size
    notes = [
        f"The published split is column {split + 1} of {parts[0][0].name} and "
        f"{parts[1][0].name} ({train_rows.size:,} training rows, {test_rows.size:,} test rows; "
        f"row indices read as {base}-based{', as the repository writes them' if base else ''})."
    ]
    if neither:
        notes.append(f"{counted(neither, 'row')} of the data file are in neither part.")
    return train_rows, test_rows, tuple(notes)

"""Any model's scores from a file: top-k ``label:score`` text, a dense CSV, or ``.npy``.

A model trained outside mlviz (napkinXC, pyxclib, a deep XMC model) is diagnosed from its
score matrix: :func:`load_scores` reads it into an (N, L) float array, and
:func:`mlviz.evaluation.external_predictions` turns that into the out-of-fold predictions
every per-label, tail and loss-reason view takes.
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

import numpy as np

from mlviz.io._dataset import DataFormatError
from mlviz.io._source import Source, _read_source, _snippet
from mlviz.io.labels import normalize_names
from mlviz.io.xc import _numbers
from mlviz.wording import counted

__all__ = ["load_scores"]

_NPY_MAGIC = b"\x93NUMPY"
_INDEX = r"\d{1,15}+"
_SCORE = r"(?:[-+]?+(?:\d++\.?+\d*+|\.\d++)(?:[eE][-+]?+\d++)?+|-inf)"
_BAD_TOPK = re.compile(rf"^(?! *+(?:{_INDEX}:{_SCORE}(?: ++|$))*+$)", re.MULTILINE)
_TOPK_START = re.compile(r"^ *+\d++:")  # a CSV header of names never starts so
# pyxclib's write_sparse_file puts "rows labels" on line 1
_TOPK_HEADER = re.compile(r"^ *+(\d{1,15}+) ++(\d{1,15}+) *+$")
_SHOWN_NAMES = 8  # names listed in a mismatch message


def _names_list(names: Sequence[str]) -> str:
    shown = ", ".join(repr(_snippet(n)) for n in names[:_SHOWN_NAMES])
    more = len(names) - _SHOWN_NAMES
    return shown + (f" and {more:,} more" if more > 0 else "")


def _read_bytes(source: Source) -> tuple[bytes | None, str]:
    """The raw bytes of a path or binary buffer (for .npy), and how messages name it."""
    if isinstance(source, os.PathLike) or (isinstance(source, str) and "\n" not in source):
        path = Path(source)
        if path.is_file():
            return path.read_bytes(), path.name
        return None, str(source)
    if isinstance(source, bytes | bytearray):
        return bytes(source), "score bytes"
    if hasattr(source, "read") and hasattr(source, "seek"):
        name = getattr(source, "name", "") or ""
        start = source.tell()
        content = source.read()
        source.seek(start)
        if isinstance(content, bytes | bytearray):
            return bytes(content), f"upload '{Path(name).name}'" if name else "score file object"
    return None, "score text"


def load_scores(
    source: Source,
    *,
    n_labels: int | None = None,
    n_rows: int | None = None,
    label_names: Sequence[str] | None = None,
    format: Literal["auto", "topk", "csv", "npy"] = "auto",
) -> np.ndarray:
    """Read a model's label scores: top-k ``label:score`` text, a dense CSV, or ``.npy``.

    Parameters
    ----------
    source : path, str, bytes or file object
        A path, the file's text (a string with a newline), bytes or a file object.
    n_labels : int, optional
        The data set's label count. Required for the top-k text (which lists only some
        labels) unless its line 1 is a ``rows labels`` header (pyxclib's
        ``write_sparse_file`` writes one; it is checked against ``n_labels`` and the lines);
        for a CSV or ``.npy`` the columns must number this many.
    n_rows : int, optional
        The rows the scores must cover (e.g. the test rows of the current split); a file with
        another count is an error saying which rows are expected.
    label_names : sequence of str, optional
        For a CSV: its header must name exactly these labels (in any order; the columns are
        put in this order). Missing and extra names are listed in the error.
    format : {"auto", "topk", "csv", "npy"}, default="auto"
        "auto": ``.npy`` by its magic bytes; top-k when the first non-blank line starts with
        digits and a colon (``3:0.9``) or is a ``rows labels`` header; otherwise CSV (pass
        ``format="csv"`` for a header whose first name looks like that).

    Returns
    -------
    ndarray of float64, shape (n_rows, n_labels)
        Higher is more confident. In the top-k text, a label not listed on an instance's line
        scores ``-inf``: below every listed label, which is what the file says (the model
        ranked it lower than its top k), so ranking metrics (P@k, nDCG@k, AUC, ranking loss)
        place it last and it is never predicted at any finite threshold. ``-inf`` is also
        accepted written out (``3:-inf``) and in a CSV or ``.npy``.
        :func:`mlviz.evaluation.external_predictions` makes the matrix finite for the metrics.

    Raises
    ------
    DataFormatError
        A malformed line (naming it), a label index at or beyond ``n_labels`` (naming the
        line), a label listed twice on a line; a row or label count other than ``n_rows`` /
        ``n_labels``; a CSV header that does not match ``label_names``; NaN or ``+inf`` (a
        missing score is ambiguous: leave the label out, or write ``-inf``).
    ValueError
        ``n_labels`` missing for the top-k text; a pickled ``.npy`` (never unpickled).

    Examples
    --------
    >>> from mlviz.io import load_scores
    >>> load_scores("0:0.9 2:0.5\\n1:0.7\\n", n_labels=3).tolist()
    [[0.9, -inf, 0.5], [-inf, 0.7, -inf]]
    >>> load_scores("a,b\\n0.2,0.8\\n0.6,0.1\\n", label_names=["b", "a"]).tolist()
    [[0.8, 0.2], [0.1, 0.6]]
    """
    if format not in ("auto", "topk", "csv", "npy"):
        raise ValueError(f"format must be 'auto', 'topk', 'csv' or 'npy'; got {format!r}.")
    for given, what in ((n_labels, "n_labels"), (n_rows, "n_rows")):
        if given is not None and (isinstance(given, bool) or int(given) < 1):
            raise ValueError(f"{what} must be a positive int; got {given!r}.")
    raw, label = _read_bytes(source)
    if format == "npy" or (format == "auto" and raw is not None and raw.startswith(_NPY_MAGIC)):
        if raw is None:
            raise ValueError(".npy scores must be given as a path, bytes or a binary file.")
        scores = _load_npy(raw, label)
    else:
        text = _read_source(
            raw if raw is not None else source, "score", lambda s: "\n" in s or not s.strip()
        )
        label = text.label if raw is None or label == "score bytes" else label
        body = text.text.replace("\r\n", "\n")
        if not body.strip():
            raise DataFormatError(
                f"{label}: the score file is empty. Give one line (or row) of scores per instance."
            )
        first = next((line for line in body.split("\n") if line.strip()), "")
        header = _TOPK_HEADER.match(first)
        if format == "topk" or (format == "auto" and (_TOPK_START.match(first) or header)):
            if n_labels is None and header is None:
                raise ValueError(
                    f"{label}: a top-k score file lists only some labels per instance; pass "
                    "n_labels (the data set's label count) to know the others."
                )
            scores = _load_topk(body, label, n_labels, n_rows)
        else:
            scores = _load_csv(body, label, label_names)
    return _check(scores, label, n_labels, n_rows)


def _load_npy(raw: bytes, label: str) -> np.ndarray:
    try:
        array = np.load(io.BytesIO(raw), allow_pickle=False)
    except ValueError as err:
        raise DataFormatError(
            f"{label}: cannot read the .npy file ({err}). Save a numeric array with "
            "numpy.save(path, scores); object arrays (pickles) are never loaded."
        ) from err
    if array.ndim != 2 or array.dtype.kind not in "biuf":
        raise DataFormatError(
            f"{label}: the .npy array has shape {array.shape} and dtype {array.dtype}; scores "
            "are a 2-D numeric array, one row per instance and one column per label."
        )
    return np.asarray(array, dtype=np.float64)


def _load_topk(body: str, label: str, n_labels: int | None, n_rows: int | None) -> np.ndarray:
    lines = body.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    header = _TOPK_HEADER.match(lines[0]) if lines else None
    if header is not None:  # "rows labels", as pyxclib writes: checked, then dropped
        declared_rows, declared_labels = (int(g) for g in header.groups())
        if n_labels is not None and declared_labels != n_labels:
            raise DataFormatError(
                f"{label} line 1: the header declares {declared_labels:,} labels, the data set "
                f"has {n_labels:,}. The scores belong to another data set."
            )
        n_labels = declared_labels
        lines = lines[1:]
        while len(lines) > declared_rows and not lines[-1].strip():
            lines.pop()
        if len(lines) != declared_rows:
            raise DataFormatError(
                f"{label} line 1: the header declares {declared_rows:,} instances, but "
                f"{len(lines):,} lines follow it. Fix the header or restore the lines."
            )
    first_line = 2 if header is not None else 1
    if n_rows is not None:
        while len(lines) > n_rows and not lines[-1].strip():
            lines.pop()
    text = "\n".join(lines)
    if "\t" in text:
        text = text.replace("\t", " ")
    bad = _BAD_TOPK.search(text)
    if bad is not None:
        row = text.count("\n", 0, bad.start())
        token = next(
            (t for t in lines[row].split() if not re.fullmatch(f"{_INDEX}:{_SCORE}", t)), ""
        )
        raise DataFormatError(
            f"{label} line {row + first_line}: {_snippet(token)!r} is not a label:score pair "
            "(a label index from 0, a colon, a number or -inf). Each line lists one instance's "
            "scores as 'label:score' pairs separated by spaces; an empty line is an instance "
            "with none."
        )
    counts = np.fromiter((line.count(":") for line in lines), dtype=np.int64, count=len(lines))
    pairs = _numbers(text.replace(":", " ").replace("\n", " "), " ", np.float64, 2 * counts.sum())
    columns = pairs[0::2].astype(np.int64)
    values = pairs[1::2]
    rows = np.repeat(np.arange(len(lines)), counts)
    beyond = columns >= n_labels
    if beyond.any():
        k = int(np.argmax(beyond))
        raise DataFormatError(
            f"{label} line {rows[k] + first_line}: label {columns[k]:,} is beyond the data set's "
            f"{n_labels:,} labels (0 to {n_labels - 1:,}). The scores belong to another data "
            "set, or count labels from 1: write them from 0."
        )
    order = np.lexsort((columns, rows))
    same = (rows[order][1:] == rows[order][:-1]) & (columns[order][1:] == columns[order][:-1])
    if same.any():
        k = int(order[np.flatnonzero(same)[0] + 1])
        raise DataFormatError(
            f"{label} line {rows[k] + first_line}: label {columns[k]} is listed twice. List "
            "each label once per line."
        )
    scores = np.full((len(lines), n_labels), -np.inf)
    scores[rows, columns] = values
    return scores


def _load_csv(body: str, label: str, label_names: Sequence[str] | None) -> np.ndarray:
    import pandas as pd

    try:
        frame = pd.read_csv(io.StringIO(body), dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as err:
        raise DataFormatError(
            f"{label}: cannot read the scores as a CSV table ({str(err).strip()}). A dense "
            "score table has a header row of label names and one numeric column per label."
        ) from err
    header, _ = normalize_names([str(c) for c in frame.columns], f"{label} line 1")
    if label_names is not None:
        wanted, _ = normalize_names([str(n) for n in label_names], "label_names")
        have = set(header)
        missing = [n for n in wanted if n not in have]
        extra = [n for n in header if n not in set(wanted)]
        if missing or extra or len(header) != len(wanted):
            parts = []
            if missing:
                listed = _names_list(missing)
                parts.append(f"no column for {counted(len(missing), 'label')}: {listed}")
            if extra:
                parts.append(
                    f"{counted(len(extra), 'column')} that are not labels: {_names_list(extra)}"
                )
            if not parts:
                parts.append("a column name repeats")
            raise DataFormatError(
                f"{label} line 1: the header does not match the data set's labels: "
                f"{'; '.join(parts)}. Name one column per label, spelled as the data set does."
            )
        frame.columns = header
        frame = frame[list(wanted)]
        header = list(wanted)
    values = frame.apply(pd.to_numeric, errors="coerce").to_numpy(dtype=np.float64)
    raw = frame.to_numpy(dtype=str)
    unreadable = np.isnan(values) & ~np.isin(np.char.lower(np.char.strip(raw)), ["nan"])
    if unreadable.any():
        row, column = (int(v[0]) for v in np.nonzero(unreadable))
        raise DataFormatError(
            f"{label} line {row + 2}: column {_snippet(header[column])!r} is "
            f"{_snippet(raw[row, column])!r}, not a number. Every cell is a label's score."
        )
    return values


def _check(scores: np.ndarray, label: str, n_labels, n_rows) -> np.ndarray:
    nan = np.isnan(scores)
    if nan.any() or np.isposinf(scores).any():
        row, column = (int(v[0]) for v in np.nonzero(nan | np.isposinf(scores)))
        what = "NaN (missing)" if nan[row, column] else "+inf"
        raise DataFormatError(
            f"{label}: the score of row {row + 1}, label {column} is {what}. Scores are "
            "finite numbers, or -inf for a label the model did not score (its count: "
            f"{int(nan.sum() + np.isposinf(scores).sum()):,} such cells); a missing score is "
            "ambiguous, so write -inf (or leave the label out of a top-k line) instead."
        )
    if n_labels is not None and scores.shape[1] != n_labels:
        raise DataFormatError(
            f"{label}: {scores.shape[1]:,} score columns for a data set of {n_labels:,} labels. "
            "Give one column per label of this data set, in its label order."
        )
    if n_rows is not None and scores.shape[0] != n_rows:
        raise DataFormatError(
            f"{label}: scores for {scores.shape[0]:,} instances, {n_rows:,} expected. Give one "
            "row per instance scored, in the data set's row order (for a split, its test rows "
            "only; for out-of-fold scores, every row)."
        )
    return scores

"""Reading a loader's input (path, text, bytes or file object) into text, for every format."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from mlviz.io._dataset import DataFormatError

Source = str | os.PathLike | bytes | bytearray | IO[str] | IO[bytes]
_SNIPPET = 70


def _snippet(text: str) -> str:
    """A line shortened for an error message."""
    text = text.strip()
    return text if len(text) <= _SNIPPET else text[: _SNIPPET - 1] + "…"


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

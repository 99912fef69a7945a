"""Which ARFF attributes are labels: a MULAN XML file, MEKA's ``-C n``, or an explicit count."""

from __future__ import annotations

import difflib
import re
import unicodedata
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from mlviz.io._dataset import DataFormatError, LabelsUnknownError
from mlviz.io._source import Source, _looks_like_xml_text, _read_source, _Text

if TYPE_CHECKING:
    from mlviz.io.arff import _Attribute, _Header

MULAN_NAMESPACE = "http://mulan.sourceforge.net/labels"
_MEKA_C = re.compile(r"(?:^|[\s:])-C\s+(-?\d+)(?=\s|$|')")
#: Characters that render as nothing: a name typed with one looks the same as one without.
ZERO_WIDTH = "\u200b\u200c\u200d\u2060\ufeff"
_DROP_ZERO_WIDTH = dict.fromkeys(map(ord, ZERO_WIDTH))
_SHOWN = 80  # characters of a name shown in a clash message


def normalize_name(name: str) -> str:
    """The form in which every loader stores and compares a column or label name.

    Unicode NFC, the zero-width characters of :data:`ZERO_WIDTH` removed, surrounding whitespace
    stripped: names that look the same on screen (``café`` typed as one or as two code points,
    ``a\u200bb`` and ``ab``, ``" l1 "`` and ``l1``) are the same name.

    Examples
    --------
    >>> from mlviz.io.labels import normalize_name
    >>> normalize_name(" cafe\u0301 ") == "caf\u00e9", normalize_name("a\u200bb")
    (True, 'ab')
    """
    return unicodedata.normalize("NFC", name.translate(_DROP_ZERO_WIDTH)).strip()


def _shown(name: str) -> str:
    # ascii(): escapes (\xe9, \u0301, \u200b) show how two look-alike names differ
    text = ascii(name)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"


def normalize_names(
    names: list[str], where: str, *, place: Callable[[int], str] | None = None
) -> tuple[list[str], str | None]:
    """:func:`normalize_name` of each name; an error for two different names that become one.

    Identical names are left to the caller, which reports a repeated name in its own terms
    (the header column, the ARFF line); here two *different* names that normalise to the same
    one are an error naming both, since one would silently stand for the other.

    Parameters
    ----------
    names : list of str
        The names as the file spells them.
    where : str
        How the error names the input (e.g. ``"upload 'x.csv' line 1"``).
    place : callable, optional
        Where the name at an index is (e.g. ``"column 3"``, ``"line 7"``), for the error.

    Returns
    -------
    names : list of str
        The normalised names, in order.
    note : str or None
        What changed (for the loader's ``notes``), or None when no name changed.

    Raises
    ------
    DataFormatError
        Two different names with the same normalised form.

    Examples
    --------
    >>> from mlviz.io.labels import normalize_names
    >>> normalize_names([" l1 ", "l2"], "t.csv line 1")
    (['l1', 'l2'], "Names normalised (Unicode NFC, zero-width characters removed, surrounding \
whitespace stripped): ' l1 ' → 'l1'.")
    >>> normalize_names(["caf\\u00e9", "cafe\\u0301"], "t.csv line 1")
    Traceback (most recent call last):
    ...
    mlviz.io._dataset.DataFormatError: t.csv line 1: names 'caf\\xe9' and 'cafe\\u0301' are ...
    """
    if "".join(names).isascii():
        # the common case, at C speed (a header may have millions of names): NFC and the
        # zero-width characters concern non-ASCII text only
        normalized = list(map(str.strip, names))
        if normalized == names:
            return normalized, None
    else:
        normalized = [normalize_name(name) for name in names]
    first: dict[str, int] = {}
    changed: list[str] = []
    for index, (raw, name) in enumerate(zip(names, normalized, strict=True)):
        earlier = first.setdefault(name, index)
        if earlier != index and names[earlier] != raw:
            at = ""
            if place is not None:
                at = f" ({place(earlier)} and {place(index)})"
            raise DataFormatError(
                f"{where}: names {_shown(names[earlier])} and {_shown(raw)}{at} are the same "
                f"name {_shown(name)} once Unicode-normalised (NFC), with zero-width characters "
                "removed and surrounding whitespace stripped: they look alike on screen, so one "
                "would stand for the other. Rename one of them."
            )
        if name != raw and len(changed) < 5:
            changed.append(f"{_shown(raw)} → {_shown(name)}")
    if not changed:
        return normalized, None
    n_changed = sum(name != raw for raw, name in zip(names, normalized, strict=True))
    more = f" ({n_changed} names)" if n_changed > len(changed) else ""
    note = (
        "Names normalised (Unicode NFC, zero-width characters removed, surrounding whitespace "
        f"stripped): {', '.join(changed)}{more}."
    )
    return normalized, note


def meka_label_count(relation: str) -> int | None:
    """MEKA's ``-C n`` in an ``@relation`` value: n > 0 first n attributes, n < 0 last |n|.

    Examples
    --------
    >>> from mlviz.io.labels import meka_label_count
    >>> meka_label_count("scene: -C 6"), meka_label_count("scene: -C -6"), meka_label_count("x")
    (6, -6, None)
    """
    match = _MEKA_C.search(relation or "")
    return int(match.group(1)) if match else None


def xml_candidates(path: Path) -> list[Path]:
    """Where the MULAN XML of ``path`` may be: ``name.xml``; for ``name-train.arff`` /
    ``name-test.arff`` (or ``_train``/``_test``) also the full set's ``name.xml``.

    Examples
    --------
    >>> from pathlib import Path
    >>> from mlviz.io.labels import xml_candidates
    >>> [path.name for path in xml_candidates(Path("yeast-train.arff"))]
    ['yeast-train.xml', 'yeast.xml']
    """
    candidates = [path.with_suffix(".xml")]
    for suffix in ("-train", "-test", "_train", "_test"):
        if path.stem.lower().endswith(suffix):
            candidates.append(path.with_name(path.stem[: -len(suffix)] + ".xml"))
    return candidates


def xml_label_names(xml: Source) -> tuple[list[str], str]:
    """Label names of a MULAN XML file, in document order (nested hierarchy labels included).

    Names are normalised with :func:`normalize_name`, as the ARFF attribute names they are
    matched to.

    Examples
    --------
    >>> import io
    >>> from mlviz.io.labels import xml_label_names
    >>> xml = io.StringIO('<labels xmlns="http://mulan.sourceforge.net/labels">'
    ...                   '<label name="a"></label><label name="b"></label></labels>')
    >>> xml_label_names(xml)[0]
    ['a', 'b']
    """
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
    # matched against attribute names normalised the same way (normalize_name)
    names, _ = normalize_names(names, text.label)
    return names, text.label


def label_indices(
    attributes: list[_Attribute],
    header: _Header,
    text: _Text,
    xml: Source | None,
    n_labels: int | None,
    label_location: str,
    notes: list[str],
) -> list[int]:
    """Which attributes are labels, in ARFF column order (rules: :func:`mlviz.io.load_arff`).

    Appends to ``notes`` what was used (an XML found next to the file, MEKA ``-C``) and what
    was overridden.
    """
    n_attr = len(attributes)
    meka = meka_label_count(header.relation)
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
        xml = next((p for p in xml_candidates(text.path) if p.is_file()), None)
        if xml is not None:
            notes.append(f"Labels named by {xml.name} (found next to {text.path.name}).")

    if xml is not None:
        names, xml_label = xml_label_names(xml)
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
                " (looked for " + ", ".join(p.name for p in xml_candidates(text.path)) + ")"
                if text.path is not None
                else ""
            )
            raise LabelsUnknownError(
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

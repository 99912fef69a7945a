"""Writing a :class:`Dataset` as MULAN ARFF + XML (liac-arff writes the ARFF)."""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from pathlib import Path

import arff
import numpy as np
import scipy.sparse as sp

from mlviz.io._dataset import DataFormatError, Dataset
from mlviz.io.arff import _attributes, _scan_header
from mlviz.io.labels import MULAN_NAMESPACE


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
        Written as ``%`` comment lines before ``@RELATION``;
        :func:`mlviz.datasets.list_sources` shows it as the data set's description.

    Returns
    -------
    (arff_path, xml_path) : tuple of Path

    Raises
    ------
    ValueError
        Repeated attribute names, or a name that liac-arff cannot write so that it reads back
        the same (it quotes names without escaping, so e.g. a name with both a space and a
        double quote, or with a tab, does not survive).

    Notes
    -----
    Layout: features (numeric) then labels (nominal ``{0, 1}``), rows dense, or sparse
    ``{index value}`` rows when ``dataset.X`` is sparse so that :func:`load_arff` returns CSR
    again. liac-arff writes floats with ``str`` (the shortest exact round trip) and NaN as
    ``?``, so loading the files (with ``missing="keep"`` if ``X`` has NaN) gives back
    identical ``X``, ``Y`` and names.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from mlviz.io import load_arff, save_arff
    >>> from mlviz.synthetic import make_cube
    >>> ds = make_cube(n_samples=20, random_state=0)
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     arff_path, xml_path = save_arff(ds, Path(folder) / "cube.arff")
    ...     back = load_arff(arff_path, xml=xml_path)
    >>> arff_path.name, xml_path.name, (back.Y == ds.Y).all()
    ('cube.arff', 'cube.xml', np.True_)
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
    controls = [n for n in names if any(ord(c) < 32 for c in n)]
    if controls:
        raise ValueError(
            f"ARFF attribute names cannot contain tabs, line breaks or other control "
            f"characters; rename {controls[:5]!r}."
        )
    attributes = [(n, "NUMERIC") for n in dataset.feature_names]
    attributes += [(n, ["0", "1"]) for n in dataset.label_names]
    document = {
        "description": comment or "",
        "relation": dataset.name or "dataset",
        "attributes": attributes,
        "data": _rows(dataset),
    }
    text = arff.dumps(document)
    _check_names_read_back(text, names)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text + "\n", encoding="utf-8")

    ET.register_namespace("", MULAN_NAMESPACE)
    root = ET.Element(f"{{{MULAN_NAMESPACE}}}labels")
    root.text = "\n"
    for label in dataset.label_names:
        ET.SubElement(root, f"{{{MULAN_NAMESPACE}}}label", name=label).tail = "\n"
    xml_path = target.with_suffix(".xml")
    ET.ElementTree(root).write(xml_path, encoding="utf-8", xml_declaration=True)
    return target, xml_path


def _rows(dataset: Dataset) -> list:
    """Rows for liac-arff: lists (dense) or ``{column: value}`` dicts (sparse), labels '0'/'1'.

    Values are Python floats so that liac-arff's ``str`` gives the shortest exact repr.
    """
    Y = np.asarray(dataset.Y, dtype=np.uint8)
    n_features = dataset.X.shape[1]
    if sp.issparse(dataset.X):
        X = sp.csr_matrix(dataset.X)
        rows = []
        for i in range(X.shape[0]):
            start, stop = X.indptr[i], X.indptr[i + 1]
            indices, values = X.indices[start:stop].tolist(), X.data[start:stop].tolist()
            row = {j: v for j, v in zip(indices, values, strict=True) if v != 0}
            row.update({n_features + k: "1" for k in np.flatnonzero(Y[i]).tolist()})
            rows.append(row)
        return rows
    labels = np.where(Y == 1, "1", "0").tolist()
    X = np.asarray(dataset.X, dtype=np.float64).tolist()
    return [x_row + y_row for x_row, y_row in zip(X, labels, strict=True)]


def _read_back(lines: list[str]) -> list[str] | None:
    """Attribute names of ARFF header lines as :func:`load_arff` reads them; None if unreadable."""
    header = _scan_header(lines)
    try:
        decoded = arff.ArffDecoder().decode(lines[: header.data_line], return_type=arff.DENSE)
        return [a.name for a in _attributes(decoded["attributes"], header)]
    except (arff.ArffException, DataFormatError, ValueError):
        return None


def _check_names_read_back(text: str, names: list[str]) -> None:
    lines = text.split("\n")
    if _read_back(lines) == names:
        return
    header = _scan_header(lines)
    broken = [
        name
        for name, line in zip(names, header.attribute_lines, strict=True)
        if _read_back(["@relation r", lines[line - 1], "@data"]) != [name]
    ]
    raise ValueError(
        f"liac-arff cannot write attribute name(s) {broken[:5]!r} so that they read back "
        "unchanged (it quotes names without escaping them). Rename them: avoid tabs and line "
        "breaks, and quotes or backslashes together with spaces, commas, braces or '%'."
    )

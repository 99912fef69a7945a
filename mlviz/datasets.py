"""Where data sets come from: the samples shipped inside mlviz, and a folder of MULAN files
(and of Extreme Classification Repository text files: ``<name>_data.txt``, or a folder with
``train.txt`` + ``test.txt``).

The app lists :func:`list_sources` in its picker (each data set once) and loads a choice with
:func:`load_source`, or its published train/test split with :func:`load_official_split`.
Discovery reads only headers and counts data lines; no value is parsed until a set is loaded.

The data folder is resolved in one place, :func:`default_data_dir`, used by the app,
``python -m mlviz reproduce``, the benchmarks and the tests:

1. the environment variable ``MLVIZ_DATA_DIR``, when set (even if the folder is missing, so
   that the caller can say so);
2. otherwise ``<repository>/../shared/data/mulan``, when that folder exists (a source checkout
   next to the shared benchmark data);
3. otherwise no folder: only the embedded samples are offered.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib.resources
import os
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd
import scipy.sparse as sp

from mlviz.io import DataFormatError, Dataset, load_arff, load_xc
from mlviz.io.arff import MissingPolicy
from mlviz.io.labels import meka_label_count, xml_candidates
from mlviz.io.xc import load_xc_split, read_split_indices

DATA_DIR_ENV = "MLVIZ_DATA_DIR"
REPO_ROOT = Path(__file__).resolve().parents[1]
#: The embedded samples: package data (``mlviz/sample_data``), so an installed mlviz has them.
#: ``sample_data/`` at the top of a source checkout is a symbolic link to this folder.
SAMPLE_DIR = Path(str(importlib.resources.files("mlviz") / "sample_data"))
# The app opens on the first source: the planted set is the one built for teaching.
_SAMPLE_FIRST = ("planted",)
_SPLIT_SUFFIXES = {"-train": "train", "_train": "train", "-test": "test", "_test": "test"}
_MEKA_SUFFIX = "-meka"


def default_data_dir() -> Path | None:
    """The benchmark data folder: ``$MLVIZ_DATA_DIR`` if set, else ``<repo>/../shared/data/mulan``.

    The environment variable is returned even when it names a missing folder (so a caller can
    report it); the fallback only when it exists. None when there is neither.

    Examples
    --------
    >>> from mlviz.datasets import default_data_dir
    >>> folder = default_data_dir()  # None when no MULAN folder is configured or found
    >>> folder is None or folder.is_dir()
    True
    """
    configured = os.environ.get(DATA_DIR_ENV, "").strip()
    if configured:
        return Path(configured).expanduser()
    fallback = REPO_ROOT.parent / "shared" / "data" / "mulan"
    return fallback if fallback.is_dir() else None


@dataclass(frozen=True)
class DatasetSource:
    """One data set the app can offer.

    Attributes
    ----------
    key : str
        Stable identifier: ``"sample:<name>"``, ``"mulan:<name>"`` or ``"xc:<name>"``.
    name : str
        Display name: the file stem, without ``-train``/``-test``/``-meka``.
    kind : {"sample", "folder"}
    path : Path or None
        The file with the whole data set (labels from the XML next to it, or MEKA ``-C``);
        None when the folder has only ``name-train.arff`` and ``name-test.arff``: then the
        whole data set is the training rows followed by the test rows.
    description : str
    train_path, test_path : Path or None
        The published split (``name-train.arff`` / ``name-test.arff``; XC's ``train.txt`` /
        ``test.txt``, or the ``_trSplit.txt`` / ``_tstSplit.txt`` row-index files beside a
        ``<name>_data.txt``, read by :func:`mlviz.io.xc.read_split_indices`), when both exist.
    format : {"arff", "xc"}
        How the files are read: :func:`mlviz.io.load_arff`, or :func:`mlviz.io.load_xc`
        (Extreme Classification Repository text: ``path`` a ``<name>_data.txt``, or
        ``train_path``/``test_path`` a folder's ``train.txt`` and ``test.txt``).
    n_samples, n_features, n_labels : int
        Shape for the picker, from the headers and a count of data lines (no value parsed).
        ``n_features`` counts the feature attributes declared in the file; loading may encode
        a nominal one into several columns or drop an id/string one (genbase, birds), so the
        loaded :class:`Dataset` can differ by a few columns.

    Examples
    --------
    >>> from mlviz.datasets import list_sources
    >>> source = list_sources()[0]
    >>> source.key, source.kind, source.n_labels
    ('sample:planted', 'sample', 22)
    """

    key: str
    name: str
    kind: Literal["sample", "folder"]
    path: Path | None
    description: str
    n_samples: int
    n_features: int
    n_labels: int
    train_path: Path | None = None
    test_path: Path | None = None
    format: Literal["arff", "xc"] = "arff"

    @property
    def has_official_split(self) -> bool:
        """True when the data set ships its own train/test files (as used in the papers)."""
        return self.train_path is not None and self.test_path is not None

    def label(self) -> str:
        """The picker's text, e.g. ``"yeast — 2,417 × 103, 14 labels"``."""
        return f"{self.name} — {self.n_samples:,} × {self.n_features:,}, {self.n_labels} labels"


# --------------------------------------------------------------------------- header scan
@dataclass(frozen=True)
class _FileInfo:
    comment: str  # the leading % comment, as one line
    relation: str
    n_attributes: int
    n_rows: int


@functools.lru_cache(maxsize=256)
def _scan_cached(path: Path, mtime_ns: int, size: int) -> _FileInfo:
    del mtime_ns, size  # only the cache key: a rewritten file is scanned again
    comment: list[str] = []
    relation, n_attributes, n_rows = "", 0, 0
    in_data, in_comment = False, True
    with path.open(encoding="utf-8", errors="replace") as handle:
        for line in handle:
            row = line.strip()
            if in_data:
                n_rows += bool(row) and not row.startswith("%")
                continue
            if not row:
                continue
            if row.startswith("%"):
                if in_comment and row.lstrip("%").strip():
                    comment.append(row.lstrip("%").strip())
                continue
            in_comment = False
            head = row[:10].lower()
            if head.startswith("@relation"):
                relation = row[9:].strip()
            elif head.startswith("@attribute"):
                n_attributes += 1
            elif head.startswith("@data"):
                in_data = True
    return _FileInfo(" ".join(comment), relation, n_attributes, n_rows)


def _scan(path: Path) -> _FileInfo:
    stat = path.stat()
    return _scan_cached(path, stat.st_mtime_ns, stat.st_size)


def _xml_label_count(path: Path) -> int | None:
    try:
        root = ET.parse(path).getroot()
    except (ET.ParseError, OSError):
        return None
    return sum(1 for element in root.iter() if element.tag.rsplit("}", 1)[-1] == "label")


def _label_count(path: Path) -> tuple[int, str] | None:
    """How many labels ``path`` has and where that comes from, or None when it cannot tell."""
    for xml in xml_candidates(path):
        if xml.is_file():
            count = _xml_label_count(xml)
            if count:
                return count, f"labels named in {xml.name}"
    meka = meka_label_count(_scan(path).relation)
    if meka:
        return abs(meka), f"MEKA layout, labels given by -C {meka} in @relation"
    return None


# --------------------------------------------------------------------------- discovery
def _sample_sources(sample_dir: Path) -> list[DatasetSource]:
    if not sample_dir.is_dir():
        return []
    sources = []
    for path in sorted(sample_dir.glob("*.arff")):
        if not path.with_suffix(".xml").is_file():
            continue
        info, labels = _scan(path), _label_count(path)
        if labels is None:
            continue
        description = info.comment or "Embedded sample data set generated by mlviz."
        sources.append(
            DatasetSource(
                f"sample:{path.stem}",
                path.stem,
                "sample",
                path,
                description,
                info.n_rows,
                info.n_attributes - labels[0],
                labels[0],
            )
        )
    rank = {name: i for i, name in enumerate(_SAMPLE_FIRST)}
    return sorted(sources, key=lambda s: (rank.get(s.name, len(rank)), s.name))


def _role(stem: str) -> tuple[str, str]:
    """``(base name, role)``: role is "full", "train", "test" or "meka"."""
    lower = stem.lower()
    for suffix, role in _SPLIT_SUFFIXES.items():
        if lower.endswith(suffix) and len(stem) > len(suffix):
            return stem[: -len(suffix)], role
    if lower.endswith(_MEKA_SUFFIX) and len(stem) > len(_MEKA_SUFFIX):
        return stem[: -len(_MEKA_SUFFIX)], "meka"
    return stem, "full"


def _folder_sources(folder: Path) -> list[DatasetSource]:
    groups: dict[str, dict[str, tuple[Path, int, str]]] = {}
    for path in sorted(folder.glob("*.arff")):
        labels = _label_count(path)
        if labels is None:
            continue  # no way to tell its labels apart
        base, role = _role(path.stem)
        groups.setdefault(base, {})[role] = (path, *labels)
    sources = []
    for base, files in sorted(groups.items()):
        split = "train" in files and "test" in files
        if "full" in files:
            whole = files["full"]
        elif not split and "meka" in files:
            whole = files["meka"]
        else:
            whole = None
        if whole is None and not split:
            # a lone train or test file is a data set of its own, under its own name
            for role in ("train", "test"):
                if role in files:
                    sources.append(_single_source(files[role], files[role][0].stem))
            continue
        if whole is not None:
            source = _single_source(whole, base)
        else:
            train_info, test_info = _scan(files["train"][0]), _scan(files["test"][0])
            path, n_labels, how = files["train"]
            source = DatasetSource(
                f"mulan:{base}",
                base,
                "folder",
                None,
                f"{base}: {path.name} and {files['test'][0].name} together ({how}); the folder "
                f"has no {base}.arff.",
                train_info.n_rows + test_info.n_rows,
                train_info.n_attributes - n_labels,
                n_labels,
            )
        if split:
            train, test = files["train"][0], files["test"][0]
            n_train, n_test = _scan(train).n_rows, _scan(test).n_rows
            extra = (
                f" Published split: {n_train:,} train / {n_test:,} test ({train.name}, "
                f"{test.name})."
            )
            if "meka" in files and files["meka"][0] != source.path:
                extra += f" Also in MEKA layout as {files['meka'][0].name}."
            source = DatasetSource(
                source.key,
                source.name,
                source.kind,
                source.path,
                source.description + extra,
                source.n_samples,
                source.n_features,
                source.n_labels,
                train,
                test,
            )
        sources.append(source)
    return sources


def _single_source(entry: tuple[Path, int, str], name: str) -> DatasetSource:
    path, n_labels, how = entry
    info = _scan(path)
    return DatasetSource(
        f"mulan:{name}",
        name,
        "folder",
        path,
        f"{name}: {path.name} ({how}).",
        info.n_rows,
        info.n_attributes - n_labels,
        n_labels,
    )


@functools.lru_cache(maxsize=256)
def _xc_header_cached(path: Path, mtime_ns: int, size: int) -> tuple[int, int, int] | None:
    del mtime_ns, size  # only the cache key
    with path.open(encoding="utf-8", errors="replace") as handle:
        first = handle.readline(200)
    parts = first.split()
    if len(parts) == 3 and all(p.isdigit() for p in parts):
        return int(parts[0]), int(parts[1]), int(parts[2])
    return None


def _xc_header(path: Path) -> tuple[int, int, int] | None:
    """``(N, F, L)`` of an XC file's first line, or None when it has no such header (a
    header-less LIBSVM file: its shape is known only once parsed, so the picker skips it)."""
    stat = path.stat()
    return _xc_header_cached(path, stat.st_mtime_ns, stat.st_size)


def _xc_sources(folder: Path) -> list[DatasetSource]:
    """XC text data sets in ``folder`` and its immediate sub-folders: each ``<name>_data.txt``
    with an ``N F L`` header, and each folder holding ``train.txt`` and ``test.txt`` (with
    headers that agree), the latter with its published split."""
    sources: dict[str, DatasetSource] = {}
    folders = [folder, *sorted(p for p in folder.iterdir() if p.is_dir())]
    for where in folders:
        train, test = where / "train.txt", where / "test.txt"
        if train.is_file() and test.is_file():
            heads = _xc_header(train), _xc_header(test)
            if None not in heads and heads[0][1:] == heads[1][1:]:
                (n_train, n_features, n_labels), (n_test, _, _) = heads
                name = where.name
                sources.setdefault(
                    f"xc:{name}",
                    DatasetSource(
                        f"xc:{name}",
                        name,
                        "folder",
                        None,
                        f"{name}: Extreme Classification Repository text, {where.name}/"
                        f"train.txt and test.txt together. Published split: {n_train:,} train "
                        f"/ {n_test:,} test.",
                        n_train + n_test,
                        n_features,
                        n_labels,
                        train,
                        test,
                        "xc",
                    ),
                )
        # the repository names index files in lower case beside e.g. Bibtex_data.txt
        by_lower = {p.name.lower(): p for p in where.iterdir() if p.is_file()}
        for path in sorted(where.glob("*_data.txt")):
            head = _xc_header(path)
            name = path.name[: -len("_data.txt")]
            if head is None or not name:
                continue
            train_index = by_lower.get(f"{name.lower()}_trsplit.txt")
            test_index = by_lower.get(f"{name.lower()}_tstsplit.txt")
            indexed = train_index is not None and test_index is not None
            sources.setdefault(
                f"xc:{name}",
                DatasetSource(
                    f"xc:{name}",
                    name,
                    "folder",
                    path,
                    f"{name}: {path.name}, Extreme Classification Repository text"
                    + (
                        f". Published split: the first column of {train_index.name} and "
                        f"{test_index.name}."
                        if indexed
                        else " (no _trSplit/_tstSplit index files beside it: split at random)."
                    ),
                    *head,
                    train_path=train_index if indexed else None,
                    test_path=test_index if indexed else None,
                    format="xc",
                ),
            )
    return list(sources.values())


def list_sources(folder: Path | None = None) -> list[DatasetSource]:
    """Every data set the app can offer, each once: samples (``planted`` first), then folder sets.

    Parameters
    ----------
    folder : Path, optional
        Folder of MULAN files; default :func:`default_data_dir`. In it, ``name.arff``,
        ``name-train.arff``, ``name-test.arff`` and a MEKA variant ``name-meka.arff`` are one
        source ``"mulan:name"``. Its whole data set is ``name.arff``; without it, the train
        file followed by the test file (scene, whose ``scene-meka.arff`` names its labels
        differently from the split files); without a split either, the MEKA file. A file is
        used when its labels are known: ``name.xml`` (also for the split files) or MEKA's
        ``-C n`` in ``@relation``. A lone ``name-train.arff`` is a source of its own. A
        missing folder adds nothing. Folder sets are sorted by name.

    Examples
    --------
    >>> from mlviz.datasets import list_sources
    >>> [source.key for source in list_sources() if source.kind == "sample"]
    ['sample:planted', 'sample:cube']
    """
    sources = _sample_sources(SAMPLE_DIR)
    folder = default_data_dir() if folder is None else Path(folder)
    if folder is not None and folder.is_dir():
        arff_sources = _folder_sources(folder)
        taken = {s.name for s in arff_sources}
        xc_sources = [
            dataclasses.replace(s, name=f"{s.name} (XC)") if s.name in taken else s
            for s in _xc_sources(folder)
        ]
        sources += sorted(arff_sources + xc_sources, key=lambda s: s.name)
    return sources


def _resolve(source_or_key: DatasetSource | str, folder: Path | None) -> DatasetSource:
    if isinstance(source_or_key, DatasetSource):
        return source_or_key
    by_key = {s.key: s for s in list_sources(folder)}
    if source_or_key not in by_key:
        known = ", ".join(list(by_key)[:12]) or "none"
        raise KeyError(
            f"No data set with key {source_or_key!r}. Known keys: {known}"
            f"{' ...' if len(by_key) > 12 else ''}."
        )
    return by_key[source_or_key]


def load_source(
    source_or_key: DatasetSource | str,
    folder: Path | None = None,
    *,
    missing: MissingPolicy = "error",
) -> Dataset:
    """Load the whole data set of a :class:`DatasetSource`, or of the source with that key.

    ``missing`` is passed to :func:`mlviz.io.load_arff`. A source without a whole-data file is
    its training rows followed by its test rows (:func:`stack_split`).

    Examples
    --------
    >>> from mlviz.datasets import load_source
    >>> ds = load_source("sample:cube")
    >>> ds.name, ds.Y.shape[1]
    ('cube', 3)
    """
    source = _resolve(source_or_key, folder)
    if source.path is None:
        return stack_split(*load_official_split(source, missing=missing), name=source.name)
    if source.format == "xc":
        return load_xc(source.path, name=source.name)
    return load_arff(source.path, name=source.name, missing=missing)


def load_official_split(
    source_or_key: DatasetSource | str,
    folder: Path | None = None,
    *,
    missing: MissingPolicy = "error",
) -> tuple[Dataset, Dataset]:
    """The published ``(train, test)`` split of a data set, as the papers use it.

    Both parts have the same features and labels (checked). genbase's published split
    overlaps (MULAN's README: one protein is in both parts, one in neither); it is returned as
    published, and the test part's notes count the test instances identical to a training
    instance (features and labels), whatever the data set.

    Raises
    ------
    ValueError
        The source has no official split.
    DataFormatError
        The two files declare different features or labels.

    Examples
    --------
    >>> from mlviz.datasets import default_data_dir, load_official_split
    >>> folder = default_data_dir()
    >>> if folder is not None and (folder / "emotions-train.arff").exists():
    ...     train, test = load_official_split("mulan:emotions", folder=folder)
    ...     print(train.n_labels == test.n_labels == 6)
    ... else:
    ...     print(True)  # no MULAN data here
    True
    """
    source = _resolve(source_or_key, folder)
    if not source.has_official_split:
        raise ValueError(
            f"{source.name} has no official train/test split (no {source.name}-train.arff and "
            f"{source.name}-test.arff); use a random split."
        )
    if source.format == "xc" and source.path is not None:  # <name>_data.txt + index files
        whole = load_xc(source.path, name=source.name)
        train_rows, test_rows, notes = read_split_indices(
            source.train_path, source.test_path, whole.n_samples
        )
        train = _take_rows(whole, train_rows, f"{source.name}-train", notes)
        test = _take_rows(whole, test_rows, f"{source.name}-test", notes)
    elif source.format == "xc":  # one reader for both files: the same shape and label names
        train, test = load_xc_split(source.train_path.parent)
        train = dataclasses.replace(train, name=f"{source.name}-train")
        test = dataclasses.replace(test, name=f"{source.name}-test")
    else:
        train = load_arff(source.train_path, missing=missing)
        test = load_arff(source.test_path, missing=missing)
    for what in ("feature_names", "label_names"):
        ours, theirs = getattr(train, what), getattr(test, what)
        if ours != theirs:
            first = next(
                (i for i, (a, b) in enumerate(zip(ours, theirs, strict=False)) if a != b),
                min(len(ours), len(theirs)),
            )
            raise DataFormatError(
                f"{source.train_path.name} and {source.test_path.name} declare different "
                f"{what.split('_')[0]}s ({len(ours)} vs {len(theirs)}; first difference at "
                f"position {first + 1}). The two parts of a split must have the same attributes."
            )
    shared = _rows_also_in(test, train)
    if shared:
        note = (
            f"{shared} of the {test.n_samples} test instances are identical (features and "
            "labels) to a training instance."
        )
        test = Dataset(
            test.name, test.X, test.Y, test.feature_names, test.label_names, (*test.notes, note)
        )
    return train, test


def _take_rows(ds: Dataset, rows: np.ndarray, name: str, notes: tuple[str, ...]) -> Dataset:
    """The rows ``rows`` of ``ds``, in that order, as a data set of their own."""
    X = ds.X[rows] if sp.issparse(ds.X) else np.asarray(ds.X)[rows]
    return dataclasses.replace(
        ds, name=name, X=X, Y=np.asarray(ds.Y)[rows], notes=(*ds.notes, *notes)
    )


def stack_split(train: Dataset, test: Dataset, *, name: str) -> Dataset:
    """One data set: the rows of ``train``, then the rows of ``test`` (CSR if either is sparse).

    Row ``i < train.n_samples`` is training row ``i``; the rest are the test rows in order.

    Examples
    --------
    >>> from mlviz.datasets import stack_split
    >>> from mlviz.synthetic import make_cube
    >>> train = make_cube(n_samples=30, random_state=0)
    >>> test = make_cube(n_samples=10, random_state=1)
    >>> stack_split(train, test, name="cube-all").Y.shape
    (40, 3)
    """
    if sp.issparse(train.X) or sp.issparse(test.X):
        X = sp.vstack([sp.csr_matrix(train.X), sp.csr_matrix(test.X)], format="csr")
    else:
        X = np.vstack([train.X, test.X])
    notes = [
        f"The official split: rows 1-{train.n_samples:,} are {train.name} (training), "
        f"rows {train.n_samples + 1:,}-{train.n_samples + test.n_samples:,} are "
        f"{test.name} (test)."
    ]
    notes += [n for n in dict.fromkeys(train.notes + test.notes)]
    return Dataset(
        name, X, np.vstack([train.Y, test.Y]), train.feature_names, train.label_names, tuple(notes)
    )


def _row_keys(ds: Dataset) -> list[bytes]:
    if sp.issparse(ds.X):
        X = sp.csr_matrix(ds.X)
        return [
            X.indices[X.indptr[i] : X.indptr[i + 1]].tobytes()
            + b"|"
            + X.data[X.indptr[i] : X.indptr[i + 1]].tobytes()
            + b"|"
            + ds.Y[i].tobytes()
            for i in range(ds.n_samples)
        ]
    X = np.ascontiguousarray(ds.X, dtype=np.float64)
    return [X[i].tobytes() + b"|" + ds.Y[i].tobytes() for i in range(ds.n_samples)]


def _rows_also_in(test: Dataset, train: Dataset) -> int:
    """How many rows of ``test`` equal some row of ``train`` exactly (features and labels)."""
    seen = set(_row_keys(train))
    return sum(key in seen for key in _row_keys(test))


def known_groups(dataset: Dataset, sample_dir: Path | None = None) -> np.ndarray | None:
    """The planted label groups of an embedded sample, or None when none are known.

    ``<sample dir>/<name>_groups.csv`` (columns ``label``, ``group``) is matched to the data
    set's labels **by name**; a data set whose label names differ (e.g. an upload that
    happens to be called "planted") gets None rather than a wrong answer.

    Examples
    --------
    >>> from mlviz.datasets import known_groups, load_source
    >>> known_groups(load_source("sample:planted"))[:6].tolist()
    [0, 0, 0, 0, 0, 0]
    >>> known_groups(load_source("sample:cube")) is None
    True
    """
    path = (sample_dir or SAMPLE_DIR) / f"{dataset.name}_groups.csv"
    if not path.is_file():
        return None
    table = pd.read_csv(path)
    by_name = dict(zip(table["label"].astype(str), table["group"].astype(int), strict=True))
    if set(by_name) != set(dataset.label_names):
        return None
    return np.array([by_name[name] for name in dataset.label_names], dtype=int)

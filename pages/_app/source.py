"""The data set every page works on: loaders, the sidebar's picker, ``current_dataset``.

Caches are keyed by the data set's content digest, never by Streamlit's hashing of arrays
(which samples large arrays).
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar
from weakref import WeakKeyDictionary

import numpy as np
import scipy.sparse as sp
import streamlit as st

from mlviz import datasets
from mlviz.io import DataFormatError, Dataset, LabelsUnknownError, load_arff, load_csv, load_xc
from mlviz.io.xc import looks_like_xc
from pages._app import (
    budget,
    links,
    plain,
)

T = TypeVar("T")

DATASET_KEY = "dataset"
SOURCE_LABEL_KEY = "dataset_label"
UPLOAD_DIGEST_KEY = "upload_digest"
#: Session key: (digest, message) of the last upload that could not be used, so that a
#: failed upload is parsed once, not again on every rerun while it stays in the uploader.
UPLOAD_FAILED_KEY = "_upload_failed"
#: Session key: the statement about the loaded data set's row sample (budget.sample_rows).
SAMPLE_STATEMENT_KEY = "_sample_statement"
OFFICIAL_TRAIN_KEY = "official_n_train"
HAS_OFFICIAL_SPLIT_KEY = "source_has_official_split"
SPLIT_MODE_KEY = "split_mode"
SPLIT_OFFICIAL, SPLIT_RANDOM = "official", "random"


# --------------------------------------------------------------------------- data set
@st.cache_resource(show_spinner=False)
def _sources() -> list[datasets.DatasetSource]:
    return datasets.list_sources()


@st.cache_resource(show_spinner="Loading data set…", max_entries=16)
def _load_source(key: str, official_split: bool) -> tuple[Dataset, int | None]:
    """The data set of ``key`` and, for its official split, the number of training rows.

    With the official split the data set is the training rows followed by the test rows, so
    the split's index arrays refer to it. Missing feature values are kept as NaN and imputed
    on the training rows in :func:`_split`.
    """
    if official_split:
        train, test = datasets.load_official_split(key, missing="keep")
        source = next(s for s in _sources() if s.key == key)
        return datasets.stack_split(train, test, name=source.name), train.n_samples
    return datasets.load_source(key, missing="keep"), None


# Shared by all sessions (a class uploading the same file parses it once). Entries are bounded
# by the upload budget (budget.MAX_UPLOAD_CELLS: at most ~400 MB each as float64), so 4 of
# them stay within ~1.6 GB in the worst case; typical uploads are a few MB.
@st.cache_resource(show_spinner="Reading upload…", max_entries=4)
def _load_upload(
    digest: str,
    name: str,
    _payload: bytes,
    _xml: bytes | None,
    xml_name: str | None,
    label_spec: str,
) -> Dataset:
    """Parse an uploaded file and its optional label-name file (a MULAN .xml for ARFF, a
    label map .txt for XC text); ``digest`` (of all inputs) is the cache key (the leading
    underscores keep Streamlit from hashing the file's bytes again)."""
    del digest  # only the cache key
    payload, xml = _payload, _xml
    stem = name.rsplit(".", 1)[0]
    label_map = xml is not None and str(xml_name).lower().endswith(".txt")
    if name.lower().endswith(".txt") and looks_like_xc(payload[:4096]):
        # an Extreme Classification Repository / LIBSVM file (any other .txt is a table)
        stem = stem.removesuffix("_data")
        if xml is not None and not label_map:
            raise DataFormatError(
                f"{xml_name} is a MULAN .xml, which names the labels of an ARFF file; an XC "
                "text file's labels are named by a label map .txt (one name a line, line i "
                "naming label i - 1). Remove the .xml or give the label map."
            )
        names = None
        if label_map:
            names = io.BytesIO(xml)
            names.name = str(xml_name)  # its errors name the upload
        return load_xc(payload, name=stem, label_names=names, **budget.loader_budgets("xc"))
    if label_map:
        raise DataFormatError(
            f"{xml_name} is a label map .txt, which names the labels of an XC text file; "
            f"{name} is not one. For ARFF give the MULAN .xml; a CSV names its labels in its "
            "header."
        )
    if name.lower().endswith((".csv", ".tsv", ".txt")):
        label_columns: Any = [c.strip() for c in label_spec.split(",") if c.strip()]
        if len(label_columns) == 1 and label_columns[0].isdigit():
            label_columns = int(label_columns[0])
        if not label_columns:
            raise LabelsUnknownError(
                f"{name}: a CSV file does not say which of its columns are labels."
            )
        # the budgets are checked before parsing too (then again on the result, upload_refusal)
        return load_csv(
            payload, label_columns, name=stem, missing="keep", **budget.loader_budgets("csv")
        )
    n_labels = int(label_spec) if label_spec.strip().isdigit() else None
    return load_arff(
        payload,
        xml=xml,
        n_labels=n_labels,
        name=stem,
        missing="keep",
        **budget.loader_budgets("arff"),
    )


#: The uploader's help: how a .txt upload is read.
XC_UPLOAD_HELP = (
    "A .txt file is read as an Extreme Classification Repository file when its first line is "
    "the header 'N F L' (instances, features, labels) or a row 'labels index:value ...' "
    "(LIBSVM, features counted from 1); its labels are named by a label map when one is "
    "given (as the label-name file below; in a data folder, one beside the data), else "
    "label_0, label_1, ... Any other .txt is read as a CSV/TSV table."
)

#: Widget key of the label count asked for in the main area when an upload does not say which
#: columns are labels; its value goes into the sidebar's ``upload_labels`` box.
LABEL_COUNT_KEY = "upload_label_count"


def _use_label_count() -> None:
    count = st.session_state.get(LABEL_COUNT_KEY)
    if count:
        st.session_state["upload_labels"] = str(int(count))


def _upload_failed(name: str, message: str, needs_labels: bool = False) -> None:
    """The upload's error where the eyes are: at the top of the page (and in the sidebar by
    the uploader), with the fix as an action when only the label columns are missing (issue
    31: the error sat ~1,100 px down the sidebar, in API terms, and nothing else changed)."""
    still = (
        f" Still showing {plain.markdown(st.session_state[SOURCE_LABEL_KEY])}."
        if DATASET_KEY in st.session_state
        else ""
    )
    st.sidebar.error(message)
    if not needs_labels:
        st.error(message + still)
        return
    st.error(
        f"**{plain.markdown(name)}: which columns are the labels?** The file does not say (a "
        "MULAN ARFF names them in its .xml label file, MEKA's in '-C n' of its @relation). "
        "Upload the .xml that came with it under the uploader in the sidebar, or give the "
        "number of label columns (the last columns of the file) here; a CSV can also name "
        "them in the sidebar's Labels box." + still
    )
    st.number_input(
        "Label columns (the last ones of the file)",
        min_value=1,
        value=None,
        step=1,
        key=LABEL_COUNT_KEY,
        on_change=_use_label_count,
    )


def current_dataset() -> Dataset:
    """The data set every page works on; call it first, at a page's top level.

    Under the router the sidebar has been drawn already; a page running alone is brought
    under the router first (:func:`pages._app.router.ensure_routed`). Not for fragments and
    helpers: they read :func:`loaded_dataset`.
    """
    from pages._app import router  # the router draws this module's picker

    router.ensure_routed()
    return loaded_dataset()


def loaded_dataset() -> Dataset:
    """The data set in the session (the picker's), without any routing."""
    return st.session_state[DATASET_KEY]


_DIGESTS: WeakKeyDictionary[Dataset, str] = WeakKeyDictionary()


def dataset_digest(dataset: Dataset | None = None) -> str:
    """The content digest of ``dataset`` (default: the loaded one), hashed once per object."""
    dataset = st.session_state[DATASET_KEY] if dataset is None else dataset
    digest = _DIGESTS.get(dataset)
    if digest is None:
        digest = _DIGESTS[dataset] = dataset.digest
    return digest


def _set_dataset(dataset: Dataset, label: str, official_n_train: int | None = None) -> None:
    if official_n_train is None:  # an official split's rows must stay as they are
        dataset, statement = budget.sample_rows(dataset)
    else:
        statement = None  # (the MULAN sets with official splits are all far below the budget)
    st.session_state[DATASET_KEY] = dataset
    st.session_state[SOURCE_LABEL_KEY] = label if statement is None else f"{label}, sampled"
    st.session_state[OFFICIAL_TRAIN_KEY] = official_n_train
    st.session_state[SAMPLE_STATEMENT_KEY] = statement


def _source_label(source: datasets.DatasetSource) -> str:
    """Picker text: the name, the labels, then the shape (from the file headers).

    Short, most telling first: the sidebar's box shows ~30 characters, and the longer
    "sample · planted — 1,200 × 20, 22 labels" was cut to "… 22 la". Samples come first in
    the list; the caption under the picker names the chosen set's group and full shape.
    """
    return (
        f"{source.name} · {source.n_labels:,} labels · {source.n_samples:,}×{source.n_features:,}"
    )


def data_folder_note(folder: Path | None, n_folder_sets: int) -> str | None:
    """Visible text under the picker when it lists only the embedded samples, and why.

    ``folder`` is :func:`mlviz.datasets.default_data_dir`, ``n_folder_sets`` the number of
    data sets found in it; None (no note) when there are any.
    """
    if n_folder_sets:
        return None
    if folder is None:
        why = (
            "no data folder is configured (`MLVIZ_DATA_DIR` is not set and there is no "
            "`../shared/data/mulan` next to the app)"
        )
    elif not folder.is_dir():
        why = "`MLVIZ_DATA_DIR` names a folder that does not exist"
    else:
        why = "the data folder holds no ARFF data set (nor XC text set) that mlviz can read"
    return (
        f"Only the embedded samples are listed: {why}. To add the MULAN benchmark sets, set "
        "`MLVIZ_DATA_DIR` to a folder of their .arff + .xml files and restart the app."
    )


def dataset_picker() -> None:
    """Sidebar: embedded samples, data sets found in the data folder, and uploads.

    A failed load shows ``st.error`` with the library's message and keeps the data set that
    was loaded before.
    """
    sidebar = st.sidebar
    sidebar.header("Data set")
    sources = _sources()
    if not sources:
        sidebar.error("No data sets found: the embedded samples in mlviz/sample_data are missing.")
        st.stop()
    by_key = {s.key: s for s in sources}
    links.dataset_from_link(list(by_key))
    choice = sidebar.selectbox(
        "Choose a data set",
        list(by_key),  # samples first, then the folder's sets by name: each set once
        format_func=lambda key: _source_label(by_key[key]),
        key="source_choice",
        help="Instances × feature attributes, and labels. Embedded samples ship with mlviz; "
        "the others are found in the folder named by MLVIZ_DATA_DIR (or ../shared/data/mulan).",
    )
    note = data_folder_note(datasets.default_data_dir(), sum(s.kind != "sample" for s in sources))
    if note:
        sidebar.caption(note)
    source = by_key[choice]
    labels = {s.key: (f"{s.name} (sample)" if s.kind == "sample" else s.name) for s in sources}
    with sidebar.expander("Upload your own (ARFF + XML, CSV, or XC text)"):
        upload = st.file_uploader(
            "ARFF, CSV or XC text file",
            type=["arff", "csv", "tsv", "txt"],
            key="upload_file",
            help=XC_UPLOAD_HELP,
        )
        upload_xml = st.file_uploader(
            "Label names, optional: MULAN .xml (ARFF), or a label map .txt (XC text: one "
            "name a line)",
            type=["xml", "txt"],
            key="upload_xml",
        )
        label_spec = st.text_input(
            "Labels (CSV: column names or a count of last columns; ARFF without XML: count)",
            key="upload_labels",
        )

    links.dataset_to_link(None if upload is not None else choice)
    if upload is not None:
        st.session_state[HAS_OFFICIAL_SPLIT_KEY] = False
        payload = upload.getvalue()
        xml = upload_xml.getvalue() if upload_xml is not None else None
        xml_name = upload_xml.name if upload_xml is not None else None
        digest = hashlib.sha256(
            payload
            + b"\0"
            + (xml or b"")
            + b"\0"
            + (xml_name or "").encode()
            + b"\0"
            + label_spec.encode()
        ).hexdigest()
        failed = st.session_state.get(UPLOAD_FAILED_KEY)
        if failed is not None and failed[0] == digest:  # parsed once already: same message
            _upload_failed(upload.name, *failed[1:])
        elif st.session_state.get(UPLOAD_DIGEST_KEY) != digest:
            needs_labels = False
            try:
                dataset = _load_upload(digest, upload.name, payload, xml, xml_name, label_spec)
            except LabelsUnknownError as err:
                needs_labels = True
                message = (
                    f"Could not load {plain.markdown(upload.name)}: {plain.markdown(err, 400)}"
                )
            except (DataFormatError, ValueError) as err:
                message = (
                    f"Could not load {plain.markdown(upload.name)}: {plain.markdown(err, 400)}"
                )
            else:
                refusal = budget.upload_refusal(dataset)
                message = (
                    None
                    if refusal is None
                    else f"Could not use {plain.markdown(upload.name)}: {refusal}"
                )
            if message is not None:
                st.session_state[UPLOAD_FAILED_KEY] = (digest, message, needs_labels)
                _upload_failed(upload.name, message, needs_labels)
            else:
                st.session_state.pop(UPLOAD_FAILED_KEY, None)
                st.session_state[UPLOAD_DIGEST_KEY] = digest
                st.session_state.pop("loaded_source", None)  # removing the upload reloads
                _set_dataset(dataset, f"{upload.name} (upload)")
    else:
        st.session_state.pop(UPLOAD_DIGEST_KEY, None)
        st.session_state.pop(UPLOAD_FAILED_KEY, None)
        st.session_state[HAS_OFFICIAL_SPLIT_KEY] = source.has_official_split
        official = source.has_official_split and (
            st.session_state.get(SPLIT_MODE_KEY, SPLIT_OFFICIAL) == SPLIT_OFFICIAL
        )
        wanted = (choice, official)
        if st.session_state.get("loaded_source") != wanted or DATASET_KEY not in st.session_state:
            try:
                dataset, n_train = _load_source(choice, official)
            except (DataFormatError, ValueError, OSError) as err:
                message = f"Could not load {labels[choice]}: {plain.markdown(err, 400)}"
                sidebar.error(message)
                st.error(message)
            else:
                st.session_state["loaded_source"] = wanted
                _set_dataset(dataset, labels[choice], n_train)

    if DATASET_KEY not in st.session_state:
        st.error("No data set is loaded yet: pick another one in the sidebar.")
        st.stop()
    ds = loaded_dataset()
    statement = st.session_state.get(SAMPLE_STATEMENT_KEY)
    if statement:  # at the top of every page (main area), not only in the sidebar
        st.warning(statement, icon=":material/filter_alt:")
    sidebar.caption(
        f"**{plain.markdown(st.session_state[SOURCE_LABEL_KEY])}** — {ds.n_samples:,} instances, "
        f"{ds.n_features:,} features{' (sparse)' if ds.is_sparse else ''}, {ds.n_labels} labels"
    )
    n_missing_values = n_missing(ds)
    if n_missing_values:
        sidebar.caption(
            f"{n_missing_values:,} missing feature values: the models fill them with the mean of "
            "the training rows (the test rows are not used)."
        )


_OF_DATASET: WeakKeyDictionary[Dataset, dict[str, Any]] = WeakKeyDictionary()


def of_dataset(ds: Dataset, fn: Callable[[Dataset], T]) -> T:
    """``fn(ds)``, computed once per data set object and function (a Dataset is immutable).

    For what the sidebar or a page shows on every rerun and depends on the data set alone
    (the missing values, the planted groups, the label frequencies): a rerun reads them here
    instead of recomputing them (the planted groups' CSV was read on every rerun of the Lesson
    and Label clusters pages, a seventh of their rerun, issue 33). The value is shared by
    every session holding this data set, so an array comes back read-only.
    """
    memo = _OF_DATASET.setdefault(ds, {})
    name = f"{fn.__module__}.{fn.__qualname__}"
    if name not in memo:
        value = fn(ds)
        if isinstance(value, np.ndarray):
            value.setflags(write=False)
        memo[name] = value
    return memo[name]


def _n_missing(ds: Dataset) -> int:
    values = ds.X.data if sp.issparse(ds.X) else ds.X
    return int(np.isnan(values).sum())


def n_missing(ds: Dataset) -> int:
    """Missing (NaN) feature values of ``ds``, counted once per data set object (the sidebar
    shows it on every rerun)."""
    return of_dataset(ds, _n_missing)


def known_groups(ds: Dataset) -> np.ndarray | None:
    """The planted label groups of an embedded sample (``mlviz.datasets.known_groups``, read
    from its CSV once per data set object), read-only; None for any other data set."""
    return of_dataset(ds, datasets.known_groups)

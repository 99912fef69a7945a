"""State and caching shared by the pages: the loaded data set, the split, fitted models.

Not a page (the router lists pages explicitly). Everything here is glue between widgets and
``mlviz``; no algorithm code. Caches are keyed by the data set's content digest plus the
parameters, never by Streamlit's hashing of arrays (which samples large arrays).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp
import streamlit as st

from mlviz import datasets
from mlviz.data import DataFormatError, Dataset, load_arff, load_csv

DATASET_KEY = "dataset"
SOURCE_LABEL_KEY = "dataset_label"
UPLOAD_DIGEST_KEY = "upload_digest"


# --------------------------------------------------------------------------- data set
@st.cache_resource(show_spinner=False)
def _sources() -> list[datasets.DatasetSource]:
    return datasets.list_sources()


@st.cache_resource(show_spinner="Loading data set…", max_entries=16)
def _load_source(key: str) -> Dataset:
    return datasets.load_source(key)


@st.cache_resource(show_spinner="Reading upload…", max_entries=8)
def _load_upload(
    digest: str, name: str, payload: bytes, xml: bytes | None, label_spec: str
) -> Dataset:
    """Parse an uploaded file; ``digest`` (of all inputs) is the cache key."""
    del digest  # only the cache key
    stem = name.rsplit(".", 1)[0]
    if name.lower().endswith((".csv", ".tsv", ".txt")):
        label_columns: Any = [c.strip() for c in label_spec.split(",") if c.strip()]
        if len(label_columns) == 1 and label_columns[0].isdigit():
            label_columns = int(label_columns[0])
        if not label_columns:
            raise DataFormatError(
                f"{name}: say which columns are labels (names separated by commas, or a number n "
                "for the last n columns) in the box under the uploader."
            )
        return load_csv(payload, label_columns, name=stem)
    n_labels = int(label_spec) if label_spec.strip().isdigit() else None
    return load_arff(payload, xml=xml, n_labels=n_labels, name=stem)


def current_dataset() -> Dataset:
    """The data set every page works on.

    The router loads one before any page runs. A page can still run without the router:
    Streamlit treats a ``pages/`` folder next to the entry point as a legacy multipage app
    until the first ``st.navigation`` call of the server process, so a deep link opened on a
    fresh server runs the page file alone. Then the page sets up the sidebar itself.
    """
    if DATASET_KEY not in st.session_state:
        dataset_picker()
        experiment_settings()
        _leave_legacy_multipage_mode()
    return st.session_state[DATASET_KEY]


def _leave_legacy_multipage_mode() -> None:
    """Switch a server still in legacy ``pages/`` mode to the router's navigation.

    Streamlit keeps this process-wide flag (a private attribute, present in 1.67) until
    the first ``st.navigation`` call. Clearing it and rerunning makes the next run start at
    app.py, whose ``st.navigation`` resolves the same URL to the same page, now with the
    router's sidebar instead of a list of every file in ``pages/``.
    """
    from streamlit.runtime.pages_manager import PagesManager

    if getattr(PagesManager, "uses_pages_directory", False):
        PagesManager.uses_pages_directory = False
        st.rerun()


def _set_dataset(dataset: Dataset, label: str) -> None:
    st.session_state[DATASET_KEY] = dataset
    st.session_state[SOURCE_LABEL_KEY] = label


def dataset_picker() -> None:
    """Sidebar: embedded samples, data sets found in the data folder, and uploads.

    A failed load shows ``st.error`` with the library's message and keeps the data set that
    was loaded before.
    """
    sidebar = st.sidebar
    sidebar.header("Data set")
    sources = _sources()
    if not sources:
        sidebar.error("No data sets found: the embedded samples in sample_data/ are missing.")
        st.stop()
    keys = [s.key for s in sources]
    labels = {s.key: (f"{s.name} (sample)" if s.kind == "sample" else s.name) for s in sources}
    choice = sidebar.selectbox(
        "Choose a data set",
        keys,
        format_func=labels.__getitem__,
        key="source_choice",
        help="Embedded samples ship with mlviz; others are found in the folder named by "
        "MLVIZ_DATA_DIR (or ../shared/data/mulan).",
    )
    with sidebar.expander("Upload your own (ARFF + XML, or CSV)"):
        upload = st.file_uploader(
            "ARFF or CSV file", type=["arff", "csv", "tsv"], key="upload_file"
        )
        upload_xml = st.file_uploader("MULAN label file (.xml), optional", type=["xml"],
                                      key="upload_xml")
        label_spec = st.text_input(
            "Labels (CSV: column names or a count of last columns; ARFF without XML: count)",
            key="upload_labels",
        )

    if upload is not None:
        payload = upload.getvalue()
        xml = upload_xml.getvalue() if upload_xml is not None else None
        digest = hashlib.sha256(
            payload + b"\0" + (xml or b"") + b"\0" + label_spec.encode()
        ).hexdigest()
        if st.session_state.get(UPLOAD_DIGEST_KEY) != digest:
            try:
                dataset = _load_upload(digest, upload.name, payload, xml, label_spec)
            except (DataFormatError, ValueError) as err:
                sidebar.error(f"Could not load {upload.name}: {err}")
                if DATASET_KEY in st.session_state:
                    sidebar.info(f"Still showing {st.session_state[SOURCE_LABEL_KEY]}.")
            else:
                st.session_state[UPLOAD_DIGEST_KEY] = digest
                _set_dataset(dataset, f"{upload.name} (upload)")
    else:
        st.session_state.pop(UPLOAD_DIGEST_KEY, None)
        if st.session_state.get("loaded_source") != choice or DATASET_KEY not in st.session_state:
            try:
                dataset = _load_source(choice)
            except (DataFormatError, ValueError, OSError) as err:
                sidebar.error(f"Could not load {labels[choice]}: {err}")
            else:
                st.session_state["loaded_source"] = choice
                _set_dataset(dataset, labels[choice])

    if DATASET_KEY not in st.session_state:
        st.error("No data set is loaded yet: pick another one in the sidebar.")
        st.stop()
    ds = current_dataset()
    sidebar.caption(
        f"**{st.session_state[SOURCE_LABEL_KEY]}** — {ds.n_samples} instances, "
        f"{ds.n_features} features{' (sparse)' if ds.is_sparse else ''}, {ds.n_labels} labels"
    )


# ------------------------------------------------------------------------ experiment
def experiment_settings() -> None:
    """Sidebar: the train/test split and feature scaling every model page shares."""
    with st.sidebar.expander("Experiment settings"):
        st.slider("Test fraction", 0.1, 0.5, 0.3, 0.05, key="test_size", persist_state="session")
        st.number_input("Split seed", 0, 10_000, 0, key="split_seed", persist_state="session")
        st.checkbox(
            "Standardise features",
            value=False,
            key="standardize",
            persist_state="session",
            help="Scale each feature to unit variance (sparse data keeps its zeros).",
        )


TAIL_THRESHOLD_KEY = "tail_threshold"
DEFAULT_TAIL_THRESHOLD = 0.05


def tail_threshold() -> float:
    """The sidebar's tail threshold (share of training instances) that every page uses."""
    return float(st.session_state.get(TAIL_THRESHOLD_KEY, DEFAULT_TAIL_THRESHOLD))


@dataclass(frozen=True)
class Split:
    X_train: Any
    X_test: Any
    Y_train: np.ndarray
    Y_test: np.ndarray
    train_index: np.ndarray
    test_index: np.ndarray


@st.cache_resource(show_spinner=False, max_entries=16)
def _split(digest: str, test_size: float, seed: int, standardize: bool, _ds: Dataset) -> Split:
    # imported here so that the app's first page renders without loading scikit-learn
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler

    train, test = train_test_split(
        np.arange(_ds.n_samples), test_size=test_size, random_state=seed
    )
    X_train, X_test = _ds.X[train], _ds.X[test]
    if standardize:
        scaler = StandardScaler(with_mean=not sp.issparse(X_train)).fit(X_train)
        X_train, X_test = scaler.transform(X_train), scaler.transform(X_test)
    return Split(X_train, X_test, _ds.Y[train], _ds.Y[test], train, test)


def current_split() -> Split:
    ds = current_dataset()
    return _split(
        ds.digest,
        float(st.session_state.get("test_size", 0.3)),
        int(st.session_state.get("split_seed", 0)),
        bool(st.session_state.get("standardize", False)),
        ds,
    )


# ----------------------------------------------------------------------------- models
@st.cache_resource(show_spinner=False, max_entries=64)
def _cached_call(cache_key: tuple, _fn: Callable[[], Any]) -> Any:
    del cache_key  # only the cache key
    return _fn()


def cached(name: str, params: dict[str, Any], fn: Callable[[], Any]) -> Any:
    """Run ``fn()`` once per (data set, split, ``name``, ``params``) and cache the result."""
    ds = current_dataset()
    key = (
        name,
        ds.digest,
        float(st.session_state.get("test_size", 0.3)),
        int(st.session_state.get("split_seed", 0)),
        bool(st.session_state.get("standardize", False)),
        tuple(sorted((k, repr(v)) for k, v in params.items())),
    )
    return _cached_call(key, fn)


def run_or_error(label: str, fn: Callable[[], Any], *, state_key: str) -> Any:
    """Call ``fn``; on a library error show ``st.error`` and return the last good result."""
    try:
        result = fn()
    except (ValueError, DataFormatError, np.linalg.LinAlgError) as err:
        st.error(f"{label} failed: {err}")
        previous = st.session_state.get(state_key)
        if previous is not None:
            st.info("Showing the last result that worked.")
        return previous
    st.session_state[state_key] = result
    return result

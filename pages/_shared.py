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
from mlviz.io import DataFormatError, Dataset, load_arff, load_csv

DATASET_KEY = "dataset"
SOURCE_LABEL_KEY = "dataset_label"
UPLOAD_DIGEST_KEY = "upload_digest"
# rows [0, n_train) of the loaded data set are the official training part; None: random split
OFFICIAL_TRAIN_KEY = "official_n_train"
HAS_OFFICIAL_SPLIT_KEY = "source_has_official_split"
SPLIT_MODE_KEY = "split_mode"
SPLIT_OFFICIAL, SPLIT_RANDOM = "official", "random"
_SPLIT_LABELS = {
    SPLIT_OFFICIAL: "the data set's own train/test split",
    SPLIT_RANDOM: "random split (test fraction, seed)",
}
TAIL_THRESHOLD_KEY = "tail_threshold"
DEFAULT_TAIL_THRESHOLD = 0.05


def tail_threshold() -> float:
    """The sidebar's tail threshold (share of training instances) that every page uses."""
    return float(st.session_state.get(TAIL_THRESHOLD_KEY, DEFAULT_TAIL_THRESHOLD))


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
        return load_csv(payload, label_columns, name=stem, missing="keep")
    n_labels = int(label_spec) if label_spec.strip().isdigit() else None
    return load_arff(payload, xml=xml, n_labels=n_labels, name=stem, missing="keep")


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


def _set_dataset(dataset: Dataset, label: str, official_n_train: int | None = None) -> None:
    st.session_state[DATASET_KEY] = dataset
    st.session_state[SOURCE_LABEL_KEY] = label
    st.session_state[OFFICIAL_TRAIN_KEY] = official_n_train


def _source_label(source: datasets.DatasetSource) -> str:
    """Picker text: the group, the name and the shape (from the file headers)."""
    group = "sample" if source.kind == "sample" else "folder"
    return f"{group} · {source.label()}"


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
    choice = sidebar.selectbox(
        "Choose a data set",
        list(by_key),  # samples first, then the folder's sets by name: each set once
        format_func=lambda key: _source_label(by_key[key]),
        key="source_choice",
        help="Instances × feature attributes, and labels. Embedded samples ship with mlviz; "
        "the others are found in the folder named by MLVIZ_DATA_DIR (or ../shared/data/mulan).",
    )
    source = by_key[choice]
    labels = {s.key: (f"{s.name} (sample)" if s.kind == "sample" else s.name) for s in sources}
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
        st.session_state[HAS_OFFICIAL_SPLIT_KEY] = False
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
                st.session_state.pop("loaded_source", None)  # removing the upload reloads
                _set_dataset(dataset, f"{upload.name} (upload)")
    else:
        st.session_state.pop(UPLOAD_DIGEST_KEY, None)
        st.session_state[HAS_OFFICIAL_SPLIT_KEY] = source.has_official_split
        official = source.has_official_split and (
            st.session_state.get(SPLIT_MODE_KEY, SPLIT_OFFICIAL) == SPLIT_OFFICIAL
        )
        wanted = (choice, official)
        if st.session_state.get("loaded_source") != wanted or DATASET_KEY not in st.session_state:
            try:
                dataset, n_train = _load_source(choice, official)
            except (DataFormatError, ValueError, OSError) as err:
                sidebar.error(f"Could not load {labels[choice]}: {err}")
            else:
                st.session_state["loaded_source"] = wanted
                _set_dataset(dataset, labels[choice], n_train)

    if DATASET_KEY not in st.session_state:
        st.error("No data set is loaded yet: pick another one in the sidebar.")
        st.stop()
    ds = current_dataset()
    sidebar.caption(
        f"**{st.session_state[SOURCE_LABEL_KEY]}** — {ds.n_samples:,} instances, "
        f"{ds.n_features:,} features{' (sparse)' if ds.is_sparse else ''}, {ds.n_labels} labels"
    )
    n_missing = _n_missing(ds)
    if n_missing:
        sidebar.caption(
            f"{n_missing:,} missing feature values: the models fill them with the mean of the "
            "training rows (the test rows are not used)."
        )


# ------------------------------------------------------------------------ experiment
def experiment_settings() -> None:
    """Sidebar: the train/test split and feature scaling every model page shares.

    A data set that ships its own train/test files offers that split, as the papers use it
    (the default), or a random split.
    """
    with st.sidebar.expander("Experiment settings"):
        mode = SPLIT_RANDOM
        if st.session_state.get(HAS_OFFICIAL_SPLIT_KEY):
            mode = st.radio(
                "Split",
                [SPLIT_OFFICIAL, SPLIT_RANDOM],
                format_func=_SPLIT_LABELS.__getitem__,
                key=SPLIT_MODE_KEY,
                persist_state="session",
                help="The published train/test files (as in the papers), or a random split of "
                "the whole data set.",
            )
        n_train = st.session_state.get(OFFICIAL_TRAIN_KEY)
        if mode == SPLIT_OFFICIAL and n_train is not None and DATASET_KEY in st.session_state:
            n_test = st.session_state[DATASET_KEY].n_samples - n_train
            st.caption(f"{n_train:,} training and {n_test:,} test instances, as published.")
        else:
            st.slider(
                "Test fraction", 0.1, 0.5, 0.3, 0.05, key="test_size", persist_state="session"
            )
            st.number_input("Split seed", 0, 10_000, 0, key="split_seed", persist_state="session")
        st.checkbox(
            "Standardise features",
            value=False,
            key="standardize",
            persist_state="session",
            help="Scale each feature to unit variance (sparse data keeps its zeros).",
        )


@dataclass(frozen=True)
class Split:
    """The train/test split every model page uses; the index arrays are rows of the data set."""

    X_train: Any
    X_test: Any
    Y_train: np.ndarray
    Y_test: np.ndarray
    train_index: np.ndarray
    test_index: np.ndarray


def split_settings() -> tuple:
    """What the split depends on besides the data set: a cache key part for every result."""
    standardize = bool(st.session_state.get("standardize", False))
    n_train = st.session_state.get(OFFICIAL_TRAIN_KEY)
    if n_train is not None:
        return (SPLIT_OFFICIAL, int(n_train), standardize)
    return (
        SPLIT_RANDOM,
        float(st.session_state.get("test_size", 0.3)),
        int(st.session_state.get("split_seed", 0)),
        standardize,
    )


def _n_missing(ds: Dataset) -> int:
    values = ds.X.data if sp.issparse(ds.X) else ds.X
    return int(np.isnan(values).sum())


@st.cache_resource(show_spinner=False, max_entries=16)
def _split(digest: str, settings: tuple, _ds: Dataset) -> Split:
    """Split by ``settings`` (:func:`split_settings`); ``digest`` and ``settings`` are the key.

    Missing feature values (NaN, loaded with ``missing="keep"``) are filled with the mean of
    the training rows (scikit-learn's ``SimpleImputer``, fitted on them only; a feature with
    no training value becomes 0), then the features are standardised if asked.
    """
    del digest  # only the cache key
    # imported here so that the app's first page renders without loading scikit-learn
    from sklearn.impute import SimpleImputer
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler

    if settings[0] == SPLIT_OFFICIAL:
        n_train = settings[1]
        train, test = np.arange(n_train), np.arange(n_train, _ds.n_samples)
    else:
        train, test = train_test_split(
            np.arange(_ds.n_samples), test_size=settings[1], random_state=settings[2]
        )
    X_train, X_test = _ds.X[train], _ds.X[test]
    if _n_missing(_ds):
        imputer = SimpleImputer(strategy="mean", keep_empty_features=True).fit(X_train)
        X_train, X_test = imputer.transform(X_train), imputer.transform(X_test)
    if settings[-1]:
        scaler = StandardScaler(with_mean=not sp.issparse(X_train)).fit(X_train)
        X_train, X_test = scaler.transform(X_train), scaler.transform(X_test)
    return Split(X_train, X_test, _ds.Y[train], _ds.Y[test], train, test)


def current_split() -> Split:
    """The split of the current data set: its official one, or random (Experiment settings)."""
    ds = current_dataset()
    return _split(ds.digest, split_settings(), ds)


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
        split_settings(),
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

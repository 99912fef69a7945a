"""What the pages share: the router, the loaded data set, the split, fits, warnings.

Not a page (the router lists pages explicitly). Everything here is glue between widgets and
``mlviz``; no algorithm code. Caches are keyed by the data set's content digest plus the
parameters, never by Streamlit's hashing of arrays (which samples large arrays).

Pages run models only through :func:`fit` (cache, spinner/progress, errors as ``st.error``,
library warnings shown on the page, no result of another data set), and check up front what
the data can support (:func:`model_split`, :func:`int_slider`, :func:`explain_and_stop`).
"""

from __future__ import annotations

import hashlib
import inspect
import os
import runpy
import threading
import warnings
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, NoReturn, TypeVar
from weakref import WeakKeyDictionary

import numpy as np
import scipy.sparse as sp
import streamlit as st

from mlviz import datasets
from mlviz.io import DataFormatError, Dataset, load_arff, load_csv

DATASET_KEY = "dataset"
SOURCE_LABEL_KEY = "dataset_label"
UPLOAD_DIGEST_KEY = "upload_digest"
T = TypeVar("T")
# rows [0, n_train) of the loaded data set are the official training part; None: random split
OFFICIAL_TRAIN_KEY = "official_n_train"
HAS_OFFICIAL_SPLIT_KEY = "source_has_official_split"
SPLIT_MODE_KEY = "split_mode"
SPLIT_OFFICIAL, SPLIT_RANDOM = "official", "random"
_SPLIT_LABELS = {
    SPLIT_OFFICIAL: "the data set's own train/test split",
    SPLIT_RANDOM: "random split (test fraction, seed)",
}


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


# ----------------------------------------------------------------------------- router
# The navigation every page shares: (file in pages/, title, icon); the first is the default.
# Material icons ship with Streamlit's frontend; emoji depend on the viewer's fonts (a
# projector PC or headless chromium without an emoji font shows empty boxes).
PAGE_DIR = Path(__file__).resolve().parent
PAGES: tuple[tuple[str, str, str], ...] = (
    ("data.py", "Data", ":material/table_chart:"),
    ("lesson.py", "Lesson", ":material/school:"),
    ("hypercube.py", "Hypercube", ":material/deployed_code:"),
    ("label_clusters.py", "Label clusters", ":material/hub:"),
    ("plst.py", "PLST & linear", ":material/straighten:"),
    ("grople.py", "GroPLE", ":material/grid_view:"),
    ("clems.py", "CLEMS / MDS", ":material/map:"),
    ("mlknn.py", "ML-KNN", ":material/group:"),
    ("compare.py", "Compare", ":material/balance:"),
)
# True while the router runs a page: set around ``st.navigation(...).run()`` in this thread's
# context, so a page can tell whether the router's sidebar was drawn in this script run.
_ROUTED: ContextVar[bool] = ContextVar("mlviz_routed", default=False)
# True while the sidebar is being drawn (the picker reads the data set it has just loaded).
_IN_SIDEBAR: ContextVar[bool] = ContextVar("mlviz_in_sidebar", default=False)
# Set when a page running without the router has asked for a rerun through the router.
_REROUTED_KEY = "_rerouted"
_SESSION_STARTED_KEY = "_session_started"


def navigation_pages() -> list[st.Page]:
    """The router's pages (absolute paths, so they resolve from any main script)."""
    return [
        st.Page(PAGE_DIR / file, title=title, icon=icon, default=i == 0)
        for i, (file, title, icon) in enumerate(PAGES)
    ]


def sidebar() -> None:
    """Everything the sidebar shows on every page: data set picker and experiment settings."""
    token = _IN_SIDEBAR.set(True)
    try:
        dataset_picker()
        experiment_settings()
    finally:
        _IN_SIDEBAR.reset(token)


def run_router() -> None:
    """The app: sidebar, then the page the URL names (``app.py`` calls only this).

    A session's first run only calls ``st.navigation`` and reruns. On a fresh server that
    run may be Streamlit's legacy ``pages/`` mode running ``app.py`` as a page of its own
    navigation (see :func:`_run_without_router`), where widgets get other identities than in
    every later run: the user's first change of a sidebar widget would be lost.
    """
    if not st.session_state.get(_SESSION_STARTED_KEY):
        st.session_state[_SESSION_STARTED_KEY] = True
        st.navigation(navigation_pages())
        st.rerun()
    st.session_state.pop(_REROUTED_KEY, None)
    st.session_state[_FIGURES_KEY] = {}
    st.session_state[_VIEW_PARAMS_KEY] = {}
    notes = _LINK_NOTES.set(st.container())  # link notes go above the page
    try:
        sidebar()
        token = _ROUTED.set(True)
        try:
            st.navigation(navigation_pages()).run()
        finally:
            _ROUTED.reset(token)
    finally:
        _LINK_NOTES.reset(notes)


# UMAP compiles its numba code on its first call in a process (about a minute). The Hypercube
# page (the only one offering UMAP) starts mlviz.hypercube.warm_up_umap once per server
# process, after its first run has drawn. Not at app start: numba holds the GIL while it
# compiles, and started after the first page it delayed that page's first chart from 4.6 s to
# 7.3 s and the next pages' first visits by ~1-2 s (benchmarks/bench_app.py, idle machine).
UMAP_WARM_UP_ENV = "MLVIZ_UMAP_WARM_UP"  # "0" turns the warm-up off (the tests do)
_umap_warm_up_lock = threading.Lock()


@st.cache_resource(show_spinner=False)
def _umap_warm_up_holder() -> dict[str, Any]:
    """This server process's warm-up: {"thread": UmapWarmUp or None} once started."""
    return {}


def start_umap_warm_up() -> None:
    """Start the UMAP warm-up thread unless already started, umap-learn is missing, or
    ``MLVIZ_UMAP_WARM_UP=0``. Returns at once: the compilation runs in a daemon thread."""
    holder = _umap_warm_up_holder()
    with _umap_warm_up_lock:
        if "thread" in holder:
            return
        holder["thread"] = None
        if os.environ.get(UMAP_WARM_UP_ENV, "1") != "0":
            from mlviz.hypercube import warm_up_umap

            holder["thread"] = warm_up_umap()


def umap_warm_up():
    """The started warm-up thread (``mlviz.hypercube.UmapWarmUp``), or None if none runs."""
    return _umap_warm_up_holder().get("thread")


def _run_without_router(page_file: Path) -> NoReturn:
    """Bring a page that runs without the router under the router; this script run ends.

    A page runs without the router on a server whose first request is a deep link
    (``/mlknn``): Streamlit treats a ``pages/`` folder next to the entry point as a legacy
    multipage app until the process's first ``st.navigation`` call, and runs the page file
    alone, with a navigation that lists every file in ``pages/``. AppTest does the same on
    every rerun of ``app.py``.

    Calling the public ``st.navigation`` switches the whole process from the ``pages/``
    folder to the navigation it is given (Streamlit 1.67, ``commands/navigation.py``), so
    after ``st.rerun`` the run starts at ``app.py``, whose router draws the sidebar and
    resolves the same URL to the same page. No private Streamlit
    attribute is touched; ``tests/test_app.py`` checks that the legacy mode really ends.

    If the rerun comes back here, the page file itself is the main script (a test opened it
    directly): the page then runs as the router would run it. The sidebar is drawn only when
    no data set is loaded yet, so that a test's own data set in the session stays.
    """
    st.navigation(navigation_pages())
    if not st.session_state.get(_REROUTED_KEY):
        st.session_state[_REROUTED_KEY] = True
        st.rerun()
    if DATASET_KEY not in st.session_state:
        sidebar()
    token = _ROUTED.set(True)
    try:
        runpy.run_path(str(page_file), run_name="__main__")
    finally:
        _ROUTED.reset(token)
    st.stop()


def _calling_page() -> Path | None:
    """The page file (in ``pages/``) whose code called into this module, if any."""
    frame = inspect.currentframe()
    while frame is not None:
        path = Path(frame.f_code.co_filename)
        if path.parent == PAGE_DIR and path.name != Path(__file__).name:
            return path
        frame = frame.f_back
    return None


def current_dataset() -> Dataset:
    """The data set every page works on; call it first, at a page's top level.

    Under the router the sidebar has been drawn already; a page running alone is run as the
    router would run it (see :func:`_run_without_router`). Not for fragments: a fragment rerun
    runs without the router, and its data come from the page run that defined it.
    """
    if not (_ROUTED.get() or _IN_SIDEBAR.get()):
        page_file = _calling_page()
        if page_file is not None:
            _run_without_router(page_file)
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
    _dataset_from_link(list(by_key))
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
        upload_xml = st.file_uploader(
            "MULAN label file (.xml), optional", type=["xml"], key="upload_xml"
        )
        label_spec = st.text_input(
            "Labels (CSV: column names or a count of last columns; ARFF without XML: count)",
            key="upload_labels",
        )

    _dataset_to_link(None if upload is not None else choice)
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
TAIL_THRESHOLD_KEY = "tail_threshold"
DEFAULT_TAIL_THRESHOLD = 0.05


def tail_threshold() -> float:
    """The sidebar's tail threshold (share of training instances) that every page uses."""
    return float(st.session_state.get(TAIL_THRESHOLD_KEY, DEFAULT_TAIL_THRESHOLD))


def experiment_settings() -> None:
    """Sidebar: the train/test split, feature scaling and tail threshold every page shares.

    A data set that ships its own train/test files offers that split, as the papers use it
    (the default), or a random split.
    """
    with st.sidebar.expander("Experiment settings"):
        mode = SPLIT_RANDOM
        if st.session_state.get(HAS_OFFICIAL_SPLIT_KEY):
            mode = bound(
                st.radio,
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
            bound(
                st.slider,
                "Test fraction",
                0.1,
                0.5,
                0.3,
                0.05,
                key="test_size",
                persist_state="session",
            )
            bound(
                st.number_input,
                "Split seed",
                0,
                10_000,
                0,
                key="split_seed",
                persist_state="session",
            )
        bound(
            st.selectbox,
            "Feature scaling",
            list(FEATURE_SCALING_LABELS),
            key=FEATURE_SCALING_KEY,
            persist_state="session",
            format_func=FEATURE_SCALING_LABELS.get,
            help="Fitted on training rows only (in each fold on the Compare page). Unit rows "
            "suit bag-of-words features, where long documents otherwise get every label.",
        )
        bound(
            st.slider,
            "Tail threshold (share of training instances)",
            0.005,
            0.5,
            DEFAULT_TAIL_THRESHOLD,
            0.005,
            format="%.3f",
            key=TAIL_THRESHOLD_KEY,
            persist_state="session",
            help="Labels carried by a smaller share of the training instances count as tail "
            "labels on every page.",
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


FEATURE_SCALING_KEY = "feature_scaling"
# the names of mlviz.preprocessing.FEATURE_SCALINGS (not imported: it loads scikit-learn,
# which the first page does without; a test checks the two agree)
FEATURE_SCALING_LABELS = {
    "none": "none (as loaded)",
    "standardise": "standardise each feature",
    "unit_rows": "each instance to unit length",
}


def feature_scaling() -> str:
    """The sidebar's feature scaling (a name of ``mlviz.preprocessing.FEATURE_SCALINGS``)."""
    value = st.session_state.get(FEATURE_SCALING_KEY, "none")
    return value if value in FEATURE_SCALING_LABELS else "none"


def split_settings() -> tuple:
    """What the split depends on besides the data set: a cache key part for every result."""
    standardize = feature_scaling()
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
    the training rows, then the features are scaled as chosen, every step fitted on the
    training rows only (``mlviz.preprocessing.fit_transform_split``).
    """
    del digest  # only the cache key
    # imported here so that the app's first page renders without loading scikit-learn
    from sklearn.model_selection import train_test_split

    from mlviz.preprocessing import fit_transform_split

    if settings[0] == SPLIT_OFFICIAL:
        n_train = settings[1]
        train, test = np.arange(n_train), np.arange(n_train, _ds.n_samples)
    else:
        train, test = train_test_split(
            np.arange(_ds.n_samples), test_size=settings[1], random_state=settings[2]
        )
    X_train, X_test = fit_transform_split(
        _ds.X[train], _ds.X[test], settings[-1], impute=bool(_n_missing(_ds))
    )
    return Split(X_train, X_test, _ds.Y[train], _ds.Y[test], train, test)


def current_split() -> Split:
    """The split of the current data set: its official one, or random (Experiment settings)."""
    ds = current_dataset()
    return _split(dataset_digest(ds), split_settings(), ds)


# ------------------------------------------------------------------------ degenerate data
def explain_and_stop(message: str) -> NoReturn:
    """Say in words why the rest of the page cannot be drawn on this data, and stop there."""
    st.info(message)
    st.stop()


def int_slider(
    label: str, low: int, high: int, value: int, *, key: str, why_fixed: str, **kwargs: Any
) -> int:
    """An integer slider, or a sentence when the data leave a single value (``low >= high``).

    Streamlit refuses a slider whose minimum equals its maximum; a data set with one label or
    a handful of rows produces exactly that. ``why_fixed`` completes "<label> is <low>: ...".
    """
    if high <= low:
        st.caption(f"{label} is {low}: {why_fixed}")
        return low
    return int(
        bound(
            st.slider,
            label,
            low,
            high,
            min(max(value, low), high),
            key=key,
            persist_state="session",
            **kwargs,
        )
    )


def model_split(*, min_train: int = 1, needs: str = "this page") -> Split:
    """The sidebar's split, or an explanation (and a stop) when a side would be too small."""
    ds = current_dataset()
    if ds.n_samples < 2:
        explain_and_stop(
            f"{needs} needs a training and a test split, so at least 2 instances; "
            f"{ds.name} has {ds.n_samples}."
        )
    try:
        split = current_split()
    except ValueError as err:
        explain_and_stop(f"The sidebar's train/test split cannot be made on {ds.name}: {err}")
    n_train, n_test = len(split.Y_train), len(split.Y_test)
    if n_test == 0 or n_train < min_train:
        explain_and_stop(
            f"{needs} needs at least {min_train} training and 1 test instance; the split of "
            f"{ds.name} ({ds.n_samples} instances) gives {n_train} and {n_test}. Change the "
            "test fraction in Experiment settings."
        )
    return split


# ---------------------------------------------------------------------- library warnings
# Warnings users should see: the library's (constant labels, capped views, dropped candidates)
# and scikit-learn's ConvergenceWarning are UserWarnings; numerical trouble is a RuntimeWarning.
# Deprecation and future warnings are for developers and stay in the server log.
SHOWN_WARNINGS: tuple[type[Warning], ...] = (UserWarning, RuntimeWarning)
_collecting = threading.local()


def _install_warning_hook() -> None:
    """Route warnings of a collecting thread to its list, everything else where it went before.

    ``warnings.catch_warnings`` is process-wide and not thread-safe, and Streamlit runs each
    session's script in its own thread: a thread-local list behind one ``showwarning`` hook
    keeps two sessions' warnings apart. Filters stay global, so an "always" filter is
    appended (after any more specific filter, e.g. pytest's) so that a repeated warning is
    collected again instead of being suppressed as already shown.
    """
    previous = warnings.showwarning
    if getattr(previous, "_mlviz_collects", False):
        return

    def showwarning(message, category, filename, lineno, file=None, line=None):
        bucket = getattr(_collecting, "messages", None)
        if bucket is not None and issubclass(category, SHOWN_WARNINGS):
            bucket.append(str(message))
        else:
            previous(message, category, filename, lineno, file, line)

    showwarning._mlviz_collects = True  # type: ignore[attr-defined]
    warnings.showwarning = showwarning
    for category in SHOWN_WARNINGS:
        warnings.filterwarnings("always", category=category, append=True)


@contextmanager
def recording_warnings() -> Iterator[list[str]]:
    """Collect the warnings raised in this thread inside the block into the yielded list."""
    _install_warning_hook()
    outer = getattr(_collecting, "messages", None)
    messages: list[str] = []
    _collecting.messages = messages
    try:
        yield messages
    finally:
        _collecting.messages = outer
        if outer is not None:
            outer.extend(messages)


def show_warnings(messages: Sequence[str]) -> None:
    """Show library warnings on the page, each message once; more than three go in an expander."""
    unique = list(dict.fromkeys(messages))
    if len(unique) <= 3:
        for message in unique:
            st.warning(message, icon=":material/warning:")
        return
    st.warning(unique[0], icon=":material/warning:")
    with st.expander(f"{len(unique) - 1} more warnings from the library"):
        for message in unique[1:]:
            st.warning(message, icon=":material/warning:")


@contextmanager
def showing_warnings() -> Iterator[None]:
    """Show, under the block's output, the library warnings raised inside the block."""
    with recording_warnings() as messages:
        try:
            yield
        finally:
            pass
    show_warnings(messages)


# ----------------------------------------------------------------------------- models
# What a fit may raise that is the data's or the settings' fault: scikit-learn and mlviz raise
# ValueError (DataFormatError and numpy's LinAlgError are ValueErrors); mlviz's EvaluationError
# is a RuntimeError; MemoryError when a setting asks for too much. Anything else is a bug and
# keeps its traceback.
FIT_ERRORS: tuple[type[BaseException], ...] = (
    ValueError,
    RuntimeError,
    ArithmeticError,
    MemoryError,
)


@dataclass(frozen=True)
class FitOutcome:
    """A cached fit: its value or its error message, and the warnings it raised."""

    value: Any = None
    error: str | None = None
    warnings: tuple[str, ...] = ()


def _error_message(err: BaseException) -> str:
    if isinstance(err, MemoryError):
        return "it ran out of memory; try a smaller setting or a smaller data set."
    return str(err) or type(err).__name__


class _OutcomeStore:
    """The last ``max_entries`` fit outcomes, shared by all sessions (least recently used out).

    Not ``st.cache_resource`` on the fit itself: a function cached that way may not draw into
    elements created outside it, and a fit's progress bar is exactly that.
    """

    def __init__(self, max_entries: int = 64) -> None:
        self._entries: OrderedDict[tuple, FitOutcome] = OrderedDict()
        self._lock = threading.Lock()
        self.max_entries = max_entries

    def get(self, key: tuple) -> FitOutcome | None:
        with self._lock:
            if key in self._entries:
                self._entries.move_to_end(key)
            return self._entries.get(key)

    def put(self, key: tuple, outcome: FitOutcome) -> None:
        with self._lock:
            self._entries[key] = outcome
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)


@st.cache_resource(show_spinner=False)
def _outcomes() -> _OutcomeStore:
    return _OutcomeStore()


def _cached_outcome(cache_key: tuple, call: Callable[[], Any]) -> FitOutcome:
    """Run ``call`` once per ``cache_key``; errors and warnings are cached with the result."""
    store = _outcomes()
    outcome = store.get(cache_key)
    if outcome is None:
        with recording_warnings() as messages:
            try:
                value = call()
            except FIT_ERRORS as err:
                outcome = FitOutcome(error=_error_message(err), warnings=tuple(messages))
            else:
                outcome = FitOutcome(value=value, warnings=tuple(messages))
        store.put(cache_key, outcome)
    return outcome


def _data_key(uses_split: bool) -> tuple:
    """What a result depends on besides its parameters: the data set, and the split if used."""
    if not uses_split:
        return (dataset_digest(),)
    return (dataset_digest(), split_settings())


def _params_key(params: dict[str, Any]) -> tuple:
    return tuple(sorted((k, repr(v)) for k, v in params.items()))


def fit(
    name: str,
    params: dict[str, Any],
    fn: Callable[..., T],
    *,
    on: Literal["change", "button"] = "change",
    label: str | None = None,
    spinner: str | None = None,
    progress: bool = False,
    uses_split: bool = True,
    first_fit_automatic: bool = True,
) -> T | None:
    """Fit ``fn(params)`` for the loaded data, cached, and return its result (None if none).

    The one place where pages run models: caching, the spinner or progress bar, error
    handling, warnings and stale-result guards.

    Parameters
    ----------
    name : str
        Identifies the computation (cache and session keys; the button's key is
        ``f"{name}_fit"``).
    params : dict
        Every setting ``fn`` depends on; ``fn`` receives them, so the cache key and the
        computation cannot disagree.
    fn : callable
        ``fn(params)``, or ``fn(params, progress)`` with ``progress=True``, where
        ``progress(done, total, message)`` advances a progress bar.
    on : {"change", "button"}
        ``"change"`` fits whenever ``params`` change. ``"button"`` draws a button labelled
        ``label`` and fits the settings of its last press; the first fit for a data set
        happens without a press when ``first_fit_automatic``. Until the button is pressed
        again, the result of the last pressed settings is returned, with a note when the
        widgets now say otherwise.
    uses_split : bool
        Whether the result depends on the sidebar's split (most fits) or only on the data set.

    Returns
    -------
    The result of ``fn``, or None when there is nothing to show: the fit failed (an
    ``st.error`` with the library's message was shown) and no earlier result for the same
    data set and split exists, or a button has not been pressed yet. After a failed fit the
    last good result for the same data set (by content digest) and split is returned, with a
    note; a result for another data set is never returned.

    Warnings raised by ``fn`` are shown below, from the cache too.
    """
    label = label or name
    data_key = _data_key(uses_split)
    if on == "button":
        requested_key = f"_fit_requested:{name}"
        pressed = st.button(label, key=f"{name}_fit", type="primary")
        requested = st.session_state.get(requested_key)
        stale = requested is None or requested[0] != data_key
        if pressed or (stale and first_fit_automatic):
            requested = st.session_state[requested_key] = (data_key, dict(params))
        elif stale:
            st.info(f"Press **{label}** to fit.")
            return None
        if requested[1] != params:
            st.info(f"Showing the last fitted settings; press **{label}** to apply yours.")
        params = requested[1]

    placeholder = st.empty()

    def report(done: int, total: int, message: str) -> None:
        placeholder.progress(min(done / max(total, 1), 1.0), text=message)

    def call() -> Any:
        return fn(params, report) if progress else fn(params)

    key = (name, data_key, _params_key(params))
    with st.spinner(spinner or f"{label}…", show_time=True):
        outcome = _cached_outcome(key, call)
    placeholder.empty()
    show_warnings(outcome.warnings)

    good_key = f"_fit_last_good:{name}"
    if outcome.error is None:
        st.session_state[good_key] = (data_key, params, outcome.value)
        return outcome.value
    st.error(f"{label} failed: {outcome.error}")
    last = st.session_state.get(good_key)
    if last is not None and last[0] == data_key:
        st.info(f"Showing the last settings that worked: {_describe(last[1])}.")
        return last[2]
    return None


def _describe(params: dict[str, Any]) -> str:
    return ", ".join(f"{k} = {v}" for k, v in params.items())


#: Pixel width of a numeric column in ``fitted_table``: wide enough for "0.1234" and a short
#: header (the full header is the column's tooltip).
NUMBER_COLUMN_PX = 70


def fitted_table(
    table,
    *,
    column_config: dict | None = None,
    text_width: str | int = "medium",
    number_format: str = "%.4g",
    **kwargs,
) -> None:
    """``st.dataframe`` whose columns fit the container at 1280 × 720 (issue 15).

    Numbers get a narrow column with a compact format and their header as tooltip; text
    columns a fixed width (long text is cut in the cell, shown whole on hover). Entries of
    ``column_config`` override these defaults column by column.
    """
    import pandas as pd

    frame = table.data if hasattr(table, "data") and hasattr(table, "format") else table
    config: dict = {}
    for name in frame.columns:
        values = frame[name]
        label = str(name)
        if pd.api.types.is_bool_dtype(values) or pd.api.types.is_integer_dtype(values):
            config[label] = st.column_config.NumberColumn(width=NUMBER_COLUMN_PX, help=label)
        elif pd.api.types.is_numeric_dtype(values):
            config[label] = st.column_config.NumberColumn(
                width=NUMBER_COLUMN_PX, format=number_format, help=label
            )
        else:
            config[label] = st.column_config.TextColumn(width=text_width, help=label)
    config.update(column_config or {})
    st.dataframe(table, column_config=config, width="stretch", **kwargs)


def group_table(diagnostics, *, latent_rows_used: np.ndarray | None = None) -> None:
    """The label groups as a table: one row per group, its verdict, then its labels.

    ``diagnostics`` is :func:`mlviz.label_clustering.group_diagnostics`'s table; the Label
    clusters and GroPLE pages both show it. ``latent_rows_used`` (GroPLE: latent rows of
    each group's V^k) becomes a second column.
    """
    from mlviz.figures.label_clusters import group_table as display_table

    table = display_table(diagnostics)
    # Pixel widths wide enough for each header, summing to less than the main area at
    # 1280 × 720 (~820 px; Streamlit stretches them to fill it): no header is cut, and the
    # labels (long text, whole on hover) take what is left.
    widths = {"group": 55, "n_labels": 70, "support": 65}
    widths |= {"co-occurring pairs": 130, "mean Jaccard": 105, "tail share": 75}
    if latent_rows_used is not None:
        table.insert(1, "latent rows used", latent_rows_used)
        widths["latent rows used"] = 120
    formats = {"co-occurring pairs": "%.2f", "mean Jaccard": "%.3f", "tail share": "%.2f"}
    config = {
        column: st.column_config.NumberColumn(format=formats.get(column), width=width, help=column)
        for column, width in widths.items()
        if column in table.columns
    }
    config["verdict"] = st.column_config.TextColumn(width=115, help="verdict")
    labels_px = 150 if latent_rows_used is None else 80
    config["labels"] = st.column_config.TextColumn(width=labels_px, help="labels")
    fitted_table(table, hide_index=True, column_config=config)


# ----------------------------------------------------------------- links that restore a view
# Every parameter widget is bound to the URL with Streamlit's own ``bind="query-params"``
# (the widget's key is the parameter's name; values equal to the default are left out), so a
# link reopens the same page (the URL path), data set (``?dataset=``) and settings. Streamlit
# silently drops a link value the widget cannot take; :func:`bound` says so on the page.
DATASET_PARAM = "dataset"
_LINK_READ_KEY = "_link_dataset_read"
_LINK_NOTES: ContextVar[Any] = ContextVar("mlviz_link_notes", default=None)
_VIEW_PARAMS_KEY = "_view_params"  # key -> value of every bound widget drawn in this run


def _as_number(text: str) -> float | None:
    try:
        number = float(text)
    except ValueError:
        return None
    return number if np.isfinite(number) else None


def _link_mismatch(value: Any, raw: list[str], shown: Callable[[Any], str]) -> str | None:
    """Why the link's ``raw`` value(s) did not become ``value``, or None if they did."""
    if isinstance(value, bool):
        if [r.lower() for r in raw] == [str(value).lower()]:
            return None
        return (
            "it is not true or false"
            if raw[0].lower() not in ("true", "false")
            else ("the setting is not available here")
        )
    if isinstance(value, (int, float, np.number)) or (
        isinstance(value, tuple) and value and all(isinstance(v, (int, float)) for v in value)
    ):
        wanted = list(value) if isinstance(value, tuple) else [value]
        numbers = [_as_number(r) for r in raw]
        if any(n is None for n in numbers):
            return "it is not a number"
        if len(numbers) == len(wanted) and np.allclose(numbers, wanted, rtol=1e-9, atol=0):
            return None
        if isinstance(value, tuple) and len(numbers) != len(wanted):
            return f"a range needs {len(wanted)} values"
        if (
            not isinstance(value, tuple)
            and isinstance(value, (int, np.integer))
            and not float(numbers[0]).is_integer()
        ):
            return "it is not a whole number"
        return "it is outside the range this data set allows"
    if isinstance(value, (list, tuple)):
        known = [shown(v) for v in value]
        if known == raw:
            return None
        unknown = [r for r in raw if r not in known]
        return f"unknown option(s) {', '.join(unknown)}" if unknown else "it is not available here"
    if raw == [shown(value)]:
        return None
    return "it is not one of the options"


def _link_note(message: str) -> None:
    """Show a note about the link at the top of the page (inline when run without router)."""
    notes = _LINK_NOTES.get()
    (notes if notes is not None else st).warning(message, icon=":material/link:")


def bound(widget: Callable[..., T], *args: Any, key: str, **kwargs: Any) -> T:
    """``widget(*args, key=key, **kwargs)`` bound to the URL parameter ``key``.

    Use for every parameter widget (``shared.bound(st.slider, "M", 1, K, 4, key="plst_m")``,
    ``shared.bound(col.selectbox, ...)``). A value in the link the widget cannot take (wrong
    type, out of range, unknown option) is dropped by Streamlit; here a note says which
    parameter was ignored, why, and what the page uses instead. Never raises for a bad link.
    """
    raw = st.query_params.get_all(key) if key in st.query_params else []
    value = widget(*args, key=key, bind="query-params", **kwargs)
    st.session_state.setdefault(_VIEW_PARAMS_KEY, {})[key] = value
    if raw:
        format_func = kwargs.get("format_func", str)
        reason = _link_mismatch(value, raw, lambda v: str(format_func(v)))
        if reason is not None:
            used = (
                value
                if isinstance(value, (bool, int, float, np.number))
                else (
                    ", ".join(map(str, value))
                    if isinstance(value, (list, tuple))
                    else format_func(value)
                )
            )
            _link_note(
                f"The link's `{key}={'&'.join(raw)}` was ignored: {reason}. Using "
                f"{used if used != '' else 'nothing'} instead."
            )
    return value


def _dataset_from_link(keys: Sequence[str]) -> None:
    """Select the link's ``?dataset=`` once per session (later the picker rules)."""
    if st.session_state.get(_LINK_READ_KEY):
        return
    st.session_state[_LINK_READ_KEY] = True
    wanted = st.query_params.get(DATASET_PARAM)
    if wanted is None:
        return
    if wanted in keys:
        st.session_state["source_choice"] = wanted
    else:
        _link_note(
            f"The link's `{DATASET_PARAM}={wanted}` was ignored: no such data set here (the "
            f"data folder may differ). Using {keys[0]} instead; choose one in the sidebar."
        )


def _dataset_to_link(key: str | None) -> None:
    if key is None:
        st.query_params.pop(DATASET_PARAM, None)
    elif st.query_params.get(DATASET_PARAM) != key:
        st.query_params[DATASET_PARAM] = key


# ------------------------------------------------------------------------------ export
_FIGURES_KEY = "_view_figures"


def chart(fig: Any, *, key: str, **kwargs: Any) -> None:
    """``st.plotly_chart`` whose modebar exports the figure as ``<data set>_<key>.svg``.

    The key names the figure (``"plst_spectrum"`` gives ``yeast_plst_spectrum.svg``); the
    camera button of plotly's modebar downloads it (SVG, scalable for slides; plotly's PNG
    export is the "download as PNG" entry of the same modebar in a browser without SVG). The
    figure is also kept for :func:`report_button`.
    """
    from mlviz.figures.report import export_filename

    stem = export_filename(current_dataset().name, *key.split("_"))
    config = {
        "toImageButtonOptions": {"format": "svg", "filename": stem, "scale": 2},
        **kwargs.pop("config", {}),
    }
    st.plotly_chart(fig, key=key, config=config, **kwargs)
    st.session_state.setdefault(_FIGURES_KEY, {})[key] = fig


def report_button(title: str, parameters: dict[str, Any] | None = None) -> None:
    """A download button: this page's figures (drawn by :func:`chart`) and settings as HTML.

    The settings are the data set, the split and every widget value bound to the URL on this
    page, plus ``parameters``. The HTML is built only when the button is pressed.
    """
    from mlviz.figures.report import export_filename, html_report

    figures = dict(st.session_state.get(_FIGURES_KEY, {}))
    if not figures:
        return
    ds = current_dataset()
    settings = {
        "data set": st.session_state.get(SOURCE_LABEL_KEY, ds.name),
        "split": split_settings(),
    }
    settings.update(st.session_state.get(_VIEW_PARAMS_KEY, {}))
    settings.update(parameters or {})
    settings["link"] = "?" + "&".join(
        f"{k}={v}" for k in st.query_params for v in st.query_params.get_all(k)
    )
    page = _calling_page()
    st.download_button(
        "Download this view (HTML report)",
        data=lambda: html_report(f"{ds.name} — {title}", figures, settings),
        file_name=export_filename(ds.name, page.stem if page else "view", "report") + ".html",
        mime="text/html",
        key="report_download",
        help="Every figure of this page (interactive, plotly.js from its CDN) and the settings "
        "that made them, in one HTML file.",
    )

"""The one place where pages run models: a cache keyed by what a result is.

Two entry points, both with the spinner or progress bar, errors shown as ``st.error``, the
library's warnings shown on the page (and stored with the cached result), and never a result
of another data set:

* :func:`fit` fits a scikit-learn estimator on the loaded data. Its cache key is the
  estimator's class, its ``get_params(deep=True)``, the data set's content digest and the rows
  and label columns it is fitted on (the training rows of the sidebar's split, or all rows;
  all label columns, or a subset). The same settings on two pages are one fit.
* :func:`compute` runs any other computation (occupied vertices, sweeps, tables). Its key is
  the function (file, qualified name) with its keyword arguments and the data set's digest
  (plus the split's settings unless ``uses_split=False``).

A function given to :func:`compute` may read the loaded data set and the split (both are in
the key) and whatever is a deterministic function of them and of its arguments; everything
else it depends on must be an argument. Arguments are keyed by value (arrays by a hash of
their bytes); a result of this cache (a fitted model, computed costs) passed as an argument
is keyed by its own cache key, any other estimator by its class and parameters. A value the
cache cannot key raises ``TypeError``, rather than being keyed by a ``repr`` that may shorten
it.

After a failed fit, the last good result of the same page, the same kind (estimator class or
function), the same data set and split and the same rows and columns is shown, with a note:
never another page's result, nor one fitted on other label columns.
"""

from __future__ import annotations

import dataclasses
import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

import numpy as np
import pandas as pd
import scipy.sparse as sp
import streamlit as st

from pages._app import experiment, library_warnings, source

T = TypeVar("T")
E = TypeVar("E")

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
_LAST_GOOD_KEY = "_fit_last_good"
#: Outcomes kept by the store shared by all sessions (least recently used out). An entry
#: holds a fitted model or a computed table of one data set: on the embedded samples each is
#: well under 1 MB; on the largest data sets the users bring (~1,000 labels, ~16k rows) a
#: fitted CLEMS or GroPLE model is a few tens of MB, so 64 entries stay within ~1-2 GB only
#: if they are not all of that size; the per-page budgets (:mod:`pages._app.budget`) keep a
#: single result below that.
MAX_STORED_OUTCOMES = 64
#: Small results (``compute(..., small=True)``: what one test instance shows, a grouping's
#: summary; most a few kB, the largest the Lesson's biplot edges at 300 label sets, ~0.7 MB)
#: are kept apart, up to this many, so that students stepping through instances never push a
#: fitted model out of the :data:`MAX_STORED_OUTCOMES` (a refit takes seconds).
MAX_STORED_SMALL_OUTCOMES = 512
#: The first item of a small result's key (:func:`compute`).
SMALL_RESULT = "small result"


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
    elements created outside it, and a fit's progress bar is exactly that. Single flight:
    identical fits asked for at the same time by several sessions (a class opening the same
    link) are computed once, the other sessions wait for it (:meth:`get_or_compute`). Also
    knows the key of every value it holds, so that a result passed on to another computation
    is keyed by what it is (:func:`key_of`).
    """

    def __init__(
        self,
        max_entries: int = MAX_STORED_OUTCOMES,
        max_small_entries: int = MAX_STORED_SMALL_OUTCOMES,
    ) -> None:
        self._entries: OrderedDict[tuple, FitOutcome] = OrderedDict()
        # the keys of small results (SMALL_RESULT first), in their own least-recently-used
        # order: they count towards max_small_entries, not max_entries
        self._small: OrderedDict[tuple, None] = OrderedDict()
        self.max_small_entries = max_small_entries
        # id(value) -> (key, part): the values held here, and each part of a tuple value
        # (part None: the value itself)
        self._origin: dict[int, tuple[tuple, int | None]] = {}
        self._lock = threading.Lock()
        # One lock per key being computed (single flight): the first session to miss a key
        # computes it while the others wait on its lock, then read the stored outcome.
        self._computing: dict[tuple, threading.Lock] = {}
        self.max_entries = max_entries

    def get_or_compute(self, key: tuple, compute: Callable[[], FitOutcome]) -> FitOutcome:
        """The outcome of ``key``, computed by ``compute()`` once however many sessions ask
        for it at the same time (the others block until it is stored).

        If the outcome is evicted again before a waiting session reads it (more than
        ``max_entries`` other keys stored in between), that session computes it itself.
        """
        outcome = self.get(key)
        if outcome is not None:
            return outcome
        with self._lock:
            key_lock = self._computing.setdefault(key, threading.Lock())
        try:
            with key_lock:
                outcome = self.get(key)  # computed by the session we waited for
                if outcome is None:
                    outcome = compute()
                    self.put(key, outcome)
                return outcome
        finally:
            with self._lock:
                # the last session out removes the lock (a later miss makes a new one)
                if self._computing.get(key) is key_lock and not key_lock.locked():
                    del self._computing[key]

    def computing(self) -> int:
        """Keys being computed now (for tests and the benchmark)."""
        with self._lock:
            return len(self._computing)

    def is_computing(self, key: tuple) -> bool:
        """Whether a session or worker thread is computing ``key`` now."""
        with self._lock:
            return key in self._computing

    def get(self, key: tuple) -> FitOutcome | None:
        with self._lock:
            if key in self._entries:
                self._entries.move_to_end(key)
                if key in self._small:
                    self._small.move_to_end(key)
            return self._entries.get(key)

    def put(self, key: tuple, outcome: FitOutcome) -> None:
        with self._lock:
            self._entries[key] = outcome
            if key[:1] == (SMALL_RESULT,):
                self._small[key] = None
                self._small.move_to_end(key)
            if outcome.error is None:
                for part, held in _parts(outcome.value):
                    self._origin[id(held)] = (key, part)
            while len(self._small) > self.max_small_entries:
                self._evict(self._small.popitem(last=False)[0])
            while len(self._entries) - len(self._small) > self.max_entries:
                oldest = next(k for k in self._entries if k not in self._small)
                self._evict(oldest)

    def _evict(self, key: tuple) -> None:
        """Drop ``key`` and what :meth:`origin` knows of it (the lock is held)."""
        old = self._entries.pop(key)
        for _, held in _parts(old.value):
            if self._origin.get(id(held), (None,))[0] == key:
                del self._origin[id(held)]

    def origin(self, value: Any) -> tuple | None:
        """The key ``value`` is cached under, if this store holds it (an identity check);
        for a part of a tuple held here (a page's computation returning several tables), that
        key and the part's position."""
        with self._lock:
            key, part = self._origin.get(id(value), (None, None))
            if key is None or key not in self._entries:
                return None
            held = dict(_parts(self._entries[key].value)).get(part, _NOTHING)
            if held is not value:
                return None
            return key if part is None else (*key, ("part", part))

    def __len__(self) -> int:
        return len(self._entries)


_NOTHING = object()


def _parts(value: Any) -> list[tuple[int | None, Any]]:
    """A stored value and, if it is a tuple, each of its items by position: a page that
    unpacks a computation's tables (the Data page's statistics) passes the items on, and each
    is keyed by the computation and its position instead of hashing it on every rerun (a
    label-set table's ``hash_pandas_object`` was a tenth of the Data page's rerun)."""
    parts: list[tuple[int | None, Any]] = [(None, value)]
    if isinstance(value, tuple):
        parts.extend(enumerate(value))
    return parts


@st.cache_resource(show_spinner=False)
def _outcomes() -> _OutcomeStore:
    return _OutcomeStore()


# ------------------------------------------------------------------------------ cache keys
def _array_key(a: np.ndarray) -> tuple:
    a = np.ascontiguousarray(a)
    digest = hashlib.blake2b(a.view(np.uint8) if a.size else b"", digest_size=16).hexdigest()
    return ("ndarray", a.dtype.str, a.shape, digest)


def key_of(value: Any, *, strict: bool = False) -> Any:
    """A hashable key of ``value`` by what it is (see the module docstring).

    With ``strict=True`` (figures, :func:`figure`) an estimator or dataclass that is not a
    result held by the store raises ``TypeError`` instead of being keyed by its parameters or
    fields: a fitted model's figure depends on what it was fitted on, which its parameters do
    not say.
    """
    from sklearn.base import BaseEstimator

    if value is None or isinstance(value, (bool, int, float, str, bytes)):
        return (type(value).__name__, value)
    if isinstance(value, np.generic):
        return (type(value).__name__, value.item())
    if isinstance(value, (tuple, list)):
        return (type(value).__name__, tuple(key_of(v, strict=strict) for v in value))
    if isinstance(value, Mapping):
        return (
            "dict",
            tuple(sorted((str(k), key_of(v, strict=strict)) for k, v in value.items())),
        )
    if isinstance(value, (np.ndarray, pd.DataFrame, pd.Series)) or sp.issparse(value):
        # the loaded data set's own X or Y, found by identity: every key of this cache holds
        # the data set's digest already (hashing Y again took ~30 ms per rerun of the Data
        # page at 16,105 x 983)
        name = _dataset_array(value)
        if name is not None:
            return ("loaded data set", name)
        # a result of this cache (a per-label table, predictions) is keyed by the computation
        # that made it, found by identity: hashing its content again on every rerun took 1-2 ms
        # per table on the sample and grows with the data (tens of ms at 16k x 983)
        cached = _outcomes().origin(value)
        if cached is not None:
            return ("result", cached)
    if isinstance(value, np.ndarray):
        return _array_key(value)
    if sp.issparse(value):
        csr = sp.csr_matrix(value)
        return ("sparse", csr.shape, *(_array_key(a) for a in (csr.data, csr.indices, csr.indptr)))
    if isinstance(value, (pd.DataFrame, pd.Series)):
        # values, index and column names and dtypes (hash_pandas_object hashes values + index)
        hashed = pd.util.hash_pandas_object(value, index=True).to_numpy()
        columns = tuple(map(str, value.columns)) if isinstance(value, pd.DataFrame) else None
        dtypes = tuple(map(str, np.atleast_1d(value.dtypes)))
        return ("frame", value.shape, columns, dtypes, _array_key(hashed))
    cached = _outcomes().origin(value)
    if cached is not None:
        return ("result", cached)
    if strict:
        raise TypeError(f"a {type(value).__name__} that is not a cached result")
    if isinstance(value, BaseEstimator):
        return ("estimator", _class_name(type(value)), key_of(value.get_params(deep=False)))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        # e.g. CLEMS's CandidateCosts no longer in the store (a fallback): by its fields
        fields = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
        return ("dataclass", _class_name(type(value)), key_of(fields))
    if callable(value):
        return ("function", *_function_name(value))
    raise TypeError(
        f"cannot key a {type(value).__name__} for the fit cache: pass plain values, arrays, "
        "estimators or results of this cache"
    )


def _dataset_array(value: Any) -> str | None:
    """``"X"`` or ``"Y"`` when ``value`` is that array of the loaded data set itself (not a
    copy), else None; None outside a script run."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    if get_script_run_ctx(suppress_warning=True) is None:
        return None
    ds = st.session_state.get(source.DATASET_KEY)
    return next((name for name in ("X", "Y") if getattr(ds, name, None) is value), None)


def _class_name(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _function_name(fn: Callable) -> tuple[str, str]:
    """(file, qualified name): page scripts all run as ``__main__``, so the file tells them
    apart."""
    code = getattr(fn, "__code__", None)
    where = code.co_filename if code is not None else getattr(fn, "__module__", "")
    return (where, getattr(fn, "__qualname__", repr(fn)))


def _data_key(rows: Literal["train", "all"]) -> tuple:
    """What a result depends on besides its settings: the data set, and the split if used."""
    if rows == "all":
        return (source.dataset_digest(), "all rows")
    return (source.dataset_digest(), "training rows", experiment.split_settings())


def _columns_key(columns) -> Any:
    if columns is None:
        return "all label columns"
    return ("label columns", tuple(int(c) for c in np.asarray(columns).ravel()))


# ----------------------------------------------------------------------------- running
def _cached_outcome(
    cache_key: tuple, call: Callable[[], Any], store: _OutcomeStore | None = None
) -> FitOutcome:
    """Run ``call`` once per ``cache_key``; errors and warnings are cached with the result.

    ``store``: the outcome store, passed by a worker thread (which has no Streamlit context
    to look it up).
    """

    def run() -> FitOutcome:
        with library_warnings.recording_warnings() as messages:
            try:
                value = call()
            except FIT_ERRORS as err:
                return FitOutcome(error=_error_message(err), warnings=tuple(messages))
            return FitOutcome(value=value, warnings=tuple(messages))

    return (store or _outcomes()).get_or_compute(cache_key, run)


def _requested(
    key: str | None,
    on: Literal["change", "button"],
    label: str,
    data_key: tuple,
    request: Any,
    settings_key: Any,
    first_fit_automatic: bool,
) -> tuple[bool, Any]:
    """The settings to compute: the widgets' (``on="change"``) or those of the last press.

    Returns (go, request); ``go`` is False when a button has not been pressed yet.
    """
    if on == "change":
        return True, request
    if key is None:
        raise ValueError('on="button" needs a key (the button\'s key is f"{key}_fit")')
    requested_key = f"_fit_requested:{key}"
    pressed = st.button(label, key=f"{key}_fit", type="primary")
    requested = st.session_state.get(requested_key)
    stale = requested is None or requested[0] != data_key
    if pressed or (stale and first_fit_automatic):
        requested = st.session_state[requested_key] = (data_key, request, settings_key)
    elif stale:
        st.info(f"Press **{label}** to fit.")
        return False, None
    if requested[2] != settings_key:
        st.info(f"Showing the last fitted settings; press **{label}** to apply yours.")
    return True, requested[1]


def _show(
    cache_key: tuple,
    slot: tuple,
    call: Callable[[Any], Any],
    label: str,
    spinner: str | None,
    described: Callable[[], str],
    label_names: Sequence[str] | None = None,
) -> Any:
    """Compute (or fetch) ``cache_key``, show its warnings or error; the value or None.

    ``described`` gives the settings in words, for the note over a last good result shown in
    place of a failed one; it is kept with each good result and called only then (describing
    them on every rerun was sklearn's pretty-printer on every estimator argument: ~5 % of
    a cached rerun of the GroPLE page).
    """
    outcome = _outcomes().get(cache_key)
    if outcome is None:  # a spinner (a timer thread) and a progress slot only when computing
        placeholder = st.empty()

        def report(done: int, total: int, message: str) -> None:
            placeholder.progress(min(done / max(total, 1), 1.0), text=message)

        with st.spinner(spinner or f"{label}…", show_time=True):
            outcome = _cached_outcome(cache_key, lambda: call(report))
        placeholder.empty()
    library_warnings.show_warnings(outcome.warnings, label_names=label_names)

    last_good = st.session_state.setdefault(_LAST_GOOD_KEY, {})
    if outcome.error is None:
        last_good[slot] = (described, outcome.value)
        return outcome.value
    st.error(f"{label} failed: {outcome.error}")
    last = last_good.get(slot)
    if last is not None:
        st.info(f"Showing the last settings that worked: {last[0]()}.")
        return last[1]
    return None


def _slot(kind: Any, data_key: tuple, columns: Any) -> tuple:
    """Where a page keeps the last good result of one kind of computation (see the module
    docstring): the page, the kind, the data set and split, the label columns."""
    from pages._app import router

    return (router.current_page(), kind, data_key, columns)


def _describe(settings: Mapping[str, Any]) -> str:
    """Settings in words; an array setting (e.g. GroPLE's groups) by its size, not its repr."""
    return ", ".join(
        f"{k} = an array of {np.size(v):,} values" if isinstance(v, np.ndarray) else f"{k} = {v}"
        for k, v in settings.items()
    )


def fit(
    estimator: E,
    *,
    rows: Literal["train", "all"] = "train",
    columns=None,
    fit_params: Mapping[str, Any] | None = None,
    label: str | None = None,
    spinner: str | None = None,
    on: Literal["change", "button"] = "change",
    key: str | None = None,
    first_fit_automatic: bool = True,
    alongside: Callable[[E], Sequence[Any]] | None = None,
) -> E | None:
    """``estimator`` fitted on the loaded data, cached by what it is; None if there is none.

    Parameters
    ----------
    estimator : scikit-learn estimator
        Unfitted; a clone is fitted (``estimator`` itself stays unfitted). Estimators whose
        ``fit`` takes the labels only (``fit(Y)``, e.g. ``LabelClustering``) get the labels.
    rows : {"train", "all"}
        The training rows of the sidebar's split, or every row of the data set.
    columns : array of int, optional
        The label columns to fit on (default all).
    fit_params : dict, optional
        Keyword arguments of ``fit`` (keyed like :func:`compute`'s arguments).
    on : {"change", "button"}
        ``"change"`` fits whenever the estimator's settings change. ``"button"`` draws a
        button labelled ``label`` with the key ``f"{key}_fit"`` and fits the settings of its
        last press; the first fit for a data set happens without a press when
        ``first_fit_automatic``. Until the button is pressed again, the result of the last
        pressed settings is returned, with a note when the widgets now say otherwise.
    alongside : callable, optional
        Given the estimator this call fits (the widgets' or the last press's), the estimators
        the page fits next on the same rows and columns (e.g. GroPLE's baselines): those not
        cached yet are fitted in order in one worker thread while this one fits, each under
        the key its own :func:`fit` call will look up, which then waits for it (or reads it).
        A fit keeps one core busy, most of it in BLAS with one thread
        (:class:`mlviz.grople.GroPLE` limits it to one), so on the 2-core server the two run
        side by side: the GroPLE page's first run at delicious's shape waits ~0.5-1 s less
        (docs/BENCHMARKS.md).

    Returns
    -------
    The fitted clone, or None when there is nothing to show: the fit failed (an ``st.error``
    with the library's message was shown) and this page has no earlier good fit of the same
    class on the same data, rows and columns, or a button has not been pressed yet.

    Examples
    --------
    ``plst = fitting.fit(METHODS["PLST"].make(M=4))``;
    ``clusters = fitting.fit(LabelClustering(n_groups=4), rows="all", columns=occurring)``.
    """
    from sklearn.base import clone

    cls = type(estimator)
    label = label or cls.__name__
    columns = _fitted_columns(columns)
    data_key = _data_key(rows)
    columns_key = _columns_key(columns)
    params_key = key_of(estimator.get_params(deep=True))
    go, requested = _requested(
        key, on, label, (data_key, columns_key), clone(estimator), params_key, first_fit_automatic
    )
    if not go:
        return None
    fit_kwargs = dict(fit_params or {})
    cache_key = _fit_key(requested, data_key, columns_key, fit_kwargs)
    if alongside is not None:
        _start_fits(alongside(requested), rows, columns)

    def call(report) -> Any:
        del report  # an estimator's fit reports no progress
        return _fitted(requested, *fit_data(rows, columns), fit_kwargs)

    def described() -> str:
        return _describe(_changed_params(requested))

    # the fitted columns' names, so that a warning about label columns can name them
    names = list(source.loaded_dataset().label_names)
    if columns is not None:
        names = [names[j] for j in np.asarray(columns).ravel()]
    return _show(
        cache_key,
        _slot(_class_name(cls), data_key, columns_key),
        call,
        label,
        spinner,
        described,
        label_names=names,
    )


def _fitted_columns(columns) -> np.ndarray | None:
    """The label columns to fit on; None for every column in order (the same fit)."""
    if columns is None:
        return None
    columns = np.asarray(columns).ravel()
    if np.array_equal(columns, np.arange(source.loaded_dataset().n_labels)):
        return None
    return columns


def _fit_key(estimator, data_key: tuple, columns_key: Any, fit_kwargs: Mapping) -> tuple:
    return (
        "estimator",
        _class_name(type(estimator)),
        key_of(estimator.get_params(deep=True)),
        data_key,
        columns_key,
        key_of(fit_kwargs),
    )


def fit_data(rows: Literal["train", "all"], columns: np.ndarray | None) -> tuple[Any, Any]:
    """(X, Y) that a fit on ``rows`` ("train": the split's training rows, or "all") and the
    label ``columns`` (None: all) is given; read in the script thread."""
    ds = source.loaded_dataset()
    if rows == "all":
        X, Y = ds.X, ds.Y
    else:
        part = experiment.current_split()
        X, Y = part.X_train, part.Y_train
    if columns is not None:
        Y = Y[:, np.asarray(columns)]
    return X, Y


def _fitted(estimator, X, Y, fit_kwargs: Mapping) -> Any:
    """A clone of ``estimator`` fitted on (X, Y), or on Y for a ``fit(Y)`` estimator."""
    from sklearn.base import clone

    model = clone(estimator)
    if _fits_labels_only(model):
        return model.fit(Y, **fit_kwargs)
    return model.fit(X, Y, **fit_kwargs)


def _start_fits(estimators: Sequence[Any], rows, columns) -> threading.Thread | None:
    """Fit ``estimators`` one after the other in one worker thread, each under the key
    :func:`fit` gives it (see its ``alongside``); those cached or being computed already are
    left out. None when none is left.

    One thread, not one per estimator: the page's own fit keeps the other core, and two
    fits of the delicious shape at once already raise the process's peak memory (~+0.35 GB
    on the GroPLE page). The thread reads nothing of the session: the data, the keys and
    the store are taken here, in the script thread. Each outcome (value or error, and the
    warnings, recorded per thread) is stored like any other, so the page's own :func:`fit`
    calls show them; a call that comes before the thread reached its estimator fits it
    itself, and the thread then finds it stored. An error outside ``FIT_ERRORS`` ends the
    thread with its traceback in the server log, and the page's call then fits in the script
    thread and raises it there.
    """
    store = _outcomes()
    data_key, columns_key = _data_key(rows), _columns_key(columns)
    jobs = [(estimator, _fit_key(estimator, data_key, columns_key, {})) for estimator in estimators]
    jobs = [(e, k) for e, k in jobs if store.get(k) is None and not store.is_computing(k)]
    if not jobs:
        return None
    X, Y = fit_data(rows, columns)

    def fit_all() -> None:
        for estimator, cache_key in jobs:
            _cached_outcome(cache_key, lambda e=estimator: _fitted(e, X, Y, {}), store)

    thread = threading.Thread(target=fit_all, name="mlviz-fit-alongside", daemon=True)
    thread.start()
    return thread


def _fits_labels_only(estimator) -> bool:
    import inspect

    first = next(iter(inspect.signature(estimator.fit).parameters), None)
    return first == "Y"


def _changed_params(estimator) -> dict[str, Any]:
    """The estimator's parameters that differ from their defaults (as its repr shows them)."""
    import inspect

    defaults = {
        name: p.default
        for name, p in inspect.signature(type(estimator).__init__).parameters.items()
        if p.default is not inspect.Parameter.empty
    }
    return {
        name: value
        for name, value in estimator.get_params(deep=False).items()
        if name not in defaults or repr(defaults[name]) != repr(value)
    }


def compute(
    fn: Callable[..., T],
    params: Mapping[str, Any] | None = None,
    *,
    label: str | None = None,
    spinner: str | None = None,
    on: Literal["change", "button"] = "change",
    key: str | None = None,
    progress: bool = False,
    uses_split: bool = True,
    first_fit_automatic: bool = True,
    identity: tuple[str, ...] = (),
    label_names: Sequence[str] | None = None,
    small: bool = False,
) -> T | None:
    """``fn(**params)`` for the loaded data, cached by ``fn`` and ``params``; None if none.

    Parameters
    ----------
    fn : callable
        A named function (not a lambda: its name is part of the key). With ``progress=True``
        it also receives ``progress=report``, where ``report(done, total, message)``
        advances a progress bar.
    params : dict
        Its keyword arguments: every setting it depends on besides the data set and the split
        (see the module docstring).
    uses_split : bool
        Whether the result depends on the sidebar's split (most) or only on the data set.
    identity : tuple of str
        Names in ``params`` that say *what* is computed rather than how (e.g. ``("method",)``
        for a function computing any method's scores): after a failure, only a result with
        the same values of these is shown in its place.
    label, spinner, on, key, first_fit_automatic
        As in :func:`fit`.
    label_names : sequence of str, optional
        The names of the label columns ``fn`` fits on (all of the data set's, in order), so
        that a library warning about label columns can name them; None keeps its indices.
    small : bool
        The result is small (at most ~1 MB, most a few kB) and one of many a user steps
        through (what one test instance shows, a grouping's summary): it is kept among the
        :data:`MAX_STORED_SMALL_OUTCOMES`, where it cannot push a fitted model out of the
        store.

    Returns
    -------
    The result of ``fn``, or None as in :func:`fit`.

    Examples
    --------
    ``fitting.compute(occupied, {"max_vertices": 500}, uses_split=False)`` with
    ``def occupied(max_vertices): ...`` defined on the page.
    """
    if getattr(fn, "__name__", "") == "<lambda>":
        raise ValueError("compute() keys results by the function's name: pass a named function")
    params = dict(params or {})
    label = label or fn.__name__
    data_key = _data_key("train") if uses_split else (source.dataset_digest(),)
    function = _function_name(fn)
    go, requested = _requested(
        key, on, label, data_key, params, key_of(params), first_fit_automatic
    )
    if not go:
        return None
    cache_key = (SMALL_RESULT if small else "function", function, key_of(requested), data_key)

    def call(report) -> Any:
        return fn(**requested, progress=report) if progress else fn(**requested)

    kind = (function, tuple((name, key_of(requested.get(name))) for name in identity))
    return _show(
        cache_key,
        _slot(kind, data_key, None),
        call,
        label,
        spinner,
        lambda: _describe(requested),
        label_names=label_names,
    )


# ------------------------------------------------------------------------------ figures
#: Figures kept by the store shared by all sessions (least recently used out). A figure of
#: the app is at most a few MB of JSON (the largest: a 2,000-vertex hypercube), most are
#: 10-200 kB, so 256 entries stay well under ~100 MB on the samples a class uses.
MAX_STORED_FIGURES = 256


class _FigureStore:
    """The last ``max_entries`` figures built by :func:`figure` (least recently used out)."""

    def __init__(self, max_entries: int = MAX_STORED_FIGURES) -> None:
        self._entries: OrderedDict[tuple, Any] = OrderedDict()
        # (variant, id of the figure) -> (that figure, its variant); the entry holds the
        # figure itself, so its id cannot be reused by another object while the entry lives
        self._variants: OrderedDict[tuple[str, int], tuple[Any, Any]] = OrderedDict()
        self._lock = threading.Lock()
        self.max_entries = max_entries

    def get_or_build(self, key: tuple, build: Callable[[], Any]) -> Any:
        with self._lock:
            if key in self._entries:
                self._entries.move_to_end(key)
                return self._entries[key]
        value = build()  # figures are cheap next to fits: two sessions may build one twice
        with self._lock:
            value = self._entries.setdefault(key, value)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)
        return value

    def variant(
        self, fig: Any, name: str, make: Callable[[Any], Any], *, share_only: bool = False
    ) -> Any:
        """``make(fig)``, made once per stored figure (or stored variant) and ``name``; a
        figure this store does not hold (built per session) gets ``make(fig)`` each time, or
        itself with ``share_only``."""
        key = (name, id(fig))
        with self._lock:
            entry = self._variants.get(key)
            if entry is not None and entry[0] is fig:
                self._variants.move_to_end(key)
                return entry[1]
            shared = any(value is fig for value in self._entries.values()) or any(
                value is fig for _, value in self._variants.values()
            )
        if not shared:
            return fig if share_only else make(fig)
        value = make(fig)
        with self._lock:
            entry = self._variants.get(key)
            if entry is not None and entry[0] is fig:
                return entry[1]
            self._variants[key] = (fig, value)
            while len(self._variants) > self.max_entries:
                self._variants.popitem(last=False)
        return value

    def __len__(self) -> int:
        return len(self._entries)


@st.cache_resource(show_spinner=False)
def _figures() -> _FigureStore:
    return _FigureStore()


def figure(builder: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """``builder(*args, **kwargs)`` built once per (builder, arguments, data set), shared by
    every session: a rerun whose inputs did not change rebuilds no figure (issue 24: building
    plotly figures was most of a rerun's time).

    The figure returned is shared: draw it (``export.chart``), never change it; a change goes
    into the builder's arguments. Arguments are keyed as in :func:`compute`, except that a
    fitted model must be a result of this cache (``key_of(strict=True)``); with an argument
    that cannot be keyed so, the figure is built each time, uncached.
    """
    try:
        key = (
            "figure",
            _function_name(builder),
            key_of(args, strict=True),
            key_of(kwargs, strict=True),
            source.dataset_digest(),
        )
    except TypeError:
        return builder(*args, **kwargs)
    return _figures().get_or_build(key, lambda: builder(*args, **kwargs))


def figure_variant(fig: T, name: str, make: Callable[[T], T], *, share_only: bool = False) -> T:
    """``make(fig)`` (a changed copy: a wider title, projector fonts), made once and shared by
    every session when ``fig`` came from :func:`figure` (or from this function); otherwise
    made each time, or with ``share_only`` (a variant that only saves time) ``fig`` itself.
    ``name`` names the variant: the same ``make`` for the same name.

    With 30 sessions opening the same page, each re-made the same copies of the shared
    figures before drawing them (issue 33: a copy validates every property in plotly).
    """
    return _figures().variant(fig, name, make, share_only=share_only)

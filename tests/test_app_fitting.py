"""pages/_app/fitting.py (the cache keyed by what a result is) and library_warnings.py.

Scripts run through ``AppTest.from_function``; the data sets are the degenerate corpus's small
members, put in the session as the picker would, and the page the router would be running is
put in the session under ``router.PAGE_KEY``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from degenerate import degenerate_corpus
from streamlit.testing.v1 import AppTest

REPO = Path(__file__).resolve().parents[1]
TIMEOUT = 120
CORPUS = degenerate_corpus()
PAGE_KEY = "_current_page"  # pages._app.router.PAGE_KEY (checked below)


def _compute_script():
    import warnings

    import streamlit as st

    from pages._app import fitting

    calls = st.session_state.setdefault("calls", [])

    def model(M):
        calls.append(M)
        ds = st.session_state["dataset"]
        if ds.name == "broken" or M in st.session_state.get("failing_M", ()):
            raise ValueError(f"the model cannot be fitted on {ds.name} with M = {M}")
        warnings.warn(f"label column(s) 0 are constant (M = {M})", UserWarning, stacklevel=2)
        return f"model of {ds.name} with M = {M}"

    result = fitting.compute(
        model,
        {"M": st.session_state.get("M", 1)},
        label="The model",
        on=st.session_state.get("on", "change"),
        key="model",
    )
    st.text(f"result: {result}")


def _app(dataset, script=_compute_script, **state) -> AppTest:
    at = AppTest.from_function(script, default_timeout=TIMEOUT)
    at.session_state["dataset"] = dataset
    for key, value in state.items():
        at.session_state[key] = value
    return at


def _result(at: AppTest) -> str:
    return at.text[-1].value


def test_the_page_key_is_the_routers():
    from pages._app import router

    assert router.PAGE_KEY == PAGE_KEY


def test_compute_is_cached_and_its_warnings_show_on_every_rerun():
    at = _app(CORPUS["two_labels"]).run()
    assert _result(at) == "result: model of two_labels with M = 1"
    assert [w.value for w in at.warning] == ["label column(s) 0 are constant (M = 1)"]
    at.run()
    assert at.session_state["calls"] == [1], "the second run must come from the cache"
    assert [w.value for w in at.warning] == ["label column(s) 0 are constant (M = 1)"]


def test_failed_fit_shows_the_message_and_never_another_data_sets_result():
    good = CORPUS["label_always_on"]
    # the same shape and labels, different content: label counts cannot tell them apart
    broken = type(good)("broken", good.X + 1.0, good.Y, good.feature_names, good.label_names)
    at = _app(good).run()
    assert _result(at) == "result: model of label_always_on with M = 1"
    at.session_state["dataset"] = broken
    at.run()
    assert not at.exception
    assert [e.value for e in at.error] == [
        "The model failed: the model cannot be fitted on broken with M = 1"
    ]
    assert _result(at) == "result: None"


def test_failed_fit_falls_back_to_the_last_good_settings_of_the_same_data():
    at = _app(CORPUS["two_labels"], M=1).run()
    assert _result(at).endswith("M = 1")
    # the same data set, whose fits fail at M = 2
    at.session_state["failing_M"] = (2,)
    at.session_state["M"] = 2
    at.run()
    assert at.error and "cannot be fitted" in at.error[0].value
    assert _result(at) == "result: model of two_labels with M = 1"
    assert "Showing the last settings that worked: M = 1" in at.info[0].value


def test_button_fit_waits_for_the_press_after_the_first_fit():
    at = _app(CORPUS["two_labels"], on="button", M=1).run()
    assert _result(at).endswith("M = 1")
    at.session_state["M"] = 3
    at.run()
    assert _result(at).endswith("M = 1")
    assert "press **The model** to apply yours" in at.info[0].value
    at.button(key="model_fit").click().run()
    assert _result(at).endswith("M = 3")
    assert not at.info


def test_compute_refuses_a_lambda_and_an_argument_it_cannot_key():
    from pages._app import fitting

    with pytest.raises(ValueError, match="named function"):
        fitting.compute(lambda: 1)
    with pytest.raises(TypeError, match="cannot key"):
        fitting.key_of(object())
    # arrays are keyed by their bytes, not by a shortened repr
    a, b = np.zeros(5000), np.zeros(5000)
    b[2500] = 1
    assert repr(a) == repr(b) and fitting.key_of(a) != fitting.key_of(b)


def test_a_cached_table_or_array_is_keyed_by_its_computation_without_hashing_it(monkeypatch):
    """A result of the cache passed on to a figure or a computation (a per-label table, the
    predictions) is keyed by identity on every rerun; an equal object that the cache did not
    make is still keyed by its content."""
    import pandas as pd

    from pages._app import fitting

    table = pd.DataFrame({"F1": [0.5, 0.25]}, index=["a", "b"])
    predicted = np.eye(3)
    store = fitting._outcomes()
    store.get_or_compute(("keyed by origin", "table"), lambda: fitting.FitOutcome(value=table))
    store.get_or_compute(("keyed by origin", "Y"), lambda: fitting.FitOutcome(value=predicted))
    # a computation returning several tables (the Data page's statistics), unpacked by the page
    counts, frequencies = pd.DataFrame({"count": [3, 1]}), np.arange(4.0)
    store.get_or_compute(
        ("keyed by origin", "pair"), lambda: fitting.FitOutcome(value=(counts, frequencies))
    )

    def no_hashing(*args, **kwargs):
        raise AssertionError("a cached result was hashed again")

    with monkeypatch.context() as patch:
        patch.setattr(pd.util, "hash_pandas_object", no_hashing)
        patch.setattr(fitting, "_array_key", no_hashing)
        assert fitting.key_of(table) == ("result", ("keyed by origin", "table"))
        assert fitting.key_of({"Y": predicted}) == (
            "dict",
            (("Y", ("result", ("keyed by origin", "Y"))),),
        )
        assert fitting.key_of(counts) == ("result", ("keyed by origin", "pair", ("part", 0)))
        assert fitting.key_of(frequencies) == ("result", ("keyed by origin", "pair", ("part", 1)))
    assert fitting.key_of(table.copy())[0] == "frame"
    assert fitting.key_of(counts.copy())[0] == "frame"
    assert fitting.key_of(frequencies.copy())[0] == "ndarray"
    assert fitting.key_of(table.copy()) == fitting.key_of(table.copy())
    assert fitting.key_of(predicted.copy()) == fitting.key_of(np.eye(3))


# ------------------------------------------------------------------ estimators by what they are
def _clustering_script():
    """The Hypercube page's clustering (all label columns) and the Label clusters page's (the
    occurring ones), with the same settings, in one run."""
    import numpy as np
    import streamlit as st

    from mlviz.label_clustering import LabelClustering
    from pages._app import fitting

    ds = st.session_state["dataset"]
    occurring = np.flatnonzero(np.asarray(ds.Y.sum(axis=0)).ravel() > 0)
    k = st.session_state.get("K", 2)
    all_columns = fitting.fit(LabelClustering(n_groups=k), rows="all")
    st.session_state["_current_page"] = "label_clusters"
    occurring_only = fitting.fit(LabelClustering(n_groups=k), rows="all", columns=occurring)
    st.session_state["_current_page"] = "hypercube"
    st.text(
        "all: "
        + ("None" if all_columns is None else str(all_columns.labels_.size))
        + "; occurring: "
        + ("None" if occurring_only is None else str(occurring_only.labels_.size))
    )


def test_the_same_clustering_on_all_and_on_the_occurring_columns_are_two_fits():
    ds = CORPUS["label_never_on"]  # label 3 never occurs
    at = _app(ds, _clustering_script, _current_page="hypercube").run()
    assert not at.exception and not at.error
    assert _result(at) == "all: 4; occurring: 3"


def test_a_failed_fit_never_shows_the_model_of_other_label_columns():
    ds = CORPUS["label_never_on"]
    at = _app(ds, _clustering_script, _current_page="hypercube").run()
    assert _result(at) == "all: 4; occurring: 3"
    at.session_state["K"] = 0  # rejected by LabelClustering's parameter constraints
    at.run()
    assert len(at.error) == 2 and all("Label" in e.value for e in at.error)
    # each falls back to its own columns' last good model, never the other one's
    assert _result(at) == "all: 4; occurring: 3"
    assert len(at.info) == 2


def _page_fit_script():
    import streamlit as st

    from mlviz.methods import METHODS
    from pages._app import fitting

    model = fitting.fit(METHODS["PLST"].make(M=st.session_state.get("M", 1)), label="PLST")
    st.session_state.setdefault("models", []).append(model)
    st.text("None" if model is None else f"PLST M = {model.n_components}")


def test_the_same_settings_on_two_pages_are_one_fit():
    at = _app(CORPUS["two_labels"], _page_fit_script, _current_page="plst").run()
    assert _result(at) == "PLST M = 1"
    at.session_state["_current_page"] = "hypercube"
    at.run()
    assert _result(at) == "PLST M = 1"
    first, second = at.session_state["models"]
    assert first is second, "the second page must get the first page's fit from the cache"


def test_a_failed_fit_never_shows_another_pages_model():
    at = _app(CORPUS["two_labels"], _page_fit_script, _current_page="plst").run()
    assert _result(at) == "PLST M = 1"
    at.session_state["_current_page"] = "hypercube"
    at.session_state["M"] = 0  # rejected by PLST's parameter constraints
    at.run()
    assert at.error and "PLST failed" in at.error[0].value
    assert _result(at) == "None", "the PLST page's model must not stand in for the Hypercube's"
    at.session_state["_current_page"] = "plst"
    at.run()
    assert _result(at) == "PLST M = 1"  # its own page's last good fit
    assert "Showing the last settings that worked: n_components = 1" in at.info[0].value


# ----------------------------------------------------------------------------- warnings
def test_warnings_of_other_threads_are_not_collected_and_the_hook_is_restored():
    import threading
    import warnings

    from pages._app import library_warnings

    def other_session():  # another session's script thread, not collecting
        warnings.warn("another session's warning", UserWarning, stacklevel=1)

    # pytest.warns receives what the hook passes on: the other thread's warning
    with pytest.warns(UserWarning, match="another session"):
        hook, filters = warnings.showwarning, list(warnings.filters)  # pytest.warns' own
        with library_warnings.recording_warnings() as messages:
            assert warnings.showwarning is not hook  # routed while a fit records
            thread = threading.Thread(target=other_session)
            thread.start()
            thread.join()
            warnings.warn("this page's warning", UserWarning, stacklevel=1)
        assert warnings.showwarning is hook, "the process-wide hook must be put back"
        assert warnings.filters == filters
    assert messages == ["this page's warning"]


def test_overlapping_recordings_in_two_threads_keep_their_own_warnings():
    import threading
    import warnings

    from pages._app import library_warnings

    hook = warnings.showwarning
    started, release = threading.Event(), threading.Event()
    collected: dict[str, list[str]] = {}

    def session(name: str, first: bool) -> None:
        with library_warnings.recording_warnings() as messages:
            if first:
                started.set()
                release.wait(10)
            else:
                started.wait(10)
            warnings.warn(f"{name}'s warning", UserWarning, stacklevel=1)
            if not first:
                release.set()
        collected[name] = messages

    threads = [
        threading.Thread(target=session, args=("a", True)),
        threading.Thread(target=session, args=("b", False)),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert collected == {"a": ["a's warning"], "b": ["b's warning"]}
    assert warnings.showwarning is hook


def test_a_hook_put_back_late_by_a_libraries_catch_warnings_still_passes_warnings_on():
    """Thread A's library enters catch_warnings during A's fit (saving the router), B's
    recording ends and restores the hook, then A's block exits and puts the router back: a
    warning must still reach the original hook (no recursion, nothing lost)."""
    import warnings

    from pages._app import library_warnings

    seen = []
    original = warnings.showwarning
    warnings.showwarning = lambda message, *args, **kwargs: seen.append(str(message))
    try:
        with library_warnings.recording_warnings():
            block = warnings.catch_warnings()
            block.__enter__()  # saves the router as the hook to restore
        block.__exit__(None, None, None)  # puts the router back after the recording ended
        warnings.warn("after every fit", UserWarning, stacklevel=1)
    finally:
        warnings.showwarning = original
    assert seen == ["after every fit"]


def test_show_warnings_deduplicates():
    def script():
        from pages._app import library_warnings

        library_warnings.show_warnings(["a", "b", "a"])

    at = AppTest.from_function(script, default_timeout=TIMEOUT).run()
    assert [w.value for w in at.warning] == ["a", "b"]


def _cap_warnings_script():
    from pages._app import library_warnings

    changes = ["0.00064", "0.0007", "7.8e-05", "0.00089", "0.0003"]
    library_warnings.show_warnings(
        [
            "GroPLE: the feature embedding (Eq. 5) stopped at its iteration cap "
            f"(feature_max_iter=500) with the objective still changing by {change} relative "
            "per iteration (tol=1e-06): the fitted model is not at a minimiser."
            for change in changes
        ]
        + [f"PLST: label column {j} (always 0) is constant" for j in (3, 4)]
    )


def test_a_warning_repeated_with_other_measured_values_is_one_box_with_their_range():
    """One computation of many fits (the comparison with random groupings: 18 GroPLE fits on
    birds) raised the same iteration-cap warning with another relative change each time: one
    box and 17 more in an expander. It is one box now, saying how many it stands for and the
    range of what differs; warnings about different columns stay apart."""
    at = AppTest.from_function(_cap_warnings_script, default_timeout=TIMEOUT).run()
    shown = [w.value for w in at.warning]
    assert len(shown) == 3 and not at.expander, shown
    assert "still changing by 7.8e-05 to 0.00089 relative per iteration (tol=1e-06)" in shown[0]
    assert "the same warning 5 times" in shown[0]
    assert shown[1:] == [f"PLST: label column {j} (always 0) is constant" for j in (3, 4)]


def test_digest_is_computed_once_per_data_set():
    from pages._app import source

    ds = CORPUS["one_feature"]
    assert source.dataset_digest(ds) == ds.digest
    assert source._DIGESTS[ds] == ds.digest


# ------------------------------------------------------------------ single flight (issue 24)
def test_identical_concurrent_fits_are_computed_once_and_the_others_wait():
    """30 sessions asking for the same key at once: one computes, 29 wait and get its outcome;
    a different key is not held up by it (the lock is per key)."""
    import threading
    import time

    from pages._app.fitting import FitOutcome, _OutcomeStore

    store = _OutcomeStore(max_entries=8)
    calls: list[str] = []
    started = threading.Event()
    release = threading.Event()

    def slow() -> FitOutcome:
        calls.append("slow")
        started.set()
        assert release.wait(30), "the test never released the slow fit"
        return FitOutcome(value=object())

    results: list[FitOutcome] = []
    threads = [
        threading.Thread(target=lambda: results.append(store.get_or_compute(("k",), slow)))
        for _ in range(30)
    ]
    for t in threads:
        t.start()
    assert started.wait(30)
    # while the slow fit runs, another key computes at once (not serialised behind it)
    t0 = time.perf_counter()
    other = store.get_or_compute(("other",), lambda: FitOutcome(value="other"))
    assert other.value == "other" and time.perf_counter() - t0 < 5
    time.sleep(0.2)  # let every thread reach the key's lock
    assert len(results) == 0, "sessions must wait for the fit in flight, not return early"
    release.set()
    for t in threads:
        t.join(30)
    assert calls == ["slow"], f"computed {len(calls)} times"
    assert len(results) == 30 and len({id(r.value) for r in results}) == 1
    assert store.computing() == 0, "the per-key locks are removed once the fit is stored"


def test_a_failed_single_flight_fit_is_stored_once_and_a_bug_releases_the_lock():
    import threading

    from pages._app.fitting import FitOutcome, _OutcomeStore

    store = _OutcomeStore(max_entries=8)
    calls = []

    def failing() -> FitOutcome:
        calls.append(1)
        return FitOutcome(error="no")

    threads = [
        threading.Thread(target=store.get_or_compute, args=(("f",), failing)) for _ in range(5)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert len(calls) == 1 and store.get(("f",)).error == "no"

    def bug() -> FitOutcome:
        raise KeyError("a bug keeps its traceback")

    with pytest.raises(KeyError):
        store.get_or_compute(("b",), bug)
    assert store.computing() == 0
    assert store.get_or_compute(("b",), lambda: FitOutcome(value=1)).value == 1


def test_the_store_keeps_at_most_max_entries():
    from pages._app.fitting import MAX_STORED_OUTCOMES, FitOutcome, _OutcomeStore

    assert _OutcomeStore().max_entries == MAX_STORED_OUTCOMES
    store = _OutcomeStore(max_entries=3)
    for i in range(10):
        store.get_or_compute((i,), lambda i=i: FitOutcome(value=i))
    assert len(store) == 3 and store.get((9,)).value == 9 and store.get((0,)) is None


def _two_fits_one_warning_script():
    import streamlit as st

    from pages._app import library_warnings

    # two fits of one page raising the same warning (CLEMS at M and at M = L), one other
    library_warnings.show_warnings(["CLEMS kept the 1000 most frequent of 2856"])
    library_warnings.show_warnings(["CLEMS kept the 1000 most frequent of 2856", "other"])

    @st.fragment
    def part():
        library_warnings.show_warnings(["in a fragment"])
        st.button("rerun the fragment", key="again")

    part()


def test_a_warning_two_fits_raise_is_shown_once_per_run_and_again_next_run():
    at = AppTest.from_function(_two_fits_one_warning_script, default_timeout=TIMEOUT).run()
    first = [w.value for w in at.warning]
    assert first == ["CLEMS kept the 1000 most frequent of 2856", "other", "in a fragment"]
    at.run()  # a new run shows them again (not remembered across runs)
    assert [w.value for w in at.warning] == first
    at.button(key="again").click().run()  # a fragment's rerun shows its own warning again
    assert "in a fragment" in [w.value for w in at.warning]


def test_a_process_wide_ignore_does_not_empty_a_fits_warnings():
    """Fits are cached for every session: a warning an outer filter hid from the session that
    computed the fit would be hidden from all (pyproject's pytest filter for constant labels
    did that to the PLST page). A filter the fit itself sets still wins."""
    import warnings

    from pages._app import library_warnings

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*constant", category=UserWarning)
        filters = list(warnings.filters)
        with library_warnings.recording_warnings() as messages:
            warnings.warn("label 3 is constant", UserWarning, stacklevel=1)
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", message=".*inside", category=UserWarning)
                warnings.warn("inside the fit, ignored by the fit", UserWarning, stacklevel=1)
        assert warnings.filters == filters
    assert messages == ["label 3 is constant"]


def test_settings_in_words_give_an_array_setting_by_its_size():
    # "Showing the last settings that worked: …" names GroPLE's page groups (one per label)
    # by their number, not by a repr of 983 integers
    from pages._app.fitting import _describe

    described = _describe({"n_groups": 5, "groups": np.zeros(983, dtype=np.intp)})
    assert described == "n_groups = 5, groups = an array of 983 values"


# ---------------------------------------------------------------------------- alongside
def _alongside_script():
    import threading
    import time
    import warnings

    import streamlit as st
    from sklearn.base import BaseEstimator

    from pages._app import fitting

    class Recorder(BaseEstimator):
        """Records the thread it was fitted in and when; 'bad' fails, 'second' warns."""

        def __init__(self, role="main"):
            self.role = role

        def fit(self, X, Y):
            self.thread_ = threading.current_thread().name
            self.start_ = time.perf_counter()
            time.sleep(0.4)
            if self.role == "bad":
                raise ValueError("the bad baseline cannot be fitted")
            if self.role == "second":
                warnings.warn("the second fit warned", UserWarning, stacklevel=2)
            self.end_ = time.perf_counter()
            return self

    class Failing(Recorder):
        """Another class: a failed fit falls back to the last good fit of its own class."""

    def baselines(main):
        assert main.role == "main"  # given the estimator being fitted
        return [Recorder("second"), Failing("bad")]

    main = fitting.fit(Recorder("main"), label="Main", alongside=baselines)
    second = fitting.fit(Recorder("second"), label="Second")
    bad = fitting.fit(Failing("bad"), label="Bad")
    overlap = second.start_ < main.end_ and main.start_ < second.end_
    st.session_state.setdefault("fits", []).append((main, second))
    st.text(f"{main.thread_} | {second.thread_} | overlap {overlap} | bad {bad}")


def test_alongside_fits_start_in_a_worker_thread_and_the_pages_own_calls_read_them():
    import threading

    at = _app(CORPUS["two_labels"], _alongside_script, _current_page="plst").run()
    main_thread, second_thread, overlap, bad = _result(at).split(" | ")
    assert main_thread == threading.main_thread().name or not main_thread.startswith("mlviz")
    # the page's own fit call got the worker's model (fitted while the main one fitted)
    assert second_thread == "mlviz-fit-alongside"
    assert overlap == "overlap True"
    # its warning and the other worker's error are shown by the page's calls, as usual
    assert [w.value for w in at.warning] == ["the second fit warned"]
    assert [e.value for e in at.error] == ["Bad failed: the bad baseline cannot be fitted"]
    assert bad == "bad None"
    at.run()  # a rerun: every outcome is cached, nothing starts again
    (main, second), (main_again, second_again) = at.session_state["fits"]
    assert main_again is main and second_again is second
    assert not [t for t in threading.enumerate() if t.name.startswith("mlviz-fit")]


def _dataset_key_script():
    import numpy as np
    import streamlit as st

    from pages._app import fitting

    ds = st.session_state["dataset"]
    keys = (fitting.key_of(ds.Y), fitting.key_of([ds.X]), fitting.key_of(np.array(ds.Y))[0])
    st.text(repr(keys))


def test_the_loaded_data_sets_own_arrays_are_keyed_by_name_not_hashed():
    """Every key of the cache holds the data set's digest, so its X and Y themselves need no
    hash (a figure of ``ds.Y`` hashed 16 MB on every rerun at delicious's shape); a copy is
    keyed by its content, and so is any array outside a script run."""
    from pages._app import fitting

    ds = CORPUS["two_labels"]
    at = _app(ds, _dataset_key_script).run()
    assert _result(at) == repr(
        (("loaded data set", "Y"), ("list", (("loaded data set", "X"),)), "ndarray")
    )
    assert fitting.key_of(ds.Y)[0] == "ndarray"


def test_an_evicted_result_and_its_parts_are_no_longer_found_by_identity():
    """Only what the store still holds is keyed by its computation: once evicted, a table
    (or a part of a tuple) is keyed by its content again, and a part that another entry also
    holds keeps that entry's key."""
    from pages._app import fitting

    store = fitting._OutcomeStore(max_entries=2)
    shared, first_only = np.arange(3.0), np.ones(2)
    store.put(("first",), fitting.FitOutcome(value=(first_only, shared)))
    store.put(("second",), fitting.FitOutcome(value=(shared,)))
    assert store.origin(first_only) == ("first", ("part", 0))
    assert store.origin(shared) == ("second", ("part", 0))
    store.put(("third",), fitting.FitOutcome(value="something else"))  # evicts "first"
    assert store.origin(first_only) is None
    assert store.origin(shared) == ("second", ("part", 0))
    assert store.origin(np.arange(3.0)) is None  # equal but not the object held


def test_small_results_never_push_a_fitted_model_out_of_the_store():
    """What one test instance shows is kept apart (``compute(..., small=True)``): stepping
    through many instances evicts older instances, never the fits the pages need."""
    from pages._app import fitting

    store = fitting._OutcomeStore(max_entries=2, max_small_entries=3)
    models = [object(), object()]
    for i, model in enumerate(models):
        store.put(("function", "fit", i), fitting.FitOutcome(value=model))
    views = [np.full(2, i) for i in range(10)]
    for i, view in enumerate(views):
        store.put((fitting.SMALL_RESULT, "instance", i), fitting.FitOutcome(value=view))
    assert [store.origin(m) for m in models] == [("function", "fit", 0), ("function", "fit", 1)]
    assert [store.origin(v) is not None for v in views] == [False] * 7 + [True] * 3
    store.get((fitting.SMALL_RESULT, "instance", 7))  # used again: now the most recent
    store.put((fitting.SMALL_RESULT, "instance", 10), fitting.FitOutcome(value=np.ones(1)))
    assert store.origin(views[7]) is not None and store.origin(views[8]) is None
    store.put(("function", "fit", 2), fitting.FitOutcome(value=object()))  # a third fit
    assert store.origin(models[0]) is None and store.origin(models[1]) is not None
    assert len(store) == 2 + 3


def test_of_dataset_computes_once_per_data_set_object_and_shares_read_only_arrays():
    """The planted groups and the label frequencies the sidebar and pages show on every rerun
    are computed once per data set (a rerun read the planted groups' CSV every time)."""
    from mlviz.datasets import load_source
    from pages._app import source

    calls = []

    def frequencies(ds):
        calls.append(ds.name)
        return np.asarray(ds.Y).mean(axis=0)

    planted, cube = load_source("sample:planted"), load_source("sample:cube")
    first = source.of_dataset(planted, frequencies)
    assert source.of_dataset(planted, frequencies) is first
    assert calls == ["planted"]
    assert not first.flags.writeable  # shared by every session holding the data set
    source.of_dataset(cube, frequencies)
    assert calls == ["planted", "cube"]
    groups = source.known_groups(planted)
    assert groups is source.known_groups(planted) and groups.tolist()[:2] == [0, 0]
    assert source.known_groups(cube) is None

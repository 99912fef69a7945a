"""pages/_shared.py: fit() (cache, errors, warnings, stale results, button) and the router.

Scripts run through ``AppTest.from_function``; the data sets are the degenerate corpus's small
members, put in the session as the picker would.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from degenerate import degenerate_corpus
from streamlit.testing.v1 import AppTest

REPO = Path(__file__).resolve().parents[1]
TIMEOUT = 120
CORPUS = degenerate_corpus()


def _fit_script():
    import warnings

    import streamlit as st

    from pages import _shared as shared

    calls = st.session_state.setdefault("calls", [])

    def fn(params):
        calls.append(params["M"])
        ds = st.session_state["dataset"]
        if ds.name == "broken":
            raise ValueError("the model cannot be fitted on broken")
        warnings.warn(
            f"label column(s) 0 are constant (M = {params['M']})", UserWarning, stacklevel=2
        )
        return f"model of {ds.name} with M = {params['M']}"

    result = shared.fit(
        "model",
        {"M": st.session_state.get("M", 1)},
        fn,
        label="The model",
        on=st.session_state.get("on", "change"),
    )
    st.text(f"result: {result}")


def _app(dataset, **state) -> AppTest:
    at = AppTest.from_function(_fit_script, default_timeout=TIMEOUT)
    at.session_state["dataset"] = dataset
    for key, value in state.items():
        at.session_state[key] = value
    return at


def _result(at: AppTest) -> str:
    return at.text[-1].value


def _renamed(name: str, dataset):
    from mlviz.io import Dataset

    return Dataset(name, dataset.X, dataset.Y, dataset.feature_names, dataset.label_names)


def test_fit_is_cached_and_its_warnings_show_on_every_rerun():
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
    assert [e.value for e in at.error] == ["The model failed: the model cannot be fitted on broken"]
    assert _result(at) == "result: None"


def test_failed_fit_falls_back_to_the_last_good_settings_of_the_same_data():
    at = _app(CORPUS["two_labels"], M=1).run()
    assert _result(at).endswith("M = 1")
    # a data set object with the same content (same digest) whose fits now fail at M = 2
    at.session_state["dataset"] = _renamed("broken", CORPUS["two_labels"])
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


def test_warnings_of_other_threads_are_not_collected():
    import threading
    import warnings

    from pages import _shared as shared

    def other_session():  # another session's script thread, not collecting
        warnings.warn("another session's warning", UserWarning, stacklevel=1)

    # pytest.warns receives what the hook passes on: the other thread's warning
    with pytest.warns(UserWarning, match="another session"):
        with shared.recording_warnings() as messages:
            thread = threading.Thread(target=other_session)
            thread.start()
            thread.join()
            warnings.warn("this page's warning", UserWarning, stacklevel=1)
    assert messages == ["this page's warning"]


def test_show_warnings_deduplicates():
    def script():
        from pages import _shared as shared

        shared.show_warnings(["a", "b", "a"])

    at = AppTest.from_function(script, default_timeout=TIMEOUT).run()
    assert [w.value for w in at.warning] == ["a", "b"]


def test_digest_is_computed_once_per_data_set():
    from pages import _shared as shared

    ds = CORPUS["one_feature"]
    assert shared.dataset_digest(ds) == ds.digest
    assert shared._DIGESTS[ds] == ds.digest

"""App tests (streamlit.testing.v1.AppTest): the router, every page, the data-set picker.

AppTest starts every run of ``app.py`` in Streamlit's legacy ``pages/`` mode (it resets the
process-wide flag before each run), so every rerun exercises the path a deep link takes on a
fresh server: the page calls the public ``st.navigation`` and reruns through the router
(pages/_app/router.py). The router's reruns, page switches and the upload path are tested here on
``app.py`` itself; each page is also run as its own script with the session state the router
would have set (every slider moved to both ends), and the picker through ``from_function``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import mulan_path, shared_component_registry, shared_script_cache
from streamlit.testing.v1 import AppTest

from mlviz import datasets

REPO = Path(__file__).resolve().parents[1]
PAGES = sorted(p.name for p in (REPO / "pages").glob("*.py") if not p.name.startswith("_"))
TIMEOUT = 180


def errors_of(at: AppTest) -> list[str]:
    return [e.value for e in at.error]


def assert_clean(at: AppTest, where: str) -> None:
    assert not at.exception, f"{where}: exception shown: {[e.message for e in at.exception]}"
    assert not errors_of(at), f"{where}: st.error shown: {errors_of(at)}"


def page_app(page: str, source_key: str) -> AppTest:
    """A page run on its own, with the data set the router would have put in the session."""
    if source_key.startswith("mulan:"):
        mulan_path(source_key.split(":")[1] + ".arff")
    at = AppTest.from_file(str(REPO / "pages" / page), default_timeout=TIMEOUT)
    at.session_state["dataset"] = datasets.load_source(source_key)
    at.session_state["dataset_label"] = source_key
    return at.run()


def move_every_slider(at: AppTest, where: str) -> None:
    """Move every slider to its minimum, fit, then every slider to its maximum, fit.

    Each move is a rerun that must not raise; pages that fit behind a button (key ending in
    ``_fit``) are fitted once all sliders sit at an end, so the extreme settings are fitted
    together (d > L, K > L, lambda = 0, ...).
    """
    for end in (0, -1):
        for slider in [s for s in at.slider if not s.disabled]:
            value = (slider.min, slider.max)[end]
            if isinstance(slider.value, tuple):
                value = (value, value)
            at.slider(key=slider.key).set_value(value).run()
            assert not at.exception, (
                f"{where}: {slider.label!r} = {value}: {[e.message for e in at.exception]}"
            )
        for select in [s for s in at.select_slider if not s.disabled]:
            value = type(select.value)(select.options[end])
            at.select_slider(key=select.key).set_value(value).run()
            assert not at.exception, (
                f"{where}: {select.label!r} = {value}: {[e.message for e in at.exception]}"
            )
        for key in [b.key for b in at.button if b.key and b.key.endswith("_fit")]:
            # a press can end the page early (a fit that predicts nothing says so and stops):
            # the buttons below it are gone, and are pressed at the other end instead
            if key not in {b.key for b in at.button}:
                continue
            button = at.button(key=key)
            button.click().run()
            assert not at.exception, (
                f"{where}: {button.label!r} at the {'min' if end == 0 else 'max'} settings: "
                f"{[e.message for e in at.exception]}"
            )


# ----------------------------------------------------------------------------- router
def test_router_opens_on_the_embedded_sample():
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=TIMEOUT).run()
    assert_clean(at, "start")
    dataset = at.session_state["dataset"]
    assert dataset.name == "planted"
    assert at.title[0].value == "Data: planted"
    assert at.metric[2].value == str(dataset.n_labels)


def test_apptests_share_one_component_registry():
    """The suite's AppTests share one scan of installed components (tests/conftest.py):
    every AppTest runs with it, and it holds what a fresh scan finds (a Streamlit upgrade
    that renames the attribute or scans differently fails here, not silently)."""
    from streamlit.components.v2.component_manager import BidiComponentManager

    first = AppTest.from_string("import streamlit as st\nst.write('one')").run()
    second = AppTest.from_string("import streamlit as st\nst.write('two')").run()
    assert not first.exception and not second.exception
    shared = shared_component_registry()
    assert first._bidi_component_manager is shared
    assert second._bidi_component_manager is shared
    fresh = BidiComponentManager()
    fresh.discover_and_register_components(start_file_watching=False)
    assert sorted(shared._registry._components) == sorted(fresh._registry._components)


def test_apptests_compile_each_script_once(tmp_path):
    """The suite's AppTests share one cache of compiled scripts (tests/conftest.py), as a
    server does; a script rewritten on disk is compiled again, not served stale."""
    script = tmp_path / "probe.py"
    script.write_text("import streamlit as st\nst.write('one')\n")
    first = AppTest.from_file(str(script)).run()
    scripts = shared_script_cache()
    compiled = scripts._cache[str(script)]
    again = AppTest.from_file(str(script)).run()
    assert [m.value for m in first.markdown] == [m.value for m in again.markdown] == ["one"]
    assert scripts._cache[str(script)] is compiled
    script.write_text("import streamlit as st\nst.write('two, rewritten')\n")
    rewritten = AppTest.from_file(str(script)).run()
    assert [m.value for m in rewritten.markdown] == ["two, rewritten"]
    assert scripts._cache[str(script)] is not compiled


def test_an_apptest_run_past_its_timeout_still_fails():
    # tests/conftest.py waits for a run by joining its thread: a run longer than the timeout
    # must still fail with Streamlit's message, and a short one must still return its elements
    slow = AppTest.from_string("import time\ntime.sleep(1.5)\n", default_timeout=0.3)
    with pytest.raises(RuntimeError, match="timed out after 0.3"):
        slow.run()
    quick = AppTest.from_string("import streamlit as st\nst.write('done')\n").run()
    assert [m.value for m in quick.markdown] == ["done"]


def test_router_opens_on_a_mulan_set():
    mulan_path("emotions.arff")
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=TIMEOUT)
    at.session_state["source_choice"] = "mulan:emotions"
    at.run()
    assert_clean(at, "emotions")
    assert at.session_state["dataset"].name == "emotions"
    assert at.metric[0].value == "593"


def test_router_reruns_switch_pages_and_keep_the_sidebar():
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=TIMEOUT).run()
    at.selectbox(key="source_choice").set_value("sample:cube").run()
    assert_clean(at, "after choosing cube")
    assert at.title[0].value == "Data: cube"
    at.switch_page("pages/mlknn.py").run()
    assert_clean(at, "ML-KNN through the router")
    assert at.title[0].value == "ML-KNN"
    assert at.session_state["dataset"].name == "cube", "a page switch must keep the data set"
    at.slider(key="mlknn_k").set_value(3).run()
    assert_clean(at, "ML-KNN after moving k")
    assert at.slider(key="mlknn_k").value == 3
    pickers = [s.key for s in at.sidebar.selectbox if s.key != "feature_scaling"]
    assert pickers == ["source_choice"], "one sidebar data-set picker"


def test_mlknn_shows_coverage_as_a_count_and_the_rates_with_four_decimals():
    """Coverage counts labels (paper 003 prints "6.291"): three decimals, not "859.4200"."""
    import re

    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=TIMEOUT).run()
    at.switch_page("pages/mlknn.py").run()
    assert_clean(at, "ML-KNN")
    shown = {m.label: m.value for m in at.main.metric}
    assert re.fullmatch(r"\d[\d,]*\.\d{3}", shown["Coverage ↓"]), shown
    rates = [value for label, value in shown.items() if label != "Coverage ↓"][:4]
    assert len(rates) == 4 and all(re.fullmatch(r"[01]\.\d{4}", v) for v in rates), shown


def test_upload_through_the_router():
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=TIMEOUT).run()
    csv = b"f1,f2,l1,l2\n0.1,1.0,1,0\n0.3,0.2,0,1\n0.5,0.4,1,1\n0.7,0.9,0,0\n"
    at.text_input(key="upload_labels").input("l1, l2")
    at.file_uploader(key="upload_file").upload("tiny.csv", csv, "text/csv")
    at.run()
    assert_clean(at, "upload")
    assert at.title[0].value == "Data: tiny"
    at.switch_page("pages/hypercube.py").run()
    assert_clean(at, "hypercube on the upload")
    assert at.session_state["dataset"].name == "tiny"


def test_a_page_run_alone_ends_streamlits_legacy_pages_mode():
    """The router relies on this: the public st.navigation turns the pages/ folder mode off.

    If a Streamlit release stops doing that, a deep link on a fresh server would show the
    legacy navigation (every file in pages/) and this test fails. It reads the flag Streamlit
    keeps for it, only here, to say precisely what changed.
    """
    from streamlit.runtime.pages_manager import PagesManager

    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=TIMEOUT).run()
    at.switch_page("pages/plst.py").run()
    assert_clean(at, "plst")
    assert PagesManager.uses_pages_directory is False


def _router_urls_script():
    import streamlit as st

    from pages._app import router

    st.session_state["urls"] = [page.url_path for page in router.navigation_pages()]


def test_every_router_url_is_a_page_of_the_legacy_navigation():
    """Why no first visitor on a fresh server sees "Page not found" (issue 29, item 4).

    A session whose first run starts before the process's first ``st.navigation`` is resolved
    by Streamlit's legacy navigation: ``app.py`` ("") and every ``pages/*.py`` under the name
    Streamlit infers from its file. A URL of the router that is not such a name (an explicit
    ``url_path``, a page file outside ``pages/``) gets the dialog in exactly those sessions:
    the first visitors, a race (measured: ``url_path="linear"`` for PLST, 12 of 24 tabs on 3
    fresh servers; see pages/_app/router.py).
    """
    from streamlit.source_util import page_icon_and_name

    from pages._app import router

    legacy = {""} | {page_icon_and_name(path)[1] for path in (REPO / "pages").glob("*.py")}
    at = AppTest.from_function(_router_urls_script, default_timeout=TIMEOUT).run()
    assert not at.exception
    urls = at.session_state["urls"]
    assert len(urls) == len(router.PAGES) and set(urls) <= legacy, (urls, sorted(legacy))


@pytest.mark.filterwarnings("always:.*constant in the training labels")
def test_a_page_shows_the_library_warnings_of_its_fit():
    from degenerate import degenerate_corpus

    at = AppTest.from_file(str(REPO / "pages" / "plst.py"), default_timeout=TIMEOUT)
    at.session_state["dataset"] = degenerate_corpus()["label_never_on"]
    at.session_state["dataset_label"] = "label_never_on"
    at.run()
    assert_clean(at, "PLST on a label that is never on")
    shown = [w.value for w in at.warning]
    assert any("constant in the training labels" in w for w in shown), shown
    at.run()  # from the cache: the warning is stored with the fit
    assert any("constant in the training labels" in w.value for w in at.warning)


# ------------------------------------------------------------------------------ pages
@pytest.mark.parametrize("page", PAGES)
def test_every_page_on_the_sample_with_sliders_at_both_ends(page):
    at = page_app(page, "sample:planted")
    assert_clean(at, page)
    move_every_slider(at, page)
    # options that reveal more sliders (e.g. colouring by cluster shows the K slider)
    for radio in list(at.radio):
        for option in radio.options[1:]:
            at.radio(key=radio.key).set_value(option).run()
            assert not at.exception, f"{page}: {radio.label} = {option}"
            move_every_slider(at, f"{page} with {radio.label} = {option}")


@pytest.mark.parametrize("source", ["sample:cube", "mulan:emotions", "mulan:medical"])
@pytest.mark.parametrize("page", PAGES)
def test_every_page_on_other_data(page, source):
    at = page_app(page, source)
    assert_clean(at, f"{page} on {source}")


@pytest.mark.parametrize("page", PAGES)
def test_a_page_opened_without_the_router_loads_the_default_data(page):
    # what a deep link on a freshly started server does (legacy pages/ folder handling)
    at = AppTest.from_file(str(REPO / "pages" / page), default_timeout=TIMEOUT).run()
    assert_clean(at, f"{page} without the router")
    assert at.session_state["dataset"].name == "planted"


# ----------------------------------------------------------------------------- picker
def _picker_script():
    import streamlit as st

    from pages._app import source

    source.dataset_picker()
    st.write(st.session_state["dataset"].name)


def test_malformed_upload_shows_error_and_keeps_data():
    at = AppTest.from_function(_picker_script, default_timeout=TIMEOUT).run()
    before = at.session_state["dataset"]
    at.file_uploader(key="upload_file").upload(
        "broken.arff", b"@relation broken\n@attribute a numeric\n@data\n1,2,3\n"
    )
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert errors_of(at), "a malformed upload must show st.error"
    assert "broken\\.arff" in errors_of(at)[0]  # the file name is user text: escaped markdown
    assert at.session_state["dataset"].digest == before.digest


def test_valid_csv_upload_replaces_the_data_set():
    at = AppTest.from_function(_picker_script, default_timeout=TIMEOUT).run()
    csv = b"f1,f2,l1,l2\n0.1,1.0,1,0\n0.3,0.2,0,1\n0.5,0.4,1,1\n0.7,0.9,0,0\n"
    at.text_input(key="upload_labels").input("l1, l2")
    at.file_uploader(key="upload_file").upload("tiny.csv", csv, "text/csv")
    at.run()
    assert not at.exception
    assert not errors_of(at)
    ds = at.session_state["dataset"]
    assert (ds.name, ds.n_samples, ds.n_labels) == ("tiny", 4, 2)


def test_switching_source_loads_it():
    at = AppTest.from_function(_picker_script, default_timeout=TIMEOUT).run()
    at.selectbox(key="source_choice").set_value("sample:cube").run()
    assert not at.exception
    assert at.session_state["dataset"].name == "cube"


def _picker_and_split_script():
    import streamlit as st

    from pages._app import experiment, source

    source.dataset_picker()
    experiment.experiment_settings()
    split = experiment.current_split()
    st.write(f"split {len(split.train_index)} {len(split.test_index)}")


def _split_sizes(at: AppTest) -> tuple[int, int]:
    shown = [m.value for m in at.markdown if m.value.startswith("split ")]
    assert len(shown) == 1, shown
    train, test = shown[0].split()[1:]
    return int(train), int(test)


def test_picker_lists_each_data_set_once_samples_first_with_shapes():
    mulan_path("yeast.arff")
    at = AppTest.from_function(_picker_and_split_script, default_timeout=TIMEOUT).run()
    assert_clean(at, "picker")
    picker = at.selectbox(key="source_choice")
    keys = [s.key for s in datasets.list_sources()]
    assert len(picker.options) == len(keys) == len(set(keys))
    sample_keys = [k for k in keys if k.startswith("sample:")]
    samples = picker.options[: len(sample_keys)]
    assert samples[0].startswith("planted · 22 labels")
    assert all(len(o) <= 40 for o in picker.options)  # the sidebar's box shows ~30 characters
    folder = [o.split(" · ")[0] for o in picker.options[len(samples) :]]
    assert folder == sorted(folder)
    assert {"yeast", "scene", "emotions", "genbase"} <= set(folder)
    assert not [name for name in folder if name.endswith(("-train", "-test", "-meka"))]
    assert "yeast · 14 labels · 2,417×103" in picker.options


def test_own_split_is_offered_and_the_default_for_yeast_but_not_for_samples():
    mulan_path("yeast-train.arff")
    at = AppTest.from_function(_picker_and_split_script, default_timeout=TIMEOUT).run()
    assert not [r for r in at.radio if r.key == "split_mode"], "a sample has no own split"
    assert sum(_split_sizes(at)) == 600
    at.selectbox(key="source_choice").set_value("mulan:yeast").run()
    assert_clean(at, "yeast")
    split_mode = at.radio(key="split_mode")
    assert split_mode.value == "official"  # the papers' split is the default
    assert split_mode.options == [
        "the data set's own train/test split",
        "random split (test fraction, seed)",
    ]
    assert _split_sizes(at) == (1500, 917)
    at.radio(key="split_mode").set_value("random").run()
    assert_clean(at, "yeast, random split")
    train, test = _split_sizes(at)
    assert train + test == 2417 and train != 1500
    at.slider(key="test_size").set_value(0.5).run()
    assert _split_sizes(at)[1] == 1209
    at.radio(key="split_mode").set_value("official").run()
    assert_clean(at, "yeast, own split again")
    assert _split_sizes(at) == (1500, 917)
    assert at.session_state["dataset"].n_samples == 2417
    # back to a sample: no own split, the random split of the sample
    at.selectbox(key="source_choice").set_value("sample:cube").run()
    assert not [r for r in at.radio if r.key == "split_mode"]
    assert sum(_split_sizes(at)) == 200


def test_missing_feature_values_in_an_upload_are_imputed_on_the_training_rows_only():
    at = AppTest.from_function(_picker_and_split_script, default_timeout=TIMEOUT).run()
    rows = "\n".join(f"{i},{'' if i == 3 else i * 10},{i % 2}" for i in range(10))
    at.text_input(key="upload_labels").input("1")
    at.file_uploader(key="upload_file").upload("gaps.csv", f"a,b,l\n{rows}\n".encode(), "text/csv")
    at.run()
    assert_clean(at, "upload with a gap")
    assert any("1 missing feature values" in c.value for c in at.caption)
    from pages._app import experiment, source

    ds = at.session_state["dataset"]
    split = experiment._split(ds.digest, (source.SPLIT_RANDOM, 0.3, 0, "none"), ds)
    train_b = ds.X[split.train_index, 1]
    filled = np.nanmean(train_b)  # the mean of the training rows only
    where = np.flatnonzero(np.isnan(ds.X[:, 1]))[0]
    part, row = (
        (split.X_train, list(split.train_index).index(where))
        if where in split.train_index
        else (split.X_test, list(split.test_index).index(where))
    )
    assert part[row, 1] == filled
    assert not np.isnan(split.X_train).any() and not np.isnan(split.X_test).any()
    # unit rows: imputed first, then every instance scaled to length 1 (train and test)
    scaled = experiment._split(ds.digest, (source.SPLIT_RANDOM, 0.3, 0, "unit_rows"), ds)
    for part in (scaled.X_train, scaled.X_test):
        norms = np.linalg.norm(part, axis=1)
        np.testing.assert_allclose(norms[norms > 0], 1.0)


@pytest.mark.parametrize(
    "name, payload",
    [
        (
            "nolabels.arff",
            b"@relation r\n@attribute f1 numeric\n@attribute f2 numeric\n"
            b"@attribute l1 {0,1}\n@attribute l2 {0,1}\n@data\n"
            b"0.1,1.0,1,0\n0.3,0.2,0,1\n0.5,0.4,1,1\n0.7,0.9,0,0\n",
        ),
        ("nolabels.csv", b"f1,f2,l1,l2\n0.1,1.0,1,0\n0.3,0.2,0,1\n0.5,0.4,1,1\n0.7,0.9,0,0\n"),
    ],
)
def test_an_upload_without_its_labels_asks_for_them_at_the_top_of_the_page(name, payload):
    """Issue 31: an ARFF without its XML (or a CSV without its label columns) changed nothing
    on screen: the error sat ~1,100 px down the sidebar, in API terms. Now it is the first
    thing of the main area, in words, with the missing fact as a number input right there."""
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=TIMEOUT).run()
    at.file_uploader(key="upload_file").upload(name, payload, "text/plain")
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    main_errors = [e.value for e in at.main.error]
    assert main_errors and "which columns are the labels?" in main_errors[0]
    assert "Pass xml=" not in main_errors[0] and "Still showing" in main_errors[0]
    assert at.sidebar.error, "and in the sidebar, by the uploader"
    at.number_input(key="upload_label_count").set_value(2).run()
    assert not at.exception, [e.message for e in at.exception]
    assert not at.main.error, [e.value for e in at.main.error]
    ds = at.session_state["dataset"]
    assert (ds.n_labels, ds.label_names) == (2, ("l1", "l2"))
    assert at.text_input(key="upload_labels").value == "2"

"""Shared fixtures: the real MULAN data folder (skip with a reason when absent)."""

from __future__ import annotations

import functools
import os
from pathlib import Path

import pytest
from threadpoolctl import threadpool_limits

from mlviz.datasets import DATA_DIR_ENV, default_data_dir

# The server's native threads, chosen on import (pages/_app/server.py), before anything loads
# scikit-learn: one BLAS and one OpenMP thread per call. The suite runs two processes on two
# cores, and each AppTest runs its script in a new thread, which takes OpenMP's process default
# (two threads that spin while the other process works: the Label clusters sweep on 1,820
# labels took twice as long). tests/test_app_server.py checks a new thread of this process.
from pages._app import server  # noqa: F401

REPO = Path(__file__).resolve().parents[1]
# No background UMAP compilation in app tests (a minute of CPU per test process); the tests of
# the warm-up itself turn it on where they need it. Servers started by tests inherit this.
os.environ.setdefault("MLVIZ_UMAP_WARM_UP", "0")
# Servers started by tests (`python serve.py`, tests/_browser.py) open no page before serving:
# opening all nine is ~10 s of CPU per server; tests/test_serve.py checks that preparation.
os.environ.setdefault("MLVIZ_PREPARE", "0")
# The one resolver the app and `python -m mlviz reproduce` use: $MLVIZ_DATA_DIR, else
# ../shared/data/mulan next to the repository (shown in skip reasons when absent).
MULAN_DIR = default_data_dir() or REPO.parent / "shared" / "data" / "mulan"


def mulan_path(name: str) -> Path:
    """Path of a file in the MULAN folder, skipping the test when it is not there."""
    path = MULAN_DIR / name
    if not path.exists():
        pytest.skip(
            f"real MULAN data not found at {path} (expected ../shared/data/mulan next to the "
            f"repository, or set {DATA_DIR_ENV})"
        )
    return path


@pytest.fixture(scope="session")
def mulan_dir() -> Path:
    if not MULAN_DIR.is_dir():
        pytest.skip(f"real MULAN data folder not found at {MULAN_DIR}")
    return MULAN_DIR


@pytest.fixture(autouse=True, scope="session")
def _single_threaded_blas():
    """One BLAS thread per test process: the suite runs two processes on two cores, and
    oversubscribed BLAS makes small solves 20-300x slower."""
    with threadpool_limits(1):
        yield


@pytest.fixture(autouse=True, scope="session")
def _one_component_scan():
    """Every AppTest of a test process shares one registry of Streamlit's v2 components.

    ``AppTest.run`` scans the metadata of every installed distribution for component manifests
    the first time each AppTest runs: 0.3-0.7 s of CPU per AppTest, paid again by each of the
    suite's AppTests. A server scans once at start-up; this gives the tests the same, and
    ``tests/test_app.py::test_apptests_share_one_component_registry`` checks that the shared
    registry is what a fresh scan finds.
    """
    from streamlit.testing.v1 import AppTest

    shared = shared_component_registry()
    original = AppTest.__init__

    def __init__(self, *args, **kwargs):
        original(self, *args, **kwargs)
        # Streamlit's own attribute: a new AppTest scans when it is None (app_test.py).
        self._bidi_component_manager = shared

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(AppTest, "__init__", __init__)
        yield


@pytest.fixture(autouse=True, scope="session")
def _one_compilation_per_script():
    """Every AppTest of a test process shares one cache of compiled scripts.

    ``AppTest.run`` makes a new ``ScriptCache`` on every run (app_test.py, and
    local_script_runner.py for its runner), so the router and the page were parsed and
    compiled again on every run of every test: 1-28 ms of CPU per run (the Label clusters
    page 28 ms), about a fifth of a rerun of the nine pages on the sample (py-spy). A server
    keeps one cache for its lifetime. ``tests/test_app.py::test_apptests_compile_each_script_once``
    checks the sharing and that a script rewritten on disk is compiled again.
    """
    from streamlit.testing.v1 import app_test, local_script_runner

    scripts = shared_script_cache()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(app_test, "ScriptCache", lambda: scripts)
        patch.setattr(local_script_runner, "ScriptCache", lambda: scripts)
        yield


@pytest.fixture(autouse=True, scope="session")
def _wait_for_runs_without_polling():
    """``AppTest.run`` waits for the script thread by joining it, not by polling.

    Streamlit's ``require_widgets_deltas`` checks every millisecond whether the run has ended:
    the test's main thread woke a thousand times a second, took the interpreter lock from the
    script thread each time, and was busy in 11 % of the samples of an AppTest file (py-spy).
    The script thread returns right after its SHUTDOWN event (local_script_runner.py), so
    joining it waits for the same moment; a run past ``timeout`` fails as before
    (``tests/test_app.py::test_an_apptest_run_past_its_timeout_still_fails``).
    """
    from streamlit.testing.v1 import local_script_runner

    original = local_script_runner.require_widgets_deltas

    def require_widgets_deltas(runner, timeout: float = 3) -> None:
        thread = runner._script_thread
        if thread is None:  # not started: Streamlit's own wait
            return original(runner, timeout)
        thread.join(timeout)
        if runner.script_stopped():
            return None
        runner.request_stop()
        runner.join()
        raise RuntimeError(f"AppTest script run timed out after {timeout}(s)")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(local_script_runner, "require_widgets_deltas", require_widgets_deltas)
        yield


@functools.cache
def shared_script_cache():
    """The process's one cache of compiled scripts (see ``_one_compilation_per_script``)."""
    from streamlit.runtime.scriptrunner.script_cache import ScriptCache

    class CompiledScripts(ScriptCache):
        """A ``ScriptCache`` that compiles a script again when its file changed (a server
        would restart; a test may write the same path twice)."""

        def __init__(self) -> None:
            super().__init__()
            self.stamps: dict[str, tuple[int, int]] = {}

        def get_bytecode(self, script_path: str):
            path = os.path.abspath(script_path)
            status = os.stat(path)
            stamp = (status.st_mtime_ns, status.st_size)
            with self._lock:
                if self.stamps.get(path) != stamp:
                    self._cache.pop(path, None)
                    self.stamps[path] = stamp
            return super().get_bytecode(path)

    return CompiledScripts()


@functools.cache
def shared_component_registry():
    """The process's one scan of installed v2 components (see ``_one_component_scan``)."""
    from streamlit.components.v2.component_manager import BidiComponentManager

    registry = BidiComponentManager()
    registry.discover_and_register_components(start_file_watching=False)
    return registry


def press_fit_buttons(at) -> None:
    """Press every fit button of an AppTest's page (keys ending in ``_fit``), in order, each
    followed by its run.

    For tests that read what the fits draw, not how it depends on the settings: the
    comparison with random groupings is set to its fewest groupings first (5: 18 cross-
    validated fits instead of the default's 63, 16 s on a 159-label set). It draws the same
    elements, and its sentence one more (that so few give a coarse share).
    """
    for select in at.select_slider:
        if select.key and select.key.endswith("_n_random") and not select.disabled:
            fewest = type(select.value)(select.options[0])
            if select.value != fewest:
                at.select_slider(key=select.key).set_value(fewest).run()
    for button in [b for b in at.button if b.key and b.key.endswith("_fit")]:
        at.button(key=button.key).click().run()


#: pytest-timeout's limit (s) for the long tests: the paper reproductions (``slow``) and the
#: real-browser tests (``browser``); every other test has ``timeout`` in pyproject.toml.
LONG_TEST_TIMEOUT = 1200


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.get_closest_marker("timeout") is None and (
            item.get_closest_marker("slow") or item.get_closest_marker("browser")
        ):
            item.add_marker(pytest.mark.timeout(LONG_TEST_TIMEOUT))
    items[:] = longest_files_first(items)


def longest_files_first(items: list) -> list:
    """``items`` with the files of real-browser tests first, then those of ``slow`` tests, then
    the rest; each file's tests together and in their order, files in their order otherwise.

    The suite runs one file per worker at a time (``--dist loadfile``) in this order
    (``--no-loadscope-reorder``; xdist's own order puts the files with the most tests first,
    which left the browser files, few tests of one to two minutes each, for the end, where
    one worker ran them while the other had nothing left).
    """

    def tier(item) -> int:
        if item.get_closest_marker("browser"):
            return 0
        return 1 if item.get_closest_marker("slow") else 2

    file_tier: dict[str, int] = {}
    for item in items:
        path = str(item.path)
        file_tier[path] = min(file_tier.get(path, 2), tier(item))
    first_seen = {path: i for i, path in enumerate(dict.fromkeys(str(i.path) for i in items))}
    return sorted(items, key=lambda item: (file_tier[str(item.path)], first_seen[str(item.path)]))


# -- the real-browser tests (tests/test_browser*.py) ------------------------------------------
@pytest.fixture(scope="module")
def server_url():
    """The app served headless for one test module (a module may define its own)."""
    from tests import _browser

    with _browser.served() as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    """Debian's chromium through Playwright, for one test module."""
    from tests import _browser

    with _browser.chromium() as launched:
        yield launched

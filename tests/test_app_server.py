"""pages/_app/server.py: the server process's native threads and NumPy's huge pages, chosen once at
start-up."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from threadpoolctl import threadpool_info

from pages._app import server

REPO = Path(__file__).resolve().parents[1]

# Each stage is read in a new thread, as Streamlit runs every script run in one: OpenMP's thread
# count is a setting of each thread, which a new thread copies from the process's default.
_PROBE = """
import json, threading
from threadpoolctl import threadpool_info
import numpy
def threads():
    seen = []
    def read():
        seen.extend({(lib["user_api"], lib["num_threads"]) for lib in threadpool_info()})
    reader = threading.Thread(target=read)
    reader.start()
    reader.join()
    return sorted(seen)
before = threads()
from pages._app import router  # what app.py imports first
import sklearn.cluster  # loads scikit-learn's OpenMP runtime
after = threads()
import serve
serve.preload()  # every import of every page
print(json.dumps({"before": before, "after": after, "pages": threads()}))
"""


def _python(code: str, **env: str) -> subprocess.CompletedProcess:
    """``code`` in a fresh interpreter at the repository, warnings shown, with ``env`` over this
    process's environment less OMP_NUM_THREADS (which tests/conftest.py sets here) and
    NUMPY_MADVISE_HUGEPAGE."""
    environ = {**os.environ, "PYTHONPATH": str(REPO), "MLVIZ_UMAP_WARM_UP": "0"}
    environ.pop("OMP_NUM_THREADS", None)
    environ.pop(server.HUGE_PAGES_ENV, None)
    return subprocess.run(
        [sys.executable, "-W", "always", "-c", code],
        capture_output=True,
        text=True,
        env={**environ, **env},
        cwd=REPO,
        timeout=120,
        check=True,
    )


def _probe(**env: str) -> dict[str, set[tuple[str, int]]]:
    seen = json.loads(_python(_PROBE, **env).stdout.strip().splitlines()[-1])
    return {stage: {tuple(pair) for pair in pairs} for stage, pairs in seen.items()}


def test_the_server_runs_one_blas_and_one_openmp_thread_per_call_in_every_new_thread():
    # a process told to use two BLAS threads (OpenBLAS's default on a 2-core server) and no
    # OpenMP setting (two threads there) uses one of each once pages._app is imported, for
    # every BLAS library the pages load and in every thread started afterwards
    seen = _probe(OPENBLAS_NUM_THREADS="2")
    assert ("blas", 2) in seen["before"]
    for stage in ("after", "pages"):
        assert seen[stage] == {("blas", 1), ("openmp", 1)}, stage


def test_an_operators_openmp_setting_is_kept():
    seen = _probe(OMP_NUM_THREADS="2")
    assert seen["pages"] == {("blas", 1), ("openmp", 2)}


def test_this_test_process_runs_app_scripts_as_the_server_does():
    # tests/conftest.py imports the server module first; an AppTest runs its script in a new
    # thread, where OpenMP would otherwise use both cores and spin against the other process
    import sklearn.cluster  # noqa: F401  (OpenMP loaded, if nothing loaded it yet)

    seen: list[tuple[str, int]] = []

    def read():
        seen.extend((lib["user_api"], lib["num_threads"]) for lib in threadpool_info())

    reader = threading.Thread(target=read)
    reader.start()
    reader.join()
    assert {n for api, n in seen if api == "openmp"} == {server.OPENMP_THREADS} == {1}


def test_a_late_import_says_that_openmp_keeps_its_setting_unless_one_was_set():
    code = "import sklearn.cluster\nfrom pages._app import server\n"
    for env, warned in (({}, True), ({"OMP_NUM_THREADS": "1"}, False)):
        stderr = _python(code, **env).stderr
        assert ("imported after scikit-learn" in stderr) is warned, (env, stderr)


# Before the server module runs, the probe reads NumPy's switch itself (importing the module
# would make the setting); afterwards, through the module. The switch returns the value it
# replaces, so reading it means setting it back.
_HUGE_PAGES_PROBE = """
import json
try:
    from numpy._core.multiarray import _set_madvise_hugepage as switch
except ImportError:  # NumPy 1
    from numpy.core.multiarray import _set_madvise_hugepage as switch
value = switch(True)
switch(value)
print(json.dumps({"before": bool(value)}))  # what NumPy chose on import (server not yet run)
import pages._app  # the package app.py's router is in: its first import is the server module
from pages._app.server import numpy_huge_pages
print(json.dumps({"after": numpy_huge_pages()}))
"""


def _huge_pages(**env: str) -> tuple[bool, bool]:
    lines = _python(_HUGE_PAGES_PROBE, **env).stdout.strip().splitlines()
    return json.loads(lines[-2])["before"], json.loads(lines[-1])["after"]


def test_the_server_turns_numpys_huge_page_requests_off():
    assert server._madvise_switch() is not None  # this NumPy has the switch
    _, after = _huge_pages()  # NumPy's own default depends on the kernel
    assert after is False and server.HUGE_PAGES is False
    # forced on when NumPy is imported, it stays on: an operator's choice is kept
    assert _huge_pages(NUMPY_MADVISE_HUGEPAGE="1") == (True, True)


def test_this_test_process_allocates_as_the_server_does():
    assert server.numpy_huge_pages() is False  # tests/conftest.py imported the server module


def test_the_huge_page_choice_keeps_an_operators_value_and_says_when_numpy_has_no_switch():
    made, looked_up = [], []

    def switch():
        looked_up.append(True)
        return made.append

    assert not server.set_huge_pages({server.HUGE_PAGES_ENV: "1"}, switch)
    assert looked_up == made == []  # the operator's value is kept: the switch is not looked up
    assert server.set_huge_pages({}, switch) and made == [server.HUGE_PAGES]
    with pytest.warns(RuntimeWarning, match="no _set_madvise_hugepage.*NUMPY_MADVISE_HUGEPAGE=0"):
        assert not server.set_huge_pages({}, lambda: None)

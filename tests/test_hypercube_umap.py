"""UMAP on the Hypercube page: the optional umap-learn, its background warm-up, the router."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from mlviz import hypercube
from mlviz.hypercube import occupied_vertices, project_vertices, warm_up_umap

REPO = Path(__file__).resolve().parents[1]
UMAP_WARM_UP_ENV = "MLVIZ_UMAP_WARM_UP"  # read by pages/hypercube.py


def warm_up_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "mlviz-umap-warm-up"]


@pytest.fixture
def without_umap(monkeypatch):
    """umap-learn as if not installed: find_spec gives None and ``import umap`` fails."""
    monkeypatch.setitem(sys.modules, "umap", None)


def test_warm_up_is_a_no_op_without_umap(without_umap):
    before = warm_up_threads()
    assert not hypercube.umap_available()
    assert warm_up_umap() is None
    assert warm_up_threads() == before  # no thread was started


def test_umap_projection_without_umap_says_how_to_install_it(without_umap):
    vertices, counts = occupied_vertices(np.eye(8, dtype=np.uint8))
    with pytest.raises(ImportError, match=r"pip install 'mlviz\[umap\]'"):
        project_vertices(vertices, counts, method="umap", random_state=0)


@pytest.mark.slow
def test_after_the_warm_up_a_projection_works():
    pytest.importorskip("umap", reason="umap-learn is the optional extra mlviz[umap]")
    thread = warm_up_umap()
    assert isinstance(thread, threading.Thread) and thread.daemon
    thread.join(timeout=900)
    assert not thread.is_alive()
    assert thread.error is None and thread.seconds > 0 and thread.started_at is not None
    vertices, counts = occupied_vertices(
        (np.random.default_rng(1).random((80, 6)) < 0.4).astype(np.uint8)
    )
    coords, loadings = project_vertices(vertices, counts, method="umap", random_state=0)
    assert coords.shape == (len(vertices), 2) and loadings is None
    assert np.all(np.isfinite(coords))


# ----------------------------------------------------------------------- the router
class FakeWarmUp:
    """Stands in for the started thread: the router's part is tested, not numba's."""

    started_at = seconds = error = None

    def is_alive(self) -> bool:
        return True


@pytest.fixture
def router_warm_up(monkeypatch):
    """The router with the warm-up turned on, a fresh holder, and the start recorded."""
    import streamlit as st

    from pages._app import source

    monkeypatch.setenv(UMAP_WARM_UP_ENV, "1")
    # the page's holder is a st.cache_resource of the page script: cleared with the others
    st.cache_resource.clear()
    events: list[str] = []
    monkeypatch.setattr(
        hypercube, "warm_up_umap", lambda: events.append("warm-up started") or FakeWarmUp()
    )
    original_current_dataset = source.current_dataset

    def current_dataset():  # every page starts with it; the sidebar does not call it
        events.append("page")
        return original_current_dataset()

    monkeypatch.setattr(source, "current_dataset", current_dataset)
    yield events
    st.cache_resource.clear()


def test_hypercube_page_starts_the_warm_up_once_after_it_has_drawn(router_warm_up):
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=180).run()
    assert not at.exception
    # the first page (Data) pays nothing: numba's compilation holds the GIL
    assert "warm-up started" not in router_warm_up
    at.switch_page("pages/hypercube.py").run()
    assert not at.exception
    assert router_warm_up.count("warm-up started") == 1
    # started at the end of the Hypercube run, after the page began drawing
    assert router_warm_up.index("warm-up started") > max(
        i for i, event in enumerate(router_warm_up) if event == "page"
    )
    at.switch_page("pages/hypercube.py").run()
    assert router_warm_up.count("warm-up started") == 1  # once per server process
    # while it runs, choosing UMAP says so before computing anything
    assert "UMAP (slow: about a minute the first time)" in str(
        at.selectbox(key="cube_projection").options
    )


def test_no_warm_up_when_turned_off(router_warm_up, monkeypatch):
    monkeypatch.setenv(UMAP_WARM_UP_ENV, "0")
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=180).run()
    at.switch_page("pages/hypercube.py").run()
    assert not at.exception
    assert "warm-up started" not in router_warm_up


def test_hypercube_page_without_umap_offers_no_umap(without_umap):
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=180).run()
    at.switch_page("pages/hypercube.py").run()
    assert not at.exception
    options = at.selectbox(key="cube_projection").options
    assert not any("UMAP" in option for option in options)
    assert any("pip install 'mlviz[umap]'" in c.value for c in at.caption)

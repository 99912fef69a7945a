"""The router: the navigation every page shares and the sidebar drawn before each page.

``app.py`` calls :func:`run_router`; a page calls :func:`ensure_routed` through
:func:`pages._app.source.current_dataset` at its top.

Why more than ``st.navigation(pages).run()``
--------------------------------------------
The product keeps its page scripts in a folder named ``pages/`` next to ``app.py``. Streamlit
1.67 treats such a folder as a legacy (v1) multipage app until the process's first
``st.navigation`` call (``PagesManager.uses_pages_directory``; ``AppTest`` resets it before
every run): the main script then becomes one page of a navigation over every file in
``pages/``, and a deep link (``/mlknn``) runs ``pages/mlknn.py`` alone, without ``app.py``,
its sidebar or its page list. Streamlit offers no setting to turn this off, and the documented
fix (rename the folder) would change the product's layout. Two things remain, both public
Streamlit only:

1. A page that runs without the router (:func:`ensure_routed`) calls ``st.navigation``, which
   ends the legacy mode for the whole process (documented: "as soon as any session of your
   app executes the st.navigation command, your app will ignore the pages/ directory (across
   all sessions)", docs.streamlit.io/develop/api-reference/navigation/st.navigation), and
   reruns; the rerun starts at ``app.py``, whose router resolves the same URL to the same
   page. ``tests/test_app.py`` checks that the legacy mode really ends. If the rerun comes
   back to the page, the page file itself is the main script (a test opened it directly): the
   sidebar is drawn when no data set is loaded yet, and the page goes on.
2. A session's first run only calls ``st.navigation`` and reruns (:func:`run_router`): on a
   fresh server that run may be the legacy mode running ``app.py`` as a page of its own
   navigation, where widgets get other identities than in every later run, so the user's
   first change of a sidebar widget would be lost.

A class arriving at once on a fresh server (issue 29, item 4)
-------------------------------------------------------------
Every session whose first run starts before the process's first ``st.navigation`` call is
resolved by the legacy navigation, and on a fresh server that is the whole first wave of
students: the first run spends seconds importing before it reaches ``st.navigation``. In
Streamlit 1.67 the legacy mode is one process-wide flag that only goes from unset to on (the
first session's ``PagesManager.__init__``, ``runtime/pages_manager.py`` line 60: set only
while ``None``) to off (``st.navigation``, ``commands/navigation.py`` line 399); nothing turns
it on again (before Streamlit PR 10458, every new session set it anew: that was a real race,
and the ``PagesStrategyV1``/``V2`` of those versions are gone). Each session keeps its own page
registry (one ``PagesManager`` per ``AppSession``). So a first run is either a legacy run
(``script_runner.py`` line 933: ``_mpa_v1``, whose ``_navigation`` resolves the URL among
``app.py`` and ``pages/*.py``) or a router run, and "Page not found" comes only from
``_navigation`` (``commands/navigation.py`` line 562) when the URL's name is not in the list
of that run. The two lists agree on every URL of the router because Streamlit names a
``st.Page`` of a file exactly as the legacy mode names that file
(``source_util.page_icon_and_name``), the router passes no ``url_path`` and every router page
lives in ``pages/``; the default page's URL is "" in both. A deep link opened in the legacy
window therefore runs its own page file, which hands over to the router (1. above), and the
router's navigation resolves the same name again. ``tests/test_app.py`` checks that every
router URL is a legacy page name. Break that (give PLST ``url_path="linear"``) and the
issue's symptom appears, as a race: every ``/linear`` tab among a fresh server's first tabs
showed the dialog over the right page (12 of 24 tabs on 3 fresh servers,
``benchmarks/first_visits.py``); a session started after the first ``st.navigation`` does
not. ``tests/test_browser_first_visits.py`` opens a fresh server's first tabs at once.
(``/data`` is the other way round, a legacy name only: it shows the dialog on any server.)

Whether a page runs under the router is a property of one script run, so it is a context
variable set around ``page.run()`` (a session-state flag would outlive the run). The earlier
call-stack walk, ``runpy`` re-run and second context variable (for the sidebar) are gone: the
sidebar reads the session state directly and a page alone simply continues.
"""

from __future__ import annotations

from contextvars import ContextVar
from pathlib import Path

import streamlit as st

from pages._app import (
    experiment,
    export,
    links,
    presentation,
    source,
)

# The navigation every page shares: (file in pages/, title, icon); the first is the default.
# Material icons ship with Streamlit's frontend; emoji depend on the viewer's fonts (a
# projector PC or headless chromium without an emoji font shows empty boxes).
PAGE_DIR = Path(__file__).resolve().parents[1]
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
# True while the router runs a page (see the module docstring).
_ROUTED: ContextVar[bool] = ContextVar("mlviz_routed", default=False)
# Set when a page running without the router has asked for a rerun through the router.
_REROUTED_KEY = "_rerouted"
_SESSION_STARTED_KEY = "_session_started"
#: Session key: the file stem of the page the router ran last ("plst"); for export file names
#: and for keeping each page's fits apart (:mod:`pages._app.fitting`).
PAGE_KEY = "_current_page"


def navigation_pages() -> list[st.Page]:
    """The router's pages (absolute paths, so they resolve from any main script)."""
    return [
        st.Page(PAGE_DIR / file, title=title, icon=icon, default=i == 0)
        for i, (file, title, icon) in enumerate(PAGES)
    ]


def current_page() -> str:
    """File stem of the page being shown ("" when a script runs outside the navigation)."""
    return st.session_state.get(PAGE_KEY, "")


def sidebar() -> None:
    """Everything the sidebar shows on every page: presentation mode, data set picker,
    experiment settings and the chart images' format."""
    with st.sidebar:
        presentation.sidebar_toggle()
    source.dataset_picker()
    experiment.experiment_settings()
    with st.sidebar:
        presentation.image_format_picker()


def run_router() -> None:
    """The app: sidebar, then the page the URL names (``app.py`` calls only this)."""
    if not st.session_state.get(_SESSION_STARTED_KEY):
        st.session_state[_SESSION_STARTED_KEY] = True
        st.navigation(navigation_pages())
        st.rerun()
    st.session_state.pop(_REROUTED_KEY, None)
    export.start_run()
    links.start_run()
    presentation.read_link()  # ?present=1, before the page config it decides
    presentation.page_config()
    presentation.style()
    with links.notes_above():  # link notes go above the page
        sidebar()
        page = st.navigation(navigation_pages())
        stems = {title: Path(file).stem for file, title, _ in PAGES}
        st.session_state[PAGE_KEY] = stems.get(page.title, "")
        token = _ROUTED.set(True)
        try:
            page.run()
        finally:
            _ROUTED.reset(token)
        links.finish_run()  # only after a whole run: a stopped run drew not all its widgets


def ensure_routed() -> None:
    """Bring a page that runs without the router under it (see the module docstring).

    Returns at once under the router. Otherwise ends Streamlit's legacy ``pages/`` mode and
    reruns through ``app.py`` (this script run ends); when the page file itself is the main
    script, draws the sidebar if no data set is loaded yet and returns.
    """
    if _ROUTED.get():
        return
    st.navigation(navigation_pages())
    if not st.session_state.get(_REROUTED_KEY):
        st.session_state[_REROUTED_KEY] = True
        st.rerun()
    if source.DATASET_KEY not in st.session_state:
        sidebar()

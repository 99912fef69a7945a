"""mlviz dashboard: the router.

Page config, then :func:`pages._app.router.run_router`: the shared data set picker and
experiment settings in the sidebar, and ``st.navigation`` over the page files in ``pages/``.
Pages read widgets, call ``mlviz`` and show figures; what they share lives in
``st.session_state`` via the helper package ``pages/_app/``.
"""

from __future__ import annotations

import streamlit as st

from pages._app import router

st.set_page_config(
    page_title="mlviz: label embedding, visible",
    page_icon=":material/deployed_code:",
    layout="wide",
)
router.run_router()

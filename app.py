"""mlviz dashboard: the router.

Page config, then :func:`pages._shared.run_router`: the shared data set picker and experiment
settings in the sidebar, and ``st.navigation`` over the page files in ``pages/``. Pages read
widgets, call ``mlviz`` and show figures; the state they share lives in ``st.session_state``
via ``pages/_shared.py``.
"""

from __future__ import annotations

import streamlit as st

from pages import _shared as shared

st.set_page_config(
    page_title="mlviz: label embedding, visible",
    page_icon=":material/deployed_code:",
    layout="wide",
)
shared.run_router()

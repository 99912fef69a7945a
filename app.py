"""mlviz dashboard: the router.

Page config, the shared dataset picker and experiment settings in the sidebar, and
``st.navigation`` over the page files in ``pages/``. Pages read widgets, call ``mlviz`` and
show figures; the state they share lives in ``st.session_state`` via ``pages/_shared.py``.
"""

from __future__ import annotations

import streamlit as st

from pages import _shared as shared

st.set_page_config(page_title="mlviz: label embedding, visible", page_icon="🧊", layout="wide")

shared.dataset_picker()
shared.experiment_settings()

PAGES = [
    st.Page("pages/data.py", title="Data", icon="📊", default=True),
    st.Page("pages/lesson.py", title="Lesson", icon="🎓"),
    st.Page("pages/hypercube.py", title="Hypercube", icon="🧊"),
    st.Page("pages/label_clusters.py", title="Label clusters", icon="🧩"),
    st.Page("pages/plst.py", title="PLST & linear", icon="📐"),
    st.Page("pages/grople.py", title="GroPLE", icon="🔲"),
    st.Page("pages/clems.py", title="CLEMS / MDS", icon="🗺️"),
    st.Page("pages/mlknn.py", title="ML-KNN", icon="👥"),
    st.Page("pages/compare.py", title="Compare", icon="⚖️"),
]
st.navigation(PAGES).run()

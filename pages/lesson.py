"""Lesson page: seven short steps from the label hypercube to the tail, for a class.

Each step shows the paper's key formula, one figure of a live model on the loaded data set,
a "try this" button that sets the step's own widgets for the class, and what to notice:
sentences computed from the figure's data, so that they hold on whatever data set is loaded.
The steps live in ``pages/_lesson/`` (one module per step, the widget state in
``state.py``, every model fit in ``fits.py``); this script picks the step and runs it. The
step and its widgets are bound to the URL, so a link reopens the same step with the same
settings.
"""

from __future__ import annotations

import streamlit as st

from pages._lesson import clems, compare, grople, groups, hypercube, mlknn, plst, state

SHORT_TITLES = {
    "hypercube": "1 · Hypercube",
    "plst": "2 · PLST",
    "groups": "3 · Label groups",
    "grople": "4 · GroPLE",
    "clems": "5 · CLEMS",
    "mlknn": "6 · ML-KNN",
    "compare": "7 · Compare & tail",
}
TITLES = {
    "hypercube": "1 · The label hypercube",
    "plst": "2 · PLST and round-based decoding",
    "groups": "3 · Label groups",
    "grople": "4 · GroPLE's $V^k$",
    "clems": "5 · CLEMS: embedding costs",
    "mlknn": "6 · ML-KNN's MAP rule",
    "compare": "7 · Compare, and the tail",
}
SHOW = {
    "hypercube": hypercube.show,
    "plst": plst.show,
    "groups": groups.show,
    "grople": grople.show,
    "clems": clems.show,
    "mlknn": mlknn.show,
    "compare": compare.show,
}
STEPS = state.STEPS

lesson = state.start("Lesson: label embedding in seven steps")
st.caption(
    "From the label hypercube to the tail: per step the paper's formula, one figure of a live "
    f"model on **{st.session_state.get(state.SOURCE_LABEL_KEY, lesson.ds.name)}**, a *try this* "
    "button that sets the step's widgets, and what to notice."
    + (
        " You are on the planted sample (four planted label groups and six tail labels), "
        "where every step shows its point."
        if lesson.planted_groups is not None
        else ""
    )
    + " Notation: L labels, N instances, M embedding dimensions (PLST, CLEMS), d latent "
    "dimensions (GroPLE), K label groups, k neighbours (the PLST and CLEMS papers write K for "
    "the number of labels)."
)
lesson.reset_widgets_for_new_data()
lesson.ensure("lesson_step", lambda v: v in STEPS)
# a title formats as itself, so a step can also be chosen by its title (as AppTest does)
step = lesson.bound(
    st.radio,
    "Step",
    STEPS,
    format_func=lambda s: SHORT_TITLES.get(s, s),
    horizontal=True,
    key="lesson_step",
    label_visibility="collapsed",
)
st.subheader(TITLES[step])
SHOW[step](lesson)

position = STEPS.index(step)
back, _, forward = st.columns([1, 4, 1])
back.button(
    "← Previous step",
    key="lesson_previous",
    disabled=position == 0,
    on_click=state.apply,
    args=({"lesson_step": STEPS[max(position - 1, 0)]},),
)
forward.button(
    "Next step →",
    key="lesson_next",
    disabled=position == len(STEPS) - 1,
    on_click=state.apply,
    args=({"lesson_step": STEPS[min(position + 1, len(STEPS) - 1)]},),
)

state.report_button("Lesson")

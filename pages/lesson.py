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
source_label = st.session_state.get(state.SOURCE_LABEL_KEY, lesson.ds.name)
state.intro(
    "From the label hypercube to the tail: per step the paper's formula, one figure of a live "
    f"model on **{state.user_text(source_label)}**, "
    "a *try this* "
    "button that sets the step's widgets, and what to notice."
    + (
        " You are on the planted sample (four planted label groups and six tail labels), "
        "where every step shows its point."
        if lesson.planted_groups is not None
        else ""
    )
    + " Notation: L labels, N instances, M embedding dimensions (PLST, CLEMS), d latent "
    "dimensions (GroPLE), K label groups, k neighbours (the PLST and CLEMS papers write K for "
    "the number of labels).",
    caption=True,
)
lesson.reset_widgets_for_new_data()
walk = state.walk_step()  # "Export this Lesson" shows every step once, in order
lesson.ensure("lesson_step", lambda v: v in STEPS)
presenting = state.presenting() and walk is None
radio_at, back_at, forward_at = (
    st.columns([7.4, 1.7, 2.1], vertical_alignment="center") if presenting else (st, None, None)
)
# a title formats as itself, so a step can also be chosen by its title (as AppTest does)
step = lesson.bound(
    radio_at.radio,
    "Step",
    STEPS,
    format_func=lambda s: SHORT_TITLES.get(s, s),
    horizontal=True,
    key="lesson_step",
    label_visibility="collapsed",
)
position = STEPS.index(step)
previous, following = STEPS[max(position - 1, 0)], STEPS[min(position + 1, len(STEPS) - 1)]
stage = len(state.STAGES) - 1
if presenting:
    # the step's parts one by one: PageDown (a presenter's clicker) reveals the next part,
    # then opens the next step; PageUp hides the last part shown, then opens the previous
    # step at its last part. The link records the part (?lesson_part=).
    stage = state.stage_link(step)
    last = stage == len(state.STAGES) - 1
    back = state.previous_part(STEPS, step)
    back_at.button(
        "← Back",
        key="lesson_previous",
        disabled=back is None,
        on_click=state.go_to,
        args=back or (step, 0),
        shortcut="PageUp",
        help="Hide the part shown last, or open the previous step at its last part (PageUp).",
    )
    forward_at.button(
        "Next step →" if last else state.REVEAL_LABELS[state.STAGES[stage + 1]],
        key="lesson_next",
        type="primary",
        disabled=last and position == len(STEPS) - 1,
        on_click=state.go_to if last else state.set_stage,
        args=(following, 0) if last else (step, stage + 1),
        shortcut="PageDown",
        help="Reveal the step's next part (formula, figure, what to notice), then open the "
        "next step (PageDown).",
    )
st.subheader(TITLES[step])
state.begin_step(step, TITLES[step], lesson.ds)
if walk is not None:
    with st.status(f"Preparing the Lesson export: step {position + 1} of {len(STEPS)}…"):
        SHOW[step](lesson)
else:
    SHOW[step](lesson)
state.end_step()
lesson.keep_links()  # the other steps' settings stay in the link
if walk is not None:
    state.walk_next()  # reruns on the next step, or back on the step the export started from
elif presenting:
    state.scroll_to(stage)  # the part just revealed, whole in the window
else:
    back, _, forward = st.columns([2, 3, 2])  # room for the labels and their shortcut keys
    back.button(
        "← Previous step",
        key="lesson_previous",
        disabled=position == 0,
        on_click=state.apply,
        args=({"lesson_step": previous},),
        shortcut="PageUp",
        width="stretch",
    )
    forward.button(
        "Next step →",
        key="lesson_next",
        disabled=position == len(STEPS) - 1,
        on_click=state.apply,
        args=({"lesson_step": following},),
        shortcut="PageDown",
        width="stretch",
    )
    state.report_button("Lesson")
    state.export_lesson_button()

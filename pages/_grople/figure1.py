"""The "Paper's Figure 1" button: the paper's λ1 × λ2 search, then its choice on the sliders."""

from __future__ import annotations

import streamlit as st

from mlviz.reproduce import (
    GROPLE_FIGURE1_FOLDS,
    GROPLE_FIGURE1_GRID,
    GROPLE_FIGURE1_K,
    grople_figure1,
    grople_figure1_unsupported,
)
from pages._app import experiment, fitting, grouping, source, tables
from pages._grople.context import PAPER_D, GroPLEPage

# "Paper's Figure 1" chose K and the λs in the previous run; they are set by
# :func:`apply_pending`, before the widgets exist (Streamlit forbids changing a widget's value
# after it is drawn), and the fit request of fitting.fit is dropped so that the new settings are
# fitted without a second press
PENDING_KEY = "_grople_figure1_pending"
REQUEST_KEY = "grople_figure1_request"
APPLIED_KEY = "grople_figure1_applied"


def apply_pending() -> None:
    """Move the previous run's Figure 1 choice onto the sliders (call before drawing them)."""
    pending = st.session_state.pop(PENDING_KEY, None)
    if pending is not None:
        st.session_state.update(pending)
        st.session_state.pop("_fit_requested:grople", None)


def figure1_search(d: int, affinity: str, alpha: float, beta: float, progress):
    """The paper's cross-validated λ1 × λ2 search on the training split (cached)."""
    split = experiment.current_split()
    return grople_figure1(
        split.X_train,
        split.Y_train,
        n_components=d,
        label_affinity=affinity,
        alpha=alpha,
        beta=beta,
        progress=progress,
        random_state=0,
    )


def button(page: GroPLEPage, params: dict) -> None:
    """The button, its search when pressed, and what it chose (set on the next run)."""
    n_cells = len(GROPLE_FIGURE1_GRID["lambda1"]) * len(GROPLE_FIGURE1_GRID["lambda2"])
    reason = grople_figure1_unsupported(
        len(page.split.Y_train), page.n_labels, n_groups=GROPLE_FIGURE1_K
    )
    # the paper's d = 100 (every data set, §4.2) and the page's affinity, α and β
    settings = {
        "d": PAPER_D,
        "affinity": params["affinity"],
        "alpha": params["alpha"],
        "beta": params["beta"],
    }
    data_key = (source.dataset_digest(), experiment.split_settings())
    if st.button(
        "Paper's Figure 1",
        key="grople_figure1",
        disabled=bool(reason),
        help=reason
        or f"Sets d = {PAPER_D}, K = {GROPLE_FIGURE1_K} and the λ1, λ2 that "
        f"{GROPLE_FIGURE1_FOLDS}-fold "
        f"cross-validated accuracy on the training split prefers among the paper's grid "
        f"({n_cells} pairs, {n_cells * GROPLE_FIGURE1_FOLDS} fits; minutes on medical), then "
        "fits.",
    ):
        st.session_state[REQUEST_KEY] = (data_key, settings)
    if reason:
        st.caption(f"Paper's Figure 1 is not available here: {reason}")
    request = st.session_state.get(REQUEST_KEY)
    if request is None or request[0] != data_key or reason:
        return
    figure1 = fitting.compute(
        figure1_search,
        request[1],
        progress=True,
        label="Paper's Figure 1",
        spinner=f"Cross-validating λ1 × λ2 at K = {GROPLE_FIGURE1_K}…",
    )
    if figure1 is None:
        return
    chosen = {
        "grople_d": request[1]["d"],
        **grouping.k_choice(GROPLE_FIGURE1_K),
        "grople_lambda1": figure1.lambda1,
        "grople_lambda2": figure1.lambda2,
    }
    if st.session_state.get(APPLIED_KEY) != (request, chosen):
        st.session_state[APPLIED_KEY] = (request, chosen)
        st.session_state[PENDING_KEY] = chosen
        st.rerun()
    st.caption(
        f"Paper's Figure 1: {GROPLE_FIGURE1_FOLDS}-fold cross-validated accuracy on the "
        f"training split chose λ1 = {figure1.lambda1:g}, λ2 = {figure1.lambda2:g} "
        f"(accuracy {figure1.search.best_score:.3f}) at K = {GROPLE_FIGURE1_K}, "
        f"d = {figure1.model.n_components}; its refit "
        f"uses {', '.join(map(str, figure1.rows_used))} latent rows per group "
        f"({figure1.distinct_patterns} different row sets). Fit below with these settings. "
        "Iteration-cap warnings above this line, if any, come from single cross-validation "
        "fits of the grid; the fit below reports its own."
    )
    with st.expander("Cross-validation of λ1 × λ2"):
        tables.fitted_table(figure1.search.table, number_format="%.4g")

"""Step 4: GroPLE's V^k and its l2,1 penalty (paper 001, Eq. 4)."""

from __future__ import annotations

import numpy as np
import streamlit as st

from mlviz import stats
from mlviz.figures import grople as grople_figures
from pages._lesson import fits
from pages._lesson.methods import AFFINITY_LABELS
from pages._lesson.state import (
    LAMBDA1_GRID,
    LAMBDA2_GRID,
    Lesson,
    chart,
    explain,
    formula,
    in_range,
    presenting,
    training_agreement,
    try_this,
)
from pages._lesson.text import MAX_BARS, count, notice


def show(c: Lesson) -> None:
    L, names = c.L, c.names
    formula(
        r"\min_{\mathbf{U},\mathbf{V}^1,\dots,\mathbf{V}^K}\ \sum_{k=1}^{K}"
        r"\|\mathbf{Y}^k-\mathbf{U}\mathbf{V}^k\|_F^2+\lambda_1\|\mathbf{U}\|_F^2+"
        r"\lambda_2\sum_{k=1}^{K}\|\mathbf{V}^k\|_{2,1}\quad(4)"
    )
    formula(
        r"\|\mathbf{A}\|_{2,1}=\sum_{i}\sqrt{\textstyle\sum_j A_{ij}^2}"
        r"\quad\text{(a sum of row norms: whole rows become zero)}"
    )
    k, affinity = c.groups_settings()
    explain(
        "GroPLE factorises each group's label columns $Y^k \\approx U V^k$ with one shared "
        "latent matrix $U$ ($d$ columns). The $\\ell_{2,1}$ penalty switches off whole rows of "
        "$V^k$, so the labels of a group use the same few latent dimensions. "
        + (
            f"The groups are step 3's: K = {k}, {AFFINITY_LABELS[affinity]}."
            if L >= 3
            else "With fewer than 3 labels all labels form one group."
        )
    )
    if c.too_many_labels("GroPLE's affinity between the labels (stage 1)"):
        return
    c1, c2, c3 = st.columns(3)
    # while presenting, the notes under the sliders (their ranges, the preset) fold into one
    # expander, so that the figure starts on the first screen (three sliders and their notes
    # pushed it to 770 px)
    notes = st.expander("Slider ranges and settings") if presenting() else None

    def note(slot):
        return slot if notes is None else notes

    d_max = c.grople_d_max()
    if d_max >= 2:
        c.ensure("lesson_grople_d", in_range(1, d_max))
        with c1:
            d = int(c.bound(st.slider, "Latent dimension d (≤ L)", 1, d_max, key="lesson_grople_d"))
    else:
        d = 1
        note(c1).caption("One label: d = 1 is the only choice.")
    # both sliders span the range where the fit changes on this data: λ2 up to λ2_max, λ1 up
    # to λ1_max at the chosen λ2, each ending at its bound, where every V^k is zero
    # (grople_figures.lambda_options)
    bounds = fits.grople_lambda_bounds(c, d)
    bound = None if bounds is None else bounds.lambda2_max()
    options = grople_figures.lambda_options(LAMBDA2_GRID, bound)
    opening = grople_figures.lambda2_opening(options, bound, c.defaults["lesson_grople_lambda2"])
    c.ensure("lesson_grople_lambda2", lambda v: v in options)
    if st.session_state.get("lesson_grople_lambda2", opening) not in options:
        st.session_state["lesson_grople_lambda2"] = opening
    with c2:
        lambda2 = float(
            c.bound(
                st.select_slider,
                "λ2 (group sparsity of $V^k$)",
                options,
                key="lesson_grople_lambda2",
                default=opening,
            )
        )
    if bound is not None:
        note(c2).caption(
            f"From λ2 = {bound:.3g} on every $V^k$ is zero on this training split, so the "
            f"slider ends at {max(options):g}, the first of its values where V is zero."
        )
    at_lambda2 = None if bounds is None else fits.grople_lambda1_max(bounds, lambda2)
    options1 = grople_figures.lambda_options(LAMBDA1_GRID, at_lambda2)
    below = [v for v in options1 if at_lambda2 is None or v < at_lambda2] or options1[:1]
    preferred = c.defaults["lesson_grople_lambda1"]
    opening1 = max([v for v in below if v <= preferred] or below[:1])
    c.ensure("lesson_grople_lambda1", lambda v: v in options1)
    if st.session_state.get("lesson_grople_lambda1", opening1) not in options1:
        st.session_state["lesson_grople_lambda1"] = opening1
    with c3:
        lambda1 = float(
            c.bound(
                st.select_slider,
                "λ1 (‖U‖² weight)",
                options1,
                key="lesson_grople_lambda1",
                default=opening1,
            )
        )
    if at_lambda2 is not None:
        note(c3).caption(grople_figures.lambda1_range_caption(at_lambda2, lambda2, options1))
    settings = {"d": d, "K": k, "affinity": affinity, "lambda1": lambda1, "lambda2": lambda2}
    with note(st.container()):
        c.preset_caption("GroPLE", {**c.opening("GroPLE"), **settings})
    try_this(
        "grople",
        "lower λ2 to 1",
        {"lesson_grople_lambda2": 1.0},
        why_disabled="λ2 is 1 already." if lambda2 == 1.0 else "",
    )
    with st.spinner("Fitting GroPLE…"):
        model = fits.grople(c, d, lambda1, lambda2)
    if not fits.fits_this_data(model):
        return
    if model.degenerate_:
        st.error(f"This GroPLE fit is degenerate. {model.degenerate_}", icon=":material/error:")
        return
    if L <= MAX_BARS:
        fig = grople_figures.vk_heatmap(
            model.V_, model.groups_, names, row_support=model.row_support_
        )
        if L > 20:
            fig.update_xaxes(tickangle=-90)  # many names at -60° overlap each other
    else:  # too many labels to name: one column per group (the GroPLE page drills down)
        fig = grople_figures.vk_group_heatmap(
            model.V_, model.groups_, row_support=model.row_support_
        )
    chart(fig, key="lesson_grople_vk")
    rows = stats.rows_per_group(model.row_support_)
    n_groups = len(rows)
    unused = int((rows["rows_used"] == 0).sum())
    alone = int(((rows["rows_used"] > 0) & (rows["private_rows"] == rows["rows_used"])).sum())
    points = [
        f"The {count(n_groups, 'group uses', 'groups use')} "
        f"**{int(rows['rows_used'].sum())}** of {n_groups * d} group rows (d = {d} each); "
        "blank rows are exactly zero. Rows per group: "
        f"{', '.join(str(r) for r in rows['rows_used'])}.",
    ]
    if unused:
        points.append(
            f"{unused} group{'s use' if unused != 1 else ' uses'} no latent row at "
            "all: their labels get the same score for every instance."
        )
    if n_groups > 1:
        points.append(
            f"{alone} group{'s share' if alone != 1 else ' shares'} no latent row with any "
            "other group: GroPLE models such a group independently of the rest."
            if alone
            else "Every group that uses a row shares at least one of its rows with another group."
        )
    if n_groups > 1:
        patterns = len({row.tobytes() for row in np.asarray(model.row_support_)})
        with_own = int((rows["private_rows"] > 0).sum())
        points.append(
            f"The groups use {patterns} different sets of rows and {with_own} of them have a "
            "row no other group uses"
            + (
                ": each group picks its own latent dimensions, as in the paper's Figure 1."
                if patterns == n_groups and with_own
                else "."
            )
        )
    if lambda2 == 0:
        points.append("With λ2 = 0 nothing pushes rows to zero: every row is used.")
    ari = training_agreement(model.groups_) if L >= 3 else None
    if ari is not None:
        points.append(
            "GroPLE groups the labels again on the training split only (stage 1 is part of the "
            f"model): adjusted Rand index **{ari:.2f}** with step 3's all-rows groups "
            "(1 = identical)."
        )
    notice(points)

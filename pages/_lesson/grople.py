"""Step 4: GroPLE's V^k and its l2,1 penalty (paper 001, Eq. 4)."""

from __future__ import annotations

import streamlit as st

from mlviz import stats
from mlviz.figures import grople as grople_figures
from pages._lesson import fits
from pages._lesson.methods import AFFINITY_NAMES
from pages._lesson.state import LAMBDA2_GRID, Lesson, chart, in_range, try_this
from pages._lesson.text import MAX_BARS, count, notice


def show(c: Lesson) -> None:
    L, names = c.L, c.names
    st.latex(
        r"\min_{\mathbf{U},\mathbf{V}^1,\dots,\mathbf{V}^K}\ \sum_{k=1}^{K}"
        r"\|\mathbf{Y}^k-\mathbf{U}\mathbf{V}^k\|_F^2+\lambda_1\|\mathbf{U}\|_F^2+"
        r"\lambda_2\sum_{k=1}^{K}\|\mathbf{V}^k\|_{2,1}\quad(4)"
    )
    st.latex(
        r"\|\mathbf{A}\|_{2,1}=\sum_{i}\sqrt{\textstyle\sum_j A_{ij}^2}"
        r"\quad\text{(a sum of row norms: whole rows become zero)}"
    )
    k, affinity = c.groups_settings()
    st.markdown(
        "GroPLE factorises each group's label columns $Y^k \\approx U V^k$ with one shared "
        "latent matrix $U$ ($d$ columns). The $\\ell_{2,1}$ penalty switches off whole rows of "
        "$V^k$, so the labels of a group use the same few latent dimensions. "
        + (
            f"The groups are step 3's: K = {k}, {AFFINITY_NAMES[affinity]}."
            if L >= 3
            else "With fewer than 3 labels all labels form one group."
        )
    )
    if c.too_many_labels("GroPLE's affinity between the labels (stage 1)"):
        return
    c1, c2 = st.columns(2)
    d_max = c.grople_d_max()
    if d_max >= 2:
        c.ensure("lesson_grople_d", in_range(1, d_max))
        with c1:
            d = int(c.bound(st.slider, "Latent dimension d (≤ L)", 1, d_max, key="lesson_grople_d"))
    else:
        d = 1
        c1.caption("One label: d = 1 is the only choice.")
    c.ensure("lesson_grople_lambda2", lambda v: v in LAMBDA2_GRID)
    with c2:
        lambda2 = float(
            c.bound(
                st.select_slider,
                "λ2 (group sparsity of $V^k$)",
                LAMBDA2_GRID,
                key="lesson_grople_lambda2",
            )
        )
    try_this(
        "grople",
        "raise λ2 to 10",
        {"lesson_grople_lambda2": 10.0},
        why_disabled="λ2 is 10 already." if lambda2 == 10.0 else "",
    )
    with st.spinner("Fitting GroPLE…"):
        model = fits.grople(c, d, lambda2)
    if not fits.fits_this_data(model):
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
            else "Every group that uses a row shares one with another group."
        )
    if lambda2 == 0:
        points.append("With λ2 = 0 nothing pushes rows to zero: every row is used.")
    notice(points)

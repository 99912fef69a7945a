"""Step 5: CLEMS, cost-sensitive label embedding by MDS (paper 002, Eqs. 1-2)."""

from __future__ import annotations

import streamlit as st

from mlviz import stats
from mlviz.costs import cost_matrix
from mlviz.figures import clems as clems_figures
from mlviz.figures import hypercube as cube_figures
from pages._lesson import fits
from pages._lesson.methods import COST_LABELS
from pages._lesson.state import Lesson, chart, explain, formula, in_range, try_this
from pages._lesson.text import labelset, legend_at_bottom, notice


def show(c: Lesson) -> None:
    split, names = c.split, c.names
    formula(
        r"\min_{\mathbf{u}}\sum_{i,j}\big(c(\mathbf{y}_i,\mathbf{y}_j)-"
        r"d(\mathbf{u}_i,\mathbf{u}_j)\big)^2\ \ (1),\qquad "
        r"\min_{\mathbf{u}^{(t)},\mathbf{u}^{(p)}}\sum_{i,j}\big(c(\mathbf{y}_i,\mathbf{y}_j)-"
        r"d(\mathbf{u}^{(t)}_i,\mathbf{u}^{(p)}_j)\big)^2\ \ (2)"
    )
    formula(
        r"\tilde{\mathbf{z}}=g(\mathbf{x}),\qquad \hat{\mathbf{y}}=\mathbf{y}_q,\quad "
        r"q=\arg\min_{j}\ d\big(\tilde{\mathbf{z}},\mathbf{u}^{(p)}_j\big)"
    )
    explain(
        "CLEMS embeds the distinct training label sets by multidimensional scaling so that "
        "distances mimic the cost c (Eq. 1; for an asymmetric cost each set is embedded "
        "twice, as truth and as prediction, Eq. 2). A regressor g maps x into the embedding "
        "and decoding returns the nearest label set. mlviz embeds √c with frequency weights, "
        "as the authors' code does."
    )
    c1, c2, c3 = st.columns(3)
    c.ensure("lesson_clems_cost", lambda v: v in COST_LABELS)
    cost = c.bound(
        c1.selectbox,
        "Cost c",
        list(COST_LABELS),
        format_func=COST_LABELS.get,
        key="lesson_clems_cost",
    )
    m_max = c.clems_m_max()
    c.ensure("lesson_clems_m", in_range(1, m_max))
    with c2:
        m = int(c.bound(st.slider, "Embedding dimension M", 1, m_max, key="lesson_clems_m"))
    with c3:
        index = c.instance_picker("lesson_clems_instance")
    try_this(
        "clems",
        "use the asymmetric rank-loss cost",
        {"lesson_clems_cost": "rank_loss"},
        why_disabled="The cost is rank loss already." if cost == "rank_loss" else "",
    )
    c.preset_caption("CLEMS", {**c.opening("CLEMS"), "M": m, "cost": cost})
    with st.spinner("Embedding the label sets…"):
        model = fits.clems(c, m, cost)
    if not fits.fits_this_data(model):
        return
    explanation = model.explain(split.X_test[index : index + 1], n=5)
    nearest = explanation.candidates["candidate"].to_numpy()
    truth = split.Y_test[index]
    nearest_costs = cost_matrix(truth[None, :], model.candidates_[nearest], cost)[0]
    texts = cube_figures.labelset_text(model.candidates_, names)
    chart(
        legend_at_bottom(
            clems_figures.fitted_embedding_figure(
                model,
                texts,
                predicted=explanation.embedding,
                nearest=nearest,
                nearest_costs=nearest_costs,
            )
        ),
        key="lesson_clems_embedding",
    )
    unseen = stats.unseen_labelset_share(split.Y_train, split.Y_test)
    n_cand = len(model.candidates_)
    points = [
        f"CLEMS can only answer with one of the **{n_cand:,}** training label "
        f"set{'s' if n_cand != 1 else ''}; "
        + (
            f"**{unseen:.0%}** of the test instances carry a label set never seen in "
            "training, so CLEMS cannot predict them exactly."
            if unseen > 0
            else "every test instance's label set occurs in training."
        ),
        f"Test instance {index} (truth {labelset(truth, names)}) is decoded as "
        f"{labelset(explanation.prediction, names)} at cost **{nearest_costs[0]:.3f}**; "
        + (
            f"the cheapest of the {len(nearest)} nearest sets (red rings) costs "
            f"{nearest_costs.min():.3f}."
            if len(nearest) > 1
            else "it is the only set."
        ),
    ]
    if model.mirrored_:
        points.append(
            "The cost is asymmetric: every set appears twice, as truth (circle) and "
            "as prediction (cross); decoding searches the crosses."
        )
    if m > 2:
        points.append(
            f"The picture shows coordinates 1–2 of M = {m}; the nearest sets are "
            "nearest in all M coordinates, so a ring may look far from the star."
        )
    if n_cand == 1:
        points.append("There is a single training label set: CLEMS predicts it for everyone.")
    notice(points)

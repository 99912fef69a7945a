"""Step 3: label groups, GroPLE's first stage (paper 001, §3): affinity, eigengap, K."""

from __future__ import annotations

import streamlit as st
from sklearn.metrics import adjusted_rand_score

from mlviz import stats
from mlviz.figures import label_clusters as cluster_figures
from mlviz.label_clustering import group_diagnostics
from pages._lesson import fits
from pages._lesson.methods import AFFINITY_LABELS
from pages._lesson.state import Lesson, chart, explain, formula, in_range, tail_threshold, try_this
from pages._lesson.text import MAX_BARS, notice


def show(c: Lesson) -> None:
    split, L, names, planted_groups = c.split, c.L, c.names, c.planted_groups
    formula(
        r"A_{ij}=\exp\!\Big(-\frac{\|\mathbf{s}_i-\mathbf{s}_j\|^{2}}{\sigma_i\sigma_j}\Big),"
        r"\ \mathbf{s}_l=2\mathbf{y}_{\cdot l}-\mathbf{1}\ \text{(heat)},\qquad "
        r"A_{ij}=\frac{C_{ij}}{n_i+n_j-C_{ij}}\ \text{(co-occurrence)}"
    )
    formula(
        r"\hat{\mathbf{A}}=\mathbf{D}^{-1/2}\mathbf{A}\mathbf{D}^{-1/2},\qquad "
        r"K^{\star}=\arg\max_{K}\ (\lambda_K-\lambda_{K+1})"
    )
    explain(
        "GroPLE's first stage (§3) compares label columns by an affinity A, embeds them with "
        "the leading eigenvectors of Â and clusters them into K groups by k-means. The "
        "largest gap between consecutive eigenvalues suggests K."
    )
    if L < 3:
        st.warning(
            f"This data set has {L} label{'s' if L != 1 else ''}: with fewer than 3 labels "
            "there is no choice of groups to make and no eigengap to read, so this step has "
            "no figure. Step 4 treats all labels as one group."
        )
        return
    if c.too_many_labels("The affinity between the labels"):
        return
    k_max = c.groups_k_max()
    c1, c2 = st.columns(2)
    c.ensure("lesson_groups_affinity", lambda v: v in AFFINITY_LABELS)
    affinity = c.bound(
        c1.selectbox,
        "Affinity",
        list(AFFINITY_LABELS),
        format_func=AFFINITY_LABELS.get,
        key="lesson_groups_affinity",
    )
    c.ensure("lesson_groups_k", in_range(2, k_max))
    with c2:
        k = int(c.bound(st.slider, "Number of groups K", 2, k_max, key="lesson_groups_k"))
    model = fits.clustering(c, k, affinity)
    if model is None or model.labels_.shape != (L,):
        return
    suggested = model.suggest_n_groups(max_groups=k_max)
    try_this(
        "groups",
        f"use K = {suggested}, the eigengap's suggestion",
        {"lesson_groups_k": suggested},
        why_disabled=f"K is {suggested} already." if suggested == k else "",
    )
    frequencies = stats.label_frequencies(split.Y_train, relative=True)
    if L <= MAX_BARS:
        fig = cluster_figures.affinity_heatmap(
            model.affinity_, model.labels_, names, frequencies=frequencies
        )
    else:
        fig = cluster_figures.group_affinity_heatmap(model.affinity_, model.labels_)
    chart(fig, key="lesson_groups_heatmap")
    diagnostics = group_diagnostics(
        split.Y_train, model.labels_, label_names=names, tail_threshold=tail_threshold()
    )
    never = cluster_figures.never_cooccurring_groups(diagnostics)
    gap = model.eigenvalues_[suggested - 1] - model.eigenvalues_[suggested]
    points = [
        f"The eigengap suggests **K = {suggested}** "
        f"($\\lambda_{{{suggested}}} - \\lambda_{{{suggested + 1}}}$ = {gap:.3f}, the largest "
        f"drop for K = 2..{min(k_max, model.eigenvalues_.size - 1)}).",
        (
            f"With K = {k} the {AFFINITY_LABELS[affinity]} gives {model.n_groups_} groups; "
            + (
                f"**{len(never)}** of them hold labels that never appear together in a training "
                f"instance (sizes {', '.join(str(n) for n in never['n_labels'])}): held together "
                "by the affinity, not by co-occurrence."
                if len(never)
                else "every group of two or more labels has a pair that co-occurs in training."
            )
        ),
    ]
    if L > MAX_BARS:
        points.append(
            f"{L} labels are too many to name: each cell is the mean affinity between two groups."
        )
    if planted_groups is not None:
        ari = adjusted_rand_score(planted_groups, model.labels_)
        points.append(
            f"Planted sample: agreement with the four planted groups is ARI = **{ari:.2f}** "
            "(1 = exactly the planted groups)."
        )
    notice(points)

"""Step 3: label groups, GroPLE's first stage (paper 001, §3): affinity, eigengap, K."""

from __future__ import annotations

import streamlit as st
from sklearn.metrics import adjusted_rand_score

from mlviz import stats
from mlviz.figures import label_clusters as cluster_figures
from mlviz.label_clustering import (
    DEFAULT_MAX_GROUP_SHARE,
    DEFAULT_MAX_SINGLETON_SHARE,
    group_diagnostics,
    verdict_counts,
)
from pages._lesson.methods import AFFINITY_LABELS
from pages._lesson.state import (
    GROUPS_AFFINITY_KEY,
    Lesson,
    chart,
    explain,
    formula,
    grouping_controls,
    occurring_labels,
    record_grouping,
    tail_threshold,
    try_this,
)
from pages._lesson.text import MAX_BARS, notice


def _faults(spectrum, k: int) -> list[str]:
    """What the default rule holds against the partition at K (its two shares)."""
    largest, alone = spectrum.partition_shares(k)
    return [
        fault
        for fault, held in (
            ("put more than half the labels into one", largest > DEFAULT_MAX_GROUP_SHARE),
            ("leave more than half the labels alone", alone > DEFAULT_MAX_SINGLETON_SHARE),
        )
        if held
    ]


def _why_not_default(spectrum, eigengap_k: int, default_k: int) -> str:
    """Why the default rule (LabelClustering.default_n_groups) passes over the eigengap's K,
    from the shares of both partitions: the clause after "The eigengap suggests K = ..."."""
    faults = _faults(spectrum, eigengap_k)
    said = " and ".join(faults) if faults else "are not the rule's choice"
    if _faults(spectrum, default_k):  # no K qualified: the rule's fallback
        return (
            f"; its groups {said}, and so do those of every other K, so the default rule "
            f"takes **K = {default_k}**, the K that exceeds those shares least."
        )
    return (
        f"; its groups {said}, so the default rule takes **K = {default_k}**, the largest gap "
        "whose groups do neither."
    )


def show(c: Lesson) -> None:
    L, planted_groups = c.L, c.planted_groups
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
            f"This data set has {L:,} label{'s' if L != 1 else ''}: with fewer than 3 labels "
            "there is no choice of groups to make and no eigengap to read, so this step has "
            "no figure. Step 4 treats all labels as one group."
        )
        return
    if c.too_many_labels("The affinity between the labels"):
        return
    # the app's one grouping (pages/_app/grouping.py): the same affinity, K and groups as the
    # Label clusters and Hypercube pages, fitted on all rows (it describes the labels)
    c1, c2 = st.columns(2)
    shared = grouping_controls(c1, c2)
    if shared is None:
        st.warning(
            "The labels of this data set cannot be grouped here (fewer than 3 of them occur, "
            "or the clustering failed: see above), so this step has no figure."
        )
        return
    model, k, affinity = shared.model, shared.k, shared.affinity
    names = shared.names  # the labels that occur (the grouping is of these)
    record_grouping("lesson", affinity, k, model.labels_)
    # co-occurrence keeps the rare labels with the labels they occur with (the heat kernel
    # gathers them by rarity): the contrast the step teaches
    try_this(
        "groups",
        f"use the {AFFINITY_LABELS['cooccurrence']}",
        {GROUPS_AFFINITY_KEY: "cooccurrence"},
        why_disabled="The affinity is co-occurrence already." if affinity == "cooccurrence" else "",
    )
    Y = occurring_labels()
    frequencies = stats.label_frequencies(Y, relative=True)
    if shared.columns.size <= MAX_BARS:
        fig = cluster_figures.affinity_heatmap(
            model.affinity_, model.labels_, names, frequencies=frequencies
        )
    else:
        fig = cluster_figures.group_affinity_heatmap(model.affinity_, model.labels_)
    chart(fig, key="lesson_groups_heatmap")
    diagnostics = group_diagnostics(
        Y, model.labels_, label_names=names, tail_threshold=tail_threshold()
    )
    counts = verdict_counts(diagnostics)
    doubtful = diagnostics[diagnostics["verdict"].isin(["never co-occur", "tail bucket", "weak"])]
    suggested = shared.eigengap_k
    spectrum = shared.spectrum.eigenvalues_
    gap = spectrum[suggested - 1] - spectrum[suggested]
    points = [
        f"The eigengap suggests **K = {suggested}** "
        f"($\\lambda_{{{suggested}}} - \\lambda_{{{suggested + 1}}}$ = {gap:.3f}, the largest "
        f"drop for K = 2..{min(shared.k_max, spectrum.size - 1)})"
        + (
            _why_not_default(shared.spectrum, suggested, shared.default_k)
            if shared.default_k != suggested
            else ", as does the default rule."
        ),
        f"With K = {k} the {AFFINITY_LABELS[affinity]} gives {model.n_groups_} groups: "
        + ", ".join(f"{n} {v}" for v, n in counts.items())
        + (
            f". **{len(doubtful)}** of them are not evidence that their labels belong "
            "together ("
            + "; ".join(f"group {row.group}: {row.reason}" for row in doubtful.head(3).itertuples())
            + ")."
            if len(doubtful)
            else ": every group of two or more labels passes the verdict rules."
        ),
    ]
    if shared.columns.size > MAX_BARS:
        points.append(
            f"{shared.columns.size} labels are too many to name: each cell is the mean affinity "
            "between two groups."
        )
    if planted_groups is not None:
        ari = adjusted_rand_score(planted_groups[shared.columns], model.labels_)
        points.append(
            f"Planted sample: agreement with the four planted groups is ARI = **{ari:.2f}** "
            "(1 = exactly the planted groups)."
        )
    notice(points)

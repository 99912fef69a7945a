"""What a GroPLE fit learned: V^k, the label groups it used (against chance), absent labels."""

from __future__ import annotations

import numpy as np
import streamlit as st

from mlviz import stats
from mlviz.figures import grople as figures
from mlviz.figures import label_clusters as cluster_figures
from mlviz.figures._style import WIDE_TITLE_CHARS
from mlviz.label_clustering import AFFINITIES, group_diagnostics, verdict_counts
from mlviz.wording import counted
from pages._app import chance, experiment, export, fitting, grouping, links, source, tables
from pages._grople.context import GROPLE, GroPLEPage
from pages._grople.settings import Settings


def decoding_matrix(page: GroPLEPage, model) -> None:
    """V^k: one column per label when they can be named, else one per group and a drill-down."""
    L = page.n_labels
    if L <= figures.MAX_NAMED_LABELS:
        export.chart(
            fitting.figure(
                figures.vk_heatmap,
                model.V_,
                model.groups_,
                page.ds.label_names,
                row_support=model.row_support_,
                title_width=WIDE_TITLE_CHARS,  # drawn across the page
            ),
            key="grople_vk",
        )
    else:  # too many labels to name: one column per group, and one group's labels on request
        export.chart(
            fitting.figure(
                figures.vk_group_heatmap, model.V_, model.groups_, row_support=model.row_support_
            ),
            key="grople_vk_groups",
        )
        group_ids, group_sizes = np.unique(model.groups_, return_counts=True)
        position = links.bound(
            st.selectbox,
            "Drill down into group",
            range(len(group_ids)),
            format_func=lambda p: f"V^{group_ids[p]} ({group_sizes[p]} labels)",
            key="grople_drill_group",
        )
        members, shown_note = cluster_figures.drill_down_members(
            model.groups_,
            group_ids[position],
            stats.label_frequencies(page.split.Y_train),
            max_labels=figures.MAX_NAMED_LABELS,
        )
        export.chart(
            fitting.figure(
                figures.vk_heatmap,
                model.V_[:, members],
                model.groups_[members],
                [page.ds.label_names[j] for j in members],
                row_support=model.row_support_[[position]],
                title=f"V<sup>{group_ids[position]}</sup>: {shown_note}",
                title_width=WIDE_TITLE_CHARS,
            ),
            key="grople_vk_drill",
        )
    # the fitted model's own λ2: after a widget change without a press the view is the last fit
    st.caption(figures.row_pattern_caption(model.row_support_, model.lambda2, model.lambda2_max_))


def training_group_diagnostics(groups, threshold):
    """:func:`group_diagnostics` of a fit's groups on the training split, cached per split,
    groups and tail rule: the page recomputed it on every rerun, a slider move that fits
    nothing included (~0.3 s at 983 labels)."""
    return group_diagnostics(
        experiment.current_split().Y_train,
        groups,
        label_names=source.current_dataset().label_names,
        tail_threshold=threshold,
    )


def _verdicts(diagnostics):
    """The groups' verdict counts and the groups whose labels never co-occur (once per
    grouping: on every rerun they were a twentieth of the page's)."""
    return verdict_counts(diagnostics), cluster_figures.never_cooccurring_groups(diagnostics)


def label_groups(page: GroPLEPage, settings: Settings, model) -> None:
    """The groups stage 1 made, their diagnostics, and the comparison with random groupings."""
    st.subheader("The label groups GroPLE used")
    groups_used = fitting.compute(
        training_group_diagnostics,
        {"groups": model.groups_, "threshold": experiment.tail_threshold()},
        label="Group diagnostics",
    )
    if groups_used is None:
        return
    # no bootstrap here: the stability column would be empty (the caption says so)
    tables.group_table(
        groups_used, latent_rows_used=model.row_support_.sum(axis=1), stability=False
    )
    summary = fitting.compute(
        _verdicts,
        {"diagnostics": groups_used},
        label="Group verdicts",
        uses_split=False,
        small=True,
    )
    if summary is None:
        return
    counts, never_used = summary
    affinity_used = model.label_affinity
    st.caption(
        f"Stage 1 grouped the training labels with the {affinity_used} affinity "
        f"({AFFINITIES[affinity_used]}) into {model.n_groups_} groups; each row lists a group's "
        "labels (training split), the latent rows its V^k uses out of d, and how often its "
        "labels co-occur. Verdicts on the training split: "
        + ", ".join(f"{n} {v}" for v, n in counts.items())
        + " (without the stability rule: the groups' stability under resampling is not "
        "measured here)."
        + (
            f" {counted(len(never_used), 'group holds', plural='groups hold')} labels that "
            "never appear together on the "
            "training split: GroPLE shares latent rows between labels with no evidence that "
            "they belong together."
            if len(never_used)
            else ""
        )
    )
    shared = settings.shared
    if shared is not None and model.groups_.shape == (page.n_labels,):
        grouping.training_note(shared, model.groups_, "GroPLE")
        grouping.record(
            "grople", model.label_affinity, model.n_groups, model.groups_[shared.columns]
        )


def against_chance(settings: Settings, model) -> None:
    """The button that cross-validates GroPLE with these groups and with random ones."""
    st.subheader("The groups against chance")
    # the page's GroPLE (its sliders) on the training rows, with the groups this fit used
    chance.panel(
        GROPLE.make(**settings.params),
        model.groups_,
        key="grople_chance",
        rows="train",
        what="the groups of this fit",
    )


def absent_labels(page: GroPLEPage, model) -> None:
    """What GroPLE does with labels the training split never shows (a caption, if any)."""
    split = page.split
    absent = np.flatnonzero(~split.Y_train.astype(bool).any(axis=0))
    if not absent.size:
        return
    n_predicted = int(model.predict(split.X_test)[:, absent].any(axis=0).sum())
    st.caption(
        f"Labels that never occur in the training split: {absent.size} of {page.n_labels}. "
        "Their columns of Y are constant, so GroPLE learns nothing about them ("
        + (
            "the heat kernel makes all such labels identical and puts them in one group"
            if model.label_affinity == "heat"
            else "this affinity leaves them unconnected to every other label"
        )
        + f"). On the test split GroPLE predicts {n_predicted} of them for at least one "
        "instance."
    )

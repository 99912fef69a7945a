"""Label clusters page: which labels belong together, how many groups, and how sure we are."""

from __future__ import annotations

import numpy as np
import streamlit as st
from sklearn.metrics import adjusted_rand_score

from mlviz import datasets, stats
from mlviz.figures import label_clusters as figures
from mlviz.figures._style import TITLE_CHARS, WIDE_TITLE_CHARS
from mlviz.label_clustering import (
    AFFINITIES,
    LabelClustering,
    clustering_stability,
    group_diagnostics,
)
from mlviz.methods import AFFINITY_LABELS
from pages._app import experiment, export, fitting, links, plain, source, tables

MIN_LABELS = 3  # below this there is no eigengap to read and no partition to choose
MAX_K = 30
# beyond ~25 names a part-width heatmap cannot name every column legibly (medical's 45 overlap),
# so the heatmap and the spectrum stand one below the other, each across the page
SIDE_BY_SIDE_MAX_LABELS = 25
AUTO_SWEEP_MAX_LABELS = 100  # larger label sets compute the K sweep on request
N_RESAMPLES = 10

ds = source.current_dataset()
st.title("Label clusters")
st.markdown(
    "GroPLE's first stage (Kumar et al., §3) groups labels by spectral clustering: an "
    "affinity between label columns, the leading eigenvectors of the normalised affinity "
    "D^-1/2 A D^-1/2, then k-means. Each group later gets its own sparse latent rows."
)
# A label that never occurs carries no evidence about groups: every such column is the same
# all-zero column (the heat kernel sees them as identical, co-occurrence and correlation as
# unconnected), so grouping them would only report the data's gaps. The page groups the rest.
occurring = np.flatnonzero(np.asarray(ds.Y.sum(axis=0)).ravel() > 0)
Y = ds.Y[:, occurring]
L = occurring.size
names = [ds.label_names[j] for j in occurring]
never_occurring = [ds.label_names[j] for j in np.setdiff1d(np.arange(ds.n_labels), occurring)]
if never_occurring:
    listed = ", ".join(plain.markdown(n, 40) for n in never_occurring[:5])
    more = f" and {len(never_occurring) - 5:,} more" if len(never_occurring) > 5 else ""
    st.info(
        f"{len(never_occurring):,} of the {ds.n_labels:,} labels never "
        + ("occurs" if len(never_occurring) == 1 else "occur")
        + f" in {plain.markdown(ds.name)} "
        f"({listed}{more}). A label that never occurs carries no evidence about groups (an "
        "all-zero column: the heat kernel sees all of them as identical, co-occurrence and "
        f"correlation as unconnected), so this page groups the {L:,} labels that occur."
    )

if L < MIN_LABELS:
    st.warning(
        f"Label clusters needs at least {MIN_LABELS} labels; this data set has {L}"
        + (" that occur" if never_occurring else "")
        + ". With fewer there is no choice of groups to make (and no eigengap to read)."
    )
    if L == 2:
        both = int((Y[:, 0].astype(bool) & Y[:, 1].astype(bool)).sum())
        jaccard = stats.cooccurrence(Y, normalize="jaccard")[0, 1]
        st.markdown(
            f"What the data does say: **{plain.markdown(names[0])}** and **"
            f"{plain.markdown(names[1])}** occur together on "
            f"{both} of {ds.n_samples} instances (Jaccard co-occurrence {jaccard:.3f})."
        )
    st.stop()

k_max = min(MAX_K, L)
if st.session_state.get("clusters_k", 0) > k_max:
    st.session_state["clusters_k"] = k_max  # a previous data set had more labels

c1, c2 = st.columns([1, 2])
affinity = links.bound(
    c1.selectbox,
    "Affinity between labels",
    list(AFFINITY_LABELS),
    format_func=AFFINITY_LABELS.__getitem__,
    key="clusters_affinity",
    persist_state="session",
    help="The paper's heat kernel is the default. Co-occurrence keeps rare labels with the "
    "labels they occur with.",
)


# the whole data set, not the split: this page describes the labels, it predicts nothing;
# only the labels that occur (the Hypercube page clusters all label columns)
# fitted at the largest K offered, so that the spectrum holds every gap up to k_max
spectrum_model = fitting.fit(
    LabelClustering(n_groups=k_max, affinity=affinity, random_state=0),
    rows="all",
    columns=occurring,
    label="Label spectrum",
    spinner="Affinity between the labels and its leading eigenvalues…",
)
if spectrum_model is None:
    st.stop()
suggested = spectrum_model.suggest_n_groups(max_groups=k_max)
n_groups = links.bound(
    c2.slider,
    "Number of groups K",
    2,
    k_max,
    suggested,
    key="clusters_k",
    persist_state="session",
    help=f"Opens at the eigengap's suggestion for this data set and affinity (K = {suggested}).",
)
tail = experiment.tail_threshold()


model = fitting.fit(
    LabelClustering(n_groups=n_groups, affinity=affinity, random_state=0),
    rows="all",
    columns=occurring,
    label="Label clustering",
    spinner=f"Clustering {L} labels into K = {n_groups} groups…",
)
if model is None:
    st.stop()


def label_groups(model: LabelClustering, tail: float):
    return group_diagnostics(Y, model.labels_, label_names=names, tail_threshold=tail)


# keyed by the model itself: after a failed fit ``model`` is the last one that worked
diagnostics = fitting.compute(
    label_groups,
    {"model": model, "tail": tail},
    label="Group diagnostics",
    uses_split=False,
)
if diagnostics is None:
    st.stop()
never = figures.never_cooccurring_groups(diagnostics)
truth = datasets.known_groups(ds)
if truth is not None:
    truth = truth[occurring]

st.markdown(f"**{AFFINITY_LABELS[affinity].capitalize()}**: {AFFINITIES[affinity]}.")
cols = st.columns(4)
cols[0].metric(
    "Groups found",
    model.n_groups_,
    help="k-means can return fewer groups than K when labels coincide.",
)
cols[1].metric(
    "Eigengap suggests K",
    suggested,
    help="Where the largest drop between consecutive eigenvalues occurs (K ≥ 2).",
)
cols[1].button(
    f"Use K = {suggested}",
    key="clusters_use_suggested",
    disabled=suggested == n_groups,
    on_click=lambda: st.session_state.update(clusters_k=suggested),
)
cols[2].metric(
    "Never co-occurring",
    len(never),
    help="Groups of two or more labels in which no pair of labels appears together "
    "in any instance.",
)
if truth is not None:
    cols[3].metric(
        "ARI vs planted groups",
        f"{adjusted_rand_score(truth, model.labels_):.3f}",
        help="Adjusted Rand index against the groups planted in this sample: 1 = exactly the "
        "planted groups, 0 = chance.",
    )

if len(never):
    sizes = ", ".join(str(n) for n in never["n_labels"])
    st.warning(
        f"{len(never)} of the {model.n_groups_} groups (sizes {sizes}) contain labels that "
        "never appear together in any instance: such a group is an artefact of the affinity, "
        "not labels that belong together ("
        + (
            "the heat kernel makes rare labels alike because they are absent together"
            if affinity == "heat"
            else "labels that co-occur with no other label are isolated in the graph and end up "
            "in one group"
        )
        + "). Details in the group table below."
    )
else:
    st.info(
        f"Every group of two or more labels has at least one pair that co-occurs "
        f"(K = {n_groups}, {AFFINITY_LABELS[affinity]})."
    )

frequencies = stats.label_frequencies(Y, relative=True)
side_by_side = L <= SIDE_BY_SIDE_MAX_LABELS
left, right = st.columns([3, 2]) if side_by_side else (st.container(), st.container())
with left:
    if L <= figures.MAX_NAMED_LABELS:
        export.chart(
            figures.affinity_heatmap(
                model.affinity_, model.labels_, names, frequencies=frequencies
            ),
            key="clusters_affinity_heatmap",
        )
        st.caption(
            "Affinity between labels, rows and columns ordered by group (label names and the "
            "outline of each group's block in the group's colour, most frequent label first). "
            "A dark block on the diagonal is a group whose labels are alike under this "
            "affinity; a pale block is a group the affinity does not support."
        )
    else:
        export.chart(
            figures.group_affinity_heatmap(model.affinity_, model.labels_),
            key="clusters_group_heatmap",
        )
        st.caption(
            f"{L} labels are too many to name on one heatmap: each cell is the mean affinity "
            "between two groups (the diagonal: within a group). Pick a group below to see its "
            "labels."
        )
        group_sizes = diagnostics.set_index("group")["n_labels"]
        chosen_group = links.bound(
            st.selectbox,
            "Drill down into group",
            list(group_sizes.index),
            format_func=lambda g: f"group {g} ({group_sizes[g]} labels)",
            key="clusters_drill_group",
        )
        members = (model.labels_ == chosen_group).nonzero()[0]
        if members.size > figures.MAX_NAMED_LABELS:
            members = members[(-frequencies[members]).argsort(kind="stable")]
            members = members[: figures.MAX_NAMED_LABELS]
            shown_note = (
                f"the {figures.MAX_NAMED_LABELS} most frequent of its "
                f"{int(group_sizes[chosen_group])} labels"
            )
        else:
            shown_note = f"all {members.size} labels"
        members.sort()
        export.chart(
            figures.affinity_heatmap(
                model.affinity_[members][:, members],
                model.labels_[members],
                [names[j] for j in members],
                frequencies=frequencies[members],
                title=f"Group {chosen_group}: affinity between {shown_note}",
            ),
            key="clusters_drill_heatmap",
        )
with right:
    shown = min(MAX_K + 1, spectrum_model.eigenvalues_.size)
    export.chart(
        figures.eigenvalue_figure(
            spectrum_model.eigenvalues_,
            suggested,
            chosen_k=n_groups,
            max_shown=shown,
            n_labels=L,
            title_width=TITLE_CHARS if side_by_side else WIDE_TITLE_CHARS,
        ),
        key="clusters_eigen",
    )
    gap = spectrum_model.eigenvalues_[suggested - 1] - spectrum_model.eigenvalues_[suggested]
    st.caption(
        f"Eigenvalues of the normalised affinity, largest first; the grey line marks the chosen "
        f"K = {n_groups}. The largest drop within K = 2.."
        f"{min(k_max, spectrum_model.eigenvalues_.size - 1)} "
        f"is after λ_{suggested} "
        f"({gap:.3f}), so the eigengap suggests K = {suggested}. A clear gap means K "
        "well-separated groups; a smooth decline means the spectrum does not settle K — use "
        "the sweep below."
    )

st.subheader("Choosing K from evidence")
# K = L (every label alone) is trivially stable, so the sweep stops at L - 1
sweep_ks = list(range(2, min(k_max, L - 1) + 1))


def stability_sweep(affinity: str, ks: tuple[int, int], B: int):
    return clustering_stability(
        Y,
        list(range(ks[0], ks[1] + 1)),
        affinity=affinity,
        n_resamples=B,
        random_state=0,
    )


sweep_automatic = L <= AUTO_SWEEP_MAX_LABELS
sweep = fitting.compute(
    stability_sweep,
    {"affinity": affinity, "ks": (sweep_ks[0], sweep_ks[-1]), "B": N_RESAMPLES},
    on="change" if sweep_automatic else "button",
    key="clusters_sweep",
    label="Compute the K sweep",
    spinner=f"Clustering {N_RESAMPLES} bootstrap samples at K = 2..{sweep_ks[-1]}…",
    uses_split=False,
    first_fit_automatic=False,
)
if sweep is None and not sweep_automatic:
    st.caption(
        f"With {L} labels the sweep ({len(sweep_ks)} values of K × {N_RESAMPLES} "
        "bootstrap samples) takes a while, so it runs on request."
    )
if sweep is not None:
    export.chart(figures.stability_figure(sweep, chosen_k=n_groups), key="clusters_sweep_figure")
    best = sweep.loc[sweep["stability"].idxmax()]
    by_k = sweep.set_index("n_groups")
    st.caption(
        f"Top: how reproducible the groups are when the instances are resampled "
        f"({N_RESAMPLES} bootstrap samples; mean adjusted Rand index with the full-data "
        f"groups, bars ± 1 sd). Bottom: share of label pairs inside groups that occur "
        f"together at least once; red crosses mark K with groups whose labels never "
        f"co-occur. Here the most stable K is {int(best['n_groups'])} "
        f"(ARI {best['stability']:.2f})"
        + (
            f"; at the chosen K = {n_groups} the stability is "
            f"{by_k.loc[n_groups, 'stability']:.2f} and "
            f"{by_k.loc[n_groups, 'cooccurrence_rate']:.0%} of within-group pairs co-occur."
            if n_groups in by_k.index
            else f". K = {L} (every label alone) is not swept: it is trivially stable."
        )
    )

st.subheader("The groups")
tables.group_table(diagnostics)
st.caption(
    "One row per group: support = instances carrying any of its labels; co-occurring pairs = "
    "share of its label pairs that occur together at least once (None for a single label); "
    f"tail share = share of its labels on fewer than {tail:.1%} of the instances (the "
    "sidebar's tail threshold)."
)
for _, row in never.iterrows():
    listed = ", ".join(str(n) for n in row["labels"][:10])
    more = f" and {row['n_labels'] - 10} more" if row["n_labels"] > 10 else ""
    st.markdown(
        f"- **Group {row['group']}**: these {row['n_labels']} labels never appear together "
        f"({listed}{more}); {row['tail_share']:.0%} of them are tail labels. This group is an "
        "artefact of the affinity, not evidence that they belong together."
    )

with st.expander("Every label with its group"):
    table = figures.cluster_table(model.labels_, names, frequencies, tail)
    if truth is not None:
        table["planted group"] = truth[table.index.to_numpy()]
    tables.fitted_table(table, hide_index=True)

export.report_button("Label clusters")

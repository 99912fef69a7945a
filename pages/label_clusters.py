"""Label clusters page: which labels belong together, how many groups, and how sure we are."""

from __future__ import annotations

import streamlit as st
from sklearn.metrics import adjusted_rand_score

from mlviz import datasets, stats
from mlviz.figures import label_clusters as figures
from mlviz.label_clustering import (
    AFFINITIES,
    LabelClustering,
    clustering_stability,
    group_diagnostics,
)
from pages import _shared as shared

MIN_LABELS = 3  # below this there is no eigengap to read and no partition to choose
MAX_K = 30
AUTO_SWEEP_MAX_LABELS = 100  # larger label sets compute the K sweep on request
N_RESAMPLES = 10

ds = shared.current_dataset()
L = ds.n_labels
names = ds.label_names
st.title("Label clusters")
st.markdown(
    "GroPLE's first stage (Kumar et al., §3) groups labels by spectral clustering: an "
    "affinity between label columns, the leading eigenvectors of the normalised affinity "
    "D^-1/2 A D^-1/2, then k-means. Each group later gets its own sparse latent rows."
)

if L < MIN_LABELS:
    st.warning(
        f"Label clusters needs at least {MIN_LABELS} labels; this data set has {L}. "
        "With fewer there is no choice of groups to make (and no eigengap to read)."
    )
    if L == 2:
        both = int((ds.Y[:, 0].astype(bool) & ds.Y[:, 1].astype(bool)).sum())
        jaccard = stats.cooccurrence(ds.Y, normalize="jaccard")[0, 1]
        st.markdown(
            f"What the data does say: **{names[0]}** and **{names[1]}** occur together on "
            f"{both} of {ds.n_samples} instances (Jaccard co-occurrence {jaccard:.3f})."
        )
    st.stop()

AFFINITY_OPTIONS = ["heat", "cooccurrence", "correlation"]
AFFINITY_LABELS = {
    "heat": "heat kernel (paper)",
    "cooccurrence": "co-occurrence (Jaccard)",
    "correlation": "correlation",
}
k_max = min(MAX_K, L)
if st.session_state.get("clusters_k", 0) > k_max:
    st.session_state["clusters_k"] = k_max  # a previous data set had more labels

c1, c2 = st.columns([1, 2])
affinity = shared.bound(
    c1.selectbox,
    "Affinity between labels",
    AFFINITY_OPTIONS,
    format_func=AFFINITY_LABELS.__getitem__,
    key="clusters_affinity",
    persist_state="session",
    help="The paper's heat kernel is the default. Co-occurrence keeps rare labels with the "
    "labels they occur with.",
)


def _spectrum() -> LabelClustering:
    # fitted at the largest K offered, so that the spectrum holds every gap up to k_max
    return LabelClustering(n_groups=k_max, affinity=affinity).fit(ds.Y)


spectrum_model = shared.run_or_error(
    "Label spectrum",
    lambda: shared.cached("label-spectrum", {"affinity": affinity, "k_max": k_max}, _spectrum),
    state_key="clusters_spectrum",
)
if spectrum_model is None or spectrum_model.labels_.shape != (L,):
    st.stop()
suggested = spectrum_model.suggest_n_groups(max_groups=k_max)
n_groups = shared.bound(
    c2.slider,
    "Number of groups K",
    2,
    k_max,
    suggested,
    key="clusters_k",
    persist_state="session",
    help=f"Opens at the eigengap's suggestion for this data set and affinity (K = {suggested}).",
)
tail = shared.tail_threshold()


def _fit() -> LabelClustering:
    return LabelClustering(n_groups=n_groups, affinity=affinity).fit(ds.Y)


model = shared.run_or_error(
    "Label clustering",
    lambda: shared.cached("label-clustering", {"K": n_groups, "affinity": affinity}, _fit),
    state_key="clusters_model",
)
if model is None or model.labels_.shape != (L,):
    st.stop()

diagnostics = shared.run_or_error(
    "Group diagnostics",
    lambda: shared.cached(
        "label-groups",
        {"K": n_groups, "affinity": affinity, "tail": tail},
        lambda: group_diagnostics(ds.Y, model.labels_, label_names=names, tail_threshold=tail),
    ),
    state_key="clusters_diagnostics",
)
if diagnostics is None or int(diagnostics["n_labels"].sum()) != L:
    st.stop()
never = figures.never_cooccurring_groups(diagnostics)
truth = datasets.known_groups(ds)

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

frequencies = stats.label_frequencies(ds.Y, relative=True)
left, right = st.columns([3, 2])
with left:
    if L <= figures.MAX_NAMED_LABELS:
        shared.chart(
            figures.affinity_heatmap(model.affinity_, model.labels_, names, frequencies),
            key="clusters_affinity_heatmap",
        )
        st.caption(
            "Affinity between labels, rows and columns ordered by group (label names and the "
            "outline of each group's block in the group's colour, most frequent label first). "
            "A bright block on the diagonal is a group whose labels are alike under this "
            "affinity; a pale block is a group the affinity does not support."
        )
    else:
        shared.chart(
            figures.group_affinity_heatmap(model.affinity_, model.labels_),
            key="clusters_group_heatmap",
        )
        st.caption(
            f"{L} labels are too many to name on one heatmap: each cell is the mean affinity "
            "between two groups (the diagonal: within a group). Pick a group below to see its "
            "labels."
        )
        group_sizes = diagnostics.set_index("group")["n_labels"]
        chosen_group = shared.bound(
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
        shared.chart(
            figures.affinity_heatmap(
                model.affinity_[members][:, members],
                model.labels_[members],
                [names[j] for j in members],
                frequencies[members],
                title=f"Group {chosen_group}: affinity between {shown_note}",
            ),
            key="clusters_drill_heatmap",
        )
with right:
    shown = min(MAX_K + 1, spectrum_model.eigenvalues_.size)
    shared.chart(
        figures.eigenvalue_figure(
            spectrum_model.eigenvalues_, suggested, chosen_k=n_groups, max_shown=shown, n_labels=L
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


def _sweep():
    return clustering_stability(
        ds.Y, sweep_ks, affinity=affinity, n_resamples=N_RESAMPLES, random_state=0
    )


sweep_params = {"affinity": affinity, "ks": (sweep_ks[0], sweep_ks[-1]), "B": N_RESAMPLES}
run_sweep = L <= AUTO_SWEEP_MAX_LABELS or st.session_state.get("clusters_sweep_for") == (
    ds.digest,
    affinity,
)
if not run_sweep:
    st.caption(
        f"With {L} labels the sweep ({len(sweep_ks)} values of K × {N_RESAMPLES} "
        "bootstrap samples) takes a while, so it runs on request."
    )
    if st.button("Compute the K sweep", key="clusters_sweep_button"):
        st.session_state["clusters_sweep_for"] = (ds.digest, affinity)
        run_sweep = True
if run_sweep:
    with st.spinner(f"Clustering {N_RESAMPLES} bootstrap samples at K = 2..{sweep_ks[-1]}…"):
        sweep = shared.run_or_error(
            "K sweep",
            lambda: shared.cached("label-clusters-sweep", sweep_params, _sweep),
            state_key="clusters_sweep",
        )
    if sweep is not None and int(sweep["n_groups"].max()) == sweep_ks[-1]:
        shared.chart(
            figures.stability_figure(sweep, chosen_k=n_groups), key="clusters_sweep_figure"
        )
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
shared.fitted_table(
    figures.group_table(diagnostics),
    hide_index=True,
    column_config={
        "co-occurring pairs": st.column_config.NumberColumn(
            format="%.2f", width=shared.NUMBER_COLUMN_PX, help="co-occurring pairs"
        ),
        "mean Jaccard": st.column_config.NumberColumn(
            format="%.3f", width=shared.NUMBER_COLUMN_PX, help="mean Jaccard"
        ),
        "tail share": st.column_config.NumberColumn(
            format="%.2f", width=shared.NUMBER_COLUMN_PX, help="tail share"
        ),
        "verdict": st.column_config.TextColumn(width="small", help="verdict"),
        "labels": st.column_config.TextColumn(width="medium", help="labels"),
    },
)
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
    shared.fitted_table(table, hide_index=True)

shared.report_button("Label clusters")

"""Label clusters page: which labels belong together, and how many groups to ask for."""

from __future__ import annotations

import streamlit as st
from sklearn.metrics import adjusted_rand_score

from mlviz import datasets, stats
from mlviz.figures import label_clusters as figures
from mlviz.label_clustering import LabelClustering
from pages import _shared as shared

ds = shared.current_dataset()
L = ds.n_labels
st.title("Label clusters")
st.markdown(
    "GroPLE's first stage (Kumar et al., §3) groups labels by spectral clustering: a heat-kernel "
    "affinity between label columns with a self-tuned scale, the leading eigenvectors of the "
    "normalised affinity, then k-means. Labels that co-occur end up together; each group later "
    "gets its own sparse latent rows."
)

c1, c2 = st.columns(2)
n_groups = c1.slider("Number of groups K", 1, max(2, min(30, L)), min(10, L) if L > 1 else 1,
                     key="clusters_k", persist_state="session")
tail_threshold = c2.slider("Tail threshold (share of instances)", 0.0, 0.2, 0.05, 0.005,
                           format="%.3f", key="clusters_tail", persist_state="session")


def _fit():
    return LabelClustering(n_groups=n_groups).fit(ds.Y)


model = shared.run_or_error(
    "Label clustering",
    lambda: shared.cached("label-clustering", {"K": n_groups}, _fit),
    state_key="clusters_model",
)
if model is None or len(model.labels_) != L:
    st.stop()
if n_groups > L:
    st.info(f"K = {n_groups} is more than the {L} labels: {model.n_groups_} groups were formed.")

frequencies = stats.label_frequencies(ds.Y, relative=True)
suggested = model.suggest_n_groups()
truth = datasets.known_groups(ds)
cols = st.columns(3)
cols[0].metric("Groups found", model.n_groups_)
cols[1].metric("Eigengap suggests K", suggested,
               help="Where the largest drop between consecutive eigenvalues occurs.")
if truth is not None:
    cols[2].metric("Agreement with planted groups (ARI)",
                   f"{adjusted_rand_score(truth, model.labels_):.3f}",
                   help="Adjusted Rand index: 1 = the planted groups exactly, 0 = chance.")

left, right = st.columns([3, 2])
with left:
    st.plotly_chart(
        figures.affinity_heatmap(model.affinity_, model.labels_, ds.label_names, frequencies),
        key="clusters_affinity",
    )
    st.caption(
        "Affinity between labels, rows and columns ordered by group (lines separate groups). "
        "Bright blocks on the diagonal are well-separated groups; a bright cell outside the "
        "blocks is a pair of labels that K split apart."
    )
with right:
    st.plotly_chart(figures.eigenvalue_figure(model.eigenvalues_, suggested, max_shown=30),
                    key="clusters_eigen")
    st.caption(
        "Eigenvalues of the normalised affinity, largest first. With K well-separated groups "
        "the first K are close to 1 and then the values drop: the eigengap marks a natural K."
    )

st.subheader("Where do the tail labels go?")
table = figures.cluster_table(model.labels_, ds.label_names, frequencies, tail_threshold)
if truth is not None:
    table["planted group"] = [truth[ds.label_names.index(name)] for name in table["label"]]
st.dataframe(table, hide_index=True)
st.caption(
    "Each label with its group and frequency. Rare labels carry little co-occurrence evidence, "
    "so they often join whichever group they happen to co-occur with, or form groups of their "
    "own when K is large."
)

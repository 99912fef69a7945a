"""Hypercube page: the label sets a data set occupies, as vertices of {0,1}^L."""

from __future__ import annotations

import numpy as np
import streamlit as st

from mlviz import hypercube
from mlviz.figures import hypercube as figures
from mlviz.label_clustering import LabelClustering
from mlviz.linear import PLST
from pages import _shared as shared

ds = shared.current_dataset()
st.title("The label hypercube")
st.markdown(
    "Each label set is a corner (vertex) of the hypercube {0,1}^L. A data set occupies only a "
    "few of its 2^L corners; label-embedding methods look for a low-dimensional space in which "
    "those occupied corners stay apart (PLST paper, §2–3)."
)

vertices, counts = hypercube.occupied_vertices(ds.Y)
edges = hypercube.hamming_edges(vertices)
st.caption(
    f"{len(vertices):,} occupied vertices out of 2^{ds.n_labels} "
    f"(log10 share {np.log10(len(vertices)) - ds.n_labels * np.log10(2):.1f}), "
    f"{len(edges):,} pairs one label apart."
)

if ds.n_labels == 3:
    n_dirs = st.slider("PLST directions to draw (M)", 0, 3, 1, key="cube_m",
                       persist_state="session")
    plst = shared.cached(
        "plst-cube", {"M": max(n_dirs, 1)},
        lambda: PLST(n_components=max(n_dirs, 1)).fit(shared.current_split().X_train,
                                                      shared.current_split().Y_train),
    )
    fig = figures.cube_figure(
        vertices, counts, ds.label_names, offset=plst.offset_,
        directions=plst.components_[:n_dirs] if n_dirs else None,
    )
    st.plotly_chart(fig, key="cube_chart")
    st.caption(
        "The literal cube: filled corners carry instances (bigger = more), hollow ones none. "
        "The black × is PLST's reference point o (the mean label vector of the training split); "
        "coloured lines are its principal directions. PLST keeps the coordinates of y − o along "
        "the first M lines and rounds back to the nearest corner: corners far from these lines "
        "are the ones it confuses."
    )
else:
    c1, c2, c3, c4 = st.columns(4)
    method = c1.selectbox(
        "Projection", ["pca", "mds", "umap"], key="cube_projection", persist_state="session",
        format_func={"pca": "PCA (PLST's view)", "mds": "classical MDS",
                     "umap": "UMAP (slow first time)"}.get,
    )
    dim = c2.radio("Dimensions", [2, 3], horizontal=True, key="cube_dim",
                   persist_state="session")
    colour_by = c3.radio("Colour by", ["label count", "label cluster"], key="cube_colour",
                         persist_state="session")
    n_groups = (
        c4.slider("Clusters (K)", 1, max(2, min(20, ds.n_labels)), min(4, ds.n_labels),
                  key="cube_k", persist_state="session")
        if colour_by == "label cluster" else None
    )

    def _project():
        return hypercube.project_vertices(vertices, counts, method=method, n_components=dim)

    spinner = ("Compiling UMAP (about 15 s the first time in this process)…"
               if method == "umap" else "Projecting…")
    with st.spinner(spinner):
        result = shared.run_or_error(
            "Projection",
            lambda: shared.cached("hypercube-projection", {"method": method, "dim": dim},
                                  _project),
            state_key="hypercube_projection",
        )
    if result is not None:
        coords, loadings = result
        if len(coords) != len(vertices):  # last good result belongs to another data set
            st.stop()
        colour, colour_title = None, "labels in set"
        if colour_by == "label cluster":
            clustering = shared.cached(
                "label-clustering", {"K": n_groups},
                lambda: LabelClustering(n_groups=n_groups).fit(ds.Y),
            )
            colour = hypercube.dominant_group(vertices, clustering.labels_)
            colour_title = "dominant cluster"
        show_axes = method == "pca" and st.checkbox(
            "Draw the label axes (biplot)", value=ds.n_labels <= 20, key="cube_axes",
            persist_state="session")
        st.plotly_chart(
            figures.hypercube_figure(
                coords, vertices, counts, edges, ds.label_names, color=colour,
                color_title=colour_title, loadings=loadings if show_axes else None,
            ),
            key="hypercube_chart",
        )
        st.caption(
            "Nodes are occupied label sets (size ~ √instances); grey lines join sets one label "
            "apart. With PCA the axes are PLST's first principal directions, so this is what PLST "
            "with M = 2 or 3 keeps; red arrows show where each label's axis points. Sets that "
            "overlap here are the ones a small M cannot tell apart."
        )

"""Data page: what the loaded data set looks like before any model touches it."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from mlviz import stats
from mlviz.figures import data as figures
from pages import _shared as shared

ds = shared.current_dataset()
st.title(f"Data: {ds.name}")

summary = stats.summary(ds)
cols = st.columns(5)
cols[0].metric("Instances", f"{ds.n_samples:,}")
cols[1].metric("Features", f"{ds.n_features:,}", help="sparse" if ds.is_sparse else "dense")
cols[2].metric("Labels", ds.n_labels)
cols[3].metric("Cardinality", f"{summary['cardinality']:.3f}", help="Mean labels per instance.")
cols[4].metric(
    "Distinct label sets",
    f"{summary['distinct']:,}",
    help="Occupied vertices of the label hypercube {0,1}^L; log10 of their share of all 2^L "
    f"vertices is {summary['log10_sparsity']:.1f}.",
)
if ds.notes:
    with st.expander("What the loader did"):
        for note in ds.notes:
            st.markdown(f"- {note}")

st.subheader("The long tail")
frequencies = stats.label_frequencies(ds.Y, relative=True)
threshold = st.slider(
    "Tail threshold (share of instances)",
    0.0,
    0.5,
    0.05,
    0.005,
    format="%.3f",
    key="tail_threshold",
    persist_state="session",
)
st.plotly_chart(
    figures.label_frequency_figure(frequencies, ds.label_names, threshold),
    key="label_frequency_chart",
)
st.caption(
    "Each bar is one label; red bars fall below the threshold. Embeddings that keep the "
    "directions of largest label variance (PLST) spend little of their budget on these rare "
    "labels — watch how they fare on the Compare page."
)

left, right = st.columns(2)
with left:
    normalize = st.radio(
        "Co-occurrence",
        ["counts", "jaccard", "conditional"],
        horizontal=True,
        key="cooc_norm",
        persist_state="session",
        help="conditional: row label's share of instances that also carry the column label.",
    )
    matrix = stats.cooccurrence(ds.Y, normalize=None if normalize == "counts" else normalize)
    st.plotly_chart(figures.cooccurrence_figure(matrix, ds.label_names), key="cooc_chart")
    st.caption(
        "Bright off-diagonal cells are labels that occur together: the groups GroPLE and the "
        "label-cluster view try to find."
    )
with right:
    st.plotly_chart(figures.cardinality_figure(ds.Y), key="cardinality_chart")
    st.caption("How many labels an instance carries; the mean is the label cardinality.")

st.subheader("Most common label sets")
counts = stats.labelset_counts(ds.Y, label_names=ds.label_names)
st.dataframe(counts.head(20), hide_index=True)
st.download_button(
    "Download statistics (CSV)",
    pd.DataFrame([summary]).to_csv(index=False),
    file_name=f"{ds.name}_statistics.csv",
    mime="text/csv",
)

"""Data page: what the loaded data set looks like before any model touches it."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from mlviz import stats
from mlviz.figures import data as figures
from pages._app import experiment, export, fitting, links, source

MAX_COOCCURRENCE_LABELS = 50  # a readable heatmap; more labels are cut to the most frequent
TOP_LABEL_SETS = 20

ds = source.current_dataset()
st.title(f"Data: {ds.name}")


threshold = experiment.tail_threshold()


def statistics(tail_threshold: float) -> tuple[dict, pd.DataFrame]:
    return (
        stats.summary(ds, tail_threshold=tail_threshold),
        stats.labelset_counts(ds.Y, label_names=ds.label_names),
    )


result = fitting.compute(
    statistics,
    {"tail_threshold": threshold},
    label="Statistics",
    uses_split=False,
)
if result is None:
    st.stop()
summary, labelset_counts = result
cols = st.columns(5)
cols[0].metric("Instances", f"{ds.n_samples:,}")
cols[1].metric("Features", f"{ds.n_features:,}", help="sparse" if ds.is_sparse else "dense")
cols[2].metric("Labels", ds.n_labels)
cols[3].metric("Cardinality", f"{summary['cardinality']:.3f}", help="Mean labels per instance.")
cols[4].metric(
    "Distinct label sets",
    f"{summary['distinct']:,}",
    help=r"Occupied vertices of the label hypercube $\{0,1\}^L$; log10 of their share of all $2^L$ "
    f"vertices is {summary['log10_sparsity']:.1f}.",
)
if ds.notes:
    with st.expander("What the loader did"):
        for note in ds.notes:
            st.markdown(f"- {note}")

st.subheader("The long tail")
frequencies = stats.label_frequencies(ds.Y, relative=True)
n_tail = int(stats.is_tail(frequencies, threshold).sum())
export.chart(
    figures.label_frequency_figure(frequencies, ds.label_names, threshold),
    key="label_frequency_chart",
)
st.caption(
    f"Each bar is one label's share of all {ds.n_samples:,} instances; the {n_tail} red bars "
    f"of {ds.n_labels} fall below the tail threshold of {threshold:.1%} (set under Experiment "
    "settings in the sidebar; the model pages apply it to the training split). Embeddings that "
    "keep the directions of largest label variance (PLST) spend little of their budget on "
    "rare labels — watch how they fare on the Compare page."
)

# most frequent first (ties: lower index), the order the title states
shown = np.argsort(-frequencies, kind="stable")[:MAX_COOCCURRENCE_LABELS]
# beyond ~25 names a half-width heatmap cannot name every row and column legibly
left, right = st.columns(2) if len(shown) <= 25 else (st.container(), st.container())
with left:
    normalize = links.bound(
        st.radio,
        "Co-occurrence",
        ["counts", "jaccard", "conditional"],
        horizontal=True,
        key="cooc_norm",
        persist_state="session",
        help="conditional: row label's share of instances that also carry the column label.",
    )
    names = [ds.label_names[i] for i in shown]
    matrix = stats.cooccurrence(
        ds.Y[:, shown], normalize=None if normalize == "counts" else normalize
    )
    title = "Label co-occurrence"
    if len(shown) < ds.n_labels:
        title += f" (the {len(shown)} most frequent of {ds.n_labels} labels, most frequent first)"
    export.chart(figures.cooccurrence_figure(matrix, names, title=title), key="cooc_chart")
    off_diagonal = np.where(np.eye(len(shown), dtype=bool), -np.inf, matrix.astype(float))
    if len(shown) < 2:
        st.caption("With a single label there are no pairs: the one cell is its own count.")
    elif off_diagonal.max() <= 0:
        st.caption("No two of these labels ever occur on the same instance.")
    else:
        i, j = np.unravel_index(np.argmax(off_diagonal), off_diagonal.shape)
        st.caption(
            "Darker off-diagonal cells are labels that occur together more: the groups GroPLE "
            f"and the label-cluster view try to find. The darkest here is {names[i]} & "
            f"{names[j]} ({off_diagonal[i, j]:.3g})."
        )
with right:
    export.chart(figures.cardinality_figure(ds.Y), key="cardinality_chart")
    st.caption(
        f"How many labels an instance carries; their mean, the label cardinality, is "
        f"{summary['cardinality']:.2f}. {summary['empty_instances']:,} instances carry no label."
    )

st.subheader("Most common label sets")
st.dataframe(labelset_counts.head(TOP_LABEL_SETS), hide_index=True)
st.caption(
    f"The {min(TOP_LABEL_SETS, len(labelset_counts))} most common of "
    f"{len(labelset_counts):,} distinct label sets; {summary['unique_labelsets']:,} label sets "
    "occur on a single instance."
)
st.download_button(
    "Download statistics (CSV)",
    pd.DataFrame([summary]).to_csv(index=False),
    file_name=f"{ds.name}_statistics.csv",
    mime="text/csv",
)

export.report_button("Data")

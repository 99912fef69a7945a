"""Compare's contribution by label frequency bin: the extreme classification papers' tail
figure (pyxclib's ``decile_contribution_plot``), from the run's out-of-fold scores.

The run keeps, per method, every label's contribution to P@k, R@k and PSP@k for each k of
:data:`BIN_KS` (L numbers each, :func:`mlviz.metrics.label_contributions`) while the scores
exist; the bins are then only sums, so the controls redraw without a new run.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from mlviz.figures.bins import frequency_bin_figure, frequency_bin_table
from mlviz.metrics import bin_by_frequency
from mlviz.stats import label_frequencies
from mlviz.wording import counted
from pages._app import export, fitting, links, plain
from pages._compare.context import Compare

#: The k of P@k, R@k and PSP@k the run keeps contributions for (the metrics table's k).
BIN_KS = (1, 3, 5)
#: The metrics whose contributions the run keeps.
BIN_METRICS = ("P", "R", "PSP")
#: Most bins offered (pyxclib's figure uses 10; more leaves a handful of labels a bin).
MAX_BINS = 20


def show(page: Compare, outcome: dict) -> None:
    """The section: metric, k and bin count, the grouped bars and their CSV."""
    L = page.n_labels
    contributions = outcome.get("contributions") or {}
    st.subheader("Where each method's hits come from: contribution by label frequency")
    missing = [m for m in outcome["methods"] if m not in contributions]
    if not contributions:
        st.info(
            "No method's out-of-fold scores were kept in this run"
            + (
                " (the data set is over the scores budget)"
                if not outcome.get("scores_kept", True)
                else ""
            )
            + ", so there is no contribution by frequency bin."
        )
        return
    c1, c2, c3 = st.columns(3)
    metric = links.bound(
        c1.selectbox,
        "Metric",
        list(BIN_METRICS),
        format_func=lambda m: f"{m}@k",
        key="compare_bins_metric",
        persist_state="session",
    )
    k = links.bound(
        c2.selectbox,
        "k",
        list(BIN_KS),
        index=len(BIN_KS) - 1,
        key="compare_bins_k",
        persist_state="session",
    )
    most = max(1, min(MAX_BINS, L))
    n_bins = (
        links.bound(
            c3.slider,
            "Bins",
            1,
            most,
            min(10, most),
            key="compare_bins_n",
            persist_state="session",
        )
        if most > 1
        else 1
    )
    counts = np.asarray(label_frequencies(page.ds.Y, relative=False), dtype=float)
    tables = {
        method: bin_by_frequency(values[f"{metric}@{k}"].to_numpy(), counts, n_bins=n_bins)
        for method, values in contributions.items()
    }
    export.chart(
        fitting.figure(frequency_bin_figure, tables, metric=metric, k=k), key="compare_bins"
    )
    first = next(iter(tables.values()))
    n_made = int((first["labels"] > 0).sum())
    st.caption(
        f"Each method's out-of-fold {metric}@{k} over every row, split by where its hits fall: "
        "labels sorted by their count over all rows (each fold trains on (k−1)/k of them) "
        f"and cut into bins of about equal total count (pyxclib's rule: a new bin when the "
        f"running count passes 1/{n_bins} of the total), rarest bin on the left; the bars of "
        f"a method sum to its {metric}@{k}, the last group. "
        + (
            f"Only {counted(n_made, 'bin')} of {n_bins} hold labels: a label whose count "
            f"passes 1/{n_bins} of the total closes a bin alone. "
            if n_made < n_bins
            else ""
        )
        + (
            "PSP: each hit weighted by the label's inverse propensity, over the best "
            "achievable (propensities from all rows). "
            if metric == "PSP"
            else ""
        )
        + (
            f"Not shown, no scores kept: {', '.join(plain.markdown(m) for m in missing)}; "
            "nothing is concluded about them."
            if missing
            else ""
        )
    )
    export.csv_button(
        "Download contributions by bin (CSV)",
        frequency_bin_table(tables),
        name=(page.ds.name, f"bins_{metric}_at_{k}"),
    )

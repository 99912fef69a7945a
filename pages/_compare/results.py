"""Compare's metrics: the table of every metric (mean ± sd over folds) and its chart."""

from __future__ import annotations

import streamlit as st

from mlviz.evaluation import aggregate, summarize
from mlviz.figures import compare as figures
from mlviz.metrics import AT_K_METRICS, METRICS
from mlviz.stats import is_tail, label_frequencies
from mlviz.wording import percent_text
from pages._app import export, fitting, presentation, tables
from pages._compare.context import Compare


def show(page: Compare, outcome: dict) -> None:
    """The metrics of a run: every metric as a table (folded while presenting), the chart and
    the fold results' download."""
    ds, L = page.ds, page.n_labels
    run_params = outcome["params"]
    results = outcome["results"]
    table = summarize(results)
    table.columns = [
        f"{METRICS[c].label} {METRICS[c].arrow}" if c in METRICS else c for c in table.columns
    ]
    run_tail = run_params["tail"]
    n_tail_all = (
        int(is_tail(label_frequencies(ds.Y, relative=True), run_tail).sum())
        if run_tail is not None
        else 0
    )
    tail_caption = (
        f" Tail / head macro F1: macro F1 over the tail labels and the others, the tail being "
        f"the labels carried by fewer than {percent_text(run_tail)} of each fold's training "
        f"instances ({run_params['tail_rule']}; {n_tail_all:,} of {L:,} labels on all rows); tail "
        "recall: the share of tail-label occurrences found. — : undefined in every fold (no "
        "label on that side of the cut-off)."
        if run_tail is not None
        else " Tail threshold 0: no label counts as a tail label, so there are no tail columns."
    )
    at_k = [METRICS[m].label for m in AT_K_METRICS]
    # while presenting the table folds away, so that the chart starts on the first screen
    with st.expander("Every metric (table)") if presentation.is_on() else st.container():
        # metrics as rows, methods as columns: a dozen metrics side by side would not fit
        tables.fitted_table(table.T.rename_axis("metric"), text_width=95)
        st.caption(
            "Mean ± standard deviation over folds; ↑ higher is better, ↓ lower is better."
            + tail_caption
            + f" {', '.join(at_k)}: precision and nDCG of each instance's top-scored labels and "
            "their propensity-scored versions (Jain, Prabhu & Varma, KDD 2016), which weigh a "
            "hit on a label by its inverse propensity 1 + C (N_l + 1.5)^-0.55 estimated on each "
            "fold's training labels, so finding rare labels counts more; PSP and PSnDCG are "
            "divided by the best achievable value (1 = every instance's rarest relevant labels "
            "ranked first). Tied scores count in expectation over a random tie-break."
        )
    export.chart(fitting.figure(figures.metric_bars, aggregate(results)), key="compare_bars")
    export.csv_button("Download fold results (CSV)", results, name=(ds.name, "cv_results"))

"""Compare's dimension sweep: a cross-validated metric against the embedding dimension."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from mlviz.figures import compare as figures
from mlviz.methods import METHODS, SELECTIONS
from mlviz.metrics import METRICS
from pages._app import export, fitting, links, source
from pages._compare.context import Compare
from pages._compare.runs import run_cross_validation, show_sweep_failures
from pages._compare.settings import grople_grouping, make, runnable

#: The metrics the sweep offers (set-based: one number per fit, no scores needed).
SWEEP_METRICS = ("example_f1", "accuracy", "micro_f1", "macro_f1", "hamming_loss")
#: At most this many dimensions, evenly spaced from 1 to L: a curve needs many fits.
MAX_SWEEP_POINTS = 6


def sweep_folds(n_samples: int) -> int:
    """Folds per point of the curve: three (a curve needs many fits), fewer on tiny sets."""
    return min(3, n_samples)


def dimension_sweep(progress, **params) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Every swept method's cross-validated metric at every dimension of ``params["dims"]``
    (cached by :func:`pages._app.fitting.compute`): (curves, failures)."""
    ds = source.loaded_dataset()
    parts, failed = [], []
    for i, dim in enumerate(params["dims"]):
        progress(i, len(params["dims"]), f"dimension {dim}")
        result = run_cross_validation(
            ds,
            {m: make(ds, m, params, int(dim)) for m in params["sweep"]},
            params["scheduler"],
            cv=sweep_folds(ds.n_samples),
            metrics=[params["metric"]],
        )
        parts.append(result.results.assign(dimension=int(dim)))
        failed.append(result.failures.assign(dimension=int(dim)))
    return pd.concat(parts, ignore_index=True), pd.concat(failed, ignore_index=True)


def show(page: Compare, params: dict) -> None:
    """The section: its menus, the button, the curve and its captions."""
    ds, L = page.ds, page.n_labels
    st.subheader("A metric against the embedding dimension")
    s1, s2 = st.columns([3, 1])
    sweep_methods = links.bound(
        s1.multiselect,
        "Methods",
        [name for name, method in METHODS.items() if method.in_dimension_sweep],
        default=list(SELECTIONS["compare_sweep"]),
        key="compare_sweep_methods",
        persist_state="session",
    )
    sweep_metric = links.bound(
        s2.selectbox,
        "Metric",
        list(SWEEP_METRICS),
        format_func=lambda m: f"{METRICS[m].label} {METRICS[m].arrow}",
        key="compare_sweep_metric",
        persist_state="session",
    )
    folds = sweep_folds(ds.n_samples)
    dims = np.unique(np.round(np.linspace(1, L, num=min(L, MAX_SWEEP_POINTS))).astype(int))
    sweep = None
    sweep_methods = runnable(page, sweep_methods)
    if sweep_methods:
        sweep = fitting.compute(
            dimension_sweep,
            {
                **params,
                **(
                    dict(zip(("K", "affinity"), grople_grouping(), strict=True))
                    if "GroPLE" in sweep_methods
                    else {}
                ),
                "sweep": tuple(sweep_methods),
                "metric": sweep_metric,
                "dims": tuple(dims.tolist()),
            },
            on="button",
            key="compare_sweep",
            label="Run the dimension sweep",
            progress=True,
            uses_split=False,
            first_fit_automatic=False,
        )
    if sweep is None:
        return
    curves, sweep_failures = sweep
    show_sweep_failures(sweep_failures, folds, len(dims))
    if curves.empty:
        return
    M, d = params["M"], params["d"]
    shown = curves["metric"].iloc[0]
    gro_d = "GroPLE" in set(curves["method"]) and d != M
    export.chart(
        fitting.figure(
            figures.metric_vs_param_figure,
            curves,
            "dimension",
            shown,
            current=M,
            current_name="M" if gro_d else "M/d",
        ),
        key="compare_sweep_chart",
    )
    if gro_d:
        st.caption(f"The marker shows the M = {M} of the table above; GroPLE there uses d = {d}.")
    st.caption(
        f"{folds}-fold cross-validated mean ± sd against the embedding dimension (M, "
        "or d for GroPLE), in the style of the GroPLE paper's Fig. 5: where does adding "
        "dimensions stop helping?"
    )

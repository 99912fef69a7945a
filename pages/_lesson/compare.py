"""Step 7: every method on the same split, per label, and how each does on the tail."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

from mlviz import stats
from mlviz.figures import compare as compare_figures
from mlviz.methods import METHODS
from mlviz.wording import percent_text
from pages._lesson import fits
from pages._lesson.methods import LESSON_METHODS
from pages._lesson.state import (
    Lesson,
    chart,
    explain,
    formula,
    tail_rule_name,
    tail_threshold,
    try_this,
    user_text,
)
from pages._lesson.text import f1_text, notice


def show(c: Lesson) -> None:
    formula(
        r"F_1^{(l)}=\frac{2\,TP_l}{2\,TP_l+FP_l+FN_l},\qquad "
        r"\text{Macro-}F_1=\frac{1}{L}\sum_{l=1}^{L}F_1^{(l)}"
    )
    formula(r"l\ \text{is a tail label}\iff\frac{1}{N}\sum_{n=1}^{N}y_{nl}<\tau")
    tau = tail_threshold()
    explain(
        "Every method on the same train/test split, one row per label with the rarest at the "
        "top: its training frequency, then each method's test F1. Tail labels, below "
        f"τ = {percent_text(tau)} of the training instances (the sidebar's "
        f"{tail_rule_name()}), are shaded. "
        "Each method uses the settings of its step."
    )
    c.ensure(
        "lesson_compare_methods", lambda v: isinstance(v, list) and set(v) <= set(LESSON_METHODS)
    )
    chosen = c.bound(st.multiselect, "Methods", LESSON_METHODS, key="lesson_compare_methods")
    try_this(
        "compare",
        "add binary relevance (no compression)",
        {"lesson_compare_methods": ["BR", *chosen]},
        why_disabled="BR is shown." if "BR" in chosen else "",
    )
    settings = c.method_settings()
    chosen = _runnable(c, chosen)
    if not chosen:
        st.info("Choose at least one method.")
        return
    with st.spinner("Fitting the methods…"):
        fitted = {m: fits.per_label_f1(c, m, settings[m]) for m in chosen}
    f1 = {m: scores for m, scores in fitted.items() if scores is not None}
    chosen = list(f1)
    if not chosen:
        return
    frequencies = stats.label_frequencies(c.split.Y_train, relative=True)
    _figure_and_table(c, frequencies, f1, tau)
    notice(_points(c, frequencies, f1, tau, settings))


def _runnable(c: Lesson, chosen: list[str]) -> list[str]:
    """The chosen methods that run on this data and split; the others are named and why."""
    L, ds = c.L, c.ds
    if "ML-KNN" in chosen and c.mlknn_k_max() < 1:
        st.warning("ML-KNN is left out: the training split has fewer than two instances.")
        chosen = [m for m in chosen if m != "ML-KNN"]
    left_out = [m for m in chosen if not METHODS[m].runs_on(L)]
    if left_out:
        cap = min(METHODS[m].max_labels for m in left_out)
        st.warning(
            f"{', '.join(left_out)} left out: each holds a {L:,} × {L:,} matrix of the label "
            "space (a basis, or GroPLE's label affinity), too large for "
            f"{user_text(ds.name)}; they run "
            f"on data sets with up to {cap:,} labels."
        )
        chosen = [m for m in chosen if m not in left_out]
    return chosen


def _figure_and_table(
    c: Lesson, frequencies: np.ndarray, f1: dict[str, np.ndarray], tau: float
) -> None:
    """Every label's frequency and each method's test F1, as a figure and a table."""
    chosen = list(f1)
    per_label = pd.DataFrame(
        {
            "label": c.names,
            "frequency": frequencies,
            **{f"F1 {method}": f1[method] for method in chosen},
        }
    )
    chart(
        compare_figures.per_label_figure(
            per_label, chosen, metric="F1", tail_threshold=tau if tau > 0 else None
        ),
        key="lesson_compare_per_label",
    )
    with st.expander("Every label's frequency and test F1 (the table behind the figure)"):
        st.dataframe(
            per_label.sort_values("frequency", kind="stable"),
            hide_index=True,
            column_config={
                "frequency": st.column_config.NumberColumn(format="%.3f"),
                **{f"F1 {m}": st.column_config.NumberColumn(format="%.2f") for m in chosen},
            },
        )


def _points(
    c: Lesson,
    frequencies: np.ndarray,
    f1: dict[str, np.ndarray],
    tau: float,
    settings: dict[str, dict[str, Any]],
) -> list[str]:
    """What to notice: the settings used, tail against head F1, labels absent from the test."""
    L, split = c.L, c.split
    chosen = list(f1)
    table = stats.tail_head_f1(frequencies, f1, tau)
    n_tail = int(table["n_tail"].iloc[0])
    described = ", ".join(
        f"{method} (" + ", ".join(f"{k} = {v}" for k, v in settings[method].items()) + ")"
        for method in chosen
        if settings[method]
    )
    points = [f"Settings from the steps: {described}." if described else ""]
    if n_tail == 0:
        points.append(
            f"No label is below τ = {percent_text(tau)} of the training instances: this data "
            "set has no tail at this threshold (raise it in the sidebar)."
        )
    else:
        means = "; ".join(
            f"{method}: tail **{f1_text(row.tail_f1)}** vs head {f1_text(row.head_f1)}"
            for method, row in table.iterrows()
        )
        points.append(
            f"Mean test F1 on the {n_tail} tail and the {L - n_tail} head labels "
            f"(where F1 is defined) — {means}."
        )
        tail_f1 = table["tail_f1"].dropna()
        if len(tail_f1) > 1:
            best = tail_f1[tail_f1 == tail_f1.max()].index.tolist()
            if tail_f1.max() == 0:
                points.append(
                    "No method finds a single tail label in the test split: every tail F1 is 0."
                )
            else:
                points.append(
                    f"On the tail, **{best[0]}** has the highest mean F1 here."
                    if len(best) == 1
                    else f"On the tail, {' and '.join(best)} tie for the highest mean F1."
                )
    absent = int((~split.Y_test.astype(bool).any(axis=0)).sum())
    if absent:
        points.append(
            f"{absent} label{'s do' if absent != 1 else ' does'} not occur in the "
            "test split: F1 is undefined there unless a method predicts the label "
            "(then 0), so those labels have no marker."
        )
    return points

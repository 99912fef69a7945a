"""Sentence and legibility helpers shared by the Lesson's steps.

Each step ends with "what to notice": sentences computed from the figure's data (the numbers
come from ``mlviz.stats`` and the fitted models), so that they hold on whatever data set is
loaded.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import streamlit as st

from mlviz.figures import hypercube as cube_figures
from mlviz.figures import label_clusters as cluster_figures
from pages._lesson import (
    state,
)
from pages._lesson.state import (
    user_text,
)

MAX_BARS = cluster_figures.MAX_NAMED_LABELS  # labels named in a per-label figure
MAX_LISTED = 8  # label names listed in a sentence


def notice(points: list[str]) -> None:
    """The step's "what to notice" box (recorded for the export; revealed last)."""
    state.record_notice(points)
    if state.revealed("notice"):
        with state.part("notice"):
            st.info("**What to notice**\n\n" + "\n".join(f"- {p}" for p in points if p))


def listing(names: list[str], indices, limit: int = MAX_LISTED) -> str:
    shown = ", ".join(user_text(names[j], 40) for j in list(indices)[:limit])
    extra = len(indices) - limit
    return shown + (f" and {extra} more" if extra > 0 else "")


def count(n: int, singular: str, plural: str) -> str:
    return f"{n:,} {singular if n == 1 else plural}"


def f1_text(value: float) -> str:
    return f"{value:.2f}" if np.isfinite(value) else "undefined"


def labelset(vector: np.ndarray, names: list[str]) -> str:
    """The label set of ``vector`` for a sentence: its names are user text, so escaped
    (a label named ``![p](http://host/p.png)`` made the browser fetch the image: issue 29)."""
    text = cube_figures.labelset_text(np.asarray(vector)[None, :], names)[0]
    return user_text(text, cube_figures.MAX_LABELSET_CHARS)


def legend_at_bottom(fig: Any) -> Any:
    """Put a figure's horizontal legend at its lower edge, below the axis title."""
    fig.update_layout(
        legend=dict(orientation="h", yref="container", y=0, yanchor="bottom", x=0, xanchor="left")
    )
    return fig


def per_label_legible(fig: Any, n_labels: int, **axis: Any) -> Any:
    """Per-label bar figures made legible for many or long label names.

    The builders rotate names by 45° and put the legend a fixed share of the plot height
    under the axis; with medical's 45 names ("Class-12-V13_09") the names overlap each other
    and the legend. Here the names stand upright from 20 labels on (one name per bar width)
    and the legend sits at the figure's lower edge, below them. ``axis`` selects the label
    axis of a figure with subplots (e.g. ``col=2``).
    """
    legend_at_bottom(fig)
    if n_labels > 20:
        fig.update_xaxes(tickangle=-90, **axis)
        fig.update_layout(height=560)
    return fig

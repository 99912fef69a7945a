"""The grouping against chance (issue 32 item 5): one panel the pages call.

:func:`panel` puts a "Compare with random groupings" button under a grouping; pressed, it
cross-validates the given estimator with the grouping and with random partitions of the same
group sizes (:func:`mlviz.label_clustering.grouping_vs_random`), with a progress bar, and
shows the random scores with the grouping's marked and a sentence saying what they mean.
Results are cached by :func:`pages._app.fitting.compute`: per data set (and split, for the
training rows), estimator settings, grouping, number of random groupings, folds and metric.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import streamlit as st

from mlviz.figures import chance as figures
from mlviz.label_clustering import grouping_vs_random
from mlviz.metrics import METRICS
from pages._app import experiment, export, fitting, source

#: The choices of random groupings: fewer than 20 gives a coarse share (the sentence warns).
N_RANDOM_OPTIONS = (5, 10, 20, 50)
DEFAULT_N_RANDOM = 20
FOLDS = 3
SCORING = "micro_f1"
#: Budgets of one comparison (it fits the model (n_random + 1) × FOLDS times): labels, and
#: training cells (rows × labels) summed over the fits. On medical (684 × 45, 63 fits, 1.9 M
#: cells) it takes 30 s on a loaded 2-core machine (docs/BENCHMARKS.md); a GroPLE fit grows
#: faster than linearly in the labels (its label affinity is L × L), so labels have their own
#: cap: 20 rows × 1,800 labels, 1.5 M cells, took minutes.
MAX_LABELS = 500
MAX_CELLS = 30_000_000


def _compare(
    estimator,
    groups: np.ndarray,
    columns,
    rows: str,
    n_random: int,
    cv: int,
    scoring: str,
    progress,
):
    # reads the loaded data set (and split): both are in compute's key
    X, Y = fitting.fit_data(rows, columns)
    return grouping_vs_random(
        estimator,
        X,
        Y,
        groups,
        n_random=n_random,
        cv=cv,
        scoring=scoring,
        random_state=0,
        progress=progress,
    )


def panel(
    estimator,
    groups,
    *,
    key: str,
    rows: Literal["all", "train"] = "all",
    columns=None,
    what: str = "these groups",
) -> None:
    """The "grouping against chance" panel: a button, then the figure and its sentence.

    Parameters
    ----------
    estimator : unfitted estimator with a ``groups`` parameter (GroPLE)
    groups : array-like of int
        One group id per label column used.
    key : str
        Widget key prefix, unique on the page.
    rows : {"all", "train"}
        The rows cross-validated: the whole data set, or the sidebar split's training rows.
    columns : array-like of int, optional
        The label columns the groups are over (default: all).
    what : str
        How the sentence's lead names the grouping (plain text).
    """
    groups = np.asarray(groups)
    n_random = st.select_slider(
        "Random groupings to compare with",
        options=list(N_RANDOM_OPTIONS),
        value=DEFAULT_N_RANDOM,
        key=f"{key}_n_random",
        help="Each is a random reassignment of the labels to groups of the same sizes. Fewer "
        "is quicker, but the share beaten moves in coarser steps.",
    )
    fits = (n_random + 1) * FOLDS
    metric = METRICS[SCORING].label
    n_rows = (
        len(experiment.current_split().Y_train)
        if rows == "train"
        else source.current_dataset().n_samples
    )
    n_labels = groups.size
    cells = fits * n_labels * n_rows * (FOLDS - 1) // FOLDS
    if n_labels > MAX_LABELS or cells > MAX_CELLS:
        st.caption(
            f"The comparison with random groupings fits {type(estimator).__name__} {fits} times; "
            + (
                f"with {n_labels:,} labels (more than {MAX_LABELS:,}) that is too slow for this "
                "server. Upload the most frequent labels only to run it."
                if n_labels > MAX_LABELS
                else f"on {n_rows:,} rows × {n_labels:,} labels that is {cells / 1e6:.0f} M "
                f"training cells, above this server's {MAX_CELLS / 1e6:.0f} M: choose fewer "
                "random groupings, or a smaller data set."
            )
        )
        return
    result = fitting.compute(
        _compare,
        {
            "estimator": estimator,
            "groups": groups,
            "columns": None if columns is None else np.asarray(columns),
            "rows": rows,
            "n_random": int(n_random),
            "cv": FOLDS,
            "scoring": SCORING,
        },
        on="button",
        key=key,
        label="Compare with random groupings",
        spinner=f"Fitting {type(estimator).__name__} {fits} times ({FOLDS}-fold, with "
        f"{what} and {n_random} random groupings)…",
        progress=True,
        uses_split=rows == "train",
        first_fit_automatic=False,
    )
    rows_text = "the training rows of the split" if rows == "train" else "all instances"
    if result is None:
        st.caption(
            f"Does {type(estimator).__name__} do better with {what} than with labels split at "
            f"random into groups of the same sizes (Szymański et al., 2016)? The button "
            f"cross-validates it {fits} times ({FOLDS} folds of {rows_text}; {metric}); the "
            "result is kept for this data set and these settings."
        )
        return
    export.chart(fitting.figure(figures.grouping_vs_random_figure, result), key=f"{key}_figure")
    # numbers and fixed words only (no user text), so markdown shows it as written
    st.markdown(figures.grouping_vs_random_sentence(result))
    st.caption(
        f"Each grey point is {type(estimator).__name__}'s {metric} with one random grouping "
        f"({FOLDS}-fold cross-validation on {rows_text}, the same folds for every grouping); "
        "the red line is its score with "
        f"{what}. Random groupings keep the group sizes "
        f"({', '.join(map(str, result.group_sizes))} labels)."
    )

"""The grouping against chance (:func:`mlviz.label_clustering.grouping_vs_random`): the random
groupings' scores as a strip, the grouping's score marked, and a sentence that says what the
comparison shows, whichever way it comes out."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from mlviz.figures._style import legible
from mlviz.label_clustering import GroupingVsRandom
from mlviz.metrics import METRICS
from mlviz.wording import counted

__all__ = ["FEW_RANDOM", "grouping_vs_random_figure", "grouping_vs_random_sentence"]

#: Below this many random groupings the sentence warns that the share is coarse.
FEW_RANDOM = 20
_BEATS = 0.95  # share from which the grouping "beats nearly every" random one


def _metric_name(result: GroupingVsRandom) -> str:
    info = METRICS.get(result.scoring)
    return info.label if info is not None else result.scoring


def grouping_vs_random_figure(result: GroupingVsRandom) -> go.Figure:
    """The random groupings' cross-validated scores as a strip, the grouping's as a line.

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.label_clustering import GroupingVsRandom
    >>> from mlviz.figures.chance import grouping_vs_random_figure
    >>> result = GroupingVsRandom(0.7, np.array([0.5, 0.55, 0.6]), 1.0, "micro_f1", True,
    ...                           (2, 2), 3)
    >>> fig = grouping_vs_random_figure(result)
    >>> fig.data[0].x.tolist(), fig.layout.shapes[0].x0
    ([0.5, 0.55, 0.6], 0.7)
    """
    metric = _metric_name(result)
    # a fixed, seeded jitter so equal scores stay visible as separate points
    jitter = np.random.default_rng(0).uniform(-0.3, 0.3, result.n_random)
    fig = go.Figure(
        go.Scatter(
            x=result.random_scores,
            y=jitter,
            mode="markers",
            marker=dict(color="#7f7f7f", size=10, opacity=0.8),
            hovertemplate=f"random grouping<br>{metric} %{{x:.4f}}<extra></extra>",
            name="random groupings",
        )
    )
    fig.add_vline(
        x=result.score,
        line_color="#d62728",
        line_width=3,
        annotation_text=f"this grouping: {result.score:.4f}",
        annotation_position="top",
    )
    arrow = "higher is better" if result.greater_is_better else "lower is better"
    fig.update_layout(
        title=(
            f"{metric} of this grouping against {counted(result.n_random, 'random grouping')} "
            f"of the same group sizes ({result.n_splits}-fold cross-validation)"
        ),
        xaxis_title=f"{metric} ({arrow})",
        yaxis=dict(visible=False, range=[-1, 1]),
        height=300,
        margin=dict(t=80, b=10),
    )
    return legible(fig, legend=False)


def grouping_vs_random_sentence(result: GroupingVsRandom) -> str:
    """What the comparison says, in plain words (plain text, no markdown).

    Examples
    --------
    >>> import numpy as np
    >>> from mlviz.label_clustering import GroupingVsRandom
    >>> from mlviz.figures.chance import grouping_vs_random_sentence
    >>> result = GroupingVsRandom(0.5, np.array([0.4, 0.5, 0.6]), 0.5, "micro_f1", True,
    ...                           (2, 2), 3)
    >>> print(grouping_vs_random_sentence(result))  # doctest: +NORMALIZE_WHITESPACE
    This grouping's Micro F1 (0.5000) beats 1 of 3 random groupings of the same group sizes,
    ties 1 and loses to 1 (50% counting ties half): within the spread of chance; the model
    does about as well with labels split at random into groups of these sizes, so this
    comparison shows no sign that it uses these groups. Only 3 random groupings: the share
    moves in steps of 33%; use at least 20 before drawing a conclusion.
    """
    n = result.n_random
    metric = _metric_name(result)
    beaten, tied = result.beaten, result.tied
    lost = n - beaten - tied
    share = result.p_beats_random
    low, high = float(np.min(result.random_scores)), float(np.max(result.random_scores))
    head = (
        f"This grouping's {metric} ({result.score:.4f}) beats {beaten} of "
        f"{counted(n, 'random grouping')} of the same group sizes"
        + (f", ties {tied}" if tied else "")
        + f" and loses to {lost} ({share:.0%} counting ties half): "
    )
    if share >= _BEATS:
        meaning = (
            "it beats nearly every random split, so the model uses information in these "
            f"groups that random groups of the same sizes lack (random scores "
            f"{low:.4f} to {high:.4f})."
        )
    elif share <= 1 - _BEATS:
        meaning = (
            "nearly every random grouping does better, so these groups hurt this model: a "
            "random split of the labels into groups of these sizes serves it better."
        )
    else:
        meaning = (
            "within the spread of chance; the model does about as well with labels split at "
            "random into groups of these sizes, so this comparison shows no sign that it uses "
            "these groups."
        )
    warning = ""
    if n < FEW_RANDOM:
        warning = (
            f" Only {counted(n, 'random grouping')}: the share moves in steps of "
            f"{1 / n:.0%}; use at least {FEW_RANDOM} before drawing a conclusion."
        )
    return head + meaning + warning

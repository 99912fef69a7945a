"""The "you are here" marker: the parameter value in use, drawn on a curve over that parameter.

Every figure builder whose x axis is a model parameter (M, K, d, k, λ) takes an optional
``current=`` and calls :func:`mark_current`, so a class sees where the page's widget sits on
the curve. One function, so the marker looks the same on every chart.
"""

from __future__ import annotations

import math

import plotly.graph_objects as go

__all__ = ["CURRENT_COLOR", "mark_current"]

#: Colour of the marker: a dark neutral that no method or group uses.
CURRENT_COLOR = "#222222"


def mark_current(
    fig: go.Figure,
    value: float,
    name: str,
    *,
    where: str,
    row: int | None = None,
    col: int | None = None,
    annotate: bool = True,
) -> go.Figure:
    """Draw a dashed vertical line at ``x = value`` labelled ``"you are here: <name> = value"``.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
        Modified in place and returned.
    value : float
        The parameter in use (a finite number on the figure's x axis).
    name : str
        Parameter symbol shown in the label, e.g. "M" or "d".
    where : str
        Calling builder, for the error message.
    row, col : int, optional
        Subplot to mark (for figures made with ``make_subplots``).
    annotate : bool, default=True
        Write the label (False for the second panel of a shared axis).

    Returns
    -------
    plotly.graph_objects.Figure

    Raises
    ------
    ValueError
        If ``value`` is not a finite number.

    Examples
    --------
    >>> import plotly.graph_objects as go
    >>> from mlviz.figures._current import mark_current
    >>> fig = mark_current(go.Figure(go.Scatter(x=[1, 2, 3], y=[3, 2, 1])), value=2, name="M",
    ...                    where="x")
    >>> len(fig.layout.shapes), fig.layout.annotations[0].text
    (1, 'you are here: M = 2')
    """
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{where}: current={value!r} is not a number.") from None
    if not math.isfinite(x):
        raise ValueError(f"{where}: current={value!r} must be a finite number.")
    shown = int(x) if x.is_integer() else f"{x:g}"
    kwargs = {} if row is None else dict(row=row, col=col)
    fig.add_vline(
        x=x,
        line_dash="dash",
        line_color=CURRENT_COLOR,
        line_width=2,
        annotation_text=f"you are here: {name} = {shown}" if annotate else None,
        annotation_position="top right",
        annotation_font_color=CURRENT_COLOR,
        **kwargs,
    )
    return fig

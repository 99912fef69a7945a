"""Whether a heatmap that names every label fits a column beside another chart.

The Data page's co-occurrence heatmap and the Label clusters page's affinity heatmap stand
beside a second chart when they are small, and across the page otherwise. The choice went
by the number of labels alone (at most 25), so birds' 19 labels, whose names run to 25
characters ("Chestnut-backed Chickadee"), left 10 px per column in a half-width heatmap and
its 15 px tall column names overlapped (the browser walk's tick check: 18 overlapping pairs
on each page). The names' axis takes the longest name's width out of the column, so the
choice counts both.

Widths measured in chromium at 1280 × 720 with the sidebar open (the narrowest main area the
app is used at): a half-width chart is 402 px wide, a 3/5 column 484 px; a tick name at
plotly's 11 px font takes 5.2–6.1 px a character; the colour bar and margins take 82–96 px
(half width) and 102–104 px (3/5).
"""

from __future__ import annotations

from collections.abc import Sequence

#: Width (px) of the main area's charts at 1280 × 720 with the sidebar open.
MAIN_CHART_PX = 820
#: Gap (px) between two columns.
COLUMN_GAP_PX = 16
#: Width (px) of one character of a tick name (plotly's 11 px font), rounded up.
TICK_CHAR_PX = 6.0


def column_px(share: float) -> float:
    """Width (px) of a chart in a column holding ``share`` of the two columns' width.

    Examples
    --------
    >>> from pages._app.columns import column_px
    >>> column_px(0.5), column_px(0.6)
    (402.0, 482.4)
    """
    return share * (MAIN_CHART_PX - COLUMN_GAP_PX)


def names_fit_beside(
    names: Sequence[str], share: float, *, reserved_px: float, min_column_px: float
) -> bool:
    """Whether a heatmap naming each of ``names`` on both axes, drawn in a column of
    ``share`` (:func:`column_px`), leaves each of its columns ``min_column_px``: the names'
    axis takes the longest name (:data:`TICK_CHAR_PX` a character), ``reserved_px`` the
    colour bar and margins.

    Examples
    --------
    >>> from pages._app.columns import names_fit_beside
    >>> planted = [f"label{i:02d}" for i in range(22)]  # the sample's: 22, at most 7 characters
    >>> birds = ["Chestnut-backed Chickadee"] + [f"bird {i}" for i in range(18)]
    >>> fits = dict(reserved_px=92, min_column_px=12)
    >>> names_fit_beside(planted, 0.5, **fits), names_fit_beside(birds, 0.5, **fits)
    (True, False)
    """
    longest = max((len(str(name)) for name in names), default=0)
    plot_px = column_px(share) - longest * TICK_CHAR_PX - reserved_px
    return len(names) * min_column_px <= plot_px

"""The app's categorical colours, in one place: one fixed colour per method on every chart.

Also the other categorical palettes (label groups, principal directions), so that no figure
builder defines colours of its own.

A method keeps its colour whichever methods a chart shows and in whatever order (PLST is
orange in the Compare bars, in the dimension sweep and on the PLST page's loss-vs-M curve).
Figure builders look colours up here and define no palette of their own;
``tests/test_figures_style.py`` fails if one does.
"""

from __future__ import annotations

import hashlib

from plotly.colors import qualitative

__all__ = ["DIRECTION_COLORS", "GROUP_COLORS", "METHOD_COLORS", "method_color", "method_colors"]

#: The methods of mlviz, each with its colour (d3's category10, which plotly also ships).
#: Related variants share a hue: PLST-origin is a lighter PLST.
METHOD_COLORS: dict[str, str] = {
    "BR": "#1f77b4",  # blue
    "PLST": "#ff7f0e",  # orange
    "PLST-origin": "#ffbb78",  # light orange
    "PBR": "#9467bd",  # purple
    "CPLST": "#8c564b",  # brown
    "CS": "#e377c2",  # pink
    "ML-KNN": "#2ca02c",  # green
    "CLEMS": "#17becf",  # cyan
    "GroPLE": "#d62728",  # red
}

# Colours for names outside METHOD_COLORS (a user's own estimator): distinct from the above.
_FALLBACK_COLORS: tuple[str, ...] = (
    "#bcbd22",  # olive
    "#7f7f7f",  # grey
    "#393b79",  # indigo
    "#637939",  # moss
    "#843c39",  # dark red
    "#7b4173",  # plum
    "#3182bd",  # steel blue
    "#e6550d",  # burnt orange
)

#: Label groups (clusters): 24 dark categorical colours, readable as text on white; groups
#: beyond 24 reuse them (``mlviz.figures.label_clusters.group_colour``).
GROUP_COLORS: tuple[str, ...] = tuple(qualitative.Dark24)

#: Successive principal directions drawn in one chart (the hypercube page's PLST arrows).
DIRECTION_COLORS: tuple[str, ...] = ("#d62728", "#ff7f0e", "#2ca02c")


def method_color(name: str) -> str:
    """The colour of a method: fixed for mlviz's methods, else derived from the name.

    Parameters
    ----------
    name : str
        Display name, e.g. "PLST" or "ML-KNN".

    Returns
    -------
    str
        A hex colour. Unknown names get a colour from a separate list chosen by a hash of the
        name, so it is the same in every chart and every session (Python's ``hash`` is salted
        per process, hence SHA-256); two unknown names may share one.
    """
    name = str(name)
    if name in METHOD_COLORS:
        return METHOD_COLORS[name]
    digest = int(hashlib.sha256(name.encode("utf-8")).hexdigest(), 16)
    return _FALLBACK_COLORS[digest % len(_FALLBACK_COLORS)]


def method_colors(names) -> dict[str, str]:
    """``{name: method_color(name)}`` for several methods."""
    return {name: method_color(name) for name in names}

"""Export: file names for a page's figures and a one-file HTML report of a view.

A lecturer downloads a view as it is on screen: every figure (interactive, via plotly's own
``Figure.to_html``) and the parameters that produced it, in one HTML file that opens in any
browser. Pure functions, so the app only passes its figures and widget values in.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, Literal

import plotly.graph_objects as go

from mlviz.figures._style import standalone
from mlviz.io.export import safe_filename

__all__ = ["export_filename", "html_report"]

_UNSAFE = re.compile(r"[^A-Za-z0-9]+")


def export_filename(*parts: str) -> str:
    """A file name (no extension) from its parts, e.g. ``("yeast", "PLST", "spectrum")``.

    Each part is reduced to ASCII letters and digits joined by ``-`` (so a data set called
    "my data (v2).csv" cannot put a slash or a space into the name); parts are joined by ``_``
    and empty parts dropped. The result goes through :func:`mlviz.io.export.safe_filename`,
    the one file-name rule of every download: it is capped in length and never empty (no
    letter or digit in any part gives ``"mlviz"``).

    Examples
    --------
    >>> from mlviz.figures.report import export_filename
    >>> export_filename("yeast", "PLST", "spectrum")
    'yeast_PLST_spectrum'
    """
    return safe_filename(*(_UNSAFE.sub("-", str(part)).strip("-") for part in parts))


def _format(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, (list, tuple, set, frozenset)):
        return ", ".join(_format(v) for v in value)
    return str(value)


def html_report(
    title: str,
    figures: Mapping[str, go.Figure] | Sequence[tuple[str, go.Figure]],
    parameters: Mapping[str, Any],
    *,
    notes: Sequence[str] = (),
    include_plotlyjs: Literal["cdn", "inline"] = "inline",
    generated: datetime | None = None,
) -> str:
    """One self-describing HTML page: the title, a parameter table, then every figure.

    Parameters
    ----------
    title : str
        Heading of the report (e.g. "yeast — PLST").
    figures : mapping or sequence of (name, Figure)
        The figures in page order; each name becomes a sub-heading.
    parameters : mapping
        Parameter name → value as the page used it (data set, split, widget values).
    notes : sequence of str, default=()
        Free-text lines shown under the table (e.g. the captions).
    include_plotlyjs : {"inline", "cdn"}, default="inline"
        "inline" embeds plotly.js once, before the first figure (about 4.6 MB; the report is
        self-contained and opens offline, e.g. in a classroom without internet; the later
        figures use that copy). "cdn" loads it from plotly's CDN instead (a small file that
        shows nothing without the network).
    generated : datetime, optional
        Time stamp written in the report (default: now, UTC).

    Returns
    -------
    str
        A complete HTML document. All text is HTML-escaped. With "inline" it has no
        ``<script src=...>``: nothing is loaded from another host.

    Raises
    ------
    ValueError
        If there is no figure, or ``include_plotlyjs`` is not "cdn" or "inline".

    Examples
    --------
    >>> import plotly.graph_objects as go
    >>> from mlviz.figures.report import html_report
    >>> figures = {"spectrum": go.Figure(go.Bar(y=[3, 2, 1]))}
    >>> page = html_report("PLST on <yeast>", figures, parameters={"M": 4})
    >>> "<script src=" in page  # plotly.js is inline: the file opens offline
    False
    >>> page.startswith("<!DOCTYPE html>"), "PLST on &lt;yeast&gt;" in page
    (True, True)
    """
    if include_plotlyjs not in ("cdn", "inline"):
        raise ValueError(
            f"html_report: include_plotlyjs must be 'cdn' or 'inline'; got {include_plotlyjs!r}."
        )
    first_script: bool | str = True if include_plotlyjs == "inline" else "cdn"
    items = list(figures.items()) if isinstance(figures, Mapping) else list(figures)
    if not items:
        raise ValueError("html_report: no figure to report; the page has drawn none yet.")
    stamp = (generated or datetime.now(UTC)).strftime("%Y-%m-%d %H:%M %Z").strip()
    rows = "\n".join(
        f"<tr><th>{html.escape(str(name))}</th><td>{html.escape(_format(value))}</td></tr>"
        for name, value in parameters.items()
    )
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{html.escape(title)}</title>",
        "<style>body{font-family:sans-serif;max-width:1200px;margin:auto;padding:1em}"
        "table{border-collapse:collapse}th,td{border:1px solid #ccc;padding:4px 8px;"
        "text-align:left}</style>",
        "</head><body>",
        f"<h1>{html.escape(title)}</h1>",
        f"<p>mlviz report, generated {html.escape(stamp)}.</p>",
        "<h2>Parameters</h2>",
        f'<table class="parameters">\n{rows}\n</table>' if rows else "<p>(none)</p>",
    ]
    parts += [f"<p>{html.escape(note)}</p>" for note in notes]
    for index, (name, fig) in enumerate(items):
        if not isinstance(fig, go.Figure):
            raise ValueError(
                f"html_report: figure {name!r} is a {type(fig).__name__}, not a plotly Figure."
            )
        parts.append(f"<h2>{html.escape(str(name))}</h2>")
        parts.append(
            # plotly.js once, with the first figure (True: inline; "cdn": a <script src>);
            # the later figures use that copy
            standalone(fig).to_html(
                full_html=False, include_plotlyjs=first_script if index == 0 else False
            )
        )
    parts.append("</body></html>")
    return "\n".join(parts)

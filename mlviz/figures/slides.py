"""A lesson as one self-contained HTML file, to present without the app's server.

:func:`lesson_html` writes every step (title, formulas, explanation, figures, what to notice,
the settings that made them) into one page that works offline: plotly.js is inlined once (no
CDN, no ``<script src=``), formulas are MathML drawn by the browser itself
(:func:`mlviz.figures.mathml.to_mathml`; no MathJax or KaTeX download), every text is
HTML-escaped. Each figure keeps plotly's toolbar, whose camera saves a
1600 × 900 PNG, and gets two buttons that save it as PNG or SVG at that slide size.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from mlviz.figures._style import standalone
from mlviz.figures.mathml import MathMLError, to_mathml
from mlviz.io.export import safe_filename

__all__ = ["SLIDE_SIZE", "Step", "lesson_html"]

#: (width, height) in px of a figure saved from the exported file (16:9).
SLIDE_SIZE = (1600, 900)
_BOLD = re.compile(r"\*\*(.+?)\*\*")
# a markdown escape: a backslash before ASCII punctuation (or an entity html.escape wrote)
_ESCAPED = re.compile(r"\\(&(?:amp|lt|gt|quot|#x27);|[!-/:-@\[-`{-~])")
# an inline formula as Streamlit's markdown reads one: ``$…$`` not touching a space inside,
# not after a backslash (``\$`` is a dollar sign, as the app escapes user text), not followed
# by a digit (``$5 and $6`` is money)
_INLINE_MATH = re.compile(r"(?<![\\$])\$(?![\s$])((?:\\.|[^$\\])+?)(?<![\s\\])\$(?!\d)")
# where an inline formula stands while the text around it is escaped (private-use characters,
# which neither html.escape nor the markdown rules touch)
_SLOT = "\ue000{}\ue001"
_SLOTS = re.compile("\ue000(\\d+)\ue001")


@dataclass
class Step:
    """One step of a lesson: what the app showed for it.

    ``text`` and ``notice`` are the app's sentences (they may hold ``**bold**``, the only
    markup kept; label names inside them are escaped like everything else).

    Examples
    --------
    >>> from mlviz.figures.slides import Step
    >>> step = Step("1 · Cube", formulas=["y in {0,1}^L"], notice=["**8** corners"])
    >>> step.title, list(step.figures)
    ('1 · Cube', [])
    """

    title: str
    formulas: Sequence[str] = ()
    text: Sequence[str] = ()
    figures: Sequence[tuple[str, Any]] = ()
    notice: Sequence[str] = ()
    settings: Mapping[str, Any] = field(default_factory=dict)


def _text(value: Any) -> str:
    r"""Escaped text; ``**x**`` (the app's own emphasis) becomes bold, ``$…$`` inline MathML.

    The app writes user text (label and data set names) into its markdown with every ASCII
    punctuation mark backslash-escaped, so a name's own ``**`` or ``$`` never reads as
    emphasis or maths; those backslashes are dropped after the emphasis is converted, so the
    name reads as typed. Inline formulas are taken out first (their backslashes are LaTeX's).

    Examples
    --------
    >>> from mlviz.figures.slides import _text
    >>> _text(r"on **yeast** and \*\*not bold\*\* \<b\>")
    'on <strong>yeast</strong> and **not bold** &lt;b&gt;'
    >>> out = _text(r"the cube $\{0,1\}^L$ costs \$5")
    >>> out.count("$"), 'display="inline"' in out, out.endswith("costs $5")
    (1, True, True)
    """
    formulas: list[str] = []

    def slot(match: re.Match) -> str:
        formulas.append(_inline_formula(match.group(1)))
        return _SLOT.format(len(formulas) - 1)

    text = _INLINE_MATH.sub(slot, str(value))
    bold = _BOLD.sub(r"<strong>\1</strong>", html.escape(text))
    return _SLOTS.sub(lambda m: formulas[int(m.group(1))], _ESCAPED.sub(r"\1", bold))


def _inline_formula(latex: str) -> str:
    """An inline formula as MathML; one the converter cannot take as its source in code."""
    try:
        return to_mathml(latex, display=False)
    except MathMLError as error:
        return f"<code class='latex' title='{html.escape(str(error))}'>{html.escape(latex)}</code>"


def _figure(fig: Any, div_id: str, filename: str) -> str:
    width, height = SLIDE_SIZE
    config = {
        "displaylogo": False,
        "toImageButtonOptions": {
            "format": "png",
            "filename": filename,
            "width": width,
            "height": height,
            "scale": 1,
        },
    }
    body = standalone(fig).to_html(
        full_html=False,
        include_plotlyjs=False,
        include_mathjax=False,
        div_id=div_id,
        config=config,
        default_width="100%",
        default_height=f"{fig.layout.height or 500}px",
    )
    buttons = "".join(
        f"<button type='button' onclick='saveFigure({json.dumps(div_id)}, "
        f"{json.dumps(fmt)}, {json.dumps(filename)})'>Save {fmt.upper()} "
        f"({width} × {height})</button>"
        for fmt in ("png", "svg")
    )
    return f"<figure>{body}<figcaption>{buttons}</figcaption></figure>"


def _formula(latex: str) -> str:
    """A display formula as MathML; one the converter cannot take is shown as its LaTeX
    source, saying so (never dropped)."""
    try:
        return to_mathml(latex)
    except MathMLError as error:
        return (
            f"<pre class='latex' title='{html.escape(str(error))}'>{html.escape(latex)}</pre>"
            "<p><em>(LaTeX source: this formula could not be drawn offline.)</em></p>"
        )


_SCRIPT = """
function saveFigure(id, format, filename) {
  Plotly.downloadImage(document.getElementById(id),
    {format: format, filename: filename, width: %d, height: %d, scale: 1});
}
"""

_STYLE = """
body { font-family: sans-serif; max-width: 1400px; margin: auto; padding: 1em; }
section { border-top: 2px solid #ccc; padding-top: 0.5em; margin-top: 2em; }
math[display="block"] { font-size: 1.3em; margin: 0.6em 0; overflow-x: auto; }
pre.latex { background: #f6f6f6; padding: 0.6em; white-space: pre-wrap; font-size: 1.05em; }
.notice { background: #e8f0fe; padding: 0.6em 1em; border-radius: 6px; }
figcaption button { margin-right: 0.5em; }
nav a { margin-right: 1em; }
"""


def lesson_html(title: str, steps: Sequence[Step], *, intro: str = "", dataset: str = "") -> str:
    """One offline HTML page: every step of a lesson, in order.

    Parameters
    ----------
    title : str
        The page's title (e.g. the data set's name and the lesson's).
    steps : sequence of Step
        The steps, in the order they are taught.
    intro : str, optional
        A sentence under the title (escaped).
    dataset : str, optional
        The data set's name, the last part of each saved figure's file name
        (``lesson-<figure>-<dataset>``).

    Returns
    -------
    str
        A complete HTML document. plotly.js is inlined once in its head, so the file opens
        without a network; the figures need JavaScript, the text does not.

    Examples
    --------
    >>> from mlviz.figures.slides import Step, lesson_html
    >>> page = lesson_html("yeast <lesson>", [Step("1 · Cube", formulas=[r"\\{0,1\\}^L"])])
    >>> "yeast &lt;lesson&gt;" in page and "<script src=" not in page
    True
    """
    from plotly.offline import get_plotlyjs

    width, height = SLIDE_SIZE
    parts = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
        f"<title>{html.escape(title)}</title><style>{_STYLE}</style>",
        f"<script type='text/javascript'>{get_plotlyjs()}</script>",
        f"<script type='text/javascript'>{_SCRIPT % (width, height)}</script>",
        f"</head><body><h1>{html.escape(title)}</h1>",
    ]
    if intro:
        parts.append(f"<p>{_text(intro)}</p>")
    parts.append(
        "<nav>"
        + "".join(f"<a href='#step-{i}'>{_text(s.title)}</a>" for i, s in enumerate(steps))
        + "</nav>"
    )
    for i, step in enumerate(steps):
        parts.append(f"<section id='step-{i}'><h2>{_text(step.title)}</h2>")
        parts += [_formula(f) for f in step.formulas]
        parts += [f"<p>{_text(t)}</p>" for t in step.text]
        if not step.figures:
            parts.append("<p><em>No figure: this step drew none on this data set.</em></p>")
        for j, (key, fig) in enumerate(step.figures):
            name = safe_filename(
                "lesson", key.removeprefix("lesson_"), dataset, sep="-", fallback="figure"
            )
            parts.append(_figure(fig, f"figure-{i}-{j}", name))
        if step.notice:
            items = "".join(f"<li>{_text(p)}</li>" for p in step.notice)
            parts.append(
                f"<div class='notice'><strong>What to notice</strong><ul>{items}</ul></div>"
            )
        if step.settings:
            rows = "".join(
                f"<tr><th>{html.escape(str(k))}</th><td>{html.escape(str(v))}</td></tr>"
                for k, v in step.settings.items()
            )
            parts.append(f"<details><summary>Settings</summary><table>{rows}</table></details>")
        parts.append("</section>")
    parts.append("</body></html>")
    return "\n".join(parts)

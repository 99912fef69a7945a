"""User text (link values, file names, label, feature and column names) shown as plain text.

The one place that makes text the app did not write safe to show. Streamlit renders the body
of ``st.markdown``, ``st.caption``, ``st.warning``, titles and widget labels as markdown
(GitHub-flavoured, with Streamlit's ``:red[...]``, ``:material/...:`` and ``$...$`` LaTeX),
so a label named ``[Sign in](http://evil.example)`` would become a link and ``![p](http://...)``
an image every viewer's browser fetches. Wrapping the text in a code span is not enough (a
backtick in the text closes the span: issue 24), and replacing a few characters by hand misses
others. :func:`markdown` therefore backslash-escapes *every* ASCII punctuation character, which
CommonMark defines to mean the character itself; with the punctuation escaped no markdown,
HTML tag, directive, LaTeX delimiter or autolink (``http://``, ``www.``, ``a@b``) can start.
Where a whole element shows only user text, :func:`text` for ``st.text`` (never parsed) is
simpler still.

Both also cut the text to :data:`MAX_CHARS` characters with an ellipsis (a 500,000-character
link value must not become a 500 KB note) and fold line breaks, tabs and other control
characters into spaces (a line break in markdown can start a new block).
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

MAX_CHARS = 80
ELLIPSIS = "…"

# Every ASCII punctuation character: CommonMark lets each be backslash-escaped to mean itself.
_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")
# GitHub's autolink literals (``http://...``, ``www.x``, ``a@b.c``) are found in the text *after*
# escapes are resolved (remark-gfm rewrites text nodes), so escaping cannot stop them; measured
# in chromium: an escaped ``http\:\/\/evil\.example`` still became a link. A WORD JOINER
# (U+2060, invisible, no width) after the scheme, the ``www`` or the ``@`` breaks the pattern.
_AUTOLINK = re.compile(r"(?i)((?:https?|ftp|mailto|xmpp)(?=\\?:)|www(?=\\?\.)|@)")
WORD_JOINER = "\u2060"


def text(value: Any, limit: int = MAX_CHARS) -> str:
    """``value`` as one line of at most ``limit`` characters (ellipsis when cut); not escaped.

    For places that never parse markdown: ``st.text``, ``st.code``, dataframe cells, plotly
    text (plotly renders a few HTML tags, so figures use :func:`html`).
    """
    raw = str(value)
    if len(raw) > 4 * limit + 16:  # never scan a huge value whole
        raw = raw[: 4 * limit + 16]
    # control characters (line breaks, tabs, NUL, bidi overrides) become spaces
    folded = "".join(" " if unicodedata.category(ch)[0] == "C" else ch for ch in raw)
    one_line = " ".join(folded.split())
    if len(one_line) > limit or len(raw) < len(str(value)):
        one_line = one_line[: max(limit - 1, 0)].rstrip() + ELLIPSIS
    return one_line


def markdown(value: Any, limit: int = MAX_CHARS) -> str:
    """``value`` cut like :func:`text`, then escaped so markdown shows it character for character.

    Use inside every markdown body (notes, captions, titles, labels) that includes user text.
    """
    escaped = _PUNCTUATION.sub(r"\\\1", text(value, limit))
    return _AUTOLINK.sub(lambda m: m.group(0) + WORD_JOINER, escaped)


def html(value: Any, limit: int = MAX_CHARS) -> str:
    """``value`` cut like :func:`text`, with ``& < >`` as HTML entities (plotly text).

    The figure builders' own escape (:func:`mlviz.figures._style.plain`): quotes stay as they
    are, since plotly decodes ``&lt; &gt; &amp;`` for display but shows ``&quot;`` literally.
    Give figure builders raw names (they escape them); this is for text a page writes into a
    built figure itself.
    """
    from mlviz.figures._style import plain

    return plain(text(value, limit))

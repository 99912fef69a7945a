"""Presentation mode: the app for a projector (1280 × 720) in front of a class.

One switch, kept for the whole session: the sidebar's "Presentation mode" toggle, or the link
flag ``?present=1`` (``?present=0`` turns it off). While it is on

* the sidebar starts collapsed (:func:`page_config`, called by the router before the page);
* every page's intro paragraph and the Lesson's repeated intro are hidden (:func:`intro`);
* Streamlit's top padding shrinks and titles get smaller margins (:func:`style`), so that the
  main figure starts on the first screen;
* every figure drawn through :func:`pages._app.export.chart` gets larger fonts
  (:func:`mlviz.figures._style.for_projector`);
* the Lesson reveals each step in parts: formula, then figure, then what to notice
  (:func:`reveal_stage`; keyboard: PageDown / PageUp, the keys a presenter's clicker sends,
  one part at a time both ways). Each move scrolls the part it shows whole into the window
  (:func:`scroll_to`), figures are at most :data:`PRESENT_MAX_HEIGHT` tall
  (:func:`fit_height`), and the link records the part (``?lesson_part=``, :func:`stage_link`).

The flag lives in the session state (Streamlit drops query parameters on a page change), and
each run writes it back to the URL, so the address bar always holds a link that reopens the
view in presentation mode.

Also the chart camera button's image settings (:func:`image_options`): a slide-sized PNG or SVG
(1600 × 900) named ``<page>-<figure>-<data set>``.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from mlviz.io.export import safe_filename
from pages._app import links, plain

#: URL flag: ``?present=1``.
PARAM = "present"
#: Session key of the mode (the one truth; the toggle's own key mirrors it).
KEY = "_presenting"
_TOGGLE_KEY = "_present_toggle"
#: Session key of the camera button's image format ("png" or "svg").
FORMAT_KEY = "_image_format"
IMAGE_FORMATS = {"png": "PNG", "svg": "SVG"}
#: Slide size of an exported figure (16:9, full-HD width).
SLIDE_WIDTH, SLIDE_HEIGHT = 1600, 900
_ON, _OFF = ("1", "true", "yes", "on"), ("0", "false", "no", "off")

# Streamlit's main block starts 6rem below the window's top (room for its header); in
# presentation mode it starts just under the header's menu button, and headings lose their
# generous padding. Only selectors Streamlit documents as test ids.
_CSS = """
<style>
[data-testid="stMainBlockContainer"] { padding: 3.75rem 2.5rem 1rem 2.5rem; }
[data-testid="stMain"] h1 { padding-top: 0; padding-bottom: 0.25rem; font-size: 2.1rem; }
[data-testid="stMain"] h2, [data-testid="stMain"] h3 { padding-top: 0.2rem;
    padding-bottom: 0.2rem; }
[data-testid="stMain"] [data-testid="stVerticalBlock"] { gap: 0.6rem; }
</style>
"""


def read_link() -> None:
    """Take ``?present=`` into the session, or write the session's mode back to the URL.

    The router calls it first in every run. A value other than 1/0 (true/false, yes/no,
    on/off) is ignored with a note naming it.
    """
    raw = st.query_params.get(PARAM)
    if raw is not None:
        value = raw.strip().lower()
        if value in _ON or value in _OFF:
            st.session_state[KEY] = value in _ON
        else:
            # the value is user text: escaped and cut (pages/_app/plain.py), never in code spans
            st.warning(
                f"The link's `{PARAM}` = {plain.markdown(raw)} was ignored: use {PARAM}=1 "
                f"(presentation mode) or {PARAM}=0.",
                icon=":material/link:",
            )
    _write_link()


def _write_link() -> None:
    if is_on():
        if st.query_params.get(PARAM) != "1":
            st.query_params[PARAM] = "1"
        links.keep(PARAM)  # not a page's widget: kept past the router's end-of-run cleanup
    elif PARAM in st.query_params:
        st.query_params.pop(PARAM)


def is_on() -> bool:
    """True while the session presents."""
    return bool(st.session_state.get(KEY, False))


def page_config() -> None:
    """Sidebar collapsed while presenting (``st.set_page_config`` calls are additive)."""
    st.set_page_config(initial_sidebar_state="collapsed" if is_on() else "auto")


def _toggled() -> None:
    st.session_state[KEY] = bool(st.session_state[_TOGGLE_KEY])
    _write_link()


def sidebar_toggle() -> None:
    """The sidebar's "Presentation mode" toggle (call inside ``st.sidebar``)."""
    st.session_state[_TOGGLE_KEY] = is_on()
    st.toggle(
        "Presentation mode",
        key=_TOGGLE_KEY,
        on_change=_toggled,
        help="For a projector: sidebar collapsed, intro text hidden, larger chart fonts, the "
        "Lesson revealed step by step (PageDown / PageUp). The link gets ?present=1.",
    )


def image_format_picker() -> None:
    """The chart camera button's format (call inside ``st.sidebar``).

    A choice rather than a second toolbar button: plotly takes an extra modebar button only
    as a JavaScript click function, which the JSON config ``st.plotly_chart`` passes to the
    browser cannot carry. (The exported Lesson, plain HTML, has both buttons per figure.)
    """
    st.session_state.setdefault(FORMAT_KEY, "png")
    st.radio(
        f"Chart camera button saves ({SLIDE_WIDTH} × {SLIDE_HEIGHT})",
        list(IMAGE_FORMATS),
        format_func=IMAGE_FORMATS.get,
        key=FORMAT_KEY,
        horizontal=True,
        help="The camera icon in each chart's toolbar downloads the chart at slide size, named "
        "page-figure-dataset: PNG for slides, SVG to edit or scale.",
    )


def style() -> None:
    """The presentation layout's CSS (nothing when not presenting)."""
    if is_on():
        st.html(_CSS)


def restyle(fig: Any) -> Any:
    """``fig`` with projector fonts while presenting (a copy), else ``fig`` itself."""
    if not is_on():
        return fig
    from mlviz.figures._style import for_projector

    return for_projector(fig)


def intro(text: str, *, caption: bool = False) -> None:
    """A page's intro paragraph (markdown written by the app), hidden while presenting."""
    if is_on():
        return
    (st.caption if caption else st.markdown)(text)


def figure_name(key: str, page: str, dataset: str) -> str:
    """The export name of chart ``key`` on ``page`` for ``dataset`` (key's page prefix dropped).

    Examples
    --------
    >>> figure_name("plst_spectrum", "plst", "yeast")
    'plst-spectrum-yeast'
    >>> figure_name("lesson_plst_decoding", "lesson", "medical")
    'lesson-plst_decoding-medical'
    """
    if page and key.startswith(page + "_"):
        key = key[len(page) + 1 :]
    return safe_filename(page, key, dataset, sep="-", fallback="figure")


def image_options(filename: str) -> dict[str, Any]:
    """plotly's ``toImageButtonOptions``: the chosen format at slide size, named ``filename``.

    Client-side export (plotly.js in the browser): no kaleido, no server-side Chrome.
    """
    fmt = st.session_state.get(FORMAT_KEY, "png")
    return {
        "format": fmt if fmt in IMAGE_FORMATS else "png",
        "filename": filename,
        "width": SLIDE_WIDTH,
        "height": SLIDE_HEIGHT,
        "scale": 1,
    }


# --- the Lesson's step-by-step reveal ----------------------------------------------------------

#: Parts of a Lesson step revealed one after another while presenting.
STAGES = ("formula", "figure", "notice")
#: The "Reveal next" button's label for each stage it reveals.
REVEAL_LABELS = {"figure": "Figure ↓", "notice": "Notice ↓"}
#: URL parameter of the revealed part while presenting (``?lesson_part=figure``): a link copied
#: mid-lesson reopens the step at that part.
PART_PARAM = "lesson_part"
_STAGE_KEY = "_lesson_reveal"
_MOVES_KEY = "_lesson_reveal_moves"  # counts the clicker's moves: each one scrolls once
#: Tallest figure (px) while presenting: what fits a 1280 × 720 window under Streamlit's header
#: (3.75 rem) with a margin, so a revealed figure is seen whole on the smallest projector.
PRESENT_MAX_HEIGHT = 600


def reveal_stage(step: str) -> int:
    """How many parts of ``step`` are shown: all of them unless presenting.

    While presenting a step opens with its formula (stage 0); "Reveal next" adds the figure
    (1), then what to notice (2).
    """
    if not is_on():
        return len(STAGES) - 1
    stage = st.session_state.get(_STAGE_KEY)
    if not (isinstance(stage, tuple) and stage[0] == step):
        return 0
    return int(stage[1])


def set_stage(step: str, stage: int) -> None:
    """Show ``stage`` + 1 parts of ``step`` from the next run on (a button callback)."""
    st.session_state[_STAGE_KEY] = (step, max(0, min(stage, len(STAGES) - 1)))
    st.session_state[_MOVES_KEY] = st.session_state.get(_MOVES_KEY, 0) + 1


def shows(step: str, part: str) -> bool:
    """True when ``part`` ("formula", "figure", "notice") of ``step`` is revealed."""
    return STAGES.index(part) <= reveal_stage(step)


def previous_part(steps: list[str], step: str) -> tuple[str, int] | None:
    """Where PageUp goes from ``step``: its previous part, or the previous step's last part.

    None at the first part of the first step.
    """
    stage = reveal_stage(step)
    if stage > 0:
        return step, stage - 1
    position = steps.index(step)
    return (steps[position - 1], len(STAGES) - 1) if position > 0 else None


def stage_link(step: str) -> int:
    """The revealed stage of ``step``, read from the link when it holds a new value; written
    back to the URL (:data:`PART_PARAM`), so the address always reopens this part.

    Call it while presenting, after the step's own widget has read the link.
    """
    domain = links.Domain.choice(list(STAGES))
    st.session_state[PART_PARAM] = STAGES[reveal_stage(step)]
    part = links.setting(PART_PARAM, domain, STAGES[0])
    if part != STAGES[reveal_stage(step)]:
        set_stage(step, STAGES.index(part))
    return reveal_stage(step)


def part(name: str) -> Any:
    """A container holding a revealed part ``name`` of a Lesson step (see :func:`scroll_to`)."""
    return st.container(key=f"lesson_part_{name}")


#: Fewest pixels per named row (a heatmap's or horizontal bar chart's label) for which
#: :func:`fit_height` shrinks a figure: below it the names would overlap.
MIN_ROW_PX = 12


def _named_rows(fig: Any) -> int:
    """The most rows any trace names along its y axis (heatmap rows, horizontal bars)."""
    rows = 0
    for trace in fig.data:
        horizontal = trace.type == "heatmap" or getattr(trace, "orientation", None) == "h"
        if horizontal and getattr(trace, "y", None) is not None:
            rows = max(rows, len(trace.y))
    return rows


def fit_height(fig: Any) -> Any:
    """``fig`` no taller than :data:`PRESENT_MAX_HEIGHT` while presenting (a copy if changed).

    A figure naming more rows than fit at that height (:data:`MIN_ROW_PX` each: a heatmap
    of medical's 45 labels) keeps its height: the clicker then shows its top, with the title,
    and its names stay readable.
    """
    height = fig.layout.height  # None: plotly's 450 px, which fits
    if not is_on() or height is None or height <= PRESENT_MAX_HEIGHT:
        return fig
    margin = fig.layout.margin
    plot = PRESENT_MAX_HEIGHT - (margin.t if margin.t is not None else 100) - max(margin.b or 0, 80)
    rows = _named_rows(fig)
    if rows and plot / rows < MIN_ROW_PX:
        return fig
    import plotly.graph_objects as go

    fig = go.Figure(fig)
    fig.update_layout(height=PRESENT_MAX_HEIGHT)
    return fig


# Runs in the app's document (st.html's own script): brings the parts named ``part`` whole into
# the window under Streamlit's fixed header, with the least scrolling, so what was on screen
# above them stays when it fits; a part taller than the window shows its top. The formula
# stage scrolls to the page's top. The parts may appear after the script runs (a link opened
# in a new session draws the page in several runs), and charts and their containers resize
# after the run ends (plotly lays out, Streamlit fits them to the width), so the script waits
# up to 60 s for the parts, then corrects the scroll on every animation frame for 15 s after
# they appear: a quiet spell between two runs of a new session is no end (a full suite saw a
# link's figure pushed 21 px below the window after 20 still frames had ended the
# corrections). It stops at once when the presenter scrolls, clicks or presses a key, or the
# next move takes over. A rerun without a move (a slider moved while presenting) leaves the
# scroll where the presenter put it.
_SCROLL_JS = """
<script>
(() => {
  const part = %(part)s, move = %(move)s;
  const main = document.querySelector('[data-testid="stMain"]');
  // Streamlit runs this script again on every rerun (a slider moved): scroll once per move
  if (!main || window.__mlvizLessonMove === move) return;
  window.__mlvizLessonMove = move;
  const scroller = el => {
    for (let e = el; e; e = e.parentElement) {
      const style = getComputedStyle(e);
      if (/(auto|scroll)/.test(style.overflowY) && e.scrollHeight > e.clientHeight) return e;
    }
    return document.scrollingElement;
  };
  const called = performance.now();
  let started = null, userMoved = false;
  const stop = () => { userMoved = true; };
  for (const kind of ['wheel', 'touchmove', 'mousedown', 'keydown']) {
    window.addEventListener(kind, stop, {once: true, capture: true, passive: true});
  }
  const step = () => {
    if (userMoved || window.__mlvizLessonMove !== move) return;
    const parts = Array.from(main.querySelectorAll('[class*="st-key-lesson_part_' + part + '"]'));
    if (part !== 'formula' && !parts.length) {
      if (performance.now() - called < 60000) requestAnimationFrame(step);
      return;
    }
    if (started === null) started = performance.now();
    const header = document.querySelector('[data-testid="stHeader"]');
    const head = header ? header.getBoundingClientRect().bottom : 0;
    if (part === 'formula') {
      const box = scroller(main.firstElementChild || main);
      if (box.scrollTop > 0) box.scrollTop = 0;
    } else if (parts.length) {
      const top = Math.min(...parts.map(e => e.getBoundingClientRect().top));
      const bottom = Math.max(...parts.map(e => e.getBoundingClientRect().bottom));
      const room = window.innerHeight - head;
      let delta = 0;
      if (top < head + 4 || bottom - top > room - 12) delta = top - head - 6;
      else if (bottom > window.innerHeight - 6) delta = bottom - window.innerHeight + 6;
      if (Math.abs(delta) >= 1) scroller(parts[0]).scrollBy(0, delta);
    }
    if (performance.now() - started < 15000) requestAnimationFrame(step);
  };
  requestAnimationFrame(step);
})();
</script>
"""


def scroll_to(stage: int) -> None:
    """After the clicker's move: the Lesson's newly revealed part whole in the window."""
    if not is_on():
        return
    import json

    st.html(
        _SCROLL_JS
        % {"part": json.dumps(STAGES[stage]), "move": st.session_state.get(_MOVES_KEY, 0)},
        unsafe_allow_javascript=True,
    )

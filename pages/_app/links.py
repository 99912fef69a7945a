"""Links that restore a view: every parameter widget's value in the URL, read back by the project.

Every parameter widget goes through :func:`bound`. The project, not Streamlit, owns the link:

* **Reading.** A URL value is parsed here before any widget sees it (:class:`Domain`): its
  type, its range on the loaded data set, an option by its stable key (``umap``, ``plst``;
  the option's display text is accepted as well, but a link never needs it), and a length cap.
  A number is a plain ASCII decimal only (:func:`plain_number`: sign, digits, point,
  exponent), not whatever ``float``/``int`` accept (``1_0``, `` 5``, ``１２``, ``٣``, ``inf``,
  ``nan``), and it must be a normal finite double as written: ``1e309`` overflows, and
  ``1e-400`` (read as 0) or ``1e-320`` (a subnormal) would set λ2 = 0 where the link asked for
  a positive value. A value between a slider's steps is moved to the nearest step, and a
  number within 1e-9 of an option is that option, both with a note.
  The parsed value goes into the widget's session state before the widget is created; a value
  that cannot be used is dropped and the widget opens as it would without the link. A note
  above the page says what happened, truthfully: a value used as given gives no note; one
  that was adjusted (the last of repeated values, rounded to a whole number, to a step or to
  an option, unknown options left out) says what is used; one that was ignored says why and
  what the page uses instead. User text in a note goes through :mod:`pages._app.plain`
  (escaped and cut to 80 characters). Without a link value the widget keeps the session's
  value while it fits the data, and after another data set was loaded a value still at the
  old default opens at the new data set's default.
* **Writing.** After the widget, its value is written to the URL by its stable key, always
  (also when it equals the default: many defaults depend on the data, such as K from the
  eigengap, and a link must reopen the same numbers on a fresh session). Parameters of widgets
  not drawn in a run are removed at its end by the router (:func:`finish_run`), except those a
  page keeps on purpose (:func:`keep`: the Lesson keeps every step's settings).

**A link Streamlit drops.** Streamlit 1.67 reads no parameter of a query string longer than
512 Ki characters or with more than 1,000 parameters (``&`` count + 1):
``AppSession.request_rerun`` passes it through ``sanitize_query_string``
(``streamlit/runtime/state/query_params.py``), which logs a warning and returns ``""``, so the
script sees an empty ``st.query_params``; ``st.context.url`` does not help (the browser code
removes the query before sending it) and the browser code has no limit of its own. Such a link
opens with the defaults and the page then writes its own link to the address bar.
:func:`watch_dropped_links` wraps that method to remember the dropped string's size per
session, and the next run says so above the page (:func:`note_dropped_link`). The wrapper is
installed on this module's first import, in the server's first script run: that one run's
own link was dropped before, so it alone opens without the note (checked on a real server
over its websocket: first session no note, later ones the note, for 1,001 parameters and for
600,007 characters).

A URL value is read when it differs from what this session last wrote for it: on opening a
link, and after the browser's back/forward buttons; the values the app wrote itself are never
parsed again (pressing the Lesson's "Next step →" gives no note).

Streamlit's own ``bind="query-params"`` is not used: it parses link values with ``float`` and
``int`` inside the widget (an ``OverflowError`` on ``inf`` for an integer ``st.number_input``),
stores a choice by its display text (data-dependent: Hypercube's "UMAP (slow: …)"), and
leaves out any value equal to the widget's default, which for a data-dependent default does not
reopen the same view. Widgets are created without their ``value``/``index``/``default``
argument (their state is set here first), so Streamlit never warns that a widget "was created
with a default value but also had its value set via the Session State API".
"""

from __future__ import annotations

import functools
import inspect
import logging
import math
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np
import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx
from streamlit.runtime.state import query_params as _query_params

from pages._app import plain

T = TypeVar("T")

DATASET_PARAM = "dataset"
_LINK_READ_KEY = "_link_dataset_read"
_LINK_NOTES: ContextVar[Any] = ContextVar("mlviz_link_notes", default=None)
VIEW_PARAMS_KEY = "_view_params"  # key -> value of every bound widget drawn in this run
_WRITTEN_KEY = "_link_written"  # key -> the URL values this session last wrote for it
_LIVE_KEY = "_link_live"  # parameters drawn or kept in this run (the others leave the URL)
_DEFAULTS_KEY = "_link_defaults"  # key -> (data digest, default) each widget last opened at

#: A link value longer than this is ignored unread (no number or option key is this long).
MAX_VALUE_CHARS = 200
#: At most this many repeated values of one parameter are read.
MAX_VALUES = 100
_MISSING = object()
_LOG = logging.getLogger(__name__)


#: A link number: an optional sign, ASCII digits with an optional ``.`` fraction, an optional
#: exponent. Spelled out in ASCII classes: ``float``/``int`` also accept ``1_0``, surrounding
#: whitespace, ``inf``/``nan`` and digits of any script (``１２``, ``٣``), which a link has no
#: reason to hold and a note should name rather than apply.
_PLAIN_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_NOT_PLAIN = (
    "is not a finite number in plain ASCII decimals (digits, an optional sign, point and "
    "exponent, such as 12, -0.5 or 1e-3)"
)


def plain_number(text: str) -> tuple[float | None, str | None]:
    """``text`` read as a plain decimal number: ``(number, None)`` or ``(None, why not)``.

    Only an optional sign, ASCII digits with an optional ``.`` fraction and an optional
    exponent ``e[+-]digits`` are read. Whatever else ``float`` would accept (underscores,
    whitespace, digits of other scripts, ``inf``, ``nan``) is not a number here, and neither
    is a value that is nonzero as written but too small for a normal double (it would be read
    as 0 or as a subnormal that has lost digits) or too large (it would be read as ``inf``).
    The reason is a sentence fragment for a link note ("was ignored: it <reason>").

    Parameters
    ----------
    text : str
        A URL query-parameter value (user text).

    Returns
    -------
    number : float or None
        The value, or None when ``text`` is not read as a number.
    reason : str or None
        Why it is not read (None when it is).

    Examples
    --------
    >>> plain_number("-1.5e3")
    (-1500.0, None)
    >>> plain_number("0e-400")
    (0.0, None)
    >>> plain_number("1_0")[0] is None and plain_number("\uff11\uff12")[0] is None
    True
    >>> plain_number("1e-400")[1]
    'is too close to 0 to be read exactly (it underflows to 0)'
    >>> plain_number("1e309")[1]
    'is not a finite number: it overflows (beyond ±1.8e308)'
    """
    if not _PLAIN_NUMBER.fullmatch(text):
        return None, _NOT_PLAIN
    number = float(text)  # the grammar is a subset of float's: this cannot raise
    if not math.isfinite(number):
        return None, "is not a finite number: it overflows (beyond ±1.8e308)"
    mantissa = re.split("[eE]", text)[0]
    if any(c in "123456789" for c in mantissa) and abs(number) < sys.float_info.min:
        # nonzero as written, but 0.0 or a subnormal here: λ2 = 1e-400 is not λ2 = 0
        shown = "0" if number == 0 else f"{number:.3g}, a subnormal"
        return None, f"is too close to 0 to be read exactly (it underflows to {shown})"
    return number, None


def _float_would_read(text: str) -> bool:
    """Whether Python's ``float`` reads ``text`` as a number (of any form)."""
    try:
        float(text)
    except (ValueError, OverflowError):
        return False
    return True


def _token_of_number(value: float) -> str:
    """A number as the URL writes it: ``3`` for 3.0, ``0.25``, ``1e-05`` (round-trips)."""
    value = float(value)
    return str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(value)


def _shown(value: Any) -> str:
    """A value as a note names it (page-made text: numbers, keys, joined lists)."""
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, (float, np.floating)):
        return f"{float(value):g}"
    if isinstance(value, (list, tuple)):
        return ", ".join(_shown(v) for v in value) if value else "nothing"
    return str(value)


@dataclass
class Parsed:
    """A link value read for one parameter: the value to use (or ``_MISSING``) and a note."""

    value: Any = _MISSING
    note: str | None = None  # a sentence fragment; {used} is filled in with the value used


@dataclass(frozen=True)
class Domain:
    """What a link value may be for one parameter, and how the URL writes it.

    ``kind`` is ``"int"``, ``"float"`` (``low``..``high``), ``"bool"``, ``"option"`` (one of
    ``options``) or ``"options"`` (a subset of ``options``, in the options' order). An option's
    stable key is ``str(option)`` (numbers as :func:`_token_of_number` writes them);
    ``display`` (the widget's ``format_func``) is accepted as an alias when reading.
    """

    kind: str
    low: float | None = None
    high: float | None = None
    options: tuple = ()
    display: Callable[[Any], Any] | None = field(default=None, compare=False)
    #: a slider's step: a link value between two steps is moved to the nearest (with a note),
    #: as the slider itself can only be set to ``low + n * step``
    step: float | None = None

    # --- constructors for settings that are not widgets (the Lesson's other steps)
    @classmethod
    def integer(cls, low: int, high: int) -> Domain:
        return cls("int", low, high)

    @classmethod
    def choice(cls, options: Sequence[Any]) -> Domain:
        return cls("option", options=tuple(options))

    @classmethod
    def choices(cls, options: Sequence[Any]) -> Domain:
        return cls("options", options=tuple(options))

    @classmethod
    def flag(cls) -> Domain:
        return cls("bool")

    # --- writing
    def key_of(self, option: Any) -> str:
        if isinstance(option, (bool, np.bool_)):
            return "true" if option else "false"
        if isinstance(option, (int, float, np.integer, np.floating)):
            return _token_of_number(option)
        return str(option)

    def tokens(self, value: Any) -> list[str]:
        """The URL values for ``value`` (a multiselect writes one per option, or ``[""]``)."""
        if self.kind == "bool":
            return ["true" if value else "false"]
        if self.kind == "int":
            return [str(int(value))]
        if self.kind == "float":
            return [_token_of_number(value)]
        if self.kind == "options":
            return [self.key_of(v) for v in value] or [""]
        return [self.key_of(value)]

    def contains(self, value: Any) -> bool:
        """Whether ``value`` (e.g. one kept in the session) is valid for this domain."""
        if self.kind == "bool":
            return isinstance(value, (bool, np.bool_))
        if self.kind in ("int", "float"):
            if isinstance(value, bool) or not isinstance(value, (int, float, np.number)):
                return False
            if self.kind == "int" and not float(value).is_integer():
                return False
            return bool(self.low <= value <= self.high)
        if self.kind == "option":
            return any(_same(value, o) for o in self.options)
        if self.kind == "options":
            return isinstance(value, (list, tuple)) and all(
                any(_same(v, o) for o in self.options) for v in value
            )
        return False

    # --- reading
    def _match(self, token: str) -> tuple[Any, str | None]:
        """The option whose stable key (or display text, or number) is ``token``, and a note.

        ``(_MISSING, reason)`` when there is none: the reason is the number's (see
        :func:`plain_number`) for a value that looks like a number but is not read as one.
        A number within 1e-9 (relative) of a numeric option that is not exactly it (``0.3``
        for an option computed as 0.30000000000000004) is that option, with a note naming it.
        """
        for option in self.options:
            if self.key_of(option) == token:
                return option, None
        if self.display is not None:
            for option in self.options:
                try:
                    if str(self.display(option)) == token:
                        return option, None
                except Exception:  # a format_func that fails on an option: no alias for it
                    continue
        numeric = [
            o
            for o in self.options
            if isinstance(o, (int, float, np.number)) and not isinstance(o, (bool, np.bool_))
        ]
        if not numeric:
            return _MISSING, None
        number, why = plain_number(token)
        if number is None:
            # what Python would read as a number (1_0, １, " 1", 1e-400) says why it is not one
            # here; other text is just not one of the options
            return _MISSING, why if _float_would_read(token) else None
        for option in numeric:
            if float(option) == number:
                return option, None
        for option in numeric:
            if math.isclose(float(option), number, rel_tol=1e-9, abs_tol=0.0):
                key = plain.markdown(self.key_of(option), 30)
                return option, f"is not exactly an option: the nearest, {key}, is used"
        return _MISSING, None

    def _range(self) -> str:
        return f"{_shown(self.low)}–{_shown(self.high)}"

    def _options_named(self) -> str:
        keys = [self.key_of(o) for o in self.options]
        named = ", ".join(plain.markdown(k, 30) for k in keys[:8])
        return named + (f" and {len(keys) - 8} more" if len(keys) > 8 else "")

    def parse(self, raw: list[str]) -> Parsed:
        """The value the link asks for, with a note unless it is used exactly as given."""
        if len(raw) > MAX_VALUES:
            return Parsed(note=f"was ignored: it has {len(raw):,} values (at most {MAX_VALUES})")
        too_long = [r for r in raw if len(r) > MAX_VALUE_CHARS]
        if too_long:
            return Parsed(
                note=f"was ignored: a value of {len(too_long[0]):,} characters is too long "
                f"(at most {MAX_VALUE_CHARS})"
            )
        if self.kind == "options":
            return self._parse_many(raw)
        prefix = ""
        if len(raw) > 1:
            # Streamlit and browsers take the last of repeated values; say so
            prefix = (
                f"has {len(raw)} values ({', '.join(plain.markdown(r, 20) for r in raw[:5])}"
                f"{', …' if len(raw) > 5 else ''}): the last is read. "
            )
        parsed = self._parse_one(raw[-1])
        if prefix:
            if parsed.value is _MISSING:
                parsed.note = prefix + "It " + (parsed.note or "")
            else:
                parsed.note = prefix + (parsed.note or "{used} is used")
        return parsed

    def _parse_one(self, token: str) -> Parsed:
        if token.strip() == "":
            return Parsed(note="was ignored: it is empty")
        if self.kind == "bool":
            if token.lower() in ("true", "false"):
                return Parsed(token.lower() == "true")
            return Parsed(note="was ignored: it is not true or false")
        if self.kind in ("int", "float"):
            number, why = plain_number(token)
            if number is None:
                return Parsed(note=f"was ignored: it {why}")
            note = None
            if self.kind == "int" and not number.is_integer():
                number = float(math.floor(number + 0.5))
                note = f"is not a whole number: rounded to {_shown(number)}, which is used"
            if not self.low <= number <= self.high:
                return Parsed(note=f"was ignored: {_shown(number)} is outside {self._range()} here")
            on_step = self._on_step(number)
            if on_step != number:
                note = (
                    f"is not on the slider's steps ({_shown(self.step)} from {_shown(self.low)}):"
                    f" rounded to {_shown(on_step)}, which is used"
                )
                number = on_step
            return Parsed(int(number) if self.kind == "int" else number, note)
        option, why = self._match(token)
        if option is _MISSING:
            if why is not None:
                return Parsed(note=f"was ignored: it {why}")
            named = self._options_named()
            return Parsed(note=f"was ignored: it is not one of the options ({named})")
        return Parsed(option, why)

    def _on_step(self, number: float) -> float:
        """``number`` moved to the nearest ``low + n * step`` within the range (or kept)."""
        if not self.step or self.step <= 0 or self.low is None:
            return number
        steps = (number - self.low) / self.step
        if math.isclose(steps, round(steps), rel_tol=0.0, abs_tol=1e-9):
            return number  # on a step as written (0.3 = 0.1 + 4 * 0.05 up to rounding)
        n = math.floor(steps + 0.5)
        if self.low + n * self.step > self.high:
            n -= 1  # the slider's last step may lie below its maximum
        # 12 significant digits: 0.35, not 0.35000000000000003, in the note and the URL
        on_step = float(f"{self.low + n * self.step:.12g}")
        return float(round(on_step)) if self.kind == "int" else on_step

    def _parse_many(self, raw: list[str]) -> Parsed:
        if raw == [""] or not raw:
            return Parsed([])  # the URL's way of writing "none chosen"
        chosen, unknown, nearly = [], [], []
        for token in raw:
            option, why = self._match(token)
            if option is _MISSING:
                unknown.append(token)
                continue
            if why is not None:
                nearly.append(token)  # a number within 1e-9 of an option, not exactly it
            if not any(_same(option, c) for c in chosen):
                chosen.append(option)
        adjusted = ""
        if nearly:
            named = ", ".join(plain.markdown(t, 30) for t in nearly[:5])
            adjusted = f"names {named} not exactly as options (the nearest are used)"
        if not unknown:
            return Parsed(chosen, adjusted + "; {used} is used" if adjusted else None)
        named = ", ".join(plain.markdown(u, 30) for u in unknown[:5])
        named += f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
        if not chosen:
            return Parsed(note=f"was ignored: no known option in it ({named} unknown)")
        adjusted = adjusted + "; " if adjusted else ""
        return Parsed(
            chosen, f"names unknown options ({named}), left out; {adjusted}{{used}} is used"
        )


def _same(a: Any, b: Any) -> bool:
    """``a == b`` for options (a bool is not the number 1 here)."""
    if isinstance(a, (bool, np.bool_)) != isinstance(b, (bool, np.bool_)):
        return False
    try:
        return bool(a == b)
    except (TypeError, ValueError):  # e.g. comparing arrays: not the same option
        return False


def _equal(a: Any, b: Any) -> bool:
    """``a == b`` for widget values (lists and numbers), False when they do not compare."""
    try:
        return bool(a == b) and isinstance(a, bool) == isinstance(b, bool)
    except (TypeError, ValueError):
        return False


# ------------------------------------------------------------------------- the run's state


def start_run() -> None:
    """Forget the bound widgets of the previous run (the router calls it first)."""
    st.session_state[VIEW_PARAMS_KEY] = {}
    st.session_state[_LIVE_KEY] = set()


def finish_run() -> None:
    """Remove the URL parameters no widget drew or page kept in this run (another page's)."""
    live = st.session_state.get(_LIVE_KEY, set()) | {DATASET_PARAM}
    for key in [k for k in st.query_params if k not in live]:
        del st.query_params[key]
        st.session_state.get(_WRITTEN_KEY, {}).pop(key, None)


def view_params() -> dict[str, Any]:
    """Key -> value of every bound widget drawn in this run (for the page's report)."""
    return dict(st.session_state.get(VIEW_PARAMS_KEY, {}))


@contextmanager
def notes_above() -> Iterator[None]:
    """Inside the block, notes about the link go into a container placed here (above it)."""
    token = _LINK_NOTES.set(st.container())
    try:
        note_dropped_link()
        yield
    finally:
        _LINK_NOTES.reset(token)


# --------------------------------------------------------------- links Streamlit drops

# Streamlit's own limits (streamlit/runtime/state/query_params.py, 1.67): a longer query string
# is replaced by "" before any script sees it
_MAX_QUERY_CHARS = getattr(_query_params, "CLIENT_STATE_QUERY_STRING_MAX_LENGTH", 512 * 1024)
_MAX_QUERY_FIELDS = getattr(_query_params, "CLIENT_STATE_QUERY_STRING_MAX_FIELDS", 1000)
#: session id -> (characters, parameters) of the last query string Streamlit dropped for it
_DROPPED: dict[str, tuple[int, int]] = {}
_WATCHED = "_mlviz_links_watch"


def dropped_size(query_string: str) -> tuple[int, int] | None:
    """``(characters, parameters)`` when Streamlit 1.67 drops ``query_string`` unread, else None.

    The same test as ``streamlit.runtime.state.query_params.sanitize_query_string``: more than
    512 Ki characters, or more than 1,000 parameters counted as ``&`` separators + 1.

    Parameters
    ----------
    query_string : str
        The query string the browser sent (without ``?``).

    Returns
    -------
    tuple of (int, int) or None
        Its length and parameter count when it is dropped.

    Examples
    --------
    >>> dropped_size("a=1&b=2") is None
    True
    >>> dropped_size("&".join(["a=1"] * 1001))
    (4003, 1001)
    >>> dropped_size("a=" + "x" * 524_288)
    (524290, 1)
    """
    fields = query_string.count("&") + 1
    if query_string and (len(query_string) > _MAX_QUERY_CHARS or fields > _MAX_QUERY_FIELDS):
        return len(query_string), fields
    return None


def watch_dropped_links() -> None:
    """Remember, per session, a query string that Streamlit drops before the script runs.

    Streamlit 1.67 empties an over-long query string in ``AppSession.request_rerun`` (it only
    logs a warning): the script sees no parameters, and neither ``st.context`` (its ``url``
    has the query removed by the browser code) nor the run's context keeps the original. So the
    check has to see the rerun request itself: ``AppSession.request_rerun`` is wrapped (once
    per process) to note the dropped string's size under the session's id, then calls
    Streamlit's method unchanged. Installed when this module is first imported, i.e. during the
    first script run of the server process: that first run's own link was already read (and,
    if over-long, dropped) before, so only its note is missing.
    """
    try:
        from streamlit.runtime.app_session import AppSession
    except ImportError:  # another Streamlit layout: no note rather than a failure
        return
    original = AppSession.request_rerun
    if getattr(original, _WATCHED, False):
        return

    @functools.wraps(original)
    def request_rerun(self: Any, client_state: Any = None, *args: Any, **kwargs: Any) -> Any:
        try:
            if client_state is not None:  # None reruns with the query string already read
                size = dropped_size(getattr(client_state, "query_string", "") or "")
                if size is None:
                    _DROPPED.pop(self.id, None)
                else:
                    _DROPPED[self.id] = size
        except Exception:  # never let the check stop a rerun; but say it failed
            _LOG.warning("could not check the link's size for a dropped query", exc_info=True)
        return original(self, client_state, *args, **kwargs)

    setattr(request_rerun, _WATCHED, True)
    AppSession.request_rerun = request_rerun


def note_dropped_link() -> None:
    """Say so when Streamlit dropped this run's link unread (:func:`watch_dropped_links`)."""
    ctx = get_script_run_ctx()
    size = _DROPPED.pop(ctx.session_id, None) if ctx is not None else None
    if size is None:
        return
    chars, fields = size
    if chars > _MAX_QUERY_CHARS:
        why = f"was longer than {_MAX_QUERY_CHARS:,} characters ({chars:,})"
    else:
        why = f"had more than {_MAX_QUERY_FIELDS:,} parameters ({fields:,})"
    _link_note(f"The link {why}: Streamlit did not read it, so the page opens with its defaults.")


watch_dropped_links()


def _link_note(message: str) -> None:
    """Show a note about the link at the top of the page (inline when run without router)."""
    notes = _LINK_NOTES.get()
    (notes if notes is not None else st).warning(message, icon=":material/link:")


def _raw(key: str) -> list[str]:
    return st.query_params.get_all(key) if key in st.query_params else []


def read(key: str, domain: Domain, raw: list[str] | None = None) -> Parsed | None:
    """The link's value for ``key`` when the URL holds one this session did not write
    (``raw``: the URL's values for ``key``, when the caller has just read them)."""
    raw = _raw(key) if raw is None else raw
    if not raw or st.session_state.get(_WRITTEN_KEY, {}).get(key) == raw:
        return None
    return domain.parse(raw)


def write(key: str, domain: Domain, value: Any, raw: list[str] | None = None) -> None:
    """Put ``value`` in the URL under ``key`` (by its stable key) and keep it this run
    (``raw``: the URL's values for ``key``, when the caller has just read them)."""
    tokens = domain.tokens(value)
    if (_raw(key) if raw is None else raw) != tokens:
        st.query_params[key] = tokens if len(tokens) > 1 else tokens[0]
    st.session_state.setdefault(_WRITTEN_KEY, {})[key] = tokens
    keep(key)


def keep(key: str) -> None:
    """Keep ``key`` in the URL at the end of this run (see :func:`finish_run`)."""
    st.session_state.setdefault(_LIVE_KEY, set()).add(key)


def _note(key: str, raw: list[str], parsed: Parsed, value: Any) -> None:
    if parsed.note is None:
        return
    used = plain.markdown(_shown(value))
    # str.replace, not str.format: the note holds (escaped) user text, braces included
    note = parsed.note.replace("{used}", used)
    ending = "." if parsed.value is not _MISSING else f"; the page uses {used}."
    _link_note(f"The link's `{key}` = {plain.markdown('&'.join(raw))} {note}{ending}")


def setting(key: str, domain: Domain, default: Any) -> Any:
    """A setting kept in the session and the URL without a widget drawn in this run.

    The Lesson's other steps: the link's value (parsed as for a widget) or the session's, or
    ``default`` when neither is valid; written back to the URL so the link stays complete.
    """
    parsed = read(key, domain)
    if parsed is not None and parsed.value is not _MISSING:
        st.session_state[key] = parsed.value
    value = st.session_state.get(key, default)
    if not domain.contains(value):
        value = default
    if parsed is not None:
        _note(key, _raw(key), parsed, value)
    write(key, domain, value)
    return value


# ------------------------------------------------------------------------------ widgets

_DEFAULT_ARGUMENT = {
    "slider": "value",
    "number_input": "value",
    "select_slider": "value",
    "selectbox": "index",
    "radio": "index",
    "multiselect": "default",
    "checkbox": "value",
    "toggle": "value",
}


def domain_of(widget: Callable[..., Any], arguments: dict[str, Any]) -> tuple[Domain, Any]:
    """The widget's domain and its default value, from its arguments (``value`` etc. included)."""
    kind = getattr(widget, "__name__", "")
    if kind in ("slider", "number_input"):
        low, high = arguments.get("min_value"), arguments.get("max_value")
        value, step = arguments.get("value"), arguments.get("step")
        if isinstance(value, (tuple, list)):
            raise TypeError("links.bound: range sliders are not supported")
        numbers = [v for v in (low, high, value, step) if isinstance(v, (int, float, np.number))]
        integer = all(isinstance(v, (int, np.integer)) for v in numbers)
        if low is None or high is None:
            raise TypeError("links.bound: a bound number widget needs min_value and max_value")
        default = low if value is None or value == "min" else value
        # a default outside the range (Compare's d = M for M > 200) opens at the nearest end
        default = min(max(default, low), high)
        # a slider moves by its step (a number input can be typed between): a link value too
        step = step if kind == "slider" and isinstance(step, (int, float, np.number)) else None
        return Domain("int" if integer else "float", low, high, step=step), default
    if kind in ("select_slider", "selectbox", "radio", "multiselect"):
        options = tuple(arguments.get("options", ()))
        display = arguments.get("format_func")
        if kind == "select_slider":
            value = arguments.get("value")
            default = options[0] if value is None else value
            return Domain("option", options=options, display=display), default
        if kind == "multiselect":
            chosen = arguments.get("default")
            default = [] if chosen is None else list(chosen)
            return Domain("options", options=options, display=display), default
        index = arguments.get("index", 0)
        return Domain("option", options=options, display=display), options[index or 0]
    if kind in ("checkbox", "toggle"):
        return Domain("bool"), bool(arguments.get("value", False))
    raise TypeError(f"links.bound: {kind or widget!r} is not a supported widget")


@functools.cache
def _method_signature(function: Callable[..., Any]) -> inspect.Signature:
    """The signature of a widget method bound to any container, without ``self``: what
    ``inspect.signature`` gives for the bound method, computed once per method (it unwraps
    Streamlit's decorators on every call: ~1 % of a cached rerun with a dozen widgets)."""
    signature = inspect.signature(function)
    return signature.replace(parameters=list(signature.parameters.values())[1:])


def bound(widget: Callable[..., T], *args: Any, key: str, **kwargs: Any) -> T:
    """``widget(*args, key=key, **kwargs)`` with its value read from and written to the URL.

    Use for every parameter widget (``links.bound(st.slider, "M", 1, L, 4, key="plst_m")``,
    ``links.bound(col.selectbox, ...)``). Its ``value``/``index``/``default`` is the value the
    widget opens at without a link (or when the session's value no longer fits the data). Never
    raises for a bad link; see the module docstring for what a link value may be.
    """
    kwargs.pop("bind", None)
    if inspect.ismethod(widget):
        signature = _method_signature(widget.__func__)
    else:
        signature = inspect.signature(widget)
    arguments = dict(signature.bind_partial(*args, key=key, **kwargs).arguments)
    domain, default = domain_of(widget, arguments)
    arguments.pop(_DEFAULT_ARGUMENT[getattr(widget, "__name__", "")], None)

    state = st.session_state
    # the URL is read once per widget (each read of st.query_params takes its lock and the
    # run's context; three reads per widget were ~2 % of a rerun): nothing between here and
    # write() below changes this key in the URL
    raw = _raw(key)
    parsed = read(key, domain, raw)
    # the data set and default the widget opened at last run: after another data set was
    # loaded, a value still at the old default opens at the new one (a value set on purpose
    # to the old default on the same data, e.g. by a button, stays)
    opened_at = state.setdefault(_DEFAULTS_KEY, {})
    data = getattr(state.get("dataset"), "digest", None)
    previous_data, previous = opened_at.get(key, (data, _MISSING))
    untouched = (
        previous_data != data
        and previous is not _MISSING
        and _equal(state.get(key, _MISSING), previous)
    )
    if parsed is not None and parsed.value is not _MISSING:
        state[key] = parsed.value
    elif (
        key not in state
        or not domain.contains(state[key])
        or (untouched and not _equal(previous, default))
    ):
        state[key] = default
    else:
        # re-set as the app's value: a widget of another page with this key (the shared
        # grouping's, the sidebar's) has another identity, and Streamlit would open it at its
        # first option instead of the session's value it kept
        state[key] = state[key]
    opened_at[key] = (data, default)
    value = widget(**arguments)
    state.setdefault(VIEW_PARAMS_KEY, {})[key] = value
    if parsed is not None:
        _note(key, raw, parsed, value)
    write(key, domain, value, raw)
    return value


def dataset_from_link(keys: Sequence[str]) -> None:
    """Select the link's ``?dataset=`` once per session (later the picker rules)."""
    if st.session_state.get(_LINK_READ_KEY):
        return
    st.session_state[_LINK_READ_KEY] = True
    raw = _raw(DATASET_PARAM)
    if not raw:
        return
    parsed = Domain.choice(keys).parse(raw)
    if parsed.value is not _MISSING:
        st.session_state["source_choice"] = parsed.value
        if parsed.note is None:
            return
        _link_note(
            f"The link's `{DATASET_PARAM}` = {plain.markdown('&'.join(raw))} "
            + parsed.note.replace("{used}", plain.markdown(parsed.value))
            + "."
        )
        return
    if parsed.note and "not one of the options" in parsed.note:
        why = "was ignored: no such data set here (the data folder may differ)"
    else:
        why = parsed.note or "was ignored"
    _link_note(
        f"The link's `{DATASET_PARAM}` = {plain.markdown('&'.join(raw))} {why}. Using "
        f"{plain.markdown(keys[0])} instead; choose one in the sidebar."
    )


def dataset_to_link(key: str | None) -> None:
    if key is None:
        st.query_params.pop(DATASET_PARAM, None)
    elif st.query_params.get_all(DATASET_PARAM) != [key]:
        st.query_params[DATASET_PARAM] = key


def int_slider(
    label: str, low: int, high: int, value: int, *, key: str, why_fixed: str, **kwargs: Any
) -> int:
    """An integer slider, or a sentence when the data leave a single value (``low >= high``).

    Streamlit refuses a slider whose minimum equals its maximum; a data set with one label or
    a handful of rows produces exactly that. ``why_fixed`` completes "<label> is <low>: ...".
    """
    if high <= low:
        st.caption(f"{label} is {low}: {why_fixed}")
        return low
    return int(
        bound(
            st.slider,
            label,
            low,
            high,
            min(max(value, low), high),
            key=key,
            persist_state="session",
            **kwargs,
        )
    )

"""Links that restore a view: every parameter widget's value in the URL, read back by the project.

Every parameter widget goes through :func:`bound`. The project, not Streamlit, owns the link:

* **Reading.** A URL value is parsed here before any widget sees it (:class:`Domain`): its
  type, that it is finite (``inf``, ``1e309``, a 400-digit number and ``nan`` are not numbers
  here), its range on the loaded data set, an option by its stable key (``umap``, ``plst``;
  the option's display text is accepted as well, but a link never needs it), and a length cap.
  The parsed value goes into the widget's session state before the widget is created; a value
  that cannot be used is dropped and the widget opens as it would without the link. A note
  above the page says what happened, truthfully: a value used as given gives no note; one
  that was adjusted (the last of repeated values, rounded to a whole number, unknown options
  left out) says what is used; one that was ignored says why and what the page uses instead.
  User text in a note goes through :mod:`pages._app.plain` (escaped and cut to 80
  characters). Without a link value the widget keeps the session's value while it fits the
  data, and after another data set was loaded a value still at the old default opens at the
  new data set's default.
* **Writing.** After the widget, its value is written to the URL by its stable key, always
  (also when it equals the default: many defaults depend on the data, such as K from the
  eigengap, and a link must reopen the same numbers on a fresh session). Parameters of widgets
  not drawn in a run are removed at its end by the router (:func:`finish_run`), except those a
  page keeps on purpose (:func:`keep`: the Lesson keeps every step's settings).

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

import inspect
import math
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np
import streamlit as st

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


def _number(text: str) -> float | None:
    """``text`` as a finite float, or None (``inf``, ``nan``, ``1e309``, not a number)."""
    try:
        number = float(text)
    except (ValueError, OverflowError):
        return None
    return number if math.isfinite(number) else None


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
    def _match(self, token: str) -> Any:
        """The option whose stable key (or display text, or number) is ``token``."""
        for option in self.options:
            if self.key_of(option) == token:
                return option
        if self.display is not None:
            for option in self.options:
                try:
                    if str(self.display(option)) == token:
                        return option
                except Exception:  # a format_func that fails on an option: no alias for it
                    continue
        number = _number(token)
        if number is not None:
            for option in self.options:
                if isinstance(option, (int, float, np.number)) and not isinstance(option, bool):
                    if math.isclose(float(option), number, rel_tol=1e-9, abs_tol=0.0):
                        return option
        return _MISSING

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
            number = _number(token)
            if number is None:
                return Parsed(note="was ignored: it is not a finite number")
            note = None
            if self.kind == "int" and not number.is_integer():
                number = float(math.floor(number + 0.5))
                note = f"is not a whole number: rounded to {_shown(number)}, which is used"
            if not self.low <= number <= self.high:
                return Parsed(note=f"was ignored: {_shown(number)} is outside {self._range()} here")
            return Parsed(int(number) if self.kind == "int" else number, note)
        option = self._match(token)
        if option is _MISSING:
            named = self._options_named()
            return Parsed(note=f"was ignored: it is not one of the options ({named})")
        return Parsed(option)

    def _parse_many(self, raw: list[str]) -> Parsed:
        if raw == [""] or not raw:
            return Parsed([])  # the URL's way of writing "none chosen"
        chosen, unknown = [], []
        for token in raw:
            option = self._match(token)
            if option is _MISSING:
                unknown.append(token)
            elif not any(_same(option, c) for c in chosen):
                chosen.append(option)
        if not unknown:
            return Parsed(chosen)
        named = ", ".join(plain.markdown(u, 30) for u in unknown[:5])
        named += f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
        if not chosen:
            return Parsed(note=f"was ignored: no known option in it ({named} unknown)")
        return Parsed(chosen, f"names unknown options ({named}), left out; {{used}} is used")


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
        yield
    finally:
        _LINK_NOTES.reset(token)


def _link_note(message: str) -> None:
    """Show a note about the link at the top of the page (inline when run without router)."""
    notes = _LINK_NOTES.get()
    (notes if notes is not None else st).warning(message, icon=":material/link:")


def _raw(key: str) -> list[str]:
    return st.query_params.get_all(key) if key in st.query_params else []


def read(key: str, domain: Domain) -> Parsed | None:
    """The link's value for ``key`` when the URL holds one this session did not write."""
    raw = _raw(key)
    if not raw or st.session_state.get(_WRITTEN_KEY, {}).get(key) == raw:
        return None
    return domain.parse(raw)


def write(key: str, domain: Domain, value: Any) -> None:
    """Put ``value`` in the URL under ``key`` (by its stable key) and keep it this run."""
    tokens = domain.tokens(value)
    if _raw(key) != tokens:
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
        return Domain("int" if integer else "float", low, high), default
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


def bound(widget: Callable[..., T], *args: Any, key: str, **kwargs: Any) -> T:
    """``widget(*args, key=key, **kwargs)`` with its value read from and written to the URL.

    Use for every parameter widget (``links.bound(st.slider, "M", 1, L, 4, key="plst_m")``,
    ``links.bound(col.selectbox, ...)``). Its ``value``/``index``/``default`` is the value the
    widget opens at without a link (or when the session's value no longer fits the data). Never
    raises for a bad link; see the module docstring for what a link value may be.
    """
    kwargs.pop("bind", None)
    signature = inspect.signature(widget)
    arguments = dict(signature.bind_partial(*args, key=key, **kwargs).arguments)
    domain, default = domain_of(widget, arguments)
    arguments.pop(_DEFAULT_ARGUMENT[getattr(widget, "__name__", "")], None)

    state = st.session_state
    raw = _raw(key)
    parsed = read(key, domain)
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
    write(key, domain, value)
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

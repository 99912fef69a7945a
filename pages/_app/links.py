"""Links that restore a view: every parameter widget bound to the URL.

Every parameter widget is bound to the URL with Streamlit's own ``bind="query-params"``
(the widget's key is the parameter's name; values equal to the default are left out), so a
link reopens the same page (the URL path), data set (``?dataset=``) and settings. Streamlit
silently drops a link value the widget cannot take; :func:`bound` says so on the page.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

import numpy as np
import streamlit as st

T = TypeVar("T")

# Every parameter widget is bound to the URL with Streamlit's own ``bind="query-params"``
# (the widget's key is the parameter's name; values equal to the default are left out), so a
# link reopens the same page (the URL path), data set (``?dataset=``) and settings. Streamlit
# silently drops a link value the widget cannot take; :func:`bound` says so on the page.
DATASET_PARAM = "dataset"
_LINK_READ_KEY = "_link_dataset_read"
_LINK_NOTES: ContextVar[Any] = ContextVar("mlviz_link_notes", default=None)
VIEW_PARAMS_KEY = "_view_params"  # key -> value of every bound widget drawn in this run


def _as_number(text: str) -> float | None:
    try:
        number = float(text)
    except ValueError:
        return None
    return number if np.isfinite(number) else None


def _link_mismatch(value: Any, raw: list[str], shown: Callable[[Any], str]) -> str | None:
    """Why the link's ``raw`` value(s) did not become ``value``, or None if they did."""
    if isinstance(value, bool):
        if [r.lower() for r in raw] == [str(value).lower()]:
            return None
        return (
            "it is not true or false"
            if raw[0].lower() not in ("true", "false")
            else ("the setting is not available here")
        )
    if isinstance(value, (int, float, np.number)) or (
        isinstance(value, tuple) and value and all(isinstance(v, (int, float)) for v in value)
    ):
        wanted = list(value) if isinstance(value, tuple) else [value]
        numbers = [_as_number(r) for r in raw]
        if any(n is None for n in numbers):
            return "it is not a number"
        if len(numbers) == len(wanted) and np.allclose(numbers, wanted, rtol=1e-9, atol=0):
            return None
        if isinstance(value, tuple) and len(numbers) != len(wanted):
            return f"a range needs {len(wanted)} values"
        if (
            not isinstance(value, tuple)
            and isinstance(value, (int, np.integer))
            and not float(numbers[0]).is_integer()
        ):
            return "it is not a whole number"
        return "it is outside the range this data set allows"
    if isinstance(value, (list, tuple)):
        known = [shown(v) for v in value]
        if known == raw:
            return None
        unknown = [r for r in raw if r not in known]
        return f"unknown option(s) {', '.join(unknown)}" if unknown else "it is not available here"
    if raw == [shown(value)]:
        return None
    return "it is not one of the options"


def start_run() -> None:
    """Forget the bound widgets of the previous run (the router calls it first)."""
    st.session_state[VIEW_PARAMS_KEY] = {}


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


def bound(widget: Callable[..., T], *args: Any, key: str, **kwargs: Any) -> T:
    """``widget(*args, key=key, **kwargs)`` bound to the URL parameter ``key``.

    Use for every parameter widget (``links.bound(st.slider, "M", 1, L, 4, key="plst_m")``,
    ``links.bound(col.selectbox, ...)``). A value in the link the widget cannot take (wrong
    type, out of range, unknown option) is dropped by Streamlit; here a note says which
    parameter was ignored, why, and what the page uses instead. Never raises for a bad link.
    """
    raw = st.query_params.get_all(key) if key in st.query_params else []
    value = widget(*args, key=key, bind="query-params", **kwargs)
    st.session_state.setdefault(VIEW_PARAMS_KEY, {})[key] = value
    if raw:
        format_func = kwargs.get("format_func", str)
        reason = _link_mismatch(value, raw, lambda v: str(format_func(v)))
        if reason is not None:
            used = (
                value
                if isinstance(value, (bool, int, float, np.number))
                else (
                    ", ".join(map(str, value))
                    if isinstance(value, (list, tuple))
                    else format_func(value)
                )
            )
            _link_note(
                f"The link's `{key}={'&'.join(raw)}` was ignored: {reason}. Using "
                f"{used if used != '' else 'nothing'} instead."
            )
    return value


def dataset_from_link(keys: Sequence[str]) -> None:
    """Select the link's ``?dataset=`` once per session (later the picker rules)."""
    if st.session_state.get(_LINK_READ_KEY):
        return
    st.session_state[_LINK_READ_KEY] = True
    wanted = st.query_params.get(DATASET_PARAM)
    if wanted is None:
        return
    if wanted in keys:
        st.session_state["source_choice"] = wanted
    else:
        _link_note(
            f"The link's `{DATASET_PARAM}={wanted}` was ignored: no such data set here (the "
            f"data folder may differ). Using {keys[0]} instead; choose one in the sidebar."
        )


def dataset_to_link(key: str | None) -> None:
    if key is None:
        st.query_params.pop(DATASET_PARAM, None)
    elif st.query_params.get(DATASET_PARAM) != key:
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

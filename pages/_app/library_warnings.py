"""Library warnings of a fit, collected per script thread and shown on the page.

Warnings users should see: the library's (constant labels, capped views, dropped candidates)
and scikit-learn's ConvergenceWarning are UserWarnings; numerical trouble is a RuntimeWarning.
Deprecation and future warnings are for developers and stay in the server log.

How a fit's warnings are captured (the choice, and why)
-------------------------------------------------------
Python 3.11 routes every warning of every thread through one module-level function,
``warnings.showwarning``, and keeps one global filter list; Streamlit runs each session's
script in its own thread, so two sessions can fit at the same time.
``warnings.catch_warnings(record=True)`` swaps that global function and the filters for the
block and restores what it saw on entry: with two overlapping blocks in two threads, each
collects the other's warnings and the later exit restores a stale hook.

Here nothing is replaced for good. While at least one thread records (a counter under a lock),
a router function stands in for ``warnings.showwarning``: it appends a warning to the
recording thread's own list (thread-local) and hands every other warning, of any thread, to
the function that was installed before, unchanged. When the last recording ends, that function
is put back, whatever happened meanwhile, and so are the filters: so pytest's capture, the
server's logging and any other hook see every warning that is not a fit's, and outside fits the
process runs with exactly its own hook and filters. While recording, an "always" filter for
the shown categories goes first in the list: a warning repeated by a second fit is collected
again rather than suppressed as already shown, and a process-wide "ignore" (``PYTHONWARNINGS``,
a test runner's configuration) cannot empty a fit's warnings: fits are cached for every
session, so a warning lost by the session that computed one would be lost for all of them
(it was, under pytest's filter for constant labels). A library's own filter set inside the fit
still wins: ``warnings.filterwarnings`` puts it in front of ours.
Python 3.14's context-aware warnings (``sys.flags.context_aware_warnings``) would make this a
plain ``catch_warnings`` per thread.
"""

from __future__ import annotations

import re
import threading
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import streamlit as st

SHOWN_WARNINGS: tuple[type[Warning], ...] = (UserWarning, RuntimeWarning)

_local = threading.local()  # .messages: the recording thread's list, or None
_lock = threading.Lock()
_state: dict = {"recorders": 0, "previous": None, "filters": None}


def _route(message, category, filename, lineno, file=None, line=None):
    bucket = getattr(_local, "messages", None)
    if bucket is not None and issubclass(category, SHOWN_WARNINGS):
        bucket.append(str(message))
        return
    # Every other warning goes to the hook that was installed before. It is kept after the
    # last recording ends: a library's own catch_warnings block, entered during a fit, may put
    # this function back after that (its exit restores what it saw on entry).
    _state["previous"](message, category, filename, lineno, file, line)


def _start() -> None:
    with _lock:
        if _state["recorders"] == 0:
            if warnings.showwarning is not _route:  # else a stale copy: keep the one we had
                _state["previous"] = warnings.showwarning
            _state["filters"] = list(warnings.filters)
            warnings.showwarning = _route
            for category in SHOWN_WARNINGS:
                warnings.filterwarnings("always", category=category)
        _state["recorders"] += 1


def _stop() -> None:
    with _lock:
        _state["recorders"] -= 1
        if _state["recorders"] == 0:
            if warnings.showwarning is _route:
                warnings.showwarning = _state["previous"]
            # the filters as they were, plus any another thread added meanwhile
            added = [f for f in warnings.filters if f not in _state["filters"]]
            ours = {("always", None, c, None, 0) for c in SHOWN_WARNINGS}
            warnings.filters[:] = [f for f in added if f not in ours] + _state["filters"]
            warnings._filters_mutated()
            _state["filters"] = None


@contextmanager
def recording_warnings() -> Iterator[list[str]]:
    """Collect the warnings raised in this thread inside the block into the yielded list.

    Nested blocks pass what they collected on to the enclosing block.
    """
    outer = getattr(_local, "messages", None)
    messages: list[str] = []
    _start()
    _local.messages = messages
    try:
        yield messages
    finally:
        _local.messages = outer
        _stop()
        if outer is not None:
            outer.extend(messages)


_SHOWN_KEY = "_library_warnings_shown"


def _shown_this_run() -> set[str]:
    """The warnings already shown in this script run (empty outside a Streamlit run).

    Two fits of one page can raise the same warning (CLEMS at the chosen M and at M = L, on
    the same capped candidates, warned twice): each is shown once per run. The run is told
    apart by Streamlit's per-run cursor table, which ``ScriptRunContext.reset`` replaces at
    the start of every run (and a fragment's rerun by a copy); the set is kept beside a
    reference to that table, so a later run, whose table is a new object, starts empty.
    """
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx(suppress_warning=True)
    if ctx is None:
        return set()
    held = st.session_state.get(_SHOWN_KEY)
    if held is None or held[0] is not ctx.cursors:
        held = (ctx.cursors, set())
        st.session_state[_SHOWN_KEY] = held
    return held[1]


# "label columns 3 (always 0), 7 (always 1) and 2 more are constant", "label column 3 (always
# 0) is constant" (mlviz.linear)
_CONSTANT_COLUMNS = re.compile(r"label columns? ((?:\d+ \(always [01]\)(?:, )?)+)")
_COLUMN = re.compile(r"(\d+) \(always ([01])\)")


def _plain(text: str) -> str:
    """``text`` as markdown that shows it literally: every ASCII punctuation mark escaped.

    For messages that carry label names (user text): CommonMark shows a backslash-escaped
    punctuation character as itself, so no name can become emphasis, a link or HTML.
    """
    return re.sub(r"([!-/:-@\[-`{-~])", r"\\\1", text)


def name_constant_labels(message: str, label_names: Sequence[str] | None) -> str | None:
    """The constant-label warning with names instead of column indices, or None.

    ``"label column 3 (always 0) is constant"`` becomes ``"label tag_x (column 3, always 0)
    is constant"``, and several columns become ``"labels tag_x (...), tag_y (...) are
    constant"`` (medical's PLST warning named its labels by index only).

    Examples
    --------
    >>> from pages._app.library_warnings import name_constant_labels
    >>> name_constant_labels("PLST: label column 1 (always 0) is constant", ["a", "b"])
    'PLST: label b (column 1, always 0) is constant'
    >>> name_constant_labels("BR: label columns 0 (always 1), 1 (always 0) are constant", "ab")
    'BR: labels a (column 0, always 1), b (column 1, always 0) are constant'
    >>> name_constant_labels("PLST: label column 7 (always 0) is constant", ["a"]) is None
    True
    """
    match = _CONSTANT_COLUMNS.search(message) if label_names is not None else None
    if match is None:
        return None
    named = []
    for column, value in _COLUMN.findall(match.group(1)):
        j = int(column)
        if j >= len(label_names):
            return None  # not this data set's columns: keep the library's text
        named.append(f"{label_names[j]} (column {j}, always {value})")
    noun = "label " if match.group(0).startswith("label column ") else "labels "
    return message[: match.start()] + noun + ", ".join(named) + message[match.end() :]


# A measured value in a message: a decimal or a number in scientific notation ("0.00064",
# "7.8e-05"), never a whole number (a column, a count, the digits of a label's name), so two
# messages about different columns or labels never merge.
_MEASURED = re.compile(
    r"(?<![\w.])(?:\d+\.\d+(?:e[-+]?\d+)?|\d+e[-+]?\d+)(?![\w.])", flags=re.IGNORECASE
)


def merge_repeats(messages: Sequence[str]) -> list[str]:
    """``messages`` with those that differ only in measured values merged into one, in the
    order they first came; each measured value that differs is written as its range.

    One computation can fit a model many times (the comparison with random groupings fits
    GroPLE 18 to 63 times, a cross-validation once per fold), and a warning about the fit then
    repeats with another number each time: on birds, 18 iteration-cap warnings of GroPLE's
    Eq. 5 step, one on the page and 17 in an expander. The merged message says how many it
    stands for; values equal in every message are kept as they are.

    Examples
    --------
    >>> from pages._app.library_warnings import merge_repeats
    >>> merge_repeats(["still changing by 0.00064 (tol=1e-06)", "still changing by 7.8e-05 "
    ...     "(tol=1e-06)", "label column 3 is constant", "label column 4 is constant"])
    ... # doctest: +NORMALIZE_WHITESPACE
    ['still changing by 7.8e-05 to 0.00064 (tol=1e-06) (the same warning 2 times, with the
      values that differ between them given as ranges)', 'label column 3 is constant',
      'label column 4 is constant']
    """
    groups: dict[str, list[str]] = {}
    for message in messages:
        groups.setdefault(_MEASURED.sub("#", message), []).append(message)
    merged = []
    for members in groups.values():
        if len(members) == 1:
            merged.append(members[0])
            continue
        values = [_MEASURED.findall(message) for message in members]
        parts = _MEASURED.split(members[0])
        text = parts[0]
        for position, tail in enumerate(parts[1:]):
            column = sorted((float(v[position]), v[position]) for v in values)
            low, high = column[0][1], column[-1][1]
            text += (low if column[0][0] == column[-1][0] else f"{low} to {high}") + tail
        merged.append(
            f"{text} (the same warning {len(members)} times, with the values that differ "
            "between them given as ranges)"
        )
    return merged


def show_warnings(messages: Sequence[str], label_names: Sequence[str] | None = None) -> None:
    """Show library warnings on the page, each message once per run (even when two fits raise
    it); more than three go in an expander. With ``label_names`` (the fitted label columns'
    names) the constant-label warning names its labels, as plain text."""
    shown = _shown_this_run()
    # equal but for a measured value (one warning per fit of a many-fit computation): one box
    unique = [m for m in merge_repeats(list(dict.fromkeys(messages))) if m not in shown]
    shown.update(unique)
    if not unique:
        return

    def warn(message: str) -> None:
        named = name_constant_labels(message, label_names)
        st.warning(message if named is None else _plain(named), icon=":material/warning:")

    if len(unique) <= 3:
        for message in unique:
            warn(message)
        return
    warn(unique[0])
    with st.expander(f"{len(unique) - 1} more warnings from the library"):
        for message in unique[1:]:
            warn(message)


@contextmanager
def showing_warnings() -> Iterator[None]:
    """Show, under the block's output, the library warnings raised inside the block."""
    with recording_warnings() as messages:
        yield
    show_warnings(messages)

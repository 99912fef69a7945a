"""The Lesson's state: its context for one run, its widgets' defaults and their helpers.

Widgets keep their values across steps (``persist_state``); a value that does not fit the
loaded data set falls back to the step's default. The step and its widgets are bound to the
URL (``links.bound``), and the other steps' settings are in the URL too (``links.setting``,
:meth:`Lesson.keep_links`): step 7 fits every method with its step's settings, so a link
reopens the same step with the same numbers.

Streamlit imports this module once per process and reruns only the page script, so nothing
here holds per-run data at module level: :func:`start` builds a :class:`Lesson` on every run.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import streamlit as st

from mlviz import datasets
from mlviz.io import Dataset
from mlviz.methods import MAX_LABELS_SQUARE, METHODS
from pages._app import experiment, export, links, plain, source
from pages._lesson.methods import AFFINITY_LABELS, COST_LABELS, LESSON_METHODS, TAUGHT_IN

# the app helpers the steps use, re-exported so that only this module and fits.py import them
chart = export.chart
tail_threshold = experiment.tail_threshold
report_button = export.report_button
SOURCE_LABEL_KEY = source.SOURCE_LABEL_KEY
user_text = plain.markdown  # label and file names inside markdown: escaped, cut to 80 chars

STEPS = ["hypercube", "plst", "groups", "grople", "clems", "mlknn", "compare"]
LAMBDA2_GRID = [0.0, 0.1, 1.0, 10.0, 30.0, 100.0]


def in_range(low: int, high: int) -> Callable[[Any], bool]:
    return lambda v: isinstance(v, int | np.integer) and low <= v <= high


def apply(preset: dict[str, Any]) -> None:
    """ "Try this" callback: set the step's widgets before the next run creates them."""
    st.session_state.update(preset)


def try_this(step: str, text: str, preset: dict[str, Any], *, why_disabled: str = "") -> None:
    """The step's "try this" button; disabled, with the reason, when it would change nothing."""
    st.button(
        f"Try this: {text}",
        key=f"lesson_try_{step}",
        on_click=apply,
        args=(preset,),
        disabled=bool(why_disabled),
        help=why_disabled or "Sets this step's widgets to the values in the button's text.",
    )


def start(title: str) -> Lesson:
    """The page's title over the loaded data set and split (or an explanation and a stop).

    Call it from the page script: :func:`pages._app.source.current_dataset` brings a page run
    without the router under it.
    """
    ds = source.current_dataset()
    st.title(title)
    split = experiment.model_split(needs="The lesson")
    return Lesson(
        ds=ds,
        split=split,
        L=ds.n_labels,
        names=[str(n) for n in ds.label_names],
        n_train=len(split.Y_train),
        n_test=len(split.Y_test),
        planted_groups=datasets.known_groups(ds),  # None unless the planted sample is loaded
    )


@dataclass(frozen=True)
class Lesson:
    """What every step works on in this run, and the helpers that need it."""

    ds: Dataset
    split: experiment.Split
    L: int
    names: list[str]
    n_train: int
    n_test: int
    planted_groups: np.ndarray | None

    def groups_k_max(self) -> int:
        return min(30, self.L)

    def grople_d_max(self) -> int:
        return min(self.L, 100)

    def clems_m_max(self) -> int:
        return max(2, min(self.L, 10))

    def mlknn_k_max(self) -> int:
        return min(30, self.n_train - 1)

    @cached_property
    def defaults(self) -> dict[str, Any]:
        """Every widget of the lesson and its default on the loaded data set."""
        L = self.L
        return {
            "lesson_step": STEPS[0],
            "lesson_cube_axes": False,
            "lesson_cube_directions": False,
            "lesson_plst_m": min(2, L),
            "lesson_plst_instance": 0,
            "lesson_groups_affinity": "heat",
            "lesson_groups_k": min(10, self.groups_k_max()),
            "lesson_grople_d": self.grople_d_max(),
            "lesson_grople_lambda2": 10.0,
            "lesson_clems_cost": "f1",
            "lesson_clems_m": 2,
            "lesson_clems_instance": 0,
            "lesson_mlknn_k": min(10, max(self.mlknn_k_max(), 1)),
            "lesson_mlknn_instance": 0,
            # step 7 opens with the methods of steps 2, 5 and 6
            "lesson_compare_methods": [TAUGHT_IN[step] for step in ("plst", "clems", "mlknn")],
        }

    @cached_property
    def domains(self) -> dict[str, links.Domain]:
        """What a link value may be for each of the lesson's settings on the loaded data set."""
        integer = links.Domain.integer
        last_instance = max(self.n_test - 1, 0)
        return {
            "lesson_step": links.Domain.choice(STEPS),
            "lesson_cube_axes": links.Domain.flag(),
            "lesson_cube_directions": links.Domain.flag(),
            "lesson_plst_m": integer(1, max(self.L, 1)),
            "lesson_plst_instance": integer(0, last_instance),
            "lesson_groups_affinity": links.Domain.choice(list(AFFINITY_LABELS)),
            "lesson_groups_k": integer(2, max(self.groups_k_max(), 2)),
            "lesson_grople_d": integer(1, max(self.grople_d_max(), 1)),
            "lesson_grople_lambda2": links.Domain.choice(LAMBDA2_GRID),
            "lesson_clems_cost": links.Domain.choice(list(COST_LABELS)),
            "lesson_clems_m": integer(1, self.clems_m_max()),
            "lesson_clems_instance": integer(0, last_instance),
            "lesson_mlknn_k": integer(1, max(self.mlknn_k_max(), 1)),
            "lesson_mlknn_instance": integer(0, last_instance),
            "lesson_compare_methods": links.Domain.choices(LESSON_METHODS),
        }

    def keep_links(self) -> None:
        """Write every step's setting not drawn in this run to the URL (read from a link first).

        A link to step 7 then carries the settings steps 2-6 fit their methods with.
        """
        drawn = links.view_params()
        for key, default in self.defaults.items():
            if key not in drawn:
                links.setting(key, self.domains[key], default)

    def reset_widgets_for_new_data(self) -> None:
        """Another data set was loaded: every step starts from its defaults for this one.

        A value kept from another data set may still be in range (d = 14 of yeast's 14 labels
        on medical's 45) but is not what the step's label and notes promise (d = L).
        """
        if st.session_state.get("lesson_data") != self.ds.digest:
            if "lesson_data" in st.session_state:  # the first data set opens at defaults anyway
                st.session_state.update(
                    {k: v for k, v in self.defaults.items() if k != "lesson_step"}
                )
            st.session_state["lesson_data"] = self.ds.digest

    def ensure(self, key: str, valid: Callable[[Any], bool]) -> None:
        """Give widget ``key`` its default unless it holds a value valid for this data set.

        Runs before the widget is created, which is when Streamlit allows writing its state.
        A widget not yet in the session opens at its default (see :meth:`bound`) or at the
        link's value, so only a kept value that no longer fits is replaced.
        """
        if key in st.session_state and not valid(st.session_state[key]):
            st.session_state[key] = self.defaults[key]

    def bound(
        self, widget: Callable[..., Any], *args: Any, key: str, default: Any = None, **kwargs: Any
    ) -> Any:
        """A lesson widget bound to the URL (``links.bound``) that opens at its default.

        The widget opens at the step's default (not the slider's minimum) when neither the
        link nor the session holds a valid value. ``persist_state`` keeps the value while
        another step is shown. ``default`` replaces the step's default where it depends on
        what was fitted (step 4's λ2 opens below the data's bound).
        """
        default = self.defaults[key] if default is None else default
        kind = getattr(widget, "__name__", "")
        if kind in ("selectbox", "radio"):
            kwargs["index"] = list(args[1]).index(default)
        elif kind == "multiselect":
            kwargs["default"] = default
        else:
            kwargs["value"] = default
        return links.bound(widget, *args, key=key, persist_state="session", **kwargs)

    def setting(self, key: str, valid: Callable[[Any], bool]) -> Any:
        """Another step's widget value (the link's, or kept across steps), or its default."""
        value = links.setting(key, self.domains[key], self.defaults[key])
        return value if valid(value) else self.defaults[key]

    def instance_picker(self, key: str) -> int:
        n_test = self.n_test
        self.ensure(key, in_range(0, n_test - 1))
        if n_test == 1:
            st.caption("The test split has one instance; it is the one shown.")
            return 0
        label = f"Test instance (0–{n_test - 1})"
        return int(self.bound(st.number_input, label, 0, n_test - 1, key=key))

    def groups_settings(self) -> tuple[int, str]:
        """Step 3's K and affinity (step 4 uses the same groups); one group below 3 labels."""
        if self.L < 3:
            return 1, "heat"
        k = self.setting("lesson_groups_k", in_range(2, self.groups_k_max()))
        affinity = self.setting("lesson_groups_affinity", lambda v: v in AFFINITY_LABELS)
        return int(k), affinity

    def method_settings(self) -> dict[str, dict[str, Any]]:
        """Each method with the settings of its step (their defaults when a step was not shown)."""
        k, affinity = self.groups_settings()
        by_step = {
            "plst": {"M": self.setting("lesson_plst_m", in_range(1, self.L))},
            "grople": {
                "d": self.setting("lesson_grople_d", in_range(1, self.grople_d_max())),
                "lambda2": self.setting("lesson_grople_lambda2", lambda v: v in LAMBDA2_GRID),
                "K": k,
                "affinity": affinity,
            },
            "clems": {
                "M": self.setting("lesson_clems_m", in_range(1, self.clems_m_max())),
                "cost": self.setting("lesson_clems_cost", lambda v: v in COST_LABELS),
            },
            "mlknn": {"k": self.setting("lesson_mlknn_k", in_range(1, max(self.mlknn_k_max(), 1)))},
        }
        # binary relevance (no setting), then each method with its step's settings
        return {METHODS["BR"].name: {}} | {TAUGHT_IN[s]: v for s, v in by_step.items()}

    def too_many_labels(self, what: str) -> bool:
        """True, with a note, when ``what`` (an L x L matrix) is too large for the data."""
        L = self.L
        if L <= MAX_LABELS_SQUARE:
            return False
        st.warning(
            f"{what} is a {L:,} × {L:,} matrix, too large for "
            f"{plain.markdown(self.ds.name)}: this step works "
            f"with up to {MAX_LABELS_SQUARE:,} labels. Steps 1, 5 and 6 work at this size."
        )
        return True

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

from mlviz.figures._style import widen_title
from mlviz.io import Dataset
from mlviz.io.export import safe_filename
from mlviz.methods import MAX_LABELS_SQUARE, METHODS
from pages._app import (
    experiment,
    export,
    fitting,
    grouping,
    links,
    plain,
    presentation,
    source,
)
from pages._lesson.methods import (
    AFFINITY_LABELS,
    COST_LABELS,
    LESSON_METHODS,
    LESSON_PRESETS,
    TAUGHT_IN,
)

# the app helpers the steps use, re-exported so that only this module and fits.py import them
tail_threshold = experiment.tail_threshold
tail_rule_name = experiment.tail_rule_name
report_button = export.report_button
SOURCE_LABEL_KEY = source.SOURCE_LABEL_KEY
grouping_controls = grouping.controls  # the app's one label grouping (step 3 draws it)
record_grouping = grouping.record
occurring_labels = grouping.occurring_labels  # the labels step 3 groups
training_agreement = grouping.training_agreement  # ARI of training-rows groups with step 3's
GROUPS_AFFINITY_KEY = grouping.AFFINITY_KEY
user_text = plain.markdown  # label and file names inside markdown: escaped, cut to 80 chars

STEPS = ["hypercube", "plst", "groups", "grople", "clems", "mlknn", "compare"]
# Step 4's λ grids, each continued up to its bound on the loaded data (λ2_max, λ1_max at the
# chosen λ2; mlviz.figures.grople.lambda_options), so a link may carry any value in range
LAMBDA2_GRID = [0.0, 0.1, 1.0, 10.0, 30.0, 100.0]
LAMBDA1_GRID = [1e-3, 1e-2, 0.1, 1.0, 10.0, 100.0]  # λ1 > 0 (Eq. A.2); 0.001: the paper's
presenting = presentation.is_on
intro = presentation.intro
STAGES = presentation.STAGES
REVEAL_LABELS = presentation.REVEAL_LABELS
reveal_stage = presentation.reveal_stage
set_stage = presentation.set_stage
stage_link = presentation.stage_link
previous_part = presentation.previous_part
scroll_to = presentation.scroll_to
part = presentation.part


def go_to(step: str, stage: int) -> None:
    """Next/Previous while presenting: open ``step`` with ``stage`` + 1 parts revealed."""
    st.session_state["lesson_step"] = step
    presentation.set_stage(step, stage)


# --- what a step shows: drawn, revealed in parts while presenting, recorded for the export ---
#: Session key: {"data": digest, "dataset": name, "steps": {step: record}} of the steps shown
#: on this data set, for "Export this Lesson" (:mod:`mlviz.figures.slides`).
RECORD_KEY = "_lesson_record"
#: Session key of the export's walk through every step (:func:`walking`).
WALK_KEY = "_lesson_export_walk"
_READY_KEY = "_lesson_export_ready"


def walking() -> bool:
    """True while "Export this Lesson" runs every step once (each shown whole)."""
    return bool(st.session_state.get(WALK_KEY))


def walk_step() -> str | None:
    """The step the export's walk shows in this run (set before the step radio), or None.

    Called before the step radio is created, when Streamlit allows setting its value.
    """
    walk = st.session_state.get(WALK_KEY)
    if not walk:
        return None
    if walk["todo"] and walk.get("attempt") == len(walk["todo"]):
        # the run that showed this step ended early (an error, or a stop): give up, say so
        st.session_state.pop(WALK_KEY)
        st.session_state["lesson_step"] = walk["back_to"]
        st.warning(
            f"The Lesson export stopped at step {STEPS.index(walk['todo'][0]) + 1}: that step "
            "did not finish (see the step itself). Nothing was exported."
        )
        return None
    if not walk["todo"]:  # every step recorded: back where the walk began, file ready
        st.session_state.pop(WALK_KEY)
        st.session_state["lesson_step"] = walk["back_to"]
        st.session_state[_READY_KEY] = True
        return None
    walk["attempt"] = len(walk["todo"])
    st.session_state["lesson_step"] = walk["todo"][0]
    return walk["todo"][0]


def walk_next() -> None:
    """The walk's step is recorded: rerun on the next one (or back where the walk began)."""
    walk = st.session_state.get(WALK_KEY)
    if not walk:
        return
    walk["todo"] = walk["todo"][1:]
    st.rerun()


def _start_walk() -> None:
    st.session_state[_READY_KEY] = False
    st.session_state[WALK_KEY] = {
        "todo": list(STEPS),
        "back_to": st.session_state.get("lesson_step", STEPS[0]),
    }


def export_lesson_button() -> None:
    """ "Export this Lesson": every step once, then one offline HTML file to download.

    The button runs each step in turn (the page shows them flip by, each with the settings it
    has now: its own widgets' values, or their defaults for a step not opened yet) and records
    what it shows; then a download button offers :func:`mlviz.figures.slides.lesson_html`.
    """
    record = st.session_state.get(RECORD_KEY) or {}
    ds = source.loaded_dataset()
    # a new data set starts a new record (begin_step), so a walk on another one is not ready
    ready = (
        st.session_state.get(_READY_KEY, False)
        and record.get("data") == ds.digest
        and all(step in record.get("steps", {}) for step in STEPS)
    )
    left, right = st.columns(2)
    left.button(
        "Export this Lesson (offline HTML)" if not ready else "Export this Lesson again",
        key="lesson_export",
        on_click=_start_walk,
        help="Runs every step once with its current settings and writes one HTML file "
        "(plotly.js inside, no internet needed) with each step's formulas, figures and what to "
        "notice; each figure saves as PNG or SVG at 1600 × 900.",
    )
    if ready:
        # Streamlit calls ``data`` when the file is requested, outside this session's run
        # (no session state there): it gets the steps recorded up to now
        steps = dict(record["steps"])
        name = str(st.session_state.get(SOURCE_LABEL_KEY, ds.name))
        export.html_button(
            "Download the Lesson (HTML)",
            lambda: lesson_document(steps, name, ds.name),
            file_name=safe_filename("lesson", ds.name, sep="-", extension="html"),
            key="lesson_export_download",
            container=right,
        )


def lesson_document(recorded: dict[str, dict[str, Any]], name: str, dataset: str) -> str:
    """The recorded steps as one offline HTML page (:func:`mlviz.figures.slides.lesson_html`).

    ``recorded`` maps each step to what it showed (:func:`begin_step`), ``name`` is the data
    set as the picker shows it, ``dataset`` its short name for the figures' file names.
    """
    from mlviz.figures.slides import Step, lesson_html

    steps = [
        Step(
            title=entry["title"],
            formulas=entry["formulas"],
            text=entry["text"],
            figures=entry["figures"],
            notice=entry["notice"],
            settings=entry["settings"],
        )
        for step in STEPS
        if (entry := recorded.get(step)) is not None
    ]
    return lesson_html(
        f"{name}: label embedding in seven steps",
        steps,
        intro="Exported from mlviz's Lesson: every figure is interactive and works offline.",
        dataset=dataset,
    )


def begin_step(step: str, title: str, ds: Dataset) -> None:
    """Start recording ``step`` (shown in this run) on data set ``ds``."""
    record = st.session_state.get(RECORD_KEY)
    if not isinstance(record, dict) or record.get("data") != ds.digest:
        record = {"data": ds.digest, "dataset": ds.name, "steps": {}}
        st.session_state[RECORD_KEY] = record
    record["steps"][step] = {
        "title": title,
        "formulas": [],
        "text": [],
        "figures": [],
        "notice": [],
        "settings": {},
    }
    record["current"] = step


def end_step() -> None:
    """Record the step's settings: the URL-bound widgets drawn in this run but the step."""
    entry = _entry()
    if entry is not None:
        entry["settings"] = {k: v for k, v in links.view_params().items() if k != "lesson_step"}


def _entry() -> dict[str, Any] | None:
    record = st.session_state.get(RECORD_KEY)
    if not isinstance(record, dict) or "current" not in record:
        return None
    return record["steps"].get(record["current"])


def revealed(part: str) -> bool:
    """True when ``part`` ("figure", "notice") of the step shown is revealed."""
    if walking():
        return True
    return presentation.shows(st.session_state.get("lesson_step", STEPS[0]), part)


def formula(latex: str) -> None:
    """A step's formula (LaTeX), drawn and recorded."""
    st.latex(latex)
    if (entry := _entry()) is not None:
        entry["formulas"].append(latex)


def explain(text: str) -> None:
    """A step's explanation (markdown written by the app), drawn and recorded."""
    st.markdown(text)
    if (entry := _entry()) is not None:
        entry["text"].append(text)


def chart(fig: Any, *, key: str, **kwargs: Any) -> None:
    """A step's figure (:func:`pages._app.export.chart`), recorded; drawn once revealed.

    A step's figure spans the page: its title is wrapped to the page's width (builders wrap
    for a half-width column by default), one line more for the figure on a projector.
    """
    # shared by every session when fig is (pages._app.fitting.figure); made here otherwise
    fig = fitting.figure_variant(fig, "lesson_wide_title", widen_title)
    if (entry := _entry()) is not None:
        entry["figures"].append((key, fig))
    if revealed("figure"):
        # a container spanning the page (wide), which the clicker scrolls into view
        # (presentation.scroll_to)
        with part(f"figure_{key}"):
            wide = kwargs.pop("wide", True)
            export.chart(presentation.fit_height(fig), key=key, wide=wide, **kwargs)


def shared_figure(builder: Callable[..., Any], /, *args: Any) -> Any:
    """``builder(*args)``, built once per data set and arguments and shared by every session
    (:func:`pages._app.fitting.figure`; a class opens a step together). Never change it in
    place: :func:`chart` and the export do not."""
    return fitting.figure(builder, *args)


def record_notice(points: list[str]) -> None:
    """Keep a step's "what to notice" sentences for the export."""
    if (entry := _entry()) is not None:
        entry["notice"].extend(p for p in points if p)


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
        planted_groups=source.known_groups(ds),  # None unless the planted sample is loaded
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

    def opening(self, method: str) -> dict[str, Any]:
        """The registry's settings of ``method`` on the loaded data at the step's preset
        (:data:`pages._lesson.methods.LESSON_PRESETS`): what its step opens at."""
        return METHODS[method].default_settings(self.L, self.n_train, preset=LESSON_PRESETS[method])

    def preset_caption(self, method: str, settings: dict[str, Any]) -> None:
        """The step's one-line statement of the preset and settings it runs."""
        st.caption(METHODS[method].caption(settings, LESSON_PRESETS[method]))

    @cached_property
    def defaults(self) -> dict[str, Any]:
        """Every widget of the lesson and its default on the loaded data set: the registry's
        (:meth:`opening`), within the step's slider."""
        plst, clems = self.opening("PLST"), self.opening("CLEMS")
        grople, mlknn = self.opening("GroPLE"), self.opening("ML-KNN")
        return {
            "lesson_step": STEPS[0],
            "lesson_cube_axes": False,
            "lesson_cube_directions": False,
            "lesson_plst_m": plst["M"],
            "lesson_plst_instance": 0,
            "lesson_grople_d": min(grople["d"], max(self.grople_d_max(), 1)),
            "lesson_grople_lambda1": grople["lambda1"],
            "lesson_grople_lambda2": grople["lambda2"],
            "lesson_clems_cost": clems["cost"],
            "lesson_clems_m": min(clems["M"], self.clems_m_max()),
            "lesson_clems_instance": 0,
            "lesson_mlknn_k": min(mlknn["k"], max(self.mlknn_k_max(), 1)),
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
            # the sliders' options depend on the data's bounds: any λ in range in a link
            "lesson_grople_lambda1": links.Domain("float", min(LAMBDA1_GRID), np.inf),
            "lesson_grople_lambda2": links.Domain("float", 0.0, np.inf),
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
        if grouping.K_KEY not in drawn:  # steps 3 and 4 use the app's grouping
            grouping.keep_link()

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
        """The app's grouping K and affinity (step 3 shows them, step 4 uses them; the same
        on the Label clusters page, see pages/_app/grouping.py); one group below 3 labels."""
        shared = grouping.settings()
        if shared is None:
            return 1, "heat"
        affinity, k = shared
        return int(k), affinity

    def method_settings(self) -> dict[str, dict[str, Any]]:
        """Each method with the settings of its step (their defaults when a step was not shown)."""
        k, affinity = self.groups_settings()
        by_step = {
            "plst": {"M": self.setting("lesson_plst_m", in_range(1, self.L))},
            "grople": {
                "d": self.setting("lesson_grople_d", in_range(1, self.grople_d_max())),
                "lambda1": self.setting("lesson_grople_lambda1", lambda v: v > 0),
                "lambda2": self.setting("lesson_grople_lambda2", lambda v: v >= 0),
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

        def message(name: str) -> str:
            return (
                f"{what} is a {L:,} × {L:,} matrix, too large for {name}: this step works "
                f"with up to {MAX_LABELS_SQUARE:,} labels. Steps 1, 5 and 6 work at this size."
            )

        # the data set's name is user text: escaped for markdown here, plain in the export
        st.warning(message(plain.markdown(self.ds.name)))
        if (entry := _entry()) is not None:  # the export says why the step has no figure
            entry["text"].append(message(plain.text(self.ds.name)))
        return True

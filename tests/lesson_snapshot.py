"""Everything the Lesson page shows, as JSON: to check that a refactoring changed nothing.

Run from a checkout's root, once per checkout, and compare the files byte for byte::

    python -m tests.lesson_snapshot /tmp/before.json   # in the old checkout
    python -m tests.lesson_snapshot /tmp/after.json    # in the new one
    cmp /tmp/before.json /tmp/after.json

(In a checkout without this file: ``PYTHONPATH=. python /path/to/tests/lesson_snapshot.py
/tmp/before.json`` from that checkout's root, so that its own ``mlviz`` and ``pages`` load.)

For the planted sample, MULAN's medical (when the data folder is there) and four small or
degenerate data sets, every step is opened and then its "try this" button pressed (when it
is enabled); each view records every text element (title, formulas, markdown, captions,
notes, warnings, errors), every widget (label, value, range, disabled) and a digest of every
plotly figure's full specification. Used for issue 21's split of ``pages/lesson.py`` into
``pages/_lesson/``: 80 views, identical before and after.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np
from streamlit.testing.v1 import AppTest

from mlviz import datasets
from mlviz.io import Dataset

REPO = Path.cwd()
STEPS = ["hypercube", "plst", "groups", "grople", "clems", "mlknn", "compare"]
KINDS = (
    "title", "subheader", "markdown", "latex", "caption", "info", "warning", "error",
    "exception", "button", "slider", "select_slider", "selectbox", "multiselect", "radio",
    "checkbox", "number_input",
)  # fmt: skip
ATTRIBUTES = ("key", "label", "value", "disabled", "options", "min", "max")


def _small(n_samples: int, n_labels: int, seed: int = 0) -> Dataset:
    rng = np.random.default_rng(seed)
    return Dataset(
        name=f"small{n_samples}x{n_labels}",
        X=rng.standard_normal((n_samples, 3)),
        Y=(rng.random((n_samples, n_labels)) < 0.5).astype(np.uint8),
        feature_names=("f1", "f2", "f3"),
        label_names=tuple(f"L{j}" for j in range(n_labels)),
    )


def _view(at: AppTest) -> list[dict]:
    shown = []
    for kind in KINDS:
        for element in at.get(kind):
            item = {"kind": kind}
            for name in ATTRIBUTES:
                try:
                    value = getattr(element, name)
                    json.dumps(value)
                except (AttributeError, TypeError, ValueError):
                    continue
                item[name] = value
            shown.append(item)
    for element in at.get("plotly_chart"):
        spec = element.proto.spec
        shown.append({"kind": "plotly", "sha256": hashlib.sha256(spec.encode()).hexdigest()})
    return shown


def snapshot(dataset: Dataset) -> dict[str, list[dict]]:
    at = AppTest.from_file(str(REPO / "pages" / "lesson.py"), default_timeout=300)
    at.session_state["dataset"] = dataset
    at.session_state["dataset_label"] = dataset.name
    at.run()
    views = {}
    for step in STEPS:
        at.radio(key="lesson_step").set_value(step).run()
        views[step] = _view(at)
        button = [b for b in at.button if b.key == f"lesson_try_{step}"]
        if button and not button[0].disabled:
            button[0].click().run()
            views[f"{step} after try this"] = _view(at)
    return views


def main(out: str) -> None:
    sys.path.insert(0, str(REPO))  # the checkout's pages package, as pytest.ini does
    sets = [datasets.load_source("sample:planted")]
    try:
        sets.append(datasets.load_source("mulan:medical"))
    except (FileNotFoundError, KeyError, ValueError) as err:
        print(f"mulan:medical left out: {err}", file=sys.stderr)
    sets += [_small(40, 2), _small(3, 4), _small(40, 1), _small(60, 3)]
    result = {ds.name: snapshot(ds) for ds in sets}
    Path(out).write_text(json.dumps(result, indent=1, sort_keys=True))
    print(f"{sum(len(v) for v in result.values())} views of {len(result)} data sets -> {out}")


if __name__ == "__main__":
    main(sys.argv[1])

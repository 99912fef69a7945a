"""One notation everywhere (issue 23, item 3): L labels, N instances, M embedding dimensions
(PLST, CLEMS), d latent dimensions (GroPLE), K label groups, k neighbours; maths as maths.

Two scans for the forms that clash with it (the PLST and CLEMS papers write K for the number of
labels, and a label index k reads as a neighbour count):

1. what the pages show: every page run on the planted sample, on medical (45 labels, some
   constant in a split; skipped without the MULAN data) and on a generated bibtex-shaped set
   of 159 labels (texts that count labels, dimensions or groups change with the data; every
   Lesson step, the buttons that fit pressed), each text element's value, every widget's
   label and help, every metric, and every plotly figure's title, axis titles, annotations
   and trace names;
2. the source strings of ``pages/`` and ``mlviz/figures/`` (docstrings included, since the
   figure builders' docstrings are the library's documentation of the same figures).

Exponents must be rendered as maths: in markdown ``2^L`` and ``{0,1}^L`` only inside ``$...$``
(or in ``st.latex``); plotly cannot typeset LaTeX, so figure text writes ``2<sup>L</sup>``.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from mlviz import datasets
from tests.conftest import mulan_path, press_fit_buttons

REPO = Path(__file__).resolve().parents[1]
PAGES = sorted(p.name for p in (REPO / "pages").glob("*.py") if not p.name.startswith("_"))
TIMEOUT = 240

#: Forms that clash with the notation, with what to write instead.
CLASHES: dict[str, str] = {
    r"\bM\s*=\s*K\b": "M = L (K is the number of label groups)",
    r"\bK labels\b": "L labels",
    r"\ball K\b(?! (label )?groups)": "all L (labels)",
    r"\bK\s*=\s*L\s*=": "M = L = … (K is the number of label groups)",
    r"[ỹŷy~^]\s*\[\s*k\s*\]": "a label index j (k is the number of neighbours): ỹ_j",
    r"\bK (nearest )?neighbou?rs?\b": "k neighbours",
    r"\bk (label )?groups\b": "K groups",
    r"\bN labels\b": "L labels",
    r"\bL (instances|rows)\b": "N instances",
    r"\bshape \(K,\)": "shape (L,) for a vector over the labels",
}
#: Exponents that must be typeset (searched outside ``$...$`` only).
EXPONENTS = r"(?<![\w{])2\^|\{0,\s*1\}\^"


def clashes(text: str) -> list[str]:
    """The clashing forms in ``text``, each with its replacement."""
    return [
        f"{m.group(0)!r} (write {fix})"
        for pattern, fix in CLASHES.items()
        for m in re.finditer(pattern, text)
    ]


def outside_maths(text: str) -> str:
    """``text`` without its ``$$...$$`` and ``$...$`` spans."""
    return re.sub(r"\$\$.*?\$\$|\$[^$]*\$", " ", text, flags=re.S)


def plain_exponents(text: str, *, markdown: bool) -> list[str]:
    """``2^`` and ``{0,1}^`` written as plain text (in markdown: outside its maths)."""
    return re.findall(EXPONENTS, outside_maths(text) if markdown else text)


def test_the_scanners_catch_the_forms_issue_23_reported():
    # the issue's own examples, and what they became
    assert clashes("BR uses all K labels and appears at M = K")
    assert clashes("CLEMS at M = K = 22")
    assert clashes("ỹ[k] (≥ 0.5 → predicted)")
    assert clashes("decoding ``y^[k] = [y~[k] >= 1/2]``")
    assert not clashes("BR appears at M = L; K = 10 label groups; k = 10 neighbours")
    assert not clashes("ỹ_j (≥ 0.5 → predicted); V^k for group k; K = L (every label alone)")
    assert plain_exponents("the hypercube {0,1}^L has 2^22 corners", markdown=True) == [
        "{0,1}^",
        "2^",
    ]
    assert not plain_exponents(r"the hypercube $\{0,1\}^L$ has $2^{22}$ corners", markdown=True)
    assert plain_exponents("$x$ and 2^L", markdown=True) == ["2^"]
    assert not plain_exponents("λ2 ≥ 199; ℓ2,1; V^k; 2<sup>22</sup>", markdown=False)


# ------------------------------------------------------------------ 1. what the pages show
def _figure_texts(spec: dict) -> Iterator[str]:
    layout = spec.get("layout", {})

    def text_of(value) -> str:
        if isinstance(value, dict):
            return str(value.get("text", ""))
        return str(value or "")

    yield text_of(layout.get("title"))
    for key, axis in layout.items():
        if re.fullmatch(r"[xy]axis\d*", key) and isinstance(axis, dict):
            yield text_of(axis.get("title"))
            yield " ".join(str(t) for t in axis.get("ticktext") or [] if isinstance(t, str))
        if key == "coloraxis" and isinstance(axis, dict):
            yield text_of(axis.get("colorbar", {}).get("title"))
    for note in layout.get("annotations", []) or []:
        yield str(note.get("text", ""))
    for trace in spec.get("data", []):
        yield str(trace.get("name", "") or "")
        yield text_of((trace.get("colorbar") or {}).get("title"))


def shown_texts(at: AppTest) -> Iterator[tuple[str, str, bool]]:
    """(where, text, is_markdown) for everything the run shows."""
    for kind in ("title", "header", "subheader", "markdown", "caption"):
        for element in at.get(kind):
            yield kind, str(element.value), True
    for kind in ("info", "warning", "error", "success"):
        for element in at.get(kind):
            yield kind, str(element.value), True
    for metric in at.metric:
        yield "metric", f"{metric.label} {metric.value} {metric.delta or ''}", False
        yield "metric help", metric.proto.help or "", True
    for kind in (
        "slider",
        "select_slider",
        "selectbox",
        "multiselect",
        "radio",
        "number_input",
        "checkbox",
        "toggle",
        "button",
        "text_input",
        "expander",
    ):
        for widget in at.get(kind):
            label = getattr(widget, "label", "") or ""
            yield kind, str(label), True
            help_text = getattr(getattr(widget, "proto", None), "help", "") or ""
            yield f"{kind} help", str(help_text), True
    for chart in at.get("plotly_chart"):
        for text in _figure_texts(json.loads(chart.proto.spec)):
            yield "figure", text, False


def notation_problems(at: AppTest, where: str) -> list[str]:
    problems = []
    for kind, text, is_markdown in shown_texts(at):
        found = clashes(text) + [
            f"{e!r} as plain text (typeset it)" for e in plain_exponents(text, markdown=is_markdown)
        ]
        problems += [f"{where} {kind}: {f} in {text[:120]!r}" for f in found]
    return problems


# Issue 31's spacing and plural slips: "14labels", "20,000 of499,500", "1 tail labels".
_GLUED = re.compile(r"(?<![\w.@^_-])\d[\d,]*(?:\.\d+)?[a-z]{3,}\b")
_OF_NUMBER = re.compile(r"\bof\d")
_ONE_PLURAL = re.compile(
    r"(?<![\d.,])\b1 (?:(?:tail|head|label|test|training|distinct|candidate|of|the|its)\s+){0,3}"
    r"(?:labels|instances|groups|rows|sets|pairs|folds|dimensions|methods|neighbours)\b"
)


def wording_problems(at: AppTest, where: str) -> list[str]:
    """Numbers glued to words, "of" glued to a number, and "1 … labels" (mlviz.wording)."""
    problems = []
    for kind, text, _ in shown_texts(at):
        plain = re.sub(r"<br\s*/?>", " ", text)  # a title's line break reads as a space
        for pattern in (_GLUED, _OF_NUMBER, _ONE_PLURAL):
            problems += [
                f"{where} {kind}: {m.group(0)!r} in {plain[:120]!r}"
                for m in pattern.finditer(plain)
            ]
    return problems


def test_the_wording_scan_catches_the_forms_issue_31_reported():
    for text in ["(14labels, 2 groups)", "20,000 of499,500 pairs", "1 tail labels are in no set"]:
        found = [p for p in (_GLUED, _OF_NUMBER, _ONE_PLURAL) if p.search(text)]
        assert found, text
    for text in ["14 labels", "1 tail label is", "P@3", "1e-05", "λ2 = 10", "x1", "21 of 45"]:
        assert not any(p.search(text) for p in (_GLUED, _OF_NUMBER, _ONE_PLURAL)), text


def _dataset(source: str):
    """The data set a scan runs on: a sample, a MULAN file, or a generated 159-label set."""
    if source == "generated:bibtex":
        from mlviz.synthetic import LONG_TAILED_SHAPES, make_long_tailed

        shape = {**LONG_TAILED_SHAPES["bibtex"], "n_samples": 800, "n_features": 200}
        return make_long_tailed(**shape, random_state=0)
    if source.startswith("mulan:"):
        mulan_path(source.removeprefix("mulan:") + ".arff")
    return datasets.load_source(source)


@pytest.mark.slow
@pytest.mark.parametrize("source", ["sample:planted", "mulan:medical", "generated:bibtex"])
@pytest.mark.parametrize("page", PAGES)
def test_every_page_shows_one_notation(page, source):
    at = AppTest.from_file(str(REPO / "pages" / page), default_timeout=TIMEOUT)
    at.session_state["dataset"] = _dataset(source)
    at.session_state["dataset_label"] = source
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    press_fit_buttons(at)
    assert not at.exception, [e.message for e in at.exception]
    problems = notation_problems(at, page) + wording_problems(at, page)
    n_texts = sum(1 for _ in shown_texts(at))
    if page == "lesson.py":
        for step in at.radio(key="lesson_step").options:
            at.radio(key="lesson_step").set_value(step).run()
            assert not at.exception, (step, [e.message for e in at.exception])
            problems += notation_problems(at, f"{page} step {step!r}")
            problems += wording_problems(at, f"{page} step {step!r}")
            n_texts += sum(1 for _ in shown_texts(at))
    assert n_texts > 10, f"{page}: the scan read only {n_texts} texts"
    assert not problems, "\n".join(problems)


# ------------------------------------------------------------------ 2. the source strings
SOURCES = sorted(
    [p for p in (REPO / "pages").rglob("*.py")]
    + [p for p in (REPO / "mlviz" / "figures").glob("*.py")]
)


def _string_text(node: ast.AST) -> str | None:
    """A string literal's text; an f-string's constant parts with ``{}`` for each field."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
    return None


def _latex_arguments(tree: ast.AST) -> set[int]:
    """ids of the nodes inside the arguments of ``….latex(...)`` calls (typeset already)."""
    inside = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "latex"
        ):
            for argument in [*node.args, *(k.value for k in node.keywords)]:
                inside.update(id(n) for n in ast.walk(argument))
    return inside


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and _string_text(body[0].value) is not None:
                found.add(id(body[0].value))
    return found


def source_problems(path: Path, *, exponents: bool = True) -> list[str]:
    """The clashing forms in ``path``'s string literals; with ``exponents``, also exponents
    outside LaTeX and docstrings (the texts of pages and figures are rendered)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    latex, docstrings = _latex_arguments(tree), _docstrings(tree)
    problems = []
    parts_of_fstrings = {
        id(v) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for v in n.values
    }
    for node in ast.walk(tree):
        if id(node) in parts_of_fstrings:
            continue  # read with its f-string
        text = _string_text(node)
        if text is None:
            continue
        found = clashes(text)
        if exponents and id(node) not in latex and id(node) not in docstrings:
            found += [f"{e!r} as plain text" for e in plain_exponents(text, markdown=True)]
        where = (
            f"{path.relative_to(REPO) if path.is_relative_to(REPO) else path.name}:{node.lineno}"
        )
        problems += [f"{where}: {f} in {text[:100]!r}" for f in found]
    return problems


def test_the_source_scan_reads_fstrings_and_skips_latex(tmp_path):
    source = tmp_path / "page.py"
    source.write_text(
        '"""Docstring: the cube {0,1}^L (not rendered)."""\n'
        "import streamlit as st\n"
        "L = 3\n"
        'st.latex(r"2^{L}")\n'
        'st.caption(f"$2^{{{L}}}$ corners")\n'
        'st.caption(f"2^{L} corners at M = K")\n',
        encoding="utf-8",
    )
    (where,) = {p.split(": ")[0] for p in source_problems(source)}
    found = source_problems(source)
    assert where.endswith(":6"), found
    assert len(found) == 2 and any("M = K" in f for f in found), found


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(REPO)))
def test_source_strings_use_the_notation(path):
    problems = source_problems(path)
    assert not problems, "\n".join(problems)


#: The rest of the library and the benchmarks: their docstrings, messages and the tables they
#: write (docs/) use the same names (the papers' K for the labels of PLST and CLEMS is L here).
CORE_SOURCES = sorted(
    [p for p in (REPO / "mlviz").rglob("*.py") if "figures" not in p.parts]
    + [p for p in (REPO / "benchmarks").glob("*.py")]
)


@pytest.mark.parametrize("path", CORE_SOURCES, ids=lambda p: str(p.relative_to(REPO)))
def test_library_and_benchmark_strings_use_the_notation(path):
    problems = source_problems(path, exponents=False)
    assert not problems, "\n".join(problems)

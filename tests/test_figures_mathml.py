"""LaTeX → MathML for the offline Lesson (mlviz.figures.mathml): structure, the three fixes
MathML Core needs, and user text that must never become markup."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from mlviz.figures.mathml import MathMLError, to_mathml

NS = "{http://www.w3.org/1998/Math/MathML}"


def _tree(latex: str) -> ET.Element:
    return ET.fromstring(to_mathml(latex))


def _texts(root: ET.Element, tag: str) -> list[str]:
    return [e.text or "" for e in root.iter(NS + tag)]


def test_structure_and_source_are_kept():
    root = _tree(r"\frac{1}{L}\sum_{l=1}^{L}y_l")
    assert root.get("display") == "block"
    (fraction,) = root.iter(NS + "mfrac")
    assert ["".join(part.itertext()) for part in fraction] == ["1", "L"]
    (limits,) = root.iter(NS + "munderover")
    assert [e.text for e in limits.iter() if e.text] == ["∑", "l", "=", "1", "L"]
    (annotation,) = root.iter(NS + "annotation")
    assert annotation.get("encoding") == "application/x-tex"
    assert annotation.text == r"\frac{1}{L}\sum_{l=1}^{L}y_l"
    assert _tree("x").get("display") == "block"
    assert ET.fromstring(to_mathml("x", display=False)).get("display") == "inline"


def test_bold_is_drawn_with_the_unicode_bold_letters():
    # MathML Core ignores mathvariant="bold": the characters themselves must be bold
    root = _tree(r"\mathbf{U}\boldsymbol{\Sigma}\mathbf{V}^{\top}")
    assert _texts(root, "mi")[:3] == ["𝐔", "𝚺", "𝐕"]  # Σ upright, as \boldsymbol draws it
    assert not [e for e in root.iter() if e.get("mathvariant") in ("bold", "bold-italic")]


def test_iverson_brackets_operator_names_and_norms_read_as_in_katex():
    root = _tree(r"[\![\hat{y}_l\neq y_l]\!]\ \arg\max_{b}\ \big\|x\big\|")
    text = "".join(e.text or "" for e in root.iter() if e.tag != NS + "annotation")
    assert text.startswith("⟦") and "⟧" in text
    assert "argmax" in text and text.count("‖") == 2
    assert "\\" not in text  # no command left as a backslash
    # named and negative spaces: Core knows neither
    assert all(not (e.get("width") or "0").startswith(("negative", "thin")) for e in root.iter())


@pytest.mark.parametrize("latex", [r"\frac{1}{", r"\foo{x}", r"x \undefinedcommand y"])
def test_what_cannot_be_drawn_raises(latex):
    with pytest.raises(MathMLError):
        to_mathml(latex)


@pytest.mark.parametrize(
    "text",
    ["<script>alert(1)</script>", "</mtext><img src=x onerror=alert(1)>", "a &amp; <b>"],
)
def test_text_never_becomes_markup(text):
    try:
        out = to_mathml(rf"\text{{{text}}}")
    except MathMLError:
        return  # refused is as safe as escaped
    root = ET.fromstring(out)
    allowed = {"math", "semantics", "mrow", "mtext", "annotation"}
    assert {e.tag.removeprefix(NS) for e in root.iter()} <= allowed
    assert "<script" not in out and "<img" not in out

"""LaTeX formulas as MathML, so that a file saved from the app shows maths without a network.

The app draws formulas with Streamlit's KaTeX; a lesson exported as one HTML file
(:mod:`mlviz.figures.slides`) cannot load KaTeX or MathJax from a CDN. Every current browser
draws MathML itself (MathML Core: Chromium 109+, Firefox, Safari), so the formulas are
converted once, in Python, by ``latex2mathml``. Three things that library leaves to the
renderer are settled here, because MathML Core does not do them:

- ``mathvariant="bold"`` / ``"bold-italic"`` (``\\boldsymbol{\\Sigma}``) become the Unicode
  mathematical bold characters (Core draws only ``normal``);
- commands it copies through as text (``\\arg``, ``\\|`` after ``\\big``) become what
  KaTeX draws; any other command left over is an error, never shown as a backslash;
- named space widths (``thinmathspace`` …) become lengths in em; negative ones
  (``\\!``) are dropped, and the one place the lessons use them, the Iverson bracket
  ``[\\![ … ]\\!]``, is written ``⟦ … ⟧`` first;
- the output is parsed and re-serialised with an allow-list of MathML elements and
  attributes, so text inside ``\\text{…}`` can never become markup (the library copies it
  through unescaped).
"""

from __future__ import annotations

import re
import unicodedata
import xml.etree.ElementTree as ET

__all__ = ["MathMLError", "to_mathml"]

_NS = "http://www.w3.org/1998/Math/MathML"
# MathML Core's presentation elements (plus semantics/annotation, which carry the source)
_ELEMENTS = frozenset(
    "math mrow mi mo mn ms mtext mspace msub msup msubsup munder mover munderover mfrac "
    "msqrt mroot mstyle mpadded mphantom merror mtable mtr mtd menclose mmultiscripts "
    "mprescripts none semantics annotation".split()
)
_ATTRIBUTES = frozenset(
    "display displaystyle scriptlevel mathvariant stretchy minsize maxsize fence separator "
    "accent accentunder largeop movablelimits symmetric lspace rspace form width height "
    "depth linethickness columnalign rowalign columnspacing rowspacing encoding".split()
)
# MathML 3's named spaces (in em), which MathML Core no longer knows
_NAMED_SPACES = {
    "veryverythinmathspace": 1 / 18,
    "verythinmathspace": 2 / 18,
    "thinmathspace": 3 / 18,
    "mediummathspace": 4 / 18,
    "thickmathspace": 5 / 18,
    "verythickmathspace": 6 / 18,
    "veryverythickmathspace": 7 / 18,
}
_IVERSON = (
    (re.compile(r"\[\s*\\!\s*\["), r"\\llbracket "),
    (re.compile(r"\]\s*\\!\s*\]"), r"\\rrbracket "),
)
_STYLES = {"bold": "BOLD", "bold-italic": "BOLD ITALIC"}
# commands the converter copies through as text (``<mi>\arg</mi>``, ``<mo>\|</mo>`` after
# ``\big``): what KaTeX draws for them. Any other command left over is an error.
_LEFT_OVER = {
    **{f"\\{name}": name for name in "arg exp log ln det dim ker Pr tr diag sup inf".split()},
    "\\|": "‖",
    "\\Vert": "‖",
    "\\lVert": "‖",
    "\\rVert": "‖",
    "\\vert": "|",
}


class MathMLError(ValueError):
    """A formula that cannot be shown as MathML (a conversion error or an element that is
    not MathML); the caller shows its LaTeX source instead.

    Examples
    --------
    >>> from mlviz.figures.mathml import MathMLError, to_mathml
    >>> try:
    ...     to_mathml(r"\\frac{1}{")
    ... except MathMLError as error:
    ...     print(str(error).split(" (")[0])
    LaTeX not converted
    """


def _styled(text: str, style: str) -> str:
    """``text`` in Unicode's mathematical ``style`` alphabet (letters, Greek, digits); other
    characters as they are.

    >>> _styled("Σx1", "BOLD"), _styled("Σσx", "BOLD ITALIC")
    ('𝚺𝐱𝟏', '𝚺𝝈𝒙')
    """
    out = []
    for char in text:
        name = unicodedata.name(char, "")
        # "LATIN CAPITAL LETTER A" -> "MATHEMATICAL BOLD CAPITAL A"; "DIGIT ONE" -> "... DIGIT ONE"
        short = re.sub(r"^(LATIN|GREEK) (CAPITAL|SMALL) LETTER ", r"\2 ", name)
        # as in TeX, \boldsymbol leaves Greek capitals upright
        upright = style == "BOLD ITALIC" and name.startswith("GREEK CAPITAL")
        try:
            styled = f"MATHEMATICAL {'BOLD' if upright else style} {short}"
            out.append(unicodedata.lookup(styled) if short else char)
        except KeyError:
            out.append(char)
    return "".join(out)


def _clean(element: ET.Element) -> None:
    tag = element.tag.removeprefix("{" + _NS + "}")
    if tag not in _ELEMENTS:
        raise MathMLError(f"<{tag}> is not a MathML element")
    for name in list(element.attrib):
        if name not in _ATTRIBUTES:
            raise MathMLError(f"attribute {name!r} on <{tag}> is not allowed")
    if tag in ("mi", "mo", "mn") and element.text and "\\" in element.text:
        if element.text.strip() not in _LEFT_OVER:
            raise MathMLError(f"LaTeX command {element.text.strip()!r} not converted")
        element.text = _LEFT_OVER[element.text.strip()]
    variant = element.attrib.get("mathvariant")
    if variant in _STYLES and element.text:
        element.text = _styled(element.text, _STYLES[variant])
        del element.attrib["mathvariant"]
    width = element.attrib.get("width", "")
    if tag == "mspace" and width.startswith("negative"):
        element.attrib.pop("width")  # Core ignores negative widths; say so by dropping it
    elif tag == "mspace" and width in _NAMED_SPACES:
        element.attrib["width"] = f"{_NAMED_SPACES[width]:.3f}em"
    for child in element:
        _clean(child)


def to_mathml(latex: str, *, display: bool = True) -> str:
    r"""The MathML of the LaTeX formula ``latex``, keeping the source as its annotation.

    Parameters
    ----------
    latex : str
        A formula in the LaTeX subset the app's lessons use (KaTeX's).
    display : bool, default=True
        A display formula (its own line, limits above and below) or an inline one.

    Returns
    -------
    str
        One ``<math>`` element: the presentation MathML and, in
        ``<annotation encoding="application/x-tex">``, the LaTeX it came from.

    Raises
    ------
    MathMLError
        When the formula cannot be converted or yields something that is not MathML.

    Examples
    --------
    >>> from mlviz.figures.mathml import to_mathml
    >>> out = to_mathml(r"\frac{1}{L}\sum_{l=1}^{L}")
    >>> "<mfrac><mrow><mn>1</mn></mrow><mrow><mi>L</mi></mrow></mfrac>" in out
    True
    >>> 'display="block"' in out and "<mo>∑</mo>" in out
    True
    >>> "&lt;b&gt;" in to_mathml(r"\text{<b>}")
    True
    """
    from latex2mathml.converter import convert

    source = latex
    for pattern, replacement in _IVERSON:
        source = pattern.sub(replacement, source)
    try:
        converted = convert(source, display="block" if display else "inline")
    except Exception as error:  # the converter raises its own types, none exported
        raise MathMLError(f"LaTeX not converted ({type(error).__name__}: {error})") from error
    # the converter copies \text{...} through unescaped: escape what is not its own markup
    # before parsing, so that a '<' in a text cannot open an element
    try:
        root = ET.fromstring(_escape_text(converted))
    except ET.ParseError as error:
        raise MathMLError(f"the converter's output is not well-formed ({error})") from error
    _clean(root)
    content = list(root)
    for child in content:
        root.remove(child)
    semantics = ET.SubElement(root, f"{{{_NS}}}semantics")
    row = ET.SubElement(semantics, f"{{{_NS}}}mrow")
    row.extend(content)
    annotation = ET.SubElement(semantics, f"{{{_NS}}}annotation", encoding="application/x-tex")
    annotation.text = latex
    ET.register_namespace("", _NS)
    return ET.tostring(root, encoding="unicode")


_TEXT = re.compile(r"(<mtext>)(.*?)(</mtext>)", re.DOTALL)
_LONE_AMPERSAND = re.compile(r"&(?!#x?[0-9A-Fa-f]+;|[A-Za-z]+;)")


def _escape_text(mathml: str) -> str:
    """``<mtext>`` contents escaped (the converter does not escape them); entities it wrote
    itself elsewhere are kept."""

    def escape(match: re.Match) -> str:
        inner = _LONE_AMPERSAND.sub("&amp;", match.group(2))
        inner = inner.replace("<", "&lt;").replace(">", "&gt;")
        return match.group(1) + inner + match.group(3)

    return _TEXT.sub(escape, mathml)

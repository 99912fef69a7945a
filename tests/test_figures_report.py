"""Export: figure file names and the one-file HTML report of a view."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import plotly.graph_objects as go
import pytest

from mlviz.figures.report import export_filename, html_report


def test_export_filename_is_safe_and_readable():
    assert export_filename("yeast", "PLST", "spectrum") == "yeast_PLST_spectrum"
    name = export_filename("my data (v2).csv", "Label clusters", "")
    assert name == "my-data-v2-csv_Label-clusters"
    assert "/" not in export_filename("../etc/passwd", "x")
    # never empty, never long: the one file-name rule (mlviz.io.export.safe_filename)
    assert export_filename("///", "") == "mlviz"
    assert len(export_filename("x" * 500, "spectrum")) <= 120


def _figs():
    return {
        "Spectrum <1>": go.Figure(go.Bar(x=[1, 2], y=[0.7, 0.3]), layout_title_text="Spectrum"),
        "Loss": go.Figure(go.Scatter(x=[1, 2], y=[0.2, 0.1])),
    }


def test_html_report_has_parameters_figures_and_plotly_once():
    page = html_report(
        "yeast — PLST",
        _figs(),
        {"data set": "yeast", "M": 4, "methods": ["PLST", "BR"], "alpha": 0.123456789},
        notes=["a < b"],
        generated=datetime(2026, 1, 2, 3, 4, tzinfo=UTC),
        include_plotlyjs="cdn",
    )
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert "<title>yeast — PLST</title>" in page and "2026-01-02 03:04 UTC" in page
    rows = re.findall(r"<tr><th>(.*?)</th><td>(.*?)</td></tr>", page)
    assert rows == [
        ("data set", "yeast"),
        ("M", "4"),
        ("methods", "PLST, BR"),
        ("alpha", "0.123457"),
    ]
    assert "<h2>Spectrum &lt;1&gt;</h2>" in page and "<p>a &lt; b</p>" in page
    assert page.count('class="plotly-graph-div"') == 2
    cdn_script = 'src="https://cdn.plot.ly'
    assert page.count(cdn_script) == 1  # plotly.js loaded once, by the first figure
    inline = html_report("t", _figs(), {}, include_plotlyjs="inline")
    assert cdn_script not in inline and len(inline) > 1_000_000
    assert "<p>(none)</p>" in inline


def test_html_report_rejects_bad_input():
    with pytest.raises(ValueError, match="no figure"):
        html_report("t", {}, {})
    with pytest.raises(ValueError, match="not a plotly Figure"):
        html_report("t", [("table", "not a figure")], {})
    with pytest.raises(ValueError, match="include_plotlyjs"):
        html_report("t", _figs(), {}, include_plotlyjs="directory")


_EXTERNAL_SCRIPT = re.compile(r"<script\b[^>]*\bsrc\s*=", re.IGNORECASE)


def test_html_report_is_self_contained_by_default():
    """The default report embeds plotly.js once and loads nothing from another host (issue 24
    item 4: it must open offline, in a classroom without internet)."""
    page = html_report("t", _figs(), {"M": 4})
    assert not _EXTERNAL_SCRIPT.search(page), "a <script src=...> needs the network"
    assert "cdn.plot.ly/plotly" not in page
    # the library itself is inline exactly once, before the first figure; both figures use it
    assert len(re.findall(r"\* plotly\.js v\d", page)) == 1
    assert page.index("plotly.js v") < page.index('class="plotly-graph-div"')
    assert page.count('class="plotly-graph-div"') == 2
    # the cdn variant is the one that would need the network: the check above can fail
    assert _EXTERNAL_SCRIPT.search(html_report("t", _figs(), {}, include_plotlyjs="cdn"))

"""What one draw of a shared figure costs the server: ``plotly.io.to_json`` of its dict.

``st.plotly_chart`` writes every figure as JSON on every run of every session. A figure the
caches share is drawn through ``pages._app.export._DrawnFigure``, made once per figure, whose
dict plotly writes from the JSON written when it was made (stop 46). This measures, per
draw, ``plotly.io.to_json`` of the figure's plain dict (what Streamlit would write without
it) and of the drawn figure's dict, and the making of a drawn figure, on figures the pages
draw: the CLEMS page's Shepard diagram at its cap of 20,000 pairs with hover texts and a
plain scatter of 20,000 points.

It then writes the Shepard diagram's JSON size with label-set names of the lengths the pages
show (yeast's average 46 characters, a 983-label set's 161; :func:`mlviz.figures.hypercube.
labelset_text` cuts them at about 160) with and without the hover text's bound
(``max_hover_chars``, stop 53).

Run: ``python benchmarks/bench_figure_json.py`` (``--repeats 30``); ``run()`` for
``benchmarks/run_all.py``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

_HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(_HERE.parent), str(_HERE)]

import plotly.graph_objects as go  # noqa: E402
import plotly.io as pio  # noqa: E402
from _common import machine_description, markdown_table  # noqa: E402

from mlviz.figures.clems import shepard_figure  # noqa: E402
from pages._app.export import _DrawnFigure  # noqa: E402


def _figures() -> dict[str, go.Figure]:
    rng = np.random.default_rng(0)
    n_sets = 300  # 44,850 pairs of label sets: the diagram keeps its cap of 20,000
    cost = rng.random((n_sets, n_sets))
    cost = (cost + cost.T) / 2
    np.fill_diagonal(cost, 0.0)
    names = [f"{{tag_{i % 37}, tag_{i % 11}, tag_{i % 5}}}" for i in range(n_sets)]
    # the 20,000-pair cap, whatever the names' length (max_hover_chars=None)
    shepard = shepard_figure(
        cost, np.sqrt(cost), stress=0.1, labelset_text=names, max_hover_chars=None
    )
    points = go.Figure(go.Scattergl(x=rng.random(20_000), y=rng.random(20_000), mode="markers"))
    return {
        "CLEMS Shepard diagram, 20,000 pairs with hover texts": shepard,
        "scatter, 20,000 points, no texts": points,
    }


def _draw_ms(spec: dict, repeats: int) -> tuple[float, float]:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        pio.to_json(spec, validate=False)
        times.append(time.perf_counter() - start)
    return 1e3 * float(np.median(times)), 1e3 * min(times)


def _make_ms(make, repeats: int) -> tuple[float, float]:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        make()
        times.append(time.perf_counter() - start)
    return 1e3 * float(np.median(times)), 1e3 * min(times)


def run(repeats: int = 30) -> pd.DataFrame:
    rows = []
    made = max(3, repeats // 3)
    for name, fig in _figures().items():
        plain = _draw_ms(go.Figure(fig).to_dict(), repeats)
        drawn = _draw_ms(_DrawnFigure(fig).to_dict(), repeats)
        make = _make_ms(lambda fig=fig: _DrawnFigure(fig), made)
        rows.append(
            {
                "figure": name,
                "draw, the plain dict: median / min (ms)": f"{plain[0]:.1f} / {plain[1]:.1f}",
                "draw, drawn figure: median / min (ms)": f"{drawn[0]:.2f} / {drawn[1]:.2f}",
                "make a drawn figure (ms)": f"{make[0]:.0f} / {make[1]:.0f}",
            }
        )
    return pd.DataFrame(rows)


def sizes() -> pd.DataFrame:
    """The Shepard diagram's JSON (MB) at 300 label sets (44,850 pairs), names of two lengths."""
    rng = np.random.default_rng(0)
    n_sets = 300
    cost = rng.random((n_sets, n_sets))
    cost = (cost + cost.T) / 2
    np.fill_diagonal(cost, 0.0)
    rows = []
    for length in (46, 161):
        names = [f"{{tag_{i:03d}" + "x" * (length - 10) + "}" for i in range(n_sets)]
        row = {"name length": length}
        for bound in (None, "default"):
            options = {} if bound == "default" else {"max_hover_chars": None}
            fig = shepard_figure(cost, np.sqrt(cost), 0.1, labelset_text=names, **options)
            column = "no bound" if bound is None else "bounded (default)"
            row[f"{column}: pairs"] = f"{len(fig.data[0].x):,}"
            row[f"{column}: MB"] = f"{len(fig.to_json()) / 1e6:.2f}"
        rows.append(row)
    return pd.DataFrame(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args()
    print(machine_description(), "\n")
    print(markdown_table(run(args.repeats)))
    print()
    print(markdown_table(sizes()))


if __name__ == "__main__":
    main()

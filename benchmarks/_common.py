"""Helpers shared by the benchmark scripts: machine description, median timing, markdown."""

from __future__ import annotations

import os
import platform
import time
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

import pandas as pd

REPO = Path(__file__).resolve().parents[1]

_LIBRARIES = ("numpy", "scipy", "scikit-learn", "pandas", "plotly", "streamlit", "liac-arff")


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def _memory_gib() -> str:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                return f"{int(line.split()[1]) / 2**20:.1f} GiB"
    except OSError:
        pass
    return "unknown memory"


def machine_description() -> str:
    """One paragraph naming the machine and the library versions a timing depends on."""
    versions = []
    for lib in _LIBRARIES:
        try:
            versions.append(f"{lib} {metadata.version(lib)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{lib} (not installed)")
    return (
        f"{os.cpu_count()} cores ({_cpu_model()}), {_memory_gib()} RAM, "
        f"{platform.system()} {platform.release()}, Python {platform.python_version()}; "
        + ", ".join(versions)
    )


def median_time(fn: Callable[[], object], repeats: int = 5) -> float:
    """Median wall time of ``fn()`` in seconds over ``repeats`` calls."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return float(pd.Series(times).median())


def mulan_dir() -> Path | None:
    """The real MULAN data folder (:func:`mlviz.datasets.default_data_dir`: ``$MLVIZ_DATA_DIR``
    or ../shared/data/mulan), or None when it does not exist; the same folder as the app, the
    tests and ``python -m mlviz reproduce``."""
    from mlviz.datasets import default_data_dir

    folder = default_data_dir()
    return folder if folder is not None and folder.is_dir() else None


def markdown_table(df: pd.DataFrame, floatfmt: str = ".4g") -> str:
    """A GitHub markdown table without the optional ``tabulate`` dependency."""

    def fmt(value: object) -> str:
        if isinstance(value, float):
            return format(value, floatfmt)
        return str(value)

    header = "| " + " | ".join(map(str, df.columns)) + " |"
    rule = "|" + "|".join("---" for _ in df.columns) + "|"
    rows = ["| " + " | ".join(fmt(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join([header, rule, *rows])


def datasets_main(
    doc: str, run: Callable[..., pd.DataFrame], names: list[str], argv: list[str] | None = None
) -> None:
    """The command line of a benchmark over named data sets: ``--datasets`` (default all of
    ``names``), then the machine, the load and ``run(names=...)``'s table."""
    import argparse

    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=list(names), choices=list(names))
    args = parser.parse_args(argv)
    print(machine_description(), f"load average {os.getloadavg()[0]:.2f}", flush=True)
    print(markdown_table(run(names=args.datasets), floatfmt=".7g"))

"""Command line: ``python -m mlviz reproduce <paper> [--data-dir DIR] [--quick] [--output FILE]``.

Also installed as the ``mlviz`` console script.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path


def _build_parser() -> argparse.ArgumentParser:
    from mlviz.reproduce import PAPERS

    parser = argparse.ArgumentParser(
        prog="mlviz",
        description="mlviz command line tools (the dashboard is `streamlit run app.py`).",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    rep = commands.add_parser(
        "reproduce",
        help="run a paper's evaluation protocol and compare with its published numbers",
        description="Run a paper's evaluation protocol on the MULAN data sets present and print "
        "a markdown table: our numbers, the paper's, the difference, within the paper's spread.",
    )
    rep.add_argument("paper", choices=sorted(PAPERS), help="which paper's protocol to run")
    rep.add_argument(
        "--data-dir",
        type=Path,
        default=None,
        help="MULAN folder with name.arff + name.xml (default: $MLVIZ_DATA_DIR, else "
        "../shared/data/mulan next to the repository)",
    )
    rep.add_argument("--quick", action="store_true", help="fewer folds/partitions (minutes → s)")
    rep.add_argument("--output", type=Path, default=None, help="also write the markdown here")
    rep.add_argument("--n-jobs", type=int, default=None, help="parallel folds (joblib)")
    return parser


def _progress(done: int, total: int, message: str) -> None:
    print(f"[{done}/{total}] {message}", file=sys.stderr, flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the process exit code (0 ok, 1 protocol could not run)."""
    args = _build_parser().parse_args(argv)
    from mlviz.reproduce import reproduce, to_markdown

    try:
        table = reproduce(
            args.paper, args.data_dir, quick=args.quick, n_jobs=args.n_jobs, progress=_progress
        )
    except FileNotFoundError as err:
        print(f"mlviz reproduce {args.paper}: {err}", file=sys.stderr)
        return 1
    shown = ["reproduce", args.paper]
    if args.data_dir is not None:
        shown += ["--data-dir", str(args.data_dir)]
    if args.quick:
        shown.append("--quick")
    if args.n_jobs is not None:
        shown += ["--n-jobs", str(args.n_jobs)]
    report = to_markdown(table, command="python -m mlviz " + shlex.join(shown))
    print(report)
    if args.output is not None:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(report, encoding="utf-8")
        print(f"written to {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

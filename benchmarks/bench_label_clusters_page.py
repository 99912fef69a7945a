"""Label clusters page: first render and every change, through Streamlit's AppTest (issue 25).

Runs ``pages/label_clusters.py`` of one checkout (``--repo``, default this one; e.g. an export
of main: ``git archive main | tar -x -C /tmp/main``) in a fresh process per data set, as the
router would (the data set in the session), and times each step of a user's visit:

1. first render (defaults: heat kernel, the opening K), after a warm-up visit on the
   embedded planted sample in the same process (imports and Streamlit's start excluded);
2. affinity -> co-occurrence (Jaccard);
3. K -> another value (opening K + 2, within the slider);
4. back to the heat kernel (at the new K: a new fit unless visited before);
5. the K sweep (on request where the page has a button; where the page computes it with
   every change, its time is already inside steps 1-3).

Data: medical (978 x 45, when the MULAN folder is present) and a bibtex-shaped label matrix
from :func:`mlviz.synthetic.make_long_tailed` (7,395 x 159, seed 0). AppTest runs the script
without a browser, so these are server-side times (no drawing); one BLAS thread.

Run: ``OPENBLAS_NUM_THREADS=1 python benchmarks/bench_label_clusters_page.py [--repo DIR]``
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

_HERE = Path(__file__).resolve().parent
REPO = _HERE.parent


def _measure(repo: Path, data: str) -> dict[str, float]:
    """In this process (cwd and sys.path at ``repo``): the page's steps on ``data``."""
    sys.path[:0] = [str(repo)]
    from streamlit.testing.v1 import AppTest

    import pages._app  # noqa: F401  (first, as app.py: the server's native threads)
    from mlviz.datasets import load_source
    from mlviz.synthetic import LONG_TAILED_SHAPES, make_long_tailed

    if data == "medical":
        from mlviz.io import load_arff

        ds = load_arff(Path(os.environ["MLVIZ_MULAN"]) / "medical.arff")
    else:
        ds = make_long_tailed(**LONG_TAILED_SHAPES["bibtex"], random_state=0)
    # warm-up on the embedded planted sample: imports and Streamlit's start are not the page's
    warm = AppTest.from_file(str(repo / "pages" / "label_clusters.py"), default_timeout=600)
    warm.session_state["dataset"] = load_source("sample:planted")
    warm.session_state["dataset_label"] = "planted"
    warm.run()
    at = AppTest.from_file(str(repo / "pages" / "label_clusters.py"), default_timeout=600)
    at.session_state["dataset"] = ds
    at.session_state["dataset_label"] = ds.name
    times: dict[str, float] = {}

    def step(name: str, action) -> None:
        start = time.perf_counter()
        action()
        times[name] = time.perf_counter() - start
        if at.exception:
            raise RuntimeError(f"{name}: {[e.message for e in at.exception]}")

    def affinity_box():
        return next(s for s in at.selectbox if "ffinity" in s.label)

    def k_slider():
        return next(s for s in at.slider if s.label == "Number of groups K")

    step("first render", at.run)
    step("affinity -> co-occurrence", lambda: affinity_box().set_value("cooccurrence").run())
    k = int(k_slider().value)
    other = k + 2 if k + 2 <= k_slider().max else k - 1
    step(f"K -> {other}", lambda: k_slider().set_value(other).run())
    step("affinity -> heat", lambda: affinity_box().set_value("heat").run())
    sweep = [b for b in at.button if "sweep" in (b.key or "")]
    if sweep:
        step("K sweep (button)", lambda: sweep[0].click().run())
    return times


def _mulan() -> Path | None:
    for candidate in (REPO.parent / "shared" / "data" / "mulan", Path("/work/shared/data/mulan")):
        if (candidate / "medical.arff").exists():
            return candidate
    return None


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, default=REPO)
    parser.add_argument("--repeats", type=int, default=3, help="fresh processes per data set")
    parser.add_argument("--measure", help=argparse.SUPPRESS)  # the child process
    args = parser.parse_args(argv)
    repo = args.repo.resolve()
    if args.measure:
        print(json.dumps(_measure(repo, args.measure)))
        return
    sys.path[:0] = [str(_HERE)]
    from _common import machine_description

    print(machine_description())
    print(f"checkout: {repo}; load average {os.getloadavg()[0]:.2f} at start\n")
    mulan = _mulan()
    sets = (["medical"] if mulan is not None else []) + ["bibtex-shaped"]
    env = dict(os.environ, MLVIZ_MULAN=str(mulan or ""), PYTHONDONTWRITEBYTECODE="1")
    env["PYTHONPATH"] = str(repo)
    print(f"| data | step | median seconds of {args.repeats} fresh processes (min–max) |")
    print("|---|---|---|")
    for data in sets:
        runs = []
        for _ in range(args.repeats):
            out = subprocess.run(
                [sys.executable, str(Path(__file__).resolve()), "--repo", str(repo)]
                + ["--measure", data],
                cwd=repo,
                env=env,
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            runs.append(json.loads(out.strip().splitlines()[-1]))
        for name in runs[0]:
            values = sorted(run[name] for run in runs)
            print(
                f"| {data} | {name} | {values[len(values) // 2]:.2f} "
                f"({values[0]:.2f}–{values[-1]:.2f}) |",
                flush=True,
            )


if __name__ == "__main__":
    main()

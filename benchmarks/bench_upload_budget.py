"""Every page on three hostile uploads (issue 24, item 5): an answer within 30 s, under ~2 GB.

Three generated CSV uploads (written by :func:`write_csv`): 10,000 label columns × 200 rows
(20 features), 330,000 rows × (20 features + 10 labels), and 20,000 rows × (600 features +
10 labels) — the widest dense upload under the 100 MB limit at the row budget. Each is parsed
as the upload path parses it (``load_csv(..., missing="keep")``, then the upload budget), and
each of the nine pages runs on it in a fresh process (``AppTest.from_file`` on the page with
the data set in the session, as the router leaves it), so that each page's time and peak
memory are its own.

Recorded per page: seconds until the page's run ended, peak RSS of the process, whether it
raised, and the first characters of what it said about size (warnings/errors/info naming a
budget). Usage::

    python benchmarks/bench_upload_budget.py [--pages data,plst] [--timeout 120]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path[:0] = [str(REPO), str(HERE)]

PAGES = (
    "data",
    "lesson",
    "hypercube",
    "label_clusters",
    "plst",
    "grople",
    "clems",
    "mlknn",
    "compare",
)


def write_csv(path: Path, n_rows: int, n_features: int, n_labels: int, seed: int = 0) -> Path:
    """A CSV with ``n_features`` numeric columns ``f0..`` and 0/1 label columns ``l0..``.

    Labels depend on the features (a random linear rule per label, thresholded so that label
    frequencies spread between ~1 % and ~30 %), so models have something to learn.
    """
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_rows, n_features)).astype(np.float32)
    W = rng.normal(size=(n_features, n_labels)).astype(np.float32)
    scores = X @ W + rng.normal(scale=0.5, size=(n_rows, n_labels)).astype(np.float32)
    frequency = rng.uniform(0.01, 0.3, size=n_labels)
    at = ((1 - frequency) * (n_rows - 1)).astype(int)  # each label's own quantile
    thresholds = np.sort(scores, axis=0)[at, np.arange(n_labels)]
    Y = (scores > thresholds).astype(np.uint8)
    header = [f"f{j}" for j in range(n_features)] + [f"l{j}" for j in range(n_labels)]
    with path.open("w") as f:
        f.write(",".join(header) + "\n")
        block = 20_000
        for start in range(0, n_rows, block):
            xs = X[start : start + block]
            ys = Y[start : start + block]
            lines = [
                ",".join(f"{v:.4f}" for v in x) + "," + ",".join(map(str, y))
                for x, y in zip(xs, ys, strict=True)
            ]
            f.write("\n".join(lines) + "\n")
    return path


UPLOADS = {
    "10k labels x 200 rows": dict(n_rows=200, n_features=20, n_labels=10_000),
    "330k rows x 20 features x 10 labels": dict(n_rows=330_000, n_features=20, n_labels=10),
    # the widest dense upload the 100 MB limit lets through at the rows budget (~98 MB of
    # CSV): ML-KNN's neighbour search is quadratic in the rows and linear in the features
    "20k rows x 600 features x 10 labels": dict(n_rows=20_000, n_features=600, n_labels=10),
}


def _one_page(csv: str, n_labels: int, page: str) -> dict:
    """Run in a child process: the upload through the app's sidebar (parse, budget, the Data
    page it opens on), then a switch to ``page``; print a JSON line."""
    import resource

    from threadpoolctl import threadpool_limits

    threadpool_limits(1)
    from streamlit.testing.v1 import AppTest

    payload = Path(csv).read_bytes()
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=600).run()
    at.text_input(key="upload_labels").input(str(n_labels))
    at.file_uploader(key="upload_file").upload("upload.csv", payload, "text/csv")
    start = time.perf_counter()
    at.run()
    out: dict = {"page": page, "upload_and_data_page_s": round(time.perf_counter() - start, 2)}
    if page != "data":
        start = time.perf_counter()
        at.switch_page(f"pages/{page}.py").run()
        out["page_s"] = round(time.perf_counter() - start, 2)
    if page == "lesson":  # the Lesson is seven views: each step's first run
        out["steps_s"] = []
        while not at.button(key="lesson_next").disabled and not at.exception:
            start = time.perf_counter()
            at.button(key="lesson_next").click().run()
            out["steps_s"].append(round(time.perf_counter() - start, 2))
    ds = at.session_state["dataset"]
    out["loaded"] = f"{ds.name}: {ds.n_samples:,} rows, {ds.n_labels:,} labels"
    out["title"] = at.title[0].value if at.title else None
    out["exception"] = [e.message[:200] for e in at.exception]
    out["errors"] = [e.value[:160] for e in at.error]
    said = [("error", e.value) for e in at.error] + [("warning", w.value) for w in at.warning]
    said += [("info", i.value) for i in at.info]
    out["said"] = [
        f"{kind}: {text[:140]}"
        for kind, text in said
        if any(
            w in text.lower()
            for w in ("budget", "sample", "up to", "too many", "accepts", "labels")
        )
    ][:4]
    out["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", default=",".join(PAGES))
    parser.add_argument("--uploads", default=",".join(UPLOADS))
    parser.add_argument("--timeout", type=float, default=240)
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        csv, n_labels, page = args.child
        print(json.dumps(_one_page(csv, int(n_labels), page)))
        return
    from _common import machine_description

    print(machine_description())
    print(f"load average before: {Path('/proc/loadavg').read_text().split()[:3]}")
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.uploads.split(","):
            shape = UPLOADS[name]
            csv = write_csv(Path(tmp) / "upload.csv", **shape)
            print(f"\n## {name}: {csv.stat().st_size / 1e6:.1f} MB")
            for page in args.pages.split(","):
                start = time.perf_counter()
                try:
                    done = subprocess.run(
                        [
                            sys.executable,
                            __file__,
                            "--child",
                            str(csv),
                            str(shape["n_labels"]),
                            page,
                        ],
                        capture_output=True,
                        text=True,
                        timeout=args.timeout,
                        cwd=REPO,
                    )
                    line = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
                    result = (
                        json.loads(line) if line.startswith("{") else {"stderr": done.stderr[-500:]}
                    )
                except subprocess.TimeoutExpired:
                    result = {"page": page, "timeout": f"> {args.timeout:.0f} s"}
                result["wall_s"] = round(time.perf_counter() - start, 1)
                print(json.dumps(result), flush=True)
    print(f"load average after: {Path('/proc/loadavg').read_text().split()[:3]}")


if __name__ == "__main__":
    main()

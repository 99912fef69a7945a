"""A class of 30 students on one server (issue 24, item 7).

Starts a real ``streamlit run app.py --server.headless true`` on loopback and opens 30
concurrent sessions over Streamlit's websocket protocol (``/_stcore/stream``, the protobuf
``BackMsg`` / ``ForwardMsg`` messages the browser exchanges; one connection is one session).
Student ``i`` asks for page ``i mod 9`` of the navigation on the embedded sample (the app's
default data set), as a browser opening that link does, then reruns it 3 times with the same
inputs (what Streamlit's rerun key sends: everything should come from the caches).

Recorded: the first view (from opening the connection until the page's run finished for good;
a run that ends early for a rerun, like the router's first run, is followed) and each rerun
(from the request until its run finished), their p50 / p95, errors (a traceback element sent,
a run not finished within 300 s, or a dropped connection) and the server's peak resident memory
(``VmHWM`` of the server process, read at the end). ``st.error`` boxes are counted separately.

No browser: the times are the server's (script runs and the messages' transfer), without
drawing. A first attempt with 30 Playwright/chromium contexts on the same 2 cores timed out in
the browsers' own page loads (30 s each) before the server ran a script.

Usage::

    python benchmarks/bench_classroom.py --students 30 --reruns 3
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]

from _common import machine_description  # noqa: E402

from tests import _browser  # noqa: E402  (the server's command line, free_port, REPO)

WAIT_S = 300  # a run that takes longer counts as an error
#: The nine pages by URL path ("" is the Data page, the default), in navigation order.
PAGES = ("", "lesson", "hypercube", "label_clusters", "plst", "grople", "clems", "mlknn", "compare")


def _start_server(repo: Path) -> tuple[subprocess.Popen, str]:
    port = _browser.free_port()
    command = _browser.streamlit_command(port)
    if not (repo / command[1]).exists():  # a checkout before serve.py (issue 33): plain Streamlit
        command[1:2] = ["-m", "streamlit", "run", "app.py"]
    proc = subprocess.Popen(
        command,
        cwd=repo,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    _browser.wait_healthy(url, proc, timeout=120)
    return proc, url


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` so far (less sensitive to the machine's load
    than wall times: what the workload costs the server, whoever else runs)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _wait_cpu_idle(pid: int, timeout: float = 600) -> None:
    """Return once process ``pid`` used under 0.1 s of CPU in 3 s (e.g. UMAP's numba
    compilation, started by the Hypercube page, has finished)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        before = _cpu_seconds(pid)
        time.sleep(3)
        if _cpu_seconds(pid) - before < 0.1:
            return


def _peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def _run_script(
    ws, page: str, timeout: float, url: dict[str, str]
) -> tuple[float, int, int, str]:
    """Ask for a run of ``page`` as the browser does (a ``rerun_script`` BackMsg with the
    page's name and the address bar's query string) and read ForwardMsgs until the run
    finished for good (runs that end early for a rerun, like the router's first run, are
    followed). ``url["query"]`` is the address bar's query string: sent with the request and
    updated from the app's ``page_info_changed`` messages, as the browser updates its address
    bar. Returns (seconds, tracebacks shown, st.error boxes shown, the page's title) of the
    final run."""
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    done = (ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_WITH_COMPILE_ERROR)
    request = BackMsg()
    request.rerun_script.query_string = url["query"]
    request.rerun_script.page_name = page
    start = time.perf_counter()
    await ws.send(request.SerializeToString())
    tracebacks = errors = 0
    title = ""
    while True:
        message = ForwardMsg()
        message.ParseFromString(await asyncio.wait_for(ws.recv(), timeout))
        kind = message.WhichOneof("type")
        if kind == "delta" and message.delta.WhichOneof("type") == "new_element":
            element = message.delta.new_element
            shown = element.WhichOneof("type")
            tracebacks += shown == "exception"
            errors += shown == "alert" and element.alert.format == element.alert.ERROR
            in_main = message.metadata.delta_path[:1] == [0]  # 0: main area, 1: sidebar
            if shown == "heading" and in_main and not title:
                title = element.heading.body
        elif kind == "page_info_changed":
            url["query"] = message.page_info_changed.query_string
        elif kind == "script_finished":
            if message.script_finished in done:
                return time.perf_counter() - start, tracebacks, errors, title
            tracebacks = errors = 0  # ended early for a rerun: count the next run's
            title = ""


async def _student(url: str, page: str, reruns: int, record: dict) -> None:
    import websockets

    ws_url = url.replace("http://", "ws://") + "/_stcore/stream"
    name = f"/{page}"
    try:
        start = time.perf_counter()
        async with websockets.connect(
            ws_url, subprotocols=["streamlit"], origin=url, max_size=None, ping_interval=None
        ) as ws:
            # a first view opens the page's bare link; its reruns keep the link the app wrote
            url_state = {"query": ""}
            seconds, tracebacks, errors, title = await _run_script(ws, page, WAIT_S, url_state)
            record["first"].append(time.perf_counter() - start)
            record["titles"].add(f"{name}: {title}")
            record["per_page"].setdefault(name, []).append(seconds)
            for _ in range(reruns):
                seconds, tracebacks, errors, _ = await _run_script(ws, page, WAIT_S, url_state)
                record["rerun"].append(seconds)
            if tracebacks:
                record["errors"].append(f"{name}: {tracebacks} traceback(s) shown")
            record["st_error"] += errors
    except Exception as error:  # a timed-out run or a closed connection: an error, with its page
        record["errors"].append(f"{name}: {type(error).__name__}: {str(error)[:200]}")


async def _run(url: str, students: int, reruns: int) -> dict:
    record: dict = {
        "first": [],
        "rerun": [],
        "errors": [],
        "st_error": 0,
        "per_page": {},
        "titles": set(),
    }
    pages = [path for path in PAGES]
    await asyncio.gather(
        *(_student(url, pages[i % len(pages)], reruns, record) for i in range(students))
    )
    return record


def _load() -> str:
    one, five, fifteen = Path("/proc/loadavg").read_text().split()[:3]
    return f"load average {one} / {five} / {fifteen}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--reruns", type=int, default=3)
    parser.add_argument(
        "--py-spy",
        dest="py_spy",
        type=Path,
        help="record the server with py-spy (sampling, all threads) into this file "
        "(collapsed stacks); py-spy must be installed",
    )
    parser.add_argument(
        "--gil",
        action="store_true",
        help="with --py-spy: sample only the thread holding the GIL (what the sessions queue "
        "for), not threads waiting for it",
    )
    parser.add_argument(
        "--prepare",
        action="store_true",
        help="before the class: open every page once in one session and wait until the "
        "server's CPU is idle (the teacher's check before the lesson; compiles UMAP's code)",
    )
    parser.add_argument(
        "--repo",
        type=Path,
        default=_browser.REPO,
        help="checkout whose app.py is served (default: this one), e.g. to compare with main",
    )
    args = parser.parse_args()
    print(machine_description())
    print(f"before: {_load()}")
    proc, url = _start_server(args.repo)
    print(f"serving {args.repo}")
    try:
        if args.prepare:
            asyncio.run(_run(url, len(PAGES), 0))
            _wait_cpu_idle(proc.pid)
            print(f"prepared: every page opened once, server idle ({_load()})")
        spy = None
        if args.py_spy:
            spy = subprocess.Popen(
                [
                    "py-spy",
                    "record",
                    "-p",
                    str(proc.pid),
                    "-o",
                    str(args.py_spy),
                    "-f",
                    "raw",
                    "--nonblocking",
                    "-r",
                    "50",
                    *(["--gil"] if args.gil else []),
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            time.sleep(1)
        cpu_before = _cpu_seconds(proc.pid)
        started = time.perf_counter()
        record = asyncio.run(_run(url, args.students, args.reruns))
        wall = time.perf_counter() - started
        rss = _peak_rss_mb(proc.pid)
        cpu = _cpu_seconds(proc.pid) - cpu_before
        if spy is not None:
            spy.send_signal(2)  # SIGINT: py-spy writes its file and exits
            spy.wait(timeout=60)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
    print(f"after: {_load()}")
    first, rerun = np.array(record["first"]), np.array(record["rerun"])
    print(f"{args.students} students, {args.reruns} reruns each, wall {wall:.1f} s")
    for name, values in (("first view", first), ("rerun", rerun)):
        if values.size:
            p50, p95 = np.percentile(values, [50, 95])
            print(
                f"{name}: n = {values.size}, p50 {p50:.2f} s, p95 {p95:.2f} s, "
                f"max {values.max():.2f} s"
            )
    print(f"errors: {len(record['errors'])}")
    for error in record["errors"]:
        print(f"  {error}")
    print(f"st.error boxes shown at the end: {record['st_error']}")
    print(f"server peak RSS: {rss:.0f} MB")
    print(f"server CPU time during the workload: {cpu:.1f} s (user + system)")
    print(
        "first view by page (s): "
        + ", ".join(
            f"{page or '/'} {np.median(v):.1f}" for page, v in sorted(record["per_page"].items())
        )
    )
    print("titles: " + " | ".join(sorted(record["titles"])))


if __name__ == "__main__":
    main()

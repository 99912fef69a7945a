"""A class arriving at once (issue 29, item 4): how often a first visit sees "Page not found".

For each of ``--servers`` freshly started ``streamlit run app.py`` processes, one chromium
(Debian's, through Playwright) opens ``--tabs`` pages in separate browser contexts at the same
moment (one session each), on the root URL and on deep links (``/plst?plst_m=2``, ``/lesson``,
...), waits until each tab's app is idle and records whether Streamlit's "Page not found"
dialog is shown and which title the page shows. With ``--trace`` the ForwardMsgs each failing
tab received (navigation, page_not_found, script_finished) are printed, decoded from the
websocket frames.

Usage::

    python benchmarks/first_visits.py --servers 10 --tabs 10 [--trace]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent)]

from tests import _browser  # noqa: E402

#: Deep links (and the root) the tabs open, in turn.
LINKS = (
    "",
    "plst?plst_m=2",
    "lesson",
    "mlknn",
    "",
    "hypercube",
    "clems",
    "label_clusters",
    "grople",
    "compare",
)
#: The "Page not found" dialog as the page shows it (Streamlit's modal with that heading).
NOT_FOUND = "Page not found"
_READY = (
    "([since, quiet, path, url]) => document.body.innerText.includes('"
    + NOT_FOUND
    + "') || (!!document.querySelector(\"[data-testid='stMain'] h1\") && ("
    + _browser._IDLE
    + ")([since, quiet, path, url]))"
)


def _describe(message) -> str | None:
    kind = message.WhichOneof("type")
    if kind == "navigation":
        pages = {p.page_script_hash: p.url_pathname or "/" for p in message.navigation.app_pages}
        return (
            f"navigation({len(pages)} pages, run {pages.get(message.navigation.page_script_hash)})"
        )
    if kind == "page_not_found":
        return f"PAGE_NOT_FOUND({message.page_not_found.page_name!r})"
    if kind == "script_finished":
        return f"finished({message.script_finished})"
    if kind == "new_session":
        return "new_session"
    return None


async def _visit(
    browser, url: str, link: str, start: asyncio.Event, delay: float, timeout_ms: float
) -> dict:
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    context = await browser.new_context(viewport={"width": 1280, "height": 720})
    page = await context.new_page()
    trace: list[str] = []

    def on_frame(payload):
        if isinstance(payload, (bytes, bytearray)):
            message = ForwardMsg()
            try:
                message.ParseFromString(bytes(payload))
            except Exception:  # not a ForwardMsg (never expected)
                return
            described = _describe(message)
            if described:
                trace.append(described)

    page.on("websocket", lambda ws: ws.on("framereceived", on_frame))
    await start.wait()
    await asyncio.sleep(delay)
    result = {"link": link, "trace": trace}
    try:
        await page.goto(f"{url}/{link}", timeout=timeout_ms)
        await page.wait_for_function(
            _READY, arg=[None, _browser.QUIET_MS, None, False], timeout=timeout_ms
        )
        body = await page.evaluate("() => document.body.innerText")
        result["not_found"] = NOT_FOUND in body
        titles = await page.locator("[data-testid='stMain'] h1").all_inner_texts()
        result["title"] = titles[0] if titles else ""
    except Exception as error:
        result["not_found"] = None
        result["title"] = f"{type(error).__name__}: {str(error)[:200]}"
    finally:
        await context.close()
    return result


async def one_server(
    browser,
    tabs: int,
    timeout_ms: float,
    spread: float = 0.0,
    env: dict | None = None,
    links: tuple[str, ...] = LINKS,
) -> list[dict]:
    """Start a fresh server, open ``tabs`` tabs on it (the i-th ``i * spread / tabs`` seconds
    after the first) and return what each showed."""
    port = _browser.free_port()
    proc = subprocess.Popen(
        _browser.streamlit_command(port),
        cwd=_browser.REPO,
        env={**os.environ, **(env or {})},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        _browser.wait_healthy(url, proc, timeout=60)
        start = asyncio.Event()
        visits = [
            asyncio.create_task(
                _visit(browser, url, links[i % len(links)], start, i * spread / tabs, timeout_ms)
            )
            for i in range(tabs)
        ]
        await asyncio.sleep(1.0)  # every context and page created, then all at once
        start.set()
        return await asyncio.gather(*visits)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


async def main_async(args) -> None:
    from playwright.async_api import async_playwright

    executable = _browser.chromium_path()
    if executable is None:
        raise SystemExit("chromium not installed")
    failed_servers = failed_tabs = total_tabs = 0
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=executable, args=_browser.CHROMIUM_FLAGS)
        try:
            for n in range(args.servers):
                began = time.monotonic()
                env = dict(item.split("=", 1) for item in args.env)
                results = await one_server(
                    browser,
                    args.tabs,
                    args.timeout * 1000,
                    args.spread,
                    env,
                    tuple(args.links.split(",")) if args.links is not None else LINKS,
                )
                bad = [r for r in results if r["not_found"] is not False]
                total_tabs += len(results)
                failed_tabs += len(bad)
                failed_servers += bool(bad)
                print(
                    f"server {n + 1}: {len(bad)} of {len(results)} tabs failed "
                    f"({time.monotonic() - began:.0f} s)",
                    flush=True,
                )
                for r in results if args.verbose else bad:
                    print(f"  /{r['link']}: not_found={r['not_found']} title={r['title']!r}")
                    if args.trace:
                        print("    " + " | ".join(r["trace"]))
        finally:
            await browser.close()
    print(
        f"{failed_servers} of {args.servers} fresh servers had a failing tab; "
        f"{failed_tabs} of {total_tabs} tabs failed"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--servers", type=int, default=5)
    parser.add_argument("--tabs", type=int, default=10)
    parser.add_argument("--timeout", type=float, default=120, help="per tab, seconds")
    parser.add_argument(
        "--spread",
        type=float,
        default=0.0,
        help="seconds over which the tabs' starts are spread (0: all at once)",
    )
    parser.add_argument(
        "--env", action="append", default=[], help="KEY=VALUE for the server's environment"
    )
    parser.add_argument(
        "--links", help="comma-separated paths the tabs open in turn (default: LINKS)"
    )
    parser.add_argument("--trace", action="store_true", help="print failing tabs' messages")
    parser.add_argument("--verbose", action="store_true", help="print every tab")
    asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()

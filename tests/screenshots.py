"""Regenerate the README's screenshots of the main views into ``docs/images/``.

Run from the repository root (needs Debian's chromium, as the browser test does)::

    python -m tests.screenshots            # the planted sample, into docs/images/
    python -m tests.screenshots --out /tmp/shots --dataset yeast

It uses the browser test's code path (``tests/_browser.py``): the app runs headless, chromium
opens each view through the sidebar at 1280 px wide, and the whole main area (every chart,
not only the first 720 px: ``_browser.shoot``) is saved, then downscaled to 960 px wide and
quantised to a 256-colour PNG so each image stays small. ``--first-screen`` saves only what
a 1280 × 720 screen shows first, scrolled to the first chart where a form comes before it
(the README's tour). Re-run it when a view changes and commit the images.
"""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path

from PIL import Image

from tests import _browser

#: file name -> url path of the README's main views.
VIEWS = {
    "data": "",
    "lesson": "lesson",
    "hypercube": "hypercube",
    "label-clusters": "label_clusters",
    "plst": "plst",
    "grople": "grople",
    "clems": "clems",
    "mlknn": "mlknn",
    "compare": "compare",
}
WIDTH = 960


def _small_png(png: bytes, path: Path) -> int:
    image = Image.open(io.BytesIO(png)).convert("RGB")
    height = round(image.height * WIDTH / image.width)
    image = image.resize((WIDTH, height), Image.Resampling.LANCZOS)
    image.quantize(colors=256, method=Image.Quantize.MEDIANCUT).save(path, optimize=True)
    return path.stat().st_size


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=_browser.REPO / "docs" / "images")
    parser.add_argument("--dataset", default="planted", help="part of the picker's name")
    parser.add_argument(
        "--first-screen",
        action="store_true",
        help="only the first 1280 × 720 screen of each view (default: the whole page)",
    )
    args = parser.parse_args(argv)
    executable = _browser.chromium_path()
    if executable is None:
        print("chromium is not installed (apt-get install -y chromium)", file=sys.stderr)
        return 1
    from playwright.sync_api import sync_playwright

    args.out.mkdir(parents=True, exist_ok=True)
    with _browser.streamlit_server() as url, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=executable, args=_browser.CHROMIUM_FLAGS)
        pg = browser.new_context(viewport=_browser.PROJECTOR).new_page()
        pg.set_default_timeout(60_000)
        pg.goto(url)
        _browser.wait_idle(pg)
        _browser.choose_dataset(pg, args.dataset)
        for name, path in VIEWS.items():
            _browser.open_page(pg, path)
            if path == "compare":
                _browser.click_and_wait(pg, pg.get_by_role("button", name="Run cross-validation"))
            if args.first_screen and path in (
                "compare",
                "plst",
                "hypercube",
                "clems",
                "grople",
            ):  # the charts, not the form
                pg.locator("[data-testid='stMain'] .js-plotly-plot").first.evaluate(
                    "e => { e.scrollIntoView({block: 'start'}); "
                    "document.querySelector('[data-testid=\"stMain\"]').scrollBy(0, -70); }"
                )
            _browser.assert_no_exception(pg, name)
            _browser.wait_settled(pg)  # plotly lays out titles and legends after the run
            png = _browser.shoot(
                pg, None, full_page=not args.first_screen, clip_sidebar=True
            )  # the view, not the sidebar
            size = _small_png(png, args.out / f"{name}.png")
            print(f"{args.out / f'{name}.png'}: {size / 1024:.0f} KB")
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

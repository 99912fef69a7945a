"""Label-name axes stay legible at scale (issue 23, item 4), measured in a real browser.

Two generated long-tailed sets (:func:`mlviz.synthetic.make_long_tailed`): bibtex-shaped with 159
labels and delicious-shaped with 983, scaled down in rows to keep the run short, with label names
as long as real tags (bibtex's run to 25 characters). They are written as MULAN ARFF + XML into a
temporary folder that the server reads as its data folder (``MLVIZ_DATA_DIR``), then picked in
the sidebar like any other set. On every page at 1280 x 720 the test compares the boxes of the
tick labels (their rotated rectangles) on each axis: no two neighbours may overlap and none may
stick out of its chart's SVG.
"""

from __future__ import annotations

import dataclasses

import pytest

from mlviz.io import save_arff
from mlviz.synthetic import LONG_TAILED_SHAPES, make_long_tailed
from tests import _browser

pytestmark = [pytest.mark.browser, pytest.mark.slow]

#: name -> (label count, rows, shape); rows scaled down from 7,395 and 16,105.
SETS = {
    "genbibtex": (159, 1_500, "bibtex"),
    "gendelicious": (983, 1_500, "delicious"),
}
_WORDS = ("computational", "biology", "networks", "semantic", "visualization", "ml", "web2.0")


def tag_names(n_labels: int) -> tuple[str, ...]:
    """Tag-like names of 9 to 26 characters, each distinct."""
    return tuple(
        f"tag_{_WORDS[k % len(_WORDS)]}{'_' + _WORDS[k // 7 % len(_WORDS)] if k % 3 else ''}"
        f"_{k:03d}"
        for k in range(n_labels)
    )


@pytest.fixture(scope="module")
def server_url(tmp_path_factory):
    folder = tmp_path_factory.mktemp("labels-data")
    for name, (n_labels, n_samples, shape) in SETS.items():
        params = {**LONG_TAILED_SHAPES[shape], "n_labels": n_labels, "n_samples": n_samples}
        params["n_features"] = min(int(params["n_features"]), 300)
        data = make_long_tailed(**params, random_state=0)
        data = dataclasses.replace(data, name=name, label_names=tag_names(n_labels))
        save_arff(data, folder / f"{name}.arff")
    with _browser.served(env={"MLVIZ_DATA_DIR": str(folder)}) as url:
        yield url


@pytest.fixture(scope="module")
def projector_page(server_url, browser):
    context = browser.new_context(viewport=_browser.PROJECTOR)
    pg = context.new_page()
    pg.set_default_timeout(120_000)
    yield pg
    context.close()


def test_tag_names_are_distinct_and_tag_long():
    names = tag_names(983)
    assert len(set(names)) == 983
    assert max(map(len, names)) >= 25


@pytest.mark.parametrize("dataset", list(SETS))
def test_label_names_never_overlap_nor_get_cut(projector_page, server_url, dataset):
    pg = projector_page
    pg.goto(server_url)
    _browser.wait_idle(pg)
    _browser.choose_dataset(pg, dataset)
    assert dataset in _browser.chosen_dataset(pg), _browser.chosen_dataset(pg)
    folder = _browser.screenshot_dir()
    print(f"\nscreenshots of every page on {dataset}: {folder}")
    problems = []
    for number, (path, title) in enumerate(_browser.NAV_PAGES.items()):
        _browser.open_page(pg, path)
        where = f"{dataset} / {title}"
        if path == "compare":  # its per-label chart appears after a run
            _browser.fewest_folds(pg)
            _browser.click_and_wait(pg, pg.get_by_role("button", name="Run cross-validation"))
        _browser.assert_no_exception(pg, where)
        _browser.shoot(pg, folder / f"{dataset}-{number}-{path or 'data'}.png")
        problems += _browser.tick_problems(pg, where)
    assert not problems, "\n".join(problems)

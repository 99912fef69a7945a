"""Uploading an Extreme Classification Repository text file (issue 32, item 1)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from mlviz.io import load_xc
from pages._app import budget

REPO = Path(__file__).resolve().parents[1]
TIMEOUT = 180


def _xc_text(n_rows: int = 30, n_features: int = 12, n_labels: int = 5, seed: int = 0) -> bytes:
    rng = np.random.default_rng(seed)
    lines = [f"{n_rows} {n_features} {n_labels}"]
    for i in range(n_rows):
        labels = sorted(rng.choice(n_labels, size=1 + i % 2, replace=False).tolist())
        features = sorted(rng.choice(n_features, size=3, replace=False).tolist())
        label_field = "" if i == 3 else ",".join(map(str, labels))  # row 4: no labels
        lines.append(label_field + " " + " ".join(f"{j}:{0.5 + j}" for j in features))
    return ("\n".join(lines) + "\n").encode()


def _upload(name: str, payload: bytes) -> AppTest:
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=TIMEOUT).run()
    at.file_uploader(key="upload_file").upload(name, payload, "text/plain")
    return at.run()


def test_an_xc_text_upload_loads_as_a_sparse_data_set():
    at = _upload("toy_data.txt", _xc_text())
    assert not at.exception, [e.message for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    ds = at.session_state["dataset"]
    assert (ds.name, ds.n_samples, ds.n_features, ds.n_labels) == ("toy", 30, 12, 5)
    assert ds.is_sparse and ds.Y[3].sum() == 0  # the row without labels is kept
    assert ds.label_names[0] == "label_0"
    caption = " ".join(c.value for c in at.sidebar.caption)
    assert "30 instances, 12 features (sparse), 5 labels" in caption


def test_a_bad_xc_upload_names_the_line_and_keeps_the_data_set():
    payload = _xc_text().replace(b"\n0", b"\n0,7", 1)  # label 7 of 5, on the first such row
    line = payload.split(b"\n").index(next(r for r in payload.split(b"\n") if b"0,7" in r)) + 1
    at = _upload("bad_data.txt", payload)
    assert not at.exception, [e.message for e in at.exception]
    errors = [e.value.replace("\\", "") for e in at.main.error]  # markdown escapes
    assert errors and f"line {line}: label index 7 is beyond the header's 5 labels" in errors[0]
    assert at.session_state["dataset"].name == "planted"


def test_an_xc_upload_over_budget_is_refused_from_its_header(monkeypatch):
    monkeypatch.setattr(budget, "MAX_UPLOAD_CELLS", 100)
    at = _upload("big_data.txt", b"1000 50 10\nnever parsed\n")
    assert not at.exception, [e.message for e in at.exception]
    errors = [e.value.replace("\\", "") for e in at.sidebar.error]
    assert errors and "1,000 rows × 60 columns" in errors[0] and "up to 100" in errors[0]


def test_a_txt_table_is_still_read_as_csv():
    payload = b"f1\tf2\tl1\tl2\n0.1\t1.0\t1\t0\n0.3\t0.2\t0\t1\n0.5\t0.4\t1\t1\n"
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=TIMEOUT).run()
    at.text_input(key="upload_labels").input("2")
    at.file_uploader(key="upload_file").upload("table.txt", payload, "text/plain")
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    assert at.session_state["dataset"].label_names == ("l1", "l2")


def _picker_and_split_script():
    import streamlit as st

    from pages._app import experiment, source

    source.dataset_picker()
    experiment.experiment_settings()
    split = experiment.current_split()
    st.write(f"split {len(split.train_index)} {len(split.test_index)}")


@pytest.fixture
def xc_data_dir(tmp_path, monkeypatch):
    """A data folder holding one XC train/test folder; the picker's cached list is rebuilt
    before and after (it is shared by every AppTest of the process)."""
    from mlviz.datasets import DATA_DIR_ENV
    from pages._app import source

    folder = tmp_path / "Pair-5"
    folder.mkdir()
    (folder / "train.txt").write_bytes(_xc_text(30, seed=1))
    (folder / "test.txt").write_bytes(_xc_text(12, seed=2))
    (folder / "Yf.txt").write_text("".join(f"tag {j}\n" for j in range(5)))
    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path))
    source._sources.clear()
    yield tmp_path
    source._sources.clear()


def test_the_picker_offers_an_xc_folder_with_its_published_split(xc_data_dir):
    at = AppTest.from_function(_picker_and_split_script, default_timeout=TIMEOUT).run()
    picker = at.selectbox(key="source_choice")
    assert "Pair-5 · 5 labels · 42×12" in picker.options  # train + test rows, from headers
    at.selectbox(key="source_choice").set_value("xc:Pair-5").run()
    assert not at.exception, [e.message for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    assert at.radio(key="split_mode").value == "official"
    shown = [m.value for m in at.markdown if m.value.startswith("split ")]
    assert shown == ["split 30 12"]
    ds = at.session_state["dataset"]
    assert ds.n_samples == 42 and ds.is_sparse and ds.label_names[0] == "tag 0"


def test_the_picker_offers_a_data_file_with_index_files_with_its_published_split(
    tmp_path, monkeypatch
):
    """``<name>_data.txt`` with the repository's ``_trSplit``/``_tstSplit`` files: the
    published split (its first column) is the default, and the app holds its training rows
    first."""
    from mlviz.datasets import DATA_DIR_ENV
    from pages._app import source

    (tmp_path / "Toy_data.txt").write_bytes(_xc_text(20, seed=3))
    (tmp_path / "toy_trSplit.txt").write_text("".join(f"{i} {i}\n" for i in range(6, 21)))
    (tmp_path / "toy_tstSplit.txt").write_text("".join(f"{i} {i}\n" for i in range(1, 6)))
    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path))
    source._sources.clear()
    try:
        at = AppTest.from_function(_picker_and_split_script, default_timeout=TIMEOUT).run()
        at.selectbox(key="source_choice").set_value("xc:Toy").run()
        assert not at.exception, [e.message for e in at.exception]
        assert not at.error, [e.value for e in at.error]
        assert at.radio(key="split_mode").value == "official"
        shown = [m.value for m in at.markdown if m.value.startswith("split ")]
        assert shown == ["split 15 5"]
        whole = load_xc(tmp_path / "Toy_data.txt")
        held = at.session_state["dataset"]
        # training rows 6-20 of the file first, then its test rows 1-5
        np.testing.assert_array_equal(held.Y, np.vstack([whole.Y[5:], whole.Y[:5]]))
    finally:
        source._sources.clear()


def _upload_with_names(name: str, payload: bytes, names_file: str, names: bytes) -> AppTest:
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=TIMEOUT).run()
    at.file_uploader(key="upload_xml").upload(names_file, names, "text/plain")
    at.file_uploader(key="upload_file").upload(name, payload, "text/plain")
    return at.run()


def test_an_xc_upload_takes_its_label_map():
    names = "".join(f"<b>tag</b> {j}\n" for j in range(5)).encode()  # user text, kept literal
    at = _upload_with_names("toy_data.txt", _xc_text(), "Yf.txt", names)
    assert not at.exception, [e.message for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    assert at.session_state["dataset"].label_names == tuple(f"<b>tag</b> {j}" for j in range(5))


@pytest.mark.parametrize(
    ("names_file", "names", "message"),
    [
        ("Yf.txt", b"a\nb\n", "upload 'Yf.txt': the label map has 2 lines, the data 5 labels"),
        ("toy.xml", b"<labels/>", "toy.xml is a MULAN .xml, which names the labels of an ARFF"),
    ],
)
def test_a_label_file_that_does_not_fit_is_a_specific_error(names_file, names, message):
    at = _upload_with_names("toy_data.txt", _xc_text(), names_file, names)
    assert not at.exception, [e.message for e in at.exception]
    errors = " ".join(e.value.replace("\\", "") for e in at.main.error)
    assert message in errors, errors
    assert at.session_state["dataset"].name == "planted"  # the data set in use is kept


def test_a_label_map_with_an_arff_upload_is_refused_with_what_to_give():
    arff = b"@relation r\n@attribute f numeric\n@attribute a {0,1}\n@data\n0.5,1\n"
    at = _upload_with_names("t.arff", arff, "Yf.txt", b"a\n")
    errors = " ".join(e.value.replace("\\", "") for e in at.main.error)
    assert "Yf.txt is a label map .txt, which names the labels of an XC text file" in errors

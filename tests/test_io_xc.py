"""Extreme Classification Repository / LIBSVM text files: mlviz.load_xc and mlviz.write_xc.

Oracles: napkinXC's reader (``napkinxc.datasets.load_libsvm_file``) on generated files with a
header, and scikit-learn's ``load_svmlight_file`` on header-less 1-based LIBSVM files.
"""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import mulan_path
from sklearn.datasets import load_svmlight_file

import mlviz
from mlviz.io import DataFormatError, Dataset, load_arff, load_xc, write_xc
from mlviz.io.xc import load_xc_split, looks_like_xc
from mlviz.synthetic import make_long_tailed


def _random_rows(rng, n_rows, n_features, n_labels, *, shuffle=True, base=0):
    """Rows of an XC file (as text) and the matrices they mean; some rows empty, some with
    labels only, some with features only; indices in random order when ``shuffle``."""
    X = np.zeros((n_rows, n_features))
    Y = np.zeros((n_rows, n_labels), dtype=np.uint8)
    lines = []
    for i in range(n_rows):
        kind = i % 5  # 0: full, 1: no labels, 2: no features, 3: nothing, 4: full
        labels = rng.choice(n_labels, size=rng.integers(1, 4), replace=False)
        features = rng.choice(n_features, size=rng.integers(1, 6), replace=False)
        if kind in (1, 3):
            labels = labels[:0]
        if kind in (2, 3):
            features = features[:0]
        if not shuffle:
            labels, features = np.sort(labels), np.sort(features)
        values = rng.normal(size=features.size).round(6)
        values[values == 0] = 1.5
        Y[i, labels] = 1
        X[i, features] = values
        sep = "  " if i % 7 == 6 else " "  # some rows: two spaces between pairs, one at the end
        pairs = sep.join(
            f"{j + base}:{v!r}" for j, v in zip(features.tolist(), values.tolist(), strict=True)
        )
        lines.append(",".join(map(str, labels)) + " " + pairs + sep[1:])
    return lines, X, Y


def _napkinxc(path, n_features, n_labels):
    """napkinXC's reading of ``path`` as dense arrays (its values are float32: ours are
    compared after the same rounding, and exactly against the matrices the file was made of)."""
    napkinxc_datasets = pytest.importorskip("napkinxc.datasets")
    X, Y = napkinxc_datasets.load_libsvm_file(str(path), labels_format="csr_matrix")
    X = sp.csr_matrix(X)
    X.resize((X.shape[0], n_features))
    Y = sp.csr_matrix(Y)
    Y.resize((Y.shape[0], n_labels))
    return X.toarray().astype(np.float32), Y.toarray().astype(np.uint8)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_agrees_with_napkinxc_on_empty_rows_and_unsorted_indices(tmp_path, seed):
    rng = np.random.default_rng(seed)
    lines, X, Y = _random_rows(rng, 60, 40, 12)
    path = tmp_path / "gen_data.txt"
    path.write_text("\n".join(["60 40 12", *lines]) + "\n")
    ds = load_xc(path)
    X_oracle, Y_oracle = _napkinxc(path, 40, 12)
    assert ds.X.shape == (60, 40) and ds.Y.shape == (60, 12)
    np.testing.assert_array_equal(ds.X.toarray().astype(np.float32), X_oracle)
    np.testing.assert_array_equal(ds.Y, Y_oracle)
    np.testing.assert_array_equal(ds.X.toarray(), X)  # and the matrices the rows were made of
    np.testing.assert_array_equal(ds.Y, Y)
    assert sp.isspmatrix_csr(ds.X) and ds.X.has_sorted_indices
    assert ds.name == "gen" and ds.label_names[:2] == ("label_0", "label_1")
    assert any("Header 'N F L' detected" in note for note in ds.notes)


def test_header_less_libsvm_with_1_based_features_agrees_with_scikit_learn(tmp_path):
    rng = np.random.default_rng(3)
    lines, X, Y = _random_rows(rng, 40, 25, 6, shuffle=False, base=1)  # scikit-learn: sorted
    lines = [line for line in lines if not line.startswith(" ")]  # scikit-learn needs labels
    path = tmp_path / "libsvm.txt"
    path.write_text("\n".join(lines) + "\n")
    ds = load_xc(path, n_features=25)
    X_sk, y_sk = load_svmlight_file(str(path), n_features=25, multilabel=True, zero_based=False)
    np.testing.assert_array_equal(ds.X.toarray(), X_sk.toarray())
    Y_sk = np.zeros_like(ds.Y)
    for i, labels in enumerate(y_sk):
        Y_sk[i, [int(label) for label in labels]] = 1
    np.testing.assert_array_equal(ds.Y, Y_sk)
    assert any("1-based" in note for note in ds.notes)
    assert any("No 'N F L' header" in note for note in ds.notes)
    assert ds.feature_names[0] == "f1"  # named as the file writes them


def test_feature_base_detection_and_override():
    assert load_xc("0 0:1 3:2\n1 2:1\n").n_features == 4  # a feature 0: 0-based
    assert load_xc("0 1:1 3:2\n1 2:1\n").n_features == 3  # none: LIBSVM, 1-based
    assert load_xc("0 1:1 3:2\n1 2:1\n", feature_base=0).n_features == 4
    assert load_xc("2 5 2\n0 1:1 3:2\n1 2:1\n", feature_base=1).X[0].indices.tolist() == [0, 2]
    with pytest.raises(DataFormatError, match=r"line 1: feature index 0 .*feature_base=1"):
        load_xc("0 0:1\n", feature_base=1)


def test_features_without_values_read_as_1_with_a_note():
    ds = load_xc("2 4 2\n0 1 3:0.5\n1 2\n")
    assert ds.X.toarray().tolist() == [[0, 1, 0, 0.5], [0, 0, 1, 0]]
    assert any("2 features written without a value" in note for note in ds.notes)


def test_round_trip_write_then_load_is_identical(tmp_path):
    ds = make_long_tailed(300, 60, n_labels=25, cardinality=3, random_state=0)
    rng = np.random.default_rng(0)
    X = sp.csr_matrix(ds.X, dtype=np.float64)
    X.data = rng.normal(size=X.nnz)  # values that need every digit of repr
    Y = np.array(ds.Y)
    Y[:7] = 0  # rows without labels are kept
    names = tuple(f"tag {j} é" for j in range(ds.n_labels))
    original = dataclasses.replace(ds, X=X, Y=Y, label_names=names)
    data_path, names_path = write_xc(original, tmp_path / "lt_data.txt")
    assert names_path.name == "lt_labels.txt"
    back = load_xc(data_path)
    np.testing.assert_array_equal(back.X.toarray(), original.X.toarray())
    np.testing.assert_array_equal(back.Y, original.Y)
    assert back.label_names == names and back.name == "lt"
    assert any("lt_labels.txt" in note for note in back.notes)
    # and napkinXC reads the written file the same
    X_oracle, Y_oracle = _napkinxc(data_path, ds.n_features, ds.n_labels)
    np.testing.assert_array_equal(back.X.toarray().astype(np.float32), X_oracle)
    np.testing.assert_array_equal(back.Y, Y_oracle)


def test_round_trip_of_dense_features_and_empty_last_row(tmp_path):
    ds = Dataset(
        "d",
        np.array([[0.1, 0.0], [0.0, 0.0]]),
        np.array([[1, 0], [0, 0]], dtype=np.uint8),
        ("a", "b"),
        ("x", "y"),
    )
    path, _ = write_xc(ds, tmp_path)
    assert path.name == "d_data.txt"
    back = load_xc(path)
    assert back.X.toarray().tolist() == ds.X.tolist() and back.Y.tolist() == ds.Y.tolist()
    with pytest.raises(ValueError, match="NaN or infinite"):
        write_xc(dataclasses.replace(ds, X=np.array([[np.nan, 0], [0, 0]])), tmp_path / "n.txt")


LINE_ERRORS = [
    ("3 4 2\n0 0:1\n1 4:1\n 1:1\n", 3, r"feature index 4 is beyond the header's 4 features"),
    ("3 4 2\n0 0:1\n1 1:1\n2 1:1\n", 4, r"label index 2 is beyond the header's 2 labels"),
    ("3 4 2\n0 0:1\n1 1:x\n 1:1\n", 3, r"value 'x' that is not a finite number"),
    ("3 4 2\n0 0:1\n1 1:nan\n 1:1\n", 3, r"value 'nan' that is not a finite number"),
    ("3 4 2\n0 0:1\n1 1::1\n 1:1\n", 3, r"'1::1' is not an index:value pair"),
    ("3 4 2\n0 0:1\n1 :1\n 1:1\n", 3, r"':1' is not an index:value pair"),
    ("3 4 2\n0 0:1\n1 1.5:1\n 1:1\n", 3, r"index that is not a non-negative integer"),
    ("3 4 2\n0 0:1\n1 1:1 1:2\n 1:1\n", 3, r"feature 1 is listed twice"),
    ("3 4 2\n0 0:1\n1,1 1:1\n 1:1\n", 3, r"label 1 is listed twice"),
    ("3 4 2\n0 0:1\n1;0 1:1\n 1:1\n", 3, r"label field '1;0' is not a list"),
    ("3 4 2\n0 0:1\n-1 1:1\n 1:1\n", 3, r"label field '-1' is not a list"),
    ("3 4 2\n0 0:1\n1 1:1\n", 1, r"declares 3 instances, but 2 rows follow"),
    ("2 4 2\n0 0:1\n1 1:1\n1 2:1\n", 1, r"declares 2 instances, but 3 rows follow"),
]


@pytest.mark.parametrize(("text", "line", "what"), LINE_ERRORS)
def test_every_error_names_its_line(text, line, what):
    with pytest.raises(DataFormatError, match=rf"XC text line {line}: .*{what}"):
        load_xc(text)


def test_errors_name_the_file_and_the_line_far_down(tmp_path):
    rows = ["0 0:1"] * 999 + ["0 0:1 7:2"]
    path = tmp_path / "big_data.txt"
    path.write_text("1000 5 1\n" + "\n".join(rows) + "\n")
    with pytest.raises(DataFormatError, match=r"^big_data.txt line 1001: feature index 7"):
        load_xc(path)


def test_header_forced_and_refused():
    with pytest.raises(DataFormatError, match="line 1: expected the header 'N F L'"):
        load_xc("0 1:1\n", header=True)
    # header=False reads a three-integer first line as a row (label 3, bare features 4 and 5)
    ds = load_xc("3 4 5\n", header=False, feature_base=0)
    assert ds.Y.shape == (1, 4) and ds.X.toarray().tolist() == [[0, 0, 0, 0, 1, 1]]
    with pytest.raises(DataFormatError, match="declares 4 features, the caller 5"):
        load_xc("1 4 2\n0 0:1\n", n_features=5)


def test_files_without_any_feature_or_label_value():
    # numpy.fromstring reads blank text as the number -1: no phantom feature may appear
    ds = load_xc("2 3 1\n0\n0\n")
    assert ds.X.shape == (2, 3) and ds.X.nnz == 0 and ds.Y.tolist() == [[1], [1]]
    ds = load_xc("2 3 2\n 1:2\n 2:1\n")
    assert ds.Y.sum() == 0 and ds.X.toarray().tolist() == [[0, 2, 0], [0, 0, 1]]
    assert load_xc("0\n0,1\n").X.shape == (2, 1)  # header-less, no feature: one empty column


def test_blank_lines_after_the_last_row_are_ignored_and_inside_are_empty_rows():
    ds = load_xc("3 2 1\n0 0:1\n\n0 1:1\n\n\n")
    assert ds.Y.ravel().tolist() == [1, 0, 1] and ds.X[1].nnz == 0


def test_label_map_beside_the_file(tmp_path):
    (tmp_path / "s_data.txt").write_text("2 2 3\n0,2 0:1\n1 1:1\n")
    (tmp_path / "Yf.txt").write_text("alpha\n beta\ngamma\n")
    ds = load_xc(tmp_path / "s_data.txt")
    assert ds.label_names == ("alpha", "beta", "gamma")
    assert any("Yf.txt" in note for note in ds.notes)
    assert load_xc(tmp_path / "s_data.txt", label_names=None).label_names[0] == "label_0"
    (tmp_path / "Yf.txt").write_text("alpha\nbeta\n")
    with pytest.raises(DataFormatError, match=r"Yf.txt: the label map has 2 lines, the data 3"):
        load_xc(tmp_path / "s_data.txt")
    (tmp_path / "Yf.txt").write_text("alpha\nbeta\nalpha\n")
    with pytest.raises(DataFormatError, match=r"Yf.txt lines 1 and 3: label name 'alpha'"):
        load_xc(tmp_path / "s_data.txt")
    (tmp_path / "s_labels.txt").write_text("a\nb\nc\n")  # the set's own map comes first
    assert load_xc(tmp_path / "s_data.txt").label_names == ("a", "b", "c")


def test_train_test_folder_is_one_data_set_with_its_published_split(tmp_path):
    rng = np.random.default_rng(5)
    train_lines, X_train, Y_train = _random_rows(rng, 30, 20, 7)
    test_lines, X_test, Y_test = _random_rows(rng, 12, 20, 7)
    folder = tmp_path / "Toy-7"
    folder.mkdir()
    (folder / "train.txt").write_text("\n".join(["30 20 7", *train_lines]) + "\n")
    (folder / "test.txt").write_text("\n".join(["12 20 7", *test_lines]) + "\n")
    (folder / "labels.txt").write_text("".join(f"L{j}\n" for j in range(7)))
    train, test = load_xc_split(folder)
    np.testing.assert_array_equal(train.X.toarray(), X_train)
    np.testing.assert_array_equal(test.Y, Y_test)
    ds = load_xc(folder)
    assert ds.name == "Toy-7" and ds.n_samples == 42 and ds.label_names[0] == "L0"
    np.testing.assert_array_equal(ds.X.toarray(), np.vstack([X_train, X_test]))
    np.testing.assert_array_equal(ds.Y, np.vstack([Y_train, Y_test]))
    assert "rows 1-30 are train.txt (training), rows 31-42 are test.txt (test)" in ds.notes[0]
    (folder / "test.txt").write_text("\n".join(["12 21 7", *test_lines]) + "\n")
    with pytest.raises(DataFormatError, match="train.txt declares 20 features and 7 labels"):
        load_xc(folder)


def test_budgets_refuse_from_the_header_before_parsing():
    text = "1000 400 100\n" + "not a row\n" * 3  # never parsed: refused from the header
    with pytest.raises(DataFormatError, match=r"1,000 rows × 500 columns .* = 500,000 values"):
        load_xc(text, max_cells=100_000)
    with pytest.raises(DataFormatError, match=r"500 columns \(features \+ labels\); up to 300"):
        load_xc(text, max_columns=300)


def test_looks_like_xc_tells_xc_from_csv():
    assert looks_like_xc(b"3 4 2\n0 0:1\n")
    assert looks_like_xc(" 2:1 5:0.5\n")
    assert not looks_like_xc("a\tb\tlabel\n1\t2\t0\n")
    assert not looks_like_xc("")


def test_top_level_exports():
    assert mlviz.load_xc is load_xc and mlviz.write_xc is write_xc


@pytest.mark.parametrize(
    ("text", "pattern"),
    [("3 4 2\n", "declares 3 instances, but 0 rows"), ("\n\n", "no instances")],
)
def test_empty_inputs_are_explained(text, pattern):
    with pytest.raises(DataFormatError, match=re.escape(pattern)):
        load_xc(text)


def test_the_data_folder_lists_xc_sets_and_loads_their_published_split(tmp_path):
    from mlviz import datasets

    rng = np.random.default_rng(7)
    train_lines, _, Y_train = _random_rows(rng, 20, 10, 4)
    test_lines, _, Y_test = _random_rows(rng, 8, 10, 4)
    pair = tmp_path / "Pair-4"
    pair.mkdir()
    (pair / "train.txt").write_text("\n".join(["20 10 4", *train_lines]) + "\n")
    (pair / "test.txt").write_text("\n".join(["8 10 4", *test_lines]) + "\n")
    (tmp_path / "solo_data.txt").write_text("\n".join(["20 10 4", *train_lines]) + "\n")
    (tmp_path / "headless_data.txt").write_text("0 1:1\n")  # no header: not listed
    (tmp_path / "notes.txt").write_text("3 4 5\n")  # not a *_data.txt: not listed
    by_key = {s.key: s for s in datasets.list_sources(tmp_path) if s.kind == "folder"}
    assert set(by_key) == {"xc:Pair-4", "xc:solo"}
    pair_source, solo = by_key["xc:Pair-4"], by_key["xc:solo"]
    assert pair_source.has_official_split and not solo.has_official_split
    assert (pair_source.n_samples, pair_source.n_features, pair_source.n_labels) == (28, 10, 4)
    assert "Published split: 20 train / 8 test" in pair_source.description
    train, test = datasets.load_official_split(pair_source)
    assert (train.name, test.name) == ("Pair-4-train", "Pair-4-test")
    np.testing.assert_array_equal(test.Y, Y_test)
    whole = datasets.load_source("xc:Pair-4", folder=tmp_path)
    np.testing.assert_array_equal(whole.Y, np.vstack([Y_train, Y_test]))
    assert datasets.load_source(solo).n_samples == 20


def test_an_xc_set_named_like_an_arff_set_is_told_apart(tmp_path):
    from mlviz import datasets
    from mlviz.io import save_arff

    ds = make_long_tailed(30, 8, n_labels=4, cardinality=2, random_state=0)
    save_arff(dataclasses.replace(ds, name="twin"), tmp_path / "twin.arff")
    write_xc(ds, tmp_path / "twin_data.txt")
    names = {s.key: s.name for s in datasets.list_sources(tmp_path) if s.kind == "folder"}
    assert names == {"mulan:twin": "twin", "xc:twin": "twin (XC)"}


def test_a_real_mulan_set_survives_the_xc_round_trip_and_napkinxc_reads_it_alike(tmp_path):
    medical = load_arff(mulan_path("medical.arff"))  # sparse, 978 × 1,449, 45 labels
    data_path, _ = write_xc(medical, tmp_path / "medical_data.txt")
    back = load_xc(data_path)
    assert (back.X != sp.csr_matrix(medical.X)).nnz == 0
    np.testing.assert_array_equal(back.Y, medical.Y)
    assert back.label_names == medical.label_names
    X_oracle, Y_oracle = _napkinxc(data_path, medical.n_features, medical.n_labels)
    np.testing.assert_array_equal(back.X.toarray().astype(np.float32), X_oracle)
    np.testing.assert_array_equal(back.Y, Y_oracle)


def _write_split_files(folder, stem, train_columns, test_columns):
    """Index files as the repository writes them: one line per row, one column per split."""
    for suffix, columns in (("trSplit", train_columns), ("tstSplit", test_columns)):
        lines = [" ".join(str(c[i]) for c in columns) for i in range(len(columns[0]))]
        (folder / f"{stem}_{suffix}.txt").write_text("\n".join(lines) + "\n")


def test_a_data_file_with_index_files_loads_the_first_published_split(tmp_path):
    """Bibtex_data.txt with bibtex_trSplit.txt / bibtex_tstSplit.txt (lower case, as the
    repository ships them): the first column, 1-based row indices among the data rows."""
    from mlviz import datasets

    rng = np.random.default_rng(3)
    lines, X, Y = _random_rows(rng, 12, 6, 3)
    (tmp_path / "Toy_data.txt").write_text("\n".join(["12 6 3", *lines]) + "\n")
    order = rng.permutation(12)
    first_train, first_test = order[:8], order[8:]
    other = rng.permutation(12)
    train_columns = [first_train + 1, other[:8] + 1]
    _write_split_files(tmp_path, "toy", train_columns, [first_test + 1, other[8:] + 1])
    source = {s.key: s for s in datasets.list_sources(tmp_path)}["xc:Toy"]
    assert source.has_official_split
    assert "Published split: the first column of toy_trSplit.txt" in source.description
    train, test = datasets.load_official_split(source)
    np.testing.assert_array_equal(train.Y, Y[first_train])
    np.testing.assert_array_equal(test.Y, Y[first_test])
    assert (train.X != sp.csr_matrix(X)[first_train]).nnz == 0
    assert any("row indices read as 1-based" in note for note in train.notes)
    assert datasets.load_source(source).n_samples == 12  # the whole file, in its order


@pytest.mark.parametrize(
    ("train", "test", "message"),
    [
        ("1 2\n3\n", "4 4\n", "a_trSplit.txt line 2: 1 column where line 1 has 2"),
        ("1\n2\nx\n", "4\n", "line 3: 'x' is not a row index"),
        ("1\n2\n3\n", "5\n", "row 5 is beyond the data file's 4 rows"),
        ("1\n2\n2\n", "4\n", "lists row 2 2 times"),
        ("1\n2\n3\n", "3\n", "1 row (first: 3) are in both"),
    ],
)
def test_bad_index_files_name_the_file_and_line(tmp_path, train, test, message):
    from mlviz.io.xc import read_split_indices

    (tmp_path / "a_trSplit.txt").write_text(train)
    (tmp_path / "a_tstSplit.txt").write_text(test)
    with pytest.raises(DataFormatError, match=re.escape(message)):
        read_split_indices(tmp_path / "a_trSplit.txt", tmp_path / "a_tstSplit.txt", 4)


def test_index_files_counted_from_zero_are_read_as_such_and_gaps_are_counted(tmp_path):
    from mlviz.io.xc import read_split_indices

    (tmp_path / "a_trSplit.txt").write_text("0\n2\n")
    (tmp_path / "a_tstSplit.txt").write_text("3\n")
    train, test, notes = read_split_indices(
        tmp_path / "a_trSplit.txt", tmp_path / "a_tstSplit.txt", 5
    )
    assert train.tolist() == [0, 2] and test.tolist() == [3]
    assert "0-based" in notes[0] and notes[1] == "2 rows of the data file are in neither part."

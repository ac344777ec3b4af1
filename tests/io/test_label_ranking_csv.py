"""Tests of rankclust.io.label_ranking_csv: the scikit-lr CSV format."""

from __future__ import annotations

import gzip
import io

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from rankclust import Rankings
from rankclust.io import DataFormatError, MalformedLinesWarning
from rankclust.io.label_ranking_csv import read_label_ranking_csv, write_label_ranking_csv


def _named(text: str, name: str = "lr.csv") -> io.StringIO:
    f = io.StringIO(text)
    f.name = name
    return f


def test_every_real_file_round_trips_byte_for_byte(shared_data):
    files = sorted(shared_data.glob("label_ranking_cheng_hullermeier/*.csv")) + sorted(
        shared_data.glob("partial_label_ranking_alfaro/*.csv")
    )
    assert len(files) == 36
    for path in files:
        raw = path.read_bytes()
        n, p, k = map(int, raw.split(b"\r\n", 1)[0].split(b","))
        X, Y = read_label_ranking_csv(path)
        assert X.shape == (n, p) and Y.shape == (n, k) and X.dtype == np.float64
        assert Y.kind == "subset" and not Y.is_weighted
        buf = io.BytesIO()
        write_label_ranking_csv(buf, X, Y, float_format="%.5f", lineterminator="\r\n")
        assert buf.getvalue() == raw, path.name
        if "partial" not in str(path):
            assert Y.is_complete  # PROVENANCE.md: full permutations, no ties


def test_default_writer_is_lossless(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 3)) * 10.0 ** rng.integers(-8, 8, size=(20, 3))
    X[0, 0] = -0.0
    X[1, 1] = np.nan
    Y = Rankings.from_ranks(rng.integers(0, 4, size=(20, 4)))
    path = tmp_path / "x.csv"
    write_label_ranking_csv(path, X, Y)
    X2, Y2 = read_label_ranking_csv(path)
    np.testing.assert_array_equal(X2, X)  # NaN == NaN for assert_array_equal
    assert np.signbit(X2[0, 0])
    assert Y2 == Y


def test_gzip(tmp_path):
    X = np.array([[0.5, 1.0]])
    Y = Rankings.from_ranks([[2, 1, 3]])
    path = tmp_path / "x.csv.gz"
    write_label_ranking_csv(path, X, Y)
    assert gzip.decompress(path.read_bytes()) == b"1,2,3\n0.5,1.0,2,1,3\n"
    X2, Y2 = read_label_ranking_csv(path)
    np.testing.assert_array_equal(X2, X)
    assert Y2 == Y


def test_missing_ranks_and_ties():
    text = "4,1,3\n0.0,1,2,3\n1.0,2,0,1\n2.0,,1,nan\n3.0,1,1,2\n"
    X, Y = read_label_ranking_csv(io.StringIO(text))
    np.testing.assert_array_equal(X.ravel(), [0, 1, 2, 3])
    np.testing.assert_array_equal(Y.ranks, [[0, 1, 2], [1, -1, 0], [-1, 0, -1], [0, 0, 1]])
    assert read_label_ranking_csv(io.StringIO(text), kind="top")[1].kind == "top"


def test_no_features():
    X, Y = read_label_ranking_csv(io.StringIO("1,0,2\n2,1\n"))
    assert X.shape == (1, 0)
    np.testing.assert_array_equal(Y.ranks, [[1, 0]])


@pytest.mark.parametrize(
    ("text", "line", "fragment"),
    [
        ("3,1,2\n0.5,1,2\n0.1,2,1\n", 1, "the header declares 3 rows but the file has 2"),
        ("1,1,2\n0.5,1,2\n0.1,2,1\n", 1, "the header declares 1 rows but the file has 2"),
        ("2,1,2\n0.5,1,2\n0.1,2\n", 3, "2 fields, expected 3 (1 features + 2 ranks)"),
        ("2,1,2\n0.5,1,2\n0.1,2,1,4\n", 3, "4 fields, expected 3"),
        ("2,1,2\n0.5,1,2\nabc,2,1\n", 3, "field 1 ('abc') is not a number"),
        ("2,1,2\n0.5,1,2\n0.1,2,x\n", 3, "field 3 ('x') is not a number"),
        ("2,1,2\n0.5,1,-1\n0.1,2,1\n", 2, "rank '-1' of label 2 is not an integer in 0..2"),
        ("2,1,2\n0.5,1,2\n0.1,1.5,1\n", 3, "rank '1.5' of label 1"),
        ("2,1,2\n0.5,1,3\n0.1,2,1\n", 2, "rank '3' of label 2"),
        ("2,1,2\n0.5,1,2\n0.1,inf,1\n", 3, "rank 'inf'"),
        ("n,p,k\n0.5,1,2\n", 1, "expected the header 'n_samples,n_features,n_labels'"),
        ("2,1\n0.5,1,2\n", 1, "expected the header"),
        ("2,1,-2\n0.5,1,2\n", 1, "expected the header"),
    ],
)
def test_malformed_line_is_named(text, line, fragment):
    with pytest.raises(DataFormatError) as err:
        read_label_ranking_csv(_named(text))
    assert isinstance(err.value, ValueError)
    assert err.value.line == line
    assert fragment in str(err.value)
    assert str(err.value).startswith(f"lr.csv, line {line}: ")


def test_binary_garbage_and_wrong_encoding():
    with pytest.raises(DataFormatError, match="line 3: cannot decode"):
        read_label_ranking_csv(io.BytesIO(b"2,1,2\n0.5,1,2\n\xff\xd8\xff\xe0,1,2\n"))
    with pytest.raises(DataFormatError, match=r"line 2: field 1 .* is not a number"):
        read_label_ranking_csv(io.BytesIO(b"1,1,2\n\x00\x01,1,2\n"))
    with pytest.raises(DataFormatError, match="empty file"):
        read_label_ranking_csv(io.StringIO(""))


def test_not_strict_skips_and_reports():
    text = "5,1,2\n0.5,1,2\nbad,1,2\n0.2,2,1\n0.3,7,1\n0.4,1\n"
    with pytest.warns(MalformedLinesWarning) as rec:
        X, Y = read_label_ranking_csv(io.StringIO(text), strict=False)
    skipped = next(w.message for w in rec if isinstance(w.message, MalformedLinesWarning)).skipped
    assert [s.line for s in skipped] == [3, 5, 6]
    np.testing.assert_array_equal(X.ravel(), [0.5, 0.2])
    np.testing.assert_array_equal(Y.to_ranks(), [[1, 2], [2, 1]])
    # the header says 5 rows and 5 were in the file: no count warning, only the skipped lines
    assert len(rec) == 1


def test_not_strict_count_mismatch_warns():
    with pytest.warns(UserWarning, match="declares 3 rows but the file has 1"):
        X, _ = read_label_ranking_csv(io.StringIO("3,1,2\n0.5,1,2\n"), strict=False)
    assert X.shape == (1, 1)


def test_writer_checks_shapes():
    with pytest.raises(ValueError, match="X has 2 rows but Y has 1"):
        write_label_ranking_csv(io.StringIO(), [[0.0], [1.0]], [[1, 2]])
    with pytest.raises(ValueError, match="X must be 2-d"):
        write_label_ranking_csv(io.StringIO(), [0.0], [[1, 2]])


@settings(max_examples=50, deadline=None)
@given(
    data=st.data(),
    n=st.integers(0, 6),
    p=st.integers(0, 4),
    k=st.integers(1, 5),
)
def test_round_trip_property(data, n, p, k):
    X = data.draw(
        hnp.arrays(np.float64, (n, p), elements=st.floats(allow_nan=True, allow_infinity=True))
    )
    ranks = data.draw(hnp.arrays(np.int64, (n, k), elements=st.integers(0, k)))
    Y = Rankings.from_ranks(ranks)
    buf = io.StringIO()
    write_label_ranking_csv(buf, X, Y)
    X2, Y2 = read_label_ranking_csv(io.StringIO(buf.getvalue()))
    np.testing.assert_array_equal(X2, X)
    assert Y2 == Y

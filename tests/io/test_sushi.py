"""Tests of rankclust.io.sushi. The SUSHI files are read from ../shared/data, never copied."""

from __future__ import annotations

import io

import numpy as np
import pytest

from rankclust.io import DataFormatError, MalformedLinesWarning
from rankclust.io.sushi import (
    SUSHI_ITEM_FEATURES,
    SUSHI_USER_FEATURES,
    read_sushi_idata,
    read_sushi_order,
    read_sushi_udata,
)


def _named(text: str, name: str = "s.order") -> io.StringIO:
    f = io.StringIO(text)
    f.name = name
    return f


def _reference_order(path):
    """Plain-Python reading of the format in README-en.txt (for comparison)."""
    lines = path.read_text().splitlines()
    m = int(lines[0].split()[0])
    out = []
    for line in lines[1:]:
        v = [int(t) for t in line.split()]
        assert v[0] == 0 and v[1] == len(v) - 2
        out.append(v[2:])
    return m, out


@pytest.mark.parametrize(
    ("fname", "m"), [("sushi3a.5000.10.order", 10), ("sushi3b.5000.10.order", 100)]
)
def test_real_order_files(shared_data, fname, m):
    path = shared_data / "sushi3" / fname
    R = read_sushi_order(path)
    assert R.shape == (5000, m) and R.kind == "subset"
    assert (R.lengths == 10).all() and not R.has_ties.any()
    m_ref, orders = _reference_order(path)
    assert m_ref == m
    assert R.to_orderings() == orders
    if m == 10:
        assert R.is_complete


def test_real_udata_and_idata(shared_data):
    ids, X = read_sushi_udata(shared_data / "sushi3" / "sushi3.udata")
    assert ids.shape == (5000,) and X.shape == (5000, len(SUSHI_USER_FEATURES))
    assert ids[0] == 6371 and X[0].tolist() == [0, 2, 355, 0, 0, 0, 0, 0, 0, 0]
    assert set(np.unique(X[:, 0])) <= {0, 1}  # gender
    assert X[:, 1].max() <= 5  # age class
    assert set(np.unique(X[:, -1])) <= {0, 1}
    # "moved" is 0 exactly when the two prefectures agree (README-en.txt, feature 11)
    np.testing.assert_array_equal(X[:, -1], (X[:, 3] != X[:, 6]).astype(np.int64))
    item_ids, names, F = read_sushi_idata(shared_data / "sushi3" / "sushi3.idata")
    assert item_ids.tolist() == list(range(100)) and len(names) == 100
    assert F.shape == (100, len(SUSHI_ITEM_FEATURES))
    assert names[0] == "えび"  # ebi
    assert set(np.unique(F[:, 0])) <= {0.0, 1.0}


def test_small_order_file():
    R = read_sushi_order(io.StringIO("5 1\n0 3 4 0 2\n0 2 1 3\n"), items=list("abcde"))
    np.testing.assert_array_equal(R.ranks, [[1, -1, 2, -1, 0], [-1, 0, -1, 1, -1]])
    assert R.items == tuple("abcde")
    assert read_sushi_order(io.StringIO("2 1\n0 2 1 0\n"), kind="top").kind == "top"


@pytest.mark.parametrize(
    ("text", "line", "fragment"),
    [
        ("10\n0 1 3\n", 1, "expected the header '<n_items> 1'"),
        ("x 1\n0 1 3\n", 1, "expected the header"),
        ("4 1\n0 2 1 2\n0 3 1 2\n", 3, "declares 3 items but lists 2"),
        ("4 1\n0 2 1 2 3\n", 2, "declares 2 items but lists 3"),
        ("4 1\n0 2 1 4\n", 2, "item 4 is out of range 0..3"),
        ("4 1\n0 2 1 1\n", 2, "an item appears more than once"),
        ("4 1\n0 2 1 a\n", 2, "not a non-negative integer"),
        ("4 1\n0 2 1 -3\n", 2, "not a non-negative integer"),
        ("4 1\n0\n", 2, "declares no items"),
    ],
)
def test_malformed_order_line(text, line, fragment):
    with pytest.raises(DataFormatError) as err:
        read_sushi_order(_named(text))
    assert err.value.line == line
    assert fragment in str(err.value)
    assert str(err.value).startswith(f"s.order, line {line}: ")


def test_order_binary_garbage_and_empty():
    with pytest.raises(DataFormatError, match="line 3: cannot decode"):
        read_sushi_order(io.BytesIO(b"4 1\n0 1 2\n\x93\xff\x00\n"))
    with pytest.raises(DataFormatError, match="empty file"):
        read_sushi_order(io.BytesIO(b""))


def test_order_not_strict():
    text = "4 1\n0 2 1 2\n0 2 1 9\n0 1 3\n0 2 0 0\n"
    with pytest.warns(MalformedLinesWarning) as rec:
        R = read_sushi_order(io.StringIO(text), strict=False)
    assert [s.line for s in rec[0].message.skipped] == [3, 5]
    assert R.to_orderings() == [[1, 2], [3]]


def test_udata_malformed(tmp_path):
    good = "\t".join(["7"] + ["0"] * 10)
    p = tmp_path / "u.udata"
    p.write_text(good + "\n" + "\t".join(["8"] + ["0"] * 9) + "\n")
    with pytest.raises(DataFormatError, match=r"u\.udata, line 2: 10 TAB-separated fields"):
        read_sushi_udata(p)
    p.write_text(good + "\n" + good.replace("7", "x") + "\n")
    with pytest.raises(DataFormatError, match="line 2: a field is not"):
        read_sushi_udata(p)
    with pytest.warns(MalformedLinesWarning):
        ids, X = read_sushi_udata(p, strict=False)
    assert ids.tolist() == [7] and X.shape == (1, 10)


def test_idata_small_and_malformed():
    row0 = "0\tebi\t1\t0\t6\t2.7\t2.1\t1.8\t0.84"
    row1 = "1\tanago\t1\t0\t3\t0.9\t1.9\t1.9\t0.88"
    ids, names, F = read_sushi_idata(io.StringIO(f"#comment\n\n{row0}\n{row1}\n"))
    assert ids.tolist() == [0, 1] and names == ["ebi", "anago"] and F[1, 3] == 0.9
    with pytest.raises(DataFormatError, match="line 2: item ID '5' is not 1"):
        read_sushi_idata(io.StringIO(f"{row0}\n{row1.replace('1', '5', 1)}\n"))
    with pytest.raises(DataFormatError, match="line 1: a feature is not a number"):
        read_sushi_idata(io.StringIO(row0.replace("2.7", "heavy") + "\n"))
    with pytest.warns(MalformedLinesWarning):
        ids, names, F = read_sushi_idata(
            io.StringIO(f"{row0.replace('2.7', 'x')}\n{row1}\n"), strict=False
        )
    assert ids.tolist() == [1] and names == ["anago"]

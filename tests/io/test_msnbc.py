"""Tests of rankclust.io.msnbc: first-visit chains from page-category sequences."""

from __future__ import annotations

import io

import numpy as np
import pytest

from rankclust import Rankings
from rankclust.io import DataFormatError, MalformedLinesWarning
from rankclust.io.msnbc import read_msnbc

HEAD = (
    "% Different categories found in input file:\r\n\r\na b c d\r\n\r\n\r\n"
    "% Sequences:\r\n\r\n"
)  # 7 lines: the first sequence is on line 8


def _reference(lines: list[str], m: int) -> Rankings:
    """Plain-Python first-visit orders (duplicates removed), for comparison."""
    orders = []
    for line in lines:
        toks = [int(t) - 1 for t in line.split()]
        if toks:
            orders.append(list(dict.fromkeys(toks)))
    return Rankings.from_orderings(orders, n_items=m)


def test_small_file_matches_reference():
    seqs = ["1 1 ", "2 ", "3 2 2 4 2 2 2 3 3 ", "4 4 1 3 2 ", "1"]
    R = read_msnbc(io.StringIO(HEAD + "\r\n".join(seqs)))
    assert R.items == ("a", "b", "c", "d") and R.kind == "subset"
    assert R == _reference(seqs, 4).with_kind("subset")._replace(items=R.items)
    np.testing.assert_array_equal(R.ranks[2], [-1, 1, 0, 2])


def test_max_rows_and_blank_lines():
    seqs = ["1 2", "", "3", "4 1", "2"]
    R = read_msnbc(io.BytesIO((HEAD + "\n".join(seqs) + "\n").encode()), max_rows=3)
    assert R.to_orderings() == [[0, 1], [2], [3, 0]]
    assert read_msnbc(io.StringIO(HEAD + "1\n"), max_rows=0).shape == (0, 4)
    with pytest.raises(ValueError, match="max_rows"):
        read_msnbc(io.StringIO(HEAD), max_rows=-1)


def test_real_file_prefix(shared_data):
    path = shared_data / "msnbc" / "msnbc990928.seq"
    R = read_msnbc(path, max_rows=20000)
    assert R.shape == (20000, 17)
    assert R.items[0] == "frontpage" and R.items[16] == "travel"
    with open(path, newline="") as f:
        lines = f.read().split("\r\n")[7 : 7 + 20000]
    ref = _reference(lines, 17)
    np.testing.assert_array_equal(R.ranks, ref.ranks)


@pytest.mark.slow
def test_real_file_complete(shared_data):
    R = read_msnbc(shared_data / "msnbc" / "msnbc990928.seq")
    assert R.shape == (989818, 17)  # PROVENANCE.md: 989,818 sequences, 17 categories
    assert R.lengths.min() >= 1 and R.lengths.max() == 17


@pytest.mark.parametrize(
    ("body", "line", "fragment"),
    [
        ("1 2\n5 1\n", 9, "'5' is not a category code 1..4"),
        ("1 2\n0\n", 9, "'0' is not a category code"),
        ("1 x 2\n", 8, "'x' is not a category code"),
        ("1 2\n3 -1\n", 9, "'-1' is not a category code"),
        ("1 2\n3 1.5\n", 9, "'1.5'"),
        ("1 2\n\xff\x00\n", 9, "is not a category code"),
    ],
)
def test_malformed_line_is_named(body, line, fragment):
    data = HEAD.replace("\r\n", "\n").encode() + body.encode("latin-1")
    f = io.BytesIO(data)
    f.name = "m.seq"
    with pytest.raises(DataFormatError) as err:
        read_msnbc(f)
    assert err.value.line == line
    assert fragment in str(err.value)
    assert str(err.value).startswith(f"m.seq, line {line}: ")


def test_not_strict_skips_and_reports():
    body = "1 2\n9\n3\nz 1\n4\n"
    with pytest.warns(MalformedLinesWarning) as rec:
        R = read_msnbc(io.StringIO(HEAD.replace("\r\n", "\n") + body), strict=False)
    assert [s.line for s in rec[0].message.skipped] == [9, 11]
    assert R.to_orderings() == [[0, 1], [2], [3]]


def test_not_an_msnbc_file():
    with pytest.raises(DataFormatError, match="not an MSNBC"):
        read_msnbc(io.StringIO("1 2 3\n"))
    with pytest.raises(DataFormatError, match="no category names"):
        read_msnbc(io.StringIO("% x\n% Sequences:\n1\n"))

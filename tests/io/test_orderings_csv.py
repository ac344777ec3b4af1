"""Tests of rankclust.io.orderings_csv: CSV files of orderings and of rank vectors."""

from __future__ import annotations

import io

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankclust import Rankings
from rankclust.io import DataFormatError, MalformedLinesWarning
from rankclust.io.orderings_csv import (
    read_orderings_csv,
    read_rankcluster_csv,
    read_ranks_csv,
    write_orderings_csv,
    write_rankcluster_csv,
    write_ranks_csv,
)


def _named(text: str, name: str = "o.csv") -> io.StringIO:
    f = io.StringIO(text)
    f.name = name
    return f


# ------------------------------------------------------------------------------------ real data
def test_every_real_orderings_file_round_trips(shared_data):
    files = sorted(shared_data.glob("*/*_orderings.csv"))
    assert len(files) == 8
    for path in files:
        R = read_orderings_csv(path)
        assert R.kind == "top" and not R.has_ties.any()
        buf = io.StringIO()
        write_orderings_csv(R, buf)
        assert buf.getvalue() == path.read_text(), path.name
        assert read_orderings_csv(io.StringIO(buf.getvalue())) == R


def test_apa_1980_counts(shared_data):
    R = read_orderings_csv(shared_data / "apa_1980" / "d_apa_orderings.csv")
    assert R.shape == (15449, 5)
    # PROVENANCE.md: 5,141 name 1 candidate, 2,462 name 2, 2,108 name 3, 5,738 complete
    assert np.bincount(R.lengths).tolist() == [0, 5141, 2462, 2108, 0, 5738]
    # APA_rankings.csv holds the complete rows (in another row order), in ordering notation
    # despite its header (PROVENANCE.md warning)
    complete = read_orderings_csv(shared_data / "apa_1980" / "APA_rankings.csv")
    assert complete.unique()[0] == R[R.lengths == 5].unique()[0]


def test_every_real_rankcluster_file_round_trips(shared_data):
    files = sorted(shared_data.glob("rankcluster_misc/*_rankings.csv"))
    assert len(files) == 5
    for path in files:
        dims = read_rankcluster_csv(path)
        buf = io.StringIO()
        write_rankcluster_csv(dims, buf)
        assert buf.getvalue() == path.read_text(), path.name
    eurovision = read_rankcluster_csv(shared_data / "rankcluster_misc/eurovision_rankings.csv")
    assert len(eurovision) == 6 and all(d.shape == (34, 8) for d in eurovision)
    assert sum(int((d.ranks < 0).sum()) for d in eurovision) == 941  # PROVENANCE.md: 941 zeros
    big4 = read_rankcluster_csv(shared_data / "rankcluster_misc/big4_rankings.csv")
    assert big4[0].has_ties.sum() == 2  # "1,4,2,2" and "1,2,2,4"


def test_single_dimension_ranks_file_round_trips(shared_data):
    for name in ("sports", "words"):
        path = shared_data / "rankcluster_misc" / f"{name}_rankings.csv"
        R = read_ranks_csv(path)
        assert R.items[0] == "dim1_obj1"
        buf = io.StringIO()
        write_ranks_csv(R, buf)
        assert buf.getvalue() == path.read_text()


# ---------------------------------------------------------------------------------- orderings
def test_orderings_details():
    R = read_orderings_csv(io.StringIO("3,1,0\n2,,NA\n"), items=["a", "b", "c"])
    np.testing.assert_array_equal(R.ranks, [[1, -1, 0], [-1, 0, -1]])
    assert R.items == ("a", "b", "c")
    R0 = read_orderings_csv(io.StringIO("2 0 -1\n"), one_based=False, missing=-1, delimiter=" ")
    np.testing.assert_array_equal(R0.ranks, [[1, -1, 0]])
    wide = read_orderings_csv(io.StringIO("5,1\n"), n_items=6, kind="subset")
    assert wide.shape == (1, 6) and wide.kind == "subset"


@pytest.mark.parametrize(
    ("text", "line", "fragment"),
    [
        ("Rank_1,Rank_2\n1,2\n2,2\n", 3, "an item appears more than once"),
        ("Rank_1,Rank_2\n1,2\n3,1\n", 3, "item 3 is out of range 1..2"),
        ("Rank_1,Rank_2\n0,2\n", 2, "a filled position follows an unfilled one"),
        ("Rank_1,Rank_2\n1,2\n1\n", 3, "1 fields, expected 2"),
        ("Rank_1,Rank_2\n1,b\n", 2, "field 2 ('b') is not a non-negative integer"),
        ("Rank_1,Rank_2\n1,1.5\n", 2, "field 2 ('1.5')"),
        ("Rank_1,Rank_2\n1,-2\n", 2, "field 2 ('-2')"),
    ],
)
def test_malformed_orderings(text, line, fragment):
    with pytest.raises(DataFormatError) as err:
        read_orderings_csv(_named(text))
    assert err.value.line == line
    assert fragment in str(err.value)
    assert str(err.value).startswith(f"o.csv, line {line}: ")


def test_orderings_binary_garbage():
    with pytest.raises(DataFormatError, match="line 2: cannot decode"):
        read_orderings_csv(io.BytesIO(b"1,2\n\xff\xfe,1\n"))


def test_orderings_not_strict():
    text = "R1,R2\n1,2\n2,2\nx,1\n2,1\n"
    with pytest.warns(MalformedLinesWarning) as rec:
        R = read_orderings_csv(io.StringIO(text), strict=False)
    assert [s.line for s in rec[0].message.skipped] == [3, 4]
    assert R.to_orderings() == [[0, 1], [1, 0]]


def test_write_orderings_errors_and_header():
    with pytest.raises(ValueError, match="row 0 has ties"):
        write_orderings_csv(Rankings([[0, 0]]), io.StringIO())
    with pytest.raises(ValueError, match="row 0 ranks 2 items, more than 1 positions"):
        write_orderings_csv(Rankings([[0, 1]]), io.StringIO(), n_positions=1)
    buf = io.StringIO()
    write_orderings_csv(Rankings([[1, 0, -1]]), buf, header=["a", "b"], n_positions=2)
    assert buf.getvalue() == "a,b\n2,1\n"
    buf = io.StringIO()
    write_orderings_csv(Rankings([[1, 0]]), buf, header=False, one_based=False)
    assert buf.getvalue() == "1,0\n"


@settings(max_examples=50, deadline=None)
@given(st.data())
def test_orderings_round_trip_property(data):
    m = data.draw(st.integers(1, 7))
    n = data.draw(st.integers(0, 6))
    rows = []
    for _ in range(n):
        perm = data.draw(st.permutations(range(m)))
        rows.append(perm[: data.draw(st.integers(0, m))])
    kind = data.draw(st.sampled_from(["top", "subset"]))
    R = Rankings.from_orderings(rows, n_items=m, kind=kind)
    buf = io.StringIO()
    write_orderings_csv(R, buf)
    assert read_orderings_csv(io.StringIO(buf.getvalue()), kind=kind, n_items=m) == R


# -------------------------------------------------------------------------------------- ranks
def test_ranks_details():
    R = read_ranks_csv(io.StringIO("a,b,c\n2,1,0\n1,3,1\n"))
    assert R.items == ("a", "b", "c")
    np.testing.assert_array_equal(R.ranks, [[1, 0, -1], [0, 1, 0]])
    # competition and dense tie notation give the same ranking
    assert read_ranks_csv(io.StringIO("1,4,2,2\n")) == read_ranks_csv(io.StringIO("1,3,2,2\n"))
    assert read_ranks_csv(io.StringIO("1,2\n")).items is None


def test_min_tie_ranks():
    R = Rankings([[0, 1, 1, 2], [1, 0, -1, 1]])
    buf = io.StringIO()
    write_ranks_csv(R, buf, header=False, ties="min")
    assert buf.getvalue() == "1,2,2,4\n2,1,0,2\n"
    buf = io.StringIO()
    write_ranks_csv(R, buf, header=False)
    assert buf.getvalue() == "1,2,2,3\n2,1,0,2\n"
    with pytest.raises(ValueError, match="ties must be"):
        write_ranks_csv(R, io.StringIO(), ties="max")


def test_malformed_ranks():
    with pytest.raises(DataFormatError, match="line 2: rank 0: ranks start at 1"):
        read_ranks_csv(_named("1,2\n0,1\n"), missing=-1)
    with pytest.raises(DataFormatError, match="line 1: column 'x' is not of the form"):
        read_rankcluster_csv(_named("x,dim1_obj2\n1,2\n"))


@settings(max_examples=50, deadline=None)
@given(st.data())
def test_ranks_round_trip_property(data):
    m = data.draw(st.integers(1, 6))
    n = data.draw(st.integers(0, 6))
    ranks = [data.draw(st.lists(st.integers(-1, m - 1), min_size=m, max_size=m)) for _ in range(n)]
    R = Rankings(np.array(ranks, dtype=np.int64).reshape(n, m), items=[f"i{j}" for j in range(m)])
    for ties in ("dense", "min"):
        buf = io.StringIO()
        write_ranks_csv(R, buf, ties=ties)
        assert read_ranks_csv(io.StringIO(buf.getvalue()), header=True) == R
    dims = [R, R.with_kind("subset")]
    buf = io.StringIO()
    write_rankcluster_csv(dims, buf)
    back = read_rankcluster_csv(io.StringIO(buf.getvalue()))
    assert [np.array_equal(b.ranks, R.ranks) for b in back] == [True, True]

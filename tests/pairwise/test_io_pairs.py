"""Readers of pairwise comparisons: layouts, bad lines named by file and line, limits."""

from __future__ import annotations

import gzip
import io
import itertools
import warnings

import numpy as np
import pytest

from rankclust.io import (
    DataFormatError,
    MalformedLinesWarning,
    read_bayesmallows_pairs,
    read_pairs_csv,
)
from rankclust.pairwise import BradleyTerry


def test_read_pairs_csv_all_columns(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text(
        "assessor,winner,loser,count,tie\nann,x,y,2,0\nbob,y,z,1,1\nann,z,x,0.5,false\n"
    )
    C = read_pairs_csv(path)
    assert C.items == ("x", "y", "z") and C.assessors == ("ann", "bob")
    assert C.winner.tolist() == [0, 1, 2] and C.loser.tolist() == [1, 2, 0]
    assert C.assessor.tolist() == [0, 1, 0]
    assert C.count.tolist() == [2.0, 1.0, 0.5] and C.tie.tolist() == [False, True, False]


def test_numeric_labels_sort_numerically_and_gzip_is_read(tmp_path):
    path = tmp_path / "p.csv.gz"
    with gzip.open(path, "wt") as f:
        f.write("winner,loser\n10,2\n2.0,1\n")
    C = read_pairs_csv(path)
    assert C.items == ("1", "2", "10")
    assert C.winner.tolist() == [2, 1] and not C.has_assessors


def test_given_items_fix_the_numbering():
    C = read_pairs_csv(io.StringIO("winner,loser\nb,a\n"), items=["a", "b", "c"])
    assert C.n_items == 3 and C.winner.tolist() == [1]
    with pytest.raises(DataFormatError, match=r"line 2: item 'd' is not in items"):
        read_pairs_csv(io.StringIO("winner,loser\nd,a\n"), items=["a", "b"])


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("winner,loser\na,b\na,a\n", r"p\.csv, line 3: item 'a' is compared with itself"),
        ("winner,loser\na,b\na\n", r"p\.csv, line 3: 1 fields, expected 2"),
        ("winner,loser,count\na,b,x\n", r"p\.csv, line 2: count 'x' is not a number"),
        ("winner,loser,count\na,b,-1\n", r"p\.csv, line 2: count '-1' is not a positive"),
        ("winner,loser,tie\na,b,maybe\n", r"p\.csv, line 2: tie flag 'maybe'"),
        ("win,lose\na,b\n", r"p\.csv, line 1: the header has no column 'winner'"),
        ("winner,loser\n", r"p\.csv: no comparisons"),
    ],
)
def test_bad_lines_name_file_and_line(tmp_path, text, message):
    path = tmp_path / "p.csv"
    path.write_text(text)
    with pytest.raises(DataFormatError, match=message):
        read_pairs_csv(path)


def test_non_strict_skips_and_reports_every_bad_line(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text("winner,loser\na,b\na,a\nb,c\nc\n")
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        C = read_pairs_csv(path, strict=False)
    assert C.n_comparisons == 2
    (w,) = [r.message for r in rec if isinstance(r.message, MalformedLinesWarning)]
    assert [s.line for s in w.skipped] == [3, 5]


def test_limits_refuse_too_many_rows_and_items(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text("winner,loser\n" + "".join(f"{i},{i + 1}\n" for i in range(10)))
    with pytest.raises(DataFormatError, match=r"p\.csv, line 7: reaches 6 data rows.*max_rows=5"):
        read_pairs_csv(path, limits={"max_rows": 5})
    with pytest.raises(DataFormatError, match=r"uses 11 items.*max_items=10"):
        read_pairs_csv(path, limits={"max_items": 10})


def test_bayesmallows_layout_top_item_wins():
    text = "assessor,bottom_item,top_item\n1.0,2.0,15.0\n1.0,5.0,3.0\n2.0,15.0,2.0\n"
    C = read_bayesmallows_pairs(io.StringIO(text))
    assert C.items == ("2", "3", "5", "15") and C.assessors == ("1", "2")
    names = [
        (C.item_name(int(w)), C.item_name(int(lo)))
        for w, lo in zip(C.winner, C.loser, strict=True)
    ]
    assert names == [("15", "2"), ("3", "5"), ("2", "15")]
    with pytest.raises(DataFormatError, match=r"line 1: the header has no column 'assessor'"):
        read_bayesmallows_pairs(io.StringIO("bottom_item,top_item\n1,2\n"))


def test_beach_and_sounds_read_and_close(shared_data):
    DATA = shared_data / "bayesmallows_misc"
    beach = read_bayesmallows_pairs(DATA / "beach_preferences.csv")
    assert (beach.n_comparisons, beach.n_items, beach.n_assessors) == (1442, 15, 60)
    cl = beach.closure()
    assert cl.n_intransitive == 0
    sounds = read_bayesmallows_pairs(DATA / "sounds.csv")
    assert (sounds.n_comparisons, sounds.n_items, sounds.n_assessors) == (1380, 12, 46)
    cl = sounds.closure()
    assert cl.n_intransitive > 0  # the data are documented as non-transitive
    for a, cycle in cl.intransitive.items():
        rows = sounds.assessor == a
        stated = set(zip(sounds.winner[rows].tolist(), sounds.loser[rows].tolist(), strict=True))
        assert all((u, v) in stated for u, v in itertools.pairwise(cycle))
    assert np.isfinite(BradleyTerry().fit(sounds).scores_).all()

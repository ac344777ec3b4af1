"""read_rankings: format detection, encodings, refusals, the read report (rankclust.io.auto)."""

from __future__ import annotations

import codecs
import gzip
import warnings
from pathlib import Path

import numpy as np
import pytest

from rankclust import Rankings
from rankclust.io import (
    FORMATS,
    DataFormatError,
    MalformedLinesWarning,
    read_item_names,
    read_label_rankings,
    read_numeric_csv,
    read_rankings,
    write_label_ranking_csv,
    write_orderings_csv,
    write_preflib,
    write_ranks_csv,
)


def _data(shared_data: Path, rel: str) -> Path:
    path = shared_data / rel
    if not path.exists():
        pytest.skip(f"{rel} is not in ../shared/data")
    return path


def _write(tmp_path, name, text, encoding="utf-8"):
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode(encoding))
    return path


def _one_line(exc: pytest.ExceptionInfo, *fragments: str) -> str:
    msg = str(exc.value)
    assert "\n" not in msg, msg
    for f in fragments:
        assert f in msg, (f, msg)
    return msg


# ---------------------------------------------------------------------------- PrefLib
def test_preflib_by_suffix_and_by_content(tmp_path):
    R = Rankings.from_orderings([[0, 1], [2], [1, 0, 2]], n_items=3, kind="top", items="xyz")
    write_preflib(R, tmp_path / "a.soi")
    P, rep = read_rankings(tmp_path / "a.soi", return_report=True)
    assert rep.format == "preflib" and rep.detected_by == "suffix .soi"
    assert P.items == ("x", "y", "z") and P.kind == "top"
    np.testing.assert_array_equal(P.ranks, R.ranks)
    (tmp_path / "a.txt").write_bytes((tmp_path / "a.soi").read_bytes())
    Q, rep = read_rankings(tmp_path / "a.txt", return_report=True)
    assert rep.format == "preflib" and rep.detected_by == "content"
    np.testing.assert_array_equal(Q.ranks, R.ranks)


def test_preflib_without_names_is_numbered_and_gzip_is_read(tmp_path):
    text = "# DATA TYPE: toc\n# NUMBER ALTERNATIVES: 3\n2: 1,{2,3}\n1: 3,2,1\n"
    path = tmp_path / "t.toc.gz"
    path.write_bytes(gzip.compress(text.encode()))
    R, rep = read_rankings(path, return_report=True)
    assert R.items == ("1", "2", "3") and R.has_ties.tolist() == [True, False]
    assert rep.n_ballots == 3 and rep.n_rows_read == 2


# ---------------------------------------------------------------------------- Kamishima
KAMISHIMA = "4 1\n0 4 3 1 0 2\n0 4 0 1 2 3\n0 4 2 3 1 0\n"


@pytest.mark.parametrize("name", ["s.order", "s.txt", "s.csv"])
def test_kamishima_by_suffix_or_content(tmp_path, name):
    R, rep = read_rankings(_write(tmp_path, name, KAMISHIMA), return_report=True)
    assert rep.format == "kamishima"
    assert R.shape == (3, 4) and R.items == ("0", "1", "2", "3") and R.kind == "subset"
    assert R.to_orderings()[0] == [3, 1, 0, 2]


def test_sushi_features_are_refused_as_rankings(tmp_path):
    path = _write(tmp_path, "sushi3.udata", "6371\t0\t2\t355\t0\t0\t0\t0\t0\t0\t0\n")
    with pytest.raises(DataFormatError) as exc:
        read_rankings(path)
    _one_line(exc, "sushi3.udata", "not rankings", "read_sushi_udata")


def test_real_sushi_order_is_5000_rankings_over_10_items(shared_data):
    R, rep = read_rankings(_data(shared_data, "sushi3/sushi3a.5000.10.order"), return_report=True)
    assert R.shape == (5000, 10) and rep.format == "kamishima"
    assert (rep.n_rows_read, rep.n_rows_used, rep.refused) == (5000, 5000, ())
    assert (R.lengths == 10).all()


# ---------------------------------------------------------------------------- orderings
@pytest.mark.parametrize("sep", [",", ";", "\t", " ", "  "])
def test_orderings_any_separator(tmp_path, sep):
    rows = [["Rank_1", "Rank_2", "Rank_3"], ["3", "1", "2"], ["2", "1", "0"]]
    numeric = read_rankings(_write(tmp_path, "n.csv", "\n".join(sep.join(r) for r in rows)))
    assert numeric.to_orderings() == [[2, 0, 1], [1, 0]]
    named = read_rankings(_write(tmp_path, "a.csv", f"b{sep}a{sep}c\nc{sep}a\na\n"))
    assert named.items == ("b", "a", "c")
    assert named.to_orderings() == [[0, 1, 2], [2, 1], [1]]


def test_space_separated_names_are_one_item_per_token(tmp_path):
    R = read_rankings(_write(tmp_path, "s.txt", "b a c\na b c\nc b a\na c b\n"))
    assert R.items == ("b", "a", "c")
    assert all(" " not in name for name in R.items)
    assert R.to_orderings()[1] == [1, 0, 2]


def test_semicolon_file_is_not_one_item_rankings(tmp_path):
    R = read_rankings(_write(tmp_path, "s.csv", "Alice;Bob;Carol\nBob;Alice;Carol\nCarol;Bob\n"))
    assert R.shape == (3, 3) and R.lengths.tolist() == [3, 3, 2]


def test_leading_blank_line_does_not_turn_a_header_into_a_ballot(tmp_path):
    R, rep = read_rankings(
        _write(tmp_path, "h.csv", "\n\nRank_1,Rank_2,Rank_3\n1,2,3\n3,2,1\n"), return_report=True
    )
    assert R.shape == (2, 3) and rep.n_rows_read == 2
    assert "line 3 is a header of positions" in rep.notes
    S = read_rankings(_write(tmp_path, "n.csv", "\nred,green,blue\n1,2,3\n3,1,2\n"))
    assert S.items == ("red", "green", "blue") and S.shape == (2, 3)


def test_ragged_orderings_are_top_lists(tmp_path):
    R = read_rankings(_write(tmp_path, "r.csv", "5,2\n1,2,3,4\n3\n"))
    assert R.n_items == 5 and R.kind == "top" and R.lengths.tolist() == [2, 4, 1]


def test_orderings_by_row_content_when_ranks_impossible(tmp_path):
    # "3,1,0": ranks {1, 3} skip rank 2, so the rows must be orderings
    R, rep = read_rankings(_write(tmp_path, "o.csv", "3,1,0\n2,3,1\n"), return_report=True)
    assert rep.format == "orderings" and R.to_orderings() == [[2, 0], [1, 2, 0]]
    # "1,1,2": item 1 twice, so rank vectors (with a tie)
    T, rep = read_rankings(_write(tmp_path, "t.csv", "1,1,2\n2,1,3\n"), return_report=True)
    assert rep.format == "ranks" and T.has_ties.tolist() == [True, False]


def test_round_trip_of_the_writers(tmp_path):
    R = Rankings.from_orderings([[2, 0], [0, 1, 2, 3], [3]], n_items=4, kind="top")
    write_orderings_csv(R, tmp_path / "o.csv")
    np.testing.assert_array_equal(read_rankings(tmp_path / "o.csv").ranks, R.ranks)
    S = Rankings.from_orderings([[1, (0, 2)], [2, 0, 1]], items="abc")
    write_ranks_csv(S, tmp_path / "r.csv")
    back = read_rankings(tmp_path / "r.csv")
    assert back.items == ("a", "b", "c") and back.kind == "subset"
    np.testing.assert_array_equal(back.ranks, S.ranks)


# ---------------------------------------------------------------------------- rank vectors
def test_ranks_with_row_name_column(tmp_path):
    expected = [[2, 0, 1], [0, 1, 2]]
    for text in (
        ",P1,P2,P3\nA1,3,1,2\nA2,1,2,3\n",  # R write.csv
        "P1 P2 P3\nA1 3 1 2\nA2 1 2 3\n",  # R write.table (no name for the row names)
        "id,P1,P2,P3\n7,3,1,2\n8,1,2,3\n",
    ):
        R, rep = read_rankings(_write(tmp_path, "r.csv", text), return_report=True)
        assert R.items == ("P1", "P2", "P3") and rep.format == "ranks", text
        assert R.ranks.tolist() == expected
        assert "column 1 holds row names" in rep.notes


def test_pandas_numeric_column_labels_are_a_header_not_a_row(tmp_path):
    R = read_rankings(_write(tmp_path, "p.csv", "0,1,2\n1.0,2.0,3.0\n3.0,1.0,2.0\n"))
    assert R.items == ("0", "1", "2") and R.shape == (2, 3)
    # the same numbers written alike are data: three rows
    with pytest.raises(DataFormatError, match="cannot tell"):
        read_rankings(_write(tmp_path, "q.csv", "1,2,3\n1,2,3\n3,1,2\n"))


def test_header_of_names_over_rows_that_are_not_ranks_is_refused(tmp_path):
    path = _write(tmp_path, "h.csv", "a,b,c\n1,2,3\n3,0,0\n")
    with pytest.raises(DataFormatError) as exc:
        read_rankings(path)
    _one_line(exc, "h.csv, line 3", "--format orderings")
    assert read_rankings(path, "orderings").to_orderings() == [[0, 1, 2], [2]]


def test_real_potato_visual_with_and_without_format_ranks(shared_data):
    path = _data(shared_data, "bayesmallows_misc/potato_visual.csv")
    R, rep = read_rankings(path, return_report=True)
    assert R.shape == (12, 20) and rep.format == "ranks" and R.items[0] == "P1"
    assert (R.lengths == 20).all()
    np.testing.assert_array_equal(read_rankings(path, "ranks").ranks, R.ranks)


# ---------------------------------------------------------------------------- label ranking
def test_label_ranking_csv_by_content(tmp_path):
    from rankclust.datasets import load_label_ranking

    X, Y = load_label_ranking("iris")
    write_label_ranking_csv(tmp_path / "iris.csv", X[:30], Y[:30])
    R, rep = read_rankings(tmp_path / "iris.csv", return_report=True)
    assert rep.format == "label-ranking" and R.shape == (30, 3)
    assert R.items == ("label 1", "label 2", "label 3")
    X2, Y2, rep2 = read_label_rankings(tmp_path / "iris.csv", return_report=True)
    np.testing.assert_allclose(X2, X[:30])
    assert rep2.n_rows_used == 30 and Y2.items[0] == "label 1"


def test_integer_ballots_are_not_read_as_label_ranking(tmp_path):
    path = _write(tmp_path, "b.csv", "3,1,2\n1,2,0\n2,1,0\n3,1,2\n")
    with pytest.raises(DataFormatError) as exc:
        read_rankings(path)
    msg = _one_line(exc, "b.csv", "cannot tell", "orderings", "ranks", "--format")
    assert "label-ranking" in msg  # the choices are listed
    R = read_rankings(path, "orderings")
    assert R.shape == (4, 3) and R.to_orderings() == [[2, 0, 1], [0, 1], [1, 0], [2, 0, 1]]
    assert read_rankings(path, "ranks").shape == (4, 3)


def test_label_ranking_header_that_could_be_a_row_is_refused(tmp_path):
    path = _write(tmp_path, "l.csv", "3,1,2\n1,1,2\n2,2,1\n3,1,2\n")
    with pytest.raises(DataFormatError) as exc:
        read_rankings(path)
    _one_line(exc, "l.csv, line 1", "label-ranking header", "--format")
    assert read_rankings(path, "label-ranking").shape == (3, 2)


# ---------------------------------------------------------------------------- uncertain
def test_headerless_permutations_are_refused_listing_the_choices(tmp_path):
    path = _write(tmp_path, "p.csv", "1,2,3\n2,3,1\n3,1,2\n")
    with pytest.raises(DataFormatError) as exc:
        read_rankings(path)
    _one_line(exc, "p.csv", *FORMATS)
    assert read_rankings(path, "orderings").to_orderings()[1] == [1, 2, 0]
    assert read_rankings(path, "ranks").to_orderings()[1] == [2, 0, 1]


def test_neither_orderings_nor_ranks_names_the_line(tmp_path):
    path = _write(tmp_path, "x.csv", "1,2,3\n1,0,2\n2,2,0\n")
    with pytest.raises(DataFormatError) as exc:
        read_rankings(path)
    _one_line(exc, "x.csv, line 2", "not a table of orderings", "line 3")


@pytest.mark.parametrize("n", [5, 40])
def test_one_item_per_row_is_refused_as_a_likely_misread(tmp_path, n):
    path = _write(tmp_path, "m.csv", "".join(f"item_{i}\n" for i in range(n)))
    with pytest.raises(DataFormatError) as exc:
        read_rankings(path)
    _one_line(exc, "m.csv", "likely misread", f"{n} items", "--format")
    assert read_rankings(path, "orderings").shape == (n, n)  # explicit: read as asked


def test_few_one_item_rows_are_not_a_misread(tmp_path):
    R = read_rankings(_write(tmp_path, "f.csv", "a,b,c\nb\nc,a\na,c,b\nb,a\n"))
    assert R.shape == (5, 3)


# ---------------------------------------------------------------------------- encodings
def test_utf8_bom_is_not_part_of_the_first_name_nor_drops_a_ballot(tmp_path):
    R = read_rankings(_write(tmp_path, "b.csv", b"\xef\xbb\xbfZo\xc3\xab,Bob,Al\nBob,Al\n"))
    assert R.items == ("Zoë", "Bob", "Al") and R.n_rankings == 2
    N = read_rankings(_write(tmp_path, "n.csv", b"\xef\xbb\xbfRank_1,Rank_2\n2,1\n1,2\n"))
    assert N.n_rankings == 2 and N.items == ("1", "2")


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-be", "utf-32"])
def test_utf16_and_utf32_by_their_bom(tmp_path, codec):
    text = "Zoë,Zoé,Al\nZoé,Al\nAl,Zoë\n"
    bom = {"utf-16": b"", "utf-16-be": codecs.BOM_UTF16_BE, "utf-32": b""}[codec]
    R, rep = read_rankings(_write(tmp_path, "u.csv", bom + text.encode(codec)), return_report=True)
    assert R.items == ("Zoë", "Zoé", "Al") and R.n_rankings == 3
    assert "BOM" in rep.encoding


def test_latin1_is_refused_unless_declared_and_names_never_merge(tmp_path):
    path = _write(tmp_path, "l.csv", "Al,Bob\nZoë,Bob\nZoé,Al\n", encoding="latin-1")
    with pytest.raises(DataFormatError) as exc:
        read_rankings(path)
    _one_line(exc, "l.csv, line 2", "not valid UTF-8", "--encoding")
    R = read_rankings(path, encoding="latin-1")
    assert set(R.items) == {"Al", "Bob", "Zoë", "Zoé"}


def test_utf16_without_bom_is_refused(tmp_path):
    path = _write(tmp_path, "w.csv", "a,b\nb,a\n".encode("utf-16-le"))
    with pytest.raises(DataFormatError) as exc:
        read_rankings(path)
    _one_line(exc, "w.csv, line 1", "NUL bytes", "--encoding")
    assert read_rankings(path, encoding="utf-16-le").items == ("a", "b")


def test_wrong_declared_encoding_names_the_line(tmp_path):
    path = _write(tmp_path, "a.csv", "a,b\nb,é\n")
    with pytest.raises(DataFormatError) as exc:
        read_rankings(path, encoding="ascii")
    _one_line(exc, "a.csv, line 2", "ascii")
    with pytest.raises(ValueError, match="unknown encoding"):
        read_rankings(path, encoding="no-such-codec")


# ---------------------------------------------------------------------------- failures
@pytest.mark.parametrize(
    ("text", "fragments"),
    [
        ("1,2,3\n2,1,3\n3,x,1\n", ("line 3", "('x') is not a number")),
        ("Rank_1,Rank_2\n1,2\n1,1\n", ("line 3", "more than once")),
        ("Rank_1,Rank_2\n1,2\n0,2\n", ("line 3", "follows an unfilled")),
        ("a,b\nb,,a\n", ("line 2", "follows an empty one")),
        ("a,b\nb,a,b\n", ("line 2", "item 'b' appears more than once")),
        ("1,2,3\n2,1,3\n3,2,100000000\n", ("line 3", "max_items")),
    ],
)
def test_every_failure_is_one_line_naming_file_and_line(tmp_path, text, fragments):
    with pytest.raises(DataFormatError) as exc:
        read_rankings(_write(tmp_path, "bad.csv", text))
    _one_line(exc, "bad.csv", *fragments)


def test_unknown_item_with_given_names(tmp_path):
    path = _write(tmp_path, "n.csv", "Alice,Bob\nBob,Zed\n")
    with pytest.raises(DataFormatError) as exc:
        read_rankings(path, items=["Alice", "Bob", "Carol"])
    _one_line(exc, "n.csv, line 2", "unknown item 'Zed'")


def test_lenient_read_reports_rows_read_used_refused(tmp_path):
    path = _write(tmp_path, "l.csv", "a,b,c\nb,a\nc,c\na,,b\nc,b,a\n")
    with pytest.warns(MalformedLinesWarning) as rec:
        R, rep = read_rankings(path, strict=False, return_report=True)
    assert [s.line for s in rec[0].message.skipped] == [3, 4]
    assert R.n_rankings == 3
    assert (rep.n_rows_read, rep.n_rows_used, len(rep.refused)) == (5, 3, 2)
    summary = rep.summary()
    assert "5 rows read, 3 used, 2 refused" in summary
    assert "line 3: item 'c' appears more than once" in summary


def test_limits_are_enforced_through_read_rankings(tmp_path):
    path = _write(tmp_path, "r.csv", "Rank_1,Rank_2\n" + "1,2\n" * 20)
    with pytest.raises(DataFormatError, match="max_rows"):
        read_rankings(path, limits={"max_rows": 10})
    bomb = tmp_path / "bomb.csv.gz"
    bomb.write_bytes(gzip.compress(b"Rank_1,Rank_2\n" + b"1,2\n" * 500_000))
    with pytest.raises(DataFormatError) as exc:
        read_rankings(bomb, limits={"max_input_bytes": 2**16})
    _one_line(exc, "bomb.csv.gz", "max_input_bytes")


def test_empty_and_bad_arguments(tmp_path):
    with pytest.raises(DataFormatError, match="empty"):
        read_rankings(_write(tmp_path, "e.csv", "\n\n"))
    with pytest.raises(ValueError, match="format must be"):
        read_rankings(_write(tmp_path, "x.csv", "a,b\n"), "excel")
    with pytest.raises(ValueError, match="3 item names given for 2 columns"):
        read_rankings(_write(tmp_path, "r.csv", "1,1\n2,1\n"), "ranks", items=["a", "b", "c"])


# ---------------------------------------------------------------------------- others
def test_read_item_names(tmp_path):
    assert read_item_names(_write(tmp_path, "i.txt", "\ufeffZoë\n\n# note\nZoé\n")) == [
        "Zoë",
        "Zoé",
    ]
    assert read_item_names(_write(tmp_path, "c.txt", "a, b,c\n")) == ["a", "b", "c"]
    with pytest.raises(DataFormatError) as exc:
        read_item_names(_write(tmp_path, "d.txt", "a\nb\na\n"))
    _one_line(exc, "d.txt, line 3", "'a' appears more than once")


def test_read_numeric_csv_header(tmp_path):
    X, names = read_numeric_csv(_write(tmp_path, "h.csv", "a, b\n1,2\n"), return_header=True)
    assert names == ["a", "b"] and X.tolist() == [[1.0, 2.0]]
    X, names = read_numeric_csv(_write(tmp_path, "n.csv", "1,2\n"), return_header=True)
    assert names is None and X.tolist() == [[1.0, 2.0]]


def test_read_numeric_csv(tmp_path):
    X = read_numeric_csv(_write(tmp_path, "f.csv", "a,b\n1,2\n3,4.5\n"))
    np.testing.assert_allclose(X, [[1, 2], [3, 4.5]])
    for text, frag in [
        ("1,2\n3,oops\n", "line 2: 'oops' is not a number"),
        ("1,2\n3\n", "line 2: 1 fields, expected 2"),
        ("1,2\n3,inf\n", "line 2: NaN or infinite"),
    ]:
        with pytest.raises(DataFormatError, match=frag):
            read_numeric_csv(_write(tmp_path, "g.csv", text))
    with pytest.raises(DataFormatError, match="line 1: expected integers"):
        read_numeric_csv(_write(tmp_path, "p.csv", "1,2.5\n"), integer=True)


# ---------------------------------------------------------------------------- real files
@pytest.mark.parametrize(
    ("rel", "shape", "fmt"),
    [
        ("apa_elections_1998_2009/00028-00000001.soi", (292, 5), "preflib"),
        ("irish_election_2002/00001-00000001.soi", (19299, 12), "preflib"),
        ("apa_1980/d_apa_orderings.csv", (15449, 5), "orderings"),
        ("plmix_misc/d_dublinwest_orderings.csv", None, "orderings"),
        ("german_political_goals/d_german_orderings.csv", None, "orderings"),
        ("bayesmallows_misc/cluster_data.csv", (60, 5), "ranks"),
        ("label_ranking_cheng_hullermeier/iris.csv", (150, 3), "label-ranking"),
        ("rankcluster_misc/words_rankings.csv", None, "ranks"),
    ],
)
def test_real_files_detected(shared_data, rel, shape, fmt):
    with warnings.catch_warnings():
        warnings.simplefilter("error", MalformedLinesWarning)
        R, rep = read_rankings(_data(shared_data, rel), return_report=True)
    assert rep.format == fmt, rep.summary()
    assert rep.refused == () and rep.n_rows_used == R.n_rankings
    if shape is not None:
        assert R.shape == shape


# ---------------------------------------------------------------------------- fuzz
@pytest.mark.filterwarnings("ignore::rankclust.io.MalformedLinesWarning")
def test_any_text_is_read_or_refused_in_one_line(tmp_path):
    """Random small tables: a Rankings, or a one-line ValueError naming the file; nothing else."""
    hypothesis = pytest.importorskip("hypothesis")
    st = hypothesis.strategies

    path = tmp_path / "fuzz.csv"
    alphabet = st.sampled_from([*'0123456789,;\t \n\nabAB"-.', "Rank_1", "\ufeff", "é"])

    @hypothesis.settings(max_examples=300, deadline=None, derandomize=True)
    @hypothesis.given(st.lists(alphabet, max_size=60), st.sampled_from(["auto", *FORMATS]),
                      st.booleans())  # fmt: skip
    def check(chars, fmt, strict):
        path.write_text("".join(chars), encoding="utf-8")
        try:
            R = read_rankings(path, fmt, strict=strict)
        except ValueError as exc:
            msg = str(exc)
            assert "\n" not in msg and str(path) in msg, msg
        else:
            assert isinstance(R, Rankings) and R.n_rankings >= 1
            assert R.items is not None and len(R.items) == R.n_items

    check()


@pytest.mark.filterwarnings("ignore::rankclust.io.MalformedLinesWarning")
def test_report_gives_the_file_line_of_every_row(tmp_path):
    _, rep = read_rankings(
        _write(tmp_path, "a.csv", "\n,x,y\nr1,1,2\n\nr2,2,1\n"), return_report=True
    )
    assert rep.row_lines == (3, 5)
    _, rep = read_rankings(
        _write(tmp_path, "b.csv", "Rank_1,Rank_2\n1,2\n2,2\n\n2,1\n"), strict=False,
        return_report=True,
    )  # fmt: skip
    assert rep.row_lines == (2, 5) and [s.line for s in rep.refused] == [3]
    assert (rep.n_rows_read, rep.n_rows_used) == (3, 2)
    _, rep = read_rankings(_write(tmp_path, "k.order", KAMISHIMA), return_report=True)
    assert rep.row_lines == (2, 3, 4)
    text = "# NUMBER ALTERNATIVES: 2\n# ALTERNATIVE NAME 1: a\n# ALTERNATIVE NAME 2: b\n\n3: 1,2\n1: 2\n"
    _, rep = read_rankings(_write(tmp_path, "p.soi", text), return_report=True)
    assert rep.row_lines == (5, 6)


def test_the_refusal_shown_in_the_docs_is_what_the_reader_says(tmp_path, monkeypatch):
    page = (Path(__file__).resolve().parents[2] / "docs" / "data_formats.md").read_text()
    shown = page.split("for example\n\n```\n", 1)[1].split("\n```", 1)[0]
    monkeypatch.chdir(tmp_path)
    _write(tmp_path, "b.csv", "3,1,2\n1,2,0\n2,1,0\n3,1,2\n")
    with pytest.raises(DataFormatError) as exc:
        read_rankings("b.csv")
    assert " ".join(shown.split()) == str(exc.value)


def test_the_summary_shown_in_the_docs_is_what_the_reader_says(shared_data, monkeypatch):
    page = (Path(__file__).resolve().parents[2] / "docs" / "data_formats.md").read_text()
    block = page.split("print(report.summary())\n", 1)[1].split("```", 1)[0]
    shown = " ".join(line.removeprefix("# ") for line in block.strip().splitlines())
    monkeypatch.chdir(_data(shared_data, "sushi3/sushi3a.5000.10.order").parent)
    _, report = read_rankings("sushi3a.5000.10.order", return_report=True)
    assert report.summary() == shown

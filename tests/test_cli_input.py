"""How the ``rankclust`` command reads its input: everything goes through rankclust.io.

Run in-process through ``rankclust.cli.main``; the files are built in ``tmp_path`` (the real
ones are read from ``../shared/data`` when it is there).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rankclust import cli, io
from tests._cli import run

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")


def assert_one_line_error(code, err, *fragments):
    assert code == 2, err
    lines = [ln for ln in err.strip().splitlines() if ln.strip()]
    assert len(lines) == 1, err
    for f in fragments:
        assert f in lines[0], (f, lines[0])
    return lines[0]


def _cluster(capsys, path, *extra):
    """``cluster PATH -k 1`` with the quick chains method (rankings read as chains)."""
    return run(capsys, "cluster", path, "-k", 1, "--method", "chains", "--kind", "subset", *extra)


def _write(tmp_path, name, data):
    path = tmp_path / name
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    return path


def _data(shared_data: Path, rel: str) -> Path:
    path = shared_data / rel
    if not path.exists():
        pytest.skip(f"{rel} is not in ../shared/data")
    return path


def test_format_choices_are_the_readers():
    assert cli._READ_FORMATS == io.FORMATS
    parser = cli.build_parser()
    args = parser.parse_args(["cluster", "f.csv", "-k", "2", "--format", "kamishima",
                              "--encoding", "latin-1"])  # fmt: skip
    assert (args.format, args.encoding) == ("kamishima", "latin-1")


def test_cli_keeps_no_parser_of_its_own():
    for name in ("_sniff_csv", "_detect_format", "_read_orderings", "_read_named_orderings",
                 "_largest_int", "_open_text", "_read_items_file"):  # fmt: skip
        assert not hasattr(cli, name), name


def test_summary_line_says_rows_read_used_refused(capsys, tmp_path):
    path = _write(tmp_path, "s.csv", "Alice;Bob;Carol\nBob;Alice;Carol\nCarol;Bob\nBob;Carol\n")
    code, out, err = _cluster(capsys, path)
    assert code == 0, err
    assert "orderings (content, UTF-8): 4 rows read, 4 used, 0 refused" in err
    assert "4 rankings over 3 items" in err and "separated by ';'" in err
    assert "Alice" in out and "Bob" in out


def test_space_separated_names_print_one_name_per_item(capsys, tmp_path):
    path = _write(tmp_path, "s.txt", "b a c\na b c\nb a c\nc b a\n")
    code, out, err = _cluster(capsys, path)
    assert code == 0, err
    assert "b a c" not in out and "a b c" not in out
    assert "b > a > c" in out


def test_utf8_bom_keeps_the_first_ballot(capsys, tmp_path):
    path = _write(tmp_path, "b.csv", b"\xef\xbb\xbfZo\xc3\xab,Bob,Al\nBob,Al,Zo\xc3\xab\nAl,Bob\n")
    code, out, err = _cluster(capsys, path)
    assert code == 0, err
    assert "3 rows read, 3 used" in err and "\ufeff" not in out + err
    assert "Zoë" in out


def test_utf16_by_its_bom(capsys, tmp_path):
    path = _write(tmp_path, "u.csv", "Zoë,Zoé,Al\nZoé,Al,Zoë\nAl,Zoë,Zoé\n".encode("utf-16"))
    code, out, err = _cluster(capsys, path)
    assert code == 0, err
    assert "UTF-16 (BOM)" in err and "Zoë" in out and "Zoé" in out


def test_latin1_needs_encoding_and_never_merges_names(capsys, tmp_path):
    path = _write(tmp_path, "l.csv", "Zoë,Zoé,Al\nZoé,Al,Zoë\nAl,Zoë\n".encode("latin-1"))
    code, _, err = _cluster(capsys, path)
    assert_one_line_error(code, err, "l.csv, line 1", "not valid UTF-8", "--encoding")
    code, out, err = _cluster(capsys, path, "--encoding", "latin-1")
    assert code == 0, err
    assert "3 items" in err and "Zoë" in out and "Zoé" in out


def test_items_file_is_decoded_the_same_way(capsys, tmp_path):
    data = _write(tmp_path, "d.csv", "Rank_1,Rank_2,Rank_3\n1,2,3\n3,2,1\n2,1,3\n")
    items = _write(tmp_path, "i.txt", "Zoë\nZoé\nAl\n".encode("latin-1"))
    code, _, err = _cluster(capsys, data, "--items", items)
    assert_one_line_error(code, err, "i.txt, line 1", "--encoding")
    code, out, err = _cluster(capsys, data, "--items", items, "--encoding", "latin-1")
    assert code == 0, err
    assert "Zoé" in out


def test_leading_blank_line_header(capsys, tmp_path):
    path = _write(tmp_path, "h.csv", "\nRank_1,Rank_2,Rank_3\n1,2,3\n1,3,2\n2,1,3\n")
    code, _, err = _cluster(capsys, path)
    assert code == 0, err
    assert "3 rows read" in err and "3 rankings over 3 items" in err


def test_integer_ballots_are_refused_not_read_as_label_ranking(capsys, tmp_path):
    path = _write(tmp_path, "b.csv", "3,1,2\n1,2,0\n2,1,0\n3,1,2\n")
    code, _, err = _cluster(capsys, path)
    assert_one_line_error(code, err, "b.csv", "cannot tell", "--format", "orderings", "ranks")
    code, _, err = _cluster(capsys, path, "--format", "orderings")
    assert code == 0, err
    assert "4 rows read, 4 used" in err and "4 rankings over 3 items" in err


def test_likely_misread_is_refused(capsys, tmp_path):
    path = _write(tmp_path, "m.csv", "".join(f"name_{i}\n" for i in range(30)))
    code, _, err = _cluster(capsys, path)
    assert_one_line_error(code, err, "m.csv", "likely misread", "--format")


def test_malformed_line_names_file_and_line(capsys, tmp_path):
    path = _write(tmp_path, "x.csv", "Rank_1,Rank_2\n1,2\n2,2\n")
    code, _, err = _cluster(capsys, path)
    assert_one_line_error(code, err, "x.csv, line 3", "more than once")


def test_labelrank_reads_through_rankclust_io(capsys, tmp_path):
    path = _write(tmp_path, "lr.csv", "4,1,3\n0.1,1,2,3\n0.2,1,3,2\n0.9,3,2,1\n0.8,3,1,2\n")
    code, _, err = run(capsys, "labelrank", path, "--test-size", 0.5, "--random-state", 0)
    assert code == 0, err
    assert "label-ranking" in err and "4 rows read, 4 used, 0 refused" in err
    bad = _write(tmp_path, "lr1.csv", "2,1,3\n0.1,1,2,3\n0.2,1,3,\xe9\n".encode("latin-1"))
    code, _, err = run(capsys, "labelrank", bad)
    assert_one_line_error(code, err, "lr1.csv, line 3", "--encoding")


# ---------------------------------------------------------------------------- real files
def test_real_sushi_order(capsys, shared_data):
    path = _data(shared_data, "sushi3/sushi3a.5000.10.order")
    code, _, err = _cluster(capsys, path, "--random-state", 0)
    assert code == 0, err
    assert "kamishima (suffix .order" in err and "5000 rows read, 5000 used, 0 refused" in err
    assert "5000 rankings over 10 items" in err


@pytest.mark.parametrize("extra", [(), ("--format", "ranks")])
def test_real_potato_visual(capsys, shared_data, extra):
    path = _data(shared_data, "bayesmallows_misc/potato_visual.csv")
    code, out, err = _cluster(capsys, path, *extra)
    assert code == 0, err
    assert "12 rows read, 12 used, 0 refused; 12 rankings over 20 items" in err
    assert "P12" in out


@pytest.mark.parametrize(
    ("rel", "summary"),
    [
        ("apa_elections_1998_2009/00028-00000001.soi", "292 rankings over 5 items, 18723 ballots"),
        ("irish_election_2002/00001-00000001.soi", "19299 rankings over 12 items, 43942 ballots"),
    ],
)
def test_real_preflib(capsys, shared_data, rel, summary):
    code, _, err = _cluster(capsys, _data(shared_data, rel), "--random-state", 0)
    assert code == 0, err
    assert "preflib (suffix .soi" in err and summary in err


def test_skip_malformed_reports_the_refused_rows(capsys, tmp_path):
    path = _write(tmp_path, "s.csv", "Rank_1,Rank_2,Rank_3\n1,2,3\n2,2,1\n3,1,2\n2,3,1\n")
    code, _, err = _cluster(capsys, path)
    assert_one_line_error(code, err, "s.csv, line 3", "more than once")
    code, _, err = _cluster(capsys, path, "--skip-malformed")
    assert code == 0, err
    assert "4 rows read, 3 used, 1 refused (line 3: an item appears more than once)" in err


def test_tie_error_names_the_line_the_reader_read_it_from(capsys, tmp_path):
    # a refused row (line 3) before the tied one (line 5): the reader's own line numbers
    path = _write(tmp_path, "t.csv", "a,b,c\n1,2,3\n1,x,2\n\n2,2,1\n3,2,1\n")
    code, _, err = run(capsys, "cluster", path, "-k", 1, "--format", "ranks", "--skip-malformed",
                       "--method", "chains", "--kind", "subset")  # fmt: skip
    assert code == 2
    warning, error = err.strip().splitlines()
    assert "t.csv: skipped 1 malformed line(s): line 3: field 2 ('x') is not a number" in warning
    assert "t.csv:5: this ranking ranks items as tied" in error

"""Tests of rankclust.io.preflib: real PrefLib files, round trips, malformed input."""

from __future__ import annotations

import gzip
import io
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rankclust import Rankings
from rankclust.io import DataFormatError, MalformedLinesWarning, PreflibMetadata
from rankclust.io.preflib import read_preflib, write_preflib

HEADER3 = (
    "# FILE NAME: t.soi\n"
    "# DATA TYPE: soi\n"
    "# NUMBER ALTERNATIVES: 3\n"
    "# NUMBER VOTERS: {voters}\n"
    "# NUMBER UNIQUE ORDERS: {unique}\n"
    "# ALTERNATIVE NAME 1: a\n"
    "# ALTERNATIVE NAME 2: b\n"
    "# ALTERNATIVE NAME 3: c\n"
)  # 8 header lines: the first data line is line 9


def _soi(data_lines: list[str], voters: int | None = None, unique: int | None = None) -> str:
    if voters is None:
        voters = sum(int(x.split(":")[0]) for x in data_lines)
    unique = len(data_lines) if unique is None else unique
    return HEADER3.format(voters=voters, unique=unique) + "".join(x + "\n" for x in data_lines)


def _preflib_files(shared_data):
    files = sorted(shared_data.glob("*/*.so[ci]")) + sorted(shared_data.glob("*/*.to[ci]"))
    assert len(files) >= 15  # 3 Irish + 12 APA elections
    return files


# ------------------------------------------------------------------------------------ real data
def test_dublin_north_2002(shared_data):
    path = shared_data / "irish_election_2002" / "00001-00000001.soi"
    R, meta = read_preflib(path, return_metadata=True)
    assert R.n_items == 12
    assert R.weights.sum() == 43942
    assert R.n_rankings == 19299 == meta.n_unique_orders_declared
    assert R.kind == "top" and R.is_weighted
    assert R.items[0] == "Cathal Boland F.G." and R.items[11] == "G.V. Wright F.F."
    assert meta.n_voters_declared == meta.n_voters_read == 43942
    assert meta.data_type == "soi" and not meta.old_format and meta.skipped == ()
    assert meta.header["TITLE"] == "2002 Dublin North"
    # first data line "800: 12,6,4"
    assert R.weights[0] == 800
    assert R.to_orderings()[0] == [11, 5, 3]
    assert not R.has_ties.any()


def test_every_real_preflib_file_round_trips(shared_data, tmp_path):
    for path in _preflib_files(shared_data):
        R, meta = read_preflib(path, return_metadata=True)
        assert R.weights.sum() == meta.n_voters_declared
        out = tmp_path / path.name
        write_preflib(R, out, metadata=meta)
        assert out.read_bytes() == path.read_bytes(), path.name  # byte for byte
        assert read_preflib(out) == R


def test_gzip_and_file_objects(shared_data, tmp_path):
    path = shared_data / "apa_elections_1998_2009" / "00028-00000001.soi"
    R = read_preflib(path)
    gz = tmp_path / "x.soi.gz"
    write_preflib(R, gz)
    assert gz.read_bytes()[:2] == b"\x1f\x8b"
    assert read_preflib(gz) == R
    assert read_preflib(io.BytesIO(gzip.compress(path.read_bytes()))) == R
    assert read_preflib(io.StringIO(path.read_text())) == R
    with open(path, "rb") as f:
        assert read_preflib(f) == R
    # deterministic compression: same data, same bytes
    gz2 = tmp_path / "y.soi.gz"
    write_preflib(R, gz2)
    assert gzip.decompress(gz.read_bytes()).replace(b"x.soi", b"y.soi") == gzip.decompress(
        gz2.read_bytes()
    )


# ------------------------------------------------------------------------------- parsing details
def test_ties_and_weights():
    text = "# NUMBER ALTERNATIVES: 4\n# DATA TYPE: toi\n3: 2,{1,4},3\n2: {3,1}\n1: 4\n"
    R = read_preflib(io.StringIO(text))
    np.testing.assert_array_equal(R.ranks, [[1, 0, 2, 1], [0, -1, 0, -1], [-1, -1, -1, 0]])
    np.testing.assert_array_equal(R.weights, [3, 2, 1])
    assert R.items is None and R.kind == "top"
    assert read_preflib(io.StringIO(text), kind="subset").kind == "subset"


def test_old_format_matches_new_format():
    old = "3\n1,Ann\n2,Bob\n3,Cy\n6,6,3\n3,2,1\n2,3,{1,2}\n1,1\n"
    new = (
        "# NUMBER ALTERNATIVES: 3\n# ALTERNATIVE NAME 1: Ann\n# ALTERNATIVE NAME 2: Bob\n"
        "# ALTERNATIVE NAME 3: Cy\n# NUMBER VOTERS: 6\n# NUMBER UNIQUE ORDERS: 3\n"
        "3: 2,1\n2: 3,{1,2}\n1: 1\n"
    )
    R_old, meta = read_preflib(io.StringIO(old), return_metadata=True)
    assert meta.old_format
    assert R_old == read_preflib(io.StringIO(new))
    assert R_old.items == ("Ann", "Bob", "Cy")
    with pytest.raises(DataFormatError, match="line 5: declares NUMBER VOTERS 7"):
        read_preflib(io.StringIO(old.replace("6,6,3", "7,7,3")))


def test_headerless_file_infers_alternatives():
    R = read_preflib(io.StringIO("2: 1,3\n1: 2\n"))
    assert R.shape == (2, 3) and R.items is None
    np.testing.assert_array_equal(R.ranks, [[0, -1, 1], [-1, 0, -1]])


def test_blank_lines_and_comments_are_ignored():
    text = "# a free comment\n# NUMBER ALTERNATIVES: 2\n\n1: 1,2\n\n2: 2\n"
    R = read_preflib(io.StringIO(text))
    assert R.n_rankings == 2 and R.weights.sum() == 3


def test_names_kept_exactly():
    text = "# NUMBER ALTERNATIVES: 2\n# ALTERNATIVE NAME 1:  padded \n# ALTERNATIVE NAME 2: x\n"
    R = read_preflib(io.StringIO(text + "1: 1\n"))
    assert R.items == (" padded ", "x")


# --------------------------------------------------------------------------------- malformed
MALFORMED = [
    # (data lines, expected line, message fragment)
    (["2: 1,2", "x: 1,2"], 10, "count 'x'"),
    (["0: 1,2"], 9, "count 0 is not a positive integer"),
    (["-1: 1,2"], 9, "count '-1'"),
    (["1: 1,4"], 9, "alternative 4 is out of range 1..3"),
    (["1: 0,1"], 9, "alternative 0 is out of range"),
    (["1: 1,2", "1: 2,b"], 10, "alternative 'b'"),
    (["1: 1,2,1"], 9, "alternative 1 appears more than once"),
    (["1: 1,2,"], 9, "truncated"),
    (["1: 1,,2"], 9, "empty entry"),
    (["1: 1,{2,3"], 9, "never closed"),
    (["1: 1}"], 9, "without a matching"),
    (["1: {}"], 9, "empty tie group"),
    (["1: 1 2"], 9, "not a non-negative integer"),
    (["1"], 9, "expected 'count: order'"),
    (["1:"], 9, "the order is empty"),
    (["1: 1,{2,3}"], 9, "tied alternatives in a soi file"),
    (["1: 1", "# NUMBER VOTERS: 1"], 10, "metadata line after the data"),
]


def _named(text: str, name: str = "t.soi") -> io.StringIO:
    f = io.StringIO(text)
    f.name = name
    return f


@pytest.mark.parametrize(("data", "line", "fragment"), MALFORMED)
def test_malformed_line_named_with_file(data, line, fragment):
    text = HEADER3.format(voters=1, unique=len(data)) + "".join(x + "\n" for x in data)
    with pytest.raises(DataFormatError) as err:
        read_preflib(_named(text))
    assert err.value.line == line
    assert fragment in err.value.problem
    assert str(err.value).startswith(f"t.soi, line {line}: ")


def test_incomplete_order_in_soc_file():
    text = "# DATA TYPE: soc\n# NUMBER ALTERNATIVES: 3\n1: 1,2,3\n1: 2,1\n"
    with pytest.raises(DataFormatError, match="line 4: ranks 2 of 3 alternatives in a soc"):
        read_preflib(io.StringIO(text))


def test_extension_gives_data_type(tmp_path):
    p = tmp_path / "x.soc"
    p.write_text("# NUMBER ALTERNATIVES: 2\n1: 1\n")
    with pytest.raises(DataFormatError, match="line 2: ranks 1 of 2"):
        read_preflib(p)


def test_binary_garbage_names_the_line():
    data = HEADER3.format(voters=2, unique=2).encode() + b"1: 1,2\n\x89PNG\x00\xff\xfe\x01\n"
    with pytest.raises(DataFormatError, match="line 10: cannot decode the bytes as utf-8"):
        read_preflib(io.BytesIO(data))
    # NUL bytes are valid UTF-8 but not a PrefLib line
    data = HEADER3.format(voters=2, unique=2).encode() + b"1: 1,2\n\x00\x00\x01\n"
    with pytest.raises(DataFormatError, match="line 10:"):
        read_preflib(io.BytesIO(data))


def test_wrong_encoding_names_the_line():
    text = (
        "# NUMBER ALTERNATIVES: 2\n# ALTERNATIVE NAME 1: Zoë\n# ALTERNATIVE NAME 2: Åsa\n1: 2,1\n"
    )
    data = text.encode("latin-1")
    with pytest.raises(DataFormatError, match="line 2: cannot decode"):
        read_preflib(io.BytesIO(data))
    R = read_preflib(io.BytesIO(data), encoding="latin-1")
    assert R.items == ("Zoë", "Åsa")


@pytest.mark.parametrize(
    ("voters", "unique", "line", "fragment"),
    [
        (4, 2, 4, "declares NUMBER VOTERS 4 but the data lines hold 3 ballots"),
        (3, 5, 5, "declares NUMBER UNIQUE ORDERS 5 but the data lines hold 2 order lines"),
    ],
)
def test_header_count_mismatch(voters, unique, line, fragment):
    text = _soi(["2: 1,2", "1: 3"], voters=voters, unique=unique)
    with pytest.raises(DataFormatError, match=f"line {line}: {fragment}"):
        read_preflib(io.StringIO(text))
    with pytest.warns(UserWarning, match=fragment):
        R = read_preflib(io.StringIO(text), strict=False)
    assert R.weights.sum() == 3


@pytest.mark.parametrize(
    ("header", "line", "fragment"),
    [
        ("# NUMBER ALTERNATIVES: three\n", 1, "NUMBER ALTERNATIVES 'three'"),
        ("# NUMBER ALTERNATIVES: 2\n# ALTERNATIVE NAME 1: a\n", 1, "no name for alternative"),
        (
            "# NUMBER ALTERNATIVES: 2\n# ALTERNATIVE NAME 1: a\n# ALTERNATIVE NAME 2: a\n",
            3,
            "the same name 'a'",
        ),
        (
            "# NUMBER ALTERNATIVES: 2\n# ALTERNATIVE NAME 1: a\n# ALTERNATIVE NAME 1: b\n",
            3,
            "named twice",
        ),
        ("# DATA TYPE: cat\n", 1, "DATA TYPE 'cat'"),
        ("# TITLE: x\n# TITLE: y\n", 2, "appears twice"),
    ],
)
def test_bad_header(header, line, fragment):
    with pytest.raises(DataFormatError, match=f"line {line}: .*{fragment}"):
        read_preflib(io.StringIO(header + "1: 1\n"))


def test_not_strict_skips_and_reports_every_line():
    data = ["2: 1,2", "x: 1", "1: 3,3", "1: 2", "1: 9", "3: 1,2,3"]
    text = HEADER3.format(voters=6, unique=3) + "".join(x + "\n" for x in data)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        R, meta = read_preflib(io.StringIO(text), strict=False, return_metadata=True)
    lines_warning = [w.message for w in rec if isinstance(w.message, MalformedLinesWarning)]
    assert len(lines_warning) == 1
    skipped = lines_warning[0].skipped
    assert [s.line for s in skipped] == [10, 11, 13]
    assert skipped[0].text == "x: 1" and "count" in skipped[0].reason
    assert "appears more than once" in skipped[1].reason
    assert "out of range" in skipped[2].reason
    assert meta.skipped == skipped
    assert "line 10" in str(lines_warning[0]) and "line 13" in str(lines_warning[0])
    np.testing.assert_array_equal(R.weights, [2, 1, 3])
    assert meta.n_voters_read == 6 and meta.n_orders_read == 3


def test_not_strict_with_undecodable_line():
    data = HEADER3.format(voters=2, unique=2).encode() + b"1: 1\n\xff\xfe\n1: 2\n"
    with pytest.warns(MalformedLinesWarning) as rec:
        R = read_preflib(io.BytesIO(data), strict=False)
    assert [s.line for s in rec[0].message.skipped] == [10]
    assert R.n_rankings == 2


def test_warning_text_is_capped_but_attribute_is_complete():
    data = ["1: 1"] + ["1: 7"] * 30
    text = HEADER3.format(voters=1, unique=1) + "".join(x + "\n" for x in data)
    with pytest.warns(MalformedLinesWarning, match="and 10 more") as rec:
        read_preflib(io.StringIO(text), strict=False)
    assert len(rec[0].message.skipped) == 30


# ------------------------------------------------------------------------------------ writer
def test_writer_infers_the_most_restrictive_type():
    def dtype_of(R):
        buf = io.StringIO()
        write_preflib(R, buf)
        return read_preflib(io.StringIO(buf.getvalue()), return_metadata=True)[1].data_type

    assert dtype_of(Rankings([[0, 1, 2], [2, 1, 0]])) == "soc"
    assert dtype_of(Rankings([[0, 1, -1]])) == "soi"
    assert dtype_of(Rankings([[0, 0, 1]])) == "toc"
    assert dtype_of(Rankings([[0, 0, -1]])) == "toi"


def test_writer_refuses_what_preflib_cannot_hold():
    buf = io.StringIO()
    with pytest.raises(ValueError, match=r"row 1: weight 1\.5 is not a positive integer"):
        write_preflib(Rankings([[0, 1], [1, 0]], weights=[2, 1.5]), buf)
    with pytest.raises(ValueError, match=r"row 0: weight 0\.0"):
        write_preflib(Rankings([[0, 1]], weights=[0]), buf)
    with pytest.raises(ValueError, match="row 1 ranks no item"):
        write_preflib(Rankings([[0, 1], [-1, -1]]), buf)
    with pytest.raises(ValueError, match="row 0 has ties, which a soi file"):
        write_preflib(Rankings([[0, 0]]), buf, data_type="soi")
    with pytest.raises(ValueError, match="row 0 is incomplete, which a soc file"):
        write_preflib(Rankings([[0, -1]]), buf, data_type="soc")
    with pytest.raises(ValueError, match="line break"):
        write_preflib(Rankings([[0, 1]], items=["a\nb", "c"]), buf)
    with pytest.raises(ValueError, match="data_type must be one of"):
        write_preflib(Rankings([[0, 1]]), buf, data_type="cat")
    with pytest.raises(TypeError):
        write_preflib(np.array([[0, 1]]), buf)


def test_unweighted_round_trip_gives_unit_weights():
    R = Rankings([[0, 1, -1], [2, 0, 1]], kind="subset")
    buf = io.StringIO()
    write_preflib(R, buf)
    back = read_preflib(io.StringIO(buf.getvalue()), kind="subset")
    assert back == R.with_weights(np.ones(2))


def test_metadata_fields_are_kept_and_computed_fields_recomputed(tmp_path):
    meta = {"TITLE": "old", "NUMBER VOTERS": "999", "SOURCE": "here"}
    R = Rankings([[0, 1]], weights=[5])
    write_preflib(R, tmp_path / "a.soc", metadata=meta, title="new")
    _, m = read_preflib(tmp_path / "a.soc", return_metadata=True)
    assert isinstance(m, PreflibMetadata)
    assert m.header["TITLE"] == "new" and m.header["SOURCE"] == "here"
    assert m.header["NUMBER VOTERS"] == "5" and m.header["FILE NAME"] == "a.soc"


def test_binary_stream_is_left_open():
    buf = io.BytesIO()
    write_preflib(Rankings([[0, 1]], weights=[2]), buf)
    assert not buf.closed
    assert buf.getvalue().endswith(b"2: 1,2\n")


@st.composite
def preflib_rankings(draw):
    n = draw(st.integers(1, 6))
    m = draw(st.integers(1, 6))
    rows = []
    for _ in range(n):
        row = draw(st.lists(st.integers(-1, m - 1), min_size=m, max_size=m))
        if max(row) < 0:
            row[draw(st.integers(0, m - 1))] = 0
        rows.append(row)
    weights = draw(st.lists(st.integers(1, 10**6), min_size=n, max_size=n))
    names = draw(
        st.none()
        | st.lists(
            st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n")),
            min_size=m,
            max_size=m,
            unique=True,
        )
    )
    kind = draw(st.sampled_from(["top", "subset"]))
    return Rankings(rows, kind=kind, weights=weights, items=names)


@settings(max_examples=50, deadline=None)
@given(R=preflib_rankings())
def test_round_trip_property(R):
    buf = io.StringIO()
    write_preflib(R, buf)
    text = buf.getvalue()
    assert read_preflib(io.StringIO(text), kind=R.kind) == R
    # and through bytes in UTF-8
    assert read_preflib(io.BytesIO(text.encode("utf-8")), kind=R.kind) == R

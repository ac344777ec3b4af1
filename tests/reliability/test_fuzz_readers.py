"""Hostile files for every reader of :mod:`rankclust.io`.

* random bytes, valid files cut short, with one byte changed, inserted or deleted, a line
  repeated, or re-encoded (Latin-1, UTF-16, CP1252): a clean ``DataFormatError``/``ValueError``
  naming the problem, or a documented result -- never another exception, never a hang;
* no data loss with ``strict=False``: every non-header line is either read or reported in the
  ``MalformedLinesWarning`` (``skipped``), and re-reading the file without the reported lines
  gives the same rankings with nothing skipped;
* a few bytes must not make a reader allocate gigabytes (``# NUMBER ALTERNATIVES: 10**9``).

This file complements ``tests/io`` (which holds the hand-written malformed-line cases and the
real-file round trips) and is the in-suite fallback of the atheris harness in ``fuzz/``.
"""

from __future__ import annotations

import io
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rankclust import Rankings
from rankclust.io import (
    DataFormatError,
    MalformedLinesWarning,
    read_label_ranking_csv,
    read_msnbc,
    read_orderings_csv,
    read_preflib,
    read_rankcluster_csv,
    read_ranks_csv,
    read_sushi_idata,
    read_sushi_order,
    read_sushi_udata,
    write_label_ranking_csv,
    write_orderings_csv,
    write_preflib,
    write_ranks_csv,
)
from tests.reliability._harness import assert_clean, outcome, run_isolated

FUZZ = settings(
    max_examples=200, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True
)

READERS = {
    "read_preflib": read_preflib,
    "read_label_ranking_csv": read_label_ranking_csv,
    "read_orderings_csv": read_orderings_csv,
    "read_ranks_csv": read_ranks_csv,
    "read_rankcluster_csv": read_rankcluster_csv,
    "read_sushi_order": read_sushi_order,
    "read_sushi_udata": read_sushi_udata,
    "read_sushi_idata": read_sushi_idata,
    "read_msnbc": read_msnbc,
}


# ------------------------------------------------------------------------- valid seed files
def _preflib_seed() -> bytes:
    R = Rankings.from_orderings(
        [[2, 0, 1, 3], [1, (0, 3)], [3, 2], [0]],
        n_items=4,
        kind="top",
        weights=[5, 2, 1, 7],
        items=["alpha", "beta", "gamma", "delta é"],
    )
    buf = io.StringIO()
    write_preflib(R, buf, title="seed")
    return buf.getvalue().encode()


def _lr_seed() -> bytes:
    buf = io.StringIO()
    write_label_ranking_csv(
        buf, [[0.5, -1.25], [2.0, 1e-3], [3.5, 7.0]], [[1, 2, 3], [2, 0, 1], [1, 1, 2]]
    )
    return buf.getvalue().encode()


def _orderings_seed() -> bytes:
    buf = io.StringIO()
    R = Rankings.from_orderings([[2, 0, 1], [1, 2], [0]], n_items=3, kind="top")
    write_orderings_csv(R, buf)
    return buf.getvalue().encode()


def _ranks_seed() -> bytes:
    buf = io.StringIO()
    write_ranks_csv(Rankings([[0, 1, 2], [1, 1, 0], [0, -1, 1]]), buf)
    return buf.getvalue().encode()


SEEDS = {
    "read_preflib": _preflib_seed(),
    "read_label_ranking_csv": _lr_seed(),
    "read_orderings_csv": _orderings_seed(),
    "read_ranks_csv": _ranks_seed(),
    "read_rankcluster_csv": b"dim1_obj1,dim1_obj2,dim2_obj1,dim2_obj2\n1,2,2,1\n2,1,0,1\n",
    "read_sushi_order": b"5 1\n0 3 4 0 2\n0 2 1 3\n0 5 0 1 2 3 4\n",
    "read_sushi_udata": b"0\t1\t2\t3\t4\t5\t6\t7\t8\t9\t10\n",
    "read_sushi_idata": b"0\tebi\t1\t1\t0\t2.7\t1.8\t1.8\t0.8\n1\tanago\t1\t1\t0\t3.0\t2.1\t1.9\t0.7\n",
    "read_msnbc": (
        b"% Different categories found in input file:\r\n\r\na b c d\r\n\r\n\r\n"
        b"% Sequences:\r\n\r\n1 1 \r\n2 \r\n3 2 2 4 2 \r\n4 4 1 3 2 \r\n"
    ),
}

_HOSTILE_BYTES = [*b",;:{}#\n\r\t -0123456789.%", 0, 0xFF, 0xC3, 0xE9, 0x80]


@st.composite
def mutated(draw, data: bytes) -> bytes:
    """One of: truncate, change/insert/delete a byte, repeat a line, re-encode."""
    op = draw(st.sampled_from(["cut", "set", "insert", "delete", "dupline", "encode", "splice"]))
    if not data:
        return data
    k = draw(st.integers(0, len(data) - 1))
    if op == "cut":
        return data[:k]
    if op == "set":
        return data[:k] + bytes([draw(st.sampled_from(_HOSTILE_BYTES))]) + data[k + 1 :]
    if op == "insert":
        return data[:k] + bytes([draw(st.sampled_from(_HOSTILE_BYTES))]) + data[k:]
    if op == "delete":
        return data[:k] + data[k + 1 :]
    if op == "dupline":
        lines = data.split(b"\n")
        j = draw(st.integers(0, len(lines) - 1))
        return b"\n".join([*lines[: j + 1], lines[j], *lines[j + 1 :]])
    if op == "splice":
        return data[:k] + draw(st.binary(max_size=12)) + data[k:]
    enc = draw(st.sampled_from(["latin-1", "utf-16", "cp1252", "utf-8-sig"]))
    return data.decode("utf-8", errors="replace").encode(enc, errors="replace")


def _read(name: str, data: bytes, strict: bool):
    fn = READERS[name]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        status, value = outcome(name, fn, io.BytesIO(data), strict=strict, timeout=20)
    return status, value, caught


def _check_result(name: str, value) -> None:
    """Whatever a reader returns is well-formed."""
    parts = value if isinstance(value, tuple | list) else (value,)
    for part in parts:
        if isinstance(part, Rankings):
            assert (part.ranks >= -1).all()
            assert np.isfinite(part.weights).all()


# -------------------------------------------------------------------------------- properties
@pytest.mark.parametrize("name", list(READERS))
@FUZZ
@given(data=st.binary(max_size=300), strict=st.booleans())
def test_random_bytes(name, data, strict):
    status, value, _ = _read(name, data, strict)
    if status == "ok":
        _check_result(name, value)


@pytest.mark.parametrize("name", list(READERS))
@FUZZ
@given(data=st.data(), strict=st.booleans())
def test_mutated_valid_files(name, data, strict):
    blob = data.draw(mutated(SEEDS[name]))
    status, value, _ = _read(name, blob, strict)
    if status == "ok":
        _check_result(name, value)
    elif strict:
        # a strict refusal names the file (and the line when one is to blame)
        assert isinstance(value, ValueError)


@pytest.mark.parametrize("name", list(READERS))
def test_seed_files_are_valid(name):
    status, value, caught = _read(name, SEEDS[name], True)
    assert status == "ok", value
    assert not [w for w in caught if issubclass(w.category, MalformedLinesWarning)]


def _skipped(caught) -> list:
    out = []
    for w in caught:
        if issubclass(w.category, MalformedLinesWarning):
            out.extend(w.message.skipped)
    return out


def _without_lines(blob: bytes, numbers: set[int]) -> bytes:
    lines = blob.split(b"\n")
    return b"\n".join(line for k, line in enumerate(lines, start=1) if k not in numbers)


@pytest.mark.parametrize(
    "name", ["read_preflib", "read_label_ranking_csv", "read_orderings_csv", "read_ranks_csv"]
)
@FUZZ
@given(data=st.data())
def test_lenient_reading_loses_nothing(name, data):
    """strict=False: what is not read is reported, line by line, and nothing else changes.

    Reading the file with the reported lines removed gives the same rankings and reports
    nothing (so no line was dropped or altered silently).
    """
    blob = SEEDS[name]
    for _ in range(data.draw(st.integers(1, 3))):
        blob = data.draw(mutated(blob))
    status, value, caught = _read(name, blob, False)
    if status == "error":
        return  # whole-file problems (no header, undecodable header) are always errors
    skipped = _skipped(caught)
    lines = {s.line for s in skipped}
    assert len(lines) == len(skipped), "a line was reported twice"
    cleaned = _without_lines(blob, lines)
    status2, value2, caught2 = _read(name, cleaned, False)
    assert status2 == "ok", value2
    assert not _skipped(caught2), "lines kept after cleaning were still skipped"
    first = value if isinstance(value, Rankings) else value[-1]
    second = value2 if isinstance(value2, Rankings) else value2[-1]
    if name == "read_preflib":
        # the counts of what was read are the weights
        assert first.weights.sum() == second.weights.sum()
    assert first == second


@pytest.mark.parametrize(
    "name", ["read_preflib", "read_label_ranking_csv", "read_orderings_csv", "read_ranks_csv"]
)
@FUZZ
@given(data=st.data())
def test_strict_refuses_what_lenient_skips(name, data):
    blob = data.draw(mutated(SEEDS[name]))
    s_status, s_value, _ = _read(name, blob, True)
    l_status, l_value, caught = _read(name, blob, False)
    if _skipped(caught):
        assert s_status == "error", "strict reading accepted a line lenient reading skipped"
        assert isinstance(s_value, DataFormatError)
        assert s_value.line == min(s.line for s in _skipped(caught))
    if s_status == "ok":
        assert l_status == "ok"
        a = s_value if isinstance(s_value, Rankings) else s_value[-1]
        b = l_value if isinstance(l_value, Rankings) else l_value[-1]
        assert a == b


def test_preflib_counts_what_it_reads():
    """Declared totals are checked against what was read (strict) and reported (lenient)."""
    R, meta = read_preflib(io.BytesIO(SEEDS["read_preflib"]), return_metadata=True)
    assert meta.n_voters_read == R.weights.sum() == meta.n_voters_declared == 15
    assert meta.n_orders_read == R.n_rankings == meta.n_unique_orders_declared == 4
    text = SEEDS["read_preflib"].decode().replace("NUMBER VOTERS: 15", "NUMBER VOTERS: 16")
    with pytest.raises(DataFormatError, match="NUMBER VOTERS 16 but the data lines hold 15"):
        read_preflib(io.StringIO(text))
    with pytest.warns(UserWarning, match="NUMBER VOTERS 16"):
        read_preflib(io.StringIO(text), strict=False)


# ---------------------------------------------------------------- tiny files, huge claims
@pytest.mark.parametrize(
    "text",
    [
        "# NUMBER ALTERNATIVES: 1000000000\n1: 1,2\n",
        "# NUMBER ALTERNATIVES: 1000000000000\n# ALTERNATIVE NAME 1: a\n1: 1,2\n",
        "1000000000000\n1,a\n",
        "1: 1,999999999\n",
    ],
    ids=["declared-1e9", "declared-1e12-named", "old-format-1e12", "item-1e9"],
)
def test_preflib_huge_claims_are_refused_before_allocating(text):
    """Fixed here: these 20-byte files used to allocate 7.5 GB (or loop 10^12 times)."""
    res = run_isolated(
        f"""
        import io
        from rankclust.io import read_preflib
        read_preflib(io.StringIO({text!r}), strict=False)
        result = "read"
        """,
        timeout=60,
        memory_gb=2.0,
    )
    assert res["status"] == "raised" and res["type"] == "DataFormatError", res
    assert "max_items" in res["message"]


@pytest.mark.parametrize("name", ["read_orderings_csv", "read_ranks_csv", "read_rankcluster_csv"])
@pytest.mark.parametrize("cell", ["99999999999999999999999", "1e30", "-99999999999999999999"])
def test_csv_integer_beyond_int64_is_a_malformed_line(name, cell):
    """Found by atheris (fuzz/fuzz_orderings_csv.py): a cell >= 2**63 raised OverflowError
    from numpy; now it is a malformed line (strict: DataFormatError; lenient: skipped)."""
    head = "dim1_obj1,dim1_obj2\n" if name == "read_rankcluster_csv" else ""
    text = f"{head}1,2\n1,{cell}\n"
    err = assert_clean(name, READERS[name], io.StringIO(text))
    assert isinstance(err, DataFormatError) and err.line == (3 if head else 2)
    with pytest.warns(MalformedLinesWarning):
        out = READERS[name](io.StringIO(text), strict=False)
    R = out[0] if isinstance(out, list) else out
    assert R.n_rankings == 1


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("read_sushi_order", "1000000000 1\n0 2 1 999999999\n"),
        ("read_label_ranking_csv", "1,1,1000000000\n0.5,1\n"),
        ("read_orderings_csv", "1,999999999\n"),
        ("read_ranks_csv", "1,999999999\n"),
    ],
)
def test_other_readers_huge_claims(name, text):
    res = run_isolated(
        f"""
        import io
        from rankclust import io as rio
        try:
            out = rio.{name}(io.StringIO({text!r}))
            result = "read"
        except ValueError as exc:
            result = "refused: " + str(exc)[:200]
        """,
        timeout=60,
        memory_gb=2.0,
    )
    assert res["status"] == "ok", res  # no MemoryError, no crash, no hang

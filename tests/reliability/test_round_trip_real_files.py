"""No data loss on every real file in ``../shared/data`` (gaps left by ``tests/io``).

``tests/io`` already checks the byte-for-byte round trips of the PrefLib, label-ranking,
orderings and Rankcluster files and the reading of SUSHI and MSNBC. Here:

* every file is read with ``strict=True`` and ``strict=False``: no line is skipped and both
  give the same data (there is nothing malformed in the real files, so lenient mode must not
  invent anything to skip);
* readers count what they read: rows read == data lines in the file;
* gzip round trips of every PrefLib, label-ranking and orderings file;
* cross-format round trips: every PrefLib ballot set through the rank-vector CSV, every SUSHI
  order file and PrefLib strict-order set through the orderings CSV;
* the rank-vector CSVs of ``bayesmallows_misc`` (not read by ``tests/io``).

Licensed data are only ever written to ``tmp_path``.
"""

from __future__ import annotations

import gzip
import io
import warnings

import numpy as np
import pytest

from rankclust import Rankings
from rankclust.io import (
    MalformedLinesWarning,
    read_label_ranking_csv,
    read_orderings_csv,
    read_preflib,
    read_rankcluster_csv,
    read_ranks_csv,
    read_sushi_order,
    write_label_ranking_csv,
    write_orderings_csv,
    write_preflib,
    write_ranks_csv,
)

pytestmark = pytest.mark.shared_data


def _files(shared_data, *patterns):
    out = []
    for p in patterns:
        out += sorted(shared_data.glob(p))
    return out


def _both(reader, path, **kw):
    """Read strictly and leniently; the lenient read must skip nothing."""
    strict = reader(path, strict=True, **kw)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lenient = reader(path, strict=False, **kw)
    bad = [w for w in caught if issubclass(w.category, MalformedLinesWarning | UserWarning)]
    assert not bad, f"{path.name}: lenient reading warned: {bad[0].message}"
    return strict, lenient


def _data_lines(path, skip_header: int = 0) -> int:
    raw = path.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    lines = [ln for ln in raw.decode("utf-8-sig").splitlines() if ln.strip()]
    return len(lines) - skip_header


REPORT: dict[str, str] = {}


def test_preflib_files(shared_data, tmp_path):
    files = _files(shared_data, "*/*.so[ci]", "*/*.to[ci]")
    assert len(files) >= 15
    for path in files:
        (R, meta), (R2, meta2) = _both(read_preflib, path, return_metadata=True)
        assert R == R2 and meta == meta2
        text = path.read_text(encoding="utf-8")
        n_data = sum(1 for ln in text.splitlines() if ln.strip() and not ln.startswith("#"))
        assert meta.n_orders_read == n_data == R.n_rankings
        assert meta.n_voters_read == R.weights.sum() == meta.n_voters_declared
        gz = tmp_path / (path.name + ".gz")
        write_preflib(R, gz, metadata=meta)
        assert gzip.decompress(gz.read_bytes()) == path.read_bytes()
        assert read_preflib(gz) == R
        # through the rank-vector CSV (weights are not part of that format)
        buf = io.StringIO()
        write_ranks_csv(R, buf, header=list(R.items))
        back = read_ranks_csv(io.StringIO(buf.getvalue()), kind=R.kind)
        np.testing.assert_array_equal(back.ranks, R.ranks)
        assert back.items == R.items
        if not R.has_ties.any():
            buf = io.StringIO()
            write_orderings_csv(R, buf)
            again = read_orderings_csv(io.StringIO(buf.getvalue()), items=R.items)
            np.testing.assert_array_equal(again.ranks, R.ranks)
        REPORT[path.name] = f"{R.n_rankings} orders, {int(R.weights.sum())} voters"


def test_label_ranking_files(shared_data, tmp_path):
    files = _files(
        shared_data, "label_ranking_cheng_hullermeier/*.csv", "partial_label_ranking_alfaro/*.csv"
    )
    assert len(files) == 36
    for path in files:
        (X, Y), (X2, Y2) = _both(read_label_ranking_csv, path)
        np.testing.assert_array_equal(X, X2)
        assert Y == Y2
        assert X.shape[0] == _data_lines(path, skip_header=1)
        gz = tmp_path / (path.name + ".gz")
        write_label_ranking_csv(gz, X, Y)  # default writer: shortest exact floats
        X3, Y3 = read_label_ranking_csv(gz)
        np.testing.assert_array_equal(X3, X)
        assert Y3 == Y
        REPORT[path.name] = f"{X.shape[0]} x {X.shape[1]} features, {Y.n_items} labels"


def test_orderings_files(shared_data, tmp_path):
    files = _files(shared_data, "*/*_orderings.csv", "apa_1980/APA_rankings.csv")
    assert len(files) == 9
    for path in files:
        R, R2 = _both(read_orderings_csv, path)
        assert R == R2
        assert R.n_rankings == _data_lines(path, skip_header=1)
        gz = tmp_path / (path.name + ".gz")
        write_orderings_csv(R, gz)
        assert read_orderings_csv(gz) == R
        REPORT[path.name] = f"{R.n_rankings} orderings of {R.n_items} items"


def test_rankcluster_files(shared_data):
    for path in _files(shared_data, "rankcluster_misc/*_rankings.csv"):
        dims, dims2 = _both(read_rankcluster_csv, path)
        assert all(a == b for a, b in zip(dims, dims2, strict=True))
        assert all(d.n_rankings == _data_lines(path, skip_header=1) for d in dims)


def test_sushi_order_files(shared_data, tmp_path):
    files = _files(shared_data, "sushi3/*.order")
    if not files:
        pytest.skip("no SUSHI order files")
    for path in files:
        R, R2 = _both(read_sushi_order, path)
        assert R == R2
        assert R.n_rankings == _data_lines(path, skip_header=1)
        out = tmp_path / (path.name + ".csv")  # licensed data: only in tmp_path
        write_orderings_csv(R, out, one_based=False, missing=-1)
        back = read_orderings_csv(out, one_based=False, missing=-1, n_items=R.n_items)
        np.testing.assert_array_equal(back.ranks, R.ranks)
        REPORT[path.name] = f"{R.n_rankings} orders of {int(R.lengths.max())} of {R.n_items}"


@pytest.mark.parametrize("name", ["cluster_data", "potato_visual", "potato_weighing"])
def test_bayesmallows_rank_vectors(shared_data, name):
    path = shared_data / "bayesmallows_misc" / f"{name}.csv"
    if not path.exists():
        pytest.skip(f"{path} missing")
    text = path.read_text()
    if name.startswith("potato"):
        # first column: assessor ids ("A1"); the reader takes rank columns only
        rows = [ln.split(",", 1)[1] for ln in text.splitlines()]
        text = "\n".join(rows) + "\n"
    R = read_ranks_csv(io.StringIO(text), header=True)
    n_lines = len([ln for ln in text.splitlines() if ln.strip()]) - 1
    assert R.n_rankings == n_lines
    assert R.is_complete  # complete rankings, 1..m per row
    buf = io.StringIO()
    write_ranks_csv(R, buf)
    assert read_ranks_csv(io.StringIO(buf.getvalue())) == R
    vals = np.loadtxt(io.StringIO(text), delimiter=",", skiprows=1)
    np.testing.assert_array_equal(R.to_ranks(), vals.astype(np.int64))


def test_numeric_item_names_round_trip():
    """Fixed here: items named "0", "1", ... were written as a bare numeric header, which the
    readers' header detection takes for a data row (a silent extra ranking). The writers now
    quote such names; a bare numeric first row still is data unless header=True."""
    R = read_ranks_csv(io.StringIO("0,1,2\n1,2,3\n"))
    assert R.n_rankings == 2  # documented: a row of numbers is data
    R = read_ranks_csv(io.StringIO("0,1,2\n1,2,3\n"), header=True)
    assert R.n_rankings == 1 and R.items == ("0", "1", "2")
    for names in (["0", "1", "2"], ["1.5", "nan", "x"], ["NA", "-3", "1e5"]):
        S = Rankings([[0, 1, 2], [2, -1, 0]], items=names)
        buf = io.StringIO()
        write_ranks_csv(S, buf)
        assert read_ranks_csv(io.StringIO(buf.getvalue())) == S
        T = Rankings([[0, 1, 2], [2, 0, 1]], kind="top")
        buf = io.StringIO()
        write_orderings_csv(T, buf, header=names)
        assert read_orderings_csv(io.StringIO(buf.getvalue())) == T
    with pytest.raises(ValueError, match="cannot be written to a CSV header"):
        write_ranks_csv(Rankings([[0, 1]], items=["a,b", "c"]), io.StringIO())


def test_rankings_survive_every_writer(tmp_path):
    """One Rankings with ties, absent items, names and integer weights through every format."""
    R = Rankings.from_orderings(
        [[2, 0, 1, 3], [1, (0, 3)], [3, 2], [0]],
        n_items=4,
        kind="top",
        weights=[5, 2, 1, 7],
        items=["a", "b", "c", "d é"],
    )
    p = tmp_path / "x.toi"
    write_preflib(R, p)
    assert read_preflib(p) == R
    q = tmp_path / "x.csv"
    write_ranks_csv(R, q, header=list(R.items))
    back = read_ranks_csv(q, kind="top")
    np.testing.assert_array_equal(back.ranks, R.ranks)

"""Hostile input files and values of issue #16 (readers, CLI, numerics): refused or bounded.

Each file is small and built in ``tmp_path``. Everything that could allocate gigabytes or hang
runs in a subprocess under an address-space limit and a time limit (``run_isolated``, or
``prlimit``-like ``setrlimit`` for the CLI), and must end in a one-line ``ValueError`` naming
the file (and the line where there is one) -- or, for the CLI, exit code 2 with one line on
stderr -- never a signal, a traceback, a hang or a wrong answer.
"""

from __future__ import annotations

import gzip
import os
import subprocess
import sys

import numpy as np
import pytest

from rankclust import Rankings
from rankclust.io import DataFormatError, InputLimits, read_preflib, resolve_limits
from tests.reliability._harness import PYTHON, SRC, run_isolated

MEMORY_GB = 2.0  # every case below must stay far under this


def _refused(res: dict, *fragments: str) -> str:
    """The isolated call raised a one-line ValueError (or subclass) holding ``fragments``."""
    assert res["status"] == "raised", res
    assert res["type"] in ("DataFormatError", "ValueError"), res
    msg = res["message"]
    assert "\n" not in msg.strip(), msg
    for f in fragments:
        assert f in msg, (f, msg)
    return msg


def _cli(
    *args: str, memory_gb: float = MEMORY_GB, timeout: float = 60
) -> subprocess.CompletedProcess:
    """``rankclust ARGS`` in a subprocess under an address-space limit."""
    limit = int(memory_gb * 2**30)
    prog = (
        "import resource, sys; "
        f"resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit})); "
        "from rankclust.cli import main; sys.exit(main(sys.argv[1:]))"
    )
    env = {**os.environ, "PYTHONPATH": str(SRC.parent), "NUMBA_NUM_THREADS": "1"}
    return subprocess.run(
        [PYTHON, "-c", prog, *args], capture_output=True, text=True, timeout=timeout, env=env
    )


def _cli_refused(proc: subprocess.CompletedProcess, *fragments: str) -> str:
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-2000:])
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    for f in fragments:
        assert f in lines[0], (f, lines[0])
    return lines[0]


# ------------------------------------------------------------------ limits themselves
def test_limits_resolve_keyword_over_environment_over_default(monkeypatch):
    assert resolve_limits().max_items == InputLimits().max_items
    monkeypatch.setenv("RANKCLUST_MAX_ITEMS", "7")
    assert resolve_limits().max_items == 7
    assert resolve_limits({"max_items": 9}).max_items == 9
    assert resolve_limits(InputLimits(max_items=11)).max_items == 11
    with pytest.raises(ValueError, match="unknown limit"):
        resolve_limits({"max_itmes": 1})
    monkeypatch.setenv("RANKCLUST_MAX_ITEMS", "lots")
    with pytest.raises(ValueError, match="RANKCLUST_MAX_ITEMS"):
        resolve_limits()


def test_limits_accept_the_largest_real_file_shape():
    # MSNBC, the largest file in the data directory: 12.6 MB, 989,818 rows, 17 items
    lim = InputLimits()
    assert 12_581_691 < lim.max_input_bytes and 989_818 < lim.max_rows
    assert 989_818 * 17 < lim.max_cells


def test_keyword_limit_is_named_in_the_refusal(tmp_path):
    path = tmp_path / "a.soi"
    path.write_text("# NUMBER ALTERNATIVES: 5\n1: 1,2\n")
    with pytest.raises(DataFormatError, match=r"a\.soi, line 1: declares 5 items.*max_items=4"):
        read_preflib(path, limits={"max_items": 4})
    assert read_preflib(path, limits={"max_items": 5}).n_items == 5


# ------------------------------------------------------------------ 3. memory bombs
def test_gzip_bomb_is_stopped_at_the_byte_budget(tmp_path):
    path = tmp_path / "bomb.soi.gz"
    head = b"# DATA TYPE: soi\n# NUMBER ALTERNATIVES: 3\n"
    path.write_bytes(gzip.compress(head + b"1: 1,2\n" * 3_000_000, 6))  # ~60 KB -> 21 MB
    res = run_isolated(
        f"""
        from rankclust.io import read_preflib
        read_preflib({str(path)!r}, limits={{"max_input_bytes": 2**20}})
        result = None
        """,
        memory_gb=MEMORY_GB,
        timeout=60,
    )
    _refused(res, "bomb.soi.gz", "max_input_bytes")


def test_cli_item_count_from_a_huge_value_is_refused(tmp_path):
    path = tmp_path / "huge.csv"
    path.write_text("1,2,3\n2,1,3\n3,2,100000000\n")
    _cli_refused(_cli("cluster", str(path), "-k", "2", "--quiet"), "huge.csv, line 3", "max_items")


def test_preflib_declaring_many_items_fails_before_em(tmp_path):
    path = tmp_path / "many.soi"
    path.write_text("# NUMBER ALTERNATIVES: 20000\n1: 1,2\n1: 2,1\n")
    _cli_refused(_cli("cluster", str(path), "-k", "1", "--quiet"), "20000 items", "limit")


def test_msnbc_with_too_many_categories_is_refused(tmp_path):
    path = tmp_path / "wide.seq"
    names = " ".join(f"c{i}" for i in range(200_000))
    path.write_text(
        f"% Different categories found in input file:\n\n{names}\n\n% Sequences:\n\n"
        + "1 2 3\n" * 20_000
    )
    res = run_isolated(
        f"from rankclust.io import read_msnbc\nread_msnbc({str(path)!r})\nresult = None",
        memory_gb=MEMORY_GB,
        timeout=60,
    )
    _refused(res, "wide.seq, line 3", "200000 items", "max_items")


def test_msnbc_cells_limit(tmp_path):
    path = tmp_path / "cells.seq"
    path.write_text("% x\n\na b c d\n\n% Sequences:\n\n" + "1 2\n" * 100)
    res = run_isolated(
        f"from rankclust.io import read_msnbc\n"
        f"read_msnbc({str(path)!r}, limits={{'max_cells': 399}})\nresult = None",
        memory_gb=MEMORY_GB,
    )
    _refused(res, "cells.seq", "max_cells")


def test_select_k_huge_range_is_refused_before_building_it(tmp_path):
    path = tmp_path / "small.soi"
    path.write_text("# NUMBER ALTERNATIVES: 3\n3: 1,2,3\n2: 2,1,3\n1: 3,2,1\n2: 1,3,2\n")
    _cli_refused(_cli("select-k", str(path), "--ks", "1.." + "1" + "0" * 30, "--quiet"), "--ks")
    _cli_refused(_cli("select-k", str(path), "--ks", "1..1000000000", "--quiet"), "K=1000000000")


@pytest.mark.parametrize(
    ("name", "limit", "text"),
    [
        ("a.csv", "max_rows", "1,2,3\n" * 50),
        ("b.order", "max_rows", "3 1\n" + "0 3 0 1 2\n" * 50),
        ("c.soi", "max_rows", "# NUMBER ALTERNATIVES: 3\n" + "1: 1,2,3\n" * 50),
        ("d.csv", "max_items", ",".join(map(str, range(1, 40))) + "\n"),
        ("e.soi", "max_items", "1: " + ",".join(map(str, range(1, 40))) + "\n"),
        ("f.order", "max_items", "39 1\n0 2 0 1\n"),
        ("g.csv", "max_cells", "1,2,3,4,5,6\n" * 9),
        ("h.lr", "max_rows", "50,1,3\n" + "0.5,1,2,3\n" * 50),
    ],
)
def test_each_reader_checks_its_limits(tmp_path, name, limit, text):
    from rankclust import io as rio

    path = tmp_path / name
    path.write_text(text)
    reader = {
        "csv": rio.read_orderings_csv,
        "order": rio.read_sushi_order,
        "soi": rio.read_preflib,
        "lr": rio.read_label_ranking_csv,
    }[name.split(".")[1]]
    limits = {"max_rows": 10, "max_items": 30, "max_cells": 50}
    with pytest.raises(DataFormatError, match=limit) as info:
        reader(path, limits=limits)
    assert str(path) in str(info.value) and "\n" not in str(info.value)


# ------------------------------------------------------------------ 4. messages, not tracebacks
def test_cli_corrupt_and_truncated_gzip(tmp_path):
    good = gzip.compress(b"# NUMBER ALTERNATIVES: 3\n" + b"1: 1,2,3\n" * 2000)
    bad = bytearray(good)
    bad[20:40] = b"\x00" * 20
    (tmp_path / "corrupt.soi.gz").write_bytes(bytes(bad))
    rows = "".join(f"{i % 7 + 1},{(i + 3) % 7 + 1},{i % 5 + 9}\n" for i in range(5000))
    (tmp_path / "cut.csv.gz").write_bytes(gzip.compress(rows.encode())[:-200])
    for name in ("corrupt.soi.gz", "cut.csv.gz"):
        proc = _cli("cluster", str(tmp_path / name), "-k", "2", "--quiet")
        _cli_refused(proc, name, "gzip")


@pytest.mark.parametrize("strict", [True, False])
def test_preflib_huge_numbers(tmp_path, strict):
    import warnings

    path = tmp_path / "n.soi"
    path.write_text(
        "# NUMBER ALTERNATIVES: 3\n1: 1,2,3\n1" + "0" * 400 + ": 1,2,3\n1: 1," + "9" * 5000 + "\n"
    )
    if strict:
        with pytest.raises(DataFormatError, match=r"n\.soi, line 3: count 1000.*401 digits"):
            read_preflib(path)
    else:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            R = read_preflib(path, strict=False)
        assert R.n_rankings == 1  # lines 3 and 4 skipped, as strict=False promises
        assert [s.line for s in w[0].message.skipped] == [3, 4]


def test_sushi_huge_number_lenient(tmp_path):
    import warnings

    from rankclust.io import read_sushi_order

    path = tmp_path / "x.order"
    path.write_text("3 1\n0 3 0 1 2\n0 3 0 1 " + "9" * 5000 + "\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert read_sushi_order(path, strict=False).n_rankings == 1
    with pytest.raises(DataFormatError, match=r"x\.order, line 3"):
        read_sushi_order(path)


def test_cli_non_ascii_digit_and_nan_features(tmp_path):
    (tmp_path / "sup.csv").write_text("1,2,3\n2,1,\u00b2\n", encoding="utf-8")
    _cli_refused(_cli("cluster", str(tmp_path / "sup.csv"), "-k", "1", "--quiet"), "line 2")
    (tmp_path / "nan.csv").write_text("2,2,3\n0.5,nan,1,2,3\n0.1,0.2,2,1,3\n")
    proc = _cli("labelrank", str(tmp_path / "nan.csv"), "--quiet")
    _cli_refused(proc, "nan.csv, line 2", "feature 2")


# ------------------------------------------------------------------ 5. hangs
def test_preflib_ballot_over_a_million_alternatives(tmp_path):
    path = tmp_path / "million.soi"
    path.write_text("1: " + ",".join(map(str, range(1, 1_000_001))) + "\n")
    _cli_refused(
        _cli("cluster", str(path), "-k", "1", "--quiet", timeout=30), "line 1", "max_items"
    )


def test_pairwise_ranker_on_subnormal_features_returns():
    res = run_isolated(
        """
        import numpy as np
        from rankclust.label_ranking import PairwiseLabelRanker
        rng = np.random.default_rng(0)
        X = rng.normal(size=(200, 3))
        Y = np.argsort(np.argsort(X @ rng.normal(size=(3, 4)) + rng.normal(size=(200, 4)), 1), 1) + 1
        P = PairwiseLabelRanker().fit(X * 1e-300, Y).predict(X[:3] * 1e-300)
        result = P.tolist()
        """,
        memory_gb=MEMORY_GB,
        timeout=30,
    )
    assert res["status"] == "ok", res
    assert len(res["result"]) == 3


# ------------------------------------------------------------------ 6. silently wrong
def test_weights_whose_total_overflows_are_refused():
    O = [[0, 1, 2], [1, 2, 0], [2, 0, 1], [0, 2, 1]]
    with pytest.raises(ValueError, match="divide them by their maximum"):
        Rankings.from_orderings(O, weights=[1e308, 1e308, 1.0, 1.0])
    from rankclust.cluster import MallowsMixture, PlackettLuceMixture
    from rankclust.models import Mallows, PlackettLuce

    R = Rankings.from_orderings(O)
    sw = [1e308, 1e308, 1.0, 1.0]
    for est in (
        PlackettLuce(),
        Mallows(),
        PlackettLuceMixture(n_components=1, n_init=1, random_state=0),
        MallowsMixture(n_components=1, n_init=1, random_state=0),
    ):
        with pytest.raises(ValueError, match="largest float64"):
            est.fit(R, sample_weight=sw)
    # large but summable weights still fit to finite scores
    ok = Rankings.from_orderings(O, weights=[1e307, 1e307, 1.0, 1.0])
    assert np.isfinite(PlackettLuce(alpha=0.1).fit(ok).scores_).all()


def test_dask_wrong_declared_chunk_sizes_fail():
    dask = pytest.importorskip("dask")
    from rankclust._dask import ChunkedRankings
    from rankclust.cluster import MallowsMixture

    rng = np.random.default_rng(0)
    R = Rankings(np.argsort(np.argsort(rng.normal(size=(30, 4)), 1), 1))
    parts = [dask.delayed(R[0:15]), dask.delayed(R[15:30])]
    CR = ChunkedRankings.from_delayed(parts, n_items=4, kind="subset", sizes=[3, 3])
    with pytest.raises(ValueError, match="declared size is 3"):
        CR.to_rankings()
    m = MallowsMixture(n_components=2, random_state=0, n_init=1).fit(R)
    with pytest.raises(ValueError, match="declared size is 3"):
        np.asarray(m.predict(CR))
    with pytest.raises(ValueError, match="2 sizes given for 1 chunks"):
        ChunkedRankings.from_delayed(parts[:1], n_items=4, kind="subset", sizes=[3, 3])
    good = ChunkedRankings.from_delayed(parts, n_items=4, kind="subset", sizes=[15, 15])
    assert np.asarray(m.predict(good)).shape == (30,)


def test_dask_array_with_wrong_block_shapes_fails():
    dask = pytest.importorskip("dask")
    import dask.array as da

    from rankclust._dask import ChunkedRankings

    block = dask.delayed(np.tile([1, 2, 3], (15, 1)))
    X = da.from_delayed(block, shape=(3, 3), dtype=np.int64)  # declares 3 rows, holds 15
    CR = ChunkedRankings.from_dask_array(X)
    with pytest.raises(ValueError, match="holds 15 rows but its declared size is 3"):
        CR.to_rankings()


def test_suite_runs_in_a_fresh_interpreter():
    # the subprocess helpers above import this worktree's rankclust
    out = subprocess.run(
        [PYTHON, "-c", "import rankclust; print(rankclust.__file__)"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(SRC.parent)},
        check=True,
    ).stdout
    assert out.strip().startswith(str(SRC)), (out, sys.path[:3])

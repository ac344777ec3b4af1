"""Hostile input for the one data type: every constructor of :class:`Rankings`,
:func:`check_rankings` and the sufficient statistics.

Each case ends in a documented result, checked against a pure-Python reference, or in a clean
``ValueError``/``TypeError`` raised by rankclust (see ``_harness.outcome``). Defects of
``rankings.py`` (which this helper may not edit) are pinned by ``xfail(strict=True)`` tests
whose reason starts with "defect:".
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from rankclust import Rankings, check_rankings
from rankclust.rankings import rank_dtype
from tests.reliability._harness import assert_clean, outcome, run_isolated

FUZZ = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)

# ------------------------------------------------------------------------------------ strategies
_scalar_item = st.one_of(
    st.integers(-3, 12),
    # mid-size huge items (1e6..1e12) make numpy allocate n x item bytes: see the isolated
    # tests at the end; here only sizes numpy refuses at once
    st.sampled_from([2**63, 2**70, -(2**70), 10**4]),
    # floats in item range, or non-finite / beyond int64 (numpy refuses those at once);
    # 1e6..1e18 would make from_orderings allocate n x item bytes (the xfailed defect below)
    st.floats(-3, 20),
    st.sampled_from([np.nan, np.inf, -np.inf, 1e300, -1e300, 2.5, 9.3e18]),
    st.sampled_from([0.0, 1.0, 2.5, -0.0, True, False, None, "1", b"2", 1j]),
    st.integers(0, 6).map(np.int32),
    st.integers(0, 6).map(np.float64),
)
_entry = st.one_of(
    _scalar_item,
    st.lists(_scalar_item, max_size=3).map(tuple),  # a bucket of tied items
    st.frozensets(st.integers(0, 6), max_size=3),
    st.just([]),
)
hostile_orderings = st.lists(
    st.one_of(st.lists(_entry, max_size=6), st.just("012"), st.integers(0, 3), st.none()),
    max_size=6,
)
# orderings of valid small items only (duplicates and buckets allowed): used to check results
plain_orderings = st.lists(
    st.lists(
        st.one_of(st.integers(0, 7), st.lists(st.integers(0, 7), min_size=1, max_size=3)),
        max_size=8,
    ),
    max_size=6,
)

_dtypes = st.sampled_from(
    [np.int64, np.int8, np.uint8, np.float64, np.float32, np.bool_, np.complex128, "U2", object]
)


@st.composite
def hostile_matrices(draw):
    """Arrays of any dtype and ndim 0..3, or ragged nested lists, with hostile values."""
    if draw(st.booleans()):
        dtype = draw(_dtypes)
        shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5))
        if dtype is object:
            return np.array(draw(st.lists(_scalar_item, min_size=1, max_size=4)), dtype=object)
        elements = None
        if np.dtype(dtype).kind == "f":
            elements = st.floats(width=np.dtype(dtype).itemsize * 8, allow_subnormal=False)
        elif np.dtype(dtype).kind == "i":
            elements = st.integers(-3, 20) | st.sampled_from(
                [int(np.iinfo(dtype).min), int(np.iinfo(dtype).max)]
            )
        return draw(hnp.arrays(dtype, shape, elements=elements))
    return draw(
        st.lists(
            st.one_of(st.lists(_scalar_item, max_size=4), _scalar_item), min_size=0, max_size=4
        )
    )


# ----------------------------------------------------------------------------- references
def _reference_from_orderings(orderings, n_items):
    """Pure-Python rank matrix of valid orderings (None if a row repeats an item)."""
    rows = []
    for ordering in orderings:
        row: dict[int, int] = {}
        for pos, entry in enumerate(ordering):
            for item in entry if isinstance(entry, list) else [entry]:
                if item in row:
                    return None
                row[item] = pos
        rows.append(row)
    ranks = np.full((len(rows), n_items), -1, dtype=np.int64)
    for i, row in enumerate(rows):
        for j, p in row.items():
            ranks[i, j] = p
    return ranks


def _reference_dense(ranks: np.ndarray) -> np.ndarray:
    """Dense re-numbering of each row's present positions, in pure Python."""
    out = np.full(ranks.shape, -1, dtype=np.int64)
    for i, row in enumerate(ranks.tolist()):
        levels = sorted({p for p in row if p >= 0})
        for j, p in enumerate(row):
            if p >= 0:
                out[i, j] = levels.index(p)
    return out


def _assert_invariants(R: Rankings) -> None:
    """What every valid Rankings satisfies (the rank-matrix convention)."""
    ranks = R.ranks
    assert ranks.dtype == rank_dtype(R.n_items) and ranks.ndim == 2  # compact (decisions S1)
    assert not ranks.flags.writeable
    assert (ranks >= -1).all()
    for row in ranks:
        present = row[row >= 0]
        if present.size:
            assert set(present.tolist()) == set(range(int(present.max()) + 1))  # dense
    assert R.weights.shape == (R.n_rankings,) and np.isfinite(R.weights).all()
    assert (R.weights >= 0).all()


# -------------------------------------------------------------------------- constructors
@FUZZ
@given(hostile_orderings, st.one_of(st.none(), st.integers(-2, 9), st.just(2.0)))
def test_from_orderings_hostile(orderings, n_items):
    status, value = outcome("Rankings.from_orderings", Rankings.from_orderings, orderings, n_items)
    if status == "ok":
        _assert_invariants(value)
        assert value.n_rankings == len(orderings)


@FUZZ
@given(plain_orderings, st.one_of(st.none(), st.integers(0, 9)))
def test_from_orderings_matches_reference(orderings, n_items):
    status, value = outcome("Rankings.from_orderings", Rankings.from_orderings, orderings, n_items)
    m = n_items
    if m is None:
        m = 1 + max(
            (j for o in orderings for e in o for j in (e if isinstance(e, list) else [e])),
            default=-1,
        )
    too_big = any(
        j >= m for o in orderings for e in o for j in (e if isinstance(e, list) else [e])
    )
    ref = None if too_big else _reference_from_orderings(orderings, m)
    if ref is None:
        assert status == "error", "a repeated or out-of-range item was accepted"
        assert "row" in str(value)
    else:
        assert status == "ok", value
        np.testing.assert_array_equal(value.ranks, _reference_dense(ref))


@FUZZ
@given(
    hnp.arrays(
        np.float64,
        hnp.array_shapes(min_dims=2, max_dims=2, max_side=6),
        elements=st.floats(-2, 12) | st.sampled_from([np.nan, np.inf, -np.inf, 0.5]),
    ),
    st.sampled_from(["list", "array"]),
)
def test_from_orderings_float_matrix(arr, container):
    """The vectorised path (2-d arrays) and the list path agree on every float matrix."""
    data = arr if container == "array" else arr.tolist()
    s1, v1 = outcome("Rankings.from_orderings", Rankings.from_orderings, data)
    s2, v2 = outcome("Rankings.from_orderings", Rankings.from_orderings, arr.tolist())
    assert s1 == s2, (v1, v2)
    if s1 == "ok":
        assert v1 == v2


@FUZZ
@given(hostile_matrices(), st.sampled_from(["subset", "top", "bogus"]))
def test_rank_matrix_constructors_hostile(data, kind):
    for entry, fn in (
        ("Rankings", lambda d: Rankings(d, kind=kind)),
        ("Rankings.from_ranks", lambda d: Rankings.from_ranks(d, kind=kind)),
        ("check_rankings", lambda d: check_rankings(d, kind=kind if kind != "bogus" else None)),
    ):
        status, value = outcome(entry, fn, data)
        if status == "ok":
            _assert_invariants(value)
            arr = np.asarray(data)
            assert value.shape == arr.shape or arr.size == 0


@FUZZ
@given(
    hnp.arrays(
        np.float64,
        hnp.array_shapes(min_dims=2, max_dims=2, max_side=6),
        elements=st.one_of(st.integers(-2, 8).map(float), st.just(np.nan)),
    )
)
def test_from_ranks_matches_reference(arr):
    """0/NaN = missing, 1-based ranks, equal = tie, densified; negatives refused."""
    status, value = outcome("Rankings.from_ranks", Rankings.from_ranks, arr)
    filled = np.where(np.isnan(arr), 0, arr).astype(np.int64)
    if (filled < 0).any():
        assert status == "error" and "negative rank" in str(value)
        return
    assert status == "ok", value
    np.testing.assert_array_equal(value.ranks, _reference_dense(filled - 1))


@FUZZ
@given(
    st.lists(st.tuples(st.integers(-2, 6), st.integers(-2, 6)), max_size=8)
    # (an empty pair list [[]] is the xfailed defect below)
    | st.lists(st.lists(_scalar_item, min_size=1, max_size=3), max_size=4),
    st.one_of(st.none(), st.integers(0, 8)),
)
def test_from_pairs_hostile(pairs, n_items):
    status, value = outcome("Rankings.from_pairs", Rankings.from_pairs, pairs, n_items)
    if status == "ok":
        _assert_invariants(value)
        assert value.n_rankings == len(pairs)
        assert (value.lengths == 2).all() and not value.has_ties.any()
        for (u, v), row in zip(pairs, value.ranks, strict=True):
            # integral floats are accepted as item indices (1.0 is item 1)
            assert row[int(u)] == 0 and row[int(v)] == 1


@FUZZ
@given(
    st.one_of(
        st.none(),
        st.lists(st.floats(), min_size=0, max_size=4),
        st.lists(st.sampled_from(["a", None, 1j]), min_size=1, max_size=3),
        hnp.arrays(np.float64, (3, 1)),
    ),
    st.one_of(st.none(), st.lists(st.text(max_size=2), max_size=4), st.integers()),
)
def test_weights_and_items_hostile(weights, items):
    status, value = outcome(
        "Rankings(weights=, items=)",
        Rankings,
        [[0, 1, 2], [2, 1, 0], [1, 0, -1]],
        weights=weights,
        items=items,
    )
    if status == "ok":
        _assert_invariants(value)
        if weights is not None:
            np.testing.assert_array_equal(value.weights, np.asarray(weights, dtype=float))


@pytest.mark.parametrize(
    "data",
    [
        [],
        np.zeros((0, 4), dtype=int),
        np.zeros((3, 0), dtype=int),
        [[0]],
        [[0, 1]],
        [[-1, -1, -1]],
        [[0, 1, 2]] * 5,
    ],
    ids=["empty", "no-rows", "no-items", "m=1", "m=2", "all-absent", "all-identical"],
)
@pytest.mark.parametrize("kind", ["subset", "top"])
def test_degenerate_shapes_have_documented_statistics(data, kind):
    R = Rankings(data, kind=kind)
    n, m = R.shape
    C = R.pairwise_counts()
    assert C.shape == (m, m) and np.isfinite(C).all()
    assert np.all(np.diag(C) == 0)
    Cg = R.pairwise_counts(labels=np.zeros(n, dtype=int), n_groups=2)
    assert Cg.shape == (2, m, m)
    np.testing.assert_array_equal(Cg[0], C)
    assert (Cg[1] == 0).all()
    uniq, inverse = R.unique()
    np.testing.assert_array_equal(uniq.ranks[inverse], R.ranks)
    assert uniq.weights.sum() == n
    assert R.expand().shape == R.shape


# -------------------------------------------------------------------------- statistics
_valid = st.builds(
    lambda perms, drop, kind: Rankings(np.where(drop, -1, perms), kind=kind),
    st.integers(1, 5).flatmap(
        lambda m: hnp.arrays(
            np.int64, st.tuples(st.integers(0, 5), st.just(m)), elements=st.integers(0, m - 1)
        )
    ),
    st.booleans(),
    st.sampled_from(["subset", "top"]),
)


@FUZZ
@given(
    st.integers(0, 5).flatmap(
        lambda n: st.tuples(
            st.just(n),
            st.one_of(
                st.none(),
                hnp.arrays(np.float64, (n,), elements=st.floats(0, 1e6)),
                hnp.arrays(
                    np.float64, st.tuples(st.just(n), st.integers(1, 3)), elements=st.floats(0, 10)
                ),
                hnp.arrays(np.float64, st.integers(0, 6)),
            ),
            st.one_of(
                st.none(),
                hnp.arrays(np.int64, (n,), elements=st.integers(0, 3)),
                hnp.arrays(np.int64, st.integers(0, 6), elements=st.integers(-2, 5)),
            ),
        )
    ),
    st.integers(2, 5),
)
def test_pairwise_counts_hostile_weights_and_labels(spec, m):
    n, weights, labels = spec
    rng = np.random.default_rng(n * 31 + m)
    ranks = np.argsort(rng.random((n, m)), axis=1)
    ranks[rng.random((n, m)) < 0.3] = -1
    R = Rankings(ranks, kind="top" if m % 2 else "subset")
    status, C = outcome(
        "Rankings.pairwise_counts",
        R.pairwise_counts,
        weights,
        labels=labels,
        n_groups=None if labels is None or len(labels) == 0 else 4,
    )
    if status == "ok":
        assert np.isfinite(C).all() and (C >= 0).all()
        if weights is None and labels is None:
            # the reference: brute force over pairs
            ref = np.zeros((m, m))
            for row in R.ranks:
                for u in range(m):
                    for v in range(m):
                        if row[u] >= 0 and (
                            (row[v] >= 0 and row[u] < row[v]) or (R.kind == "top" and row[v] < 0)
                        ):
                            ref[u, v] += 1
            np.testing.assert_allclose(C, ref)


@pytest.mark.parametrize("bad", [np.nan, -1.0, np.inf])
def test_pairwise_counts_refuses_nonfinite_or_negative_weights(bad):
    R = Rankings([[0, 1, 2], [2, 1, 0]])
    assert_clean("Rankings.pairwise_counts", R.pairwise_counts, [1.0, bad])


def test_pairwise_counts_refuses_fractional_labels():
    R = Rankings([[0, 1, 2], [2, 1, 0]])
    assert_clean("Rankings.pairwise_counts", R.pairwise_counts, labels=[0.5, 1.0])


def test_concatenate_refuses_non_rankings():
    assert_clean("Rankings.concatenate", Rankings.concatenate, [np.zeros((1, 2))])


def test_expand_refuses_fractional_weights():
    """Fractional weights cannot be expanded: a clean error, never a silent rounding."""
    R = Rankings([[0, 1], [1, 0]], weights=[0.5, 2.0])
    assert_clean("Rankings.expand", R.expand)
    R0 = Rankings([[0, 1], [1, 0]], weights=[0.0, 0.0])
    assert R0.expand().n_rankings == 0  # documented: zero weight = no copy


# -------------------------------------------------------------------- huge item spaces
HUGE_M = 100_000


def test_top3_over_1e5_items_is_cheap_to_hold():
    """A top-3 list over 10^5 items: O(n m) storage, no (m, m) allocation anywhere cheap."""
    R = Rankings.from_orderings([[5, 70_000, 3], [1, 2, 3]], n_items=HUGE_M, kind="top")
    assert R.shape == (2, HUGE_M) and R.ranks.nbytes == 2 * HUGE_M * rank_dtype(HUGE_M).itemsize
    np.testing.assert_array_equal(R.lengths, [3, 3])
    uniq, inv = R.unique()
    assert uniq.n_rankings == 2 and len(inv) == 2
    assert R.to_orderings() == [[5, 70_000, 3], [1, 2, 3]]


@pytest.mark.slow
def test_pairwise_counts_at_1e5_items_refuses_without_crashing():
    """(m, m) at m = 1e5 is 80 GB: the call must fail cleanly, not be OOM-killed.

    Run in a subprocess capped at 4 GB of address space. Today numpy raises MemoryError
    ("Unable to allocate 74.5 GiB") before touching memory; a clear ValueError from
    rankclust would be better (see the xfail below).
    """
    res = run_isolated(
        f"""
        from rankclust import Rankings
        R = Rankings.from_orderings([[5, 70000, 3]], n_items={HUGE_M}, kind="top")
        R.pairwise_counts()
        result = "allocated"
        """,
        timeout=60,
    )
    assert res["status"] == "raised", res
    assert res["type"] in ("MemoryError", "ValueError"), res


@pytest.mark.slow
def test_pairwise_counts_at_1e5_items_raises_a_rankclust_valueerror():
    res = run_isolated(
        f"""
        from rankclust import Rankings
        R = Rankings.from_orderings([[5, 70000, 3]], n_items={HUGE_M}, kind="top")
        R.pairwise_counts()
        result = "allocated"
        """,
        timeout=60,
    )
    # refused by rankclust's own size check (rankclust/_limits.py), not by numpy's allocator
    assert res.get("type") == "ValueError" and "_limits.py" in res.get("where", ""), res
    assert "pairwise counts over 100000 items" in res.get("message", ""), res


@pytest.mark.parametrize("item", [10**12, 2**62, 10**30])
def test_from_orderings_huge_item_is_refused_cleanly(item):
    assert_clean("Rankings.from_orderings", Rankings.from_orderings, [[0, item]])


def test_from_orderings_huge_item_does_not_kill_the_process():
    """Whatever the error, a giant item index must not take the interpreter down."""
    res = run_isolated(
        """
        from rankclust import Rankings
        Rankings.from_orderings([[0, 10**9]])
        result = "allocated"
        """,
        timeout=60,
        memory_gb=2.0,
    )
    assert res["status"] in ("raised",), res


def test_sparse_input_is_refused_with_a_clear_message():
    import scipy.sparse as sp

    err = assert_clean("check_rankings", check_rankings, sp.csr_matrix(np.eye(3)))
    assert "sparse" in str(err)


def test_from_pairs_refuses_an_empty_pair():
    assert_clean("Rankings.from_pairs", Rankings.from_pairs, [[]])

"""Tests of rankclust.bucket_consensus: pair-order matrix, OBOP cost, Bucket Pivot Algorithm."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from rankclust import Rankings
from rankclust.bucket_consensus import (
    _bucket_pivot_many,
    _dani,
    _dani_rows,
    bucket_order_cost,
    bucket_order_matrix,
    bucket_pivot,
    pair_order_from_counts,
    pair_order_matrix,
    precedence_counts,
)


# ----------------------------------------------------------------------------- references
def all_bucket_orders(m: int):
    """Every weak order of m items as dense 0-based bucket positions."""
    for b in itertools.product(range(m), repeat=m):
        used = sorted(set(b))
        if used == list(range(len(used))):
            yield np.array(b)


def brute_force_obop(P: np.ndarray) -> float:
    return min(bucket_order_cost(P, b) for b in all_bucket_orders(P.shape[0]))


def reference_bpa(P, priority, beta=0.25, multi_pivot=True, two_stage=True):
    """Recursive BPA in exact arithmetic, written from the description (Aledo et al. 2017).

    ``P``, ``priority`` and ``beta`` are read as fractions of small denominator (those of a
    few rankings), so preferences exactly on a threshold and exact DANI ties are decided
    exactly. Stage 2 re-inserts against the bucket stage 1 ended with (it does not grow).
    """
    P = [[Fraction(float(x)).limit_denominator(10_000) for x in row] for row in np.asarray(P)]
    pri = [Fraction(float(x)).limit_denominator(10**9) for x in priority]
    beta = Fraction(beta).limit_denominator(1000)

    def place(items, centre, piv, grow=True):
        ref = centre if grow else list(centre)
        left, right = [], []
        for it in items:
            if it == piv:
                continue
            s = sum(P[c][it] for c in ref) / len(ref) if multi_pivot else P[piv][it]
            if s < Fraction(1, 2) - beta:
                left.append(it)
            elif s <= Fraction(1, 2) + beta:
                centre.append(it)
            else:
                right.append(it)
        return left, right

    def rec(items):
        if not items:
            return []
        piv = min(items, key=lambda it: (pri[it], items.index(it)))
        centre = [piv]
        left, right = place(items, centre, piv)
        if multi_pivot and two_stage:
            left, right = place(left + right, centre, piv, grow=False)
        return [*rec(left), centre, *rec(right)]

    b = np.empty(len(P), dtype=np.int64)
    for k, bucket in enumerate(rec(list(range(len(P))))):
        b[bucket] = k
    return b


def exact_dani(P):
    """DANI indexes in exact arithmetic (``P`` of small denominators)."""
    P = [[Fraction(float(x)).limit_denominator(10_000) for x in row] for row in np.asarray(P)]
    m = len(P)
    out = []
    for u in range(m):
        d = Fraction(0)
        for v in range(m):
            if v != u:
                p = P[u][v]
                utopia = 1 if p > Fraction(3, 4) else (0 if p < Fraction(1, 4) else Fraction(1, 2))
                d += abs(p - utopia)
        out.append(d / max(m - 1, 1))
    return out


def random_pair_order(rng, m, n=7, tie_rate=0.4):
    ranks = []
    for _ in range(n):
        r = rng.permutation(m) + 1
        r = np.where(rng.random(m) < tie_rate, np.minimum(r, m // 2 + 1), r)
        ranks.append(r)
    return pair_order_matrix(np.array(ranks))


# ----------------------------------------------------------------------------- statistic
def test_precedence_counts_hand_computed():
    prec, ties = precedence_counts([[1, 2, 2], [2, 1, 0]], sample_weight=[1.0, 3.0])
    np.testing.assert_array_equal(prec, [[0, 1, 1], [3, 0, 0], [0, 0, 0]])
    np.testing.assert_array_equal(ties, [[0, 0, 0], [0, 0, 1], [0, 1, 0]])


def test_weighted_equals_expanded():
    rng = np.random.default_rng(0)
    ranks = rng.integers(0, 4, size=(12, 5))
    w = rng.integers(1, 4, size=12)
    R = Rankings.from_ranks(ranks)
    expanded = Rankings.from_ranks(np.repeat(ranks, w, axis=0))
    np.testing.assert_allclose(
        pair_order_matrix(R, sample_weight=w), pair_order_matrix(expanded), atol=1e-12
    )


def test_pair_order_complement_and_unobserved_pairs():
    P = pair_order_matrix([[1, 2, 0], [0, 1, 1], [2, 1, 0]])
    np.testing.assert_allclose(P + P.T, 1.0)
    assert P[0, 2] == 0.5  # never observed together
    assert P[0, 1] == 0.5  # one each way
    assert P[1, 2] == 0.5  # tied once
    assert pair_order_from_counts(np.zeros((2, 2)), np.zeros((2, 2)))[0, 1] == 0.5


def test_cost_of_a_bucket_order_against_itself_is_zero():
    b = np.array([1, 0, 1, 2])
    assert bucket_order_cost(bucket_order_matrix(b), b) == 0.0
    assert bucket_order_cost(bucket_order_matrix(b), [0, 1, 2, 3]) > 0


# ----------------------------------------------------------------------------- BPA
@pytest.mark.parametrize("m", [1, 2, 3, 5, 8])
def test_bpa_recovers_a_single_bucket_order(m):
    rng = np.random.default_rng(m)
    for _ in range(10):
        b = rng.integers(0, m, size=m)
        b = np.unique(b, return_inverse=True)[1]  # dense
        P = pair_order_matrix((b + 1)[None, :])
        for pivot in ("dani", "random"):
            for mp, ts in ((True, True), (True, False), (False, False)):
                got = bucket_pivot(P, pivot=pivot, multi_pivot=mp, two_stage=ts, random_state=0)
                np.testing.assert_array_equal(got, b)


def test_bpa_known_case_scikit_lr():
    # scikit-lr's test_aggregate_bpa_lia_mp2: one bucket for [[1,2,2],[2,2,1],[2,1,1]]
    P = pair_order_matrix([[1, 2, 2], [2, 2, 1], [2, 1, 1]])
    np.testing.assert_array_equal(bucket_pivot(P), [0, 0, 0])


@pytest.mark.parametrize("multi_pivot,two_stage", [(True, True), (True, False), (False, False)])
@pytest.mark.parametrize("beta", [0.1, 0.25, 0.4])
def test_kernel_matches_recursive_reference(multi_pivot, two_stage, beta):
    rng = np.random.default_rng(1)
    for _ in range(40):
        m = int(rng.integers(2, 9))
        P = random_pair_order(rng, m)
        want = reference_bpa(P, exact_dani(P), beta, multi_pivot, two_stage)
        got = bucket_pivot(P, beta=beta, multi_pivot=multi_pivot, two_stage=two_stage)
        np.testing.assert_array_equal(got, want)


def test_random_pivot_reproducible_and_matches_reference():
    rng = np.random.default_rng(2)
    P = random_pair_order(rng, 7)
    a = bucket_pivot(P, pivot="random", random_state=3)
    np.testing.assert_array_equal(a, bucket_pivot(P, pivot="random", random_state=3))
    pri = np.random.RandomState(3).random_sample((1, 7))[0]
    np.testing.assert_array_equal(a, reference_bpa(P, pri))


@pytest.mark.parametrize("m", [3, 4, 5])
def test_bpa_close_to_brute_force_optimum(m):
    """BPA-LIA-MP2 is a heuristic: never below the optimum, and close to it on average."""
    rng = np.random.default_rng(10 + m)
    ratios, hits = [], 0
    for _ in range(30):
        P = random_pair_order(rng, m)
        best = brute_force_obop(P)
        got = bucket_order_cost(P, bucket_pivot(P))
        assert got >= best - 1e-12
        hits += got <= best + 1e-12
        ratios.append(got / best if best > 0 else 1.0)
    assert np.mean(ratios) < 1.15
    assert hits >= 15


def test_bpa_optimal_when_a_strict_majority_order_exists():
    # 3 of 5 rankings say 0 > 1 > 2 > 3, others noise: every pair is > 0.75 one way
    R = [[1, 2, 3, 4]] * 4 + [[2, 1, 3, 4]]
    P = pair_order_matrix(R)
    b = bucket_pivot(P)
    assert bucket_order_cost(P, b) == pytest.approx(brute_force_obop(P))
    np.testing.assert_array_equal(b, [0, 1, 2, 3])


def test_many_equals_one_by_one():
    rng = np.random.default_rng(4)
    Ps = np.stack([random_pair_order(rng, 6) for _ in range(5)])
    got = bucket_pivot(Ps)
    assert got.shape == (5, 6)
    for P, g in zip(Ps, got, strict=True):
        np.testing.assert_array_equal(g, bucket_pivot(P))
    np.testing.assert_array_equal(got, _bucket_pivot_many(Ps))


def test_bad_input():
    with pytest.raises(ValueError, match="square"):
        bucket_pivot(np.zeros((2, 3)))
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        bucket_pivot(np.full((2, 2), 2.0))
    with pytest.raises(ValueError, match="beta"):
        bucket_pivot(np.full((2, 2), 0.5), beta=0.7)
    with pytest.raises(ValueError, match="pivot"):
        bucket_pivot(np.full((2, 2), 0.5), pivot="first")


def test_dani_matches_exact():
    rng = np.random.default_rng(4)
    for m in (2, 4, 7):
        P = random_pair_order(rng, m)
        np.testing.assert_allclose(_dani(P), [float(d) for d in exact_dani(P)], atol=1e-12)


@pytest.mark.parametrize(
    ("ranks", "want"),
    [
        # the mean preference of the bucket {2, 0} against label 1 is exactly 1/4 (in it);
        # label 2 and 3 tie exactly on the DANI index (the first one is the pivot)
        ([[2, 2, 2, 1], [2, 1, 4, 3], [3, 2, 3, 1], [2, 2, 3, 1], [2, 2, 2, 1]], [1, 1, 1, 0]),
        # stage 2 compares with the bucket stage 1 ended with: a growing bucket would take
        # every label into one bucket
        (
            [[2, 2, 2, 1, 1], [2, 3, 2, 2, 1], [1, 2, 2, 2, 3], [1, 2, 2, 1, 3], [2, 3, 2, 1, 3]],
            [1, 1, 1, 0, 1],
        ),
    ],
)
def test_threshold_and_stage_two_cases(ranks, want):
    """Hand-checked cases in exact arithmetic (scikit-lr 0.3's bpa_lia_mp2 agrees)."""
    np.testing.assert_array_equal(bucket_pivot(pair_order_matrix(ranks)), want)


def test_stacked_pair_order_and_dani_equal_the_single_matrix_path():
    rng = np.random.default_rng(5)
    prec = rng.integers(0, 4, size=(6, 5, 5)).astype(float) * rng.random((6, 5, 5))
    ties = rng.integers(0, 3, size=(6, 5, 5)).astype(float)
    ties = ties + np.swapaxes(ties, 1, 2)
    prec[0] = ties[0] = 0.0  # no pair observed: all 1/2
    P = pair_order_from_counts(prec, ties)
    for i in range(6):
        np.testing.assert_array_equal(P[i], pair_order_from_counts(prec[i], ties[i]))
        np.testing.assert_allclose(_dani_rows(P)[i], _dani(P[i]), atol=1e-14)
    np.testing.assert_array_equal(P[0], np.full((5, 5), 0.5))

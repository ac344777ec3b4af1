"""Tests for rankclust.ordinal._qp: the structured interior-point method against Clarabel."""

from __future__ import annotations

import clarabel
import numpy as np
import pytest
import scipy.sparse as sp

from rankclust.ordinal import m2sorc as M
from rankclust.ordinal import ranking_pairs_from_labels
from rankclust.ordinal._qp import solve_slack_qp

TIGHT = dict(tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12, tol_ktratio=1e-10, max_iter=400)


def _clarabel_reference(G, h, unit, c, n_quad, A_in, r_in, A_eq):
    """The same QP written out in full for Clarabel: variables [v, t]."""
    m, p = G.shape
    U = c.shape[0]
    E = sp.csr_matrix((np.ones(m), (np.arange(m), unit)), shape=(m, U))
    A = sp.vstack(
        [
            sp.hstack([sp.csr_matrix(A_eq), sp.csr_matrix((A_eq.shape[0], U))]),
            sp.hstack([sp.csr_matrix(G), -E]),
            sp.hstack([sp.csr_matrix((U, p)), -sp.identity(U)]),
            sp.hstack([sp.csr_matrix(A_in), sp.csr_matrix((A_in.shape[0], U))]),
        ],
        format="csc",
    )
    b = np.concatenate([np.zeros(A_eq.shape[0]), h, np.zeros(U), r_in])
    P = sp.diags(np.concatenate([np.ones(n_quad), np.zeros(p - n_quad + U)]), format="csc")
    q = np.concatenate([np.zeros(p), c])
    cones = [clarabel.ZeroConeT(A_eq.shape[0])] if A_eq.shape[0] else []
    cones.append(clarabel.NonnegativeConeT(m + U + A_in.shape[0]))
    x, value, _, _ = M._clarabel((P, q, A, b, cones), M._clarabel_settings("qdldl", **TIGHT))
    return x[:p], x[p:], value


def _random_problem(rng, p=8, n_quad=5, U=40, rows_per_unit=(1, 3), m_eq=1, order=True):
    """Random hinge-slack QP; the last p - n_quad entries play the thresholds. Two extra units
    pull the first two thresholds against an ordering row b_0 <= b_1, so that row binds."""
    counts = rng.integers(rows_per_unit[0], rows_per_unit[1] + 1, U)
    unit = np.repeat(np.arange(U), counts)
    G = rng.normal(size=(unit.shape[0], p))
    h = rng.normal(0.5, 1.0, unit.shape[0])
    c = rng.uniform(0.2, 2.0, U)
    A_in, r_in = np.zeros((0, p)), np.zeros(0)
    if order:
        nb = p - n_quad
        i0 = n_quad
        pull = np.zeros((2, p))
        pull[0, i0] = -1.0  # 1 - b_0 <= t: wants b_0 >= 1
        pull[1, i0 + 1] = 1.0  # 1 + b_1 <= t: wants b_1 <= -1
        G = np.vstack([G, pull])
        h = np.concatenate([h, [-1.0, -1.0]])
        unit = np.concatenate([unit, [U, U + 1]])
        c = np.concatenate([c, [50.0, 50.0]])
        A_in = np.zeros((nb - 1, p))
        A_in[np.arange(nb - 1), i0 + np.arange(nb - 1)] = 1.0
        A_in[np.arange(nb - 1), i0 + np.arange(1, nb)] = -1.0
        r_in = np.zeros(nb - 1)
        # a two-sided "balance" band on a random combination
        band = rng.normal(size=(1, p))
        A_in = np.vstack([A_in, band, -band])
        r_in = np.concatenate([r_in, [0.3, 0.3]])
    A_eq = rng.normal(size=(m_eq, p))
    return G, h, unit, c, n_quad, A_in, r_in, A_eq


def _assert_same(res, ref_v, ref_t, ref_value, rtol=1e-6):
    assert res.status in ("Solved", "AlmostSolved")
    assert abs(res.value - ref_value) <= rtol * max(1.0, abs(ref_value))
    scale = max(1.0, np.abs(ref_v).max())
    np.testing.assert_allclose(res.v, ref_v, rtol=0, atol=rtol * scale)
    np.testing.assert_allclose(res.t, ref_t, rtol=0, atol=rtol * max(1.0, np.abs(ref_t).max()))


@pytest.mark.parametrize("rows_per_unit", [(1, 1), (1, 3), (0, 3)])
@pytest.mark.parametrize("m_eq", [0, 1, 2])
def test_matches_clarabel_on_random_problems(rng, rows_per_unit, m_eq):
    for _ in range(3):
        prob = _random_problem(rng, rows_per_unit=rows_per_unit, m_eq=m_eq)
        ref = _clarabel_reference(*prob)
        res = solve_slack_qp(*prob)
        _assert_same(res, *ref)
        G, h, unit, c, _, A_in, r_in, A_eq = prob
        # feasibility and the optimal slacks t_u = max(0, max_r (G v - h)_r)
        np.testing.assert_allclose(A_eq @ res.v, 0, atol=1e-8)
        assert np.all(A_in @ res.v <= r_in + 1e-8)
        hinge = np.zeros(c.shape[0])
        np.maximum.at(hinge, unit, G @ res.v - h)
        np.testing.assert_allclose(res.t, hinge, atol=1e-7 * max(1.0, hinge.max()))


def test_threshold_ordering_row_binds(rng):
    prob = _random_problem(rng, m_eq=0)
    res = solve_slack_qp(*prob)
    n_quad = prob[4]
    # the pulls want b_0 >= 1 > -1 >= b_1; the ordering row forces b_0 <= b_1, so b_0 = b_1
    assert res.v[n_quad] == pytest.approx(res.v[n_quad + 1], abs=1e-7)
    assert np.all(np.diff(res.v[n_quad:]) >= -1e-8)


def test_duplicated_rows_take_the_general_path_to_the_same_optimum(rng):
    """Repeating every row inside its unit leaves the QP unchanged but disables the
    one-row-per-slack fast path: both elimination formulas must agree."""
    G, h, unit, c, n_quad, A_in, r_in, A_eq = _random_problem(rng, rows_per_unit=(1, 1))
    one = solve_slack_qp(G, h, unit, c, n_quad, A_in, r_in, A_eq)
    two = solve_slack_qp(
        np.vstack([G, G]), np.tile(h, 2), np.tile(unit, 2), c, n_quad, A_in, r_in, A_eq
    )
    _assert_same(two, one.v, one.t, one.value)


def test_unit_without_rows_and_zero_cost(rng):
    G, h, unit, c, n_quad, A_in, r_in, A_eq = _random_problem(rng, order=False, m_eq=0)
    c = np.concatenate([c, [1.0]])  # a slack that no row uses: t = 0 at the optimum
    res = solve_slack_qp(G, h, unit, c, n_quad, A_in, r_in, A_eq)
    ref = _clarabel_reference(G, h, unit, c, n_quad, A_in, r_in, A_eq)
    _assert_same(res, *ref)
    assert res.t[-1] == pytest.approx(0.0, abs=1e-8)


def test_hand_solved_problem():
    # min 1/2 w^2 + t, 3 - w <= t, t >= 0
    res = solve_slack_qp(
        np.array([[-1.0]]),
        np.array([-3.0]),
        np.array([0]),
        np.array([1.0]),
        1,
        np.zeros((0, 1)),
        np.zeros(0),
        np.zeros((0, 1)),
    )
    # the hinge is active (w < 3), stationarity w - 1 = 0: w = 1, t = 2, value 1/2 + 2
    assert res.v[0] == pytest.approx(1.0, abs=1e-8)
    assert res.t[0] == pytest.approx(2.0, abs=1e-8)
    assert res.value == pytest.approx(2.5, abs=1e-8)


def _m2sorc_instance(rng, n, k, linearization, balance, D=6):
    y = np.sort(rng.integers(0, k, n))
    X = rng.normal(size=(n, 3)) + y[:, None] * np.array([1.0, 0.3, 0.0])
    Phi = np.hstack([X, rng.normal(size=(n, D - 3))])
    pairs = ranking_pairs_from_labels(y, max(2, n // 5), random_state=0)
    w, b = M._initial_point(Phi, pairs, k, "random", rng)
    a = Phi @ w
    mrows = M._margin_rows(a, b, linearization)
    rrows = M._ranking_rows(pairs, a, b, linearization)
    fixed = M._fixed_rows(Phi.mean(axis=0), k, n, balance)
    return Phi, pairs, mrows, rrows, fixed


@pytest.mark.parametrize("linearization", ["paper", "majorize"])
@pytest.mark.parametrize("k", [2, 3, 4, 5])
@pytest.mark.parametrize("balance", [0.0, 2.0])
@pytest.mark.parametrize("C2", [0.0, 1.5])
def test_m2sorc_qp_ipm_equals_clarabel(rng, linearization, k, balance, C2):
    """QP (6) with every constraint type: margin and ranking rows of both linearisations,
    balance equalities (l = 0, deduplicated for even k) or two-sided bands, threshold order."""
    for _ in range(2):
        Phi, pairs, mrows, rrows, fixed = _m2sorc_instance(rng, 60, k, linearization, balance)
        args = (Phi, len(pairs), k, 1.0, C2, mrows, rrows, fixed)
        res = M._solve_qp(*args, "ipm")
        problem = M._clarabel_problem(*args)
        x, value, _, _ = M._clarabel(problem, M._clarabel_settings("qdldl", **TIGHT))
        D = Phi.shape[1]
        assert abs(res.value - value) <= 1e-6 * max(1.0, abs(value))
        scale = max(1.0, np.abs(x[: D + k - 1]).max())
        np.testing.assert_allclose(res.w, x[:D], rtol=0, atol=1e-6 * scale)
        if C2 > 0:  # with C2 = 0 the thresholds need not be unique
            np.testing.assert_allclose(res.b, x[D : D + k - 1], rtol=0, atol=1e-6 * scale)
        assert np.all(np.diff(res.b) >= -1e-8 * scale)
        A_eq, A_ineq, rhs = fixed
        v = np.concatenate([res.w, res.b])
        np.testing.assert_allclose(A_eq @ v, 0, atol=1e-8 * scale)
        assert np.all(A_ineq @ v <= rhs + 1e-8 * scale)

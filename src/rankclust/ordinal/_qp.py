"""A structured primal-dual interior-point solver for the hinge-slack QPs of M2SORC.

The convex subproblems of M2SORC (and of max-margin models of the same shape) are

    min  1/2 ||v[:n_quad]||^2 + c^T t
    s.t. G v - t[unit] <= h        (m rows, each charged to one slack t_u)
         t >= 0                    (U slacks)
         A_in v <= r_in            (a few dense rows: balance, threshold order)
         A_eq v = 0                (a few dense rows: balance with l = 0)

with ``v = [w, b]`` of small dimension p (D features plus k - 1 thresholds), ``G`` a dense
``(m, p)`` block and one slack per sample or pair. A general sparse interior-point code
(Clarabel) factorises the whole KKT system of size O(m + U + p) each iteration. Here every
Newton system is reduced, exactly, to a dense ``p x p`` system: the inequality multipliers are
eliminated through the Nesterov-Todd (for the LP cone: diagonal) scaling, the slacks through
their diagonal block (each row touches one slack), which leaves the Schur complement

    S = diag(1_quad) + G^T W1 G + A_in^T W3 A_in - F^T diag(1 / H_tt) F,
    F = E^T W1 G  (U x p),  H_tt = E^T W1 1 + W2,

formed with dense BLAS products in O((m + U) p^2) and solved together with the equality rows
in O((p + n_eq)^3). Mehrotra's predictor-corrector drives the iteration.

Numerical care (the scaling ``W = z / s`` spans ~20 orders of magnitude near the optimum):

* the per-slack difference ``sum_r w_r g_r g_r^T - f f^T / H_u`` cancels when a row is active;
  it is formed instead as a weighted scatter about the slack's mean row plus a rank-one term
  with the weight ``w2 sum_r w_r / H_u`` (with one row per slack: ``G^T diag(w1 w2 / (w1 + w2))
  G``, one ``syrk``, and ``F`` is never formed);
* one step of iterative refinement on the full Newton system once W spans > 8 decades;
* the returned iterate is the most accurate one seen (by ``max(residuals, sqrt(gap))``: the
  solution error scales like the square root of the gap) when rounding stalls the iteration.

References
----------
S. Mehrotra, "On the implementation of a primal-dual interior point method", SIAM J. Optim.
2(4):575-601, 1992.
L. Vandenberghe, "The CVXOPT linear and quadratic cone program solvers", 2010 (the
initialisation and the eliminated Newton system used here).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
from numpy.typing import NDArray
from threadpoolctl import threadpool_limits

__all__ = ["SlackQPResult", "solve_slack_qp"]


@dataclass
class SlackQPResult:
    """Solution of :func:`solve_slack_qp`."""

    v: NDArray
    t: NDArray
    value: float
    status: str
    n_iter: int


def _max_step(x: NDArray, dx: NDArray) -> float:
    neg = dx < 0
    if not np.any(neg):
        return np.inf
    return float(np.min(-x[neg] / dx[neg]))


def solve_slack_qp(
    G: NDArray,
    h: NDArray,
    unit: NDArray,
    c: NDArray,
    n_quad: int,
    A_in: NDArray,
    r_in: NDArray,
    A_eq: NDArray,
    *,
    tol: float = 1e-10,
    tol_gap: float = 1e-13,
    max_iter: int = 100,
) -> SlackQPResult:
    """Solve the hinge-slack QP of the module docstring by a Mehrotra interior-point method.

    Parameters
    ----------
    G : ndarray of shape (m, p)
        Coefficients of the slack rows on ``v``.
    h : ndarray of shape (m,)
        Right-hand sides of the slack rows.
    unit : ndarray of int of shape (m,)
        Slack charged by each row, in ``0..U-1``.
    c : ndarray of shape (U,)
        Non-negative cost of each slack.
    n_quad : int
        The first ``n_quad`` entries of ``v`` carry the quadratic term 1/2 ||.||^2.
    A_in : ndarray of shape (m_in, p)
        Extra inequality rows ``A_in v <= r_in``.
    r_in : ndarray of shape (m_in,)
    A_eq : ndarray of shape (m_eq, p)
        Homogeneous equality rows ``A_eq v = 0`` (full row rank).
    tol : float, default=1e-10
        Relative tolerance on the primal and dual residuals.
    tol_gap : float, default=1e-13
        Relative tolerance on the duality gap; the error of the solution ``v`` scales like the
        square root of the gap, so 1e-13 gives ``v`` to ~1e-7. Rounding limits the attainable
        residuals to about 1e-11 (the scaling ``z / s`` spans ~20 orders of magnitude at the
        end); when the iteration stops improving, the most accurate iterate (by
        ``max(residuals, sqrt(gap))``) is returned, with status "AlmostSolved" if that is
        below 1e-5.
    max_iter : int, default=100
        Maximum interior-point iterations.

    Returns
    -------
    result : SlackQPResult
        ``v``, slacks ``t``, the optimal value, ``status`` ("Solved", "AlmostSolved" or
        "MaxIter") and the number of iterations.

    Notes
    -----
    The problem is always feasible when ``v = 0`` satisfies ``A_in v <= r_in`` (the slacks
    absorb every slack row), and bounded below when ``c >= 0``.

    Complexity: O(n_iter * ((m + U) p^2 + (p + m_eq)^3)) time, O((m + U) p) memory; p is the
    dimension of ``v``, typically 10-30 iterations.

    Examples
    --------
    >>> import numpy as np
    >>> # min 1/2 w^2 + t  s.t.  1 - w <= t, t >= 0  ->  w = 1, t = 0, value 0.5
    >>> r = solve_slack_qp(np.array([[-1.0]]), np.array([-1.0]), np.array([0]), np.array([1.0]),
    ...                    1, np.zeros((0, 1)), np.zeros(0), np.zeros((0, 1)))
    >>> round(float(r.v[0]), 6), round(r.value, 6)
    (1.0, 0.5)
    """
    # p is ~100: threaded BLAS buys nothing here and, on a loaded machine, loses a lot
    with threadpool_limits(1, user_api="blas"), np.errstate(all="ignore"):
        return _solve(G, h, unit, c, n_quad, A_in, r_in, A_eq, tol, tol_gap, max_iter)


class _SlackQP:
    """One QP of :func:`solve_slack_qp`: its data and the linear algebra of the iteration
    (products with the constraint matrix, the reduced Newton system and its solve)."""

    def __init__(self, G, h, unit, c, n_quad, A_in, r_in, A_eq) -> None:
        G = np.ascontiguousarray(G, dtype=np.float64)
        m, p = G.shape
        U = c.shape[0]
        self.m, self.p, self.U = m, p, U
        self.m_in, self.m_eq = A_in.shape[0], A_eq.shape[0]
        self.n_s = m + U + self.m_in
        self.c, self.n_quad, self.A_in, self.A_eq = c, n_quad, A_in, A_eq
        self.pdiag = np.zeros(p)
        self.pdiag[:n_quad] = 1.0
        self.single = m == U and np.array_equal(np.sort(unit), np.arange(U))
        if self.single:  # one row per slack: order the rows like the slacks, E = I
            order = np.argsort(unit)
            G, h, unit = G[order], h[order], np.arange(U)
            self.ET = None
        else:
            self.ET = sp.csr_matrix((np.ones(m), (unit, np.arange(m))), shape=(U, m))
        self.G, self.unit = G, unit
        self.h_all = np.concatenate([h, np.zeros(U), r_in])
        self.scale_h = max(1.0, float(np.abs(self.h_all).max(initial=0.0)))
        self.scale_q = max(1.0, float(np.abs(c).max(initial=0.0)))

    def et(self, x):
        """E^T x: sums row quantities into their slack."""
        return x if self.single else self.ET @ x

    def ex(self, x):
        """E x: a slack quantity on each of its rows."""
        return x if self.single else x[self.unit]

    def gmul(self, v, t):
        return np.concatenate([self.G @ v - self.ex(t), -t, self.A_in @ v])

    def gtmul(self, z):
        m, U = self.m, self.U
        z1, z2, z3 = z[:m], z[m : m + U], z[m + U :]
        return self.G.T @ z1 + self.A_in.T @ z3, -self.et(z1) - z2

    def factor(self, w_scale):
        """The LU factors of the reduced Newton system at the scaling ``w_scale``, or None
        when the scaling overflowed the dense solve."""
        G, p, m, U, unit = self.G, self.p, self.m, self.U, self.unit
        w1, w2, w3 = w_scale[:m], w_scale[m : m + U], w_scale[m + U :]
        # Per slack u with rows r: sum_r w_r g_r g_r^T - f f^T / H_u, f = sum_r w_r g_r,
        # H_u = sum_r w_r + w2_u. Near the optimum w_r / H_u -> 1 on active rows and the direct
        # difference cancels; the same matrix is written without cancellation as the weighted
        # scatter about gbar_u = f / sum_r w_r plus (w2_u sum_r w_r / H_u) gbar_u gbar_u^T.
        wsum = self.et(w1)
        htt = wsum + w2
        if self.single:  # gbar_u = g_u, the scatter vanishes; F = diag(w1) G is never formed
            Gb = G * np.sqrt(w1 * w2 / htt)[:, None]
            S = Gb.T @ Gb
            F = None
        else:
            F = self.ET @ (G * w1[:, None])  # (U, p)
            gbar = F / np.where(wsum > 0, wsum, 1.0)[:, None]
            Gc = (G - gbar[unit]) * np.sqrt(w1)[:, None]
            S = Gc.T @ Gc
            Gb = gbar * np.sqrt(w2 * wsum / htt)[:, None]
            S += Gb.T @ Gb
        S[np.diag_indices(p)] += self.pdiag
        if self.m_in:
            S += (self.A_in.T * w3) @ self.A_in
        m_eq = self.m_eq
        K = np.zeros((p + m_eq, p + m_eq))
        K[:p, :p] = S
        K[:p, p:] = self.A_eq.T
        K[p:, :p] = self.A_eq
        # a tiny absolute regularisation keeps entries that no row touches determinate
        K[np.arange(p), np.arange(p)] += 1e-12
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", sla.LinAlgWarning)
            lu = sla.lu_factor(K, check_finite=False)
        if not np.all(np.isfinite(lu[0])) or np.any(np.diag(lu[0]) == 0):
            return None  # the scaling z / s overflowed the dense solve: stop at the best iterate
        return lu, F, w1, htt

    def solve(self, fac, rv, rt, re):
        lu, F, w1, htt = fac
        G = self.G
        u = rt / htt
        rhs = np.concatenate([rv + (G.T @ (w1 * u) if F is None else F.T @ u), re])
        sol = sla.lu_solve(lu, rhs, check_finite=False)
        dv = sol[: self.p]
        dt = (rt + (w1 * (G @ dv) if F is None else F @ dv)) / htt
        return dv, dt, sol[self.p :]

    def newton_once(self, fac, s, z, w_scale, r_dv, r_dt, r_p, r_g, r_sz):
        # eliminated system: (P + G^T W G) dx + A^T dy = -r_d - G^T (W r_g - r_sz / s)
        gv, gt = self.gtmul(w_scale * r_g - r_sz / s)
        dv, dt, dy = self.solve(fac, -r_dv - gv, -r_dt - gt, -r_p)
        Gdx = self.gmul(dv, dt)
        dz = w_scale * (Gdx + r_g) - r_sz / s
        ds = -r_g - Gdx
        return dv, dt, dy, ds, dz

    def newton(self, fac, s, z, w_scale, r_dv, r_dt, r_p, r_g, r_sz, refine):
        d = self.newton_once(fac, s, z, w_scale, r_dv, r_dt, r_p, r_g, r_sz)
        if not refine:
            return d
        # one step of iterative refinement on the full Newton system: near the optimum the
        # scaling z / s spans ~20 orders of magnitude and the eliminated solve loses digits
        dv, dt, dy, ds, dz = d
        gz_v, gz_t = self.gtmul(dz)
        e_dv = self.pdiag * dv + gz_v + (self.A_eq.T @ dy if self.m_eq else 0.0) + r_dv
        e_dt = gz_t + r_dt
        e_p = self.A_eq @ dv + r_p
        e_g = self.gmul(dv, dt) + ds + r_g
        e_sz = z * ds + s * dz + r_sz
        corr = self.newton_once(fac, s, z, w_scale, e_dv, e_dt, e_p, e_g, e_sz)
        return tuple(a + b for a, b in zip(d, corr, strict=True))

    def initial_point(self):
        """``(v, t, y, s, z)`` (CVXOPT): minimise 1/2 x'Px + q'x + 1/2 ||Gx - h||^2 on
        A x = 0, then shift s and z into the cone."""
        fac = self.factor(np.ones(self.n_s))
        gv, gt = self.gtmul(self.h_all)
        v, t, y = self.solve(fac, gv, gt - self.c, np.zeros(self.m_eq))
        z = self.gmul(v, t) - self.h_all
        s = -z.copy()
        a_p = -float(s.min())
        if a_p >= -1e-8 * max(1.0, float(np.abs(s).max())):
            s += 1.0 + a_p
        a_d = -float(z.min())
        if a_d >= -1e-8 * max(1.0, float(np.abs(z).max())):
            z += 1.0 + a_d
        return v, t, y, s, z

    def residuals(self, v, t, y, s, z):
        """``(r_dv, r_dt, r_p, r_g)``: dual (v and t parts), equality and inequality."""
        gz_v, gz_t = self.gtmul(z)
        r_dv = self.pdiag * v + gz_v + (self.A_eq.T @ y if self.m_eq else 0.0)
        r_dt = self.c + gz_t
        r_p = self.A_eq @ v
        r_g = self.gmul(v, t) + s - self.h_all
        return r_dv, r_dt, r_p, r_g

    def accuracy(self, v, t, z, res, gap):
        """Relative primal and dual residuals and relative gap."""
        r_dv, r_dt, r_p, r_g = res
        pobj = self.value(v, t)
        pres = max(float(np.abs(r_g).max(initial=0.0)), float(np.abs(r_p).max(initial=0.0))) / (
            self.scale_h + float(np.abs(v).max(initial=0.0))
        )
        dres = max(float(np.abs(r_dv).max(initial=0.0)), float(np.abs(r_dt).max(initial=0.0))) / (
            self.scale_q + float(np.abs(z).max(initial=0.0))
        )
        return pres, dres, gap / max(1.0, abs(pobj))

    def direction(self, s, z, res, mu):
        """Mehrotra's predictor-corrector direction ``(dv, dt, dy, ds, dz)``, or None when
        the Newton system cannot be factorised."""
        w_scale = z / s
        fac = self.factor(w_scale)
        if fac is None:
            return None
        refine = w_scale.max() > 1e8 * w_scale.min()
        # predictor (affine scaling)
        aff = self.newton(fac, s, z, w_scale, *res, s * z, refine)
        ds_a, dz_a = aff[3], aff[4]
        alpha = min(1.0, _max_step(s, ds_a), _max_step(z, dz_a))
        mu_aff = float((s + alpha * ds_a) @ (z + alpha * dz_a)) / self.n_s
        sigma = min(1.0, max(0.0, mu_aff / mu)) ** 3
        # corrector (Mehrotra)
        return self.newton(fac, s, z, w_scale, *res, s * z + ds_a * dz_a - sigma * mu, refine)

    def value(self, v, t) -> float:
        return 0.5 * float(v[: self.n_quad] @ v[: self.n_quad]) + float(self.c @ t)


def _solve(G, h, unit, c, n_quad, A_in, r_in, A_eq, tol, tol_gap, max_iter) -> SlackQPResult:
    qp = _SlackQP(G, h, unit, c, n_quad, A_in, r_in, A_eq)
    v, t, y, s, z = qp.initial_point()
    status = "MaxIter"
    best, best_it = (np.inf, v, t), 0
    it = 0
    for it in range(1, max_iter + 1):
        res = qp.residuals(v, t, y, s, z)
        gap = float(s @ z)
        pres, dres, rel_gap = qp.accuracy(v, t, z, res, gap)
        # the solution's error grows like the residuals but like the square root of the gap:
        # the best iterate (returned when the iteration stalls) is chosen on that scale
        merit = max(pres, dres, np.sqrt(max(rel_gap, 0.0)))
        if not np.isfinite(merit):
            break
        if pres <= tol and dres <= tol and rel_gap <= tol_gap:
            status = "Solved"
            break
        if merit < best[0]:
            best, best_it = (merit, v, t), it
        elif it - best_it >= (1 if rel_gap <= 1e2 * tol_gap else 3):
            break  # stalled: rounding dominates the Newton directions
        d = qp.direction(s, z, res, gap / qp.n_s)
        if d is None:
            break
        dv, dt, dy, ds, dz = d
        alpha = min(1.0, 0.99 * min(_max_step(s, ds), _max_step(z, dz)))
        v, t, y = v + alpha * dv, t + alpha * dt, y + alpha * dy
        s, z = s + alpha * ds, z + alpha * dz
    if status != "Solved":
        # stalled (rounding) or out of iterations: the most accurate iterate seen
        merit, v, t = best
        status = "AlmostSolved" if merit <= 1e-5 else "MaxIter"
    return SlackQPResult(v, t, qp.value(v, t), status, it)

"""M2SORC: maximum-margin semi-supervised ordinal regression clustering (Xiao, Liu & Hao 2016).

The model is ``k - 1`` parallel hyperplanes ``<w, phi(x)> = b_i`` with ordered thresholds
``b_1 <= ... <= b_{k-1}``; a sample's cluster is the interval its projection falls in, so the
clusters come out ordered from lowest (0) to highest (k - 1). The non-convex problem (3) of the
paper,

    min  1/2 ||w||^2 + C1 sum_j xi_j + C2 sum_t zeta_t
    s.t. min_i |a_j - b_i| >= 1 - xi_j                      (margin, Theorem 2)
         min_i 2 max(0, a_lo - b_i, b_i - a_hi, a_lo - a_hi) <= zeta_t   (ranking, Theorem 3)
         |B_i(w, b)| <= l,  i = 1..k-2                       (balance, Theorem 4)
         xi, zeta >= 0,   a_j = <w, phi(x_j)>,

is written here in closed forms (decisions.md X1; checked against the paper's
literal max/min/abs expressions in the tests) and solved by the concave-convex procedure: each
step linearises the concave parts at the current iterate and solves the resulting convex QP in the
primal, by default with a structured interior-point method (:mod:`rankclust.ordinal._qp`), or
with Clarabel. Kernels enter through an explicit feature map (Nyström / empirical kernel
map), so the primal stays a QP whatever the kernel.

Two linearisations are offered:

* ``"paper"`` -- eqs. (4)-(5): one row per sample (its nearest threshold, on the side it is on)
  and one row per ranking pair (the tangent of the best threshold's loss). This reproduces the
  paper, but it is not a majorisation, so the objective need not decrease (decisions.md X4).
* ``"majorize"`` -- both boundaries of the sample's current cluster, and the exact convex loss of
  the best threshold for every pair. Each QP is then an inner approximation that is tight at the
  current iterate, so the true objective is non-increasing.
"""

from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass
from typing import ClassVar

import clarabel
import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray
from sklearn.exceptions import ConvergenceWarning

from rankclust import _loaded_state as loaded
from rankclust._param_validation import Interval, StrOptions
from rankclust._runs import FitRun, best_run
from rankclust.exceptions import EmptyClusterWarning
from rankclust.ordinal._base import (
    FEATURE_MAP_CONSTRAINTS,
    FeatureMapClusterer,
    ThresholdPredictMixin,
    assign_levels,
)
from rankclust.ordinal._qp import solve_slack_qp

__all__ = ["M2SORC"]


# ----------------------------------------------------------------------------------------------
# Closed forms (decisions.md X1). Thresholds ``b`` are the k-1 finite ones, sorted; b_0 = -inf and
# b_k = +inf are never materialised.
# ----------------------------------------------------------------------------------------------


#: Cluster index in 0..k-1 from a projection and the thresholds (one home: ordinal._base).
_assign = assign_levels


def _mirror_is_canonical(labels: NDArray, k: int) -> bool:
    """Whether the mirror image ``k - 1 - labels`` is the canonical numbering of an ordinal
    clustering whose direction nothing fixes (no ranking pairs).

    The rule: of the two numberings ``labels`` and ``k - 1 - labels`` of the same ordered
    partition, keep the lexicographically smaller one, i.e. the first sample outside the middle
    level gets a level below the middle. It depends only on the partition, never on the sign
    the solver happened to find (which rounding can change from one processor to another).
    """
    mirror = k - 1 - labels
    differ = np.flatnonzero(labels != mirror)
    return bool(differ.size) and bool(labels[differ[0]] > mirror[differ[0]])


def _margin_h(a: NDArray, b: NDArray) -> NDArray:
    """h(a) = max_i [(b_i - b_{i-1})/2 - |a - (b_{i-1}+b_i)/2|] = min_i |a - b_i| (§2.9a)."""
    return np.min(np.abs(a[:, None] - b[None, :]), axis=1)


def _ranking_s(a_hi: NDArray, a_lo: NDArray, b: NDArray) -> NDArray:
    """s_i = |a_hi - b_i| + |a_lo - b_i| - (a_hi - a_lo), shape (n_pairs, k-1) (§2.9b)."""
    return 2.0 * np.maximum.reduce(
        [
            np.zeros((a_hi.shape[0], b.shape[0])),
            a_lo[:, None] - b[None, :],
            b[None, :] - a_hi[:, None],
            np.broadcast_to((a_lo - a_hi)[:, None], (a_hi.shape[0], b.shape[0])),
        ]
    )


def _ranking_d(a_hi: NDArray, a_lo: NDArray, b: NDArray) -> NDArray:
    """d = min_i s_i; zero exactly when the higher sample sits in a strictly higher cluster."""
    if a_hi.shape[0] == 0:
        return np.zeros(0)
    return _ranking_s(a_hi, a_lo, b).min(axis=1)


def _balance_terms(k: int) -> tuple[NDArray, NDArray, NDArray]:
    """Coefficients of the cleared-denominator balance rows, i = 1..k-2 (decisions.md X5).

    ``D_i / n = -2 mean(a) - (k-2i-2) b_i + (k-2i) b_{i+1}`` and the constraint is
    ``|D_i| <= l |(k-2i)(k-2i-2)|``; for odd k this is exactly ``|B_i| <= l`` of Theorem 4.
    Returns the coefficients on b_i and b_{i+1} and the scale ``|(k-2i)(k-2i-2)|``.
    """
    i = np.arange(1, k - 1)
    return -(k - 2 * i - 2.0), (k - 2.0 * i), np.abs((k - 2.0 * i) * (k - 2.0 * i - 2))


def _balance_residuals(a: NDArray, b: NDArray) -> NDArray:
    """B_i = m_i S - n b_i/(k-2i) + n b_{i+1}/(k-2i-2), i = 1..k-2, for odd k (§2.9c)."""
    k = b.shape[0] + 1
    n = a.shape[0]
    i = np.arange(1, k - 1)
    m = 1.0 / (k - 2 * i) - 1.0 / (k - 2 * i - 2)
    return m * a.sum() - n * b[i - 1] / (k - 2 * i) + n * b[i] / (k - 2 * i - 2)


def _objective(w: NDArray, a: NDArray, pairs: NDArray, b: NDArray, C1: float, C2: float):
    """The non-convex objective (3) with optimal slacks xi = [1 - h]_+ and zeta = d."""
    xi = np.maximum(0.0, 1.0 - _margin_h(a, b))
    zeta = _ranking_d(a[pairs[:, 0]], a[pairs[:, 1]], b)
    return 0.5 * float(w @ w) + C1 * float(xi.sum()) + C2 * float(zeta.sum())


# ----------------------------------------------------------------------------------------------
# Linearisations. Each linearised constraint is a row
#     c1 a_{s1} + c2 a_{s2} + gam b_tau + const <= slack_unit,
# where a = Phi w, and a unit is a sample (margin rows, weight C1) or a pair (ranking rows, C2).
# ----------------------------------------------------------------------------------------------


def note_empty_clusters(est, k: int, *, warned: bool = False) -> None:
    """Set ``est.empty_clusters_`` (the levels ``labels_`` leaves empty); warn if any.

    The clusters of the ordinal package are *levels* (intervals of a projection, or the
    hyperplanes a ``predict`` arg-maxes over): a level without training samples is part of
    the fitted model and ``predict`` may return it, so it is reported, not renumbered.
    ``warned``: a warning naming empty clusters was already emitted (``degenerate_``).
    """
    counts = np.bincount(np.asarray(est.labels_, dtype=np.int64), minlength=k)
    est.empty_clusters_ = np.flatnonzero(counts == 0)
    if est.empty_clusters_.size and not warned:
        warnings.warn(
            f"{type(est).__name__}: cluster(s) {est.empty_clusters_.tolist()} of n_clusters={k} "
            "hold no training sample (see empty_clusters_); try another random_state, more "
            "n_init or fewer clusters",
            EmptyClusterWarning,
            stacklevel=3,
        )


@dataclass
class _Rows:
    s1: NDArray
    c1: NDArray
    s2: NDArray
    c2: NDArray
    tau: NDArray
    gam: NDArray
    const: NDArray
    unit: NDArray

    def values(self, a: NDArray, b: NDArray) -> NDArray:
        return self.c1 * a[self.s1] + self.c2 * a[self.s2] + self.gam * b[self.tau] + self.const

    def key(self) -> bytes:
        return b"".join(x.tobytes() for x in (self.unit, self.tau, self.gam, self.c1, self.c2))


def _margin_rows(a: NDArray, b: NDArray, linearization: str) -> _Rows:
    """Rows ``1 - sigma (a_j - b_tau) <= xi_j``.

    "paper": eq. (4) -- theta picks the cluster i* (argmax of g), r its half; r = +1 (upper
    half, ties upward) keeps the upper boundary b_{i*} (sigma = -1), r = -1 the lower one.
    "majorize": both boundaries of the current cluster (with ordered thresholds the other
    thresholds are implied, so this is the full inner approximation of min_i |a - b_i|).
    """
    k = b.shape[0] + 1
    n = a.shape[0]
    c = _assign(a, b)
    idx = np.arange(n)
    if linearization == "paper":
        lower = b[np.maximum(c - 1, 0)]
        upper = b[np.minimum(c, k - 2)]
        r_up = a - 0.5 * (lower + upper) >= 0
        r_up = np.where(c == 0, True, np.where(c == k - 1, False, r_up))
        samples = idx
        tau = np.where(r_up, c, c - 1)
        sigma = np.where(r_up, -1.0, 1.0)
    else:
        has_up = c < k - 1
        has_lo = c > 0
        samples = np.concatenate([idx[has_up], idx[has_lo]])
        tau = np.concatenate([c[has_up], c[has_lo] - 1])
        sigma = np.concatenate([-np.ones(has_up.sum()), np.ones(has_lo.sum())])
    m = samples.shape[0]
    return _Rows(samples, -sigma, samples, np.zeros(m), tau, sigma, np.ones(m), samples)


# (lam_hi, lam_lo, gam) of the ranking-row pieces: 2(a_lo - b), 2(b - a_hi), 2(a_lo - a_hi).
_PIECES = np.array([[0.0, 2.0, -2.0], [-2.0, 0.0, 2.0], [-2.0, 2.0, 0.0]])


def _ranking_rows(pairs: NDArray, a: NDArray, b: NDArray, linearization: str) -> _Rows:
    """Rows ``lam_hi a_hi + lam_lo a_lo + gam b_tau <= zeta_t``.

    "paper": eq. (5) -- kappa picks the best threshold i* (lowest index on ties), eta/mu the
    sides of the two samples (>= 0 counts as above); a correctly separated pair gives no row.
    "majorize": the three linear pieces of the convex s_{i*}, so zeta_t >= s_{i*} exactly.
    """
    n_pairs = pairs.shape[0]
    if n_pairs == 0:
        e, i = np.zeros(0), np.zeros(0, dtype=np.int64)
        return _Rows(i, e, i, e, i, e, e, i)
    a_hi, a_lo = a[pairs[:, 0]], a[pairs[:, 1]]
    tau = np.argmin(_ranking_s(a_hi, a_lo, b), axis=1)
    t = np.arange(n_pairs)
    if linearization == "paper":
        eta = np.where(a_hi - b[tau] >= 0, 1.0, -1.0)
        mu = np.where(a_lo - b[tau] >= 0, 1.0, -1.0)
        lam_hi, lam_lo, gam = eta - 1.0, mu + 1.0, -(eta + mu)
        keep = (lam_hi != 0) | (lam_lo != 0) | (gam != 0)
        t, lam_hi, lam_lo, tau, gam = t[keep], lam_hi[keep], lam_lo[keep], tau[keep], gam[keep]
    else:
        coef = np.tile(_PIECES, (n_pairs, 1))
        t, tau = np.repeat(t, 3), np.repeat(tau, 3)
        lam_hi, lam_lo, gam = coef[:, 0], coef[:, 1], coef[:, 2]
    return _Rows(pairs[t, 0], lam_hi, pairs[t, 1], lam_lo, tau, gam, np.zeros(t.shape[0]), t)


def _group_loss(rows: _Rows, a: NDArray, b: NDArray, n_units: int) -> tuple[NDArray, NDArray]:
    """Per-unit hinge max(0, max_rows value) and the index of the maximising row (-1 if 0)."""
    vals = rows.values(a, b)
    loss = np.zeros(n_units)
    np.maximum.at(loss, rows.unit, vals)
    best = np.full(n_units, -1)
    hit = (vals >= loss[rows.unit]) & (vals > 0)
    best[rows.unit[hit]] = np.flatnonzero(hit)
    return loss, best


# ----------------------------------------------------------------------------------------------
# The convex subproblem (6), in the primal. Variables start with [w (D), b (k-1)].
# ----------------------------------------------------------------------------------------------


@dataclass
class _QPResult:
    w: NDArray
    b: NDArray
    value: float
    status: str


def _fixed_rows(phibar: NDArray, k: int, n: int, balance: float):
    """Balance rows (cleared denominators, divided by n) and threshold-ordering rows on [w, b].

    Returns (A_eq, A_ineq, rhs_ineq) for ``A_eq x = 0`` and ``A_ineq x <= rhs_ineq``.
    """
    D = phibar.shape[0]
    nb, nbal = k - 1, k - 2
    c_i, c_i1, scale = _balance_terms(k)
    Bal = np.zeros((nbal, D + nb))
    Bal[:, :D] = -2.0 * phibar
    Bal[np.arange(nbal), D + np.arange(nbal)] = c_i
    Bal[np.arange(nbal), D + np.arange(nbal) + 1] = c_i1
    bound = balance * scale / n
    eq = bound == 0
    A_eq = Bal[eq]
    if A_eq.shape[0] > 1:  # even k repeats an equality; a singular KKT system would follow
        normed = A_eq / np.linalg.norm(A_eq, axis=1, keepdims=True)
        _, first = np.unique(np.round(normed, 12), axis=0, return_index=True)
        A_eq = A_eq[np.sort(first)]
    Order = np.zeros((max(nb - 1, 0), D + nb))
    Order[np.arange(nb - 1), D + np.arange(nb - 1)] = 1.0
    Order[np.arange(nb - 1), D + np.arange(1, nb)] = -1.0
    A_ineq = np.vstack([Bal[~eq], -Bal[~eq], Order])
    rhs = np.concatenate([bound[~eq], bound[~eq], np.zeros(Order.shape[0])])
    return A_eq, A_ineq, rhs


def _clarabel_settings(method: str, **overrides) -> clarabel.DefaultSettings:
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    settings.direct_solve_method = method
    for key, value in overrides.items():
        setattr(settings, key, value)
    return settings


def _clarabel(problem, settings):
    """Solve ``(P, q, A, b, cones)`` with Clarabel; returns (x, value, status, solution)."""
    sol = clarabel.DefaultSolver(*problem, settings).solve()
    x = np.asarray(sol.x)
    if not np.all(np.isfinite(x)) or str(sol.status) not in ("Solved", "AlmostSolved"):
        raise RuntimeError(f"the M2SORC QP solver failed with status {sol.status}")
    return x, float(sol.obj_val), str(sol.status), sol


def _rows_block(Phi: NDArray, rows: _Rows, k: int) -> tuple[NDArray, NDArray]:
    """Dense [w, b] coefficients of the rows."""
    nb = k - 1
    W = rows.c1[:, None] * Phi[rows.s1] + rows.c2[:, None] * Phi[rows.s2]
    Bc = np.zeros((rows.s1.shape[0], nb))
    Bc[np.arange(rows.s1.shape[0]), rows.tau] = rows.gam
    return W, Bc


def _solve_qp(Phi, n_pairs, k, C1, C2, mrows, rrows, fixed, solver) -> _QPResult:
    """QP (6) with one slack per sample and per pair.

    ``solver="ipm"``: the structured interior-point method of :mod:`rankclust.ordinal._qp`
    (slacks and multipliers eliminated, a dense (D + k - 1)-square Newton system per step);
    ``"qdldl"`` / ``"faer"``: the whole sparse problem handed to Clarabel with that KKT solver.
    """
    if solver == "ipm":
        res = _solve_qp_ipm(Phi, k, C1, C2, mrows, rrows, fixed)
        if res is not None:
            return res
        solver = "qdldl"  # rounding stalled the structured method (never seen in the tests)
    D = Phi.shape[1]
    problem = _clarabel_problem(Phi, n_pairs, k, C1, C2, mrows, rrows, fixed)
    x, value, status, _ = _clarabel(problem, _clarabel_settings(solver))
    return _QPResult(x[:D], x[D : D + k - 1], value, status)


def _clarabel_problem(Phi, n_pairs, k, C1, C2, mrows, rrows, fixed):
    """QP (6) as Clarabel data ``(P, q, A, b, cones)`` over ``[w, b, xi, zeta]``."""
    n, D = Phi.shape
    nb = k - 1
    nvar = D + nb + n + n_pairs
    A_eq, A_ineq, rhs_ineq = fixed
    blocks, rhs = [], []
    for rows, offset in ((mrows, D + nb), (rrows, D + nb + n)):
        W, Bc = _rows_block(Phi, rows, k)
        m = rows.s1.shape[0]
        S = sp.csr_matrix(
            (-np.ones(m), (np.arange(m), rows.unit + offset - D - nb)), shape=(m, n + n_pairs)
        )
        blocks.append(sp.hstack([sp.csr_matrix(np.hstack([W, Bc])), S]))
        rhs.append(-rows.const)
    pad = sp.csr_matrix((A_ineq.shape[0], n + n_pairs))
    slack_pos = sp.hstack([sp.csr_matrix((n + n_pairs, D + nb)), -sp.identity(n + n_pairs)])
    A_in = sp.vstack([*blocks, sp.hstack([sp.csr_matrix(A_ineq), pad]), slack_pos])
    rhs_in = np.concatenate([*rhs, rhs_ineq, np.zeros(n + n_pairs)])
    A_e = sp.hstack([sp.csr_matrix(A_eq), sp.csr_matrix((A_eq.shape[0], n + n_pairs))])
    P = sp.diags(np.concatenate([np.ones(D), np.zeros(nvar - D)]))
    q = np.concatenate([np.zeros(D + nb), np.full(n, C1), np.full(n_pairs, C2)])
    A = sp.vstack([A_e, A_in], format="csc")
    b = np.concatenate([np.zeros(A_eq.shape[0]), rhs_in])
    cones = [clarabel.ZeroConeT(A_eq.shape[0])] if A_eq.shape[0] else []
    cones.append(clarabel.NonnegativeConeT(A_in.shape[0]))
    return sp.csc_matrix(P), q, A, b, cones


def _solve_qp_ipm(Phi, k, C1, C2, mrows, rrows, fixed) -> _QPResult | None:
    """QP (6) by :func:`solve_slack_qp`; slacks without rows (optimal value 0) are left out,
    and so are the ranking rows when C2 = 0 (their slacks are free, the rows never bind).
    Returns None when the method does not reach its tolerances."""
    D = Phi.shape[1]
    A_eq, A_ineq, rhs_ineq = fixed
    parts = [(mrows, C1)] + ([(rrows, C2)] if C2 > 0 else [])
    Gs, hs, units, costs = [], [], [], []
    n_units = 0
    for rows, cost in parts:
        W, Bc = _rows_block(Phi, rows, k)
        used, local = np.unique(rows.unit, return_inverse=True)
        Gs.append(np.hstack([W, Bc]))
        hs.append(-rows.const)
        units.append(local + n_units)
        costs.append(np.full(used.shape[0], float(cost)))
        n_units += used.shape[0]
    res = solve_slack_qp(
        np.vstack(Gs),
        np.concatenate(hs),
        np.concatenate(units),
        np.concatenate(costs),
        D,
        A_ineq,
        rhs_ineq,
        A_eq,
    )
    if res.status not in ("Solved", "AlmostSolved") or not np.all(np.isfinite(res.v)):
        return None
    return _QPResult(res.v[:D], res.v[D:], res.value, res.status)


# ----------------------------------------------------------------------------------------------
# CCCP driver for one start.
# ----------------------------------------------------------------------------------------------


def _initial_point(Phi: NDArray, pairs: NDArray, k: int, init: str, rng) -> tuple:
    """w ~ N(0, I) (or the mean pair difference), scaled to std(a) = k; b equally spaced.

    The thresholds b_i = mean(a) + c0 (2i - k) satisfy every balance constraint (decisions.md X7).
    """
    D = Phi.shape[1]
    w = rng.standard_normal(D)
    if init == "pairs" and pairs.shape[0]:
        diff = (Phi[pairs[:, 0]] - Phi[pairs[:, 1]]).mean(axis=0)
        norm = np.linalg.norm(diff)
        if norm > 0:
            w = diff / norm + 0.1 * w / np.sqrt(D)
    a = Phi @ w
    sd = a.std()
    w = w * (k / sd) if sd > 0 else w
    a = Phi @ w
    c0 = 1.2 * k / max(k - 1, 1)
    b = a.mean() + c0 * (2.0 * np.arange(1, k) - k)
    return w, b


def _fit_single(
    Phi, pairs, k, C1, C2, balance, linearization, init, tol, max_iter, solver, rng
) -> FitRun:
    """One CCCP run (eqs. (4)-(6) with the stopping rule of Table I). Input is trusted."""
    n = Phi.shape[0]
    fixed = _fixed_rows(Phi.mean(axis=0), k, n, balance)
    w, b = _initial_point(Phi, pairs, k, init, rng)
    a = Phi @ w
    path = [_objective(w, a, pairs, b, C1, C2)]
    qp_path: list[float] = []
    converged = False
    prev_key = None
    n_iter = 0
    while n_iter < max_iter:
        mrows = _margin_rows(a, b, linearization)
        rrows = _ranking_rows(pairs, a, b, linearization)
        key = mrows.key() + b"|" + rrows.key()
        if key == prev_key:  # same QP as last time: a fixed point of CCCP
            converged = True
            break
        prev_key = key
        res = _solve_qp(Phi, pairs.shape[0], k, C1, C2, mrows, rrows, fixed, solver)
        n_iter += 1
        w, b = res.w, np.sort(res.b)
        a = Phi @ w
        qp_path.append(res.value)
        path.append(_objective(w, a, pairs, b, C1, C2))
        J_prev = qp_path[-2] if len(qp_path) >= 2 else path[0]
        # Table I: stop when (J^(t-1) - J^(t)) / J^(t-1) <= eps (J^(0): objective at the start).
        if J_prev <= 0 or (J_prev - res.value) / J_prev <= tol:
            converged = True
            break
    labels = _assign(a, b)
    counts = np.bincount(labels, minlength=k)
    # Guards (decisions.md X6): w = 0, an empty cluster, or a cluster with > 1 - 1/k of the data.
    degenerate = bool(
        np.linalg.norm(w) < 1e-8 or counts.min() == 0 or counts.max() > (1 - 1 / k) * n
    )
    return FitRun(
        objective=path[-1],
        n_iter=n_iter,
        converged=converged,
        params={"w": w, "b": b, "objective_path": path, "qp_objective_path": qp_path},
        degenerate=degenerate,
    )


# ----------------------------------------------------------------------------------------------
# The estimator.
# ----------------------------------------------------------------------------------------------


class M2SORC(ThresholdPredictMixin, FeatureMapClusterer):
    """Maximum-margin semi-supervised ordinal regression clustering (M2SORC).

    Clusters samples into ``n_clusters`` *ordered* groups separated by parallel hyperplanes,
    using pairs ``(i, j)`` that say "sample i ranks above sample j" as side information.

    Parameters
    ----------
    n_clusters : int, default=5
        Number of ordinal clusters k (>= 2).
    C1 : float, default=1.0
        Weight of the margin losses (one per sample).
    C2 : float, default=1.0
        Weight of the ranking losses (one per pair). The paper sets ``C1 = C2``.
    balance : float, default=1.0
        The cluster-balance tolerance l of Theorem 4. Note (decisions.md X2): the constraint fixes
        equally spaced thresholds centred on the mean projection, with a per-sample slack of
        about ``l / n``; it does not bound the cluster sizes.
    kernel : {"linear", "rbf"}, default="rbf"
        ``"rbf"`` is exp(-gamma ||x - y||^2) through a Nyström feature map.
    gamma : float or "scale", default="scale"
        RBF width; ``"scale"`` is ``1 / (n_features * X.var())``.
    n_components : int, default=100
        Nyström landmarks; with ``n_components >= n_samples`` the map is the exact empirical
        kernel map.
    linearization : {"paper", "majorize"}, default="paper"
        CCCP linearisation: the paper's eqs. (4)-(5), or a majorising variant whose objective is
        guaranteed not to increase (see the module docstring).
    init : {"pairs", "random"}, default="pairs"
        Starting direction: the mean difference ``phi_i - phi_j`` over the pairs plus a random
        perturbation per start, or a Gaussian direction (the paper). The paper's random start
        often ends in a two-cluster local optimum (the middle clusters empty), which the
        balance constraint does not prevent (decisions.md X2).
    n_init : int, default=5
        Number of CCCP starts; the run with the lowest objective (3) among the non-degenerate
        ones is kept.
    max_iter : int, default=50
        Maximum CCCP iterations per start.
    tol : float, default=0.1
        Stopping threshold epsilon on the relative decrease of the QP value (Table I; the
        paper uses 0.1). CCCP also stops at a fixed point of the linearisation.
    solver : {"ipm", "qdldl", "faer"}, default="ipm"
        Solver of the QPs (6). ``"ipm"``: a structured primal-dual interior-point method
        (:func:`rankclust.ordinal._qp.solve_slack_qp`) that eliminates the per-sample slacks and
        solves one dense ``(D + k - 1)``-square system per iteration; ``"qdldl"`` / ``"faer"``:
        Clarabel on the whole sparse QP with that direct KKT solver (``direct_solve_method``).
        Both reach the same optimum; ``"ipm"`` was measured 2-5x faster per QP at n = 500-2000
        and 10-27x at n = 8192 (``benchmarks/RESULTS_ordinal.md``), and falls back to Clarabel
        (qdldl) if it ever stalls short of its tolerances.
    random_state : int, RandomState instance or None, default=None
        Seeds the Nyström landmarks and the starts.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features_out,)
        w in the (explicit) feature space.
    thresholds_ : ndarray of shape (n_clusters - 1,)
        Ordered thresholds b_1 <= ... <= b_{k-1}.
    labels_ : ndarray of shape (n_samples,)
        Clusters 0..k-1, ordered from lowest to highest projection ``<w, phi(x)>``. The pairs
        fix the direction; without pairs the numbering is the canonical one of the two
        directions (see ``fit``), whatever sign the solver found.
    objective_ : float
        Objective (3) of the kept run.
    objective_path_ : list of float
        Objective (3) at the start and after every CCCP step of the kept run.
    qp_objective_path_ : list of float
        Optimal values J^(t) of the QP subproblems of the kept run.
    n_iter_ : int
        CCCP iterations (QPs solved) of the kept run.
    n_iter_per_init_, objective_per_init_ : ndarray of shape (n_init,)
    degenerate_ : bool
        True when every start ended degenerate (w = 0, an empty cluster, or one cluster holding
        more than 1 - 1/k of the data); a warning is emitted.
    empty_clusters_ : ndarray of int64
        Levels in ``0..k-1`` that no training sample falls in (kept: they are intervals of
        the projection that ``predict`` may return); non-empty only with a warning.
    n_features_in_ : int

    Notes
    -----
    Each CCCP step solves a QP in ``D + k - 1 + n + n_c`` variables with ``O(n + n_c)``
    constraint rows of ``D`` non-zeros each (D = feature dimension, the number of Nyström
    components for ``"rbf"``). The default solver reduces every interior-point Newton system to
    a dense ``(D + k - 1)``-square Schur complement formed in O((n + n_c) D^2) with BLAS.

    Complexity: O(n_init * T * (n + n_c) * D^2) time, O((n + n_c) * D) memory, T = CCCP steps
    (3-7 in the paper).

    The clusters need no Hungarian matching to ordinal levels: the learned order is the label
    order (``labels_`` increases with the projection ``<w, phi(x)>``).

    Departures from the printed paper (decisions.md X8): thresholds are constrained to
    be ordered; only the k - 1 finite thresholds are optimised; the balance constraint is used
    with cleared denominators (identical for odd k, defined for even k); the primal QP replaces
    the printed (incorrect) dual.

    References
    ----------
    Y. Xiao, B. Liu and Z. Hao, "A maximum margin approach for semisupervised ordinal regression
    clustering", IEEE Trans. Neural Netw. Learn. Syst. 27(5):1003-1019, 2016.

    Examples
    --------
    >>> import numpy as np
    >>> from rankclust.ordinal import M2SORC, ranking_pairs_from_labels
    >>> rng = np.random.RandomState(0)
    >>> y = np.repeat(np.arange(3), 20)
    >>> X = (4.0 * y + rng.randn(60))[:, None]
    >>> pairs = ranking_pairs_from_labels(y, 6, random_state=0)
    >>> model = M2SORC(n_clusters=3, kernel="linear", balance=10.0, random_state=0)
    >>> labels = model.fit(X, pairs=pairs).labels_
    >>> bool(np.mean(labels == y) > 0.9)
    True
    """

    _parameter_constraints: ClassVar[dict] = {
        **FEATURE_MAP_CONSTRAINTS,
        "C1": [Interval(numbers.Real, 0, None, closed="neither")],
        "C2": [Interval(numbers.Real, 0, None, closed="left")],
        "balance": [Interval(numbers.Real, 0, None)],
        "linearization": [StrOptions({"paper", "majorize"})],
        "init": [StrOptions({"random", "pairs"})],
        "tol": [Interval(numbers.Real, 0, None)],
        "solver": [StrOptions({"ipm", "qdldl", "faer"})],
    }

    # the QP is posed on the raw mapped features (its balance rows use their mean)
    _center_features = False

    def __init__(
        self,
        n_clusters: int = 5,
        *,
        C1: float = 1.0,
        C2: float = 1.0,
        balance: float = 1.0,
        kernel: str = "rbf",
        gamma: float | str = "scale",
        n_components: int = 100,
        linearization: str = "paper",
        init: str = "pairs",
        n_init: int = 5,
        max_iter: int = 50,
        tol: float = 0.1,
        solver: str = "ipm",
        random_state=None,
    ) -> None:
        self.n_clusters = n_clusters
        self.C1 = C1
        self.C2 = C2
        self.balance = balance
        self.kernel = kernel
        self.gamma = gamma
        self.n_components = n_components
        self.linearization = linearization
        self.init = init
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.solver = solver
        self.random_state = random_state

    def fit(self, X: ArrayLike, y=None, *, pairs: ArrayLike | None = None) -> M2SORC:
        """Cluster ``X`` using ranking pairs.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples; NaN or infinite values raise ``ValueError``.
        y : ignored
        pairs : array-like of shape (n_pairs, 2), default=None
            ``pairs[t] = (i, j)`` means sample i belongs to a higher cluster than sample j.
            Without pairs the problem is unsupervised and its direction is arbitrary: the
            levels are then numbered canonically (of the two directions, the one whose label
            vector is lexicographically smaller), so the numbering does not depend on rounding.

        Returns
        -------
        self : M2SORC
        """
        Phi, (pairs,), rng = self._fit_prologue(X, pairs=pairs)

        runs = [
            _fit_single(
                Phi,
                pairs,
                self.n_clusters,
                self.C1,
                self.C2,
                self.balance,
                self.linearization,
                self.init,
                self.tol,
                self.max_iter,
                self.solver,
                rng,
            )
            for _ in range(self.n_init)
        ]
        best = best_run(runs)
        if best.degenerate:
            warnings.warn(
                "every M2SORC start ended degenerate (w = 0, an empty cluster, or one cluster with "
                "more than 1 - 1/k of the samples); try more pairs, a larger C2 or another kernel width",
                RuntimeWarning,
                stacklevel=2,
            )
        if not best.converged:
            warnings.warn(
                f"CCCP did not meet its stopping rule within max_iter={self.max_iter}",
                ConvergenceWarning,
                stacklevel=2,
            )
        w, b = best.params["w"], best.params["b"]
        if len(pairs) == 0 and _mirror_is_canonical(_assign(Phi @ w, b), self.n_clusters):
            w, b = -w, -b[::-1]  # no pairs fix the direction: number the levels canonically
        self.coef_ = w
        self.thresholds_ = b
        self.objective_ = best.objective
        self.objective_path_ = best.params["objective_path"]
        self.qp_objective_path_ = best.params["qp_objective_path"]
        self.n_iter_ = best.n_iter
        self.n_iter_per_init_ = np.array([r.n_iter for r in runs])
        self.objective_per_init_ = np.array([r.objective for r in runs])
        self.degenerate_ = best.degenerate
        self.labels_ = _assign(Phi @ w, b)
        note_empty_clusters(self, self.n_clusters, warned=best.degenerate)
        return self

    def fit_predict(self, X: ArrayLike, y=None, *, pairs: ArrayLike | None = None) -> NDArray:
        """Fit and return ``labels_``."""
        return self.fit(X, pairs=pairs).labels_

    def _validate_loaded_state(self) -> None:
        """Check the state of a model read by :func:`rankclust.persistence.load`."""
        if not loaded.is_fitted(self):
            return
        p = self._validate_loaded_features()
        k = self.n_clusters
        loaded.array_attr(self, "coef_", shape=(p,))
        loaded.array_attr(self, "thresholds_", shape=(k - 1,))
        loaded.array_attr(self, "labels_", kind="i", ndim=1, low=0, high=k - 1)

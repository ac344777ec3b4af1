"""The Davidson-Luce model: Plackett-Luce with ties of any order (Turner et al. 2020).

A ranking with ties is built stage by stage. At a stage with the set ``A`` of items not yet
placed, a set ``S`` of ``d`` items is chosen, tied, for the next place with probability

    ``delta_d (prod_{i in S} v_i)^(1/d) / sum_{d'=1}^{min(D, |A|)} delta_{d'}
    sum_{S' in A, |S'| = d'} (prod_{i in S'} v_i)^(1/d')``,

for worths ``v = exp(z)`` and tie strengths ``delta_1 = 1``, ``delta_2, ..., delta_D >= 0``
(``D``, the largest tie order, is a fixed property of the model). With ``D = 1`` this is
Plackett-Luce. The inner sum is the elementary symmetric polynomial ``e_d`` of the values
``v_i^(1/d)``, computed by the usual O(|A| d) recursion (no enumeration of subsets), so one
stage costs O(|A| D^2) and the likelihood of a ranking O(m^2 D^2) at worst (O(m D^2) per
stage times the number of stages).

Kinds of observation (the stages of :func:`tie_stages`):

* complete rankings: one stage per bucket (tied group), every stage over all items not yet
  placed;
* ``kind="top"``: one stage per *listed* bucket, each over all items not yet placed, absent
  ones included (the probability that a complete tied ranking starts with the listed buckets;
  an absent item is never tied with a listed one);
* ``kind="subset"``: one stage per bucket over the present items only -- the Davidson-Luce
  model on the present items, as the R package PlackettLuce treats partial rankings. Unlike
  Plackett-Luce, Davidson-Luce is not internally consistent, so for a tied subset ranking
  this is a model on the subset, not the marginal of a model on all items; without ties it is
  the Plackett-Luce marginal.

The log-likelihood is concave in ``(z, log delta)`` (the log-normaliser of every stage is a
log-sum-exp of linear functions of them), so :func:`fit_davidson_luce` maximises it with
L-BFGS on the analytic gradient and polishes with Newton steps; the Hessian is computed by
central differences of the analytic gradient (:func:`davidson_luce_hessian`).

References
----------
Firth, D., Kosmidis, I. & Turner, H. L. (2019). Davidson-Luce model for multi-item choice
with ties. arXiv:1909.07123.

Turner, H. L., van Etten, J., Firth, D. & Kosmidis, I. (2020). Modelling rankings in R: the
PlackettLuce package. Computational Statistics, 35, 1027-1057.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numba
import numpy as np
from scipy import optimize

from rankclust._kernel_random import xoshiro_state, xoshiro_uniform
from rankclust.rankings import Rankings

__all__ = [
    "MAX_TIE_ORDER",
    "TieStages",
    "davidson_luce_gradient",
    "davidson_luce_hessian",
    "davidson_luce_information",
    "davidson_luce_loglik",
    "fit_davidson_luce",
    "sample_davidson_luce",
    "tie_stages",
]

#: Largest tie order (bucket size) the model accepts. The normaliser is computed without
#: enumerating subsets (O(|A| D^2) per stage), so the bound is one of cost and of sense: beyond
#: it a "tie" is a large unordered group, better read as ``kind="top"`` data with the group
#: left unranked.
MAX_TIE_ORDER = 32


@dataclass(frozen=True)
class TieStages:
    """Rankings with ties compiled into Davidson-Luce stages (built by :func:`tie_stages`).

    Row ``r`` is one distinct ranking; its items are listed in ``order[r]`` (present items by
    position, then the absent ones). Stage ``s < n_stages[r]`` chose the bucket
    ``order[r, starts[r, s]:starts[r, s + 1]]`` from the items ``order[r, t]``,
    ``t >= starts[r, s]``, with ``in_set[r, t]``.

    Attributes
    ----------
    order : ndarray of int64, shape (u, m)
    in_set : ndarray of bool, shape (u, m)
    starts : ndarray of int64, shape (u, m + 1)
    n_stages : ndarray of int64, shape (u,)
    inverse : ndarray of intp, shape (n,)
        Distinct row of each input row.
    weights : ndarray of float64, shape (n,)
        The input rows' own weights.
    max_tie : int
        Largest bucket size over the stages (1 without ties).
    tie_counts : ndarray of float64, shape (max_tie + 1,)
        Unweighted number of stages whose bucket has each size (index = size).
    set_id : ndarray of int64, shape (u, m)
        Distinct choice set of stage ``s`` of row ``r`` (``-1`` beyond ``n_stages[r]``). The
        normaliser of a stage depends on its choice set only, and many stages share one (the
        first stage of every complete ranking is over all items), so it is computed once per
        distinct set.
    set_items : ndarray of int64, shape (n_sets, m)
        The items of each distinct choice set (first ``set_size`` entries).
    set_size : ndarray of int64, shape (n_sets,)
    """

    order: np.ndarray
    in_set: np.ndarray
    starts: np.ndarray
    n_stages: np.ndarray
    inverse: np.ndarray
    weights: np.ndarray
    max_tie: int
    tie_counts: np.ndarray
    set_id: np.ndarray
    set_items: np.ndarray
    set_size: np.ndarray

    @property
    def n_items(self) -> int:
        return self.order.shape[1]

    @property
    def n_rankings(self) -> int:
        return self.inverse.shape[0]

    def row_weights(self, sample_weight: Any = None) -> np.ndarray:
        """Total weight of each distinct row (``weights * sample_weight`` summed over copies)."""
        w = self.weights if sample_weight is None else self.weights * sample_weight
        return np.bincount(self.inverse, weights=w, minlength=self.order.shape[0])


def tie_stages(R: Rankings, *, compress: bool = True) -> TieStages:
    """Compile rankings (ties allowed) into Davidson-Luce stages.

    Parameters
    ----------
    R : Rankings, shape (n, m)
        Rankings of either kind, with or without ties.
    compress : bool, default=True
        Merge identical rows first.

    Returns
    -------
    TieStages

    Notes
    -----
    Complexity: O(n m log m) time (plus O(n m log n) to merge rows), O(n m) memory.
    """
    if compress:
        distinct, inverse = R.unique()
    else:
        distinct, inverse = R, np.arange(R.n_rankings)
    ranks = distinct.ranks.astype(np.int64)  # the storage dtype may be narrower
    u, m = ranks.shape
    present = ranks >= 0
    lengths = present.sum(axis=1)
    key = np.where(present, ranks, m)
    order = np.argsort(key, axis=1, kind="stable").astype(np.int64)
    sorted_pos = np.take_along_axis(key, order, axis=1)
    n_buckets = ranks.max(axis=1, initial=-1) + 1
    # bucket s starts at the first sorted position whose rank is s (ranks are dense per row)
    starts = np.empty((u, m + 1), dtype=np.int64)
    for s in range(m + 1):
        starts[:, s] = (sorted_pos < s).sum(axis=1)
    starts[np.arange(m + 1)[None, :] > n_buckets[:, None]] = 0  # unused tail (kept tidy)
    if distinct.kind == "top":
        in_set = np.ones((u, m), dtype=bool)
    else:
        in_set = np.arange(m)[None, :] < lengths[:, None]
    sizes = np.diff(starts, axis=1)
    used = np.arange(m)[None, :] < n_buckets[:, None]
    size_list = sizes[used]
    max_tie = int(size_list.max(initial=1))
    set_id, set_items, set_size = _choice_sets(order, in_set, starts, used)
    return TieStages(
        order=order,
        in_set=in_set,
        starts=starts,
        n_stages=n_buckets.astype(np.int64),
        inverse=np.asarray(inverse, dtype=np.intp).reshape(-1),
        weights=R.weights,
        max_tie=max_tie,
        tie_counts=np.bincount(size_list, minlength=max_tie + 1).astype(np.float64),
        set_id=set_id,
        set_items=set_items,
        set_size=set_size,
    )


def _choice_sets(
    order: np.ndarray, in_set: np.ndarray, starts: np.ndarray, used: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct choice sets of the stages: (set_id (u, m), set_items, set_size)."""
    u, m = order.shape
    rows, stage = np.nonzero(used)
    # membership of the items still available at each stage, as packed bits
    avail = in_set[rows] & (np.arange(m)[None, :] >= starts[rows, stage][:, None])
    member = np.zeros((rows.size, m), dtype=bool)
    member[np.arange(rows.size)[:, None], order[rows]] = avail
    packed = np.packbits(member, axis=1)
    _, first, inv = np.unique(packed, axis=0, return_index=True, return_inverse=True)
    set_id = np.full((u, m), -1, dtype=np.int64)
    set_id[rows, stage] = inv.reshape(-1)
    firsts = member[first]
    set_size = firsts.sum(axis=1).astype(np.int64)
    set_items = np.argsort(~firsts, axis=1, kind="stable").astype(np.int64)
    return set_id, set_items, set_size


def check_tie_order(max_tie: int) -> None:
    """Refuse a tie order beyond :data:`MAX_TIE_ORDER` with one line."""
    if max_tie > MAX_TIE_ORDER:
        raise ValueError(
            f"a ranking ties {max_tie} items in one position; the Davidson-Luce model accepts "
            f"ties of at most {MAX_TIE_ORDER} items (read such a group as unranked: "
            'kind="top" with the group left out)'
        )


# --------------------------------------------------------------------------------------------
# the compiled pass
# --------------------------------------------------------------------------------------------
@numba.njit(cache=True, nogil=True)
def _esym(zz, na, mx, d, y, e):  # pragma: no cover - compiled
    """``e[k] = e_k(y)``, ``k <= d``, of ``y_i = exp((zz_i - mx) / d)`` (written to ``y``)."""
    for k in range(d + 1):
        e[k] = 0.0
    e[0] = 1.0
    for i in range(na):
        y[i] = np.exp((zz[i] - mx) / d)
        for k in range(d, 0, -1):
            e[k] += y[i] * e[k - 1]
    return e[d]


def _dl_sets(
    set_items, set_size, z, log_delta, set_w, with_grad, log_norm, grad
):  # pragma: no cover
    """Log-normaliser of every distinct choice set and its weighted gradient (compiled below).

    ``log_delta`` has length ``D + 1`` (index = tie order; index 0 unused, index 1 = 0;
    ``-inf`` = an order of strength 0). With ``M`` the largest score in the set and
    ``y_i = exp((z_i - M)/d)`` (all <= 1, so the recursions are stable), the normaliser is
    ``exp(M) sum_d delta_d e_d(y)``; the derivative of ``e_d`` in ``y_i`` is ``e_{d-1}`` of the
    others, from ``f_k = e_k - y_i f_{k-1}`` (no cancellation beyond rounding since y_i <= 1).
    ``grad`` (m + D + 1) receives minus ``set_w`` times the gradient of each log-normaliser in
    ``z`` (first m) and ``log_delta`` (the rest, by order). O(|A| D^2) per set.
    """
    n_sets, m = set_items.shape
    dmax = log_delta.shape[0] - 1
    delta = np.exp(log_delta)
    zz = np.empty(m)
    y = np.empty(m)
    e = np.empty(dmax + 1)
    ed = np.empty(dmax + 1)
    for a in range(n_sets):
        na = set_size[a]
        mx = -np.inf
        for i in range(na):
            zz[i] = z[set_items[a, i]]
            mx = max(mx, zz[i])
        nd = min(dmax, na)
        total = 0.0
        for d in range(1, nd + 1):
            ed[d] = 0.0 if delta[d] == 0.0 else _esym(zz, na, mx, d, y, e)
            total += delta[d] * ed[d]
        log_norm[a] = mx + np.log(total)
        w = set_w[a]
        if not with_grad or w == 0.0:
            continue
        for d in range(1, nd + 1):
            if delta[d] == 0.0:
                continue
            grad[m + d] -= w * delta[d] * ed[d] / total
            _esym(zz, na, mx, d, y, e)  # again, for the leave-one-out recursion
            for i in range(na):
                f = 1.0
                for k in range(1, d):
                    f = e[k] - y[i] * f
                # d/dz_i of delta_d e_d(v^(1/d)) / normaliser = delta_d y_i f / (d total)
                grad[set_items[a, i]] -= w * delta[d] * y[i] * f / (d * total)


_nb_dl_sets = numba.njit(_dl_sets, cache=True, nogil=True)


class _RowStages(NamedTuple):
    """The stage arrays of :class:`TieStages` that :func:`_dl_rows` reads (a numba-compatible
    group, so the kernel stays within the ten-parameter convention)."""

    order: np.ndarray
    starts: np.ndarray
    n_stages: np.ndarray
    set_id: np.ndarray


def _dl_rows(rows, z, log_delta, log_norm, row_w, with_grad, loglik, grad):  # pragma: no cover
    """Log-likelihood of every row from the set normalisers, plus the numerators' gradient.

    Stage ``s`` of row ``r`` contributes ``log delta_c + mean(z over its bucket) -
    log_norm[set_id[r, s]]`` (``c`` the bucket size; ``-inf`` for an order of strength 0).
    O(u m).
    """
    order, starts, n_stages, set_id = rows.order, rows.starts, rows.n_stages, rows.set_id
    u, m = order.shape
    dmax = log_delta.shape[0] - 1
    for r in range(u):
        ll = 0.0
        w = row_w[r]
        for s in range(n_stages[r]):
            a = starts[r, s]
            c = starts[r, s + 1] - a
            if c > dmax or log_delta[c] == -np.inf:
                ll = -np.inf
                break
            num = log_delta[c]
            for t in range(a, a + c):
                num += z[order[r, t]] / c
            ll += num - log_norm[set_id[r, s]]
            if with_grad and w != 0.0:
                for t in range(a, a + c):
                    grad[order[r, t]] += w / c
                grad[m + c] += w
        loglik[r] = ll


_nb_dl_rows = numba.njit(_dl_rows, cache=True, nogil=True)


def _log_delta_vector(tie_strengths: Any, max_order: int) -> np.ndarray:
    """``[0, 0, log delta_2, ..., log delta_D]`` padded with -inf up to ``max_order``."""
    delta = np.asarray(tie_strengths, dtype=np.float64).reshape(-1)
    out = np.full(max(max_order, delta.size + 1) + 1, -np.inf)
    out[0] = 0.0
    out[1] = 0.0
    with np.errstate(divide="ignore"):
        out[2 : delta.size + 2] = np.log(delta)
    return out


def _run(stages: TieStages, z: np.ndarray, log_delta: np.ndarray, row_w: np.ndarray | None):
    u, m = stages.order.shape
    loglik = np.empty(u)
    grad = np.zeros(m + log_delta.size)
    z = np.ascontiguousarray(z, dtype=np.float64)
    log_delta = np.ascontiguousarray(log_delta, dtype=np.float64)
    with_grad = row_w is not None
    row_w = np.zeros(u) if row_w is None else np.ascontiguousarray(row_w, dtype=np.float64)
    n_sets = stages.set_size.shape[0]
    if with_grad:
        used = stages.set_id >= 0
        set_w = np.bincount(
            stages.set_id[used],
            weights=np.broadcast_to(row_w[:, None], used.shape)[used],
            minlength=n_sets,
        )
    else:
        set_w = np.zeros(n_sets)
    log_norm = np.empty(n_sets)
    _nb_dl_sets(stages.set_items, stages.set_size, z, log_delta, set_w, with_grad, log_norm, grad)
    _nb_dl_rows(
        _RowStages(stages.order, stages.starts, stages.n_stages, stages.set_id),
        z,
        log_delta,
        log_norm,
        row_w,
        with_grad,
        loglik,
        grad,
    )
    return loglik, grad


def davidson_luce_loglik(stages: TieStages, scores: Any, tie_strengths: Any) -> np.ndarray:
    """Davidson-Luce log-likelihood of every input ranking.

    The function-level entry point for mixtures (per-row log-likelihood for given
    parameters).

    Parameters
    ----------
    stages : TieStages
        From :func:`tie_stages`.
    scores : array-like of float, shape (m,)
        Log-worths (any additive shift).
    tie_strengths : array-like of float, shape (D - 1,)
        ``delta_2, ..., delta_D`` (non-negative); empty for Plackett-Luce. A ranking with a
        tie of an order beyond ``D`` or of strength 0 has log-likelihood ``-inf``.

    Returns
    -------
    ndarray of float64, shape (n,)

    Notes
    -----
    Complexity: O(a m D^2 + u m) time for ``u`` distinct rankings whose stages have ``a``
    distinct choice sets (at most the number of stages), O(u m) memory.
    """
    z = np.asarray(scores, dtype=np.float64)
    if z.shape != (stages.n_items,) or not np.isfinite(z).all():
        raise ValueError(f"scores must be a finite array of shape ({stages.n_items},)")
    delta = np.asarray(tie_strengths, dtype=np.float64).reshape(-1)
    if not (np.isfinite(delta).all() and (delta >= 0).all()):
        raise ValueError("tie_strengths must be finite and non-negative")
    loglik, _ = _run(stages, z, _log_delta_vector(delta, 1), None)
    return loglik[stages.inverse]


def davidson_luce_gradient(
    stages: TieStages, row_w: np.ndarray, z: np.ndarray, log_delta: np.ndarray
) -> tuple[float, np.ndarray]:
    """Weighted log-likelihood and its gradient in ``(z, log_delta[2:])``. Trusts its input.

    ``log_delta`` as in the compiled pass (length ``D + 1``). Complexity O(a m D^3 + u m) for
    ``a`` distinct choice sets.
    """
    loglik, grad = _run(stages, z, log_delta, row_w)
    m = stages.n_items
    return float(np.dot(row_w, loglik)), np.concatenate([grad[:m], grad[m + 2 :]])


def davidson_luce_hessian(
    stages: TieStages,
    row_w: np.ndarray,
    z: np.ndarray,
    log_delta: np.ndarray,
    free: np.ndarray,
    *,
    step: float = 1e-5,
) -> np.ndarray:
    """Hessian of the weighted log-likelihood in the free parameters, by central differences.

    ``free`` is a boolean mask over ``(z, log_delta[2:])``. Column ``j`` is
    ``(g(x + h e_j) - g(x - h e_j)) / (2 h)`` of the analytic gradient ``g``, symmetrised:
    error O(h^2) from truncation plus O(eps / h) from rounding, about 1e-8 relative at the
    default ``h = 1e-5``. Costs 2 gradients per free parameter.
    """
    m = stages.n_items
    x = np.concatenate([z, log_delta[2:]])
    idx = np.flatnonzero(free)
    H = np.empty((idx.size, idx.size))

    def grad_at(xv: np.ndarray) -> np.ndarray:
        ld = log_delta.copy()
        ld[2:] = xv[m:]
        return davidson_luce_gradient(stages, row_w, xv[:m], ld)[1][idx]

    for col, j in enumerate(idx):
        xp = x.copy()
        xm = x.copy()
        xp[j] += step
        xm[j] -= step
        H[:, col] = (grad_at(xp) - grad_at(xm)) / (2 * step)
    return 0.5 * (H + H.T)


# --------------------------------------------------------------------------------------------
# fitting
# --------------------------------------------------------------------------------------------
def _newton_polish(objective: Any, information: Any, x: np.ndarray, tol: float) -> tuple:
    """Newton steps that minimise ``objective(x) -> (f, g)`` from ``x`` near the optimum:
    ``(x, n_steps, converged)``.

    The matrix ``information(x)`` (2 gradients per parameter) is kept while full steps are
    accepted (the chord method: linear convergence at a tiny rate there) and recomputed after
    a damped step; converged when a step moves no parameter by more than ``tol``.
    """
    H = None
    for n_steps in range(1, 51):
        f, g = objective(x)
        if H is None:
            H = information(x)
        try:
            dx = np.linalg.solve(H, g)
        except np.linalg.LinAlgError:
            return x, n_steps - 1, False
        step = 1.0
        while step > 1e-8 and objective(x - step * dx)[0] > f + 1e-12 * abs(f):
            step /= 2
        if step < 1.0:
            H = None
        x = x - step * dx
        if np.abs(step * dx).max() <= max(tol, 1e-12):
            return x, n_steps, True
    return x, 50, False


def fit_davidson_luce(
    stages: TieStages,
    row_w: np.ndarray,
    *,
    alpha: float = 0.0,
    max_iter: int = 1000,
    tol: float = 1e-10,
    start: tuple[np.ndarray, np.ndarray] | None = None,
    bound: float | None = None,
    polish: bool = True,
) -> tuple[np.ndarray, np.ndarray, int, bool]:
    """Maximum-likelihood (or MAP) worths and tie strengths of the Davidson-Luce model.

    Maximises ``sum_r row_w[r] loglik_r(z, delta)`` plus, when ``alpha > 0``, the Gamma prior
    term ``alpha sum_i (z_i - exp(z_i))`` of :func:`~rankclust.models.plackett_luce.fit_scores`
    (the tie strengths are not penalised). The tie orders are ``2..D`` with ``D`` the largest
    observed bucket; an order in that range that no stage shows has MLE ``delta_d = 0`` (kept
    at 0, not fitted). L-BFGS on the analytic gradient (the objective is concave), then Newton
    steps with the central-difference Hessian until no parameter moves by more than ``tol``.

    ``start = (scores, tie_strengths)`` starts the search there instead of at ``z = 0``,
    ``delta = 1`` (the M-step of a mixture warm-starts from the previous iterate, so that
    the weighted log-likelihood never decreases); a start's tie strengths are used for the
    observed orders, a non-positive one replaced by 1. ``bound`` confines the log-worths and
    log tie strengths to ``[-bound, bound]`` (L-BFGS-B box; the start must lie in it): the
    maximum then always exists, which a mixture component needs (its weighted data may
    separate an item, where the unbounded MLE is infinite). The Newton polish runs only
    from an interior point and keeps its result only inside the box; ``polish=False`` skips
    it (L-BFGS-B's answer, ``converged`` its own flag).

    Returns
    -------
    scores : ndarray, shape (m,)
        Log-worths, sum zero.
    tie_strengths : ndarray, shape (D - 1,)
        ``delta_2..delta_D``.
    n_iter : int
        L-BFGS iterations plus Newton steps.
    converged : bool
    """
    m = stages.n_items
    D = stages.max_tie
    check_tie_order(D)
    observed = stages.tie_counts[2:] > 0
    log_delta = np.full(D + 1, -np.inf)
    log_delta[:2] = 0.0
    log_delta[2:][observed] = 0.0
    free = np.concatenate([np.ones(m, dtype=bool), observed])
    x0 = np.zeros(int(free.sum()))
    if start is not None:
        x0[:m] = np.asarray(start[0], dtype=np.float64)
        d0 = np.ones(D - 1)
        given = np.asarray(start[1], dtype=np.float64).reshape(-1)[: D - 1]
        d0[: given.size] = np.where(given > 0, given, 1.0)
        x0[m:] = np.log(d0[observed])

    def unpack(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        ld = log_delta.copy()
        ld[2:][observed] = x[m:]
        return x[:m], ld

    def objective(x: np.ndarray) -> tuple[float, np.ndarray]:
        z, ld = unpack(x)
        f, g = davidson_luce_gradient(stages, row_w, z, ld)
        g = g[free]
        if alpha > 0:
            ez = np.exp(z)
            f += alpha * float(np.sum(z - ez))
            g[:m] += alpha * (1.0 - ez)
        return -f, -g

    res = optimize.minimize(
        objective,
        x0,
        jac=True,
        method="L-BFGS-B",
        bounds=None if bound is None else [(-bound, bound)] * x0.size,
        options={"maxiter": max_iter, "gtol": 1e-8 * max(1.0, float(row_w.sum())), "ftol": 0.0},
    )
    x = res.x
    n_iter = int(res.nit)
    converged = False
    if not polish or (bound is not None and np.abs(x).max() > bound * (1 - 1e-6)):
        # at the box: L-BFGS-B's answer is the bounded maximum (no polish across the edge)
        z, ld = unpack(x)
        return z - z.mean(), np.exp(ld[2:]), n_iter, bool(res.success)
    x_lbfgs = x

    def information(x: np.ndarray) -> np.ndarray:
        z, ld = unpack(x)
        H = -davidson_luce_hessian(stages, row_w, z, ld, free)
        if alpha > 0:
            H[:m, :m] += alpha * np.diag(np.exp(z))
        else:
            # shift invariance: the information is singular along the constant shift of the
            # scores, which the gradient never has; fill that direction to solve
            H[:m, :m] += np.ones((m, m)) / m
        return H

    x, n_newton, converged = _newton_polish(objective, information, x, tol)
    n_iter += n_newton
    if bound is not None and not np.abs(x).max() <= bound:
        x, converged = x_lbfgs, bool(res.success)  # the polish left the box
    z, ld = unpack(x)
    if not (np.isfinite(z).all() and np.isfinite(ld[2:][observed]).all()):
        raise ValueError("the Davidson-Luce estimate does not exist for these data")
    return z - z.mean(), np.exp(ld[2:]), n_iter, converged


def davidson_luce_information(
    stages: TieStages,
    row_w: np.ndarray,
    scores: np.ndarray,
    tie_strengths: np.ndarray,
    *,
    alpha: float = 0.0,
) -> np.ndarray:
    """Covariance of ``(scores, log tie_strengths)`` at the fit: the inverse observed information.

    The information is the negative central-difference Hessian (see
    :func:`davidson_luce_hessian`) of the log-likelihood (plus the prior term when
    ``alpha > 0``). The scores are sum-zero: with ``alpha = 0`` the covariance is the
    Moore-Penrose inverse of the information, whose null space is the constant shift of the
    scores; with ``alpha > 0`` it is ``P Sigma P`` (``P`` centres the scores) as for
    Plackett-Luce. A tie order with strength 0 (never observed) has NaN rows and columns.

    Returns
    -------
    ndarray of float64, shape (m + D - 1, m + D - 1)
    """
    m = stages.n_items
    delta = np.asarray(tie_strengths, dtype=np.float64)
    ld = _log_delta_vector(delta, 1)
    observed = delta > 0
    free = np.concatenate([np.ones(m, dtype=bool), observed])
    info = -davidson_luce_hessian(stages, row_w, scores, ld, free)
    p = info.shape[0]
    P = np.eye(p)
    P[:m, :m] -= 1.0 / m
    if alpha > 0:
        info[:m, :m] += alpha * np.diag(np.exp(scores))
        sub = P @ np.linalg.inv(info) @ P.T
    else:
        sub = np.linalg.pinv(info, hermitian=True)
        sub = P @ sub @ P.T
    out = np.full((m + delta.size, m + delta.size), np.nan)
    out[np.ix_(free, free)] = sub
    return out


# --------------------------------------------------------------------------------------------
# sampling
# --------------------------------------------------------------------------------------------
def _dl_sample(z, delta, rng, out):  # pragma: no cover - compiled below
    """Exact Davidson-Luce draws into ``out`` (size, m) as dense bucket positions.

    Per stage: the order ``d`` with probability ``delta_d e_d(y^(d)) / total``, then the set
    of ``d`` items with probability proportional to ``prod y_i`` (conditional Poisson
    sampling: scan the items, keep item ``i`` with probability ``y_i e_{k-1}(rest) /
    e_k(i and rest)`` by suffix polynomials). O(m^2 D^2) per draw.
    """
    size, m = out.shape
    dmax = delta.shape[0] - 1
    left = np.empty(m, dtype=np.int64)
    zz = np.empty(m)
    y = np.empty(m)
    e = np.empty(dmax + 1)
    tot = np.empty(dmax + 1)
    suf = np.empty((m + 1, dmax + 1))
    for n in range(size):
        na = m
        for i in range(m):
            left[i] = i
        pos = 0
        while na > 0:
            mx = -np.inf
            for i in range(na):
                zz[i] = z[left[i]]
                mx = max(mx, zz[i])
            nd = min(dmax, na)
            total = 0.0
            for d in range(1, nd + 1):
                tot[d] = 0.0 if delta[d] == 0.0 else delta[d] * _esym(zz, na, mx, d, y, e)
                total += tot[d]
            u = xoshiro_uniform(rng) * total
            d = 1
            acc = tot[1]
            while d < nd and u >= acc:
                d += 1
                acc += tot[d]
            while tot[d] == 0.0:  # rounding at the top end
                d -= 1
            na = _draw_set(left, zz, na, mx, d, y, suf, rng, out[n], pos)
            pos += 1


@numba.njit(cache=True, nogil=True)
def _draw_set(left, zz, na, mx, d, y, suf, rng, out_row, pos):  # pragma: no cover - compiled
    """Place ``d`` of the ``na`` items ``left`` at ``pos``, with probability proportional to
    ``prod y_i`` (conditional Poisson sampling by suffix polynomials); compact ``left`` to the
    others and return their number."""
    for i in range(na):
        y[i] = np.exp((zz[i] - mx) / d)
    for k in range(d + 1):
        suf[na, k] = 0.0
    suf[na, 0] = 1.0
    for i in range(na - 1, -1, -1):
        suf[i, 0] = 1.0
        for k in range(1, d + 1):
            suf[i, k] = suf[i + 1, k] + y[i] * suf[i + 1, k - 1]
    k = d
    keep = 0
    for i in range(na):
        if k > 0 and (k == na - i or xoshiro_uniform(rng) < y[i] * suf[i + 1, k - 1] / suf[i, k]):
            out_row[left[i]] = pos
            k -= 1
        else:
            left[keep] = left[i]
            keep += 1
    return keep


_nb_dl_sample = numba.njit(_dl_sample, cache=True, nogil=True)


def sample_davidson_luce(
    scores: np.ndarray, tie_strengths: np.ndarray, size: int, random_state: Any
) -> np.ndarray:
    """Rank matrix (size, m) of exact Davidson-Luce draws (dense bucket positions).

    ``random_state`` is a numpy ``RandomState``/``Generator``; one integer drawn from it seeds
    the compiled xoshiro256** stream.
    """
    z = np.ascontiguousarray(scores, dtype=np.float64)
    delta = np.exp(_log_delta_vector(tie_strengths, 1))
    seed = (
        int(random_state.randint(0, 2**63 - 1, dtype=np.int64))
        if hasattr(random_state, "randint")
        else int(random_state.integers(0, 2**63 - 1))
    )
    out = np.empty((int(size), z.size), dtype=np.int64)
    _nb_dl_sample(z, delta, xoshiro_state(seed), out)
    return out

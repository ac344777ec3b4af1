"""Mallows models of any registered distance on complete, top-t and subset rankings.

A partial ranking (no ties) stands for the set ``E(sigma)`` of its consistent completions:

* ``kind="top"``, ``t`` items listed: the listed items keep their positions ``0..t-1`` and the
  ``m - t`` others fill the positions below in any order (``(m-t)!`` completions);
* ``kind="subset"``, ``k`` items ranked: the ranked items keep their relative order in any
  ``k`` of the ``m`` positions and the others fill the rest in any order (``m!/k!``).

Likelihood: ``P(E(sigma)) = sum_{pi in E(sigma)} exp(-theta d(pi, c)) / Z_m(theta)``, computed
**exactly** by enumerating ``E(sigma)`` when it has at most :data:`COMPLETION_CAP` (8! = 40320)
members; a row with more raises ``ValueError`` (no exact marginal is known for these distances).
Identical rows are evaluated once; a row consistent with every permutation (a subset
ranking of at most one item, an empty top list) has likelihood 1 and is skipped.

Fit (:func:`fit_em`): EM over the completions. E-step: every completion of a partial row gets
the conditional probability ``∝ exp(-theta d(pi, c))``; M-step: the family's weighted
complete-data fit on all completions (centre by ``family.estimate_center``, theta by the
generic solver), which maximises the expected complete-data log-likelihood, so the observed
likelihood never decreases when the centre step is exact. Start: the E-step at theta = 0
(every completion equally likely). Stop: centre unchanged and ``|delta theta| <= max(tol, EM_RTOL theta)``.

Above the cap (or once the exact E-step would hold more than :data:`EM_TOTAL_CAP` completions
in all, for the rows with the most completions) the E-step is Monte Carlo (MCEM, the data augmentation MSmix uses for Spearman,
Crispino et al. 2023): each such row carries :data:`MC_DRAWS` completions drawn by a
Metropolis chain on its completion set (moves: swap two unranked items; for subset rows also
swap an unranked item with a ranked one when no other ranked item lies between them, which
keeps the chain order; :data:`MC_BURN_IN` sweeps of burn-in and one sweep between draws,
chains restarted from the previous iteration's state), and the M-step uses those draws with
equal weights. It does not maximise the likelihood exactly; it stops when the centre repeats
and theta moves by at most :data:`MC_RTOL` (2%, the Monte Carlo noise level) relative, or after
``max_iter`` iterations (the exact EM: :data:`EM_RTOL`).

Private module (trusted input: rankings without ties).
"""

from __future__ import annotations

import math
from itertools import combinations, permutations

import numpy as np
from scipy.special import logsumexp

from rankclust.models._mallows_distances import MallowsDistance, theta_mle
from rankclust.rankings import Rankings

#: Largest number of completions of one row enumerated exactly (8!).
COMPLETION_CAP = 40320
#: Largest number of completions (over all distinct rows) the exact E-step holds; above it
#: the rows with the most completions get the Monte Carlo E-step.
EM_TOTAL_CAP = 2_000_000
#: Monte Carlo E-step above the cap: draws per row, burn-in sweeps.
MC_DRAWS = 50
MC_BURN_IN = 20
#: Relative change of theta below which the EM stops (exact E-step; Monte Carlo E-step).
EM_RTOL = 1e-6
MC_RTOL = 0.02


def n_completions(row: np.ndarray, kind: str) -> int:
    """Number of complete rankings consistent with a row without ties."""
    m = row.shape[0]
    k = int((row >= 0).sum())
    if kind == "top":
        return math.factorial(m - k)
    return math.factorial(m) // math.factorial(k)


def first_row_over_cap(R: Rankings, cap: int = COMPLETION_CAP) -> tuple[int, int, int] | None:
    """``(row, length, n_completions)`` of the first row of ``R`` (rows without ties) with
    more than ``cap`` consistent completions, or None. The count depends on the length only,
    so one row per length is checked: O(n + distinct lengths)."""
    m = R.n_items
    lengths = R.lengths
    short = np.flatnonzero(lengths < m)
    for t in np.unique(lengths[short]):
        row = int(short[lengths[short] == t][0])
        n = n_completions(np.asarray(R.ranks[row]), R.kind)
        if n > cap:
            return row, int(t), n
    return None


def completions(row: np.ndarray, kind: str) -> np.ndarray:
    """All consistent completions of a row (position vectors), shape (n_completions, m).

    O(n_completions m) time and memory.
    """
    m = row.shape[0]
    present = np.flatnonzero(row >= 0)
    absent = np.flatnonzero(row < 0)
    chain = present[np.argsort(row[present])]
    k, r = len(present), len(absent)
    perms = list(permutations(range(r)))
    fills = np.array(perms, dtype=np.int64).reshape(len(perms), r)
    if kind == "top":
        out = np.empty((fills.shape[0], m), dtype=np.int64)
        out[:, chain] = np.arange(k)
        out[:, absent] = k + fills
        return out
    combos = list(combinations(range(m), k))
    slots = np.array(combos, dtype=np.int64).reshape(len(combos), k)
    out = np.empty((slots.shape[0], fills.shape[0], m), dtype=np.int64)
    out[:, :, chain] = slots[:, None, :]
    free = np.array([np.setdiff1d(np.arange(m), s) for s in slots], dtype=np.int64)
    free = free.reshape(len(combos), r)
    out[:, :, absent] = np.take_along_axis(
        np.broadcast_to(free[:, None, :], (slots.shape[0], fills.shape[0], r)),
        np.broadcast_to(fills[None], (slots.shape[0], fills.shape[0], r)),
        axis=2,
    )
    return out.reshape(-1, m)


def _distances(family: MallowsDistance, pos: np.ndarray, center: np.ndarray) -> np.ndarray:
    return family.distances(Rankings._from_trusted(pos), center).astype(np.float64)


def _check_cap(R: Rankings, rows: np.ndarray, row_ids: np.ndarray) -> None:
    for i in rows:
        n = n_completions(R.ranks[i], R.kind)
        if n > COMPLETION_CAP:
            raise ValueError(
                f"row {int(row_ids[i])}: the exact likelihood of this partial ranking sums over its {n} "
                f"completions (limit COMPLETION_CAP = {COMPLETION_CAP}); only Kendall-Mallows "
                "has an exact partial likelihood beyond it"
            )


def _distinct(R: Rankings) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    ranks = R.ranks.astype(np.int64)
    uniq, first, inverse = np.unique(ranks, axis=0, return_index=True, return_inverse=True)
    return uniq, first, inverse.reshape(-1)


def loglik_rows(
    R: Rankings, family: MallowsDistance, center: np.ndarray, theta: float
) -> np.ndarray:
    """Exact per-row log-likelihood (complete rows directly, partial rows by enumeration).

    Complexity: O(n m) plus O(N_c m) per distinct partial row with N_c completions.
    """
    m = R.n_items
    log_z = family.log_normalizer(theta, m)
    full = R.lengths >= m - 1  # (a top list missing one item is complete)
    if R.kind != "top":
        full = R.lengths == m
    out = np.zeros(R.n_rankings)  # uninformative rows (every completion allowed): log 1
    if full.any():
        out[full] = -theta * family.distances(R[np.flatnonzero(full)], center) - log_z
    rows = np.flatnonzero(~full & _informative(R))
    if rows.size:
        out[rows] = _partial_loglik(R[rows], family, center, theta, log_z, rows)
    return out


def _informative(R: Rankings) -> np.ndarray:
    """Rows whose completions are not all permutations (``P(E) < 1``): a subset ranking of
    at least 2 items, a top list of at least 1."""
    return R.lengths >= (1 if R.kind == "top" else 2)


def _partial_loglik(
    R: Rankings,
    family: MallowsDistance,
    center: np.ndarray,
    theta: float,
    log_z: float,
    row_ids: np.ndarray,
) -> np.ndarray:
    uniq, first, inverse = _distinct(R)
    _check_cap(R, first, row_ids)
    vals = np.empty(len(uniq))
    for u, row in enumerate(uniq):
        comp = completions(row, R.kind)
        vals[u] = logsumexp(-theta * _distances(family, comp, center)) - log_z
    return vals[inverse]


def _m_step(
    family: MallowsDistance, pos: np.ndarray, w: np.ndarray, m: int, xtol: float
) -> tuple[np.ndarray, float]:
    center = family.estimate_center(pos, w)
    mean = float(w @ _distances(family, pos, center)) / float(w.sum())
    return center, theta_mle(family, mean, m, xtol=xtol)


def _swap_moves(rows: np.ndarray, kind: str, state: np.ndarray, rng: np.random.RandomState):
    """One proposal per chain: swap the positions of two items keeping the row consistent.

    ``kind="top"``: two unranked items. ``"subset"``: an unranked item and any other item,
    kept only when no ranked item lies strictly between their positions (otherwise the chain
    stays put). Symmetric proposals, vectorised over the chains.
    """
    n, m = state.shape
    absent = rows < 0
    keys = np.where(absent, rng.random_sample((n, m)), -1.0)
    order = np.argsort(-keys, axis=1)
    i = order[:, 0]
    if kind == "top":
        j = order[:, 1]
        ok = absent.sum(axis=1) >= 2
    else:
        j = rng.randint(m, size=n)
        ar = np.arange(n)
        lo = np.minimum(state[ar, i], state[ar, j])[:, None]
        hi = np.maximum(state[ar, i], state[ar, j])[:, None]
        blocked = ((state > lo) & (state < hi) & ~absent).any(axis=1)
        ok = (j != i) & (absent[ar, j] | ~blocked) & absent[ar, i]
    prop = state.copy()
    ar = np.flatnonzero(ok)
    prop[ar, i[ok]] = state[ar, j[ok]]
    prop[ar, j[ok]] = state[ar, i[ok]]
    return prop


def _mc_completions(
    family: MallowsDistance,
    rows: np.ndarray,
    kind: str,
    state: np.ndarray,
    center: np.ndarray,
    theta: float,
    rng: np.random.RandomState,
) -> tuple[np.ndarray, np.ndarray]:
    """``MC_DRAWS`` Metropolis draws per row from ``P(pi | pi in E(row))``; new chain states."""
    n, m = state.shape
    d = _distances(family, state, center)
    draws = np.empty((MC_DRAWS, n, m), dtype=np.int64)
    for step in range((MC_BURN_IN + MC_DRAWS) * m):
        prop = _swap_moves(rows, kind, state, rng)
        dp = _distances(family, prop, center)
        accept = rng.random_sample(n) < np.exp(np.minimum(0.0, -theta * (dp - d)))
        state[accept] = prop[accept]
        d[accept] = dp[accept]
        sweep, rest = divmod(step + 1, m)
        if rest == 0 and sweep > MC_BURN_IN:
            draws[sweep - MC_BURN_IN - 1] = state
    return draws.transpose(1, 0, 2).reshape(n * MC_DRAWS, m), state


def _first_completion(row: np.ndarray, kind: str) -> np.ndarray:
    """One consistent completion: unranked items after (top) or around (subset) the chain."""
    m = row.shape[0]
    out = row.astype(np.int64).copy()
    absent = np.flatnonzero(row < 0)
    k = m - len(absent)
    present = np.flatnonzero(row >= 0)
    out[present[np.argsort(row[present])]] = np.arange(k)
    out[absent] = k + np.arange(len(absent))
    return out


def fit_em(
    R: Rankings,
    w: np.ndarray,
    family: MallowsDistance,
    *,
    max_iter: int,
    tol: float,
    rng: np.random.RandomState,
) -> tuple[np.ndarray, float, int, bool]:
    """EM (exact E-step under the cap, Monte Carlo above) for rankings without ties.

    Returns ``(center, theta, n_iter, converged)``.

    Complexity: per iteration O(N m) for N completions in all (the exact E-step) plus the
    family's centre step on N weighted completions; Monte Carlo rows add
    O((MC_BURN_IN + MC_DRAWS) m) distance evaluations per row.
    """
    m = R.n_items
    uniq, _, inverse = _distinct(R)
    wu = np.bincount(inverse, weights=w, minlength=len(uniq))
    # rows consistent with every permutation have likelihood 1 whatever the parameters and
    # are dropped (the same maximiser); kept only when nothing else is left
    keep = wu > 0
    informative = (uniq >= 0).sum(axis=1) >= (1 if R.kind == "top" else 2)
    if (keep & informative).any():
        keep &= informative
    uniq, wu = uniq[keep], wu[keep]
    sizes = np.array([n_completions(row, R.kind) for row in uniq], dtype=object)
    exact = np.array([n <= COMPLETION_CAP for n in sizes], dtype=bool)
    # bound the memory of the exact E-step: the largest rows go Monte Carlo first
    by_size = sorted(np.flatnonzero(exact), key=lambda u: -sizes[u])
    total = sum(int(sizes[u]) for u in by_size)
    for u in by_size:
        if total <= EM_TOTAL_CAP:
            break
        exact[u] = False
        total -= int(sizes[u])
    comp = [completions(row, R.kind) for row in uniq[exact]]
    owner = np.repeat(np.arange(len(comp)), [len(c) for c in comp])
    pos_exact = np.concatenate(comp) if comp else np.empty((0, m), dtype=np.int64)
    rows_mc = uniq[~exact]
    w_mc = wu[~exact]
    state = np.array([_first_completion(row, R.kind) for row in rows_mc]).reshape(-1, m)

    def e_step(center: np.ndarray | None, theta: float) -> tuple[np.ndarray, np.ndarray]:
        if center is None:
            logp = np.zeros(len(pos_exact))
        else:
            logp = -theta * _distances(family, pos_exact, center)
        norm = np.full(len(comp), -np.inf)
        np.logaddexp.at(norm, owner, logp)
        weights = wu[exact][owner] * np.exp(logp - norm[owner])
        if not len(rows_mc):
            return pos_exact, weights
        nonlocal state
        if center is None:
            draws = np.repeat(state, MC_DRAWS, axis=0)
        else:
            draws, state = _mc_completions(family, rows_mc, R.kind, state, center, theta, rng)
        return (
            np.concatenate([pos_exact, draws]),
            np.concatenate([weights, np.repeat(w_mc / MC_DRAWS, MC_DRAWS)]),
        )

    rtol = MC_RTOL if len(rows_mc) else EM_RTOL
    center, theta = _m_step(family, *e_step(None, 0.0), m, tol)
    for it in range(1, max_iter + 1):
        new_center, new_theta = _m_step(family, *e_step(center, theta), m, tol)
        done = np.array_equal(new_center, center) and abs(new_theta - theta) <= max(
            tol, rtol * theta
        )
        center, theta = new_center, new_theta
        if done:
            return center, theta, it, True
    return center, theta, max_iter, False

"""Conversions between rankings and comparisons: breaking rankings into pairs, closing pairs.

Private module: :meth:`Comparisons.from_rankings` and :meth:`Comparisons.closure` are the
public entry points.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.sparse.csgraph import connected_components

from rankclust._limits import InputLimits, check_alloc, resolve_limits
from rankclust.rankings import Rankings, check_rankings

__all__ = ["PairwiseClosure"]

_MODES = ("all", "adjacent", "top_vs_rest")


def _dense_rows(R: Rankings) -> np.ndarray:
    """Rank matrix with dense bucket positions per row; absent -> -1 (``subset``) or the
    row's bucket count (``top``: below every listed item)."""
    ranks = R.ranks.astype(np.int64)
    out = np.full_like(ranks, -1)
    for i in range(ranks.shape[0]):
        row = ranks[i]
        here = row >= 0
        _, dense = np.unique(row[here], return_inverse=True)
        out[i, here] = dense
        if R.kind == "top":
            out[i, ~here] = dense.max() + 1 if dense.size else 0
    return out


def break_rankings(cls: type, R: Any, mode: str) -> Any:
    """Implementation of :meth:`Comparisons.from_rankings` (see there)."""
    if mode not in _MODES:
        raise ValueError(f"mode must be one of {_MODES}, got {mode!r}")
    R = check_rankings(R)
    n, m = R.shape
    pos = _dense_rows(R)
    listed = R.ranks >= 0
    # every pair needs at least one listed item; two unlisted items of a top list are unordered
    lim = resolve_limits(None)
    lengths = listed.sum(axis=1).astype(np.float64)
    bound = lengths * (lengths - 1) / 2 + (lengths * (m - lengths) if R.kind == "top" else 0)
    if bound.sum() > lim.max_rows:
        raise ValueError(
            f"breaking {n} rankings into pairs would give up to {int(bound.sum())} comparisons "
            f"(max_rows={lim.max_rows}); " + InputLimits.how_to_raise("max_rows")
        )
    parts_w, parts_l, parts_a, parts_t = [], [], [], []
    for u in range(m):
        for v in range(u + 1, m):
            pu, pv = pos[:, u], pos[:, v]
            ok = (pu >= 0) & (pv >= 0) & (listed[:, u] | listed[:, v])
            tie = ok & (pu == pv)
            if mode == "all":
                keep = ok
            elif mode == "adjacent":
                keep = ok & (np.abs(pu - pv) <= 1)
            else:
                keep = ok & (np.minimum(pu, pv) == 0)
            rows = np.flatnonzero(keep)
            if not rows.size:
                continue
            u_wins = pu[rows] <= pv[rows]
            parts_w.append(np.where(u_wins, u, v))
            parts_l.append(np.where(u_wins, v, u))
            parts_a.append(rows)
            parts_t.append(tie[rows])
    if parts_a:
        a = np.concatenate(parts_a)
        order = np.argsort(a, kind="stable")
        w, lo = np.concatenate(parts_w)[order], np.concatenate(parts_l)[order]
        a, t = a[order], np.concatenate(parts_t)[order]
    else:
        w = lo = a = np.zeros(0, dtype=np.int64)
        t = np.zeros(0, dtype=bool)
    return cls(
        w,
        lo,
        n_items=m,
        assessor=a,
        count=R.weights[a],
        tie=t,
        items=R.items,
        assessors=[str(i) for i in range(n)],
        limits={"max_rows": max(lim.max_rows, 1), "max_items": max(m, 1)},
    )


@dataclass(frozen=True)
class PairwiseClosure:
    """Each assessor's comparisons closed into a partial order (:meth:`Comparisons.closure`).

    Strongly connected groups of items (an assessor who says a > b, b > c and c > a) are
    **kept**: they become one tied bucket of the assessor's ranking and are reported here.

    Attributes
    ----------
    rankings : Rankings
        One row per assessor (``kind="subset"``): items the assessor compared, placed by the
        longest chain of preferences above them (a weak order consistent with the closure;
        items in one cycle are tied). Items the assessor never compared are absent.
    is_weak_order : ndarray of bool, shape (n_assessors,)
        Whether the closure is exactly the order of ``rankings`` (True for transitive
        rankings broken into pairs; False where the assessor left items unordered that the
        ranking puts in different buckets).
    intransitive : dict of int to list of int
        For each intransitive assessor, one preference cycle ``[a, b, ..., a]`` (item
        indices; each beats the next).
    cycle_pairs : dict of int to ndarray of shape (k, 2)
        For each intransitive assessor, every strict comparison ``(winner, loser)`` that lies
        on a cycle (both items in one strongly connected group).
    closure_pairs : ndarray of int64, shape (p, 3)
        ``(assessor, better, worse)`` for every pair of the transitive closure between
        items of different groups.
    """

    rankings: Rankings
    is_weak_order: np.ndarray
    intransitive: dict[int, list[int]] = field(default_factory=dict)
    cycle_pairs: dict[int, np.ndarray] = field(default_factory=dict)
    closure_pairs: np.ndarray = field(default_factory=lambda: np.zeros((0, 3), dtype=np.int64))

    @property
    def n_intransitive(self) -> int:
        """Number of intransitive assessors."""
        return len(self.intransitive)


def _find_cycle(adj: np.ndarray, strict: np.ndarray, members: np.ndarray) -> list[int]:
    """One cycle through a strict edge inside the strongly connected group ``members``."""
    inside = np.zeros(adj.shape[0], dtype=bool)
    inside[members] = True
    sub = strict & inside[:, None] & inside[None, :]
    u, v = (int(x) for x in np.argwhere(sub)[0])
    parent = {v: -1}
    queue = deque([v])
    while queue:  # BFS back from v to u inside the group
        x = queue.popleft()
        if x == u:
            break
        for y in np.flatnonzero(adj[x] & inside):
            y = int(y)
            if y not in parent:
                parent[y] = x
                queue.append(y)
    path = [u]
    while path[-1] != v:
        path.append(parent[path[-1]])
    return [u, *reversed(path)]  # u -> v -> ... -> u


def _levels(reach: np.ndarray, label: np.ndarray, n_groups: int) -> np.ndarray:
    """Longest chain of groups above each group (0 = top) in the condensation DAG."""
    above = np.zeros((n_groups, n_groups), dtype=bool)  # above[g, h]: g beats h
    ii, jj = np.nonzero(reach)
    above[label[ii], label[jj]] = True
    np.fill_diagonal(above, False)
    level = np.zeros(n_groups, dtype=np.int64)
    remaining = np.ones(n_groups, dtype=bool)
    depth = 0
    while remaining.any():
        sources = remaining & ~above[remaining].any(axis=0)
        level[sources] = depth
        remaining &= ~sources
        depth += 1
    return level


def close_assessors(C: Any, limits: Any) -> PairwiseClosure:
    """Implementation of :meth:`Comparisons.closure` (see :class:`PairwiseClosure`)."""
    lim = resolve_limits(limits)
    m = C.n_items
    n_a = max(C.n_assessors, 1) if C.has_assessors else 1
    check_alloc(8.0 * n_a * m, 8 * lim.max_cells, "the rank matrix of the closure")
    ranks = np.full((n_a, m), -1, dtype=np.int64)
    weak = np.ones(n_a, dtype=bool)
    intransitive: dict[int, list[int]] = {}
    cycle_pairs: dict[int, np.ndarray] = {}
    closure_parts = []
    a_of_row = C.assessor if C.has_assessors else np.zeros(C.n_comparisons, dtype=np.int64)
    order = np.argsort(a_of_row, kind="stable")
    bounds = np.searchsorted(a_of_row[order], np.arange(n_a + 1))
    for a in range(n_a):
        rows = order[bounds[a] : bounds[a + 1]]
        if not rows.size:
            continue
        w, lo, t = C.winner[rows], C.loser[rows], C.tie[rows]
        local, inv = np.unique(np.concatenate([w, lo]), return_inverse=True)
        k = local.size
        check_alloc(float(k) * k * 2, lim.max_cells, f"the closure of assessor {a}")
        wi, li = inv[: rows.size], inv[rows.size :]
        strict = np.zeros((k, k), dtype=bool)
        strict[wi[~t], li[~t]] = True
        adj = strict.copy()
        adj[wi[t], li[t]] = True
        adj[li[t], wi[t]] = True
        n_groups, label = connected_components(adj, directed=True, connection="strong")
        # reachability by repeated squaring: O(k^3 log k) for an assessor's k items
        reach = adj.copy()
        while True:
            nxt = reach | ((reach.astype(np.int32) @ reach.astype(np.int32)) > 0)
            if (nxt == reach).all():
                break
            reach = nxt
        same = label[:, None] == label[None, :]
        on_cycle = strict & same
        if on_cycle.any():
            pairs = np.argwhere(on_cycle)
            cycle_pairs[a] = local[pairs]
            first = label[pairs[0, 0]]
            cyc = _find_cycle(adj, strict, np.flatnonzero(label == first))
            intransitive[a] = [int(local[x]) for x in cyc]
        level = _levels(reach & ~same, label, n_groups)[label]
        ranks[a, local] = level
        between = reach & ~same
        diff_level = level[:, None] < level[None, :]
        weak[a] = bool((between == diff_level).all())
        bi, bj = np.nonzero(between)
        closure_parts.append(np.column_stack([np.full(bi.size, a), local[bi], local[bj]]))
    closure_pairs = (
        np.concatenate(closure_parts).astype(np.int64)
        if closure_parts
        else np.zeros((0, 3), dtype=np.int64)
    )
    return PairwiseClosure(
        rankings=Rankings(ranks, kind="subset", items=C.items),
        is_weak_order=weak,
        intransitive=intransitive,
        cycle_pairs=cycle_pairs,
        closure_pairs=closure_pairs,
    )

"""KTree: a decision tree whose leaves carry one of K given central rankings (private).

The second stage of naive_RT, ebms_RT and Ko'm_RT and the inner step of RT_iter (Grbovic et al.
2013, sec. 3.2.2 and Algorithm 1, step 3): given a cost matrix ``D[n, k]`` (the normalised
Kendall distance of ranking ``n`` to candidate ranking ``k``), grow a binary tree on the
features, at every node choosing the axis-parallel split that minimises eq. (18),

    ``min_k sum_{n in T-} D[n, k] + min_k sum_{n in T+} D[n, k]``,

and stop when the two sides of the best split carry the same ranking or ``|T| <= min_node``.
A leaf carries the ranking ``argmin_k sum_{n in T} D[n, k]``.

The split search is one sweep per feature over the node's samples in feature order, keeping
prefix sums of ``D`` (the paper's "cumulative sums of d_tau", decisions.md G8): O(|T| K) per
feature and node.
The samples of a node stay contiguous in one presorted index array per feature and are
partitioned stably at every split (CART's bookkeeping), so nothing is re-sorted.
"""

from __future__ import annotations

import itertools
from typing import NamedTuple

import numba
import numpy as np

from rankclust import _loaded_state as loaded

# one compiled root-to-leaf walk for every binary tree of the package
from rankclust._compiled import tree_apply

__all__ = ["KTree", "grow_ktree_reference"]

_EPS = 1e-12


class KTreeArrays(NamedTuple):
    """Per-node outputs of :func:`_grow` (sized 2n)."""

    feat: np.ndarray  # -1 at leaves
    thr: np.ndarray
    left: np.ndarray
    right: np.ndarray
    value: np.ndarray  # the node's ranking k*
    cost: np.ndarray  # sum_T D[:, k*]
    count: np.ndarray  # node sizes


def _node_totals(order, lo, hi, D, V, full, total, vtot):  # pragma: no cover - compiled below
    """``total = sum_T D[i, :]`` and (``full``) ``vtot = sum_T V[i, :]`` over the node's
    samples ``order[0, lo:hi]``; returns the node's ranking k* (lowest index on ties)."""
    K = D.shape[1]
    m = V.shape[1]
    total[:] = 0.0
    vtot[:] = 0.0
    for p in range(lo, hi):
        i = order[0, p]
        for k in range(K):
            total[k] += D[i, k]
        if full:
            for j in range(m):
                vtot[j] += V[i, j]
    kstar = 0
    for k in range(1, K):
        if total[k] < total[kstar] - _EPS:
            kstar = k
    return kstar


def _sides_cost(cum, total):  # pragma: no cover - compiled below
    """Eq. (18) of a cut: ``(min_k cum[k] + min_k (total - cum)[k], k_left, k_right)``,
    lowest index on ties (within ``_EPS``)."""
    lk = 0
    rk = 0
    lmin = cum[0]
    rmin = total[0] - cum[0]
    for k in range(1, cum.shape[0]):
        if cum[k] < lmin - _EPS:
            lmin = cum[k]
            lk = k
        rv = total[k] - cum[k]
        if rv < rmin - _EPS:
            rmin = rv
            rk = k
    return lmin + rmin, lk, rk


def _variance_gain(vcum, vtot, nl, size, vbase):  # pragma: no cover - compiled below
    """Reduction of the rank vectors' squared error by a cut with ``nl`` of ``size`` left."""
    sl = 0.0
    sr = 0.0
    for j in range(vcum.shape[0]):
        sl += vcum[j] * vcum[j]
        r = vtot[j] - vcum[j]
        sr += r * r
    return sl / nl + sr / (size - nl) - vbase


_nb_sides_cost = numba.njit(_sides_cost, cache=True, nogil=True, inline="always")
_nb_variance_gain = numba.njit(_variance_gain, cache=True, nogil=True, inline="always")


def _best_split(X, order, lo, hi, data, full, node, scratch):  # pragma: no cover - compiled below
    """The split of a node: ``(feature, position, threshold)``, feature -1 for a leaf.

    ``data = (D, V)``; ``node = (total, vtot, leaf_cost)`` (:func:`_node_totals` and the
    cost of the node as a leaf); ``scratch = (cum, vcum)`` of sizes K and m. The split of
    eq. (18) when its two sides carry different rankings (and, ``full``, it lowers
    ``leaf_cost``); else (``full``) the split of the largest reduction of the rank vectors'
    squared error.
    """
    D, V = data
    total, vtot, leaf_cost = node
    cum, vcum = scratch
    K = D.shape[1]
    m = V.shape[1]
    size = hi - lo
    best_cost = np.inf
    best_f = -1
    best_p = -1
    best_thr = 0.0
    best_l = -1
    best_r = -1
    # fallback (full growth): largest reduction of the rank vectors' squared error
    vbase = 0.0
    for j in range(m):
        vbase += vtot[j] * vtot[j]
    vbase /= size
    best_gain = _EPS * (1.0 + vbase)
    gain_f = -1
    gain_p = -1
    gain_thr = 0.0
    for f in range(X.shape[1]):
        cum[:] = 0.0
        vcum[:] = 0.0
        for p in range(lo, hi - 1):
            i = order[f, p]
            for k in range(K):
                cum[k] += D[i, k]
            if full:
                for j in range(m):
                    vcum[j] += V[i, j]
            xa = X[i, f]
            xb = X[order[f, p + 1], f]
            if xb <= xa:
                continue
            t = 0.5 * (xa + xb)
            if t >= xb:  # adjacent floats: the midpoint rounds up
                t = xa
            c, lk, rk = _nb_sides_cost(cum, total)
            if c < best_cost - _EPS:
                best_cost, best_f, best_p, best_thr, best_l, best_r = c, f, p, t, lk, rk
            if full:
                g = _nb_variance_gain(vcum, vtot, p - lo + 1, size, vbase)
                if g > best_gain:
                    best_gain, gain_f, gain_p, gain_thr = g, f, p, t
    if best_f >= 0 and best_l != best_r and (not full or best_cost < leaf_cost - _EPS):
        return best_f, best_p, best_thr
    if full and gain_f >= 0:
        return gain_f, gain_p, gain_thr
    return -1, -1, 0.0


def _partition(
    order, lo, hi, split_f, split_p, goes_left, buf
):  # pragma: no cover - compiled below
    """Split the node's segment ``lo:hi`` of every feature's order stably: the samples at
    positions ``<= split_p`` of feature ``split_f`` first."""
    for p in range(lo, hi):
        goes_left[order[split_f, p]] = p <= split_p
    for f in range(order.shape[0]):
        a = lo
        b = 0
        for p in range(lo, hi):
            i = order[f, p]
            if goes_left[i]:
                order[f, a] = i
                a += 1
            else:
                buf[b] = i
                b += 1
        for q in range(b):
            order[f, a + q] = buf[q]


_nb_node_totals = numba.njit(_node_totals, cache=True, nogil=True)
_nb_best_split = numba.njit(_best_split, cache=True, nogil=True)
_nb_partition = numba.njit(_partition, cache=True, nogil=True)


def _grow(
    X, order, D, V, full, min_node, out, goes_left, buf
):  # pragma: no cover - compiled below
    """Grow the tree; returns the number of nodes.

    ``X`` (n, d) float64; ``order`` (d, n) int64, row f = sample indices sorted by X[:, f]
    (modified in place); ``D`` (n, K) float64 costs; ``V`` (n, m) float64 rank vectors (used
    only when ``full``); outputs ``out`` (:class:`KTreeArrays`), sized 2n: ``feat`` (-1 at leaves), ``thr``, ``left``/``right``
    child ids, ``value`` (the node's ranking k*), ``cost`` (``sum_T D[:, k*]``), ``count``
    (node sizes); ``goes_left`` (n,) bool and ``buf`` (n,) int64 scratch.
    """
    feat, thr, left, right, value, cost, count = out
    n = X.shape[0]
    K = D.shape[1]
    m = V.shape[1]
    stack_node = np.empty(2 * n + 2, dtype=np.int64)
    stack_lo = np.empty(2 * n + 2, dtype=np.int64)
    stack_hi = np.empty(2 * n + 2, dtype=np.int64)
    stack_node[0] = 0
    stack_lo[0] = 0
    stack_hi[0] = n
    top = 1
    n_nodes = 1
    total = np.empty(K)
    cum = np.empty(K)
    vtot = np.empty(m)
    vcum = np.empty(m)
    while top > 0:
        top -= 1
        node = stack_node[top]
        lo = stack_lo[top]
        hi = stack_hi[top]
        count[node] = hi - lo
        kstar = _nb_node_totals(order, lo, hi, D, V, full, total, vtot)
        value[node] = kstar
        cost[node] = total[kstar]
        feat[node] = -1
        left[node] = -1
        right[node] = -1
        if hi - lo <= min_node:
            continue
        split_f, split_p, split_t = _nb_best_split(
            X, order, lo, hi, (D, V), full, (total, vtot, total[kstar]), (cum, vcum)
        )
        if split_f < 0:
            continue
        _nb_partition(order, lo, hi, split_f, split_p, goes_left, buf)
        n_left = split_p - lo + 1
        feat[node] = split_f
        thr[node] = split_t
        lc = n_nodes
        rc = n_nodes + 1
        n_nodes += 2
        left[node] = lc
        right[node] = rc
        # push right first so the left subtree is grown first (depth-first, left to right)
        stack_node[top] = rc
        stack_lo[top] = lo + n_left
        stack_hi[top] = hi
        top += 1
        stack_node[top] = lc
        stack_lo[top] = lo
        stack_hi[top] = lo + n_left
        top += 1
    return n_nodes


def _path_costs(X, D, feat, thr, left, right, value, out):  # pragma: no cover - compiled below
    """``out[t] += D[i, value[t]]`` for every row i and every node t on its root-to-leaf path."""
    for i in range(X.shape[0]):
        node = 0
        while True:
            out[node] += D[i, value[node]]
            if feat[node] < 0:
                break
            if X[i, feat[node]] <= thr[node]:
                node = left[node]
            else:
                node = right[node]


_nb_grow = numba.njit(_grow, cache=True, nogil=True)
_nb_path_costs = numba.njit(_path_costs, cache=True, nogil=True)


class KTree:
    """A KTree (plain container; built by :meth:`fit`, inputs trusted).

    Parameters
    ----------
    min_node : int, default=5
        A node with at most this many samples is a leaf.
    growth : {"full", "literal"}, default="full"
        ``"literal"``: Algorithm 1, step 3.4 verbatim -- a node is a leaf when the best split
        of eq. (18) carries the same ranking on both sides (it cannot lower the loss).
        ``"full"``: when no split strictly lowers eq. (18), split instead where the squared
        error of the rank vectors drops most (a regression-tree split on the expected
        positions), grow down to ``min_node``, then collapse bottom-up every subtree whose
        leaves do not lower the training loss (eq. 17 gain <= 0; in particular every split
        whose two leaves carry the same ranking).

    Attributes
    ----------
    feature, threshold, left, right : ndarrays of shape (n_nodes,)
        The tree (``feature == -1`` at leaves).
    value : ndarray of int64, shape (n_nodes,)
        Index of the candidate ranking each node would carry as a leaf.
    node_cost : ndarray of float64, shape (n_nodes,)
        ``sum_{n in T} D[n, value]``.
    n_node_samples : ndarray of int64, shape (n_nodes,)

    Notes
    -----
    Why ``"full"``: with the literal rule a split is only taken when it lowers the loss at
    once, and on data whose regions are not separable by one cut (the nested rings of
    ``circle``, an XOR) every first cut leaves the same ranking the best on both sides, so the
    tree stays a stump. The fallback split looks for purer children the way a regression
    tree does, and the bottom-up collapse keeps only the subtrees that pay off under eq. (18).

    Complexity: ``fit`` O(d n log n) to presort plus O(d n (K + m)) per tree level
    (O(d n (K + m) log n) for a balanced tree), O(d n + n (K + m)) memory; ``apply``
    O(n depth).
    """

    def __init__(self, min_node: int = 5, growth: str = "full") -> None:
        self.min_node = min_node
        self.growth = growth

    def fit(self, X: np.ndarray, D: np.ndarray, V: np.ndarray | None = None) -> KTree:
        """Grow on features ``X`` (n, d), costs ``D`` (n, K), rank vectors ``V`` (n, m)."""
        n = X.shape[0]
        full = self.growth == "full"
        X = np.ascontiguousarray(X, dtype=np.float64)
        D = np.ascontiguousarray(D, dtype=np.float64)
        V = np.zeros((n, 0)) if V is None or not full else np.ascontiguousarray(V, np.float64)
        order = np.ascontiguousarray(np.argsort(X, axis=0, kind="stable").T.astype(np.int64))
        size = 2 * n + 1
        feat = np.full(size, -1, dtype=np.int64)
        thr = np.zeros(size)
        left = np.full(size, -1, dtype=np.int64)
        right = np.full(size, -1, dtype=np.int64)
        value = np.zeros(size, dtype=np.int64)
        cost = np.zeros(size)
        count = np.zeros(size, dtype=np.int64)
        goes_left = np.zeros(n, dtype=np.bool_)
        buf = np.empty(n, dtype=np.int64)
        nn = _nb_grow(
            X, order, D, V, full and V.shape[1] > 0, int(self.min_node),
            KTreeArrays(feat, thr, left, right, value, cost, count), goes_left, buf,
        )  # fmt: skip
        feat, thr, left, right = feat[:nn], thr[:nn], left[:nn], right[:nn]
        value, cost, count = value[:nn], cost[:nn], count[:nn]
        if full:
            _nb_collapse(feat, left, right, cost, np.empty(nn), False)
        self._store(feat, thr, left, right, value, cost, count)
        return self

    def _store(self, feat, thr, left, right, value, cost, count) -> None:
        """Keep the nodes reachable from the root, renumbered in depth-first order."""
        keep = []
        stack = [0]
        while stack:
            node = stack.pop()
            keep.append(node)
            if feat[node] >= 0:
                stack.append(int(right[node]))
                stack.append(int(left[node]))
        keep = np.array(keep, dtype=np.int64)
        new_id = np.full(len(feat), -1, dtype=np.int64)
        new_id[keep] = np.arange(len(keep))
        leaf = feat[keep] < 0
        self.feature = feat[keep].copy()
        self.threshold = np.where(leaf, -2.0, thr[keep])
        self.left = np.where(leaf, -1, new_id[left[keep]])
        self.right = np.where(leaf, -1, new_id[right[keep]])
        self.value = value[keep].copy()
        self.node_cost = cost[keep].copy()
        self.n_node_samples = count[keep].copy()

    def path_costs(self, X: np.ndarray, D: np.ndarray) -> np.ndarray:
        """``sum_{i reaching t} D[i, value[t]]`` for every node t, shape (n_nodes,)."""
        out = np.zeros(self.n_nodes)
        _nb_path_costs(
            np.ascontiguousarray(X, dtype=np.float64),
            np.ascontiguousarray(D, dtype=np.float64),
            self.feature, self.threshold, self.left, self.right, self.value, out,
        )  # fmt: skip
        return out

    def prune(self, X: np.ndarray, D: np.ndarray, keep_ties: bool = True) -> KTree:
        """Reduced-error pruning on held-out rows (Grbovic et al., Algorithm 1, step 5).

        Bottom-up, a split is removed when its (already pruned) subtree does not lower the
        held-out cost of eq. (17): ``sum_{T_a} D[n, rho_a] - sum_{T_a-} ... - sum_{T_a+} ...
        < 0`` ("if the result is negative"), rows ``X`` (n_e, d) with costs ``D`` (n_e, K).
        A split with gain 0 -- in particular one that no informative held-out row reaches --
        stays: a small held-out set is no evidence against it. O(n_e depth + n_nodes).
        """
        cost = self.path_costs(X, D)
        feat = self.feature.copy()
        _nb_collapse(feat, self.left, self.right, cost, np.empty(self.n_nodes), keep_ties)
        self._store(feat, self.threshold, self.left, self.right, self.value,
                    self.node_cost, self.n_node_samples)  # fmt: skip
        return self

    @property
    def n_nodes(self) -> int:
        return len(self.feature)

    @property
    def n_leaves(self) -> int:
        return int((self.feature < 0).sum())

    def apply(self, X: np.ndarray) -> np.ndarray:
        out = np.empty(X.shape[0], dtype=np.int64)
        tree_apply(
            np.ascontiguousarray(X, dtype=np.float64),
            self.feature,
            self.threshold,
            self.left,
            self.right,
            out,
        )
        return out

    def predict(self, X: np.ndarray) -> np.ndarray:
        """Candidate-ranking index carried by the leaf of every row."""
        return self.value[self.apply(X)]

    # ---------------------------------------------------------------- loading
    def _validate_loaded_state(self) -> None:
        """Check the state of a tree read by :func:`rankclust.persistence.load`.

        The features and the candidate count are the owner's: it calls :meth:`_validate_for`.
        """
        loaded.choice_attr(self, "growth", ("full", "literal"))
        loaded.int_attr(self, "min_node", low=1)
        n = loaded.array_attr(self, "feature", kind="i", ndim=1).shape[0]
        loaded.array_attr(self, "value", kind="i", shape=(n,), low=0)
        loaded.array_attr(self, "node_cost", shape=(n,))
        loaded.array_attr(self, "n_node_samples", kind="i", shape=(n,), low=0)
        self._validate_for(loaded.MAX_COUNT, loaded.MAX_COUNT, "tree")

    def _validate_for(self, n_features: int, n_values: int, name: str) -> None:
        """The tree splits on ``n_features`` features and its leaves index ``n_values`` rankings."""
        loaded.check_tree(
            self.feature, self.threshold, self.left, self.right, n_features=n_features, name=name
        )
        if self.value.max() >= n_values:
            raise ValueError(f"{name}: a leaf carries ranking {self.value.max()} of {n_values}")


def _collapse(feat, left, right, cost, sub, keep_ties):  # pragma: no cover - compiled below
    """Bottom-up: make a node a leaf when its subtree's leaves cost no less than it does.

    ``keep_ties``: collapse only when the leaves cost strictly more (a split that neither
    helps nor hurts stays). Children have larger ids than their parent, so a reverse sweep
    sees them first.
    """
    for node in range(len(feat) - 1, -1, -1):
        if feat[node] < 0:
            sub[node] = cost[node]
            continue
        s = sub[left[node]] + sub[right[node]]
        tol = _EPS * (1.0 + abs(cost[node]))
        if (s > cost[node] + tol) if keep_ties else (s >= cost[node] - tol):
            feat[node] = -1
            sub[node] = cost[node]
        else:
            sub[node] = s


_nb_collapse = numba.njit(_collapse, cache=True, nogil=True)


def grow_ktree_reference(
    X: np.ndarray,
    D: np.ndarray,
    V: np.ndarray | None = None,
    min_node: int = 5,
    growth: str = "literal",
):
    """Pure-python KTree (recursive, no bookkeeping), for tests: nested tuples.

    A leaf is ``("leaf", k)``; a split ``(f, thr, left, right)``. Same rules as the kernel
    (lowest feature, then lowest threshold, then lowest k on ties), including the ``"full"``
    fallback and the bottom-up collapse.
    """
    full = growth == "full" and V is not None and V.shape[1] > 0

    def argmin(v: np.ndarray) -> int:
        best = 0
        for k in range(1, len(v)):
            if v[k] < v[best] - _EPS:
                best = k
        return best

    def grow(idx: np.ndarray):
        tot = D[idx].sum(axis=0)
        kstar = argmin(tot)
        node_cost = tot[kstar]
        if len(idx) <= min_node:
            return ("leaf", kstar), node_cost
        best = None
        fallback = None
        if full:
            vt = V[idx].sum(axis=0)
            vbase = vt @ vt / len(idx)
            best_gain = _EPS * (1.0 + vbase)
        for f in range(X.shape[1]):
            xs = np.unique(X[idx, f])
            for a, b in itertools.pairwise(xs):
                lmask = X[idx, f] <= a
                t = 0.5 * (a + b)
                t = t if t < b else a
                lsum = D[idx[lmask]].sum(axis=0)
                rsum = tot - lsum
                lk, rk = argmin(lsum), argmin(rsum)
                cost = lsum[lk] + rsum[rk]
                if best is None or cost < best[0] - _EPS:
                    best = (cost, lk, rk, lmask, f, t)
                if full:
                    vl = V[idx[lmask]].sum(axis=0)
                    vr = vt - vl
                    nl = lmask.sum()
                    g = vl @ vl / nl + vr @ vr / (len(idx) - nl) - vbase
                    if g > best_gain:
                        best_gain = g
                        fallback = (lmask, f, t)
        if best is not None and best[1] != best[2] and (not full or best[0] < node_cost - _EPS):
            lmask, f, t = best[3], best[4], best[5]
        elif fallback is not None:
            lmask, f, t = fallback
        else:
            return ("leaf", kstar), node_cost
        lt, lc = grow(idx[lmask])
        rt, rc = grow(idx[~lmask])
        if full and lc + rc >= node_cost - _EPS * (1.0 + abs(node_cost)):
            return ("leaf", kstar), node_cost
        return (f, t, lt, rt), lc + rc

    return grow(np.arange(X.shape[0]))[0]

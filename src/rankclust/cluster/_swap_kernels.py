"""Compiled kernels of the swap MCMC (Ukkonen 2011, Section 4.3); inputs are trusted.

State of a data set of chains (all arrays owned by :class:`~rankclust.cluster.SwapSampler`):

* ``seq`` (T,) int32 -- the chains concatenated; chain ``c`` is ``seq[start[c]:start[c+1]]``;
* ``cid`` (T,) int32 -- the chain of every slot;
* adjacency *slot* ``g`` = the adjacent pair ``(seq[g], seq[g+1])`` inside one chain;
* ``S(x, y)`` = the slots holding the adjacent pair ``x y`` (paper's ``S_D(x, y)``), stored as
  array segments ``members[off[q] : off[q] + size[q]]`` for ``q = x*m + y``, with
  ``where[g]`` the index of slot ``g`` in ``members`` (O(1) add, remove, uniform pick). The
  capacity of ``S(x, y)`` is the number of chains holding both items, which swaps preserve;
* ``wt[p] = size[x*m+y] * size[y*m+x]`` for ``p = x*m + y``, ``x < y`` -- the number of valid
  swaps on the unordered pair, in a Fenwick tree ``tree`` for O(log m) weighted sampling
  (Eq. 16); ``state[0] = |N(D)| = sum(wt)``, maintained incrementally;
* ``rng`` (4,) uint64 -- xoshiro256** state (randomness is passed in, never global;
  :mod:`rankclust._kernel_random`).

The kernels take the chains as one :class:`Chains` and the lists as one :class:`SlotLists`.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from rankclust._kernel_random import xoshiro_uniform as _uniform


class Chains(NamedTuple):
    """The chains, concatenated (see the module docstring)."""

    seq: np.ndarray
    cid: np.ndarray
    start: np.ndarray


class SlotLists(NamedTuple):
    """The lists ``S(x, y)`` of ``m`` items, their swap weights and ``|N|`` (module docstring)."""

    m: int
    off: np.ndarray
    members: np.ndarray
    where: np.ndarray
    size: np.ndarray
    wt: np.ndarray
    tree: np.ndarray
    state: np.ndarray


@numba.njit(cache=True, inline="always")
def _fen_add(tree, i, delta):
    n = tree.shape[0] - 1
    i += 1
    while i <= n:
        tree[i] += delta
        i += i & (-i)


@numba.njit(cache=True, inline="always")
def _fen_find(tree, r, top):
    """0-based index of the element whose cumulative range holds ``r`` (0 <= r < total)."""
    n = tree.shape[0] - 1
    pos = 0
    step = top
    while step > 0:
        nxt = pos + step
        if nxt <= n and tree[nxt] <= r:
            pos = nxt
            r -= tree[nxt]
        step >>= 1
    return pos


@numba.njit(cache=True, inline="always")
def _resize(x, y, delta, L):
    """``|S(x, y)| += delta`` and the matching change of the weight of {x, y} and of |N|."""
    m, size, wt = L.m, L.size, L.wt
    q = x * m + y
    size[q] += delta
    dw = delta * size[y * m + x]
    if dw != 0:
        p = q if x < y else y * m + x
        wt[p] += dw
        _fen_add(L.tree, p, dw)
        L.state[0] += dw


@numba.njit(cache=True, inline="always")
def _slot_add(g, x, y, L):
    q = x * L.m + y
    k = L.off[q] + L.size[q]
    L.members[k] = g
    L.where[g] = k
    _resize(x, y, 1, L)


@numba.njit(cache=True, inline="always")
def _slot_remove(g, x, y, L):
    members, where = L.members, L.where
    q = x * L.m + y
    last_k = L.off[q] + L.size[q] - 1
    k = where[g]
    last = members[last_k]
    members[k] = last
    where[last] = k
    where[g] = -1
    _resize(x, y, -1, L)


@numba.njit(cache=True, inline="always")
def _slot_reverse(g, x, y, L):
    """Move slot ``g`` from S(x, y) to S(y, x): one weight update for the pair {x, y}."""
    m, off, members, where, size, wt = L.m, L.off, L.members, L.where, L.size, L.wt
    q = x * m + y
    qr = y * m + x
    last_k = off[q] + size[q] - 1
    k = where[g]
    last = members[last_k]
    members[k] = last
    where[last] = k
    k2 = off[qr] + size[qr]
    members[k2] = g
    where[g] = k2
    old = size[q] * size[qr]
    size[q] -= 1
    size[qr] += 1
    dw = size[q] * size[qr] - old
    if dw != 0:
        p = q if x < y else qr
        wt[p] += dw
        _fen_add(L.tree, p, dw)
        L.state[0] += dw


@numba.njit(cache=True, inline="always")
def _transpose(g, ch, L):
    """Swap ``seq[g]`` and ``seq[g+1]`` and move the (up to 3) affected slots between lists.

    For ``(.., a, x, y, b, ..)``: slot g-1 moves S(a,x) -> S(a,y), slot g S(x,y) -> S(y,x) and
    slot g+1 S(y,b) -> S(x,b); |N| is updated after each move.
    """
    seq, start = ch.seq, ch.start
    c = ch.cid[g]
    left = g > start[c]
    right = g + 2 < start[c + 1]
    x = seq[g]
    y = seq[g + 1]
    if left:
        a = seq[g - 1]
        _slot_remove(g - 1, a, x, L)
        _slot_add(g - 1, a, y, L)
    if right:
        b = seq[g + 2]
        _slot_remove(g + 1, y, b, L)
        _slot_add(g + 1, x, b, L)
    _slot_reverse(g, x, y, L)
    seq[g] = y
    seq[g + 1] = x


def _swap_steps(ch, L, rng, n_steps, top):
    """Run ``n_steps`` Metropolis-Hastings steps of SWAP-PAIRS (Algorithm 2); returns #accepted.

    A step draws an unordered pair {a, b} with probability |S(a,b)||S(b,a)| / |N| (Eq. 16),
    one slot of S(a, b) and one of S(b, a) uniformly, applies the swap and accepts it with
    probability min(1, |N before| / |N after|) (Eqs. 13-14); a rejected swap is undone (a swap
    is an involution). Rejected steps count as steps. O(log m) per step.
    """
    m, off, members, size, state = L.m, L.off, L.members, L.size, L.state
    accepted = 0
    for _ in range(n_steps):
        n_before = state[0]
        if n_before == 0:
            break  # no valid swap exists: the chain cannot move
        r = np.int64(_uniform(rng) * n_before)
        if r >= n_before:
            r = n_before - 1
        p = _fen_find(L.tree, r, top)
        a = p // m
        b = p - a * m
        q1 = a * m + b
        q2 = b * m + a
        g1 = members[off[q1] + np.int64(_uniform(rng) * size[q1])]
        g2 = members[off[q2] + np.int64(_uniform(rng) * size[q2])]
        _transpose(g1, ch, L)
        _transpose(g2, ch, L)
        n_after = state[0]
        if n_after > n_before and _uniform(rng) * n_after >= n_before:
            _transpose(g1, ch, L)
            _transpose(g2, ch, L)
        else:
            accepted += 1
    return accepted


_nb_swap_steps = numba.njit(_swap_steps, cache=True, nogil=True)


def _build_lists(ch, L):
    """Insert every adjacency slot into its list S(x, y) (structures zero-initialised)."""
    seq, cid = ch.seq, ch.cid
    T = seq.shape[0]
    for g in range(T - 1):
        if cid[g] == cid[g + 1]:
            _slot_add(g, seq[g], seq[g + 1], L)


_nb_build_lists = numba.njit(_build_lists, cache=True, nogil=True)

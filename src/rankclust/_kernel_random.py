"""The random streams of the compiled kernels: one home for SplitMix64 and xoshiro256**.

Kernels never touch numpy's global random state: the caller seeds a small ``uint64`` state
array from ``random_state`` and passes it in; the kernel advances it in place. Two streams:

* SplitMix64 (Steele, Lea and Flood 2014), state ``(1,) uint64`` -- :func:`splitmix64_next`
  and the Fisher-Yates :func:`shuffle` built on it (per-node feature orders of the label
  ranking tree);
* xoshiro256** (Blackman and Vigna 2018), state ``(4,) uint64`` seeded by SplitMix64
  (:func:`xoshiro_state`) -- :func:`xoshiro_uniform` (the swap MCMC).

Changing any line here changes fitted results for a given ``random_state``.
"""

from __future__ import annotations

import numba
import numpy as np

_U64_MASK = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15  # SplitMix64's increment


def xoshiro_state(seed: int) -> np.ndarray:
    """xoshiro256** state (4 uint64) from an integer seed via SplitMix64 (plain Python ints)."""
    x = seed & _U64_MASK
    out = np.empty(4, dtype=np.uint64)
    for i in range(4):
        x = (x + _GOLDEN) & _U64_MASK
        z = x
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _U64_MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _U64_MASK
        out[i] = z ^ (z >> 31)
    return out


def _splitmix64_next(state):  # pragma: no cover - compiled below
    """Next 64-bit output of SplitMix64 advancing ``state`` ((1,) uint64, IN/OUT)."""
    state[0] += np.uint64(_GOLDEN)
    z = state[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


splitmix64_next = numba.njit(_splitmix64_next, cache=True, nogil=True)


def _shuffle(order, state):  # pragma: no cover - compiled below
    """Fisher-Yates shuffle of ``order`` in place from the SplitMix64 stream ``state``
    (modulo bias below 2^-50 for arrays shorter than 2^14). O(len(order))."""
    for a in range(order.shape[0] - 1, 0, -1):
        b = np.int64(splitmix64_next(state) % np.uint64(a + 1))
        tmp = order[a]
        order[a] = order[b]
        order[b] = tmp


shuffle = numba.njit(_shuffle, cache=True, nogil=True)


@numba.njit(cache=True, inline="always")
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@numba.njit(cache=True, inline="always")
def xoshiro_uniform(rng):
    """A double in [0, 1) from xoshiro256** (advances ``rng``, (4,) uint64, in place)."""
    s0, s1, s2, s3 = rng[0], rng[1], rng[2], rng[3]
    result = _rotl(s1 * np.uint64(5), 7) * np.uint64(9)
    t = s1 << np.uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, 45)
    rng[0], rng[1], rng[2], rng[3] = s0, s1, s2, s3
    return float(result >> np.uint64(11)) * (1.0 / 9007199254740992.0)

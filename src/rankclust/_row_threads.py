"""Row blocks of a compiled kernel on a small pool of threads (private).

The EM kernels of the mixtures (:mod:`rankclust.cluster._mixture_kernels`) release the GIL
and treat each row, or each component, on its own. Splitting their rows into blocks that
run on threads keeps every output bit for bit what one thread computes: no floating-point
sum is reordered, so a fit does not depend on the number of cores of the machine that ran
it (the per-component accumulations are split by component, never by row).

The pool has :func:`n_threads` workers: the usable cores, at most :data:`MAX_THREADS`, and
at most ``OMP_NUM_THREADS`` or ``RANKCLUST_NUM_THREADS`` when either is set (joblib's worker
processes set the first, so the bootstrap's processes do not each start a pool as large as
the machine). Work below :data:`MIN_ROWS_PER_THREAD` rows per thread runs inline: a thread
hand-off costs tens of microseconds, more than a kernel call on a few hundred rows.
"""

from __future__ import annotations

import functools
import itertools
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np

__all__ = [
    "MAX_THREADS",
    "MIN_ROWS_PER_THREAD",
    "component_groups",
    "n_threads",
    "run_blocks",
    "split_rows",
]

#: Upper bound of the pool's size (the EM kernels are memory-bound beyond a few cores).
MAX_THREADS = 4

#: Fewer rows than this per thread: the blocks run inline, in the calling thread.
MIN_ROWS_PER_THREAD = 2048

_pool: ThreadPoolExecutor | None = None


def _env_cap() -> int | None:
    caps = []
    for name in ("RANKCLUST_NUM_THREADS", "OMP_NUM_THREADS"):
        value = os.environ.get(name, "").strip()
        if value.isdigit() and int(value) >= 1:
            caps.append(int(value))
    return min(caps) if caps else None


def _usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


_CORES = _usable_cores()


def n_threads() -> int:
    """Threads the row blocks may use: usable cores, capped (see the module docstring)."""
    cap = _env_cap()
    return max(1, min(_CORES, MAX_THREADS, cap if cap is not None else MAX_THREADS))


def split_rows(n_rows: int, threads: int | None = None) -> list[tuple[int, int]]:
    """``[(lo, hi), ...]`` covering ``range(n_rows)``: one block per thread, or one block
    when the rows are too few to share (:data:`MIN_ROWS_PER_THREAD`)."""
    if n_rows < 2 * MIN_ROWS_PER_THREAD:  # the common case of small data: no thread, no work
        return [(0, int(n_rows))]
    threads = n_threads() if threads is None else int(threads)
    # remembered: an EM fit asks for the same split a few thousand times (58 us each)
    return list(_row_blocks(int(n_rows), threads, MIN_ROWS_PER_THREAD))


@functools.lru_cache(maxsize=64)
def _row_blocks(n_rows: int, threads: int, min_rows: int) -> tuple[tuple[int, int], ...]:
    n_blocks = max(1, min(threads, n_rows // min_rows))
    edges = np.linspace(0, n_rows, n_blocks + 1).astype(np.int64)
    return tuple((int(lo), int(hi)) for lo, hi in itertools.pairwise(edges))


def component_groups(n_components: int, n_rows: int) -> list[tuple[int, int]]:
    """``[(k_lo, k_hi), ...]`` covering ``range(n_components)``: one group per thread that
    :func:`split_rows` would give ``n_rows`` rows. A kernel that sums over rows is split by
    component, never by row, so that every sum keeps its order (the same bits)."""
    n_groups = max(1, min(n_components, len(split_rows(n_rows))))
    if n_groups == 1:
        return [(0, int(n_components))]
    edges = np.linspace(0, n_components, n_groups + 1).astype(np.int64)
    return [(int(lo), int(hi)) for lo, hi in itertools.pairwise(edges)]


def _get_pool() -> ThreadPoolExecutor:
    global _pool
    if _pool is None:
        _pool = ThreadPoolExecutor(max_workers=MAX_THREADS, thread_name_prefix="rankclust-rows")
    return _pool


def _forget_pool() -> None:  # pragma: no cover - runs in a forked child
    # a forked child has none of the parent's threads: it starts a pool of its own (and may
    # run on other cores)
    global _pool, _CORES
    _pool = None
    _CORES = _usable_cores()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool)


def run_blocks(fn: Callable[[int, int], None], blocks: list[tuple[int, int]]) -> None:
    """Call ``fn(lo, hi)`` for every block: inline for one block, else on the pool, and
    return when all are done (the first exception raised by a block is raised here)."""
    if len(blocks) <= 1:
        for lo, hi in blocks:
            fn(lo, hi)
        return
    futures = [_get_pool().submit(fn, lo, hi) for lo, hi in blocks[1:]]
    lo, hi = blocks[0]
    fn(lo, hi)  # the calling thread takes the first block
    for future in futures:
        future.result()

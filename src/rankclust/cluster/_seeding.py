"""Greedy k-means++ seeding over rankings, written once (private).

Arthur & Vassilvitskii (2007), in scikit-learn's greedy variant: the first seed is drawn in
proportion to a per-row weight; each further seed is the best (lowest total distance of the
rows to their nearest seed) of ``2 + int(log K)`` candidates drawn in proportion to ``w_i``
times the distance of row i to its nearest seed so far.

What a "row", a "candidate" and a "distance" are differs between estimators, so the loop
(:func:`greedy_kmeanspp`, :func:`kmeanspp_step`) takes a *space* (:class:`SeedingSpace`) that
supplies them:

* :class:`BlockSpace` -- the distinct rankings of a mixture fit, in blocks run by an executor
  of :mod:`rankclust._dask` (in memory or on Dask); candidates are data rankings completed at
  random, the distance is Kendall's statistic (``MallowsMixture``, ``PlackettLuceMixture``,
  ``CompletionMallowsMixture``);
* :class:`RowSpace` -- rows held in memory; candidates are row indices and the distance is
  any dissimilarity of rows to rows (``KOMeans``: ``1 - rho`` or normalised Kendall on
  chains).

Each space keeps its own random draws, so every estimator draws exactly the random numbers it
drew before the loop was shared. The input is trusted (validated by the estimators).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any, Protocol

import numpy as np

from rankclust._dask import EagerExecutor, take_rows, weighted_choice
from rankclust._param_validation import check_n_clusters
from rankclust.cluster._mixture_kernels import discordance_matrix, order_statistics
from rankclust.distances import kendall_distances

__all__ = [
    "KMEANSPP",
    "BlockSpace",
    "RowSpace",
    "SeedingSpace",
    "check_kmeanspp_spelling",
    "greedy_kmeanspp",
    "kmeanspp_rankings",
    "kmeanspp_step",
    "n_local_trials",
    "random_completion",
]

#: The one spelling of k-means++ seeding over rankings in every ``init`` option.
KMEANSPP = "k-means++"

# the spelling of the mixtures before it was unified (still accepted, with a FutureWarning)
_OLD_KMEANSPP = "kmeans++"


def check_kmeanspp_spelling(init: Any, owner: str) -> Any:
    """``init`` with the old spelling ``"kmeans++"`` replaced by ``"k-means++"`` (warns)."""
    if isinstance(init, str) and init == _OLD_KMEANSPP:
        warnings.warn(
            f"{owner}: init='kmeans++' is deprecated; use init='k-means++' (the same seeding). "
            "The old spelling will be removed in a future release.",
            FutureWarning,
            stacklevel=3,
        )
        return KMEANSPP
    return init


def n_local_trials(n_clusters: int) -> int:
    """Candidates per seed of the greedy variant: ``2 + int(log K)`` (as scikit-learn)."""
    return 2 + int(np.log(n_clusters))


def random_completion(row: np.ndarray, rng: np.random.RandomState) -> np.ndarray:
    """A complete position vector that keeps the present items' order (absent ones after,
    in random order)."""
    m = row.shape[0]
    present = np.flatnonzero(row >= 0)
    absent = np.flatnonzero(row < 0)
    order = np.concatenate(
        [present[np.argsort(row[present], kind="stable")], rng.permutation(absent)]
    )
    pos = np.empty(m, dtype=np.int64)
    pos[order] = np.arange(m)
    return pos


class SeedingSpace(Protocol):
    """What :func:`greedy_kmeanspp` needs of the rows it seeds from."""

    def first_weights(self) -> Any:
        """Per-row weights of the first draw."""

    def scores(self, nearest: Any) -> Any:
        """Per-row weights of a draw of candidates, given the distances to the nearest seed."""

    def draw(self, p: Any, size: int | None, rng: np.random.RandomState) -> Any:
        """Row indices drawn in proportion to ``p`` (None when nothing can be drawn)."""

    def candidates(self, picks: Any, rng: np.random.RandomState) -> np.ndarray:
        """The seeds that the drawn rows give (one per pick, stacked)."""

    def distances(self, seed: Any) -> Any:
        """Distance of every row to one seed."""

    def with_candidates(self, nearest: Any, cands: np.ndarray) -> Any:
        """Per row and candidate: the distance to the nearest seed if it were added."""

    def potentials(self, dists: Any) -> np.ndarray:
        """Per candidate: the weighted total of :meth:`with_candidates`."""

    def column(self, dists: Any, j: int) -> Any:
        """The nearest-seed distances once candidate ``j`` is added."""

    def fallback(self, rng: np.random.RandomState) -> Any:
        """A seed when every row already sits at a seed (no candidate can be drawn)."""


def kmeanspp_step(
    space: SeedingSpace, nearest: Any, n_trials: int, rng: np.random.RandomState
) -> tuple[Any, Any] | None:
    """One greedy k-means++ step: (new seed, nearest-seed distances with it), or None when no
    candidate can be drawn."""
    picks = space.draw(space.scores(nearest), n_trials, rng)
    if picks is None:
        return None
    cands = space.candidates(picks, rng)
    dists = space.with_candidates(nearest, cands)
    best = int(np.argmin(space.potentials(dists)))
    return cands[best], space.column(dists, best)


def greedy_kmeanspp(
    space: SeedingSpace,
    n_clusters: int,
    rng: np.random.RandomState,
    n_trials: int | None = None,
) -> list:
    """``n_clusters`` seeds by greedy k-means++ in ``space`` (see the module docstring).

    Parameters
    ----------
    space : SeedingSpace
    n_clusters : int
    rng : RandomState
    n_trials : int, optional
        Candidates per seed after the first; default :func:`n_local_trials`.

    Returns
    -------
    list
        The seeds, as ``space.candidates`` gives them.

    Notes
    -----
    Complexity: ``K * n_trials`` distance passes over the rows, O(n n_trials) memory.
    """
    if n_trials is None:
        n_trials = n_local_trials(n_clusters)
    first = space.draw(space.first_weights(), None, rng)
    seeds = [space.candidates(first, rng)[0]]
    nearest = space.distances(seeds[0])
    for _ in range(1, n_clusters):
        step = kmeanspp_step(space, nearest, n_trials, rng)
        if step is None:
            seeds.append(space.fallback(rng))
            continue
        seed, nearest = step
        seeds.append(seed)
    return seeds


# --------------------------------------------------------------------------------------------
# distinct rankings in blocks (the mixtures)
# --------------------------------------------------------------------------------------------
# per-block functions at module level, so that Dask can ship them to workers; a block is any
# object with ``R`` (Rankings), ``ranks``, ``w`` and optionally ``pairs`` (pair indicators)
def seed_weights(data: Any) -> np.ndarray:
    """``w_i`` times the number of pairs ranking i orders (the first k-means++ draw)."""
    m = data.ranks.shape[1]
    lengths = getattr(data, "lengths", None)
    t = (data.R.lengths if lengths is None else lengths).astype(np.float64)
    pairs = t * (t - 1) / 2 + (t * (m - t) if data.R.kind == "top" else 0.0)
    return data.w * np.maximum(pairs, 1e-12)


def seed_distances(data: Any, center: np.ndarray) -> np.ndarray:
    """Kendall's statistic of every ranking of the block to one complete ranking."""
    orders = getattr(data, "orders", None)
    if orders is not None:  # compiled from the orderings (the mixtures' blocks, no ties)
        return _order_distances(data, np.asarray(center)[None, :])[:, 0]
    pairs = getattr(data, "pairs", None)
    if pairs is not None:  # the Mallows statistic: one product with the pair indicators
        return pairs @ discordance_matrix(np.asarray(center)[None, :])[:, 0]
    return kendall_distances(data.R, center).astype(np.float64)


def _order_distances(data: Any, centers: np.ndarray) -> np.ndarray:
    """(u_b, n_centres) statistics of a block with orderings (its ``lengths`` when it keeps
    them: :attr:`Rankings.lengths` is a pass over the rank matrix)."""
    lengths = getattr(data, "lengths", None)
    lengths = data.R.lengths if lengths is None else lengths
    return order_statistics(data.orders, lengths, data.R.kind == "top", centers)


def _weighted(data: Any, nearest: np.ndarray) -> np.ndarray:
    return data.w * nearest


def _candidate_distances(data: Any, nearest: np.ndarray, cands: np.ndarray) -> np.ndarray:
    """(u_b, n_cand): the distance to the nearest seed if each candidate were added."""
    if getattr(data, "orders", None) is not None:  # every candidate in one compiled pass
        return np.minimum(nearest[:, None], _order_distances(data, np.asarray(cands)))
    return np.stack([np.minimum(nearest, kendall_distances(data.R, c)) for c in cands], axis=1)


def _candidate_potentials(data: Any, dists: np.ndarray) -> np.ndarray:
    return np.array([data.w @ dists[:, j] for j in range(dists.shape[1])])


def _column(dists: np.ndarray, j: int) -> np.ndarray:
    return dists[:, j].copy()


class BlockSpace:
    """Distinct rankings in blocks (``parts``, global ``offsets``) run by executor ``ex``.

    The first seed is drawn in proportion to ``w_i`` times the number of pairs ranking i
    orders, so that a top-1 ballot (one pair in m - 1 known) rarely seeds alone; candidates
    are the drawn rankings completed at random (:func:`random_completion`); when every
    ranking sits at a seed, a uniformly random complete ranking is the fallback.
    """

    def __init__(self, ex: Any, parts: list, offsets: np.ndarray, n_items: int) -> None:
        self.ex, self.parts, self.offsets, self.n_items = ex, parts, offsets, n_items

    def first_weights(self) -> list:
        return self.ex.map(seed_weights, self.parts)

    def scores(self, nearest: list) -> list:
        return self.ex.map(_weighted, self.parts, nearest)

    def draw(self, p: list, size: int | None, rng: np.random.RandomState) -> Any:
        return weighted_choice(self.ex, p, self.offsets, rng, size=size)[0]

    def candidates(self, picks: Any, rng: np.random.RandomState) -> np.ndarray:
        rows = take_rows(self.ex, self.parts, self.offsets, picks)
        return np.stack([random_completion(row, rng) for row in rows])

    def distances(self, seed: np.ndarray) -> list:
        return self.ex.map(seed_distances, self.parts, center=seed)

    def with_candidates(self, nearest: list, cands: np.ndarray) -> list:
        return self.ex.map(_candidate_distances, self.parts, nearest, cands=cands)

    def potentials(self, dists: list) -> np.ndarray:
        return self.ex.sum(_candidate_potentials, self.parts, dists)

    def column(self, dists: list, j: int) -> list:
        return self.ex.map(_column, dists, j=j)

    def fallback(self, rng: np.random.RandomState) -> np.ndarray:
        return np.argsort(rng.random_sample(self.n_items)).argsort()


# --------------------------------------------------------------------------------------------
# rows in memory (KOMeans)
# --------------------------------------------------------------------------------------------
def _sample_rows(cum: np.ndarray, size: int, rng: np.random.RandomState) -> np.ndarray:
    """``size`` rows drawn with probability proportional to the increments of ``cum``.

    ``side="right"`` gives a row of zero mass an empty interval, so it is never drawn.
    """
    r = rng.random_sample(size) * cum[-1]
    return np.minimum(np.searchsorted(cum, r, side="right"), len(cum) - 1)


class RowSpace:
    """Rows in memory with weights ``w``; a seed is a row index, and
    ``dissimilarities(index_array)`` gives the (n, len(index_array)) distances of every row
    to those rows. The first seed is drawn in proportion to ``w_i``; when every row sits at a
    seed, candidates are drawn in proportion to ``w_i`` again (so there is no fallback)."""

    def __init__(self, w: np.ndarray, dissimilarities: Callable[[np.ndarray], np.ndarray]):
        self.w = w
        self.dissimilarities = dissimilarities
        self._cum_w = np.cumsum(w)

    def first_weights(self) -> np.ndarray:
        return self._cum_w

    def scores(self, nearest: np.ndarray) -> np.ndarray:
        cum_d = np.cumsum(self.w * nearest)
        return cum_d if cum_d[-1] > 0 else self._cum_w

    def draw(self, cum: np.ndarray, size: int | None, rng: np.random.RandomState) -> np.ndarray:
        return _sample_rows(cum, 1 if size is None else size, rng)

    def candidates(self, picks: np.ndarray, rng: np.random.RandomState) -> np.ndarray:
        return np.asarray(picks, dtype=np.int64)

    def distances(self, seed: int) -> np.ndarray:
        return self.dissimilarities(np.array([seed]))[:, 0]

    def with_candidates(self, nearest: np.ndarray, cands: np.ndarray) -> np.ndarray:
        return np.minimum(nearest[:, None], self.dissimilarities(cands))

    def potentials(self, dists: np.ndarray) -> np.ndarray:
        return self.w @ dists

    def column(self, dists: np.ndarray, j: int) -> np.ndarray:
        return dists[:, j]

    def fallback(self, rng: np.random.RandomState) -> Any:  # pragma: no cover - never used
        raise AssertionError("RowSpace always draws candidates")


class _RankingBlock:
    """Distinct rankings as one in-memory block for :class:`BlockSpace` (no pair indicators:
    the distances are computed by :func:`~rankclust.distances.kendall_distances`)."""

    def __init__(self, R: Any) -> None:
        self.R, self.ranks, self.w = R, R.ranks, R.weights


def kmeanspp_rankings(R: Any, n_clusters: int, rng: np.random.RandomState) -> np.ndarray:
    """(K, m) complete rankings seeded by greedy k-means++ over the distinct rankings of ``R``.

    The seeds of the mixtures (:class:`BlockSpace`) for rankings held in memory: rankings of
    zero weight are left out and identical rankings are merged (their weights summed) first.
    Trusted input (a tie-free ``Rankings``); a ``ValueError`` when fewer than ``n_clusters``
    distinct rankings have positive weight.
    """
    keep = R.weights > 0
    if not keep.any():
        raise ValueError("the weights of the rankings sum to zero")
    Ru, _ = R[np.flatnonzero(keep)].unique() if not keep.all() else R.unique()
    check_n_clusters(
        n_clusters, Ru.n_rankings, what="distinct rankings of positive weight", name="n_components"
    )
    space = BlockSpace(
        EagerExecutor(), [_RankingBlock(Ru)], np.array([0, Ru.n_rankings]), R.n_items
    )
    return np.asarray(greedy_kmeanspp(space, n_clusters, rng), dtype=np.int64)

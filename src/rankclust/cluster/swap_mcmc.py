"""Randomisation test for clusterings of chains by swap MCMC (Ukkonen 2011, Section 4).

The null data sets keep, exactly, what a clustering should not be credited for: the number of
chains and their lengths, the item set of every chain, and all pair counts ``C(u, v)``
(Definition 6; the swap chain even keeps every chain's own item set). They are sampled by the
Metropolis-Hastings chain of Section 4.3: a *swap* exchanges an adjacent pair ``u v`` in one
chain with the adjacent pair ``v u`` in another, which leaves all pair counts unchanged.

* :class:`SwapSampler` -- the sampler, a compiled kernel with incremental bookkeeping
  (O(log m) per step instead of the paper's O(m^2) recount);
* :func:`swap_samples` -- exchangeable samples (Besag & Clifford 1989) or independent runs;
* :func:`randomization_test` -- the empirical p-value of any clusterer's objective;
* :func:`mixing_curve` and :func:`chain_set_distance` -- the convergence heuristic of Eq. 15.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from sklearn.base import clone
from sklearn.utils import check_random_state

from rankclust._kernel_random import xoshiro_state
from rankclust.cluster._base import chain_orders, check_chains, objective_of
from rankclust.cluster._swap_kernels import Chains, SlotLists, _nb_build_lists, _nb_swap_steps
from rankclust.distances import paired_distances
from rankclust.rankings import Rankings

__all__ = [
    "MixingCurve",
    "RandomizationTestResult",
    "SwapSampler",
    "chain_set_distance",
    "mixing_curve",
    "randomization_test",
    "swap_samples",
]


def _seed_from(random_state: Any) -> int:
    """A 62-bit integer seed drawn from a scikit-learn style ``random_state``."""
    rs = check_random_state(random_state)
    return int(rs.randint(0, 2**31 - 1)) * 2**31 + int(rs.randint(0, 2**31 - 1))


class SwapSampler:
    """Metropolis-Hastings sampler of chain data sets with the same pair counts (Section 4.3).

    Parameters
    ----------
    R : Rankings or array-like of shape (n, m)
        Chains (``kind="subset"``, no ties). Weighted data are expanded first (integer
        weights), since the MCMC moves individual chains.
    random_state : int, RandomState instance or None, default=None
        Seeds the sampler's own xoshiro256** stream.

    Attributes
    ----------
    n_steps_ : int
        Steps run so far (rejected proposals count, as in Algorithm 2).
    n_accepted_ : int
        Accepted swaps so far.
    n_items : int
    n_rankings : int

    Notes
    -----
    State: the concatenated chains, and for every ordered pair ``(x, y)`` the set
    ``S(x, y)`` of places where ``x`` is immediately followed by ``y`` (array plus index map);
    the number of valid swaps of the unordered pair ``{x, y}`` is ``|S(x,y)| |S(y,x)|``, kept
    in a Fenwick tree, so that sampling a uniform valid swap (Eq. 16) and updating ``|N(D)|``
    after a swap cost O(log m).

    Complexity: O(log m) time per step; O(sum_i l_i^2 + m^2) memory (the capacity of ``S(x, y)``
    is the number of chains holding both x and y).

    The sampler is uniform on the connected component of ``D`` in the swap graph; whether the
    equivalence class is connected is open (the paper's caveat).

    References
    ----------
    A. Ukkonen, "Clustering algorithms for chains", JMLR 12 (2011), Section 4.3, Algorithm 2.

    Examples
    --------
    >>> from rankclust import Rankings
    >>> R = Rankings.from_orderings([[0, 1, 2, 3, 4], [6, 7, 3, 2, 5], [2, 1, 5, 3, 0]])
    >>> s = SwapSampler(R, random_state=0)
    >>> s.n_neighbours
    2
    >>> D = s.run(100).rankings()
    >>> bool((D.pairwise_counts() == R.pairwise_counts()).all())
    True
    """

    def __init__(self, R: Any, *, random_state: Any = None) -> None:
        R = check_chains(R)
        if R.is_weighted:
            R = R.expand()
        self._template = R
        self.n_items = R.n_items
        self.n_rankings = R.n_rankings
        orders, lengths = chain_orders(R)
        m = R.n_items
        start = np.zeros(len(lengths) + 1, dtype=np.int64)
        np.cumsum(lengths, out=start[1:])
        T = int(start[-1])
        valid = np.arange(orders.shape[1])[None, :] < lengths[:, None]
        self._seq = orders[valid].astype(np.int32)  # row-major: chains in order
        self._cid = np.repeat(np.arange(len(lengths), dtype=np.int32), lengths)
        self._start = start
        C = R.pairwise_counts()
        cap = np.rint(C + C.T).astype(np.int64).reshape(-1)  # chains holding both x and y
        self._off = np.zeros(m * m + 1, dtype=np.int64)
        np.cumsum(cap, out=self._off[1:])
        self._members = np.zeros(max(int(self._off[-1]), 1), dtype=np.int64)
        self._where = np.full(max(T, 1), -1, dtype=np.int64)
        self._size = np.zeros(m * m, dtype=np.int64)
        self._wt = np.zeros(m * m, dtype=np.int64)
        self._tree = np.zeros(m * m + 1, dtype=np.int64)
        self._state = np.zeros(1, dtype=np.int64)
        self._top = 1 << (max(m * m, 1).bit_length() - 1)
        _nb_build_lists(*self._kernel_args())
        self._rng = xoshiro_state(_seed_from(random_state))
        self.n_steps_ = 0
        self.n_accepted_ = 0

    def _kernel_args(self) -> tuple[Chains, SlotLists]:
        return (
            Chains(self._seq, self._cid, self._start),
            SlotLists(
                self.n_items,
                self._off,
                self._members,
                self._where,
                self._size,
                self._wt,
                self._tree,
                self._state,
            ),
        )

    @property
    def n_neighbours(self) -> int:
        """``|N(D)|``: the number of valid swaps of the current data set."""
        return int(self._state[0])

    def run(self, n_steps: int) -> SwapSampler:
        """Advance the chain by ``n_steps`` Metropolis-Hastings steps; returns ``self``."""
        n_steps = int(n_steps)
        if n_steps < 0:
            raise ValueError(f"n_steps must be >= 0, got {n_steps}")
        if n_steps:
            self.n_accepted_ += int(
                _nb_swap_steps(*self._kernel_args(), self._rng, n_steps, self._top)
            )
            self.n_steps_ += n_steps
        return self

    def rankings(self) -> Rankings:
        """The current data set as a (new) :class:`Rankings` with the original row order."""
        m = self.n_items
        ranks = np.full((self.n_rankings, m), -1, dtype=np.int64)
        pos = np.arange(self._seq.shape[0]) - self._start[self._cid]
        ranks[self._cid, self._seq] = pos
        return self._template._replace(ranks=ranks)

    def copy(self, *, random_state: Any = None) -> SwapSampler:
        """An independent sampler in the same state, with a fresh random stream."""
        new = object.__new__(SwapSampler)
        new.__dict__.update(self.__dict__)
        for name in ("_seq", "_members", "_where", "_size", "_wt", "_tree", "_state"):
            setattr(new, name, getattr(self, name).copy())
        new._rng = xoshiro_state(_seed_from(random_state))
        return new


def swap_samples(
    R: Any,
    n_samples: int = 99,
    n_steps: int | None = None,
    *,
    method: str = "besag_clifford",
    random_state: Any = None,
) -> list[Rankings]:
    """Random data sets with the same pair counts, lengths and item sets as ``R``.

    Parameters
    ----------
    R : Rankings or array-like
        Chains.
    n_samples : int, default=99
        Number h of random data sets.
    n_steps : int, optional
        Steps per sample s. Default: ``100 * (number of adjacent pairs in R)``, which gives
        4.5e6 for SUSHI, 1.9e6 for DUBLIN and 2.8e6 for MSNBC (5000 chains each), close to
        the burn-ins the paper read off Figure 6 (5e6, 0.5e6, 3e6); check with
        :func:`mixing_curve`.
    method : {"besag_clifford", "serial"}, default="besag_clifford"
        ``"besag_clifford"`` (the *parallel* method of Besag & Clifford 1989): run ``s``
        steps from ``R`` to ``D0`` (the chain is reversible, so this equals running
        backwards), then every sample runs ``s`` steps forward from ``D0``; the samples and
        ``R`` are exchangeable under the null. ``"serial"``: every sample runs ``s`` steps
        from ``R`` itself (not exchangeable; an approximation).
    random_state : int, RandomState instance or None, default=None

    Returns
    -------
    samples : list of Rankings

    Notes
    -----
    Complexity: O((h + 1) s log m) time, O(h n m) memory for the returned samples.

    Examples
    --------
    >>> from rankclust.cluster import make_planted_chains
    >>> R, _ = make_planted_chains(100, n_items=8, length=4, random_state=0)
    >>> samples = swap_samples(R, n_samples=3, n_steps=1000, random_state=0)
    >>> all((D.pairwise_counts() == R.pairwise_counts()).all() for D in samples)
    True
    """
    R = check_chains(R)
    if method not in ("besag_clifford", "serial"):
        raise ValueError(f"method must be 'besag_clifford' or 'serial', got {method!r}")
    if int(n_samples) < 1:
        raise ValueError(f"n_samples must be >= 1, got {n_samples}")
    rng = check_random_state(random_state)
    base = SwapSampler(R, random_state=rng)
    s = default_n_steps(R) if n_steps is None else int(n_steps)
    if method == "besag_clifford":
        base.run(s)
    return [base.copy(random_state=rng).run(s).rankings() for _ in range(int(n_samples))]


def default_n_steps(R: Rankings) -> int:
    """``100 *`` the number of adjacent pairs, the default burn-in of :func:`swap_samples`."""
    return int(100 * np.maximum(R.lengths - 1, 0).sum())


# --------------------------------------------------------------------------------------------
# the test
# --------------------------------------------------------------------------------------------
@dataclass
class RandomizationTestResult:
    """Outcome of :func:`randomization_test`.

    Attributes
    ----------
    pvalue : float
        ``(#{null <= observed} + 1) / (h + 1)`` (``>=`` when ``greater_is_better``).
    statistic : float
        The objective on the real data.
    null_distribution : ndarray of shape (h,)
        The objective on each random data set.
    n_steps : int
        MCMC steps per sample.
    method : str
    acceptance_rate : float
        Accepted / proposed swaps over all sampling runs.
    samples : list of Rankings or None
        The random data sets (only with ``return_samples=True``).
    """

    pvalue: float
    statistic: float
    null_distribution: np.ndarray
    n_steps: int
    method: str
    acceptance_rate: float
    samples: list | None = field(default=None, repr=False)


def randomization_test(
    estimator: Any,
    R: Any,
    *,
    n_samples: int = 99,
    n_steps: int | None = None,
    method: str = "besag_clifford",
    statistic: Any = None,
    greater_is_better: bool = False,
    n_jobs: int | None = None,
    samples: list[Rankings] | None = None,
    return_samples: bool = False,
    random_state: Any = None,
) -> RandomizationTestResult:
    """Is a clustering of chains significant? (Ukkonen 2011, Section 4.)

    The estimator is cloned and fitted on ``R`` and on ``h`` random data sets with the same
    chain lengths, item sets and pair counts (:func:`swap_samples`); the p-value is the rank
    of the real objective among them. With ``h = 99`` the smallest possible p-value is 0.01.

    Parameters
    ----------
    estimator : estimator
        Any clusterer with ``fit(R)`` and a scalar objective, e.g. :class:`ChainKMeans`,
        :class:`KOMeans` or a mixture model. The **protocol**: after ``fit``, the statistic is
        ``statistic(est, R)`` if ``statistic`` is callable, the attribute named by
        ``statistic`` if it is a string, else ``est.objective_`` or, failing that,
        ``est.inertia_``. By default smaller is better (a reconstruction error); for a
        log-likelihood pass ``greater_is_better=True``. The estimator's ``random_state`` is
        kept as given (a fixed seed gives the same initialisations on every data set).
    R : Rankings or array-like
        Chains (``kind="subset"``, no ties), or top-t ballots (``kind="top"``, no ties; see
        Notes). The estimator must accept this kind (:class:`ChainKMeans` and
        :class:`KOMeans` take chains only; the mixtures take both).
    n_samples : int, default=99
        Number h of random data sets.
    n_steps : int, optional
        MCMC steps per sample (default: see :func:`swap_samples`).
    method : {"besag_clifford", "serial"}, default="besag_clifford"
    statistic : str or callable, optional
    greater_is_better : bool, default=False
    n_jobs : int, optional
        Fits of the random data sets run in parallel (joblib threads).
    samples : list of Rankings, optional
        Random data sets drawn before (e.g. by :func:`swap_samples`, or returned by an earlier
        call with ``return_samples=True``), to test several clusterers on the same null sets;
        then ``n_samples``, ``n_steps`` and ``method`` are not used for sampling.
    return_samples : bool, default=False
    random_state : int, RandomState instance or None, default=None

    Returns
    -------
    RandomizationTestResult

    Notes
    -----
    **Top-t ballots.** A swap exchanges ``u v`` (adjacent) in one list with ``v u`` (adjacent)
    in another: every list keeps its set of listed items, so every "listed before unlisted"
    pair a top-t list implies is kept, and the listed-before-listed pair counts are kept as
    for chains. The random data sets therefore keep, exactly, the number of ballots, every
    ballot's length and listed candidates, and the top-t pair counts
    ``C(u, v) = #{ballots ranking u above v, listed or implied}`` (hence the Borda scores);
    a one-candidate ballot is never changed. The sampling is done on the lists as chains and
    each random data set is handed to the estimator as ``kind="top"`` again, as distinct
    ballots with their counts (weighted data give the fit of the expanded data), so a top-t
    model (e.g. :class:`MallowsMixture`) is fitted to ballots read as ballots. What the
    null does not keep: how often a candidate is listed *first* (positions are not pair
    counts), so a clustering that only reflects first-preference shares is not credited.

    Complexity: (h + 1) fits plus O((h + 1) s log m) sampling time.

    References
    ----------
    A. Ukkonen, "Clustering algorithms for chains", JMLR 12 (2011), Section 4;
    J. Besag and P. Clifford, "Generalized Monte Carlo significance tests", Biometrika 1989.

    Examples
    --------
    >>> from rankclust.cluster import ChainKMeans, make_planted_chains
    >>> R, _ = make_planted_chains(200, n_items=8, length=5, n_clusters=2, random_state=0)
    >>> res = randomization_test(ChainKMeans(2, n_init=2, random_state=0), R,
    ...                          n_samples=9, random_state=0)
    >>> res.pvalue
    0.1
    """
    # top-t ballots are sampled as chains (the swaps keep each list's item set, hence every
    # implied pair) and fitted as ballots again (Notes)
    top = isinstance(R, Rankings) and R.kind == "top"
    R = check_chains(R.with_kind("subset") if top else R)
    if R.is_weighted:
        R = R.expand()

    def as_fitted(D: Rankings) -> Rankings:
        # ballots: fitted as distinct ballots with their counts (the same fit as the expanded
        # data, DESIGN.md section 1, and much faster: a few hundred distinct top-t lists)
        return D.with_kind("top").unique()[0] if top else D

    rng = check_random_state(random_state)
    R_fit = as_fitted(R)
    observed = objective_of(clone(estimator).fit(R_fit), R_fit, statistic)
    s = default_n_steps(R) if n_steps is None else int(n_steps)
    if method not in ("besag_clifford", "serial"):
        raise ValueError(f"method must be 'besag_clifford' or 'serial', got {method!r}")
    proposed = accepted = 0
    if samples is None:
        base = SwapSampler(R, random_state=rng)
        if method == "besag_clifford":
            base.run(s)
            proposed, accepted = base.n_steps_, base.n_accepted_
        samples = []
        for _ in range(int(n_samples)):
            smp = base.copy(random_state=rng)
            smp.n_steps_ = smp.n_accepted_ = 0
            smp.run(s)
            proposed += smp.n_steps_
            accepted += smp.n_accepted_
            samples.append(as_fitted(smp.rankings()))
    else:
        samples = [
            check_chains(
                D.with_kind("subset") if isinstance(D, Rankings) else D,
                name="samples[i]",
                n_items=R.n_items,
            )
            for D in samples
        ]
        samples = [as_fitted(D) for D in samples]
        if not samples:
            raise ValueError("samples must hold at least one data set")

    def _fit_stat(D: Rankings) -> float:
        return objective_of(clone(estimator).fit(D), D, statistic)

    if n_jobs is not None and n_jobs != 1:
        from joblib import Parallel, delayed

        # threads: the compiled kernels release the GIL, and nothing has to be pickled
        null = Parallel(n_jobs=n_jobs, prefer="threads")(delayed(_fit_stat)(D) for D in samples)
    else:
        null = [_fit_stat(D) for D in samples]
    null = np.asarray(null, dtype=np.float64)
    extreme = null >= observed if greater_is_better else null <= observed
    pvalue = (int(extreme.sum()) + 1) / (len(null) + 1)
    return RandomizationTestResult(
        pvalue=pvalue,
        statistic=observed,
        null_distribution=null,
        n_steps=s,
        method=method,
        acceptance_rate=accepted / proposed if proposed else float("nan"),
        samples=samples if return_samples else None,
    )


# --------------------------------------------------------------------------------------------
# mixing diagnostic
# --------------------------------------------------------------------------------------------
def chain_set_distance(R1: Any, R2: Any, *, normalize: bool = False) -> float:
    """Mean labeled Kendall distance between two data sets of chains (Ukkonen 2011, Eq. 15).

    ``d(D, D') = (1/n) sum_j d_K(D(j), D'(j))``, chain j of one set against chain j of the
    other; both must order the same items row by row (as swaps guarantee).

    Parameters
    ----------
    R1, R2 : Rankings or array-like, shape (n, m)
    normalize : bool, default=False
        Divide each chain's count by its number of pairs. The paper's Eq. 15 uses raw counts.

    Returns
    -------
    float

    Notes
    -----
    Uses :func:`rankclust.distances.paired_distances` (Kendall on the items both rows hold).

    Complexity: O(n m^2) time.

    Examples
    --------
    The example of Section 4.3.3 (items 1..6 renamed 0..5):

    >>> from rankclust import Rankings
    >>> D = Rankings.from_orderings([[0, 1, 2], [3, 4, 5], [1, 0, 2], [5, 4, 3]])
    >>> Di = Rankings.from_orderings([[1, 0, 2], [5, 4, 3], [0, 1, 2], [3, 4, 5]])
    >>> chain_set_distance(D, Di)
    2.0
    """
    R1 = check_chains(R1, name="R1")
    R2 = check_chains(R2, name="R2", n_items=R1.n_items)
    if R1.n_rankings != R2.n_rankings or not np.array_equal(R1.present, R2.present):
        raise ValueError("R1 and R2 must hold the same item set in every row")
    if R1.n_rankings == 0:
        return 0.0
    # the shared partial Kendall distance counts discordant pairs among common items
    return float(np.mean(paired_distances(R1, R2, metric="kendall", normalize=normalize)))


@dataclass
class MixingCurve:
    """Output of :func:`mixing_curve`: ``distance[i]`` after ``steps[i]`` steps, and the burn-in
    suggested by the automatic rule (None if the curve did not flatten)."""

    steps: np.ndarray
    distance: np.ndarray
    burn_in: int | None
    acceptance_rate: float


def mixing_curve(
    R: Any,
    n_steps: int = 10_000_000,
    every: int = 100_000,
    *,
    window: float = 0.1,
    rel_increase: float = 0.01,
    random_state: Any = None,
) -> MixingCurve:
    """The convergence heuristic of Ukkonen 2011 (Eq. 15, Figure 6).

    Runs one swap chain from ``R`` and records :func:`chain_set_distance` to ``R`` every
    ``every`` steps. The paper reads the burn-in off the plot where the curve stops rising;
    the automatic rule here returns the first checkpoint ``t`` such that the distance rises by
    less than ``rel_increase`` (relative) between ``t`` and ``t + window * n_steps``.

    Parameters
    ----------
    R : Rankings or array-like
    n_steps : int, default=10_000_000
        Total steps (the paper: 1e7).
    every : int, default=100_000
        Checkpoint spacing (the paper: 1e5).
    window : float, default=0.1
    rel_increase : float, default=0.01
    random_state : int, RandomState instance or None, default=None

    Returns
    -------
    MixingCurve

    Notes
    -----
    Complexity: O(n_steps log m + (n_steps / every) n m^2) time.

    Examples
    --------
    >>> from rankclust.cluster import make_planted_chains
    >>> R, _ = make_planted_chains(200, n_items=8, length=5, random_state=0)
    >>> curve = mixing_curve(R, n_steps=20_000, every=1000, random_state=0)
    >>> curve.steps[:3]
    array([1000, 2000, 3000])
    >>> bool(curve.distance[-1] > curve.distance[0])
    True
    """
    R = check_chains(R)
    if R.is_weighted:
        R = R.expand()
    if every < 1 or n_steps < every:
        raise ValueError(f"need 1 <= every <= n_steps, got every={every}, n_steps={n_steps}")
    sampler = SwapSampler(R, random_state=random_state)
    steps = np.arange(every, n_steps + 1, every, dtype=np.int64)
    dist = np.empty(len(steps))
    for i in range(len(steps)):
        sampler.run(every)
        dist[i] = chain_set_distance(R, sampler.rankings())
    lag = max(1, round(window * n_steps / every))
    burn_in = None
    for i in range(len(steps) - lag):
        if dist[i + lag] - dist[i] <= rel_increase * max(dist[i + lag], 1e-300):
            burn_in = int(steps[i])
            break
    rate = sampler.n_accepted_ / sampler.n_steps_ if sampler.n_steps_ else float("nan")
    return MixingCurve(steps=steps, distance=dist, burn_in=burn_in, acceptance_rate=rate)

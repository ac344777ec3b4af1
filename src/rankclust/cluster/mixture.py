"""Finite mixtures of ranking models fitted by (generalised) EM, and model selection.

* :class:`MallowsMixture` -- a mixture of Kendall-Mallows models for heterogeneous partial
  rankings (Busse, Orbanz & Buhmann 2007): top-t lists of any length with the paper's
  maximum-entropy likelihood, complete rankings as the special case, and sub-rankings
  (``kind="subset"``) through the observed-pairs likelihood.
* :class:`PlackettLuceMixture` -- a mixture of Plackett-Luce models for complete, top-k and
  subset rankings, with MM updates inside EM (the model of PLMIX, Mollica & Tardella 2017,
  fitted here by maximum likelihood).
* :func:`select_k` -- fit a mixture for several numbers of components and choose one by
  BIC (or ICL/AIC); the fit with K components also starts from the fitted K - 1 mixture
  (each component split, one added), so the likelihood reached is (near-)monotone in K.
* :func:`select_model` -- :func:`select_k` of a Mallows mixture for several distances
  (``MallowsMixture(distance=...)``), the distance and K chosen together in one table.

Both estimators share the EM driver of :class:`_RankingMixture`: the E-step is computed in
log space with ``logsumexp``; identical rankings are merged first (:meth:`Rankings.unique`)
and carried as weights, so the cost of an iteration depends on the number of *distinct*
rankings (205 for the 15,449 APA ballots); components are sorted by decreasing weight, so
the output does not depend on the labelling of a run; every M-step increases the expected
complete-data log-likelihood, so the observed-data log-likelihood never decreases
(generalised EM; the property is tested). EM is accelerated by SQUAREM on the continuous
parameters (``accelerate=True``; an extrapolated point is kept only if it is at least as
likely as the plain EM step, so the property holds), and runs with one BLAS thread (its
products are small; threaded BLAS only loses on a loaded machine).

References
----------
.. [1] Busse, L. M., Orbanz, P. and Buhmann, J. M. (2007). Cluster analysis of heterogeneous
       rank data. ICML.
.. [2] Murphy, T. B. and Martin, D. (2003). Mixtures of distance-based models for ranking
       data. Computational Statistics & Data Analysis 41, 645-655.
.. [3] Hunter, D. R. (2004). MM algorithms for generalized Bradley-Terry models. Annals of
       Statistics 32, 384-406.
.. [4] Mollica, C. and Tardella, L. (2017). Bayesian Plackett-Luce mixture models for
       partially ranked data. Psychometrika 82, 442-458.
.. [5] Biernacki, C., Celeux, G. and Govaert, G. (2000). Assessing a mixture model for
       clustering with the integrated completed likelihood. IEEE TPAMI 22, 719-725.
"""

from __future__ import annotations

import functools
import inspect
import numbers
import time
import warnings
from abc import abstractmethod
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from scipy.special import logsumexp
from sklearn.base import BaseEstimator, clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted
from threadpoolctl import threadpool_limits

from rankclust import _loaded_state as loaded
from rankclust._dask import (
    DaskExecutor,
    EagerExecutor,
    as_chunked,
    distinct_blocks,
    is_dask_collection,
    map_method,
    smallest_rows,
    take_rows,
    weighted_choice,
)
from rankclust._limits import check_alloc
from rankclust._param_validation import (
    Interval,
    StrOptions,
    ValidatedParamsMixin,
    check_n_clusters,
    check_sample_weight,
)
from rankclust._restarts import AUTO_BATCH, NEAR_TIE_RTOL, warn_auto_restarts, warn_near_tie
from rankclust._runs import RestartSearch
from rankclust.cluster._gate import GateMixin
from rankclust.cluster._mixture_contract import MixtureContract, MixtureRun
from rankclust.cluster._mixture_kernels import (
    discordance_matrix,
    length_tables,
    order_counts,
    order_logliks,
    order_statistics,
    pair_indicators,
    responsibilities,
    row_orders,
    solve_thetas,
)
from rankclust.cluster._seeding import (
    KMEANSPP,
    BlockSpace,
    check_kmeanspp_spelling,
    greedy_kmeanspp,
    kmeanspp_step,
    n_local_trials,
    random_completion,
    seed_distances,
)
from rankclust.consensus import (
    CENTER_METHODS,
    best_local_center,
    resolve_center_method,
)
from rankclust.distances import kendall_distances
from rankclust.models import plackett_luce as pl_model
from rankclust.models.mallows import (
    COMPLETION_CAP,
    EM_TOTAL_CAP,
    MALLOWS_DISTANCES,
    THETA_MAX,
    bucket_size_counts,
    completions,
    first_row_over_cap,
    n_completions,
)
from rankclust.models.plackett_luce import (
    choice_stages,
    fit_scores,
    mm_sums,
    mm_worths,
    stage_pass,
)
from rankclust.rankings import MAX_PAIRWISE_BYTES, Rankings, check_rankings

__all__ = [
    "BACKENDS",
    "CRITERION_NOTES",
    "MIXTURE_CENTER_METHODS",
    "MallowsMixture",
    "PlackettLuceMixture",
    "SelectKResult",
    "SelectModelResult",
    "select_k",
    "select_model",
    "selection_notes",
]

#: Centre steps of :class:`MallowsMixture` (see its ``center_method``): keys of the one
#: registry :data:`rankclust.consensus.CENTER_METHODS`.
MIXTURE_CENTER_METHODS = ("auto", "exact", "local", "adjacent")

#: Back-ends of the mixtures (see their ``backend`` parameter).
BACKENDS = ("numpy", "dask")

#: Above this many entries (distinct rows times m^2) the per-row pair indicators are not
#: materialised and the E/M-steps call the one-component functions instead (128 MB).
_PAIR_MATRIX_MAX = 2**24

# a component whose total responsibility falls below this share of the data is re-seeded
_EMPTY_SHARE = 1e-10

# restarts (n_init="auto"): fresh starts per round; short runs continued to convergence per
# round; two continued runs "agree" when their log-likelihoods differ by at most
# _AGREE_RTOL (relative) and their MAP partitions match on all but _AGREE_MISMATCH of the
# total weight (up to relabelling: rankings at a near-tie may flip before full convergence);
# a different partition within NEAR_TIE_RTOL of the best log-likelihood is a near tie
_AUTO_BATCH = AUTO_BATCH
_N_CONTINUE = 3
# the budget of starts with max_init=None: more where starts are cheap (APA ballots: 292
# distinct rankings of 5 items, u m^2 K = 2e4 for K=3; Irish Meath: 25,101 of 14, 2e7 for K=4)
_MAX_INIT_CHEAP = 100
_MAX_INIT = 30
_CHEAP_WORK = 1e7
_AGREE_RTOL = 1e-5
_AGREE_MISMATCH = 1e-3
# the kept run is continued with tol * _POLISH (a tighter stop), so that fits from different
# seeds that reach the same optimum report the same log-likelihood and partition
_POLISH = 1e-5


# --------------------------------------------------------------------------------------------
# shared driver
# --------------------------------------------------------------------------------------------
@dataclass(kw_only=True)
class _Run(MixtureRun):
    """One EM run from one initialisation (private): a
    :class:`~rankclust.cluster._mixture_contract.MixtureRun` with the EM state to continue it."""

    states: list  # per-block _BlockState of the last E-step
    history: list = field(default_factory=list)
    n_reseeded: int = 0
    grown: bool = False  # started from a fitted mixture with one component fewer
    abandoned: bool = False  # stopped early: it could not reach the best run (_cannot_reach)


@dataclass
class _BlockState:
    """Per-row EM state of one block of distinct rankings (stays where the block lives)."""

    resp: np.ndarray  # (u_b, K) responsibilities
    row_ll: np.ndarray  # (u_b,) log-likelihood of each ranking
    cache: Any = None  # model-specific by-product of the E-step (PL: exposures)


@dataclass
class _Blocks:
    """The distinct rankings of a fit, compiled per block, and the executor that runs on them.

    In memory: one block and an :class:`~rankclust._dask.EagerExecutor`; on Dask: the blocks
    of :func:`~rankclust._dask.distinct_blocks` (same rows, same order) and a
    :class:`~rankclust._dask.DaskExecutor`. The EM driver is written once against this.
    """

    ex: Any
    parts: list  # per-block model data (_MallowsData / _PLData), or Delayed of them
    offsets: np.ndarray  # (n_blocks + 1,) global index of each block's first row
    total: float  # total weight
    n_items: int
    kind: str
    ties: bool = False  # some ranking has tied items (in memory only; see _accepts_ties)


#: Largest SQUAREM step length |alpha| (the likelihood check guards every step; the cap
#: only keeps a wild extrapolation from wasting its E-step).
_SQUAREM_MAX_STEP = 64.0
#: Steps with |alpha| below this are not tried (too close to the plain EM point x2).
_SQUAREM_MIN_STEP = 1.5


def _squarem_step(x0: np.ndarray, x1: np.ndarray, x2: np.ndarray) -> tuple | None:
    """The SQUAREM step of three successive EM points (Varadhan & Roland 2008).

    Returns ``(x0, r, v, alpha)`` with ``r = x1 - x0``, ``v = x2 - 2 x1 + x0`` and the step
    ``alpha = -|r| / |v|`` (their scheme S3) kept in ``[-_SQUAREM_MAX_STEP, -1]``; the point
    is :func:`_squarem_point` of it. None when there is nothing to extrapolate (EM has
    stopped moving, ``alpha = -1`` gives ``x2`` itself, or a coordinate is not finite).
    """
    r = x1 - x0
    v = x2 - 2.0 * x1 + x0
    nr, nv = float(np.sqrt(r @ r)), float(np.sqrt(v @ v))
    if not (np.isfinite(nr) and np.isfinite(nv)) or nv == 0.0 or nr == 0.0:
        return None
    alpha = min(max(-nr / nv, -_SQUAREM_MAX_STEP), -1.0)
    if alpha > -_SQUAREM_MIN_STEP:
        return None  # (nearly) x2 itself: not worth an E-step
    return x0, r, v, alpha


def _squarem_point(step: tuple) -> np.ndarray:
    """``x0 - 2 alpha r + alpha^2 v`` of a :func:`_squarem_step`."""
    x0, r, v, alpha = step
    return x0 - 2.0 * alpha * r + alpha * alpha * v


#: Early abandonment of continued runs: a run is stopped when even ``_ABANDON_SAFETY`` times
#: its predicted remaining gain leaves it more than ``_ABANDON_RTOL`` (relative) below the
#: best continued run; twice the near-tie threshold, so that near ties are still seen.
_ABANDON_SAFETY = 10.0
_ABANDON_RTOL = 2.0 * NEAR_TIE_RTOL


def _cannot_reach(ll: float, gains: list, floor: float) -> bool:
    """Whether a run at log-likelihood ``ll`` cannot reach ``floor`` (early abandonment).

    ``gains`` are the last two gains of plain EM steps with no discrete move. Once they
    shrink (``g2 < g1``), EM's linear convergence predicts the remaining gain
    ``g2 rho / (1 - rho)`` with ``rho = g2 / g1`` (a geometric series); the run is
    abandoned when ``ll + _ABANDON_SAFETY * that < floor``. Runs whose gains do not shrink,
    or that just moved a discrete parameter, are never abandoned.
    """
    if len(gains) < 2:
        return False
    g1, g2 = gains
    if not (0.0 < g2 < g1):
        return False
    rho = g2 / g1
    return ll + _ABANDON_SAFETY * g2 * rho / (1.0 - rho) < floor


def _short_run_acceleration(est: Any) -> bool | None:
    """SQUAREM in the short runs of small EM: off (False) when ``init_iter`` is set, so that
    the runs chosen to continue are those of plain EM (an extrapolation in the first
    iterations can lead a start into another optimum of the discrete centres); None (the
    estimator's ``accelerate``) when every start runs to convergence."""
    return False if est.init_iter is not None else None


# per-block pieces of the driver (module level, so that Dask can ship them to workers)
def _block_totals(data: Any, state: _BlockState) -> tuple[float, np.ndarray]:
    return data.w @ state.row_ll, data.w @ state.resp


def _block_nk(data: Any, state: _BlockState) -> np.ndarray:
    return data.w @ state.resp


def _block_row_ll(state: _BlockState) -> np.ndarray:
    return state.row_ll


def _block_force(state: _BlockState, start: int, force: list) -> _BlockState:
    """Put each re-seeded row (global index g) wholly in its new component k."""
    resp = state.resp
    mine = [(g - start, k) for g, k in force if start <= g < start + len(resp)]
    if not mine:
        return state
    resp = resp.copy()
    for i, k in mine:
        resp[i] = 0.0
        resp[i, k] = 1.0
    return _BlockState(resp=resp, row_ll=state.row_ll, cache=state.cache)


def _block_entropy(data: Any, state: _BlockState, order: np.ndarray) -> float:
    resp = state.resp[:, order]
    with np.errstate(divide="ignore", invalid="ignore"):
        ent = -np.nansum(np.where(resp > 0, resp * np.log(resp), 0.0), axis=1)
    return data.w @ ent


def _block_contingency(data: Any, a: _BlockState, b: _BlockState) -> np.ndarray:
    """(K, K) total weight of the rankings in MAP component i of run a and j of run b."""
    k_comp = a.resp.shape[1]
    la, lb = np.argmax(a.resp, axis=1), np.argmax(b.resp, axis=1)
    return np.bincount(la * k_comp + lb, weights=data.w, minlength=k_comp * k_comp).reshape(
        k_comp, k_comp
    )


def _partition_mismatch(table: np.ndarray) -> float:
    """Share of the weight outside the best one-to-one matching of two partitions' labels."""
    from scipy.optimize import linear_sum_assignment

    rows, cols = linear_sum_assignment(-table)
    total = table.sum()
    return float(1.0 - table[rows, cols].sum() / total) if total > 0 else 0.0


def _block_center_distances(data: Any, centers: np.ndarray) -> np.ndarray:
    """(u_b, K): Kendall's statistic of every ranking of the block to every centre."""
    return np.stack([seed_distances(data, c) for c in centers], axis=1)


def _split_scores(data: Any, state: _BlockState, dists: np.ndarray, j: int) -> np.ndarray:
    """``w_i q_ij d(pi_i, sigma_j)``: how much ranking i pulls component j apart."""
    return data.w * state.resp[:, j] * dists[:, j]


def _split_potentials(
    data: Any, state: _BlockState, dists: np.ndarray, j: int, cands: np.ndarray
) -> np.ndarray:
    """Per candidate c: ``sum_i w_i q_ij min(d(pi_i, sigma_j), d(pi_i, c))``."""
    wq = data.w * state.resp[:, j]
    return np.array([wq @ np.minimum(dists[:, j], seed_distances(data, c)) for c in cands])


def _row_min(dists: np.ndarray) -> np.ndarray:
    """Distance of every ranking of a block to its nearest centre."""
    return dists.min(axis=1)


def _block_pair_counts(data: Any) -> np.ndarray:
    return data.R.pairwise_counts()


def _check_chunk(R: Rankings, kinds: tuple) -> Rankings:
    if isinstance(R, Rankings) and R.has_ties.any():
        raise ValueError(
            f"R: row {int(np.flatnonzero(R.has_ties)[0])} of a chunk has tied items; the "
            'mixtures fit rankings with ties in memory only (backend="numpy")'
        )
    return check_rankings(R, allow_ties=False, kinds=kinds, name="R")


#: The restart parameters of both mixtures, pasted into their docstrings (one text, one rule).
_RESTART_PARAMETERS_DOC = """n_init : int or "auto", default="auto"
        Starts of EM. ``"auto"``: rounds of 10 starts until ``n_agree`` of the runs
        continued to convergence reached the best fit (same log-likelihood within 1e-5
        relative, same MAP partition up to relabelling), or ``max_init`` starts were made;
        an integer: one round of that many starts. Each round continues the 3 most likely
        short runs (later rounds: the best one left); the kept run is then continued with
        ``tol * 1e-5`` (polished), so that seeds that reach the same optimum report the same
        fit. See "Restarts" in ``docs/mixtures.md``.
    max_init : int or None, default=None
        Budget of starts with ``n_init="auto"``; None: 100 when a start is cheap
        (``u m^2 K <= 1e7`` for ``u`` distinct rankings), else 30.
    n_agree : int, default=3
        Agreeing continued runs after which ``n_init="auto"`` stops; fewer at the end of the
        budget give a ``ConvergenceWarning``."""


def _with_restart_doc(cls: type) -> type:
    """Paste :data:`_RESTART_PARAMETERS_DOC` into ``cls.__doc__`` (class decorator)."""
    if cls.__doc__:  # None under python -OO
        cls.__doc__ = cls.__doc__.replace("{restart_parameters}", _RESTART_PARAMETERS_DOC)
    return cls


class _RankingMixture(ValidatedParamsMixin, BaseEstimator, MixtureContract, GateMixin):
    """EM driver shared by the ranking mixtures (private).

    Subclasses implement the abstract hooks below (the section "hooks of the driver"):
    compile a block of distinct rankings once (``_prepare``), start (``_init_params``,
    ``_seed_component``), the E-step's component log-likelihoods (``_loglik_and_cache``), the
    M-step (``_m_step``), the modal rankings (``_modal_positions``), the count of free
    parameters (``_n_free``), and the fitted parameters (``_set_fitted`` of
    :class:`~rankclust.cluster._mixture_contract.MixtureContract`, ``_fitted_params``,
    ``_validate_loaded_params``). ``_penalty`` (log-prior, default 0) and ``_check_data``
    (reject data before EM, default nothing) have defaults.

    Everything that touches rows runs per block through ``blocks.ex`` (see
    :mod:`rankclust._dask`): in memory one block, on Dask many, with the same code.
    """

    _parameter_constraints: dict = {  # noqa: RUF012 - read-only class table
        "n_components": [Interval(numbers.Integral, 1, None)],
        # "kmeans++": the old spelling, accepted with a FutureWarning
        "init": [StrOptions({KMEANSPP, "kmeans++", "random"})],
        "n_init": [Interval(numbers.Integral, 1, None), StrOptions({"auto"})],
        "max_init": [Interval(numbers.Integral, 1, None), None],
        "n_agree": [Interval(numbers.Integral, 1, None)],
        "max_iter": [Interval(numbers.Integral, 1, None)],
        "tol": [Interval(numbers.Real, 0, None)],
        "init_iter": [Interval(numbers.Integral, 1, None), None],
        "accelerate": ["boolean"],
        "backend": [StrOptions(set(BACKENDS))],
        "random_state": ["random_state"],
        "gate_penalty": [Interval(numbers.Real, 0, None)],
    }

    _kinds: tuple[str, ...] = ("subset", "top")
    #: Rankings with ties are fitted (in memory; a Dask input is checked chunk by chunk and
    #: still refuses them). Untied data keep the untied code paths exactly.
    _accepts_ties: bool = True
    #: Early abandonment of continued runs that cannot reach the best (:func:`_cannot_reach`).
    #: Off: the geometric prediction is not a bound. A centre move (Mallows) or an escape
    #: from a plateau (Plackett-Luce) late in a run gains far more than predicted, and
    #: abandoned runs would have won (SUSHI A Mallows K = 4..10, up to 125 lower; random
    #: subset rankings, Plackett-Luce, 1.06 lower), so fits could end lower.
    _abandon: bool = False
    #: How many (K, m, m) float64 arrays an EM step holds at once (0: none); sizes are
    #: checked against it before seeding, so that no O(m^2) work starts that cannot finish.
    _pairwise_copies: int = 0

    def _check_size(self, m: int) -> None:
        if self._pairwise_copies:
            check_alloc(
                self._pairwise_copies * 8.0 * self.n_components * m * m,
                MAX_PAIRWISE_BYTES,
                f"the EM statistics of {self.n_components} component(s) over {m} items",
            )

    # ---------------------------------------------------------------- hooks of the driver
    @abstractmethod
    def _prepare(self, Ru: Rankings) -> Any:
        """Compile a block of distinct rankings once per fit (model data of the block)."""

    @abstractmethod
    def _init_params(self, blocks: _Blocks, seeds: np.ndarray, rng: Any) -> dict:
        """Component parameters that start at the (K, m) complete rankings ``seeds``."""

    @abstractmethod
    def _seed_component(self, params: dict, k: int, positions: np.ndarray) -> dict:
        """``params`` with component k restarted at the complete ranking ``positions``."""

    @abstractmethod
    def _loglik_and_cache(self, data: Any, params: dict) -> tuple[np.ndarray, Any]:
        """((u_b, K) component log-likelihoods of a block, by-product for the M-step)."""

    @abstractmethod
    def _m_step(
        self, blocks: _Blocks, states: list, params: dict, reseeded: bool
    ) -> tuple[dict, bool]:
        """(new params, whether a discrete parameter changed) from the E-step ``states``."""

    @abstractmethod
    def _modal_positions(self, params: dict) -> np.ndarray:
        """(K, m) modal rankings of the components (position vectors)."""

    @abstractmethod
    def _n_free(self, m: int) -> float:
        """Free parameters per component over m items, its weight excluded."""

    @abstractmethod
    def _fitted_params(self) -> dict:
        """The fitted component parameters, in the form ``params`` takes."""

    @abstractmethod
    def _validate_loaded_params(self, m: int, k: int) -> None:
        """The component parameters of a loaded mixture (see :meth:`_validate_loaded_state`)."""

    @abstractmethod
    def _continuous_vector(self, params: dict) -> np.ndarray:
        """The continuous component parameters as one unconstrained vector (SQUAREM)."""

    @abstractmethod
    def _with_continuous(self, params: dict, vec: np.ndarray) -> dict:
        """``params`` with the continuous parameters of ``vec`` (the discrete ones kept)."""

    def _squarem_pack(self, params: dict, weights: np.ndarray) -> np.ndarray:
        """The point EM moves (log-weights and continuous parameters) as one vector."""
        with np.errstate(divide="ignore"):
            log_w = np.log(weights)
        return np.concatenate([log_w, self._continuous_vector(params)])

    def _squarem_unpack(self, vec: np.ndarray, params: dict) -> tuple[dict, np.ndarray]:
        """``(params, weights)`` of an extrapolated vector; discrete parameters from ``params``."""
        k_comp = self.n_components
        log_w = vec[:k_comp] - vec[:k_comp].max()
        weights = np.exp(log_w)
        return self._with_continuous(params, vec[k_comp:]), weights / weights.sum()

    def _penalty(self, params: dict) -> float:
        """Log-prior of the parameters (0: maximum likelihood)."""
        return 0.0

    def _check_data(self, blocks: _Blocks) -> None:
        """Reject data on which the model cannot be fitted (default: nothing to check)."""

    # ---------------------------------------------------------------- input
    def _check_input(self, R: Any, *, reset: bool) -> Rankings:
        if not reset:
            check_is_fitted(self, ["weights_"])
        R = check_rankings(
            R,
            kind="top",
            allow_ties=self._accepts_ties,
            kinds=self._kinds,
            n_items=None if reset else self.n_items_,
            name="R",
            items=None if reset else self.items_,
        )
        if not reset and R.kind != self.kind_:
            raise ValueError(f"R has kind={R.kind!r}, the model was fitted on kind={self.kind_!r}")
        return R

    def _memory_blocks(self, R: Any, sample_weight: Any) -> tuple[_Blocks, Rankings, Any]:
        """The in-memory data: one block of the distinct rankings of positive weight."""
        R = self._check_input(R, reset=True)
        n, m = R.shape
        if m < 2:
            raise ValueError(f"R has {m} item(s); a ranking mixture needs at least 2")
        self._check_size(m)
        if sample_weight is not None:
            R = R.with_weights(R.weights * check_sample_weight(sample_weight, n))
        keep = R.weights > 0
        if not keep.any():
            raise ValueError("the weights of the rankings sum to zero")
        Ru, inverse = R[np.flatnonzero(keep)].unique() if not keep.all() else R.unique()
        check_n_clusters(
            self.n_components,
            Ru.n_rankings,
            what="distinct rankings of positive weight",
            name="n_components",
        )
        data = self._prepare(Ru)
        blocks = _Blocks(
            ex=EagerExecutor(),
            parts=[data],
            offsets=np.array([0, Ru.n_rankings]),
            total=float(data.w.sum()),
            n_items=m,
            kind=R.kind,
            ties=bool(Ru.has_ties.any()),
        )

        def labels(best: _Run, order: np.ndarray) -> np.ndarray:
            labels_u = np.argmax(best.states[0].resp[:, order], axis=1)
            if keep.all():
                return labels_u[inverse]
            # rows of zero weight are labelled by the fitted model all the same
            return self.predict(R.with_weights(None))

        return blocks, R, labels

    def _dask_blocks(self, R: Any, sample_weight: Any) -> tuple[_Blocks, Any, Any]:
        """The data on Dask: the same distinct rankings, in blocks held by the cluster."""
        CR = as_chunked(R, kind="top", sample_weight=sample_weight)
        if CR.kind not in self._kinds:
            raise ValueError(f"R: kind={CR.kind!r} is not supported here ({self._kinds})")
        m = CR.n_items
        if m < 2:
            raise ValueError(f"R has {m} item(s); a ranking mixture needs at least 2")
        self._check_size(m)
        CR = CR.map(_check_chunk, kinds=self._kinds)
        ex = DaskExecutor()
        parts_R, offsets, total = distinct_blocks(CR)
        if not total > 0:
            raise ValueError("the weights of the rankings sum to zero")
        check_n_clusters(
            self.n_components,
            int(offsets[-1]),
            what="distinct rankings of positive weight",
            name="n_components",
        )
        parts = ex.map(self._prepare, parts_R)
        ex.wait(parts)
        blocks = _Blocks(ex=ex, parts=parts, offsets=offsets, total=total, n_items=m, kind=CR.kind)

        def labels(best: _Run, order: np.ndarray) -> Any:
            return CR.map_rows(
                self._chunk_labels,
                dtype=np.int64,
                params=best.params,
                weights=best.weights,
                order=order,
            ).persist()

        return blocks, CR, labels

    def _reseed(self, params: dict, k: int, row: np.ndarray, rng: Any) -> dict:
        """Component k restarted at a random completion of the ranking ``row``."""
        return self._seed_component(params, k, random_completion(row, rng))

    # ---------------------------------------------------------------- EM
    def _seeds(self, blocks: _Blocks, rng: np.random.RandomState) -> np.ndarray:
        """K complete position vectors to start from (k-means++ on the data, or random)."""
        k_comp = self.n_components
        m = blocks.n_items
        if self.init == "random":
            return np.argsort(rng.random_sample((k_comp, m)), axis=1).argsort(axis=1)
        # greedy k-means++ over the distinct rankings (see rankclust.cluster._seeding)
        space = BlockSpace(blocks.ex, blocks.parts, blocks.offsets, m)
        return np.asarray(greedy_kmeanspp(space, k_comp, rng), dtype=np.int64)

    def _warm_starts(
        self, blocks: _Blocks, prev: _RankingMixture, rng: np.random.RandomState
    ) -> list[tuple[dict, np.ndarray]]:
        """Starts for K components grown from a fitted mixture ``prev`` with K - 1 of them.

        One start per component j of ``prev`` *splits* j: component j is kept and a new one
        is seeded at the data ranking (completed at random) that best divides j's rankings,
        the best of ``2 + log K`` candidates drawn with probability proportional to
        ``w_i q_ij d(pi_i, sigma_j)`` (``d`` Kendall's statistic to j's modal ranking), the
        weight ``c_j`` shared equally. One more start *adds* a component with weight ``1/K``
        at the greedy k-means++ seed over all rankings. Every other component keeps its fitted
        parameters, so each start begins near the (K - 1)-component optimum; this makes the
        log-likelihood reached by :func:`select_k` (near-)monotone in K, which independent
        random starts do not guarantee (EM over discrete centres has many local optima).
        Private; the data are trusted.
        """
        ex, parts, offsets = blocks.ex, blocks.parts, blocks.offsets
        k_comp = self.n_components
        params = prev._fitted_params()
        weights = np.asarray(prev.weights_, dtype=np.float64)
        with np.errstate(divide="ignore"):
            log_weights = np.log(weights)
        states = ex.map(self._block_e_step, parts, params=params, log_weights=log_weights)
        centers = self._modal_positions(params)
        dists = ex.map(_block_center_distances, parts, centers=centers)
        n_trials = n_local_trials(k_comp)
        space = BlockSpace(ex, parts, offsets, blocks.n_items)
        starts = []

        def grown(cand: np.ndarray, new_weights: np.ndarray) -> tuple[dict, np.ndarray]:
            bigger = {key: np.concatenate([v, v[-1:]]) for key, v in params.items()}
            return self._seed_component(bigger, k_comp - 1, cand), new_weights

        for j in range(k_comp - 1):
            scores = ex.map(_split_scores, parts, states, dists, j=j)
            picks, _ = weighted_choice(ex, scores, offsets, rng, size=n_trials)
            if picks is None:  # every ranking of component j sits at its centre
                continue
            cands = space.candidates(picks, rng)
            pots = ex.sum(_split_potentials, parts, states, dists, j=j, cands=cands)
            new_weights = np.append(weights, weights[j] / 2)
            new_weights[j] /= 2
            starts.append(grown(cands[int(np.argmin(pots))], new_weights))
        # the added component: one k-means++ step from the K - 1 fitted centres
        step = kmeanspp_step(space, ex.map(_row_min, dists), n_trials, rng)
        if step is not None:
            new_weights = np.append(weights * (k_comp - 1) / k_comp, 1.0 / k_comp)
            starts.append(grown(step[0], new_weights))
        return starts

    def _block_e_step(self, data: Any, params: dict, log_weights: np.ndarray) -> _BlockState:
        """Responsibilities and row log-likelihoods of one block (log space)."""
        loglik, cache = self._loglik_and_cache(data, params)
        resp, row_ll = responsibilities(loglik, log_weights)
        return _BlockState(resp=resp, row_ll=row_ll, cache=cache)

    def _e_step(self, blocks: _Blocks, params: dict, weights: np.ndarray) -> tuple:
        """(states, penalised total log-likelihood, total log-likelihood, nk)."""
        with np.errstate(divide="ignore"):
            log_weights = np.log(weights)
        states = blocks.ex.map(
            self._block_e_step, blocks.parts, params=params, log_weights=log_weights
        )
        wll, nk = blocks.ex.sum(_block_totals, blocks.parts, states)
        return states, float(wll) + self._penalty(params), float(wll), nk

    def _reseed_empty(
        self, blocks: _Blocks, states: list, params: dict, empty: np.ndarray, rng: Any
    ) -> tuple[dict, list, np.ndarray]:
        """(params, states, nk) with each empty component re-seeded at the worst-explained
        ranking, which is put wholly in it."""
        ex = blocks.ex
        worst = smallest_rows(ex, ex.map(_block_row_ll, states), blocks.offsets, empty.size)
        rows = take_rows(ex, blocks.parts, blocks.offsets, worst)
        force = []
        for j, k in enumerate(empty):
            params = self._reseed(params, k, rows[j % len(rows)], rng)
            force.append((int(worst[j % len(worst)]), int(k)))
        states = ex.map(_block_force, states, blocks.offsets[:-1].tolist(), force=force)
        return params, states, ex.sum(_block_nk, blocks.parts, states)

    def _run_start(
        self,
        blocks: _Blocks,
        rng: np.random.RandomState,
        start: _Run | None,
        init: tuple[dict, np.ndarray] | None,
    ) -> tuple[dict, np.ndarray, list[float], int, int]:
        """Where :meth:`_single_run` begins: ``(params, weights, history, n_done,
        n_reseeded)`` of a fresh initialisation, of ``init``, or of the run ``start``."""
        if start is None:
            if init is None:
                k_comp = self.n_components
                params = self._init_params(blocks, self._seeds(blocks, rng), rng)
                return params, np.full(k_comp, 1.0 / k_comp), [], 0, 0
            params, weights = init
            return params, weights, [], 0, 0
        # the last entry of the history is evaluated again (it is counted as an iteration
        # only when the run stopped there, converged)
        n_done = start.n_iter - (1 if start.converged else 0)
        return start.params, start.weights, list(start.history[:-1]), n_done, start.n_reseeded

    def _last_e_step(
        self, blocks: _Blocks, params: dict, weights: np.ndarray, fallback: tuple | None
    ) -> tuple:
        """The E-step after the last iteration of a run, and the point it keeps: an
        extrapolated point less likely than its fallback (SQUAREM) gives way to it."""
        states, ll, wll, _ = self._e_step(blocks, params, weights)
        if fallback is not None and not ll >= fallback[3]:
            params, weights, states, ll, wll, _ = fallback
        return params, weights, states, ll, wll

    def _single_run(
        self,
        blocks: _Blocks,
        rng: np.random.RandomState,
        max_iter: int,
        start: _Run | None = None,
        init: tuple[dict, np.ndarray] | None = None,
        tol: float | None = None,
        accelerate: bool | None = None,
        floor: float | None = None,
    ) -> _Run:
        """EM from a fresh initialisation, from ``init = (params, weights)``, or continued
        from the state of ``start``; ``tol`` overrides ``self.tol``, ``accelerate`` (None:
        the estimator's) switches SQUAREM. ``floor``: abandon the run (``abandoned=True``,
        not converged) once it cannot reach this log-likelihood, by the rule of
        :func:`_cannot_reach`.

        Every iteration is one E-step. With ``accelerate`` (the default), after two plain EM
        steps ``x0 -> x1 -> x2`` that moved no discrete parameter, the continuous parameters
        are extrapolated (SQUAREM, see :func:`_squarem_point`) and the E-step of the
        extrapolated point ``x'`` decides: it is kept only if its (penalised)
        log-likelihood is at least that of ``x2``, else EM goes on from ``x2``. So the
        log-likelihood of the kept point never decreases, and the run stops by the same
        rule as plain EM: one plain EM step gains at most ``tol`` per ranking and no
        discrete parameter moved.
        """
        tol = self.tol if tol is None else tol
        if accelerate is None:
            accelerate = bool(getattr(self, "accelerate", False))
        params, weights, history, n_done, n_reseeded = self._run_start(blocks, rng, start, init)
        total = blocks.total
        converged = False
        changed = True
        ll_old = -np.inf
        n_iter = 0
        # SQUAREM: the points of the current cycle (plain EM steps, no discrete move), and
        # the E-step of x2 to fall back on while an extrapolated point is being evaluated
        cycle: list[np.ndarray] = []
        fallback: tuple | None = None
        gains: list[float] = []  # gains of successive plain EM steps (no discrete move)
        plain_step = False  # the current point is a plain EM step from the previous one
        abandoned = False
        for it in range(1, max_iter + 1):
            n_iter = it
            states, ll, wll, nk = self._e_step(blocks, params, weights)
            if fallback is not None:
                # the extrapolated point is kept only if it is at least as likely as x2
                # (a shorter retry, alpha -> (alpha - 1) / 2, cost more E-steps than it saved
                # on SUSHI A)
                if not ll >= fallback[3]:
                    params, weights, states, ll, wll, nk = fallback
                fallback = None
                gains = []
                history.append(ll)
            else:
                history.append(ll)
                if not changed and ll - ll_old <= tol * total:
                    converged = True
                    break
                gains = [*gains[-1:], ll - ll_old] if plain_step else []
                if floor is not None and _cannot_reach(ll, gains, floor):
                    abandoned = True
                    break
            ll_old = ll
            empty = np.flatnonzero(nk <= _EMPTY_SHARE * total)
            reseeded = bool(empty.size)
            if reseeded:
                # re-seed each empty component at the worst-explained ranking: the likelihood
                # may drop at this step, so the history restarts its monotone stretch here
                n_reseeded += empty.size
                params, states, nk = self._reseed_empty(blocks, states, params, empty, rng)
                ll_old = -np.inf
                cycle = []
            elif accelerate:
                cycle.append(self._squarem_pack(params, weights))
                if len(cycle) == 3:
                    step = _squarem_step(*cycle)
                    cycle = []
                    if step is not None:
                        fallback = (params, weights, states, ll, wll, nk)
                        params, weights = self._squarem_unpack(_squarem_point(step), params)
                        continue  # the next E-step evaluates the extrapolated point
            weights = nk / nk.sum()
            params, changed = self._m_step(blocks, states, params, reseeded)
            plain_step = not (changed or reseeded)
            if changed:
                cycle = []  # a discrete move: the continuous map changed, restart the cycle
        else:
            params, weights, states, ll, wll = self._last_e_step(blocks, params, weights, fallback)
            history.append(ll)
        return _Run(
            params=params,
            weights=weights,
            objective=-wll,
            states=states,
            n_iter=n_done + n_iter,
            converged=converged,
            history=history,
            n_reseeded=n_reseeded,
            grown=init is not None or (start is not None and start.grown),
            abandoned=abandoned,
        )

    def fit(
        self, R: Any, y: Any = None, sample_weight: Any = None, *, X: Any = None
    ) -> _RankingMixture:
        """Fit the mixture by EM from ``n_init`` initialisations; keep the most likely run.

        Parameters
        ----------
        R : Rankings, array-like of shape (n, m), or a Dask collection
            Rankings, with or without ties (ties: in memory, not on Dask); array input is
            read as 1-based ranks with 0/NaN for missing and ``kind="top"``. ``R.weights`` (e.g. ballot counts) are used. A
            ``dask.array`` (1-based ranks), a ``dask.bag`` of orderings or a
            :class:`~rankclust.dask.ChunkedRankings` is fitted on Dask (as is any input
            with ``backend="dask"``).
        y : None
            Ignored.
        sample_weight : array-like of float, shape (n,), optional
            Non-negative row weights, multiplied into ``R.weights`` (numpy or Dask).
        X : array-like of shape (n, d), optional
            Respondent covariates, one row per ranking: a *mixture of experts* whose mixing
            weights are a multinomial logit of ``X`` (in memory only; see "Covariates" in
            ``docs/covariates.md`` and :mod:`rankclust.cluster._experts`). Predictions then
            take ``X`` too.

        Returns
        -------
        self
        """
        from rankclust.cluster import _experts

        if X is not None:
            return _experts.fit_experts(self, R, X, sample_weight)
        _experts.drop_gate(self)
        return self._fit(R, sample_weight)

    def _fit(
        self, R: Any, sample_weight: Any, warm: Any = None, starts: Any = None
    ) -> _RankingMixture:
        """:meth:`fit`, plus the starts grown from ``warm`` (a fitted mixture with one
        component fewer, see :meth:`_warm_starts`) when given (used by :func:`select_k`).
        ``starts = (inits, n_fresh)`` replaces the restarts by :meth:`_from_starts` (used
        by the bootstrap of :mod:`rankclust.inference`)."""
        self._validate_params()
        check_kmeanspp_spelling(self.init, type(self).__name__)
        if warm is not None and len(warm.weights_) != self.n_components - 1:
            raise ValueError("warm must be a fitted mixture with n_components - 1 components")
        if self.backend == "dask" or is_dask_collection(R):
            blocks, R, labels_of = self._dask_blocks(R, sample_weight)
        else:
            blocks, R, labels_of = self._memory_blocks(R, sample_weight)
        self._check_data(blocks)
        m = blocks.n_items
        rng = check_random_state(self.random_state)
        # the products of an EM step are small (u x m^2 by m^2 x K): threaded BLAS buys
        # nothing there and, on a loaded machine, costs 5-7x (SUSHI A select_k, 2 cores)
        with threadpool_limits(1, user_api="blas"):
            if starts is None:
                best, search = self._restarts(blocks, rng, warm)
            else:
                best, search = self._from_starts(blocks, rng, *starts, warm=warm)
        self._warn_restarts(search)
        if not best.converged:
            warnings.warn(
                f"{type(self).__name__}: EM did not converge in max_iter={self.max_iter} "
                "iterations in the best of the initialisations; increase max_iter or tol.",
                ConvergenceWarning,
                stacklevel=2,
            )
        if best.n_reseeded:
            warnings.warn(
                f"{type(self).__name__}: {best.n_reseeded} empty component(s) were re-seeded "
                "during EM (fewer well-separated clusters than n_components?)",
                UserWarning,
                stacklevel=2,
            )
        self.n_items_ = m
        self.kind_ = R.kind
        self.items_ = R.items
        order = self._set_common(best)
        w_total = blocks.total
        self.objective_ = -best.log_likelihood
        self.n_parameters_ = self._n_parameters(m)
        self.n_rankings_ = w_total
        self.bic_ = -2.0 * best.log_likelihood + self.n_parameters_ * np.log(w_total)
        self.aic_ = -2.0 * best.log_likelihood + 2.0 * self.n_parameters_
        self.entropy_ = float(
            blocks.ex.sum(_block_entropy, blocks.parts, best.states, order=order)
        )
        self.icl_ = self.bic_ + 2.0 * self.entropy_
        self.n_reseeded_ = best.n_reseeded
        self.n_init_ = search.n_starts
        self.n_init_agreeing_ = search.n_agreeing
        self.restart_gap_ = search.gap
        self.restart_log_likelihoods_ = search.log_likelihoods
        self.log_likelihood_history_ = np.asarray(best.history)
        self.labels_ = labels_of(best, order)
        return self

    def _continue(
        self,
        blocks: _Blocks,
        rng: np.random.RandomState,
        run: _Run,
        tol: float | None = None,
        floor: float | None = None,
    ) -> _Run:
        """``run`` continued to convergence (at ``tol``) within its ``max_iter`` iterations,
        abandoned early when it cannot reach ``floor`` (see :func:`_cannot_reach`)."""
        if run.converged or run.n_iter >= self.max_iter:
            return run
        return self._single_run(
            blocks, rng, self.max_iter - run.n_iter, start=run, tol=tol, floor=floor
        )

    def _continue_all(
        self, blocks: _Blocks, rng: np.random.RandomState, runs: list, finals: list
    ) -> list:
        """``runs`` continued one after the other (most likely first); each one is abandoned
        once it cannot come within ``_ABANDON_RTOL`` of the best of ``finals`` and of the runs
        continued before it (early abandonment; off when ``_abandon`` is False)."""
        out: list[_Run] = []
        for run in runs:
            floor = None
            if self._abandon and (finals or out):
                best = max(r.log_likelihood for r in [*finals, *out])
                floor = best - _ABANDON_RTOL * abs(best)
            out.append(self._continue(blocks, rng, run, floor=floor))
        return out

    def _agreement(
        self, blocks: _Blocks, best: _Run, runs: list, polish: Any
    ) -> tuple[int, float]:
        """(runs that reached ``best``, relative log-likelihood gap to the best run with a
        different partition, ``inf`` if none).

        A run reached the best when its log-likelihood is within ``_AGREE_RTOL`` (relative)
        and its MAP partition matches the best one on all but ``_AGREE_MISMATCH`` of the
        weight, up to relabelling (a (K, K) table summed over the blocks). When the
        log-likelihoods agree but the partitions do not, both runs are first continued with
        the tight tolerance (``polish(run)``): runs stopped at ``tol`` on either side of one
        optimum can still split rankings that sit near a tie differently.
        """
        scale = max(abs(best.log_likelihood), 1e-300)

        def mismatch(a: _Run, b: _Run) -> float:
            table = blocks.ex.sum(_block_contingency, blocks.parts, a.states, b.states)
            return _partition_mismatch(table)

        n_agree, gap = 0, np.inf
        for run in runs:
            rel = (best.log_likelihood - run.log_likelihood) / scale
            same = run is best or mismatch(best, run) <= _AGREE_MISMATCH
            if not same and rel <= _AGREE_RTOL:
                same = mismatch(polish(best), polish(run)) <= _AGREE_MISMATCH
            if same and rel <= _AGREE_RTOL:
                n_agree += 1
            elif not same:
                gap = min(gap, max(rel, 0.0))
        return n_agree, float(gap)

    def _max_init(self, blocks: _Blocks) -> int:
        """``max_init``, or for None: ``_MAX_INIT_CHEAP`` starts when a start is cheap
        (``u m^2 K <= _CHEAP_WORK`` for ``u`` distinct rankings), else ``_MAX_INIT``."""
        if self.max_init is not None:
            return int(self.max_init)
        work = float(blocks.offsets[-1]) * blocks.n_items**2 * self.n_components
        return _MAX_INIT_CHEAP if work <= _CHEAP_WORK else _MAX_INIT

    def _restarts(
        self, blocks: _Blocks, rng: np.random.RandomState, warm: Any
    ) -> tuple[_Run, RestartSearch]:
        """The EM runs of a fit: the kept run and a record of the search (private).

        Every start runs ``init_iter`` EM iterations ("small EM", Biernacki, Celeux & Govaert
        2003); the ``_N_CONTINUE`` most likely short runs not yet continued go on to
        convergence. With ``n_init="auto"`` this is repeated in rounds of ``_AUTO_BATCH``
        fresh starts until ``n_agree`` continued runs reached the best fit (same partition,
        same log-likelihood, see :meth:`_agreement`) or ``max_init`` starts were made; an
        integer ``n_init`` makes one round of that many starts. The best run grown from
        ``warm`` (see :meth:`_warm_starts`) always continues, so the fit is never worse than
        the (K - 1)-component one. The kept run is then continued with ``tol * _POLISH``.
        """
        auto = self.n_init == "auto"
        batch = _AUTO_BATCH if auto else int(self.n_init)
        budget = max(self._max_init(blocks), batch) if auto else batch
        iters = self.max_iter if self.init_iter is None else min(self.init_iter, self.max_iter)
        short = _short_run_acceleration(self)
        pool: list[_Run] = []
        finals: list[_Run] = []
        polished: dict[int, _Run] = {}

        def polish(run: _Run) -> _Run:
            """``run`` continued with ``tol * _POLISH`` (once; a run that did not converge at
            ``tol`` is left as it is)."""
            if not run.converged:
                return run
            if id(run) not in polished:
                more = self._single_run(
                    blocks, rng, self.max_iter, start=run, tol=self.tol * _POLISH
                )
                polished[id(run)] = replace(more, converged=True)
            return polished[id(run)]

        n_starts = 0
        grown_runs: list[_Run] = []
        while True:
            # fresh starts first, so that their random streams do not depend on warm starts
            n_new = min(batch, budget - n_starts)
            pool += [self._single_run(blocks, rng, iters, accelerate=short) for _ in range(n_new)]
            if warm is not None and n_starts == 0:
                grown_runs = [
                    self._single_run(blocks, rng, iters, init=init, accelerate=short)
                    for init in self._warm_starts(blocks, warm, rng)
                ]
                if grown_runs:
                    top = max(grown_runs, key=lambda run: run.log_likelihood)
                    finals.append(self._continue(blocks, rng, top))
                    pool += [run for run in grown_runs if run is not top]
                n_starts += len(grown_runs)
            n_starts += n_new
            pool.sort(key=lambda run: -run.log_likelihood)
            # the first round continues _N_CONTINUE runs, later rounds the best one left
            n_continue = _N_CONTINUE if n_starts <= batch + len(grown_runs) else 1
            finals += self._continue_all(blocks, rng, pool[:n_continue], finals)
            pool = pool[n_continue:]
            for run in pool:
                if not run.converged:
                    run.states = []  # continued from its parameters only: free the memory
            best = max(finals, key=lambda run: run.log_likelihood)
            n_agreeing, gap = self._agreement(blocks, best, finals, polish)
            if not auto or n_agreeing >= self.n_agree or n_starts >= budget:
                break
        best = polish(best)
        search = RestartSearch(
            n_starts=n_starts,
            n_continued=len(finals),
            n_abandoned=sum(run.abandoned for run in finals),
            n_agreeing=n_agreeing,
            gap=gap,
            log_likelihoods=np.sort([run.log_likelihood for run in finals])[::-1],
            auto=auto,
            best_converged=best.converged,
        )
        return best, search

    def _from_starts(
        self,
        blocks: _Blocks,
        rng: np.random.RandomState,
        inits: list,
        n_fresh: int,
        warm: Any = None,
    ) -> tuple[_Run, RestartSearch]:
        """EM to convergence from each ``(params, weights)`` of ``inits`` (e.g. a fitted
        mixture's ``_fitted_params()`` and ``weights_``), plus ``n_fresh`` fresh starts and
        the starts grown from ``warm`` (:meth:`_warm_starts`), ``init_iter`` iterations each,
        of which the ``_N_CONTINUE`` most likely continue; the most likely run is kept (no polish, no
        agreement check). Private: bootstrap refits near a known fit."""
        iters = self.max_iter if self.init_iter is None else min(self.init_iter, self.max_iter)
        short = _short_run_acceleration(self)
        finals = [self._single_run(blocks, rng, self.max_iter, init=init) for init in inits]
        fresh = [self._single_run(blocks, rng, iters, accelerate=short) for _ in range(n_fresh)]
        if warm is not None:
            grown = self._warm_starts(blocks, warm, rng)
            fresh += [
                self._single_run(blocks, rng, iters, init=init, accelerate=short) for init in grown
            ]
        fresh.sort(key=lambda run: -run.log_likelihood)
        finals += self._continue_all(blocks, rng, fresh[:_N_CONTINUE], finals)
        best = max(finals, key=lambda run: run.log_likelihood)
        search = RestartSearch(
            n_starts=len(inits) + len(fresh),
            n_continued=len(finals),
            n_abandoned=sum(run.abandoned for run in finals),
            n_agreeing=1,
            gap=np.inf,
            log_likelihoods=np.sort([run.log_likelihood for run in finals])[::-1],
            auto=False,
            best_converged=best.converged,
        )
        return best, search

    def _warn_restarts(self, search: RestartSearch) -> None:
        """The warnings of :meth:`_restarts`: too few agreeing starts, or a near tie."""
        name = type(self).__name__
        if search.auto:
            warn_auto_restarts(
                name,
                search.n_agreeing,
                search.n_continued,
                search.n_starts,
                self.n_agree,
                stacklevel=4,
            )
        warn_near_tie(name, search.gap, stacklevel=4)

    def _n_parameters(self, m: int) -> float:
        return (self.n_components - 1) + self.n_components * self._n_free(m)

    def _component_loglik(self, data: Any, params: dict) -> np.ndarray:
        """Log-likelihood of every compiled ranking under every component, shape (u, K)."""
        return self._loglik_and_cache(data, params)[0]

    def _chunk_labels(
        self, R: Rankings, params: dict, weights: np.ndarray, order: np.ndarray
    ) -> np.ndarray:
        """``labels_`` of one chunk of the training rows (the fit's final E-step, per row)."""
        with np.errstate(divide="ignore"):
            log_weights = np.log(weights)
        state = self._block_e_step(self._prepare(R.with_weights(None)), params, log_weights)
        return np.argmax(state.resp[:, order], axis=1)

    # ---------------------------------------------------------------- prediction
    def _estimate_joint(self, R: Any, X: Any = None) -> np.ndarray:
        """``log weights_k + log P_k(R_i)`` (with covariates: ``log pi_k(X_i)``), (n, K)."""
        if X is not None or self._has_gate():
            from rankclust.cluster._experts import experts_joint

            return experts_joint(self, R, X)
        R = self._check_input(R, reset=False)
        Ru, inverse = R.with_weights(None).unique()
        data = self._prepare(Ru)
        with np.errstate(divide="ignore"):
            joint = self._component_loglik(data, self._fitted_params()) + np.log(self.weights_)
        return joint[inverse]

    def _map_dask(self, R: Any, method: str, tail: tuple, dtype: Any) -> Any:
        """``getattr(self, method)`` per chunk of a Dask input, as a ``dask.array``."""
        check_is_fitted(self, ["weights_"])
        return map_method(self, R, method, tail, dtype)

    def score_samples(self, R: Any, X: Any = None) -> np.ndarray:
        """Log-likelihood of every ranking under the fitted mixture, shape (n,).

        A Dask input gives a ``dask.array`` (computed per chunk); so do ``predict`` and
        ``predict_proba``.
        """
        if is_dask_collection(R):
            return self._map_dask(R, "score_samples", (), np.float64)
        return logsumexp(self._estimate_joint(R, X), axis=1)

    def score(self, R: Any, y: Any = None, X: Any = None) -> float:
        """Mean log-likelihood per ranking (weighted by ``R.weights``; given ``X`` with
        covariates)."""
        if is_dask_collection(R):
            check_is_fitted(self, ["weights_"])
            CR = as_chunked(R, kind=self.kind_)
            total, weight = DaskExecutor().sum(_weighted_score, CR.chunks, est=self)
            return float(total / weight)
        R = self._check_input(R, reset=False)
        return float(np.average(self.score_samples(R, X), weights=R.weights))

    def predict_proba(self, R: Any, X: Any = None) -> np.ndarray:
        """Posterior component probabilities of every ranking (given its covariates ``X``
        for a mixture fitted with them), shape (n, K)."""
        if is_dask_collection(R):
            return self._map_dask(R, "predict_proba", (self.n_components,), np.float64)
        joint = self._estimate_joint(R, X)
        return np.exp(joint - logsumexp(joint, axis=1)[:, None])

    def predict(self, R: Any, X: Any = None) -> np.ndarray:
        """Most probable component of every ranking (given ``X`` with covariates), (n,)."""
        if is_dask_collection(R):
            return self._map_dask(R, "predict", (), np.int64)
        return np.argmax(self._estimate_joint(R, X), axis=1)

    def fit_predict(
        self, R: Any, y: Any = None, sample_weight: Any = None, *, X: Any = None
    ) -> np.ndarray:
        """``fit(R, X=X).labels_``."""
        return self.fit(R, sample_weight=sample_weight, X=X).labels_

    def _centers_rankings(self, positions: np.ndarray) -> Rankings:
        return Rankings._from_trusted(positions, kind="subset", items=self.items_)

    def _validate_loaded_state(self) -> None:
        """Check the state of a model read by :func:`rankclust.persistence.load`."""
        if not loaded.is_fitted(self):
            return
        m = loaded.int_attr(self, "n_items_", low=1)
        k = self.n_components
        loaded.kind_attr(self)
        loaded.items_attr(self, n_items=m)
        loaded.array_attr(self, "weights_", shape=(k,), low=0.0)
        loaded.array_attr(self, "labels_", kind="i", ndim=1, low=0, high=k - 1)
        self._validate_loaded_params(m, k)
        from rankclust.cluster._experts import validate_loaded_gate

        validate_loaded_gate(self, k)


def _weighted_score(R: Rankings, est: Any) -> tuple[float, float]:
    w = R.weights
    return float(w @ est.score_samples(R)), float(w.sum())


# --------------------------------------------------------------------------------------------
# Mallows mixture
# --------------------------------------------------------------------------------------------
@dataclass
class _MallowsData:
    """Distinct rankings compiled once per fit (private)."""

    R: Rankings
    ranks: np.ndarray
    w: np.ndarray
    lengths: np.ndarray
    kind: str
    pairs: np.ndarray | None  # (u, m*m) pair indicators, or None above _PAIR_MATRIX_MAX
    # rankings with ties: (u, m + 1) coefficients of log psi_b in the row's log-likelihood
    # (its buckets minus its normaliser, see _tied_coefficients); None without ties
    tie_coef: np.ndarray | None = None
    # (u, m) items by position when no row has ties: the E/M statistics are then computed
    # from the orderings (O(u K t^2) compiled) instead of products with ``pairs``
    orders: np.ndarray | None = None


def _tied_coefficients(Ru: Rankings) -> np.ndarray:
    """Per row, the coefficients ``a_b`` of ``log psi_b`` in its tied log-likelihood.

    A tied row has log-likelihood ``-theta s + sum_b a_b log psi_b(theta)`` with ``a`` its
    bucket-size counts (:func:`~rankclust.models._mallows_ties.bucket_size_counts`: the
    absent items of a top list form one more bucket) minus one at the normaliser's size:
    ``m`` for ``kind="top"`` (the closed form of :mod:`rankclust.models._mallows_ties`), the
    number of present items for ``kind="subset"`` (the observed-pairs model of the mixture:
    the Mallows model on the present items, with its buckets read as unknown orders). An
    untied row gets the mixture's own normaliser (``Z_t``), so tied and untied rows share one
    formula. Shape (u, m + 1).
    """
    coef = -bucket_size_counts(Ru)
    size = np.full(Ru.n_rankings, Ru.n_items) if Ru.kind == "top" else Ru.lengths
    coef[np.arange(Ru.n_rankings), size] += 1.0
    return -coef


@dataclass
class _DistanceData:
    """Distinct rankings of a mixture under a distance other than Kendall (private).

    ``R`` are the distinct rows (``orders`` serve the k-means++ seeding, which uses Kendall's
    statistic). ``comp`` holds complete rankings: the rows themselves when all are complete
    (``owner`` None), else every consistent completion of every row, grouped by row
    (``owner[c]`` the row of completion c, ``starts`` the first completion of each row).
    """

    R: Rankings
    ranks: np.ndarray  # (u, m) the rows' positions (-1 absent)
    w: np.ndarray
    orders: np.ndarray | None
    comp: Rankings  # complete rankings (the rows, or their completions)
    comp_ranks: np.ndarray  # (n_c, m) int64 positions of ``comp``
    owner: np.ndarray | None = None  # (n_c,) row of each completion
    starts: np.ndarray | None = None  # (u,) first completion of each row
    pairs: None = None


def _distance_data(Ru: Rankings) -> _DistanceData:
    """The distinct rows and, for partial ones, all their completions (within the cap,
    checked at the input boundary)."""
    orders = row_orders(Ru.ranks, Ru.lengths)
    m = Ru.n_items
    lengths = Ru.lengths
    if (lengths == m).all():
        ranks = np.asarray(Ru.ranks, dtype=np.int64)
        return _DistanceData(
            R=Ru, ranks=Ru.ranks, w=Ru.weights, orders=orders, comp=Ru, comp_ranks=ranks
        )
    # completions per row depend on its length only; all of them are held at once
    _, first, count = np.unique(lengths, return_index=True, return_counts=True)
    total = sum(
        n_completions(np.asarray(Ru.ranks[i]), Ru.kind) * int(c)
        for i, c in zip(first, count, strict=True)
    )
    if total > EM_TOTAL_CAP:
        raise ValueError(
            f"R: the {len(lengths)} distinct rankings have {total} completions in all (limit "
            f"{EM_TOTAL_CAP}); a mixture with a distance other than Kendall sums over them "
            "exactly: use fewer or longer rankings, or distance='kendall'"
        )
    blocks = [
        completions(row, Ru.kind) if t < m else row[None, :].astype(np.int64)
        for row, t in zip(np.asarray(Ru.ranks, dtype=np.int64), lengths, strict=True)
    ]
    sizes = np.array([len(b) for b in blocks], dtype=np.int64)
    ranks = np.ascontiguousarray(np.concatenate(blocks), dtype=np.int64)
    return _DistanceData(
        R=Ru,
        ranks=Ru.ranks,
        w=Ru.weights,
        orders=orders,
        comp=Rankings._from_trusted(ranks, kind="subset"),
        comp_ranks=ranks,
        owner=np.repeat(np.arange(len(blocks)), sizes),
        starts=np.concatenate([[0], np.cumsum(sizes)[:-1]]),
    )


def _family_distances(family: Any, R: Rankings, centers: np.ndarray) -> np.ndarray:
    """(u, K) float64 distances of complete rankings to complete centres (positions)."""
    return np.stack([np.asarray(family.distances(R, c), dtype=np.float64) for c in centers], 1)


@functools.cache
def _takes_init(fn: Any) -> bool:
    """Whether a family's centre estimator takes a warm start ``init=``."""
    try:
        return "init" in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


def _family_center(family: Any, ranks: np.ndarray, w: np.ndarray, previous: np.ndarray) -> Any:
    """The family's weighted centre; its local search (where it has one) starts from the
    previous centre (``init=``), as a generalised-EM step should."""
    if _takes_init(family.estimate_center):
        out = family.estimate_center(ranks, w, init=previous)
    else:
        out = family.estimate_center(ranks, w)
    return np.asarray(out, dtype=np.int64)


def _solve_theta(
    family: Any, mean: float, m: int, start: float, theta_max: float, xtol: float = 1e-12
) -> float:
    """The dispersion MLE of a weighted mean distance: the root of ``E_theta d = mean`` on
    ``[0, theta_max]`` (the score equation of
    :class:`rankclust.models.Mallows`), by safeguarded Newton from the
    previous dispersion ``start`` (the derivative is ``-Var_theta d``; a step outside the
    bracket is replaced by bisection). EM's dispersions move little between iterations, so
    this takes a few evaluations where a bracketing solver from scratch takes 15 or more.
    0 when ``mean >= E_0 d``, ``theta_max`` when ``mean <= E_{theta_max} d``."""
    lo, hi = 0.0, theta_max
    t = min(max(float(start), lo), hi)
    for _ in range(200):
        g = float(family.expected_distance(t, m)) - mean  # decreasing in theta
        if g == 0.0:
            return t
        if g > 0:
            lo = t
        else:
            hi = t
        var = float(family.distance_variance(t, m))
        new = t + g / var if var > 0 else 0.5 * (lo + hi)
        if not lo < new < hi:
            # the root is at a bound when the bound itself is on the wrong side
            edge = hi if new >= hi else lo
            if edge in (0.0, theta_max) and edge != t:
                g_edge = float(family.expected_distance(edge, m)) - mean
                if (edge == theta_max and g_edge >= 0) or (edge == 0.0 and g_edge <= 0):
                    return edge
            new = 0.5 * (lo + hi)
        if abs(new - t) <= xtol * max(1.0, t) or hi - lo <= xtol * max(1.0, lo):
            return new
        t = new
    return t


def _check_distance_rows(R: Rankings, distance: str) -> Rankings:
    """The rows a distance other than Kendall can fit: no ties, and at most
    ``COMPLETION_CAP`` consistent completions per partial row (its exact likelihood sums
    over them); the first other row is refused in one line."""
    if R.has_ties.any():
        row = int(np.flatnonzero(R.has_ties)[0])
        raise ValueError(
            f"R: row {row} has tied items; MallowsMixture(distance={distance!r}) fits "
            "rankings without ties (distance='kendall' fits ties)"
        )
    over = first_row_over_cap(R)
    if over is not None:
        row, t, n = over
        raise ValueError(
            f"R: row {row} ranks {t} of {R.n_items} items, {n} completions; "
            f"MallowsMixture(distance={distance!r}) sums over at most {COMPLETION_CAP} "
            "per partial ranking (distance='kendall' fits any partial ranking)"
        )
    return R


@_with_restart_doc
class MallowsMixture(_RankingMixture):
    """Mixture of Mallows models (Kendall's distance, or another) for heterogeneous (partial)
    rankings, fitted by EM.

    Component ``k`` has a central ranking ``sigma_k``, a dispersion ``theta_k`` and a weight
    ``c_k``. A ranking ``pi`` of length ``t`` has likelihood

    ``Q(pi) = sum_k c_k exp(-theta_k s(pi, sigma_k)) / Z_t(theta_k)``

    * ``kind="top"`` (a top-t list; absent items rank below): ``s = s^t`` counts the
      discordant pairs among the listed items and between a listed and an unlisted item,
      ``Z_t = psi^t`` (Busse et al. 2007, eqs. 9-10). This is the probability of the set of
      all completions of the list (the maximum-entropy treatment), exact for every length;
      complete rankings are the case ``t = m`` (Murphy & Martin's mixture).
    * ``kind="subset"`` (a ranking of some items; the others unknown): the **observed-pairs
      likelihood** -- the Mallows model on the observed items with the centre restricted to
      them, ``s`` = discordant observed pairs, ``Z_t = psi_t`` (the normaliser over ``t!``
      orderings). It is a proper distribution over the orderings of each observed item set,
      but not the marginal of the full Mallows model (which
      :func:`rankclust.models.mallows.mallows_loglik` computes exactly, at exponential cost),
      and it equals the exact model for complete rankings.

    The lengths are conditioned on (not modelled). **Ties**: a tied bucket is an order that
    was not recorded, so a tied ranking has the total probability of its linear extensions,
    ``exp(-theta_k D) prod_B psi_|B|(theta_k) / psi_n(theta_k)`` (``D`` the discordant pairs
    in different buckets; the unlisted items of a top-t list are one more bucket; ``n = m``
    for top-t lists, the listed items for subsets); the centre step uses the strict pairwise
    counts and theta the tied score equation (see "Ties" in ``docs/mixtures.md``).

    Parameters
    ----------
    n_components : int, default=2
        Number of components K.
    distance : str, default="kendall"
        The distance of every component, a key of
        :data:`rankclust.models._MALLOWS_DISTANCES` (``"kendall"``,
        ``"spearman"``, ``"footrule"``, ...). ``"kendall"`` is the model described above
        (top-t, subset and tied rankings). Any other distance fits rankings without ties:
        component ``k`` has likelihood ``exp(-theta_k d(pi, sigma_k)) / psi_d(theta_k)`` with
        the family's exact normaliser, and a partial row (top-t or subset) the exact sum of
        it over its consistent completions (at most ``COMPLETION_CAP`` = 8! = 40,320 per
        row; a row with more, or with ties, is refused naming it). The M-step is EM over
        the completions: the family's weighted centre estimator with weights
        ``w_i q_ik P_k(pi | row i)`` (accepted only if it lowers the weighted distance sum,
        so EM stays monotone) and the family's dispersion MLE of the weighted mean distance
        (``center_method`` applies to Kendall only). Seeding uses Kendall's statistic for
        every distance. In memory only (``backend="numpy"``). See "Other distances" in
        ``docs/mixtures.md``.
    center_method : {"auto", "exact", "local", "adjacent"}, default="auto"
        Centre step of the M-step, on the responsibility-weighted pairwise count matrix
        ``C_k`` (the centre minimises the Kemeny cost ``sum_i q_ik s(pi_i, sigma)``):
        ``"exact"`` -- exact Kemeny (:func:`~rankclust.consensus.kemeny_exact`, m <= 15), a
        true M-step; ``"local"`` -- insertion local search from the previous centre and from
        the Borda ranking, the better kept (a generalised-EM step); ``"adjacent"`` -- the
        paper's step: one best adjacent transposition of the previous centre per iteration;
        ``"auto"`` -- exact up to 10 items, local beyond (the package-wide rule,
        :func:`rankclust.consensus.resolve_center_method`). A new centre is
        accepted only if it lowers the Kemeny cost, so the log-likelihood never decreases.
    init : {"k-means++", "random"}, default="k-means++"
        Starting centres: greedy k-means++ seeding on the Kendall statistic (data rankings,
        completed at random; the first seed favours long rankings), or uniformly random
        permutations (Busse et al.). Dispersions start at ``theta_init``, weights at ``1/K``.
        The old spelling ``"kmeans++"`` is accepted with a ``FutureWarning``.
    {restart_parameters}
    max_iter : int, default=500
        Maximum number of EM iterations per run.
    tol : float, default=1e-6
        Stop when the log-likelihood rises by at most ``tol`` per ranking in one iteration
        and no centre moved.
    init_iter : int or None, default=5
        "Small EM" (Biernacki, Celeux & Govaert 2003): every start runs only ``init_iter``
        EM iterations before the most likely ones continue to convergence. None runs every
        start to convergence (classic restarts; slower).
    theta_init : float, default=1.0
        Initial dispersion of every component.
    theta_max : float, default=THETA_MAX (50)
        Cap of the dispersions (the MLE is infinite when a component's rankings all agree
        with its centre).
    center_dof : float, default=0.0
        Parameters counted per central ranking in BIC/AIC/ICL. The paper's default counts
        only weights and dispersions (``2K - 1``); the centres are discrete, and 1 or
        ``m - 1`` per centre are common alternatives (decisions.md B4).
    accelerate : bool, default=True
        SQUAREM acceleration of EM (Varadhan & Roland 2008): after two EM steps that moved
        no central ranking, the weights and dispersions are extrapolated along the EM
        path, and the extrapolated point is kept only if its log-likelihood is at least that of the
        plain step, so the log-likelihood still never decreases. It reaches the same
        optimum in several times fewer iterations (see "Speed" in ``docs/mixtures.md``);
        the stopping rule is unchanged, so fits end closer to the optimum (equal or higher
        log-likelihood). False runs plain EM (the iterates of earlier versions).
    backend : {"numpy", "dask"}, default="numpy"
        ``"numpy"`` fits in memory; ``"dask"`` runs the E-step per chunk of rankings and
        sums the M-step's sufficient statistics across chunks on Dask (the active
        ``dask.distributed`` client, else Dask's default scheduler); needs
        ``pip install rankclust[dask]``. A Dask input (``dask.array`` of 1-based ranks,
        ``dask.bag`` of orderings, :class:`~rankclust.dask.ChunkedRankings`) always runs
        on Dask. Both give the same fit for the same ``random_state`` (same seeds, same
        labels; parameters equal up to the order of floating-point sums), see
        ``docs/scaling.md``.
    random_state : int, RandomState instance or None, default=None
    gate_penalty : float, default=1.0
        Only for ``fit(R, X=...)`` (a mixture of experts): ridge penalty
        ``gate_penalty / 2 * |slopes|^2`` on the gate's slopes of the standardised
        covariates (intercepts unpenalised).

    Attributes
    ----------
    centers_ : Rankings, shape (K, n_items_)
        Central rankings (complete, ``kind="subset"``, item names of the data), sorted with
        the components by decreasing weight.
    thetas_ : ndarray of float64, shape (K,)
        Dispersions.
    weights_ : ndarray of float64, shape (K,)
        Mixing proportions (decreasing).
    labels_ : ndarray of int64, shape (n,)
        Most probable component of each training ranking (a ``dask.array``, persisted in
        the cluster, when fitted on Dask).
    log_likelihood_ : float
        Observed-data log-likelihood of the training data (weights counted).
    objective_ : float
        ``-log_likelihood_`` (the clustering objective of
        :func:`rankclust.cluster.randomization_test`; smaller is better).
    bic_, aic_, icl_ : float
        ``-2 ll + p log n``, ``-2 ll + 2 p``, and ``bic_ + 2 * entropy_`` (ICL-BIC of
        Biernacki et al. 2000); ``n`` is the total weight (number of ballots).
    entropy_ : float
        ``-sum_i w_i sum_k q_ik log q_ik`` of the responsibilities.
    n_parameters_ : float
        ``p = (K - 1) + K (1 + center_dof)``.
    n_rankings_ : float
        Total weight of the training rankings.
    n_iter_ : int
        EM iterations of the best run.
    converged_ : bool
    n_reseeded_ : int
        Empty components re-seeded during the best run (a warning is emitted when > 0).
    n_init_ : int
        Starts made (fresh, and grown from the K - 1 fit in :func:`select_k`).
    n_init_agreeing_ : int
        Runs continued to convergence that reached the kept fit (itself included).
    restart_gap_ : float
        Relative log-likelihood gap between the kept fit and the best continued run with a
        different partition (``inf`` if there is none); at most 1e-4 gives a warning.
    restart_log_likelihoods_ : ndarray of float64
        Log-likelihoods of the runs continued to convergence, decreasing.
    log_likelihood_history_ : ndarray
        Log-likelihood after every E-step of the best run (non-decreasing unless a
        component was re-seeded).
    n_items_ : int
    kind_ : {"top", "subset"}
    items_ : tuple of str or None
    gate_coef_ : ndarray of float64, shape (K, d + 1)
        Only after ``fit(R, X=...)``: the gate's coefficients on the original scale of
        ``X`` (intercept, then one slope per covariate), ``pi_k(x) =
        softmax_k(gate_coef_[k] . [1, x])``; row 0 (the reference component) is zero.
        ``weights_`` are then the mean gate probabilities over the training rows.
    gate_coef_se_ : ndarray of float64, shape (K, d + 1)
        Their standard errors (observed information, Louis's formula, penalty included;
        row 0 zero); ``gate_vcov_`` the covariance of ``gate_coef_[1:].ravel()``.
    gate_mean_, gate_scale_ : ndarray of float64, shape (d,)
        The standardisation of ``X`` inside the fit (the ridge acts on standardised slopes).
    n_features_in_, plain_log_likelihood_, gate_n_init_, gate_n_agreeing_, gate_log_likelihoods_
        Number of covariates; the plain mixture's log-likelihood (the start); the gate EM
        starts, how many reached the kept fit, their log-likelihoods.

    See Also
    --------
    PlackettLuceMixture, select_k, rankclust.models.mallows.Mallows

    Notes
    -----
    E-step: ``log q_ik = log c_k - theta_k s_ik - log Z_{t_i}(theta_k) - logsumexp_k(...)``.
    M-step: ``c_k = sum_i w_i q_ik / sum_i w_i``; ``sigma_k`` minimises the Kemeny cost of
    ``C_k = sum_i w_i q_ik A_i`` (``A_i`` the pairwise matrix of ranking i, present above
    absent for top lists), which does not depend on ``theta_k`` (Busse et al., eq. 12);
    ``theta_k`` solves the weighted eq. (14),
    ``sum_t N_kt mu_t(theta) = sum_i w_i q_ik s(pi_i, sigma_k)`` with
    ``N_kt = sum_{i: t_i = t} w_i q_ik``, by safeguarded Newton (the derivative is minus the
    variance of the statistic). No sum over ``m!`` rankings appears anywhere.

    Complexity: O(n m log m) to merge identical rankings, then per iteration
    O(u t^2 K) time for u distinct rankings of length t (statistics and pair counts
    compiled from the orderings) plus the centre steps (O(2^m m K) exact, O(m^2 K) per
    local-search sweep) and O(K m) per Newton step; O(u m + u K + K m^2) memory. Another
    ``distance``: O(n_c m K) per iteration for the n_c complete rankings (distinct complete
    rows plus the completions of partial ones; O(n_c m log m K) for Ulam), plus the family's
    centre estimator per component; O(n_c (m + K)) memory. Times the iterations of all
    starts (``init_iter`` per start, plus the continued runs).

    References
    ----------
    Busse, Orbanz and Buhmann (2007), ICML, Secs. 3-4; Murphy and Martin (2003);
    Fligner and Verducci (1986).

    Examples
    --------
    >>> from rankclust.datasets import make_mallows_mixture
    >>> from rankclust.cluster.mixture import MallowsMixture
    >>> R, y = make_mallows_mixture(600, 6, 2, centers=[[0, 1, 2, 3, 4, 5], [5, 4, 3, 2, 1, 0]],
    ...                             thetas=1.0, lengths=(1, 6), kind="top", random_state=0)
    >>> mix = MallowsMixture(n_components=2, random_state=0).fit(R)
    >>> mix.centers_.to_orderings()  # doctest: +SKIP
    [[0, 1, 2, 3, 4, 5], [5, 4, 3, 2, 1, 0]]
    >>> sorted(mix.centers_.to_orderings())
    [[0, 1, 2, 3, 4, 5], [5, 4, 3, 2, 1, 0]]
    >>> [round(float(t), 1) for t in mix.thetas_]  # doctest: +SKIP
    [1.0, 1.0]
    """

    # the block's counts, their sum and the M-step's copies (issue #16: a 47-byte file
    # declaring 20,000 items reached 11.5 GB, about 3.6 arrays of 3.2 GB)
    _pairwise_copies = 4

    _parameter_constraints: dict = {  # noqa: RUF012 - read-only class table
        **_RankingMixture._parameter_constraints,
        "center_method": [StrOptions(set(MIXTURE_CENTER_METHODS))],
        "theta_init": [Interval(numbers.Real, 0, None, closed="neither")],
        "theta_max": [Interval(numbers.Real, 0, None, closed="neither")],
        "center_dof": [Interval(numbers.Real, 0, None)],
        "distance": [StrOptions(set(MALLOWS_DISTANCES))],
    }

    def __init__(
        self,
        n_components: int = 2,
        *,
        distance: str = "kendall",
        center_method: str = "auto",
        init: str = KMEANSPP,
        n_init: int | str = "auto",
        max_init: int | None = None,
        n_agree: int = 3,
        max_iter: int = 500,
        tol: float = 1e-6,
        init_iter: int | None = 5,
        theta_init: float = 1.0,
        theta_max: float = THETA_MAX,
        center_dof: float = 0.0,
        accelerate: bool = True,
        backend: str = "numpy",
        random_state: Any = None,
        gate_penalty: float = 1.0,
    ) -> None:
        self.n_components = n_components
        self.distance = distance
        self.center_method = center_method
        self.init = init
        self.n_init = n_init
        self.max_init = max_init
        self.n_agree = n_agree
        self.max_iter = max_iter
        self.tol = tol
        self.init_iter = init_iter
        self.theta_init = theta_init
        self.theta_max = theta_max
        self.center_dof = center_dof
        self.accelerate = accelerate
        self.backend = backend
        self.random_state = random_state
        self.gate_penalty = gate_penalty

    # ---------------------------------------------------------------- other distances
    def _check_input(self, R: Any, *, reset: bool) -> Rankings:
        R = super()._check_input(R, reset=reset)
        if self.distance == "kendall":
            return R
        return _check_distance_rows(R, self.distance)

    def _dask_blocks(self, R: Any, sample_weight: Any) -> tuple[_Blocks, Any, Any]:
        if self.distance != "kendall":
            raise ValueError(
                f"MallowsMixture(distance={self.distance!r}) fits in memory only "
                '(backend="numpy", an in-memory Rankings); the Dask back-end fits Kendall'
            )
        return super()._dask_blocks(R, sample_weight)

    def _distance_loglik(self, data: _DistanceData, params: dict) -> tuple[np.ndarray, Any]:
        """(u, K) log-likelihoods ``log sum_{pi in E(row)} exp(-theta_k d(pi, sigma_k)) -
        log psi(theta_k)`` (one term for a complete row), and the by-product for the M-step:
        the (n_c, K) distances of the completions and, for partial data, the log-probability
        of each completion given its row."""
        family = MALLOWS_DISTANCES[self.distance]
        thetas = params["thetas"]
        m = data.comp_ranks.shape[1]
        dists = _family_distances(family, data.comp, params["centers"])
        log_psi = np.array([float(family.log_normalizer(t, m)) for t in thetas])
        a = -thetas[None, :] * dists
        if data.owner is None:
            return a - log_psi[None, :], (dists, None)
        top = np.maximum.reduceat(a, data.starts, axis=0)  # (u, K)
        row = top + np.log(np.add.reduceat(np.exp(a - top[data.owner]), data.starts, axis=0))
        return row - log_psi[None, :], (dists, a - row[data.owner])

    def _distance_m_step(
        self, blocks: _Blocks, states: list, params: dict, reseeded: bool
    ) -> tuple[dict, bool]:
        """M-step for a distance other than Kendall (in memory: one block).

        Per component, with weights ``w_i q_ik`` on the complete rows and
        ``w_i q_ik P_k(pi | row i)`` on the completions ``pi`` of a partial row (EM over the
        completions): the family's centre estimator, accepted only if it lowers the
        weighted distance sum (a generalised-EM step), then theta the MLE of the weighted
        mean distance to the centre.
        """
        family = MALLOWS_DISTANCES[self.distance]
        data, state = blocks.parts[0], states[0]
        m = blocks.n_items
        old = params["centers"]
        # the E-step's by-product belongs to the current parameters unless a component was
        # re-seeded since
        cache = state.cache
        if reseeded or cache is None:
            cache = self._distance_loglik(data, params)[1]
        dists, log_post = cache
        centers = old.copy()
        thetas = np.empty(len(old))
        changed = False
        for k in range(len(old)):
            wk = data.w * state.resp[:, k]
            if data.owner is not None:
                wk = wk[data.owner] * np.exp(log_post[:, k])
            d = dists[:, k]
            new = _family_center(family, data.comp_ranks, wk, old[k])
            if not np.array_equal(new, old[k]):
                d_new = _family_distances(family, data.comp, new[None, :])[:, 0]
                cost_old, cost_new = wk @ d, wk @ d_new
                if cost_new < cost_old - 1e-12 * max(1.0, abs(cost_old)):
                    centers[k], d, changed = new, d_new, True
            total = wk.sum()
            mean = float(wk @ d / total) if total > 0 else 0.0
            thetas[k] = _solve_theta(family, mean, m, params["thetas"][k], float(self.theta_max))
        return {"centers": centers, "thetas": thetas}, changed

    # ---------------------------------------------------------------- model pieces
    def _prepare(self, Ru: Rankings) -> _MallowsData:
        if self.distance != "kendall":
            return _distance_data(Ru)
        u, m = Ru.shape
        orders = row_orders(Ru.ranks, Ru.lengths)
        pairs = None
        if orders is None and u * m * m <= _PAIR_MATRIX_MAX:
            pairs = pair_indicators(Ru.ranks, Ru.kind)
        return _MallowsData(
            R=Ru,
            ranks=Ru.ranks,
            w=Ru.weights,
            lengths=Ru.lengths,
            kind=Ru.kind,
            pairs=pairs,
            tie_coef=_tied_coefficients(Ru) if Ru.has_ties.any() else None,
            orders=orders,
        )

    def _n_free(self, m: int) -> float:
        return 1.0 + self.center_dof

    def _init_params(self, blocks: _Blocks, seeds: np.ndarray, rng: Any) -> dict:
        return {"centers": seeds, "thetas": np.full(len(seeds), float(self.theta_init))}

    def _seed_component(self, params: dict, k: int, positions: np.ndarray) -> dict:
        centers = params["centers"].copy()
        centers[k] = positions
        thetas = params["thetas"].copy()
        thetas[k] = float(self.theta_init)
        return {"centers": centers, "thetas": thetas}

    def _modal_positions(self, params: dict) -> np.ndarray:
        return params["centers"]

    def _continuous_vector(self, params: dict) -> np.ndarray:
        return np.asarray(params["thetas"], dtype=np.float64)

    def _with_continuous(self, params: dict, vec: np.ndarray) -> dict:
        # the dispersions live in [0, theta_max] (the bounds of the M-step's solver)
        return {"centers": params["centers"], "thetas": np.clip(vec, 0.0, float(self.theta_max))}

    def _statistics(self, data: _MallowsData, centers: np.ndarray) -> np.ndarray:
        """Discordant pairs of every distinct ranking with every centre, shape (u, K)."""
        if data.orders is not None:
            return order_statistics(data.orders, data.lengths, data.kind == "top", centers)
        if data.pairs is not None:
            return data.pairs @ discordance_matrix(centers)
        return np.stack([kendall_distances(data.R, c) for c in centers], axis=1).astype(float)

    def _loglik_and_cache(self, data: _MallowsData, params: dict) -> tuple[np.ndarray, Any]:
        if self.distance != "kendall":
            return self._distance_loglik(data, params)
        m = data.ranks.shape[1]
        if data.orders is not None and data.tie_coef is None:  # one compiled pass
            (log_z,) = length_tables(params["thetas"], m, data.kind, ("log",))
            top = data.kind == "top"
            loglik = order_logliks(
                data.orders, data.lengths, top, params["centers"], params["thetas"], log_z
            )
            return loglik, None
        stats = self._statistics(data, params["centers"])
        if data.tie_coef is not None:  # ties: -theta s + sum_b a_b log psi_b
            (log_psi,) = length_tables(params["thetas"], m, "subset", ("log",))  # (m + 1, K)
            return -params["thetas"][None, :] * stats + data.tie_coef @ log_psi, None
        (log_z,) = length_tables(params["thetas"], m, data.kind, ("log",))  # (m + 1, K)
        return -params["thetas"][None, :] * stats - log_z[data.lengths], None

    def _center_step(self, C: np.ndarray, previous: np.ndarray) -> np.ndarray:
        method = resolve_center_method(self.center_method, C.shape[0])
        if method != "local":
            return CENTER_METHODS[method](C, previous)
        # a second start from Borda: the cheaper of the two local optima is kept
        return best_local_center(C, previous)

    def _m_stats(self, data: _MallowsData, state: _BlockState) -> tuple[np.ndarray, np.ndarray]:
        """Sufficient statistics of one block: counts ``C_k`` (K, m, m) and ``N_kt`` (K, m+1)."""
        m = data.ranks.shape[1]
        resp = state.resp
        k_comp = resp.shape[1]
        wq = data.w[:, None] * resp
        if data.orders is not None:
            return order_counts(data.orders, data.lengths, data.kind == "top", wq)
        if data.pairs is not None:
            counts = (data.pairs.T @ wq).T.reshape(k_comp, m, m)
        else:
            counts = data.R.pairwise_counts(weights=resp)
        length_counts = np.stack(
            [np.bincount(data.lengths, weights=wq[:, k], minlength=m + 1) for k in range(k_comp)]
        )
        return counts, length_counts

    def _tied_m_stats(self, data: _MallowsData, state: _BlockState) -> tuple:
        """:meth:`_m_stats` of tied data: counts ``C_k``, the coefficients of ``mu_b`` in the
        tied score equation (K, m + 1) (``-sum_i w_i q_ik a_ib``, ``a`` of
        :func:`_tied_coefficients`) and the weight per component (its rounding scale)."""
        counts, _ = self._m_stats(data, state)
        wq = data.w[:, None] * state.resp
        mu_counts = -(wq.T @ data.tie_coef)
        mu_counts[:, :2] = 0.0  # mu_0 = mu_1 = 0
        return counts, mu_counts, wq.sum(axis=0)

    def _m_step(
        self, blocks: _Blocks, states: list, params: dict, reseeded: bool
    ) -> tuple[dict, bool]:
        if self.distance != "kendall":
            return self._distance_m_step(blocks, states, params, reseeded)
        m = blocks.n_items
        if blocks.ties:
            counts, length_counts, scale = blocks.ex.sum(self._tied_m_stats, blocks.parts, states)
        else:
            counts, length_counts = blocks.ex.sum(self._m_stats, blocks.parts, states)
        k_comp = counts.shape[0]
        old = params["centers"]
        centers = old.copy()
        changed = False
        for k in range(k_comp):
            new = self._center_step(counts[k], old[k])
            if not np.array_equal(new, old[k]):
                flat = counts[k].reshape(-1)
                d = discordance_matrix(np.stack([old[k], new]))
                cost_old, cost_new = flat @ d
                # generalised-EM acceptance: move only on a strict decrease of the cost
                if cost_new < cost_old - 1e-12 * max(1.0, abs(cost_old)):
                    centers[k] = new
                    changed = True
        flat = counts.reshape(k_comp, m * m)
        stats = np.einsum("kj,jk->k", flat, discordance_matrix(centers))
        if blocks.ties:  # the tied score equation (models._mallows_ties), subset tables
            thetas = solve_thetas(
                length_counts, stats, m, "subset", params["thetas"], float(self.theta_max),
                scale=scale,
            )  # fmt: skip
            return {"centers": centers, "thetas": thetas}, changed
        thetas = solve_thetas(
            length_counts, stats, m, blocks.kind, params["thetas"], float(self.theta_max)
        )
        return {"centers": centers, "thetas": thetas}, changed

    # ---------------------------------------------------------------- fitted state
    def _set_fitted(self, params: dict, order: np.ndarray) -> None:
        self.center_positions_ = params["centers"][order]
        self.centers_ = self._centers_rankings(self.center_positions_)
        self.thetas_ = params["thetas"][order]

    def _fitted_params(self) -> dict:
        check_is_fitted(self, ["thetas_"])
        return {"centers": self.center_positions_, "thetas": self.thetas_}

    def _validate_loaded_params(self, m: int, k: int) -> None:
        pos = loaded.array_attr(self, "center_positions_", kind="i", shape=(k, m))
        loaded.check_permutations(pos, "center_positions_")
        loaded.rankings_attr(self, "centers_", n_items=m, n_rankings=k)
        loaded.array_attr(self, "thetas_", shape=(k,), low=0.0)


# --------------------------------------------------------------------------------------------
# Plackett-Luce mixture
# --------------------------------------------------------------------------------------------
@dataclass
class _PLData:
    """Distinct rankings compiled once per fit (private)."""

    R: Rankings
    ranks: np.ndarray
    w: np.ndarray
    stages: Any  # Plackett-Luce choice stages (None for rankings with ties)
    tie_stages: Any = None  # Davidson-Luce stages of rankings with ties (else None)
    orders: np.ndarray | None = None  # items by position (no ties): the seeding's distances


#: Box of the log-worths and log tie strengths of a Davidson-Luce component (worth ratios up
#: to e^60: a component that separates an item has an infinite MLE, see _tied_m_step).
_DL_BOUND = 30.0
#: Newton polish of each Davidson-Luce M-step (EM needs only an increase; L-BFGS-B from the
#: warm start gives it, and the next M-steps refine)
_DL_POLISH = False


def _dl_stages(data: _PLData) -> Any:
    """The Davidson-Luce stages of a block (compiled now for untied rankings scored by a
    mixture fitted with ties)."""
    if data.tie_stages is None:
        return pl_model.tie_stages(data.R, compress=False)
    return data.tie_stages


def _mean_one_scores(scores: np.ndarray) -> np.ndarray:
    """Log-worths of each component shifted so that the worths ``exp(z)`` have mean 1.

    The MM exposures and the prior of ``alpha`` are in the units of mean-one worths.
    """
    top = scores.max(axis=1, keepdims=True)
    return scores - top - np.log(np.exp(scores - top).mean(axis=1, keepdims=True))


@_with_restart_doc
class PlackettLuceMixture(_RankingMixture):
    """Mixture of Plackett-Luce models for complete, top-k and subset rankings (EM + MM).

    ``Q(pi) = sum_k c_k PL(pi | z_k)`` with log-worths ``z_k`` (mean zero). For
    ``kind="top"`` a top-k list is the event that a complete PL ranking starts with it; for
    ``kind="subset"`` the PL marginal of the observed items (PL is internally consistent), see
    :mod:`rankclust.models.plackett_luce`. This is the mixture of PLMIX (Mollica & Tardella
    2017), fitted here by maximum likelihood (or MAP with ``alpha > 0``) rather than by
    Bayesian MCMC. **Ties**: on data with a tie every component is a Davidson-Luce model
    (:mod:`rankclust.models._davidson_luce`) with its own tie strengths, fitted per component
    by the weighted Davidson-Luce fit (see "Ties" in ``docs/mixtures.md``).

    Parameters
    ----------
    n_components : int, default=2
    init : {"k-means++", "random"}, default="k-means++"
        Starting components: k-means++ seeding on Kendall's statistic (seed rankings
        completed at random), or random permutations; a seed ranking ``s`` becomes the
        log-worths ``-init_scale * position``. The old spelling ``"kmeans++"`` is accepted
        with a ``FutureWarning``.
    {restart_parameters}
    max_iter : int, default=1000
        Maximum number of EM iterations per run.
    tol : float, default=1e-6
        Stop when the (penalised) log-likelihood rises by at most ``tol`` per ranking.
    init_iter : int or None, default=5
        "Small EM" (Biernacki, Celeux & Govaert 2003): every start runs only ``init_iter``
        EM iterations before the most likely ones continue to convergence. None runs every
        start to convergence (classic restarts; slower).
    mm_steps : int, default=1
        MM updates of each component's worths per EM iteration (each one raises the
        weighted likelihood, so any number gives a generalised EM).
    alpha : float, default=0.0
        Gamma(1 + alpha, alpha) prior on the worths (Caron & Doucet 2012); 0 is maximum
        likelihood. With ``alpha > 0`` the monitored objective includes the log-prior.
    init_scale : float, default=0.5
        Slope of the initial log-worths along the seed ranking.
    accelerate : bool, default=True
        SQUAREM acceleration of EM (Varadhan & Roland 2008): after two EM steps (no
        component re-seeded), the weights and log-worths are extrapolated along the EM path, and
        the extrapolated point is kept only if its log-likelihood is at least that of the
        plain step, so the log-likelihood still never decreases. It reaches the same
        optimum in several times fewer iterations (see "Speed" in ``docs/mixtures.md``);
        the stopping rule is unchanged, so fits end closer to the optimum (equal or higher
        log-likelihood). False runs plain EM (the iterates of earlier versions).
    backend : {"numpy", "dask"}, default="numpy"
        ``"numpy"`` fits in memory; ``"dask"`` runs the E-step per chunk of rankings and
        sums the M-step's sufficient statistics across chunks on Dask (the active
        ``dask.distributed`` client, else Dask's default scheduler); needs
        ``pip install rankclust[dask]``. A Dask input (``dask.array`` of 1-based ranks,
        ``dask.bag`` of orderings, :class:`~rankclust.dask.ChunkedRankings`) always runs
        on Dask. Both give the same fit for the same ``random_state`` (same seeds, same
        labels; parameters equal up to the order of floating-point sums), see
        ``docs/scaling.md``.
    random_state : int, RandomState instance or None, default=None
    gate_penalty : float, default=1.0
        Only for ``fit(R, X=...)`` (a mixture of experts): ridge penalty
        ``gate_penalty / 2 * |slopes|^2`` on the gate's slopes of the standardised
        covariates (intercepts unpenalised).

    Attributes
    ----------
    scores_ : ndarray of float64, shape (K, n_items_)
        Log-worths of each component, mean zero.
    worths_ : ndarray of float64, shape (K, n_items_)
        ``exp(scores_)``.
    centers_ : Rankings, shape (K, n_items_)
        The modal ranking of each component (items by decreasing worth).
    tie_strengths_ : ndarray of float64, shape (K, D - 1)
        Davidson-Luce tie strengths ``delta_2..delta_D`` of each component (``D`` the
        largest tie in the data; 0 for an order the data never show); shape (K, 0) when
        fitted on untied data.
    weights_, labels_, log_likelihood_, objective_, bic_, aic_, icl_, entropy_,
    n_parameters_, n_rankings_, n_iter_, converged_, n_reseeded_, n_init_,
    n_init_agreeing_, restart_gap_, restart_log_likelihoods_, log_likelihood_history_,
    n_items_, kind_, items_, gate_coef_, gate_coef_se_, gate_vcov_, gate_mean_, gate_scale_
        As in :class:`MallowsMixture`; ``p = (K - 1) + K (m - 1 + T)`` with ``T`` the
        number of tie orders the data show (0 without ties).

    See Also
    --------
    MallowsMixture, select_k, rankclust.models.plackett_luce.PlackettLuce

    Notes
    -----
    E-step in log space; M-step ``c_k = sum_i w_i q_ik / sum_i w_i`` and ``mm_steps`` MM
    updates of the worths with the responsibilities as weights, warm-started at the
    previous worths: the update of :func:`rankclust.models.plackett_luce.fit_scores`
    (Hunter 2004; MAP form of Caron & Doucet 2012 for ``alpha > 0``), run for all K
    components by the model module's own kernel
    (:func:`rankclust.models.plackett_luce.stage_pass`, one compiled pass over the choice
    stages that also yields the E-step's likelihoods; ``mm_wins``, ``mm_denominators``,
    ``mm_worths``), with ``w_i q_ik`` as per-row weights. When ``alpha == 0`` the
    existence of the MLE on the whole data is checked once before EM (a clear
    ``ValueError`` names the items that never win or never lose).

    Complexity: O(n m log m) to merge identical rankings, then O(K u m mm_steps) time per
    iteration for u distinct rankings, O(K u m) memory. Times the number of iterations over
    all starts (``init_iter`` per start, plus the continued runs).

    References
    ----------
    Hunter (2004); Mollica and Tardella (2017), Psychometrika 82; Gormley and Murphy (2008),
    JASA 103.

    Examples
    --------
    >>> from rankclust.datasets import make_plackett_luce_mixture
    >>> from rankclust.cluster.mixture import PlackettLuceMixture
    >>> R, y = make_plackett_luce_mixture(800, 5, 2, random_state=0)
    >>> mix = PlackettLuceMixture(n_components=2, n_init=3, random_state=0).fit(R)
    >>> mix.scores_.shape, bool(mix.converged_)
    ((2, 5), True)
    """

    _parameter_constraints: dict = {  # noqa: RUF012 - read-only class table
        **_RankingMixture._parameter_constraints,
        "mm_steps": [Interval(numbers.Integral, 1, None)],
        "alpha": [Interval(numbers.Real, 0, None)],
        # 0 would start every component at the uniform model, a symmetric fixed point of EM
        "init_scale": [Interval(numbers.Real, 0, None, closed="neither")],
    }

    def __init__(
        self,
        n_components: int = 2,
        *,
        init: str = KMEANSPP,
        n_init: int | str = "auto",
        max_init: int | None = None,
        n_agree: int = 3,
        max_iter: int = 1000,
        tol: float = 1e-6,
        init_iter: int | None = 5,
        mm_steps: int = 1,
        alpha: float = 0.0,
        init_scale: float = 0.5,
        accelerate: bool = True,
        backend: str = "numpy",
        random_state: Any = None,
        gate_penalty: float = 1.0,
    ) -> None:
        self.n_components = n_components
        self.init = init
        self.n_init = n_init
        self.max_init = max_init
        self.n_agree = n_agree
        self.max_iter = max_iter
        self.tol = tol
        self.init_iter = init_iter
        self.mm_steps = mm_steps
        self.alpha = alpha
        self.init_scale = init_scale
        self.accelerate = accelerate
        self.backend = backend
        self.random_state = random_state
        self.gate_penalty = gate_penalty

    def _prepare(self, Ru: Rankings) -> _PLData:
        if Ru.has_ties.any():
            ties = pl_model.tie_stages(Ru, compress=False)
            pl_model.check_tie_order(ties.max_tie)
            return _PLData(R=Ru, ranks=Ru.ranks, w=Ru.weights, stages=None, tie_stages=ties)
        stages = choice_stages(Ru, compress=False)
        return _PLData(
            R=Ru,
            ranks=Ru.ranks,
            w=Ru.weights,
            stages=stages,
            orders=row_orders(Ru.ranks, Ru.lengths),
        )

    def _check_data(self, blocks: _Blocks) -> None:
        # with ties the Davidson-Luce fit of a component reports a missing estimate itself
        if self.alpha != 0 or blocks.ties:
            return
        # the MLE must exist for the whole data (clear error before EM starts): it depends
        # only on which items beat which (Hunter 2004), so the summed pair counts of the
        # blocks are checked by fit_scores on one two-item chain per observed "u beats v"
        C = blocks.ex.sum(_block_pair_counts, blocks.parts)
        beats = [[int(u), int(v)] for u, v in zip(*np.nonzero(C > 0), strict=True)]
        fit_scores(
            Rankings.from_orderings(beats or [[0]], n_items=blocks.n_items, kind="subset"),
            max_iter=0,
        )

    def _n_free(self, m: int) -> float:
        # with ties, one strength per tie order observed in the data, per component
        n_ties = np.count_nonzero((getattr(self, "tie_strengths_", np.empty((1, 0))) > 0).any(0))
        return float(m - 1 + n_ties)

    def _penalty(self, params: dict) -> float:
        if self.alpha == 0:
            return 0.0
        z = params["scores"]
        v = np.exp(z - z.max(axis=1, keepdims=True))
        v /= v.mean(axis=1, keepdims=True)
        return float(self.alpha * (np.log(v) - v).sum())

    def _seed_scores(self, positions: np.ndarray) -> np.ndarray:
        z = -float(self.init_scale) * positions.astype(np.float64)
        return z - z.mean(axis=-1, keepdims=True)

    def _init_params(self, blocks: _Blocks, seeds: np.ndarray, rng: Any) -> dict:
        if blocks.ties:  # Davidson-Luce: tie strengths start at 1 for every observed order
            counts = blocks.parts[0].tie_stages.tie_counts[2:]
            ties = np.broadcast_to((counts > 0).astype(np.float64), (len(seeds), counts.size))
            return {"scores": self._seed_scores(seeds), "ties": ties.copy()}
        return {"scores": self._seed_scores(seeds)}

    def _seed_component(self, params: dict, k: int, positions: np.ndarray) -> dict:
        scores = params["scores"].copy()
        scores[k] = self._seed_scores(positions)
        if "ties" in params:
            ties = params["ties"].copy()
            ties[k] = (ties > 0).any(axis=0).astype(np.float64)
            return {"scores": scores, "ties": ties}
        return {"scores": scores}

    def _continuous_vector(self, params: dict) -> np.ndarray:
        if "ties" in params:  # log tie strengths of the observed orders (the others are 0)
            ties = params["ties"]
            return np.concatenate([params["scores"].ravel(), np.log(ties[:, ties[0] > 0]).ravel()])
        return np.asarray(params["scores"], dtype=np.float64).ravel()

    def _with_continuous(self, params: dict, vec: np.ndarray) -> dict:
        if "ties" in params:
            shape = params["scores"].shape
            scores = vec[: shape[0] * shape[1]].reshape(shape)
            ties = params["ties"].copy()
            ties[:, ties[0] > 0] = np.exp(vec[scores.size :]).reshape(shape[0], -1)
            return {"scores": scores - scores.mean(axis=1, keepdims=True), "ties": ties}
        scores = vec.reshape(params["scores"].shape)
        return {"scores": scores - scores.mean(axis=1, keepdims=True)}

    def _modal_positions(self, params: dict) -> np.ndarray:
        z = params["scores"]
        return np.argsort(np.argsort(-z, axis=1, kind="stable"), axis=1).astype(np.int64)

    def _loglik_and_cache(self, data: _PLData, params: dict) -> tuple[np.ndarray, np.ndarray]:
        if "ties" in params or data.stages is None:
            return self._tied_loglik(data, params), None
        # the exposures at these worths are the first MM step's, kept for the M-step
        return stage_pass(data.stages, _mean_one_scores(params["scores"]))

    def _m_stats(
        self, data: _PLData, state: _BlockState, worths: np.ndarray, use_cache: bool
    ) -> tuple[np.ndarray, np.ndarray]:
        """Hunter's MM sums (wins, denominators), each (K, m), of one block at ``worths``."""
        exposure = state.cache if use_cache else stage_pass(data.stages, np.log(worths))[1]
        # a floor keeps every item's wins positive, so no worth collapses to exactly 0
        row_w = data.w[:, None] * np.maximum(state.resp, 1e-300)
        return mm_sums(data.stages, row_w, exposure)

    def _tied_loglik(self, data: _PLData, params: dict) -> np.ndarray:
        """(u, K) Davidson-Luce log-likelihoods (a mixture fitted with ties, or tied input)."""
        if "ties" not in params:
            row = int(np.flatnonzero(data.R.has_ties)[0])
            raise ValueError(
                f"row {row} of R has tied items, but this PlackettLuceMixture was fitted on "
                "rankings without ties (under it a tie has probability 0); fit it on data "
                "with ties"
            )
        stages = _dl_stages(data)
        ties = params["ties"]
        if stages.max_tie > ties.shape[1] + 1:
            raise ValueError(
                f"R ties {stages.max_tie} items in one position; this PlackettLuceMixture "
                f"was fitted on ties of at most {ties.shape[1] + 1} items"
            )
        return np.stack(
            [
                pl_model.davidson_luce_loglik(stages, z, d)
                for z, d in zip(params["scores"], ties, strict=True)
            ],
            axis=1,
        )

    def _tied_m_step(self, blocks: _Blocks, states: list, params: dict) -> dict:
        """Each component's weighted Davidson-Luce fit (its own tie strengths), warm-started
        at its current parameters, so the weighted log-likelihood never decreases; log-worths
        and log tie strengths within +-_DL_BOUND (a component's MLE may not exist). In
        memory: one block."""
        data = blocks.parts[0]
        resp = np.maximum(states[0].resp, 1e-300)
        scores = np.empty_like(params["scores"])
        ties = np.empty_like(params["ties"])
        for k in range(scores.shape[0]):
            z0 = params["scores"][k]
            if np.abs(z0).max() > _DL_BOUND:  # into the box by a shift (the likelihood's own)
                z0 = z0 - 0.5 * (z0.max() + z0.min())
            d0 = params["ties"][k]
            d0 = np.where(d0 > 0, np.clip(d0, np.exp(-_DL_BOUND), np.exp(_DL_BOUND)), 0.0)
            scores[k], ties[k], _, _ = pl_model.fit_davidson_luce(
                data.tie_stages,
                data.w * resp[:, k],
                alpha=float(self.alpha),
                start=(z0, d0),
                bound=_DL_BOUND,
                polish=_DL_POLISH,
            )
        return {"scores": scores, "ties": ties}

    def _m_step(
        self, blocks: _Blocks, states: list, params: dict, reseeded: bool
    ) -> tuple[dict, bool]:
        if blocks.ties:
            return self._tied_m_step(blocks, states, params), False
        worths = np.exp(_mean_one_scores(params["scores"]))
        alpha = float(self.alpha)
        for step in range(self.mm_steps):
            # the E-step's exposures are at these worths unless a component was re-seeded
            use_cache = step == 0 and not reseeded
            wins, denoms = blocks.ex.sum(
                self._m_stats, blocks.parts, states, worths=worths, use_cache=use_cache
            )
            worths = np.maximum(mm_worths(wins, denoms, float(alpha)), 1e-300)
        scores = np.log(worths)
        return {"scores": scores - scores.mean(axis=1, keepdims=True)}, False

    def _set_fitted(self, params: dict, order: np.ndarray) -> None:
        self.scores_ = params["scores"][order]
        self.worths_ = np.exp(self.scores_)
        k_comp = len(order)
        self.tie_strengths_ = params["ties"][order] if "ties" in params else np.empty((k_comp, 0))
        positions = np.argsort(np.argsort(-self.scores_, axis=1, kind="stable"), axis=1)
        self.centers_ = self._centers_rankings(positions.astype(np.int64))

    def _fitted_params(self) -> dict:
        check_is_fitted(self, ["scores_"])
        ties = getattr(self, "tie_strengths_", None)  # none in models saved before ties
        if ties is not None and ties.size:
            return {"scores": self.scores_, "ties": ties}
        return {"scores": self.scores_}

    def _validate_loaded_params(self, m: int, k: int) -> None:
        loaded.array_attr(self, "scores_", shape=(k, m))
        loaded.array_attr(self, "worths_", shape=(k, m), low=0.0)
        if hasattr(self, "tie_strengths_"):
            loaded.array_attr(self, "tie_strengths_", shape=(k, None), low=0.0)
        loaded.rankings_attr(self, "centers_", n_items=m, n_rankings=k)


# --------------------------------------------------------------------------------------------
# model selection
# --------------------------------------------------------------------------------------------
#: What each criterion favours, in one line (shown when they choose different K).
CRITERION_NOTES = {
    "bic": "BIC favours fit: components that describe the density of the rankings well",
    "icl": "ICL favours well-separated clusters: it adds the entropy of the assignments",
    "aic": "AIC favours fit with a lighter penalty than BIC (more components)",
}


@dataclass
class SelectKResult:
    """Result of :func:`select_k`.

    Attributes
    ----------
    ks : list of int
        Numbers of components tried.
    table : list of dict
        One row per K: ``k``, ``log_likelihood``, ``n_parameters``, ``bic``, ``aic``,
        ``icl``, ``n_iter``, ``converged``, ``n_init_agreeing``, ``seconds`` (wall time of
        the fit).
    criterion : str
        The criterion minimised.
    best_k : int
    best_estimator : estimator
        The fitted estimator with ``best_k`` components.
    estimators : dict of int to estimator
        Every fitted estimator.
    best_k_by : dict of str to int
        The K each criterion (``"bic"``, ``"icl"``, ``"aic"``) would choose.
    at_edge : {"smallest", "largest"} or None
        ``best_k`` is the smallest or the largest K tried (and more than one K was tried):
        the optimum may lie outside the range, so widen ``ks``.
    notes : list of str
        Sentences for the reader: the edge of the range, and BIC and ICL choosing
        different K (with what each favours).
    """

    ks: list
    table: list
    criterion: str
    best_k: int
    best_estimator: Any
    estimators: dict
    best_k_by: dict = field(default_factory=dict)
    at_edge: str | None = None
    notes: list = field(default_factory=list)

    def to_markdown(self) -> str:
        """The table as GitHub markdown (the chosen K marked), then the notes."""
        lines = [
            "| K | log-likelihood | p | BIC | AIC | ICL | iterations | seconds |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for row in self.table:
            mark = " *" if row["k"] == self.best_k else ""
            lines.append(
                f"| {row['k']}{mark} | {row['log_likelihood']:.2f} | {row['n_parameters']:g} "
                f"| {row['bic']:.2f} | {row['aic']:.2f} | {row['icl']:.2f} | {row['n_iter']} "
                f"| {row['seconds']:.2f} |"
            )
        lines += [f"\n{note}" if i == 0 else note for i, note in enumerate(self.notes)]
        return "\n".join(lines)


def selection_notes(table: list, criterion: str, ks: list) -> tuple[dict, str | None, list]:
    """(K chosen by each criterion, ``at_edge``, notes) of a selection table (private use
    by :func:`select_k` and the CLI: one wording for both)."""
    best_k_by = {
        c: int(min(table, key=lambda row, c=c: (row[c], row["k"]))["k"])
        for c in ("bic", "icl", "aic")
        if table and c in table[0]
    }
    best = best_k_by[criterion]
    notes = []
    at_edge = None
    if len(ks) > 1 and best in (min(ks), max(ks)):
        at_edge = "smallest" if best == min(ks) else "largest"
        wider = f"below K={best}" if at_edge == "smallest" else f"above K={best}"
        if at_edge == "smallest" and best == 1:
            notes.append(
                f"{criterion.upper()} chose K=1, the smallest K tried: "
                "the data may show no cluster structure at all."
            )
        else:
            notes.append(
                f"{criterion.upper()} chose K={best}, the {at_edge} K tried: the optimum may "
                f"lie {wider}; widen the range of K."
            )
    if "bic" in best_k_by and "icl" in best_k_by and best_k_by["bic"] != best_k_by["icl"]:
        notes.append(
            f"BIC and ICL disagree: BIC chooses K={best_k_by['bic']}, "
            f"ICL chooses K={best_k_by['icl']}."
        )
        notes.append(f"  {CRITERION_NOTES['bic']}; {CRITERION_NOTES['icl']}.")
    return best_k_by, at_edge, notes


def select_k(
    estimator: Any,
    R: Any,
    ks: Any = range(1, 9),
    *,
    criterion: str = "bic",
    sample_weight: Any = None,
    warm_start: bool = True,
    callback: Any = None,
    X: Any = None,
) -> SelectKResult:
    """Fit a mixture for every K in ``ks`` and choose K by an information criterion.

    Parameters
    ----------
    estimator : MallowsMixture or PlackettLuceMixture
        Template; it is cloned and refitted with ``n_components=k`` (its ``random_state``
        is kept, so a fixed seed gives reproducible fits).
    R : Rankings or array-like
    ks : iterable of int, default=range(1, 9)
    criterion : {"bic", "icl", "aic"}, default="bic"
        The criterion to minimise (Busse et al. use BIC).
    sample_weight : array-like of float, shape (n,), optional
    warm_start : bool, default=True
        When K - 1 is also in ``ks`` (and ``estimator`` is a mixture of this module), the
        fit with K components runs, besides its own ``n_init`` starts, K starts grown from
        the fitted (K - 1)-component mixture: each of its components split in two, and one
        component added at a k-means++ seed (see ``_RankingMixture._warm_starts``). With
        small EM the most likely fresh run and the most likely grown run both continue to
        convergence and the better is kept, so the fit is never worse than the one from the
        fresh starts alone, and the log-likelihood reached is (near-)monotone in K; with
        independent starts only, EM over discrete centres often ends below the
        (K - 1)-component optimum (APA data). False fits every K independently.
    callback : callable, optional
        ``callback(k, estimator, row)`` after each fit (e.g. to show progress; the CLI's
        ``select-k`` uses it).
    X : array-like of shape (n, d), optional
        Respondent covariates: every K is fitted as a mixture of experts (``fit(R, X=X)``);
        the criteria count the gate's ``(K - 1) d`` slopes.

    Returns
    -------
    SelectKResult

    Notes
    -----
    Complexity: the sum of the fits' costs over ``ks``; warm starts add up to K short runs
    (``init_iter`` iterations each) and one continued run to the fit with K components.

    Examples
    --------
    >>> from rankclust.datasets import make_mallows_mixture
    >>> from rankclust.cluster.mixture import MallowsMixture, select_k
    >>> R, _ = make_mallows_mixture(400, 5, 2, centers=[[0, 1, 2, 3, 4], [4, 3, 2, 1, 0]],
    ...                             thetas=1.5, kind="top", lengths=(1, 5), random_state=1)
    >>> res = select_k(MallowsMixture(n_init=3, random_state=0), R, ks=[1, 2, 3])
    >>> res.best_k
    2
    """
    if criterion not in ("bic", "icl", "aic"):
        raise ValueError(f"criterion must be 'bic', 'icl' or 'aic', got {criterion!r}")
    ks = [int(k) for k in ks]
    if not ks or min(ks) < 1:
        raise ValueError("ks must be a non-empty list of positive integers")
    table = []
    estimators = {}
    for k in ks:
        est = clone(estimator).set_params(n_components=k)
        start = time.perf_counter()
        warm = estimators.get(k - 1) if warm_start else None
        if X is not None:
            from rankclust.cluster._experts import fit_experts

            fit_experts(est, R, X, sample_weight, warm=warm)
        elif warm is not None and isinstance(est, _RankingMixture):
            est._fit(R, sample_weight, warm=warm)
        else:
            est.fit(R, sample_weight=sample_weight)
        seconds = time.perf_counter() - start
        estimators[k] = est
        table.append(
            {
                "k": k,
                "log_likelihood": est.log_likelihood_,
                "n_parameters": est.n_parameters_,
                "bic": est.bic_,
                "aic": est.aic_,
                "icl": est.icl_,
                "n_iter": est.n_iter_,
                "converged": est.converged_,
                "n_init_agreeing": getattr(est, "n_init_agreeing_", None),
                "seconds": seconds,
            }
        )
        if callback is not None:
            callback(k, est, table[-1])
    best_k_by, at_edge, notes = selection_notes(table, criterion, ks)
    best_k = best_k_by[criterion]
    return SelectKResult(
        ks=ks,
        table=table,
        criterion=criterion,
        best_k=best_k,
        best_estimator=estimators[best_k],
        estimators=estimators,
        best_k_by=best_k_by,
        at_edge=at_edge,
        notes=notes,
    )


@dataclass
class SelectModelResult:
    """Result of :func:`select_model`: every (distance, K) fit in one table.

    Attributes
    ----------
    distances : list of str
        Distances tried, in the order given.
    ks : list of int
        Numbers of components tried.
    table : list of dict
        One row per (distance, K): ``distance`` and the columns of
        :attr:`SelectKResult.table` (``k``, ``log_likelihood``, ``n_parameters``, ``bic``,
        ``aic``, ``icl``, ``n_iter``, ``converged``, ``n_init_agreeing``, ``seconds``).
    criterion : str
        The criterion minimised over all rows.
    best_distance : str
    best_k : int
    best_estimator : MallowsMixture
        The fitted mixture of the chosen row.
    by_distance : dict of str to SelectKResult
        The :func:`select_k` result of each distance (its own choice of K, notes, models).
    notes : list of str
        The notes of the chosen distance's selection (edge of the range, BIC vs ICL).
    """

    distances: list
    ks: list
    table: list
    criterion: str
    best_distance: str
    best_k: int
    best_estimator: Any
    by_distance: dict
    notes: list = field(default_factory=list)

    def to_markdown(self) -> str:
        """The criterion per distance (rows) and K (columns), the chosen cell starred, then
        a line per distance with its fits' total seconds, then the notes."""
        lines = [
            f"| {self.criterion.upper()} | " + " | ".join(f"K={k}" for k in self.ks) + " |",
            "|---" * (len(self.ks) + 1) + "|",
        ]
        cells = {(row["distance"], row["k"]): row for row in self.table}
        for d in self.distances:
            out = []
            for k in self.ks:
                mark = " *" if (d, k) == (self.best_distance, self.best_k) else ""
                out.append(f"{cells[d, k][self.criterion]:.2f}{mark}")
            lines.append(f"| {d} | " + " | ".join(out) + " |")
        lines.append("")
        lines.append(
            f"Chosen by {self.criterion.upper()}: distance={self.best_distance}, K={self.best_k}."
        )
        lines += self.notes
        return "\n".join(lines)


def select_model(
    estimator: MallowsMixture,
    R: Any,
    ks: Any = range(1, 9),
    *,
    distances: Any = None,
    criterion: str = "bic",
    sample_weight: Any = None,
    warm_start: bool = True,
    callback: Any = None,
) -> SelectModelResult:
    """Choose the distance and the number of components of a Mallows mixture together.

    Runs :func:`select_k` once per distance (``estimator`` cloned with ``distance=d``) and
    chooses the (distance, K) of smallest criterion over all fits. The likelihoods of the
    distances are comparable: each component is a proper distribution over the same
    rankings (the complete rankings of the data; every non-Kendall distance fits complete
    rankings only), and every distance has the same parameters (a centre, a dispersion and
    a weight per component), so BIC compares them at equal penalty.

    Parameters
    ----------
    estimator : MallowsMixture
        Template; its ``distance`` is replaced by each of ``distances``, ``n_components``
        by each K.
    R : Rankings or array-like
    ks : iterable of int, default=range(1, 9)
    distances : sequence of str, optional
        Keys of :data:`rankclust.models._MALLOWS_DISTANCES`; default every
        registered distance.
    criterion : {"bic", "icl", "aic"}, default="bic"
    sample_weight : array-like of float, shape (n,), optional
    warm_start : bool, default=True
        Passed to :func:`select_k` (within each distance, K grows from the K - 1 fit).
    callback : callable, optional
        ``callback(distance, k, estimator, row)`` after each fit.

    Returns
    -------
    SelectModelResult

    Notes
    -----
    Ties in the criterion go to the earlier distance of ``distances``, then to the smaller K.

    Complexity: the sum of :func:`select_k` over the distances.

    Examples
    --------
    >>> from rankclust.cluster.mixture import MallowsMixture, select_model
    >>> from rankclust.models import Mallows
    >>> R = Mallows.from_params(center=[0, 1, 2, 3, 4], theta=0.5).sample(300, random_state=0)
    >>> res = select_model(MallowsMixture(n_init=2, random_state=0), R, ks=[1, 2],
    ...                    distances=["kendall", "spearman"])
    >>> len(res.table), res.best_distance in ("kendall", "spearman")
    (4, True)
    """
    if not isinstance(estimator, MallowsMixture):
        raise TypeError(f"estimator must be a MallowsMixture, got {type(estimator).__name__}")
    if criterion not in ("bic", "icl", "aic"):
        raise ValueError(f"criterion must be 'bic', 'icl' or 'aic', got {criterion!r}")
    registry = MALLOWS_DISTANCES
    if distances is None:
        names = list(registry)
    else:
        names = [distances] if isinstance(distances, str) else list(distances)
    if not names:
        raise ValueError("distances must name at least one distance")
    for d in names:
        if d not in registry:
            raise ValueError(f"unknown distance {d!r}; choose from {', '.join(registry)}")
    if len(set(names)) != len(names):
        raise ValueError(f"distances has a repeated name: {names}")
    by_distance = {}
    table = []
    for d in names:
        each = None if callback is None else functools.partial(callback, d)
        res = select_k(
            clone(estimator).set_params(distance=d),
            R,
            ks,
            criterion=criterion,
            sample_weight=sample_weight,
            warm_start=warm_start,
            callback=each,
        )
        by_distance[d] = res
        table += [{"distance": d, **row} for row in res.table]
    rank = {d: i for i, d in enumerate(names)}
    best = min(table, key=lambda row: (row[criterion], rank[row["distance"]], row["k"]))
    chosen = by_distance[best["distance"]]
    return SelectModelResult(
        distances=names,
        ks=chosen.ks,
        table=table,
        criterion=criterion,
        best_distance=best["distance"],
        best_k=best["k"],
        best_estimator=chosen.estimators[best["k"]],
        by_distance=by_distance,
        notes=list(chosen.notes) if chosen.best_k == best["k"] else [],
    )

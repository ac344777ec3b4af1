"""Mixtures of Plackett-Luce models whose log-worths are linear in item features.

:class:`ItemCovariatePLMixture` is :class:`~rankclust.cluster.PlackettLuceMixture` with the
components of :class:`~rankclust.models.ItemCovariatePlackettLuce`: component ``k`` has the
log-worths

    ``z_kj = x_j . coef_k + intercept_k (+ u_kj)``,

its own coefficients and (optionally, ridge-penalised) its own item effects, so that the
segments differ in how they *value the features* (price, style, ...), and every segment has a
worth for an item nobody ranked (or a new item) from the item's features.

It runs the EM driver of the plain mixture (restarts, SQUAREM, re-seeding, the same
``n_init``/``max_init``/``n_agree`` rules) with three hooks replaced:

* **E-step**: the plain mixture's, on the log-worths the coefficients imply (the compiled
  Plackett-Luce stage pass of :mod:`rankclust.models.plackett_luce`);
* **M-step**: per component, :func:`~rankclust.models.plackett_luce_covariates.fit_covariate_scores`
  with per-ranking weights ``w_i q_ik`` (row weight times responsibility), warm-started at the
  component's previous coefficients and item effects. It maximises the component's penalised
  weighted log-likelihood (L-BFGS then Newton with step halving, never below its start), so
  the penalised observed-data log-likelihood never decreases (tested);
* **parameters**: a start (a k-means++ seed ranking ``s`` read as log-worths ``-init_scale *
  s``) is projected on the features (least squares, minimum norm); SQUAREM extrapolates the
  coefficients and item effects.

Counting parameters for BIC. Without penalties a component has ``rank_`` free parameters (the
coefficient directions the features identify over the ranked items; ``m - 1`` for the
identity design, as plain Plackett-Luce). With penalties (``coef_penalty > 0`` or item
effects) a component counts its *effective degrees of freedom*
``tr((H_k + P)^{-1} H_k)`` (Hastie & Tibshirani 1990, the trace of the ridge smoother), with
``H_k`` the observed information of the component's weighted log-likelihood (weights
``w_i q_ik`` at the fit) in its coefficients and item effects and ``P`` the penalty; it lies
between 0 and the number of parameters, and equals ``rank_`` when the penalties vanish.
``n_parameters_ = (K - 1) + sum_k effective_dof_[k]``.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
from scipy.special import logsumexp
from sklearn.utils.validation import check_is_fitted

from rankclust import _loaded_state as loaded
from rankclust._dask import is_dask_collection
from rankclust._param_validation import Interval, check_sample_weight
from rankclust.cluster._seeding import KMEANSPP
from rankclust.cluster.mixture import PlackettLuceMixture, _Blocks
from rankclust.models.plackett_luce import choice_stages, loglik_rows
from rankclust.models.plackett_luce_covariates import (
    CovariateScores,
    align_features,
    check_item_features,
    check_mle_exists,
    feature_names,
    fit_covariate_scores,
    identified_directions,
    informed_items,
    weighted_information,
)
from rankclust.rankings import Rankings, check_rankings

__all__ = ["ItemCovariatePLMixture"]

#: Floor of the responsibilities passed to the M-step (as in the plain mixture's MM step): every
#: ranking keeps a positive weight in every component, so no component's estimate loses an item.
_RESP_FLOOR = 1e-300
#: A component's M-step whose log-worths leave +-_BOUND (an estimate that runs off to
#: infinity on the few rankings a nearly empty component holds) or that fails numerically
#: keeps the component's previous parameters: a generalised EM step, the likelihood does not
#: decrease.
_BOUND = 100.0


class ItemCovariatePLMixture(PlackettLuceMixture):
    """Mixture of Plackett-Luce models with log-worths linear in item features (EM).

    ``Q(pi) = sum_k c_k PL(pi | z_k)`` with ``z_k = item_features @ coef_k + intercept_k``
    (``+ item_effects_k``): a :class:`PlackettLuceMixture` whose components are
    :class:`~rankclust.models.ItemCovariatePlackettLuce` models, each with its own
    coefficients. Complete, top-k (``kind="top"``) and subset (``kind="subset"``) rankings,
    weighted; not rankings with ties; in memory. See
    :mod:`rankclust.cluster._covariate_mixture` for the EM steps and the count of parameters.

    Parameters
    ----------
    n_components : int, default=2
    coef_penalty : float, default=0.0
        Ridge penalty ``coef_penalty / 2 * |coef_k|^2`` on each component's coefficients
        (0: maximum likelihood); standardise the features when their scales differ.
    item_effect_penalty : float or None, default=None
        None: no item effects. A positive value gives every component a free log-worth per
        item, penalised by ``item_effect_penalty / 2 * |u_k|^2`` (as in
        :class:`~rankclust.models.ItemCovariatePlackettLuce`).
    init : {"k-means++", "random"}, default="k-means++"
        As in :class:`PlackettLuceMixture`; the seed log-worths are projected on the features.
    n_init, max_init, n_agree, max_iter, tol, init_iter, init_scale, accelerate, random_state
        As in :class:`PlackettLuceMixture`.
    m_step_max_iter : int, default=100
        L-BFGS iterations of each component's M-step (then Newton steps to ``m_step_tol``).
    m_step_tol : float, default=1e-8
        Convergence of each M-step: largest Newton step in the whitened parameters.

    Attributes
    ----------
    coef_ : ndarray of float64, shape (K, n_features)
        Coefficients of each component (minimum-norm along directions the features do not
        identify).
    intercept_ : ndarray of float64, shape (K,)
        ``-feature_means_ . coef_k``: makes each row of ``scores_`` (without item effects)
        mean zero.
    item_effects_ : ndarray of float64, shape (K, n_items)
        Item effects of each component (zeros without them), sum zero per component.
    feature_means_ : ndarray of float64, shape (n_features,)
    item_features_ : ndarray of float64, shape (n_items, n_features)
        The features of the training items.
    rank_ : int
        Coefficient directions the features identify over the ranked items.
    effective_dof_ : ndarray of float64, shape (K,)
        Free parameters each component counts in ``n_parameters_`` (``rank_`` without
        penalties; the trace above with them).
    scores_, worths_, centers_, weights_, labels_, log_likelihood_, objective_, bic_, aic_,
    icl_, entropy_, n_parameters_, n_rankings_, n_iter_, converged_, n_reseeded_, n_init_,
    n_init_agreeing_, restart_gap_, restart_log_likelihoods_, log_likelihood_history_,
    n_items_, kind_, items_
        As in :class:`PlackettLuceMixture` (``scores_`` are the log-worths the coefficients
        imply, mean zero). ``log_likelihood_history_`` is penalised when a penalty is set.
    feature_names_in_ : tuple of str
        Only when ``item_features`` had column names (a DataFrame).

    See Also
    --------
    PlackettLuceMixture : one free log-worth per item and component.
    rankclust.models.ItemCovariatePlackettLuce : the one-component model.

    Notes
    -----
    With the identity design (``item_features=None``) and no penalty the model is the plain
    Plackett-Luce mixture, and the fit reaches the plain mixture's optimum; the iterates
    differ (an exact M-step here, ``mm_steps`` MM updates there).

    Complexity: per EM iteration the plain mixture's E-step, O(K u m) time for u distinct
    rankings, and K M-steps, each T L-BFGS iterations of O(u m + m p) plus a few Newton
    steps of O(u m^2 + m p^2 + p^3) time (p = rank_, + m with item effects); O(K u m + m^2 +
    p^2) memory.

    References
    ----------
    Turner, H. L., van Etten, J., Firth, D. & Kosmidis, I. (2020). Modelling rankings in R:
    the PlackettLuce package. Computational Statistics, 35, 1027-1057.

    Gormley, I. C. & Murphy, T. B. (2008). Exploring voting blocs within the Irish
    electorate: a mixture modeling approach. JASA, 103, 1014-1027.

    Hastie, T. & Tibshirani, R. (1990). Generalized Additive Models. Chapman & Hall.

    Examples
    --------
    Two segments that value one item feature in opposite directions.

    >>> import numpy as np
    >>> from rankclust.cluster import ItemCovariatePLMixture
    >>> from rankclust.models import PlackettLuce
    >>> F = np.linspace(-1, 1, 6)[:, None]
    >>> from rankclust import Rankings
    >>> R = Rankings.concatenate(
    ...     [PlackettLuce.from_params(scores=s * F[:, 0]).sample(300, random_state=s + 2)
    ...      for s in (2, -2)]
    ... )
    >>> mix = ItemCovariatePLMixture(2, n_init=2, random_state=0).fit(R, item_features=F)
    >>> np.sort(mix.coef_[:, 0]).round(0)
    array([-2.,  2.])
    """

    _parameter_constraints: dict = {  # noqa: RUF012 - read-only class table
        **{
            k: v
            for k, v in PlackettLuceMixture._parameter_constraints.items()
            if k not in ("mm_steps", "alpha", "backend", "gate_penalty")
        },
        "coef_penalty": [Interval(numbers.Real, 0, None)],
        "item_effect_penalty": [None, Interval(numbers.Real, 0, None, closed="neither")],
        "m_step_max_iter": [Interval(numbers.Integral, 0, None)],
        "m_step_tol": [Interval(numbers.Real, 0, None, closed="neither")],
    }
    _accepts_ties = False
    #: In memory only (the M-step fits each component on the compiled rankings of one block).
    backend = "numpy"
    #: The plain mixture's MAP prior is not used (the coefficients have their ridge penalty).
    alpha = 0.0

    def __init__(
        self,
        n_components: int = 2,
        *,
        coef_penalty: float = 0.0,
        item_effect_penalty: float | None = None,
        init: str = KMEANSPP,
        n_init: int | str = "auto",
        max_init: int | None = None,
        n_agree: int = 3,
        max_iter: int = 1000,
        tol: float = 1e-6,
        init_iter: int | None = 5,
        init_scale: float = 0.5,
        accelerate: bool = True,
        random_state: Any = None,
        m_step_max_iter: int = 100,
        m_step_tol: float = 1e-8,
    ) -> None:
        self.n_components = n_components
        self.coef_penalty = coef_penalty
        self.item_effect_penalty = item_effect_penalty
        self.init = init
        self.n_init = n_init
        self.max_init = max_init
        self.n_agree = n_agree
        self.max_iter = max_iter
        self.tol = tol
        self.init_iter = init_iter
        self.init_scale = init_scale
        self.accelerate = accelerate
        self.random_state = random_state
        self.m_step_max_iter = m_step_max_iter
        self.m_step_tol = m_step_tol

    # ---------------------------------------------------------------- fit
    def fit(
        self,
        R: Any,
        y: Any = None,
        sample_weight: Any = None,
        *,
        item_features: Any = None,
        X: Any = None,
    ) -> ItemCovariatePLMixture:
        """Fit the mixture by EM from ``n_init`` initialisations; keep the most likely run.

        Parameters
        ----------
        R : Rankings or array-like of shape (n, m)
            Rankings without ties (array input: 1-based ranks, 0/NaN for missing,
            ``kind="top"``). With ``kind="subset"`` items nobody ranked are allowed: their
            worths come from their features.
        y : None
            Ignored.
        sample_weight : array-like of float, shape (n,), optional
            Non-negative row weights, multiplied into ``R.weights``.
        item_features : array-like of float, shape (m, d), optional
            One row of finite features per item (column of ``R``); a DataFrame whose index
            holds item names is matched to ``R.items`` by name. Default: the identity (one
            indicator per item, the plain Plackett-Luce mixture).
        X : None
            Respondent covariates (a gate) are not supported with item covariates; given,
            a ``ValueError``.

        Returns
        -------
        self : ItemCovariatePLMixture
        """
        if X is not None:
            raise ValueError(
                "ItemCovariatePLMixture does not take respondent covariates X; use "
                "PlackettLuceMixture().fit(R, X=X) for a mixture of experts"
            )
        if is_dask_collection(R):
            raise ValueError("ItemCovariatePLMixture fits in memory only (not a Dask input)")
        R = self._check_input(R, reset=True)
        from rankclust.cluster import _experts

        _experts.drop_gate(self)
        names = None if item_features is None else feature_names(item_features)
        F = np.eye(R.n_items) if item_features is None else align_features(item_features, R.items)
        F = check_item_features(F, R.n_items)
        sw = None if sample_weight is None else check_sample_weight(sample_weight, R.n_rankings)
        stages = choice_stages(R)
        seen = informed_items(stages, stages.row_weights(sw))
        _, S, _ = identified_directions(F, seen)
        if S.size == 0:
            raise ValueError(
                "item_features are constant over the ranked items: they identify no "
                "difference between worths"
            )
        self.item_features_ = F
        self.rank_ = int(S.size)
        self.effective_dof_ = np.full(self.n_components, float(S.size))
        if names is not None:
            self.feature_names_in_ = names
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        self._fit(R, sample_weight)
        if self.coef_penalty > 0 or self.item_effect_penalty is not None:
            self._set_effective_dof(R, sample_weight)
        return self

    def _fit(
        self, R: Any, sample_weight: Any, warm: Any = None, starts: Any = None
    ) -> ItemCovariatePLMixture:
        # the driver's entry point for select_k and the bootstrap, which do not pass the
        # item features: refuse instead of fitting another design
        if not hasattr(self, "item_features_"):
            raise ValueError(
                "ItemCovariatePLMixture is fitted through fit(R, item_features=...) only "
                "(select_k and the bootstrap do not pass item features)"
            )
        return super()._fit(R, sample_weight, warm=warm, starts=starts)

    def _dask_blocks(self, R: Any, sample_weight: Any) -> tuple[_Blocks, Any, Any]:
        raise ValueError("ItemCovariatePLMixture fits in memory only (not a Dask input)")

    def _set_effective_dof(self, R: Rankings, sample_weight: Any) -> None:
        """``effective_dof_`` at the fit, and the criteria that count them."""
        Ru, inverse = R.with_weights(None).unique()
        w = R.weights
        if sample_weight is not None:
            w = w * check_sample_weight(sample_weight, R.n_rankings)
        wu = np.bincount(inverse, weights=w, minlength=Ru.n_rankings)
        stages = choice_stages(Ru, compress=False)
        q = np.maximum(self.predict_proba(Ru), _RESP_FLOOR)
        F = self.item_features_
        mean, S, Vt = identified_directions(F, informed_items(stages, wu))
        basis = (F - mean) @ Vt.T / S
        m = F.shape[0]
        effects = self.item_effect_penalty is not None
        design = np.hstack([basis, np.eye(m)]) if effects else basis
        pen = self.coef_penalty / S**2
        if effects:
            pen = np.concatenate([pen, np.full(m, float(self.item_effect_penalty))])
        dof = np.empty(self.n_components)
        for k in range(self.n_components):
            H = design.T @ weighted_information(stages, wu * q[:, k], self.scores_[k]) @ design
            dof[k] = float(np.trace(np.linalg.solve(H + np.diag(pen), H)))
        self.effective_dof_ = dof
        self.n_parameters_ = self._n_parameters(m)
        ll = self.log_likelihood_
        self.bic_ = -2.0 * ll + self.n_parameters_ * np.log(self.n_rankings_)
        self.aic_ = -2.0 * ll + 2.0 * self.n_parameters_
        self.icl_ = self.bic_ + 2.0 * self.entropy_

    # ---------------------------------------------------------------- parameters
    def _implied(self, coef: np.ndarray, effects: np.ndarray) -> np.ndarray:
        """(K, m) mean-zero log-worths of coefficients (K, d) and item effects (K, m)."""
        z = coef @ self.item_features_.T + effects
        return z - z.mean(axis=1, keepdims=True)

    def _params(self, coef: np.ndarray, effects: np.ndarray) -> dict:
        return {"scores": self._implied(coef, effects), "coef": coef, "effects": effects}

    def _project(self, scores: np.ndarray) -> np.ndarray:
        """Minimum-norm least-squares coefficients (K, d) of (K, m) log-worths."""
        F = self.item_features_
        Fc = F - F.mean(axis=0)
        z = scores - scores.mean(axis=1, keepdims=True)
        return np.linalg.lstsq(Fc, z.T, rcond=None)[0].T

    def _check_data(self, blocks: _Blocks) -> None:
        # features that identify every ranked item's worth, no penalty: the plain
        # Plackett-Luce MLE must exist on the whole data (every component holds every ranking
        # with a positive weight, so the M-steps would refuse it one by one)
        if self.coef_penalty != 0 or self.item_effect_penalty is not None:
            return
        stages = blocks.parts[0].stages
        row_w = stages.row_weights()
        seen = informed_items(stages, row_w)
        if self.rank_ == seen.sum() - 1:
            check_mle_exists(stages, row_w, seen)

    def _n_free(self, m: int) -> float:
        return float(self.rank_)

    def _n_parameters(self, m: int) -> float:
        return (self.n_components - 1) + float(np.sum(self.effective_dof_))

    def _penalty(self, params: dict) -> float:
        out = -0.5 * float(self.coef_penalty) * float(np.sum(params["coef"] ** 2))
        if self.item_effect_penalty is not None:
            out -= 0.5 * float(self.item_effect_penalty) * float(np.sum(params["effects"] ** 2))
        return out

    def _init_params(self, blocks: _Blocks, seeds: np.ndarray, rng: Any) -> dict:
        coef = self._project(self._seed_scores(seeds))
        return self._params(coef, np.zeros((len(seeds), blocks.n_items)))

    def _seed_component(self, params: dict, k: int, positions: np.ndarray) -> dict:
        coef = params["coef"].copy()
        effects = params["effects"].copy()
        coef[k] = self._project(self._seed_scores(positions[None, :]))[0]
        effects[k] = 0.0
        return self._params(coef, effects)

    def _continuous_vector(self, params: dict) -> np.ndarray:
        if self.item_effect_penalty is None:
            return params["coef"].ravel().copy()
        return np.concatenate([params["coef"].ravel(), params["effects"].ravel()])

    def _with_continuous(self, params: dict, vec: np.ndarray) -> dict:
        k_comp, d = params["coef"].shape
        coef = vec[: k_comp * d].reshape(k_comp, d)
        if self.item_effect_penalty is None:
            effects = params["effects"]
        else:
            effects = vec[k_comp * d :].reshape(params["effects"].shape)
            effects = effects - effects.mean(axis=1, keepdims=True)
        return self._params(coef, effects)

    def _m_step(
        self, blocks: _Blocks, states: list, params: dict, reseeded: bool
    ) -> tuple[dict, bool]:
        data = blocks.parts[0]
        resp = np.maximum(states[0].resp, _RESP_FLOOR)
        d = self.item_features_.shape[1]
        coef = np.empty_like(params["coef"])
        effects = np.empty_like(params["effects"])
        for k in range(coef.shape[0]):
            coef[k], effects[k] = params["coef"][k], params["effects"][k]
            try:
                with np.errstate(all="ignore"):
                    fitted = fit_covariate_scores(
                        data.stages,
                        self.item_features_,
                        resp[:, k],
                        coef_penalty=float(self.coef_penalty),
                        item_effect_penalty=self.item_effect_penalty,
                        init=_start(params["coef"][k], params["effects"][k], d),
                        max_iter=int(self.m_step_max_iter),
                        tol=float(self.m_step_tol),
                    )
            except np.linalg.LinAlgError:
                continue  # (a component on a few rankings whose estimate runs off: kept)
            if np.isfinite(fitted.scores).all() and np.abs(fitted.scores).max() <= _BOUND:
                coef[k], effects[k] = fitted.coef, fitted.item_effects
        return self._params(coef, effects), False

    # ---------------------------------------------------------------- fitted state
    def _set_fitted(self, params: dict, order: np.ndarray) -> None:
        super()._set_fitted({"scores": params["scores"]}, order)
        self.coef_ = params["coef"][order]
        self.item_effects_ = params["effects"][order]
        self.feature_means_ = self.item_features_.mean(axis=0)
        self.intercept_ = -(self.coef_ @ self.feature_means_)
        self.n_features_in_ = self.coef_.shape[1]

    def _fitted_params(self) -> dict:
        check_is_fitted(self, ["coef_"])
        return {"scores": self.scores_, "coef": self.coef_, "effects": self.item_effects_}

    def scores_for(self, item_features: Any) -> np.ndarray:
        """Log-worths of items from their features alone, in every component (no item
        effects): ``coef_ @ item_features.T + intercept_[:, None]``, on the scale of
        ``scores_``, so new items compare with the fitted ones.

        Parameters
        ----------
        item_features : array-like of float, shape (k, n_features)

        Returns
        -------
        ndarray of float64, shape (K, k)

        Notes
        -----
        Complexity: O(K k d) time.
        """
        check_is_fitted(self, ["coef_"])
        F = np.array(item_features, dtype=np.float64)
        if F.ndim != 2 or F.shape[1] != self.n_features_in_:
            raise ValueError(
                f"item_features must have shape (k, {self.n_features_in_}), got {F.shape}"
            )
        F = check_item_features(F, F.shape[0])
        return self.coef_ @ F.T + self.intercept_[:, None]

    # ---------------------------------------------------------------- rankings of new items
    def _new_items_joint(self, R: Any, item_features: Any) -> np.ndarray:
        """``log weights_k + log P_k(R_i)`` for rankings over items described by
        ``item_features`` (their log-worths from :meth:`scores_for`), shape (n, K)."""
        check_is_fitted(self, ["coef_"])
        R = check_rankings(R, allow_ties=False, kinds=self._kinds, name="R")
        F = check_item_features(align_features(item_features, R.items), R.n_items)
        with np.errstate(divide="ignore"):
            return loglik_rows(R, self.scores_for(F)) + np.log(self.weights_)

    def score_samples(self, R: Any, X: Any = None, *, item_features: Any = None) -> np.ndarray:
        """Log-likelihood of every ranking under the fitted mixture, shape (n,).

        Parameters
        ----------
        R : Rankings or array-like
            Without ``item_features``: rankings over the items of the fit. With them: over
            any ``k`` items (array input read as ``kind="top"``).
        X : None
            Not used (no gate).
        item_features : array-like of float, shape (k, n_features), optional
            Features of the items (columns) of ``R``, new or not; each column is an item
            described by its features only (no item effect), as in
            :meth:`ItemCovariatePlackettLuce.logpdf`.

        Returns
        -------
        ndarray of float64, shape (n,)
        """
        if item_features is None:
            return super().score_samples(R, X)
        return logsumexp(self._new_items_joint(R, item_features), axis=1)

    def predict_proba(self, R: Any, X: Any = None, *, item_features: Any = None) -> np.ndarray:
        """Posterior component probabilities of every ranking, shape (n, K) (rankings of new
        items with ``item_features``, as in :meth:`score_samples`)."""
        if item_features is None:
            return super().predict_proba(R, X)
        joint = self._new_items_joint(R, item_features)
        return np.exp(joint - logsumexp(joint, axis=1)[:, None])

    def predict(self, R: Any, X: Any = None, *, item_features: Any = None) -> np.ndarray:
        """Most probable component of every ranking, shape (n,) (see :meth:`predict_proba`)."""
        if item_features is None:
            return super().predict(R, X)
        return np.argmax(self._new_items_joint(R, item_features), axis=1)

    def score(self, R: Any, y: Any = None, X: Any = None, *, item_features: Any = None) -> float:
        """Mean log-likelihood per ranking, weighted by ``R.weights`` (see
        :meth:`score_samples`)."""
        if item_features is None:
            return super().score(R, y, X)
        R = check_rankings(R, allow_ties=False, kinds=self._kinds, name="R")
        return float(
            np.average(self.score_samples(R, item_features=item_features), weights=R.weights)
        )

    def _validate_loaded_params(self, m: int, k: int) -> None:
        super()._validate_loaded_params(m, k)
        d = loaded.int_attr(self, "n_features_in_", low=1)
        loaded.int_attr(self, "rank_", low=1, high=d)
        loaded.array_attr(self, "coef_", shape=(k, d))
        loaded.array_attr(self, "intercept_", shape=(k,))
        loaded.array_attr(self, "item_effects_", shape=(k, m))
        loaded.array_attr(self, "feature_means_", shape=(d,))
        loaded.array_attr(self, "item_features_", shape=(m, d))
        loaded.array_attr(self, "effective_dof_", shape=(k,), low=0.0)


def _start(coef: np.ndarray, effects: np.ndarray, d: int) -> CovariateScores:
    """A warm start for :func:`fit_covariate_scores` (only ``coef`` and ``item_effects`` are
    read)."""
    nan = float("nan")
    return CovariateScores(
        coef=np.asarray(coef, dtype=np.float64).reshape(d),
        item_effects=np.asarray(effects, dtype=np.float64),
        intercept=nan,
        feature_means=np.full(d, nan),
        scores=np.asarray(effects, dtype=np.float64),
        coef_cov=np.full((d, d), nan),
        rank=0,
        loglik=nan,
        n_iter=0,
        converged=False,
    )

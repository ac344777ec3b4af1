"""Goodness of fit of ranking models: observed against model-expected marginal tables.

Three tables summarise rankings without fitting anything: **first choices** (how often each
item is ranked first), **pairwise preferences** (how often ``a`` is above ``b``) and
**positions** (how often item ``j`` is at position ``r``). :func:`goodness_of_fit` compares
each with what a fitted :class:`~rankclust.models.Mallows`,
:class:`~rankclust.models.PlackettLuce`, :class:`~rankclust.cluster.MallowsMixture` or
:class:`~rankclust.cluster.PlackettLuceMixture` expects, overall and per mixture component,
and :func:`compare_models` puts several models side by side with their information criteria.

What is compared depends on the kind of data (the lengths and item sets are conditioned on,
as the models do):

| data | first choices | positions | pairs ``(a, b)`` |
|---|---|---|---|
| complete | every ranking | every position | every pair |
| ``top`` | every list of length >= 1 | position ``r`` of the lists longer than ``r`` (the first t only) | the pairs a list decides: ``a`` listed and above ``b`` (``b`` listed lower, or absent) |
| ``subset`` | not compared | not compared | pairs of items both present |

Observed tables count rankings (times their weights); a component's tables weight every
ranking by its responsibility (posterior probability of the component), and the expected
table is the component's probability times that soft count (for each length or item set).
The overall expected table is the mixture's: ``N_t sum_k c_k P_k`` for the ``N_t`` rankings
of length (or item set) ``t`` and mixing weights ``c_k``.

Model probabilities are exact where cheap:

* Plackett-Luce: first choices ``v_a / sum v`` and pairs ``v_a / (v_a + v_b)`` in closed
  form (any m; for subset data among the present items, by the internal consistency of PL).
* Mallows: first choices, positions and pairs exactly by the repeated-insertion form of the
  model (items inserted in the centre's order, item ``k`` at slot ``s`` with probability
  proportional to ``q^(k - s)``, ``q = exp(-theta)``): a dynamic programme over the slot of
  one item, O(m^4) time. For subset data the mixture's observed-pairs model uses the same
  programme on the present items with the restricted centre.
* The rest (Plackett-Luce positions; top-t pair tables, which need joint positions):
  exact enumeration of the m! rankings for ``m <= ENUMERATION_MAX_ITEMS`` (8), Monte Carlo
  from the model's exact sampler beyond (``n_draws`` draws, ``random_state``).

Statistics per table: the likelihood-ratio (deviance) statistic
``G2 = 2 sum [O log(O / E) - (O - E)]`` (the Poisson form: it equals the multinomial
``2 sum O log(O / E)`` when the observed and expected totals agree, as they do for first
choices, positions and complete-data pairs, and also counts the number of decided pairs of
top-t data) and Pearson's ``X2 = sum (O - E)^2 / E``. The tables overlap and the parameters
were fitted to the same data, so the chi-squared reference is not used; the p-values are a
**parametric bootstrap**: simulate data sets of the same size and lengths (or item sets)
from the fitted model, **refit** the model to each, and compare the statistic of the refitted
model on its own simulated data with the observed one. Refitting gives a p-value that
accounts for the estimation of the parameters (the fitted model is closer to its own data
than the true model is, so a statistic computed without refitting is stochastically larger
under the null and the p-value is conservative, too large); it costs one fit per replicate.
``refit=False`` skips the fits (cheap, conservative).
"""

from __future__ import annotations

import itertools
import math
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from rankclust.inference.bootstrap import _refuse_covariates
from rankclust.models.mallows import Mallows, mallows_loglik, sample_mallows
from rankclust.models.plackett_luce import PlackettLuce, choice_stages, loglik_rows
from rankclust.rankings import Rankings, check_rankings

__all__ = [
    "ENUMERATION_MAX_ITEMS",
    "FitTables",
    "GoodnessOfFitResult",
    "ModelComparison",
    "compare_models",
    "goodness_of_fit",
]

#: Largest number of items for which model probabilities are computed by enumerating the m!
#: rankings (8! = 40,320); beyond, the quantities without a closed form use Monte Carlo.
ENUMERATION_MAX_ITEMS = 8

#: The three tables, in display order.
TABLES = ("first", "pairs", "positions")
_TABLE_TITLES = {"first": "first choices", "pairs": "pairs", "positions": "positions"}


# --------------------------------------------------------------------------------------------
# result records
# --------------------------------------------------------------------------------------------
@dataclass
class FitTables:
    """Observed and expected tables of one group (a mixture component, or all rankings).

    Attributes
    ----------
    name : str
        ``"overall"`` or ``"cluster k"``.
    size : float
        (Soft) number of rankings of the group.
    observed, expected : dict of str to ndarray or None
        ``"first"``: shape (m,), the count of rankings with each item first;
        ``"pairs"``: shape (m, m), entry ``[a, b]`` the count of rankings with ``a`` above
        ``b`` (the pairs the data decide, see the module docstring), diagonal 0;
        ``"positions"``: shape (m, m), entry ``[j, r]`` the count of rankings with item ``j``
        at 0-based position ``r``. None where the kind of data does not compare the table.
    g2, x2 : dict of str to float
        Likelihood-ratio and Pearson statistics of each compared table.
    """

    name: str
    size: float
    observed: dict[str, np.ndarray | None]
    expected: dict[str, np.ndarray | None]
    g2: dict[str, float] = field(default_factory=dict)
    x2: dict[str, float] = field(default_factory=dict)

    def pair_proportions(self) -> tuple[np.ndarray, np.ndarray]:
        """Observed and expected ``P(a above b | the pair is decided)``, shape (m, m) each.

        NaN where no ranking decides the pair (and on the diagonal).
        """
        out = []
        for table in (self.observed["pairs"], self.expected["pairs"]):
            total = table + table.T
            with np.errstate(invalid="ignore", divide="ignore"):
                p = np.where(total > 0, table / np.where(total > 0, total, 1.0), np.nan)
            np.fill_diagonal(p, np.nan)
            out.append(p)
        return out[0], out[1]


@dataclass
class GoodnessOfFitResult:
    """Result of :func:`goodness_of_fit`.

    Attributes
    ----------
    model : str
        Name of the model (class, and K for mixtures).
    data_kind : {"complete", "top", "subset"}
    items : tuple of str
        Item names (``"0", "1", ...`` when the data are unnamed).
    n_rankings : float
        Total weight of the rankings.
    overall : FitTables
        Observed counts against the mixture's (or model's) expected counts.
    clusters : list of FitTables
        One per component (responsibility-weighted); one entry equal to ``overall`` for a
        single model.
    tables : tuple of str
        The compared tables (``"first"``, ``"pairs"``, ``"positions"``).
    methods : dict of str to str
        How each table's expected values were computed (closed form, stage structure,
        enumeration, or Monte Carlo with its number of draws).
    p_values : dict of str to float, or None
        Parametric-bootstrap p-value of the overall G2 of each table and of their sum
        (``"total"``); None when ``n_bootstrap=0``.
    null_g2 : ndarray of float64, shape (n_bootstrap, n_tables + 1), or None
        Overall G2 of each replicate (columns: ``tables``, then the total).
    n_bootstrap : int
    refit : bool
        Whether each replicate was refitted (see the module docstring).
    n_failed : int
        Replicates whose refit raised (left out of the p-values).
    """

    model: str
    data_kind: str
    items: tuple[str, ...]
    n_rankings: float
    overall: FitTables
    clusters: list[FitTables]
    tables: tuple[str, ...]
    methods: dict[str, str]
    p_values: dict[str, float] | None = None
    null_g2: np.ndarray | None = None
    n_bootstrap: int = 0
    refit: bool = True
    n_failed: int = 0

    @property
    def total_g2(self) -> float:
        """Sum of the overall G2 over the compared tables."""
        return float(sum(self.overall.g2[t] for t in self.tables))

    def to_markdown(self, *, digits: int = 1) -> str:
        """The statistics of every group and the overall tables, as markdown."""
        lines = [
            f"Goodness of fit of {self.model} on {_fmt(self.n_rankings)} {self.data_kind} "
            f"rankings over {len(self.items)} items.",
            "",
            "| group | size | " + " | ".join(f"G2 {_TABLE_TITLES[t]}" for t in self.tables)
            + " | " + " | ".join(f"X2 {_TABLE_TITLES[t]}" for t in self.tables) + " |",
            "|---|---:|" + "---:|" * (2 * len(self.tables)),
        ]  # fmt: skip
        groups = [self.overall] + (self.clusters if len(self.clusters) > 1 else [])
        for g in groups:
            cells = [f"{g.g2[t]:.{digits}f}" for t in self.tables]
            cells += [f"{g.x2[t]:.{digits}f}" for t in self.tables]
            lines.append(f"| {g.name} | {_fmt(g.size)} | " + " | ".join(cells) + " |")
        if self.p_values is not None:
            how = "refitted" if self.refit else "not refitted (conservative)"
            ps = ", ".join(f"{k} {v:.3g}" for k, v in self.p_values.items())
            lines += ["", f"Parametric-bootstrap p-values of the overall G2 ({self.n_bootstrap} "
                      f"replicates, {how}): {ps}."]  # fmt: skip
            if self.n_failed:
                lines.append(f"{self.n_failed} replicate(s) failed to refit and were left out.")
        lines += [
            "",
            "Expected values: " + "; ".join(f"{k}: {v}" for k, v in self.methods.items()),
        ]
        first_o, first_e = self.overall.observed.get("first"), self.overall.expected.get("first")
        if first_o is not None:
            lines += ["", "| item | observed first | expected first |", "|---|---:|---:|"]
            for j, name in enumerate(self.items):
                lines.append(f"| {name} | {_fmt(first_o[j])} | {first_e[j]:.{digits}f} |")
        po, pe = self.overall.pair_proportions()
        lines += ["", "| pair a > b | observed P | expected P |", "|---|---:|---:|"]
        for a, b in itertools.combinations(range(len(self.items)), 2):
            if np.isfinite(po[a, b]):
                lines.append(
                    f"| {self.items[a]} > {self.items[b]} | {po[a, b]:.3f} | {pe[a, b]:.3f} |"
                )
        return "\n".join(lines)


@dataclass
class ModelComparison:
    """Result of :func:`compare_models`: one row per model.

    Attributes
    ----------
    names : list of str
    log_likelihood, n_parameters, bic, aic : ndarray of float64, shape (n_models,)
        ``bic = -2 ll + p log N``, ``aic = -2 ll + 2 p`` with ``N`` the total weight.
    fits : list of GoodnessOfFitResult
    models : list of fitted estimators
    """

    names: list[str]
    log_likelihood: np.ndarray
    n_parameters: np.ndarray
    bic: np.ndarray
    aic: np.ndarray
    fits: list[GoodnessOfFitResult]
    models: list[Any]

    def to_markdown(self, *, digits: int = 1) -> str:
        """One row per model: log-likelihood, p, BIC, AIC, overall G2 (and p-values)."""
        tables = self.fits[0].tables
        boot = self.fits[0].p_values is not None
        head = ["model", "log-lik", "p", "BIC", "AIC"]
        head += [f"G2 {_TABLE_TITLES[t]}" for t in tables] + ["G2 total"]
        if boot:
            head += [f"p {_TABLE_TITLES[t]}" for t in tables] + ["p total", "null median G2 total"]
        lines = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * (len(head) - 1)]
        best = int(np.argmin(self.bic))
        for i, name in enumerate(self.names):
            f = self.fits[i]
            cells = [
                f"**{name}**" if i == best else name,
                f"{self.log_likelihood[i]:.{digits}f}",
                _fmt(self.n_parameters[i]),
                f"{self.bic[i]:.{digits}f}",
                f"{self.aic[i]:.{digits}f}",
            ]
            cells += [f"{f.overall.g2[t]:.{digits}f}" for t in tables]
            cells.append(f"{f.total_g2:.{digits}f}")
            if boot:
                cells += [f"{f.p_values[t]:.3g}" for t in tables] + [f"{f.p_values['total']:.3g}"]
                cells.append(f"{np.nanmedian(f.null_g2[:, -1]):.{digits}f}")
            lines.append("| " + " | ".join(cells) + " |")
        notes = [f"Bold: smallest BIC. N = {_fmt(self.fits[0].n_rankings)} rankings."]
        if boot:
            f = self.fits[0]
            how = "refitted" if f.refit else "not refitted"
            notes.append(f"p: parametric bootstrap, {f.n_bootstrap} replicates, {how}.")
        return "\n".join(lines) + "\n\n" + " ".join(notes)


def _fmt(x: float) -> str:
    x = float(x)
    return str(round(x)) if abs(x - round(x)) < 1e-9 else f"{x:.1f}"


# --------------------------------------------------------------------------------------------
# the components of a fitted model
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Component:
    """One ranking distribution: Mallows (``center``, ``theta``) or PL (``scores``).

    ``restricted``: for subset data, the Mallows model on the present items with the centre
    restricted to them (the mixture's observed-pairs likelihood) instead of the marginal.
    """

    family: str
    center: np.ndarray | None = None
    theta: float = 0.0
    scores: np.ndarray | None = None
    restricted: bool = False


def _is_mixture(model: Any) -> bool:
    return hasattr(model, "n_components") and hasattr(model, "predict_proba")


def _components(model: Any) -> tuple[np.ndarray, list[_Component]]:
    """Mixing weights and components of a fitted model (a single model: one component)."""
    if isinstance(model, Mallows):
        check_is_fitted(model, ["center_", "theta_"])
        return np.ones(1), [_Component("mallows", np.asarray(model.center_), model.theta_)]
    if isinstance(model, PlackettLuce):
        check_is_fitted(model, "scores_")
        return np.ones(1), [_Component("pl", scores=np.asarray(model.scores_))]
    if _is_mixture(model):
        check_is_fitted(model, "weights_")
        distance = getattr(model, "distance", "kendall")
        if distance != "kendall":
            raise ValueError(
                f"the goodness-of-fit test of a MallowsMixture is for distance='kendall', not "
                f"{distance!r}"
            )
        w = np.asarray(model.weights_, dtype=np.float64)
        if hasattr(model, "thetas_"):
            centers = model.centers_.ranks
            comps = [
                _Component("mallows", centers[k], float(model.thetas_[k]), restricted=True)
                for k in range(len(w))
            ]
        else:
            comps = [_Component("pl", scores=model.scores_[k]) for k in range(len(w))]
        return w, comps
    raise TypeError(
        "model must be a Mallows, PlackettLuce, MallowsMixture or PlackettLuceMixture, "
        f"got {type(model).__name__}"
    )


def _fitted(model: Any) -> bool:
    try:
        _components(model)
    except NotFittedError:
        return False
    return True


def _model_name(model: Any) -> str:
    name = type(model).__name__
    return f"{name}(K={model.n_components})" if _is_mixture(model) else name


def _n_parameters(model: Any, m: int) -> float:
    """Free parameters: the mixtures' ``n_parameters_``; a single model counts as K = 1.

    Mallows counts its dispersion only (the centre is discrete, as ``MallowsMixture``'s
    default ``center_dof=0``); Plackett-Luce its ``m - 1`` free log-worths.
    """
    if _is_mixture(model):
        return float(model.n_parameters_)
    return 1.0 if isinstance(model, Mallows) else float(m - 1)


# --------------------------------------------------------------------------------------------
# model probabilities
# --------------------------------------------------------------------------------------------
def _rim_marginals(theta: float, m: int) -> tuple[np.ndarray, np.ndarray]:
    """Position and pair marginals of Mallows(identity centre, theta) by repeated insertion.

    Items are inserted in the centre's order; item ``k`` (``k`` items already placed) goes to
    slot ``s`` in ``0..k`` with probability ``q^(k - s) / Z_k``. The relative order of two
    placed items never changes, so tracking the slot of item ``i`` through the later
    insertions gives its final position and its order with every later item.

    Returns
    -------
    pos : ndarray, shape (m, m)
        ``pos[i, r]`` = P(the centre's i-th item ends at position r).
    pairs : ndarray, shape (m, m)
        ``pairs[i, j]`` = P(the centre's i-th item is above its j-th item).
    """
    pos = np.zeros((m, m))
    pairs = np.zeros((m, m))
    # cumulative slot probabilities: cum[k][p] = P(item k inserted at a slot <= p)
    cum = []
    for k in range(m):
        logits = -theta * (k - np.arange(k + 1))
        prob = np.exp(logits - logits.max())
        cum.append(np.cumsum(prob / prob.sum()))
    for i in range(m):
        dist = np.zeros(m)
        dist[: i + 1] = np.diff(np.concatenate([[0.0], cum[i]]))  # slot of item i
        for k in range(i + 1, m):
            below = np.zeros(m)
            below[:k] = cum[k][:k]  # P(new item lands at or before slot p): i moves down
            before = float(dist[:k] @ below[:k])
            pairs[k, i] = before
            pairs[i, k] = 1.0 - before
            shifted = dist * below
            dist = dist - shifted
            dist[1:] += shifted[:-1]
        pos[i] = dist
    return pos, pairs


def _as_item_order(center: np.ndarray) -> np.ndarray:
    """``order[i]`` = the item at the centre's position i."""
    return np.argsort(center, kind="stable")


def _complete_loglik(comp: _Component, ranks: np.ndarray) -> np.ndarray:
    R = Rankings._from_trusted(ranks, kind="subset")
    if comp.family == "mallows":
        return mallows_loglik(R, comp.center, comp.theta)
    return loglik_rows(choice_stages(R), comp.scores)


def _sample_complete(comp: _Component, size: int, rng: np.random.RandomState) -> np.ndarray:
    if comp.family == "mallows":
        return sample_mallows(comp.center, comp.theta, size, rng).ranks
    return PlackettLuce.from_params(scores=comp.scores).sample(size, rng).ranks


@dataclass
class _Probabilities:
    """A component's marginal probabilities for complete and top-t data.

    ``first[j]``, ``positions[j, r]``, ``pairs[a, b]`` = P(a above b), and ``pairs_top[t]``
    = P(a above b and a within the first t) for t = 1..m (index t), which is the probability
    that a top-t list decides the pair as ``a > b``.
    """

    first: np.ndarray
    positions: np.ndarray
    pairs: np.ndarray
    pairs_top: np.ndarray | None


def _tables_from_rankings(ranks: np.ndarray, p: np.ndarray, m: int) -> _Probabilities:
    """Marginals of the distribution putting mass ``p`` on the complete rankings ``ranks``.

    O(n m^2) time: the pairs ``a`` above ``b`` are accumulated by the position of ``a``, then
    summed cumulatively over the positions to give every top-t table.
    """
    positions = np.zeros((m, m))
    for r in range(m):
        positions[:, r] = p @ (ranks == r)
    by_position = np.zeros((m, m, m))  # [a, r, b]: P(a at position r and above b)
    for a in range(m):
        above = (ranks[:, a, None] < ranks) * p[:, None]
        np.add.at(by_position[a], ranks[:, a], above)
    pairs_top = np.zeros((m + 1, m, m))
    pairs_top[1:] = np.cumsum(by_position, axis=1).transpose(1, 0, 2)
    return _Probabilities(positions[:, 0].copy(), positions, pairs_top[m].copy(), pairs_top)


def _component_probabilities(
    comp: _Component, m: int, kind: str, n_draws: int, rng: np.random.RandomState
) -> tuple[_Probabilities, dict[str, str]]:
    """Exact where cheap, enumeration for small m, Monte Carlo otherwise (see module doc)."""
    how: dict[str, str] = {}
    enum = m <= ENUMERATION_MAX_ITEMS
    need_top = kind == "top"
    # what has no closed form here: top-t pairs, Plackett-Luce positions (not for subset data)
    need_rest = need_top or (comp.family == "pl" and kind != "subset")
    base, rest = None, ""
    if need_rest:
        if enum:
            perms = np.array(list(itertools.permutations(range(m))), dtype=np.int64)
            p = np.exp(_complete_loglik(comp, perms))
            base = _tables_from_rankings(perms, p / p.sum(), m)
            rest = f"exact enumeration of the {math.factorial(m)} rankings"
        else:
            draws = _sample_complete(comp, n_draws, rng)
            base = _tables_from_rankings(draws, np.full(n_draws, 1.0 / n_draws), m)
            rest = f"Monte Carlo, {n_draws} draws from the model"
    if comp.family == "mallows":
        pos_c, pair_c = _rim_marginals(comp.theta, m)
        order = _as_item_order(comp.center)
        positions = np.empty((m, m))
        positions[order] = pos_c
        pairs = np.empty((m, m))
        pairs[np.ix_(order, order)] = pair_c
        how["first"] = how["positions"] = "exact (repeated insertion)"
        how["pairs"] = "exact (repeated insertion)"
    else:
        v = np.exp(comp.scores - comp.scores.max())
        pairs = v[:, None] / (v[:, None] + v[None, :])
        np.fill_diagonal(pairs, 0.0)
        positions = base.positions.copy() if base is not None else np.full((m, m), np.nan)
        positions[:, 0] = v / v.sum()
        how["first"] = "exact (closed form v_a / sum v)"
        how["pairs"] = "exact (closed form v_a / (v_a + v_b))"
        how["positions"] = rest if base is not None else "not needed"
    pairs_top = None
    if need_top:
        pairs_top = base.pairs_top.copy()
        pairs_top[m] = pairs
        how["pairs"] = f"{how['pairs']} for complete rankings; top-t lists: {rest}"
    return _Probabilities(positions[:, 0].copy(), positions, pairs, pairs_top), how


def _subset_pairs(comp: _Component, mask: np.ndarray, full_pairs: np.ndarray, cache: dict) -> Any:
    """P(a above b) among the present items ``mask`` (shape (m, m), zero off the mask)."""
    idx = np.flatnonzero(mask)
    out = np.zeros((mask.size, mask.size))
    if comp.family == "mallows" and comp.restricted:
        t = idx.size
        if t not in cache:
            cache[t] = _rim_marginals(comp.theta, t)[1]
        order = idx[np.argsort(comp.center[idx], kind="stable")]
        out[np.ix_(order, order)] = cache[t]
    else:
        out[np.ix_(idx, idx)] = full_pairs[np.ix_(idx, idx)]
    return out


# --------------------------------------------------------------------------------------------
# observed and expected tables
# --------------------------------------------------------------------------------------------
def _data_kind(R: Rankings) -> str:
    return "complete" if R.is_complete else R.kind


def _observed(ranks: np.ndarray, kind: str, S: np.ndarray) -> dict[str, np.ndarray | None]:
    """Observed tables for each column of the row weights ``S`` (n, G): arrays (G, ...)."""
    m = ranks.shape[1]
    G = S.shape[1]
    present = ranks >= 0
    pairs = np.zeros((G, m, m))
    for a in range(m):
        if kind == "subset":
            above = present[:, a, None] & present & (ranks[:, a, None] < ranks)
        else:  # complete / top: a listed and b lower or absent
            above = present[:, a, None] & ((ranks[:, a, None] < ranks) | ~present)
        above[:, a] = False
        pairs[:, a, :] = S.T @ above
    out: dict[str, np.ndarray | None] = {"pairs": pairs, "first": None, "positions": None}
    if kind != "subset":
        positions = np.zeros((G, m, m))
        for r in range(m):
            positions[:, :, r] = S.T @ (ranks == r)
        out["positions"] = positions
        out["first"] = positions[:, :, 0].copy()
    return out


def _expected_top(
    probs: _Probabilities, lengths: np.ndarray, s: np.ndarray, kind: str, m: int
) -> dict[str, np.ndarray | None]:
    """Expected tables for complete/top data with (soft) row weights ``s``."""
    n_t = np.bincount(lengths, weights=s, minlength=m + 1)  # soft count per length
    listed = n_t[1:].sum()
    at_least = np.cumsum(n_t[::-1])[::-1]  # at_least[t] = rows with length >= t
    positions = probs.positions * at_least[1:][None, :]  # position r needs length > r
    if kind == "complete":
        pairs = probs.pairs * listed
    else:
        pairs = np.tensordot(n_t, probs.pairs_top, axes=(0, 0))
    np.fill_diagonal(pairs, 0.0)
    return {"first": probs.first * listed, "positions": positions, "pairs": pairs}


def _expected_subset(
    comp: _Component, probs_pairs: np.ndarray, masks: np.ndarray, inverse: np.ndarray,
    s: np.ndarray, cache: dict,
) -> dict[str, np.ndarray | None]:  # fmt: skip
    n_mask = np.bincount(inverse, weights=s, minlength=len(masks))
    pairs = np.zeros((masks.shape[1],) * 2)
    for u in np.flatnonzero(n_mask > 0):
        pairs += n_mask[u] * _subset_pairs(comp, masks[u], probs_pairs, cache)
    return {"first": None, "positions": None, "pairs": pairs}


def _g2(o: np.ndarray, e: np.ndarray) -> float:
    """Poisson deviance ``2 sum [O log(O/E) - (O - E)]`` (0 log 0 = 0)."""
    o, e = np.asarray(o, float).ravel(), np.asarray(e, float).ravel()
    if np.any((e <= 0) & (o > 0)):
        return math.inf
    keep = e > 0
    o, e = o[keep], e[keep]
    with np.errstate(divide="ignore", invalid="ignore"):
        term = np.where(o > 0, o * np.log(o / e), 0.0)
    return float(max(2.0 * np.sum(term - (o - e)), 0.0))


def _x2(o: np.ndarray, e: np.ndarray) -> float:
    o, e = np.asarray(o, float).ravel(), np.asarray(e, float).ravel()
    if np.any((e <= 0) & (o > 0)):
        return math.inf
    keep = e > 0
    return float(np.sum((o[keep] - e[keep]) ** 2 / e[keep]))


def _offdiag(a: np.ndarray) -> np.ndarray:
    return a[~np.eye(a.shape[0], dtype=bool)]


def _statistics(tables: FitTables, names: tuple[str, ...]) -> None:
    for t in names:
        o, e = tables.observed[t], tables.expected[t]
        if t == "pairs":
            o, e = _offdiag(o), _offdiag(e)
        tables.g2[t] = _g2(o, e)
        tables.x2[t] = _x2(o, e)


def _evaluate(
    model: Any, R: Rankings, *, per_cluster: bool, n_draws: int, rng: np.random.RandomState
) -> tuple[FitTables, list[FitTables], tuple[str, ...], dict[str, str]]:
    """Overall (and per-component) tables of a fitted model on distinct rankings ``R``."""
    kind = _data_kind(R)
    n, m = R.shape
    ranks, w = R.ranks, R.weights
    mix_w, comps = _components(model)
    K = len(comps)
    resp = np.ones((n, 1))
    if per_cluster and K > 1:
        resp = np.asarray(model.predict_proba(R))
    elif K > 1:
        resp = np.zeros((n, 0))
    S = np.column_stack([w, w[:, None] * resp]) if K > 1 and per_cluster else w[:, None]
    observed = _observed(ranks, kind, S)
    names = ("pairs",) if kind == "subset" else TABLES
    lengths = R.lengths.astype(np.int64)
    if kind == "complete":
        lengths = np.full(n, m, dtype=np.int64)
    masks = inverse = None
    if kind == "subset":
        masks, inverse = np.unique(ranks >= 0, axis=0, return_inverse=True)
        inverse = inverse.reshape(-1)
    expected_parts: list[list[dict]] = []  # [component][group] -> tables
    methods: dict[str, str] = {}
    for k, comp in enumerate(comps):
        probs, how = _component_probabilities(comp, m, kind, n_draws, rng)
        methods.update(how)
        cache: dict = {}
        groups = [mix_w[k] * w] + ([w * resp[:, k]] if S.shape[1] > 1 else [])
        parts = []
        for s in groups:
            if kind == "subset":
                parts.append(_expected_subset(comp, probs.pairs, masks, inverse, s, cache))
            else:
                parts.append(_expected_top(probs, lengths, s, kind, m))
        expected_parts.append(parts)
    if kind == "subset":
        methods = {"pairs": methods["pairs"]}
        if any(c.restricted for c in comps):
            methods["pairs"] = "exact (repeated insertion on the present items, restricted centre)"
    total = float(w.sum())

    def _group(g: int, name: str, size: float, parts: list[dict]) -> FitTables:
        obs = {t: (observed[t][g] if observed[t] is not None else None) for t in TABLES}
        exp = {t: (sum(p[t] for p in parts) if parts[0][t] is not None else None) for t in TABLES}
        ft = FitTables(name, size, obs, exp)
        _statistics(ft, names)
        return ft

    overall = _group(0, "overall", total, [parts[0] for parts in expected_parts])
    clusters = [overall]
    if S.shape[1] > 1:
        clusters = [
            _group(k + 1, f"cluster {k}", float(S[:, k + 1].sum()), [expected_parts[k][1]])
            for k in range(K)
        ]
    return overall, clusters, names, methods


# --------------------------------------------------------------------------------------------
# parametric bootstrap
# --------------------------------------------------------------------------------------------
def _simulate(model: Any, R: Rankings, kind: str, rng: np.random.RandomState) -> Rankings:
    """Data of the same size and lengths (top) or item sets (subset) as ``R`` from ``model``."""
    counts = np.round(R.weights).astype(np.int64)
    if not np.allclose(counts, R.weights):
        raise ValueError("the parametric bootstrap needs integer weights (counts of rankings)")
    n = int(counts.sum())
    mix_w, comps = _components(model)
    z = (
        rng.choice(len(comps), size=n, p=mix_w / mix_w.sum())
        if len(comps) > 1
        else np.zeros(n, int)
    )
    ranks = np.empty((n, R.n_items), dtype=np.int64)
    for k, comp in enumerate(comps):
        rows = np.flatnonzero(z == k)
        if rows.size:
            ranks[rows] = _sample_complete(comp, rows.size, rng)
    rows = rng.permutation(np.repeat(np.arange(R.n_rankings), counts))
    if kind == "top":
        t = R.lengths[rows]
        ranks = np.where(ranks < t[:, None], ranks, -1)
    elif kind == "subset":
        mask = R.ranks[rows] >= 0
        # keep the order of the present items, as dense positions 0..t-1
        key = np.where(mask, ranks, R.n_items)
        dense = np.argsort(np.argsort(key, axis=1, kind="stable"), axis=1)
        ranks = np.where(mask, dense, -1)
    data = Rankings(ranks, kind="top" if kind == "top" else R.kind, items=R.items)
    return data.unique()[0]


def _bootstrap(
    model: Any, R: Rankings, observed: np.ndarray, names: tuple[str, ...], n_bootstrap: int,
    refit: bool, n_draws: int, rng: np.random.RandomState,
) -> tuple[dict[str, float], np.ndarray, int]:  # fmt: skip
    kind = _data_kind(R)
    null = np.full((n_bootstrap, len(names) + 1), np.nan)
    failed = 0
    for b in range(n_bootstrap):
        Rb = _simulate(model, R, kind, rng)
        fitted = model
        if refit:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    fitted = clone(model).fit(Rb)
            except (ValueError, ArithmeticError):
                failed += 1
                continue
        overall, _, _, _ = _evaluate(fitted, Rb, per_cluster=False, n_draws=n_draws, rng=rng)
        stats = [overall.g2[t] for t in names]
        null[b] = [*stats, sum(stats)]
    ok = null[~np.isnan(null).any(axis=1)]
    p = {}
    for c, name in enumerate((*names, "total")):
        p[name] = float((1 + np.sum(ok[:, c] >= observed[c] - 1e-9)) / (1 + len(ok)))
    return p, null, failed


# --------------------------------------------------------------------------------------------
# public functions
# --------------------------------------------------------------------------------------------
def goodness_of_fit(
    model: Any,
    R: Any,
    *,
    n_bootstrap: int = 0,
    refit: bool = True,
    n_draws: int = 20000,
    random_state: Any = None,
) -> GoodnessOfFitResult:
    """Observed against model-expected first choices, pairs and positions, with G2 and X2.

    Parameters
    ----------
    model : fitted Mallows, PlackettLuce, MallowsMixture or PlackettLuceMixture
    R : Rankings or array-like
        The rankings (usually the training data), without ties. What each table compares for
        complete, top-t and subset data is in :mod:`rankclust.inference.goodness_of_fit`.
    n_bootstrap : int, default=0
        Parametric-bootstrap replicates for the p-values (0: none). Needs integer weights.
    refit : bool, default=True
        Refit the model to every replicate (a p-value for fitted parameters; one fit per
        replicate). ``False`` evaluates the fitted model on the replicates: cheap, and
        conservative (p-values too large) because the parameters were fitted to the data.
    n_draws : int, default=20000
        Monte Carlo draws per component for the quantities without a closed form when
        ``m > ENUMERATION_MAX_ITEMS`` (Plackett-Luce positions, top-t pairs).
    random_state : None, int or RandomState, default=None
        Seeds the Monte Carlo draws and the bootstrap.

    Returns
    -------
    GoodnessOfFitResult

    Notes
    -----
    Complexity: O(n m^2 K) for the observed tables (n distinct rankings), O(m^4 K) for the
    Mallows marginals, O(m! m^3 K) by enumeration (m <= 8) or O(n_draws m^3 K) by Monte Carlo
    for the rest; times (1 + n_bootstrap), plus one fit per replicate when ``refit``.

    Examples
    --------
    >>> from rankclust.models import PlackettLuce
    >>> true = PlackettLuce.from_params(scores=[1.0, 0.0, -1.0])
    >>> R = true.sample(500, random_state=0)
    >>> res = goodness_of_fit(PlackettLuce().fit(R), R)
    >>> float(res.overall.expected["first"].sum())
    500.0
    >>> res.tables
    ('first', 'pairs', 'positions')
    """
    _refuse_covariates(model, "goodness_of_fit")
    if (
        isinstance(n_bootstrap, bool)
        or not isinstance(n_bootstrap, (int, np.integer))
        or n_bootstrap < 0
    ):
        raise ValueError(f"n_bootstrap must be a non-negative integer, got {n_bootstrap!r}")
    if not isinstance(n_draws, (int, np.integer)) or n_draws < 1:
        raise ValueError(f"n_draws must be a positive integer, got {n_draws!r}")
    _components(model)  # a clear error for an unsupported or unfitted model
    R = check_rankings(
        R, allow_ties=False, n_items=model.n_items_, name="R", items=getattr(model, "items_", None)
    )
    if R.n_items < 2:
        raise ValueError("goodness_of_fit needs at least 2 items")
    if _is_mixture(model) and R.kind != model.kind_:
        R = R.with_kind(model.kind_) if R.is_complete else R
    rng = check_random_state(random_state)
    Ru = R.unique()[0]
    Ru = Ru[np.flatnonzero(Ru.weights > 0)]
    overall, clusters, names, methods = _evaluate(
        model, Ru, per_cluster=True, n_draws=n_draws, rng=rng
    )
    items = R.items or tuple(str(j) for j in range(R.n_items))
    result = GoodnessOfFitResult(
        model=_model_name(model),
        data_kind=_data_kind(Ru),
        items=tuple(items),
        n_rankings=float(Ru.weights.sum()),
        overall=overall,
        clusters=clusters,
        tables=names,
        methods=methods,
        n_bootstrap=int(n_bootstrap),
        refit=bool(refit),
    )
    if n_bootstrap:
        obs = np.array([*(overall.g2[t] for t in names), result.total_g2])
        result.p_values, result.null_g2, result.n_failed = _bootstrap(
            model, Ru, obs, names, int(n_bootstrap), refit, n_draws, rng
        )
    return result


def compare_models(
    R: Any,
    models: Any,
    *,
    n_bootstrap: int = 0,
    refit: bool = True,
    n_draws: int = 20000,
    random_state: Any = None,
) -> ModelComparison:
    """Fit (or take fitted) ranking models on the same data and compare fit and criteria.

    Parameters
    ----------
    R : Rankings or array-like
    models : sequence of estimators, or dict of name to estimator
        Mallows, PlackettLuce, MallowsMixture, PlackettLuceMixture. Unfitted estimators are
        cloned and fitted to ``R``; fitted ones are used as they are.
    n_bootstrap, refit, n_draws, random_state
        As in :func:`goodness_of_fit`.

    Returns
    -------
    ModelComparison
        Log-likelihood (sum over the weighted rankings), number of free parameters (as in
        the mixtures' ``n_parameters_``; a single model counts as K = 1), BIC, AIC and the
        goodness-of-fit record of each model.

    Notes
    -----
    The log-likelihoods compare like with like for complete and top-t data (every model
    gives the probability of the observed list). For subset data ``Mallows`` reports the
    exact marginal and ``MallowsMixture`` its observed-pairs likelihood, which differ.

    Examples
    --------
    >>> from rankclust.models import Mallows, PlackettLuce
    >>> R = PlackettLuce.from_params(scores=[1.0, 0.0, -1.0]).sample(300, random_state=0)
    >>> table = compare_models(R, {"Mallows": Mallows(), "PL": PlackettLuce()})
    >>> table.names
    ['Mallows', 'PL']
    """
    if isinstance(models, dict):
        names, estimators = [str(k) for k in models], list(models.values())
    else:
        estimators = list(models)
        names = [_model_name(e) for e in estimators]
    if not estimators:
        raise ValueError("models is empty")
    R = check_rankings(R, allow_ties=False, name="R")
    N = float(R.weights.sum())
    rng = check_random_state(random_state)
    fitted, lls, ps, fits = [], [], [], []
    for est in estimators:
        f = est if _fitted(est) else clone(est).fit(R)
        Rk = R.with_kind(f.kind_) if _is_mixture(f) and R.is_complete else R
        ll = f.score_samples(Rk) if _is_mixture(f) else f.logpdf(Rk)
        lls.append(float(np.dot(Rk.weights, ll)))
        ps.append(_n_parameters(f, R.n_items))
        fits.append(
            goodness_of_fit(
                f, Rk, n_bootstrap=n_bootstrap, refit=refit, n_draws=n_draws, random_state=rng
            )
        )
        fitted.append(f)
    ll_a, p_a = np.array(lls), np.array(ps)
    return ModelComparison(
        names=names,
        log_likelihood=ll_a,
        n_parameters=p_a,
        bic=-2 * ll_a + p_a * np.log(N),
        aic=-2 * ll_a + 2 * p_a,
        fits=fits,
        models=fitted,
    )

"""Plackett-Luce with item covariates on SUSHI set B: held-out respondents and held-out items.

Data (read from ``$RANKCLUST_DATA`` or ``../shared/data`` beside the repository, never copied:
the licence forbids redistribution): ``sushi3b.5000.10.order``, 5,000 respondents each ranking
10 of the 100 sushis of item set B (``kind="subset"``), and ``sushi3.idata``, the features of
the 100 sushis. The design has 16 columns: style (1 = not maki), the minor group as 11
indicators (group 0, aomono / blue-skinned fish, is the reference; the major group, seafood or
not, is a union of minor groups and so left out), and the four numeric features standardised
over the 100 items: heaviness (0 heavy/oily ... 4 light), how often respondents eat it, price,
how often shops sell it.

Models: ``equal worths`` (every ranking of l items has probability 1/l!); ``PL`` =
:class:`~rankclust.models.PlackettLuce` (one free worth per item, maximum likelihood);
``covariates`` = :class:`~rankclust.models.ItemCovariatePlackettLuce` (worths from the 16
features only); ``covariates + effects (lambda)`` = the same with ridge item effects of
penalty lambda.

Splits (``KFold(10, shuffle=True, random_state=0)``):

* ``respondents``: fit on 9 folds of respondents, mean held-out log-likelihood per respondent
  on the 10th;
* ``items``: fold f holds out fold f of the respondents *and* fold f of the items (10 of 100).
  The models are fitted on the other respondents' rankings with the held-out items deleted,
  so nobody in training ranked them. Scored on the held-out respondents: (a) their rankings
  restricted to the held-out items (respondents who ranked at least two of them), the
  log-likelihood per respondent and the share of pairs of held-out items ordered as the
  respondent did; (b) the complete 10-item rankings of the held-out respondents who ranked at
  least one held-out item. Plain PL cannot say anything about an unseen item: its baseline
  gives the unseen items the mean log-worth of the seen ones (equal worths among themselves,
  so in (a) it *is* equal worths). ``PL that saw the items`` is fitted on the same respondents
  without deleting anything: a reference for what the items' own rankings would give, not a
  competitor.

The coefficients (95% Wald intervals from the analytic observed information) of the
covariate model fitted on all 5,000 respondents close the report, with the standard errors
from a central-difference Hessian of the log-likelihood beside the analytic ones.

Usage::

    nice python experiments/studies/item_covariates_sushi.py --split respondents  # ~2 min
    nice python experiments/studies/item_covariates_sushi.py --split items        # ~2 min
    nice python experiments/studies/item_covariates_sushi.py --split mixtures     # ~5 min
    python experiments/studies/item_covariates_sushi.py --report                  # render only

Each split writes aggregates only (per-fold numbers) to
``results/raw/item_covariates_sushi_<split>.json``; ``--report`` renders
``results/item_covariates_sushi.md`` from them (the mixtures' section when its file exists).

``mixtures``: the plain Plackett-Luce mixture against the mixture of item-covariate
Plackett-Luce models (:class:`~rankclust.cluster.ItemCovariatePLMixture`), K = 1..3, two
starts each, on the folds of ``respondents``; and their BIC on all respondents.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.model_selection import KFold

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _common import (
    data_home,
    limit_threads,
    md_table,
    paths,
    platform_line,
    write_json,
    write_report,
)

from rankclust import Rankings
from rankclust.cluster import ItemCovariatePLMixture, PlackettLuceMixture
from rankclust.datasets import fetch_sushi
from rankclust.io import read_sushi_idata
from rankclust.models import ItemCovariatePlackettLuce, PlackettLuce
from rankclust.models.plackett_luce import choice_stages, loglik_rows

PATHS = paths(__file__)
REPORT = PATHS.results / "item_covariates_sushi.md"
MINOR = (
    "aomono (blue-skinned fish)",
    "akami (red meat fish)",
    "shiromi (white-meat fish)",
    "tare (basted, eel)",
    "clam or shell",
    "squid or octopus",
    "shrimp or crab",
    "roe",
    "other seafood",
    "egg",
    "meat other than fish",
    "vegetables",
)
FEATURES = (
    "style: not maki",
    *(f"minor group: {g}" for g in MINOR[1:]),
    "heaviness (per sd; high = light)",
    "eaten often (per sd)",
    "price (per sd)",
    "sold often (per sd)",
)
EFFECTS = (1.0, 10.0, 100.0)
#: Components and restarts of the mixtures (``--split mixtures``): two starts each (not the
#: default ``n_init="auto"``) to keep the 10 folds within about 5 minutes.
MIXTURE_KS = (1, 2, 3)
MIXTURE_N_INIT = 2


def design() -> np.ndarray:
    """The 100 x 16 item design described in the module docstring."""
    _, _, X = read_sushi_idata(data_home() / "sushi3" / "sushi3.idata")
    minor = (X[:, 2][:, None] == np.arange(1, 12)).astype(float)
    num = X[:, 3:]
    num = (num - num.mean(axis=0)) / num.std(axis=0)
    return np.c_[X[:, 0], minor, num]


def models() -> dict:
    out = {
        "PL": lambda: PlackettLuce(),
        "covariates": lambda: ItemCovariatePlackettLuce(),
    }
    for lam in EFFECTS:
        out[f"covariates + effects ({lam:g})"] = lambda lam=lam: ItemCovariatePlackettLuce(
            item_effect_penalty=lam
        )
    return out


def fit(name: str, make, R: Rankings, F: np.ndarray):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a warning would invalidate the comparison
        if name.startswith("PL"):
            return make().fit(R)
        return make().fit(R, item_features=F)


def equal_worths_loglik(R: Rankings) -> np.ndarray:
    return PlackettLuce.from_params(scores=np.zeros(R.n_items)).logpdf(R)


def run_respondents(R: Rankings, F: np.ndarray) -> dict:
    folds = KFold(10, shuffle=True, random_state=0).split(np.arange(R.n_rankings))
    rows: dict[str, list] = {"equal worths": [], **{k: [] for k in models()}}
    times: dict[str, list] = {k: [] for k in models()}
    for f, (train, test) in enumerate(folds):
        rows["equal worths"].append(float(equal_worths_loglik(R[test]).mean()))
        for name, make in models().items():
            t0 = time.perf_counter()
            model = fit(name, make, R[train], F)
            times[name].append(time.perf_counter() - t0)
            rows[name].append(float(model.logpdf(R[test]).mean()))
        print(f"fold {f}: " + ", ".join(f"{k} {v[-1]:.4f}" for k, v in rows.items()), flush=True)
    full = ItemCovariatePlackettLuce().fit(R, item_features=F)
    se_numeric = numerical_standard_errors(R, F, full.coef_)
    return {
        "se_numeric": se_numeric.tolist(),
        "loglik": rows,
        "fit_seconds": times,
        "coef": full.coef_.tolist(),
        "se": full.standard_errors().tolist(),
        "rank": full.rank_,
        "n_iter": full.n_iter_,
    }


def numerical_standard_errors(R: Rankings, F: np.ndarray, coef: np.ndarray) -> np.ndarray:
    """Standard errors from a central-difference Hessian of the log-likelihood in ``coef``
    (Richardson-extrapolated from steps 1e-2 and 5e-3, as in ``pl_standard_errors.py``)."""
    stages = choice_stages(R)
    w = stages.row_weights()

    def f(beta: np.ndarray) -> float:
        return float(w @ loglik_rows(stages.distinct, F @ beta))

    def hessian(h: float) -> np.ndarray:
        d = coef.size
        E = np.eye(d) * h
        H = np.empty((d, d))
        for a in range(d):
            for b in range(a, d):
                H[a, b] = H[b, a] = (
                    f(coef + E[a] + E[b])
                    - f(coef + E[a] - E[b])
                    - f(coef - E[a] + E[b])
                    + f(coef - E[a] - E[b])
                ) / (4 * h * h)
        return H

    H = (4 * hessian(5e-3) - hessian(1e-2)) / 3
    return np.sqrt(np.diag(np.linalg.inv(-H)))


def pair_agreement(R: Rankings, scores: np.ndarray) -> tuple[float, int]:
    """Share of the pairs of present items ordered as the scores order them (ties count 1/2)."""
    agree = 0.0
    pairs = 0
    for row in R.ranks:
        items = np.flatnonzero(row >= 0)
        for a in range(len(items)):
            for b in range(a + 1, len(items)):
                i, j = items[a], items[b]
                first, second = (i, j) if row[i] < row[j] else (j, i)
                diff = scores[first] - scores[second]
                agree += 1.0 if diff > 0 else (0.5 if diff == 0 else 0.0)
                pairs += 1
    return agree / pairs, pairs


def run_items(R: Rankings, F: np.ndarray) -> dict:
    n, m = R.shape
    resp = list(KFold(10, shuffle=True, random_state=0).split(np.arange(n)))
    item_folds = list(KFold(10, shuffle=True, random_state=0).split(np.arange(m)))
    names = ["equal worths", "PL", "covariates", "covariates + effects (10)"]
    names_all = [*names, "PL that saw the items"]
    out = {k: {"unseen": [], "unseen_pairs": [], "full": []} for k in names_all} | {"counts": []}
    for f, ((train, test), (_, held)) in enumerate(zip(resp, item_folds, strict=True)):
        keep = np.setdiff1d(np.arange(m), held)
        ranks = R.ranks[train].copy()
        ranks[:, held] = -1
        R_train = Rankings(ranks, kind="subset")
        test_ranks = R.ranks[test]
        # (a) rankings restricted to the held-out items, respondents with >= 2 of them
        sub = np.full_like(test_ranks, -1)
        sub[:, held] = test_ranks[:, held]
        many = (sub >= 0).sum(axis=1) >= 2
        R_unseen = Rankings(sub[many], kind="subset")
        # (b) the complete rankings of respondents with >= 1 held-out item
        some = (test_ranks[:, held] >= 0).any(axis=1)
        R_full = Rankings(test_ranks[some], kind="subset")
        out["counts"].append(
            {"unseen": int(many.sum()), "full": int(some.sum()), "test": len(test)}
        )
        scores = {"equal worths": np.zeros(m)}
        pl = fit("PL", PlackettLuce, Rankings(R.ranks[train][:, keep], kind="subset"), F)
        z = np.zeros(m)
        z[keep] = pl.scores_  # unseen items: the mean log-worth of the seen ones
        scores["PL"] = z
        scores["covariates"] = fit("covariates", ItemCovariatePlackettLuce, R_train, F).scores_
        scores["covariates + effects (10)"] = fit(
            "effects", lambda: ItemCovariatePlackettLuce(item_effect_penalty=10.0), R_train, F
        ).scores_
        scores["PL that saw the items"] = fit("PL", PlackettLuce, R[train], F).scores_
        for name in names_all:
            model = PlackettLuce.from_params(scores=scores[name])
            out[name]["unseen"].append(float(model.logpdf(R_unseen).mean()))
            out[name]["unseen_pairs"].append(pair_agreement(R_unseen, scores[name])[0])
            out[name]["full"].append(float(model.logpdf(R_full).mean()))
        print(
            f"fold {f}: "
            + ", ".join(
                f"{k} {out[k]['unseen'][-1]:.4f}/{out[k]['full'][-1]:.4f}" for k in names_all
            ),
            flush=True,
        )
    return out


def mixture_models() -> dict:
    out = {}
    for k in MIXTURE_KS:
        out[f"PL mixture, K = {k}"] = lambda k=k: PlackettLuceMixture(
            k, n_init=MIXTURE_N_INIT, random_state=0
        )
        out[f"covariate PL mixture, K = {k}"] = lambda k=k: ItemCovariatePLMixture(
            k, n_init=MIXTURE_N_INIT, random_state=0
        )
    return out


def fit_mixture(name: str, make, R: Rankings, F: np.ndarray):
    with warnings.catch_warnings():
        # restarts that do not agree within two starts are expected (n_init=2); any other
        # warning would invalidate the comparison
        warnings.filterwarnings("ignore", message=".*(agree|near tie).*")
        warnings.simplefilter("error")
        if name.startswith("PL"):
            return make().fit(R)
        return make().fit(R, item_features=F)


def run_mixtures(R: Rankings, F: np.ndarray) -> dict:
    """Held-out log-likelihood per respondent (same folds as ``respondents``) of the plain
    and the item-covariate Plackett-Luce mixtures, and their BIC on all respondents."""
    folds = KFold(10, shuffle=True, random_state=0).split(np.arange(R.n_rankings))
    rows: dict[str, list] = {k: [] for k in mixture_models()}
    times: dict[str, list] = {k: [] for k in mixture_models()}
    for f, (train, test) in enumerate(folds):
        for name, make in mixture_models().items():
            t0 = time.perf_counter()
            model = fit_mixture(name, make, R[train], F)
            times[name].append(time.perf_counter() - t0)
            rows[name].append(float(model.score_samples(R[test]).mean()))
        print(f"fold {f}: " + ", ".join(f"{k} {v[-1]:.4f}" for k, v in rows.items()), flush=True)
    full = {}
    for name, make in mixture_models().items():
        model = fit_mixture(name, make, R, F)
        full[name] = {
            "bic": model.bic_,
            "loglik": model.log_likelihood_,
            "n_parameters": model.n_parameters_,
            "weights": model.weights_.tolist(),
        }
        print(f"all: {name} BIC {model.bic_:.1f}", flush=True)
    return {"loglik": rows, "fit_seconds": times, "full": full, "n_init": MIXTURE_N_INIT}


def _mean_sd(values) -> str:
    v = np.asarray(values)
    return f"{v.mean():.4f} ± {v.std(ddof=1):.4f}"


def _diff(values, base) -> str:
    d = np.asarray(values) - np.asarray(base)
    return f"{d.mean():+.4f} ± {d.std(ddof=1):.4f}"


def report() -> None:
    resp = json.loads((PATHS.raw / "item_covariates_sushi_respondents.json").read_text())
    items = json.loads((PATHS.raw / "item_covariates_sushi_items.json").read_text())
    r = resp["result"]
    ll = r["loglik"]
    lines = [
        "# Plackett-Luce with item covariates: SUSHI set B",
        "",
        "Generated by `python experiments/studies/item_covariates_sushi.py --split respondents`, "
        "`--split items` and `--report` "
        f"({resp['platform']}; last runs: {resp['date']}, {items['date']}). "
        "Data: 5,000 respondents, each ranking 10 of the 100 sushis of set B (subset "
        "rankings); 16 item features from `sushi3.idata` (style, minor group as 11 indicators, "
        "heaviness, how often eaten, price, how often sold). Mean ± sd over the 10 folds of "
        "`KFold(10, shuffle=True, random_state=0)`; differences are paired by fold.",
        "",
        "## Held-out respondents",
        "",
        "Mean log-likelihood per held-out respondent (one ranking of 10 items; equal worths "
        f"give log(1/10!) = {-math.log(math.factorial(10)):.4f}).",
        "",
        *md_table(
            ("model", "log-likelihood", "minus PL", "fit time (s)"),
            [
                (
                    name,
                    _mean_sd(vals),
                    "" if name == "PL" else _diff(vals, ll["PL"]),
                    ""
                    if name not in r["fit_seconds"]
                    else f"{np.mean(r['fit_seconds'][name]):.2f}",
                )
                for name, vals in ll.items()
            ],
        ),
        "",
        "## Held-out items (and respondents)",
        "",
        "Fold f deletes the 10 items of item fold f from the training rankings (nobody in "
        "training ranked them) and scores the held-out respondents of fold f. "
        "(a) Their rankings restricted to the held-out items, for the "
        f"{np.mean([c['unseen'] for c in items['result']['counts']]):.0f} respondents per fold "
        "(mean) who ranked at least two of them: log-likelihood per respondent and the share of "
        "pairs of unseen items ordered as the respondent did. (b) The complete rankings of the "
        f"{np.mean([c['full'] for c in items['result']['counts']]):.0f} respondents per fold "
        "(mean) who ranked at least one held-out item. PL gives an unseen item the mean "
        "log-worth of the seen items (so in (a) it is equal worths). *PL that saw the items* "
        "is fitted without deleting them: a reference, not a competitor.",
        "",
    ]
    res = items["result"]
    base = res["equal worths"]
    lines += md_table(
        (
            "model",
            "(a) log-lik., unseen items",
            "(a) minus equal worths",
            "(a) pairs agreeing",
            "(b) log-lik., full rankings",
            "(b) minus PL",
        ),
        [
            (
                name,
                _mean_sd(res[name]["unseen"]),
                "" if name == "equal worths" else _diff(res[name]["unseen"], base["unseen"]),
                _mean_sd(res[name]["unseen_pairs"]),
                _mean_sd(res[name]["full"]),
                "" if name == "PL" else _diff(res[name]["full"], res["PL"]["full"]),
            )
            for name in res
            if name != "counts"
        ],
    )
    lines += [
        "",
        "## Coefficients (all 5,000 respondents)",
        "",
        "`ItemCovariatePlackettLuce().fit(R, item_features=F)` (no item effects), "
        f"{r['n_iter']} iterations, rank {r['rank']} of 16; 95% Wald intervals from the "
        "observed information. A coefficient is the change of log-worth per unit of the "
        "feature (per standard deviation for the numeric ones; for minor groups against "
        "aomono). The last column is the standard error from a central-difference Hessian "
        "of the log-likelihood in the coefficients (Richardson-extrapolated from steps 1e-2 "
        "and 5e-3); the largest relative difference from the analytic one is "
        f"{np.max(np.abs(np.asarray(r['se']) / np.asarray(r['se_numeric']) - 1)):.1e}.",
        "",
    ]
    coef, se, nse = np.asarray(r["coef"]), np.asarray(r["se"]), np.asarray(r["se_numeric"])
    lines += md_table(
        ("feature", "coefficient", "95% interval", "se", "se (numerical Hessian)"),
        [
            (
                name,
                f"{c:+.3f}",
                f"[{c - 1.959964 * s:+.3f}, {c + 1.959964 * s:+.3f}]",
                f"{s:.5f}",
                f"{ns:.5f}",
            )
            for name, c, s, ns in zip(FEATURES, coef, se, nse, strict=True)
        ],
    )
    mix_path = PATHS.raw / "item_covariates_sushi_mixtures.json"
    if mix_path.exists():
        lines += mixture_section(json.loads(mix_path.read_text()))
    write_report(REPORT, lines)


def mixture_section(raw: dict) -> list:
    r = raw["result"]
    ll, full = r["loglik"], r["full"]
    base = ll["PL mixture, K = 1"]
    lines = [
        "",
        "## Mixtures: segments that value the features differently",
        "",
        "Generated by `--split mixtures` "
        f"({raw['date']}, {raw['seconds'] / 60:.1f} min). `PlackettLuceMixture` (one free "
        "worth per item and component) against `ItemCovariatePLMixture` (each component's "
        "log-worths linear in the 16 features, its own coefficients), K = "
        f"{', '.join(str(k) for k in MIXTURE_KS)}, `n_init={r['n_init']}` each (two "
        'starts, not the default `n_init="auto"`, to keep the run short), '
        "`random_state=0`. Held-out: the folds of *Held-out respondents*, mean "
        "log-likelihood per held-out respondent, differences paired by fold against the "
        "plain PL mixture with K = 1 (= PL). BIC: fitted on all 5,000 respondents "
        "(p = K - 1 + K (m - 1) = 100 K - 1 for the PL mixture, K - 1 + 16 K for the "
        "covariate mixture).",
        "",
    ]
    lines += md_table(
        ("model", "held-out log-lik.", "minus PL", "fit time (s)", "p", "BIC (all)"),
        [
            (
                name,
                _mean_sd(vals),
                "" if name == "PL mixture, K = 1" else _diff(vals, base),
                f"{np.mean(r['fit_seconds'][name]):.1f}",
                f"{full[name]['n_parameters']:.0f}",
                f"{full[name]['bic']:.0f}",
            )
            for name, vals in ll.items()
        ],
    )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--split", choices=("respondents", "items", "mixtures"))
    parser.add_argument("--report", action="store_true", help="render the report only")
    args = parser.parse_args()
    if args.split:
        limit_threads(1)
        R = fetch_sushi("B", data_home=data_home())
        F = design()
        t0 = time.perf_counter()
        run = {"respondents": run_respondents, "items": run_items, "mixtures": run_mixtures}
        result = run[args.split](R, F)
        write_json(
            PATHS.raw / f"item_covariates_sushi_{args.split}.json",
            {
                "platform": platform_line(),
                "date": time.strftime("%Y-%m-%d"),
                "seconds": time.perf_counter() - t0,
                "result": result,
            },
            newline=True,
        )
    if args.report or not args.split:
        report()


if __name__ == "__main__":
    main()

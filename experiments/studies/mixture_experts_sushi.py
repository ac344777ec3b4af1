"""Mixtures of experts on SUSHI set A: do the respondents' demographics predict their segment?

Data: Kamishima's SUSHI set A (5,000 complete orders of 10 sushis) with the demographics of
``sushi3.udata``, read by :func:`rankclust.datasets.fetch_sushi` from the data home
(``$RANKCLUST_DATA`` or ``../shared/data`` beside the repository; the data may not be
redistributed, so only aggregates are written). Covariates (d = 17): gender (1 female), the
age class one-hot (baseline 15-19), the region of the current residence one-hot (baseline
Hokkaido; the east/west code is a function of it and left out), and "moved" (1 if the
prefecture now differs from the one until 15). The questionnaire time is left out (not a
demographic).

Protocol:

* K: chosen by BIC on the full data among K = 2..5, separately for the plain mixture
  (``select_k(est, R)``) and the mixture of experts (``select_k(est, R, X=X)``), per family
  (Mallows, Plackett-Luce).
* 10-fold CV by respondent (``KFold(10, shuffle=True, random_state=0)``): per fold, the
  one-ranking model (K = 1), the plain mixture and the mixture of experts at the chosen K are
  fitted on 4,500 respondents; on the 500 held out: the log-likelihood per respondent
  (``score(R)``, with covariates ``score(R, X=X)``), and the Kendall tau between each
  respondent's ranking and the ranking predicted *without seeing it*: the centre of the one
  ranking model, the modal ranking of the largest plain component, and for the experts the
  modal ranking of the segment the gate makes most likely from the covariates alone
  (``predict_ranking_from_covariates``); and, for reference, the Kendall tau of Grbovic et
  al.'s MM-PL (``PrototypePLMixture()``, defaults) on the same folds.
* The gate's coefficients with 95% Wald intervals (Louis observed information) for the chosen
  K, fitted on the full data.

Every fit uses ``n_init=2`` (two k-means++ starts of small EM, the best continued), not the
default ``"auto"``, to keep the run within a few minutes on a shared 2-core machine; the gate
EM starts from the plain fit plus two perturbed gates.

Usage::

    nice python experiments/studies/mixture_experts_sushi.py            # fit, then report
    nice python experiments/studies/mixture_experts_sushi.py --report   # re-render only
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.model_selection import KFold

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _common import data_home, limit_threads, md_table, paths, platform_line, write_json

from rankclust.cluster import MallowsMixture, PlackettLuceMixture, gate_coefficients, select_k
from rankclust.datasets import fetch_sushi
from rankclust.metrics import kendall_tau
from rankclust.supervised import PrototypePLMixture

PATHS = paths(__file__)
RAW = PATHS.raw / "mixture_experts_sushi.json"
REPORT = PATHS.results / "mixture_experts_sushi.md"
KS = [2, 3, 4, 5]
HEAD = ("family", "model", "K", "held-out log-lik / respondent", "vs plain", "tau, modal",
        "tau, consensus")  # fmt: skip
FAMILIES = {"Mallows": MallowsMixture, "Plackett-Luce": PlackettLuceMixture}
AGES = ["15-19", "20-29", "30-39", "40-49", "50-59", "60-"]
REGIONS = ["Hokkaido", "Tohoku", "Hokuriku", "Kanto+Shizuoka", "Nagano+Yamanashi", "Chukyo",
           "Kinki", "Chugoku", "Shikoku", "Kyushu", "Okinawa", "foreign"]  # fmt: skip


def covariates(U: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """The design of the module notes from the 10 columns of ``sushi3.udata``."""
    cols, names = [U[:, 0:1].astype(float)], ["female"]
    for j, labels, prefix in ((1, AGES, "age "), (7, REGIONS, "lives in ")):
        for v in np.unique(U[:, j])[1:]:
            cols.append((U[:, j] == v).astype(float)[:, None])
            names.append(prefix + labels[v])
    cols.append(U[:, 9:10].astype(float))
    names.append("moved")
    return np.hstack(cols), names


def make(cls, k: int, seed: int):
    return cls(k, n_init=2, random_state=seed)


def borda(score: np.ndarray) -> np.ndarray:
    """Positions of the items by increasing ``score`` (ties by item index)."""
    return np.argsort(np.argsort(score, kind="stable"), kind="stable")


def centres_tau(R, positions: np.ndarray) -> float:
    """Mean Kendall tau of the rankings of R against one predicted ranking per row."""
    return float(kendall_tau(R.ranks + 1, positions + 1))


def run() -> dict:
    U, R = fetch_sushi("A", return_features=True, data_home=data_home())
    X, names = covariates(U)
    n = R.n_rankings
    out: dict = {"names": names, "n": n, "d": X.shape[1], "platform": platform_line()}
    t0 = time.perf_counter()
    chosen: dict = {}
    out["selection"] = {}
    for fam, cls in FAMILIES.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            plain = select_k(make(cls, 2, 0), R, ks=KS)
            experts = select_k(make(cls, 2, 0), R, ks=KS, X=X)
        out["selection"][fam] = {
            "plain": [[r["k"], r["log_likelihood"], r["n_parameters"], r["bic"]] for r in plain.table],
            "experts": [[r["k"], r["log_likelihood"], r["n_parameters"], r["bic"]] for r in experts.table],
        }  # fmt: skip
        chosen[fam] = {"plain": plain.best_k, "experts": experts.best_k}
        best = experts.best_estimator
        tab = gate_coefficients(best, feature_names=names)
        out.setdefault("gate", {})[fam] = {
            "k": experts.best_k,
            "weights": best.weights_.tolist(),
            "centers": [[R.items[j] for j in o] for o in best.centers_.to_orderings()],
            "coef": tab.coef.tolist(), "se": tab.se.tolist(), "p": np.nan_to_num(tab.p_values, nan=-1).tolist(),
            "gate_n_agreeing": int(best.gate_n_agreeing_), "gate_n_init": int(best.gate_n_init_),
        }  # fmt: skip
        print(f"{fam}: K plain {plain.best_k}, K experts {experts.best_k}", flush=True)
    out["chosen"] = chosen
    out["selection_seconds"] = time.perf_counter() - t0
    folds = list(KFold(10, shuffle=True, random_state=0).split(X))
    cv: dict = {}
    t1 = time.perf_counter()
    for f, (tr, te) in enumerate(folds):
        Rtr, Rte, Xtr, Xte = R[tr], R[te], X[tr], X[te]
        for fam, cls in FAMILIES.items():
            row = cv.setdefault(fam, {})
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                one = make(cls, 1, f).fit(Rtr)
                plain = make(cls, chosen[fam]["plain"], f).fit(Rtr)
                experts = make(cls, chosen[fam]["experts"], f).fit(Rtr, X=Xtr)
            c_one = np.tile(one.centers_.ranks[0], (len(te), 1))
            c_plain = np.tile(plain.centers_.ranks[0], (len(te), 1))
            c_plain_b = np.tile(borda(plain.weights_ @ plain.centers_.ranks), (len(te), 1))
            c_exp = experts.predict_ranking_from_covariates(Xte, how="modal")
            c_exp_b = experts.predict_ranking_from_covariates(Xte, how="consensus")
            for name, ll, tau, tau_b in (
                ("one ranking (K = 1)", one.score(Rte), centres_tau(Rte, c_one), None),
                ("plain mixture", plain.score(Rte), centres_tau(Rte, c_plain),
                 centres_tau(Rte, c_plain_b)),
                ("mixture of experts", experts.score(Rte, X=Xte), centres_tau(Rte, c_exp),
                 centres_tau(Rte, c_exp_b)),
            ):  # fmt: skip
                row.setdefault(name, {"ll": [], "tau": [], "tau_consensus": []})
                row[name]["ll"].append(float(ll))
                row[name]["tau"].append(float(tau))
                row[name]["tau_consensus"].append(float(tau if tau_b is None else tau_b))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            mmpl = PrototypePLMixture(random_state=f).fit(Xtr, Rtr)
        cv.setdefault("MM-PL", []).append(float(mmpl.score(Xte, Rte)))
        print(f"fold {f} done ({time.perf_counter() - t1:.0f} s)", flush=True)
    out["cv"] = cv
    out["cv_seconds"] = time.perf_counter() - t1
    return out


def _pm(v) -> str:
    v = np.asarray(v)
    return f"{v.mean():.4f} ± {v.std(ddof=1):.4f}"


def report(res: dict) -> list[str]:
    names = res["names"]
    lines = [
        "# Mixtures of experts on SUSHI set A with the respondents' demographics",
        "",
        "Generated by `experiments/studies/mixture_experts_sushi.py` (see its docstring for the",
        f"protocol). Data: SUSHI set A, {res['n']} complete orders of 10 sushis; {res['d']}",
        "covariates: female, age class (baseline 15-19), region of residence (baseline",
        "Hokkaido), moved. Every fit `n_init=2` (kept small for time; the default is",
        '`"auto"`). The data are licensed: only aggregates are reported.',
        f"Platform: {res['platform']}; selection {res['selection_seconds']:.0f} s, 10-fold CV "
        f"{res['cv_seconds']:.0f} s.",
        "",
        "## Choice of K (BIC on the full data, K = 2..5)",
        "",
        *md_table(("family", "model", "K", "log-likelihood", "parameters", "BIC")),
    ]
    for fam, sel in res["selection"].items():
        for model in ("plain", "experts"):
            for k, ll, p, bic in sel[model]:
                mark = " *" if k == res["chosen"][fam][model] else ""
                label = "plain mixture" if model == "plain" else "mixture of experts"
                lines.append(f"| {fam} | {label} | {k}{mark} | {ll:.1f} | {p:g} | {bic:.1f} |")
    edge = [f"{fam} {m}" for fam, c in res["chosen"].items() for m, k in c.items() if k == max(KS)]
    if edge:
        lines += ["", f"BIC chose K = {max(KS)}, the largest K tried, for: {', '.join(edge)}; "
                  "the optimum may lie above (a wider range costs more time than this run had)."]  # fmt: skip
    lines += [
        "",
        "## 10-fold CV by respondent (mean ± sd over the folds)",
        "",
        "Held-out log-likelihood per respondent (higher is better; the experts' with the",
        "respondent's covariates) and the Kendall tau between a held-out respondent's ranking",
        "and the ranking predicted before seeing it. 'modal': the one-ranking centre, the",
        "modal ranking of the largest plain component, the modal ranking of the segment the",
        "gate makes most likely from the covariates (`how=\"modal\"`); 'consensus': the",
        "Borda consensus of the components' modal rankings weighted by the mixing weights",
        "(plain) or by the gate's probabilities for the respondent's covariates",
        "(`predict_ranking_from_covariates(X)`, the default). 'vs plain' = paired difference",
        "in log-likelihood per respondent, mean ± sd over folds, and the folds where the",
        "experts are better.",
        "",
        *md_table(HEAD),
    ]
    for fam, rows in res["cv"].items():
        if fam == "MM-PL":
            continue
        base = np.asarray(rows["plain mixture"]["ll"])
        for name, r in rows.items():
            k = {"one ranking (K = 1)": 1, "plain mixture": res["chosen"][fam]["plain"],
                 "mixture of experts": res["chosen"][fam]["experts"]}[name]  # fmt: skip
            vs = ""
            if name == "mixture of experts":
                dlt = np.asarray(r["ll"]) - base
                vs = f"{dlt.mean():+.4f} ± {dlt.std(ddof=1):.4f} ({int((dlt > 0).sum())}/10)"
            cells = (fam, name, k, _pm(r["ll"]), vs, _pm(r["tau"]), _pm(r["tau_consensus"]))
            lines.append("| " + " | ".join(map(str, cells)) + " |")
    if "MM-PL" in res["cv"]:
        lines += [
            "",
            "Grbovic et al.'s MM-PL (`PrototypePLMixture()` with its defaults, on the same",
            "covariates and folds; supervised clustering: Plackett-Luce clusters with soft",
            "assignments from prototypes in covariate space) predicts a ranking from the",
            f"covariates with Kendall tau {_pm(res['cv']['MM-PL'])} (no held-out log-likelihood:",
            "the estimator exposes its clusters and predicted rankings, not a likelihood).",
        ]
    for fam, g in res["gate"].items():
        coef, se, p = np.asarray(g["coef"]), np.asarray(g["se"]), np.asarray(g["p"])
        lines += [
            "",
            f"## Gate of the {fam} mixture of experts (K = {g['k']}, full data)",
            "",
            f"Gate EM starts that reached the kept fit: {g['gate_n_agreeing']} of "
            f"{g['gate_n_init']} (the start from the plain mixture and two perturbed gates; "
            "the kept fit is the most likely). Components by decreasing mean gate weight; "
            "their modal rankings:",
            "",
        ]
        for k, (w, c) in enumerate(zip(g["weights"], g["centers"], strict=True)):
            lines.append(f"* component {k} (mean weight {w:.3f}): {', '.join(c)}")
        lines += [
            "",
            "Coefficients: change in the log-odds of component k against component 0 per unit",
            "of the covariate (95% Wald interval; p of coefficient = 0; * where p < 0.01).",
            "",
            *md_table(("covariate", *[f"{k} vs 0" for k in range(1, g["k"])])),
        ]
        for j, name in enumerate(["intercept", *names]):
            cells = []
            for k in range(1, g["k"]):
                star = " *" if 0 <= p[k, j] < 0.01 else ""
                cells.append(
                    f"{coef[k, j]:+.2f} [{coef[k, j] - 1.96 * se[k, j]:+.2f}, "
                    f"{coef[k, j] + 1.96 * se[k, j]:+.2f}]{star}"
                )
            lines.append("| " + " | ".join([name, *cells]) + " |")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--report", action="store_true", help="re-render from the stored run")
    args = ap.parse_args()
    if not args.report:
        limit_threads(1)
        res = run()
        write_json(RAW, res, newline=True)
    import json

    res = json.loads(RAW.read_text(encoding="utf-8"))
    text = "\n".join(report(res)) + "\n"
    REPORT.write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()

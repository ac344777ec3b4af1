"""Plackett-Luce fits on the APA 1980 ballots: rankclust against choix, in one process.

1. The 5,738 complete ballots (PLMIX stores top-4 ballots as complete; a top-4 list of 5
   candidates *is* a complete ranking). rankclust's MM (``PlackettLuce``) against
   ``choix.mm_rankings`` and ``choix.ilsr_rankings``, all to a tight tolerance. Quality is the
   largest absolute difference of the centred scores from choix's MLE (I-LSR run to
   ``tol=1e-12``) and the log-likelihood.
2. All 15,449 ballots as top-k lists (an unnamed candidate ranks below the named ones).
   choix has no top-k ranking function, but a top-k list is k successive top-1 choices among
   the candidates not yet placed, so ``choix.mm_top1`` / ``choix.ilsr_top1`` on that
   decomposition maximise the same likelihood.

Times are the best of several repeats of the fit alone, from each library's own input format
(a ``Rankings`` for rankclust, lists for choix), built once beforehand; one extra rankclust row
includes building the ``Rankings`` from the orderings.

Run: ``.venv/bin/python benchmarks/bench_plackett_luce.py`` (updates the ``## Plackett-Luce``
section of ``benchmarks/RESULTS.md``; ``--no-write`` only prints).
"""

from __future__ import annotations

import argparse
import datetime
import sys
from importlib.metadata import version

import choix
import numpy as np
from _common import (
    best_of,
    data_home,
    machine_line,
    markdown_table,
    update_results_section,
)

from rankclust import Rankings
from rankclust.models.plackett_luce import (
    PlackettLuce,
    choice_stages,
    fit_scores,
    loglik_rows,
)

N_ITEMS = 5
TOL = 1e-10
REF_TOL = 1e-12


def load_apa() -> tuple[list[list[int]], list[list[int]]]:
    """(complete ballots, all ballots) as 0-based orderings, best first."""
    path = data_home() / "apa_1980" / "d_apa_orderings.csv"
    if not path.exists():
        sys.exit(f"APA data not found at {path}; set RANKCLUST_DATA (see apa_1980/PROVENANCE.md)")
    table = np.loadtxt(path, delimiter=",", skiprows=1, dtype=np.int64)
    ballots = [[int(c) - 1 for c in row if c > 0] for row in table]
    complete = []
    for b in ballots:
        if len(b) >= N_ITEMS - 1:
            # A top-4 list of 5 candidates determines the last one (PLMIX's convention).
            missing = [c for c in range(N_ITEMS) if c not in b]
            complete.append(b + missing)
    return complete, ballots


def top1_decomposition(ballots: list[list[int]]) -> list[tuple[int, list[int]]]:
    """One (winner, other candidates still available) choice per listed position."""
    out = []
    for b in ballots:
        rest = [c for c in range(N_ITEMS) if c not in b]
        for s in range(min(len(b), N_ITEMS - 1)):
            out.append((b[s], b[s + 1 :] + rest))
    return out


def centred(p: np.ndarray) -> np.ndarray:
    return p - p.mean()


def run(repeat: int, peer_repeat: int) -> tuple[str, dict]:
    complete, ballots = load_apa()
    R = Rankings.from_orderings(complete, n_items=N_ITEMS, kind="top")
    R_top = Rankings.from_orderings(ballots, n_items=N_ITEMS, kind="top")
    top1 = top1_decomposition(ballots)

    def rc_fit(data):
        return PlackettLuce(tol=TOL).fit(data)

    # ---------------------------------------------------------------- complete ballots
    ref = centred(choix.ilsr_rankings(N_ITEMS, complete, tol=REF_TOL, max_iter=1000))
    timings = []
    t, model = best_of(lambda: rc_fit(R), repeat)
    timings.append(("rankclust `PlackettLuce().fit(R)` (MM)", t, model.scores_, model.n_iter_))
    t, model_b = best_of(
        lambda: rc_fit(Rankings.from_orderings(complete, n_items=N_ITEMS, kind="top")), repeat
    )
    timings.append(
        ("rankclust, incl. building `Rankings` from the orderings", t, model_b.scores_, None)
    )
    stages = choice_stages(R)
    t, (z, n_iter, _) = best_of(lambda: fit_scores(stages, tol=TOL), repeat)
    timings.append(("rankclust `fit_scores` on precompiled `choice_stages(R)`", t, z, n_iter))
    t, (z, n_iter, _) = best_of(
        lambda: fit_scores(choice_stages(R, compress=False), tol=TOL), repeat
    )
    timings.append(("rankclust MM without merging identical ballots", t, z, n_iter))
    t, p = best_of(
        lambda: choix.mm_rankings(N_ITEMS, complete, tol=TOL, max_iter=100000), peer_repeat
    )
    timings.append(("choix `mm_rankings` (MM)", t, centred(p), None))
    t, p = best_of(
        lambda: choix.ilsr_rankings(N_ITEMS, complete, tol=TOL, max_iter=1000), peer_repeat
    )
    timings.append(("choix `ilsr_rankings` (I-LSR)", t, centred(p), None))
    table_complete = _table(timings, R, ref)
    ll_choix = choix.log_likelihood_rankings(complete, ref)

    # ---------------------------------------------------------------- top-k, all ballots
    ref_top = centred(choix.ilsr_top1(N_ITEMS, top1, tol=REF_TOL, max_iter=1000))
    timings_top = []
    t, model_top = best_of(lambda: rc_fit(R_top), repeat)
    timings_top.append(
        (
            "rankclust `PlackettLuce().fit(R)` (MM, kind='top')",
            t,
            model_top.scores_,
            model_top.n_iter_,
        )
    )
    stages_top = choice_stages(R_top)
    t, (z, n_iter, _) = best_of(lambda: fit_scores(stages_top, tol=TOL), repeat)
    timings_top.append(("rankclust `fit_scores` on precompiled `choice_stages(R)`", t, z, n_iter))
    t, p = best_of(lambda: choix.mm_top1(N_ITEMS, top1, tol=TOL, max_iter=100000), peer_repeat)
    timings_top.append(("choix `mm_top1` on the top-1 decomposition", t, centred(p), None))
    t, p = best_of(lambda: choix.ilsr_top1(N_ITEMS, top1, tol=TOL, max_iter=1000), peer_repeat)
    timings_top.append(("choix `ilsr_top1` on the top-1 decomposition", t, centred(p), None))
    table_top = _table(timings_top, R_top, ref_top)
    ll_choix_top = choix.log_likelihood_top1(top1, ref_top)

    order = np.argsort(-model.scores_)
    order_top = np.argsort(-model_top.scores_)
    n_distinct = R.unique()[0].n_rankings
    n_distinct_top = R_top.unique()[0].n_rankings
    worst = max(np.abs(model.scores_ - ref).max(), np.abs(model_top.scores_ - ref_top).max())
    body = f"""\
Command: `.venv/bin/python benchmarks/bench_plackett_luce.py --repeat {repeat} \
--peer-repeat {peer_repeat}` ({datetime.date.today().isoformat()}; {machine_line()};
choix {version("choix")}).
Times: best of {repeat} runs (rankclust) or {peer_repeat} runs (choix) of the fit alone, each
library from its own input format built beforehand. Convergence tolerance `{TOL:g}` for every
method (rankclust: largest change of a centred score; choix: L1 change / n_items). "max |Δ
score|" is against choix's MLE (`ilsr`, `tol={REF_TOL:g}`, centred scores); log-likelihoods
are all computed by `rankclust.models.plackett_luce.loglik_rows` (choix's own
`log_likelihood_*` at its MLE: {ll_choix:.6f} complete, {ll_choix_top:.6f} top-k).

**APA 1980, {len(complete):,} complete ballots** ({n_distinct} distinct), 5 candidates:

{table_complete}

**APA 1980, all {len(ballots):,} ballots as top-k lists** ({n_distinct_top} distinct;
{len(top1):,} top-1 choices for choix):

{table_top}

Largest score difference from choix's MLE: {worst:.1e} (target 1e-4). Candidates by
decreasing PL score (1-based): complete ballots {(order + 1).tolist()}, all ballots
{(order_top + 1).tolist()}. rankclust merges identical ballots (`Rankings.unique`) and runs
each MM update as a few numpy operations over the distinct ballots; choix loops over ballots in
Python on every iteration. The MM updates themselves ("precompiled" rows) are a small part of
rankclust's time: most of a fit is compiling the stages, chiefly `Rankings.unique`
(`np.unique(axis=0)`), and building a `Rankings` with `Rankings.from_orderings` (a Python loop
over rows) costs more than the fit itself.
"""
    return body, {"max_delta": worst}


def _table(timings, R, ref) -> str:
    base = timings[0][1]
    rows = []
    for name, t, scores, n_iter in timings:
        ll = float(R.weights @ loglik_rows(R, scores))
        rows.append(
            [
                name,
                f"{t * 1e3:.2f}",
                f"{t / base:.3g}x",
                "-" if n_iter is None else n_iter,
                f"{np.abs(scores - ref).max():.1e}",
                f"{ll:.6f}",
            ]
        )
    return markdown_table(
        ["method", "time (ms)", "time / rankclust", "MM updates", "max abs Δ score", "log-lik"],
        rows,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="repeats of each rankclust fit")
    parser.add_argument("--peer-repeat", type=int, default=3, help="repeats of each choix fit")
    parser.add_argument("--no-write", action="store_true", help="do not update RESULTS.md")
    args = parser.parse_args()
    body, summary = run(args.repeat, args.peer_repeat)
    print(body)
    if not args.no_write:
        update_results_section("Plackett-Luce", body)
    return 0 if summary["max_delta"] <= 1e-4 else 1


if __name__ == "__main__":
    raise SystemExit(main())

"""Mixtures of rankings with ties: the partial-label-ranking targets clustered, with times.

The label rankings (bucket orders) of the partial-label-ranking sets of Alfaro et al. (2021)
with at most 6 labels are clustered as rankings (features ignored): ``select_k`` over
K = 1..3 by BIC with ``MallowsMixture`` (ties read as unrecorded orders, decision T2) and
``PlackettLuceMixture`` (Davidson-Luce components, decision T3), fixed seed. Then one set is
written as a PrefLib ``.toc`` file (to a temporary folder, with the class names as item
names) and clustered end to end by ``rankclust cluster FILE.toc --method pl-mixture``; its
summary is quoted.

The table gives, per set and model, the rankings (n), distinct ones (u), labels (m), the share
of rows with a tie, the K chosen by BIC, the log-likelihood at that K, the tie strengths of
the largest component (PL) and the wall time of the whole ``select_k``. The two models'
log-likelihoods are not comparable: the tied Mallows likelihood is the probability of a
coarsened observation (it sums to 1 over the weak orders of one tie pattern), the
Davidson-Luce one is a distribution over all weak orders.

Data (in ``$RANKCLUST_DATA`` or ``../shared/data`` beside the repository):
``partial_label_ranking_alfaro/*.csv``.

``--polish`` instead measures the Davidson-Luce M-step with and without its Newton polish
(``PlackettLuceMixture(3)`` on three sets, interleaved, 3 repeats, medians) and writes
``results/ties_mixtures_polish.md``.

Usage: ``python experiments/studies/ties_mixtures.py [--polish]`` (about a minute each)
"""

from __future__ import annotations

import contextlib
import io
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _common import data_home, limit_threads, md_table, paths, platform_line

from rankclust import Rankings
from rankclust.cli import main as cli_main
from rankclust.cluster import mixture
from rankclust.cluster.mixture import MallowsMixture, PlackettLuceMixture, select_k
from rankclust.io import read_label_ranking_csv, write_preflib

DATA = data_home() / "partial_label_ranking_alfaro"
OUT = paths(__file__).results / "ties_mixtures.md"
MAX_LABELS = 6
KS = [1, 2, 3]
CLI_SET = "glass"


def select(template, Y) -> tuple[object, float]:
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # restart and convergence notes; the table has the fit
        res = select_k(template, Y, ks=KS)
    return res, time.perf_counter() - t0


def main() -> None:
    limit_threads()
    rows = []
    for path in sorted(DATA.glob("*.csv")):
        _, Y = read_label_ranking_csv(path)
        if Y.n_items > MAX_LABELS:
            continue
        u = Y.unique()[0].n_rankings
        for name, template in [
            ("Mallows", MallowsMixture(random_state=0)),
            ("Plackett-Luce (Davidson-Luce)", PlackettLuceMixture(random_state=0)),
        ]:
            res, seconds = select(template, Y)
            best = res.best_estimator
            ties = getattr(best, "tie_strengths_", None)
            rows.append(
                [
                    path.stem,
                    name,
                    Y.n_rankings,
                    u,
                    Y.n_items,
                    f"{Y.has_ties.mean():.2f}",
                    res.best_k,
                    f"{best.log_likelihood_:.1f}",
                    ", ".join(f"{d:.3f}" for d in ties[0]) if ties is not None else "",
                    f"{seconds:.1f}",
                ]
            )
            print(rows[-1], flush=True)
    header = ["set", "model", "n", "u", "m", "tied rows", "K (BIC)", "log-lik.",
              "tie strengths, largest comp.", "select_k (s)"]  # fmt: skip

    # one set through the CLI, as a PrefLib .toc file
    _, Y = read_label_ranking_csv(DATA / f"{CLI_SET}.csv")
    with tempfile.TemporaryDirectory() as tmp:
        toc = Path(tmp) / f"{CLI_SET}.toc"
        names = [f"class{j + 1}" for j in range(Y.n_items)]
        write_preflib(Rankings(Y.ranks, kind=Y.kind, items=names), toc)
        out = io.StringIO()
        t0 = time.perf_counter()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            code = cli_main(["cluster", str(toc), "--method", "pl-mixture", "-k", "3",
                             "--random-state", "0"])  # fmt: skip
        cli_seconds = time.perf_counter() - t0
    assert code == 0, out.getvalue()
    summary = out.getvalue().rstrip()

    n_tied = int(np.count_nonzero(Y.has_ties))
    text = (
        "# Mixtures of rankings with ties\n\n"
        "Command: `python experiments/studies/ties_mixtures.py`\n\n"
        f"{platform_line()}, one BLAS thread\n\n"
        "## Partial-label-ranking targets clustered as rankings\n\n"
        f"`select_k(..., ks={KS})` by BIC, `random_state=0`, default restarts "
        f'(`n_init="auto"`), sets with at most {MAX_LABELS} labels.\n\n'
        + "\n".join(md_table(header, rows))
        + "\n\nThe log-likelihoods of the two models are not comparable (see the script's "
        "notes). Times are wall times of the whole selection (three K, restarts included) on "
        "a shared machine. BIC chose the largest K tried on every set (the targets come from "
        "classes and have more structure; a real analysis widens ``ks``, this table measures "
        "the fits). A Davidson-Luce M-step is a weighted L-BFGS-B fit per component, hence the "
        "Plackett-Luce times (satimage: 504 distinct rankings).\n\n"
        f"## A PrefLib file with ties through the CLI\n\n"
        f"The {CLI_SET} targets ({Y.n_rankings} rankings of {Y.n_items} classes, {n_tied} "
        f"with a tie) written as `{CLI_SET}.toc` (items named class1..class{Y.n_items}):\n\n"
        f"```\n$ rankclust cluster {CLI_SET}.toc --method pl-mixture -k 3 --random-state 0\n"
        f"{summary}\n```\n\nWall time {cli_seconds:.1f} s (reading, fitting, summary).\n"
    )
    OUT.write_text(text, encoding="utf-8")
    print(text)


def polish_ratio() -> None:
    """Median fit times with and without the Newton polish of the Davidson-Luce M-step."""
    limit_threads()
    rows = []
    for name in ["glass", "satimage", "vehicle"]:
        _, Y = read_label_ranking_csv(DATA / f"{name}.csv")
        times: dict[bool, list] = {True: [], False: []}
        fits = {}
        for _ in range(3):
            for polish in (True, False):
                mixture._DL_POLISH = polish  # private switch, measured here only
                t0 = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    est = PlackettLuceMixture(3, random_state=0).fit(Y)
                times[polish].append(time.perf_counter() - t0)
                fits[polish] = est
        a, b = statistics.median(times[True]), statistics.median(times[False])
        rows.append([name, f"{a:.2f}", f"{b:.2f}", f"{a / b:.2f}",
                     f"{fits[True].log_likelihood_:.6f}", f"{fits[False].log_likelihood_:.6f}",
                     fits[True].n_iter_, fits[False].n_iter_])  # fmt: skip
        print(rows[-1], flush=True)
    header = ["set", "polish (s)", "no polish (s)", "ratio", "log-lik. polish",
              "log-lik. no polish", "iterations polish", "iterations no polish"]  # fmt: skip
    text = (
        "# Davidson-Luce M-step with and without the Newton polish\n\n"
        "Command: `python experiments/studies/ties_mixtures.py --polish`\n\n"
        f"{platform_line()}, one BLAS thread. `PlackettLuceMixture(3, random_state=0)` on the "
        "partial-label-ranking targets; the two variants interleaved in one process, 3 "
        "repeats, median wall times. The default is no polish (L-BFGS-B from the warm start "
        "only: EM needs an increase, not the exact maximum).\n\n"
        + "\n".join(md_table(header, rows))
        + "\n"
    )
    (OUT.parent / "ties_mixtures_polish.md").write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    polish_ratio() if "--polish" in sys.argv[1:] else main()

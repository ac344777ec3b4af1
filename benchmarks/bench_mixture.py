"""Benchmarks for the ranking mixtures (Busse, Orbanz & Buhmann 2007; Plackett-Luce mixture).

1. APA 1980, all 15,449 ballots: K = 1..8 by ``select_k`` for ``MallowsMixture`` and
   ``PlackettLuceMixture`` (target: under 30 s each, total wall time): the default
   (``n_init="auto"``: rounds of short starts until three continued runs agree, plus the
   starts grown from the K - 1 fit), 10 small-EM starts of 20 iterations with and without the
   grown starts (``warm_start=False`` is the behaviour before warm starts), and 10 classic
   full restarts (``init_iter=None``) side by side: time, the log-likelihood reached per K,
   and whether it is non-decreasing in K.
2. The same on the complete ballots only (5,738).
3. Table 2 size of Busse et al.: n = 1000 top-t lists of 20 items, K = 10, ``n_init = 10``.
4. The waits of real surveys (``--surveys``; skipped when the data are absent): SUSHI A
   (5,000 complete rankings of 10 sushis) ``select_k`` K = 1..10 with 10 starts, Mallows and
   Plackett-Luce mixtures; Irish Meath (64,081 ballots, 14 candidates) ``rankclust select-k``
   K = 1..5 and ``rankclust cluster -k 6 --method pl-mixture``. Before (plain EM, threaded
   BLAS: the code before SQUAREM and the one-thread limit) and after, interleaved in one
   process; the log-likelihood per K of both.
5. The compiled EM kernels (``--surveys --kernels``): the same survey waits with the kernels
   of before (Plackett-Luce stage pass in log space, MM sums by ``np.bincount``, Mallows
   statistics and pair counts as products with the (u, m^2) pair matrix, seeding distances
   by ``kendall_distances``, the E-step's softmax in numpy) and of after (worth-space stage
   pass, one compiled MM pass, statistics and counts compiled from the orderings, one
   compiled softmax), interleaved in one process; both with SQUAREM and one BLAS thread.
   Appends its section to ``benchmarks/RESULTS_mixture_surveys.md``.

Writes ``benchmarks/RESULTS_mixture.md`` (``--surveys``: ``benchmarks/RESULTS_mixture_surveys.md``).
Usage: ``nice .venv/bin/python benchmarks/bench_mixture.py [--quick] [--surveys [--kernels]
[--reps N]]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from datetime import datetime
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import data_home, machine_line, markdown_table

os.environ.setdefault("RANKCLUST_DATA", str(data_home()))

import contextlib
import io

from rankclust.cluster import mixture as mixture_module
from rankclust.cluster.mixture import MallowsMixture, PlackettLuceMixture, select_k
from rankclust.cluster.mixture_generators import make_heterogeneous_rankings
from rankclust.datasets import fetch_apa
from rankclust.models import plackett_luce as pl_module

OUT = Path(__file__).resolve().parent / "RESULTS_mixture.md"
OUT_SURVEYS = Path(__file__).resolve().parent / "RESULTS_mixture_surveys.md"

#: (n_init, init_iter, warm_start, label) of the select_k runs compared on APA
CONFIGS = (
    ("auto", 5, True, "n_init='auto' + warm starts (default)"),
    (10, 20, True, "10 small-EM starts + warm starts"),
    (10, 20, False, "10 small-EM starts, independent"),
    (10, None, True, "10 full restarts + warm starts"),
)


def timed(fn):
    w0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return time.perf_counter() - w0, time.process_time() - c0, out


def bench_apa(R, label: str, ks) -> str:
    lines = [f"### {label}: K = {ks[0]}..{ks[-1]}", ""]
    rows = []
    lls = {}
    for cls in (MallowsMixture, PlackettLuceMixture):
        cls(2, n_init=1, random_state=0).fit(R)  # compile the kernels outside the timing
        for n_init, init_iter, warm, name in CONFIGS:
            est = cls(n_init=n_init, init_iter=init_iter, random_state=0)
            wall, cpu, res = timed(lambda est=est, w=warm: select_k(est, R, ks, warm_start=w))
            ll = np.array([r["log_likelihood"] for r in res.table])
            lls[(cls.__name__, name)] = ll
            iters = sum(r["n_iter"] for r in res.table)
            step = np.diff(ll).min()
            rows.append(
                [
                    cls.__name__,
                    name,
                    f"{wall:.1f}",
                    f"{cpu:.1f}",
                    "yes" if wall < 30 else "no",
                    res.best_k,
                    iters,
                    "yes" if step >= -1e-9 * np.abs(ll).max() else f"no ({step:.1f})",
                ]
            )
            print(label, cls.__name__, name, wall, cpu, res.best_k, flush=True)
    lines.append(
        markdown_table(
            [
                "model",
                "starts",
                "wall s",
                "CPU s",
                "< 30 s wall",
                "BIC chooses K",
                "EM iterations (best runs)",
                "log-lik. non-decreasing in K (largest drop)",
            ],
            rows,
        )
    )
    lines += ["", "Log-likelihood reached per K:", ""]
    ll_rows = []
    for cls in ("MallowsMixture", "PlackettLuceMixture"):
        for *_, name in CONFIGS:
            ll_rows.append([cls, name] + [f"{x:.1f}" for x in lls[(cls, name)]])
    lines.append(markdown_table(["model", "starts"] + [f"K={k}" for k in ks], ll_rows))
    return "\n".join(lines)


def bench_table2(reps: int) -> str:
    rows = []
    for rep in range(reps):
        rng = np.random.RandomState(1000 + rep)
        centers = np.argsort(np.argsort(rng.random_sample((10, 20)), axis=1), axis=1)
        R, _ = make_heterogeneous_rankings(
            1000, centers, 1.0, lengths=list(range(1, 20)), random_state=rep
        )
        wall, cpu, est = timed(
            lambda R=R, rep=rep: MallowsMixture(10, n_init=10, random_state=rep).fit(R)
        )
        rows.append([rep, f"{wall:.1f}", f"{cpu:.1f}", est.n_iter_])
    return "\n".join(
        [
            "### Table 2 size: n = 1000 top-t lists, m = 20, K = 10, n_init = 10",
            "",
            markdown_table(["repetition", "wall s", "CPU s", "EM iterations (best run)"], rows),
        ]
    )


@contextlib.contextmanager
def old_path():
    """The EM of before: plain EM (``accelerate=False`` is set by the caller) and BLAS left
    with its default threads (the one-thread limit of ``_fit`` replaced by a no-op)."""
    saved = mixture_module.threadpool_limits
    mixture_module.threadpool_limits = lambda *a, **k: contextlib.nullcontext()
    try:
        yield
    finally:
        mixture_module.threadpool_limits = saved


def _old_mm_sums(stages, row_w, exposure):
    """The MM sums of before: one ``np.bincount`` per component and sum."""
    m = stages.n_items
    chosen = stages.order[stages.active]
    rows = np.nonzero(stages.active)[0]
    k_comp = row_w.shape[1]
    wins = np.stack(
        [np.bincount(chosen, weights=row_w[rows, k], minlength=m) for k in range(k_comp)]
    )
    flat = stages.order.ravel()
    denoms = np.stack(
        [
            np.bincount(flat, weights=(row_w[:, k, None] * exposure[:, k, :]).ravel(), minlength=m)
            for k in range(k_comp)
        ]
    )
    return wins, denoms


def _old_responsibilities(loglik, log_weights):
    """The E-step's softmax of before (numpy, five temporaries)."""
    joint = loglik + log_weights[None, :]
    mx = joint.max(axis=1)
    with np.errstate(divide="ignore", under="ignore"):
        row_ll = mx + np.log(np.exp(joint - mx[:, None]).sum(axis=1))
    return np.exp(joint - row_ll[:, None]), row_ll


@contextlib.contextmanager
def old_kernels():
    """The compiled EM kernels of before (section 5 of the module docstring): the log-space
    Plackett-Luce pass, bincount MM sums, no orderings (so the Mallows blocks hold the pair
    matrix and the seeding uses it or ``kendall_distances``, as before), numpy softmax."""
    saved = (
        pl_module._nb_stage_pass,
        mixture_module.mm_sums,
        mixture_module.row_orders,
        mixture_module.responsibilities,
    )
    pl_module._nb_stage_pass = pl_module._nb_stage_pass_log
    mixture_module.mm_sums = _old_mm_sums
    mixture_module.row_orders = lambda ranks, lengths: None
    mixture_module.responsibilities = _old_responsibilities
    try:
        yield
    finally:
        (
            pl_module._nb_stage_pass,
            mixture_module.mm_sums,
            mixture_module.row_orders,
            mixture_module.responsibilities,
        ) = saved


def kernels_seeds() -> str:
    """Log-likelihood per K with the old and the new kernels on several data sets and seeds
    (``select_k`` K = 1..4, ``n_init=3``): a markdown table of the smallest difference."""
    from rankclust.io import read_rankings

    home = Path(os.environ["RANKCLUST_DATA"])
    sets = [("APA (15,449 ballots)", fetch_apa())]
    sushi = home / "sushi3" / "sushi3a.5000.10.order"
    meath = home / "irish_election_2002" / "00001-00000003.soi"
    if sushi.exists():
        sets.append(("SUSHI A, first 1,500", read_rankings(sushi)[:1500]))
    if meath.exists():
        sets.append(("Meath, first 4,000", read_rankings(meath)[:4000]))
    rows = []
    for name, R in sets:
        for cls in (MallowsMixture, PlackettLuceMixture):
            for seed in (0, 1, 2):
                est = cls(n_init=3, random_state=seed)
                with old_kernels():
                    old = [r["log_likelihood"] for r in select_k(est, R, range(1, 5)).table]
                new = [r["log_likelihood"] for r in select_k(est, R, range(1, 5)).table]
                d = np.array(new) - np.array(old)
                rows.append(
                    [
                        name,
                        cls.__name__,
                        seed,
                        f"{d.min():+.3g}",
                        f"{(d / np.abs(old)).min():+.2g}",
                    ]
                )
                print(*rows[-1], flush=True)
    head = ["data", "model", "seed", "min new - old", "relative"]
    return markdown_table(head, rows)


def survey_workloads():
    """(name, data file, run(accelerate) -> per-K log-likelihoods) of the survey waits."""
    from rankclust.cli import main as cli_main
    from rankclust.io import read_rankings

    home = Path(os.environ["RANKCLUST_DATA"])
    sushi = home / "sushi3" / "sushi3a.5000.10.order"
    meath = home / "irish_election_2002" / "00001-00000003.soi"
    out = []
    if sushi.exists():
        R = read_rankings(sushi)
        for cls in (MallowsMixture, PlackettLuceMixture):

            def run(acc, cls=cls, R=R):
                est = cls(n_init=10, random_state=0, accelerate=acc)
                res = select_k(est, R, range(1, 11))
                return [r["log_likelihood"] for r in res.table]

            out.append((f"SUSHI A select_k K=1..10, {cls.__name__}(n_init=10)", run))
    if meath.exists():
        R = read_rankings(meath)

        def cli(args, acc):
            # the CLI's own fits; accelerate is switched through the class default
            saved = {
                c: c.__init__.__kwdefaults__["accelerate"]
                for c in (MallowsMixture, PlackettLuceMixture)
            }
            for c in saved:
                c.__init__.__kwdefaults__["accelerate"] = acc
            try:
                with (
                    contextlib.redirect_stdout(io.StringIO()),
                    contextlib.redirect_stderr(io.StringIO()),
                ):
                    cli_main([*args, "--quiet"])
            finally:
                for c, v in saved.items():
                    c.__init__.__kwdefaults__["accelerate"] = v
            return []

        def select(acc, R=R):
            est = MallowsMixture(random_state=0, accelerate=acc)
            return [r["log_likelihood"] for r in select_k(est, R, range(1, 6)).table]

        out.append(("Meath select_k K=1..5, MallowsMixture() (the CLI's select-k fits)", select))
        out.append(
            (
                "Meath `rankclust cluster -k 6 --method pl-mixture` (CLI)",
                lambda acc: cli(["cluster", str(meath), "-k", "6", "--method", "pl-mixture"], acc),
            )
        )
        out.append(
            (
                "Meath `rankclust select-k --ks 1..5` (CLI)",
                lambda acc: cli(["select-k", str(meath), "--ks", "1..5"], acc),
            )
        )
    return out


def bench_surveys(reps: int, kernels: bool = False) -> str:
    rows, ll_rows = [], []
    for ctx in (old_kernels(), contextlib.nullcontext()):  # compile outside timing
        with ctx:
            MallowsMixture(2, n_init=1, random_state=0).fit(fetch_apa())
            PlackettLuceMixture(2, n_init=1, random_state=0).fit(fetch_apa())
    for name, run in survey_workloads():
        times = {False: [], True: []}
        cpus = {False: [], True: []}
        lls = {}
        for _ in range(reps):
            for new in (False, True):  # interleaved: before, after, before, after, ...
                if kernels:  # both sides SQUAREM + one BLAS thread; the kernels differ
                    ctx = old_kernels() if not new else contextlib.nullcontext()
                    acc = True
                else:
                    ctx = old_path() if not new else contextlib.nullcontext()
                    acc = new
                with ctx:
                    wall, cpu, ll = timed(lambda acc=acc, run=run: run(acc))
                times[new].append(wall)
                cpus[new].append(cpu)
                lls[new] = ll
                print(
                    name, "after" if new else "before", round(wall, 2), round(cpu, 2), flush=True
                )
        before, after = np.median(times[False]), np.median(times[True])
        row = [name, f"{before:.1f}", f"{after:.1f}", f"{before / after:.1f}x"]
        if kernels:
            cb, ca = np.median(cpus[False]), np.median(cpus[True])
            row += [f"{cb:.1f}", f"{ca:.1f}", f"{cb / ca:.1f}x"]
        rows.append(row)
        if lls[False]:
            diff = np.array(lls[True]) - np.array(lls[False])
            ll_rows.append(
                [name]
                + [f"{a:.2f} / {b:.2f}" for a, b in zip(lls[False], lls[True], strict=True)]
                + [f"{diff.min():+.3g}"]
            )
    head = ["workload", "before s", "after s", "speed-up"]
    if kernels:
        lines = [
            f"### Compiled EM kernels: before / after in one process (median of {reps})",
            "",
            "Before: the kernels of the previous version (log-space Plackett-Luce pass, bincount "
            "MM sums, Mallows statistics and counts as products with the pair matrix, seeding "
            "by `kendall_distances`, numpy softmax); after: the compiled kernels. Both with "
            "SQUAREM and one BLAS thread (the defaults). Wall and CPU (process) seconds.",
            "",
            markdown_table([*head, "before CPU s", "after CPU s", "CPU speed-up"], rows),
        ]
    else:
        lines = [
            f"### Survey waits: before / after in one process (median of {reps})",
            "",
            "Before: plain EM with BLAS at its default threads (the code before this change); "
            "after: the default (SQUAREM-accelerated EM, one BLAS thread inside the fit).",
            "",
            markdown_table(head, rows),
        ]
    lines += [
        "",
        "Log-likelihood per K, before / after (smallest after - before last):",
        "",
    ]
    width = max((len(r) for r in ll_rows), default=0)
    for r in ll_rows:
        k = len(r) - 2
        lines += [
            markdown_table(
                ["workload"] + [f"K={i}" for i in range(1, k + 1)] + ["min after - before"], [r]
            ),
            "",
        ]
    del width
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--surveys", action="store_true", help="only the SUSHI A / Meath waits")
    ap.add_argument("--reps", type=int, default=3, help="repeats of the survey waits")
    ap.add_argument("--kernels", action="store_true", help="with --surveys: old/new kernels")
    ap.add_argument(
        "--kernels-seeds", action="store_true", help="log-likelihoods, old/new kernels, 3 seeds"
    )
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    if args.kernels_seeds:
        print(kernels_seeds())
        return
    if args.surveys and args.kernels:
        body = bench_surveys(args.reps, kernels=True)
        text = OUT_SURVEYS.read_text() if OUT_SURVEYS.exists() else ""
        marker = "\n## Compiled EM kernels\n"
        text = text.split(marker)[0].rstrip("\n")
        OUT_SURVEYS.write_text(
            "\n".join(
                [
                    text,
                    marker,
                    f"Measured {datetime.now():%Y-%m-%d %H:%M} on {machine_line()}. Command: "
                    "`nice .venv/bin/python benchmarks/bench_mixture.py --surveys --kernels "
                    f"--reps {args.reps}`.",
                    "",
                    body,
                    "",
                ]
            )
        )
        print(OUT_SURVEYS.read_text())
        return
    if args.surveys:
        body = bench_surveys(args.reps)
        OUT_SURVEYS.write_text(
            "\n".join(
                [
                    "# rankclust mixtures on real surveys: before / after",
                    "",
                    f"Measured {datetime.now():%Y-%m-%d %H:%M} on {machine_line()}; the machine "
                    "is shared with other jobs (wall times; the ratio is what counts). Command: "
                    f"`nice .venv/bin/python benchmarks/bench_mixture.py --surveys --reps {args.reps}`.",
                    "",
                    body,
                    "",
                ]
            )
        )
        print(OUT_SURVEYS.read_text())
        return
    apa = fetch_apa()
    ks = list(range(1, 4)) if args.quick else list(range(1, 9))
    sections = [
        bench_apa(apa, "APA 1980, all 15,449 ballots", ks),
        bench_apa(apa[np.flatnonzero(apa.lengths >= 4)], "APA 1980, complete ballots (5,738)", ks),
        bench_table2(1 if args.quick else 3),
    ]
    head = [
        "# rankclust.cluster mixtures benchmarks",
        "",
        f"Measured {datetime.now():%Y-%m-%d %H:%M} on {machine_line()}; the machine is shared "
        "with other jobs, so wall times are pessimistic (CPU times are process times). "
        f"Command: `nice .venv/bin/python benchmarks/bench_mixture.py"
        f"{' --quick' if args.quick else ''}`.",
        "",
        "Every fit merges identical ballots first (205 distinct lists among the 15,449 APA "
        "ballots, 120 among the complete ones) and runs EM on them with the counts as weights. "
        "No peer library fits these mixtures in Python (PLMIX and Rankcluster are R packages), "
        "so absolute times are reported against the 30 s target. The waits on real surveys "
        "(SUSHI A, Irish Meath), before and after SQUAREM and the one-thread BLAS limit, are in "
        "`RESULTS_mixture_surveys.md` (`--surveys`).",
        "",
    ]
    OUT.write_text("\n".join([*head, "\n\n".join(sections), ""]))
    print(OUT.read_text())


if __name__ == "__main__":
    main()

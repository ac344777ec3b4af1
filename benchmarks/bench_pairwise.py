"""Bradley-Terry on sparse pairwise comparisons: rankclust against choix, one run.

1. **GIFGIF-shaped** instance (6,170 items, 106,877 comparisons from Bradley-Terry with
   log-normal worths, :func:`rankclust.datasets.make_bradley_terry_comparisons`,
   ``random_state=0``): rankclust ``BradleyTerry`` (Newton-CG, and the MM reference) against
   choix ``ilsr_pairwise`` and ``opt_pairwise``, each at the **same regularisation**:

   * gamma prior ``alpha = ALPHA_GAMMA``: rankclust ``BradleyTerry(alpha)`` = choix
     ``ilsr_pairwise(alpha=ALPHA_GAMMA / n_items)`` (choix adds its alpha to every rate of the
     Markov chain: a Gamma prior of strength ``alpha * n_items`` per item);
   * Gaussian prior ``ALPHA_L2 * sum(z^2)``: rankclust ``BradleyTerry(alpha, prior="gaussian")``
     = choix ``opt_pairwise(alpha=ALPHA_L2)``.

   Every fit runs in its own subprocess (peak memory = that process's ``ru_maxrss``; the
   increment over the process before the fit is also reported); the time is the fit only
   (data built before the clock starts). Quality: the log-posterior of each solution under
   its own prior, relative gap to the best solution found for that prior.
2. **Scaling**: rankclust Newton at 10^4, 10^5, 10^6 comparisons, items growing with them
   (the GIFGIF ratio, 17.3 comparisons per item), with choix ``ilsr_pairwise`` where its
   dense n_items^2 chain fits (it needs 8 n_items^2 bytes).

Run: ``python benchmarks/bench_pairwise.py`` (about 5 minutes; ``--quick`` for a smaller
GIFGIF size). Results: ``benchmarks/RESULTS_pairwise.md`` (written by hand from the output).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import statistics
import subprocess
import sys
import time

import numpy as np

ALPHA_GAMMA = 0.1
ALPHA_L2 = 0.01
GIFGIF = (6170, 106_877)


def _objective(C, scores: np.ndarray, alpha: float, prior: str) -> float:
    from rankclust.pairwise._bradley_terry import _Pairs, _prior

    P = _Pairs(C, None, False)
    x = np.asarray(scores, dtype=np.float64)
    if prior == "gamma":  # the gamma prior is not shift-invariant: evaluate at its own scale
        x = x - np.log(np.mean(np.exp(x)))
    return P.loglik(x) + _prior(x, P.m, alpha, prior)[0]


def child(method: str, m: int, n: int, seed: int) -> None:
    """Build the data, fit one method, print a JSON line (time, rss, log-posterior)."""
    from rankclust.datasets import make_bradley_terry_comparisons
    from rankclust.pairwise import BradleyTerry

    C, _ = make_bradley_terry_comparisons(m, n, random_state=seed)
    pairs = np.column_stack([C.winner, C.loser])
    prior = "gaussian" if method.endswith("_l2") or method == "choix_opt" else "gamma"
    alpha = ALPHA_L2 if prior == "gaussian" else ALPHA_GAMMA
    if method.startswith("choix"):
        import choix

        data = [tuple(p) for p in pairs.tolist()]
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0 = time.perf_counter()

    def stop(*_: object) -> None:  # report the peak memory so far of a fit that is too slow
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        out = {"method": method, "prior": prior, "seconds": float("inf"), "rss_mb": rss / 1024}
        out.update({"rss_fit_mb": (rss - rss0) / 1024, "objective": float("nan")})
        print(json.dumps(out), flush=True)
        os._exit(0)

    signal.signal(signal.SIGALRM, stop)
    signal.alarm(int(TIMEOUT))
    if method in ("rankclust_newton", "rankclust_newton_l2"):
        scores = BradleyTerry(alpha=alpha, prior=prior).fit(C).scores_
    elif method == "rankclust_mm":
        scores = BradleyTerry(alpha=alpha, solver="mm", tol=1e-12, max_iter=1000).fit(C).scores_
    elif method == "choix_ilsr":
        scores = choix.ilsr_pairwise(m, data, alpha=alpha / m)
    elif method == "choix_opt":
        scores = choix.opt_pairwise(m, data, alpha=alpha)
    else:
        raise SystemExit(f"unknown method {method}")
    secs = time.perf_counter() - t0
    signal.alarm(0)
    rss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(
        json.dumps(
            {
                "method": method,
                "prior": prior,
                "seconds": secs,
                "rss_mb": rss1 / 1024,
                "rss_fit_mb": (rss1 - rss0) / 1024,
                "objective": _objective(C, scores, alpha, prior),
            }
        )
    )


#: A fit still running after this many seconds is stopped and reported as "> TIMEOUT" (with
#: its peak memory so far).
TIMEOUT = 420.0


def run(method: str, m: int, n: int, seed: int = 0) -> dict:
    try:
        out = subprocess.run(
            [
                sys.executable,
                __file__,
                "--timeout",
                str(TIMEOUT),
                "--child",
                method,
                str(m),
                str(n),
                str(seed),
            ],
            capture_output=True,
            text=True,
            check=True,
            timeout=TIMEOUT + 60,
        )
    except subprocess.TimeoutExpired:
        return {
            "method": method,
            "prior": "gaussian" if method == "choix_opt" else "gamma",
            "seconds": float("inf"),
            "rss_mb": float("nan"),
            "rss_fit_mb": float("nan"),
            "objective": float("nan"),
        }
    return json.loads(out.stdout.strip().splitlines()[-1])


def gifgif(m: int, n: int, repeat: int) -> None:
    methods = [
        "rankclust_newton",
        "rankclust_mm",
        "choix_ilsr",
        "rankclust_newton_l2",
        "choix_opt",
    ]
    runs: dict[str, list[dict]] = {k: [] for k in methods}
    for r in range(repeat):  # interleaved: one of each per round
        for k in methods:
            if k.startswith("choix") and r > 0 and runs[k][0]["seconds"] > 30:
                continue  # one run of a slow peer is enough to state the ratio
            runs[k].append(run(k, m, n))
            print(k, runs[k][-1], flush=True)
    best = {}
    for k in methods:
        p = runs[k][0]["prior"]
        best[p] = np.nanmax([best.get(p, -np.inf), *(x["objective"] for x in runs[k])])
    print(f"\n## GIFGIF-shaped: {m} items, {n} comparisons (median of runs)\n")
    print(
        "| method | prior | runs | time (s) | time / rankclust | peak RSS (MB) | fit RSS increment (MB) | rel. gap of log-posterior |"
    )
    print("|---|---|---|---|---|---|---|---|")
    base = {
        "gamma": statistics.median(x["seconds"] for x in runs["rankclust_newton"]),
        "gaussian": statistics.median(x["seconds"] for x in runs["rankclust_newton_l2"]),
    }
    for k in methods:
        xs = runs[k]
        p = xs[0]["prior"]
        t = statistics.median(x["seconds"] for x in xs)
        rss = statistics.median(x["rss_mb"] for x in xs)
        inc = statistics.median(x["rss_fit_mb"] for x in xs)
        gap = max(abs(x["objective"] - best[p]) / abs(best[p]) for x in xs)
        ts = f"> {TIMEOUT:.0f} (stopped)" if t == float("inf") else f"{t:.3f}"
        print(
            f"| {k} | {p} | {len(xs)} | {ts} | {t / base[p]:.1f} | {rss:.0f} | {inc:.0f} | {gap:.1e} |"
        )


def scaling(repeat: int) -> None:
    print("\n## Scaling (gamma prior)\n")
    print(
        "| comparisons | items | rankclust time (s) | rankclust fit RSS increment (MB) "
        "| choix ilsr time (s) | choix fit RSS increment (MB) |"
    )
    print("|---|---|---|---|---|---|")
    for n in (10_000, 100_000, 1_000_000):
        m = round(n / 17.3)
        rc = [run("rankclust_newton", m, n, seed=1) for _ in range(repeat)]
        chm = ""
        if m < 1000:  # beyond, one choix fit takes many minutes (dense n_items^2 chain)
            c = run("choix_ilsr", m, n, seed=1)
            ch, chm = f"{c['seconds']:.2f}", f"{c['rss_fit_mb']:.0f}"
        else:
            ch = f"not run (dense chain {8 * m * m / 1e9:.2f} GB per iteration)"
        t = statistics.median(x["seconds"] for x in rc)
        r = statistics.median(x["rss_fit_mb"] for x in rc)
        print(f"| {n} | {m} | {t:.3f} | {r:.0f} | {ch} | {chm} |", flush=True)


def main() -> None:
    global TIMEOUT
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--child", nargs=4, metavar=("METHOD", "M", "N", "SEED"))
    ap.add_argument("--quick", action="store_true", help="600 items, 10,000 comparisons")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--skip-scaling", action="store_true")
    ap.add_argument("--scaling-only", action="store_true")
    ap.add_argument("--only", help="run one method on the GIFGIF instance and print its JSON")
    ap.add_argument("--timeout", type=float, default=TIMEOUT, help="stop a fit after (s)")
    args = ap.parse_args()
    TIMEOUT = args.timeout
    if args.child:
        method, m, n, seed = args.child
        child(method, int(m), int(n), int(seed))
        return
    m, n = (600, 10_000) if args.quick else GIFGIF
    if args.scaling_only:
        scaling(args.repeat)
        return
    if args.only:
        print(json.dumps(run(args.only, m, n)))
        return
    gifgif(m, n, args.repeat)
    if not args.skip_scaling:
        scaling(args.repeat)


if __name__ == "__main__":
    main()

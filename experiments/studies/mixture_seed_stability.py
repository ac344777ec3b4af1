"""Seed stability of the clusterers' defaults on real ballots (issue #17, item 1).

For each (data set, K, estimator) the estimator is fitted with ``random_state`` 0..9. The
script prints the number of distinct partitions (adjusted Rand index 1 counts as the same
partition), the relative spread of the objective (the log-likelihood for the mixtures, the
error for the chain clusterers), the CPU time per fit and how many fits warned that the
restarts disagree, and writes the table to ``experiments/studies/results/mixture_seed_stability.md``.

The mixtures run with their defaults on the ballots (``kind="top"``). ``ChainKMeans`` and
``KOMeans`` run on the APA ballots read as chains (``kind="subset"``) with ``n_init="auto"``
(the default), 10 and 200 (``KOMeans`` with its default k-means++ seeding and with the
published random partition). Two fits of a chain
clusterer are compared on the chains that are nearer to one centre than to the others in both
fits (a chain equally far from two centres, e.g. every chain of fewer than two items, has an
arbitrary cluster).

``--only chains`` re-runs the chain rows only and keeps the mixture rows of the results file
(``--only mixtures`` the reverse); the mixtures take minutes, the chain rows seconds.

Data (PrefLib, in ``$RANKCLUST_DATA`` or ``../shared/data`` beside the repository): APA 1998
(``apa_elections_1998_2009/00028-00000001.soi``, 18,723 ballots, 5 candidates) and the Irish
2002 Meath election (``irish_election_2002/00001-00000003.soi``, 14 candidates).

Usage: ``python experiments/studies/mixture_seed_stability.py [--seeds 10] [--only chains]``
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.metrics import adjusted_rand_score

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _common import data_home, limit_threads, md_table, paths, platform_line

from rankclust._restarts import tied_rows
from rankclust.cluster import ChainKMeans, KOMeans, MallowsMixture, PlackettLuceMixture
from rankclust.io import read_preflib

DATA = data_home()
CASES = (
    ("APA 1998", "apa_elections_1998_2009/00028-00000001.soi", 3),
    ("Meath 2002", "irish_election_2002/00001-00000003.soi", 4),
)
MODELS = {"Mallows": MallowsMixture, "Plackett-Luce": PlackettLuceMixture}
#: (label, estimator, parameters) of the chain rows, on APA 1998 read as chains
CHAIN_ROWS = (
    ("ChainKMeans, n_init='auto' (default)", ChainKMeans, {}),
    ("ChainKMeans, n_init=10", ChainKMeans, {"n_init": 10}),
    ("ChainKMeans, n_init=200", ChainKMeans, {"n_init": 200}),
    ("KOMeans, k-means++, n_init='auto' (default)", KOMeans, {}),
    ("KOMeans, random partition, n_init='auto'", KOMeans, {"init": "random_partition"}),
    ("KOMeans, random partition, n_init=10", KOMeans, {"init": "random_partition", "n_init": 10}),
    (
        "KOMeans, random partition, n_init=200",
        KOMeans,
        {"init": "random_partition", "n_init": 200},
    ),
)
OUT = paths(__file__).results / "mixture_seed_stability.md"
CHAIN_DATA = "as chains"  # the data column of the chain rows ends with this


def stability(R, make, seeds: int, *, score: str, rows_of=None) -> dict:
    """Distinct partitions, relative objective spread, CPU s per fit, fits that warned.

    ``make(seed)`` builds the estimator, ``score`` names its objective attribute and
    ``rows_of(est)`` (a boolean row mask) the rows whose labels count for that fit; two fits
    are compared on the rows that count for both.
    """
    values, fits, cpu, warned, near_tie = [], [], [], 0, 0
    for seed in range(seeds):
        c0 = time.process_time()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            est = make(seed).fit(R)
        cpu.append(time.process_time() - c0)
        # every restart warning names n_init_agreeing_ or restart_gap_
        warned += any("start" in str(w.message) for w in caught)
        near_tie += any("nearly as well" in str(w.message) for w in caught)
        values.append(getattr(est, score))
        labels = np.asarray(est.labels_)
        rows = np.ones(len(labels), dtype=bool) if rows_of is None else rows_of(est)
        fits.append((labels, rows))
    partitions: list = []
    for labels, rows in fits:
        if not any(
            adjusted_rand_score(labels[rows & r], p[rows & r]) == 1.0 for p, r in partitions
        ):
            partitions.append((labels, rows))
    values = np.array(values)
    return {
        "partitions": len(partitions),
        "spread": float((values.max() - values.min()) / abs(values).max()),
        "cpu": float(np.mean(cpu)),
        "warned": warned,
        "near_tie": near_tie,
    }


def table_row(name: str, k: int, model: str, r: dict, seeds: int) -> str:
    near = "-" if r.get("near_tie") is None else f"{r['near_tie']}/{seeds}"
    return (
        f"| {name} | {k} | {model} | {r['partitions']} | {r['spread']:.1e} | "
        f"{r['cpu']:.2f} | {r['warned']}/{seeds} | {near} |"
    )


def kept_rows(chains: bool) -> list[str]:
    """The table rows of the results file for the chain clusterers (or the others)."""
    if not OUT.exists():
        return []
    lines = [line for line in OUT.read_text().splitlines() if line.startswith("| ")]
    rows = [line for line in lines[1:] if not line.startswith("| data ")]
    rows = [line for line in rows if line.split("|")[1].strip().endswith(CHAIN_DATA) == chains]
    # rows written before the near-tie column existed get "-" there
    return [line + " - |" if line.count("|") == 8 else line for line in rows]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument(
        "--only",
        choices=("mixtures", "chains"),
        help="run these rows only and keep the others from the results file",
    )
    args = ap.parse_args()
    # one BLAS thread: the CPU times then measure the fit, not idle BLAS threads spinning
    limit_threads(1)
    mixture_rows, chain_rows = [], []
    if args.only != "chains":
        for name, rel, k in CASES:
            R = read_preflib(DATA / rel)
            for model, cls in MODELS.items():
                res = stability(
                    R,
                    lambda s, c=cls, k=k: c(k, random_state=s),
                    args.seeds,
                    score="log_likelihood_",
                )
                mixture_rows.append(
                    table_row(name, k, f"{model} mixture (default)", res, args.seeds)
                )
                print(mixture_rows[-1], flush=True)
    else:
        mixture_rows = kept_rows(chains=False)
    if args.only != "mixtures":
        name, rel, k = CASES[0]
        chains = read_preflib(DATA / rel, kind="subset")

        def untied(est):
            return ~tied_rows(est.transform(chains))

        for label, cls, params in CHAIN_ROWS:
            res = stability(
                chains,
                lambda s, c=cls, p=params: c(k, random_state=s, **p),
                args.seeds,
                score="objective_",
                rows_of=untied,
            )
            chain_rows.append(table_row(f"{name} {CHAIN_DATA}", k, label, res, args.seeds))
            print(chain_rows[-1], flush=True)
    else:
        chain_rows = kept_rows(chains=True)
    runs = {
        None: "all rows",
        "chains": "the chain rows (`--only chains`); the mixture rows are kept from the last "
        "full run",
        "mixtures": "the mixture rows (`--only mixtures`); the chain rows are kept from the "
        "last run",
    }
    lines = [
        "# Seed stability of the clusterers' defaults",
        "",
        f"Generated by `experiments/studies/mixture_seed_stability.py --seeds {args.seeds}` "
        f"({platform_line(cores=False)}; last run: "
        f"{runs[args.only]}). `random_state` 0..{args.seeds - 1}; partitions compared up to "
        "relabelling (adjusted Rand index 1; for the chain clusterers over the chains nearer "
        "to one centre than to the others in both fits); spread = (max - min) / |max| of the "
        "objective (log-likelihood, or the chain error); CPU seconds per fit; warned = fits "
        "that emitted a restart ConvergenceWarning (too few agreeing or unconfirmed starts, or "
        "a near tie); near tie = fits that warned that a different partition fits nearly as "
        "well ('-': not recorded in that run).",
        "",
        *md_table(
            [
                "data",
                "K",
                "estimator",
                "distinct partitions",
                "objective spread (relative)",
                "CPU s / fit",
                "warned",
                "near tie",
            ]
        ),
        *mixture_rows,
        *chain_rows,
    ]
    OUT.write_text("\n".join(lines) + "\n")
    print(OUT.read_text())


if __name__ == "__main__":
    main()

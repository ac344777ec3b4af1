"""Davidson-Luce fits (Plackett-Luce with ties) against an independent scipy maximisation.

For each partial-label-ranking set of Alfaro et al. (bucket orders: the label rankings have
ties) with at most 8 labels, the label rankings alone are fitted by ``PlackettLuce`` (which
switches to the Davidson-Luce model on tied data) and by a direct maximisation of the same
likelihood written from its definition: every stage's normaliser as an explicit sum over all
subsets of the available labels of each tie order (a sparse matrix of subsets), maximised by
scipy's L-BFGS-B with the gradient of that enumeration (item 0 as reference, the log tie
strengths of the observed orders free). The table gives the largest absolute differences of
the sum-zero scores and of the tie strengths; the issue asks for at most 1e-5.

Data (in ``$RANKCLUST_DATA`` or ``../shared/data`` beside the repository):
``partial_label_ranking_alfaro/*.csv``.

Usage: ``python experiments/studies/davidson_luce_check.py`` (about a minute)
"""

from __future__ import annotations

import itertools
import sys
import time
from pathlib import Path

import numpy as np
from scipy import optimize, sparse

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _common import data_home, limit_threads, md_table, paths, platform_line

from rankclust.io import read_label_ranking_csv
from rankclust.models.plackett_luce import PlackettLuce

DATA = data_home() / "partial_label_ranking_alfaro"
OUT = paths(__file__).results / "davidson_luce_check.md"
MAX_LABELS = 8


def enumerated_problem(ranks: np.ndarray, counts: np.ndarray, orders: list[int]):
    """Sparse subset matrix, tie order and stage of every candidate set, and the chosen sets."""
    m = ranks.shape[1]
    rows, cols, vals, order_of, stage_of, chosen, weight = [], [], [], [], [], [], []
    n_sub = 0
    stage = 0
    for r, c in zip(ranks, counts, strict=True):
        left = set(np.flatnonzero(r >= 0))
        for b in range(int(r.max()) + 1):
            bucket = tuple(sorted(np.flatnonzero(r == b)))
            for d in orders:
                for S in itertools.combinations(sorted(left), d):
                    if S == bucket:
                        chosen.append(n_sub)
                    rows += [n_sub] * d
                    cols += list(S)
                    vals += [1.0 / d] * d
                    order_of.append(d)
                    stage_of.append(stage)
                    n_sub += 1
            weight.append(c)
            left -= set(bucket)
            stage += 1
    A = sparse.csr_matrix((vals, (rows, cols)), shape=(n_sub, m))
    return A, np.array(order_of), np.array(stage_of), np.array(chosen), np.array(weight, float)


def independent_fit(R) -> tuple[np.ndarray, dict[int, float], float]:
    ranks, counts = np.unique(R.ranks.astype(np.int64), axis=0, return_counts=True)
    m = ranks.shape[1]
    sizes = [np.bincount(r[r >= 0]) for r in ranks]
    observed = sorted({int(s) for sz in sizes for s in sz if s >= 2})
    orders = [1, *observed]
    t0 = time.perf_counter()
    A, order_of, stage_of, chosen, w = enumerated_problem(ranks, counts, orders)
    pos = {d: i for i, d in enumerate(observed)}
    D = np.zeros((order_of.size, len(observed)))  # which log delta each set carries
    for i, d in enumerate(order_of):
        if d >= 2:
            D[i, pos[d]] = 1.0
    ends = np.r_[np.flatnonzero(np.diff(stage_of)) + 1]

    def negll(x):
        z = np.r_[0.0, x[: m - 1]]
        eta = A @ z + D @ x[m - 1 :]
        mx = np.maximum.reduceat(eta, np.r_[0, ends])
        ex = np.exp(eta - mx[stage_of])
        tot = np.add.reduceat(ex, np.r_[0, ends])
        lse = mx + np.log(tot)
        f = np.dot(w, eta[chosen] - lse)
        p = ex / tot[stage_of] * w[stage_of]
        gz = A[chosen].T @ w - A.T @ p
        gd = D[chosen].T @ w - D.T @ p
        return -f, -np.r_[gz[1:], gd]

    res = optimize.minimize(
        negll,
        np.zeros(m - 1 + len(observed)),
        jac=True,
        method="L-BFGS-B",
        options={"maxiter": 10000, "gtol": 1e-11, "ftol": 0.0},
    )
    z = np.r_[0.0, res.x[: m - 1]]
    deltas = {d: float(np.exp(res.x[m - 1 + i])) for i, d in enumerate(observed)}
    return z - z.mean(), deltas, time.perf_counter() - t0


def main() -> None:
    limit_threads()
    rows = []
    for path in sorted(DATA.glob("*.csv")):
        _, Y = read_label_ranking_csv(path)
        if Y.n_items > MAX_LABELS:
            continue
        t0 = time.perf_counter()
        model = PlackettLuce().fit(Y)
        t_ours = time.perf_counter() - t0
        z, deltas, t_ref = independent_fit(Y)
        ours = {d + 2: v for d, v in enumerate(model.tie_strengths_)}
        dz = np.abs(model.scores_ - z).max()
        dd = max((abs(ours[d] - v) for d, v in deltas.items()), default=0.0)
        unobserved = [d for d, v in ours.items() if d not in deltas]
        assert all(ours[d] == 0.0 for d in unobserved)
        rows.append(
            [
                path.stem,
                Y.n_rankings,
                Y.n_items,
                f"{Y.has_ties.mean():.2f}",
                len(ours) + 1,
                ", ".join(f"{ours[d]:.3f}" for d in sorted(ours)),
                f"{dz:.1e}",
                f"{dd:.1e}",
                f"{t_ours:.2f}",
                f"{t_ref:.2f}",
            ]
        )
        print(rows[-1], flush=True)
    header = [
        "set",
        "n",
        "m",
        "tied rows",
        "D",
        "tie strengths (d = 2..D)",
        "max abs. diff. scores",
        "max abs. diff. tie strengths",
        "ours (s)",
        "scipy (s)",
    ]
    text = (
        "# Davidson-Luce fits against an independent scipy maximisation\n\n"
        "Command: `python experiments/studies/davidson_luce_check.py`\n\n"
        f"{platform_line()}\n\n"
        + "\n".join(md_table(header, rows))
        + "\n\nScores are sum-zero log-worths; a tie order the data never show has strength 0 "
        "in both fits (it is not a parameter of the scipy fit). The scipy times include "
        "building the subset enumeration.\n"
    )
    OUT.write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()

"""Compiled kernels split into helpers: same results and same speed as an earlier revision.

The long compiled kernels (the KTree grower, the label ranking tree grower, the SGD sweep of
PrototypePLMixture, the subset-likelihood DPs of the Mallows model, IBLR's local Newton and EM
fits, the pair counts of Rankings) and the M2SORC interior-point solver were split into named
helpers. This script imports the package of an earlier git revision beside the working
tree's (as ``rankclust_rev``, its imports rewritten), runs each piece on the same inputs in
one process, checks that the outputs are identical and prints the best time of each side
over interleaved repeats, alternating which side runs first (the best of N is the least
sensitive to other jobs on a loaded machine), and their ratio.

Usage (from the repository root)::

    python benchmarks/bench_kernel_splits.py --rev REV [--repeat 15] [--only TEXT ...]
"""

from __future__ import annotations

import argparse
import importlib
import io
import math
import re
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def import_revision(rev: str, into: Path):
    """The package ``src/rankclust`` of git revision ``rev`` as the module ``rankclust_rev``."""
    data = subprocess.run(
        ["git", "-C", str(ROOT), "archive", rev, "src/rankclust"],
        check=True,
        capture_output=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(into, filter="data")
    pkg = into / "rankclust_rev"
    (into / "src" / "rankclust").rename(pkg)
    pattern = re.compile(r"\brankclust\b(?=\.| import)")
    for path in pkg.rglob("*.py"):
        path.write_text(pattern.sub("rankclust_rev", path.read_text(encoding="utf-8")))
    sys.path.insert(0, str(into))
    return importlib.import_module("rankclust_rev")


def _same(a, b) -> bool:
    if isinstance(a, tuple | list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(np.array_equal(np.asarray(a), np.asarray(b)))


def cases() -> dict:
    """name -> callable(package name) returning comparable outputs."""
    rng = np.random.default_rng(0)
    n, d, K, m = 3000, 8, 6, 8
    Xk, Dk, Vk = rng.normal(size=(n, d)), rng.random((n, K)), rng.random((n, m))

    def ktree(p):
        t = importlib.import_module(f"{p}.supervised._ktree").KTree(3, "full").fit(Xk, Dk, Vk)
        return [t.feature, t.threshold, t.left, t.right, t.value, t.node_cost]

    nl, dl, ml = 1500, 6, 6
    Xl = rng.normal(size=(nl, dl))
    S = Xl @ rng.normal(size=(dl, ml)) + rng.normal(0, 1.0, (nl, ml))
    ranks = np.argsort(np.argsort(-S, axis=1), axis=1) + 1
    ranks_inc = np.where(rng.random(ranks.shape) < 0.15, 0, ranks)

    def lr_tree(Y):
        def run(p):
            lr = importlib.import_module(f"{p}.label_ranking")
            t = lr.LabelRankingTree(ccp_alpha=0.0, random_state=0).fit(Xl, Y)
            return [t.feature_, t.threshold_, t.predict(Xl[:300])]

        return run

    ns, ds, ms, Ks, Ps = 4000, 6, 8, 4, 5
    Xs = rng.normal(size=(ns, ds))
    orders = np.array([rng.permutation(ms) for _ in range(ns)], dtype=np.int64)
    lengths = rng.integers(1, ms + 1, ns).astype(np.int64)

    def sgd(p):
        mod = importlib.import_module(f"{p}.supervised.pl_mixture")
        r = np.random.default_rng(7)
        protos = r.normal(size=(Ks * Ps, ds))
        cluster = np.repeat(np.arange(Ks), Ps).astype(np.int64)
        Z, Hg, H = r.normal(size=(Ks, ms)), r.random((ns, Ks)), np.zeros((ns, Ks))
        st = mod.SGDSettings(0.03, 8.0 * ns, 1.3, 8.0 * ns, 1.0, 1.7, False, True, False)
        perm = np.random.RandomState(0).permutation(ns).astype(np.int64)
        data, model = mod.SGDData(Xs, orders, lengths), mod.SGDModel(protos, cluster, Z)
        t = mod._nb_sgd_epoch(data, perm, model, 5, st, Hg, H)
        return [protos, Z, H, t]

    dps = []
    for _ in range(80):
        mm = int(rng.integers(3, 13))
        k = int(rng.integers(1, min(mm, 6)))
        center = rng.permutation(mm).astype(np.int64)
        items = rng.permutation(mm)
        free = items[k:][np.argsort(center[items[k:]], kind="stable")].astype(np.int64)
        binom = np.array(
            [[min(math.comb(a, j), 2**62) for j in range(k + 1)] for a in range(mm + 2)],
            dtype=np.int64,
        )
        theta = float(rng.choice([0.05, 0.7]))
        dps.append((items[:k].astype(np.int64), free, center, theta, binom))

    def mallows_dp(p):
        mod = importlib.import_module(f"{p}.models._mallows_kernels")
        out = [mod._nb_subset_logmass_compositions(*c) for c in dps]
        out += [mod._nb_subset_logmass_bitmask(*c[:4]) for c in dps if len(c[1]) <= 10]
        return out

    qps = []
    for trial in range(30):
        mq, pq = int(rng.integers(20, 80)), int(rng.integers(4, 16))
        single = trial % 2 == 0
        U = mq if single else int(rng.integers(2, mq))
        unit = rng.permutation(mq) if single else rng.integers(0, U, mq)
        if not single:
            unit[:U] = np.arange(U)
        qps.append((
            rng.normal(size=(mq, pq)), rng.normal(size=mq), unit, rng.random(U) + 0.1,
            pq - 1, rng.normal(size=(1, pq)), np.ones(1), np.zeros((0, pq)),
        ))  # fmt: skip

    def qp(p):
        mod = importlib.import_module(f"{p}.ordinal._qp")
        return [[r.v, r.t, r.value, r.n_iter] for r in (mod.solve_slack_qp(*c) for c in qps)]

    from rankclust.datasets import load_label_ranking

    Xg, Yg = load_label_ranking("segment")
    Yg = Yg.to_ranks().astype(float)
    Yg[rng.random(Yg.shape) < 0.3] = np.nan  # incomplete neighbourhoods: the EM iterates
    fitted: dict = {}

    def iblr(cls_name, method):
        def run(p):
            if (p, cls_name) not in fitted:
                cls = getattr(importlib.import_module(f"{p}.label_ranking"), cls_name)
                fitted[p, cls_name] = cls(n_neighbors=15).fit(Xg, Yg)
            return getattr(fitted[p, cls_name], method)(Xg)

        return run

    npc, mpc, kpc = 20000, 12, 4
    pc_ranks = np.array([rng.permutation(mpc) for _ in range(npc)], dtype=np.int64)
    pc_ranks[rng.random((npc, mpc)) < 0.3] = -1
    pc_soft, pc_w, pc_lab = rng.random((npc, kpc)), rng.random(npc), rng.integers(0, kpc, npc)

    def pair_counts(p):
        mod = importlib.import_module(f"{p}.rankings")
        soft, hard = np.zeros((kpc, mpc, mpc)), np.zeros((kpc, mpc, mpc))
        mod._nb_pair_counts_soft(pc_ranks, pc_soft, soft)
        mod._nb_pair_counts_hard(pc_ranks, pc_w, pc_lab, hard)
        return [soft, hard]

    return {
        "IBLRPlackettLuce predict_scores (segment, 2310 queries, 30% missing)": iblr(
            "IBLRPlackettLuce", "predict_scores"
        ),
        "IBLRMallows predict (segment, 2310 queries, 30% missing)": iblr("IBLRMallows", "predict"),
        "Rankings pair counts, soft and hard (n=20000, m=12, K=4)": pair_counts,
        "KTree fit (n=3000, d=8, K=6, m=8)": ktree,
        "LabelRankingTree fit, complete (n=1500, d=6, m=6)": lr_tree(ranks),
        "LabelRankingTree fit, 15% missing": lr_tree(ranks_inc),
        "PrototypePLMixture SGD sweep (n=4000)": sgd,
        "Mallows subset DPs (80 chains, m <= 12)": mallows_dp,
        "M2SORC slack QP solver (30 QPs)": qp,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rev", required=True, help="the git revision to compare with")
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument(
        "--only", nargs="*", default=[""], help="run only the pieces whose name contains one"
    )
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        import_revision(args.rev, Path(tmp))
        print(f"| piece | identical | {args.rev}, best (ms) | this tree, best (ms) | ratio |")
        print("|---|---|---|---|---|")
        for name, run in cases().items():
            if not any(text in name for text in args.only):
                continue
            same = _same(run("rankclust_rev"), run("rankclust"))  # also compiles both
            times: dict[str, list[float]] = {"rankclust_rev": [], "rankclust": []}
            for r in range(args.repeat):
                # alternate which side runs first (the second may find warmer caches)
                for pkg in list(times)[:: 1 if r % 2 else -1]:
                    t0 = time.perf_counter()
                    run(pkg)
                    times[pkg].append(time.perf_counter() - t0)
            old, new = (min(times[p]) * 1e3 for p in times)
            print(
                f"| {name} | {'yes' if same else 'NO'} | {old:.1f} | {new:.1f} | {new / old:.2f} |"
            )


if __name__ == "__main__":
    main()

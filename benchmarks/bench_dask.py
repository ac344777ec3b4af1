"""In memory against Dask: time per iteration and peak memory (issue 8, DESIGN.md section 6).

Chains over 50 items (lengths 5-10) from the planted bucket-order generator of Ukkonen (2011),
``rankclust.cluster.make_planted_chains``, are written once to a ``.npy`` file of 1-based ranks
(int8). Then, each in a fresh process so that peak memory is its own:

* ``memory`` -- the file is loaded into a :class:`~rankclust.Rankings` and fitted in memory;
* ``dask``   -- a ``LocalCluster`` with 2 worker processes (1 thread each) reads the file
  as a ``dask.array`` (memory-mapped, chunks of ``--chunk`` rows) and fits with
  ``backend="dask"``; nothing but the per-cluster count matrices and a few numbers comes
  back to the client.

Both fit ``ChainKMeans(init="random_partition", n_init=1)`` with the same seed for
``--iters`` Lloyd iterations (``tol=0``) and report the time of the Lloyd loop divided by
its iterations (each iteration = one assignment pass + one pair-count pass), the time of the
whole ``fit``, and peak resident memory (``ru_maxrss`` of the process; for Dask of the client
and of each worker). ``--mixture N`` also times ``MallowsMixture`` (K=3, one start,
``init_iter=None``) on the first N chains, whose set-up (merging identical rankings) and
E-step cost more per row. The runs check that both back-ends give the same labels.

Usage::

    python benchmarks/bench_dask.py --n 10000000 --iters 5            # writes RESULTS_dask.md
    python benchmarks/bench_dask.py --n 200000 --iters 3 --no-write   # quick check
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
N_ITEMS = 50
LENGTHS = (5, 10)
K = 5


def _maxrss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # KiB on Linux


def generate(path: Path, n: int, seed: int) -> None:
    """Write n planted chains as 1-based int8 ranks (0 = absent), in blocks of 1e6 rows."""
    from rankclust.cluster import make_planted_chains

    # one call keeps the planted components shared by all rows; the generator itself works
    # in blocks of chunk_size rows, and the int64 ranks are converted block by block
    R, y = make_planted_chains(n, n_items=N_ITEMS, length=LENGTHS, n_clusters=K, random_state=seed)
    out = np.lib.format.open_memmap(path, mode="w+", dtype=np.int8, shape=R.shape)
    for a in range(0, n, 1_000_000):
        out[a : a + 1_000_000] = R.ranks[a : a + 1_000_000] + 1
    out.flush()
    np.save(path.with_suffix(".labels.npy"), y)


class _Timed:
    """Mixin that times the estimator's single-run loop (``_lloyd`` / ``_single_run``)."""

    loop_seconds = 0.0
    loop_iters = 0


def _timed(cls: type, loop: str) -> type:
    """A subclass of ``cls`` whose single-run method ``loop`` adds its wall time and
    iterations (``out.n_iter``) to :class:`_Timed`."""

    def timed_loop(self, *args, **kwargs):
        t = time.perf_counter()
        out = getattr(super(timed_cls, self), loop)(*args, **kwargs)
        _Timed.loop_seconds += time.perf_counter() - t
        _Timed.loop_iters += out.n_iter
        return out

    timed_cls = type(f"Timed{cls.__name__}", (cls,), {loop: timed_loop})
    return timed_cls


def _timed_chain_kmeans():
    from rankclust.cluster import ChainKMeans

    return _timed(ChainKMeans, "_lloyd")


def _timed_mixture():
    from rankclust.cluster.mixture import MallowsMixture

    return _timed(MallowsMixture, "_single_run")


def _fit(est_cls, data, args, **params) -> dict:
    _Timed.loop_seconds, _Timed.loop_iters = 0.0, 0
    t = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = est_cls(**params).fit(data)
    fit_s = time.perf_counter() - t
    return {
        "fit_s": fit_s,
        "loop_s": _Timed.loop_seconds,
        "iters": _Timed.loop_iters,
        "per_iter_s": _Timed.loop_seconds / max(_Timed.loop_iters, 1),
        "est": est,
    }


def _chain_params(args) -> dict:
    """ChainKMeans's parameters, the same in memory and with Dask (their labels must agree)."""
    return {"n_clusters": K, "n_init": 1, "max_iter": args.iters, "tol": 0.0, "random_state": 0}


def _mixture_params(args) -> dict:
    """MallowsMixture's parameters, the same in memory and with Dask."""
    return {
        "n_components": 3,
        "n_init": 1,
        "init_iter": None,
        "max_iter": args.mix_iters,
        "random_state": 0,
    }


def run_memory(path: Path, args) -> dict:
    from rankclust import Rankings

    base = _maxrss_mb()
    t = time.perf_counter()
    R = Rankings.from_ranks(np.load(path))
    load_s = time.perf_counter() - t
    res = _fit(
        _timed_chain_kmeans(),
        R,
        args,
        **_chain_params(args),
    )
    est = res.pop("est")
    out = {"load_s": load_s, "chains": res, "rss_base_mb": base}
    np.save(path.with_suffix(".mem_labels.npy"), est.labels_)
    out["rss_chains_mb"] = _maxrss_mb()
    if args.mixture:
        mix = _fit(
            _timed_mixture(),
            R[: args.mixture],
            args,
            **_mixture_params(args),
        )
        np.save(path.with_suffix(".mem_mix_labels.npy"), mix.pop("est").labels_)
        out["mixture"] = mix
    out["rss_peak_mb"] = _maxrss_mb()
    return out


def run_dask(path: Path, args) -> dict:
    import dask.array as da
    from dask.distributed import Client, LocalCluster

    from rankclust._dask import ChunkedRankings

    base = _maxrss_mb()
    with (
        LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            memory_limit="10GiB",
        ) as cluster,
        Client(cluster) as client,
    ):
        worker_base = client.run(_maxrss_mb)
        X = da.from_array(np.load(path, mmap_mode="r"), chunks=(args.chunk, N_ITEMS))
        CR = ChunkedRankings.from_dask_array(X, kind="subset")
        res = _fit(
            _timed_chain_kmeans(),
            CR,
            args,
            **_chain_params(args),
            backend="dask",
        )
        est = res.pop("est")
        labels = est.labels_.compute()
        same = bool(np.array_equal(labels, np.load(path.with_suffix(".mem_labels.npy"))))
        out = {"chains": res, "labels_equal_memory": same, "rss_base_mb": base}
        if args.mixture:
            mix = _fit(
                _timed_mixture(),
                ChunkedRankings.from_dask_array(X[: args.mixture], kind="subset"),
                args,
                **_mixture_params(args),
                backend="dask",
            )
            mlabels = mix.pop("est").labels_.compute()
            ref = np.load(path.with_suffix(".mem_mix_labels.npy"))
            mix["labels_equal_memory"] = bool(np.array_equal(mlabels, ref))
            out["mixture"] = mix
        out["worker_rss_peak_mb"] = list(client.run(_maxrss_mb).values())
        out["worker_rss_base_mb"] = list(worker_base.values())
    out["client_rss_peak_mb"] = _maxrss_mb()
    return out


def _child(mode: str, path: Path, args) -> dict:
    cmd = [
        sys.executable,
        __file__,
        "--child",
        mode,
        "--path",
        str(path),
        "--iters",
        str(args.iters),
        "--chunk",
        str(args.chunk),
        "--mixture",
        str(args.mixture),
        "--mix-iters",
        str(args.mix_iters),
    ]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _report(n: int, args, mem: dict, dsk: dict, gen_s: float) -> str:
    mc, dc = mem["chains"], dsk["chains"]
    lines = [
        "# Dask back-end against in memory",
        "",
        f"Command: `python benchmarks/bench_dask.py --n {n} --iters {args.iters} "
        f"--chunk {args.chunk} --mixture {args.mixture} --mix-iters {args.mix_iters}`",
        "",
        f"Machine: {os.cpu_count()} cores, Linux, Python {platform.python_version()}; shared "
        "with other jobs, so times vary by some 10-20 %. Dask: `LocalCluster(n_workers=2, "
        "threads_per_worker=1, processes=True)` on the same machine.",
        "",
        f"Data: {n:,} chains over {N_ITEMS} items, lengths {LENGTHS[0]}-{LENGTHS[1]}, "
        f"{K} planted bucket orders (`make_planted_chains`, seed 0; generated in "
        f"{gen_s:.0f} s and stored as a {n * N_ITEMS / 2**20:.0f} MiB int8 `.npy`). "
        f"Dask reads it memory-mapped in chunks of {args.chunk:,} rows.",
        "",
        f"## ChainKMeans (K={K}, init='random_partition', n_init=1, {args.iters} Lloyd "
        "iterations, tol=0)",
        "",
        "| back-end | s / iteration | Lloyd loop s | whole fit s | peak RSS |",
        "|---|---|---|---|---|",
        f"| in memory | {mc['per_iter_s']:.2f} | {mc['loop_s']:.1f} | {mc['fit_s']:.1f} "
        f"| {mem['rss_chains_mb'] / 1024:.2f} GiB (process; load {mem['load_s']:.0f} s "
        "not in fit) |",
        f"| Dask, 2 workers | {dc['per_iter_s']:.2f} | {dc['loop_s']:.1f} | {dc['fit_s']:.1f} "
        f"| client {dsk['client_rss_peak_mb'] / 1024:.2f} GiB; workers "
        + ", ".join(f"{w / 1024:.2f}" for w in dsk["worker_rss_peak_mb"])
        + " GiB |",
        "",
        f"Same labels as in memory: **{dsk['labels_equal_memory']}** "
        f"({mc['iters']} and {dc['iters']} iterations).",
    ]
    if args.mixture:
        mm, dm = mem["mixture"], dsk["mixture"]
        lines += [
            "",
            f"## MallowsMixture (K=3, kind='subset', n_init=1, init_iter=None, "
            f"max_iter={args.mix_iters}) on the first {args.mixture:,} chains",
            "",
            "| back-end | s / EM iteration | EM loop s | whole fit s |",
            "|---|---|---|---|",
            f"| in memory | {mm['per_iter_s']:.2f} | {mm['loop_s']:.1f} | {mm['fit_s']:.1f} |",
            f"| Dask, 2 workers | {dm['per_iter_s']:.2f} | {dm['loop_s']:.1f} "
            f"| {dm['fit_s']:.1f} |",
            "",
            f"Same labels as in memory: **{dm['labels_equal_memory']}** "
            f"({mm['iters']} and {dm['iters']} EM iterations, seeding included in the loop).",
        ]
    lines += [
        "",
        "Peak RSS is `ru_maxrss` (the high-water mark of resident memory) of each process. "
        "The in-memory process holds the int64 rank matrix (8 bytes x n x m) plus the "
        "compact chain orderings; each Dask worker holds half of them, and the client only "
        "the m x m count matrices. On one machine Dask cannot be faster than a single "
        "compiled pass (the same kernels run, two cores are shared); its point is that the "
        "per-process memory shrinks with the number of workers, and that the workers can "
        "be other machines.",
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10_000_000)
    ap.add_argument("--iters", type=int, default=5)
    ap.add_argument("--chunk", type=int, default=500_000)
    ap.add_argument("--mixture", type=int, default=0, help="rows for the MallowsMixture run")
    ap.add_argument("--mix-iters", type=int, default=5)
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--child", choices=["memory", "dask"])
    ap.add_argument("--path")
    args = ap.parse_args()
    if args.child:
        path = Path(args.path)
        out = run_memory(path, args) if args.child == "memory" else run_dask(path, args)
        print(json.dumps(out))
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "chains.npy"
        t = time.perf_counter()
        subprocess.run(
            [
                sys.executable,
                "-c",
                "import sys; sys.path.insert(0, sys.argv[1]); import bench_dask as b; "
                "from pathlib import Path; b.generate(Path(sys.argv[2]), int(sys.argv[3]), 0)",
                str(HERE),
                str(path),
                str(args.n),
            ],
            check=True,
        )
        gen_s = time.perf_counter() - t
        print(f"generated {args.n} chains in {gen_s:.1f} s", flush=True)
        mem = _child("memory", path, args)
        print("memory:", json.dumps(mem), flush=True)
        dsk = _child("dask", path, args)
        print("dask:", json.dumps(dsk), flush=True)
    text = _report(args.n, args, mem, dsk, gen_s)
    print(text)
    if not args.no_write:
        (HERE / "RESULTS_dask.md").write_text(text)


if __name__ == "__main__":
    main()

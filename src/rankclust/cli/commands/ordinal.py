"""``rankclust ordinal FILE.csv --pairs PAIRS.csv``: ordinal clustering of feature vectors
guided by ranking pairs (M2SORC, Xiao, Liu & Hao 2016)."""

from __future__ import annotations

import argparse

import numpy as np

from rankclust.cli._checks import check_k
from rankclust.cli._console import Console
from rankclust.cli._errors import EXIT_OK, CLIError
from rankclust.cli._input import read_numeric_csv
from rankclust.cli._methods import make_estimator, parse_set, resolve_method
from rankclust.cli._outputs import Outputs

__all__ = ["cmd_ordinal"]


def cmd_ordinal(args: argparse.Namespace, console: Console) -> int:
    """Fit the ordinal clusterer and print the ordered clusters and the pairs respected."""
    from rankclust.cli.report import format_table, result_dict

    method, cls = resolve_method("ordinal", args.method)
    est = make_estimator(cls, n_clusters=args.k, random_state=args.random_state,
                         n_init=args.n_init, extra=parse_set(args.set),
                         fixed=method.params)  # fmt: skip
    X = read_numeric_csv(args.file, what="features")
    pairs = read_numeric_csv(args.pairs, what="pairs", integer=True) if args.pairs else None
    if pairs is not None:
        if pairs.shape[1] != 2:
            raise CLIError(f"{args.pairs}: expected 2 columns (i, j), got {pairs.shape[1]}")
        bad = (pairs < 0) | (pairs >= len(X))
        if bad.any():
            r = int(np.argwhere(bad)[0, 0])
            raise CLIError(
                f"{args.pairs}: pair {r + 1} refers to row {int(pairs[r][bad[r]][0])}, outside "
                f"0..{len(X) - 1} of {args.file}"
            )
    check_k(args.k, len(X), "rows")
    console.info(f"{args.file}: {X.shape[0]} rows, {X.shape[1]} features; "
                 f"{0 if pairs is None else len(pairs)} ranking pairs")  # fmt: skip
    with console.task(f"fitting {cls.__name__} with K={args.k}"):
        est.fit(X, pairs=pairs)
    labels = np.asarray(est.labels_)
    sizes = np.bincount(labels, minlength=args.k)
    console.print(f"{cls.__name__} ({method.name}): {args.k} ordered clusters, {len(X)} rows")
    console.print(format_table(["cluster (low to high)", "size"],
                               [[k, int(s)] for k, s in enumerate(sizes)]))  # fmt: skip
    if pairs is not None and len(pairs):
        kept = float(np.mean(labels[pairs[:, 0]] > labels[pairs[:, 1]]))
        console.print(
            f"ranking pairs respected (row i in a higher cluster than row j): {kept:.1%}"
        )
    if getattr(est, "objective_", None) is not None:
        console.print(f"objective {est.objective_:.6g}, iterations {getattr(est, 'n_iter_', '-')}")
    out = Outputs(args, console)
    if out.want_plots():
        from rankclust.plotting import plot_feature_clusters

        out.figure("feature_clusters.png", lambda: plot_feature_clusters(X, labels))
    out.json(result_dict(est, extra={"command": "ordinal", "input": args.file,
                                     "pairs": args.pairs, "method": method.name,
                                     "sizes": sizes}))  # fmt: skip
    out.save(est)
    out.report()
    return EXIT_OK

"""``rankclust cluster FILE -k K``: cluster rankings into K groups."""

from __future__ import annotations

import argparse
from typing import Any

from rankclust.cli._checks import (
    check_distance_input,
    check_k,
    check_rank_input,
    distance_option,
)
from rankclust.cli._console import Console
from rankclust.cli._errors import EXIT_OK
from rankclust.cli._features import check_features_options, gate_json, gate_lines, load_features
from rankclust.cli._input import PAIR_FORMATS, input_note, load_rankings
from rankclust.cli._intervals import check_interval_options, report_intervals
from rankclust.cli._methods import make_estimator, parse_set, rankings_method, resolve_method
from rankclust.cli._outputs import Outputs, cluster_figures, interval_figures

__all__ = ["cmd_cluster"]


def cmd_cluster(args: argparse.Namespace, console: Console) -> int:
    """Fit the chosen clusterer and print its clusters, sizes and central rankings."""
    from rankclust.cli.report import cluster_summary, result_dict

    if args.format in PAIR_FORMATS:
        check_features_options(args, None)
        from rankclust.cli.commands.pairs import cmd_cluster_pairs

        return cmd_cluster_pairs(args, console)
    method, cls = resolve_method("cluster", rankings_method(args.method))
    distance = distance_option(args, cls)
    params = parse_set(args.set)
    if distance:
        params["distance"] = distance[0]
    est = make_estimator(
        cls, n_clusters=args.k, random_state=args.random_state, n_init=args.n_init,
        extra=params, fixed=method.params,
    )  # fmt: skip
    check_interval_options(args, cls)
    check_features_options(args, method)
    R = load_rankings(args.file, fmt=args.format, kind=args.kind, items_file=args.items,
                      encoding=args.encoding, strict=not args.skip_malformed)  # fmt: skip
    check_rank_input(method, R, args.file)
    check_distance_input(args.file, R, distance)
    check_k(args.k, R.n_rankings)
    X, names = (None, None)
    if args.features is not None:
        X, names = load_features(args.features, R, args.file)
    console.info(input_note(R, args.file))
    with console.task(f"fitting {cls.__name__} with K={args.k}"):
        est.fit(R) if X is None else est.fit(R, X=X)
    console.summary(cluster_summary(
        est, R, title=f"{cls.__name__} ({method.name}{_distance_note(est)})",
        max_items=console.max_items,
    ), R.n_items)  # fmt: skip
    if X is not None:
        console.print()
        for line in gate_lines(est, names):
            console.print(line)
    intervals, boot = report_intervals(args, est, R, console)
    out = Outputs(args, console)
    cluster_figures(out, est, R)
    interval_figures(out, est, R, boot, level=args.ci_level)
    extra = {"command": "cluster", "input": args.file, "method": method.name}
    if distance:
        extra["distance"] = distance[0]
    if intervals is not None:
        extra["intervals"] = intervals
    if X is not None:
        extra["gate"] = gate_json(est, names)
    out.json(result_dict(est, R=R, extra=extra))
    out.save(est)
    out.report()
    return EXIT_OK


def _distance_note(est: Any) -> str:
    """``, distance=NAME`` for a mixture with a distance other than Kendall."""
    distance = getattr(est, "distance", "kendall")
    return "" if distance == "kendall" else f", distance={distance}"

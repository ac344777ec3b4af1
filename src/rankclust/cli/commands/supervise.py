"""``rankclust supervise FILE.csv -k K``: supervised clustering of label-ranking data
(Grbovic et al. 2013), scored by Kendall tau on a hold-out or by cross-validation."""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

from rankclust.cli._checks import check_k, refuse_ties
from rankclust.cli._console import Console
from rankclust.cli._errors import EXIT_OK, CLIError
from rankclust.cli._input import input_note, load_label_ranking
from rankclust.cli._methods import has_param, make_estimator, parse_set, resolve_method
from rankclust.cli._outputs import Outputs, cluster_figures
from rankclust.cli.commands._evaluation import (
    check_eval_options,
    evaluate,
    held_out_json,
    score_lines,
)

__all__ = ["cmd_supervise"]


def cmd_supervise(args: argparse.Namespace, console: Console) -> int:
    """Evaluate the supervised clusterer, fit it on all rows, print its clusters."""
    from rankclust.cli.report import cluster_summary, result_dict

    method, cls = resolve_method("supervise", args.method)
    check_eval_options(args)
    extra = parse_set(args.set)
    k = args.k if has_param(cls, "n_clusters") else None

    def make() -> Any:
        return make_estimator(cls, n_clusters=k, random_state=args.random_state,
                              n_init=args.n_init, extra=extra, fixed=method.params)  # fmt: skip

    make()  # bad --n-init and --set values fail here, before the file is read
    if k is None and args.k != 1:  # a single-cluster method cannot honour another K
        raise CLIError(f"-k {args.k}: --method {method.name} fits a single cluster; pass -k 1")
    X, Y = load_label_ranking(args.file, args.items, encoding=args.encoding)
    refuse_ties(args.file, Y, "every supervised clusterer", unit="row")
    check_k(args.k, len(X), "rows")
    console.info(input_note(Y, args.file))
    predict = "predict_ranking" if hasattr(cls, "predict_ranking") else "predict"
    out = Outputs(args, console)
    scores, held_out = evaluate(
        args, console, make, X, Y, predict=predict, keep_predictions=out.want_json()
    )
    with console.task(f"fitting {cls.__name__} on all rows"):
        est = make().fit(X, Y)
    console.summary(cluster_summary(
        est, Y, title=f"{cls.__name__} ({method.name})", max_items=console.max_items,
    ), Y.n_items)  # fmt: skip
    console.print(score_lines(scores, args))
    if out.want_plots():
        from rankclust.plotting import plot_feature_clusters

        cluster_figures(out, est, Y)
        out.figure("feature_clusters.png", lambda: plot_feature_clusters(X, est.labels_))
    if out.want_json():
        result = result_dict(est, R=Y, extra={
            "command": "supervise", "input": args.file, "method": method.name,
            "kendall_tau": scores, "kendall_tau_mean": float(np.mean(scores)),
        })  # fmt: skip
        result["predictions"] = held_out_json(args, held_out, len(X), clusters=True)
        out.json(result)
    out.save(est)
    out.report()
    return EXIT_OK

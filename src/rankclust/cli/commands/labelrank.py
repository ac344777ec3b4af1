"""``rankclust labelrank FILE.csv``: predict label rankings from features, scored by
Kendall tau on a hold-out or by cross-validation."""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

from rankclust.cli._checks import refuse_ties
from rankclust.cli._console import Console
from rankclust.cli._errors import EXIT_OK
from rankclust.cli._input import data_row_lines, input_note, load_label_ranking
from rankclust.cli._methods import make_estimator, parse_set, resolve_method
from rankclust.cli._outputs import Outputs
from rankclust.cli.commands._evaluation import (
    check_eval_options,
    evaluate,
    held_out_json,
    score_lines,
)

__all__ = ["cmd_labelrank"]

# In-sample predictions shown in the summary.
_N_SHOWN = 5


def cmd_labelrank(args: argparse.Namespace, console: Console) -> int:
    """Evaluate the label ranker, fit it on all rows, print a few of its predictions."""
    from rankclust.cli.report import model_summary, ranking_text, result_dict

    method, cls = resolve_method("labelrank", args.method)
    check_eval_options(args)
    extra = parse_set(args.set)

    def make() -> Any:
        return make_estimator(cls, random_state=args.random_state, n_init=args.n_init,
                              extra=extra, fixed=method.params)  # fmt: skip

    make()  # bad --n-init and --set values fail here, before the file is read
    X, Y = load_label_ranking(args.file, args.items, encoding=args.encoding)
    refuse_ties(args.file, Y, "every label ranker", unit="row")
    console.info(input_note(Y, args.file))

    out = Outputs(args, console)
    scores, held_out = evaluate(
        args, console, make, X, Y, predict="predict", keep_predictions=out.want_json()
    )
    console.print(f"{cls.__name__} ({method.name})")
    console.print(score_lines(scores, args))
    with console.task("fitting on all rows"):
        est = make().fit(X, Y)
    n_show = min(_N_SHOWN, len(X))
    pred = np.asarray(est.predict(X[:n_show]))
    console.print(
        f"in-sample predictions for the first {n_show} rows (training rows: the model was "
        "fitted on all rows; best label first):"
    )
    lines = data_row_lines(args.file, len(X))
    for i, row in enumerate(pred):
        where = f"row {i + 1}" + (f" (line {lines[i]})" if lines is not None else "")
        text = ranking_text(np.asarray(row) - 1, Y.items, max_items=console.max_items)
        console.print(f"  {where}: {text}")
    console.cut_note(Y.n_items)
    if getattr(est, "center_", None) is not None or getattr(est, "scores_", None) is not None:
        console.print(model_summary(est, Y.items))
    if out.want_plots():
        from rankclust.plotting import plot_feature_clusters, plot_pairwise_matrix

        top = np.argmin(np.where(np.asarray(est.predict(X)) > 0, est.predict(X), np.inf), axis=1)
        out.figure("feature_space_predicted_top_label.png",
                   lambda: plot_feature_clusters(X, top, names=Y.items,
                                                 title="Predicted top label"))  # fmt: skip
        out.figure("pairwise_labels.png",
                   lambda: plot_pairwise_matrix(Y.pairwise_counts(), Y.items))  # fmt: skip
    if out.want_json():
        result = result_dict(est, items=Y.items, extra={
            "command": "labelrank", "input": args.file, "method": method.name,
            "kendall_tau": scores, "kendall_tau_mean": float(np.mean(scores)),
        })  # fmt: skip
        result["predictions"] = held_out_json(args, held_out, len(X))
        out.json(result)
    out.save(est)
    out.report()
    return EXIT_OK

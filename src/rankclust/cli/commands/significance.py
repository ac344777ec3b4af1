"""``rankclust significance FILE -k K``: is the clustering better than chance? A
randomisation test against data sets with the same pair counts (swap MCMC, Ukkonen 2011)."""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

from rankclust.cli._checks import check_k, check_kind, refuse_ties
from rankclust.cli._console import Console
from rankclust.cli._errors import EXIT_OK, CLIError
from rankclust.cli._input import input_limits, input_note, load_rankings
from rankclust.cli._methods import Method, make_estimator, parse_set, resolve_method
from rankclust.cli._outputs import Outputs

__all__ = ["cmd_significance"]


def _check_significance_input(method: Method, R: Any, path: str) -> None:
    """Kind, ties and size of the swap test's data, checked before any fit or sampling."""
    if R.kind == "top" and method.kinds is not None and "top" not in method.kinds:
        short = R.lengths <= 1
        n_short, total = float(R.weights[short].sum()), float(R.weights.sum())
        raise CLIError(
            f"method {method.name!r} clusters chains, but {path} was read as top-t ballots "
            "(kind 'top'); test the ballots as ballots with --method mixture or --method "
            "pl-mixture, or pass --kind subset to read them as chains (then the "
            f"{n_short:g} of {total:g} ballots that list one candidate carry no information)"
        )
    check_kind(method, R)
    refuse_ties(path, R, "the randomisation test (it swaps adjacent items)")
    w = R.weights
    if not np.allclose(w, np.round(w)):
        raise CLIError(f"{path}: the randomisation test needs whole-number ballot counts")
    limit = input_limits().max_rows
    if w.sum() > limit:
        raise CLIError(
            f"{path}: the randomisation test moves single ballots and would expand the "
            f"{w.sum():.0f} ballots row by row, more than the limit of {limit} rows "
            "(RANKCLUST_MAX_ROWS)"
        )


def cmd_significance(args: argparse.Namespace, console: Console) -> int:
    """Fit the data and ``--n-samples`` random data sets; print the p-value."""
    from rankclust.cli.report import result_dict

    if args.greater_is_better and args.statistic is None:
        raise CLIError(
            "--greater-is-better: the default statistic (the objective) is better when lower; "
            "name the statistic with --statistic ATTR, e.g. --statistic log_likelihood_"
        )
    if args.method is not None:  # bad --method, --n-init and --set fail before reading
        method, cls = resolve_method("cluster", args.method)
        make_estimator(cls, n_clusters=args.k, n_init=args.n_init, extra=parse_set(args.set),
                       fixed=method.params)  # fmt: skip
    R = load_rankings(args.file, fmt=args.format, kind=args.kind, items_file=args.items,
                      encoding=args.encoding, strict=not args.skip_malformed)  # fmt: skip
    # ballots are tested as ballots, chains as chains
    name = args.method or ("mixture" if R.kind == "top" else "chains")
    method, cls = resolve_method("cluster", name)
    _check_significance_input(method, R, args.file)
    check_k(args.k, R.n_rankings)
    if args.method is None:
        console.info(f"kind {R.kind!r}: testing with --method {name}")
    from rankclust.cluster import objective_of, randomization_test

    est = make_estimator(cls, n_clusters=args.k, random_state=args.random_state,
                         n_init=args.n_init, extra=parse_set(args.set),
                         fixed=method.params)  # fmt: skip
    console.info(input_note(R, args.file))
    console.info(f"drawing {args.n_samples} random data sets by swap MCMC, then fitting each")
    bar = console.progress(range(args.n_samples + 1), total=args.n_samples + 1, desc="fits")

    def statistic(fitted: Any, D: Any) -> float:
        bar.update(1)  # one tick per fit: the real data, then each random data set
        return objective_of(fitted, D, args.statistic)

    try:
        res = randomization_test(
            est, R, n_samples=args.n_samples, n_steps=args.n_steps, statistic=statistic,
            greater_is_better=args.greater_is_better, random_state=args.random_state,
        )  # fmt: skip
    finally:
        bar.close()
    null = np.asarray(res.null_distribution)
    console.print(f"Randomisation test: {cls.__name__} ({method.name}), K={args.k}, "
                  f"h={len(null)} random data sets, {res.n_steps} swap steps each")  # fmt: skip
    console.print(f"  observed statistic: {res.statistic:.6g}")
    console.print(f"  null distribution:  mean {null.mean():.6g}, min {null.min():.6g}, "
                  f"max {null.max():.6g}")  # fmt: skip
    console.print(f"  p-value: {res.pvalue:.4g} (smallest possible {1 / (len(null) + 1):.4g})")
    out = Outputs(args, console)
    if out.want_plots():
        from rankclust.plotting import plot_randomization_test

        label = args.statistic or "reconstruction error"
        out.figure("randomization_test.png", lambda: plot_randomization_test(
            null, res.statistic, res.pvalue, statistic=label))  # fmt: skip
    out.json({"command": "significance", "input": args.file, "method": method.name,
              "k": args.k, "p_value": res.pvalue, "statistic": res.statistic,
              "null_distribution": null, "n_steps": res.n_steps,
              "acceptance_rate": res.acceptance_rate,
              "estimator": result_dict(est)["estimator"]})  # fmt: skip
    out.report()
    return EXIT_OK

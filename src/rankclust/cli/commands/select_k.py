"""``rankclust select-k FILE --ks 1..8``: one model per K, compared by BIC/ICL/AIC."""

from __future__ import annotations

import argparse
import importlib
import re
from collections.abc import Callable, Sequence
from typing import Any

from rankclust.cli._checks import (
    check_distance_input,
    check_k,
    check_rank_input,
    distance_option,
)
from rankclust.cli._console import Console
from rankclust.cli._errors import EXIT_OK, CLIError
from rankclust.cli._features import check_features_options, gate_json, gate_lines, load_features
from rankclust.cli._input import PAIR_FORMATS, input_note, load_rankings
from rankclust.cli._intervals import check_interval_options, report_intervals
from rankclust.cli._methods import (
    has_criteria,
    make_estimator,
    parse_set,
    rankings_method,
    resolve_method,
)
from rankclust.cli._outputs import Outputs, cluster_figures, interval_figures

__all__ = ["cmd_select_k", "parse_ks", "select_k_table"]


def parse_ks(text: str, largest: int | None = None, *, build: bool = True) -> list[int]:
    """``"1..8"``, ``"2-6"`` or ``"2,3,5"`` as a sorted list of distinct ints.

    A value above ``largest`` (the number of rankings) is refused before any range is
    built: ``1..10**30`` must not be materialised. ``build=False`` checks the syntax only
    (before the file is read, when ``largest`` is not known yet).
    """
    ks: set[int] = set()
    for part in text.split(","):
        part = part.strip()
        m = re.fullmatch(r"(\d+)\s*(?:\.\.|-|:)\s*(\d+)", part)
        if m and m.group(1).isascii() and m.group(2).isascii():
            lo, hi = _k_value(m.group(1)), _k_value(m.group(2))
            if lo > hi:
                raise CLIError(f"--ks: empty range {part!r}")
            _check_ks_bound(hi, largest)
            ks.update(range(lo, hi + 1) if build else (lo, hi))
        elif part.isdigit() and part.isascii():
            _check_ks_bound(_k_value(part), largest)
            ks.add(int(part))
        else:
            raise CLIError(f"--ks: cannot read {part!r} (use e.g. 1..8 or 2,3,5)")
    if not ks:
        raise CLIError("--ks: no values")
    return sorted(ks)


def _k_value(digits: str) -> int:
    if len(digits.lstrip("0")) > 18:
        raise CLIError(f"--ks: {digits[:20]}... is too large")
    return int(digits)


def _check_ks_bound(k: int, largest: int | None) -> None:
    if largest is not None:
        check_k(k, largest, option="--ks")


_SELECTION_CRITERIA = (("bic_", "bic"), ("icl_", "icl"), ("aic_", "aic"))
_TABLE_COLUMNS = ("log_likelihood", "bic", "icl", "aic")


def select_k_table(
    cls: type,
    R: Any,
    ks: Sequence[int],
    *,
    console: Console,
    make: Callable[[int], Any],
    criterion: str = "bic",
    X: Any = None,
) -> tuple[list[dict[str, Any]], dict[int, Any], Any]:
    """Fit one model per K; rows ``{"k", "log_likelihood", "bic", "icl", "aic"}`` (or
    ``{"k", "objective"}`` for a method without criteria), the fitted models, and the
    module's selection result (None without one).

    When the estimator's module provides ``select_k(estimator, R, ks=, criterion=,
    callback=)`` (the mixtures do), it is called **once** over all K, so that each fit
    starts also from the K - 1 fit (warm starts) and the table is the one ``select_k``
    returns for the same seed; its callback advances the progress bar. ``X``: respondent
    covariates (mixtures of experts; only through such a ``select_k``).
    """
    from rankclust.cluster import objective_of

    selector = getattr(importlib.import_module(cls.__module__), "select_k", None)
    rows: list[dict[str, Any]] = []
    models: dict[int, Any] = {}
    if callable(selector):
        with console.progress(None, total=len(ks), desc=f"{cls.__name__} K") as bar:

            def advance(k: int, est: Any, row: dict) -> None:
                bar.update(1)

            kw = {} if X is None else {"X": X}
            res = selector(make(ks[0]), R, ks=list(ks), criterion=criterion, callback=advance,
                           **kw)  # fmt: skip
        for row in res.table:
            rows.append({"k": row["k"], **{c: float(row[c]) for c in _TABLE_COLUMNS}})
        return rows, dict(res.estimators), res
    for k in console.progress(ks, total=len(ks), desc=f"{cls.__name__} K"):
        row: dict[str, Any] = {"k": k}
        est = make(k).fit(R)
        for attr, name in _SELECTION_CRITERIA:
            if getattr(est, attr, None) is not None:
                row[name] = float(getattr(est, attr))
        if len(row) == 1:
            row["objective"] = objective_of(est, R)
        rows.append(row)
        models[k] = est
    return rows, models, None


def cmd_select_k(args: argparse.Namespace, console: Console) -> int:
    """Fit one model per K, print the criteria table and the best model."""
    from rankclust.cli.report import selection_summary

    if args.format in PAIR_FORMATS:
        check_features_options(args, None)
        from rankclust.cli.commands.pairs import cmd_select_k_pairs

        return cmd_select_k_pairs(args, console)
    method, cls = resolve_method("cluster", rankings_method(args.method))
    parse_ks(args.ks, build=False)  # a malformed --ks fails before the file is read
    extra = parse_set(args.set)
    _check_options(args, method, cls)
    distances = distance_option(args, cls, several=True)
    if len(distances) == 1:
        extra["distance"] = distances[0]

    def make(k: int) -> Any:
        return make_estimator(cls, n_clusters=k, random_state=args.random_state,
                              n_init=args.n_init, extra=extra, fixed=method.params)  # fmt: skip

    make(1)  # bad --n-init and --set values fail here, before the file is read
    R = load_rankings(args.file, fmt=args.format, kind=args.kind, items_file=args.items,
                      encoding=args.encoding, strict=not args.skip_malformed)  # fmt: skip
    check_rank_input(method, R, args.file)
    check_distance_input(args.file, R, distances)
    ks = parse_ks(args.ks, largest=R.n_rankings)
    check_k(ks[-1], R.n_rankings, option="--ks")
    X, names = (None, None)
    if args.features is not None:
        X, names = load_features(args.features, R, args.file)
    console.info(input_note(R, args.file))
    wanted = args.criterion or "bic"
    if len(distances) > 1:
        return _select_distances(args, method, R, ks, make(ks[0]), distances, wanted, console)
    rows, models, res = select_k_table(cls, R, ks, console=console, make=make, criterion=wanted,
                                       X=X)  # fmt: skip
    criterion = wanted if wanted in rows[0] else None
    console.print(selection_summary(
        rows, title=f"Model selection: {cls.__name__} ({method.name})",
        choose_by=(criterion,) if criterion else (),
    ))  # fmt: skip
    best_k = _report_best_k(args, cls, R, rows, models, res, criterion, wanted, console)
    if X is not None and best_k is not None:
        console.print()
        for line in gate_lines(models[best_k], names):
            console.print(line)
    intervals, boot = (None, None)
    if best_k is not None:  # --ci: the intervals of the chosen model
        intervals, boot = report_intervals(args, models[best_k], R, console)
    lrt_b = getattr(args, "lrt", None)
    lrt_rows = _lrt_rows(make, R, ks, models, lrt_b, args, console) if lrt_b else None
    out = Outputs(args, console)
    if out.want_plots():
        from rankclust.plotting import plot_bic

        crits = None if criterion is not None else ["objective"]
        out.figure(
            "model_selection.png", lambda: plot_bic(rows, criteria=crits, mark_best=crits is None)
        )
        if best_k is not None:
            cluster_figures(out, models[best_k], R)
            interval_figures(out, models[best_k], R, boot, level=args.ci_level)
    extra_json: dict[str, Any] = {"command": "select-k", "input": args.file,
                                  "method": method.name, "selection": rows,
                                  "best_k": best_k, "criterion": criterion}  # fmt: skip
    if res is not None:
        extra_json.update(best_k_by=res.best_k_by, at_edge=res.at_edge, notes=res.notes)
    if lrt_rows is not None:
        extra_json["lrt"] = lrt_rows
    if X is not None and best_k is not None:
        extra_json["gate"] = gate_json(models[best_k], names)
    if intervals is not None:
        extra_json["intervals"] = intervals
    _write_outputs(out, models[best_k] if best_k is not None else None, R, extra_json)
    return EXIT_OK


def _check_options(args: argparse.Namespace, method: Any, cls: type) -> None:
    """Refuse option combinations that cannot work with ``--method``, before the file is
    read."""
    if not has_criteria(cls):
        # an objective that only decreases with K chooses no K, so there is no model to keep
        for option, given in (("--save", args.save), ("--criterion", args.criterion)):
            if given is not None:
                raise CLIError(
                    f"{option}: --method {method.name} has no information criterion, so "
                    "select-k chooses no K and keeps no model; read the elbow of the "
                    "objective, then fit that K with 'rankclust cluster -k K"
                    + (" --save FILE'" if option == "--save" else "'")
                )
    lrt_b = getattr(args, "lrt", None)
    if lrt_b is not None and not _is_mixture(cls):
        raise CLIError(
            f"--lrt: the likelihood-ratio test needs a mixture (--method mixture or "
            f"pl-mixture), not --method {method.name}"
        )
    if getattr(args, "n_jobs", None) is not None and lrt_b is None and args.ci is None:
        raise CLIError(
            "--n-jobs: only the bootstrap replicates of --ci and --lrt run in parallel; "
            "add --ci B or --lrt B"
        )
    check_interval_options(args, cls)
    check_features_options(args, method)


def _report_best_k(
    args: argparse.Namespace,
    cls: type,
    R: Any,
    rows: list[dict[str, Any]],
    models: dict[int, Any],
    res: Any,
    criterion: str | None,
    wanted: str,
    console: Console,
) -> int | None:
    """The chosen K (None for a method without criteria), its model printed, or a note
    saying why no K is chosen."""
    from rankclust.cli.report import cluster_summary

    best_k = None
    if res is not None:
        best_k = res.best_k
        for note in res.notes:
            console.print(note)
    elif criterion is not None:
        best_k = min(rows, key=lambda r: (r[criterion], r["k"]))["k"]
    if best_k is not None:
        console.print()
        console.summary(cluster_summary(
            models[best_k], R, title=f"best K={best_k} by {criterion.upper()}",
            max_items=console.max_items,
        ), R.n_items)  # fmt: skip
    else:
        console.print(
            f"({cls.__name__} has no {wanted.upper()}; its objective decreases with K "
            "and cannot choose K by itself - look for the elbow"
            + (" in model_selection.png)" if args.plots else ", e.g. with --plots DIR)")
        )
    return best_k


def _write_outputs(out: Outputs, best: Any, R: Any, extra_json: dict[str, Any]) -> None:
    """``--json`` (the chosen model's result, or the selection alone), ``--save`` and the
    list of written files."""
    from rankclust.cli.report import result_dict

    if best is not None:
        out.json(result_dict(best, R=R, extra=extra_json))
        out.save(best)
    else:
        out.json(extra_json)
    out.report()


def _is_mixture(cls: type) -> bool:
    from rankclust.cluster.mixture import MallowsMixture, PlackettLuceMixture

    return issubclass(cls, MallowsMixture | PlackettLuceMixture)


def _lrt_rows(
    make: Callable[[int], Any],
    R: Any,
    ks: Sequence[int],
    models: dict[int, Any],
    n_boot: int,
    args: argparse.Namespace,
    console: Console,
) -> list[dict[str, Any]]:
    """The bootstrap LRT of every K against K - 1 (both in ``ks``), printed; JSON rows."""
    from rankclust.inference import bootstrap_lrt

    rows: list[dict[str, Any]] = []
    pairs = [k for k in ks if k - 1 in models]
    if not pairs:
        console.print("--lrt: no K with K-1 also in --ks; nothing to test")
        return rows
    console.print()
    console.print(f"Bootstrap likelihood-ratio tests of K against K-1 ({n_boot} replicates):")
    for k in pairs:
        res = bootstrap_lrt(make(k), R, k, n_boot=n_boot, random_state=args.random_state,
                            n_jobs=args.n_jobs, fitted=(models[k - 1], models[k]))  # fmt: skip
        console.print("  " + res.summary())
        rows.append({"k": k, "k_null": k - 1, "statistic": res.statistic,
                     "p_value": res.p_value, "n_boot": n_boot,
                     "null_statistics": res.null_statistics.tolist()})  # fmt: skip
    return rows


def _select_distances(
    args: argparse.Namespace,
    method: Any,
    R: Any,
    ks: Sequence[int],
    template: Any,
    distances: list[str],
    criterion: str,
    console: Console,
) -> int:
    """``select-k --distance a,b,...``: :func:`rankclust.cluster.mixture.select_model` once,
    the criterion per distance and K in one table, the chosen (distance, K) printed, saved
    and written as JSON."""
    from rankclust.cli.report import cluster_summary
    from rankclust.cli.report._format import format_table
    from rankclust.cluster.mixture import select_model

    with console.progress(None, total=len(ks) * len(distances), desc="distance x K") as bar:

        def advance(distance: str, k: int, est: Any, row: dict) -> None:
            bar.update(1)

        res = select_model(template, R, ks, distances=distances, criterion=criterion,
                           callback=advance)  # fmt: skip
    cells = {(row["distance"], row["k"]): row for row in res.table}
    body = [
        [d] + [
            f"{cells[d, k][criterion]:.2f}"
            + (" *" if (d, k) == (res.best_distance, res.best_k) else "  ")
            for k in ks
        ]
        for d in distances
    ]  # fmt: skip
    console.print(f"Model selection: {template.__class__.__name__} ({method.name}), "
                  f"{criterion.upper()} per distance and K")  # fmt: skip
    console.print(format_table(["distance", *(f"K={k}" for k in ks)], body))
    console.print(f"best by {criterion.upper()}: distance={res.best_distance}, K={res.best_k}")
    for note in res.notes:
        console.print(note)
    best = res.best_estimator
    console.print()
    console.summary(cluster_summary(
        best, R, title=f"best: distance={res.best_distance}, K={res.best_k}",
        max_items=console.max_items,
    ), R.n_items)  # fmt: skip
    out = Outputs(args, console)
    if out.want_plots():
        cluster_figures(out, best, R)
    rows = [
        {"distance": row["distance"], "k": row["k"],
         **{c: float(row[c]) for c in _TABLE_COLUMNS}, "seconds": float(row["seconds"])}
        for row in res.table
    ]  # fmt: skip
    extra_json: dict[str, Any] = {"command": "select-k", "input": args.file,
                                  "method": method.name, "selection": rows,
                                  "distances": distances, "best_distance": res.best_distance,
                                  "best_k": res.best_k, "criterion": criterion,
                                  "notes": res.notes}  # fmt: skip
    _write_outputs(out, best, R, extra_json)
    return EXIT_OK

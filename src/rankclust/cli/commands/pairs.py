"""``cluster``/``select-k`` with ``--format pairs``: Bradley-Terry fits on pairwise comparisons.

The assessors of a pairs file are clustered by :class:`~rankclust.pairwise.BradleyTerryMixture`
(method ``bt-mixture``, the only method for pairs); ``-k 1`` fits one
:class:`~rankclust.pairwise.BradleyTerry` with the mixture's prior (so that its scores are the
mixture's at K=1) and prints the worths with standard errors.
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

from rankclust.cli._checks import check_k
from rankclust.cli._console import Console
from rankclust.cli._errors import EXIT_OK, CLIError
from rankclust.cli._input import load_pairs
from rankclust.cli._intervals import check_interval_options, report_intervals
from rankclust.cli._methods import PAIR_METHODS, Method, make_estimator, parse_set
from rankclust.cli._outputs import Outputs, pairs_figures

__all__ = ["cmd_cluster_pairs", "cmd_select_k_pairs", "pair_method"]

# the prior of one Bradley-Terry model at K=1: the mixture's default (a finite fit even when
# an item never loses), so that K=1 of cluster and of select-k are the same model
_K1_PARAMS = {"alpha": 0.1}
# standard errors invert the dense (m + 1)-square information: cheap up to here
_MAX_SE_ITEMS = 2000

# options of 'cluster'/'select-k' that pair data cannot honour, and why
_REFUSED = (
    ("kind", "--kind", "the comparisons of a pairs file have no absent items"),
    ("items", "--items", "a pairs file names its items in its winner/loser columns"),
    ("lrt", "--lrt", "the likelihood-ratio test is implemented for ranking mixtures only"),
)  # fmt: skip


def pair_method(args: argparse.Namespace) -> Method:
    """The method for pairs (``--method`` omitted or ``bt-mixture``), after refusing the
    options pair data cannot honour; all before the file is read."""
    name = args.method or "bt-mixture"
    if name not in PAIR_METHODS:
        raise CLIError(
            f"--method {name}: --format pairs is clustered by {', '.join(PAIR_METHODS)} "
            "(the default); the other methods fit rankings"
        )
    for dest, option, reason in _REFUSED:
        if getattr(args, dest, None) not in (None, False):
            raise CLIError(f"{option}: {reason}")
    from rankclust.pairwise import BradleyTerryMixture

    check_interval_options(args, BradleyTerryMixture)  # --ci-level, --n-jobs need --ci
    return PAIR_METHODS[name]


def _closure(C: Any) -> Any:
    """Each assessor's comparisons closed (to count intransitive assessors), or None."""
    return C.closure() if C.has_assessors else None


def _make(args: argparse.Namespace, method: Method, C: Any, k: int) -> Any:
    """The unfitted model for K, after the checks of K and of ``--set`` (before any output)."""
    if k == 1:
        from rankclust.pairwise import BradleyTerry

        return make_estimator(BradleyTerry, n_init=args.n_init, extra=parse_set(args.set),
                              fixed=_K1_PARAMS)  # fmt: skip
    if not C.has_assessors:
        raise CLIError(
            f"{args.file}: no assessor column, so there are no assessors to cluster; -k 1 fits "
            "one Bradley-Terry model"
        )
    check_k(k, C.n_assessors, what="assessors")
    return make_estimator(method.load(), n_clusters=k, random_state=args.random_state,
                          n_init=args.n_init, extra=parse_set(args.set))  # fmt: skip


def _fit(est: Any, C: Any, k: int, console: Console) -> Any:
    """Fit, then the standard errors: of one model's log-worths (an array), of a mixture's
    weights and log-worths (a MixtureStandardErrors); None when too large or singular."""
    with console.task(f"fitting {type(est).__name__} with K={k}"):
        est.fit(C)
    return _standard_errors(est, C)


def _standard_errors(est: Any, C: Any) -> Any:
    if C.n_items > _MAX_SE_ITEMS:
        return None
    if not hasattr(est, "labels_"):
        return est.standard_errors(C)[: C.n_items]
    try:
        return est.standard_errors(C)
    except ValueError:  # a singular information (an empty or duplicated component)
        return None


def _wald(est: Any, se: Any) -> Any:
    """Wald bounds (95%) of the log-worths from their standard errors, or None."""
    if se is None or not isinstance(se, np.ndarray):
        return se  # None, or a mixture's MixtureStandardErrors (intervals of its own)
    from rankclust.inference import wald_intervals

    return wald_intervals(est.scores_, se)


def cmd_cluster_pairs(args: argparse.Namespace, console: Console) -> int:
    """Cluster the assessors of a pairs file (or fit one Bradley-Terry model for K=1)."""
    from rankclust.cli.report.pairwise import pairs_note, pairs_result, pairs_summary

    method = pair_method(args)
    C = load_pairs(args.file, encoding=args.encoding, strict=not args.skip_malformed)
    est = _make(args, method, C, args.k)
    console.info(pairs_note(C, args.file))
    se = _fit(est, C, args.k, console)
    closure = _closure(C)
    title = f"{type(est).__name__} ({method.name}), K={args.k}"
    one_se = se if isinstance(se, np.ndarray) else None  # printed for one model only
    text = pairs_summary(est, C, closure, title=title, max_items=console.max_items,
                         standard_errors=one_se)  # fmt: skip
    (console.summary(text, C.n_items) if hasattr(est, "labels_") else console.print(text))
    intervals, boot = report_intervals(args, est, C, console, pairs=True)
    out = Outputs(args, console)
    extra = {"command": "cluster", "input": args.file, "method": method.name}
    if intervals is not None:
        extra["intervals"] = intervals
    out.json(pairs_result(est, C, closure, extra=extra, standard_errors=se))
    pairs_figures(out, est, C, boot if boot is not None else _wald(est, se), args.ci_level)
    out.save(est)
    out.report()
    return EXIT_OK


def cmd_select_k_pairs(args: argparse.Namespace, console: Console) -> int:
    """Fit K = each of ``--ks`` to the assessors of a pairs file; choose K by BIC."""
    from rankclust.cli.commands.select_k import parse_ks
    from rankclust.cli.report import selection_summary
    from rankclust.cli.report.pairwise import pairs_note, pairs_result, pairs_summary

    method = pair_method(args)
    if args.criterion not in (None, "bic"):
        raise CLIError(f"--criterion {args.criterion}: BradleyTerryMixture reports BIC only")
    parse_ks(args.ks, build=False)
    C = load_pairs(args.file, encoding=args.encoding, strict=not args.skip_malformed)
    if not C.has_assessors:
        raise CLIError(f"{args.file}: no assessor column, so there are no assessors to cluster")
    ks = parse_ks(args.ks, largest=C.n_assessors)
    check_k(ks[-1], C.n_assessors, what="assessors", option="--ks")
    cls = method.load()

    def make(k: int) -> Any:
        return make_estimator(cls, n_clusters=k, random_state=args.random_state,
                              n_init=args.n_init, extra=parse_set(args.set))  # fmt: skip

    make(ks[0])  # a bad --set fails before any output
    console.info(pairs_note(C, args.file))
    rows, models = [], {}
    for k in console.progress(ks, total=len(ks), desc=f"{cls.__name__} K"):
        est = make(k).fit(C)
        models[k] = est
        rows.append({"k": k, "log_likelihood": est.log_likelihood_, "bic": est.bic_})
    console.print(selection_summary(
        rows, title=f"Model selection: {cls.__name__} ({method.name})", choose_by=("bic",)
    ))  # fmt: skip
    best_k = min(rows, key=lambda r: (r["bic"], r["k"]))["k"]
    closure = _closure(C)
    console.print()
    console.summary(pairs_summary(
        models[best_k], C, closure, title=f"best K={best_k} by BIC", max_items=console.max_items,
    ), C.n_items)  # fmt: skip
    intervals, boot = report_intervals(args, models[best_k], C, console, pairs=True)
    se = _standard_errors(models[best_k], C)
    out = Outputs(args, console)
    extra = {"command": "select-k", "input": args.file, "method": method.name,
             "selection": rows, "best_k": best_k, "criterion": "bic"}  # fmt: skip
    if intervals is not None:
        extra["intervals"] = intervals
    out.json(pairs_result(models[best_k], C, closure, extra=extra, standard_errors=se))
    if out.want_plots():
        from rankclust.plotting import plot_bic

        out.figure("model_selection.png",
                   lambda: plot_bic(rows, title=f"Model selection: {cls.__name__}"))  # fmt: skip
        pairs_figures(out, models[best_k], C, boot if boot is not None else se, args.ci_level)
    out.save(models[best_k])
    out.report()
    return EXIT_OK


def predict_pairs(model: Any, args: argparse.Namespace, console: Console) -> int:
    """``rankclust predict MODEL FILE`` for a saved ``BradleyTerryMixture``: the cluster of
    each assessor of a pairs file (items matched to the model's by name)."""
    import csv
    import io
    from pathlib import Path

    import numpy as np

    from rankclust.cli.report import write_json
    from rankclust.pairwise import BradleyTerryMixture, Comparisons

    if not isinstance(model, BradleyTerryMixture):
        raise CLIError(
            f"predict assigns assessors to clusters; a {type(model).__name__} has none "
            "(save a model with 'rankclust cluster FILE --format pairs -k K --save FILE', K >= 2)"
        )
    if args.format not in (None, "pairs") or args.kind or args.items:
        raise CLIError("this model reads pairwise comparisons: only --format pairs applies")
    C = load_pairs(args.file, encoding=args.encoding)
    if not C.has_assessors:
        raise CLIError(f"{args.file}: no assessor column, so there are no assessors to assign")
    names = model.items_ or tuple(str(j) for j in range(model.n_items_))
    index = {s: j for j, s in enumerate(names)}
    unknown = [s for s in C.items if s not in index]
    if unknown:
        raise CLIError(f"{args.file}: item {unknown[0]!r} is not one of the model's items")
    remap = np.array([index[s] for s in C.items], dtype=np.int64)
    C = Comparisons(
        remap[C.winner], remap[C.loser], n_items=model.n_items_, assessor=C.assessor,
        count=C.count, tie=C.tie, items=names, assessors=C.assessors,
    )  # fmt: skip
    proba = model.predict_proba(C)
    labels = proba.argmax(axis=1)
    console.info(
        f"{args.file}: {C.n_comparisons} comparisons by {C.n_assessors} assessors; model "
        f"{type(model).__name__} from {args.model}"
    )
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["assessor", "cluster", *(f"p_cluster_{k}" for k in range(proba.shape[1]))])
    for a, who in enumerate(C.assessors):
        w.writerow([who, int(labels[a]), *(f"{p:.6g}" for p in proba[a])])
    written = []
    if args.out:
        Path(args.out).write_text(buf.getvalue(), encoding="utf-8")
        written.append(args.out)
    if args.json:
        rows = [
            {"assessor": who, "cluster": int(labels[a]), "probabilities": proba[a].tolist()}
            for a, who in enumerate(C.assessors)
        ]
        write_json({"command": "predict", "model": args.model, "estimator":
                    type(model).__name__, "input": args.file, "items": list(names),
                    "n_assessors": C.n_assessors, "predictions": rows}, args.json)  # fmt: skip
        written.append(args.json)
    if written:
        console.info("wrote " + ", ".join(written))
    else:
        console.out.write(buf.getvalue())
    return EXIT_OK

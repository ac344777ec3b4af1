"""Summaries and JSON results of Bradley-Terry fits on pairwise comparisons (``--format pairs``).

Nothing here fits a model: the functions read a fitted :class:`~rankclust.pairwise.BradleyTerry`
or :class:`~rankclust.pairwise.BradleyTerryMixture`, the comparisons and their closure
(intransitive assessors), and lay them out with item and assessor names.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rankclust.cli.report._format import format_table, ranking_text

__all__ = ["pairs_note", "pairs_result", "pairs_summary"]


def pairs_note(C: Any, path: str) -> str:
    """One line: what was read from ``path``."""
    who = f" by {C.n_assessors} assessors" if C.has_assessors else " (no assessor column)"
    ties = int(C.tie.sum())
    total = float(C.count.sum())
    weighted = f" ({total:g} with counts)" if total != C.n_comparisons else ""
    return f"{path}: {C.n_comparisons} comparisons{weighted}{who} over {C.n_items} items" + (
        f", {ties} ties" if ties else ""
    )


def _intransitive(closure: Any) -> list[int]:
    return sorted(closure.intransitive) if closure is not None else []


def _clusters(est: Any, C: Any, closure: Any) -> list[dict[str, Any]]:
    """Per cluster: size, weight, intransitive members, consensus ranking (best first)."""
    names = [C.item_name(j) for j in range(C.n_items)]
    bad = np.asarray(_intransitive(closure), dtype=np.int64)
    if hasattr(est, "labels_"):
        labels, weights, scores = est.labels_, est.weights_, est.scores_
    else:  # one Bradley-Terry model: every assessor in one cluster
        n_a = C.n_assessors if C.has_assessors else 0
        labels, weights, scores = np.zeros(n_a, dtype=np.int64), [1.0], est.scores_[None, :]
    out = []
    for k, z in enumerate(scores):
        order = np.argsort(-z, kind="stable")
        out.append({
            "cluster": k,
            "size": int((labels == k).sum()),
            "weight": float(weights[k]),
            "intransitive": int((labels[bad] == k).sum()) if bad.size else 0,
            "ranking": [names[j] for j in order],
            "scores": {names[j]: float(z[j]) for j in range(len(names))},
        })  # fmt: skip
    return out


def pairs_summary(
    est: Any,
    C: Any,
    closure: Any,
    *,
    title: str,
    max_items: int | None,
    standard_errors: np.ndarray | None = None,
) -> str:
    """The printed summary: clusters (or worths for K=1), consensus rankings with item names,
    intransitive assessors, fit criteria."""
    lines = [title]
    clusters = _clusters(est, C, closure)
    names = [C.item_name(j) for j in range(C.n_items)]
    if hasattr(est, "labels_"):
        rows = []
        for c in clusters:
            pos = np.empty(C.n_items, dtype=np.int64)
            pos[[names.index(s) for s in c["ranking"]]] = np.arange(C.n_items)
            text = ranking_text(pos, names, max_items=max_items)
            rows.append([c["cluster"], c["size"], c["weight"], c["intransitive"], text])
        lines.append(format_table(
            ["cluster", "assessors", "weight", "intransitive", "consensus ranking (best first)"],
            rows, align="rrrrl",
        ))  # fmt: skip
        lines.append(
            f"log-likelihood {est.log_likelihood_:.1f}, BIC {est.bic_:.1f} "
            f"({est.n_iter_} EM iterations, {'converged' if est.converged_ else 'not converged'})"
        )
    else:
        order = np.argsort(-est.scores_, kind="stable")
        shown = order if max_items is None else order[:max_items]
        se = standard_errors
        rows = [
            [r + 1, names[j], est.worths_[j], est.scores_[j]] + ([se[j]] if se is not None else [])
            for r, j in enumerate(shown)
        ]
        headers = ["rank", "item", "worth", "log-worth"] + (["se"] if se is not None else [])
        lines.append(format_table(headers, rows, align="rlrr" + ("r" if se is not None else "")))
        if len(shown) < len(order):
            lines.append(f"... ({len(order) - len(shown)} more items; --wide shows them all)")
        tie = f", tie strength {est.tie_strength_:.4g}" if est.tie_strength_ > 0 else ""
        lines.append(f"log-likelihood {est.log_likelihood_:.1f}{tie}")
    if closure is not None:
        bad = _intransitive(closure)
        who = [C.assessors[a] if C.assessors else str(a) for a in bad]
        listed = f": {', '.join(who[:10])}{' ...' if len(who) > 10 else ''}" if who else ""
        lines.append(
            f"intransitive assessors (a preference cycle; kept in the fit): "
            f"{len(bad)} of {C.n_assessors}{listed}"
        )
    return "\n".join(lines)


def pairs_result(
    est: Any,
    C: Any,
    closure: Any,
    *,
    extra: dict[str, Any],
    standard_errors: Any = None,
) -> dict[str, Any]:
    """The ``--json`` result: clusters with named rankings and scores, assessor labels,
    intransitive assessors (with one cycle each), fit criteria, and the standard errors
    (``standard_errors``: an array of one model's log-worths, or a mixture's
    ``MixtureStandardErrors``: weights, log-worths per cluster, tie strengths)."""
    names = [C.item_name(j) for j in range(C.n_items)]
    out: dict[str, Any] = dict(extra)
    out.update(
        model=type(est).__name__,
        n_items=C.n_items,
        items=names,
        n_comparisons=C.n_comparisons,
        n_assessors=C.n_assessors,
        log_likelihood=float(est.log_likelihood_),
        clusters=_clusters(est, C, closure),
    )
    if hasattr(est, "labels_"):
        who = C.assessors or [str(a) for a in range(C.n_assessors)]
        out.update(
            k=int(est.n_components),
            bic=float(est.bic_),
            converged=bool(est.converged_),
            n_iter=int(est.n_iter_),
            labels={who[a]: int(est.labels_[a]) for a in range(C.n_assessors)},
        )
        if standard_errors is not None:  # a MixtureStandardErrors
            se = standard_errors
            out["standard_errors"] = {
                "weights": [float(x) for x in se.weights_se],
                "scores": [
                    {names[j]: float(row[j]) for j in range(C.n_items)} for row in se.scores_se
                ],
            }
            if se.tie_strengths_se is not None:
                out["standard_errors"]["tie_strengths"] = [float(x) for x in se.tie_strengths_se]
    else:
        out.update(
            k=1,
            worths={names[j]: float(est.worths_[j]) for j in range(C.n_items)},
            tie_strength=float(est.tie_strength_),
        )
        if standard_errors is not None:
            out["standard_errors"] = {
                names[j]: float(standard_errors[j]) for j in range(C.n_items)
            }
    if closure is not None:
        out["intransitive"] = {
            (C.assessors[a] if C.assessors else str(a)): [names[j] for j in cycle]
            for a, cycle in sorted(closure.intransitive.items())
        }
    return out

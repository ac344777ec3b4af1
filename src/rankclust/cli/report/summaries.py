"""The summary tables the CLI prints: one model, the clusters of a clusterer, the restarts,
the model-selection table."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from rankclust.cli.report._fitted import (
    _DISPERSION_ATTRS,
    _center_positions,
    _criteria,
    _item_names,
    _mixing,
    _soft_counts,
    cluster_sizes,
)
from rankclust.cli.report._format import _fmt, _indent, _is_number, format_table, ranking_text
from rankclust.rankings import Rankings

__all__ = ["cluster_summary", "model_summary", "restart_line", "selection_summary"]


def model_summary(
    model: Any, items: Sequence[str] | None = None, *, title: str | None = None
) -> str:
    """Summary of one fitted ranking model (Mallows, Plackett-Luce).

    Parameters
    ----------
    model : estimator
        Fitted; read through ``center_``, ``theta_``, ``scores_``, ``worths_``, ``ranking_``.
    items : sequence of str, optional
    title : str, optional
        First line; default the class name.

    Returns
    -------
    str
    """
    lines = [title or type(model).__name__]
    center = getattr(model, "center_", None)
    if center is None:
        center = getattr(model, "ranking_", None)
    m = len(center) if center is not None else int(getattr(model, "n_items_", 0))
    names = list(items) if items is not None and len(items) == m else [str(j) for j in range(m)]
    if center is not None:
        lines.append(f"  central ranking: {ranking_text(center, names, max_items=None)}")
    theta = getattr(model, "theta_", None)
    if theta is not None:
        lines.append(f"  dispersion theta: {_fmt(theta)}")
    scores = getattr(model, "scores_", None)
    if scores is not None:
        worths = getattr(model, "worths_", None)
        order = np.argsort(-np.asarray(scores), kind="stable")
        rows = [
            [names[j], float(scores[j])] + ([float(worths[j])] if worths is not None else [])
            for j in order
        ]
        headers = ["item", "score (log-worth)"] + (["worth"] if worths is not None else [])
        lines.append(_indent(format_table(headers, rows)))
    crit = [(k, v) for k, v in _criteria(model) if k != "objective"]
    if crit:
        lines.append("  " + ", ".join(f"{k} {_fmt(v)}" for k, v in crit))
    return "\n".join(lines)


def cluster_summary(
    model: Any,
    R: Rankings | None = None,
    items: Sequence[str] | None = None,
    *,
    title: str | None = None,
    max_items: int | None = 12,
) -> str:
    """Summary table of a fitted clusterer: one row per cluster, then the fit criteria.

    Columns: cluster, size (rows; and the summed ballot counts when ``R`` is weighted),
    mixing proportion and dispersion when the model has them, central ranking with item
    names.

    Parameters
    ----------
    model : estimator
        Fitted clusterer with ``labels_`` and, ideally, ``centers_``.
    R : Rankings, optional
        The data the model was fitted on (for weighted sizes and item names).
    items : sequence of str, optional
        Item names; default ``R.items`` or the names carried by the centres.
    title : str, optional
    max_items : int or None, default=12
        Items shown per central ranking.

    Returns
    -------
    str

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> import numpy as np
    >>> fitted = SimpleNamespace(labels_=np.array([0, 1, 1]),
    ...                          centers_=np.array([[0, 1, 2], [2, 1, 0]]), bic_=12.5)
    >>> print(cluster_summary(fitted, items=["a", "b", "c"], title="demo"))
    demo: 2 clusters, 3 rows
    cluster  size  central ranking
    -------  ----  ---------------
          0     1  a > b > c
          1     2  c > b > a
    BIC 12.5
    """
    labels = np.asarray(getattr(model, "labels_", np.empty(0, dtype=np.int64)))
    pos = _center_positions(model)
    if pos is not None:
        n_clusters = pos.shape[0]
    else:
        n_clusters = int(getattr(model, "n_clusters_", labels.max(initial=-1) + 1))
    if items is None and R is not None:
        items = R.items
    m = pos.shape[1] if pos is not None else (R.n_items if R is not None else 0)
    names = _item_names(model, items, m)
    weighted = R is not None and R.is_weighted and len(R) == len(labels)
    sizes = cluster_sizes(labels, n_clusters, R.weights if weighted else None)
    mix = _mixing(model, n_clusters)
    soft = _soft_counts(model, mix)
    map_size = sizes[1] if weighted else sizes[0]
    if soft is not None:
        # a mixture: MAP size (rankings assigned) next to the soft count (responsibilities)
        headers = (["cluster", "rows"] if weighted else ["cluster"]) + ["MAP size", "soft count"]
        columns: list[np.ndarray] = ([sizes[0]] if weighted else []) + [map_size, soft]
    else:
        headers = ["cluster", "size"] + (["count"] if weighted else [])
        columns = [sizes[0]] + ([sizes[1]] if weighted else [])
    if mix is not None:
        headers.append("proportion")
        columns.append(mix)
    for attr, label in _DISPERSION_ATTRS:
        disp = getattr(model, attr, None)
        if disp is not None and np.ndim(disp) == 1 and len(disp) == n_clusters:
            headers.append(label)
            columns.append(np.asarray(disp, dtype=float))
            break
    if pos is not None:
        headers.append("central ranking")
    rows = []
    for k in range(n_clusters):
        row: list[Any] = [k] + [c[k].item() for c in columns]
        if pos is not None:
            row.append(ranking_text(pos[k], names, max_items=max_items))
        rows.append(row)
    n_rows = len(labels)
    head = title or type(model).__name__
    lines = [f"{head}: {n_clusters} clusters, {n_rows} rows"]
    lines.append(format_table(headers, rows))
    if soft is not None:
        lines.append(
            "MAP size: rankings whose most probable component it is; soft count: the sum of "
            "its responsibilities (n x proportion). They differ where components overlap."
        )
        for k in np.flatnonzero(map_size == 0):
            lines.append(
                f"cluster {k}: MAP size 0 - no ranking is assigned to it (soft count "
                f"{_fmt(float(soft[k]))}); it only shares rankings with other components, "
                "not a segment of its own: consider fewer clusters."
            )
    crit = _criteria(model)
    if crit:
        lines.append(", ".join(f"{k} {_fmt(v)}" for k, v in crit))
    restart = restart_line(model)
    if restart:
        lines.append(restart)
    return "\n".join(lines)


def restart_line(model: Any) -> str | None:
    """One line on the restarts of a fit (``n_init_``, ``n_init_agreeing_``, ``restart_gap_``),
    or None for a model without them."""
    n_starts = getattr(model, "n_init_", None)
    agreeing = getattr(model, "n_init_agreeing_", None)
    if n_starts is None or agreeing is None:
        return None
    lls = getattr(model, "restart_log_likelihoods_", None)
    # without a record of continued runs (the chain clusterers) every start ran to convergence
    n_cont = len(lls) if lls is not None else n_starts
    text = f"restarts: {n_starts} starts; the best fit was reached by {agreeing}"
    text += f" of the {n_cont} run to convergence"
    gap = getattr(model, "restart_gap_", None)
    if gap is not None and math.isfinite(float(gap)):
        worse = "lower in log-likelihood" if lls is not None else "higher in objective"
        text += f"; the best different partition is {100 * float(gap):.2g}% {worse}"
    n_agree = getattr(model, "n_agree", None)
    if n_agree is not None and agreeing < min(int(n_agree), n_cont or 0):
        text += (
            " - the fit may change with the random seed (raise max_init, e.g. --set max_init=500)"
        )
    elif gap is not None and float(gap) <= 1e-4:
        text += " - another partition fits nearly as well"
    return text


def selection_summary(
    table: Sequence[Mapping[str, Any]],
    *,
    title: str = "Model selection",
    choose_by: Sequence[str] = ("bic", "icl", "aic"),
) -> str:
    """One row per K with every numeric criterion; the best K per criterion is starred.

    Parameters
    ----------
    table : sequence of mappings
        Rows with ``k`` and criteria such as ``bic``, ``icl``, ``aic``, ``objective``
        (lower is better for all of them).
    title : str, default="Model selection"
    choose_by : sequence of str, default=("bic", "icl", "aic")
        Columns that select K (their minimum is starred). An objective that only decreases
        with K (a k-means error) selects nothing and is shown unstarred.

    Examples
    --------
    >>> print(selection_summary([{"k": 1, "bic": 10.0}, {"k": 2, "bic": 8.0}]))
    Model selection
    k   bic
    -  ----
    1  10
    2   8 *
    best K by bic: 2
    """
    if not table:
        return f"{title}\n(no rows)"
    keys = [k for k in table[0] if k != "k" and _is_number(table[0][k])]
    best = {}
    for key in keys:
        if key not in choose_by:
            continue
        values = [float(row[key]) for row in table]
        finite = [v for v in values if math.isfinite(v)]
        if finite:
            best[key] = values.index(min(finite))
    rows = []
    for i, row in enumerate(table):
        cells: list[Any] = [row["k"]]
        for key in keys:
            cells.append(f"{_fmt(row[key])}{' *' if best.get(key) == i else '  '}")
        rows.append(cells)
    lines = [title, format_table(["k", *keys], rows, align="r" * (len(keys) + 1))]
    if best:
        lines.append(", ".join(f"best K by {key}: {table[i]['k']}" for key, i in best.items()))
    return "\n".join(lines)

"""Readable summaries of fitted models (the tables the CLI prints) and the JSON result writer.

Nothing here computes a model: the functions read fitted attributes by their conventional
names (DESIGN.md section 3) and lay them out. An attribute a model does not have is left
out of its summary, so new estimators are summarised without changes here as long as they
follow the naming conventions:

* central rankings: ``centers_`` (a :class:`~rankclust.Rankings` or a (K, m) position array)
  or ``central_rankings_``; one model: ``center_`` or ``ranking_``;
* dispersions: ``thetas_`` / ``theta_`` (Mallows), ``dispersions_``, ``lambdas_``;
  Plackett-Luce scores ``scores_``;
* mixing proportions: ``weights_`` / ``mixing_weights_`` / ``proportions_``;
* fit criteria: ``log_likelihood_``, ``bic_``, ``aic_``, ``icl_``, ``objective_``,
  ``inertia_``, ``n_iter_``, ``converged_``.

Positions follow the rank-matrix convention of :mod:`rankclust.rankings`.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from rankclust.rankings import Rankings

__all__ = [
    "CRITERIA",
    "cluster_sizes",
    "cluster_summary",
    "format_table",
    "model_summary",
    "ranking_text",
    "restart_line",
    "result_dict",
    "selection_summary",
    "to_jsonable",
    "write_json",
]

#: Fitted attributes reported as fit criteria, in display order, with their labels.
CRITERIA: tuple[tuple[str, str], ...] = (
    ("log_likelihood_", "log-likelihood"),
    ("loglik_", "log-likelihood"),
    ("bic_", "BIC"),
    ("aic_", "AIC"),
    ("icl_", "ICL"),
    ("objective_", "objective"),
    ("inertia_", "inertia"),
    ("n_iter_", "iterations"),
    ("converged_", "converged"),
)
_CENTER_ATTRS = ("centers_", "central_rankings_")
_DISPERSION_ATTRS = (("thetas_", "theta"), ("dispersions_", "dispersion"), ("lambdas_", "lambda"))
_MIXING_ATTRS = ("weights_", "mixing_weights_", "proportions_")


# --------------------------------------------------------------------------------------------
# small formatting helpers
# --------------------------------------------------------------------------------------------
def ranking_text(
    positions: Any, items: Sequence[str] | None = None, *, max_items: int | None = 12
) -> str:
    """A position vector as text, best first: ``"b > a = c > d"``.

    Parameters
    ----------
    positions : array-like of int, shape (m,)
        ``positions[j]`` = 0-based position of item ``j``; ``-1`` absent (left out); equal
        positions are ties (joined by ``=``).
    items : sequence of str, optional
        Item names (default the indices).
    max_items : int or None, default=12
        Show at most this many items, then ``"> ... (k more)"``.

    Examples
    --------
    >>> ranking_text([1, 0, 1, 2, -1], ["a", "b", "c", "d", "e"])
    'b > a = c > d'
    >>> ranking_text([3, 2, 1, 0], max_items=2)
    '3 > 2 > ... (2 more)'
    """
    pos = np.asarray(positions).ravel()
    names = [str(x) for x in items] if items is not None else [str(j) for j in range(len(pos))]
    present = np.flatnonzero(pos >= 0)
    order = present[np.argsort(pos[present], kind="stable")]
    parts: list[str] = []
    shown = 0
    for idx, j in enumerate(order):
        if max_items is not None and shown >= max_items:
            parts.append(f" > ... ({len(order) - shown} more)")
            break
        if idx > 0:
            parts.append(" = " if pos[j] == pos[order[idx - 1]] else " > ")
        parts.append(names[j])
        shown += 1
    return "".join(parts)


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool | np.bool_):
        return "yes" if value else "no"
    if isinstance(value, int | np.integer):
        return str(int(value))
    if isinstance(value, float | np.floating):
        v = float(value)
        if not math.isfinite(v):
            return str(v)
        if v == int(v) and abs(v) < 1e15:
            return str(int(v))
        if 1e3 <= abs(v) < 1e12:  # large sums (log-likelihoods, errors): one decimal
            return f"{v:.1f}"
        return f"{v:.4g}"
    return str(value)


def format_table(
    headers: Sequence[str], rows: Sequence[Sequence[Any]], *, align: str | None = None
) -> str:
    """A plain-text table with aligned columns (numbers right-aligned).

    ``align`` gives one letter per column, ``"l"`` or ``"r"``, to override the default.

    Examples
    --------
    >>> print(format_table(["k", "size"], [[0, 12], [1, 3.5]]))
    k  size
    -  ----
    0    12
    1   3.5
    """
    cells = [[_fmt(c) for c in row] for row in rows]
    widths = [len(h) for h in headers]
    for row in cells:
        for i, c in enumerate(row):
            widths[i] = max(widths[i], len(c))
    if align is not None:
        if len(align) != len(headers):
            raise ValueError(f"align has {len(align)} letters for {len(headers)} columns")
        numeric = [a == "r" for a in align]
    else:
        numeric = [
            bool(rows) and all(_is_number(row[i]) for row in rows) for i in range(len(headers))
        ]

    def line(values: Sequence[str]) -> str:
        out = []
        for i, v in enumerate(values):
            last = i == len(values) - 1
            if numeric[i]:
                out.append(v.rjust(widths[i]))
            else:
                out.append(v if last else v.ljust(widths[i]))
        return "  ".join(out).rstrip()

    lines = [line(list(headers)), line(["-" * w for w in widths])]
    lines += [line(r) for r in cells]
    return "\n".join(lines)


def _item_names(model: Any, items: Sequence[str] | None, m: int) -> list[str]:
    if items is None:
        centers = _centers(model)
        if isinstance(centers, Rankings) and centers.items is not None:
            items = centers.items
    if items is None or len(items) != m:
        return [str(j) for j in range(m)]
    return [str(x) for x in items]


def _centers(model: Any) -> Any:
    for name in _CENTER_ATTRS:
        value = getattr(model, name, None)
        if value is not None:
            return value
    return None


def _center_positions(model: Any) -> np.ndarray | None:
    """(K, m) position array of a clusterer's central rankings, or None."""
    centers = _centers(model)
    if centers is None:
        return None
    if isinstance(centers, Rankings):
        return np.asarray(centers.ranks)
    arr = np.asarray(centers)
    if arr.ndim == 1:
        arr = arr[None, :]
    return arr.astype(np.int64) if arr.ndim == 2 and arr.dtype.kind in "iuf" else None


def _criteria(model: Any) -> list[tuple[str, Any]]:
    out, seen = [], set()
    for attr, label in CRITERIA:
        value = getattr(model, attr, None)
        if value is None or label in seen:
            continue
        if isinstance(value, np.ndarray) and value.ndim > 0:
            continue  # per-run arrays belong in the JSON, not the summary
        if label == "inertia" and any(
            lab == "objective" and np.isclose(float(v), float(value)) for lab, v in out
        ):
            continue  # scikit-learn's alias of the objective
        if label == "objective" and any(
            lab == "log-likelihood" and np.isclose(-float(v), float(value)) for lab, v in out
        ):
            continue  # a mixture's objective is its negative log-likelihood
        seen.add(label)
        out.append((label, value))
    return out


# --------------------------------------------------------------------------------------------
# summaries
# --------------------------------------------------------------------------------------------
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


def _indent(text: str, by: str = "  ") -> str:
    return "\n".join(by + line for line in text.splitlines())


def cluster_sizes(labels: Any, n_clusters: int, weights: Any = None) -> tuple[np.ndarray, ...]:
    """Row counts per cluster and, with ``weights``, summed weights per cluster."""
    lab = np.asarray(labels).astype(np.int64)
    ok = lab >= 0
    counts = np.bincount(lab[ok], minlength=n_clusters)
    if weights is None:
        return (counts,)
    w = np.asarray(weights, dtype=np.float64)[ok]
    return counts, np.bincount(lab[ok], weights=w, minlength=n_clusters)


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


def _mixing(model: Any, n_clusters: int) -> np.ndarray | None:
    for attr in _MIXING_ATTRS:
        mix = getattr(model, attr, None)
        if mix is not None and np.ndim(mix) == 1 and len(mix) == n_clusters:
            return np.asarray(mix, dtype=float)
    return None


def _soft_counts(model: Any, mix: np.ndarray | None) -> np.ndarray | None:
    """``n x mixing weight`` (the sum of the responsibilities) of a mixture, else None."""
    n = getattr(model, "n_rankings_", None)
    if mix is None or n is None:
        return None
    return float(n) * mix


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


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float | np.number) and not isinstance(value, bool)


# --------------------------------------------------------------------------------------------
# JSON
# --------------------------------------------------------------------------------------------
def to_jsonable(value: Any) -> Any:
    """Plain JSON data: arrays to lists, numpy scalars to numbers, NaN/inf to None.

    A :class:`~rankclust.Rankings` becomes ``{"ranks", "kind", "weights", "items"}``;
    an estimator nested in a value becomes its class name and parameters; any other object
    its type and public attributes (never its ``repr``).
    """
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, int | np.integer):
        return int(value)
    if isinstance(value, float | np.floating):
        v = float(value)
        return v if math.isfinite(v) else None
    if isinstance(value, np.ndarray):
        return to_jsonable(value.tolist())
    if isinstance(value, Rankings):
        return {
            "ranks": value.ranks.tolist(),
            "kind": value.kind,
            "weights": value.weights.tolist() if value.is_weighted else None,
            "items": list(value.items) if value.items is not None else None,
        }
    if isinstance(value, Mapping):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [to_jsonable(v) for v in value]
    if hasattr(value, "get_params"):
        return {
            "estimator": type(value).__name__,
            "params": to_jsonable(value.get_params(deep=False)),
        }
    return _object_data(value)


def _object_data(value: Any) -> Any:
    """Any other object as its data: type name plus public attributes, never its ``repr``.

    A ``repr`` such as ``"<KTree object at 0x7f...>"`` is no data (it differs from run to
    run and cannot be read back); a container class (a fitted tree) is written as the
    arrays it holds, a class or function as its qualified name, anything else as its type.
    """
    if callable(value) and hasattr(value, "__qualname__"):  # a class or a function: its name
        return f"{getattr(value, '__module__', None) or ''}.{value.__qualname__}".lstrip(".")
    kind = type(value)
    out: dict[str, Any] = {"type": f"{kind.__module__}.{kind.__qualname__}"}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    elif hasattr(value, "__dict__"):
        fields = dict(vars(value))
    else:
        state = value.__getstate__() if hasattr(value, "__getstate__") else None
        fields = dict(state) if isinstance(state, Mapping) else {}
    if id(value) in _IN_PROGRESS:  # a cycle: the object is being written further up
        return out
    _IN_PROGRESS.add(id(value))
    try:
        for key, item in sorted(fields.items()):
            if not str(key).startswith("_"):
                out[str(key)] = to_jsonable(item)
    finally:
        _IN_PROGRESS.discard(id(value))
    return out


_IN_PROGRESS: set[int] = set()


def result_dict(
    model: Any,
    *,
    R: Rankings | None = None,
    items: Sequence[str] | None = None,
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The full fitted result as plain JSON data.

    Contains ``estimator`` (class path), ``params``, every public fitted attribute (names
    ending in ``_``) under ``fitted``, and, for clusterers, a ``clusters`` list (size,
    central ranking as positions and as item names best first) and ``labels``.

    Parameters
    ----------
    model : estimator
    R : Rankings, optional
        The data (for item names, sizes and ballot counts).
    items : sequence of str, optional
    extra : mapping, optional
        Merged at the top level (e.g. the command, the input file, scores).
    """
    cls = type(model)
    out: dict[str, Any] = {
        "estimator": f"{cls.__module__}.{cls.__qualname__}",
        "params": to_jsonable(model.get_params(deep=False))
        if hasattr(model, "get_params")
        else None,
    }
    if items is None and R is not None:
        items = R.items
    if R is not None:
        out["data"] = {
            "n_rankings": R.n_rankings,
            "n_items": R.n_items,
            "kind": R.kind,
            "weighted": R.is_weighted,
            "total_weight": float(R.weights.sum()),
        }
    fitted = {
        k: to_jsonable(v)
        for k, v in sorted(vars(model).items())
        if k.endswith("_") and not k.startswith("_")
    }
    out["fitted"] = fitted
    pos = _center_positions(model)
    labels = getattr(model, "labels_", None)
    if pos is not None:
        names = _item_names(model, items, pos.shape[1])
        out["items"] = names
        weighted = R is not None and R.is_weighted and labels is not None and len(R) == len(labels)
        sizes = (
            cluster_sizes(labels, pos.shape[0], R.weights if weighted else None)
            if labels is not None
            else None
        )
        soft = _soft_counts(model, _mixing(model, pos.shape[0]))
        clusters = []
        for k in range(pos.shape[0]):
            present = np.flatnonzero(pos[k] >= 0)
            order = present[np.argsort(pos[k][present], kind="stable")]
            entry: dict[str, Any] = {
                "cluster": k,
                "center_positions": pos[k].tolist(),
                "center_order": [names[j] for j in order],
                "center_text": ranking_text(pos[k], names, max_items=None),
            }
            if sizes is not None:
                entry["size"] = int(sizes[0][k])
                if weighted:
                    entry["count"] = float(sizes[1][k])
            if soft is not None:  # a mixture: the sum of the responsibilities too
                entry["soft_count"] = float(soft[k])
            for attr, label in _DISPERSION_ATTRS:
                disp = getattr(model, attr, None)
                if disp is not None and np.ndim(disp) == 1 and len(disp) == pos.shape[0]:
                    entry[label] = to_jsonable(disp[k])
            clusters.append(entry)
        out["clusters"] = clusters
    elif items is not None:
        out["items"] = [str(x) for x in items]
    if labels is not None:
        out["labels"] = to_jsonable(np.asarray(labels))
    out["criteria"] = {label: to_jsonable(v) for label, v in _criteria(model)}
    if extra:  # the caller's context (command, input file, scores) comes first
        first = to_jsonable(dict(extra))
        return {**first, **{k: v for k, v in out.items() if k not in first}}
    return out


def write_json(result: Mapping[str, Any], path: str | os.PathLike) -> None:
    """Write a result (as from :func:`result_dict`) to ``path`` as indented JSON.

    Values are passed through :func:`to_jsonable` first, so the file is strict JSON (no NaN).
    """
    text = _dumps(to_jsonable(result), 0)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text + "\n")


def _dumps(value: Any, level: int) -> str:
    """Indented JSON in which lists of numbers/strings stay on one line (readable matrices)."""
    pad, inner = "  " * level, "  " * (level + 1)
    if isinstance(value, dict):
        if not value:
            return "{}"
        body = ",\n".join(
            f"{inner}{json.dumps(str(k))}: {_dumps(v, level + 1)}" for k, v in value.items()
        )
        return "{\n" + body + "\n" + pad + "}"
    if isinstance(value, list):
        if all(not isinstance(v, dict | list) for v in value):
            return json.dumps(value, allow_nan=False)
        body = ",\n".join(inner + _dumps(v, level + 1) for v in value)
        return "[\n" + body + "\n" + pad + "]"
    return json.dumps(value, allow_nan=False)

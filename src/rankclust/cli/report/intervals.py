"""The intervals of ``--ci`` as text: one table per kind of parameter, then the stability of
the cluster memberships. Reads the JSON data built by :mod:`rankclust.cli._intervals`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rankclust.cli.report._format import _fmt, _indent, format_table

__all__ = ["interval_summary"]


def _ci(entry: Mapping[str, float]) -> str:
    """``estimate [low, high]``."""
    return f"{_fmt(entry['estimate'])} [{_fmt(entry['low'])}, {_fmt(entry['high'])}]"


def _level(data: Mapping[str, Any]) -> str:
    return f"{100 * float(data['level']):.4g}%"


def interval_summary(data: Mapping[str, Any], items: Sequence[str] | None = None) -> str:
    """The ``--ci`` block of a command's summary.

    Parameters
    ----------
    data : mapping
        As returned by ``rankclust.cli._intervals.compute_intervals``.
    items : sequence of str, optional
        Item names (default ``data["items"]`` or the indices).

    Returns
    -------
    str

    Examples
    --------
    >>> data = {"method": "nonparametric bootstrap", "n_boot": 10, "level": 0.9,
    ...         "seconds": 0.5, "n_not_converged": 0, "items": ["a", "b"],
    ...         "components": [{"cluster": 0,
    ...                         "proportion": {"estimate": 1.0, "low": 1.0, "high": 1.0},
    ...                         "theta": {"estimate": 0.8, "low": 0.7, "high": 0.9},
    ...                         "center_probability": 1.0}],
    ...         "membership_stability": {"mean": 1.0, "min": 1.0, "share_stable": 1.0,
    ...                                  "stable_threshold": 0.9, "per_cluster_mean": [1.0]}}
    >>> print(interval_summary(data))
    Intervals: 10 nonparametric bootstrap replicates, 90% percentile intervals
    cluster  proportion [90%]  theta [90%]     P(centre)
    -------  ----------------  --------------  ---------
          0  1 [1, 1]          0.8 [0.7, 0.9]          1
    P(centre): share of replicates whose central ranking equals the reported one.
    """
    comps = list(data["components"])
    names = list(items) if items is not None else data.get("items")
    level = _level(data)
    lines = [
        # no wall time here: the same seed prints the same summary (the time is in the JSON)
        f"Intervals: {data['n_boot']} {data['method']} replicates"
        + (f" ({data['unit']} resampled)" if data.get("unit") else "")
        + f", {level} percentile intervals"
    ]
    headers = ["cluster", f"proportion [{level}]"]
    has_theta = "theta" in comps[0]
    if has_theta:
        headers.append(f"theta [{level}]")
    headers.append("P(centre)")
    rows = []
    for c in comps:
        row: list[Any] = [c["cluster"], _ci(c["proportion"])]
        if has_theta:
            row.append(_ci(c["theta"]))
        row.append(float(c["center_probability"]))
        rows.append(row)
    lines.append(format_table(headers, rows, align="rl" + ("l" if has_theta else "") + "r"))
    center = "central" if has_theta else "modal"
    lines.append(f"P(centre): share of replicates whose {center} ranking equals the reported one.")
    if "worths" in comps[0]:
        m = len(comps[0]["worths"])
        names = names if names is not None and len(names) == m else [str(j) for j in range(m)]
        lines.append(f"worths [{level}] per cluster:")
        table = [
            [names[j]] + [_ci(c["worths"][j]) for c in comps] for j in range(m)
        ]  # fmt: skip
        headers = ["item"] + [f"cluster {c['cluster']}" for c in comps]
        lines.append(_indent(format_table(headers, table, align="l" * len(headers))))
    if len(comps) > 1:  # one component: every ballot keeps it
        unit = "assessors" if data.get("unit") == "assessors" else "ballots"
        lines.append(_stability_line(data["membership_stability"], unit))
    if data.get("n_not_converged"):
        lines.append(
            f"({data['n_not_converged']} replicate fits stopped at max_iter; their estimates "
            "are kept)"
        )
    wald = data.get("wald")
    if wald:
        lines.extend(_wald_lines(wald, names, level))
    return "\n".join(lines)


def _stability_line(s: Mapping[str, Any], unit: str = "ballots") -> str:
    per = ", ".join(
        f"{k}: {_fmt(v) if v is not None else '-'}" for k, v in enumerate(s["per_cluster_mean"])
    )
    return (
        f"membership stability: {100 * float(s['share_stable']):.3g}% of the {unit} keep "
        f"their cluster in >= {100 * float(s['stable_threshold']):.3g}% of the replicates\n"
        f"  (share of replicates per {unit[:-1]}: mean {_fmt(s['mean'])}, lowest "
        f"{_fmt(s['min'])}; "
        f"mean per cluster {per})"
    )


def _wald_lines(wald: Mapping[str, Any], names: Sequence[str] | None, level: str) -> list[str]:
    if "note" in wald:
        return [f"({wald['note']})"]
    if "theta" in wald:
        t = wald["theta"]
        return [
            f"Wald interval of theta [{level}] (information matrix, centre taken as known): "
            f"{_ci(t)}, standard error {_fmt(t['standard_error'])}"
        ]
    scores = wald["scores"]
    m = len(scores)
    names = names if names is not None and len(names) == m else [str(j) for j in range(m)]
    rows = [[names[j], _ci(s), float(s["standard_error"])] for j, s in enumerate(scores)]
    table = format_table(
        ["item", f"log-worth [{level} Wald]", "standard error"], rows, align="llr"
    )
    return [
        "Wald intervals of the log-worths (information matrix; scores sum to zero):",
        _indent(table),
    ]

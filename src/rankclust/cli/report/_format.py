"""Text formatting shared by the summaries: a ranking as text, numbers, aligned tables."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["format_table", "ranking_text"]


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


def _indent(text: str, by: str = "  ") -> str:
    return "\n".join(by + line for line in text.splitlines())


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float | np.number) and not isinstance(value, bool)

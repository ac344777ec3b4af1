"""Pairwise comparisons from CSV: one comparison per line, read into a sparse ``Comparisons``.

Two layouts:

* :func:`read_pairs_csv` -- a header naming the columns ``winner`` and ``loser`` and,
  optionally, ``assessor``, ``count`` (a positive weight) and ``tie`` (0/1, true/false);
* :func:`read_bayesmallows_pairs` -- the layout of the R package BayesMallows
  (``beach_preferences``, ``sounds``): ``assessor,bottom_item,top_item``, the top item
  preferred.

Items and assessors are labels: whole numbers (``3`` and ``3.0`` are the same label) or any
other text. They are numbered in sorted order (numerically when every label is a number) and
their labels become ``Comparisons.items`` / ``Comparisons.assessors``.
"""

from __future__ import annotations

import csv
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from rankclust._limits import InputLimits
from rankclust.io._common import (
    DataFormatError,
    PathOrFile,
    _Budget,
    _Problems,
    _source_name,
    _split_lines,
)
from rankclust.io._text import decode

__all__ = ["read_bayesmallows_pairs", "read_pairs_csv"]

_TRUE = {"1", "true", "t", "yes", "y"}
_FALSE = {"0", "false", "f", "no", "n", ""}


def _label(token: str) -> str:
    """A label as text; a whole number written as a float (``"3.0"``) becomes ``"3"``."""
    try:
        v = float(token)
    except ValueError:
        return token
    if np.isfinite(v) and v == int(v):
        return str(int(v))
    return token


def _numbering(labels: list[str]) -> tuple[tuple[str, ...], np.ndarray]:
    uniq = sorted(set(labels))
    try:
        uniq = sorted(uniq, key=int)
    except ValueError:
        pass
    index = {s: k for k, s in enumerate(uniq)}
    return tuple(uniq), np.fromiter((index[s] for s in labels), dtype=np.int64, count=len(labels))


def read_pairs_csv(
    path_or_file: PathOrFile,
    *,
    winner: str = "winner",
    loser: str = "loser",
    assessor: str | None = "assessor",
    count: str | None = "count",
    tie: str | None = "tie",
    items: Sequence[str] | None = None,
    encoding: str | None = None,
    strict: bool = True,
    limits: InputLimits | Mapping[str, int] | None = None,
) -> Any:
    """Read comparisons from a CSV with a header (one comparison per line).

    Parameters
    ----------
    path_or_file : str, os.PathLike or file object
        Plain or gzip-compressed text.
    winner, loser : str
        Header names of the winner and loser columns (required).
    assessor, count, tie : str or None
        Header names of the optional columns; used when the header has them.
    items : sequence of str, optional
        The item labels, in index order (every label in the file must be one of them);
        default: the labels found, sorted.
    encoding : str, optional
    strict : bool, default=True
        False: skip malformed lines and report them in one ``MalformedLinesWarning``.
    limits : InputLimits or mapping of str to int, optional

    Returns
    -------
    rankclust.pairwise.Comparisons

    Raises
    ------
    DataFormatError
        Naming the file and line: a missing column, a line of another width, an item
        compared with itself, a count that is not a positive number, a tie flag that is not
        0/1, an unknown item label, no data, or more rows / items than ``limits``.

    Examples
    --------
    >>> import io
    >>> C = read_pairs_csv(io.StringIO("assessor,winner,loser\\n1,a,b\\n1,b,c\\n2,c,a\\n"))
    >>> C.items, C.winner.tolist(), C.assessor.tolist()
    (('a', 'b', 'c'), [0, 1, 2], [0, 0, 1])
    """
    return _read(
        path_or_file,
        {"winner": winner, "loser": loser, "assessor": assessor, "count": count, "tie": tie},
        items=items,
        encoding=encoding,
        strict=strict,
        limits=limits,
    )


def read_bayesmallows_pairs(
    path_or_file: PathOrFile,
    *,
    encoding: str | None = None,
    strict: bool = True,
    limits: InputLimits | Mapping[str, int] | None = None,
) -> Any:
    """Read BayesMallows pairwise preferences: ``assessor,bottom_item,top_item`` per line.

    ``top_item`` is preferred to ``bottom_item`` (BayesMallows' convention for
    ``beach_preferences`` and ``sounds``). Items and assessors keep their labels (1-based
    numbers in those data sets) as names. See :func:`read_pairs_csv` for the errors.

    Examples
    --------
    >>> import io
    >>> C = read_bayesmallows_pairs(io.StringIO("assessor,bottom_item,top_item\\n1,2,15\\n"))
    >>> C.item_name(int(C.winner[0])), C.item_name(int(C.loser[0]))
    ('15', '2')
    """
    return _read(
        path_or_file,
        {"winner": "top_item", "loser": "bottom_item", "assessor": "assessor"},
        items=None,
        encoding=encoding,
        strict=strict,
        limits=limits,
        required=("winner", "loser", "assessor"),
    )


def _columns(
    header: list[str],
    names: dict[str, str | None],
    required: Sequence[str],
    source: str,
    line: int,
) -> dict[str, int]:
    where = {h.strip(): k for k, h in enumerate(header)}
    cols: dict[str, int] = {}
    for role, name in names.items():
        if name is not None and name in where:
            cols[role] = where[name]
        elif role in required:
            raise DataFormatError(
                source, line, f"the header has no column {name!r} (found {', '.join(where)})"
            )
    return cols


def _parse_row(fields: list[str], cols: dict[str, int]) -> tuple[str, str, str, float, bool]:
    """One line's fields, or ValueError with the problem."""
    w, lo = _label(fields[cols["winner"]].strip()), _label(fields[cols["loser"]].strip())
    if not w or not lo:
        raise ValueError("an empty item label")
    if w == lo:
        raise ValueError(f"item {w!r} is compared with itself")
    a = _label(fields[cols["assessor"]].strip()) if "assessor" in cols else ""
    if "assessor" in cols and not a:
        raise ValueError("an empty assessor label")
    c = 1.0
    if "count" in cols:
        token = fields[cols["count"]].strip()
        try:
            c = float(token)
        except ValueError:
            raise ValueError(f"count {token!r} is not a number") from None
        if not np.isfinite(c) or c <= 0:
            raise ValueError(f"count {token!r} is not a positive number")
    t = False
    if "tie" in cols:
        token = fields[cols["tie"]].strip().lower()
        if token not in _TRUE | _FALSE:
            raise ValueError(f"tie flag {token!r} is not 0/1 or true/false")
        t = token in _TRUE
    return w, lo, a, c, t


def _read(
    path_or_file: PathOrFile,
    names: dict[str, str | None],
    *,
    items: Sequence[str] | None,
    encoding: str | None,
    strict: bool,
    limits: Any,
    required: Sequence[str] = ("winner", "loser"),
) -> Any:
    from rankclust.pairwise import Comparisons

    source = _source_name(path_or_file)
    budget = _Budget(source, limits)
    problems = _Problems(source, strict)
    text, _ = decode(path_or_file, encoding, budget.limits)
    cols: dict[str, int] | None = None
    width = 0
    ws: list[str] = []
    ls: list[str] = []
    asr: list[str] = []
    cs: list[float] = []
    ts: list[bool] = []
    known = None if items is None else {str(s) for s in items}
    for lineno, line in enumerate(_split_lines(text), start=1):
        if not line.strip():
            continue
        fields = next(csv.reader([line.rstrip("\r")]))
        if cols is None:
            cols = _columns(fields, names, required, source, lineno)
            width = len(fields)
            continue
        if len(fields) != width:
            problems.bad(lineno, line, f"{len(fields)} fields, expected {width}")
            continue
        try:
            w, lo, a, c, t = _parse_row(fields, cols)
        except ValueError as err:
            problems.bad(lineno, line, str(err))
            continue
        if known is not None and (w not in known or lo not in known):
            problems.bad(lineno, line, f"item {(lo if w in known else w)!r} is not in items")
            continue
        budget.rows(len(ws) + 1, lineno)
        ws.append(w)
        ls.append(lo)
        asr.append(a)
        cs.append(c)
        ts.append(t)
    problems.warn()
    if cols is None or not ws:
        raise DataFormatError(source, None, "no comparisons (a header and data lines expected)")
    if items is None:
        names_, idx = _numbering(ws + ls)
    else:
        names_ = tuple(str(s) for s in items)
        index = {s: k for k, s in enumerate(names_)}
        idx = np.array([index[s] for s in ws + ls], dtype=np.int64)
    budget.items(len(names_), None, "uses")
    n = len(ws)
    a_names, a_idx = _numbering(asr) if "assessor" in cols else (None, None)
    return Comparisons(
        idx[:n],
        idx[n:],
        n_items=len(names_),
        assessor=a_idx,
        count=np.asarray(cs) if "count" in cols else None,
        tie=np.asarray(ts) if "tie" in cols else None,
        items=names_,
        assessors=a_names,
        limits=budget.limits,
    )

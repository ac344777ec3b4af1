"""Reading the command's input files: thin wrappers over :mod:`rankclust.io`.

All format detection and parsing lives in :mod:`rankclust.io`; here a path is checked, the
reader is called, and its read report (rows read, used, refused; the file line of each row)
is kept so that messages can name the file line of a row.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from rankclust.cli._errors import CLIError

__all__ = [
    "PAIR_FORMATS",
    "READ_FORMATS",
    "check_file",
    "data_row_lines",
    "input_limits",
    "input_note",
    "load_label_ranking",
    "load_pairs",
    "load_rankings",
    "read_numeric_csv",
    "where",
]

#: The --format choices: rankclust.io.FORMATS (kept literal so that --help imports no reader).
READ_FORMATS = ("preflib", "orderings", "ranks", "label-ranking", "kamishima")
#: The --format choices of pairwise comparisons (read by load_pairs, clustered by
#: 'cluster' and 'select-k'): a CSV whose header is detected (see load_pairs).
PAIR_FORMATS = ("pairs",)
# The read report of each input file (rankclust.io.ReadReport), shown by input_note.
_READ_REPORTS: dict[str, Any] = {}


def check_file(path: str) -> Path:
    """``path`` as a Path; a missing file or a directory is a one-line error."""
    p = Path(path)
    if not p.exists():
        raise CLIError(f"{path}: no such file")
    if p.is_dir():
        raise CLIError(f"{path}: is a directory, expected a file")
    return p


def input_limits() -> Any:
    """The input limits in force (defaults and ``RANKCLUST_MAX_*``; see rankclust.io)."""
    from rankclust.io import resolve_limits

    return resolve_limits()


def _item_names(items_file: str | None, encoding: str | None) -> list[str] | None:
    from rankclust.io import read_item_names

    return read_item_names(check_file(items_file), encoding=encoding) if items_file else None


def load_rankings(
    path: str,
    *,
    fmt: str = "auto",
    kind: str | None = None,
    items_file: str | None = None,
    encoding: str | None = None,
    strict: bool = True,
) -> Any:
    """Read rankings with :func:`rankclust.io.read_rankings` (all detection lives there).

    Parameters
    ----------
    path : str
    fmt : {"auto", "preflib", "orderings", "ranks", "label-ranking", "kamishima"}
    kind : {"top", "subset"}, optional
        Override the meaning of absent items.
    items_file : str, optional
        Item names, one per line, in item order.
    encoding : str, optional
        The files' text encoding (default: byte-order mark, else UTF-8).
    strict : bool, default=True
        Refuse the first malformed line; if False skip malformed lines (reported in the
        summary and in one warning).

    The one-line read summary (rows read, used, refused and why) is printed by
    :func:`input_note` once the command has accepted the input.

    Returns
    -------
    Rankings
    """
    from rankclust.io import read_rankings

    if fmt in PAIR_FORMATS:
        raise CLIError(
            f"--format {fmt}: this command reads rankings; pairwise comparisons are "
            "clustered by 'rankclust cluster' and 'rankclust select-k'"
        )
    p = check_file(path)
    items = _item_names(items_file, encoding)
    R, report = read_rankings(
        p, fmt, encoding=encoding, items=items, kind=kind, strict=strict, return_report=True
    )
    _READ_REPORTS[str(path)] = report  # printed by input_note once the input is accepted
    return R


def load_label_ranking(
    path: str, items_file: str | None = None, *, encoding: str | None = None
) -> tuple[np.ndarray, Any]:
    """Features and label rankings from a label-ranking CSV (``n,p,k`` header)."""
    from rankclust.io import read_label_rankings

    p = check_file(path)
    items = _item_names(items_file, encoding)
    X, Y, report = read_label_rankings(
        p, encoding=encoding, items=items, finite_features=True, return_report=True
    )
    _READ_REPORTS[str(path)] = report
    return X, Y


_PAIR_LAYOUTS = "winner,loser[,assessor][,count][,tie] or assessor,bottom_item,top_item"


def _header(path: Path, encoding: str | None) -> tuple[int, list[str]]:
    """The first non-blank line of a (possibly gzipped) CSV: its number and stripped fields."""
    import csv
    import gzip

    with open(path, "rb") as f:
        head = f.read(2)
    opener = gzip.open if head == b"\x1f\x8b" else open
    try:
        with opener(path, "rb") as f:
            data = f.read(1 << 16)
    except (OSError, EOFError) as exc:
        raise CLIError(f"{path}: cannot read ({exc})") from None
    text = data.decode(encoding or "utf-8", errors="replace").removeprefix("\ufeff")
    lineno, line = next(((k, ln) for k, ln in enumerate(text.splitlines(), 1) if ln.strip()),
                        (1, ""))  # fmt: skip
    return lineno, [h.strip() for h in next(csv.reader([line]))] if line else []


def load_pairs(path: str, *, encoding: str | None = None, strict: bool = True) -> Any:
    """Pairwise comparisons from a CSV, its layout told by the header.

    ``winner,loser`` (with optional ``assessor``, ``count``, ``tie`` columns):
    :func:`rankclust.io.read_pairs_csv`; ``assessor,bottom_item,top_item`` (BayesMallows,
    the top item preferred): :func:`rankclust.io.read_bayesmallows_pairs`. Any other header
    is a one-line error naming both layouts.

    Returns
    -------
    rankclust.pairwise.Comparisons
    """
    from rankclust.io import read_bayesmallows_pairs, read_pairs_csv

    p = check_file(path)
    lineno, fields = _header(p, encoding)
    header = set(fields)
    if {"winner", "loser"} <= header:
        return read_pairs_csv(p, encoding=encoding, strict=strict)
    if {"assessor", "bottom_item", "top_item"} <= header:
        return read_bayesmallows_pairs(p, encoding=encoding, strict=strict)
    found = ", ".join(fields[:20]) + (", ..." if len(fields) > 20 else "") or "nothing"
    raise CLIError(
        f"{path}, line {lineno}: a pairs file needs the header {_PAIR_LAYOUTS} (found {found})"
    )


def read_numeric_csv(path: str, *, what: str, integer: bool = False) -> np.ndarray:
    """A rectangular numeric CSV (optional header) as a 2-d array; errors name the line."""
    from rankclust.io import read_numeric_csv as read

    return read(check_file(path), what=what, integer=integer)


def input_note(R: Any, path: str) -> str:
    """The one-line summary of what was read from ``path`` (the reader's, when it has one)."""
    report = _READ_REPORTS.get(str(path))
    if report is not None and report.n_rankings == R.n_rankings:
        return f"{report.summary()} (kind {R.kind!r})"
    w = f", {R.weights.sum():g} ballots" if R.is_weighted else ""
    return f"{path}: {R.n_rankings} rankings over {R.n_items} items (kind {R.kind!r}{w})"


def data_row_lines(path: str, n_rows: int) -> list[int] | None:
    """The file line of each data row, or None when the lines cannot be told.

    The reader's report gives them for every file it read. For a file it did not read, the
    non-blank lines that do not start with ``#`` are the rows in order, after at most one
    header line; the count must match ``n_rows`` exactly, otherwise (rows merged or skipped
    by a reader, a multi-line header) None, and messages name the data row instead.
    """
    report = _READ_REPORTS.get(str(path))  # the reader's own count, when it read this file
    if report is not None and report.row_lines is not None:
        return list(report.row_lines) if len(report.row_lines) == n_rows else None
    import gzip

    try:
        data = Path(path).read_bytes()
        if data[:2] == b"\x1f\x8b":
            data = gzip.decompress(data)
    except (OSError, EOFError, gzip.BadGzipFile):
        return None
    text = data.decode("utf-8", errors="replace").removeprefix("\ufeff")
    lines = [
        k for k, ln in enumerate(text.splitlines(), start=1)
        if ln.strip() and not ln.lstrip().startswith("#")
    ]  # fmt: skip
    if len(lines) == n_rows + 1:  # a header line
        lines = lines[1:]
    return lines if len(lines) == n_rows else None


def where(path: str, row: int, n_rows: int) -> str:
    """``FILE:LINE`` of data row ``row`` (0-based), else ``FILE: data row N``."""
    lines = data_row_lines(path, n_rows)
    return f"{path}:{lines[row]}" if lines is not None else f"{path}: data row {row + 1}"

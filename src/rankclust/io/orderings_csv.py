"""Plain CSV files of rankings: one ordering or one rank vector per row.

Two layouts are common:

* **orderings** -- column ``p`` holds the item placed at position ``p`` (best first), ``0``
  (or empty) marks a position that was not filled. The PLMIX data (``d_apa_orderings.csv``,
  ``d_german_orderings.csv``, ``plmix_misc/*_orderings.csv``; header ``Rank_1,...,Rank_K``) use
  it. Read with :func:`read_orderings_csv`, write with :func:`write_orderings_csv`.
* **ranks** -- column ``j`` holds the rank of item ``j`` (1 = best), ``0`` (or empty/NA) for a
  missing item, equal ranks for ties. The Rankcluster data (``rankcluster_misc/*_rankings.csv``,
  header ``dim<d>_obj<j>``) use it, several rankings ("dimensions") side by side. Read with
  :func:`read_ranks_csv` or :func:`read_rankcluster_csv`.

Beware ``apa_1980/APA_rankings.csv``: despite its ``dim1_obj<j>`` header it holds orderings.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from rankclust._limits import InputLimits
from rankclust.io._common import (
    DataFormatError,
    PathOrFile,
    _Budget,
    _iter_lines,
    _Problems,
    _source_name,
    _TextSink,
)
from rankclust.rankings import KINDS, Rankings, rank_dtype

__all__ = [
    "read_orderings_csv",
    "read_rankcluster_csv",
    "read_ranks_csv",
    "write_orderings_csv",
    "write_rankcluster_csv",
    "write_ranks_csv",
]

_MISSING_TEXT = frozenset({"", "na", "nan"})
_RANKCLUSTER_COL = re.compile(r"dim(\d+)_obj(\d+)\Z")


def _is_number(tok: str) -> bool:
    try:
        float(tok)
    except ValueError:
        return False
    return True


def _cell(field: str, missing: int) -> int | None:
    """-1 for a missing entry, the integer otherwise, None when malformed."""
    if field.lower() in _MISSING_TEXT:
        return -1
    if len(field) > 40:  # no integer below 2**62 is written with more characters
        return None
    try:
        v = float(field)
        iv = int(v)
    except (ValueError, OverflowError):
        return None
    if v != iv or (iv < 0 and iv != missing) or iv >= 2**62:
        return None  # (an item or rank beyond int64 is malformed, not an OverflowError)
    return -1 if iv == missing else iv


def _header_line(names: Sequence[str], delimiter: str) -> str:
    """The header row, written so that the readers read it back as these exact names.

    A name that reads as a number or a missing marker (``"0"``, ``"na"``) is quoted, or the
    readers' header detection would take the row for data; the readers strip the quotes.
    Names holding the delimiter, a line break or an outer quote cannot round-trip: refused.
    """
    out = []
    for name in map(str, names):
        if (
            delimiter in name
            or "\n" in name
            or "\r" in name
            or name[:1] == '"'
            or name[-1:] == '"'
        ):
            raise ValueError(
                f"item name {name!r} cannot be written to a CSV header (it holds the delimiter "
                f"{delimiter!r}, a line break or an outer quote)"
            )
        numeric = name.strip().lower() in _MISSING_TEXT or _is_number(name.strip())
        out.append(f'"{name}"' if numeric else name)
    return delimiter.join(out)


def _read_int_table(
    path_or_file: PathOrFile,
    *,
    header: bool | None,
    delimiter: str,
    missing: int,
    problems: _Problems,
    encoding: str,
    budget: _Budget,
) -> tuple[list[str] | None, list[int], list[str], np.ndarray]:
    """Parse a rectangular table of integers.

    Returns the header fields (or None), line numbers and texts of the data rows, and an
    int64 array in which every missing entry (``missing``, empty, ``NA``, ``nan``) is -1 and
    ``missing`` itself never appears (other negative values are malformed). Rows with a
    wrong field count or a non-integer value are reported through ``problems``. The number
    of columns, of rows and of cells are checked against ``budget`` as they grow.
    """
    head: list[str] | None = None
    width: int | None = None
    linenos: list[int] = []
    texts: list[str] = []
    rows: list[list[int]] = []
    first = True
    for lineno, text in _iter_lines(path_or_file, encoding, problems, budget.limits):
        if not text.strip():
            continue
        fields = [f.strip() for f in text.split(delimiter)]
        if first:
            first = False
            budget.items(len(fields), lineno, "has columns for")
            is_header = (
                header
                if header is not None
                else not all(f.lower() in _MISSING_TEXT or _is_number(f) for f in fields)
            )
            width = len(fields)
            if is_header:
                head = [f.strip('"') for f in fields]
                continue
        if len(fields) != width:
            problems.bad(lineno, text, f"{len(fields)} fields, expected {width}")
            continue
        row = [_cell(f, missing) for f in fields]
        if None in row:
            j = row.index(None)
            problems.bad(
                lineno, text, f"field {j + 1} ({fields[j]!r}) is not a non-negative integer"
            )
            continue
        linenos.append(lineno)
        texts.append(text)
        rows.append(row)
        budget.rows(len(rows), lineno)
        budget.cells(len(rows), width or 0, lineno)
    arr = np.array(rows, dtype=np.int64).reshape(len(rows), width or 0)
    return head, linenos, texts, arr


def read_orderings_csv(
    path_or_file: PathOrFile,
    *,
    kind: str = "top",
    one_based: bool = True,
    missing: int = 0,
    n_items: int | None = None,
    items: Sequence[str] | None = None,
    header: bool | None = None,
    delimiter: str = ",",
    strict: bool = True,
    encoding: str = "utf-8",
    limits: InputLimits | Mapping[str, int] | None = None,
) -> Rankings:
    """Read a CSV file of orderings: column ``p`` = the item at position ``p``, best first.

    Parameters
    ----------
    path_or_file : str, os.PathLike or file object
    kind : {"top", "subset"}, default="top"
        Meaning of the unlisted items. Ballots and top-k lists (the PLMIX data) are ``"top"``.
    one_based : bool, default=True
        Items are numbered from 1 (else from 0).
    missing : int, default=0
        The value of an unfilled position (empty fields, ``NA`` and ``nan`` also are).
        Filled positions must come before unfilled ones.
    n_items : int, optional
        Number of items; default ``len(items)``, else the number of columns.
    items : sequence of str, optional
        Item names in item order.
    header : bool, optional
        Whether the first line is a header; default: yes when any of its fields is not a
        number.
    delimiter : str, default=","
    strict : bool, default=True
        If True, a malformed line raises :class:`~rankclust.io.DataFormatError` (a
        ``ValueError``) naming it; if False it is skipped and reported in one
        :class:`~rankclust.io.MalformedLinesWarning`.
    encoding : str, default="utf-8"
    limits : InputLimits or mapping of str to int, optional
        Override the input limits (bytes read, rows, items, rows x items); default:
        :class:`~rankclust.io.InputLimits` with the ``RANKCLUST_MAX_*`` environment variables.

    Returns
    -------
    R : Rankings, shape (n_rows, n_items)

    Raises
    ------
    DataFormatError
        A row with the wrong number of fields, a non-integer, an item out of range or
        repeated, a filled position after an unfilled one; always, before allocating: a file
        (or ``n_items``) beyond one of the ``limits``.

    Notes
    -----
    Complexity: O(n K) time and O(n m) memory for n rows of K positions over m items.

    Examples
    --------
    >>> import io
    >>> R = read_orderings_csv(io.StringIO("Rank_1,Rank_2,Rank_3\\n3,1,0\\n2,1,3\\n"))
    >>> R.ranks
    array([[ 1, -1,  0],
           [ 1,  0,  2]], dtype=int8)
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    source = _source_name(path_or_file)
    problems = _Problems(source, strict)
    budget = _Budget(source, limits)
    _, linenos, texts, orders = _read_int_table(
        path_or_file,
        header=header,
        delimiter=delimiter,
        missing=missing,
        problems=problems,
        encoding=encoding,
        budget=budget,
    )
    n, width = orders.shape
    if n_items is None:
        n_items = len(items) if items is not None else width
    budget.cells(n, n_items, None, "needs")  # before the n x n_items rank matrix
    offset = 1 if one_based else 0
    filled = orders >= 0
    item = np.where(filled, orders - offset, -1)
    lo = 1 if one_based else 0
    bad = np.zeros(n, dtype=bool)
    reasons: dict[int, str] = {}

    def flag(mask: np.ndarray, reason: Any) -> None:
        for i in np.flatnonzero(mask & ~bad):
            reasons[int(i)] = reason(int(i))
        bad[:] |= mask

    if width:
        gap = (~filled[:, :-1] & filled[:, 1:]).any(axis=1)
        flag(gap, lambda i: "a filled position follows an unfilled one")
        out_of_range = filled & ((item < 0) | (item >= n_items))
        flag(
            out_of_range.any(axis=1),
            lambda i: (
                f"item {_first(orders[i], out_of_range[i])} is out of range "
                f"{lo}..{n_items - 1 + lo}"
            ),
        )
        srt = np.sort(np.where(filled, item, -1 - np.arange(width)), axis=1)
        dup = (srt[:, 1:] == srt[:, :-1]).any(axis=1)
        flag(dup, lambda i: "an item appears more than once")
    for i in sorted(reasons, key=lambda i: linenos[i]):
        problems.bad(linenos[i], texts[i], reasons[i])
    problems.warn(stacklevel=2)
    keep = ~bad
    item, filled = item[keep], filled[keep]
    # positions are columns (< width): a type holding both is compact and cannot wrap
    ranks = np.full((item.shape[0], n_items), -1, dtype=rank_dtype(max(n_items, width)))
    r, p = np.nonzero(filled)
    ranks[r, item[r, p]] = p
    return Rankings(ranks, kind=kind, items=items)


def _first(values: np.ndarray, mask: np.ndarray) -> int:
    return int(values[np.flatnonzero(mask)[0]])


def read_ranks_csv(
    path_or_file: PathOrFile,
    *,
    kind: str = "subset",
    missing: int = 0,
    items: Sequence[str] | None = None,
    header: bool | None = None,
    delimiter: str = ",",
    strict: bool = True,
    encoding: str = "utf-8",
    limits: InputLimits | Mapping[str, int] | None = None,
) -> Rankings:
    """Read a CSV file of rank vectors: column ``j`` = the rank of item ``j`` (1 = best).

    Parameters
    ----------
    path_or_file : str, os.PathLike or file object
    kind : {"subset", "top"}, default="subset"
        Meaning of a missing rank.
    missing : int, default=0
        The value of a missing rank (empty fields, ``NA`` and ``nan`` also are).
    items : sequence of str, optional
        Item names; default the header's fields, if there is a header.
    header : bool, optional
        Whether the first line is a header; default: yes when any field is not a number.
    delimiter : str, default=","
    strict : bool, default=True
        Raise on a malformed line (naming it) or, if False, skip and report it.
    encoding : str, default="utf-8"
    limits : InputLimits or mapping of str to int, optional
        Override the input limits (bytes read, rows, items, rows x items); default:
        :class:`~rankclust.io.InputLimits` with the ``RANKCLUST_MAX_*`` environment variables.

    Returns
    -------
    R : Rankings, shape (n_rows, n_columns)
        Equal ranks are ties. Ranks are renumbered densely (``1,4,2,2`` and ``1,3,2,2`` give
        the same ranking).

    Notes
    -----
    Complexity: O(n m log m) time, O(n m) memory.

    Examples
    --------
    >>> import io
    >>> R = read_ranks_csv(io.StringIO("a,b,c\\n2,1,0\\n1,3,1\\n"))
    >>> R.items, R.ranks.tolist()
    (('a', 'b', 'c'), [[1, 0, -1], [0, 1, 0]])
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    source = _source_name(path_or_file)
    problems = _Problems(source, strict)
    head, linenos, texts, vals = _read_int_table(
        path_or_file,
        header=header,
        delimiter=delimiter,
        missing=missing,
        problems=problems,
        encoding=encoding,
        budget=_Budget(source, limits),
    )
    neg = (vals == 0).any(axis=1)  # a 0 that is not the missing marker
    for i in np.flatnonzero(neg):
        problems.bad(linenos[i], texts[i], "rank 0: ranks start at 1 (1 = best)")
    problems.warn(stacklevel=2)
    vals = vals[~neg]
    if items is None and head is not None:
        items = head
    return Rankings(np.where(vals > 0, vals - 1, -1), kind=kind, items=items)


def read_rankcluster_csv(
    path_or_file: PathOrFile,
    *,
    kind: str = "subset",
    strict: bool = True,
    encoding: str = "utf-8",
    limits: InputLimits | Mapping[str, int] | None = None,
) -> list[Rankings]:
    """Read a Rankcluster CSV: several rank vectors per row, header ``dim<d>_obj<j>``.

    Parameters
    ----------
    path_or_file : str, os.PathLike or file object
    kind : {"subset", "top"}, default="subset"
    strict : bool, default=True
    encoding : str, default="utf-8"
    limits : InputLimits or mapping of str to int, optional
        Override the input limits (bytes read, rows, items, rows x items); default:
        :class:`~rankclust.io.InputLimits` with the ``RANKCLUST_MAX_*`` environment variables.

    Returns
    -------
    dims : list of Rankings
        One per dimension, in header order, rows aligned; items named ``obj<j>``.

    Notes
    -----
    Complexity: O(n D m log m) time, O(n D m) memory for D dimensions of m objects.

    References
    ----------
    J. Jacques, Q. Grimonprez and C. Biernacki, "Rankcluster: An R package for clustering
    multivariate partial rankings", The R Journal 6(1), 2014.

    Examples
    --------
    >>> import io
    >>> dims = read_rankcluster_csv(io.StringIO("dim1_obj1,dim1_obj2,dim2_obj1\\n1,2,1\\n"))
    >>> [d.shape for d in dims]
    [(1, 2), (1, 1)]
    """
    R = read_ranks_csv(
        path_or_file, kind=kind, header=True, strict=strict, encoding=encoding, limits=limits
    )
    source = _source_name(path_or_file)
    groups: dict[int, list[int]] = {}
    objs: dict[int, list[str]] = {}
    for j, name in enumerate(R.items or ()):
        mm = _RANKCLUSTER_COL.match(name)
        if mm is None:
            raise DataFormatError(source, 1, f"column {name!r} is not of the form dim<d>_obj<j>")
        d = int(mm.group(1))
        groups.setdefault(d, []).append(j)
        objs.setdefault(d, []).append(f"obj{mm.group(2)}")
    out = []
    for d, cols in groups.items():
        sub = R.ranks[:, cols]
        out.append(Rankings(sub, kind=kind, items=objs[d]))
    return out


def _write_lines(path_or_file: PathOrFile, lines: list[str], lineterminator: str) -> None:
    with _TextSink(path_or_file) as out:
        out.write(lineterminator.join(lines) + lineterminator)


def write_orderings_csv(
    R: Rankings,
    path_or_file: PathOrFile,
    *,
    header: bool | Sequence[str] = True,
    one_based: bool = True,
    missing: int = 0,
    n_positions: int | None = None,
    delimiter: str = ",",
    lineterminator: str = "\n",
) -> None:
    """Write rankings as orderings, one row per ranking, ``missing`` in unfilled positions.

    Parameters
    ----------
    R : Rankings
        Without ties (an ordering cannot hold a tie).
    path_or_file : str, os.PathLike or file object
    header : bool or sequence of str, default=True
        True writes ``Rank_1,...,Rank_K`` (the PLMIX header), a sequence writes those names.
    one_based : bool, default=True
    missing : int, default=0
    n_positions : int, optional
        Number of columns; default ``R.n_items``.
    delimiter : str, default=","
    lineterminator : str, default="\\n"

    Notes
    -----
    ``read_orderings_csv`` of the output gives back ``R`` (with ``kind``, ``items`` and
    ``n_items`` passed). Complexity: O(n m log m) time, O(n m) memory.

    Examples
    --------
    >>> import io
    >>> from rankclust import Rankings
    >>> buf = io.StringIO()
    >>> write_orderings_csv(Rankings.from_orderings([[2, 0], [0, 1, 2]]), buf)
    >>> print(buf.getvalue(), end="")
    Rank_1,Rank_2,Rank_3
    3,1,0
    1,2,3
    """
    if not isinstance(R, Rankings):
        raise TypeError(f"R must be a Rankings, got {type(R).__name__}")
    ties = R.has_ties
    if ties.any():
        raise ValueError(
            f"row {int(np.flatnonzero(ties)[0])} has ties; orderings cannot hold them"
        )
    K = R.n_items if n_positions is None else int(n_positions)
    too_long = R.lengths > K
    if too_long.any():
        i = int(np.flatnonzero(too_long)[0])
        raise ValueError(f"row {i} ranks {int(R.lengths[i])} items, more than {K} positions")
    offset = 1 if one_based else 0
    table = np.full((R.n_rankings, K), missing, dtype=np.int64)
    rr, jj = np.nonzero(R.ranks >= 0)
    table[rr, R.ranks[rr, jj]] = jj + offset
    lines = []
    if header is True:
        lines.append(delimiter.join(f"Rank_{p + 1}" for p in range(K)))
    elif header is not False and header is not None:
        names = list(header)
        if len(names) != K:
            raise ValueError(f"header has {len(names)} names for {K} columns")
        lines.append(_header_line(names, delimiter))
    lines += [delimiter.join(map(str, row)) for row in table.tolist()]
    _write_lines(path_or_file, lines, lineterminator)


def _rank_table(R: Rankings, ties: str, missing: int) -> np.ndarray:
    """1-based ranks, ``missing`` for absent items; tied items share a rank."""
    ranks = R.ranks
    if ties == "dense":
        out = ranks + 1
    elif ties == "min":
        # competition ranking: 1 + the number of present items strictly above
        below = (ranks[:, None, :] >= 0) & (ranks[:, None, :] < ranks[:, :, None])
        out = below.sum(axis=2) + 1
    else:
        raise ValueError(f"ties must be 'dense' or 'min', got {ties!r}")
    return np.where(ranks >= 0, out, missing)


def write_ranks_csv(
    R: Rankings,
    path_or_file: PathOrFile,
    *,
    header: bool | Sequence[str] = True,
    missing: int = 0,
    ties: str = "dense",
    delimiter: str = ",",
    lineterminator: str = "\n",
) -> None:
    """Write rankings as rank vectors (1 = best), one row per ranking.

    Parameters
    ----------
    R : Rankings
    path_or_file : str, os.PathLike or file object
    header : bool or sequence of str, default=True
        True writes ``R.items`` (or ``item_1, ...`` when unnamed).
    missing : int, default=0
        Written for absent items.
    ties : {"dense", "min"}, default="dense"
        Ranks of tied items: ``"dense"`` (``1,2,2,3``) or ``"min"`` (competition ranking,
        ``1,2,2,4``). Both read back to the same :class:`~rankclust.Rankings`.
    delimiter : str, default=","
    lineterminator : str, default="\\n"

    Notes
    -----
    Complexity: O(n m) time and memory (O(n m^2) for ``ties="min"``).

    Examples
    --------
    >>> import io
    >>> from rankclust import Rankings
    >>> buf = io.StringIO()
    >>> write_ranks_csv(Rankings.from_orderings([[1, (0, 2)]], items="abc"), buf, ties="min")
    >>> print(buf.getvalue(), end="")
    a,b,c
    2,1,2
    """
    if not isinstance(R, Rankings):
        raise TypeError(f"R must be a Rankings, got {type(R).__name__}")
    table = _rank_table(R, ties, missing)
    lines = []
    if header is True:
        names = R.items or tuple(f"item_{j + 1}" for j in range(R.n_items))
        lines.append(_header_line(names, delimiter))
    elif header is not False and header is not None:
        names = list(header)
        if len(names) != R.n_items:
            raise ValueError(f"header has {len(names)} names for {R.n_items} columns")
        lines.append(_header_line(names, delimiter))
    lines += [delimiter.join(map(str, row)) for row in table.tolist()]
    _write_lines(path_or_file, lines, lineterminator)


def write_rankcluster_csv(
    dims: Sequence[Rankings],
    path_or_file: PathOrFile,
    *,
    missing: int = 0,
    ties: str = "min",
    lineterminator: str = "\n",
) -> None:
    """Write several aligned rankings side by side with the ``dim<d>_obj<j>`` header.

    The inverse of :func:`read_rankcluster_csv`. Ties are written as competition ranks by
    default, as in Rankcluster's data.

    Parameters
    ----------
    dims : sequence of Rankings
        Rankings with the same number of rows (one per dimension).
    path_or_file : str, os.PathLike or file object
    missing : int, default=0
    ties : {"min", "dense"}, default="min"
    lineterminator : str, default="\\n"

    Notes
    -----
    Complexity: O(n D m^2) time (competition ranks), O(n D m) memory.

    Examples
    --------
    >>> import io
    >>> from rankclust import Rankings
    >>> buf = io.StringIO()
    >>> write_rankcluster_csv([Rankings([[0, 1]]), Rankings([[1, 0]])], buf)
    >>> print(buf.getvalue(), end="")
    dim1_obj1,dim1_obj2,dim2_obj1,dim2_obj2
    1,2,2,1
    """
    if not dims:
        raise ValueError("need at least one Rankings")
    n = dims[0].n_rankings
    for d, R in enumerate(dims):
        if not isinstance(R, Rankings):
            raise TypeError(f"dims[{d}] must be a Rankings, got {type(R).__name__}")
        if R.n_rankings != n:
            raise ValueError(f"dims[{d}] has {R.n_rankings} rows, dims[0] has {n}")
    table = np.hstack([_rank_table(R, ties, missing) for R in dims])
    names = [f"dim{d + 1}_obj{j + 1}" for d, R in enumerate(dims) for j in range(R.n_items)]
    lines = [",".join(names)] + [",".join(map(str, row)) for row in table.tolist()]
    _write_lines(path_or_file, lines, lineterminator)

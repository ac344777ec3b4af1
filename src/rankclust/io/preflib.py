"""Read and write PrefLib ordinal preference files (``.soc``, ``.soi``, ``.toc``, ``.toi``).

A PrefLib file has ``#`` metadata lines (``# NUMBER ALTERNATIVES: 12``,
``# ALTERNATIVE NAME 1: ...``, ``# NUMBER VOTERS: ...``) and then one line per distinct order::

    800: 12,6,4
    13: 1,{4,3},2

``count: order`` -- ``count`` voters submitted the order; alternatives are numbered from 1,
listed best first, and braces hold tied alternatives. The counts become the ``weights`` of the
:class:`~rankclust.Rankings`, the alternative names its ``items``. The format is specified in
``FORMAT_SPECIFICATION.md`` of https://github.com/PrefLib/PrefLib-Data. The older format
(before September 2022: first line the number of alternatives, then ``i,name`` lines, then
``voters,sum,unique``, then ``count,a,b,...`` lines) is read too.
"""

from __future__ import annotations

import itertools
import os
import re
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from rankclust._limits import InputLimits
from rankclust.io._common import (
    DataFormatError,
    PathOrFile,
    SkippedLine,
    _Budget,
    _iter_lines,
    _Problems,
    _source_name,
    _TextSink,
)
from rankclust.rankings import KINDS, Rankings, rank_dtype

__all__ = ["PREFLIB_DATA_TYPES", "PreflibMetadata", "read_preflib", "write_preflib"]

#: The ordinal PrefLib data types: strict/tied orders, complete/incomplete.
PREFLIB_DATA_TYPES = ("soc", "soi", "toc", "toi")

_NAME_KEY = re.compile(r"ALTERNATIVE NAME (\d+)\Z")
# Longest integer token read: int() of more digits is slow (and refused past 4300 digits).
_MAX_DIGITS = 18
# Largest count: counts become float64 weights, exact up to 2**53.
_MAX_COUNT = 2**53
# Header fields the writer computes from the data (never copied from ``metadata``).
_COMPUTED = ("DATA TYPE", "NUMBER ALTERNATIVES", "NUMBER VOTERS", "NUMBER UNIQUE ORDERS")
_DEFAULT_HEADER = (
    "FILE NAME",
    "TITLE",
    "DESCRIPTION",
    "DATA TYPE",
    "MODIFICATION TYPE",
    "RELATES TO",
    "RELATED FILES",
    "PUBLICATION DATE",
    "MODIFICATION DATE",
    "NUMBER ALTERNATIVES",
    "NUMBER VOTERS",
    "NUMBER UNIQUE ORDERS",
)


@dataclass(frozen=True)
class PreflibMetadata:
    """What :func:`read_preflib` found besides the orders (``return_metadata=True``).

    Attributes
    ----------
    header : dict of str to str
        Every ``# KEY: value`` metadata line in file order, except the alternative names
        (empty for the old format). Pass it to :func:`write_preflib` to keep the fields.
    data_type : str or None
        ``"soc"``, ``"soi"``, ``"toc"`` or ``"toi"`` as declared (``# DATA TYPE``), else from
        the file extension, else None.
    n_alternatives : int
        Number of alternatives (items).
    alternative_names : tuple of str or None
        Names of alternatives ``1..n_alternatives``; None when the file gives none.
    n_voters_declared, n_unique_orders_declared : int or None
        The declared totals (None when not declared).
    n_voters_read : int
        Sum of the counts of the data lines read.
    n_orders_read : int
        Number of data lines read.
    old_format : bool
        True for the pre-2022 PrefLib format.
    skipped : tuple of SkippedLine
        Lines skipped with ``strict=False`` (empty when strict).
    """

    header: dict[str, str]
    data_type: str | None
    n_alternatives: int
    alternative_names: tuple[str, ...] | None
    n_voters_declared: int | None
    n_unique_orders_declared: int | None
    n_voters_read: int
    n_orders_read: int
    old_format: bool = False
    skipped: tuple[SkippedLine, ...] = field(default=())


class _Bad(Exception):
    """A malformed data line (private: caught by the reader loop)."""


def _parse_int(token: str, what: str) -> int:
    t = token.strip()
    if not t.isdigit() or not t.isascii():
        raise _Bad(f"{what} {t[:40]!r} is not a non-negative integer")
    if len(t.lstrip("0")) > _MAX_DIGITS:
        raise _Bad(f"{what} {t[:20]}... has {len(t)} digits (too large)")
    return int(t)


def _parse_order(body: str, m: int | None) -> tuple[list[int], list[int]]:
    """Parse ``a,b,{c,d},e`` into 0-based items and their 0-based positions (best first).

    Raises :class:`_Bad` on a malformed order.
    """
    fast = _parse_strict_order(body, m)
    if fast is not None:
        return fast
    out_items: list[int] = []
    out_pos: list[int] = []
    n_buckets = 0
    seen: set[int] = set()
    pos, n = 0, len(body)
    if not body.strip():
        raise _Bad("the order is empty")
    while True:
        tokens, pos = _next_bucket(body, _skip_blanks(body, pos))
        for tok in tokens:
            a = _parse_alternative(tok, m)
            if a in seen:
                raise _Bad(f"alternative {a} appears more than once")
            seen.add(a)
            out_items.append(a - 1)
            out_pos.append(n_buckets)
        n_buckets += 1
        pos = _skip_blanks(body, pos)
        if pos >= n:
            return out_items, out_pos
        if body[pos] != ",":
            raise _Bad(f"expected ',' at column {pos + 1}, found {body[pos]!r}")
        pos += 1
        if pos >= n or not body[pos:].strip():
            raise _Bad("the order ends with ',' (truncated line?)")


def _parse_strict_order(body: str, m: int | None) -> tuple[list[int], list[int]] | None:
    """Fast path for a plain strict order ``a,b,c`` of valid distinct alternatives; None for
    anything unusual (ties, blanks, errors), which the full scanner then reads."""
    if "{" in body or "}" in body:
        return None
    try:
        items = [int(t) for t in body.split(",")]
    except ValueError:
        return None
    if (
        items
        and min(items) >= 1
        and (m is None or max(items) <= m)
        and len(set(items)) == len(items)
        and body.replace(",", "").replace(" ", "").isdigit()
        and body.isascii()
    ):
        return [a - 1 for a in items], list(range(len(items)))
    return None


def _skip_blanks(body: str, pos: int) -> int:
    while pos < len(body) and body[pos] in " \t":
        pos += 1
    return pos


def _next_bucket(body: str, pos: int) -> tuple[list[str], int]:
    """The tokens of the bucket starting at ``pos`` (a ``{...}`` tie group or one entry) and
    the position after it."""
    if pos < len(body) and body[pos] == "{":
        end = body.find("}", pos + 1)
        if end < 0:
            raise _Bad("a '{' is never closed (truncated line?)")
        inner = body[pos + 1 : end]
        if "{" in inner:
            raise _Bad("nested '{'")
        if not inner.strip():
            raise _Bad("empty tie group '{}'")
        return inner.split(","), end + 1
    end = body.find(",", pos)
    end = len(body) if end < 0 else end
    token = body[pos:end]
    if "}" in token:
        raise _Bad("a '}' without a matching '{'")
    return [token], end


def _parse_alternative(tok: str, m: int | None) -> int:
    """One 1-based alternative, in ``1..m``."""
    if not tok.strip():
        raise _Bad("empty entry in the order (truncated line?)")
    a = _parse_int(tok, "alternative")
    if a < 1 or (m is not None and a > m):
        hi = f"1..{m}" if m is not None else ">= 1"
        raise _Bad(f"alternative {a} is out of range {hi}")
    return a


def _check_type(order: tuple[list[int], list[int]], data_type: str | None, m: int) -> None:
    if data_type is None:
        return
    items, pos = order
    if data_type in ("soc", "soi") and pos[-1] + 1 < len(items):
        raise _Bad(f"tied alternatives in a {data_type} file (strict orders only)")
    if data_type in ("soc", "toc"):
        n_ranked = len(items)
        if n_ranked != m:
            raise _Bad(
                f"ranks {n_ranked} of {m} alternatives in a {data_type} file (complete orders "
                "required)"
            )


def _data_type_from_name(source: str) -> str | None:
    ext = os.path.splitext(source.removesuffix(".gz"))[1].lstrip(".").lower()
    return ext if ext in PREFLIB_DATA_TYPES else None


def read_preflib(
    path_or_file: PathOrFile,
    kind: str | None = None,
    *,
    strict: bool = True,
    encoding: str = "utf-8",
    return_metadata: bool = False,
    limits: InputLimits | Mapping[str, int] | None = None,
) -> Rankings | tuple[Rankings, PreflibMetadata]:
    """Read a PrefLib ``.soc``/``.soi``/``.toc``/``.toi`` file (gzip-compressed or not).

    Parameters
    ----------
    path_or_file : str, os.PathLike or file object
        The file; gzip data are recognised by their magic bytes.
    kind : {"top", "subset"}, optional
        Meaning of unranked alternatives. Default ``"top"``: PrefLib ballots leave out the
        alternatives the voter ranks below every ranked one (DESIGN.md section 1).
    strict : bool, default=True
        If True, the first malformed line raises :class:`~rankclust.io.DataFormatError` (a
        ``ValueError``) naming the file, the line and the problem, and declared totals
        (``NUMBER VOTERS``, ``NUMBER UNIQUE ORDERS``, ``NUMBER ALTERNATIVES``) must match
        what was read. If False, malformed lines are skipped and reported in one
        :class:`~rankclust.io.MalformedLinesWarning` (attribute ``skipped``), and total
        mismatches give a ``UserWarning``.
    encoding : str, default="utf-8"
        Text encoding of the file.
    return_metadata : bool, default=False
        Also return a :class:`PreflibMetadata`.
    limits : InputLimits or mapping of str to int, optional
        Override the input limits (bytes read, rows, alternatives, rows x alternatives);
        default: :class:`~rankclust.io.InputLimits` with the ``RANKCLUST_MAX_*`` environment
        variables.

    Returns
    -------
    R : Rankings
        One row per data line, in file order; ``weights`` = the counts (float64),
        ``items`` = the alternative names (None if the file names none).
    metadata : PreflibMetadata
        Only with ``return_metadata=True``.

    Raises
    ------
    DataFormatError
        (A ``ValueError``.) A count that is not a positive integer; an alternative that is
        not an integer, out of range or repeated; an empty entry, unbalanced braces or a
        line cut short; a tie in a ``soc``/``soi`` file or an incomplete order in a
        ``soc``/``toc`` file; bytes that are not valid in ``encoding``; a metadata line
        after the data; a declared total that disagrees with the data (strict mode); a count
        above 2**53 or a number of more than 18 digits. Always, even with ``strict=False``
        and before allocating: a file beyond one of the ``limits`` (more bytes, order lines,
        alternatives declared, named or ranked, or rows x alternatives than allowed), and
        corrupt gzip data.

    See Also
    --------
    write_preflib

    Notes
    -----
    Blank lines are ignored. Complexity: O(L + n m) time and O(n m) memory for a file of
    L characters with n data lines over m alternatives.

    References
    ----------
    N. Mattei and T. Walsh, "PrefLib: A Library of Preference Data", ADT 2013.

    Examples
    --------
    >>> import io
    >>> text = "# NUMBER ALTERNATIVES: 3\\n# NUMBER VOTERS: 5\\n3: 2,1\\n2: 3,{1,2}\\n"
    >>> R = read_preflib(io.StringIO(text))
    >>> R.ranks
    array([[ 1,  0, -1],
           [ 1,  1,  0]], dtype=int8)
    >>> R.weights
    array([3., 2.])
    """
    if kind is None:
        kind = "top"
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    source = _source_name(path_or_file)
    problems = _Problems(source, strict)
    budget = _Budget(source, limits)
    st = _ReadState(source, problems, budget, data_type=_data_type_from_name(source))
    for lineno, text in _iter_lines(path_or_file, encoding, problems, budget.limits):
        st.feed(lineno, text)
    if st.m is None:  # no declared number of alternatives: the largest one seen
        st.settle_alternatives()
    m = st.m
    # A few bytes can declare (or name) 10**9 alternatives: refuse before allocating.
    declared = "NUMBER ALTERNATIVES" in st.header_line
    budget.cells(
        len(st.orders),
        m,
        st.header_line.get("NUMBER ALTERNATIVES"),
        "declares" if declared else "uses",
    )
    items = st.item_names(strict) if st.names else None
    n_read = int(sum(st.counts))
    checks = (
        ("NUMBER VOTERS", st.declared_voters, n_read, "ballots (sum of counts)"),
        ("NUMBER UNIQUE ORDERS", st.declared_unique, len(st.orders), "order lines"),
    )
    for key, declared_total, got, what in checks:
        if declared_total is not None and declared_total != got:
            msg = f"declares {key} {declared_total} but the data lines hold {got} {what}"
            if strict:
                raise DataFormatError(source, st.header_line.get(key), msg)
            warnings.warn(f"{source}: {msg}", UserWarning, stacklevel=2)

    problems.warn(stacklevel=2)
    R = Rankings(
        _rank_matrix(st.orders, m),
        kind=kind,
        weights=np.asarray(st.counts, dtype=np.float64),
        items=items,
    )
    if not return_metadata:
        return R
    meta = PreflibMetadata(
        header=st.header,
        data_type=st.data_type,
        n_alternatives=m,
        alternative_names=items,
        n_voters_declared=st.declared_voters,
        n_unique_orders_declared=st.declared_unique,
        n_voters_read=n_read,
        n_orders_read=len(st.orders),
        old_format=st.old_format,
        skipped=tuple(problems.skipped),
    )
    return R, meta


def _rank_matrix(orders: list[tuple[list[int], list[int]]], m: int) -> np.ndarray:
    """The (n, m) rank matrix of parsed orders (-1 = not ranked)."""
    lengths = np.fromiter((len(o[0]) for o in orders), dtype=np.int64, count=len(orders))
    rows = np.repeat(np.arange(len(orders)), lengths)
    cols = np.fromiter((a for o in orders for a in o[0]), dtype=np.int64, count=len(rows))
    vals = np.fromiter((p for o in orders for p in o[1]), dtype=np.int64, count=len(rows))
    # the compact rank type when every position fits it (Rankings re-numbers the others)
    top = int(vals.max()) + 1 if len(vals) else 0
    ranks = np.full((len(orders), m), -1, dtype=rank_dtype(max(m, top)))
    ranks[rows, cols] = vals
    return ranks


class _ReadState:
    """What :func:`read_preflib` has read so far; :meth:`feed` takes one line.

    ``section``: new format ``"start" -> "header" -> "data"``; old format ``"start" ->
    "old_names" -> "old_totals" -> "data"``.
    """

    def __init__(
        self, source: str, problems: _Problems, budget: _Budget, data_type: str | None
    ) -> None:
        self.source = source
        self.problems = problems
        self.budget = budget
        self.header: dict[str, str] = {}
        self.header_line: dict[str, int] = {}
        self.names: dict[int, str] = {}
        self.name_line: dict[int, int] = {}
        self.m: int | None = None
        self.data_type = data_type
        self.declared_voters: int | None = None
        self.declared_unique: int | None = None
        self.orders: list[tuple[list[int], list[int]]] = []
        self.counts: list[int] = []
        self.order_lines: list[int] = []
        self.section = "start"
        self.old_names_left = 0
        self.old_format = False

    def feed(self, lineno: int, text: str) -> None:
        stripped = text.strip()
        if not stripped:
            return
        if self.section == "start" and self._start(lineno, stripped):
            return
        if self.section == "header" and not stripped.startswith("#"):
            self.section = "data"
        if self.section == "header":
            self._header(lineno, text, stripped)
        elif self.section == "old_names":
            self._old_name(lineno, text)
        elif self.section == "old_totals":
            self._old_totals(lineno, text, stripped)
        else:
            self._data(lineno, text, stripped)

    def _start(self, lineno: int, stripped: str) -> bool:
        """Recognise the format from the first line; True if the line is consumed."""
        if stripped.startswith("#"):
            self.section = "header"
            return False
        if not (stripped.isdigit() and stripped.isascii()):
            self.section = "data"  # no header at all
            return False
        # the old format: number of alternatives on the first line
        self.old_format = True
        if len(stripped) > _MAX_DIGITS:
            raise DataFormatError(self.source, lineno, "the number of alternatives is too large")
        self.m = int(stripped)
        self.budget.items(self.m, lineno, "declares")
        self.old_names_left = self.m
        self.section = "old_names" if self.m > 0 else "old_totals"
        return True

    def _header_int(self, key: str, value: str, lineno: int, text: str) -> int | None:
        try:
            return _parse_int(value, key)
        except _Bad as exc:
            self.problems.bad(lineno, text, str(exc))
            return None

    def _header(self, lineno: int, text: str, stripped: str) -> None:
        body = stripped[1:].strip()
        if ":" not in body:
            return  # a free comment line
        key, _, value = text.lstrip()[1:].partition(":")
        key = key.strip()
        value = value[1:] if value.startswith(" ") else value
        mname = _NAME_KEY.match(key)
        if mname:
            self._header_name(lineno, text, mname.group(1), value)
            return
        if key in self.header:
            self.problems.bad(lineno, text, f"metadata field {key!r} appears twice")
            return
        self.header[key] = value
        self.header_line[key] = lineno
        if key == "NUMBER ALTERNATIVES":
            self.m = self._header_int(key, value, lineno, text)
            if self.m is not None:  # refuse before any order is parsed (or allocated)
                self.budget.items(self.m, lineno, "declares")
        elif key == "NUMBER VOTERS":
            self.declared_voters = self._header_int(key, value, lineno, text)
        elif key == "NUMBER UNIQUE ORDERS":
            self.declared_unique = self._header_int(key, value, lineno, text)
        elif key == "DATA TYPE":
            dt = value.strip().lower()
            if dt not in PREFLIB_DATA_TYPES:
                self.problems.bad(
                    lineno,
                    text,
                    f"DATA TYPE {value.strip()!r} is not one of "
                    f"{PREFLIB_DATA_TYPES} (this reader handles ordinal data only)",
                )
            else:
                self.data_type = dt

    def _header_name(self, lineno: int, text: str, digits: str, value: str) -> None:
        if len(digits) > _MAX_DIGITS or int(digits) > self.budget.limits.max_items:
            raise self.budget.refuse(lineno, f"names alternative {digits[:20]}", "max_items")
        idx = int(digits)
        if idx in self.names:
            self.problems.bad(lineno, text, f"alternative {idx} is named twice")
            return
        self.names[idx] = value  # kept exactly (only the one space after ':' is removed)
        self.name_line[idx] = lineno

    def _old_name(self, lineno: int, text: str) -> None:
        idx_s, sep, name = text.partition(",")
        try:
            idx = _parse_int(idx_s, "alternative number")
            if not sep:
                raise _Bad("expected 'number,name'")
            if idx < 1 or idx > (self.m or 0) or idx in self.names:
                raise _Bad(f"alternative number {idx} is out of range or repeated")
        except _Bad as exc:
            self.problems.bad(lineno, text, str(exc))
        else:
            self.names[idx] = name.strip()
            self.name_line[idx] = lineno
        self.old_names_left -= 1
        if self.old_names_left == 0:
            self.section = "old_totals"

    def _old_totals(self, lineno: int, text: str, stripped: str) -> None:
        parts = stripped.split(",")
        try:
            if len(parts) != 3:
                raise _Bad("expected 'voters,sum of counts,unique orders'")
            self.declared_voters = _parse_int(parts[0], "number of voters")
            self.declared_unique = _parse_int(parts[2], "number of unique orders")
        except _Bad as exc:
            self.problems.bad(lineno, text, str(exc))
        self.header_line["NUMBER VOTERS"] = self.header_line["NUMBER UNIQUE ORDERS"] = lineno
        self.header_line["NUMBER ALTERNATIVES"] = 1
        self.section = "data"

    def _data(self, lineno: int, text: str, stripped: str) -> None:
        if stripped.startswith("#"):
            self.problems.bad(lineno, text, "metadata line after the data section")
            return
        sep = "," if self.old_format else ":"
        count_s, found, body = stripped.partition(sep)
        # a ballot ranks each alternative once: more entries than the limit cannot fit
        self.budget.items(body.count(",") + 1, lineno, "ranks")
        try:
            if not found:
                raise _Bad(
                    "expected 'count,order'" if self.old_format else "expected 'count: order'"
                )
            count = _parse_int(count_s, "count")
            if count < 1:
                raise _Bad(f"count {count} is not a positive integer")
            if count > _MAX_COUNT:
                raise _Bad(f"count {count} is larger than 2**53 (not exact as a float64 weight)")
            order = _parse_order(body, self.m)
            if self.m is not None:
                _check_type(order, self.data_type, self.m)
        except _Bad as exc:
            self.problems.bad(lineno, text, str(exc))
            return
        if self.m is None and order[0]:
            self.budget.items(max(order[0]) + 1, lineno, "uses")
        self.orders.append(order)
        self.counts.append(count)
        self.order_lines.append(lineno)
        self.budget.rows(len(self.orders), lineno)

    def settle_alternatives(self) -> None:
        """No declared number of alternatives: the largest one seen or named; the orders
        of a complete-order file are checked now."""
        m = max((max(o[0]) + 1 for o in self.orders), default=0)
        m = max([m, *self.names]) if self.names else m
        self.m = m
        if self.data_type not in ("soc", "toc"):
            return
        kept = []
        for k, (o, ln) in enumerate(zip(self.orders, self.order_lines, strict=True)):
            try:
                _check_type(o, self.data_type, m)
            except _Bad as exc:
                self.problems.bad(ln, "", str(exc))
            else:
                kept.append(k)
        self.orders = [self.orders[k] for k in kept]
        self.counts = [self.counts[k] for k in kept]
        self.order_lines = [self.order_lines[k] for k in kept]

    def item_names(self, strict: bool) -> tuple[str, ...]:
        """The names of alternatives ``1..m``: unnamed ones (an error when strict, else their
        numbers) and duplicate names (made unique) are reported."""
        m, names = self.m, self.names
        for i in [i for i in names if i < 1 or i > m]:
            self.problems.bad(
                self.name_line[i], "", f"alternative {i} is named but there are only {m}"
            )
            del names[i]
        # the first few unnamed alternatives, in O(len(names)) (m may be large)
        first_missing = list(itertools.islice((i for i in range(1, m + 1) if i not in names), 11))
        if first_missing:
            ln = self.header_line.get("NUMBER ALTERNATIVES")
            msg = f"no name for alternative(s) {first_missing[:10]}" + (
                " ..." if len(first_missing) > 10 else ""
            )
            if strict:
                raise DataFormatError(self.source, ln, msg)
            # stacklevel 3: the caller of read_preflib
            warnings.warn(f"{self.source}: {msg}; using their numbers as names", UserWarning, 3)
            for i in range(1, m + 1):
                names.setdefault(i, str(i))
        seen_names: dict[str, int] = {}
        for i in range(1, m + 1):
            nm = names[i]
            if nm in seen_names:
                self.problems.bad(
                    self.name_line.get(i, 0),
                    nm,
                    f"alternatives {seen_names[nm]} and {i} have the same name {nm!r}",
                )
                names[i] = f"{nm} ({i})"
            seen_names[names[i]] = i
        return tuple(names[i] for i in range(1, m + 1))


def _infer_data_type(R: Rankings) -> str:
    ties = bool(R.has_ties.any())
    complete = bool((R.lengths == R.n_items).all())
    return ("toc" if complete else "toi") if ties else ("soc" if complete else "soi")


def _counts(R: Rankings) -> np.ndarray:
    w = R.weights
    c = np.round(w)
    bad = (c != w) | (c < 1)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"row {i}: weight {w[i]} is not a positive integer; PrefLib stores counts of voters"
        )
    return c.astype(np.int64)


def _format_order(row: np.ndarray) -> str:
    present = np.flatnonzero(row >= 0)
    order = present[np.argsort(row[present], kind="stable")]
    pos = row[order]
    parts: list[str] = []
    k = 0
    while k < len(order):
        e = k + 1
        while e < len(order) and pos[e] == pos[k]:
            e += 1
        if e - k == 1:
            parts.append(str(order[k] + 1))
        else:
            parts.append("{" + ",".join(str(a + 1) for a in order[k:e]) + "}")
        k = e
    return ",".join(parts)


def write_preflib(
    R: Rankings,
    path_or_file: PathOrFile,
    *,
    data_type: str | None = None,
    title: str | None = None,
    metadata: PreflibMetadata | Mapping[str, str] | None = None,
    encoding: str = "utf-8",
) -> None:
    """Write rankings as a PrefLib file, one ``count: order`` line per row.

    Parameters
    ----------
    R : Rankings
        Rows are written in order; ``weights`` are the counts and must be positive
        integers (an unweighted ``R`` is written with count 1 per row).
    path_or_file : str, os.PathLike or file object
        Destination; a path ending in ``.gz`` is gzip-compressed (deterministically).
    data_type : {"soc", "soi", "toc", "toi"}, optional
        Default: the most restrictive type that fits the data, as the format requires.
        A type that does not fit (ties in ``soi``, an incomplete row in ``soc``) raises.
    title : str, optional
        The ``# TITLE`` field.
    metadata : PreflibMetadata or mapping of str to str, optional
        Further ``# KEY: value`` fields, in order (e.g. ``read_preflib(...,
        return_metadata=True)[1]``). ``DATA TYPE``, ``NUMBER ALTERNATIVES``, ``NUMBER
        VOTERS`` and ``NUMBER UNIQUE ORDERS`` are always computed from ``R``; ``FILE NAME``
        is the name of the path written to.
    encoding : str, default="utf-8"

    Raises
    ------
    ValueError
        On a non-integer or non-positive weight, an empty row, a data type that does not fit.

    Notes
    -----
    Round trip: ``read_preflib(path, kind=R.kind)`` gives back ``R`` exactly (ranks, kind,
    weights, items) for weighted ``R``; an unweighted ``R`` comes back with unit weights.
    When ``R.items`` is None no ``ALTERNATIVE NAME`` lines are written, so that the names
    stay None on reading. Written with the fields of the file it was read from, a PrefLib
    file is reproduced byte for byte (tie groups list their alternatives in increasing
    order). PrefLib cannot store ``kind``: pass it to :func:`read_preflib`.

    Complexity: O(n m log m) time, O(n m) memory for n rows over m items.

    Examples
    --------
    >>> import io
    >>> from rankclust import Rankings
    >>> R = Rankings.from_orderings([[1, 0], [2, (0, 1)]], n_items=3, weights=[4, 1],
    ...                             items=["a", "b", "c"])
    >>> buf = io.StringIO()
    >>> write_preflib(R, buf, title="demo")
    >>> print(buf.getvalue())  # doctest: +NORMALIZE_WHITESPACE
    # FILE NAME:
    # TITLE: demo
    # DESCRIPTION:
    # DATA TYPE: toi
    # MODIFICATION TYPE:
    # RELATES TO:
    # RELATED FILES:
    # PUBLICATION DATE:
    # MODIFICATION DATE:
    # NUMBER ALTERNATIVES: 3
    # NUMBER VOTERS: 5
    # NUMBER UNIQUE ORDERS: 2
    # ALTERNATIVE NAME 1: a
    # ALTERNATIVE NAME 2: b
    # ALTERNATIVE NAME 3: c
    4: 2,1
    1: 3,{1,2}
    """
    if not isinstance(R, Rankings):
        raise TypeError(f"R must be a Rankings, got {type(R).__name__}")
    counts = _counts(R)
    empty = R.lengths == 0
    if empty.any():
        raise ValueError(
            f"row {int(np.flatnonzero(empty)[0])} ranks no item; PrefLib cannot store it"
        )
    fitting = _infer_data_type(R)
    if data_type is None:
        data_type = fitting
    elif data_type not in PREFLIB_DATA_TYPES:
        raise ValueError(f"data_type must be one of {PREFLIB_DATA_TYPES}, got {data_type!r}")
    else:
        ties = R.has_ties
        incomplete = R.lengths < R.n_items
        if data_type in ("soc", "soi") and ties.any():
            i = int(np.flatnonzero(ties)[0])
            raise ValueError(f"row {i} has ties, which a {data_type} file cannot hold")
        if data_type in ("soc", "toc") and incomplete.any():
            i = int(np.flatnonzero(incomplete)[0])
            raise ValueError(f"row {i} is incomplete, which a {data_type} file cannot hold")

    fields: dict[str, str] = dict.fromkeys(_DEFAULT_HEADER, "")
    if metadata is not None:
        given = metadata.header if isinstance(metadata, PreflibMetadata) else dict(metadata)
        given = {k: v for k, v in given.items() if not _NAME_KEY.match(k)}
        if given:
            fields = {**given, **{k: "" for k in _DEFAULT_HEADER if k not in given}}
    if isinstance(path_or_file, str | os.PathLike):
        fields["FILE NAME"] = Path(path_or_file).name.removesuffix(".gz")
    if title is not None:
        fields["TITLE"] = title
    fields["DATA TYPE"] = data_type
    fields["NUMBER ALTERNATIVES"] = str(R.n_items)
    fields["NUMBER VOTERS"] = str(int(counts.sum()))
    fields["NUMBER UNIQUE ORDERS"] = str(R.n_rankings)

    for key, value in [
        *fields.items(),
        *((f"item {j}", nm) for j, nm in enumerate(R.items or ())),
    ]:
        if "\n" in value or "\r" in value or "\n" in key or "\r" in key or ":" in key:
            raise ValueError(f"metadata field or name {key!r}: no line breaks (or ':' in keys)")
    lines = [f"# {k}: {v}" for k, v in fields.items()]
    if R.items is not None:
        lines += [f"# ALTERNATIVE NAME {j + 1}: {nm}" for j, nm in enumerate(R.items)]
    ranks = R.ranks
    lines += [f"{c}: {_format_order(ranks[i])}" for i, c in enumerate(counts.tolist())]
    with _TextSink(path_or_file, encoding) as out:
        out.write("\n".join(lines) + "\n")

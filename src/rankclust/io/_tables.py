"""Delimited tables of rankings: orderings or rank vectors, told apart or refused.

The rules (``docs/data_formats.md``): the field separator is the one of ``,`` ``;`` TAB that
appears (spaces when none does); the first non-blank line is a header when it is not numbers
over numeric rows, or when it names positions (``Rank_1``, ``3rd``); a first column of row
names (an empty or ``id``-like header field, or labels before numbers on every row) is set
aside; rows of names are orderings; numeric rows are orderings under a header of positions,
rank vectors under a header of item names, and otherwise whatever every row can be -- both
or neither is refused.

Every table is rewritten as comma-separated 1-based numbers *at its original line numbers*
and read by :func:`~rankclust.io.read_orderings_csv` or :func:`~rankclust.io.read_ranks_csv`,
so every error names the file's own line. Private module.
"""

from __future__ import annotations

import csv
import itertools
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from rankclust.io._common import DataFormatError, _Budget, _Problems, _split_lines
from rankclust.io._text import NamedText
from rankclust.rankings import Rankings

#: The values of ``format=`` (and of the command line's ``--format``) besides ``"auto"``.
FORMATS = ("preflib", "orderings", "ranks", "label-ranking", "kamishima")

_CHOICES = (
    "pass format= in Python or --format on the command line (one of: " + ", ".join(FORMATS) + ")"
)
_MISSING = frozenset({"", "na", "nan"})
# Header fields that name positions, not items: "Rank_1", "pos 2", "3rd", "first", ...
_POSITION_HEADER = re.compile(
    r"^((rank|pos|position|place|choice|pref|preference)?[ _.-]*\d+(st|nd|rd|th)?"
    r"|first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|last)$",
    re.I,
)
# First header fields that name a column of row labels, not an item.
_INDEX_NAMES = frozenset(
    {"", "id", "index", "row", "rownames", "row.names", "respondent", "voter", "assessor",
     "judge", "user", "subject"}
)  # fmt: skip
_MISREAD_MIN_ROWS = 4
_MISREAD_SHARE = 0.9  # of rows holding one item at most
_MISREAD_ITEMS_PER_ROW = 0.5


@dataclass
class _Context:
    source: str
    budget: _Budget
    strict: bool
    kind: str | None
    items: list[str] | None
    auto: bool
    notes: list[str] = field(default_factory=list)
    # file lines that may hold a ranking, in order (those not refused become the rows)
    row_lines: list[int] = field(default_factory=list)
    problems: _Problems = field(init=False)

    def __post_init__(self) -> None:
        self.problems = _Problems(self.source, self.strict)

    def refuse(self, line: int | None, problem: str) -> DataFormatError:
        return DataFormatError(self.source, line, problem)


# --------------------------------------------------------------------------------------------
# delimited tables: orderings, rank vectors (and the label-ranking CSV found by content)
# --------------------------------------------------------------------------------------------
def _is_number(tok: str) -> bool:
    if not tok.isascii():
        return False
    try:
        v = float(tok)
    except ValueError:
        return False
    return v == v and abs(v) != float("inf")


def _is_value(tok: str) -> bool:
    """A number or a missing marker."""
    return tok.lower() in _MISSING or _is_number(tok)


def _pick_delimiter(lines: list[tuple[int, str]], ctx: _Context) -> str | None:
    """``","``, ``";"`` or TAB, None for runs of spaces, ``""`` for one field per line."""
    present = {d: sum(1 for _, ln in lines if d in ln) for d in (",", ";", "\t")}
    present = {d: c for d, c in present.items() if c}
    if not present:
        if any(len(ln.split()) > 1 for _, ln in lines):
            ctx.notes.append("fields separated by spaces")
            return None
        return ""
    ranked = sorted(present.items(), key=lambda dc: -dc[1])
    if len(ranked) > 1 and ranked[1][1] * 2 > ranked[0][1]:
        shown = " and ".join(repr(d) for d, _ in ranked[:2])
        raise ctx.refuse(
            None,
            f"cannot tell the field separator: {shown} both appear on many lines; "
            "save the file with one separator",
        )
    d = ranked[0][0]
    if d != ",":
        ctx.notes.append(f"fields separated by {'TAB' if d == chr(9) else repr(d)}")
    return d


def _split(line: str, delimiter: str | None) -> list[str]:
    if delimiter is None:
        return line.split()
    if delimiter == "":
        return [line.strip()]
    if '"' in line:
        fields = next(csv.reader([line], delimiter=delimiter, skipinitialspace=True))
    else:
        fields = line.split(delimiter)
    return [f.strip() for f in fields]


def read_table(text: str, ctx: _Context, forced: str | None) -> tuple[Rankings | None, int, str]:
    """Read a delimited table; ``forced``: "orderings", "ranks" or None (detect).

    Returns the rankings, the number of data rows and the layout; ``(None, 0,
    "label-ranking")`` when the table is a label-ranking CSV (read by the caller).
    """
    lines = []
    for k, raw in enumerate(_split_lines(text), start=1):
        if raw.strip():
            lines.append((k, raw.rstrip("\r")))
            ctx.budget.rows(len(lines) - 1, k)
    if not lines:
        raise ctx.refuse(None, "the file is empty")
    n_lines = k
    delimiter = _pick_delimiter(lines, ctx)
    rows = [(k, _split(ln, delimiter)) for k, ln in lines]
    ctx.budget.items(max(len(f) for _, f in rows), None, "has columns for")
    if forced is None and _looks_like_label_ranking(rows, ctx):
        ctx.notes.append("first line n,p,k: a label-ranking CSV")
        return None, 0, "label-ranking"
    header, header_kind, _, data = _split_header(lines, rows, delimiter, ctx)
    if not data:
        raise ctx.refuse(None, "no data rows after the header")
    ctx.row_lines = [k for k, _ in data]  # every data row, refused ones included
    has_number = any(_is_number(t) for _, f in data for t in f)
    has_name = any(not _is_value(t) for _, f in data for t in f)
    if has_name and (forced == "orderings" or not has_number):
        layout = "orderings"
        R = _named_orderings(data, n_lines, ctx)
    else:
        if has_name:  # numbers with a stray word: malformed, or names that look like numbers
            hint = (
                ""
                if forced
                else (
                    "; if the fields are item names, pass format='orderings' (--format orderings)"
                )
            )
            kept = []
            for k, f in data:
                bad = next(((j, t) for j, t in enumerate(f) if not _is_value(t)), None)
                if bad is None:
                    kept.append((k, f))
                else:
                    ctx.problems.bad(
                        k, " ".join(f), f"field {bad[0] + 1} ({bad[1]!r}) is not a number{hint}"
                    )
            data = kept
        values = _integers(data, ctx, check_items=forced != "ranks")
        if not values:
            first = ctx.problems.skipped[0]
            raise ctx.refuse(
                None,
                f"no usable rows: all {len(data)} refused (first: line {first.line}: "
                f"{first.reason})",
            )
        layout = forced or _choose_layout(values, header, header_kind, ctx)
        if layout == "orderings":
            named_by = header if header_kind == "names" else None
            R = _numeric_orderings(values, n_lines, ctx, named_by)
        else:
            R = _ranks(values, header, n_lines, ctx)
    if forced is None and layout == "orderings":
        _refuse_likely_misread(R, len(data), ctx)
    return R, len(ctx.row_lines), layout


def _looks_like_label_ranking(rows: list[tuple[int, list[str]]], ctx: _Context) -> bool:
    """A first line ``n,p,k`` and ``p + k`` fields on every other line (k >= 2).

    When ``p + k`` is 3 the first line has the width of the others, so the file may also be a
    table of orderings or rank vectors: then it is a label-ranking CSV only when a feature is
    not a whole number and the declared row count matches; a file that fits both is refused.
    """
    first = rows[0][1]
    if len(first) != 3 or not all(t.isdigit() and t.isascii() and len(t) <= 18 for t in first):
        return False
    n, p, k = (int(t) for t in first)
    rest = rows[1:]
    if k < 2 or not rest or any(len(f) != p + k for _, f in rest):
        return False
    if p + k != 3:
        return True
    whole = all(_is_value(t) and (t.lower() in _MISSING or float(t).is_integer()) for _, f in rest
                for t in f)  # fmt: skip
    if not whole:
        return len(rest) == n
    if len(rest) == n and _rank_rows_ok([f[p:] for _, f in rest]):
        raise ctx.refuse(
            rows[0][0],
            f"cannot tell the layout: '{','.join(first)}' may be a label-ranking header "
            f"({n} rows, {p} feature(s), {k} labels) or the first row of a table of orderings or "
            f"rank vectors; {_CHOICES}",
        )
    return False


def _rank_rows_ok(rows: list[list[str]]) -> bool:
    for f in rows:
        vals = sorted(int(float(t)) for t in f if t.lower() not in _MISSING and float(t) != 0)
        if not _plausible_ranks(vals):
            return False
    return True


def _plausible_ranks(sorted_vals: list[int]) -> bool:
    """Ranks 1..d without gaps (dense, ties allowed) or competition ranks (1,2,2,4)."""
    if not sorted_vals:
        return True
    if sorted_vals[0] < 1:
        return False
    dense = all(b - a in (0, 1) for a, b in itertools.pairwise(sorted_vals))
    if dense and sorted_vals[0] == 1:
        return True
    for i, v in enumerate(sorted_vals):
        if (i == 0 or v != sorted_vals[i - 1]) and v != i + 1:
            return False
    return True


def _split_header(
    lines: list[tuple[int, str]],
    rows: list[tuple[int, list[str]]],
    delimiter: str | None,
    ctx: _Context,
) -> tuple[list[str] | None, str | None, bool, list[tuple[int, list[str]]]]:
    """The header (or None), its kind ("positions"/"names"), a row-name column, the data."""
    k0, first = rows[0]
    raw_first = lines[0][1].split(delimiter) if delimiter else lines[0][1].split()
    quoted = any(t.strip().startswith('"') for t in raw_first)
    first_values = not quoted and all(_is_value(t) for t in first)
    rest = rows[1:]

    def numeric(f: list[str], skip: int) -> bool:
        return all(_is_value(t) for t in f[skip:])

    def labelled(f: list[str]) -> bool:  # a row label, then numbers
        return len(f) >= 2 and not _is_value(f[0]) and numeric(f, 1)

    header: list[str] | None = None
    kind: str | None = None
    index = False
    if first_values and rest and _numeric_names(first, rest):
        header, kind = first, "names"
    elif not first_values:
        named = [t for t in first if t]
        lead = first[0] == "" and len(first) > 1
        if named and all(_POSITION_HEADER.match(t) for t in (first[1:] if lead else first)):
            header, kind, index = first, "positions", lead
        elif rest and _mostly(numeric(f, 0) for _, f in rest):
            header, kind = first, "names"
            index = first[0].lower() in _INDEX_NAMES and len(first) > 1
        elif rest and _mostly(labelled(f) for _, f in rest):
            header, kind, index = first, "names", True
        elif all(labelled(f) for _, f in rows):
            index = True
    data = rest if header is not None else rows
    if header is not None:
        ctx.notes.append(
            f"line {k0} is a header of {'positions' if kind == 'positions' else 'item names'}"
        )
    if index and data:
        width = max(len(f) for _, f in data)
        if header is not None and len(header) == width:
            header = header[1:]
        data = [(k, f[1:]) for k, f in data]
        ctx.notes.append("column 1 holds row names")
    if header is not None and kind == "names":
        widths = {len(f) for _, f in data}
        if widths != {len(header)}:
            k, f = next((k, f) for k, f in data if len(f) != len(header))
            raise ctx.refuse(
                k, f"{len(f)} fields, but the header on line {k0} names {len(header)} items"
            )
    return header, kind, index, data


def _mostly(flags: Iterable[bool]) -> bool:
    """At least half true: a header over numeric rows, some of them malformed (refused later)."""
    flags = list(flags)
    return 2 * sum(flags) >= len(flags) > 0


def _numeric_names(first: list[str], rest: list[tuple[int, list[str]]]) -> bool:
    """A first line of integers over rows of decimals (``1.0``): numbers naming columns.

    pandas writes column labels ``0,1,2`` over float data ``1.0,2.0``; a row of data is not
    written in another style than every row below it.
    """
    if any("." in t or t.lower() in _MISSING for t in first):
        return False
    cells = [t for _, f in rest for t in f if t.lower() not in _MISSING]
    return bool(cells) and all("." in t for t in cells)


def _integers(
    data: list[tuple[int, list[str]]], ctx: _Context, *, check_items: bool
) -> list[tuple[int, list[int]]]:
    """Whole non-negative numbers (missing -> 0); others refused or skipped, naming the line."""
    max_items = ctx.budget.limits.max_items
    out = []
    for k, f in data:
        vals: list[int] = []
        for j, t in enumerate(f):
            if t.lower() in _MISSING:
                vals.append(0)
                continue
            v = float(t)
            if v < 0 or not v.is_integer():
                ctx.problems.bad(
                    k, " ".join(f), f"field {j + 1} ({t!r}) is not a non-negative whole number"
                )
                break
            if check_items and v > max_items:
                raise ctx.budget.refuse(k, f"value {t} would mean {int(v)} items", "max_items")
            vals.append(int(v))
        else:
            out.append((k, vals))
    return out


def _orderings_problem(vals: list[int]) -> str | None:
    seen: set[int] = set()
    ended = False
    for v in vals:
        if v == 0:
            ended = True
            continue
        if ended:
            return "a filled position follows an unfilled one"
        if v in seen:
            return f"item {v} appears more than once"
        seen.add(v)
    return None


def _ranks_problem(vals: list[int], width: int) -> str | None:
    if len(vals) != width:
        return f"{len(vals)} fields where other rows have {width}"
    nz = sorted(v for v in vals if v)
    if not _plausible_ranks(nz):
        return f"ranks {','.join(map(str, vals))} are not 1, 2, ... (a rank vector)"
    return None


def _choose_layout(
    values: list[tuple[int, list[int]]],
    header: list[str] | None,
    header_kind: str | None,
    ctx: _Context,
) -> str:
    """Orderings or rank vectors: by the header, else by what every row can be; or refuse."""
    if not values:
        raise ctx.refuse(None, "no rows could be read")
    width = len(header) if header is not None else max(len(v) for _, v in values)
    o_bad = next(((k, p) for k, v in values if (p := _orderings_problem(v))), None)
    r_bad = next(((k, p) for k, v in values if (p := _ranks_problem(v, width))), None)
    if header_kind == "positions":
        return "orderings"
    if header_kind == "names":
        if r_bad is not None:
            raise ctx.refuse(
                r_bad[0],
                f"{r_bad[1]}, but the header names items, so the rows should be rank vectors; "
                "if they list items best first, pass format='orderings' (--format orderings)",
            )
        return "ranks"
    if o_bad is None and r_bad is None:
        raise ctx.refuse(
            None,
            "cannot tell the layout: every row reads both as an ordering (items best first) "
            "and as a rank vector (column j = rank of item j); add a header (Rank_1,... for "
            f"orderings, item names for rank vectors) or {_CHOICES}",
        )
    if o_bad is not None and r_bad is not None:
        raise ctx.refuse(
            o_bad[0],
            f"not a table of orderings ({o_bad[1]}) nor of rank vectors (line {r_bad[0]}: "
            f"{r_bad[1]}); {_CHOICES}",
        )
    layout = "orderings" if o_bad is None else "ranks"
    k, why = r_bad if layout == "orderings" else o_bad
    ctx.notes.append(f"{layout} (line {k}: {why} otherwise)")
    return layout


def _canonical(rows: list[tuple[int, list[int]]], n_lines: int, width: int) -> str:
    """Comma-separated rows at their original line numbers (blank elsewhere), padded."""
    out = [""] * n_lines
    for k, vals in rows:
        out[k - 1] = ",".join(map(str, vals + [0] * (width - len(vals))))
    return "\n".join(out) + "\n"


def _numeric_orderings(
    values: list[tuple[int, list[int]]],
    n_lines: int,
    ctx: _Context,
    header: list[str] | None = None,
) -> Rankings:
    """Rows of 1-based item numbers; ``header``: item names (``format="orderings"`` given)."""
    from rankclust.io.orderings_csv import read_orderings_csv

    width = max(len(v) for _, v in values)
    largest = max((max(v, default=0) for _, v in values), default=0)
    names = ctx.items or header
    n_items = len(names) if names is not None else largest
    if names is None:
        names = [str(j + 1) for j in range(n_items)]
        ctx.notes.append(f"items numbered 1..{n_items} (the largest number in the file)")
    elif ctx.items is None:
        ctx.notes.append("items named by the header, item 1 first")
    return read_orderings_csv(
        NamedText(_canonical(values, n_lines, width), ctx.source),
        kind=ctx.kind or "top",
        n_items=n_items,
        items=names,
        header=False,
        strict=ctx.strict,
        limits=ctx.budget.limits,
    )


def _ranks(
    values: list[tuple[int, list[int]]], header: list[str] | None, n_lines: int, ctx: _Context
) -> Rankings:
    from rankclust.io.orderings_csv import read_ranks_csv

    width = len(header) if header is not None else max(len(v) for _, v in values)
    good = []
    for k, v in values:
        if len(v) != width:
            ctx.problems.bad(k, ",".join(map(str, v)), f"{len(v)} fields, expected {width}")
        else:
            good.append((k, v))
    names = ctx.items or header or [str(j + 1) for j in range(width)]
    if len(names) != width:
        raise ctx.refuse(None, f"{len(names)} item names given for {width} columns of ranks")
    return read_ranks_csv(
        NamedText(_canonical(good, n_lines, width), ctx.source),
        kind=ctx.kind or "subset",
        items=names,
        header=False,
        strict=ctx.strict,
        limits=ctx.budget.limits,
    )


def _named_orderings(data: list[tuple[int, list[str]]], n_lines: int, ctx: _Context) -> Rankings:
    """Rows of item names, best first; empty fields are unfilled positions (trailing only)."""
    known = ctx.items
    index = {name: j for j, name in enumerate(known)} if known is not None else {}
    names: list[str] = list(known) if known is not None else []
    rows: list[tuple[int, list[int]]] = []
    for k, fields in data:
        order: list[int] = []
        seen: set[int] = set()
        problem = None
        ended = False
        for t in fields:
            if t.lower() in _MISSING:
                ended = True
                continue
            if ended:
                problem = "a filled position follows an empty one"
                break
            j = index.get(t)
            if j is None:
                if known is not None:
                    problem = f"unknown item {t!r}"
                    break
                j = index[t] = len(names)
                names.append(t)
                ctx.budget.items(len(names), k, "names")
            if j in seen:
                problem = f"item {t!r} appears more than once"
                break
            seen.add(j)
            order.append(j + 1)
        if problem is not None:
            ctx.problems.bad(k, ",".join(fields), problem)
            continue
        rows.append((k, order))
    if known is None:
        ctx.notes.append("items named in order of first appearance")
    from rankclust.io.orderings_csv import read_orderings_csv

    width = max((len(v) for _, v in rows), default=0)
    ctx.budget.cells(len(rows), len(names), None, "names")
    return read_orderings_csv(
        NamedText(_canonical(rows, n_lines, max(width, 1)), ctx.source),
        kind=ctx.kind or "top",
        n_items=len(names),
        items=names,
        header=False,
        strict=ctx.strict,
        limits=ctx.budget.limits,
    )


def _refuse_likely_misread(R: Rankings, n_rows: int, ctx: _Context) -> None:
    """Nearly every row one item and about as many items as rows: not what the user meant."""
    if R.n_rankings < _MISREAD_MIN_ROWS:
        return
    one = float(np.mean(R.lengths <= 1))
    if one >= _MISREAD_SHARE and R.n_items >= _MISREAD_ITEMS_PER_ROW * R.n_rankings:
        raise ctx.refuse(
            None,
            f"likely misread: {one:.0%} of the {R.n_rankings} rows hold a single item and there "
            f"are {R.n_items} items (each whole line taken as one item name?); if this is "
            f"really a file of one-item rankings, {_CHOICES}",
        )

"""One reader for every rankings file: :func:`read_rankings` detects the format, or refuses.

Detection (``format="auto"``), in this order; the rules are spelled out in
``docs/data_formats.md``:

1. **Text.** A byte-order mark says UTF-8/16/32; ``encoding=`` declares any other encoding;
   otherwise the bytes must be valid UTF-8 (see :mod:`rankclust.io._text`). gzip data are
   inflated first (within ``max_input_bytes``).
2. **Suffix** (``.gz`` ignored): ``.soc/.soi/.toc/.toi`` are PrefLib, ``.order`` is Kamishima's
   ``.order`` (the SUSHI data); ``.udata``/``.idata`` (SUSHI features) are refused.
3. **Content**: ``# NUMBER ALTERNATIVES``/``count: order`` lines are PrefLib; a first line
   ``<n_items> 1`` followed by ``0 <length> <item> ...`` lines is a Kamishima ``.order`` file;
   a first line ``n,p,k`` whose every following line has ``p + k`` fields is a label-ranking
   CSV; anything else is a delimited table (``,`` ``;`` TAB or spaces) of orderings or of rank
   vectors, told apart by a header and by what the rows can be (:func:`_choose_layout`).

Whatever cannot be told for certain is refused with a :class:`DataFormatError` listing the
``format`` choices; so is a "table" in which nearly every row holds one item and there are
about as many items as rows (one whole line read as one item name: a likely misread).
"""

from __future__ import annotations

import csv
import itertools
import re
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from rankclust._limits import InputLimits
from rankclust.io._common import (
    DataFormatError,
    MalformedLinesWarning,
    PathOrFile,
    SkippedLine,
    _Budget,
    _Problems,
    _source_name,
    _split_lines,
)
from rankclust.io._text import NamedText, decode
from rankclust.rankings import KINDS, Rankings

__all__ = ["FORMATS", "ReadReport", "read_item_names", "read_label_rankings", "read_rankings"]

#: The values of ``format=`` (and of the command line's ``--format``) besides ``"auto"``.
FORMATS = ("preflib", "orderings", "ranks", "label-ranking", "kamishima")

_CHOICES = (
    "pass format= in Python or --format on the command line (one of: " + ", ".join(FORMATS) + ")"
)
_PREFLIB_SUFFIXES = (".soc", ".soi", ".toc", ".toi")
_FEATURE_SUFFIXES = {".udata": "read_sushi_udata", ".idata": "read_sushi_idata"}
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
_PREFLIB_DATA = re.compile(r"^\s*\d+\s*:\s*[\d{]")
_PREFLIB_META = re.compile(r"^#\s*(NUMBER ALTERNATIVES|DATA TYPE|ALTERNATIVE NAME)", re.I)
_MISREAD_MIN_ROWS = 4
_MISREAD_SHARE = 0.9  # of rows holding one item at most
_MISREAD_ITEMS_PER_ROW = 0.5


@dataclass(frozen=True)
class ReadReport:
    """What :func:`read_rankings` read (``return_report=True``); :meth:`summary` says it.

    Attributes
    ----------
    source : str
        The file.
    format : str
        One of :data:`FORMATS`.
    detected_by : str
        ``"format="`` (given), ``"suffix .soi"`` or ``"content"``.
    encoding : str
        The text encoding used (``"UTF-8"``, ``"UTF-16 (BOM)"``, a declared one).
    n_rows_read : int
        Data rows in the file (ballot or order lines, table rows; not headers, comments or
        blank lines).
    n_rows_used : int
        Rows that became rankings.
    refused : tuple of SkippedLine
        Rows read but not used (``strict=False``), each with its line and reason.
    n_rankings, n_items : int
        Shape of the result.
    n_ballots : float or None
        Sum of the weights when the file carries counts (PrefLib), else None.
    notes : tuple of str
        How the layout was read: delimiter, header, row-name column, item numbering.
    """

    source: str
    format: str
    detected_by: str
    encoding: str
    n_rows_read: int
    n_rows_used: int
    n_rankings: int
    n_items: int
    refused: tuple[SkippedLine, ...] = ()
    n_ballots: float | None = None
    notes: tuple[str, ...] = field(default=())

    def summary(self) -> str:
        """One line: format, rows read / used / refused (and why), rankings and items."""
        how = f"{self.format} ({self.detected_by}, {self.encoding})"
        counts = (
            f"{self.n_rows_read} rows read, {self.n_rows_used} used, {len(self.refused)} refused"
        )
        if self.refused:
            shown = "; ".join(f"line {s.line}: {s.reason}" for s in self.refused[:3])
            more = f"; and {len(self.refused) - 3} more" if len(self.refused) > 3 else ""
            counts += f" ({shown}{more})"
        ballots = f", {self.n_ballots:g} ballots" if self.n_ballots is not None else ""
        notes = f"; {'; '.join(self.notes)}" if self.notes else ""
        return (
            f"{self.source}: {how}: {counts}; {self.n_rankings} rankings over "
            f"{self.n_items} items{ballots}{notes}"
        )


# --------------------------------------------------------------------------------------------
# public entry points
# --------------------------------------------------------------------------------------------
def read_rankings(
    path_or_file: PathOrFile,
    format: str = "auto",
    *,
    encoding: str | None = None,
    items: Sequence[str] | None = None,
    kind: str | None = None,
    strict: bool = True,
    limits: InputLimits | Mapping[str, int] | None = None,
    return_report: bool = False,
) -> Rankings | tuple[Rankings, ReadReport]:
    """Read rankings from any supported file, detecting its format or refusing.

    Parameters
    ----------
    path_or_file : str, os.PathLike or file object
        Plain or gzip-compressed.
    format : {"auto", "preflib", "orderings", "ranks", "label-ranking", "kamishima"}
        ``"auto"`` detects it (see the module docstring and ``docs/data_formats.md``) and
        refuses what it cannot tell for certain. ``"orderings"``: one ranking per row, items
        best first (numbers from 1, or names); ``"ranks"``: column ``j`` holds the rank of
        item ``j`` (1 = best, 0/empty = missing); ``"label-ranking"``: the ``n,p,k`` CSV (its
        label rankings; :func:`read_label_rankings` also returns the features);
        ``"kamishima"``: Kamishima's ``.order`` (SUSHI).
    encoding : str, optional
        The text encoding. Default: the byte-order mark's, else UTF-8; bytes that are not
        valid UTF-8 are refused (never guessed).
    items : sequence of str, optional
        Item names in item order (item 1 first), replacing the file's own names. Named
        orderings must then use only these names.
    kind : {"top", "subset"}, optional
        Meaning of absent items. Default by format: PrefLib and orderings ``"top"``, rank
        vectors, label rankings and Kamishima ``"subset"``.
    strict : bool, default=True
        Refuse the first malformed line (naming it); if False, skip malformed lines, report
        them in one :class:`~rankclust.io.MalformedLinesWarning` and in the report.
    limits : InputLimits or mapping of str to int, optional
        Override the input limits; see :class:`~rankclust.io.InputLimits`.
    return_report : bool, default=False
        Also return a :class:`ReadReport`.

    Returns
    -------
    R : Rankings
        With item names: the file's, else ``items``, else the file's numbering
        (``"1"``... for 1-based items, ``"0"``... for Kamishima's IDs, ``"label 1"``... for
        label-ranking files).
    report : ReadReport
        Only with ``return_report=True``.

    Raises
    ------
    DataFormatError
        (A ``ValueError``, one line naming the file and, where there is one, the line.) A
        malformed line; a layout that cannot be told for certain (listing the ``format``
        choices); a likely misread; bytes that are not valid in the encoding; a file beyond
        one of the ``limits``.

    Notes
    -----
    Complexity: O(L + n m) time and memory for a file of L characters, n rows and m items.

    Examples
    --------
    >>> import io
    >>> R = read_rankings(io.StringIO("Rank_1,Rank_2,Rank_3\\n3,1,0\\n2,1,3\\n"))
    >>> R.items, R.ranks.tolist()
    (('1', '2', '3'), [[1, -1, 0], [1, 0, 2]])
    >>> read_rankings(io.StringIO("a;b;c\\nc;a\\n")).to_orderings()
    [[0, 1, 2], [2, 0]]
    """
    if format != "auto" and format not in FORMATS:
        raise ValueError(f"format must be 'auto' or one of {FORMATS}, got {format!r}")
    if kind is not None and kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    items = _check_items(items)
    source = _source_name(path_or_file)
    budget = _Budget(source, limits)
    fmt, detected_by = _format_from_suffix(source) if format == "auto" else (format, "format=")
    text, used = decode(path_or_file, encoding, budget.limits)
    if fmt is None:
        fmt = _format_from_content(text)
        detected_by = "content"
    ctx = _Context(source, budget, strict, kind, items, auto=format == "auto")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", MalformedLinesWarning)
        if fmt == "preflib":
            R, n_read = _preflib(text, ctx)
        elif fmt == "kamishima":
            R, n_read = _kamishima(text, ctx)
        elif fmt == "label-ranking":
            R, n_read = _label_ranking(text, ctx)
        else:
            R, n_read, fmt = _table(text, ctx, None if fmt == "table" else fmt)
    skipped = list(ctx.problems.skipped)
    for w in caught:
        if isinstance(w.message, MalformedLinesWarning):
            skipped.extend(w.message.skipped)
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    skipped.sort(key=lambda s: s.line)
    if skipped:
        warnings.warn(MalformedLinesWarning(source, skipped), stacklevel=2)
    if R.n_rankings == 0:
        raise DataFormatError(source, None, "no rankings in the file")
    report = ReadReport(
        source=source,
        format=fmt,
        detected_by=detected_by,
        encoding=used,
        n_rows_read=n_read,
        n_rows_used=R.n_rankings,
        n_rankings=R.n_rankings,
        n_items=R.n_items,
        refused=tuple(skipped),
        n_ballots=float(R.weights.sum()) if R.is_weighted else None,
        notes=tuple(ctx.notes),
    )
    return (R, report) if return_report else R


def read_label_rankings(
    path_or_file: PathOrFile,
    *,
    encoding: str | None = None,
    items: Sequence[str] | None = None,
    kind: str = "subset",
    finite_features: bool = False,
    strict: bool = True,
    limits: InputLimits | Mapping[str, int] | None = None,
    return_report: bool = False,
) -> tuple[np.ndarray, Rankings] | tuple[np.ndarray, Rankings, ReadReport]:
    """Features and label rankings of a label-ranking CSV, decoded as :func:`read_rankings` does.

    Parameters
    ----------
    path_or_file : str, os.PathLike or file object
    encoding : str, optional
        As in :func:`read_rankings` (byte-order mark, else UTF-8; never guessed).
    items : sequence of str, optional
        Label names (default ``"label 1"``, ...).
    kind : {"subset", "top"}, default="subset"
    finite_features, strict, limits
        As in :func:`~rankclust.io.read_label_ranking_csv`.
    return_report : bool, default=False
        Also return a :class:`ReadReport`.

    Returns
    -------
    X : ndarray of float64, shape (n_samples, n_features)
    Y : Rankings, shape (n_samples, n_labels), with item names
    report : ReadReport
        Only with ``return_report=True``.

    Examples
    --------
    >>> import io
    >>> X, Y = read_label_rankings(io.StringIO("2,1,3\\n0.5,1,2,3\\n-1.0,2,0,1\\n"))
    >>> Y.items
    ('label 1', 'label 2', 'label 3')
    """
    from rankclust.io.label_ranking_csv import read_label_ranking_csv

    items = _check_items(items)
    source = _source_name(path_or_file)
    text, used = decode(path_or_file, encoding, _Budget(source, limits).limits)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", MalformedLinesWarning)
        X, Y = read_label_ranking_csv(
            NamedText(text, source),
            kind=kind,
            strict=strict,
            finite_features=finite_features,
            limits=limits,
        )
    skipped: list[SkippedLine] = []
    for w in caught:
        if isinstance(w.message, MalformedLinesWarning):
            skipped.extend(w.message.skipped)
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    if skipped:
        warnings.warn(MalformedLinesWarning(source, skipped), stacklevel=2)
    names = items or [f"label {j + 1}" for j in range(Y.n_items)]
    Y = _named(Y, names, source)
    if not return_report:
        return X, Y
    n_read = sum(1 for ln in _split_lines(text) if ln.strip()) - 1
    report = ReadReport(
        source=source,
        format="label-ranking",
        detected_by="format=",
        encoding=used,
        n_rows_read=n_read,
        n_rows_used=Y.n_rankings,
        n_rankings=Y.n_rankings,
        n_items=Y.n_items,
        refused=tuple(skipped),
        notes=(f"{X.shape[1]} features",),
    )
    return X, Y, report


def read_item_names(
    path_or_file: PathOrFile,
    *,
    encoding: str | None = None,
    limits: InputLimits | Mapping[str, int] | None = None,
) -> list[str]:
    """Item names, one per line (or comma-separated on one line); blank and ``#`` lines skipped.

    Parameters
    ----------
    path_or_file : str, os.PathLike or file object
    encoding : str, optional
        As in :func:`read_rankings`.
    limits : InputLimits or mapping of str to int, optional

    Returns
    -------
    list of str
        Distinct names.

    Examples
    --------
    >>> import io
    >>> read_item_names(io.StringIO("\\ufeffZoë\\nZoé\\n"))
    ['Zoë', 'Zoé']
    """
    source = _source_name(path_or_file)
    budget = _Budget(source, limits)
    text, _ = decode(path_or_file, encoding, budget.limits)
    lines = [
        (k, ln.strip())
        for k, ln in enumerate(_split_lines(text), start=1)
        if ln.strip() and not ln.lstrip().startswith("#")
    ]
    if len(lines) == 1 and "," in lines[0][1]:
        k = lines[0][0]
        lines = [(k, x.strip()) for x in lines[0][1].split(",")]
    if not lines:
        raise DataFormatError(source, None, "no item names")
    budget.items(len(lines), None)
    seen: dict[str, int] = {}
    for k, name in lines:
        if name in seen:
            raise DataFormatError(
                source, k, f"item name {name!r} appears more than once (also line {seen[name]})"
            )
        seen[name] = k
    return [name for _, name in lines]


# --------------------------------------------------------------------------------------------
# format detection
# --------------------------------------------------------------------------------------------
@dataclass
class _Context:
    source: str
    budget: _Budget
    strict: bool
    kind: str | None
    items: list[str] | None
    auto: bool
    notes: list[str] = field(default_factory=list)
    problems: _Problems = field(init=False)

    def __post_init__(self) -> None:
        self.problems = _Problems(self.source, self.strict)

    def refuse(self, line: int | None, problem: str) -> DataFormatError:
        return DataFormatError(self.source, line, problem)


def _check_items(items: Sequence[str] | None) -> list[str] | None:
    if items is None:
        return None
    if isinstance(items, str):
        raise TypeError("items must be a sequence of names, not one string")
    return [str(x) for x in items]


def _format_from_suffix(source: str) -> tuple[str | None, str]:
    name = source.lower().removesuffix(".gz")
    for suffix in _PREFLIB_SUFFIXES:
        if name.endswith(suffix):
            return "preflib", f"suffix {suffix}"
    if name.endswith(".order"):
        return "kamishima", "suffix .order"
    for suffix, reader in _FEATURE_SUFFIXES.items():
        if name.endswith(suffix):
            raise DataFormatError(
                source,
                None,
                f"a {suffix} file holds SUSHI features, not rankings: read it with "
                f"rankclust.io.{reader}; the rankings are in the .order files",
            )
    return None, "content"


def _format_from_content(text: str) -> str:
    """``"preflib"``, ``"kamishima"``, ``"label-ranking"`` or ``"table"`` (decided later)."""
    lines = [ln for ln in _head_lines(text, 50) if ln.strip()]
    if not lines:
        return "table"
    if any(_PREFLIB_META.match(ln) for ln in lines) or _PREFLIB_DATA.match(lines[0]):
        return "preflib"
    first = lines[0].split()
    if len(first) == 2 and first[1] == "1" and first[0].isdigit() and first[0].isascii():
        body = lines[1:]
        if body and all(_kamishima_line(ln) for ln in body):
            return "kamishima"
    return "table"


def _head_lines(text: str, n: int) -> list[str]:
    out = []
    for ln in _split_lines(text):
        out.append(ln.rstrip("\r"))
        if len(out) >= n:
            break
    return out


def _kamishima_line(line: str) -> bool:
    toks = line.split()
    return (
        len(toks) >= 2
        and all(t.isdigit() and t.isascii() and len(t) <= 18 for t in toks)
        and len(toks) == 2 + int(toks[1])
    )


# --------------------------------------------------------------------------------------------
# the formats with their own reader
# --------------------------------------------------------------------------------------------
def _named(R: Rankings, names: Sequence[str], source: str) -> Rankings:
    if len(names) != R.n_items:
        raise ValueError(f"{source}: {len(names)} item names given for {R.n_items} items")
    return Rankings(
        R.ranks, kind=R.kind, weights=R.weights if R.is_weighted else None, items=list(names)
    )


def _preflib(text: str, ctx: _Context) -> tuple[Rankings, int]:
    from rankclust.io.preflib import read_preflib

    R, meta = read_preflib(
        NamedText(text, ctx.source),
        kind=ctx.kind,
        strict=ctx.strict,
        return_metadata=True,
        limits=ctx.budget.limits,
    )
    names = ctx.items or (None if R.items else [str(j + 1) for j in range(R.n_items)])
    if names is not None:
        R = _named(R, names, ctx.source)
        if ctx.items is None:
            ctx.notes.append("alternatives named by their numbers")
    return R, meta.n_orders_read + len(meta.skipped)


def _kamishima(text: str, ctx: _Context) -> tuple[Rankings, int]:
    from rankclust.io.sushi import read_sushi_order

    names = ctx.items
    R = read_sushi_order(
        NamedText(text, ctx.source),
        kind=ctx.kind or "subset",
        strict=ctx.strict,
        limits=ctx.budget.limits,
    )
    if names is None:
        names = [str(j) for j in range(R.n_items)]
        ctx.notes.append("items named by their 0-based IDs")
    n_read = sum(1 for ln in _split_lines(text) if ln.strip()) - 1  # minus the header
    return _named(R, names, ctx.source), n_read


def _label_ranking(text: str, ctx: _Context) -> tuple[Rankings, int]:
    from rankclust.io.label_ranking_csv import read_label_ranking_csv

    _, Y = read_label_ranking_csv(
        NamedText(text, ctx.source),
        kind=ctx.kind or "subset",
        strict=ctx.strict,
        limits=ctx.budget.limits,
    )
    n_read = sum(1 for ln in _split_lines(text) if ln.strip()) - 1
    names = ctx.items or [f"label {j + 1}" for j in range(Y.n_items)]
    return _named(Y, names, ctx.source), n_read


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


def _table(text: str, ctx: _Context, forced: str | None) -> tuple[Rankings, int, str]:
    """Read a delimited table; ``forced``: "orderings", "ranks", "label-ranking" or None."""
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
        R, n = _label_ranking(text, ctx)
        return R, n, "label-ranking"
    if forced == "label-ranking":
        R, n = _label_ranking(text, ctx)
        return R, n, "label-ranking"
    header, header_kind, _, data = _split_header(lines, rows, delimiter, ctx)
    if not data:
        raise ctx.refuse(None, "no data rows after the header")
    has_number = any(_is_number(t) for _, f in data for t in f)
    has_name = any(not _is_value(t) for _, f in data for t in f)
    if has_name and (forced == "orderings" or not has_number):
        layout = "orderings"
        R = _named_orderings(data, n_lines, ctx)
    else:
        if has_name:  # numbers with a stray word: malformed, or names that look like numbers
            k, f = next((k, f) for k, f in data if not all(_is_value(t) for t in f))
            j, bad = next((j, t) for j, t in enumerate(f) if not _is_value(t))
            hint = (
                ""
                if forced
                else (
                    "; if the fields are item names, pass format='orderings' (--format orderings)"
                )
            )
            raise ctx.refuse(k, f"field {j + 1} ({bad!r}) is not a number{hint}")
        values = _integers(data, ctx, check_items=forced != "ranks")
        layout = forced or _choose_layout(values, header, header_kind, ctx)
        if layout == "orderings":
            R = _numeric_orderings(values, n_lines, ctx)
        else:
            R = _ranks(values, header, n_lines, ctx)
    if forced is None and layout == "orderings":
        _refuse_likely_misread(R, len(data), ctx)
    return R, len(data), layout


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
    if not first_values:
        named = [t for t in first if t]
        lead = first[0] == "" and len(first) > 1
        if named and all(_POSITION_HEADER.match(t) for t in (first[1:] if lead else first)):
            header, kind, index = first, "positions", lead
        elif rest and all(numeric(f, 0) for _, f in rest):
            header, kind = first, "names"
            index = first[0].lower() in _INDEX_NAMES and len(first) > 1
        elif rest and all(labelled(f) for _, f in rest):
            header, kind, index = first, "names", True
        elif all(labelled(f) for _, f in rows):
            index = True
    data = rest if header is not None else rows
    if header is not None:
        ctx.notes.append(
            f"line {k0} is a header of {'positions' if kind == 'positions' else 'item names'}"
        )
    if index:
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
    values: list[tuple[int, list[int]]], n_lines: int, ctx: _Context
) -> Rankings:
    from rankclust.io.orderings_csv import read_orderings_csv

    width = max(len(v) for _, v in values)
    largest = max((max(v, default=0) for _, v in values), default=0)
    n_items = len(ctx.items) if ctx.items is not None else largest
    names = ctx.items or [str(j + 1) for j in range(n_items)]
    if ctx.items is None:
        ctx.notes.append(f"items numbered 1..{n_items} (the largest number in the file)")
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

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
   vectors, told apart by a header and by what the rows can be (:mod:`rankclust.io._tables`).

Whatever cannot be told for certain is refused with a :class:`DataFormatError` listing the
``format`` choices; so is a "table" in which nearly every row holds one item and there are
about as many items as rows (one whole line read as one item name: a likely misread).
"""

from __future__ import annotations

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
    _source_name,
    _split_lines,
)
from rankclust.io._tables import FORMATS, _Context, read_table
from rankclust.io._text import NamedText, decode
from rankclust.rankings import KINDS, Rankings

__all__ = ["FORMATS", "ReadReport", "read_item_names", "read_label_rankings", "read_rankings"]


_PREFLIB_SUFFIXES = (".soc", ".soi", ".toc", ".toi")
_FEATURE_SUFFIXES = {".udata": "read_sushi_udata", ".idata": "read_sushi_idata"}
_PREFLIB_DATA = re.compile(r"^\s*\d+\s*:\s*[\d{]")
_PREFLIB_META = re.compile(r"^#\s*(NUMBER ALTERNATIVES|DATA TYPE|ALTERNATIVE NAME)", re.I)


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
    row_lines : tuple of int or None
        The 1-based file line of each ranking (row ``i`` of the result), None when the
        lines cannot be told (the old PrefLib format).
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
    row_lines: tuple[int, ...] | None = None

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
            R, n_read, fmt = read_table(text, ctx, None if fmt == "table" else fmt)
            if R is None:
                R, n_read = _label_ranking(text, ctx)
    skipped = _merge_skipped(caught, list(ctx.problems.skipped))
    skipped.sort(key=lambda s: s.line)
    if skipped:
        warnings.warn(MalformedLinesWarning(source, skipped), stacklevel=2)
    if R.n_rankings == 0:
        raise DataFormatError(source, None, "no rankings in the file")
    refused_lines = {sk.line for sk in skipped}
    row_lines = tuple(k for k in ctx.row_lines if k not in refused_lines)
    report = _read_report(
        source, fmt, detected_by, used, n_read, R, skipped,
        n_ballots=float(R.weights.sum()) if R.is_weighted else None,
        notes=tuple(ctx.notes),
        row_lines=row_lines if len(row_lines) == R.n_rankings else None,
    )  # fmt: skip
    return (R, report) if return_report else R


def _merge_skipped(caught: list, skipped: list[SkippedLine]) -> list[SkippedLine]:
    """``skipped`` extended by the lines of the :class:`MalformedLinesWarning` in ``caught``
    (recorded warnings); every other recorded warning is issued again as it was."""
    for w in caught:
        if isinstance(w.message, MalformedLinesWarning):
            skipped.extend(w.message.skipped)
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return skipped


def _read_report(
    source: str,
    fmt: str,
    detected_by: str,
    encoding: str,
    n_read: int,
    R: Rankings,
    skipped: list[SkippedLine],
    **extra: object,
) -> ReadReport:
    """The :class:`ReadReport` of ``R`` read from ``n_read`` rows (every row used is a
    ranking), with the ``skipped`` lines refused; ``extra``: the optional fields."""
    return ReadReport(
        source=source,
        format=fmt,
        detected_by=detected_by,
        encoding=encoding,
        n_rows_read=n_read,
        n_rows_used=R.n_rankings,
        n_rankings=R.n_rankings,
        n_items=R.n_items,
        refused=tuple(skipped),
        **extra,
    )


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
    skipped = _merge_skipped(caught, [])
    if skipped:
        warnings.warn(MalformedLinesWarning(source, skipped), stacklevel=2)
    names = items or [f"label {j + 1}" for j in range(Y.n_items)]
    Y = _named(Y, names, source)
    if not return_report:
        return X, Y
    n_read = sum(1 for ln in _split_lines(text) if ln.strip()) - 1
    report = _read_report(
        source, "label-ranking", "format=", used, n_read, Y, skipped,
        notes=(f"{X.shape[1]} features",),
    )  # fmt: skip
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
    if not meta.old_format:  # the order lines: every non-blank line that is not metadata
        ctx.row_lines = [
            k
            for k, ln in enumerate(_split_lines(text), start=1)
            if ln.strip() and not ln.lstrip().startswith("#")
        ]
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
    ctx.row_lines = _lines_after_header(text)
    n_read = len(ctx.row_lines)
    return _named(R, names, ctx.source), n_read


def _label_ranking(text: str, ctx: _Context) -> tuple[Rankings, int]:
    from rankclust.io.label_ranking_csv import read_label_ranking_csv

    _, Y = read_label_ranking_csv(
        NamedText(text, ctx.source),
        kind=ctx.kind or "subset",
        strict=ctx.strict,
        limits=ctx.budget.limits,
    )
    ctx.row_lines = _lines_after_header(text)
    names = ctx.items or [f"label {j + 1}" for j in range(Y.n_items)]
    return _named(Y, names, ctx.source), len(ctx.row_lines)


def _lines_after_header(text: str) -> list[int]:
    """The non-blank lines after the first non-blank one (a header line)."""
    lines = [k for k, ln in enumerate(_split_lines(text), start=1) if ln.strip()]
    return lines[1:]
